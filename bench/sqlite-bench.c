/*
 * sqlite-bench.c: the generic alternative of the thesis's §4.6, updated:
 * the intervals of a synthetic workload (the same generator sht-bench
 * uses, so both see identical intervals) loaded into SQLite, indexed by a
 * (quark, start) B-tree or by the R*Tree module, and queried the way
 * sht-bench queries a history file.
 *
 *   sht-sqlite-bench --index btree|btree-wr|rtree --workload staircase|churn
 *                    --attrs A [--queries N] [--full-queries F] [--db PATH]
 *                    [--seed S] [--check] [--keep] [--cache-mib M]
 *
 * Output: one JSON line on stdout.  Exit status 1 if an answer was wrong,
 * 2 on errors.  docs/BENCH-SQLITE.md gives the schema, the settings and
 * the queries.
 *
 * Design notes:
 *  (1) Build = open + load (every interval inserted in one transaction,
 *      prepared statement) + index (CREATE INDEX, or filling the R*Tree
 *      from the loaded table, same transaction) + commit + fsync of the
 *      file (sht's builder syncs its file too).  journal_mode=OFF and
 *      synchronous=OFF while loading: nothing to roll back to in a fresh
 *      file, and the fsync is done once, at the end.
 *  (2) The queries run on a new connection after the build (the file's
 *      pages are in the OS cache, as for sht-bench's warm queries).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench-json.h"
#include "bench-util.h"
#include "sqlite-bench.h"

void sb_sql_ok(sqlite3 *db, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE)
		die("%s: %s", what, db ? sqlite3_errmsg(db)
					  : sqlite3_errstr(rc));
}

void sb_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		die("%s: %s", sql, msg ? msg : "error");
}

sqlite3_stmt *sb_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	sb_sql_ok(db, sqlite3_prepare_v2(db, sql, -1, &st, NULL), sql);
	return st;
}

void sb_pragmas(sqlite3 *db, const struct sb_opts *o, int load)
{
	char sql[96];

	snprintf(sql, sizeof sql, "PRAGMA cache_size = -%" PRId64,
		 o->cache_kib);
	sb_exec(db, sql);
	if (load) {
		sb_exec(db, "PRAGMA page_size = 4096");
		sb_exec(db, "PRAGMA journal_mode = OFF");
		sb_exec(db, "PRAGMA synchronous = OFF");
	}
}

/* ---- the load ---------------------------------------------------------- */

struct load_ctx {
	sqlite3 *db;
	sqlite3_stmt *ins;
	uint64_t n;
};

static sht_err insert_one(void *ctx, const sht_interval *iv)
{
	struct load_ctx *c = ctx;
	sqlite3_stmt *st = c->ins;
	int k = 1;
	int rc;

	if (sqlite3_bind_parameter_count(st) == 5)
		sqlite3_bind_int64(st, k++, (sqlite3_int64)c->n + 1);
	sqlite3_bind_int64(st, k++, iv->quark);
	sqlite3_bind_int64(st, k++, iv->start);
	sqlite3_bind_int64(st, k++, iv->end);
	switch (iv->value.type) {
	case SHT_TYPE_NULL: sqlite3_bind_null(st, k); break;
	case SHT_TYPE_INT32: sqlite3_bind_int(st, k, iv->value.u.i32); break;
	case SHT_TYPE_INT64: sqlite3_bind_int64(st, k, iv->value.u.i64); break;
	case SHT_TYPE_DOUBLE: sqlite3_bind_double(st, k, iv->value.u.d); break;
	case SHT_TYPE_STRING:
		sqlite3_bind_text(st, k, iv->value.u.str, (int)iv->value.len,
				  SQLITE_TRANSIENT);
		break;
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		die("insert #%" PRIu64 ": %s", c->n,
		       sqlite3_errmsg(c->db));
	c->n++;
	return SHT_OK;
}

/* The schemas (docs/BENCH-SQLITE.md).  "end" is a column name SQLite
 * accepts unquoted, like the other keywords it can fall back on. */
static const char *const BTREE_SCHEMA =
	"CREATE TABLE iv(quark INTEGER NOT NULL, start INTEGER NOT NULL, "
	"end INTEGER NOT NULL, value)";
static const char *const BTREE_INSERT =
	"INSERT INTO iv(quark, start, end, value) VALUES (?1, ?2, ?3, ?4)";
static const char *const BTREE_INDEX =
	"CREATE INDEX iv_quark_start ON iv(quark, start)";
static const char *const WR_SCHEMA =
	"CREATE TABLE iv(quark INTEGER NOT NULL, start INTEGER NOT NULL, "
	"end INTEGER NOT NULL, value, PRIMARY KEY (quark, start)) "
	"WITHOUT ROWID";
static const char *const RTREE_SCHEMA =
	"CREATE TABLE iv(id INTEGER PRIMARY KEY, quark INTEGER NOT NULL, "
	"start INTEGER NOT NULL, end INTEGER NOT NULL, value); "
	"CREATE VIRTUAL TABLE rt USING rtree(id, qmin, qmax, tmin, tmax)";
static const char *const RTREE_INSERT =
	"INSERT INTO iv(id, quark, start, end, value) "
	"VALUES (?1, ?2, ?3, ?4, ?5)";
static const char *const RTREE_INDEX =
	"INSERT INTO rt(id, qmin, qmax, tmin, tmax) "
	"SELECT id, quark, quark, start, end FROM iv";

static void remove_db(const char *path)
{
	char side[4200];

	unlink(path);
	snprintf(side, sizeof side, "%s-journal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
}

static void sync_file(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fsync(fd) < 0)
		die("fsync %s: %s", path, strerror(errno));
	close(fd);
}

static void build(const struct sb_opts *o, struct sb_result *res)
{
	struct load_ctx c = { NULL, NULL, 0 };
	struct stat sb;
	double t0, t1, t2, t3, t4, t5, c0;
	sht_err err;

	remove_db(o->db);
	c0 = cpu_s();
	t0 = now_s();
	sb_sql_ok(NULL, sqlite3_open(o->db, &c.db), o->db);
	sb_pragmas(c.db, o, 1);
	sb_exec(c.db, o->rtree ? RTREE_SCHEMA : o->wr ? WR_SCHEMA
						    : BTREE_SCHEMA);
	c.ins = sb_prepare(c.db, o->rtree ? RTREE_INSERT : BTREE_INSERT);
	sb_exec(c.db, "BEGIN");
	t1 = now_s();
	err = shtgen_wl_run(&o->wl, insert_one, &c);
	if (err < 0)
		die("generator: %s (%s)", sht_strerror(err), sht_errmsg());
	sqlite3_finalize(c.ins);
	t2 = now_s();
	if (!o->wr)             /* WITHOUT ROWID: the table is the index */
		sb_exec(c.db, o->rtree ? RTREE_INDEX : BTREE_INDEX);
	t3 = now_s();
	sb_exec(c.db, "COMMIT");
	sb_sql_ok(c.db, sqlite3_close(c.db), "close");
	t4 = now_s();
	sync_file(o->db);
	t5 = now_s();

	res->intervals = c.n;
	res->load_s = t2 - t1;
	res->index_s = t3 - t2;
	res->commit_s = t4 - t3;
	res->sync_s = t5 - t4;
	res->build_s = t5 - t0;
	res->build_cpu_s = cpu_s() - c0;
	if (stat(o->db, &sb) < 0)
		die("stat %s: %s", o->db, strerror(errno));
	res->bytes = (uint64_t)sb.st_size;
}

/* --tamper (for the tests: the checks must catch it), after the build:
 * 1 changes the value of one interval in 50, 2 the start of one in 50
 * (which only the comparison with sht's history sees). */
static void tamper(const struct sb_opts *o)
{
	sqlite3 *db;

	sb_sql_ok(NULL, sqlite3_open(o->db, &db), o->db);
	sb_exec(db, o->tamper == 1
		? "UPDATE iv SET value = 123456789 WHERE "
		  "(quark + start / 1000) % 50 = 7"
		: "UPDATE iv SET start = start + 1 WHERE "
		  "(quark + start / 1000) % 50 = 7 AND start < end");
	sb_sql_ok(db, sqlite3_close(db), "close");
}

/* ---- output ------------------------------------------------------------- */

static void print_json(const struct sb_opts *o, const struct sb_result *r)
{
	json_t *j = bj_object();

	bj_str(j, "system", o->rtree ? "sqlite-rtree" : o->wr ? "sqlite-btree-wr"
							 : "sqlite-btree");
	bj_str(j, "workload", shtgen_wl_name(&o->wl));
	bj_int(j, "attrs", (int64_t)(o->wl.kind == SHTGEN_WL_STAIRCASE
				     ? o->wl.st.attributes : o->wl.ch.threads));
	bj_int(j, "quarks", (int64_t)o->quarks);
	bj_int(j, "intervals", (int64_t)r->intervals);
	bj_num(j, "build_s", r->build_s);
	bj_num(j, "load_s", r->load_s);
	bj_num(j, "index_s", r->index_s);
	bj_num(j, "commit_s", r->commit_s);
	bj_num(j, "sync_s", r->sync_s);
	bj_num(j, "build_cpu_s", r->build_cpu_s);
	bj_int(j, "bytes", (int64_t)r->bytes);
	bj_num(j, "bytes_per_interval", (double)r->bytes / (double)r->intervals);
	bj_num(j, "single_mean_us", r->single_mean_us);
	bj_num(j, "single_p50_us", r->single_p50_us);
	bj_num(j, "single_p99_us", r->single_p99_us);
	bj_num(j, "single_max_us", r->single_max_us);
	bj_num(j, "single_cpu_us", r->single_cpu_us);
	bj_num(j, "full_ms", r->full_ms);
	bj_num(j, "full_p99_ms", r->full_p99_ms);
	bj_num(j, "full_cpu_ms", r->full_cpu_ms);
	if (!o->rtree) {
		bj_num(j, "full_sql_ms", r->full_sql_ms);
		bj_num(j, "full_sql_cpu_ms", r->full_sql_cpu_ms);
	}
	bj_num(j, "full_items", r->full_items);
	bj_num(j, "load1", r->load1);
	bj_int(j, "queries", (int64_t)o->queries);
	bj_int(j, "full_queries", (int64_t)o->full_queries);
	bj_int(j, "seed", (int64_t)o->seed);
	bj_int(j, "cache_mib", o->cache_kib / 1024);
	bj_int(j, "page_size", 4096);
	bj_str(j, "sqlite_version", sqlite3_libversion());
	bj_int(j, "mismatches", (int64_t)r->mismatches);
	bj_int(j, "checked_answers", (int64_t)r->checked_answers);
	bj_bool(j, "checked", o->check);
	bj_print(j);
}

/* ---- command line ------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs(
"usage: sht-sqlite-bench --index btree|btree-wr|rtree\n"
"                        --workload staircase|churn --attrs A [options]\n"
"  --index I            btree: table + (quark, start) index; btree-wr: the\n"
"                       table clustered on (quark, start), WITHOUT ROWID;\n"
"                       rtree: table + R*Tree of (quark, quark, start, end)\n"
"  --attrs A            staircase attributes, or churn threads (k, m: x1000)\n"
"  --intervals I        staircase intervals per attribute (20)\n"
"  --queries N          warm single queries, timed (10000)\n"
"  --full-queries F     warm full queries, timed (200, fewer for large A:\n"
"                       2000000 / quarks, at least 5)\n"
"  --db PATH            the database file ($TMPDIR/sht-sqlite-<pid>.db);\n"
"                       overwritten, removed at the end unless --keep\n"
"  --keep               keep the database file\n"
"  --cache-mib M        SQLite page cache, MiB (256, sht's reader default)\n"
"  --seed S             query seed, as sht-bench's (1)\n"
"  --check              compare every answer with sht's own history of\n"
"                       the workload (built in a temporary file)\n"
"  --tamper value|bounds  (tests) change some values or some interval\n"
"                       starts after the build: answers must be found wrong\n"
"Output: one JSON line.  Exit status 1 if an answer was wrong, 2 on\n"
"errors.\n", f);
}

static void set_workload(struct sb_opts *o, const char *wl, uint64_t attrs,
			 uint64_t intervals)
{
	if (!wl || !attrs)
		die("--workload and --attrs A >= 1 are required "
		       "(try --help)");
	if (!strcmp(wl, "staircase")) {
		o->wl.kind = SHTGEN_WL_STAIRCASE;
		o->wl.st.attributes = attrs;
		o->wl.st.intervals = (uint32_t)intervals;
		o->wl.st.step = 1000;
		if (intervals < 1 || intervals > UINT32_MAX)
			die("--intervals: 1 .. %u", UINT32_MAX);
	} else if (!strcmp(wl, "churn")) {
		o->wl.kind = SHTGEN_WL_CHURN;
		o->wl.ch.threads = attrs;
	} else {
		die("--workload: staircase or churn, not '%s'", wl);
	}
	o->end = shtgen_wl_end(&o->wl);
	o->quarks = shtgen_wl_quarks(&o->wl);
	if (o->end <= 0 || o->quarks == 0 || shtgen_wl_intervals(&o->wl) == 0)
		die("invalid workload size %" PRIu64, attrs);
}

static const struct option options[] = {
	{ "index", required_argument, NULL, 'i' },
	{ "workload", required_argument, NULL, 'w' },
	{ "attrs", required_argument, NULL, 'a' },
	{ "intervals", required_argument, NULL, 'I' },
	{ "queries", required_argument, NULL, 'q' },
	{ "full-queries", required_argument, NULL, 'f' },
	{ "db", required_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ "cache-mib", required_argument, NULL, 'c' },
	{ "seed", required_argument, NULL, 's' },
	{ "check", no_argument, NULL, 'C' },
	{ "tamper", required_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(int argc, char **argv, struct sb_opts *o)
{
	const char *wl = NULL, *index = NULL, *db = NULL;
	uint64_t attrs = 0, intervals = 20, cache_mib = 256;
	int have_full = 0, k;

	memset(o, 0, sizeof *o);
	o->queries = 10000;
	o->seed = 1;
	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'i': index = optarg; break;
		case 'w': wl = optarg; break;
		case 'a': attrs = parse_count("--attrs", optarg); break;
		case 'I': intervals = parse_count("--intervals", optarg); break;
		case 'q': o->queries = parse_count("--queries", optarg); break;
		case 'f':
			o->full_queries = parse_count("--full-queries", optarg);
			have_full = 1;
			break;
		case 'd': db = optarg; break;
		case 'k': o->keep = 1; break;
		case 'c': cache_mib = parse_count("--cache-mib", optarg); break;
		case 's': o->seed = parse_count("--seed", optarg); break;
		case 'C': o->check = 1; break;
		case 't':
			o->tamper = !strcmp(optarg, "value") ? 1 :
				    !strcmp(optarg, "bounds") ? 2 : 0;
			if (!o->tamper)
				usage_error("--tamper: value or bounds, not "
					    "'%s'", optarg);
			break;
		case 'h': usage(stdout); exit(0);
		default: bad_option();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!index)
		die("--index btree|rtree is required (try --help)");
	if (!strcmp(index, "rtree"))
		o->rtree = 1;
	else if (!strcmp(index, "btree-wr"))
		o->wr = 1;
	else if (strcmp(index, "btree") != 0)
		die("--index: btree, btree-wr or rtree, not '%s'", index);
	set_workload(o, wl, attrs, intervals);
	if (o->queries < 1 || (have_full && o->full_queries < 1))
		die("--queries and --full-queries must be >= 1");
	if (!have_full) {
		o->full_queries = 2000000 / o->quarks;
		o->full_queries = o->full_queries > 200 ? 200 :
				  o->full_queries < 5 ? 5 : o->full_queries;
	}
	if (cache_mib < 1 || cache_mib > (1u << 20))
		die("--cache-mib: 1 .. 1048576");
	o->cache_kib = (int64_t)cache_mib * 1024;
	if (db) {
		if (strlen(db) >= sizeof o->db - 16)
			die("--db: path too long");
		snprintf(o->db, sizeof o->db, "%s", db);
	} else {
		snprintf(o->db, sizeof o->db, "%s/sht-sqlite-%ld.db",
			 tmp_dir(), (long)getpid());
	}
	snprintf(o->sht_path, sizeof o->sht_path, "%s.sht", o->db);
}

int main(int argc, char **argv)
{
	struct sb_opts o;
	struct sb_result r;
	int rc;

	parse_args(argc, argv, &o);
	memset(&r, 0, sizeof r);
	r.load1 = load1();
	build(&o, &r);
	if (o.tamper)
		tamper(&o);
	rc = sb_queries(&o, &r);
	if (!o.keep)
		remove_db(o.db);
	if (rc < 0)
		return 2;
	print_json(&o, &r);
	if (r.intervals != shtgen_wl_intervals(&o.wl)) {
		fprintf(stderr, "sht-sqlite-bench: %" PRIu64 " intervals "
			"loaded, the workload has %" PRIu64 "\n", r.intervals,
			shtgen_wl_intervals(&o.wl));
		return 1;
	}
	if (r.mismatches) {
		fprintf(stderr, "sht-sqlite-bench: %" PRIu64 " wrong answers\n",
			r.mismatches);
		return 1;
	}
	return 0;
}
