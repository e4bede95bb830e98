/*
 * test-cursor.c: cursors (sht_reader_cursor_create, sht_state_cursor_create,
 * sht_cursor_next) against the 2D query they stream.
 *
 * Random state histories (nested attributes, every value type, nulls,
 * clears) are written with small blocks (many nodes, deep trees) in both
 * variants, reopened, and for random 2D queries (quark sets with
 * duplicates, empty sets, ranges; windows inside, across and at the
 * bounds; resolutions 0 to the whole span) the pieces a cursor hands out
 * are checked: each non-empty and at most one node's worth, SHT_END
 * after the last and ever after, and together, once sorted, equal to
 * sht_reader_query_2d's answer.  The state system's cursor gives the same
 * on an opened history, and on a history being built (one piece, the
 * sorted answer), and refuses what sht_state_query_2d refuses.  A damaged
 * node ends a cursor with SHT_ERR_CORRUPT, then SHT_END.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "tap.h"

static uint64_t rnd = 0x12345678;

static uint64_t next_rand(void)
{
	uint64_t z = (rnd += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int64_t between(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next_rand() % (uint64_t)(hi - lo + 1));
}

/* ---- histories ------------------------------------------------------------ */

static sht_value draw_value(sht_quark q, char *buf)
{
	int64_t x = between(-3, 3);

	if (x == 0)
		return sht_value_null();
	switch (q % 4) {
	case 0: return sht_value_int32((int32_t)x);
	case 1: return sht_value_int64(x * (INT64_C(1) << 40));
	case 2: return sht_value_double((double)x / 7);
	default:
		snprintf(buf, 32, "s%lld", (long long)x);
		return sht_value_string(buf, (uint32_t)strlen(buf));
	}
}

/* Write a random history; returns the state system still open (unfinished)
 * when keep_open, else NULL after finishing it. */
static sht_state *write_history(const char *path, sht_variant v, unsigned attrs,
				unsigned changes, int keep_open)
{
	static const char *const names[] = { "a", "b", "c", "7", "x" };
	sht_state_opts o;
	sht_state *ss;
	sht_time t = 1000;
	char buf[32];

	sht_state_opts_init(&o);
	o.tree.variant = v;
	o.tree.block_size = 1024;
	o.tree.max_children = 4;
	o.tree.no_sync = true;
	if (sht_state_create(path, t, &o, &ss) != SHT_OK)
		bail_out("create %s: %s", path, sht_errmsg());
	while (sht_state_attr_count(ss) < attrs) {
		const char *e[3];
		size_t n = (size_t)between(1, 3);
		sht_quark q;

		for (size_t i = 0; i < n; i++)
			e[i] = names[next_rand() % 5];
		if (sht_state_quark(ss, SHT_QUARK_ROOT, e, n, &q) != SHT_OK)
			bail_out("quark: %s", sht_errmsg());
	}
	for (unsigned i = 0; i < changes; i++) {
		sht_quark q = (sht_quark)(next_rand() % attrs);
		sht_value val = draw_value(q, buf);
		sht_err err;

		t += between(0, 50);
		err = next_rand() % 50 ? sht_state_modify(ss, t, q, &val)
				       : sht_state_clear(ss, t, q);
		if (err != SHT_OK)
			bail_out("change: %s", sht_errmsg());
	}
	if (keep_open)
		return ss;
	if (sht_state_finish(ss, t + 5) != SHT_OK)
		bail_out("finish: %s", sht_errmsg());
	sht_state_close(ss);
	return NULL;
}

/* ---- comparing -------------------------------------------------------------- */

static int cmp_iv(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->quark < y->quark ? -1 : x->quark > y->quark;
}

/* Drain c into all (appended); check the pieces.  Returns the error
 * that ended it (SHT_END when all went well). */
static sht_err drain(sht_cursor *c, sht_result *all, size_t max_piece, int *bad_piece)
{
	sht_result *piece = sht_result_create();
	sht_err err;

	while ((err = sht_cursor_next(c, piece)) == SHT_OK) {
		size_t n = sht_result_count(piece);

		if (n == 0 || n > max_piece)
			(*bad_piece)++;
		for (size_t i = 0; i < n; i++)
			sht_result_append(all, sht_result_at(piece, i));
	}
	if (sht_result_count(piece) != 0 || sht_cursor_next(c, piece) != SHT_END)
		(*bad_piece)++;
	sht_result_destroy(piece);
	return err;
}

static int same_answer(sht_result *streamed, sht_result *want)
{
	size_t n = sht_result_count(streamed);
	sht_interval *v = malloc((n ? n : 1) * sizeof *v);
	int same = n == sht_result_count(want);

	memcpy(v, sht_result_items(streamed), n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_iv);
	for (size_t i = 0; same && i < n; i++) {
		const sht_interval *w = sht_result_at(want, i);

		same = v[i].quark == w->quark && v[i].start == w->start && v[i].end == w->end &&
		       sht_value_equal(&v[i].value, &w->value);
	}
	free(v);
	return same;
}

/* A random 2D query over [lo, hi] and quarks 0 .. nq-1. */
static void draw_query(sht_query2d *q, sht_quark *sel, sht_time lo, sht_time hi, uint64_t nq)
{
	memset(q, 0, sizeof *q);
	q->t1 = between(lo, hi);
	q->t2 = next_rand() % 4 ? between(q->t1, hi) : hi;
	if (next_rand() % 5 == 0)
		q->t1 = lo;
	q->resolution = next_rand() % 3 ? 0 : between(1, hi - lo + 10);
	if (next_rand() % 2) {
		q->n_quarks = (size_t)between(0, 12);
		for (size_t i = 0; i < q->n_quarks; i++)
			sel[i] = (sht_quark)(next_rand() % nq);     /* duplicates too */
		q->quarks = sel;
	} else {
		q->qmin = (sht_quark)(next_rand() % nq);
		q->qmax = (sht_quark)between(q->qmin, (int64_t)nq - 1);
	}
}

/* ---- checks --------------------------------------------------------------------- */

/* No piece holds more than one node: a record takes at least a byte of
 * its 1 KiB block. */
#define MAX_PIECE 1024

static void check_file(const char *path, const char *label, int queries)
{
	sht_reader *r;
	sht_state *ss;
	sht_result *want = sht_result_create(), *got = sht_result_create();
	sht_tree_info info;
	sht_quark sel[16];
	size_t max_piece = MAX_PIECE, streamed = 0;
	int bad = 0, bad_piece = 0, bad_state = 0;

	if (sht_reader_open(path, NULL, &r) != SHT_OK || sht_state_open(path, NULL, &ss) != SHT_OK)
		bail_out("open %s: %s", path, sht_errmsg());
	sht_reader_info_get(r, &info);
	for (int i = 0; i < queries; i++) {
		sht_query2d q;
		sht_cursor *c;

		draw_query(&q, sel, info.start, info.end, info.quark_count);
		if (sht_reader_query_2d(r, &q, want) != SHT_OK ||
		    sht_reader_cursor_create(r, &q, &c) != SHT_OK)
			bail_out("query: %s", sht_errmsg());
		sht_result_clear(got);
		if (drain(c, got, max_piece, &bad_piece) != SHT_END || !same_answer(got, want))
			bad++;
		streamed += sht_result_count(got);
		sht_cursor_destroy(c);
		if (sht_state_cursor_create(ss, &q, &c) != SHT_OK)
			bail_out("state cursor: %s", sht_errmsg());
		sht_result_clear(got);
		if (drain(c, got, max_piece, &bad_piece) != SHT_END || !same_answer(got, want))
			bad_state++;
		sht_cursor_destroy(c);
	}
	ok(bad == 0 && bad_piece == 0, "%s: %d cursors, %zu intervals streamed, as the 2D "
	   "queries (pieces of 1 to %zu intervals)", label, queries, streamed, max_piece);
	ok(bad_state == 0, "%s: the state system's cursors on the opened history too", label);
	sht_result_destroy(want);
	sht_result_destroy(got);
	sht_state_close(ss);
	sht_reader_close(r);
}

static void check_building(const char *path)
{
	sht_state *ss = write_history(path, SHT_VARIANT_ESHT, 30, 3000, 1);
	sht_result *want = sht_result_create(), *got = sht_result_create();
	sht_quark sel[16];
	int bad = 0;

	for (int i = 0; i < 50; i++) {
		sht_query2d q;
		sht_cursor *c;
		size_t n;

		draw_query(&q, sel, sht_state_start(ss), sht_state_end(ss), sht_state_attr_count(ss));
		if (sht_state_query_2d(ss, &q, want) != SHT_OK ||
		    sht_state_cursor_create(ss, &q, &c) != SHT_OK)
			bail_out("query: %s", sht_errmsg());
		/* One piece, already in (start, quark) order. */
		n = sht_result_count(want);
		if (sht_cursor_next(c, got) != (n ? SHT_OK : SHT_END) || sht_result_count(got) != n ||
		    !same_answer(got, want) || sht_cursor_next(c, got) != SHT_END)
			bad++;
		sht_cursor_destroy(c);
	}
	ok(bad == 0, "a history being built: the state's cursor hands out the 2D answer whole");
	{
		sht_query2d q;
		sht_cursor *c = NULL;

		memset(&q, 0, sizeof q);
		q.t1 = sht_state_start(ss) - 1;
		q.t2 = sht_state_end(ss);
		is_int(sht_state_cursor_create(ss, &q, &c), SHT_ERR_RANGE, "t1 before the history: SHT_ERR_RANGE");
		q.t1 = q.t2 + 1;
		is_int(sht_state_cursor_create(ss, &q, &c), SHT_ERR_INVALID, "t1 > t2: SHT_ERR_INVALID");
		ok(c == NULL, "no cursor made on failure");
		q.t1 = sht_state_start(ss);
		q.order = (sht_order)-1;
		is_int(sht_state_query_2d(ss, &q, got), SHT_ERR_INVALID,
		       "a state's 2D query: order -1 refused");
	}
	sht_state_close(ss);
	sht_result_destroy(want);
	sht_result_destroy(got);
}

/* A copy of src with one byte in every 512 of [off, end) changed: the
 * first leaves, not the root and the sections written last. */
static void damage(const char *src, const char *dst, long off, long end)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	long i = 0;
	int ch;

	if (!in || !out)
		bail_out("copy %s", src);
	while ((ch = fgetc(in)) != EOF) {
		fputc(i >= off && i < end && (i - off) % 512 == 0 ? ch ^ 0x5a : ch, out);
		i++;
	}
	fclose(in);
	fclose(out);
}

static void check_damaged(const char *good, const char *bad_path)
{
	sht_reader *r;
	sht_cursor *c;
	sht_query2d q;
	sht_result *all = sht_result_create();
	sht_tree_info info;
	int bad_piece = 0;
	sht_err err;

	if (sht_reader_open(good, NULL, &r) != SHT_OK)
		bail_out("open %s: %s", good, sht_errmsg());
	sht_reader_info_get(r, &info);
	sht_reader_close(r);
	damage(good, bad_path, 4096, (long)info.file_bytes / 4);
	if (sht_reader_open(bad_path, NULL, &r) != SHT_OK)
		bail_out("the damaged copy must open (its leaves are damaged): %s", sht_errmsg());
	sht_reader_info_get(r, &info);
	memset(&q, 0, sizeof q);
	q.t1 = info.start;
	q.t2 = info.end;
	q.qmax = info.quark_count ? (sht_quark)(info.quark_count - 1) : 0;
	if (sht_reader_cursor_create(r, &q, &c) != SHT_OK)
		bail_out("cursor: %s", sht_errmsg());
	err = drain(c, all, SIZE_MAX, &bad_piece);
	is_int(err, SHT_ERR_CORRUPT, "a damaged node ends the cursor with SHT_ERR_CORRUPT (%s)",
	       sht_errmsg());
	ok(bad_piece == 0, "then SHT_END");
	sht_cursor_destroy(c);
	sht_reader_close(r);
	sht_result_destroy(all);
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");
	char path[4096], bad[4200];
	sht_reader *r;
	sht_cursor *c = NULL;
	sht_query2d q;

	snprintf(path, sizeof path, "%s/cursor.sht", tmp ? tmp : ".");
	for (int v = 0; v < 2; v++) {
		for (int k = 0; k < 3; k++) {
			char label[64];

			write_history(path, v ? SHT_VARIANT_SHT : SHT_VARIANT_ESHT,
				      10 + 40 * (unsigned)k, 2000 + 6000 * (unsigned)k, 0);
			snprintf(label, sizeof label, "%s, history %d", v ? "sht" : "esht", k);
			check_file(path, label, 150);
		}
	}
	snprintf(bad, sizeof bad, "%s/damaged.sht", tmp ? tmp : ".");
	check_damaged(path, bad);
	snprintf(path, sizeof path, "%s/building.sht", tmp ? tmp : ".");
	check_building(path);
	snprintf(path, sizeof path, "%s/cursor.sht", tmp ? tmp : ".");
	if (sht_reader_open(path, NULL, &r) != SHT_OK)
		bail_out("open: %s", sht_errmsg());
	memset(&q, 0, sizeof q);
	q.t1 = 5;
	q.t2 = 4;
	is_int(sht_reader_cursor_create(r, &q, &c), SHT_ERR_INVALID, "reader cursor: t1 > t2 refused");
	{                       /* an order that is neither of the two */
		sht_result *res = sht_result_create();

		q.t2 = 5;
		q.qmax = 3;
		q.order = (sht_order)2;
		is_int(sht_reader_query_2d(r, &q, res), SHT_ERR_INVALID, "2D query: order 2 refused");
		is_int(sht_reader_query_2d_threads(r, &q, 2, res), SHT_ERR_INVALID,
		       "2D query on threads: order 2 refused");
		is_int(sht_reader_cursor_create(r, &q, &c), SHT_ERR_INVALID, "reader cursor: order 2 refused");
		q.order = SHT_ORDER_QUARK;
		is_int(sht_reader_query_2d(r, &q, res), SHT_OK, "2D query: SHT_ORDER_QUARK taken");
		sht_result_destroy(res);
	}
	sht_reader_close(r);
	sht_cursor_destroy(NULL);
	return done_testing();
}
