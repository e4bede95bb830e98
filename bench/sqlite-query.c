/*
 * sqlite-query.c: the warm queries of sht-sqlite-bench, drawn as
 * sht-bench's store benchmark draws them (same generator, same order of
 * draws: 1000 warm-up single queries, the timed single queries, then 20
 * warm-up full queries and the timed ones, each followed by 64 quarks
 * drawn to check it), so that for one seed both ask the same questions.
 *
 * Queries (docs/BENCH-SQLITE.md):
 *   B-tree single: the last interval of the quark starting at or before
 *     t, through the (quark, start) index, then its end checked >= t;
 *   B-tree full: that query for every quark (full_ms), and one SQL
 *     statement doing the same over a recursive list of quarks
 *     (full_sql_ms);
 *   R*Tree single: the boxes containing (q, t), joined with the table of
 *     exact bounds and values (the R*Tree keeps 32-bit floats, rounded
 *     outwards: its candidates are filtered on the exact bounds);
 *   R*Tree full: the boxes containing t, joined and filtered likewise.
 * Every answer's value is checked against the workload's oracle; with
 * --check every answer is compared with sht's own history (bounds too).
 * Only the query (step, reading the columns) is inside the clock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "rng.h"
#include "sqlite-bench.h"

static const char *const BTREE_SINGLE =
	"SELECT quark, start, end, value FROM iv WHERE quark = ?1 AND "
	"start <= ?2 ORDER BY start DESC LIMIT 1";
static const char *const BTREE_FULL_SQL =
	"WITH RECURSIVE q(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM q "
	"WHERE x + 1 < ?2) "
	"SELECT iv.quark, iv.start, iv.end, iv.value FROM q JOIN iv ON "
	"iv.rowid = (SELECT rowid FROM iv WHERE quark = q.x AND start <= ?1 "
	"ORDER BY start DESC LIMIT 1) WHERE iv.end >= ?1";
static const char *const WR_FULL_SQL =
	"WITH RECURSIVE q(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM q "
	"WHERE x + 1 < ?2) "
	"SELECT iv.quark, iv.start, iv.end, iv.value FROM q JOIN iv ON "
	"iv.quark = q.x AND iv.start = (SELECT max(start) FROM iv WHERE "
	"quark = q.x AND start <= ?1) WHERE iv.end >= ?1";
static const char *const RTREE_SINGLE =
	"SELECT v.quark, v.start, v.end, v.value FROM rt JOIN iv v ON "
	"v.id = rt.id WHERE rt.qmin <= ?1 AND rt.qmax >= ?1 AND "
	"rt.tmin <= ?2 AND rt.tmax >= ?2 AND v.quark = ?1 AND "
	"v.start <= ?2 AND v.end >= ?2";
static const char *const RTREE_FULL =
	"SELECT v.quark, v.start, v.end, v.value FROM rt JOIN iv v ON "
	"v.id = rt.id WHERE rt.tmin <= ?1 AND rt.tmax >= ?1 AND "
	"v.start <= ?1 AND v.end >= ?1";

struct qs {
	const struct sb_opts *o;
	struct sb_result *res;
	sqlite3 *db;
	sqlite3_stmt *single, *full;    /* full: R*Tree, or B-tree SQL */
	struct rng rng;
	uint64_t reported;
	sht_reader *sht;                /* --check */
	sht_result *sres;
	struct sb_answer *ans;          /* full answers, by quark */
	uint64_t stray;                 /* full rows of no workload quark */
};

static sht_time draw_time(struct qs *s)
{
	return (sht_time)rng_below(&s->rng, (uint64_t)s->o->end + 1);
}

/* ---- answers ------------------------------------------------------------- */

static void read_row(sqlite3_stmt *st, struct sb_answer *a)
{
	a->found = 1;
	a->quark = (sht_quark)sqlite3_column_int64(st, 0);
	a->start = sqlite3_column_int64(st, 1);
	a->end = sqlite3_column_int64(st, 2);
	a->type = sqlite3_column_type(st, 3);
	if (a->type == SQLITE_INTEGER) {
		a->i = sqlite3_column_int64(st, 3);
	} else if (a->type == SQLITE_FLOAT) {
		a->d = sqlite3_column_double(st, 3);
	} else if (a->type == SQLITE_TEXT || a->type == SQLITE_BLOB) {
		const void *p = sqlite3_column_blob(st, 3);
		int n = sqlite3_column_bytes(st, 3);

		a->type = SQLITE_TEXT;
		a->len = (uint32_t)n;
		memcpy(a->str, p, (size_t)n < sizeof a->str ? (size_t)n
							    : sizeof a->str);
	}
}

static int value_equal(const struct sb_answer *a, const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_NULL: return a->type == SQLITE_NULL;
	case SHT_TYPE_INT32: return a->type == SQLITE_INTEGER &&
				    a->i == v->u.i32;
	case SHT_TYPE_INT64: return a->type == SQLITE_INTEGER &&
				    a->i == v->u.i64;
	case SHT_TYPE_DOUBLE: return a->type == SQLITE_FLOAT && a->d == v->u.d;
	case SHT_TYPE_STRING:
		return a->type == SQLITE_TEXT && a->len == v->len &&
		       a->len <= sizeof a->str &&
		       memcmp(a->str, v->u.str, a->len) == 0;
	}
	return 0;
}

static void mismatch(struct qs *s, sht_quark q, sht_time t, const char *why,
		     const struct sb_answer *a)
{
	s->res->mismatches++;
	if (s->reported++ >= 10)
		return;
	fprintf(stderr, "sht-sqlite-bench: MISMATCH q=%" PRIu32 " t=%" PRId64
		": %s", q, t, why);
	if (a->found)
		fprintf(stderr, " (got q=%" PRIu32 " [%" PRId64 ", %" PRId64
			"] type=%d i=%" PRId64 ")", a->quark, a->start, a->end,
			a->type, a->i);
	fputc('\n', stderr);
}

/* The oracle's value, and with --check sht's interval, for (q, t). */
static void check(struct qs *s, sht_quark q, sht_time t,
		  const struct sb_answer *a)
{
	char buf[64];
	sht_value exp = shtgen_wl_expect(&s->o->wl, q, t, buf);

	if (!a->found) {
		if (exp.type != SHT_TYPE_NULL)
			mismatch(s, q, t, "no interval, expected a value", a);
	} else if (a->quark != q || a->start > t || a->end < t) {
		mismatch(s, q, t, "interval does not contain (q, t)", a);
	} else if (!value_equal(a, &exp)) {
		mismatch(s, q, t, "wrong value (oracle)", a);
	}
	if (!s->sht)
		return;
	s->res->checked_answers++;
	if (sht_reader_query(s->sht, q, t, s->sres) < 0)
		die("sht_reader_query: %s", sht_errmsg());
	if (sht_result_count(s->sres) == 0) {
		if (a->found)
			mismatch(s, q, t, "an interval where sht has none", a);
	} else {
		const sht_interval *iv = sht_result_at(s->sres, 0);

		if (!a->found || a->start != iv->start || a->end != iv->end ||
		    !value_equal(a, &iv->value))
			mismatch(s, q, t, "differs from sht's history", a);
	}
}

/* ---- single queries ---------------------------------------------------- */

/* One query of quark q at t into *a (not found: a->found = 0). */
static void single_query(struct qs *s, sht_quark q, sht_time t,
			 struct sb_answer *a)
{
	sqlite3_stmt *st = s->single;
	int rc;

	a->found = 0;
	sqlite3_bind_int64(st, 1, q);
	sqlite3_bind_int64(st, 2, t);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_row(st, a);
		if (a->end < t)         /* B-tree: the last start <= t */
			a->found = 0;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			a->found = 2;   /* more than one: checked as wrong */
	}
	sb_sql_ok(s->db, rc, "single query");
	sqlite3_reset(st);
}

static double single_one(struct qs *s)
{
	sht_quark q = (sht_quark)rng_below(&s->rng, s->o->quarks);
	sht_time t = draw_time(s);
	struct sb_answer a;
	double t0, t1;

	t0 = now_s();
	single_query(s, q, t, &a);
	t1 = now_s();
	if (a.found == 2)
		mismatch(s, q, t, "several rows", &a);
	if (!a.found)
		s->res->single_not_found++;
	check(s, q, t, &a);
	return t1 - t0;
}

static void singles(struct qs *s)
{
	uint64_t n = s->o->queries;
	double *lat = malloc(n * sizeof *lat);
	double sum = 0, c0;

	if (!lat)
		die("out of memory");
	for (int i = 0; i < 1000; i++)
		single_one(s);
	s->res->single_not_found = 0;
	c0 = cpu_s();
	for (uint64_t i = 0; i < n; i++) {
		lat[i] = single_one(s);
		sum += lat[i];
	}
	s->res->single_cpu_us = (cpu_s() - c0) / (double)n * 1e6;
	qsort(lat, n, sizeof *lat, cmp_double);
	s->res->single_mean_us = sum / (double)n * 1e6;
	s->res->single_p50_us = pct_sorted(lat, n, 0.50) * 1e6;
	s->res->single_p99_us = pct_sorted(lat, n, 0.99) * 1e6;
	s->res->single_max_us = lat[n - 1] * 1e6;
	free(lat);
}

/* ---- full queries ------------------------------------------------------ */

/* Rows of a full statement into s->ans by quark; returns the row count. */
static uint64_t full_rows(struct qs *s, sqlite3_stmt *st, sht_time t,
			  int bind_quarks)
{
	uint64_t rows = 0;
	int rc;

	sqlite3_bind_int64(st, 1, t);
	if (bind_quarks)
		sqlite3_bind_int64(st, 2, (sqlite3_int64)s->o->quarks);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sht_quark q = (sht_quark)sqlite3_column_int64(st, 0);

		if (q >= s->o->quarks)
			s->stray++;             /* checked as wrong */
		else if (s->ans[q].found)
			s->ans[q].found = 2;    /* several rows */
		else
			read_row(st, &s->ans[q]);
		rows++;
	}
	sb_sql_ok(s->db, rc, "full query");
	sqlite3_reset(st);
	return rows;
}

/* One full query at t by the given method (0: single query per quark,
 * 1: the full statement); returns its time in seconds. */
static double full_one(struct qs *s, sht_time t, int method, uint64_t *rows,
		       double *cpu)
{
	double t0, t1, c0;

	memset(s->ans, 0, s->o->quarks * sizeof *s->ans);
	c0 = cpu_s();
	t0 = now_s();
	if (method == 0) {
		*rows = 0;
		for (uint64_t q = 0; q < s->o->quarks; q++) {
			single_query(s, (sht_quark)q, t, &s->ans[q]);
			*rows += s->ans[q].found != 0;
		}
	} else {
		*rows = full_rows(s, s->full, t, !s->o->rtree);
	}
	t1 = now_s();
	*cpu = cpu_s() - c0;
	return t1 - t0;
}

/* Check a full answer: duplicates, the drawn quarks against the oracle,
 * and with --check every quark against sht's full query. */
static void full_check(struct qs *s, sht_time t, const sht_quark *drawn)
{
	for (uint64_t q = 0; q < s->o->quarks; q++)
		if (s->ans[q].found > 1)
			mismatch(s, (sht_quark)q, t, "several rows",
				 &s->ans[q]);
	if (s->stray) {
		s->res->mismatches += s->stray;
		fprintf(stderr, "sht-sqlite-bench: MISMATCH full query t=%"
			PRId64 ": %" PRIu64 " rows of unknown quarks\n", t,
			s->stray);
		s->stray = 0;
	}
	for (int k = 0; k < 64; k++)
		check(s, drawn[k], t, &s->ans[drawn[k]]);
	if (!s->sht)
		return;
	if (sht_reader_query_full(s->sht, t, s->sres) < 0)
		die("sht_reader_query_full: %s", sht_errmsg());
	for (uint64_t q = 0, i = 0; q < s->o->quarks; q++) {
		const sht_interval *iv = NULL;
		const struct sb_answer *a = &s->ans[q];

		if (i < sht_result_count(s->sres) &&
		    sht_result_at(s->sres, i)->quark == q)
			iv = sht_result_at(s->sres, i++);
		s->res->checked_answers++;
		if (!iv != !a->found || (iv && (a->start != iv->start ||
		    a->end != iv->end || !value_equal(a, &iv->value))))
			mismatch(s, (sht_quark)q, t,
				 "full: differs from sht's history", a);
	}
}

static void fulls(struct qs *s)
{
	const int warmup = 20, run_warmup = 2;
	uint64_t n = s->o->full_queries;
	double *lat = calloc(n, sizeof *lat), *lat2 = calloc(n, sizeof *lat2);
	double items = 0, sum = 0, sum2 = 0, cpu = 0, cpu2 = 0;
	sht_quark drawn[64];

	if (!lat || !lat2)
		die("out of memory");
	for (uint64_t i = 0; i < warmup + n; i++) {
		sht_time t = draw_time(s);
		int run = i >= (uint64_t)(warmup - run_warmup);
		int timed = i >= (uint64_t)warmup;
		uint64_t rows = 0;
		double x, c;

		for (int k = 0; k < 64; k++)
			drawn[k] = (sht_quark)rng_below(&s->rng, s->o->quarks);
		if (!run)
			continue;
		if (!s->o->rtree) {     /* B-tree: the SQL variant first */
			x = full_one(s, t, 1, &rows, &c);
			full_check(s, t, drawn);
			if (timed)
				lat2[i - warmup] = x, sum2 += x, cpu2 += c;
		}
		x = full_one(s, t, s->o->rtree, &rows, &c);
		full_check(s, t, drawn);
		if (timed) {
			lat[i - warmup] = x, sum += x, cpu += c;
			items += (double)rows;
		}
	}
	s->res->full_ms = sum / (double)n * 1e3;
	s->res->full_sql_ms = sum2 / (double)n * 1e3;
	s->res->full_cpu_ms = cpu / (double)n * 1e3;
	s->res->full_sql_cpu_ms = cpu2 / (double)n * 1e3;
	qsort(lat, n, sizeof *lat, cmp_double);
	s->res->full_p99_ms = pct_sorted(lat, n, 0.99) * 1e3;
	s->res->full_items = items / (double)n;
	free(lat);
	free(lat2);
}

/* ---- sht's history, for --check ----------------------------------------- */

static sht_err insert_sht(void *ctx, const sht_interval *iv)
{
	return sht_builder_insert(ctx, iv);
}

static void open_sht(struct qs *s)
{
	const struct sb_opts *o = s->o;
	sht_builder_opts bo;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&bo);
	bo.no_sync = true;
	err = sht_builder_create(o->sht_path, 0, &bo, &b);
	if (err >= 0) {
		err = shtgen_wl_run(&o->wl, insert_sht, b);
		if (err >= 0)
			err = sht_builder_finish(b, o->end);
		sht_builder_close(b);
	}
	if (err >= 0)
		err = sht_reader_open(o->sht_path, NULL, &s->sht);
	if (err < 0)
		die("sht's history %s: %s (%s)", o->sht_path,
		       sht_strerror(err), sht_errmsg());
	s->sres = sht_result_create();
	if (!s->sres)
		die("out of memory");
}

int sb_queries(const struct sb_opts *o, struct sb_result *res)
{
	struct qs s;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.res = res;
	rng_seed(&s.rng, o->seed);
	if (o->check)
		open_sht(&s);
	s.ans = calloc(o->quarks, sizeof *s.ans);
	if (!s.ans)
		die("out of memory");
	sb_sql_ok(NULL, sqlite3_open_v2(o->db, &s.db, SQLITE_OPEN_READONLY,
					NULL), o->db);
	sb_pragmas(s.db, o, 0);
	s.single = sb_prepare(s.db, o->rtree ? RTREE_SINGLE : BTREE_SINGLE);
	s.full = sb_prepare(s.db, o->rtree ? RTREE_FULL : o->wr ? WR_FULL_SQL
							: BTREE_FULL_SQL);

	singles(&s);
	fulls(&s);

	sqlite3_finalize(s.single);
	sqlite3_finalize(s.full);
	sqlite3_close(s.db);
	free(s.ans);
	sht_result_destroy(s.sres);
	sht_reader_close(s.sht);
	if (o->check)
		unlink(o->sht_path);
	return 0;
}
