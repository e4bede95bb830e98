/*
 * test-tree-oracle: random histories written by the builder, reopened,
 * and every kind of query cross-checked against a brute-force oracle
 * (tests/support/oracle.h).
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
 * After sht_builder_finish the file is reopened and checked, once through
 * the node cache (pread) and once mapped (sht_reader_opts.mapped):
 *   (a) single queries at random (quark, t) and at interval boundaries;
 *   (b) full queries at random t;
 *   (c) 2D queries (quark sets and ranges, resolution 0 and > 0);
 *       then sampled.c's histories with many records per quark in
 *       every node layout and sampled 2D queries made to skip records;
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

#include "tree-oracle.h"

/* ---- driver ------------------------------------------------------------- */

static void run(const orc *o, const config *c, struct rng *r,
		const effort *e, const char *what)
{
	char name[160], path[PATH_MAX];
	double t0 = now_s();
	size_t cache;
	sht_err rc;

	snprintf(name, sizeof name, "%s %s/%" PRIu32 "/%" PRIu32, what,
		 variant_name(c->variant), c->block_size, c->max_children);
	scratch_path(path, sizeof path, "oracle");
	rc = build(path, o, c, name);
	if (rc == SHT_OK) {
		/* every other run with a tiny cache: eviction on every
		 * query */
		cache = rng_pct(r, 50) ? 0 : (size_t)c->block_size *
					     (2 + rng_below(r, 6));
		if (rng_pct(r, 10))
			cache = 1;  /* smaller than one block */
		verify(path, o, c, r, e, cache, name);
		/* and mapped: the same answers without the node cache */
		verify(path, o, c, r, e, VERIFY_MAPPED, name);
	}
	unlink(path);
	printf("# %s: %zu intervals, %zu quarks, %.2f s\n", name, o->n,
	       o->nq, now_s() - t0);
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

	scratch_path(path, sizeof path, "fill");
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
	uint64_t seed = rng_test_seed(20240611);
	const char *sc = getenv("SHT_TEST_SCALE");
	double t0 = now_s();
	size_t vi, si, fi;
	struct rng r;

	if (sc && atof(sc) > 0)
		g_scale = atof(sc);
	if (scratch_init("oracle") != 0)
		bail_out("Cannot create a scratch directory");
	rng_seed(&r, seed);

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
				scratch_path(path, sizeof path, "probe");
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
	/* Sampled 2D queries skipping records in every layout. */
	sampled_2d(&r);
	printf("# total %.1f s\n", now_s() - t0);
	scratch_done();
	return done_testing();
}
