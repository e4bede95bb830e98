/* sht-test-label: threads */
/*
 * test-pipeline.c: the threaded builder writes the same file, byte for
 * byte, as the single-threaded one, and reports errors the same way.
 * (Queries racing a threaded build are in test-tree-build.c.)
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle.h"
#include "tap.h"

static sht_err build(const orc *o, const char *path, sht_variant v,
		     uint32_t bs, uint32_t mc, int threads)
{
	sht_builder_opts opts;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&opts);
	opts.variant = v;
	opts.block_size = bs;
	opts.max_children = mc;
	opts.no_sync = true;
	opts.threaded = threads;
	err = sht_builder_create(path, o->start, &opts, &b);
	for (size_t i = 0; err == SHT_OK && i < o->n; i++)
		err = sht_builder_insert(b, &o->ivs[i]);
	/* A section just before finish, as a state system adds its own: its
	 * blocks must come after every node, whatever the threads' timing. */
	if (err == SHT_OK)
		err = sht_builder_add_section(b, 7, 1, "section", 7);
	if (err == SHT_OK)
		err = sht_builder_finish(b, o->end);
	sht_builder_close(b);
	return err;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat sb;
	int fd = open(path, O_RDONLY);
	uint8_t *buf = NULL;

	if (fd >= 0 && fstat(fd, &sb) == 0 && (buf = malloc((size_t)sb.st_size + 1)) &&
	    pread(fd, buf, (size_t)sb.st_size, 0) == sb.st_size)
		*len = (size_t)sb.st_size;
	if (fd >= 0)
		close(fd);
	return buf;
}

static void same_file(struct rng *r, sht_variant v, uint32_t bs, uint32_t mc,
		      unsigned big_strings)
{
	char a[PATH_MAX], b[PATH_MAX];
	uint8_t *x, *y;
	size_t lx = 0, ly = 0;
	orc o;

	orc_wl_mixed(&o, r, bs, -1000, 50000000, 300, 40, 200, big_strings);
	scratch_path(a, sizeof a, "single.sht");
	scratch_path(b, sizeof b, "threaded.sht");
	ok(build(&o, a, v, bs, mc, 0) == SHT_OK, "%s/%u/%u: single-threaded build (%zu intervals)",
	   v == SHT_VARIANT_SHT ? "sht" : "esht", bs, mc, o.n);
	ok(build(&o, b, v, bs, mc, 1) == SHT_OK, "%s/%u/%u: threaded build",
	   v == SHT_VARIANT_SHT ? "sht" : "esht", bs, mc);
	x = slurp(a, &lx);
	y = slurp(b, &ly);
	ok(x && y && lx == ly && lx > 4096 && memcmp(x, y, lx) == 0,
	   "%s/%u/%u: the files are identical (%zu and %zu bytes)",
	   v == SHT_VARIANT_SHT ? "sht" : "esht", bs, mc, lx, ly);
	free(x);
	free(y);
	orc_free(&o);
}

/* Errors: order checked at once, in the calling thread; the builder goes
 * on; finish before the last end refused; insert after finish refused. */
static void errors(void)
{
	sht_builder_opts opts;
	sht_builder *b;
	char path[PATH_MAX];
	sht_interval iv = { 1, 0, 100, { SHT_TYPE_INT32, 0, { .i32 = 1 } } };
	sht_interval late = { 2, 0, 50, { SHT_TYPE_INT32, 0, { .i32 = 2 } } };
	sht_result *res = sht_result_create();

	sht_builder_opts_init(&opts);
	opts.threaded = true;
	opts.no_sync = true;
	scratch_path(path, sizeof path, "errors.sht");
	ok(sht_builder_create(path, 0, &opts, &b) == SHT_OK, "threaded create");
	ok(sht_builder_insert(b, &iv) == SHT_OK, "insert");
	ok(sht_builder_insert(b, &late) == SHT_ERR_ORDER, "out of order refused at once");
	ok(sht_builder_current_end(b) == 0, "current end: nothing handed to the pipeline yet");
	sht_builder_flush(b);
	ok(sht_builder_current_end(b) == 100, "flush hands the partial batch over");
	ok(sht_builder_query(b, 1, 50, res) == SHT_OK && sht_result_count(res) == 1 &&
	   sht_result_at(res, 0)->end == 100, "live query sees the accepted interval");
	ok(sht_builder_query(b, 2, 50, res) == SHT_NOT_FOUND, "the refused one is not stored");
	ok(sht_builder_finish(b, 99) == SHT_ERR_INVALID, "finish before the last end refused");
	ok(sht_builder_finish(b, 200) == SHT_OK, "finish");
	ok(sht_builder_insert(b, &iv) == SHT_ERR_STATE, "insert after finish refused");
	ok(sht_builder_query(b, 1, 150, res) == SHT_NOT_FOUND &&
	   sht_builder_query(b, 1, 100, res) == SHT_OK, "queries after finish");
	sht_builder_close(b);
	/* destroyed before finish: incomplete, and no thread left behind */
	ok(sht_builder_create(path, 0, &opts, &b) == SHT_OK, "threaded create again");
	for (int i = 0; i < 5000; i++) {
		sht_interval k = { (sht_quark)i, 0, 10 + i, { SHT_TYPE_INT64, 0, { .i64 = i } } };
		sht_builder_insert(b, &k);
	}
	sht_builder_close(b);
	{
		sht_reader *rd;
		ok(sht_reader_open(path, NULL, &rd) == SHT_ERR_INCOMPLETE,
		   "a threaded build destroyed unfinished leaves an incomplete file");
	}
	sht_result_destroy(res);
}

int main(void)
{
	uint64_t seed = rng_test_seed(7331);
	struct rng r;

	if (scratch_init("pipeline") != 0)
		bail_out("Cannot create a scratch directory");
	rng_seed(&r, seed);
	same_file(&r, SHT_VARIANT_ESHT, 1024, 3, 0);
	same_file(&r, SHT_VARIANT_SHT, 2048, 4, 0);
	same_file(&r, SHT_VARIANT_ESHT, 4096, 10, 2);
	same_file(&r, SHT_VARIANT_SHT, 4096, 10, 2);
	same_file(&r, SHT_VARIANT_ESHT, 65536, 50, 3);
	errors();
	scratch_done();
	return done_testing();
}
