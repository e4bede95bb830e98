/*
 * sampled.c: test-tree-oracle's sampled 2D queries on histories where a
 * quark has many records in a node, so that the query's jumps from
 * sample to sample (src/store/q2d.c) skip records in every node layout.
 *
 * Workloads (per quark: intervals of length L = 1000, or random ones):
 *   runs       few quarks, each tiled without gaps: RUNS nodes (starts
 *              implied by the previous end), many records per run;
 *   gaps       the same with a gap after every interval: every start an
 *              exception, flat nodes when few quarks make a quark field
 *              narrower than a record index;
 *   durations  short intervals far apart on one or two quarks: flat
 *              nodes with ends stored as durations;
 *   shared     quarks changing at the same instants (ends shared):
 *              end tables, in RUNS and flat nodes;
 *   kernel     wl_kernel_like (hot quarks, thousands of records each);
 *   far-shared dense quarks ending at shared instants far apart, each
 *              starting again after a gap: flat nodes with an end table;
 *   far-wide   the same with random ends (flat, durations or plain ends);
 *   layered    long intervals (kept high in the tree) and short ones (in
 *              the leaves) on one quark and across quarks, quarks absent
 *              for stretches (gaps, a late first interval) and quarks
 *              never present: a sample's answer sits in an upper node
 *              while the leaves below hold other records of its quark,
 *              so a scan that wrongly took a pair for answered (or
 *              answered twice) drops or repeats an interval.
 * The layouts are counted from the file's node headers, and the test
 * asserts that flat nodes (with durations, with an end table), RUNS
 * nodes (with an end table) each occurred with at least 8 records per
 * quark.  Flat nodes with plain ends (neither durations nor an end
 * table) are counted too but not required: the builder picks plain ends
 * only where they are narrower than durations, which these workloads
 * never combine with several records of a quark; such nodes are common
 * among the core nodes of kernel histories (bench/q2d-bench.c compares
 * its answers there).
 *
 * Queries: sample grids of resolution 1, 2, 3, L - 1, L, L + 1, 2 L,
 * random, the whole span and beyond (only t1 and t2), and 0; t1 and t2 at
 * the history's bounds, at interval starts, ends and ends + 1 (grids
 * aligned on interval bounds), or random; quarks as a range (with absent
 * quarks), a random set, one quark.  Each answer is checked against the
 * oracle, and the same query through a cursor must give the same
 * intervals, and the same query on 2 to 4 threads
 * (sht_reader_query_2d_threads) the same answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree-oracle.h"

enum { L = 1000 };

/* ---- workloads ---------------------------------------------------------- */

static sht_value small_value(struct rng *r)
{
	return rng_pct(r, 10) ? sht_value_null()
			      : sht_value_int32((int32_t)rng_below(r, 6));
}

/* nq quarks (q * step + 1) over [0, len]; gap: the largest gap after an
 * interval (0: tiled); regular: intervals of L (the last cut short). */
static void wl_quarks(orc *o, struct rng *r, size_t nq, sht_quark step,
		      sht_time len, sht_time gap, int regular)
{
	orc_init(o, 0, len);
	for (size_t i = 0; i < nq; i++) {
		sht_time s = (sht_time)(i * 37 % L);   /* offsets differ */

		while (s <= len) {
			sht_interval iv;

			iv.quark = (sht_quark)(i * step + 1);
			iv.start = s;
			iv.end = s + (regular ? L - 1 : (sht_time)rng_below(r, 3 * L));
			if (iv.end > len)
				iv.end = len;
			iv.value = small_value(r);
			orc_add(o, &iv);
			s = iv.end + 1 + (gap ? 1 + (sht_time)rng_below(r, (uint64_t)gap) : 0);
		}
	}
	orc_seal(o, r);
}

/* Short intervals (0 .. 20 long) far apart (up to 50 L) on nq quarks. */
static void wl_durations(orc *o, struct rng *r, size_t nq, size_t per)
{
	orc_init(o, 0, 0);
	for (size_t i = 0; i < nq; i++) {
		sht_time s = 0;

		for (size_t k = 0; k < per; k++) {
			sht_interval iv;

			s += 1 + (sht_time)rng_below(r, 50 * L);
			iv.quark = (sht_quark)i;
			iv.start = s;
			iv.end = s + (sht_time)rng_below(r, 21);
			iv.value = small_value(r);
			orc_add(o, &iv);
			s = iv.end;
			if (o->end < s)
				o->end = s;
		}
	}
	orc_seal(o, r);
}

/* nq quarks changing at shared instants: at each instant (1 .. L apart)
 * a random subset of quarks ends an interval. */
static void wl_shared(orc *o, struct rng *r, size_t nq, size_t n, int gaps)
{
	sht_time *cs = orc_xmalloc(nq * sizeof *cs), t = 0;

	orc_init(o, 0, 0);
	memset(cs, 0, nq * sizeof *cs);
	while (o->n < n) {
		t += 1 + (sht_time)rng_below(r, L);
		for (size_t i = 0; i < nq; i++) {
			sht_interval iv;

			if (!rng_pct(r, 40) || cs[i] > t - 1)
				continue;
			iv.quark = (sht_quark)(i * 2);
			iv.start = cs[i];
			iv.end = t - 1;
			iv.value = small_value(r);
			orc_add(o, &iv);
			cs[i] = gaps && rng_pct(r, 50) ? t + (sht_time)rng_below(r, 5) : t;
		}
	}
	o->end = t + 10;
	for (size_t i = 0; i < nq; i++) {
		sht_interval iv = { (sht_quark)(i * 2), cs[i], o->end, sht_value_null() };
		orc_add(o, &iv);
	}
	free(cs);
	orc_seal(o, r);
}

/* nq dense quarks ending intervals at shared instants far apart (up to
 * 2^30), each starting again after a gap (every start an exception, so
 * flat records; shared ends, so an end table) or, with wide, at random
 * times with random lengths (ends and durations equally wide: flat
 * records with plain ends). */
static void wl_far(orc *o, struct rng *r, size_t nq, size_t n, int wide)
{
	sht_time *cs = orc_xmalloc(nq * sizeof *cs), t = 0;

	orc_init(o, 0, 0);
	memset(cs, 0, nq * sizeof *cs);
	while (o->n < n) {
		sht_time step = 2 + (sht_time)rng_below(r, UINT64_C(1) << 30);

		for (size_t i = 0; i < nq; i++) {
			sht_interval iv;
			sht_time e = wide ? t + 1 + (sht_time)rng_below(r, (uint64_t)step)
					  : t + step - 1;

			if (cs[i] > e || !rng_pct(r, wide ? 50 : 80))
				continue;
			iv.quark = (sht_quark)i;
			iv.start = cs[i];
			iv.end = e;
			iv.value = small_value(r);
			orc_add(o, &iv);
			cs[i] = e + 1 + (sht_time)rng_below(r, (uint64_t)(step / 2 + 1));
		}
		t += step;
	}
	o->end = t;
	for (size_t i = 0; i < nq; i++)
		if (cs[i] <= t) {
			sht_interval iv = { (sht_quark)i, cs[i], t, sht_value_null() };
			orc_add(o, &iv);
		}
	free(cs);
	orc_seal(o, r);
}

/* One quark of wl_layered over [s0, len]: long pieces (lng / 2 to lng)
 * with probability long_pct, else a burst of 1 to 20 short ones (0 to
 * shrt); after a piece, with probability 30 %, a gap of up to `gap`. */
static void layered_quark(orc *o, struct rng *r, sht_quark q, sht_time s0,
			  sht_time len, sht_time lng, sht_time shrt,
			  unsigned long_pct, sht_time gap)
{
	for (sht_time s = s0; s <= len;) {
		int lg = rng_pct(r, long_pct);
		size_t burst = lg ? 1 : 1 + rng_below(r, 20);

		for (size_t k = 0; k < burst && s <= len; k++) {
			sht_interval iv;

			iv.quark = q;
			iv.start = s;
			iv.end = s + (lg ? lng / 2 + (sht_time)rng_below(r, (uint64_t)lng / 2 + 1)
					 : (sht_time)rng_below(r, (uint64_t)shrt + 1));
			if (iv.end > len)
				iv.end = len;
			iv.value = small_value(r);
			orc_add(o, &iv);
			s = iv.end + 1 + (gap && rng_pct(r, 30) ? (sht_time)rng_below(r, (uint64_t)gap) : 0);
		}
	}
}

/* nq quarks (2 i + 1; the even ones never present) over [0, len], by
 * i % 4: long pieces only (100 L to 200 L); short ones only (up to L / 4);
 * long pieces and bursts of short ones; from len / 3 on, mixed lengths
 * with gaps of up to 5 L. */
static void wl_layered(orc *o, struct rng *r, size_t nq, sht_time len)
{
	orc_init(o, 0, len);
	for (size_t i = 0; i < nq; i++) {
		sht_quark q = (sht_quark)(2 * i + 1);

		switch (i % 4) {
		case 0: layered_quark(o, r, q, 0, len, 200 * L, 0, 100, 0); break;
		case 1: layered_quark(o, r, q, 0, len, 0, L / 4, 0, 0); break;
		case 2: layered_quark(o, r, q, 0, len, 100 * L, L / 10, 30, 0); break;
		default:
			layered_quark(o, r, q, len / 3, len, 50 * L, L / 2, 40, 5 * L);
		}
	}
	orc_seal(o, r);
}

/* ---- layouts found in a file ------------------------------------------- */

/* Node layouts seen with at least 8 records per quark (runs, or the quark
 * range for flat nodes: a lower bound of records per quark); plain: flat
 * nodes with plain ends (neither durations nor an end table) where some
 * quark has two records or more (more records than quarks; the builder
 * picks plain ends only where they are narrower than durations, which
 * leaves little room for more). */
struct census {
	unsigned flat, dur, runs, etab_runs, etab_flat, plain;
	unsigned core;          /* core nodes holding records */
};

static void count_layouts(const char *path, uint32_t bs, struct census *c)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = orc_xmalloc(bs);

	if (!f)
		bail_out("Cannot open %s", path);
	for (long k = 0; fseek(f, 4096 + k * (long)bs, SEEK_SET) == 0 &&
			 fread(b, 1, bs, f) == bs; k++) {
		uint32_t n, qmin, qmax, nruns;
		uint8_t flags = b[2];

		if (b[0] != 1 && b[0] != 2)      /* leaf or core node */
			continue;
		memcpy(&n, b + 4, 4);
		memcpy(&qmin, b + 40, 4);
		memcpy(&qmax, b + 44, 4);
		memcpy(&nruns, b + 96, 4);
		c->core += b[0] == 2 && n > 0;
		if (flags & 2) {
			if (n < 8 * (uint64_t)nruns)
				continue;
			c->runs++;
			c->etab_runs += (flags & 8) != 0;
		} else {
			if (!(flags & 9) && n > (uint64_t)qmax - qmin + 1)
				c->plain++;
			if (n < 8 * ((uint64_t)qmax - qmin + 1))
				continue;
			c->flat++;
			c->dur += (flags & 1) != 0;
			c->etab_flat += (flags & 8) != 0;
		}
	}
	fclose(f);
	free(b);
}

/* ---- queries ------------------------------------------------------------ */

/* A time at an interval's bound (start, end or end + 1) or random. */
static sht_time pick_time(const orc *o, struct rng *r)
{
	const sht_interval *iv = &o->ivs[rng_below(r, o->n)];
	unsigned p = (unsigned)rng_below(r, 100);

	if (p < 30)
		return iv->start;
	if (p < 60)
		return iv->end;
	if (p < 75 && iv->end < o->end)
		return iv->end + 1;
	return rng_range(r, o->start, o->end);
}

static sht_time pick_resolution(struct rng *r, sht_time w)
{
	static const sht_time fixed[] = { 1, 2, 3, L - 1, L, L + 1, 2 * L, 0 };
	unsigned p = (unsigned)rng_below(r, 100);

	if (p < 60)
		return fixed[rng_below(r, sizeof fixed / sizeof *fixed)];
	if (p < 70)
		return w > 0 ? w : 1;                   /* t1 and t2 only */
	if (p < 75)
		return w + 1 + (sht_time)rng_below(r, 10);
	if (p < 80)
		return INT64_MAX;
	if (p < 90)
		return 1 + (sht_time)rng_below(r, 20 * L);
	return w / 1920 + 1;
}

static void pick(const orc *o, struct rng *r, sht_query2d *q, sht_quark *set)
{
	unsigned p = (unsigned)rng_below(r, 100);
	sht_time a = pick_time(o, r), b = pick_time(o, r);

	memset(q, 0, sizeof *q);
	if (rng_pct(r, 20)) {
		a = o->start;
		b = o->end;
	}
	q->t1 = a < b ? a : b;
	q->t2 = a < b ? b : a;
	q->resolution = pick_resolution(r, q->t2 - q->t1);
	/* keep resolution 1 over a long window to ~2e5 samples */
	if (q->resolution > 0 && (q->t2 - q->t1) / q->resolution > 200000)
		q->resolution = (q->t2 - q->t1) / 200000 + 1;
	if (p < 40) {
		q->qmin = o->qs[0] > 0 && rng_pct(r, 50) ? o->qs[0] - 1 : o->qs[0];
		q->qmax = o->qs[o->nq - 1] + (sht_quark)rng_below(r, 3);
	} else if (p < 85) {
		size_t n = 1 + rng_below(r, o->nq + 2);

		for (size_t i = 0; i < n; i++)
			set[i] = rng_pct(r, 90) ? o->qs[rng_below(r, o->nq)]
						: (sht_quark)rng_below(r, 1000);
		q->quarks = set;
		q->n_quarks = n;
	} else {
		q->qmin = q->qmax = o->qs[rng_below(r, o->nq)];
	}
}

static int by_start(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->quark > y->quark) - (x->quark < y->quark);
}

/* The cursor's answer to q, sorted, equals res's (already sorted)? */
static int cursor_agrees(sht_reader *rd, const sht_query2d *q,
			 const sht_result *res, sht_result *piece)
{
	size_t n = sht_result_count(res), got = 0;
	sht_interval *all = orc_xmalloc((n + 1) * sizeof *all);
	sht_cursor *c = NULL;
	sht_err rc = sht_reader_cursor_create(rd, q, &c);
	int same = 1;

	while (rc == SHT_OK && (rc = sht_cursor_next(c, piece)) == SHT_OK) {
		size_t k = sht_result_count(piece);

		if (got + k > n) {
			same = 0;
			break;
		}
		memcpy(all + got, sht_result_items(piece), k * sizeof *all);
		for (size_t i = got; i < got + k; i++)   /* strings: copies */
			if (all[i].value.type == SHT_TYPE_STRING) {
				char *p = orc_xmalloc(all[i].value.len + 1);
				memcpy(p, all[i].value.u.str, all[i].value.len + 1);
				all[i].value.u.str = p;
			}
		got += k;
	}
	sht_cursor_destroy(c);
	if (rc != SHT_END || got != n)
		same = 0;
	qsort(all, got, sizeof *all, by_start);
	for (size_t i = 0; same && i < n; i++)
		same = orc_iv_equal(&all[i], &sht_result_items(res)[i]);
	for (size_t i = 0; i < got; i++)
		if (all[i].value.type == SHT_TYPE_STRING)
			free((char *)(uintptr_t)all[i].value.u.str);
	free(all);
	return same;
}

/* The same query on 2 to 4 threads (sht_reader_query_2d_threads): the
 * same intervals in the same order (either order), strings equal.  *split: the query
 * had enough samples to be cut (>= 64 a thread). */
static int threads_agree(sht_reader *rd, const sht_query2d *q,
			 const sht_result *res, sht_result *par, unsigned nt,
			 int *split)
{
	sht_err rc = sht_reader_query_2d_threads(rd, q, nt, par);
	uint64_t span = (uint64_t)q->t2 - (uint64_t)q->t1;
	size_t n = sht_result_count(res);

	*split = q->resolution > 0 && span / (uint64_t)q->resolution + 1 >= 128;
	if (rc != SHT_OK || sht_result_count(par) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!orc_iv_equal(&sht_result_items(par)[i], &sht_result_items(res)[i]))
			return 0;
	return 1;
}

static void check(const char *path, const orc *o, struct rng *r,
		  size_t nq, const char *name)
{
	sht_quark *set = orc_xmalloc((o->nq + 3) * sizeof *set);
	sht_result *res = sht_result_create(), *piece = sht_result_create();
	sht_reader *rd = NULL;
	size_t bad = 0, curbad = 0, items = 0, parbad = 0, nsplit = 0;
	sht_reader_opts oo;
	char mname[200];
	sht_err rc;
	orc_vis v;
	sht_query2d q;

	sht_reader_opts_init(&oo);
	oo.mapped = rng_pct(r, 50);     /* half of them on a mapped reader */
	snprintf(mname, sizeof mname, "%s%s", name, oo.mapped ? " mapped" : "");
	name = mname;
	rc = sht_reader_open(path, &oo, &rd);
	if (!res || !piece)
		bail_out("Cannot allocate a result");
	if (!ok(rc == SHT_OK, "%s: open", name))
		return;
	v = orc_vis_all(o, (uint64_t)o->qs[o->nq - 1] + 1);
	orc_diag_reset();
	for (size_t i = 0; i < nq; i++) {
		pick(o, r, &q, set);
		/* odd ones by (quark, start): checked against the oracle and
		 * on 2 to 4 threads (the cursor, in no order, takes even ones) */
		q.order = i % 2 ? SHT_ORDER_QUARK : SHT_ORDER_TIME;
		rc = sht_reader_query_2d(rd, &q, res);
		items += sht_result_count(res);
		if (!orc_check_2d(o, &v, &q, rc, res, 0, NULL, name)) {
			bad++;
			diag("  t1=%" PRId64 " t2=%" PRId64 " r=%" PRId64
			     " quarks %s", q.t1, q.t2, q.resolution,
			     q.quarks ? "set" : "range");
		} else if (i % 4 == 0 && !cursor_agrees(rd, &q, res, piece)) {
			curbad++;
		} else {
			int split = 0;

			if (!threads_agree(rd, &q, res, piece, 2 + (unsigned)(i % 3), &split)) {
				parbad++;
				diag("  threads: t1=%" PRId64 " t2=%" PRId64 " r=%" PRId64
				     " order %d", q.t1, q.t2, q.resolution, (int)q.order);
			}
			nsplit += split;
		}
	}
	ok(bad == 0, "%s: %zu sampled 2D queries, %zu items (%zu wrong)",
	   name, nq, items, bad);
	ok(curbad == 0, "%s: cursors agree (%zu differ)", name, curbad);
	ok(parbad == 0 && nsplit >= 20, "%s: the same on 2-4 threads (%zu "
	   "differ; %zu cut into pieces)", name, parbad, nsplit);
	sht_reader_close(rd);
	sht_result_destroy(res);
	sht_result_destroy(piece);
	free(set);
}

static void run_one(orc *o, struct rng *r, const config *c, const char *what,
		    struct census *cen)
{
	char name[160], path[PATH_MAX];

	snprintf(name, sizeof name, "sampled %s %s/%" PRIu32, what,
		 variant_name(c->variant), c->block_size);
	scratch_path(path, sizeof path, "sampled");
	if (build(path, o, c, name) == SHT_OK) {
		count_layouts(path, c->block_size, cen);
		check(path, o, r, 300, name);
	}
	unlink(path);
	orc_free(o);
}

void sampled_2d(struct rng *r)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	struct census cen, lay;
	orc o;

	memset(&cen, 0, sizeof cen);
	memset(&lay, 0, sizeof lay);
	for (int vi = 0; vi < 2; vi++)
		for (size_t si = 0; si < 3; si++) {
			const config c = { vi ? SHT_VARIANT_ESHT : SHT_VARIANT_SHT,
					   sizes[si], si == 0 ? 3 : 10 };
			sht_time len = si == 2 ? 3000 * L : 300 * L;

			wl_quarks(&o, r, 3, 1, len, 0, 1);
			run_one(&o, r, &c, "runs", &cen);
			wl_quarks(&o, r, 4, 2, len, 0, 0);
			run_one(&o, r, &c, "runs-random", &cen);
			wl_quarks(&o, r, 3, 1, len / 2, 3 * L, 1);
			run_one(&o, r, &c, "gaps", &cen);
			wl_durations(&o, r, 1 + si % 2, si == 2 ? 6000 : 1500);
			run_one(&o, r, &c, "durations", &cen);
			wl_shared(&o, r, 6, si == 2 ? 30000 : 4000, vi);
			run_one(&o, r, &c, "shared", &cen);
			wl_kernel_like(&o, r, si == 2 ? 30000 : 5000, 40, 0, 0);
			run_one(&o, r, &c, "kernel", &cen);
			wl_far(&o, r, 12, si == 2 ? 30000 : 3000, 0);
			run_one(&o, r, &c, "far-shared", &cen);
			wl_far(&o, r, 3, si == 2 ? 30000 : 3000, 1);
			run_one(&o, r, &c, "far-wide", &cen);
			wl_layered(&o, r, 16, si == 2 ? 1000 * L : 300 * L);
			run_one(&o, r, &c, "layered", &lay);
		}
	ok(lay.core >= 6, "layered: %u core nodes hold records", lay.core);
	ok(cen.flat > 0 && cen.dur > 0 && cen.runs > 0 && cen.etab_runs > 0 &&
	   cen.etab_flat > 0,
	   "sampled: nodes with >= 8 records per quark: %u flat (%u with "
	   "durations, %u with an end table), %u RUNS (%u with an end table); "
	   "%u flat with plain ends and > 1 (not required)", cen.flat, cen.dur,
	   cen.etab_flat, cen.runs, cen.etab_runs, cen.plain);
}
