/*
 * sqlite-bench.h: shared by the two files of sht-sqlite-bench
 * (sqlite-bench.c: options, the load, the output; sqlite-query.c: the
 * queries and their checks).  Internal to the benchmark.
 */
#ifndef SHT_SQLITE_BENCH_H
#define SHT_SQLITE_BENCH_H

#include <stdint.h>

#include <sqlite3.h>

#include "sht/sht.h"
#include <shtgen/workload.h>

/* Options and the workload they describe. */
struct sb_opts {
	int rtree;              /* 0: (quark, start) B-tree, 1: R*Tree */
	int wr;                 /* B-tree: the table itself clustered on
				   (quark, start), WITHOUT ROWID */
	shtgen_workload wl;
	sht_time end;           /* history [0, end] */
	uint64_t quarks;        /* quarks 0 .. quarks-1 */
	uint64_t queries;       /* timed single queries (warm) */
	uint64_t full_queries;  /* timed full queries (warm) */
	uint64_t seed;
	int check;              /* compare every answer with sht's history */
	int keep;               /* keep the database file */
	int tamper;             /* tests: corrupt values after the build */
	int64_t cache_kib;      /* PRAGMA cache_size = -cache_kib */
	char db[4096];
	char sht_path[4112];    /* --check: sht's history of the workload */
};

/* What a run measured. */
struct sb_result {
	uint64_t intervals;
	double build_s, load_s, index_s, commit_s, sync_s;
	double build_cpu_s;               /* CPU time of the build */
	uint64_t bytes;
	double single_mean_us, single_p50_us, single_p99_us, single_max_us;
	double full_ms, full_p99_ms;      /* B-tree: loop per quark */
	double full_sql_ms;               /* B-tree: one SQL statement */
	/* CPU time per query (the machine may be shared: the wall clock
	 * then includes waits for a CPU); singles include their check. */
	double single_cpu_us, full_cpu_ms, full_sql_cpu_ms;
	double full_items;                /* mean rows per full query */
	uint64_t single_not_found;
	uint64_t mismatches;
	uint64_t checked_answers;         /* compared with sht's history */
	double load1;                     /* load average at the start */
};

/* One answer: the interval of a quark at t, as SQLite returned it. */
struct sb_answer {
	int found;
	sht_quark quark;
	sht_time start, end;
	int type;               /* SQLITE_NULL, _INTEGER, _FLOAT, _TEXT */
	int64_t i;
	double d;
	uint32_t len;           /* text: bytes (may exceed sizeof str) */
	char str[28];
};

/* CPU time of the process, seconds. */
static inline double sb_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Errors: print "sht-sqlite-bench: ..." and exit 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						  noreturn));
/* sb_die with the database's message if rc is not SQLITE_OK/ROW/DONE. */
void sb_sql_ok(sqlite3 *db, int rc, const char *what);
void sb_exec(sqlite3 *db, const char *sql);
sqlite3_stmt *sb_prepare(sqlite3 *db, const char *sql);
/* The connection settings of both phases (see docs/BENCH-SQLITE.md). */
void sb_pragmas(sqlite3 *db, const struct sb_opts *o, int load);

/* Warm single and full queries on the database built at o->db, checked;
 * fills the query fields of res.  Returns 0, or -1 on an error. */
int sb_queries(const struct sb_opts *o, struct sb_result *res);

#endif /* SHT_SQLITE_BENCH_H */
