/*
 * test-faults-bytes.c: every byte of a history file is accounted for.
 *
 * A small history holding every kind of block (nodes with values of
 * every type, string blobs, two sections) is built with 1 KiB blocks.  Then, for every byte of the file, one bit of it is flipped in
 * every read that covers it (tests/support/faults.h: a damaged sector) and
 * the file is opened and checked (sht_reader_check, what `sht check`
 * runs): each flip must be refused by the open or reported by the check.
 * The bit flipped in byte i is bit i mod 8, so every bit position is
 * tried across the file; --all-bits flips each of the 8 bits of every
 * byte.  Also: queries over the damaged file, checked against the oracle,
 * answer right or fail, never wrong.
 *
 *   test-faults-bytes [--all-bits]
 */
#include "faults.h"

#include <sys/stat.h>

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"

static int build(const orc *o, const char *path)
{
	static const char s1[] = "the first section";
	static char s2[3000];
	sht_builder_opts bo;
	sht_builder *b;
	sht_err err = SHT_OK;

	memset(s2, 's', sizeof s2);
	sht_builder_opts_init(&bo);
	bo.block_size = 1024;
	bo.no_sync = true;
	if (sht_builder_create(path, o->start, &bo, &b) != SHT_OK)
		return 0;
	for (size_t i = 0; err == SHT_OK && i < o->n; i++)
		err = sht_builder_insert(b, &o->ivs[i]);
	if (err == SHT_OK)
		err = sht_builder_add_section(b, 1, 1, s1, sizeof s1);
	if (err == SHT_OK)
		err = sht_builder_add_section(b, 2, 1, s2, sizeof s2);
	if (err == SHT_OK)
		err = sht_builder_finish(b, o->end);
	sht_builder_close(b);
	return err == SHT_OK;
}

static const sht_reader_opts SMALL = { .cache_bytes = 64 * 1024 };

/* Open and check with bit fb flipped: 1 if the damage was seen. */
static int detected(const char *path, int64_t fb, sht_err *why)
{
	sht_reader *r;
	sht_err err;

	atomic_store(&flt_flip_bit, fb);
	err = sht_reader_open(path, &SMALL, &r);
	if (err == SHT_OK) {
		err = sht_reader_check(r, NULL, NULL, 0);
		sht_reader_close(r);
	}
	atomic_store(&flt_flip_bit, -1);
	*why = err;
	return err != SHT_OK;
}

/* Queries over the file with bit fb flipped: wrong answers. */
static size_t wrong_answers(const orc *o, const char *path, int64_t fb,
			    struct rng *rng, orc_errlog *log)
{
	sht_result *res = sht_result_create();
	size_t wrong = 0;
	sht_reader *r;
	sht_tree_info info;
	orc_vis v;

	atomic_store(&flt_flip_bit, fb);
	if (res && sht_reader_open(path, &SMALL, &r) == SHT_OK) {
		sht_reader_info_get(r, &info);
		v = orc_vis_all(o, info.quark_count);
		for (int i = 0; i < 20; i++) {
			const sht_interval *iv = &o->ivs[rng_below(rng, o->n)];
			sht_err err = sht_reader_query(r, iv->quark, iv->start, res);

			wrong += !orc_check_single(o, &v, iv->quark, iv->start,
						   err, res, 1, log, "single");
			err = sht_reader_query_full(r, iv->end, res);
			wrong += !orc_check_full(o, &v, iv->end, err, res, 1,
						 log, "full");
		}
		sht_reader_close(r);
	}
	atomic_store(&flt_flip_bit, -1);
	sht_result_destroy(res);
	return wrong;
}

int main(int argc, char **argv)
{
	int all_bits = argc == 2 && strcmp(argv[1], "--all-bits") == 0;
	uint64_t tried = 0, missed = 0, wrong = 0, why[16] = { 0 };
	char path[PATH_MAX];
	struct stat sb;
	orc_errlog log;
	struct rng rng;
	orc o;

	if (argc > 1 && !all_bits) {
		fprintf(stderr, "usage: %s [--all-bits]\n", argv[0]);
		return 2;
	}
	if (scratch_init("faults-bytes") != 0)
		bail_out("no scratch directory");
	rng_seed(&rng, rng_test_seed(6));
	orc_wl_mixed(&o, &rng, 1024, 1000, 100000, 12, 4, 12, 1);
	scratch_path(path, sizeof path, "bytes");
	if (!ok(build(&o, path), "history of %zu intervals built", o.n))
		bail_out("%s", sht_errmsg());
	if (stat(path, &sb) != 0)
		bail_out("stat: %s", strerror(errno));
	{
		sht_err e;

		ok(!detected(path, -1, &e), "the undamaged file opens and checks");
	}
	orc_errlog_init(&log);
	for (int64_t byte = 0; byte < sb.st_size; byte++) {
		for (int k = 0; k < (all_bits ? 8 : 1); k++) {
			int64_t fb = byte * 8 + (all_bits ? k : byte % 8);
			sht_err err;

			tried++;
			if (!detected(path, fb, &err)) {
				if (missed++ < 8)
					diag("byte %" PRId64 " bit %d: not detected",
					     byte, (int)(fb % 8));
			} else {
				why[-err < 16 ? -err : 0]++;
			}
			if (byte % 97 == 0 && k == 0)
				wrong += wrong_answers(&o, path, fb, &rng, &log);
		}
	}
	orc_errlog_print(&log);
	is_u64(missed, 0, "%" PRIu64 " flips over the %lld bytes of the file: "
	       "all detected (%" PRIu64 " corrupt, %" PRIu64 " incomplete, %"
	       PRIu64 " version, %" PRIu64 " other)", tried,
	       (long long)sb.st_size, why[-SHT_ERR_CORRUPT],
	       why[-SHT_ERR_INCOMPLETE], why[-SHT_ERR_VERSION],
	       tried - missed - why[-SHT_ERR_CORRUPT] -
	       why[-SHT_ERR_INCOMPLETE] - why[-SHT_ERR_VERSION]);
	is_u64(wrong, 0, "queries over damaged files: no wrong answer");
	remove(path);
	orc_free(&o);
	scratch_done();
	return done_testing();
}
