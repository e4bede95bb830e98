/*
 * test-codec.c: the node codec and header codec alone (no I/O): round
 * trips of random nodes through encode/parse/decode, and detection of
 * torn bytes (checksums) and of structurally wrong blocks that still
 * carry a valid checksum.
 */
#include <stdlib.h>

#include "store/builder-int.h"
#include "tap.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void reseal(uint8_t *blk, uint32_t bs)
{
	sht__put_u32(blk + bs - 4, sht__crc32c(0, blk, bs - 4));
}

/* Large buffers take the three-chain path; small pieces do not. */
static void test_crc_large(void)
{
	size_t sizes[] = { 3072, 4096, 65536, 70001, 1u << 20 };
	uint8_t *big = malloc(1u << 20);
	int bad = 0;

	for (size_t i = 0; i < (1u << 20); i++)
		big[i] = (uint8_t)rnd();
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		uint32_t piecewise = 0;
		for (size_t off = 0; off < sizes[k]; off += 1000)
			piecewise = sht__crc32c(piecewise, big + off,
						sizes[k] - off < 1000 ? sizes[k] - off : 1000);
		bad += piecewise != sht__crc32c(0, big, sizes[k]);
	}
	free(big);
	is_int(bad, 0, "CRC-32C of large buffers equals the piecewise CRC");
}

static void test_crc(void)
{
	uint8_t buf[1000];

	is_u64(sht__crc32c(0, "123456789", 9), 0xE3069283u, "CRC-32C check value");
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)rnd();
	is_u64(sht__crc32c(sht__crc32c(0, buf, 333), buf + 333, 667),
	       sht__crc32c(0, buf, 1000), "CRC-32C continues across calls");
	test_crc_large();
}

static void test_getbits(void)
{
	uint8_t buf[64];
	int bad = 0;

	for (int w = 0; w <= 64; w++) {
		for (unsigned off = 0; off < 64; off++) {
			uint64_t v = w == 64 ? rnd() : w ? rnd() & ((1ull << w) - 1) : 0;
			memset(buf, 0xA5, sizeof buf);
			/* write v at bit off, bit by bit */
			for (int k = 0; k < w; k++) {
				unsigned bit = off + (unsigned)k;
				if ((v >> k) & 1)
					buf[bit / 8] |= (uint8_t)(1u << (bit % 8));
				else
					buf[bit / 8] &= (uint8_t)~(1u << (bit % 8));
			}
			bad += sht__getbits(buf, off, (unsigned)w) != v;
		}
	}
	is_int(bad, 0, "getbits reads every width at every bit offset");
}

/* A random open node: nq quarks, values of the types in mask. */
static void fill_node(struct sht__open *o, uint32_t n, uint32_t qspan,
		      unsigned mask, sht_time base)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sht__oiv r;
		unsigned tag;
		do
			tag = (unsigned)(rnd() % 5);
		while (!(mask & (1u << tag)));
		r.quark = (uint32_t)(1000 + rnd() % qspan);
		/* distinct (quark, start): start grows with i */
		r.start = base + (sht_time)(i * 7 + rnd() % 5);
		r.end = r.start + (sht_time)(rnd() % 100000);
		r.tag = (uint8_t)tag;
		r.payload = tag == SHT__TAG_INT32 ? (uint64_t)(int64_t)(int32_t)rnd()
			  : tag == SHT__TAG_INT64 ? rnd()
			  : tag == SHT__TAG_DOUBLE ? rnd() : 0;
		if (tag == SHT__TAG_STRING) {
			uint8_t ent[8] = { 6, 'a', 'b', 'c' };  /* "abc" inline */
			ent[3] = (uint8_t)('a' + rnd() % 26);
			r.payload = o->heap_len;
			memcpy(o->heap + o->heap_len, ent, 4);
			o->heap_len += 4;
		}
		o->iv[i] = r;
		sht__trk_add(&o->trk, &r);
	}
}

static int cmp_oiv(const void *a, const void *b)
{
	const struct sht__oiv *x = a, *y = b;
	if (x->quark != y->quark)
		return x->quark < y->quark ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int same_rec(const struct sht__node *n, const struct sht__oiv *want,
		    const struct sht__rec *got)
{
	uint64_t p = got->payload, w = want->payload;

	if (want->tag == SHT__TAG_INT32 || want->tag == SHT__TAG_INT64)
		p += n->vbase;
	if (want->tag == SHT__TAG_NULL)
		p = w = 0;
	return got->quark == want->quark && got->start == want->start &&
	       got->end == want->end && got->tag == want->tag && p == w;
}

static void round_trip(uint32_t n, uint32_t qspan, unsigned mask, sht_time base,
		       const char *what)
{
	struct sht__geom g = { 65536, 50, SHT_VARIANT_ESHT };
	struct sht__open *o = sht__open_new(g.max_children);
	uint8_t *blk = malloc(g.block_size);
	struct sht__oiv *want = malloc(n * sizeof *want);
	struct sht__node nd;
	int bad = 0;

	o->iv = malloc(n * sizeof *o->iv);
	o->heap = malloc(4 * n + 8);
	o->cap = n;
	o->heap_cap = 4 * n + 8;
	sht__open_reset(o, SHT__KIND_LEAF, 0, 7, base);
	fill_node(o, n, qspan, mask, base);
	memcpy(want, o->iv, n * sizeof *want);
	qsort(want, n, sizeof *want, cmp_oiv);
	sht__open_encode(o, 3, base + 10000000, &g, blk);
	if (!ok(sht__node_parse(blk, 3, 10, &g, &nd) == SHT_OK, "%s: parses", what))
		diag("%s", sht_errmsg());
	is_int(nd.n, n, "%s: count", what);
	for (uint32_t i = 0; i < nd.n && i < n; i++) {
		struct sht__rec r;
		sht__rec_decode(&nd, i, &r);
		bad += !same_rec(&nd, &want[i], &r);
	}
	is_int(bad, 0, "%s: every record decodes to what was encoded", what);
	for (uint32_t i = 0; i < n; i += 97) {
		uint32_t lb = sht__rec_lower_bound(&nd, want[i].quark);
		bad += lb > i || sht__rec_quark(&nd, lb) != want[i].quark;
	}
	is_int(bad, 0, "%s: lower bound finds each quark", what);
	free(want);
	free(blk);
	sht__open_free(o);
}

static void test_round_trips(void)
{
	round_trip(1, 1, 1u << SHT__TAG_INT32, 0, "one record");
	round_trip(3000, 50, 1u << SHT__TAG_INT32, 1000, "int32 only");
	round_trip(3000, 100000, 0x1f, -5000000, "all types, negative times");
	round_trip(2000, 4000000, (1u << SHT__TAG_INT64) | 1, INT64_MAX / 2, "int64 and null, huge times");
	round_trip(2000, 2, 1u << SHT__TAG_DOUBLE, 42, "doubles, two quarks");
}

/* A small valid node (used for the corruption tests). */
static void small_node(uint8_t *blk, const struct sht__geom *g)
{
	struct sht__open *o = sht__open_new(g->max_children);

	o->iv = malloc(100 * sizeof *o->iv);
	o->heap = malloc(4 * 100 + 8);
	o->cap = 100;
	o->heap_cap = 408;
	sht__open_reset(o, SHT__KIND_LEAF, 0, 1, 0);
	fill_node(o, 100, 20, 0x1f, 0);
	sht__open_encode(o, 5, 10000000, g, blk);
	sht__open_free(o);
}

static void test_torn(void)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096], copy[4096];
	struct sht__node nd;
	int missed = 0;

	small_node(blk, &g);
	ok(sht__node_parse(blk, 5, 10, &g, &nd) == SHT_OK, "small node parses");
	ok(sht__node_parse(blk, 6, 10, &g, &nd) == SHT_ERR_CORRUPT, "a node read at the wrong block is refused");
	for (int trial = 0; trial < 2000; trial++) {
		size_t bit = rnd() % (sizeof blk * 8);
		memcpy(copy, blk, sizeof blk);
		copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		missed += sht__node_parse(copy, 5, 10, &g, &nd) != SHT_ERR_CORRUPT;
	}
	is_int(missed, 0, "every single-bit flip is detected (2000 trials)");
}

/* Change one field, re-seal the checksum: structure checks must catch it. */
static void forged(const char *what, size_t off, unsigned size, uint64_t val)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096];
	struct sht__node nd;

	small_node(blk, &g);
	if (size == 1)
		blk[off] = (uint8_t)val;
	else if (size == 4)
		sht__put_u32(blk + off, (uint32_t)val);
	else
		sht__put_u64(blk + off, val);
	reseal(blk, g.block_size);
	ok(sht__node_parse(blk, 5, 10, &g, &nd) == SHT_ERR_CORRUPT,
	   "forged %s with a valid checksum is refused", what);
}

static void test_forged(void)
{
	forged("kind", SHT__N_KIND, 1, 9);
	forged("leaf with a level", SHT__N_LEVEL, 1, 2);
	forged("record count", SHT__N_COUNT, 4, 100000);
	forged("used bytes", SHT__N_USED, 4, 4000);
	forged("heap size", SHT__N_HEAP, 4, 3000);
	forged("quark width", SHT__N_QBITS, 1, 40);
	forged("value width", SHT__N_VBITS, 1, 65);
	forged("type width", SHT__N_TBITS, 1, 2);
	forged("start after end", SHT__N_START, 8, 20000000);
	forged("children in a leaf", SHT__N_NCHILD, 4, 1);
	forged("unknown flags", SHT__N_FLAGS, 1, 0x80);
}

static void test_header(void)
{
	struct sht__header hd, back;
	uint8_t h[SHT__HEADER_REGION], c[SHT__HEADER_REGION];
	int missed = 0;

	memset(&hd, 0, sizeof hd);
	hd.flags = SHT__FLAG_COMPLETE;
	hd.variant = SHT_VARIANT_ESHT;
	hd.block_size = 65536;
	hd.max_children = 50;
	hd.block_count = 12;
	hd.root = 11;
	hd.depth = 2;
	hd.quark_count = 77;
	hd.start = -5;
	hd.end = 1000;
	hd.intervals = 999;
	hd.nodes = 12;
	sht__header_encode(&hd, h);
	ok(sht__header_parse(h, &back) == SHT_OK, "header round trip parses");
	ok(back.root == 11 && back.start == -5 && back.end == 1000 &&
	   back.intervals == 999 && back.quark_count == 77 && back.depth == 2,
	   "header fields survive");
	for (size_t bit = 0; bit < SHT__HEADER_LEN_V1 * 8; bit++) {
		memcpy(c, h, sizeof h);
		c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		missed += sht__header_parse(c, &back) == SHT_OK;
	}
	is_int(missed, 0, "every bit flip of the header is refused");
	memcpy(c, h, sizeof h);
	sht__put_u32(c + SHT__H_VERSION, SHT_FORMAT_VERSION + 1);
	sht__put_u32(c + SHT__H_CRC, sht__crc32c(0, c, SHT__H_CRC));
	ok(sht__header_parse(c, &back) == SHT_ERR_VERSION, "a newer version is refused as such");
}

int main(void)
{
	test_crc();
	test_getbits();
	test_round_trips();
	test_torn();
	test_forged();
	test_header();
	return done_testing();
}
