/*
 * encode.c: open node -> block.  Records are sorted by (quark, start) and
 * bit-packed with the narrowest widths that hold this node's values
 * (docs/FORMAT.md §3).  The trackers make the size known at every insert,
 * so a node is closed exactly when the next interval would not fit.
 */
#include <stdlib.h>

#include "store/store-int.h"

#define TYPE_BIT(tag) (1u << (tag))
#define INT_TYPES (TYPE_BIT(SHT__TAG_INT32) | TYPE_BIT(SHT__TAG_INT64))

void sht__trk_reset(struct sht__trk *t)
{
	t->qmin = UINT32_MAX;
	t->qmax = 0;
	t->smin = t->emin = t->dmin = t->vmin = UINT64_MAX;
	t->smax = t->emax = t->dmax = t->vmax = 0;
	t->str_off_max = 0;
	t->n = 0;
	t->types = 0;
}

#define MINMAX(lo, hi, x) do { if ((x) < (lo)) (lo) = (x); \
			       if ((x) > (hi)) (hi) = (x); } while (0)

void sht__trk_add(struct sht__trk *t, const struct sht__oiv *r)
{
	uint64_t s = sht__bias(r->start), e = sht__bias(r->end);
	uint64_t d = (uint64_t)r->end - (uint64_t)r->start;

	MINMAX(t->qmin, t->qmax, r->quark);
	MINMAX(t->smin, t->smax, s);
	MINMAX(t->emin, t->emax, e);
	MINMAX(t->dmin, t->dmax, d);
	t->types |= (uint8_t)TYPE_BIT(r->tag);
	if (TYPE_BIT(r->tag) & INT_TYPES) {
		uint64_t v = sht__bias((int64_t)r->payload);
		MINMAX(t->vmin, t->vmax, v);
	} else if (r->tag == SHT__TAG_STRING && r->payload > t->str_off_max) {
		t->str_off_max = r->payload;
	}
	t->n++;
}

static unsigned value_bits(const struct sht__trk *t)
{
	unsigned v = 0;

	if (t->types & INT_TYPES)
		v = sht__bits(t->vmax - t->vmin);
	if (t->types & TYPE_BIT(SHT__TAG_DOUBLE))
		v = 64;
	if ((t->types & TYPE_BIT(SHT__TAG_STRING)) && sht__bits(t->str_off_max) > v)
		v = sht__bits(t->str_off_max);
	return v;
}

uint32_t sht__trk_width(const struct sht__trk *t, int *duration)
{
	unsigned eb, db;

	if (t->n == 0) {
		*duration = 0;
		return 0;
	}
	eb = sht__bits(t->emax - t->emin);
	db = sht__bits(t->dmax - t->dmin);
	*duration = db < eb;
	return sht__bits((uint64_t)t->qmax - t->qmin) +
	       sht__bits(t->smax - t->smin) + (db < eb ? db : eb) +
	       ((t->types & (t->types - 1)) ? SHT__TBITS : 0) +
	       value_bits(t);
}

uint64_t sht__open_size(const struct sht__open *o, const struct sht__trk *t,
			uint32_t heap_len, uint32_t max_children)
{
	int dur;
	uint64_t w = sht__trk_width(t, &dur);
	uint64_t room = o->kind == SHT__KIND_CORE
			? (uint64_t)SHT__CHILD_ENTRY * max_children : 0;

	return SHT__NODE_HDR + room + (t->n * w + 7) / 8 + heap_len;
}

/* ---- sorting ------------------------------------------------------------ */

static int rec_cmp(const void *a, const void *b)
{
	const struct sht__oiv *x = a, *y = b;

	if (x->quark != y->quark)
		return x->quark < y->quark ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int is_sorted(const struct sht__oiv *iv, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (rec_cmp(&iv[i - 1], &iv[i]) > 0)
			return 0;
	return 1;
}

struct kv {
	uint64_t key;
	uint32_t idx;
};

/* LSD radix sort of (key, idx) pairs on the low `bits` bits of key. */
static void radix(struct kv *a, struct kv *tmp, uint32_t n, unsigned bits)
{
	for (unsigned sh = 0; sh < bits; sh += 8) {
		uint32_t cnt[257] = { 0 };
		for (uint32_t i = 0; i < n; i++)
			cnt[((a[i].key >> sh) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (uint32_t i = 0; i < n; i++)
			tmp[cnt[(a[i].key >> sh) & 0xff]++] = a[i];
		struct kv *s = a;
		a = tmp;
		tmp = s;
	}
	if (((bits + 7) / 8) & 1)      /* odd pass count: result is in tmp */
		memcpy(tmp, a, n * sizeof *a);
}

static int sort_radix(struct sht__open *o, unsigned qb, unsigned sb)
{
	uint32_t n = o->trk.n;
	struct kv *a = malloc(2 * (size_t)n * sizeof *a);
	struct sht__oiv *out = malloc((size_t)n * sizeof *out);

	if (!a || !out) {
		free(a);
		free(out);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		a[i].key = ((uint64_t)(o->iv[i].quark - o->trk.qmin) << sb) |
			   (sht__bias(o->iv[i].start) - o->trk.smin);
		a[i].idx = i;
	}
	radix(a, a + n, n, qb + sb);
	for (uint32_t i = 0; i < n; i++)
		out[i] = o->iv[a[i].idx];
	memcpy(o->iv, out, (size_t)n * sizeof *out);
	free(a);
	free(out);
	return 1;
}

static void sort_records(struct sht__open *o)
{
	unsigned qb = sht__bits((uint64_t)o->trk.qmax - o->trk.qmin);
	unsigned sb = sht__bits(o->trk.smax - o->trk.smin);

	if (o->trk.n < 2 || is_sorted(o->iv, o->trk.n))
		return;
	if (qb + sb < 64 && o->trk.n > 64 && sort_radix(o, qb, sb))
		return;
	qsort(o->iv, o->trk.n, sizeof *o->iv, rec_cmp);
}

/* ---- bit packing -------------------------------------------------------- */

struct bitw {
	uint8_t *p;
	uint64_t acc;
	unsigned nacc;               /* bits pending in acc, < 64 */
};

static inline void bw_put(struct bitw *b, uint64_t v, unsigned w)
{
	unsigned total;

	if (w == 0)
		return;
	if (w < 64)
		v &= (UINT64_C(1) << w) - 1;
	b->acc |= v << b->nacc;
	total = b->nacc + w;
	if (total >= 64) {
		sht__put_u64(b->p, b->acc);
		b->p += 8;
		total -= 64;
		b->acc = total ? v >> (w - total) : 0;
	}
	b->nacc = total;
}

static void bw_flush(struct bitw *b)
{
	for (unsigned i = 0; i < b->nacc; i += 8)
		*b->p++ = (uint8_t)(b->acc >> i);
}

struct widths {
	unsigned q, s, e, t, v;
	int dur;
};

static void pack_records(const struct sht__open *o, const struct widths *w,
			 uint8_t *dst)
{
	const struct sht__trk *t = &o->trk;
	struct bitw b = { dst, 0, 0 };
	uint64_t vbase = t->types & INT_TYPES ? (uint64_t)sht__unbias(t->vmin) : 0;

	for (uint32_t i = 0; i < t->n; i++) {
		const struct sht__oiv *r = &o->iv[i];
		uint64_t s = sht__bias(r->start) - t->smin;
		uint64_t e = w->dur ? (uint64_t)r->end - (uint64_t)r->start - t->dmin
				    : sht__bias(r->end) - t->emin;
		uint64_t v = r->payload;

		if (TYPE_BIT(r->tag) & INT_TYPES)
			v -= vbase;
		else if (r->tag == SHT__TAG_NULL)
			v = 0;
		bw_put(&b, r->quark - t->qmin, w->q);
		bw_put(&b, s, w->s);
		bw_put(&b, e, w->e);
		bw_put(&b, r->tag, w->t);
		bw_put(&b, v, w->v);
	}
	bw_flush(&b);
}

static void put_header(const struct sht__open *o, const struct widths *w,
		       uint64_t self, sht_time end, uint32_t used, uint8_t *blk)
{
	const struct sht__trk *t = &o->trk;
	int any = t->n > 0;

	blk[SHT__N_KIND] = o->kind;
	blk[SHT__N_FLAGS] = w->dur ? SHT__NFLAG_DURATION : 0;
	blk[SHT__N_CTAG] = (uint8_t)(w->t || !any ? 0 : __builtin_ctz(t->types));
	sht__put_u32(blk + SHT__N_COUNT, t->n);
	sht__put_u64(blk + SHT__N_SELF, self);
	sht__put_u64(blk + SHT__N_SEQ, o->seq);
	sht__put_u64(blk + SHT__N_START, (uint64_t)o->start);
	sht__put_u64(blk + SHT__N_END, (uint64_t)end);
	sht__put_u32(blk + SHT__N_QMIN, any ? t->qmin : 0);
	sht__put_u32(blk + SHT__N_QMAX, any ? t->qmax : 0);
	sht__put_u32(blk + SHT__N_NCHILD, o->nc);
	sht__put_u32(blk + SHT__N_HEAP, o->heap_len);
	blk[SHT__N_QBITS] = (uint8_t)w->q;
	blk[SHT__N_SBITS] = (uint8_t)w->s;
	blk[SHT__N_EBITS] = (uint8_t)w->e;
	blk[SHT__N_TBITS] = (uint8_t)w->t;
	blk[SHT__N_VBITS] = (uint8_t)w->v;
	sht__put_u64(blk + SHT__N_SBASE, any ? (uint64_t)sht__unbias(t->smin) : 0);
	sht__put_u64(blk + SHT__N_EBASE,
		     !any ? 0 : w->dur ? t->dmin : (uint64_t)sht__unbias(t->emin));
	sht__put_u64(blk + SHT__N_VBASE,
		     t->types & INT_TYPES ? (uint64_t)sht__unbias(t->vmin) : 0);
	sht__put_u32(blk + SHT__N_USED, used);
	sht__put_u32(blk + SHT__N_LEVEL, o->level);
}

static void put_children(const struct sht__open *o, uint8_t *p)
{
	for (uint32_t i = 0; i < o->nc; i++, p += SHT__CHILD_ENTRY) {
		const struct sht__child *c = &o->ch[i];
		sht__put_u64(p, c->block);
		sht__put_u64(p + 8, (uint64_t)c->start);
		sht__put_u64(p + 16, (uint64_t)c->end);
		sht__put_u32(p + 24, c->qmin);
		sht__put_u32(p + 28, c->qmax);
	}
}

void sht__open_encode(struct sht__open *o, uint64_t self, sht_time end,
		      const struct sht__geom *g, uint8_t *blk)
{
	const struct sht__trk *t = &o->trk;
	struct widths w = { 0, 0, 0, 0, 0, 0 };
	uint64_t rec_off = SHT__NODE_HDR + (uint64_t)SHT__CHILD_ENTRY * o->nc;
	uint64_t recbytes;
	uint32_t used;

	if (t->n) {
		sht__trk_width(t, &w.dur);
		w.q = sht__bits((uint64_t)t->qmax - t->qmin);
		w.s = sht__bits(t->smax - t->smin);
		w.e = w.dur ? sht__bits(t->dmax - t->dmin) : sht__bits(t->emax - t->emin);
		w.t = (t->types & (t->types - 1)) ? SHT__TBITS : 0;
		w.v = value_bits(t);
	}
	recbytes = ((uint64_t)t->n * (w.q + w.s + w.e + w.t + w.v) + 7) / 8;
	used = (uint32_t)(rec_off + recbytes + o->heap_len);
	memset(blk, 0, g->block_size);
	sort_records(o);
	put_header(o, &w, self, end, used, blk);
	put_children(o, blk + SHT__NODE_HDR);
	pack_records(o, &w, blk + rec_off);
	if (o->heap_len)
		memcpy(blk + rec_off + recbytes, o->heap, o->heap_len);
	sht__put_u32(blk + g->block_size - 4,
		     sht__crc32c(0, blk, g->block_size - 4));
}
