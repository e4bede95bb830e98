/*
 * workloads.c: test-tree-oracle, the random histories: mixed ones, the
 * extremes of time and quark, and those aimed at the node layouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree-oracle.h"

/* ---- workloads ---------------------------------------------------------- */

/* W1: the general random mix. */
void wl_random(orc *o, struct rng *r, const config *c)
{
	static const sht_time starts[] = { 0, 1000000000ll,
					   1700000000000000000ll,
					   -500000000000ll };
	sht_quark qs[200];
	size_t nq, i;
	sht_time start = starts[rng_below(r, 4)];
	sht_time span = (sht_time)1000000 << rng_below(r, 20);
	sht_time tile_end = start + span, end;
	sht_time grid;
	orc_gen g;

	end = rng_pct(r, 30) ? tile_end + 1 + (sht_time)rng_below(r, 5000)
			     : tile_end;
	switch (rng_below(r, 4)) {
	case 0: grid = 1; break;
	case 1: grid = 7; break;
	case 2: grid = 1000; break;
	default: grid = span / 50; break;
	}
	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 2));
	nq = orc_make_quarks(r, qs, 40 + rng_below(r, 40), 12);
	for (i = 0; i < nq; i++) {
		size_t m = 1 + rng_below(r, rng_pct(r, 10) ? 600 : 120);
		sht_time s = start;

		/* a few quarks appear late (their attribute was created
		 * after the start): still no gap once they exist */
		if (rng_pct(r, 15))
			s = rng_range(r, start, tile_end);
		orc_gen_tiling(o, &g, qs[i], s, tile_end, m, grid, 10);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W1b: a small history (one to a few nodes): every boundary queried. */
void wl_small(orc *o, struct rng *r, const config *c)
{
	sht_quark qs[20];
	size_t nq, i;
	sht_time start = rng_range(r, -1000, 1000);
	sht_time span = 1 + rng_range(r, 0, 5000);
	orc_gen g;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	nq = orc_make_quarks(r, qs, 1 + rng_below(r, 8), rng_below(r, 8));
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, qs[i], start, start + span,
			       1 + rng_below(r, 30), 1, 20);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W8: the extremes of time: histories touching INT64_MIN and/or
 * INT64_MAX, intervals as long as the whole int64 range, and length-1
 * intervals at both ends. */
void wl_extreme(orc *o, struct rng *r, const config *c, sht_time start,
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
			       1 + rng_below(r, 60), grid, 30);
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
void wl_full_at_max(orc *o, struct rng *r, const config *c, size_t n)
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
void wl_all_at_start(orc *o, struct rng *r, const config *c, size_t n)
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
		iv.end = rng_pct(r, 50) ? end :
			 (sht_time)rng_below(r, 16) * (end / 16);
		iv.value = orc_gen_value(&g);
		orc_add(o, &iv);
	}
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W3: many equal end times: every cut on one of 8 grid points. */
void wl_equal_ends(orc *o, struct rng *r, const config *c, size_t nq)
{
	sht_time start = 5000, span = 8000000;
	orc_gen g;
	size_t i;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	g.mix.str = 10;
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, (sht_quark)(i * 3), start, start + span,
			       1 + rng_below(r, 8), span / 8, 0);
	orc_gen_free(&g);
	orc_seal(o, r);
}

/* W4: very long and very short intervals side by side. */
void wl_long_short(orc *o, struct rng *r, const config *c,
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
void wl_one_quark(orc *o, struct rng *r, const config *c, size_t n)
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
void wl_many_quarks(orc *o, struct rng *r, const config *c, size_t n,
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
void wl_huge_quarks(orc *o, struct rng *r, const config *c, size_t n)
{
	sht_quark *qs = orc_xmalloc((n + 8) * sizeof *qs);
	sht_time start = 0, end = 1000000000;
	size_t nq, i;
	orc_gen g;

	orc_init(o, start, end);
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	nq = orc_make_quarks(r, qs, 0, n);
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, qs[i], start, end, 1 + rng_below(r, 12),
			       1000, 5);
	orc_gen_free(&g);
	free(qs);
	orc_seal(o, r);
}

/* ---- workloads that stress the node layouts (docs/FORMAT.md §3) -------- */

/* Values for the kernel-like workloads: small ints mostly, CPU-frequency
 * sized int64s, a few names, nulls. */
static sht_value kernel_value(struct rng *r, sht_quark q)
{
	static const char *const names[] = { "swapper/0", "bash", "sshd",
					     "kworker/1:2", "", "sys_read" };

	if (q % 17 == 3)
		return sht_value_int64(3300000000ll + (int64_t)rng_below(r, 4));
	if (q % 11 == 5) {
		const char *s = names[q % 6 == 0 ? 4 : rng_below(r, 6)];
		return sht_value_string(s, (uint32_t)strlen(s));
	}
	if (rng_pct(r, 5))
		return sht_value_null();
	return sht_value_int32((int32_t)rng_below(r, 8) - 1);
}

/*
 * W9: a state history like the kernel analysis's: nq attributes change at
 * events (1 to 4 attributes per event, so intervals share ends), a few
 * hot attributes take most changes (thousands of records of one quark in
 * a node), few distinct values.  gap > 0: after each interval its quark
 * waits up to gap before its next one (no interval starts at the end + 1
 * of the previous: every start is an exception).
 */
void wl_kernel_like(orc *o, struct rng *r, size_t n, size_t nq,
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
		size_t m = 1 + rng_below(r, 4);

		t += 1 + (sht_time)rng_below(r, 2000);
		for (k = 0; k < m; k++) {
			size_t q = rng_pct(r, 60) ? rng_below(r, 3) : rng_below(r, nq);
			sht_interval iv;

			if (cs[q] > t - 1)
				continue;
			iv.quark = (sht_quark)(q * 3);
			iv.start = cs[q];
			iv.end = t - 1;
			iv.value = cur[q];
			orc_add(o, &iv);
			cs[q] = gap ? t + (sht_time)rng_below(r, (uint64_t)gap) : t;
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

/* W10: one value kind per history (enum in tree-oracle.h). */
static sht_value kind_value(struct rng *r, int kind, uint32_t bs, char *buf)
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
		return sht_value_int64((int64_t)rng_next(r));
	if (kind == V_DOUBLES)
		return sht_value_double(orc_double_from_bits(dbl[rng_below(r, 8)]));
	k = rng_below(r, 8);
	memset(buf, 'a' + (int)k, lens[k]);
	if (lens[k] > 2)
		buf[1] = '\0';              /* strings are bytes */
	return sht_value_string(buf, (uint32_t)lens[k]);
}

void wl_values(orc *o, struct rng *r, const config *c, size_t nq,
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
				 : s + (sht_time)rng_below(r, 1500);
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
void wl_tiny(orc *o, struct rng *r, const config *c, size_t n)
{
	orc_gen g;

	orc_init(o, 10, 10 + (sht_time)rng_below(r, 100));
	orc_gen_init(&g, r, orc_vmix_default(c->block_size, 0));
	orc_gen_tiling(o, &g, (sht_quark)rng_below(r, 1000), o->start, o->end,
		       n, 1, 0);
	orc_gen_free(&g);
	orc_seal(o, r);
}
