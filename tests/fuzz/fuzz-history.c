/*
 * fuzz-history.c: opening and querying a history file as a fuzz target.
 *
 * Input: one mode byte, then the bytes of a history file.  Mode bit 0
 * set: before the file is opened, every checksum is recomputed over the
 * mutated bytes (header, node blocks, blobs and sections, and the
 * sections' own CRCs in the header), so mutations reach the decoders
 * behind the checksums instead of stopping at them; clear: the bytes as
 * they are (the checksums themselves are under test).  Mode bit 1 set:
 * the reader maps the file (sht_reader_opts.mapped) instead of reading
 * its blocks with pread.
 *
 * Each input is written to an in-memory file (memfd) and opened with
 * sht_reader_open: info, stats, the integrity check of `sht check`
 * (sht_reader_check), single, full and 2D queries at a few times; then
 * with sht_state_open: provider, model and build notes, attribute names,
 * docs and labels, and a full query.
 * Besides the sanitizers, one property is asserted: a file that the
 * check calls sound answers every query without SHT_ERR_CORRUPT.
 *
 *   build/fuzz/fuzz-history -max_len=262144 CORPUS_DIR
 *
 * Without libFuzzer: the smoke driver of fuzz-main.h (CTest runs it over
 * tests/data/fuzz/history).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sht/sht.h"
#include "util/util.h"

#define FUZZ_NAME "fuzz-history"
#include "fuzz-memfd.h"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute every checksum of the file f[0..n) in place (FORMAT.md). */
static void fix_crcs(uint8_t *f, size_t n)
{
	uint32_t bs;
	uint64_t nb;

	if (n < 4096)
		return;
	bs = (uint32_t)get64(f + 24) & 0xffffffffu;
	if (bs < 1024 || bs > (16u << 20) || (bs & (bs - 1)))
		goto header;
	nb = (n - 4096) / bs;
	for (uint64_t b = 0; b < nb;) {
		uint8_t *blk = f + 4096 + b * bs;
		uint64_t span = 1;

		if (blk[0] == 3 || blk[0] == 4) {
			span = (uint32_t)get64(blk + 4) & 0xffffffffu;
			if (span == 0 || span > nb - b)
				span = 1;
		}
		put32(blk + span * bs - 4, sht__crc32c(0, blk, span * bs - 4));
		b += span;
	}
	for (int s = 0; s < 8; s++) {
		uint8_t *e = f + 96 + 32 * s;
		uint64_t first = get64(e + 8), len = get64(e + 16);

		if (first < nb && len <= (nb - first) * (uint64_t)bs - 28) {
			uint8_t *sec = f + 4096 + first * bs;

			put32(e + 24, sht__crc32c(0, sec + 24, len));
		}
	}
header:;
	uint32_t hl = (uint32_t)get64(f + 12) & 0xffffffffu;
	if (hl < 8 || hl > 4096)
		hl = 384;
	put32(f + hl - 4, sht__crc32c(0, f, hl - 4));
}

static void must_not_be_corrupt(sht_err err, const char *what)
{
	if (err == SHT_ERR_CORRUPT) {
		fprintf(stderr, FUZZ_NAME ": %s: SHT_ERR_CORRUPT on a file the check "
			"called sound: %s\n", what, sht_errmsg());
		abort();
	}
}

static void query_reader(sht_reader *r)
{
	sht_tree_info info;
	sht_tree_stats *stats = malloc(sizeof *stats);
	sht_result *res = sht_result_create();
	sht_err sound;

	sht_reader_info_get(r, &info);
	if (stats)
		sht_reader_stats_get(r, stats);
	free(stats);
	sound = sht_reader_check(r, NULL, NULL, 8);
	if (!res)
		return;
	/* The header's times are the input's: wrap, never overflow. */
	uint64_t us = (uint64_t)info.start, ue = (uint64_t)info.end;
	sht_time span16 = (sht_time)((ue - us) / 16);
	sht_time t[5] = { info.start, (sht_time)(us + (ue - us) / 2),
			  info.end, (sht_time)(us - 1), (sht_time)(ue + 1) };
	uint64_t nq = info.quark_count < 8 ? info.quark_count : 8;
	for (int k = 0; k < 5; k++) {
		sht_err err = sht_reader_query_full(r, t[k], res);

		if (sound == SHT_OK && k < 3)
			must_not_be_corrupt(err, "query_full");
		for (uint64_t q = 0; q < nq; q++) {
			err = sht_reader_query(r, (sht_quark)q, t[k], res);
			if (sound == SHT_OK && k < 3)
				must_not_be_corrupt(err, "query");
		}
	}
	sht_query2d q2 = { NULL, 0, 0, (sht_quark)(info.quark_count ? info.quark_count - 1 : 0),
			   info.start, info.end, span16, SHT_ORDER_TIME };
	sht_err err = sht_reader_query_2d(r, &q2, res);
	if (sound == SHT_OK)
		must_not_be_corrupt(err, "query_2d");
	/* A set of quarks at every nanosecond of the history: the query
	 * jumps from sample to sample (however many there are). */
	sht_quark set[4] = { 0, 1, (sht_quark)(info.quark_count / 2),
			     (sht_quark)(info.quark_count ? info.quark_count - 1 : 0) };
	sht_query2d q3 = { set, 4, 0, 0, info.start, info.end, 1, SHT_ORDER_QUARK };
	err = sht_reader_query_2d(r, &q3, res);
	if (sound == SHT_OK)
		must_not_be_corrupt(err, "query_2d (set, resolution 1)");
	sht_result_destroy(res);
}

/* The about section (model and build notes): every string read. */
static void query_model(sht_state *ss)
{
	const sht_model *m;
	const sht_build_note *notes;
	size_t n, total = 0;

	if (sht_state_model(ss, &m) != SHT_OK ||
	    sht_state_notes(ss, &notes, &n) != SHT_OK)
		return;
	for (size_t i = 0; i < n; i++)
		total += strlen(notes[i].key) + strlen(notes[i].value);
	for (size_t i = 0; i < m->n_attrs; i++)
		total += strlen(m->attrs[i].pattern) + strlen(m->attrs[i].text);
	for (size_t i = 0; i < m->n_labels; i++)
		total += strlen(m->labels[i].pattern) + strlen(m->labels[i].label);
	if (total == SIZE_MAX)
		abort();   /* keeps the reads */
}

static void query_state(const char *path)
{
	sht_state *ss = NULL;
	sht_result *res;
	const char *id;
	uint32_t version;
	char name[256];

	if (sht_state_open(path, NULL, &ss) != SHT_OK)
		return;
	sht_state_provider(ss, &id, &version);
	query_model(ss);
	uint64_t n = sht_state_attr_count(ss);
	for (uint64_t q = 0; q < n && q < 16; q++) {
		sht_value v = sht_value_int32((int32_t)q % 10);
		const sht_attr_doc *doc;
		const sht_value_label *l;
		size_t nl;

		sht_state_attr_path(ss, (sht_quark)q, name, sizeof name, NULL);
		sht_state_attr_doc(ss, (sht_quark)q, &doc);
		sht_state_attr_labels(ss, (sht_quark)q, &l, &nl);
		sht_state_value_label(ss, (sht_quark)q, &v);
	}
	res = sht_result_create();
	if (res) {
		sht_time s = sht_state_start(ss), e = sht_state_end(ss);
		uint64_t us = (uint64_t)s, ue = (uint64_t)e;   /* wrap */

		sht_state_query_full(ss, (sht_time)(us + (ue - us) / 2), res);
		sht_result_destroy(res);
	}
	sht_state_close(ss);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	sht_reader *r = NULL;
	sht_reader_opts oo = { .cache_bytes = 1u << 20 };
	int fd;

	fd = fuzz_memfd(data, size, (64u << 20), fix_crcs, path, sizeof path);
	if (fd < 0)
		return 0;
	oo.mapped = (data[0] & 2) != 0;
	if (sht_reader_open(path, &oo, &r) == SHT_OK) {
		query_reader(r);
		sht_reader_close(r);
		query_state(path);
	}
	close(fd);
	return 0;
}

#include "fuzz-main.h"
