/*
 * encode.c: open node -> block (docs/FORMAT.md §3).  Records are sorted by
 * (quark, start) and bit-packed in the layout sht__trk_layout chose from
 * the node's counts (track.c): flat or in runs, ends direct or through the
 * end table, values direct or through the dictionary.  The encoder checks
 * that the records agree with the counts the size was accounted from.
 */
#include <stdlib.h>

#include "store/store-int.h"

#define TYPE_BIT(tag) (1u << (tag))
#define INT_TYPES (TYPE_BIT(SHT__TAG_INT32) | TYPE_BIT(SHT__TAG_INT64))

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

/* Stable LSD radix sort of the records on the low bits of a key: the
 * quark alone (sb = 0, no start), or (quark, start).  a: 2n pairs, out:
 * n records, both working memory. */
static void sort_radix(struct sht__open *o, unsigned qb, unsigned sb,
		       int with_start, struct kv *a, struct sht__oiv *out)
{
	uint32_t n = o->trk.n;

	for (uint32_t i = 0; i < n; i++) {
		a[i].key = (uint64_t)(o->iv[i].quark - o->trk.qmin);
		if (with_start)
			a[i].key = a[i].key << sb |
				   (sht__bias(o->iv[i].start) - o->trk.smin);
		a[i].idx = i;
	}
	radix(a, a + n, n, with_start ? qb + sb : qb);
	for (uint32_t i = 0; i < n; i++)
		out[i] = o->iv[a[i].idx];
	memcpy(o->iv, out, (size_t)n * sizeof *out);
}

/* At least n bytes of s (contents undefined), or NULL. */
static void *scratch(struct sht__scratch *s, size_t n)
{
	if (n > s->cap) {
		void *p = realloc(s->p, n);
		if (!p)
			return NULL;
		s->p = p;
		s->cap = n;
	}
	return s->p;
}

/*
 * Records reach a node in end order.  In a history the records of one
 * quark arrive in start order too, so a stable sort on the quark alone
 * (few radix passes) usually gives (quark, start) order; if it does not,
 * the records are sorted on the whole key.  mem: sort_bytes(n) bytes.
 */
static void sort_records(struct sht__open *o, void *mem)
{
	unsigned qb = sht__bits((uint64_t)o->trk.qmax - o->trk.qmin);
	unsigned sb = sht__bits(o->trk.smax - o->trk.smin);
	uint32_t n = o->trk.n;
	struct kv *a = mem;

	if (n <= 64) {
		qsort(o->iv, n, sizeof *o->iv, rec_cmp);
		return;
	}
	sort_radix(o, qb, 0, 0, a, (struct sht__oiv *)(a + 2 * (size_t)n));
	if (is_sorted(o->iv, n))
		return;
	if (qb + sb < 64)
		sort_radix(o, qb, sb, 1, a, (struct sht__oiv *)(a + 2 * (size_t)n));
	else
		qsort(o->iv, n, sizeof *o->iv, rec_cmp);
}

/* Working memory sort_records needs for n unsorted records. */
static size_t sort_bytes(uint32_t n)
{
	return n > 64 ? 2 * (size_t)n * sizeof(struct kv) +
			(size_t)n * sizeof(struct sht__oiv) : 0;
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

/* ---- areas -------------------------------------------------------------- */

static sht_err mismatch(uint64_t self, const char *what)
{
	return sht__error(SHT_ERR_INVALID, "Cannot encode node: block=%llu: %s disagree with the node's counts (internal error)",
			  (unsigned long long)self, what);
}

/* End table: the distinct ends, from the records in insertion order
 * (ends non-decreasing), in blocks: a base per block, then an offset from
 * it per end.  ends gets the distinct (biased) ends; each record's end is
 * replaced by its rank among them (the node is being closed).  0 if they
 * disagree with the counts. */
static int put_etab(struct sht__open *o, const struct sht__layout *L,
		    uint8_t *p, uint64_t *ends)
{
	const struct sht__trk *t = &o->trk;
	uint64_t blocks = (t->nends + SHT__ETAB_BLOCK - 1) / SHT__ETAB_BLOCK;
	struct bitw bb = { p, 0, 0 };
	struct bitw bo = { p + (blocks * L->ebits + 7) / 8, 0, 0 };
	uint64_t last = 0, base = 0;
	uint32_t k = 0;

	for (uint32_t i = 0; i < t->n; i++) {
		uint64_t e = sht__bias(o->iv[i].end);
		if (k == 0 || e != last) {
			if (k && e < last)
				return 0;
			if (k == t->nends)
				return 0;
			if (k % SHT__ETAB_BLOCK == 0) {
				base = e;
				bw_put(&bb, e - t->emin, L->ebits);
			}
			if (sht__bits(e - base) > L->obits)
				return 0;
			bw_put(&bo, e - base, L->obits);
			ends[k++] = e;
			last = e;
		}
		o->iv[i].end = (sht_time)(k - 1);
	}
	bw_flush(&bb);
	bw_flush(&bo);
	return k == t->nends;
}

struct dent {
	uint64_t key;
	uint32_t rank;
	uint8_t tag;
};

static int dent_cmp(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Working memory put_dict needs for nd values. */
static size_t dict_work_bytes(uint32_t nd)
{
	return (size_t)nd * (sizeof(struct dent) + sizeof(uint32_t));
}

/* Tag table and values, sorted by (tag, key); remap (rank -> index) and
 * the sort use mem, dict_work_bytes(nd) bytes. */
static sht_err put_dict(const struct sht__open *o, uint64_t self, uint8_t *p,
			void *mem, uint32_t **remap)
{
	const struct sht__trk *t = &o->trk;
	uint32_t nd = t->nvals, cnt[SHT__TAG_COUNT] = { 0 };
	struct dent *d = mem;
	struct bitw b = { p + SHT__DICT_HDR, 0, 0 };
	sht_err err = SHT_OK;

	*remap = (uint32_t *)(d + nd);
	for (uint32_t r = 0; r < nd; r++) {
		d[r].key = sht__value_key(o->vals[r].tag, o->vals[r].payload);
		d[r].rank = r;
		d[r].tag = o->vals[r].tag;
	}
	qsort(d, nd, sizeof *d, dent_cmp);
	for (uint32_t i = 0; i < nd; i++) {
		if (i && d[i].tag == d[i - 1].tag && d[i].key == d[i - 1].key)
			err = mismatch(self, "dictionary values");
		cnt[d[i].tag]++;
		(*remap)[d[i].rank] = i;
		bw_put(&b, d[i].key - t->dlo[d[i].tag],
		       sht__bits(t->dhi[d[i].tag] - t->dlo[d[i].tag]));
	}
	bw_flush(&b);
	for (unsigned k = 0; k < SHT__TAG_COUNT; k++, p += SHT__DICT_TAG) {
		if (cnt[k] != t->dcount[k])
			err = mismatch(self, "dictionary values");
		if (!cnt[k])
			continue;
		sht__put_u32(p, cnt[k]);
		p[4] = (uint8_t)sht__bits(t->dhi[k] - t->dlo[k]);
		sht__put_u64(p + 8, (TYPE_BIT(k) & INT_TYPES)
				    ? (uint64_t)sht__unbias(t->dlo[k]) : t->dlo[k]);
	}
	return err;
}

/* The three areas written record by record (records sorted). */
struct rec_out {
	struct bitw dir, exc, rec;
	uint32_t nruns, nexc;
};

static void put_start(const struct sht__open *o, const struct sht__layout *L,
		      const uint64_t *ends, uint32_t i, struct rec_out *w)
{
	const struct sht__trk *t = &o->trk;
	const struct sht__oiv *r = &o->iv[i];
	uint64_t s = sht__bias(r->start) - t->smin;

	if (!(L->flags & SHT__NFLAG_RUNS)) {
		bw_put(&w->rec, r->quark - t->qmin, L->qbits);
		bw_put(&w->rec, s, L->sbits);
	} else if (i == 0 || r->quark != r[-1].quark) {
		bw_put(&w->dir, r->quark - t->qmin, L->qbits);
		bw_put(&w->dir, i, L->ibits);
		bw_put(&w->dir, s, L->sbits);
		w->nruns++;
	} else if ((uint64_t)r->start != (ends ? (uint64_t)sht__unbias(ends[r[-1].end])
					       : (uint64_t)r[-1].end) + 1) {
		bw_put(&w->exc, i, L->ibits);
		bw_put(&w->exc, s, L->sbits);
		w->nexc++;
	}
}

/* The records (sorted); with the end table, their end is their end's
 * rank and ends the distinct ends; with the dictionary, remap gives a
 * value's index from its insertion rank. */
static sht_err put_records(const struct sht__open *o,
			   const struct sht__layout *L, const uint64_t *ends,
			   const uint32_t *remap, uint64_t self,
			   struct rec_out *w)
{
	const struct sht__trk *t = &o->trk;
	uint32_t nd = t->nvals;
	uint64_t vbase = t->types & INT_TYPES ? (uint64_t)sht__unbias(t->vmin) : 0;

	for (uint32_t i = 0; i < t->n; i++) {
		const struct sht__oiv *r = &o->iv[i];
		uint64_t v = r->payload;

		put_start(o, L, ends, i, w);
		if (L->flags & SHT__NFLAG_ETAB) {
			bw_put(&w->rec, (uint64_t)r->end, L->xbits);
		} else if (L->flags & SHT__NFLAG_DURATION) {
			bw_put(&w->rec, (uint64_t)r->end - (uint64_t)r->start - t->dmin, L->ebits);
		} else {
			bw_put(&w->rec, sht__bias(r->end) - t->emin, L->ebits);
		}
		if (L->flags & SHT__NFLAG_DICT) {
			uint32_t rank = sht__open_value_rank(o, r->tag, r->payload);
			if (rank >= nd)
				return mismatch(self, "values");
			bw_put(&w->rec, remap[rank], L->dbits);
			continue;
		}
		if (TYPE_BIT(r->tag) & INT_TYPES)
			v -= vbase;
		else if (r->tag == SHT__TAG_NULL)
			v = 0;
		bw_put(&w->rec, r->tag, L->tbits);
		bw_put(&w->rec, v, L->vbits);
	}
	bw_flush(&w->dir);
	bw_flush(&w->exc);
	bw_flush(&w->rec);
	if ((L->flags & SHT__NFLAG_RUNS) && (w->nruns != t->nruns || w->nexc != t->nexc))
		return mismatch(self, "runs or start exceptions");
	return SHT_OK;
}

static void put_header(const struct sht__open *o, const struct sht__layout *L,
		       uint64_t self, sht_time end, uint8_t *blk)
{
	const struct sht__trk *t = &o->trk;
	int any = t->n > 0, dict = !!(L->flags & SHT__NFLAG_DICT);

	blk[SHT__N_KIND] = o->kind;
	blk[SHT__N_OBITS] = L->obits;
	blk[SHT__N_FLAGS] = L->flags;
	blk[SHT__N_CTAG] = (uint8_t)(!any || L->tbits || dict ? 0 : __builtin_ctz(t->types));
	sht__put_u32(blk + SHT__N_COUNT, t->n);
	sht__put_u64(blk + SHT__N_SELF, self);
	sht__put_u64(blk + SHT__N_SEQ, o->seq);
	sht__put_u64(blk + SHT__N_START, (uint64_t)o->start);
	sht__put_u64(blk + SHT__N_END, (uint64_t)end);
	sht__put_u32(blk + SHT__N_QMIN, any ? t->qmin : 0);
	sht__put_u32(blk + SHT__N_QMAX, any ? t->qmax : 0);
	sht__put_u32(blk + SHT__N_NCHILD, o->nc);
	sht__put_u32(blk + SHT__N_HEAP, o->heap_len);
	blk[SHT__N_QBITS] = L->qbits;
	blk[SHT__N_SBITS] = L->sbits;
	blk[SHT__N_EBITS] = L->ebits;
	blk[SHT__N_TBITS] = L->tbits;
	blk[SHT__N_VBITS] = L->vbits;
	blk[SHT__N_IBITS] = L->ibits;
	blk[SHT__N_XBITS] = L->xbits;
	blk[SHT__N_DBITS] = L->dbits;
	sht__put_u64(blk + SHT__N_SBASE, any ? (uint64_t)sht__unbias(t->smin) : 0);
	sht__put_u64(blk + SHT__N_EBASE, !any ? 0
			   : (L->flags & SHT__NFLAG_DURATION) ? t->dmin
			   : (uint64_t)sht__unbias(t->emin));
	sht__put_u64(blk + SHT__N_VBASE, !dict && (t->types & INT_TYPES)
					 ? (uint64_t)sht__unbias(t->vmin) : 0);
	sht__put_u32(blk + SHT__N_USED, (uint32_t)L->size);
	sht__put_u32(blk + SHT__N_LEVEL, o->level);
	if (L->flags & SHT__NFLAG_RUNS) {
		sht__put_u32(blk + SHT__N_NRUNS, t->nruns);
		sht__put_u32(blk + SHT__N_NEXC, t->nexc);
	}
	if (L->flags & SHT__NFLAG_ETAB)
		sht__put_u32(blk + SHT__N_NENDS, t->nends);
	if (dict)
		sht__put_u32(blk + SHT__N_NVALUES, t->nvals);
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

static sht_err encode(struct sht__open *o, uint64_t self, sht_time end,
		      const struct sht__geom *g, struct sht__scratch *s,
		      uint8_t *blk)
{
	struct sht__layout L;
	struct rec_out w;
	uint32_t *remap = NULL;
	uint64_t *ends = NULL;
	uint8_t *p = blk + SHT__NODE_HDR + (size_t)SHT__CHILD_ENTRY * o->nc;
	uint8_t *dir, *exc, *rec, *mem;
	size_t dwork, ework, swork;
	int sorted = o->trk.n < 2 || is_sorted(o->iv, o->trk.n);
	sht_err err = SHT_OK;

	sht__trk_layout(&o->trk, o->kind, o->nc, o->heap_len, &L);
	if (L.size + SHT__SLACK > g->block_size)
		return sht__error(SHT_ERR_INVALID, "Cannot encode node: block=%llu needs %llu bytes of %u (internal error)",
				  (unsigned long long)self, (unsigned long long)L.size,
				  g->block_size);
	/* working memory: dictionary, distinct ends, sort */
	dwork = (L.flags & SHT__NFLAG_DICT) ? dict_work_bytes(o->trk.nvals) : 0;
	dwork = (dwork + 7) & ~(size_t)7;
	ework = (L.flags & SHT__NFLAG_ETAB) ? (size_t)o->trk.nends * sizeof *ends : 0;
	swork = sorted ? 0 : sort_bytes(o->trk.n);
	mem = dwork + ework + swork ? scratch(s, dwork + ework + swork) : NULL;
	if (dwork + ework + swork && !mem)
		return sht__error(SHT_ERR_NOMEM, "Cannot encode node: block=%llu (%u records)",
				  (unsigned long long)self, o->trk.n);
	if (ework)
		ends = (uint64_t *)(mem + dwork);
	dir = p + L.dict_bytes + L.etab_bytes;
	exc = dir + L.dir_bytes;
	rec = exc + L.exc_bytes;
	memset(blk, 0, g->block_size);
	if (ends && !put_etab(o, &L, p + L.dict_bytes, ends))
		err = mismatch(self, "ends");
	if (err == SHT_OK && (L.flags & SHT__NFLAG_DICT))
		err = put_dict(o, self, p, mem, &remap);
	if (err != SHT_OK)
		return err;
	memset(&w, 0, sizeof w);
	w.dir.p = dir;
	w.exc.p = exc;
	w.rec.p = rec;
	if (!sorted)
		sort_records(o, mem + dwork + ework);
	err = put_records(o, &L, ends, remap, self, &w);
	if (err != SHT_OK)
		return err;
	put_header(o, &L, self, end, blk);
	put_children(o, blk + SHT__NODE_HDR);
	if (o->heap_len)
		memcpy(rec + L.rec_bytes, o->heap, o->heap_len);
	sht__put_u32(blk + g->block_size - 4,
		     sht__crc32c(0, blk, g->block_size - 4));
	return SHT_OK;
}

sht_err sht__open_encode(struct sht__open *o, uint64_t self, sht_time end,
			 const struct sht__geom *g, struct sht__scratch *s,
			 uint8_t *blk)
{
	struct sht__scratch own = { NULL, 0 };
	sht_err err = encode(o, self, end, g, s ? s : &own, blk);

	free(own.p);
	return err;
}
