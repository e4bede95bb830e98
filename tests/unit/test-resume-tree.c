/* sht-test-label: threads
 * test-resume-tree.c: resumable builds of the history tree (tree.h,
 * src/store/resume.c).  A random interval sequence (every value type,
 * short strings repeated and long ones written as blobs, 300 quarks) is
 * built once straight through; the same build takes checkpoints at 25
 * random points, each saved with a copy of the file as it was then (after
 * sht_builder_sync).  Each checkpoint is then resumed from its copy, the
 * rest of the sequence inserted, and the finished file must equal the
 * straight build byte for byte; resuming a second time from a resumed
 * build's checkpoint too.  For both variants (eSHT in 1 KiB and 4 KiB
 * blocks: a deep tree; the classic one in 4 KiB), single-threaded and
 * threaded, the resume's threading the other one's.  Also: a damaged checkpoint, a truncated file and other
 * options are refused.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"

#define NIV 30000
#define NCKPT 25

static sht_interval ivs[NIV];
static char texts[64][300];

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void make_intervals(void)
{
	sht_time end = 1000;

	rng = 0x2545F4914F6CDD1Dull;
	for (int k = 0; k < 64; k++) {
		size_t len = k < 8 ? 200 + (size_t)k : 3 + (size_t)k % 20;
		for (size_t i = 0; i < len; i++)
			texts[k][i] = (char)('a' + (k * 7 + (int)i) % 26);
		texts[k][len] = '\0';
	}
	for (int i = 0; i < NIV; i++) {
		sht_interval *iv = &ivs[i];
		uint64_t x = rnd();

		end += (sht_time)(x % 3);
		iv->quark = (sht_quark)(rnd() % 300);
		iv->end = end;
		iv->start = end - (sht_time)(rnd() % 300);
		if (iv->start < 1000)
			iv->start = 1000;
		switch (x >> 40 & 7) {
		case 0: iv->value = sht_value_null(); break;
		case 1: case 2: iv->value = sht_value_int32((int32_t)(rnd() % 1000)); break;
		case 3: iv->value = sht_value_int64((int64_t)rnd()); break;
		case 4: iv->value = sht_value_double((double)(rnd() % 100000) / 7.0); break;
		default: {
			const char *t = texts[rnd() % 64];
			iv->value = sht_value_string(t, (uint32_t)strlen(t));
			break;
		}
		}
	}
}

static int insert_range(sht_builder *b, int from, int to)
{
	for (int i = from; i < to; i++)
		if (sht_builder_insert(b, &ivs[i]) != SHT_OK)
			return 0;
	return 1;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	*n = 0;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
	    fread(buf, 1, (size_t)len, f) == (size_t)len)
		*n = (size_t)len;
	fclose(f);
	return buf;
}

static int spit(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int okay = f && fwrite(p, 1, n, f) == n;

	if (f && fclose(f) != 0)
		okay = 0;
	return okay;
}

struct ckpt {
	int at;                   /* intervals inserted */
	void *data;
	size_t len;
	unsigned char *file;      /* the file then */
	size_t file_len;
};

static int finish_close(sht_builder *b)
{
	int okay = sht_builder_finish(b, ivs[NIV - 1].end + 10) == SHT_OK;

	sht_builder_close(b);
	return okay;
}

/* Build straight into path, taking checkpoints at cks[].at. */
static int build(const char *path, const sht_builder_opts *o, struct ckpt *cks, int nck)
{
	sht_builder *b;
	int prev = 0, okay = sht_builder_create(path, 1000, o, &b) == SHT_OK;

	for (int k = 0; okay && k < nck; k++) {
		okay = insert_range(b, prev, cks[k].at) &&
		       sht_builder_checkpoint(b, &cks[k].data, &cks[k].len) == SHT_OK &&
		       sht_builder_sync(b) == SHT_OK;
		cks[k].file = okay ? slurp(path, &cks[k].file_len) : NULL;
		prev = cks[k].at;
	}
	if (!okay)
		return 0;
	return insert_range(b, prev, NIV) && finish_close(b);
}

/* Resume ck in path (its file copied there), finish; if twice, take a
 * checkpoint half way through the rest and resume that once more. */
static int resume(const char *path, const struct ckpt *ck, const sht_builder_opts *o,
		  int twice)
{
	sht_builder *b;
	int mid = ck->at + (NIV - ck->at) / 2;
	void *d2 = NULL;
	size_t l2 = 0;
	int okay;

	if (!spit(path, ck->file, ck->file_len) ||
	    sht_builder_resume(path, ck->data, ck->len, o, &b) != SHT_OK) {
		diag("%s", sht_errmsg());
		return 0;
	}
	if (!twice)
		return insert_range(b, ck->at, NIV) && finish_close(b);
	okay = insert_range(b, ck->at, mid) && sht_builder_checkpoint(b, &d2, &l2) == SHT_OK;
	sht_builder_close(b);     /* as if killed: the file stays as it is */
	okay = okay && sht_builder_resume(path, d2, l2, o, &b) == SHT_OK;
	okay = okay && insert_range(b, mid, NIV) && finish_close(b);
	free(d2);
	return okay;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static void one_case(const char *tmp, sht_variant v, uint32_t bs, int threaded)
{
	char ref[4096], path[4096], name[96];
	struct ckpt cks[NCKPT];
	int at[NCKPT];
	sht_builder_opts o, ro;
	unsigned char *want;
	size_t want_len;

	snprintf(name, sizeof name, "%s, %u B blocks, %s", v == SHT_VARIANT_ESHT ? "eSHT" : "SHT",
		 bs, threaded ? "threaded" : "one thread");
	sht_builder_opts_init(&o);
	o.variant = v;
	o.block_size = bs;
	o.threaded = threaded;
	o.no_sync = true;
	ro = o;
	ro.threaded = !threaded;
	for (int k = 0; k < NCKPT; k++)
		at[k] = k == 0 ? 0 : k == 1 ? NIV : (int)(rnd() % NIV);
	qsort(at, NCKPT, sizeof at[0], cmp_int);
	memset(cks, 0, sizeof cks);
	for (int k = 0; k < NCKPT; k++)
		cks[k].at = at[k];
	snprintf(ref, sizeof ref, "%s/ref.sht", tmp);
	snprintf(path, sizeof path, "%s/resumed.sht", tmp);
	if (!ok(build(ref, &o, cks, NCKPT), "%s: built with %d checkpoints", name, NCKPT))
		goto out;
	want = slurp(ref, &want_len);
	int same = 0, same2 = 0;
	for (int k = 0; k < NCKPT; k++) {
		size_t n;
		unsigned char *got;

		if (resume(path, &cks[k], &ro, 0) && (got = slurp(path, &n))) {
			if (k == 0)
				diag("%s: %zu bytes", name, n);
			same += n == want_len && !memcmp(got, want, n);
			free(got);
		}
		if (resume(path, &cks[k], &o, 1) && (got = slurp(path, &n))) {
			same2 += n == want_len && !memcmp(got, want, n);
			free(got);
		}
	}
	is_int(same, NCKPT, "%s: every resumed build is the straight one, byte "
	       "for byte (%zu bytes)", name, want_len);
	is_int(same2, NCKPT, "%s: and resumed twice", name);
	free(want);
out:
	for (int k = 0; k < NCKPT; k++) {
		free(cks[k].data);
		free(cks[k].file);
	}
}

static void refusals(const char *tmp)
{
	char path[4096];
	sht_builder_opts o, other;
	sht_builder *b;
	void *d = NULL;
	size_t len = 0;

	snprintf(path, sizeof path, "%s/refuse.sht", tmp);
	sht_builder_opts_init(&o);
	o.no_sync = true;
	o.block_size = 4096;
	if (!ok(sht_builder_create(path, 1000, &o, &b) == SHT_OK && insert_range(b, 0, 20000) &&
		sht_builder_checkpoint(b, &d, &len) == SHT_OK, "refusals: a checkpoint"))
		return;
	sht_builder_close(b);
	other = o;
	other.block_size = 8192;
	is_int(sht_builder_resume(path, d, len, &other, &b), SHT_ERR_INVALID,
	       "another block size is refused");
	((unsigned char *)d)[len / 2] ^= 0x40;
	sht_err err = sht_builder_resume(path, d, len, &o, &b);
	ok(err == SHT_ERR_CORRUPT || err == SHT_OK, "a flipped bit: refused or harmless (%d)", err);
	if (err == SHT_OK)
		sht_builder_close(b);
	((unsigned char *)d)[len / 2] ^= 0x40;
	is_int(sht_builder_resume(path, d, len / 2, &o, &b), SHT_ERR_CORRUPT,
	       "a checkpoint cut in half is refused");
	is_int(truncate(path, 4096 + 4096), 0, "file cut to one block");
	is_int(sht_builder_resume(path, d, len, &o, &b), SHT_ERR_CORRUPT,
	       "a file shorter than its checkpoint is refused");
	unlink(path);
	is_int(sht_builder_resume(path, d, len, &o, &b), SHT_ERR_IO, "a missing file is refused");
	free(d);
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");
	char tmpl[] = "/tmp/test-resume-tree-XXXXXX", cmd[4200];

	if (tmp) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", tmp, tmp);
		if (system(cmd) != 0)
			return 1;
	} else if (!(tmp = mkdtemp(tmpl))) {
		return 1;
	}
	make_intervals();
	/* (The classic tree in 1 KiB blocks grows to ~300 MB here.) */
	for (int t = 0; t < 2; t++) {
		one_case(tmp, SHT_VARIANT_SHT, 4096, t);
		one_case(tmp, SHT_VARIANT_ESHT, 1024, t);
		one_case(tmp, SHT_VARIANT_ESHT, 4096, t);
	}
	refusals(tmp);
	return done_testing();
}
