/*
 * test-codec.c: the node codec and header codec alone (no I/O): round
 * trips of nodes built as the builder does (probe, commit) through
 * encode/parse/verify/decode in every layout (flat or runs, end table,
 * value dictionary), the size accounted at insert against the bytes
 * written, lookups against brute force, and detection of torn bytes
 * (checksums) and of structurally wrong blocks that still carry a valid
 * checksum (header fields, then the contents of every area).
 */
#include <stdlib.h>

#include "sht/sht.h"
#include "store/builder-int.h"
#include "rng.h"
#include "tap.h"

static struct rng rng = RNG_INIT(88172645463325252u);

static uint64_t rnd(void)
{
	return rng_next(&rng);
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

/* ---- open nodes --------------------------------------------------------- */

static struct sht__open *new_node(uint8_t kind, sht_time start)
{
	struct sht__open *o = sht__open_new(50);

	if (!o)
		bail_out("Cannot allocate a node");
	sht__open_reset(o, kind, kind == SHT__KIND_LEAF ? 0 : 1, 7, start);
	return o;
}

/* Add r the way the builder does (probe, room, commit); returns the
 * layout the node then has.  The size bound the builder keeps must never
 * be below the size of that layout. */
static int bound_bad;

static struct sht__layout add(struct sht__open *o, struct sht__oiv r)
{
	struct sht__layout lay;

	if (sht__open_add(o, &r, 0, 50, 1u << 30) != 1)
		bail_out("Cannot add a record to a node of 1 GiB");
	sht__trk_layout(&o->trk, o->kind, 50, o->heap_len, &lay);
	/* the bound is what the block may hold less what is left */
	bound_bad += (UINT64_C(1) << 30) - SHT__SLACK - o->left < lay.size;
	return lay;
}

/* Append an inline string entry to o's heap; its offset. */
static uint64_t heap_str(struct sht__open *o, const char *s, uint32_t len)
{
	uint32_t need = o->heap_len + 5 + len, off = o->heap_len;
	uint64_t x = (uint64_t)len << 1;

	if (need > o->heap_cap) {
		o->heap_cap = 2 * need;
		o->heap = realloc(o->heap, o->heap_cap);
		if (!o->heap)
			bail_out("Cannot grow the heap");
	}
	while (x >= 0x80) {
		o->heap[o->heap_len++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	o->heap[o->heap_len++] = (uint8_t)x;
	memcpy(o->heap + o->heap_len, s, len);
	o->heap_len += len;
	return off;
}

/* ---- workloads ---------------------------------------------------------- */

enum { V_FEW, V_DISTINCT, V_HUGE, V_DOUBLE, V_STRING, V_MIXED, V_NULL };

struct spec {
	const char *name;
	uint32_t n;             /* records */
	uint32_t nq;            /* quarks */
	unsigned hot;           /* percent of the records on quark 0 */
	unsigned gap;           /* percent starting after a gap */
	unsigned share;         /* percent ending when the previous one did */
	int values;
	uint8_t want, not;      /* layout flags required, and refused */
	sht_time base;
	uint32_t qstep;         /* quarks 3, 3 + qstep, ... (0: 5) */
	uint32_t tstep;         /* time steps up to this (0: 50) */
};

static uint64_t pick_value(struct sht__open *o, int kind, uint32_t i,
			   uint8_t *tag, uint64_t *strs)
{
	static const int32_t few[] = { 0, 1, 2, 5, -1, 1000, 42, 7 };
	double d;
	uint64_t bits;

	if (kind == V_MIXED)
		kind = (int)(rnd() % 6);
	switch (kind) {
	case V_FEW:
		*tag = rnd() % 10 ? SHT__TAG_INT32 : SHT__TAG_INT64;
		if (*tag == SHT__TAG_INT64)      /* a CPU frequency among small ints */
			return (uint64_t)(int64_t)3300000000 + rnd() % 3;
		return (uint64_t)(int64_t)few[rnd() % 8];
	case V_DISTINCT:
		*tag = SHT__TAG_INT64;
		return (uint64_t)i * 7919u + rnd() % 7919u;
	case V_HUGE:
		*tag = SHT__TAG_INT64;
		return rnd() % 2 ? (uint64_t)INT64_MIN + rnd() % 40 : (uint64_t)INT64_MAX - rnd() % 40;
	case V_DOUBLE:
		*tag = SHT__TAG_DOUBLE;
		d = rnd() % 10 == 0 ? -0.0 : (double)(rnd() % 20) / 3.0;
		memcpy(&bits, &d, sizeof bits);
		return rnd() % 50 == 0 ? UINT64_C(0x7ff8000000000123) : bits;
	case V_STRING:
		*tag = SHT__TAG_STRING;
		return strs[rnd() % 30];
	default:
		*tag = SHT__TAG_NULL;
		return 0;
	}
	(void)o;
}

/* Strings for V_STRING: short ones, an empty one, NULs, one of B/16. */
static void make_strings(struct sht__open *o, uint64_t *strs)
{
	static char big[4096];
	char s[32];

	memset(big, 'x', sizeof big);
	for (int k = 0; k < 30; k++) {
		int len = snprintf(s, sizeof s, "str%d", k * 37);
		if (k == 0)
			strs[k] = heap_str(o, "", 0);
		else if (k == 1)
			strs[k] = heap_str(o, "a\0b", 3);
		else if (k == 2)
			strs[k] = heap_str(o, big, sizeof big);
		else
			strs[k] = heap_str(o, s, (uint32_t)len);
	}
}

/*
 * Intervals of sp->nq quarks that tile time (with gaps if asked), in
 * non-decreasing end order, as a history gives them.  want: the records
 * in (quark, start) order.
 */
static void fill(struct sht__open *o, const struct spec *sp,
		 struct sht__oiv *want, struct sht__layout *last)
{
	sht_time *cs = malloc(sp->nq * sizeof *cs), t = sp->base;
	uint64_t strs[30];

	if (sp->values == V_STRING || sp->values == V_MIXED)
		make_strings(o, strs);
	for (uint32_t q = 0; q < sp->nq; q++)
		cs[q] = sp->base;
	for (uint32_t i = 0; i < sp->n; i++) {
		struct sht__oiv r;
		uint32_t q = rnd() % 100 < sp->hot ? 0 : (uint32_t)(rnd() % sp->nq);

		if (i == 0 || rnd() % 100 >= sp->share)
			t += 1 + (sht_time)(rnd() % (sp->tstep ? sp->tstep : 50));
		if (cs[q] > t)
			t = cs[q];
		memset(&r, 0, sizeof r);
		r.quark = 3 + q * (sp->qstep ? sp->qstep : 5);
		r.start = cs[q];
		r.end = t;
		r.payload = pick_value(o, sp->values, i, &r.tag, strs);
		want[i] = r;
		*last = add(o, r);
		cs[q] = t + 1 + (rnd() % 100 < sp->gap ? 1 + (sht_time)(rnd() % 1000) : 0);
	}
	free(cs);
}

static int cmp_oiv(const void *a, const void *b)
{
	const struct sht__oiv *x = a, *y = b;
	if (x->quark != y->quark)
		return x->quark < y->quark ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int same_rec(const struct sht__oiv *want, const struct sht__rec *got)
{
	return got->quark == want->quark && got->start == want->start &&
	       got->end == want->end && got->tag == want->tag &&
	       got->payload == (want->tag == SHT__TAG_NULL ? 0 : want->payload);
}

/* The record of quark q containing t, as a single query finds it. */
static int lookup(const struct sht__node *nd, uint32_t q, sht_time t,
		  struct sht__rec *out)
{
	struct sht__cur c;
	struct sht__tkey key;
	uint32_t k, qq, a, b, i;
	sht_time s0;
	int rc;

	if (nd->flags & SHT__NFLAG_RUNS) {
		k = sht__run_find(nd, q);
		if (k == nd->nruns)
			return 0;
		sht__run_get(nd, k, &qq, &a, &b, &s0);
		sht__tkey_make(nd, t, &key);
		i = sht__run_seek(nd, a, b, &key);
		if (i == b)
			return 0;
		if (sht__run_rec(nd, qq, a, s0, i, out) != SHT_OK)
			return -1;
		return out->start <= t;
	}
	sht__cur_from(&c, nd, 0, sht__rec_lower_bound(nd, q));
	while ((rc = sht__cur_next(&c, out)) == 1) {
		if (out->quark != q || out->start > t)
			return 0;
		if (t <= out->end)
			return 1;
	}
	return rc;
}

static const struct sht__oiv *brute(const struct sht__oiv *w, uint32_t n,
				    uint32_t q, sht_time t)
{
	for (uint32_t i = 0; i < n; i++)
		if (w[i].quark == q && w[i].start <= t && t <= w[i].end)
			return &w[i];
	return NULL;
}

/* Every record through the cursor, lookups against brute force, and a
 * cursor started inside runs. */
static int read_back(const struct sht__node *nd, const struct sht__oiv *want,
		     uint32_t n)
{
	struct sht__cur c;
	struct sht__rec r;
	uint32_t i = 0;
	int bad = 0, rc;

	sht__cur_all(&c, nd);
	while ((rc = sht__cur_next(&c, &r)) == 1 && i < n)
		bad += !same_rec(&want[i++], &r);
	bad += rc < 0 || i != n;
	for (int k = 0; k < 400; k++) {
		const struct sht__oiv *w = &want[rnd() % n];
		sht_time t = k % 2 ? w->start + (sht_time)(rnd() % 3) - 1 : w->end;
		const struct sht__oiv *b = brute(want, n, w->quark, t);
		int got = lookup(nd, w->quark, t, &r);

		bad += got < 0 || got != (b != NULL) || (b && !same_rec(b, &r));
	}
	for (uint32_t k = 0; (nd->flags & SHT__NFLAG_RUNS) && k < 50; k++) {
		uint32_t run = (uint32_t)(rnd() % nd->nruns), q, a, b, from;
		sht_time s0;

		sht__run_get(nd, run, &q, &a, &b, &s0);
		from = a + (uint32_t)(rnd() % (b - a));
		sht__cur_from(&c, nd, run, from);
		for (i = from; (rc = sht__cur_next(&c, &r)) == 1; i++)
			bad += i >= b || !same_rec(&want[i], &r);
		bad += rc != 0 || i != b;
	}
	return bad;
}

static void round_trip(const struct spec *sp)
{
	struct sht__geom g = { 65536, 50, SHT_VARIANT_ESHT };
	struct sht__open *o = new_node(SHT__KIND_LEAF, sp->base);
	uint8_t *blk = malloc(g.block_size);
	struct sht__oiv *want = malloc(sp->n * sizeof *want);
	struct sht__layout lay;
	struct sht__node nd;
	sht_err err;

	fill(o, sp, want, &lay);
	qsort(want, sp->n, sizeof *want, cmp_oiv);
	err = sht__open_encode(o, 3, want[0].end + 10000000, &g, NULL, blk);
	if (err == SHT_OK)
		err = sht__node_parse(blk, 3, 10, &g, &nd);
	if (err == SHT_OK)
		err = sht__node_verify(&nd, NULL, NULL);
	if (!ok(err == SHT_OK, "%s: encodes, parses and verifies", sp->name))
		diag("%s", sht_errmsg());
	ok(nd.n == sp->n && nd.used == lay.size,
	   "%s: %u records, %u bytes as accounted (%llu)", sp->name, nd.n,
	   nd.used, (unsigned long long)lay.size);
	ok((nd.flags & sp->want) == sp->want && !(nd.flags & sp->not),
	   "%s: layout flags %#x (%u runs, %u exceptions, %u ends, %u values, %.2f B/record)",
	   sp->name, nd.flags, nd.nruns, nd.nexc, nd.nends, nd.nvals,
	   (double)(nd.used - SHT__NODE_HDR - nd.heap_bytes) / nd.n);
	is_int(read_back(&nd, want, sp->n), 0,
	       "%s: every record, lookups and cursors inside runs", sp->name);
	free(want);
	free(blk);
	sht__open_free(o);
}

#define RUNS SHT__NFLAG_RUNS
#define DICT SHT__NFLAG_DICT
#define ETAB SHT__NFLAG_ETAB
#define DUR SHT__NFLAG_DURATION

static void test_round_trips(void)
{
	static const struct spec specs[] = {
		{ "kernel-like", 6000, 400, 10, 0, 70, V_FEW, RUNS | DICT | ETAB, 0, 0, 0, 300 },
		{ "one quark, thousands of records", 5000, 1, 0, 0, 0, V_FEW, RUNS | DICT, 0, -5000000, 0, 0 },
		{ "hot quark among many", 8000, 300, 60, 1, 30, V_MIXED, RUNS | DICT, 0, 1000, 0, 0 },
		{ "every interval after a gap", 4000, 20, 0, 100, 0, V_FEW, DICT, 0, 0, 0, 0 },
		{ "gaps in runs", 4000, 30, 0, 20, 0, V_FEW, RUNS | DICT, 0, 77, 0, 0 },
		{ "every interval after a gap, runs", 4000, 20, 0, 100, 0, V_FEW, RUNS | DICT, 0, 0, 100000000, 0 },
		{ "all values distinct", 4000, 100, 0, 0, 0, V_DISTINCT, RUNS, DICT, 0, 0, 0 },
		{ "huge int64 ranges", 3000, 50, 0, 0, 0, V_HUGE, DICT, 0, 0, 0, 0 },
		{ "doubles", 3000, 50, 0, 5, 0, V_DOUBLE, DICT, 0, INT64_MAX / 2, 0, 0 },
		{ "strings", 3000, 50, 0, 0, 0, V_STRING, DICT, 0, -INT64_MAX / 2, 0, 0 },
		{ "nulls", 3000, 50, 0, 0, 0, V_NULL, 0, DICT, 0, 0, 0 },
		{ "one quark per record", 3000, 100000, 0, 0, 0, V_DISTINCT, 0, RUNS, 0, 0, 0 },
		{ "single record", 1, 1, 0, 0, 0, V_FEW, 0, 0, 5, 0, 0 },
		{ "two records", 2, 2, 0, 0, 0, V_STRING, 0, 0, 5, 0, 0 },
	};

	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
		round_trip(&specs[i]);
	is_int(bound_bad, 0, "the size bound kept at insert is never below the size");
}

/* Random records in no order (overlapping, ends unsorted): the run
 * directory and end table are ruled out, flat records still round-trip. */
static void test_unordered(void)
{
	struct sht__geom g = { 65536, 50, SHT_VARIANT_ESHT };
	struct sht__open *o = new_node(SHT__KIND_LEAF, -5000000);
	struct sht__oiv *want = malloc(3000 * sizeof *want);
	uint8_t *blk = malloc(g.block_size);
	struct sht__layout lay;
	struct sht__node nd;
	struct sht__cur c;
	struct sht__rec r;
	uint64_t strs[30];
	uint32_t i = 0;
	int bad = 0;

	make_strings(o, strs);
	for (i = 0; i < 3000; i++) {
		struct sht__oiv x;

		memset(&x, 0, sizeof x);
		x.quark = (uint32_t)(1000 + rnd() % 50);
		x.start = -5000000 + (sht_time)(i * 7 + rnd() % 5);
		x.end = x.start + (sht_time)(rnd() % 100000);
		x.payload = pick_value(o, V_MIXED, i, &x.tag, strs);
		want[i] = x;
		lay = add(o, x);
	}
	qsort(want, 3000, sizeof *want, cmp_oiv);
	ok(sht__open_encode(o, 3, 20000000, &g, NULL, blk) == SHT_OK &&
	   sht__node_parse(blk, 3, 10, &g, &nd) == SHT_OK &&
	   !(nd.flags & (RUNS | ETAB)) && nd.used == lay.size,
	   "unordered records: flat, %u bytes as accounted", nd.used);
	sht__cur_all(&c, &nd);
	for (i = 0; sht__cur_next(&c, &r) == 1; i++)
		bad += i >= 3000 || !same_rec(&want[i], &r);
	ok(bad == 0 && i == 3000, "unordered records round-trip");
	free(want);
	free(blk);
	sht__open_free(o);
}

/* A core node: the size accounts for max_children entries; the block
 * holds the actual children. */
static void test_core(void)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	struct sht__open *o = new_node(SHT__KIND_CORE, 0);
	uint8_t blk[4096];
	struct sht__layout lay;
	struct sht__node nd;
	struct sht__oiv r;

	memset(&r, 0, sizeof r);
	for (int i = 0; i < 50; i++) {
		r.quark = (uint32_t)(i % 5);
		r.start = i ? r.end + 1 : 0;
		r.end = r.start + 10 + i;
		r.tag = SHT__TAG_INT32;
		r.payload = (uint64_t)(i % 3);
		lay = add(o, r);
	}
	o->ch[0].block = 1;
	o->ch[0].start = 0;
	o->ch[0].end = 5;
	o->ch[0].qmin = 1;
	o->ch[0].qmax = 0;
	o->nc = 1;
	ok(sht__open_encode(o, 5, 100000, &g, NULL, blk) == SHT_OK &&
	   sht__node_parse(blk, 5, 10, &g, &nd) == SHT_OK &&
	   nd.nc == 1 && nd.used == lay.size - 49 * SHT__CHILD_ENTRY,
	   "core node: used %u = accounted %llu less 49 child entries",
	   nd.used, (unsigned long long)lay.size);
	sht__open_free(o);
}

/* ---- damage ------------------------------------------------------------- */

/* A small node with runs, exceptions, the end table and the dictionary
 * (used for the corruption tests). */
static void small_node(uint8_t *blk, const struct sht__geom *g)
{
	static const struct spec sp = { "small", 300, 6, 0, 15, 85, V_FEW, 0, 0, 0, 0, 100000 };
	struct sht__open *o = new_node(SHT__KIND_LEAF, 0);
	struct sht__oiv want[300];
	struct sht__layout lay;
	struct rng saved = rng;

	rng_seed(&rng, 0x5eed5eed5eedull);  /* the same node every time */
	fill(o, &sp, want, &lay);
	rng = saved;
	if (sht__open_encode(o, 5, 10000000, g, NULL, blk) != SHT_OK)
		bail_out("Cannot encode the small node: %s", sht_errmsg());
	sht__open_free(o);
}

static void test_torn(void)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096], copy[4096];
	struct sht__node nd;
	int missed = 0;

	small_node(blk, &g);
	ok(sht__node_parse(blk, 5, 10, &g, &nd) == SHT_OK &&
	   sht__node_verify(&nd, NULL, NULL) == SHT_OK, "small node parses and verifies");
	ok((nd.flags & (RUNS | DICT | ETAB)) == (RUNS | DICT | ETAB) && nd.nexc > 2,
	   "small node has runs (%u), exceptions (%u), end table (%u), dictionary (%u)",
	   nd.nruns, nd.nexc, nd.nends, nd.nvals);
	ok(sht__node_parse(blk, 6, 10, &g, &nd) == SHT_ERR_CORRUPT, "a node read at the wrong block is refused");
	for (int trial = 0; trial < 2000; trial++) {
		size_t bit = rnd() % (sizeof blk * 8);
		memcpy(copy, blk, sizeof blk);
		copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		missed += sht__node_parse(copy, 5, 10, &g, &nd) != SHT_ERR_CORRUPT;
	}
	is_int(missed, 0, "every single-bit flip is detected (2000 trials)");
}

/* Change one header field, re-seal the checksum: parsing must refuse. */
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
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096];
	struct sht__node nd;
	size_t dict;

	small_node(blk, &g);
	if (sht__node_parse(blk, 5, 10, &g, &nd) != SHT_OK)
		bail_out("small node: %s", sht_errmsg());
	dict = SHT__NODE_HDR;                    /* a leaf: the dictionary first */
	forged("kind", SHT__N_KIND, 1, 9);
	forged("leaf with a level", SHT__N_LEVEL, 1, 2);
	forged("record count", SHT__N_COUNT, 4, 100000);
	forged("record count - 1", SHT__N_COUNT, 4, nd.n - 1);
	forged("used bytes", SHT__N_USED, 4, 4000);
	forged("heap size", SHT__N_HEAP, 4, 3000);
	forged("quark width", SHT__N_QBITS, 1, 40);
	forged("value width", SHT__N_VBITS, 1, 65);
	forged("value width with a dictionary", SHT__N_VBITS, 1, 3);
	forged("type width", SHT__N_TBITS, 1, 2);
	forged("start after end", SHT__N_START, 8, 20000000);
	forged("children in a leaf", SHT__N_NCHILD, 4, 1);
	forged("unknown flags", SHT__N_FLAGS, 1, 0x80);
	forged("runs flag cleared", SHT__N_FLAGS, 1, nd.flags & ~RUNS);
	forged("dictionary flag cleared", SHT__N_FLAGS, 1, nd.flags & ~DICT);
	forged("end table flag cleared", SHT__N_FLAGS, 1, nd.flags & ~ETAB);
	forged("durations with runs", SHT__N_FLAGS, 1, nd.flags | DUR);
	forged("no runs", SHT__N_NRUNS, 4, 0);
	forged("more runs than records", SHT__N_NRUNS, 4, nd.n + 1);
	forged("one run more", SHT__N_NRUNS, 4, nd.nruns + 1);
	forged("more exceptions than records after runs", SHT__N_NEXC, 4, nd.n - nd.nruns + 1);
	forged("one exception more", SHT__N_NEXC, 4, nd.nexc + 1);
	forged("no ends", SHT__N_NENDS, 4, 0);
	forged("more ends than records", SHT__N_NENDS, 4, nd.n + 1);
	forged("no values", SHT__N_NVALUES, 4, 0);
	forged("one value more", SHT__N_NVALUES, 4, nd.nvals + 1);
	forged("record index width", SHT__N_IBITS, 1, nd.ibits + 1);
	forged("end index width", SHT__N_XBITS, 1, nd.xbits + 1);
	forged("value index width", SHT__N_DBITS, 1, nd.dbits + 1);
	forged("end-table offsets wider than ends", SHT__N_OBITS, 1, nd.ebits + 1);
	forged("end-table offset width + 1", SHT__N_OBITS, 1, nd.obits + 1);
	forged("dictionary: null count 2", dict + 16 * SHT__TAG_NULL, 4, 2);
	forged("dictionary: int32 count + 1", dict + 16 * SHT__TAG_INT32, 4,
	       nd.dfirst[2] - nd.dfirst[1] + 1);
	forged("dictionary: int32 width 33", dict + 16 * SHT__TAG_INT32 + 4, 1, 33);
	forged("dictionary: reserved byte", dict + 16 * SHT__TAG_INT64 + 6, 1, 1);
	forged("dictionary: base of an absent type", dict + 16 * SHT__TAG_DOUBLE + 8, 8, 1);
}

/* Write v (w bits) at bit pos. */
static void putbits(uint8_t *p, uint64_t pos, unsigned w, uint64_t v)
{
	for (unsigned k = 0; k < w; k++, pos++) {
		if ((v >> k) & 1)
			p[pos / 8] |= (uint8_t)(1u << (pos % 8));
		else
			p[pos / 8] &= (uint8_t)~(1u << (pos % 8));
	}
}

/* Change bits inside an area, re-seal: the block must be refused by
 * parsing or by verification, and reading it must not go astray. */
static int content(const char *what, size_t area, uint64_t pos,
		   unsigned w, uint64_t v)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096];
	struct sht__node nd;
	struct sht__cur c;
	struct sht__rec r;
	sht_err err;

	small_node(blk, &g);
	if (sht__node_parse(blk, 5, 10, &g, &nd) != SHT_OK)
		bail_out("small node: %s", sht_errmsg());
	putbits(blk + area, pos, w, v);
	reseal(blk, g.block_size);
	err = sht__node_parse(blk, 5, 10, &g, &nd);
	if (err == SHT_OK) {
		for (uint32_t q = 0; q < 40; q++)      /* no crash, any answer */
			(void)lookup(&nd, q, (sht_time)(rnd() % 20000), &r);
		sht__cur_all(&c, &nd);
		while (sht__cur_next(&c, &r) == 1)
			;
		err = sht__node_verify(&nd, NULL, NULL);
	}
	return ok(err == SHT_ERR_CORRUPT, "forged %s with a valid checksum: %s",
		  what, err == SHT_OK ? "accepted" : sht_errmsg());
}

#define AREA(f) ((size_t)(nd.f - nd.blk))

static void test_forged_content(void)
{
	struct sht__geom g = { 4096, 10, SHT_VARIANT_ESHT };
	uint8_t blk[4096];
	struct sht__node nd;
	uint32_t q, a, b, x0;
	sht_time s0;

	small_node(blk, &g);
	if (sht__node_parse(blk, 5, 10, &g, &nd) != SHT_OK || nd.nexc < 1)
		bail_out("small node: %s", sht_errmsg());
	sht__run_get(&nd, 1, &q, &a, &b, &s0);
	x0 = (uint32_t)sht__getbits(nd.exc, 0, nd.ibits);
	content("run 1 quark = run 0 quark", AREA(dir), nd.dirw, nd.qbits, 0);
	content("run 0 not at record 0", AREA(dir), nd.qbits, nd.ibits, 1);
	content("run 1 at run 0's record", AREA(dir), nd.dirw + nd.qbits, nd.ibits, 0);
	content("run 1 beyond the records", AREA(dir), nd.dirw + nd.qbits, nd.ibits,
		(1u << nd.ibits) - 1);
	content("last run beyond the records", AREA(dir), (uint64_t)(nd.nruns - 1) * nd.dirw + nd.qbits,
		nd.ibits, (1u << nd.ibits) - 1);
	content("exception on a run's first record", AREA(exc), 0, nd.ibits, a);
	content("exception beyond the records", AREA(exc), 0, nd.ibits, (1u << nd.ibits) - 1);
	if (nd.nexc > 1)
		content("exceptions out of order", AREA(exc), nd.excw, nd.ibits, x0);
	content("exception overlapping", AREA(exc), nd.ibits, nd.sbits, 0);
	content("end table out of order", AREA(etab), nd.ebits, nd.ebits,
		sht__getbits(nd.etab, 0, nd.ebits));
	if ((UINT64_C(1) << nd.xbits) > nd.nends)
		content("end index outside the table", AREA(records), nd.eoff, nd.xbits,
			(UINT64_C(1) << nd.xbits) - 1);
	content("end table: a block's first offset not 0", AREA(eoffs), 0, nd.obits, 1);
	content("end table: offsets out of order", AREA(eoffs), 2 * (uint64_t)nd.obits,
		nd.obits, sht__getbits(nd.eoffs, nd.obits, nd.obits));
	content("end index: an unused entry", AREA(records), nd.eoff, nd.xbits,
		sht__getbits(nd.records, nd.eoff, nd.xbits) == 0 ? 1 : 0);
	if ((UINT64_C(1) << nd.dbits) > nd.nvals)
		content("value index outside the dictionary", AREA(records), nd.voff, nd.dbits,
			(UINT64_C(1) << nd.dbits) - 1);
	if ((nd.n * (uint64_t)nd.w) & 7)
		content("a padding bit after the last record", AREA(records),
			(uint64_t)nd.n * nd.w, 1, 1);
	if ((nd.nruns * (uint64_t)nd.dirw) & 7)
		content("a padding bit after the last run", AREA(dir),
			(uint64_t)nd.nruns * nd.dirw, 1, 1);
	content("dictionary values out of order", AREA(dict),
		nd.doff[SHT__TAG_INT32] + nd.dw[SHT__TAG_INT32], nd.dw[SHT__TAG_INT32], 0);
	content("int32 value out of range", AREA(dict) - SHT__DICT_HDR,
		8 * (16 * SHT__TAG_INT32 + 8), 64, (uint64_t)INT64_MAX - 3);
	{
		/* every record on value 0: the other entries are unused */
		int refused = 1;
		small_node(blk, &g);
		if (sht__node_parse(blk, 5, 10, &g, &nd) != SHT_OK)
			bail_out("small node");
		for (uint32_t i = 0; i < nd.n; i++)
			putbits(blk + (nd.records - nd.blk), (uint64_t)i * nd.w + nd.voff, nd.dbits, 0);
		reseal(blk, g.block_size);
		if (sht__node_parse(blk, 5, 10, &g, &nd) == SHT_OK)
			refused = sht__node_verify(&nd, NULL, NULL) == SHT_ERR_CORRUPT;
		ok(refused, "forged records all on one dictionary value: unused values refused");
	}
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
	memcpy(c, h, sizeof h);
	sht__put_u32(c + SHT__H_VERSION, 1);
	sht__put_u32(c + SHT__H_CRC, sht__crc32c(0, c, SHT__H_CRC));
	ok(sht__header_parse(c, &back) == SHT_ERR_VERSION && strstr(sht_errmsg(), "rebuild"),
	   "format version 1 is refused as such, saying to rebuild: \"%s\"", sht_errmsg());
}

int main(void)
{
	test_crc();
	test_getbits();
	test_round_trips();
	test_unordered();
	test_core();
	test_torn();
	test_forged();
	test_forged_content();
	test_header();
	return done_testing();
}
