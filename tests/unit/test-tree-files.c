/* sht-test-label: threads */
/*
 * test-tree-files.c: opening, refusing and surviving bad files, and
 * readers shared between threads.
 *
 *   refusal      missing file, directory, non-history file, empty file,
 *                truncated and extended files, raised format version,
 *                cleared COMPLETE flag, every bit of the header
 *                -> sht_reader_open fails with the documented code
 *   bit flips    one bit flipped at random in the blocks: the file still
 *                opens or is refused; sht_reader_check reports
 *                SHT_ERR_CORRUPT; queries answer right or fail, never
 *                wrong, never crash
 *   structure    fields changed with the checksum recomputed (what a
 *                buggy writer would produce): sht_reader_check still
 *                reports SHT_ERR_CORRUPT
 *   verified     a checksum is checked on a reader's first read of a
 *                block only; a fresh reader or drop_caches checks again;
 *                the structure is checked on every read
 *   threads      4 threads on one reader with an 8-block cache, every
 *                answer checked (some 2D queries on 3 threads of their
 *                own: sht_reader_query_2d_threads, half of them by
 *                quark); sht_reader_drop_caches; counters; stats; again
 *                mapped, and mapped with a budget of 2 windows (most
 *                blocks read as copies)
 *   map budget   a mapped reader with map_budget keeps at most the budget
 *                plus the windows of core nodes mapped (smaps Rss of its
 *                map) over repeated whole-range 2D queries, and after
 *                sht_reader_release_pages; without it, the same queries
 *                map more than that bound; answers as the oracle says
 *
 * Offsets come from docs/FORMAT.md (the authority on the bytes).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"
#include "procmaps.h"
#include "tap.h"
#include "oracle.h"

/* docs/FORMAT.md §2 */
enum {
	HDR_REGION = 4096,
	H_VERSION = 8,
	H_HEADER_LEN = 12,
	H_FLAGS = 16,
	H_BLOCK_SIZE = 24,
	H_BLOCK_COUNT = 32,
	H_ROOT = 40,
	H_CRC = 380,
	HDR_LEN_V1 = 384,
	/* §3 node block */
	N_KIND = 0,
	N_OBITS = 1,
	N_COUNT = 4,
	N_SELF = 8,
	N_START = 24,
	N_END = 32,
	N_NCHILD = 48,
	N_USED = 88,
	N_LEVEL = 92,
	NODE_HDR = 112,
};

/* ---- little helpers ----------------------------------------------------- */

static uint32_t crc32c(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
	}
	return c ^ 0xffffffffu;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = orc_xmalloc((size_t)n);
	if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spill(const char *path, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || (len && fwrite(buf, 1, len, f) != len) || fclose(f) != 0)
		bail_out("Cannot write %s", path);
}

/* Write n bytes at off of an existing file. */
static void patch(const char *path, uint64_t off, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, p, n, (off_t)off) != (ssize_t)n)
		bail_out("Cannot patch %s", path);
	close(fd);
}

/* Open readers with opts.mapped (the second pass of main), and with
 * opts.map_budget (the third). */
static bool g_mapped;
static size_t g_budget;

/*
 * A mapped reader's blocks must start on boundaries of their size (64 KiB
 * if smaller), in the process's address space: the kernel maps a file's
 * pages by aligned 64 KiB windows on a fault, and a block across two
 * windows costs twice its bytes of RSS.  The map is found in
 * /proc/self/maps by the file's path; 0 if aligned.
 */
static int map_misaligned(const char *path)
{
	char real[4096], line[4096 + 128];
	unsigned long lo, off, align = 65536;
	uint32_t bs = 0;
	FILE *f;
	int bad = -1;
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		unsigned char b[4];

		if (pread(fd, b, 4, H_BLOCK_SIZE) == 4)
			bs = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			     (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		close(fd);
	}
	if (bs > align)
		align = bs;
	if (!realpath(path, real) || !(f = fopen("/proc/self/maps", "r")))
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *name = strchr(line, '/');
		size_t n;

		if (!name || sscanf(line, "%lx-%*x %*s %lx", &lo, &off) != 2)
			continue;
		n = strlen(name);
		if (n && name[n - 1] == '\n')
			name[n - 1] = 0;
		if (strcmp(name, real) == 0 && off == 0)
			bad = (lo + HDR_REGION) % align != 0;
	}
	fclose(f);
	return bad;
}

static sht_err try_open(const char *path, sht_reader **out)
{
	sht_reader_opts oo;
	sht_reader *rd = NULL;
	sht_err rc;

	sht_reader_opts_init(&oo);
	oo.mapped = g_mapped;
	rc = sht_reader_open(path, &oo, &rd);
	if (rc == SHT_OK && sht_reader_mapped(rd) != g_mapped) {
		sht_reader_close(rd);
		return sht_error_set(SHT_ERR_STATE, "Cannot open: mapped is %d, asked %d",
				     !g_mapped, g_mapped);
	}
	if (rc == SHT_OK && g_mapped && map_misaligned(path) != 0) {
		sht_reader_close(rd);
		return sht_error_set(SHT_ERR_STATE, "Cannot open: path=%s is not mapped with its blocks on 64 KiB boundaries",
				     path);
	}

	if (out)
		*out = rc == SHT_OK ? rd : NULL;
	else if (rc == SHT_OK)
		sht_reader_close(rd);
	return rc;
}

static int errmsg_ok(void)
{
	return strncmp(sht_errmsg(), "Cannot", 6) == 0;
}

/* ---- the reference history ---------------------------------------------- */

typedef struct ref {
	orc o;
	char path[PATH_MAX];
	uint8_t *bytes;          /* pristine file */
	size_t len;
	uint32_t bs;
	uint64_t blocks;
	sht_variant variant;
} ref;

/* orc_wl_mixed's big_strings for ref_build (0: no blobs). */
static unsigned g_big_strings = 2;

static int ref_build(ref *f, sht_variant var, uint32_t bs, uint32_t mc,
		     size_t n_dense, size_t max_m, uint64_t seed)
{
	sht_builder_opts opts;
	sht_builder *b = NULL;
	struct rng r;
	sht_err rc;
	size_t i;

	memset(f, 0, sizeof *f);
	rng_seed(&r, seed);
	orc_wl_mixed(&f->o, &r, bs, 1000, 10000000, n_dense, 8, max_m,
		     g_big_strings);
	scratch_path(f->path, sizeof f->path, "ref");
	sht_builder_opts_init(&opts);
	opts.variant = var;
	opts.block_size = bs;
	opts.max_children = mc;
	opts.no_sync = true;
	rc = sht_builder_create(f->path, f->o.start, &opts, &b);
	for (i = 0; rc == SHT_OK && i < f->o.n; i++)
		rc = sht_builder_insert(b, &f->o.ivs[i]);
	if (rc == SHT_OK)
		rc = sht_builder_finish(b, f->o.end);
	sht_builder_close(b);
	if (!ok(rc == SHT_OK, "reference %s/%" PRIu32 "/%" PRIu32 ": %zu "
		"intervals written", var == SHT_VARIANT_SHT ? "sht" : "esht",
		bs, mc, f->o.n)) {
		diag("  %s (%s)", sht_err_name(rc), sht_errmsg());
		return -1;
	}
	f->bytes = slurp(f->path, &f->len);
	if (!f->bytes)
		bail_out("Cannot read %s", f->path);
	f->bs = bs;
	f->blocks = (f->len - HDR_REGION) / bs;
	f->variant = var;
	ok(f->len == HDR_REGION + f->blocks * bs &&
	   get64(f->bytes + H_BLOCK_COUNT) == f->blocks &&
	   get32(f->bytes + H_BLOCK_SIZE) == bs &&
	   get32(f->bytes + H_VERSION) == SHT_FORMAT_VERSION &&
	   (get32(f->bytes + H_FLAGS) & 1u) &&
	   crc32c(f->bytes, H_CRC) == get32(f->bytes + H_CRC),
	   "reference file laid out as docs/FORMAT.md says (%zu bytes, %"
	   PRIu64 " blocks)", f->len, f->blocks);
	return 0;
}

static void ref_free(ref *f)
{
	unlink(f->path);
	free(f->bytes);
	orc_free(&f->o);
}

/* Restore the pristine file. */
static void ref_restore(const ref *f)
{
	spill(f->path, f->bytes, f->len);
}

/* ---- refusals ----------------------------------------------------------- */

static void expect_open(const char *path, sht_err want, const char *what)
{
	sht_err rc = try_open(path, NULL);

	ok(rc == want && errmsg_ok(), "%s: %s (want %s) \"%s\"", what,
	   sht_err_name(rc), sht_err_name(want), sht_errmsg());
}

static void test_refusals(const ref *f)
{
	char path[PATH_MAX];
	uint8_t *buf = orc_xmalloc(f->len + f->bs);
	size_t cuts[16], nc = 0, i;
	uint32_t v;

	scratch_path(path, sizeof path, "bad");
	unlink(path);
	expect_open(path, SHT_ERR_IO, "missing file");
	expect_open(scratch_dir(), SHT_ERR_IO, "a directory");

	spill(path, (const uint8_t *)"", 0);
	expect_open(path, SHT_ERR_CORRUPT, "empty file");
	memset(buf, 0, HDR_REGION + f->bs);
	spill(path, buf, HDR_REGION + f->bs);
	expect_open(path, SHT_ERR_CORRUPT, "zero-filled file");
	for (i = 0; i < 3 * HDR_REGION; i++)
		buf[i] = (uint8_t)("Not a history file at all.\n"[i % 27]);
	spill(path, buf, 3 * HDR_REGION);
	expect_open(path, SHT_ERR_CORRUPT, "text file");
	memcpy(buf, f->bytes, 8);          /* the magic, then junk */
	spill(path, buf, 3 * HDR_REGION);
	{
		/* junk in the version field: VERSION is as fair as CORRUPT */
		sht_err rc = try_open(path, NULL);

		ok((rc == SHT_ERR_CORRUPT || rc == SHT_ERR_VERSION) &&
		   errmsg_ok(), "magic followed by junk: %s \"%s\"",
		   sht_err_name(rc), sht_errmsg());
	}
	put32(buf + H_VERSION, SHT_FORMAT_VERSION);  /* version 1, then junk */
	spill(path, buf, 3 * HDR_REGION);
	expect_open(path, SHT_ERR_CORRUPT, "magic and version 1, then junk");
	memcpy(buf, f->bytes, HDR_REGION);  /* a good header, junk blocks */
	memset(buf + HDR_REGION, 'j', f->len - HDR_REGION);
	spill(path, buf, f->len);
	{
		sht_reader *rd = NULL;
		sht_err rc = try_open(path, &rd);

		if (rc == SHT_OK) {
			rc = sht_reader_check(rd, NULL, NULL, 0);
			sht_reader_close(rd);
		}
		ok(rc == SHT_ERR_CORRUPT, "a good header over junk blocks: "
		   "refused or reported corrupt: %s", sht_err_name(rc));
	}

	/* truncated: inside the header, at the header's end, inside and at
	 * the end of blocks */
	cuts[nc++] = 1;
	cuts[nc++] = 8;
	cuts[nc++] = 100;
	cuts[nc++] = HDR_LEN_V1 - 1;
	cuts[nc++] = HDR_LEN_V1;
	cuts[nc++] = HDR_REGION - 1;
	cuts[nc++] = HDR_REGION;
	cuts[nc++] = HDR_REGION + 1;
	cuts[nc++] = HDR_REGION + f->bs;
	cuts[nc++] = HDR_REGION + (f->blocks / 2) * f->bs;
	cuts[nc++] = f->len - f->bs;
	cuts[nc++] = f->len - f->bs / 2;
	cuts[nc++] = f->len - 1;
	for (i = 0; i < nc; i++) {
		char what[64];

		if (cuts[i] >= f->len)
			continue;
		spill(path, f->bytes, cuts[i]);
		snprintf(what, sizeof what, "truncated to %zu of %zu bytes",
			 cuts[i], f->len);
		expect_open(path, SHT_ERR_CORRUPT, what);
	}
	/* extended */
	memcpy(buf, f->bytes, f->len);
	memset(buf + f->len, 0, f->bs);
	spill(path, buf, f->len + 1);
	expect_open(path, SHT_ERR_CORRUPT, "one byte appended");
	spill(path, buf, f->len + f->bs);
	expect_open(path, SHT_ERR_CORRUPT, "a zero block appended");

	/* raised version, checksum recomputed: SHT_ERR_VERSION */
	for (i = 0; i < 2; i++) {
		memcpy(buf, f->bytes, f->len);
		v = i == 0 ? SHT_FORMAT_VERSION + 1 : 0xffffffffu;
		put32(buf + H_VERSION, v);
		put32(buf + H_CRC, crc32c(buf, H_CRC));
		spill(path, buf, f->len);
		expect_open(path, SHT_ERR_VERSION,
			    i == 0 ? "format version + 1" : "format version "
							    "0xffffffff");
	}
	/* raised version, checksum not fixed: refused either way */
	memcpy(buf, f->bytes, f->len);
	put32(buf + H_VERSION, SHT_FORMAT_VERSION + 1);
	spill(path, buf, f->len);
	{
		sht_err rc = try_open(path, NULL);

		ok(rc == SHT_ERR_VERSION || rc == SHT_ERR_CORRUPT,
		   "format version + 1, stale checksum: %s", sht_err_name(rc));
	}
	/* COMPLETE cleared, checksum recomputed: SHT_ERR_INCOMPLETE */
	memcpy(buf, f->bytes, f->len);
	put32(buf + H_FLAGS, get32(buf + H_FLAGS) & ~1u);
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	expect_open(path, SHT_ERR_INCOMPLETE, "COMPLETE flag cleared");
	/* unknown flag, checksum recomputed */
	memcpy(buf, f->bytes, f->len);
	put32(buf + H_FLAGS, get32(buf + H_FLAGS) | 0x80u);
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	expect_open(path, SHT_ERR_CORRUPT, "unknown header flag set");
	/* root beyond the blocks, checksum recomputed */
	memcpy(buf, f->bytes, f->len);
	put64(buf + H_ROOT, f->blocks + 5);
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	expect_open(path, SHT_ERR_CORRUPT, "root block out of the file");
	/* block_count disagreeing with the size, checksum recomputed */
	memcpy(buf, f->bytes, f->len);
	put64(buf + H_BLOCK_COUNT, f->blocks + 1);
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	expect_open(path, SHT_ERR_CORRUPT, "block_count one too many");
	/* block_count whose byte size wraps around 2^64 to the file's size */
	memcpy(buf, f->bytes, f->len);
	put64(buf + H_BLOCK_COUNT, f->blocks + (UINT64_C(1) << 63) /
		  (get32(f->bytes + 24) / 2));
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	expect_open(path, SHT_ERR_CORRUPT, "block_count wrapping around 2^64");
	/* header_len beyond the header region */
	memcpy(buf, f->bytes, f->len);
	put32(buf + H_HEADER_LEN, HDR_REGION + 4);
	put32(buf + H_CRC, crc32c(buf, H_CRC));
	spill(path, buf, f->len);
	{
		sht_err rc = try_open(path, NULL);

		ok(rc == SHT_ERR_CORRUPT, "header_len 4100: %s",
		   sht_err_name(rc));
	}
	unlink(path);
	free(buf);
}

/* Every bit of the used header: open must refuse.  The padding after it:
 * open refuses or the check does. */
static void test_header_bits(const ref *f, struct rng *r)
{
	size_t bit, bad = 0, tried = 0, i;

	ref_restore(f);
	for (bit = 0; bit < HDR_LEN_V1 * 8; bit++) {
		uint8_t byte = f->bytes[bit / 8] ^ (uint8_t)(1u << (bit % 8));
		sht_err rc;

		patch(f->path, bit / 8, &byte, 1);
		rc = try_open(f->path, NULL);
		if (!(rc == SHT_ERR_CORRUPT || rc == SHT_ERR_VERSION ||
		      rc == SHT_ERR_INCOMPLETE) && bad++ < 5)
			diag("  header bit %zu (byte %zu): open %s", bit,
			     bit / 8, sht_err_name(rc));
		patch(f->path, bit / 8, &f->bytes[bit / 8], 1);
		tried++;
	}
	ok(bad == 0, "every one of the %zu header bits flipped: open refuses "
	   "(%zu accepted)", tried, bad);

	bad = 0;
	for (i = 0; i < 64; i++) {
		size_t off = HDR_LEN_V1 + rng_below(r, HDR_REGION - HDR_LEN_V1);
		uint8_t byte = f->bytes[off] ^ (uint8_t)(1u << rng_below(r, 8));
		sht_reader *rd = NULL;
		sht_err rc;

		patch(f->path, off, &byte, 1);
		rc = try_open(f->path, &rd);
		if (rc == SHT_OK) {
			rc = sht_reader_check(rd, NULL, NULL, 0);
			sht_reader_close(rd);
		}
		if (rc != SHT_ERR_CORRUPT && bad++ < 5)
			diag("  header padding byte %zu flipped: %s", off,
			     sht_err_name(rc));
		patch(f->path, off, &f->bytes[off], 1);
	}
	ok(bad == 0, "64 bits of the header padding flipped: refused or "
	   "reported corrupt (%zu missed)", bad);
}

/* ---- bit flips in the blocks -------------------------------------------- */

typedef struct flipstat {
	size_t trials, open_refused, queries, query_errors;
} flipstat;

static void report_count(void *ctx, const char *msg)
{
	unsigned *n = ctx;

	(void)msg;
	(*n)++;
}

/* Run queries on a damaged file: right or an error, never wrong. */
static size_t damaged_queries(sht_reader *rd, const orc *o, struct rng *r,
			      sht_result *res, flipstat *st, const char *what)
{
	orc_vis v = orc_vis_all(o, (uint64_t)o->qs[o->nq - 1] + 1);
	size_t i, bad = 0;
	sht_err rc;

	for (i = 0; i < 60; i++) {
		const sht_interval *iv = &o->ivs[rng_below(r, o->n)];
		sht_time t = rng_range(r, iv->start, iv->end);

		rc = sht_reader_query(rd, iv->quark, t, res);
		st->queries++;
		st->query_errors += rc < 0;
		bad += !orc_check_single(o, &v, iv->quark, t, rc, res, 1, NULL,
					 what);
	}
	for (i = 0; i < 3; i++) {
		sht_time t = rng_range(r, o->start, o->end);

		rc = sht_reader_query_full(rd, t, res);
		st->queries++;
		st->query_errors += rc < 0;
		bad += !orc_check_full(o, &v, t, rc, res, 1, NULL, what);
	}
	for (i = 0; i < 2; i++) {
		sht_query2d q;

		memset(&q, 0, sizeof q);
		q.qmax = SHT_QUARK_MAX;
		q.t1 = rng_range(r, o->start, o->end);
		q.t2 = rng_range(r, q.t1, o->end);
		q.resolution = i ? (q.t2 - q.t1) / 300 + 1 : 0;
		rc = sht_reader_query_2d(rd, &q, res);
		st->queries++;
		st->query_errors += rc < 0;
		bad += !orc_check_2d(o, &v, &q, rc, res, 1, NULL, what);
	}
	return bad;
}

static void test_block_flips(const ref *f, struct rng *r, size_t trials)
{
	sht_result *res = sht_result_create();
	size_t t, missed = 0, wrong = 0, overreport = 0;
	flipstat st;
	char what[96];

	memset(&st, 0, sizeof st);
	ref_restore(f);
	orc_diag_reset();
	for (t = 0; t < trials; t++) {
		uint64_t blk = rng_below(r, f->blocks);
		size_t off = HDR_REGION + (size_t)blk * f->bs +
			     (size_t)rng_below(r, f->bs);
		uint8_t byte = f->bytes[off] ^ (uint8_t)(1u << rng_below(r, 8));
		sht_reader *rd = NULL;
		unsigned nrep = 0;
		sht_err rc;

		snprintf(what, sizeof what, "flip block %" PRIu64
			 " (kind %u) byte %zu", blk,
			 f->bytes[HDR_REGION + blk * f->bs],
			 off - HDR_REGION - (size_t)blk * f->bs);
		patch(f->path, off, &byte, 1);
		st.trials++;
		rc = try_open(f->path, &rd);
		if (rc != SHT_OK) {
			st.open_refused++;
			if (rc != SHT_ERR_CORRUPT && missed++ < 5)
				diag("  %s: open %s", what, sht_err_name(rc));
		} else {
			/* queries first, on a cold cache, then the check */
			wrong += damaged_queries(rd, &f->o, r, res, &st, what);
			rc = sht_reader_check(rd, report_count, &nrep, 3);
			if ((rc != SHT_ERR_CORRUPT || nrep == 0) &&
			    missed++ < 5)
				diag("  %s: check %s, %u reports", what,
				     sht_err_name(rc), nrep);
			if (nrep > 3)
				overreport++;
			sht_reader_close(rd);
		}
		patch(f->path, off, &f->bytes[off], 1);
	}
	ok(missed == 0, "%zu single-bit flips in blocks all detected (%zu "
	   "refused at open, %zu missed)%s", st.trials, st.open_refused, missed,
	   g_mapped ? ", mapped" : "");
	ok(wrong == 0, "damaged files: %zu queries, %zu errors, %zu wrong "
	   "answers", st.queries, st.query_errors, wrong);
	ok(overreport == 0, "check reports at most max_reports lines");
	sht_result_destroy(res);
}

/*
 * Structural damage with a valid checksum (a buggy writer): the check
 * must still find it.  For each node block, each mutation is applied in
 * turn and the block's CRC recomputed.
 */
static void test_structure(const ref *f, struct rng *r)
{
	uint8_t *blk = orc_xmalloc(f->bs);
	sht_result *res = sht_result_create();
	size_t done = 0, missed = 0, b;
	const char *names[] = { "self", "level", "end < start",
				"n_intervals + 1", "nonzero padding",
				"child end", "child start",
				"end-table offset width + 128" };

	ref_restore(f);
	for (b = 0; b < f->blocks && done < 120; b++) {
		const uint8_t *orig = f->bytes + HDR_REGION + b * f->bs;
		uint32_t used = get32(orig + N_USED);
		int m;

		if (orig[N_KIND] != 1 && orig[N_KIND] != 2)
			continue;
		if (rng_below(r, f->blocks) > 40 && orig[N_KIND] == 1)
			continue;  /* sample the leaves */
		for (m = 0; m < 8; m++) {
			sht_reader *rd = NULL;
			unsigned nrep = 0;
			sht_err rc;

			memcpy(blk, orig, f->bs);
			switch (m) {
			case 0: put64(blk + N_SELF, get64(blk + N_SELF) + 1);
				break;
			case 1: put32(blk + N_LEVEL, get32(blk + N_LEVEL) ^ 1);
				break;
			case 7: blk[N_OBITS] ^= 0x80; break;
			case 2: /* end before the node's start */
				put64(blk + N_END, get64(blk + N_START) - 1);
				break;
			case 3: put32(blk + N_COUNT, get32(blk + N_COUNT) + 1);
				break;
			case 4: if (used + 12 >= f->bs - 4)
					continue;
				blk[used + 1 + rng_below(r, f->bs - 4 - used - 1)]
					= 0x5a;
				break;
			case 5: case 6:
				if (blk[N_KIND] != 2 || get32(blk + N_NCHILD) == 0)
					continue;
				{
					uint8_t *ce = blk + NODE_HDR + 32 *
						rng_below(r, get32(blk + N_NCHILD));

					if (m == 5)
						put64(ce + 16, get64(ce + 16) + 1);
					else
						put64(ce + 8, get64(ce + 8) - 1);
				}
				break;
			}
			put32(blk + f->bs - 4, crc32c(blk, f->bs - 4));
			patch(f->path, HDR_REGION + b * f->bs, blk, f->bs);
			rc = try_open(f->path, &rd);
			if (rc == SHT_OK) {
				/* must not crash; answers unspecified */
				sht_time t = rng_range(r, f->o.start, f->o.end);

				(void)sht_reader_query_full(rd, t, res);
				(void)sht_reader_query(rd, f->o.qs[0], t, res);
				rc = sht_reader_check(rd, report_count, &nrep,
						      10);
				sht_reader_close(rd);
			}
			if (rc != SHT_ERR_CORRUPT && missed++ < 8)
				diag("  block %zu (kind %u, level %" PRIu32 "): %s"
				     " with a valid checksum: %s", b,
				     orig[N_KIND], get32(orig + N_LEVEL),
				     names[m], sht_err_name(rc));
			patch(f->path, HDR_REGION + b * f->bs, orig, f->bs);
			done++;
		}
	}
	ok(done > 20 && missed == 0, "%zu structural mutations with valid "
	   "checksums detected by open or check (%zu missed)", done, missed);
	free(blk);
	sht_result_destroy(res);
}

/* ---- readers in threads ------------------------------------------------- */

typedef struct worker {
	sht_reader *rd;
	const orc *o;
	uint64_t seed;
	size_t n, singles, fulls, twods, par;
	orc_errlog log;
} worker;

static void *worker_main(void *arg)
{
	worker *w = arg;
	const orc *o = w->o;
	orc_vis v = orc_vis_all(o, (uint64_t)o->qs[o->nq - 1] + 1);
	sht_result *res = sht_result_create();
	struct rng r;
	size_t i;

	rng_seed(&r, w->seed);
	orc_errlog_init(&w->log);
	for (i = 0; i < w->n; i++) {
		unsigned k = (unsigned)rng_below(&r, 100);
		sht_err rc;

		if (w->seed % 4 == 0 && i % 97 == 0)   /* while the others query */
			sht_reader_release_pages(w->rd);
		if (k < 85) {
			sht_quark q = o->qs[rng_below(&r, o->nq)];
			sht_time t = rng_range(&r, o->start, o->end);

			rc = sht_reader_query(w->rd, q, t, res);
			orc_check_single(o, &v, q, t, rc, res, 0, &w->log,
					 "thread");
			w->singles++;
		} else if (k < 95) {
			sht_time t = rng_range(&r, o->start, o->end);

			rc = sht_reader_query_full(w->rd, t, res);
			orc_check_full(o, &v, t, rc, res, 0, &w->log, "thread");
			w->fulls++;
		} else {
			sht_query2d q;
			sht_quark qs[3];

			memset(&q, 0, sizeof q);
			qs[0] = o->qs[rng_below(&r, o->nq)];
			qs[1] = o->qs[rng_below(&r, o->nq)];
			qs[2] = o->qs[rng_below(&r, o->nq)];
			q.quarks = qs;
			q.n_quarks = 3;
			q.t1 = rng_range(&r, o->start, o->end);
			q.t2 = rng_range(&r, q.t1, o->end);
			q.resolution = rng_pct(&r, 50) ? 0 :
				       (q.t2 - q.t1) / 500 + 1;
			if (q.resolution > 0 && rng_pct(&r, 50)) {  /* ~500 samples */
				if (rng_pct(&r, 50)) {               /* strings too */
					q.quarks = NULL;
					q.n_quarks = 0;
					q.qmax = SHT_QUARK_MAX;
				}
				/* every other one by (quark, start): the
				 * pieces merged quark by quark */
				q.order = w->par % 2 ? SHT_ORDER_QUARK : SHT_ORDER_TIME;
				rc = sht_reader_query_2d_threads(w->rd, &q, 3, res);
				w->par++;
			} else {
				rc = sht_reader_query_2d(w->rd, &q, res);
			}
			orc_check_2d(o, &v, &q, rc, res, 0, &w->log, "thread");
			w->twods++;
		}
	}
	sht_result_destroy(res);
	return NULL;
}

static void test_threads(const ref *f, uint64_t seed, size_t per_thread)
{
	sht_reader_opts oo;
	sht_reader *rd = NULL;
	sht_reader_counters c0, c1, c2;
	sht_result *res = sht_result_create();
	pthread_t th[4];
	worker w[4];
	size_t i, errors = 0, total = 0, bad;
	orc_vis v = orc_vis_all(&f->o, (uint64_t)f->o.qs[f->o.nq - 1] + 1);
	struct rng r;
	sht_err rc;
	char name[96];

	snprintf(name, sizeof name, "%s/%" PRIu32 " %" PRIu64 " blocks%s%s",
		 f->variant == SHT_VARIANT_SHT ? "sht" : "esht", f->bs,
		 f->blocks, g_mapped ? " mapped" : "",
		 g_budget ? " with a budget" : "");
	ref_restore(f);
	memset(&oo, 0, sizeof oo);
	oo.cache_bytes = (size_t)8 * f->bs;
	oo.mapped = g_mapped;
	oo.map_budget = g_budget;
	rc = sht_reader_open(f->path, &oo, &rd);
	if (!ok(rc == SHT_OK, "%s: open with %s", name,
		g_mapped ? "the file mapped" : "an 8-block cache")) {
		sht_result_destroy(res);
		return;
	}
	sht_reader_counters_get(rd, &c0);
	for (i = 0; i < 4; i++) {
		memset(&w[i], 0, sizeof w[i]);
		w[i].rd = rd;
		w[i].o = &f->o;
		w[i].seed = seed + i;
		w[i].n = per_thread;
		if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0)
			bail_out("Cannot create a thread");
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		orc_errlog_print(&w[i].log);
		errors += w[i].log.errors;
		total += w[i].n;
	}
	for (i = 0, bad = 0; i < 4; i++)
		bad += w[i].par;
	ok(errors == 0 && bad > 0, "%s: 4 threads, %zu queries on one reader "
	   "(%zu of them 2D on 3 threads each; %zu wrong)", name, total, bad,
	   errors);
	sht_reader_counters_get(rd, &c1);
	ok(c1.cache_misses > c0.cache_misses &&
	   c1.node_visits >= c1.cache_misses &&
	   c1.bytes_read >= c1.cache_misses * f->bs &&
	   c1.cache_misses > 8,
	   "%s: counters: %" PRIu64 " visits, %" PRIu64 " misses, %" PRIu64
	   " bytes read", name, c1.node_visits, c1.cache_misses, c1.bytes_read);

	/* drop the caches: answers stay right, and the next query reads */
	sht_reader_drop_caches(rd);
	sht_reader_counters_get(rd, &c1);
	rng_seed(&r, seed ^ 0x5555);
	orc_diag_reset();
	bad = 0;
	for (i = 0; i < 300; i++) {
		sht_quark q = f->o.qs[rng_below(&r, f->o.nq)];
		sht_time t = rng_range(&r, f->o.start, f->o.end);

		if (i % 50 == 0)
			sht_reader_drop_caches(rd);
		rc = sht_reader_query(rd, q, t, res);
		bad += !orc_check_single(&f->o, &v, q, t, rc, res, 0, NULL,
					 name);
	}
	/* a full query right after a drop must read blocks again (the tree
	 * is deeper than its root) */
	sht_reader_drop_caches(rd);
	sht_reader_counters_get(rd, &c1);
	rc = sht_reader_query_full(rd, (f->o.start + f->o.end) / 2, res);
	bad += !orc_check_full(&f->o, &v, (f->o.start + f->o.end) / 2, rc, res,
			       0, NULL, name);
	sht_reader_counters_get(rd, &c2);
	ok(c2.cache_misses > c1.cache_misses && c2.bytes_read > c1.bytes_read,
	   "%s: a full query after drop_caches reads blocks (misses %" PRIu64
	   " -> %" PRIu64 ")", name, c1.cache_misses, c2.cache_misses);
	for (i = 0; i < 5; i++) {
		sht_time t = rng_range(&r, f->o.start, f->o.end);

		sht_reader_drop_caches(rd);
		rc = sht_reader_query_full(rd, t, res);
		bad += !orc_check_full(&f->o, &v, t, rc, res, 0, NULL, name);
	}
	ok(bad == 0, "%s: queries after sht_reader_drop_caches (%zu wrong)",
	   name, bad);
	sht_reader_close(rd);
	sht_result_destroy(res);
}

/* Stats agree with info and with themselves. */
/*
 * A reader checks a block's checksum on its first read only (a complete
 * history does not change under it): after a whole 2D query on a reader
 * whose cache holds 4 blocks, a node block whose checksum is then broken
 * on disk is read again without complaint by that reader (its bytes are
 * those it verified), but refused by a fresh reader and by the same one
 * after sht_reader_drop_caches; a block whose structure is broken is
 * refused even by the reader that verified it (the structure is checked
 * on every read).
 */
static sht_err whole_2d(sht_reader *rd, const ref *f, sht_result *res,
			const char *what)
{
	orc_vis v = orc_vis_all(&f->o, (uint64_t)f->o.qs[f->o.nq - 1] + 1);
	sht_query2d q;
	sht_err rc;

	memset(&q, 0, sizeof q);
	q.qmax = SHT_QUARK_MAX;
	q.t1 = f->o.start;
	q.t2 = f->o.end;
	rc = sht_reader_query_2d(rd, &q, res);
	if (rc == SHT_OK)
		ok(orc_check_2d(&f->o, &v, &q, rc, res, 0, NULL, what),
		   "%s: %zu intervals as the oracle says", what, sht_result_count(res));
	return rc;
}

/* ---- map budget ------------------------------------------------------------ */

/* The map's windows (64 KiB, or a block if bigger: what the kernel maps
 * on a fault) holding a core node. */
static uint64_t core_windows(const ref *f)
{
	uint64_t win = f->bs > 65536 ? f->bs : 65536, n = 0, last = UINT64_MAX;

	for (uint64_t b = 0; b < f->blocks; b++) {
		uint64_t w = b * f->bs / win;

		if (f->bytes[HDR_REGION + b * f->bs + N_KIND] == 2 && w != last) {
			n++;
			last = w;
		}
	}
	return n;
}

/* Whole-range 2D queries, twice (the second finds the windows kept):
 * the map's resident KiB after them. */
static long rss_after_queries(const ref *f, size_t budget, const char *what,
			      sht_reader **out)
{
	sht_result *res = sht_result_create();
	sht_reader_opts oo;
	sht_reader *rd = NULL;
	long kib = -1;

	sht_reader_opts_init(&oo);
	oo.mapped = true;
	oo.map_budget = budget;
	if (ok(sht_reader_open(f->path, &oo, &rd) == SHT_OK, "%s: open", what) &&
	    whole_2d(rd, f, res, what) == SHT_OK &&
	    whole_2d(rd, f, res, what) == SHT_OK)
		kib = procmaps_rss_kib(f->path);
	sht_result_destroy(res);
	*out = rd;
	return kib;
}

static void test_map_budget(const ref *f)
{
	uint64_t win = f->bs > 65536 ? f->bs : 65536, cores = core_windows(f);
	size_t budget = 3 * win;
	long bound = (long)((3 + cores + 1) * win / 1024), all, kept, again;
	sht_result *res = sht_result_create();
	sht_reader *rd = NULL;

	ref_restore(f);
	all = rss_after_queries(f, 0, "map budget: none", &rd);
	sht_reader_close(rd);
	kept = rss_after_queries(f, budget, "map budget: 3 windows", &rd);
	ok(all > bound && kept >= 0 && kept <= bound,
	   "map budget: %" PRIu64 " blocks of %" PRIu32 " bytes; whole-range "
	   "queries map %ld KiB without a budget, %ld KiB with 3 windows "
	   "(bound: 3 + %" PRIu64 " windows of core nodes + 1 = %ld KiB)",
	   f->blocks, f->bs, all, kept, cores, bound);
	if (rd) {
		sht_reader_counters c0, c1;

		sht_reader_release_pages(rd);
		sht_reader_counters_get(rd, &c0);
		if (whole_2d(rd, f, res, "map budget: after a release") == SHT_OK) {
			again = procmaps_rss_kib(f->path);
			sht_reader_counters_get(rd, &c1);
			ok(again >= 0 && again <= bound &&
			   c1.bytes_read - c0.bytes_read >= (uint64_t)f->bs,
			   "map budget: after sht_reader_release_pages, a query "
			   "maps %ld KiB (bound %ld) and reads %" PRIu64
			   " bytes as copies", again, bound,
			   c1.bytes_read - c0.bytes_read);
		}
	}
	sht_reader_close(rd);
	sht_result_destroy(res);
}

static void test_verified_once(const ref *f)
{
	sht_result *res = sht_result_create();
	sht_reader_opts opts;
	sht_reader *a = NULL, *b = NULL;
	uint64_t blk = UINT64_MAX, off;
	uint8_t byte, kind;
	sht_err rc;

	ref_restore(f);
	for (uint64_t i = 0; i < f->blocks && blk == UINT64_MAX; i++)
		if (f->bytes[HDR_REGION + i * f->bs] == 1)   /* a leaf */
			blk = i;
	sht_reader_opts_init(&opts);
	opts.cache_bytes = 4 * (size_t)f->bs;
	if (!ok(blk != UINT64_MAX && sht_reader_open(f->path, &opts, &a) == SHT_OK,
		"verified once: a leaf (block %" PRIu64 "), a reader with a "
		"4-block cache", blk) ||
	    whole_2d(a, f, res, "verified once: first whole query") != SHT_OK) {
		sht_reader_close(a);
		sht_result_destroy(res);
		return;
	}
	off = HDR_REGION + (blk + 1) * f->bs - 1;      /* the checksum's */
	byte = f->bytes[off] ^ 0x10;
	patch(f->path, off, &byte, 1);
	rc = whole_2d(a, f, res, "verified once: checksum broken after the "
		      "first read, same reader");
	ok(rc == SHT_OK, "verified once: the same reader does not check the "
	   "checksum again (%s)", sht_err_name(rc));
	rc = sht_reader_open(f->path, NULL, &b);
	if (rc == SHT_OK)
		rc = whole_2d(b, f, res, "verified once: fresh reader");
	ok(rc == SHT_ERR_CORRUPT && errmsg_ok(), "verified once: a fresh reader "
	   "refuses the broken checksum: %s \"%s\"", sht_err_name(rc), sht_errmsg());
	sht_reader_close(b);
	sht_reader_drop_caches(a);
	rc = whole_2d(a, f, res, "verified once: after drop_caches");
	ok(rc == SHT_ERR_CORRUPT, "verified once: after sht_reader_drop_caches "
	   "the checksum is checked again: %s", sht_err_name(rc));
	sht_reader_close(a);

	/* Structure: verified first, then the kind byte broken. */
	ref_restore(f);
	a = NULL;
	if (sht_reader_open(f->path, &opts, &a) == SHT_OK &&
	    whole_2d(a, f, res, "verified once: structure, first query") == SHT_OK) {
		kind = 9;
		patch(f->path, HDR_REGION + blk * f->bs, &kind, 1);
		rc = whole_2d(a, f, res, "verified once: structure broken");
		ok(rc == SHT_ERR_CORRUPT, "verified once: a verified block whose "
		   "structure is then broken is still refused: %s", sht_err_name(rc));
	} else {
		ok(0, "verified once: structure: open and first query");
	}
	sht_reader_close(a);
	ref_restore(f);
	sht_result_destroy(res);
}

/*
 * A mapped reader uses blocks in place and still checks each block's
 * checksum on first use: a leaf with one flipped byte (in its records, or
 * in its checksum) is refused with SHT_ERR_CORRUPT by the first query that
 * needs it; a history still being built is never mapped (refused as a
 * reader always refuses it).
 */
static void test_mapped_refusals(const ref *f)
{
	sht_result *res = sht_result_create();
	uint64_t blk = UINT64_MAX, offs[2];
	sht_builder_opts bo;
	sht_builder *b = NULL;
	sht_reader *rd = NULL;
	char path[PATH_MAX];
	sht_err rc;

	for (uint64_t i = 0; i < f->blocks && blk == UINT64_MAX; i++)
		if (f->bytes[HDR_REGION + i * f->bs] == 1)   /* a leaf */
			blk = i;
	offs[0] = HDR_REGION + blk * f->bs + f->bs / 2;  /* in its body */
	offs[1] = HDR_REGION + (blk + 1) * f->bs - 1;   /* its checksum */
	for (int k = 0; k < 2 && blk != UINT64_MAX; k++) {
		uint8_t byte = f->bytes[offs[k]] ^ 0x04;

		ref_restore(f);
		patch(f->path, offs[k], &byte, 1);
		rc = try_open(f->path, &rd);
		if (rc == SHT_OK)
			rc = whole_2d(rd, f, res, "mapped: flipped leaf");
		ok(rc == SHT_ERR_CORRUPT && errmsg_ok() && strstr(sht_errmsg(), "block"),
		   "mapped: a byte flipped in leaf %" PRIu64 " (%s) refused on first "
		   "use: %s \"%s\"", blk, k ? "checksum" : "body", sht_err_name(rc),
		   sht_errmsg());
		sht_reader_close(rd);
		rd = NULL;
	}
	ref_restore(f);

	/* a builder's file, intervals written and not finished */
	scratch_path(path, sizeof path, "building");
	sht_builder_opts_init(&bo);
	bo.block_size = f->bs;
	bo.variant = f->variant;
	bo.no_sync = true;
	rc = sht_builder_create(path, f->o.start, &bo, &b);
	for (size_t i = 0; rc == SHT_OK && i < f->o.n; i++)
		rc = sht_builder_insert(b, &f->o.ivs[i]);
	if (rc == SHT_OK)
		rc = try_open(path, &rd);
	ok(rc == SHT_ERR_INCOMPLETE || rc == SHT_ERR_CORRUPT,
	   "mapped: a history being built is not opened: %s \"%s\"",
	   sht_err_name(rc), sht_errmsg());
	if (rc == SHT_OK)
		sht_reader_close(rd);
	sht_builder_close(b);
	unlink(path);
	sht_result_destroy(res);
}

static void test_stats(const ref *f)
{
	sht_reader *rd = NULL;
	sht_tree_stats s;
	sht_tree_info inf;
	uint64_t nodes = 0, ivs = 0;
	uint32_t l;
	sht_err rc;

	ref_restore(f);
	if (try_open(f->path, &rd) != SHT_OK) {
		ok(0, "stats: open");
		return;
	}
	sht_reader_info_get(rd, &inf);
	memset(&s, 0, sizeof s);
	rc = sht_reader_stats_get(rd, &s);
	for (l = 0; l < s.levels && l < SHT_TREE_STATS_MAX_LEVELS; l++) {
		nodes += s.level[l].nodes;
		ivs += s.level[l].intervals;
	}
	ok(rc == SHT_OK && s.leaf_nodes + s.core_nodes == inf.nodes &&
	   s.levels == inf.depth && nodes == inf.nodes &&
	   ivs == inf.intervals && s.level[0].nodes == s.leaf_nodes &&
	   s.fill_leaf > 0 && s.fill_leaf <= 1 && s.fill_core >= 0 &&
	   s.fill_core <= 1 &&
	   inf.blocks >= inf.nodes + s.blob_blocks,
	   "stats: %" PRIu64 " leaves + %" PRIu64 " core = %" PRIu64
	   " nodes, %u levels, %" PRIu64 " intervals by level, fill %.2f/%.2f",
	   s.leaf_nodes, s.core_nodes, inf.nodes, (unsigned)s.levels, ivs,
	   s.fill_leaf, s.fill_core);
	sht_reader_close(rd);
}

int main(void)
{
	uint64_t seed = rng_test_seed(4242);
	double t0 = now_s();
	struct rng r;
	ref f;

	if (scratch_init("files") != 0)
		bail_out("Cannot create a scratch directory");
	rng_seed(&r, seed);

	/* a small eSHT file with blobs: every check on it */
	if (ref_build(&f, SHT_VARIANT_ESHT, 4096, 10, 40, 150, seed) == 0) {
		test_refusals(&f);
		test_header_bits(&f, &r);
		test_block_flips(&f, &r, 300);
		test_structure(&f, &r);
		test_stats(&f);
		test_verified_once(&f);
		test_threads(&f, seed + 100, 3000);
		/* again with the file mapped */
		g_mapped = true;
		test_refusals(&f);
		test_block_flips(&f, &r, 300);
		test_mapped_refusals(&f);
		test_threads(&f, seed + 100, 3000);
		g_budget = 2 * 65536;
		test_threads(&f, seed + 100, 3000);
		g_budget = 0;
		g_mapped = false;
	}
	ref_free(&f);
	printf("# eSHT file done at %.1f s\n", now_s() - t0);

	/* a classic SHT file with small blocks: deeper, more blocks */
	if (ref_build(&f, SHT_VARIANT_SHT, 1024, 3, 45, 300, seed + 1) == 0) {
		test_block_flips(&f, &r, 300);
		test_structure(&f, &r);
		test_stats(&f);
		test_verified_once(&f);
		test_threads(&f, seed + 200, 3000);
		g_mapped = true;
		test_block_flips(&f, &r, 300);
		test_mapped_refusals(&f);
		test_threads(&f, seed + 200, 3000);
		g_mapped = false;
	}
	ref_free(&f);

	/* 64 KiB blocks (the server's), many nodes, no blobs: the map budget */
	g_big_strings = 0;
	if (ref_build(&f, SHT_VARIANT_SHT, 65536, 8, 60, 600, seed + 2) == 0)
		test_map_budget(&f);
	ref_free(&f);
	printf("# total %.1f s\n", now_s() - t0);
	scratch_done();
	return done_testing();
}
