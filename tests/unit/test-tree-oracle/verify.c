/*
 * verify.c: test-tree-oracle, the configurations, the build of an
 * oracle's history, and its verification: info, single queries at random
 * and at interval bounds, full and 2D queries, sht_reader_check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree-oracle.h"

double g_scale = 1.0;

static size_t scaled(size_t n)
{
	double x = (double)n * g_scale;

	return x < 1.0 ? 1 : (size_t)x;
}

/* ---- configurations ----------------------------------------------------- */

const char *variant_name(sht_variant v)
{
	return v == SHT_VARIANT_SHT ? "sht" : "esht";
}

/* ---- building ----------------------------------------------------------- */

/*
 * Write o's intervals to path.  Returns SHT_OK, or the code of
 * sht_builder_create when the options are refused, or another error
 * (reported) if an insert or finish failed.
 */
sht_err build(const char *path, const orc *o, const config *c,
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

/* A quark for a random query: mostly stored ones, sometimes neighbours
 * and random numbers (usually absent). */
static sht_quark pick_quark(const orc *o, struct rng *r)
{
	unsigned p = (unsigned)rng_below(r, 100);
	sht_quark q;

	if (o->nq == 0 || p < 10)
		return (sht_quark)rng_below(r, (uint64_t)SHT_QUARK_MAX + 1);
	q = o->qs[rng_below(r, o->nq)];
	if (p < 20) {
		if (rng_pct(r, 50))
			q = q > 0 ? q - 1 : q;
		else
			q = q < SHT_QUARK_MAX ? q + 1 : q;
	}
	return q;
}

/* A time for a random query: mostly inside the history. */
static sht_time pick_time(const orc *o, struct rng *r)
{
	unsigned p = (unsigned)rng_below(r, 100);

	if (p < 75)
		return rng_range(r, o->start, o->end);
	if (p < 85) {
		sht_time e[4] = { o->start, o->end,
				  o->start < o->end ? o->start + 1 : o->start,
				  o->start < o->end ? o->end - 1 : o->end };

		return e[rng_below(r, 4)];
	}
	if (p < 95 && o->n) {
		const sht_interval *iv = &o->ivs[rng_below(r, o->n)];

		return rng_pct(r, 50) ? iv->start : iv->end;
	}
	/* just outside the history */
	if (rng_pct(r, 50) && o->start > INT64_MIN + 1000)
		return o->start - 1 - (sht_time)rng_below(r, 1000);
	if (o->end < INT64_MAX - 1000)
		return o->end + 1 + (sht_time)rng_below(r, 1000);
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
			  struct rng *r, sht_result *res, size_t n,
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
			     struct rng *r, sht_result *res, size_t n,
			     const char *name)
{
	size_t i, k, bad = 0, done = 0, all = n >= o->n;

	orc_diag_reset();
	for (i = 0; i < (all ? o->n : n); i++) {
		const sht_interval *iv =
			&o->ivs[all ? i : rng_below(r, o->n)];
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
			struct rng *r, sht_result *res, size_t n,
			const char *name)
{
	size_t i, bad = 0;

	orc_diag_reset();
	for (i = 0; i < n; i++) {
		sht_time t = i == 0 ? o->start : i == 1 ? o->end :
			     rng_range(r, o->start, o->end);
		sht_err rc;

		if (i >= 2 && o->n && rng_pct(r, 30)) {
			const sht_interval *iv = &o->ivs[rng_below(r, o->n)];

			t = rng_pct(r, 50) ? iv->start : iv->end;
		}
		rc = sht_reader_query_full(rd, t, res);
		bad += !orc_check_full(o, v, t, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: %zu full queries (%zu wrong)", name, n, bad);
}

/* Random 2D query; quarks[] is scratch of at least 2 * o->nq + 80
 * entries. */
static void pick_2d(const orc *o, struct rng *r, sht_query2d *q,
		    sht_quark *quarks)
{
	uint64_t w;
	unsigned p;

	memset(q, 0, sizeof *q);
	if (rng_pct(r, 50) && o->nq) {
		size_t n = 1 + rng_below(r, o->nq < 64 ? o->nq : 64), i;

		if (rng_pct(r, 5))   /* a long list: up to 2x every quark */
			n = 1 + rng_below(r, 2 * o->nq);

		for (i = 0; i < n; i++)
			quarks[i] = o->qs[rng_below(r, o->nq)]; /* dups ok */
		if (rng_pct(r, 30))   /* an absent quark or two */
			quarks[n++] = (sht_quark)rng_below(r,
				(uint64_t)SHT_QUARK_MAX + 1);
		if (rng_pct(r, 3))    /* an empty set selects nothing */
			n = 0;
		q->quarks = quarks;
		q->n_quarks = n;
	} else {
		p = (unsigned)rng_below(r, 100);
		if (p < 15 || o->nq == 0) {
			q->qmin = 0;
			q->qmax = SHT_QUARK_MAX;
		} else {
			size_t a = rng_below(r, o->nq);
			size_t b = a + rng_below(r, o->nq - a < 40 ?
						      o->nq - a : 40);

			q->qmin = o->qs[a];
			q->qmax = o->qs[b];
			if (p < 30 && q->qmin > 0)
				q->qmin--;
			if (p >= 90)
				q->qmax = q->qmin;  /* one quark */
		}
	}
	p = (unsigned)rng_below(r, 100);
	if (p < 10) {
		q->t1 = o->start;
		q->t2 = o->end;
	} else if (p < 20) {
		q->t1 = q->t2 = rng_range(r, o->start, o->end);
	} else {
		/* t2 - t1: up to the rest of the history / 1..8 (in uint64:
		 * the history may span the whole int64 range) */
		q->t1 = rng_range(r, o->start, o->end);
		w = ((uint64_t)o->end - (uint64_t)q->t1) /
		    (1 + rng_below(r, 8));
		q->t2 = (sht_time)((uint64_t)q->t1 +
				   rng_below(r, w + 1 ? w + 1 : 0));
	}
	w = (uint64_t)q->t2 - (uint64_t)q->t1;
	p = (unsigned)rng_below(r, 100);
	if (p < 45) {
		q->resolution = 0;
	} else if (p < 55) {
		q->resolution = 1;
	} else if (p < 80) {
		q->resolution = (sht_time)(w / 1920 + 1);
	} else if (p < 90) {
		q->resolution = (sht_time)(w / 7 + 1);
	} else {
		q->resolution = (sht_time)(1 + rng_below(r, 1000000));
	}
	/* resolution 1 over a long window is just resolution 0: keep the
	 * samples under ~1e5 so the library has no reason to be slow */
	if (q->resolution > 0 && w / (uint64_t)q->resolution > 100000)
		q->resolution = (sht_time)(w / 100000 + 1);
}

static void check_2ds(sht_reader *rd, const orc *o, const orc_vis *v,
		      struct rng *r, sht_result *res, size_t n, const char *name)
{
	size_t i, bad = 0, items = 0;
	sht_quark *quarks = orc_xmalloc((2 * o->nq + 80) * sizeof *quarks);
	sht_query2d q;

	orc_diag_reset();
	for (i = 0; i < n; i++) {
		sht_err rc;

		pick_2d(o, r, &q, quarks);
		q.order = i % 2 ? SHT_ORDER_QUARK : SHT_ORDER_TIME;
		rc = sht_reader_query_2d(rd, &q, res);
		items += sht_result_count(res);
		bad += !orc_check_2d(o, v, &q, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: %zu 2D queries, %zu items (%zu wrong)", name, n,
	   items, bad);
	free(quarks);
}

/* Reopen path and run every check.  cache: 0 for the default,
 * VERIFY_MAPPED for a mapped reader. */
void verify(const char *path, const orc *o, const config *c,
	    struct rng *r, const effort *e, size_t cache,
	    const char *name)
{
	sht_reader_opts oo;
	sht_reader *rd = NULL;
	sht_result *res;
	sht_err rc;
	orc_vis v;
	unsigned nrep = 0;

	char mapped_name[200];

	memset(&oo, 0, sizeof oo);
	if (cache == VERIFY_MAPPED) {
		oo.mapped = true;
		snprintf(mapped_name, sizeof mapped_name, "%s mapped", name);
		name = mapped_name;
	} else {
		oo.cache_bytes = cache;
	}
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
