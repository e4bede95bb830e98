/*
 * test-sqlite.c: the SQLite extension (sqlite/) against a brute-force
 * oracle.
 *
 *   test-sqlite MODULE [HISTORY]...
 *
 * For random histories (sqlt_gen: every value type, nulls, clears, names
 * full of pattern characters and one with a "/" inside) and for each
 * HISTORY given (the real traces' histories, built by test-sqlite.sh),
 * the history is copied into a plain table by single queries walked over
 * every attribute (sqlt_load), and each query shape below runs with
 * random values on sht_intervals('FILE') and on that table: the rows
 * must be equal, and sht_last_query() must show that the history tree
 * answered with the query the constraints call for (a state query, not a
 * full scan).  Then: resolutions against the sampling rule written in
 * SQL and against sht_state_query_range (what sht history --resolution
 * prints), sht_attributes against its table, EXPLAIN QUERY PLAN, the
 * CREATE VIRTUAL TABLE form, the cache seeing a rebuilt file, and bad
 * arguments and damaged files reported as SQL errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sqlt.h"
#include "tap.h"

static const char *module;
static char tmp[4096];

/* A query shape: {T} is the table, the answer must come from one of
 * the query kinds listed ("|"-separated prefixes of sht_last_query). */
struct shape {
	const char *name;
	const char *sql;
	const char *kinds;
};

#define SEL "SELECT quark, path, start, \"end\", type, value FROM {T} "
#define POINT "start <= :t AND \"end\" >= :t"
#define WINDOW "\"end\" >= :t1 AND start <= :t2"

static const struct shape shapes[] = {
	{ "state at T", SEL "WHERE " POINT, "full|none" },
	{ "state at T, quark =", SEL "WHERE quark = :q AND " POINT, "single|none" },
	{ "state at T, path =", SEL "WHERE path = :p AND " POINT, "single|2d|none" },
	{ "state at T, quark IN", SEL "WHERE quark IN (:q, :q2, 3) AND " POINT, "single|2d|none" },
	{ "state at T, path IN", SEL "WHERE path IN (:p, :p2) AND " POINT, "single|2d|none" },
	{ "state at T, path GLOB", SEL "WHERE path GLOB :g AND " POINT, "single|2d|none" },
	{ "state at T, path LIKE", SEL "WHERE path LIKE :l AND " POINT, "single|2d|none" },
	{ "state at T, quark range", SEL "WHERE quark > :q AND quark <= :q2 AND " POINT, "full|2d|none" },
	{ "state at T (reals)", SEL "WHERE start <= :t + 0.5 AND \"end\" >= :t - 0.5", "full|none" },
	{ "start = T", SEL "WHERE start = :t", "full|none" },
	{ "end = T", SEL "WHERE \"end\" = :t", "full|none" },
	{ "window", SEL "WHERE " WINDOW, "2d|full|none" },
	{ "window, quark =", SEL "WHERE quark = :q AND " WINDOW, "2d|single|none" },
	{ "window, path =", SEL "WHERE path = :p AND " WINDOW, "2d|single|none" },
	{ "window, path GLOB", SEL "WHERE path GLOB :g AND " WINDOW, "2d|single|none" },
	{ "window, quark BETWEEN", SEL "WHERE quark BETWEEN :q AND :q2 AND " WINDOW, "2d|full|none" },
	{ "start in (T1, T2)", SEL "WHERE start > :t1 AND start < :t2", "2d|full|none" },
	{ "end in (T1, T2]", SEL "WHERE \"end\" > :t1 AND \"end\" <= :t2", "2d|full|none" },
	{ "inside [T1, T2]", SEL "WHERE start >= :t1 AND \"end\" <= :t2", "2d|full|none" },
	{ "start <= NULL", SEL "WHERE start <= NULL", "none" },
	{ "whole history", "SELECT count(*), sum(\"end\" - start), typeof(value), type FROM {T} GROUP BY 3, 4", "2d" },
	{ "type and value", SEL "WHERE type = 'string' AND value LIKE 'v%' AND " WINDOW, "2d|full|none" },
	{ "self join on quark",
	  "SELECT a.path, b.start, b.value FROM {T} a JOIN {T} b ON b.quark = a.quark "
	  "WHERE a.path GLOB :g AND a.start <= :t AND a.\"end\" >= :t "
	  "AND b.\"end\" >= :t1 AND b.start <= :t2", NULL },
};
#define NSHAPES (sizeof shapes / sizeof *shapes)

/* ---- drawing values ------------------------------------------------------- */

/* A time: mostly inside the history, often an interval's bound (+-1),
 * sometimes outside. */
static sht_time draw_time(sqlite3 *db, struct sqlt_hist *h)
{
	uint64_t k = sqlt_rand(&h->seed) % 10;
	char sql[128];
	const char *v;

	if (k < 5)
		return sqlt_between(&h->seed, h->start, h->end);
	if (k == 8)
		return h->start - sqlt_between(&h->seed, 1, 100);
	if (k == 9)
		return h->end + sqlt_between(&h->seed, 0, 100);
	snprintf(sql, sizeof sql, "SELECT %s FROM iv LIMIT 1 OFFSET %llu",
		 k % 2 ? "start" : "\"end\"",
		 (unsigned long long)(sqlt_rand(&h->seed) % (h->intervals ? h->intervals : 1)));
	v = sqlt_text(db, sql, NULL);
	return atoll(v) + sqlt_between(&h->seed, -1, 1);
}

static const char *draw_path(struct sqlt_hist *h)
{
	if (!h->nattrs || sqlt_rand(&h->seed) % 10 == 0)
		return "no/such/attribute";
	return h->paths[sqlt_rand(&h->seed) % h->nattrs];
}

/* A pattern from a path: a prefix then a wildcard, or one character
 * replaced by one (GLOB: "*", "?", "[...]"; LIKE: "%", "_"). */
static void draw_pattern(struct sqlt_hist *h, int like, char *buf, size_t size)
{
	const char *p = draw_path(h);
	size_t n = strlen(p), cut = n ? (size_t)(sqlt_rand(&h->seed) % (n + 1)) : 0;
	static const char *const glob_tails[] = { "*", "?*", "[0-9]*", "*_thread", "" };
	static const char *const like_tails[] = { "%", "_%", "%t%", "" };

	switch (sqlt_rand(&h->seed) % 3) {
	case 0:
		snprintf(buf, size, "%.*s%s", (int)cut, p,
			 like ? like_tails[sqlt_rand(&h->seed) % 4]
			      : glob_tails[sqlt_rand(&h->seed) % 5]);
		break;
	case 1:
		snprintf(buf, size, "%s", p);
		if (cut < n)
			buf[cut] = like ? '_' : '?';
		break;
	default:
		snprintf(buf, size, "%s", like ? "%" : "*");
		break;
	}
}

static void draw(sqlite3 *db, struct sqlt_hist *h, struct sqlt_params *pa,
		 char *g, char *l, size_t size)
{
	sht_time a = draw_time(db, h), b = draw_time(db, h), x;

	/* Big histories: short windows (a few thousand rows to compare). */
	if (h->intervals > 100000)
		b = a + sqlt_between(&h->seed, -(h->end - h->start) / 2000,
				     (h->end - h->start) / 200);
	if (a > b && sqlt_rand(&h->seed) % 8) {
		x = a;
		a = b;
		b = x;
	}
	memset(pa, 0, sizeof *pa);
	pa->file = h->path;
	pa->t = draw_time(db, h);
	pa->t1 = a;
	pa->t2 = b;
	pa->q = sqlt_between(&h->seed, -2, (int64_t)h->nattrs + 1);
	pa->q2 = sqlt_between(&h->seed, pa->q - 3, (int64_t)h->nattrs + 1);
	pa->p = draw_path(h);
	pa->p2 = draw_path(h);
	draw_pattern(h, 0, g, size);
	draw_pattern(h, 1, l, size);
	pa->g = g;
	pa->l = l;
}

/* ---- comparing ---------------------------------------------------------- */

static int same_rows(char **a, long na, char **b, long nb)
{
	if (na != nb)
		return 0;
	for (long i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/* 1 if what sht_last_query() says starts with one of kinds. */
static int kind_ok(sqlite3 *db, const char *kinds, char *got, size_t size)
{
	const char *k = kinds;

	snprintf(got, size, "%s", sqlt_text(db, "SELECT sht_last_query()", NULL));
	while (k && *k) {
		size_t n = strcspn(k, "|");

		if (strncmp(got, k, n) == 0)
			return 1;
		k += n + (k[n] == '|');
	}
	return !kinds;
}

/* Run one shape once on both tables; diag the first difference. */
static int compare_once(sqlite3 *db, const struct shape *s, const struct sqlt_params *pa,
			const char *ext_table, long *rows, int *kind_bad)
{
	char *a = sqlt_subst(s->sql, ext_table), *b = sqlt_subst(s->sql, "iv");
	char **ra, **rb, *ea, *eb, got[256];
	long na = sqlt_rows(db, a, pa, &ra, &ea), nb;
	int same;

	if (na >= 0 && !kind_ok(db, s->kinds, got, sizeof got) && (*kind_bad)++ < 3)
		diag("%s: ran as '%s', expected %s (t=%lld t1=%lld t2=%lld q=%lld g=%s)",
		     s->name, got, s->kinds, (long long)pa->t, (long long)pa->t1,
		     (long long)pa->t2, (long long)pa->q, pa->g);
	nb = sqlt_rows(db, b, pa, &rb, &eb);
	same = na >= 0 && nb >= 0 && same_rows(ra, na, rb, nb);
	if (!same)
		diag("%s: %ld rows (%s) vs oracle %ld (%s); t=%lld t1=%lld t2=%lld "
		     "q=%lld q2=%lld p=%s g=%s l=%s; first: %s vs %s", s->name, na,
		     ea ? ea : "ok", nb, eb ? eb : "ok", (long long)pa->t,
		     (long long)pa->t1, (long long)pa->t2, (long long)pa->q,
		     (long long)pa->q2, pa->p, pa->g, pa->l,
		     na > 0 ? ra[0] : "-", nb > 0 ? rb[0] : "-");
	*rows += na > 0 ? na : 0;
	sqlt_rows_free(ra, na > 0 ? na : 0);
	sqlt_rows_free(rb, nb > 0 ? nb : 0);
	sqlite3_free(ea);
	sqlite3_free(eb);
	free(a);
	free(b);
	return same;
}

static void check_shapes(sqlite3 *db, struct sqlt_hist *h, int rounds,
			 const char *label, const char *ext_table)
{
	char g[512], l[512];
	struct sqlt_params pa;

	for (size_t k = 0; k < NSHAPES; k++) {
		long rows = 0;
		int bad = 0, kind_bad = 0;

		for (int r = 0; r < rounds; r++) {
			draw(db, h, &pa, g, l, sizeof g);
			if (!compare_once(db, &shapes[k], &pa, ext_table, &rows, &kind_bad) &&
			    ++bad > 2)
				break;
		}
		ok(bad == 0 && kind_bad == 0, "%s: %s: %d rounds, %ld rows as the "
		   "oracle's, answered by the history tree as expected", label,
		   shapes[k].name, rounds, rows);
	}
}

/* ---- resolutions ---------------------------------------------------------------- */

/* The sampling rule in SQL: an interval is kept if it holds one of
 * t1, t1 + r, ... (<= t2) or t2 itself, t1 and t2 clipped to the history. */
#define SAMPLED "SELECT quark, start, \"end\", value FROM iv WHERE %s AND \"end\" >= :t1 " \
	"AND start <= :t2 AND (min(\"end\", :t2) = :t2 OR ((max(start, :t1) - :t1 + :r - 1) " \
	"/ :r) * :r + :t1 <= min(\"end\", :t2))"

static sht_time draw_resolution(struct sqlt_hist *h, sht_time span)
{
	static const int64_t fixed[] = { 1, 7, 1000 };
	uint64_t k = sqlt_rand(&h->seed) % 6;

	span = span > 0 ? span : 1;
	if (k < 3)
		return fixed[k];
	if (k == 3)
		return span / 1920 + 1;
	return k == 4 ? span / 3 + 1 : 2 * span;
}

/* sht_state_query_range (sht history --resolution) gives the same rows. */
static int same_as_range(sht_state *ss, char **rows, long n, const struct sqlt_params *pa,
			 sht_result *res)
{
	char line[256];

	if (sht_state_query_range(ss, (sht_quark)pa->q, pa->t1, pa->t2, pa->r, res) != SHT_OK)
		return n == 0;
	if ((long)sht_result_count(res) != n)
		return 0;
	for (size_t i = 0; i < sht_result_count(res); i++) {
		const sht_interval *iv = sht_result_at(res, i);

		snprintf(line, sizeof line, "i:%lld|i:%lld|", (long long)iv->start,
			 (long long)iv->end);
		if (strncmp(rows[i], line, strlen(line)) != 0)
			return 0;
	}
	return 1;
}

static void check_resolution(sqlite3 *db, struct sqlt_hist *h, int rounds, const char *label)
{
	char g[512], l[512], oracle[1024];
	const char *sel[] = { "quark = :q", "path GLOB :g" };
	sht_result *res = sht_result_create();
	struct sqlt_params pa, clipped;
	sht_state *ss;
	int bad = 0, cli_bad = 0;
	long rows = 0;

	if (sht_state_open(h->path, NULL, &ss) != SHT_OK)
		bail_out("open %s: %s", h->path, sht_errmsg());
	for (int r = 0; r < rounds && bad + cli_bad < 3; r++) {
		int which = r % 2;
		char ext[512], **ra, **rb, *ea, *eb;
		long na, nb;

		draw(db, h, &pa, g, l, sizeof g);
		clipped = pa;
		clipped.t1 = pa.t1 > h->start ? pa.t1 : h->start;
		clipped.t2 = pa.t2 < h->end ? pa.t2 : h->end;
		pa.r = clipped.r = draw_resolution(h, clipped.t2 - clipped.t1);
		snprintf(ext, sizeof ext, "SELECT quark, start, \"end\", value FROM "
			 "sht_intervals(:file, :r) WHERE %s AND \"end\" >= :t1 AND start <= :t2",
			 sel[which]);
		/* A reversed window has no samples: every interval holding
		 * all of [t2, t1] is an answer. */
		if (pa.t1 > pa.t2) {
			clipped = pa;
			snprintf(oracle, sizeof oracle, "SELECT quark, start, \"end\", value "
				 "FROM iv WHERE %s AND \"end\" >= :t1 AND start <= :t2", sel[which]);
		} else {
			snprintf(oracle, sizeof oracle, SAMPLED, sel[which]);
		}
		na = sqlt_rows(db, ext, &pa, &ra, &ea);
		rb = NULL;
		eb = NULL;
		nb = clipped.t1 <= clipped.t2 || pa.t1 > pa.t2
		     ? sqlt_rows(db, oracle, &clipped, &rb, &eb) : 0;
		if (!(na >= 0 && same_rows(ra, na, rb, nb)) && bad++ < 3)
			diag("resolution %lld over [%lld, %lld], %s: %ld rows (%s) vs %ld",
			     (long long)pa.r, (long long)pa.t1, (long long)pa.t2, sel[which],
			     na, ea ? ea : "ok", nb);
		if (which == 0 && na >= 0 && pa.q >= 0 && (uint64_t)pa.q < h->nattrs &&
		    pa.t1 <= pa.t2 && clipped.t1 <= clipped.t2) {
			struct sqlt_params byq = clipped;

			/* sht_state_query_range orders by start: the rows are
			 * sorted as text, equal for one quark's intervals of
			 * equal digit counts, so compare sorted by start. */
			sqlt_rows_free(ra, na);
			na = sqlt_rows(db, "SELECT start, \"end\" FROM sht_intervals(:file, :r) "
				       "WHERE quark = :q AND \"end\" >= :t1 AND start <= :t2 "
				       "ORDER BY start", &byq, &ra, &ea);
			if (!same_as_range(ss, ra, na, &byq, res) && cli_bad++ < 3)
				diag("resolution %lld: sht_state_query_range differs", (long long)pa.r);
		}
		rows += na > 0 ? na : 0;
		sqlt_rows_free(ra, na > 0 ? na : 0);
		sqlt_rows_free(rb, nb > 0 ? nb : 0);
		sqlite3_free(ea);
		sqlite3_free(eb);
	}
	ok(bad == 0, "%s: resolutions: %d rounds, %ld rows as the sampling rule's", label,
	   rounds, rows);
	ok(cli_bad == 0, "%s: resolutions: as sht_state_query_range (sht history --resolution)",
	   label);
	sht_result_destroy(res);
	sht_state_close(ss);
}

/* ---- attributes ---------------------------------------------------------------- */

static const struct shape attr_shapes[] = {
	{ "all", "SELECT quark, parent, name, path FROM {T}", NULL },
	{ "quark =", "SELECT * FROM {T} WHERE quark = :q", NULL },
	{ "parent =", "SELECT * FROM {T} WHERE parent = :q", NULL },
	{ "parent IS NULL", "SELECT * FROM {T} WHERE parent IS NULL", NULL },
	{ "path =", "SELECT * FROM {T} WHERE path = :p", NULL },
	{ "path GLOB", "SELECT * FROM {T} WHERE path GLOB :g", NULL },
	{ "path LIKE", "SELECT * FROM {T} WHERE path LIKE :l", NULL },
	{ "parent = and name", "SELECT * FROM {T} WHERE parent = :q2 AND name GLOB '*a*'", NULL },
};

static void check_attributes(sqlite3 *db, struct sqlt_hist *h, int rounds, const char *label)
{
	char g[512], l[512];
	struct sqlt_params pa;

	for (size_t k = 0; k < sizeof attr_shapes / sizeof *attr_shapes; k++) {
		int bad = 0;
		long rows = 0;

		for (int r = 0; r < rounds && bad < 3; r++) {
			char *a = sqlt_subst(attr_shapes[k].sql, "sht_attributes(:file)");
			char *b = sqlt_subst(attr_shapes[k].sql, "attrs");
			char **ra, **rb, *ea, *eb;
			long na, nb;

			draw(db, h, &pa, g, l, sizeof g);
			na = sqlt_rows(db, a, &pa, &ra, &ea);
			nb = sqlt_rows(db, b, &pa, &rb, &eb);
			if (!(na >= 0 && nb >= 0 && same_rows(ra, na, rb, nb)) && bad++ < 3)
				diag("attributes %s: %ld rows (%s) vs %ld", attr_shapes[k].name,
				     na, ea ? ea : "ok", nb);
			rows += na > 0 ? na : 0;
			sqlt_rows_free(ra, na > 0 ? na : 0);
			sqlt_rows_free(rb, nb > 0 ? nb : 0);
			sqlite3_free(ea);
			sqlite3_free(eb);
			free(a);
			free(b);
		}
		ok(bad == 0, "%s: sht_attributes %s: %ld rows as the oracle's", label,
		   attr_shapes[k].name, rows);
	}
}

/* ---- one history ------------------------------------------------------------------ */

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check_history(sqlite3 *db, const char *path, const char *label, int rounds)
{
	struct sqlt_hist h;
	double t0 = cpu_s(), t1, t2, t3;

	sqlt_load(db, path, &h);
	h.seed = 0x5eed ^ (uint64_t)h.intervals;
	t1 = cpu_s();
	check_shapes(db, &h, rounds, label, "sht_intervals(:file)");
	t2 = cpu_s();
	check_resolution(db, &h, rounds * 2, label);
	t3 = cpu_s();
	check_attributes(db, &h, rounds, label);
	diag("%s: %llu attributes, %llu intervals; CPU s: oracle %.2f, shapes %.2f, "
	     "resolutions %.2f, attributes %.2f", label, (unsigned long long)h.nattrs,
	     (unsigned long long)h.intervals, t1 - t0, t2 - t1, t3 - t2, cpu_s() - t3);
	sqlt_hist_free(&h);
}

/* ---- plans, the fixed table, the cache -------------------------------------------- */

static void check_plan(sqlite3 *db, const char *file, const char *where, const char *want)
{
	char sql[1024], all[2048] = "";
	sqlite3_stmt *st;

	snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN SELECT * FROM sht_intervals('%s') %s",
		 file, where);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			snprintf(all + strlen(all), sizeof all - strlen(all), "%s; ",
				 (const char *)sqlite3_column_text(st, 3));
		sqlite3_finalize(st);
	}
	ok(strstr(all, want) != NULL, "EXPLAIN QUERY PLAN %s: '%s' in '%s'", where, want, all);
}

static void check_plans(sqlite3 *db, const char *file)
{
	check_plan(db, file, "WHERE quark = 3 AND start <= 5 AND \"end\" >= 5",
		   "state at T, one attribute (=)");
	check_plan(db, file, "WHERE path = 'a' AND start <= ?1 AND \"end\" >= ?1",
		   "state at T if T1 = T2, else 2D query over [T1, T2], one attribute (=)");
	check_plan(db, file, "WHERE path GLOB 'a/*' AND \"end\" >= 5 AND start <= 9",
		   "2D query over [T1, T2], attributes by pattern");
	check_plan(db, file, "WHERE quark IN (1, 2) AND start <= 5 AND \"end\" >= 5",
		   "state at T, attributes IN (...)");
	check_plan(db, file, "WHERE start = 7", "state at T; start bounded");
	check_plan(db, file, "", "2D query over the whole history");
}

static long count_of(sqlite3 *db, const char *sql)
{
	return atol(sqlt_text(db, sql, NULL));
}

static void check_fixed_table(sqlite3 *db, const char *file)
{
	char sql[8600];
	long a, b;

	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE temp.fixed USING sht_intervals('%s')", file);
	ok(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "CREATE VIRTUAL TABLE over %s", file);
	a = count_of(db, "SELECT count(*) FROM temp.fixed WHERE path GLOB '*a*' AND \"end\" >= 1000000500");
	b = count_of(db, "SELECT count(*) FROM iv WHERE path GLOB '*a*' AND \"end\" >= 1000000500");
	ok(a == b && a > 0, "the created table answers as the oracle (%ld rows)", a);
	ok(strncmp(sqlt_text(db, "SELECT sht_last_query()", NULL), "2d", 2) == 0,
	   "through a 2D query");
	sqlite3_exec(db, "DROP TABLE temp.fixed", NULL, NULL, NULL);
}

static void check_cache(sqlite3 *db)
{
	char path[4200], other[4200], sql[8600];
	long before, after;

	snprintf(path, sizeof path, "%s/cache.sht", tmp);
	snprintf(other, sizeof other, "%s/cache-new.sht", tmp);
	sqlt_gen(path, 11, 20, 200, 0);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM sht_intervals('%s')", path);
	before = count_of(db, sql);
	sqlt_gen(other, 12, 40, 3000, 0);
	if (rename(other, path) != 0)
		bail_out("rename %s", other);
	/* The file is looked at again 1 ms after the last look at most. */
	nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	after = count_of(db, sql);
	ok(before > 0 && after > before, "a history rebuilt under the same name is "
	   "read again (%ld then %ld intervals)", before, after);
}

/* ---- errors -------------------------------------------------------------------------- */

static void expect_error(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st;
	const char *msg = "no error";
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE)
			msg = sqlite3_errmsg(db);
		sqlite3_finalize(st);
	} else {
		msg = sqlite3_errmsg(db);
	}
	ok(rc != SQLITE_DONE && rc != SQLITE_OK && strstr(msg, want) != NULL,
	   "%s: an SQL error with '%s' (%s)", sql, want, msg);
}

/* A copy of src cut at off, or (cut 0) with one byte in every stride
 * from off on changed. */
static void damage(const char *src, const char *dst, long off, long stride, int cut)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	long i = 0;
	int ch;

	if (!in || !out)
		bail_out("copy %s", src);
	while ((ch = fgetc(in)) != EOF && !(cut && i >= off)) {
		fputc(!cut && i >= off && (i - off) % stride == 0 ? (ch ^ 0x5a) : ch, out);
		i++;
	}
	fclose(in);
	fclose(out);
}

static void check_errors(sqlite3 *db, const char *good)
{
	char sql[8600], bad[4200];
	FILE *f;

	expect_error(db, "SELECT * FROM sht_intervals", "no history file");
	expect_error(db, "SELECT * FROM sht_intervals(42)", "must be text");
	expect_error(db, "SELECT * FROM sht_intervals(NULL)", "must be text (a path), not NULL");
	expect_error(db, "SELECT * FROM sht_intervals('/no/such/file.sht')", "No such file");
	expect_error(db, "SELECT * FROM sht_intervals('/')", "not a regular file");
	expect_error(db, "SELECT * FROM sht_attributes(x'00')", "must be text");
	snprintf(bad, sizeof bad, "%s/junk.sht", tmp);
	if ((f = fopen(bad, "wb"))) {
		for (int i = 0; i < 100000; i++)
			fputc(i * 7 & 0xff, f);
		fclose(f);
	}
	snprintf(sql, sizeof sql, "SELECT * FROM sht_intervals('%s')", bad);
	expect_error(db, sql, "cannot open the history");
	snprintf(bad, sizeof bad, "%s/cut.sht", tmp);
	damage(good, bad, 70000, 0, 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM sht_intervals('%s')", bad);
	expect_error(db, sql, "sht_intervals: cannot");
	snprintf(bad, sizeof bad, "%s/flipped.sht", tmp);
	damage(good, bad, 9000, 1000, 0);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM sht_intervals('%s')", bad);
	expect_error(db, sql, "sht_intervals: cannot");
#define BAD(where, want)                                                          \
	snprintf(sql, sizeof sql, "SELECT * FROM sht_intervals('%s') WHERE " where, good); \
	expect_error(db, sql, want)
	BAD("start <= 'abc'", "start must be compared with an integer, not text");
	BAD("\"end\" > x'01'", "end must be compared with an integer, not a blob");
	BAD("quark = 'x'", "quark must be compared with an integer, not text");
	BAD("quark IN (1, 'x')", "quark must be compared with an integer");
	BAD("path = 5", "path must be compared with text, not an integer");
	BAD("path GLOB 5", "path must be compared with text");
	BAD("resolution = -1", "resolution must be a whole number");
	BAD("resolution = 'x'", "resolution must be a whole number");
	BAD("resolution = 1.5", "resolution must be a whole number");
	snprintf(sql, sizeof sql, "CREATE VIRTUAL TABLE temp.two USING sht_intervals('%s', 'x')", good);
	expect_error(db, sql, "one argument");
	expect_error(db, "CREATE VIRTUAL TABLE temp.none USING sht_intervals('/no/such.sht')",
		     "No such file");
	/* Files are read from top-level SQL or TEMP views only: a view or
	 * trigger in a database file cannot make the extension read one. */
	snprintf(sql, sizeof sql, "CREATE TEMP VIEW tv AS SELECT count(*) FROM sht_intervals('%s')", good);
	ok(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
	   count_of(db, "SELECT * FROM tv") > 0, "a TEMP view reads a history");
	snprintf(sql, sizeof sql, "CREATE VIEW mv AS SELECT count(*) FROM sht_intervals('%s')", good);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	expect_error(db, "SELECT * FROM mv", "unsafe use of virtual table");
}

int main(int argc, char **argv)
{
	const char *t = getenv("SHT_TMP");
	char path[4200], label[64];
	sqlite3 *db;

	if (argc < 2)
		bail_out("usage: test-sqlite MODULE [HISTORY]...");
	module = argv[1];
	snprintf(tmp, sizeof tmp, "%s", t ? t : ".");
	db = sqlt_open(module);
	for (int seed = 1; seed <= 4; seed++) {
		snprintf(path, sizeof path, "%s/random-%d.sht", tmp, seed);
		/* Small blocks for some: deeper trees, more nodes to skip. */
		sqlt_gen(path, (uint64_t)seed, seed * 15, 1500 * (unsigned)seed,
			 seed % 2 ? 4096 : 0);
		snprintf(label, sizeof label, "random %d", seed);
		check_history(db, path, label, 12);
	}
	snprintf(path, sizeof path, "%s/random-2.sht", tmp);
	{
		struct sqlt_hist h;

		sqlt_load(db, path, &h);
		check_plans(db, path);
		check_fixed_table(db, path);
		check_errors(db, path);
		sqlt_hist_free(&h);
	}
	check_cache(db);
	for (int i = 2; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');

		check_history(db, argv[i], base ? base + 1 : argv[i], 4);
	}
	sqlite3_close(db);
	return done_testing();
}
