/*
 * fuzz-ctf.c: CTF input through the trace source (src/trace/ctf*.c, which
 * reads it with libbabeltrace2) as a fuzz target.
 *
 * Input: one byte choosing the metadata, then the bytes of one stream
 * file.  The metadata files are fixed, not fuzzed: the colon-separated
 * list in the environment variable SHT_FUZZ_CTF_META (scripts/fuzz.sh
 * gives the generated kernel trace's and the real traces' under
 * ../shared/traces), else the generated trace's checked in under
 * tests/data/fuzz/ctf-meta.  Byte 0 modulo their number picks one.  Both
 * files are written into a temporary trace directory (metadata,
 * channel0_0) and the directory is opened with sht_ctf_open; then every
 * event with a few fields, seeks, a second read that must give as many
 * events as the first, and the kernel analysis over it (fuzz-source.h).
 *
 *   SHT_FUZZ_CTF_META=a/metadata:b/metadata \
 *       build/fuzz/fuzz-ctf -max_len=262144 CORPUS_DIR
 *
 * Without libFuzzer: the smoke driver of fuzz-main.h (CTest runs it over
 * tests/data/fuzz/ctf).  Crashes inside libbabeltrace2 itself are noted
 * in docs/RELIABILITY.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"

#include "fuzz-source.h"

#define FUZZ_NAME "fuzz-ctf"
#ifndef SHT_FUZZ_CTF_META_DEFAULT
#define SHT_FUZZ_CTF_META_DEFAULT "tests/data/fuzz/ctf-meta/kgen.metadata"
#endif
#define MAX_META 16

static char *meta_path[MAX_META];
static int n_meta = -1;
static int meta_written = -1;     /* index of the metadata in dir */
static char dir[64];
static char stream_path[96], meta_file[96];

static void fuzz_ctf_init(void)
{
	const char *env = getenv("SHT_FUZZ_CTF_META");
	char *list = strdup(env && *env ? env : SHT_FUZZ_CTF_META_DEFAULT);
	char *save = NULL;

	n_meta = 0;
	for (char *p = strtok_r(list, ":", &save); p && n_meta < MAX_META;
	     p = strtok_r(NULL, ":", &save))
		meta_path[n_meta++] = strdup(p);
	free(list);
	snprintf(dir, sizeof dir, "/tmp/sht-fuzz-ctf-XXXXXX");
	if (!n_meta || !mkdtemp(dir)) {
		fprintf(stderr, FUZZ_NAME ": no metadata or no temporary directory\n");
		abort();
	}
	snprintf(stream_path, sizeof stream_path, "%s/channel0_0", dir);
	snprintf(meta_file, sizeof meta_file, "%s/metadata", dir);
}

static void cleanup(void)
{
	remove(stream_path);
	remove(meta_file);
	rmdir(dir);
}

static void write_file(const char *path, const uint8_t *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		perror(FUZZ_NAME ": write");
		abort();
	}
}

static void copy_meta(int k)
{
	FILE *in = fopen(meta_path[k], "rb");
	uint8_t *buf = malloc(1 << 20);
	size_t n;

	if (!in || !buf) {
		fprintf(stderr, FUZZ_NAME ": cannot read %s\n", meta_path[k]);
		abort();
	}
	n = fread(buf, 1, 1 << 20, in);
	fclose(in);
	write_file(meta_file, buf, n);
	free(buf);
	meta_written = k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sht_source src;
	sht_ctf_info info;
	sht_time b, e;
	sht_field v;
	const char *name;

	if (n_meta < 0) {
		fuzz_ctf_init();
		atexit(cleanup);
	}
	if (size < 1 || size > (4u << 20))
		return 0;
	if (meta_written != data[0] % n_meta)
		copy_meta(data[0] % n_meta);
	write_file(stream_path, data + 1, size - 1);
	if (sht_ctf_open(dir, NULL, &src) != SHT_OK)
		return 0;
	sht_ctf_info_get(&src, &info);
	sht_ctf_time_span(&src, &b, &e);
	for (uint64_t i = 0; sht_ctf_env_entry(&src, i, &name, &v) == SHT_OK; i++)
		;
	fuzz_source(&src);
	sht_ctf_close(&src);
	return 0;
}

#define FUZZ_ITER_CAP 400
#include "fuzz-main.h"
