/* sht-test-label: threads */
/*
 * test-tree-build.c: the builder's contract (include/sht/tree.h).
 *
 *   options      defaults, refused geometries (SHT_ERR_INVALID), the
 *                documented rule 96 + 32 * max_children <= block_size / 2
 *   insert       order (SHT_ERR_ORDER), bad intervals (SHT_ERR_INVALID),
 *                too long strings (SHT_ERR_TOOBIG); the builder stays
 *                usable and stores none of the refused intervals
 *   lifecycle    insert/finish after finish (SHT_ERR_STATE), a builder
 *                destroyed unfinished leaves a file readers refuse
 *                (SHT_ERR_INCOMPLETE), an empty history
 *   current_end  start_time, then the largest end inserted
 *   queries      sht_builder_query / _full / _2d during the build, from
 *                the building thread and from two other threads, checked
 *                against the oracle for t <= the observed current end
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"
#include "oracle.h"

/* ---- helpers ------------------------------------------------------------ */

static sht_builder_opts mkopts(sht_variant v, uint32_t bs, uint32_t mc)
{
	sht_builder_opts o;

	sht_builder_opts_init(&o);
	o.variant = v;
	o.block_size = bs;
	o.max_children = mc;
	o.no_sync = true;
	return o;
}

static sht_err try_create(const sht_builder_opts *opts)
{
	char path[PATH_MAX];
	sht_builder *b = NULL;
	sht_err rc;

	scratch_path(path, sizeof path, "opts");
	rc = sht_builder_create(path, 0, opts, &b);
	if (rc == SHT_OK)
		sht_builder_close(b);
	unlink(path);
	return rc;
}

static int errmsg_ok(void)
{
	return strncmp(sht_errmsg(), "Cannot", 6) == 0;
}

static sht_interval mkiv(sht_quark q, sht_time s, sht_time e, sht_value v)
{
	sht_interval iv;

	iv.quark = q;
	iv.start = s;
	iv.end = e;
	iv.value = v;
	return iv;
}

/* Exhaustive reader check of a small oracle: every quark at every
 * boundary, full queries at every boundary, a few 2D queries. */
static void verify_reader(const char *path, const orc *o, const char *name)
{
	sht_reader *rd = NULL;
	sht_result *res = sht_result_create();
	sht_err rc = sht_reader_open(path, NULL, &rd);
	size_t i, k, bad = 0, badf = 0, bad2 = 0;
	orc_vis v;
	sht_tree_info inf;

	if (!ok(rc == SHT_OK, "%s: reopen", name)) {
		diag("  %s: %s", sht_err_name(rc), sht_errmsg());
		sht_result_destroy(res);
		return;
	}
	sht_reader_info_get(rd, &inf);
	ok(inf.intervals == o->n && inf.start == o->start &&
	   inf.end == o->end, "%s: info intervals %" PRIu64 " [%" PRId64
	   ", %" PRId64 "]", name, inf.intervals, inf.start, inf.end);
	ok(sht_reader_check(rd, NULL, NULL, 0) == SHT_OK, "%s: check", name);
	v = orc_vis_all(o, inf.quark_count);
	orc_diag_reset();
	for (i = 0; i < o->n; i++) {
		const sht_interval *iv = &o->ivs[i];
		sht_time ts[4] = { iv->start, iv->end, iv->start - 1,
				   iv->end + 1 };

		for (k = 0; k < o->nq; k++) {
			size_t j;

			for (j = 0; j < 4; j++) {
				rc = sht_reader_query(rd, o->qs[k], ts[j], res);
				bad += !orc_check_single(o, &v, o->qs[k], ts[j],
							 rc, res, 0, NULL,
							 name);
			}
		}
		for (k = 0; k < 2; k++) {
			rc = sht_reader_query_full(rd, ts[k], res);
			badf += !orc_check_full(o, &v, ts[k], rc, res, 0, NULL,
						name);
		}
	}
	for (i = 0; i < 4; i++) {
		sht_query2d q;

		memset(&q, 0, sizeof q);
		q.qmin = 0;
		q.qmax = SHT_QUARK_MAX;
		q.t1 = o->start;
		q.t2 = o->end;
		q.resolution = (sht_time)i * 7;
		rc = sht_reader_query_2d(rd, &q, res);
		bad2 += !orc_check_2d(o, &v, &q, rc, res, 0, NULL, name);
	}
	ok(bad == 0 && badf == 0 && bad2 == 0,
	   "%s: every quark at every boundary (%zu/%zu/%zu wrong)", name, bad,
	   badf, bad2);
	sht_result_destroy(res);
	sht_reader_close(rd);
}

/* ---- options ------------------------------------------------------------ */

static void test_options(void)
{
	static const uint32_t bad_sizes[] = { 512, 1000, 3000, 4097, 100000,
					      32u * 1024 * 1024, 1, 0x80000000u,
					      0xffffffffu };
	sht_builder_opts o;
	char path[PATH_MAX + 64];
	sht_builder *b = NULL;
	sht_reader *rd = NULL;
	sht_tree_info inf;
	sht_err rc;
	size_t i;

	/* defaults: sht_builder_opts_init, NULL opts, and 0 fields */
	for (i = 0; i < 3; i++) {
		const char *how[] = { "sht_builder_opts_init", "NULL opts",
				      "zero block_size/max_children" };

		sht_builder_opts_init(&o);
		o.no_sync = true;
		if (i == 2) {
			o.block_size = 0;
			o.max_children = 0;
		}
		scratch_path(path, sizeof path, "defaults");
		rc = sht_builder_create(path, 0, i == 1 ? NULL : &o, &b);
		if (!ok(rc == SHT_OK, "defaults (%s): create", how[i])) {
			diag("  %s (%s)", sht_err_name(rc), sht_errmsg());
			continue;
		}
		rc = sht_builder_finish(b, 10);
		sht_builder_close(b);
		rc = rc == SHT_OK ? sht_reader_open(path, NULL, &rd) : rc;
		if (!ok(rc == SHT_OK, "defaults (%s): finish and reopen",
			how[i])) {
			diag("  %s (%s)", sht_err_name(rc), sht_errmsg());
			unlink(path);
			continue;
		}
		sht_reader_info_get(rd, &inf);
		ok(inf.variant == SHT_VARIANT_ESHT &&
		   inf.block_size == SHT_DEFAULT_BLOCK_SIZE &&
		   inf.max_children == SHT_DEFAULT_MAX_CHILDREN,
		   "defaults (%s): eSHT, %" PRIu32 " B blocks, %" PRIu32
		   " children", how[i], inf.block_size, inf.max_children);
		sht_reader_close(rd);
		unlink(path);
	}

	for (i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++) {
		o = mkopts(SHT_VARIANT_ESHT, bad_sizes[i], 2);
		rc = try_create(&o);
		ok(rc == SHT_ERR_INVALID && errmsg_ok(),
		   "block_size %" PRIu32 " refused: %s \"%s\"", bad_sizes[i],
		   sht_err_name(rc), sht_errmsg());
	}
	/* every power of two from the min to the max is accepted (the 16
	 * MiB one with the smallest fan-out: only creation is tried) */
	for (i = SHT_BLOCK_SIZE_MIN; i <= SHT_BLOCK_SIZE_MAX; i *= 2) {
		o = mkopts(SHT_VARIANT_SHT, (uint32_t)i, 2);
		rc = try_create(&o);
		if (rc != SHT_OK)
			break;
	}
	ok(i > SHT_BLOCK_SIZE_MAX, "every power of two 1 KiB .. 16 MiB "
	   "accepted (stopped at %zu: %s)", i, sht_err_name(rc));

	o = mkopts(SHT_VARIANT_ESHT, 4096, 1);
	rc = try_create(&o);
	ok(rc == SHT_ERR_INVALID, "max_children 1 refused: %s",
	   sht_err_name(rc));
	/* 0 = 50, or as many as half a small block holds */
	for (i = 0; i < 2; i++) {
		uint32_t bs = i ? 1024 : 2048;
		uint32_t fit = (bs / 2 - 96) / 32;

		o = mkopts(SHT_VARIANT_ESHT, bs, 0);
		scratch_path(path, sizeof path, "mc0");
		rc = sht_builder_create(path, 0, &o, &b);
		if (rc == SHT_OK) {
			rc = sht_builder_finish(b, 0);
			sht_builder_close(b);
		}
		rc = rc == SHT_OK ? sht_reader_open(path, NULL, &rd) : rc;
		if (rc == SHT_OK) {
			sht_reader_info_get(rd, &inf);
			sht_reader_close(rd);
		}
		ok(rc == SHT_OK && inf.max_children >= 2 &&
		   inf.max_children <= fit,
		   "max_children 0 with %" PRIu32 " B blocks: accepted, "
		   "%" PRIu32 " children (at most %" PRIu32 " fit): %s", bs,
		   rc == SHT_OK ? inf.max_children : 0, fit, sht_err_name(rc));
		unlink(path);
	}
	o = mkopts(SHT_VARIANT_ESHT, 4096, 0xffffffffu);
	rc = try_create(&o);
	ok(rc == SHT_ERR_INVALID, "max_children 2^32-1 refused: %s",
	   sht_err_name(rc));
	/* the documented bound, at its edge, for several block sizes */
	for (i = 0; i < 4; i++) {
		static const uint32_t bs[] = { 1024, 4096, 65536, 1u << 20 };
		uint32_t mc = (bs[i] / 2 - 96) / 32;
		sht_err r1, r2;

		o = mkopts(i % 2 ? SHT_VARIANT_SHT : SHT_VARIANT_ESHT, bs[i],
			   mc);
		r1 = try_create(&o);
		o.max_children = mc + 1;
		r2 = try_create(&o);
		ok(r1 == SHT_OK && r2 == SHT_ERR_INVALID,
		   "block %" PRIu32 ": max_children %" PRIu32 " accepted (%s), "
		   "%" PRIu32 " refused (%s)", bs[i], mc, sht_err_name(r1),
		   mc + 1, sht_err_name(r2));
	}
	o = mkopts(SHT_VARIANT_ESHT, 65536, 50);
	ok(try_create(&o) == SHT_OK, "64 KiB / 50 children accepted");
	o = mkopts((sht_variant)2, 4096, 10);
	ok(try_create(&o) == SHT_ERR_INVALID, "variant 2 refused");
	o = mkopts((sht_variant)-1, 4096, 10);
	ok(try_create(&o) == SHT_ERR_INVALID, "variant -1 refused");

	o = mkopts(SHT_VARIANT_ESHT, 4096, 10);
	snprintf(path, sizeof path, "%s/no/such/dir/x.sht", scratch_dir());
	b = NULL;
	rc = sht_builder_create(path, 0, &o, &b);
	ok(rc == SHT_ERR_IO && errmsg_ok(),
	   "create in a missing directory: SHT_ERR_IO: %s \"%s\"",
	   sht_err_name(rc), sht_errmsg());
	if (rc == SHT_OK)
		sht_builder_close(b);
}

/* ---- insert contract ---------------------------------------------------- */

static void test_insert_contract(sht_variant var)
{
	const char *vn = var == SHT_VARIANT_SHT ? "sht" : "esht";
	sht_builder_opts opts = mkopts(var, 1024, 3);
	char path[PATH_MAX], name[64];
	sht_builder *b = NULL;
	sht_result *res = sht_result_create();
	sht_interval iv;
	sht_err rc;
	orc o;
	char *big;
	size_t k, nbad;

	snprintf(name, sizeof name, "contract %s", vn);
	orc_init(&o, 1000, 9000);
	scratch_path(path, sizeof path, "contract");
	rc = sht_builder_create(path, 1000, &opts, &b);
	if (!ok(rc == SHT_OK, "%s: create", name)) {
		sht_result_destroy(res);
		return;
	}
	is_i64(sht_builder_current_end(b), 1000,
	       "%s: current_end is start_time before any insert", name);

	iv = mkiv(0, 1000, 2000, sht_value_int32(1));
	ok(sht_builder_insert(b, &iv) == SHT_OK, "%s: insert q0 [1000, 2000]",
	   name);
	orc_add(&o, &iv);
	is_i64(sht_builder_current_end(b), 2000, "%s: current_end 2000", name);

	iv = mkiv(1, 1500, 1999, sht_value_int32(666));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_ORDER && errmsg_ok(),
	   "%s: end 1999 after 2000: SHT_ERR_ORDER: %s \"%s\"", name,
	   sht_err_name(rc), sht_errmsg());
	iv = mkiv(0, 1000, 1000, sht_value_int32(667));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_ORDER, "%s: end 1000 after 2000: %s", name,
	   sht_err_name(rc));
	is_i64(sht_builder_current_end(b), 2000,
	       "%s: current_end unchanged by refusals", name);

	iv = mkiv(1, 1000, 2000, sht_value_int64(INT64_MIN));
	ok(sht_builder_insert(b, &iv) == SHT_OK,
	   "%s: equal end time accepted after a refusal", name);
	orc_add(&o, &iv);

	iv = mkiv(2, 2600, 2500, sht_value_int32(668));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_INVALID && errmsg_ok(), "%s: start > end: %s", name,
	   sht_err_name(rc));
	iv = mkiv(2, 999, 2500, sht_value_int32(669));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_INVALID, "%s: start < start_time: %s", name,
	   sht_err_name(rc));
	iv = mkiv(SHT_QUARK_NONE, 1000, 2500, sht_value_int32(670));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_INVALID, "%s: quark SHT_QUARK_NONE: %s", name,
	   sht_err_name(rc));
	iv = mkiv(2, 1000, 2500, sht_value_int32(671));
	iv.value.type = (sht_type)99;
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_INVALID, "%s: value type 99: %s", name,
	   sht_err_name(rc));

	big = malloc((size_t)SHT_STRING_MAX + 2);
	if (!big)
		bail_out("Cannot allocate %u bytes", SHT_STRING_MAX + 2);
	memset(big, 'x', (size_t)SHT_STRING_MAX + 1);
	big[SHT_STRING_MAX + 1] = '\0';
	iv = mkiv(2, 1000, 2500, sht_value_string(big, SHT_STRING_MAX + 1));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_TOOBIG && errmsg_ok(),
	   "%s: string of SHT_STRING_MAX + 1 bytes: %s", name,
	   sht_err_name(rc));
	iv.value.len = UINT32_MAX;
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_ERR_TOOBIG, "%s: string of 4 GiB - 1 bytes: %s", name,
	   sht_err_name(rc));
	is_i64(sht_builder_current_end(b), 2000,
	       "%s: current_end unchanged by refusals", name);

	free(big);

	/* still usable: a long string (a blob), then ordinary intervals */
	big = malloc(200000);
	if (!big)
		bail_out("Cannot allocate");
	for (k = 0; k < 200000; k++)
		big[k] = (char)(k * 7 + 1);
	iv = mkiv(2, 1000, 2500, sht_value_string(big, 200000));
	rc = sht_builder_insert(b, &iv);
	ok(rc == SHT_OK, "%s: a 200000-byte string after the refusals: %s",
	   name, sht_err_name(rc));
	if (rc == SHT_OK)
		orc_add(&o, &iv);
	free(big);
	for (k = 0, nbad = 0; k < 30; k++) {
		iv = mkiv((sht_quark)(3 + k % 3), 2501 + (sht_time)k * 100,
			  2600 + (sht_time)k * 100, sht_value_int32((int)k));
		if (k % 3 == 0)
			iv.value = sht_value_string("abc\0def", 7);
		if (sht_builder_insert(b, &iv) != SHT_OK)
			nbad++;
		orc_add(&o, &iv);
	}
	ok(nbad == 0, "%s: 30 more inserts (%zu refused)", name, nbad);
	iv = mkiv(0, 2001, 9000, sht_value_null());
	ok(sht_builder_insert(b, &iv) == SHT_OK, "%s: insert up to the end",
	   name);
	orc_add(&o, &iv);

	rc = sht_builder_finish(b, 8999);
	ok(rc < 0, "%s: finish before the current end (8999 < 9000) fails: %s",
	   name, sht_err_name(rc));
	if (rc == SHT_OK) {
		sht_builder_close(b);
		unlink(path);
		orc_free(&o);
		sht_result_destroy(res);
		return;
	}
	rc = sht_builder_finish(b, 9000);
	if (rc != SHT_OK) {
		/* a refused finish may leave the builder failed; that is
		 * allowed, but then rebuild to go on with the rest */
		diag("  finish after a refused finish: %s", sht_err_name(rc));
	}
	ok(rc == SHT_OK || rc == SHT_ERR_STATE,
	   "%s: finish at 9000 after the refused finish: %s", name,
	   sht_err_name(rc));
	if (rc == SHT_OK) {
		iv = mkiv(0, 9000, 9000, sht_value_null());
		rc = sht_builder_insert(b, &iv);
		ok(rc == SHT_ERR_STATE, "%s: insert after finish: %s", name,
		   sht_err_name(rc));
		rc = sht_builder_finish(b, 9000);
		ok(rc == SHT_ERR_STATE, "%s: finish twice: %s", name,
		   sht_err_name(rc));
		orc_seal(&o, &(struct rng)RNG_INIT(1));
		/* the finished builder still answers queries */
		rc = sht_builder_query(b, 2, 1500, res);
		ok(rc == SHT_OK && sht_result_count(res) == 1 &&
		   orc_iv_equal(sht_result_at(res, 0),
				&o.ivs[orc_lookup(&o, 2, 1500)]),
		   "%s: builder query after finish (long string back)",
		   name);
		rc = sht_builder_query(b, 1, 1500, res);
		ok(rc == SHT_OK && sht_result_count(res) == 1 &&
		   sht_result_at(res, 0)->value.type == SHT_TYPE_INT64 &&
		   sht_result_at(res, 0)->value.u.i64 == INT64_MIN,
		   "%s: the refused interval at q1 was not stored", name);
		sht_builder_close(b);
		verify_reader(path, &o, name);
	} else {
		sht_builder_close(b);
	}
	unlink(path);
	orc_free(&o);
	sht_result_destroy(res);
}

/* A string of exactly SHT_STRING_MAX bytes is stored and read back. */
static void test_max_string(void)
{
	sht_builder_opts opts = mkopts(SHT_VARIANT_ESHT, 65536, 50);
	char path[PATH_MAX];
	sht_builder *b = NULL;
	sht_reader *rd = NULL;
	sht_result *res = sht_result_create();
	sht_interval iv;
	sht_err rc;
	char *big = malloc(SHT_STRING_MAX);
	size_t k;

	if (!big || !res)
		bail_out("Cannot allocate");
	for (k = 0; k < SHT_STRING_MAX; k += 4096)
		big[k] = (char)(k / 4096);
	for (k = 1; k < SHT_STRING_MAX; k++)
		if (k % 4096)
			big[k] = (char)('a' + k % 23);
	scratch_path(path, sizeof path, "maxstr");
	rc = sht_builder_create(path, 0, &opts, &b);
	iv = mkiv(5, 0, 100, sht_value_string(big, SHT_STRING_MAX));
	rc = rc == SHT_OK ? sht_builder_insert(b, &iv) : rc;
	ok(rc == SHT_OK, "string of exactly SHT_STRING_MAX bytes accepted: %s",
	   sht_err_name(rc));
	if (rc == SHT_OK) {
		rc = sht_builder_query(b, 5, 50, res);
		ok(rc == SHT_OK && sht_result_count(res) == 1 &&
		   orc_iv_equal(sht_result_at(res, 0), &iv),
		   "max string: builder query returns it: %s",
		   sht_err_name(rc));
		rc = sht_builder_finish(b, 100);
	}
	sht_builder_close(b);
	rc = rc == SHT_OK ? sht_reader_open(path, NULL, &rd) : rc;
	if (ok(rc == SHT_OK, "max string: finish and reopen: %s",
	       sht_err_name(rc))) {
		rc = sht_reader_query(rd, 5, 100, res);
		ok(rc == SHT_OK && sht_result_count(res) == 1 &&
		   orc_iv_equal(sht_result_at(res, 0), &iv),
		   "max string: reader query returns it byte for byte");
		ok(sht_reader_check(rd, NULL, NULL, 0) == SHT_OK,
		   "max string: check");
		sht_reader_close(rd);
	}
	unlink(path);
	free(big);
	sht_result_destroy(res);
}

/* ---- unfinished and empty ----------------------------------------------- */

static void test_incomplete(sht_variant var, size_t n)
{
	sht_builder_opts opts = mkopts(var, 1024, 3);
	char path[PATH_MAX];
	sht_builder *b = NULL;
	sht_reader *rd = NULL;
	struct rng r;
	sht_err rc;
	size_t i;
	orc o;

	rng_seed(&r, n);
	orc_wl_mixed(&o, &r, 1024, 0, 1000000, 20, 0, n / 20 + 1, 0);
	scratch_path(path, sizeof path, "incomplete");
	rc = sht_builder_create(path, 0, &opts, &b);
	for (i = 0; rc == SHT_OK && i < o.n; i++)
		rc = sht_builder_insert(b, &o.ivs[i]);
	ok(rc == SHT_OK, "unfinished %s: %zu intervals inserted", 
	   var == SHT_VARIANT_SHT ? "sht" : "esht", o.n);
	sht_builder_close(b);
	rc = sht_reader_open(path, NULL, &rd);
	ok(rc == SHT_ERR_INCOMPLETE && errmsg_ok(),
	   "unfinished %s (%zu intervals): reader refuses: %s \"%s\"",
	   var == SHT_VARIANT_SHT ? "sht" : "esht", o.n, sht_err_name(rc),
	   sht_errmsg());
	if (rc == SHT_OK)
		sht_reader_close(rd);
	unlink(path);
	orc_free(&o);
}

static void test_empty(sht_variant var, sht_time start, sht_time end)
{
	sht_builder_opts opts = mkopts(var, 4096, 4);
	char path[PATH_MAX];
	sht_builder *b = NULL;
	sht_reader *rd = NULL;
	sht_result *res = sht_result_create();
	sht_query2d q;
	sht_tree_info inf;
	sht_err rc;

	scratch_path(path, sizeof path, "empty");
	rc = sht_builder_create(path, start, &opts, &b);
	if (rc == SHT_OK) {
		is_i64(sht_builder_current_end(b), start,
		       "empty: current_end = start_time");
		rc = sht_builder_finish(b, end);
	}
	sht_builder_close(b);
	ok(rc == SHT_OK, "empty history [%" PRId64 ", %" PRId64 "] finishes: "
	   "%s", start, end, sht_err_name(rc));
	rc = sht_reader_open(path, NULL, &rd);
	if (!ok(rc == SHT_OK, "empty history reopens: %s %s",
		sht_err_name(rc), sht_errmsg())) {
		sht_result_destroy(res);
		unlink(path);
		return;
	}
	sht_reader_info_get(rd, &inf);
	ok(inf.intervals == 0 && inf.quark_count == 0 && inf.start == start &&
	   inf.end == end && inf.variant == var,
	   "empty: info 0 intervals, 0 quarks, [%" PRId64 ", %" PRId64 "]",
	   inf.start, inf.end);
	ok(sht_reader_check(rd, NULL, NULL, 0) == SHT_OK, "empty: check");
	rc = sht_reader_query(rd, 0, start, res);
	ok((rc == SHT_NOT_FOUND || rc == SHT_ERR_RANGE) &&
	   sht_result_count(res) == 0, "empty: single query: %s",
	   sht_err_name(rc));
	rc = sht_reader_query_full(rd, end, res);
	ok(rc >= 0 && sht_result_count(res) == 0, "empty: full query: %s",
	   sht_err_name(rc));
	memset(&q, 0, sizeof q);
	q.qmax = SHT_QUARK_MAX;
	q.t1 = start;
	q.t2 = end;
	rc = sht_reader_query_2d(rd, &q, res);
	ok(rc >= 0 && sht_result_count(res) == 0, "empty: 2D query: %s",
	   sht_err_name(rc));
	sht_reader_close(rd);
	sht_result_destroy(res);
	unlink(path);
}

/* ---- queries during the build, same thread ------------------------------ */

static size_t check_builder_point(sht_builder *b, const orc *o, size_t done,
				  struct rng *r, sht_result *res,
				  const char *name)
{
	orc_vis v = orc_vis_prefix(o, done, done);
	sht_time cur = sht_builder_current_end(b);
	sht_time want = done ? o->ivs[done - 1].end : o->start;
	size_t bad = 0, i;
	sht_err rc;

	if (cur != want) {
		orc_fail(NULL, "%s: after %zu inserts current_end %" PRId64
			 ", expected %" PRId64, name, done, cur, want);
		bad++;
	}
	for (i = 0; i < 24; i++) {
		sht_quark q = o->qs[rng_below(r, o->nq)];
		sht_time t = rng_range(r, o->start, cur);

		if (i % 4 == 0 && done)  /* at a just-inserted boundary */
			t = rng_pct(r, 50) ? o->ivs[done - 1].end :
			    o->ivs[done - 1].start;
		if (i % 8 == 1)
			q = (sht_quark)rng_below(r, (uint64_t)SHT_QUARK_MAX + 1);
		rc = sht_builder_query(b, q, t, res);
		bad += !orc_check_single(o, &v, q, t, rc, res, 0, NULL, name);
	}
	for (i = 0; i < 2; i++) {
		sht_time t = rng_range(r, o->start, cur);

		rc = sht_builder_query_full(b, t, res);
		bad += !orc_check_full(o, &v, t, rc, res, 0, NULL, name);
	}
	for (i = 0; i < 2; i++) {
		sht_query2d q;

		memset(&q, 0, sizeof q);
		q.qmin = o->qs[rng_below(r, o->nq)];
		q.qmax = rng_pct(r, 50) ? SHT_QUARK_MAX : q.qmin + 5;
		if (q.qmax < q.qmin)
			q.qmax = SHT_QUARK_MAX;
		q.t1 = rng_range(r, o->start, cur);
		q.t2 = rng_range(r, q.t1, cur);
		q.resolution = rng_pct(r, 50) ? 0 :
			       (q.t2 - q.t1) / 100 + 1;
		rc = sht_builder_query_2d(b, &q, res);
		bad += !orc_check_2d(o, &v, &q, rc, res, 0, NULL, name);
	}
	return bad;
}

static void test_build_queries(sht_variant var, uint32_t bs, uint32_t mc,
			       uint64_t seed)
{
	sht_builder_opts opts = mkopts(var, bs, mc);
	char path[PATH_MAX], name[96];
	sht_builder *b = NULL;
	sht_result *res = sht_result_create();
	size_t i, bad = 0, points = 0, step;
	struct rng r;
	sht_err rc = SHT_OK;
	orc o;

	snprintf(name, sizeof name, "build queries %s/%" PRIu32 "/%" PRIu32,
		 var == SHT_VARIANT_SHT ? "sht" : "esht", bs, mc);
	rng_seed(&r, seed);
	orc_wl_mixed(&o, &r, bs, 0, 50000000, 60, 8, 200, 1);
	scratch_path(path, sizeof path, "buildq");
	rc = sht_builder_create(path, o.start, &opts, &b);
	if (!ok(rc == SHT_OK, "%s: create", name)) {
		orc_free(&o);
		sht_result_destroy(res);
		return;
	}
	orc_diag_reset();
	step = o.n / 150 + 1;
	for (i = 0; i < o.n; i++) {
		if (i % step == 0 || i < 5) {
			bad += check_builder_point(b, &o, i, &r, res, name);
			points++;
		}
		rc = sht_builder_insert(b, &o.ivs[i]);
		if (rc != SHT_OK)
			break;
	}
	if (!ok(rc == SHT_OK, "%s: %zu intervals inserted", name, o.n))
		diag("  insert #%zu: %s (%s)", i, sht_err_name(rc),
		     sht_errmsg());
	if (rc == SHT_OK) {
		bad += check_builder_point(b, &o, o.n, &r, res, name);
		points++;
	}
	ok(bad == 0, "%s: queries at %zu points of the build (%zu wrong)",
	   name, points, bad);
	rc = sht_builder_finish(b, o.end);
	ok(rc == SHT_OK, "%s: finish", name);
	if (rc == SHT_OK) {
		/* finished: every interval visible */
		orc_vis v = orc_vis_all(&o, (uint64_t)o.qs[o.nq - 1] + 1);

		bad = 0;
		orc_diag_reset();
		for (i = 0; i < 2000; i++) {
			const sht_interval *iv = &o.ivs[rng_below(&r, o.n)];
			sht_time t = rng_range(&r, iv->start, iv->end);

			rc = sht_builder_query(b, iv->quark, t, res);
			bad += !orc_check_single(&o, &v, iv->quark, t, rc, res,
						 0, NULL, name);
		}
		for (i = 0; i < 10; i++) {
			sht_time t = rng_range(&r, o.start, o.end);

			rc = sht_builder_query_full(b, t, res);
			bad += !orc_check_full(&o, &v, t, rc, res, 0, NULL,
					       name);
		}
		ok(bad == 0, "%s: builder queries after finish (%zu wrong)",
		   name, bad);
	}
	sht_builder_close(b);
	unlink(path);
	orc_free(&o);
	sht_result_destroy(res);
}

/* ---- queries during the build, other threads --------------------------- */

#define RACERS 2

typedef struct race {
	sht_builder *b;
	const orc *o;
	_Atomic size_t inserted;   /* intervals whose insert returned */
	atomic_int done;
	_Atomic size_t queries;    /* by all racers */
	int threaded;              /* a threaded builder: see handed_over */
} race;

/*
 * A threaded builder shows other threads the batches handed to its
 * pipeline: everything up to sht_builder_current_end().  Intervals ending
 * before that end are surely handed over (ends never decrease); of [0, c0)
 * those are the ones that must be visible.
 */
static size_t handed_over(const orc *o, sht_time cur, size_t c0)
{
	size_t lo = 0, hi = c0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->ivs[mid].end < cur)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct racer {
	race *rc;
	uint64_t seed;
	size_t singles_found, fulls, twods, mid_build;
	orc_errlog log;
} racer;

/*
 * Query the builder while it grows.  Before each query the racer reads
 * the count c0 of inserts that returned and the current end; after it,
 * the count c1.  Intervals [0, c0) must be visible, [c0, c1] may be (an
 * insert ran meanwhile), later ones must not.
 */
static void *race_reader(void *arg)
{
	racer *me = arg;
	race *rc = me->rc;
	const orc *o = rc->o;
	sht_result *res = sht_result_create();
	struct rng r;

	rng_seed(&r, me->seed);
	orc_errlog_init(&me->log);
	while (!atomic_load(&rc->done)) {
		size_t c0 = atomic_load(&rc->inserted), c1;
		sht_time cur = sht_builder_current_end(rc->b);
		sht_time want = c0 ? o->ivs[c0 - 1].end : o->start;
		unsigned kind = (unsigned)rng_below(&r, 100);
		sht_err err;
		orc_vis v;

		if (rc->threaded)
			c0 = handed_over(o, cur, c0);
		else if (cur < want) {
			orc_fail(&me->log, "current_end %" PRId64 " read after"
				 " %zu inserts returned, < their end %"
				 PRId64, cur, c0, want);
		}
		if (kind < 80) {
			sht_quark q = o->qs[rng_below(&r, o->nq)];
			sht_time t = rng_range(&r, o->start, cur);

			if (kind < 20 && c0) {  /* the newest intervals */
				const sht_interval *iv = &o->ivs[c0 - 1 -
					rng_below(&r, c0 < 50 ? c0 : 50)];

				q = iv->quark;
				t = rng_pct(&r, 50) ? iv->start : iv->end;
			}
			err = sht_builder_query(rc->b, q, t, res);
			c1 = atomic_load(&rc->inserted);
			me->mid_build += c1 < o->n;
			v = orc_vis_prefix(o, c0, c1 + 1);
			orc_check_single(o, &v, q, t, err, res, 0, &me->log,
					 "racer");
			me->singles_found += err == SHT_OK;
		} else if (kind < 90) {
			sht_time t = rng_range(&r, o->start, cur);

			err = sht_builder_query_full(rc->b, t, res);
			c1 = atomic_load(&rc->inserted);
			v = orc_vis_prefix(o, c0, c1 + 1);
			orc_check_full(o, &v, t, err, res, 0, &me->log,
				       "racer");
			me->fulls++;
		} else {
			sht_query2d q;

			memset(&q, 0, sizeof q);
			q.qmin = 0;
			q.qmax = SHT_QUARK_MAX;
			q.t1 = rng_range(&r, o->start, cur);
			q.t2 = rng_range(&r, q.t1, q.t1 + (cur - q.t1) / 16);
			q.resolution = rng_pct(&r, 50) ? 0 :
				       (q.t2 - q.t1) / 50 + 1;
			err = sht_builder_query_2d(rc->b, &q, res);
			c1 = atomic_load(&rc->inserted);
			v = orc_vis_prefix(o, c0, c1 + 1);
			orc_check_2d(o, &v, &q, err, res, 0, &me->log,
				     "racer");
			me->twods++;
		}
		atomic_fetch_add(&rc->queries, 1);
	}
	sht_result_destroy(res);
	return NULL;
}

static void test_build_race(sht_variant var, uint32_t bs, uint32_t mc,
			    uint64_t seed, int threads)
{
	sht_builder_opts opts = mkopts(var, bs, mc);
	char path[PATH_MAX], name[96];
	pthread_t th[RACERS];
	racer rs[RACERS];
	size_t errors = 0, mid = 0, found = 0, fulls = 0, twods = 0;
	race rc;
	struct rng r;
	sht_err err = SHT_OK;
	size_t i;
	orc o;

	opts.threaded = threads;
	snprintf(name, sizeof name, "concurrent build queries %s/%" PRIu32
		 "/%" PRIu32 "%s", var == SHT_VARIANT_SHT ? "sht" : "esht", bs, mc,
		 threads ? " threaded" : "");
	rng_seed(&r, seed);
	orc_wl_mixed(&o, &r, bs, 0, 100000000, 100, 20, 600, 0);
	scratch_path(path, sizeof path, "race");
	memset(&rc, 0, sizeof rc);
	rc.threaded = threads;
	rc.o = &o;
	atomic_init(&rc.inserted, 0);
	atomic_init(&rc.done, 0);
	atomic_init(&rc.queries, 0);
	err = sht_builder_create(path, o.start, &opts, &rc.b);
	if (!ok(err == SHT_OK, "%s: create", name)) {
		orc_free(&o);
		return;
	}
	for (i = 0; i < RACERS; i++) {
		memset(&rs[i], 0, sizeof rs[i]);
		rs[i].rc = &rc;
		rs[i].seed = seed + 1 + i;
		if (pthread_create(&th[i], NULL, race_reader, &rs[i]) != 0)
			bail_out("Cannot create a thread");
	}
	for (i = 0; i < o.n; i++) {
		err = sht_builder_insert(rc.b, &o.ivs[i]);
		if (err != SHT_OK)
			break;
		atomic_store(&rc.inserted, i + 1);
		if (i % 32 == 0) {
			/* let the racers run mid-build: wait for one more
			 * query (they never block) */
			size_t q0 = atomic_load(&rc.queries);

			while (atomic_load(&rc.queries) == q0)
				sched_yield();
		}
	}
	/* a last stretch of queries over the complete (unfinished) tree */
	while (atomic_load(&rc.queries) < 2000 && err == SHT_OK)
		sched_yield();
	atomic_store(&rc.done, 1);
	for (i = 0; i < RACERS; i++) {
		pthread_join(th[i], NULL);
		orc_errlog_print(&rs[i].log);
		errors += rs[i].log.errors;
		mid += rs[i].mid_build;
		found += rs[i].singles_found;
		fulls += rs[i].fulls;
		twods += rs[i].twods;
	}
	if (!ok(err == SHT_OK, "%s: %zu intervals inserted", name, o.n))
		diag("  insert #%zu: %s (%s)", i, sht_err_name(err),
		     sht_errmsg());
	ok(errors == 0 && atomic_load(&rc.queries) >= 2000 &&
	   mid >= o.n / 32 / 2,
	   "%s: %zu queries from %d threads (%zu single mid-build, %zu single "
	   "found, %zu full, %zu 2D), %zu wrong", name,
	   atomic_load(&rc.queries), RACERS, mid, found, fulls, twods, errors);
	err = sht_builder_finish(rc.b, o.end);
	ok(err == SHT_OK, "%s: finish", name);
	sht_builder_close(rc.b);
	unlink(path);
	orc_free(&o);
}

int main(void)
{
	uint64_t seed = rng_test_seed(77031);
	double t0 = now_s();

	if (scratch_init("build") != 0)
		bail_out("Cannot create a scratch directory");
	test_options();
	test_insert_contract(SHT_VARIANT_SHT);
	test_insert_contract(SHT_VARIANT_ESHT);
	test_max_string();
	test_incomplete(SHT_VARIANT_SHT, 0);
	test_incomplete(SHT_VARIANT_ESHT, 0);
	test_incomplete(SHT_VARIANT_SHT, 5000);
	test_incomplete(SHT_VARIANT_ESHT, 5000);
	test_build_queries(SHT_VARIANT_SHT, 1024, 2, seed);
	test_build_queries(SHT_VARIANT_ESHT, 1024, 3, seed + 1);
	test_build_queries(SHT_VARIANT_ESHT, 4096, 10, seed + 2);
	test_build_queries(SHT_VARIANT_SHT, 65536, 50, seed + 3);
	test_build_race(SHT_VARIANT_ESHT, 1024, 3, seed + 10, 0);
	test_build_race(SHT_VARIANT_SHT, 1024, 2, seed + 11, 0);
	test_build_race(SHT_VARIANT_SHT, 4096, 10, seed + 13, 0);
	test_build_race(SHT_VARIANT_ESHT, 4096, 50, seed + 12, 0);
	test_build_race(SHT_VARIANT_SHT, 1024, 2, seed + 14, 1);
	test_build_race(SHT_VARIANT_ESHT, 4096, 50, seed + 15, 1);
	/* last: an empty tree exercises the empty-result paths */
	test_empty(SHT_VARIANT_SHT, 0, 0);
	test_empty(SHT_VARIANT_ESHT, -1000, 1000000);
	printf("# total %.1f s\n", now_s() - t0);
	scratch_done();
	return done_testing();
}
