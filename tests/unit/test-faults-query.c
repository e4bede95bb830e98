/*
 * test-faults-query.c: queries whose reads and allocations fail in turn.
 *
 * A random mixed history (every value type, long strings in blobs) is
 * built without faults.  A script then opens it with a cache of 4 blocks
 * (so queries read), runs single, full and 2D queries checked against the
 * oracle, and the integrity walk.  It runs once counting its pread and
 * allocation calls (tests/support/faults.h), then with the nth call failing,
 * for n spread over every point, in each mode: EIO, a short read, a
 * flipped bit in the bytes read (a bad sector), a failed allocation.
 * Every answer must be right or an error, never a wrong answer; the
 * integrity walk must not pass over a read that failed or was damaged;
 * nothing may leak; after a single fault the next queries answer right.
 *
 *   test-faults-query [--points N]   (0: every point; default 60)
 */
#include "faults.h"

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"

#define NQ 40

struct tally {
	uint64_t runs, open_err, answers, errors, check_err, check_ok_hit;
	uint64_t wrong, leaks;
};

static orc_errlog elog;

static void check(const orc *o, sht_reader *r, struct rng *rng, sht_result *res,
		  struct tally *t)
{
	sht_tree_info info;
	orc_vis v;

	sht_reader_info_get(r, &info);
	flt_self = 1;
	v = orc_vis_all(o, info.quark_count);
	flt_self = 0;
	for (int i = 0; i < NQ; i++) {
		const sht_interval *iv = &o->ivs[rng_below(rng, o->n)];
		sht_time at = iv->start + (sht_time)rng_below(rng,
				(uint64_t)(iv->end - iv->start) + 1);
		sht_err err;
		int good;

		if (i % 10 == 9) {
			err = sht_reader_query_full(r, at, res);
			flt_self = 1;
			good = orc_check_full(o, &v, at, err, res, 1, &elog, "full");
		} else if (i % 10 == 8) {
			sht_query2d q = { NULL, 0, 0, SHT_QUARK_MAX, at, at + 5000, 0, SHT_ORDER_TIME };

			err = sht_reader_query_2d(r, &q, res);
			flt_self = 1;
			good = orc_check_2d(o, &v, &q, err, res, 1, &elog, "2d");
		} else {
			err = sht_reader_query(r, iv->quark, at, res);
			flt_self = 1;
			good = orc_check_single(o, &v, iv->quark, at, err, res, 1,
						&elog, "single");
		}
		flt_self = 0;
		t->answers++;
		t->errors += err < 0;
		t->wrong += !good;
	}
}

static void script(const orc *o, const char *path, struct tally *t)
{
	sht_reader_opts oo = { .cache_bytes = 4 * 4096 };
	sht_result *res;
	sht_reader *r;
	struct rng rng;
	uint64_t before;
	sht_err err;

	rng_seed(&rng, 17);
	t->runs++;
	res = sht_result_create();
	if (!res) {
		t->open_err++;
		return;
	}
	err = sht_reader_open(path, &oo, &r);
	if (err != SHT_OK) {
		t->open_err++;
		sht_result_destroy(res);
		return;
	}
	check(o, r, &rng, res, t);
	before = atomic_load(&flt_fired);
	err = sht_reader_check(r, NULL, NULL, 0);
	if (err != SHT_OK)
		t->check_err++;
	else if (atomic_load(&flt_fired) != before)
		t->check_ok_hit++;      /* passed over a failed read */
	sht_reader_close(r);
	sht_result_destroy(res);
}

static int build(const orc *o, const char *path)
{
	sht_builder_opts bo;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&bo);
	bo.block_size = 4096;
	bo.no_sync = true;
	if (sht_builder_create(path, o->start, &bo, &b) != SHT_OK)
		return 0;
	err = SHT_OK;
	for (size_t i = 0; err == SHT_OK && i < o->n; i++)
		err = sht_builder_insert(b, &o->ivs[i]);
	if (err == SHT_OK)
		err = sht_builder_finish(b, o->end);
	sht_builder_close(b);
	return err == SHT_OK;
}

int main(int argc, char **argv)
{
	uint64_t max_points = 60, calls[FLT_NOPS], total = 0;
	struct flt_plan none = { -1, 0, 0, 0, 0 };
	struct tally t0 = { 0 };
	char path[PATH_MAX];
	struct rng rng;
	orc o;

	if (argc == 3 && strcmp(argv[1], "--points") == 0)
		max_points = strtoull(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--points N]\n", argv[0]);
		return 2;
	}
	if (scratch_init("faults-query") != 0)
		bail_out("no scratch directory");
	rng_seed(&rng, rng_test_seed(6));
	orc_wl_mixed(&o, &rng, 4096, 1000, 2000000, 60, 4, 80, 1);
	scratch_path(path, sizeof path, "mixed");
	if (!ok(build(&o, path), "history built"))
		bail_out("%s", sht_errmsg());
	orc_errlog_init(&elog);
	flt_arm(&none);
	script(&o, path, &t0);
	flt_disarm();
	for (int i = 0; i < FLT_NOPS; i++)
		calls[i] = flt_calls(i);
	ok(t0.open_err == 0 && t0.errors == 0 && t0.wrong == 0 &&
	   t0.check_err == 0, "without faults: %" PRIu64 " answers right, "
	   "check passes (%" PRIu64 " preads, %" PRIu64 " allocations)",
	   t0.answers, calls[FLT_PREAD], calls[FLT_ALLOC]);
	size_t nm;
	const struct flt_fault *modes = flt_read_modes(&nm);

	for (size_t m = 0; m < nm; m++) {
		const struct flt_fault *md = &modes[m];
		uint64_t n = calls[md->op];
		uint64_t k = max_points && max_points < n ? max_points : n;
		struct tally t = { 0 };

		orc_errlog_init(&elog);
		for (uint64_t i = 0; i < k; i++) {
			struct flt_plan fp = { md->op, flt_point(i, k, n), md->err,
					       md->fmode, md->sticky };
			long live = flt_live_now();

			flt_arm(&fp);
			script(&o, path, &t);
			flt_disarm();
			t.leaks += flt_live_now() != live;
		}
		orc_errlog_print(&elog);
		ok(t.wrong == 0 && t.leaks == 0 && t.check_ok_hit == 0,
		   "%s: %" PRIu64 " of %" PRIu64 " points: %" PRIu64
		   " opens refused, %" PRIu64 " answers (%" PRIu64 " errors, %"
		   PRIu64 " wrong), check failed %" PRIu64 " (passed over a "
		   "fault %" PRIu64 "), leaks %" PRIu64, md->what, k, n,
		   t.open_err, t.answers, t.errors, t.wrong, t.check_err,
		   t.check_ok_hit, t.leaks);
		total += k;
	}
	diag("total: %" PRIu64 " faulty query scripts", total);
	remove(path);
	orc_free(&o);
	scratch_done();
	return done_testing();
}
