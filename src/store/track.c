/*
 * track.c: the size of an open node, exact at every insert, and the
 * choice of its layout (docs/FORMAT.md §3, "Choosing a layout").
 *
 * Each record added changes the counts of struct sht__trk in O(1):
 *   - minima and maxima give the field widths;
 *   - distinct quarks and start exceptions (run directory) come from a
 *     table of the quarks seen in the node, with their latest end;
 *   - distinct ends (end table): ends reach a node in non-decreasing
 *     order, so an end is new when it differs from the latest one, and
 *     the widest offset of an end from its block's first is kept;
 *   - distinct values per type (dictionary) come from a table of the
 *     values seen, with their insertion rank.
 * sht__trk_layout turns the counts into the smallest layout and its size
 * in bytes; the encoder writes exactly that layout (and checks that its
 * records agree with the counts).
 *
 * The layout is not recomputed at every insert.  The node keeps a bound
 * on its size in the layout last computed, grown by what one record can
 * add to that layout while no width changes (o->inc).  add_fast checks a
 * record against limits set with the layout (every field and index width
 * still holds, the bound stays inside the block) and only counts it; any
 * other record goes through probe, room (the exact layout of the node
 * with it) and commit, which restarts the bound.  The true size is the
 * smallest layout's, never above the bound, so the node never overflows
 * its block; and it closes only when the exact size with the next record
 * would not fit.
 *
 * A layout that cannot be used is ruled out for the rest of the node
 * (trk.off): the run directory when a quark's records overlap or come out
 * of start order, the end table when ends come out of order (neither
 * happens in a valid history), and, to save the table look-ups, the run
 * directory or the dictionary when PRUNE_AT records are in and it is not
 * in use while 7/8 of the records are distinct quarks or values.
 */
#include <stddef.h>
#include <stdlib.h>

#include "store/store-int.h"

#define TYPE_BIT(tag) (1u << (tag))
#define INT_TYPES (TYPE_BIT(SHT__TAG_INT32) | TYPE_BIT(SHT__TAG_INT64))
#define MINMAX(lo, hi, x) do { if ((x) < (lo)) (lo) = (x); \
			       if ((x) > (hi)) (hi) = (x); } while (0)


/* Records after which a layout not in use and clearly larger (7/8 of the
 * records would be runs or distinct values) is dropped. */
#define PRUNE_AT 1024u

/* ---- tables ------------------------------------------------------------- */

static inline uint32_t qhash(uint32_t q)
{
	uint32_t h = q * 0x9E3779B1u;

	return h ^ (h >> 15);
}

static inline uint64_t vhash(uint8_t tag, uint64_t payload)
{
	uint64_t h = (payload ^ ((uint64_t)tag << 59)) * UINT64_C(0x9E3779B97F4A7C15);

	return h ^ (h >> 31);
}

/* Values kept by value in vsmall (no hashing): null, and int32 values
 * 0 .. SMALL_VALUES - 1 (most values of the kernel analysis).  Their
 * index in vsmall, or -1. */
#define SMALL_VALUES 1024u

static inline int64_t small_index(uint8_t tag, uint64_t payload)
{
	if (tag == SHT__TAG_NULL)
		return SMALL_VALUES;
	return tag == SHT__TAG_INT32 && payload < SMALL_VALUES ? (int64_t)payload : -1;
}

static inline uint32_t vfind(const struct sht__open *o, uint8_t tag,
			     uint64_t payload, int *found)
{
	uint32_t i = (uint32_t)vhash(tag, payload) & o->vmask;

	for (;; i = (i + 1) & o->vmask) {
		const struct sht__vslot *e = &o->vtab[i];
		if (e->gen != o->gen) {
			*found = 0;
			return i;
		}
		if (e->payload == payload && (e->rank_tag & 7) == tag) {
			*found = 1;
			return i;
		}
	}
}

/* ---- quarks -------------------------------------------------------------
 *
 * For each quark with records in the node, the end of its latest record
 * relative to the node's start, rel < REL_LIMIT (a record ending later
 * rules the run layout out).  Quarks below DIRECT_QUARKS (every quark of
 * most histories) are kept by quark, qdirect[q] = rel + 1 (0: absent);
 * the others in an open-addressing table, qtab[i] = rel << 32 | (q + 1)
 * (0: empty), at load <= 1/2.  4- and 8-byte slots keep the tables small
 * in the cache.  The slots used are listed in qused (direct ones with
 * QDIRECT set) and emptied when the node is reset.
 */
#define DIRECT_QUARKS 16384u
#define QDIRECT 0x80000000u
#define REL_LIMIT (UINT32_MAX - 1u)

/* A quark's place: its slot, whether it is there, its rel. */
struct qref {
	uint32_t slot;               /* index, with QDIRECT for qdirect */
	int found;
	uint32_t rel;
};

/* Whether the table of quark q can take one more quark now. */
static inline int qready(const struct sht__open *o, uint32_t q)
{
	return o->qused_n < o->qused_cap &&
	       (q < DIRECT_QUARKS ? o->qdirect != NULL : o->qtab_n < o->qroom);
}

static inline struct qref qlook(const struct sht__open *o, uint32_t q)
{
	struct qref ref;

	if (q < DIRECT_QUARKS) {
		uint32_t x = o->qdirect[q];
		ref.slot = q | QDIRECT;
		ref.found = x != 0;
		ref.rel = x - 1;
		return ref;
	}
	for (uint32_t i = qhash(q) & o->qmask;; i = (i + 1) & o->qmask) {
		uint64_t x = o->qtab[i];
		if (x == 0 || (uint32_t)x == q + 1) {
			ref.slot = i;
			ref.found = x != 0;
			ref.rel = (uint32_t)(x >> 32);
			return ref;
		}
	}
}

/* Record rel as quark q's latest end in its slot (from qlook). */
static inline void qset(struct sht__open *o, const struct qref *ref,
			uint32_t q, uint32_t rel)
{
	if (!ref->found)
		o->qused[o->qused_n++] = ref->slot;
	if (ref->slot & QDIRECT) {
		o->qdirect[q] = rel + 1;
		return;
	}
	o->qtab_n += !ref->found;
	o->qtab[ref->slot] = (uint64_t)rel << 32 | (q + 1u);
}

/* Make the table of quark q ready for one more quark (qready). */
static sht_err qprepare(struct sht__open *o, uint32_t q)
{
	uint32_t size = o->qtab ? o->qmask + 1 : 0, nsize = size ? 2 * size : 256;
	uint64_t *old = o->qtab;

	if (o->qused_n == o->qused_cap) {
		uint32_t cap = o->qused_cap ? 2 * o->qused_cap : 256;
		uint32_t *u = realloc(o->qused, (size_t)cap * sizeof *u);
		if (!u)
			return SHT_ERR_NOMEM;
		o->qused = u;
		o->qused_cap = cap;
	}
	if (q < DIRECT_QUARKS) {
		if (!o->qdirect)
			o->qdirect = calloc(DIRECT_QUARKS, sizeof *o->qdirect);
		return o->qdirect ? SHT_OK : SHT_ERR_NOMEM;
	}
	if (o->qtab_n < o->qroom)
		return SHT_OK;
	o->qtab = calloc(nsize, sizeof *o->qtab);
	if (!o->qtab) {
		o->qtab = old;
		return SHT_ERR_NOMEM;
	}
	o->qmask = nsize - 1;
	o->qroom = nsize / 2 - 1;
	/* Move the hashed quarks; the list keeps the direct slots and gets
	 * the new hashed ones. */
	{
		uint32_t n = 0;
		for (uint32_t i = 0; i < o->qused_n; i++)
			if (o->qused[i] & QDIRECT)
				o->qused[n++] = o->qused[i];
		o->qused_n = n;
	}
	for (uint32_t i = 0; i < size; i++) {
		if (old[i]) {
			struct qref ref = qlook(o, (uint32_t)old[i] - 1u);
			o->qtab[ref.slot] = old[i];
			o->qused[o->qused_n++] = ref.slot;
		}
	}
	free(old);
	return SHT_OK;
}

/* Empty the slots in use (a node reset). */
static void qclear(struct sht__open *o)
{
	for (uint32_t i = 0; i < o->qused_n; i++) {
		uint32_t x = o->qused[i];
		if (x & QDIRECT)
			o->qdirect[x & ~QDIRECT] = 0;
		else
			o->qtab[x] = 0;
	}
	o->qused_n = 0;
	o->qtab_n = 0;
}

/* r's start and end relative to the node's start, for the quark tables;
 * 0 if they do not fit (the run layout is then ruled out). */
static inline int qrel(const struct sht__open *o, const struct sht__oiv *r,
		       uint64_t *srel, uint64_t *erel)
{
	*erel = (uint64_t)r->end - (uint64_t)o->start;
	*srel = (uint64_t)r->start - (uint64_t)o->start;
	return *erel < REL_LIMIT && *srel <= *erel;
}

/* What adding one record changes, found without changing anything. */
struct probe {
	struct qref qref;            /* its quark's slot */
	uint32_t erel;               /* its end for the quark tables */
	uint32_t vpos;               /* its value's table slot */
	uint32_t vrank;              /* its value's insertion rank */
	uint8_t new_quark;           /* first record of its quark */
	uint8_t exc;                 /* a start exception */
	uint8_t new_end, new_value;  /* adds to the end table, dictionary */
	uint8_t off;                 /* layouts it rules out */
	uint8_t vsmall;              /* its value goes to vsmall (vpos) */
	uint8_t fast;                /* room decided by the bound */
	struct sht__layout lay;      /* slow path: the layout with it */
};

/* Room for one more distinct value in vals, and in vtab if hashed. */
static sht_err vgrow(struct sht__open *o, int hashed)
{
	uint32_t size = o->vtab ? o->vmask + 1 : 0, nsize = size ? 2 * size : 256;
	struct sht__vslot *old = o->vtab;
	int found;

	if (o->trk.nvals + 1 > o->vals_cap) {
		uint32_t cap = o->vals_cap ? 2 * o->vals_cap : 128;
		struct sht__val *v = realloc(o->vals, (size_t)cap * sizeof *v);
		if (!v)
			return SHT_ERR_NOMEM;
		o->vals = v;
		o->vals_cap = cap;
	}
	if (!hashed) {
		if (!o->vsmall)
			o->vsmall = calloc(SMALL_VALUES + 1, sizeof *o->vsmall);
		return o->vsmall ? SHT_OK : SHT_ERR_NOMEM;
	}
	if (2 * ((uint64_t)o->vtab_n + 1) <= size)
		return SHT_OK;
	o->vtab = calloc(nsize, sizeof *o->vtab);
	if (!o->vtab) {
		o->vtab = old;
		return SHT_ERR_NOMEM;
	}
	o->vmask = nsize - 1;
	for (uint32_t i = 0; i < size; i++)
		if (old[i].gen == o->gen)
			o->vtab[vfind(o, old[i].rank_tag & 7, old[i].payload, &found)] = old[i];
	free(old);
	return SHT_OK;
}

void sht__open_track_reset(struct sht__open *o)
{
	struct sht__trk *t = &o->trk;

	memset(t, 0, sizeof *t);
	t->qmin = UINT32_MAX;
	t->smin = t->emin = t->dmin = t->vmin = UINT64_MAX;
	for (unsigned k = 0; k < SHT__TAG_COUNT; k++)
		t->dlo[k] = UINT64_MAX;
	o->vtab_n = 0;
	qclear(o);
	if (++o->gen == 0) {         /* wrapped: empty the tables for real */
		if (o->vtab)
			memset(o->vtab, 0, ((size_t)o->vmask + 1) * sizeof *o->vtab);
		if (o->vsmall)
			memset(o->vsmall, 0, (SMALL_VALUES + 1) * sizeof *o->vsmall);
		o->gen = 1;
	}
}

uint32_t sht__open_value_rank(const struct sht__open *o, uint8_t tag,
			      uint64_t payload)
{
	int64_t k = small_index(tag, payload);
	int found;

	if (k >= 0)
		return o->vsmall && o->vsmall[k].gen == o->gen ? o->vsmall[k].rank
							       : UINT32_MAX;
	if (!o->vtab)
		return UINT32_MAX;
	k = vfind(o, tag, payload, &found);
	return found ? o->vtab[k].rank_tag >> 3 : UINT32_MAX;
}

void sht__open_track_free(struct sht__open *o)
{
	free(o->qtab);
	free(o->qdirect);
	free(o->qused);
	free(o->vtab);
	free(o->vals);
	free(o->vsmall);
	o->qtab = NULL;
	o->qdirect = NULL;
	o->qused = NULL;
	o->qused_n = o->qused_cap = o->qtab_n = o->qroom = 0;
	o->vtab = NULL;
	o->vals = NULL;
	o->vsmall = NULL;
	o->vals_cap = 0;
}

/* ---- counting ----------------------------------------------------------- */

static sht_err probe_quark(struct sht__open *o, const struct sht__oiv *r,
			   struct probe *p)
{
	uint64_t srel, erel;

	if (!qrel(o, r, &srel, &erel)) {
		p->off |= SHT__NFLAG_RUNS;   /* too far from the node's start */
		return SHT_OK;
	}
	if (qprepare(o, r->quark) != SHT_OK)
		return SHT_ERR_NOMEM;
	p->qref = qlook(o, r->quark);
	p->erel = (uint32_t)erel;
	if (!p->qref.found)
		p->new_quark = 1;
	else if (srel <= p->qref.rel)
		p->off |= SHT__NFLAG_RUNS;   /* overlap or out of order */
	else if (srel != (uint64_t)p->qref.rel + 1)
		p->exc = 1;
	return SHT_OK;
}

static sht_err probe_value(struct sht__open *o, const struct sht__oiv *r,
			   struct probe *p)
{
	const struct sht__oiv *prev = o->trk.n ? &o->iv[o->trk.n - 1] : NULL;
	int64_t k = small_index(r->tag, r->payload);
	int found;

	if (k < 0 && prev && prev->tag == r->tag && prev->payload == r->payload)
		return SHT_OK;
	if (vgrow(o, k < 0) != SHT_OK)
		return SHT_ERR_NOMEM;
	if (k >= 0) {
		const struct sht__vsmall *e = &o->vsmall[k];
		found = e->gen == o->gen;
		p->vpos = (uint32_t)k;
		p->vsmall = 1;
		p->vrank = found ? e->rank : o->trk.nvals;
	} else {
		p->vpos = vfind(o, r->tag, r->payload, &found);
		p->vrank = found ? o->vtab[p->vpos].rank_tag >> 3 : o->trk.nvals;
	}
	p->new_value = !found;
	return SHT_OK;
}

static sht_err probe(struct sht__open *o, const struct sht__oiv *r,
		     struct probe *p)
{
	const struct sht__trk *t = &o->trk;
	uint64_t e = sht__bias(r->end);
	sht_err err = SHT_OK;

	memset(p, 0, offsetof(struct probe, lay));
	if (t->n && e < t->elast)
		p->off |= SHT__NFLAG_ETAB;
	p->new_end = !t->n || e != t->elast;
	if (!(t->off & SHT__NFLAG_RUNS))
		err = probe_quark(o, r, p);
	if (err == SHT_OK && !(t->off & SHT__NFLAG_DICT))
		err = probe_value(o, r, p);
	return err;
}

/* A new end (>= every end so far) in the end table's counts: a new block
 * every SHT__ETAB_BLOCK ends, else an offset from the block's first. */
static inline void add_end(struct sht__trk *t, uint64_t e)
{
	if (t->nends % SHT__ETAB_BLOCK == 0) {
		t->eblock = e;
	} else if (sht__bits(e - t->eblock) > t->obits) {
		t->obits = (uint8_t)sht__bits(e - t->eblock);
	}
	t->nends++;
	t->elast = e;
}

/* t with r added. */
static inline void apply(struct sht__trk *t, const struct sht__oiv *r,
			 const struct probe *p)
{
	uint64_t s = sht__bias(r->start), e = sht__bias(r->end);
	uint64_t d = (uint64_t)r->end - (uint64_t)r->start;

	MINMAX(t->qmin, t->qmax, r->quark);
	MINMAX(t->smin, t->smax, s);
	MINMAX(t->emin, t->emax, e);
	MINMAX(t->dmin, t->dmax, d);
	t->types |= (uint8_t)TYPE_BIT(r->tag);
	if (TYPE_BIT(r->tag) & INT_TYPES) {
		uint64_t v = sht__bias((sht_time)r->payload);
		MINMAX(t->vmin, t->vmax, v);
	} else if (r->tag == SHT__TAG_STRING && r->payload > t->str_off_max) {
		t->str_off_max = r->payload;
	}
	t->off |= p->off;
	if (p->new_end && !(t->off & SHT__NFLAG_ETAB))
		add_end(t, e);
	t->nruns += p->new_quark;
	t->nexc += p->exc;
	if (p->new_value && !(t->off & SHT__NFLAG_DICT)) {
		uint64_t key = sht__value_key(r->tag, r->payload);
		t->nvals++;
		t->dcount[r->tag]++;
		MINMAX(t->dlo[r->tag], t->dhi[r->tag], key);
	}
	t->n++;
}

static inline int pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* lo + 2^w, or UINT64_MAX if that does not fit: the exclusive limit of a
 * w-bit field above lo. */
static uint64_t limit(uint64_t lo, unsigned w)
{
	return w >= 64 || lo >= UINT64_MAX - (UINT64_C(1) << w) + 1
	       ? UINT64_MAX : lo + (UINT64_C(1) << w);
}

/* Whether adding r to o keeps every width of o's layout (so that the
 * layout grows by at most o->inc bytes). */
static int same_widths(const struct sht__open *o, const struct sht__oiv *r,
		       const struct probe *p)
{
	const struct sht__trk *t = &o->trk;
	unsigned f = o->lflags;
	uint64_t s = sht__bias(r->start), e = sht__bias(r->end);
	uint64_t d = (uint64_t)r->end - (uint64_t)r->start, k;

	if (!t->n || p->off || r->quark < t->qmin || r->quark >= o->lim_q ||
	    s < t->smin || s >= o->lim_s ||
	    ((f & SHT__NFLAG_DURATION) ? d < t->dmin || d >= o->lim_e
				       : e < t->emin || e >= o->lim_e) ||
	    (p->new_end && (f & SHT__NFLAG_ETAB) &&
	     (t->nends >= o->ends_lim ||
	      (t->nends % SHT__ETAB_BLOCK && e - t->eblock >= o->lim_o))))
		return 0;
	if (f & SHT__NFLAG_DICT) {
		if (!p->new_value)
			return 1;
		k = sht__value_key(r->tag, r->payload);
		return t->dcount[r->tag] && !pow2(t->nvals) &&
		       k >= t->dlo[r->tag] &&
		       k < limit(t->dlo[r->tag], sht__bits(t->dhi[r->tag] - t->dlo[r->tag]));
	}
	if (!(t->types & TYPE_BIT(r->tag)))
		return 0;
	if (TYPE_BIT(r->tag) & INT_TYPES) {
		k = sht__bias((sht_time)r->payload);
		return k >= t->vmin && k < o->lim_v;
	}
	return r->tag != SHT__TAG_STRING || r->payload < limit(0, o->lvbits);
}

static int room(const struct sht__open *o, const struct sht__oiv *r,
		struct probe *p, uint32_t max_children, uint32_t heap_add,
		uint32_t block_size)
{
	struct sht__trk t;

	if ((uint64_t)o->trk.n + 1 > block_size / 2)
		return 0;
	p->fast = o->inc + heap_add <= o->left && o->trk.n < o->n_lim &&
		  same_widths(o, r, p);
	if (p->fast)
		return 1;
	t = o->trk;
	apply(&t, r, p);
	sht__trk_layout(&t, o->kind, max_children, o->heap_len + heap_add, &p->lay);
	return p->lay.size + SHT__SLACK <= block_size;
}

/* Drop a layout that is not chosen and clearly larger (see the top). */
static void prune(struct sht__trk *t, uint8_t chosen)
{
	if (!(chosen & SHT__NFLAG_RUNS) && 8 * (uint64_t)t->nruns > 7 * (uint64_t)t->n)
		t->off |= SHT__NFLAG_RUNS;
	if (!(chosen & SHT__NFLAG_DICT) && 8 * (uint64_t)t->nvals > 7 * (uint64_t)t->n)
		t->off |= SHT__NFLAG_DICT;
}

/* Bytes one record can add to layout L while no width changes: to each
 * area, at most the bytes of what it adds there (a record; a run or
 * exception entry; an end-table base and offset; a dictionary value),
 * since ceil(a + b) <= ceil(a) + ceil(b). */
static uint64_t record_bound(const struct sht__layout *L)
{
	uint64_t bytes = (L->w + 7) / 8;

	if (L->flags & SHT__NFLAG_RUNS)          /* a run entry >= an exception */
		bytes += ((uint64_t)L->qbits + L->ibits + L->sbits + 7) / 8;
	if (L->flags & SHT__NFLAG_ETAB)
		bytes += (L->ebits + 7) / 8 + (L->obits + 7) / 8;
	if (L->flags & SHT__NFLAG_DICT)
		bytes += 8;
	return bytes;
}

static uint32_t pow2_ceil(uint32_t x)
{
	uint32_t p = 1;

	while (p < x && p < (UINT32_C(1) << 31))
		p <<= 1;
	return p;
}

/* A new exact layout: the bound restarts from its size, and the limits
 * of the fast path are set (the field widths of L hold up to them; the
 * index widths up to the next power of two of their counts). */
static void set_layout(struct sht__open *o, const struct sht__layout *L,
		       uint32_t block_size)
{
	const struct sht__trk *t = &o->trk;
	uint32_t n_lim = o->cap < block_size / 2 ? o->cap : block_size / 2;

	o->lay = *L;
	o->lflags = L->flags;
	o->lvbits = L->vbits;
	o->inc = record_bound(L);
	o->left = L->size + SHT__SLACK <= block_size
		  ? block_size - SHT__SLACK - L->size : 0;
	if ((L->flags & SHT__NFLAG_RUNS) && pow2_ceil(t->n) < n_lim)
		n_lim = pow2_ceil(t->n);
	o->n_lim = n_lim;
	o->ends_lim = (L->flags & SHT__NFLAG_ETAB) ? pow2_ceil(t->nends) : UINT32_MAX;
	o->lim_q = limit(t->qmin, L->qbits);
	o->lim_s = limit(t->smin, L->sbits);
	o->lim_e = (L->flags & SHT__NFLAG_DURATION) ? limit(t->dmin, L->ebits)
						    : limit(t->emin, L->ebits);
	o->lim_v = limit(t->vmin, L->vbits);
	o->lim_o = limit(0, L->obits);
}

static void commit(struct sht__open *o, struct sht__oiv *r,
		   const struct probe *p, uint32_t heap_add, uint32_t block_size)
{
	if (!((o->trk.off | p->off) & SHT__NFLAG_RUNS))
		qset(o, &p->qref, r->quark, p->erel);
	if (p->new_value && !(o->trk.off & SHT__NFLAG_DICT) && p->vsmall) {
		o->vsmall[p->vpos].gen = o->gen;
		o->vsmall[p->vpos].rank = p->vrank;
		o->vals[p->vrank].payload = r->payload;
		o->vals[p->vrank].tag = r->tag;
	} else if (p->new_value && !(o->trk.off & SHT__NFLAG_DICT)) {
		struct sht__vslot *v = &o->vtab[p->vpos];
		v->payload = r->payload;
		v->gen = o->gen;
		v->rank_tag = p->vrank << 3 | r->tag;
		o->vtab_n++;
		o->vals[p->vrank].payload = r->payload;
		o->vals[p->vrank].tag = r->tag;
	}
	apply(&o->trk, r, p);
	if (p->fast) {
		o->left -= o->inc + heap_add;
	} else {
		set_layout(o, &p->lay, block_size);
	}
	if (o->trk.n == PRUNE_AT)
		prune(&o->trk, o->lflags);
}

static sht_err grow_records(struct sht__open *o)
{
	uint32_t cap = o->cap ? o->cap * 2 : 64;
	struct sht__oiv *iv = realloc(o->iv, (size_t)cap * sizeof *iv);

	if (!iv)
		return SHT_ERR_NOMEM;
	o->iv = iv;
	o->cap = cap;
	return SHT_OK;
}

/*
 * The common case, kept short (the builder's hot path): the node has
 * records, the bound leaves room for one more, the record changes no
 * width of the current layout, brings no new value and no disorder.  It
 * does what probe, room and commit would do; 0 if it cannot decide.
 */
static int add_fast(struct sht__open *o, const struct sht__oiv *r,
		    uint32_t heap_add)
{
	struct sht__trk *t = &o->trk;
	const struct sht__oiv *prev;
	struct sht__oiv *x;
	unsigned f = o->lflags;
	uint64_t s = sht__bias(r->start), e = sht__bias(r->end);
	uint64_t d = (uint64_t)r->end - (uint64_t)r->start;
	int64_t k;
	int new_end = e != t->elast, found = 1;

	if (t->n >= o->n_lim || o->inc + heap_add > o->left ||
	    r->quark < t->qmin || r->quark >= o->lim_q ||
	    s < t->smin || s >= o->lim_s || e < t->elast ||
	    ((f & SHT__NFLAG_DURATION) ? d < t->dmin || d >= o->lim_e
				       : e >= o->lim_e) ||
	    (new_end && (f & SHT__NFLAG_ETAB) &&
	     (t->nends >= o->ends_lim ||
	      (t->nends % SHT__ETAB_BLOCK && e - t->eblock >= o->lim_o))))
		return 0;
	/* a value already counted (a new one goes the slow way) */
	prev = &o->iv[t->n - 1];
	k = t->off & SHT__NFLAG_DICT ? -1 : small_index(r->tag, r->payload);
	if (k >= 0) {
		if (!o->vsmall || o->vsmall[k].gen != o->gen)
			return 0;
	} else if (!(t->off & SHT__NFLAG_DICT) &&
		   (prev->tag != r->tag || prev->payload != r->payload)) {
		if (!o->vtab)
			return 0;
		(void)vfind(o, r->tag, r->payload, &found);
		if (!found)
			return 0;
	}
	if (!(f & SHT__NFLAG_DICT) &&
	    (!(t->types & TYPE_BIT(r->tag)) ||
	     ((TYPE_BIT(r->tag) & INT_TYPES)
	      ? sht__bias((sht_time)r->payload) < t->vmin ||
		sht__bias((sht_time)r->payload) >= o->lim_v
	      : r->tag == SHT__TAG_STRING && r->payload >= limit(0, o->lvbits))))
		return 0;
	if (!(t->off & SHT__NFLAG_RUNS)) {
		uint64_t srel, erel;
		struct qref ref;

		if (!qready(o, r->quark) || !qrel(o, r, &srel, &erel))
			return 0;
		ref = qlook(o, r->quark);
		if (ref.found && srel <= ref.rel)
			return 0;
		t->nruns += !ref.found;
		t->nexc += ref.found && srel != (uint64_t)ref.rel + 1;
		qset(o, &ref, r->quark, (uint32_t)erel);
	}
	if (r->quark > t->qmax)
		t->qmax = r->quark;
	if (s > t->smax)
		t->smax = s;
	if (e > t->emax)
		t->emax = e;
	MINMAX(t->dmin, t->dmax, d);
	if (TYPE_BIT(r->tag) & INT_TYPES) {
		uint64_t v = sht__bias((sht_time)r->payload);
		MINMAX(t->vmin, t->vmax, v);
	} else if (r->tag == SHT__TAG_STRING && r->payload > t->str_off_max) {
		t->str_off_max = r->payload;
	}
	if (new_end && !(t->off & SHT__NFLAG_ETAB))
		add_end(t, e);
	x = &o->iv[t->n++];
	*x = *r;
	o->left -= o->inc + heap_add;
	if (t->n == PRUNE_AT)
		prune(t, f);
	return 1;
}

/* Everything add_fast leaves: probe, room (exact), commit. */
static __attribute__((noinline)) int add_slow(struct sht__open *o, const struct sht__oiv *r,
		    uint32_t heap_add, uint32_t max_children,
		    uint32_t block_size)
{
	struct probe p;

	if (probe(o, r, &p) != SHT_OK)
		return SHT_ERR_NOMEM;
	if (!room(o, r, &p, max_children, heap_add, block_size))
		return 0;
	if (o->trk.n == o->cap && grow_records(o) != SHT_OK)
		return SHT_ERR_NOMEM;
	o->iv[o->trk.n] = *r;
	commit(o, &o->iv[o->trk.n], &p, heap_add, block_size);
	return 1;
}

int sht__open_add(struct sht__open *o, const struct sht__oiv *r,
		  uint32_t heap_add, uint32_t max_children,
		  uint32_t block_size)
{
	if (o->trk.n && add_fast(o, r, heap_add))
		return 1;
	return add_slow(o, r, heap_add, max_children, block_size);
}

/* ---- layout ------------------------------------------------------------- */

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

/* Bytes of the dictionary (tag table included). */
static uint64_t dict_bytes(const struct sht__trk *t)
{
	uint64_t bits = 0;

	for (unsigned k = 0; k < SHT__TAG_COUNT; k++)
		if (t->dcount[k])
			bits += (uint64_t)t->dcount[k] * sht__bits(t->dhi[k] - t->dlo[k]);
	return SHT__DICT_HDR + (bits + 7) / 8;
}

/* Values: dictionary or direct, whichever is smaller. */
static void layout_values(const struct sht__trk *t, struct sht__layout *L)
{
	uint64_t n = t->n;
	unsigned tb = (t->types & (t->types - 1)) ? SHT__TBITS : 0;
	unsigned vb = value_bits(t);
	uint64_t db;

	if (!(t->off & SHT__NFLAG_DICT)) {
		db = dict_bytes(t);
		if (8 * db + n * sht__bits(t->nvals - 1) < n * (tb + vb)) {
			L->flags |= SHT__NFLAG_DICT;
			L->dbits = (uint8_t)sht__bits(t->nvals - 1);
			L->dict_bytes = db;
			return;
		}
	}
	L->tbits = (uint8_t)tb;
	L->vbits = (uint8_t)vb;
}

/* Bytes of the end table: a base per block, an offset per end. */
static uint64_t etab_bytes(const struct sht__trk *t)
{
	uint64_t blocks = (t->nends + SHT__ETAB_BLOCK - 1) / SHT__ETAB_BLOCK;

	return (blocks * sht__bits(t->emax - t->emin) + 7) / 8 +
	       ((uint64_t)t->nends * t->obits + 7) / 8;
}

/* Whether the end table beats ends of ew bits. */
static int etab_wins(const struct sht__trk *t, unsigned ew)
{
	uint64_t n = t->n;

	return !(t->off & SHT__NFLAG_ETAB) &&
	       8 * etab_bytes(t) + n * sht__bits(t->nends - 1) < n * ew;
}

static void use_etab(const struct sht__trk *t, struct sht__layout *L)
{
	L->flags |= SHT__NFLAG_ETAB;
	L->ebits = (uint8_t)sht__bits(t->emax - t->emin);
	L->obits = t->obits;
	L->xbits = (uint8_t)sht__bits(t->nends - 1);
	L->etab_bytes = etab_bytes(t);
}

/* Flat records: (quark, start, end, value); ends absolute, as durations
 * or through the end table.  Fills L's time fields, returns bytes. */
static uint64_t layout_flat(const struct sht__trk *t, unsigned vw,
			    struct sht__layout *L)
{
	uint64_t n = t->n;
	unsigned eb = sht__bits(t->emax - t->emin), db = sht__bits(t->dmax - t->dmin);
	unsigned ef = db < eb ? db : eb;

	L->qbits = (uint8_t)sht__bits((uint64_t)t->qmax - t->qmin);
	L->sbits = (uint8_t)sht__bits(t->smax - t->smin);
	if (etab_wins(t, ef)) {
		use_etab(t, L);
	} else {
		L->flags |= db < eb ? SHT__NFLAG_DURATION : 0;
		L->ebits = (uint8_t)ef;
	}
	L->w = (uint32_t)L->qbits + L->sbits + vw +
	       ((L->flags & SHT__NFLAG_ETAB) ? L->xbits : L->ebits);
	L->rec_bytes = (n * L->w + 7) / 8;
	return L->etab_bytes + L->rec_bytes;
}

/* Runs: directory (quark, first record, its start), exceptions (record,
 * start), records (end, value). */
static uint64_t layout_runs(const struct sht__trk *t, unsigned vw,
			    struct sht__layout *L)
{
	uint64_t n = t->n;
	unsigned eb = sht__bits(t->emax - t->emin);

	L->flags |= SHT__NFLAG_RUNS;
	L->qbits = (uint8_t)sht__bits((uint64_t)t->qmax - t->qmin);
	L->sbits = (uint8_t)sht__bits(t->smax - t->smin);
	L->ibits = (uint8_t)sht__bits(n - 1);
	L->ebits = (uint8_t)eb;
	if (etab_wins(t, eb))
		use_etab(t, L);
	L->dir_bytes = ((uint64_t)t->nruns * (L->qbits + L->ibits + L->sbits) + 7) / 8;
	L->exc_bytes = ((uint64_t)t->nexc * (L->ibits + L->sbits) + 7) / 8;
	L->w = vw + ((L->flags & SHT__NFLAG_ETAB) ? L->xbits : L->ebits);
	L->rec_bytes = (n * L->w + 7) / 8;
	return L->etab_bytes + L->dir_bytes + L->exc_bytes + L->rec_bytes;
}

void sht__trk_layout(const struct sht__trk *t, uint8_t kind,
		     uint32_t max_children, uint32_t heap_len,
		     struct sht__layout *L)
{
	struct sht__layout runs;
	uint64_t fb, rb = UINT64_MAX;
	unsigned vw;

	memset(L, 0, sizeof *L);
	L->size = SHT__NODE_HDR + (uint64_t)heap_len +
		  (kind == SHT__KIND_CORE ? (uint64_t)SHT__CHILD_ENTRY * max_children : 0);
	if (t->n == 0)
		return;
	layout_values(t, L);
	vw = L->dbits + L->tbits + L->vbits;
	runs = *L;
	fb = layout_flat(t, vw, L);
	if (!(t->off & SHT__NFLAG_RUNS))
		rb = layout_runs(t, vw, &runs);
	if (rb < fb) {
		*L = runs;
		fb = rb;
	}
	L->size += L->dict_bytes + fb;
}
