/*
 * fuzz-vstf.c: the VSTF reader (src/trace/vstf.c, docs/VSTF.md) as a
 * fuzz target.
 *
 * Input: one mode byte, then the bytes of a VSTF file.  Mode bit 0 set:
 * every checksum (the index blocks', the header's, the tables' and the
 * trailer's) is recomputed over the mutated bytes first, so that
 * mutations reach the decoder behind them; clear: the bytes as they are.
 * The file (an in-memory memfd) is opened with sht_vstf_open; then its
 * environment, every event with a few fields, seeks, a second read that
 * must give as many events as the first, and the kernel analysis over it
 * (fuzz-source.h).
 *
 *   build/fuzz/fuzz-vstf -max_len=65536 CORPUS_DIR
 *
 * Without libFuzzer: the smoke driver of fuzz-main.h (CTest runs it over
 * tests/data/fuzz/vstf).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sht/sht.h"
#include "util/util.h"

#include "fuzz-source.h"

#define FUZZ_NAME "fuzz-vstf"
#include "fuzz-memfd.h"

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A varint at *at (< end) into *v; 0 if it runs off the end. */
static int varint(const uint8_t *f, size_t *at, size_t end, uint64_t *v)
{
	*v = 0;
	for (int s = 0; s < 70 && *at < end; s += 7) {
		uint8_t b = f[(*at)++];

		*v |= s < 64 ? (uint64_t)(b & 0x7f) << s : 0;
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/* Skip a table of n strings. */
static int skip_names(const uint8_t *f, size_t *at, size_t end)
{
	uint64_t n, len;

	if (!varint(f, at, end, &n))
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (!varint(f, at, end, &len) || len > end - *at)
			return 0;
		else
			*at += len;
	return 1;
}

/* The index blocks' checksums (their entries are in the tables). */
static void fix_index(uint8_t *f, uint64_t tables, uint64_t end)
{
	size_t at = (size_t)tables;
	uint64_t every, e;

	if (!skip_names(f, &at, end) || !skip_names(f, &at, end) ||
	    !varint(f, &at, end, &every) || !varint(f, &at, end, &e) ||
	    e > (end - at) / 28)
		return;
	for (uint64_t i = 0; i < e; i++) {
		uint8_t *ent = f + at + 28 * i;
		uint64_t from = get_le(ent, 8);
		uint64_t to = i + 1 < e ? get_le(ent + 28, 8) : tables;

		if (from <= to && to <= tables)
			put32(ent + 16, sht__crc32c(0, f + from, to - from));
	}
}

static void fix_crcs(uint8_t *f, size_t n)
{
	uint8_t *tr;
	uint64_t ev_off, tab_off;

	if (n < 40)
		return;
	tr = f + n - 40;
	ev_off = get_le(tr + 8, 8);
	tab_off = get_le(tr + 16, 8);
	if (tab_off <= n - 40) {
		fix_index(f, tab_off, n - 40);
		put32(tr + 28, sht__crc32c(0, f + tab_off, n - 40 - tab_off));
	}
	if (ev_off <= n - 40)
		put32(tr + 24, sht__crc32c(0, f, ev_off));
	put32(tr + 32, sht__crc32c(0, tr, 32));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	sht_source src;
	sht_vstf_info info;
	const char *name;
	sht_field v;
	int fd;

	fd = fuzz_memfd(data, size, (16u << 20), fix_crcs, path, sizeof path);
	if (fd < 0)
		return 0;
	if (sht_vstf_open(path, &src) == SHT_OK) {
		sht_vstf_info_get(&src, &info);
		for (uint64_t i = 0; sht_vstf_env_entry(&src, i, &name, &v) == SHT_OK; i++)
			;
		sht_vstf_env(&src, "tracer_name", &v);
		fuzz_source(&src);
		sht_vstf_close(&src);
	}
	close(fd);
	return 0;
}

#include "fuzz-main.h"
