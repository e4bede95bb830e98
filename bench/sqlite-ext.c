/*
 * sqlite-ext.c: sht-sqlite-ext-bench, the SQLite extension (sqlite/)
 * against the C calls it makes, on one history file (docs/SQL.md,
 * "Performance").
 *
 *   sht-sqlite-ext-bench MODULE HISTORY [--queries N] [--rounds R]
 *                        [--seed S] [--plain] [--window W]
 *
 * Point queries (the state of one attribute at t), for N random (quark,
 * t) pairs, each method R rounds (methods interleaved round by round):
 *   c          sht_state_query (the C call)
 *   sql_quark  SELECT value FROM sht_intervals(?) WHERE quark = ? AND
 *              start <= ? AND "end" >= ?   (prepared once; bind, step,
 *              reset per query)
 *   sql_path   the same with path = ?
 *   stmt       SQLite's per-statement cost: the same statement shape on
 *              a plain table of one row
 *   plain      a plain SQLite table of the same intervals with a (quark,
 *              start) index, the best query for it (ORDER BY start DESC
 *              LIMIT 1), with --plain
 * Window queries (2D): the intervals of 8 attributes over a window of W
 * ns (default: 1/100 of the history), C sht_state_query_2d against SQL
 * (path GLOB ... AND "end" >= ? AND start <= ?), rows fetched.
 * Every SQL answer is checked against the C call's.
 *
 * Prints one JSON object: per method the median over rounds of the
 * per-query CPU time (thread CPU: the machine may be shared) and wall
 * time, in ns; ratio_point = (sql_quark - stmt) / c, the target
 * being <= 3; the load average at the start.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "sht/sht.h"

#define MAX_ROUNDS 101

struct bench {
	sqlite3 *db;
	sht_state *ss;
	sht_result *res;
	const char *file;
	size_t n;
	sht_quark *q;
	sht_time *t;
	char **paths;
	sht_time start, end;
	uint64_t nattrs;
	int64_t checked, wrong;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sht-sqlite-ext-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static double now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die("prepare: %s", sqlite3_errmsg(db));
	return st;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		die("%s", err);
}

/* ---- the methods: each runs query i once ------------------------------------ */

static int64_t c_value;

static void run_c(struct bench *b, size_t i)
{
	const sht_interval *iv;

	if (sht_state_query(b->ss, b->q[i], b->t[i], b->res) != SHT_OK)
		die("query: %s", sht_errmsg());
	iv = sht_result_at(b->res, 0);
	c_value = iv->value.type == SHT_TYPE_INT32 ? iv->value.u.i32
		  : iv->value.type == SHT_TYPE_INT64 ? iv->value.u.i64 : -1;
}

/* Step a point statement; check its value against the C call's. */
static void step_point(struct bench *b, sqlite3_stmt *st, size_t i, int check)
{
	int rc = sqlite3_step(st);
	int64_t v = -1;

	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_ROW)
		die("step: %s", sqlite3_errmsg(b->db));
	sqlite3_reset(st);
	if (check) {
		run_c(b, i);
		b->checked++;
		b->wrong += v != c_value;
	}
}

static void run_sql(struct bench *b, sqlite3_stmt *st, size_t i, int by_path, int check)
{
	if (by_path)
		sqlite3_bind_text(st, 2, b->paths[i], -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, b->q[i]);
	sqlite3_bind_int64(st, 3, b->t[i]);
	step_point(b, st, i, check);
}

/* ---- timing ----------------------------------------------------------------- */

enum { M_C, M_SQL_QUARK, M_SQL_PATH, M_STMT, M_PLAIN, M_COUNT };
static const char *const mname[M_COUNT] = { "c", "sql_quark", "sql_path", "stmt", "plain" };

struct timing {
	double cpu[MAX_ROUNDS], wall[MAX_ROUNDS];
};

static void time_point(struct bench *b, int m, sqlite3_stmt *st, struct timing *tm, int round)
{
	double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);

	for (size_t i = 0; i < b->n; i++) {
		switch (m) {
		case M_C: run_c(b, i); break;
		case M_SQL_QUARK: run_sql(b, st, i, 0, 0); break;
		case M_SQL_PATH: run_sql(b, st, i, 1, 0); break;
		case M_STMT:
			sqlite3_bind_int64(st, 2, 0);
			sqlite3_bind_int64(st, 3, 5);
			if (sqlite3_step(st) != SQLITE_ROW)
				die("one-row table: %s", sqlite3_errmsg(b->db));
			sqlite3_reset(st);
			break;
		default:
			sqlite3_bind_int64(st, 1, b->q[i]);
			sqlite3_bind_int64(st, 2, b->t[i]);
			if (sqlite3_step(st) != SQLITE_ROW)
				die("plain table: %s", sqlite3_errmsg(b->db));
			sqlite3_reset(st);
			break;
		}
	}
	tm->cpu[round] = (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / (double)b->n;
	tm->wall[round] = (now_ns(CLOCK_MONOTONIC) - w0) / (double)b->n;
}

/* ---- setup --------------------------------------------------------------------- */

static char *path_of(sht_state *ss, sht_quark q)
{
	size_t need = 0;
	char one[1], *p;

	sht_state_attr_path(ss, q, one, 1, &need);
	p = malloc(need + 1);
	if (!p || sht_state_attr_path(ss, q, p, need + 1, &need) != SHT_OK)
		die("path: %s", sht_errmsg());
	return p;
}

static void draw(struct bench *b, uint64_t seed)
{
	sht_quark found;

	b->q = malloc(b->n * sizeof *b->q);
	b->t = malloc(b->n * sizeof *b->t);
	b->paths = malloc(b->n * sizeof *b->paths);
	if (!b->q || !b->t || !b->paths)
		die("%s", "out of memory");
	for (size_t i = 0; i < b->n; i++) {
		/* Quarks whose path names them (no "/" inside a name). */
		do {
			b->q[i] = (sht_quark)(rng(&seed) % b->nattrs);
			b->paths[i] = path_of(b->ss, b->q[i]);
			if (sht_state_quark_path(b->ss, b->paths[i], false, &found) == SHT_OK &&
			    found == b->q[i])
				break;
			free(b->paths[i]);
		} while (1);
		b->t[i] = b->start + (sht_time)(rng(&seed) % (uint64_t)(b->end - b->start + 1));
	}
}

/* A plain table of every interval, indexed on (quark, start). */
static void load_plain(struct bench *b)
{
	sqlite3_stmt *st;
	char sql[4300];

	exec(b->db, "CREATE TABLE plain(quark INTEGER, start INTEGER, \"end\" INTEGER, value)");
	snprintf(sql, sizeof sql, "INSERT INTO plain SELECT quark, start, \"end\", value "
		 "FROM sht_intervals('%s')", b->file);
	exec(b->db, "BEGIN");
	exec(b->db, sql);
	exec(b->db, "CREATE INDEX plain_qs ON plain(quark, start); COMMIT");
	st = prepare(b->db, "SELECT count(*) FROM plain");
	sqlite3_step(st);
	fprintf(stderr, "plain table: %lld intervals\n", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
}

/* ---- window queries ------------------------------------------------------------- */

struct window_result {
	double c_cpu, sql_cpu, rows;
};

static void windows(struct bench *b, sht_time w, int rounds, uint64_t seed,
		    struct window_result *wr)
{
	sqlite3_stmt *st = prepare(b->db, "SELECT quark, start, \"end\", value FROM "
				   "sht_intervals(?1) WHERE quark IN (SELECT value FROM "
				   "json_each(?2)) AND \"end\" >= ?3 AND start <= ?4");
	double cc[MAX_ROUNDS], sc[MAX_ROUNDS];
	sht_quark sel[8];
	char json[256];
	sht_query2d q;
	long rows = 0;

	sqlite3_bind_text(st, 1, b->file, -1, SQLITE_STATIC);
	for (int r = 0; r < rounds; r++) {
		size_t len = 0;
		double c0;

		for (int k = 0; k < 8; k++) {
			sel[k] = (sht_quark)(rng(&seed) % b->nattrs);
			len += (size_t)snprintf(json + len, sizeof json - len, "%s%u", k ? "," : "[", sel[k]);
		}
		snprintf(json + len, sizeof json - len, "]");
		memset(&q, 0, sizeof q);
		q.quarks = sel;
		q.n_quarks = 8;
		q.t1 = b->start + (sht_time)(rng(&seed) % (uint64_t)(b->end - b->start - w + 1));
		q.t2 = q.t1 + w;
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		if (sht_state_query_2d(b->ss, &q, b->res) != SHT_OK)
			die("2d: %s", sht_errmsg());
		cc[r] = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		sqlite3_bind_text(st, 2, json, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 3, q.t1);
		sqlite3_bind_int64(st, 4, q.t2);
		c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		rows = 0;
		while (sqlite3_step(st) == SQLITE_ROW)
			rows++;
		sc[r] = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		sqlite3_reset(st);
		b->checked++;
		b->wrong += (size_t)rows != sht_result_count(b->res);
		wr->rows += (double)rows / rounds;
	}
	sqlite3_finalize(st);
	wr->c_cpu = median(cc, rounds);
	wr->sql_cpu = median(sc, rounds);
}

/* ---- main ------------------------------------------------------------------------- */

static double load1(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct timing tm[M_COUNT];
	struct window_result wr = { 0, 0, 0 };
	sqlite3_stmt *st[M_COUNT] = { NULL };
	uint64_t seed = 42;
	int rounds = 11, plain = 0;
	sht_time w = 0;
	double l1 = load1(), c_cpu, q_cpu, s_cpu;
	char *err = NULL;

	memset(&b, 0, sizeof b);
	b.n = 2000;
	if (argc < 3)
		die("%s", "usage: sht-sqlite-ext-bench MODULE HISTORY [--queries N] [--rounds R] "
		    "[--seed S] [--plain] [--window W]");
	b.file = argv[2];
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--plain") == 0)
			plain = 1;
		else if (i + 1 < argc && strcmp(argv[i], "--queries") == 0)
			b.n = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0)
			rounds = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--window") == 0)
			w = strtoll(argv[++i], NULL, 10);
		else
			die("unknown option %s", argv[i]);
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || b.n == 0)
		die("%s", "--rounds 1..101, --queries >= 1");
	if (sht_state_open(b.file, NULL, &b.ss) != SHT_OK)
		die("open: %s", sht_errmsg());
	b.res = sht_result_create();
	b.start = sht_state_start(b.ss);
	b.end = sht_state_end(b.ss);
	b.nattrs = sht_state_attr_count(b.ss);
	if (!w)
		w = (b.end - b.start) / 100 + 1;
	draw(&b, seed);
	if (sqlite3_open(":memory:", &b.db) != SQLITE_OK)
		die("%s", "sqlite3_open");
	sqlite3_enable_load_extension(b.db, 1);
	if (sqlite3_load_extension(b.db, argv[1], NULL, &err) != SQLITE_OK)
		die("load: %s", err);
	st[M_SQL_QUARK] = prepare(b.db, "SELECT value FROM sht_intervals(?1) WHERE quark = ?2 "
				  "AND start <= ?3 AND \"end\" >= ?3");
	st[M_SQL_PATH] = prepare(b.db, "SELECT value FROM sht_intervals(?1) WHERE path = ?2 "
				 "AND start <= ?3 AND \"end\" >= ?3");
	for (int m = M_SQL_QUARK; m <= M_SQL_PATH; m++)
		sqlite3_bind_text(st[m], 1, b.file, -1, SQLITE_STATIC);
	exec(b.db, "CREATE TABLE one(quark INTEGER, start INTEGER, \"end\" INTEGER, value);"
		   "INSERT INTO one VALUES (0, 0, 10, 1)");
	st[M_STMT] = prepare(b.db, "SELECT value FROM one WHERE quark = ?2 AND start <= ?3 "
			     "AND \"end\" >= ?3");
	if (plain) {
		load_plain(&b);
		st[M_PLAIN] = prepare(b.db, "SELECT value, \"end\" FROM plain WHERE quark = ?1 "
				      "AND start <= ?2 ORDER BY start DESC LIMIT 1");
	}
	/* Every SQL answer once against the C call's, before timing. */
	for (size_t i = 0; i < b.n; i++) {
		run_sql(&b, st[M_SQL_QUARK], i, 0, 1);
		run_sql(&b, st[M_SQL_PATH], i, 1, 1);
	}
	for (int r = 0; r < rounds; r++)
		for (int m = 0; m < M_COUNT; m++)
			if (st[m] || m == M_C)
				time_point(&b, m, st[m], &tm[m], r);
	windows(&b, w, rounds, seed + 1, &wr);
	printf("{\"history\":\"%s\",\"attributes\":%" PRIu64 ",\"queries\":%zu,\"rounds\":%d,"
	       "\"sqlite_version\":\"%s\",\"load1\":%.2f", b.file, b.nattrs, b.n, rounds,
	       sqlite3_libversion(), l1);
	for (int m = 0; m < M_COUNT; m++) {
		if (!st[m] && m != M_C)
			continue;
		printf(",\"%s_cpu_ns\":%.0f,\"%s_wall_ns\":%.0f", mname[m], median(tm[m].cpu, rounds),
		       mname[m], median(tm[m].wall, rounds));
	}
	c_cpu = median(tm[M_C].cpu, rounds);
	q_cpu = median(tm[M_SQL_QUARK].cpu, rounds);
	s_cpu = median(tm[M_STMT].cpu, rounds);
	printf(",\"ratio_point\":%.2f,\"window_ns\":%lld,\"window_rows\":%.1f,"
	       "\"window_c_cpu_ns\":%.0f,\"window_sql_cpu_ns\":%.0f,\"window_ratio\":%.2f,"
	       "\"checked\":%" PRId64 ",\"wrong\":%" PRId64 "}\n",
	       (q_cpu - s_cpu) / c_cpu, (long long)w, wr.rows, wr.c_cpu, wr.sql_cpu,
	       wr.sql_cpu / wr.c_cpu, b.checked, b.wrong);
	for (int m = 0; m < M_COUNT; m++)
		sqlite3_finalize(st[m]);
	sqlite3_close(b.db);
	for (size_t i = 0; i < b.n; i++)
		free(b.paths[i]);
	free(b.paths);
	free(b.q);
	free(b.t);
	sht_result_destroy(b.res);
	sht_state_close(b.ss);
	return b.wrong ? 1 : 0;
}
