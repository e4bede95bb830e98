/*
 * test-tree-oracle.c: random histories written by the builder, reopened,
 * and every kind of query cross-checked against a brute-force oracle
 * (tests/unit/oracle.h).
 *
 * Each workload is a valid history: per quark, intervals tile a time
 * range without overlaps (and, but for one workload, without gaps), and
 * they reach the builder in non-decreasing end time (ties shuffled).
 * Values cover every type and the awkward ones (INT64_MIN/MAX, -0.0, NaN
 * payloads, empty strings, strings with NULs, strings around the block
 * size, 64 KiB and 100 KiB strings).  Both variants, every block size
 * and fan-out of the matrix.  Then workloads aimed at the node layouts
 * (docs/FORMAT.md §3): kernel-like histories (runs, a quark with
 * thousands of records in a node, shared ends, few values), every
 * interval after a gap (start exceptions), distinct int64s over the whole
 * range, doubles, strings up to blobs, histories of one or two intervals.
 *
 * After sht_builder_finish the file is reopened and checked:
 *   (a) single queries at random (quark, t) and at interval boundaries;
 *   (b) full queries at random t;
 *   (c) 2D queries (quark sets and ranges, resolution 0 and > 0);
 *   (d) sht_reader_check() == SHT_OK;
 *   (e) sht_reader_info_get() counts and bounds.
 *
 * Seed: SHT_TEST_SEED overrides the fixed default.  SHT_TEST_SCALE (a
 * float, default 1) scales the query counts, for longer soak runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"
#include "oracle.h"

static double g_scale = 1.0;

static size_t scaled(size_t n)
{
	double x = (double)n * g_scale;

	return x < 1.0 ? 1 : (size_t)x;
}

/* ---- configurations ----------------------------------------------------- */

typedef struct config {
	sht_variant variant;
	uint32_t block_size;
	uint32_t max_children;
} config;

static const char *variant_name(sht_variant v)
{
	return v == SHT_VARIANT_SHT ? "sht" : "esht";
}

/* ---- building ----------------------------------------------------------- */

/*
 * Write o's intervals to path.  Returns SHT_OK, or the code of
 * sht_builder_create when the options are refused, or another error
 * (reported) if an insert or finish failed.
 */
static sht_err build(const char *path, const orc *o, const config *c,
		     const char *name)
{
	sht_builder_opts opts;
	sht_builder *b = NULL;
	sht_err rc;
	size_t i, bad = 0;
	char ib[160];

	sht_builder_opts_init(&opts);
	opts.variant = c->variant;
	opts.block_size = c->block_size;
	opts.max_children = c->max_children;
	opts.no_sync = true;
	rc = sht_builder_create(path, o->start, &opts, &b);
	if (!ok(rc == SHT_OK, "%s: create", name)) {
		diag("  create: %s (%s)", sht_err_name(rc), sht_errmsg());
		return rc;
	}
	for (i = 0; i < o->n; i++) {
		rc = sht_builder_insert(b, &o->ivs[i]);
		if (rc != SHT_OK && bad++ < 5)
			diag("%s: insert #%zu %s: %s (%s)", name, i,
			     orc_iv_str(&o->ivs[i], ib, sizeof ib),
			     sht_err_name(rc), sht_errmsg());
		if (rc < 0 && rc != SHT_ERR_ORDER && rc != SHT_ERR_INVALID &&
		    rc != SHT_ERR_TOOBIG)
			break;  /* builder failed */
	}
	ok(bad == 0, "%s: %zu intervals inserted (%zu refused)", name, o->n,
	   bad);
	rc = sht_builder_finish(b, o->end);
	if (!ok(rc == SHT_OK, "%s: finish at %" PRId64, name, o->end))
		diag("  finish: %s (%s)", sht_err_name(rc), sht_errmsg());
	sht_builder_close(b);
	return bad ? SHT_ERR_STATE : rc;
}

/* ---- verification ------------------------------------------------------- */

typedef struct effort {
	size_t singles;      /* random single queries */
	size_t boundaries;   /* intervals whose 4 boundaries are queried */
	size_t fulls;        /* full queries */
	size_t twods;        /* 2D queries */
} effort;

/* A quark for a random query: mostly stored ones, sometimes neighbours
 * and random numbers (usually absent). */
static sht_quark pick_quark(const orc *o, orc_rng *r)
{
	unsigned p = (unsigned)orc_below(r, 100);
	sht_quark q;

	if (o->nq == 0 || p < 10)
		return (sht_quark)orc_below(r, (uint64_t)SHT_QUARK_MAX + 1);
	q = o->qs[orc_below(r, o->nq)];
	if (p < 20) {
		if (orc_pct(r, 50))
			q = q > 0 ? q - 1 : q;
		else
			q = q < SHT_QUARK_MAX ? q + 1 : q;
	}
	return q;
}

/* A time for a random query: mostly inside the history. */
static sht_time pick_time(const orc *o, orc_rng *r)
{
	unsigned p = (unsigned)orc_below(r, 100);

	if (p < 75)
		return orc_range(r, o->start, o->end);
	if (p < 85) {
		sht_time e[4] = { o->start, o->end,
				  o->start < o->end ? o->start + 1 : o->start,
				  o->start < o->end ? o->end - 1 : o->end };

		return e[orc_below(r, 4)];
	}
	if (p < 95 && o->n) {
		const sht_interval *iv = &o->ivs[orc_below(r, o->n)];

		return orc_pct(r, 50) ? iv->start : iv->end;
	}
	/* just outside the history */
	if (orc_pct(r, 50) && o->start > INT64_MIN + 1000)
		return o->start - 1 - (sht_time)orc_below(r, 1000);
	if (o->end < INT64_MAX - 1000)
		return o->end + 1 + (sht_time)orc_below(r, 1000);
	return o->end;
}

static void check_info(sht_reader *rd, const orc *o, const config *c,
		       const char *name)
{
	sht_tree_info inf;
	uint64_t qc = 0;

	memset(&inf, 0xa5, sizeof inf);
	sht_reader_info_get(rd, &inf);
	if (o->nq)
		qc = (uint64_t)o->qs[o->nq - 1] + 1;
	ok(inf.intervals == o->n && inf.start == o->start &&
	   inf.end == o->end && inf.quark_count == qc &&
	   inf.variant == c->variant && inf.block_size == c->block_size &&
	   inf.max_children == c->max_children &&
	   inf.format_version == SHT_FORMAT_VERSION && inf.depth >= 1 &&
	   inf.nodes >= 1 && inf.blocks >= inf.nodes &&
	   inf.file_bytes == 4096u + inf.blocks * (uint64_t)c->block_size,
	   "%s: info (intervals %" PRIu64 ", quark_count %" PRIu64
	   ", depth %" PRIu32 ", nodes %" PRIu64 ", blocks %" PRIu64 ")",
	   name, inf.intervals, inf.quark_count, inf.depth, inf.nodes,
	   inf.blocks);
	if (inf.intervals != o->n || inf.quark_count != qc ||
	    inf.start != o->start || inf.end != o->end)
		diag("  expected intervals %zu, quark_count %" PRIu64
		     ", [%" PRId64 ", %" PRId64 "]; got [%" PRId64 ", %" PRId64
		     "]", o->n, qc, o->start, o->end, inf.start, inf.end);
	if (inf.variant != c->variant || inf.block_size != c->block_size ||
	    inf.max_children != c->max_children ||
	    inf.format_version != SHT_FORMAT_VERSION ||
	    inf.file_bytes != 4096u + inf.blocks * (uint64_t)c->block_size)
		diag("  variant %d block %" PRIu32 " children %" PRIu32
		     " version %" PRIu32 " file_bytes %" PRIu64,
		     (int)inf.variant, inf.block_size, inf.max_children,
		     inf.format_version, inf.file_bytes);
}

static void report_line(void *ctx, const char *msg)
{
	unsigned *n = ctx;

	if ((*n)++ < 5)
		diag("  check: %s", msg);
}

static void check_singles(sht_reader *rd, const orc *o, const orc_vis *v,
			  orc_rng *r, sht_result *res, size_t n,
			  const char *name)
{
	size_t i, bad = 0;

	orc_diag_reset();
	for (i = 0; i < n; i++) {
		sht_quark q = pick_quark(o, r);
		sht_time t = pick_time(o, r);
		sht_err rc = sht_reader_query(rd, q, t, res);

		bad += !orc_check_single(o, v, q, t, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: %zu random single queries (%zu wrong)", name, n,
	   bad);
}

/* The 4 boundaries (start, end, start-1, end+1) of n intervals, plus
 * every interval of the first and last few quarks. */
static void check_boundaries(sht_reader *rd, const orc *o, const orc_vis *v,
			     orc_rng *r, sht_result *res, size_t n,
			     const char *name)
{
	size_t i, k, bad = 0, done = 0, all = n >= o->n;

	orc_diag_reset();
	for (i = 0; i < (all ? o->n : n); i++) {
		const sht_interval *iv =
			&o->ivs[all ? i : orc_below(r, o->n)];
		sht_time ts[4];

		ts[0] = iv->start;
		ts[1] = iv->end;
		ts[2] = iv->start > INT64_MIN ? iv->start - 1 : iv->start;
		ts[3] = iv->end < INT64_MAX ? iv->end + 1 : iv->end;
		for (k = 0; k < 4; k++) {
			sht_err rc = sht_reader_query(rd, iv->quark, ts[k],
						      res);

			bad += !orc_check_single(o, v, iv->quark, ts[k], rc,
						 res, 0, NULL, name);
			done++;
		}
	}
	ok(bad == 0, "%s: %zu boundary queries of %s intervals (%zu wrong)",
	   name, done, all ? "all" : "sampled", bad);
}

static void check_fulls(sht_reader *rd, const orc *o, const orc_vis *v,
			orc_rng *r, sht_result *res, size_t n,
			const char *name)
{
	size_t i, bad = 0;

	orc_diag_reset();
	for (i = 0; i < n; i++) {
		sht_time t = i == 0 ? o->start : i == 1 ? o->end :
			     orc_range(r, o->start, o->end);
		sht_err rc;

		if (i >= 2 && o->n && orc_pct(r, 30)) {
			const sht_interval *iv = &o->ivs[orc_below(r, o->n)];

			t = orc_pct(r, 50) ? iv->start : iv->end;
		}
		rc = sht_reader_query_full(rd, t, res);
		bad += !orc_check_full(o, v, t, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: %zu full queries (%zu wrong)", name, n, bad);
}

/* Random 2D query; quarks[] is scratch of at least 2 * o->nq + 80
 * entries. */
static void pick_2d(const orc *o, orc_rng *r, sht_query2d *q,
		    sht_quark *quarks)
{
	uint64_t w;
	unsigned p;

	memset(q, 0, sizeof *q);
	if (orc_pct(r, 50) && o->nq) {
		size_t n = 1 + orc_below(r, o->nq < 64 ? o->nq : 64), i;

		if (orc_pct(r, 5))   /* a long list: up to 2x every quark */
			n = 1 + orc_below(r, 2 * o->nq);

		for (i = 0; i < n; i++)
			quarks[i] = o->qs[orc_below(r, o->nq)]; /* dups ok */
		if (orc_pct(r, 30))   /* an absent quark or two */
			quarks[n++] = (sht_quark)orc_below(r,
				(uint64_t)SHT_QUARK_MAX + 1);
		if (orc_pct(r, 3))    /* an empty set selects nothing */
			n = 0;
		q->quarks = quarks;
		q->n_quarks = n;
	} else {
		p = (unsigned)orc_below(r, 100);
		if (p < 15 || o->nq == 0) {
			q->qmin = 0;
			q->qmax = SHT_QUARK_MAX;
		} else {
			size_t a = orc_below(r, o->nq);
			size_t b = a + orc_below(r, o->nq - a < 40 ?
						      o->nq - a : 40);

			q->qmin = o->qs[a];
			q->qmax = o->qs[b];
			if (p < 30 && q->qmin > 0)
				q->qmin--;
			if (p >= 90)
				q->qmax = q->qmin;  /* one quark */
		}
	}
	p = (unsigned)orc_below(r, 100);
	if (p < 10) {
		q->t1 = o->start;
		q->t2 = o->end;
	} else if (p < 20) {
		q->t1 = q->t2 = orc_range(r, o->start, o->end);
	} else {
		/* t2 - t1: up to the rest of the history / 1..8 (in uint64:
		 * the history may span the whole int64 range) */
		q->t1 = orc_range(r, o->start, o->end);
		w = ((uint64_t)o->end - (uint64_t)q->t1) /
		    (1 + orc_below(r, 8));
		q->t2 = (sht_time)((uint64_t)q->t1 +
				   orc_below(r, w + 1 ? w + 1 : 0));
	}
	w = (uint64_t)q->t2 - (uint64_t)q->t1;
	p = (unsigned)orc_below(r, 100);
	if (p < 45) {
		q->resolution = 0;
	} else if (p < 55) {
		q->resolution = 1;
	} else if (p < 80) {
		q->resolution = (sht_time)(w / 1920 + 1);
	} else if (p < 90) {
		q->resolution = (sht_time)(w / 7 + 1);
	} else {
		q->resolution = (sht_time)(1 + orc_below(r, 1000000));
	}
	/* resolution 1 over a long window is just resolution 0: keep the
	 * samples under ~1e5 so the library has no reason to be slow */
	if (q->resolution > 0 && w / (uint64_t)q->resolution > 100000)
		q->resolution = (sht_time)(w / 100000 + 1);
}

static void check_2ds(sht_reader *rd, const orc *o, const orc_vis *v,
		      orc_rng *r, sht_result *res, size_t n, const char *name)
{
	size_t i, bad = 0, items = 0;
	sht_quark *quarks = orc_xmalloc((2 * o->nq + 80) * sizeof *quarks);
	sht_query2d q;

	orc_diag_reset();
	for (i = 0; i < n; i++) {
		sht_err rc;

		pick_2d(o, r, &q, quarks);
		rc = sht_reader_query_2d(rd, &q, res);
		items += sht_result_count(res);
		bad += !orc_check_2d(o, v, &q, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: %zu 2D queries, %zu items (%zu wrong)", name, n,
	   items, bad);
	free(quarks);
}

/* Reopen path and run every check.  cache: 0 for the default. */
static void verify(const char *path, const orc *o, const config *c,
		   orc_rng *r, const effort *e, size_t cache,
		   const char *name)
{
	sht_reader_opts oo;
	sht_reader *rd = NULL;
	sht_result *res;
	sht_err rc;
	orc_vis v;
	unsigned nrep = 0;

	memset(&oo, 0, sizeof oo);
	oo.cache_bytes = cache;
	rc = sht_reader_open(path, &oo, &rd);
	if (!ok(rc == SHT_OK && rd, "%s: reopen (cache %zu)", name, cache)) {
		diag("  open: %s (%s)", sht_err_name(rc), sht_errmsg());
		return;
	}
	res = sht_result_create();
	if (!res)
		bail_out("Cannot allocate a result");
	check_info(rd, o, c, name);
	v = orc_vis_all(o, o->nq ? (uint64_t)o->qs[o->nq - 1] + 1 : 0);
	rc = sht_reader_check(rd, report_line, &nrep, 100);
	ok(rc == SHT_OK && nrep == 0, "%s: sht_reader_check: %s (%u reports)",
	   name, sht_err_name(rc), nrep);
	check_singles(rd, o, &v, r, res, scaled(e->singles), name);
	check_boundaries(rd, o, &v, r, res, scaled(e->boundaries), name);
	check_fulls(rd, o, &v, r, res, scaled(e->fulls), name);
	check_2ds(rd, o, &v, r, res, scaled(e->twods), name);
	sht_result_destroy(res);
	sht_reader_close(rd);
}

/* ---- workloads ---------------------------------------------------------- */

/* W1: the general random mix. */
static void wl_random(orc *o, orc_rng *r, const config *c)
{
	static const sht_time starts[] = { 0, 1000000000ll,
					   1700000000000000000ll,
					   -500000000000ll };
	sht_quark qs[200];
	size_t nq, i;
	sht_time start = starts[orc_below(r, 4)];
	sht_time span = (sht_time)1000000 << orc_below(r, 20);
	sht_time tile_end = start + span, end;
	sht_time grid;
	orc_gen g;

	end = orc_pct(r, 30) ? tile_end + 1 + (sht_time)orc_below(r, 5000)
			     : tile_end;
	switch (orc_below(r, 4)) {
	case 0: grid = 1; break;
	case 1: grid = 7; break;
	case 2: grid = 1000; break;
	default: grid = span / 50; break;
	}
	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 2));
	nq = orc_make_quarks(r, qs, 40 + orc_below(r, 40), 12);
	for (i = 0; i < nq; i++) {
		size_t m = 1 + orc_below(r, orc_pct(r, 10) ? 600 : 120);
		sht_time s = start;

		/* a few quarks appear late (their attribute was created
		 * after the start): still no gap once they exist */
		if (orc_pct(r, 15))
			s = orc_range(r, start, tile_end);
		orc_gen_tiling(o, &g, qs[i], s, tile_end, m, grid, 10);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W1b: a small history (one to a few nodes): every boundary queried. */
static void wl_small(orc *o, orc_rng *r, const config *c)
{
	sht_quark qs[20];
	size_t nq, i;
	sht_time start = orc_range(r, -1000, 1000);
	sht_time span = 1 + orc_range(r, 0, 5000);
	orc_gen g;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	nq = orc_make_quarks(r, qs, 1 + orc_below(r, 8), orc_below(r, 8));
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, qs[i], start, start + span,
			       1 + orc_below(r, 30), 1, 20);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W8: the extremes of time: histories touching INT64_MIN and/or
 * INT64_MAX, intervals as long as the whole int64 range, and length-1
 * intervals at both ends. */
static void wl_extreme(orc *o, orc_rng *r, const config *c, sht_time start,
		       sht_time end)
{
	uint64_t span = (uint64_t)end - (uint64_t)start;
	orc_gen g;
	sht_quark q;

	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 10;
	orc_gen_tiling(o, &g, 0, start, end, 1, 1, 0);   /* the whole range */
	for (q = 1; q < 40; q++) {
		sht_time grid = q % 3 == 0 ? (sht_time)(span / 64 ? span / 64 : 1)
			      : 1;

		orc_gen_tiling(o, &g, q * 1000, start, end,
			       1 + orc_below(r, 60), grid, 30);
	}
	/* length-1 intervals at both ends, then one long interval between */
	for (q = 0; q < 3; q++) {
		sht_interval iv;

		iv.quark = SHT_QUARK_MAX - q;
		iv.start = start;
		iv.end = start + (sht_time)q;
		iv.value = sht_value_int64(INT64_MIN + q);
		orc_add(o, &iv);
		iv.start = iv.end + 1;
		iv.end = end - (sht_time)q - 1;
		iv.value = sht_value_int64(INT64_MAX - q);
		orc_add(o, &iv);
		iv.start = iv.end + 1;
		iv.end = end;
		iv.value = sht_value_double(-0.0);
		orc_add(o, &iv);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W8b: a leaf fills up while the tree's end is already INT64_MAX (the
 * classic SHT cannot start the next sibling after it). */
static void wl_full_at_max(orc *o, orc_rng *r, const config *c, size_t n)
{
	orc_gen g;
	size_t i;

	orc_init(o, 0, INT64_MAX);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 5;
	for (i = 0; i < n; i++) {
		sht_interval iv;

		iv.quark = (sht_quark)i;
		iv.start = INT64_MAX - 1 - (sht_time)i;
		iv.end = INT64_MAX;
		iv.value = orc_gen_value(&g);
		orc_add(o, &iv);
	}
	for (i = 0; i < 20; i++) {
		sht_interval iv;

		iv.quark = (sht_quark)(n + i);
		iv.start = INT64_MAX;
		iv.end = INT64_MAX;
		iv.value = orc_gen_value(&g);
		orc_add(o, &iv);
	}
	orc_gen_free(&g);
	/* builder order: all end at INT64_MAX; the [MAX, MAX] ones last */
	orc_index(o);
}

/* W2: every interval starts at the history start, one per quark (the
 * classic SHT's pathology).  Half end at the end, half at one of a few
 * shared end times. */
static void wl_all_at_start(orc *o, orc_rng *r, const config *c, size_t n)
{
	sht_time start = 0, end = 1000000;
	orc_gen g;
	size_t i;

	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 5;
	for (i = 0; i < n; i++) {
		sht_interval iv;

		iv.quark = (sht_quark)i;
		iv.start = start;
		iv.end = orc_pct(r, 50) ? end :
			 (sht_time)orc_below(r, 16) * (end / 16);
		iv.value = orc_gen_value(&g);
		orc_add(o, &iv);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W3: many equal end times: every cut on one of 8 grid points. */
static void wl_equal_ends(orc *o, orc_rng *r, const config *c, size_t nq)
{
	sht_time start = 5000, span = 8000000;
	orc_gen g;
	size_t i;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 10;
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, (sht_quark)(i * 3), start, start + span,
			       1 + orc_below(r, 8), span / 8, 0);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W4: very long and very short intervals side by side. */
static void wl_long_short(orc *o, orc_rng *r, const config *c,
			  size_t n_short)
{
	sht_time start = 100, span = (sht_time)n_short;
	orc_gen g;
	sht_quark q;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 10;
	for (q = 0; q < 8; q++)           /* one interval each: the whole */
		orc_gen_tiling(o, &g, q * 1000, start, start + span, 1, 1, 0);
	for (q = 0; q < 6; q++)           /* length 1 everywhere */
		orc_gen_tiling(o, &g, 500 + q, start, start + span,
			       (size_t)span + 1, 1, 0);
	for (q = 0; q < 6; q++)           /* mixed */
		orc_gen_tiling(o, &g, 700 + q, start, start + span,
			       (size_t)span / 20, 1, 60);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W5: one quark, n intervals. */
static void wl_one_quark(orc *o, orc_rng *r, const config *c, size_t n)
{
	sht_time start = 0, span = (sht_time)n * 50;
	orc_gen g;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 1));
	g.mix.str = 8;
	orc_gen_tiling(o, &g, 42, start, start + span, n, 1, 15);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W6: n quarks, one interval each (all on the whole history, so all end
 * at the same time), quark numbers spread or dense. */
static void wl_many_quarks(orc *o, orc_rng *r, const config *c, size_t n,
			   int spread)
{
	sht_time start = 1000, end = 2000000;
	orc_gen g;
	size_t i;

	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 5;
	for (i = 0; i < n; i++) {
		sht_interval iv;

		iv.quark = spread ? (sht_quark)(i * (SHT_QUARK_MAX / n))
				  : (sht_quark)i;
		iv.start = start;
		iv.end = end;
		iv.value = orc_gen_value(&g);
		orc_add(o, &iv);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W7: huge, sparse quark numbers. */
static void wl_huge_quarks(orc *o, orc_rng *r, const config *c, size_t n)
{
	sht_quark *qs = orc_xmalloc((n + 8) * sizeof *qs);
	sht_time start = 0, end = 1000000000;
	size_t nq, i;
	orc_gen g;

	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	nq = orc_make_quarks(r, qs, 0, n);
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, qs[i], start, end, 1 + orc_below(r, 12),
			       1000, 5);
	orc_gen_free(&g);
	free(qs);
	orc_seal(o, r);
}

/* ---- workloads that stress the node layouts (docs/FORMAT.md §3) -------- */

/* Values for the kernel-like workloads: small ints mostly, CPU-frequency
 * sized int64s, a few names, nulls. */
static sht_value kernel_value(orc_rng *r, sht_quark q)
{
	static const char *const names[] = { "swapper/0", "bash", "sshd",
					     "kworker/1:2", "", "sys_read" };

	if (q % 17 == 3)
		return sht_value_int64(3300000000ll + (int64_t)orc_below(r, 4));
	if (q % 11 == 5) {
		const char *s = names[q % 6 == 0 ? 4 : orc_below(r, 6)];
		return sht_value_string(s, (uint32_t)strlen(s));
	}
	if (orc_pct(r, 5))
		return sht_value_null();
	return sht_value_int32((int32_t)orc_below(r, 8) - 1);
}

/*
 * W9: a state history like the kernel analysis's: nq attributes change at
 * events (1 to 4 attributes per event, so intervals share ends), a few
 * hot attributes take most changes (thousands of records of one quark in
 * a node), few distinct values.  gap > 0: after each interval its quark
 * waits up to gap before its next one (no interval starts at the end + 1
 * of the previous: every start is an exception).
 */
static void wl_kernel_like(orc *o, orc_rng *r, size_t n, size_t nq,
			   sht_time gap, sht_time start)
{
	sht_time *cs = orc_xmalloc(nq * sizeof *cs), t = start;
	sht_value *cur = orc_xmalloc(nq * sizeof *cur);
	size_t i, k;

	orc_init(o, start, start);
	for (i = 0; i < nq; i++) {
		cs[i] = start;
		cur[i] = kernel_value(r, (sht_quark)(i * 3));
	}
	for (i = 0; o->n < n; i++) {
		size_t m = 1 + orc_below(r, 4);

		t += 1 + (sht_time)orc_below(r, 2000);
		for (k = 0; k < m; k++) {
			size_t q = orc_pct(r, 60) ? orc_below(r, 3) : orc_below(r, nq);
			sht_interval iv;

			if (cs[q] > t - 1)
				continue;
			iv.quark = (sht_quark)(q * 3);
			iv.start = cs[q];
			iv.end = t - 1;
			iv.value = cur[q];
			orc_add(o, &iv);
			cs[q] = gap ? t + (sht_time)orc_below(r, (uint64_t)gap) : t;
			cur[q] = kernel_value(r, (sht_quark)(q * 3));
		}
	}
	o->end = t + 1 + (sht_time)gap;
	for (i = 0; i < nq; i++) {             /* close every attribute */
		sht_interval iv;

		iv.quark = (sht_quark)(i * 3);
		iv.start = cs[i];
		iv.end = o->end;
		iv.value = cur[i];
		orc_add(o, &iv);
	}
	free(cs);
	free(cur);
	orc_seal(o, r);
}

/* W10: one value kind per history, on tilings of nq quarks: distinct
 * int64s over the whole range, a few doubles (NaN payloads, -0.0, inf),
 * or a few strings from empty to blobs (longer than B/16). */
enum { V_DISTINCT, V_DOUBLES, V_STRINGS };

static sht_value kind_value(orc_rng *r, int kind, uint32_t bs, char *buf)
{
	static const uint64_t dbl[] = {
		0x0000000000000000ull, 0x8000000000000000ull,
		0x7ff8000000000000ull, 0xfff8000000000001ull,
		0x7ff0000000000000ull, 0x0000000000000001ull,
		0x3ff0000000000000ull, 0xc00921fb54442d18ull,
	};
	size_t lens[] = { 0, 1, 7, bs / 16 - 1, bs / 16, bs / 16 + 1, bs / 2,
			  3000 };
	size_t k;

	if (kind == V_DISTINCT)
		return sht_value_int64((int64_t)orc_next(r));
	if (kind == V_DOUBLES)
		return sht_value_double(orc_double_from_bits(dbl[orc_below(r, 8)]));
	k = orc_below(r, 8);
	memset(buf, 'a' + (int)k, lens[k]);
	if (lens[k] > 2)
		buf[1] = '\0';              /* strings are bytes */
	return sht_value_string(buf, (uint32_t)lens[k]);
}

static void wl_values(orc *o, orc_rng *r, const config *c, size_t nq,
		      size_t per_quark, int kind)
{
	sht_time start = -7000000, end = start + (sht_time)(per_quark * 1000);
	char *buf = orc_xmalloc(c->block_size + 4096);
	size_t i, j;

	orc_init(o, start, end);
	for (i = 0; i < nq; i++) {
		sht_time s = start;

		for (j = 0; j < per_quark && s <= end; j++) {
			sht_interval iv;

			iv.quark = (sht_quark)(i * 7 + 1);
			iv.start = s;
			iv.end = j + 1 == per_quark ? end
				 : s + (sht_time)orc_below(r, 1500);
			if (iv.end > end)
				iv.end = end;
			iv.value = kind_value(r, kind, c->block_size, buf);
			orc_add(o, &iv);
			s = iv.end + 1;
		}
	}
	free(buf);
	orc_seal(o, r);
}

/* W11: a history of one interval, or two of one quark. */
static void wl_tiny(orc *o, orc_rng *r, const config *c, size_t n)
{
	orc_gen g;

	orc_init(o, 10, 10 + (sht_time)orc_below(r, 100));
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	orc_gen_tiling(o, &g, (sht_quark)orc_below(r, 1000), o->start, o->end,
		       n, 1, 0);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* ---- driver ------------------------------------------------------------- */

static void run(const orc *o, const config *c, orc_rng *r, const effort *e,
		const char *what)
{
	char name[160], path[PATH_MAX];
	double t0 = orc_now();
	size_t cache;
	sht_err rc;

	snprintf(name, sizeof name, "%s %s/%" PRIu32 "/%" PRIu32, what,
		 variant_name(c->variant), c->block_size, c->max_children);
	orc_scratch_path(path, sizeof path, "oracle");
	rc = build(path, o, c, name);
	if (rc == SHT_OK) {
		/* every other run with a tiny cache: eviction on every
		 * query */
		cache = orc_pct(r, 50) ? 0 : (size_t)c->block_size *
					     (2 + orc_below(r, 6));
		if (orc_pct(r, 10))
			cache = 1;  /* smaller than one block */
		verify(path, o, c, r, e, cache, name);
	}
	unlink(path);
	printf("# %s: %zu intervals, %zu quarks, %.2f s\n", name, o->n,
	       o->nq, orc_now() - t0);
}

/*
 * eSHT: when a core node fills, the open nodes below it stay open under
 * its successor instead of closing half empty (builder.c), so the leaves
 * of a kernel-like history are nearly full.
 */
static void check_fill(const orc *o, const config *c, const char *what)
{
	char path[PATH_MAX];
	sht_reader *rd = NULL;
	sht_tree_stats st;
	sht_err rc;

	orc_scratch_path(path, sizeof path, "fill");
	rc = build(path, o, c, what);
	if (rc == SHT_OK)
		rc = sht_reader_open(path, NULL, &rd);
	if (rc == SHT_OK)
		rc = sht_reader_stats_get(rd, &st);
	ok(rc == SHT_OK && st.levels > 2 && st.fill_leaf > 0.95,
	   "%s %s/%" PRIu32 ": leaves %.3f full over %u levels", what,
	   variant_name(c->variant), c->block_size,
	   rc == SHT_OK ? st.fill_leaf : 0.0, rc == SHT_OK ? st.levels : 0);
	sht_reader_close(rd);
	unlink(path);
}

/* Does the documented geometry rule accept this block size / fan-out? */
static int geometry_ok(uint32_t bs, uint32_t mc)
{
	return mc >= 2 && 96u + 32u * (uint64_t)mc <= bs / 2;
}

int main(void)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	static const uint32_t fanout[] = { 2, 3, 10, 50 };
	static const sht_variant variants[] = { SHT_VARIANT_SHT,
						SHT_VARIANT_ESHT };
	const effort e_rand = { 4000, 1000, 30, 100 };
	const effort e_small = { 1000, 100000, 20, 50 };
	const effort e_hard = { 3000, 600, 6, 30 };
	uint64_t seed = orc_test_seed(20240611);
	const char *sc = getenv("SHT_TEST_SCALE");
	double t0 = orc_now();
	size_t vi, si, fi;
	orc_rng r;

	if (sc && atof(sc) > 0)
		g_scale = atof(sc);
	if (orc_scratch_init("oracle") != 0)
		bail_out("Cannot create a scratch directory");
	orc_rng_seed(&r, seed);

	/* The matrix: both variants x 3 block sizes x 4 fan-outs. */
	for (vi = 0; vi < 2; vi++)
		for (si = 0; si < 3; si++)
			for (fi = 0; fi < 4; fi++) {
				config c = { variants[vi], sizes[si],
					     fanout[fi] };
				char path[PATH_MAX];
				sht_builder_opts opts;
				sht_builder *b = NULL;
				sht_err rc;
				orc o;

				sht_builder_opts_init(&opts);
				opts.variant = c.variant;
				opts.block_size = c.block_size;
				opts.max_children = c.max_children;
				opts.no_sync = true;
				orc_scratch_path(path, sizeof path, "probe");
				rc = sht_builder_create(path, 0, &opts, &b);
				sht_builder_close(b);
				unlink(path);
				if (!geometry_ok(c.block_size,
						 c.max_children)) {
					ok(rc == SHT_ERR_INVALID,
					   "%s/%" PRIu32 "/%" PRIu32
					   " refused as documented: %s",
					   variant_name(c.variant),
					   c.block_size, c.max_children,
					   sht_err_name(rc));
					continue;
				}
				if (!ok(rc == SHT_OK, "%s/%" PRIu32 "/%" PRIu32
					" accepted: %s",
					variant_name(c.variant), c.block_size,
					c.max_children, sht_err_name(rc)))
					continue;
				wl_random(&o, &r, &c);
				run(&o, &c, &r, &e_rand, "random");
				orc_free(&o);
				wl_small(&o, &r, &c);
				run(&o, &c, &r, &e_small, "small");
				orc_free(&o);
			}

	/* The extremes of time, on every block size, both variants. */
	for (vi = 0; vi < 2; vi++)
		for (si = 0; si < 3; si++) {
			const config c = { variants[vi], sizes[si], 3 };
			static const sht_time ext[3][2] = {
				{ INT64_MIN, INT64_MAX },
				{ INT64_MIN, INT64_MIN + 100000 },
				{ INT64_MAX - 100000, INT64_MAX },
			};
			orc o;

			wl_extreme(&o, &r, &c, ext[si][0], ext[si][1]);
			run(&o, &c, &r, &e_small, "extreme-times");
			orc_free(&o);
			if (si == 0) {
				wl_full_at_max(&o, &r, &c, 3000);
				run(&o, &c, &r, &e_hard, "full-at-INT64_MAX");
				orc_free(&o);
			}
		}

	/* The hard cases, on a few configurations each. */
	for (vi = 0; vi < 2; vi++) {
		const config small = { variants[vi], 1024, 3 };
		const config mid = { variants[vi], 4096, 10 };
		const config big = { variants[vi], 65536, 50 };
		orc o;

		wl_all_at_start(&o, &r, &small, 3000);
		run(&o, &small, &r, &e_hard, "all-at-start");
		orc_free(&o);
		wl_all_at_start(&o, &r, &big, 20000);
		run(&o, &big, &r, &e_hard, "all-at-start");
		orc_free(&o);

		wl_equal_ends(&o, &r, &mid, 2000);
		run(&o, &mid, &r, &e_hard, "equal-ends");
		orc_free(&o);

		wl_long_short(&o, &r, &mid, 3000);
		run(&o, &mid, &r, &e_hard, "long-short");
		orc_free(&o);

		wl_one_quark(&o, &r, &big, 100000);
		run(&o, &big, &r, &e_hard, "one-quark-100k");
		orc_free(&o);

		wl_many_quarks(&o, &r, &big, 100000, vi == 1);
		run(&o, &big, &r, &e_hard, "100k-quarks");
		orc_free(&o);

		wl_huge_quarks(&o, &r, &mid, 2000);
		run(&o, &mid, &r, &e_hard, "huge-quarks");
		orc_free(&o);
	}
	/* The node layouts: runs, exceptions, end table, dictionary. */
	for (vi = 0; vi < 2; vi++) {
		const config small = { variants[vi], 1024, 3 };
		const config mid = { variants[vi], 4096, 10 };
		const config big = { variants[vi], 65536, 50 };
		const config *cs[3] = { &small, &mid, &big };
		orc o;

		for (si = 0; si < 3; si++) {
			wl_kernel_like(&o, &r, si == 2 ? 40000 : 6000, 300, 0,
				       1700000000000000000ll);
			run(&o, cs[si], &r, &e_hard, "kernel-like");
			orc_free(&o);
			wl_kernel_like(&o, &r, si == 2 ? 20000 : 4000, 200, 50, 0);
			run(&o, cs[si], &r, &e_hard, "gaps");
			orc_free(&o);
			wl_tiny(&o, &r, cs[si], 1 + si % 2);
			run(&o, cs[si], &r, &e_small, "tiny");
			orc_free(&o);
		}
		if (vi == 1) {
			const config fill = { SHT_VARIANT_ESHT, 4096, 10 };
			wl_kernel_like(&o, &r, 200000, 300, 0, 0);
			check_fill(&o, &fill, "kernel-like");
			orc_free(&o);
		}
		wl_values(&o, &r, &big, 40, 300, V_DISTINCT);
		run(&o, &big, &r, &e_hard, "distinct-int64");
		orc_free(&o);
		wl_values(&o, &r, &mid, 40, 100, V_DOUBLES);
		run(&o, &mid, &r, &e_hard, "doubles");
		orc_free(&o);
		wl_values(&o, &r, &big, 20, 100, V_STRINGS);
		run(&o, &big, &r, &e_hard, "strings");
		orc_free(&o);
		wl_values(&o, &r, &small, 10, 40, V_STRINGS);
		run(&o, &small, &r, &e_hard, "strings");
		orc_free(&o);
	}
	printf("# total %.1f s\n", orc_now() - t0);
	orc_scratch_done();
	return done_testing();
}
