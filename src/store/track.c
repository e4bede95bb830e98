/*
 * track.c: the size of an open node, exact at every insert, and the
 * choice of its layout (docs/FORMAT.md §3, "Choosing a layout").
 *
 * Each record added changes the counts of struct sht__trk in O(1):
 *   - minima and maxima give the field widths;
 *   - distinct quarks and start exceptions (run directory) come from a
 *     table of the quarks seen in the node, with their latest end;
 *   - distinct ends (end table): ends reach a node in non-decreasing
 *     order, so an end is new when it differs from the latest one;
 *   - distinct values per type (dictionary) come from a table of the
 *     values seen, with their insertion rank.
 * sht__trk_layout turns the counts into the smallest layout and its size
 * in bytes; the encoder writes exactly that layout (and checks that its
 * records agree with the counts), so a node is closed exactly when the
 * next record would not fit, and never overflows its block.
 *
 * A layout that cannot be used is ruled out for the rest of the node
 * (trk.off): the run directory when a quark's records overlap or come out
 * of start order, the end table when ends come out of order (neither
 * happens in a valid history), and, to save the table look-ups, either
 * one when half the block's records are in and it is clearly the larger.
 */
#include <stdlib.h>

#include "store/store-int.h"

#define TYPE_BIT(tag) (1u << (tag))
#define INT_TYPES (TYPE_BIT(SHT__TAG_INT32) | TYPE_BIT(SHT__TAG_INT64))
#define MINMAX(lo, hi, x) do { if ((x) < (lo)) (lo) = (x); \
			       if ((x) > (hi)) (hi) = (x); } while (0)

/* Records after which a layout that is not chosen and is clearly larger
 * (7/8 of the records would be runs or distinct values) is dropped. */
#define PRUNE_AT 4096u

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

/* Slot of quark q, or the empty slot where it would go (*found = 0). */
static uint32_t qfind(const struct sht__open *o, uint32_t q, int *found)
{
	uint32_t i = qhash(q) & o->qmask;

	for (;; i = (i + 1) & o->qmask) {
		const struct sht__qslot *e = &o->qtab[i];
		if (e->gen != o->gen || e->quark == q) {
			*found = e->gen == o->gen;
			return i;
		}
	}
}

static uint32_t vfind(const struct sht__open *o, uint8_t tag, uint64_t payload,
		      int *found)
{
	uint32_t i = (uint32_t)vhash(tag, payload) & o->vmask;

	for (;; i = (i + 1) & o->vmask) {
		const struct sht__vslot *e = &o->vtab[i];
		if (e->gen != o->gen || (e->payload == payload && e->tag == tag)) {
			*found = e->gen == o->gen;
			return i;
		}
	}
}

/* Grow a table to hold count + 1 entries at load <= 1/2. */
static sht_err qgrow(struct sht__open *o, uint32_t count)
{
	uint32_t size = o->qtab ? o->qmask + 1 : 0, nsize = size ? 2 * size : 256;
	struct sht__qslot *old = o->qtab;
	int found;

	if (2 * ((uint64_t)count + 1) <= size)
		return SHT_OK;
	o->qtab = calloc(nsize, sizeof *o->qtab);
	if (!o->qtab) {
		o->qtab = old;
		return SHT_ERR_NOMEM;
	}
	o->qmask = nsize - 1;
	for (uint32_t i = 0; i < size; i++)
		if (old[i].gen == o->gen)
			o->qtab[qfind(o, old[i].quark, &found)] = old[i];
	free(old);
	return SHT_OK;
}

static sht_err vgrow(struct sht__open *o, uint32_t count)
{
	uint32_t size = o->vtab ? o->vmask + 1 : 0, nsize = size ? 2 * size : 256;
	struct sht__vslot *old = o->vtab;
	int found;

	if (count + 1 > o->vals_cap) {
		uint32_t cap = o->vals_cap ? 2 * o->vals_cap : 128;
		struct sht__val *v = realloc(o->vals, (size_t)cap * sizeof *v);
		if (!v)
			return SHT_ERR_NOMEM;
		o->vals = v;
		o->vals_cap = cap;
	}
	if (2 * ((uint64_t)count + 1) <= size)
		return SHT_OK;
	o->vtab = calloc(nsize, sizeof *o->vtab);
	if (!o->vtab) {
		o->vtab = old;
		return SHT_ERR_NOMEM;
	}
	o->vmask = nsize - 1;
	for (uint32_t i = 0; i < size; i++)
		if (old[i].gen == o->gen)
			o->vtab[vfind(o, old[i].tag, old[i].payload, &found)] = old[i];
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
	if (++o->gen == 0) {         /* wrapped: empty the tables for real */
		if (o->qtab)
			memset(o->qtab, 0, ((size_t)o->qmask + 1) * sizeof *o->qtab);
		if (o->vtab)
			memset(o->vtab, 0, ((size_t)o->vmask + 1) * sizeof *o->vtab);
		o->gen = 1;
	}
}

void sht__open_track_free(struct sht__open *o)
{
	free(o->qtab);
	free(o->vtab);
	free(o->vals);
	o->qtab = NULL;
	o->vtab = NULL;
	o->vals = NULL;
	o->vals_cap = 0;
}

/* ---- counting ----------------------------------------------------------- */

static sht_err probe_quark(struct sht__open *o, const struct sht__oiv *r,
			   struct sht__probe *p)
{
	struct sht__trk *t = &p->t;
	uint64_t s = sht__bias(r->start), last;
	int found;

	if (qgrow(o, t->nruns) != SHT_OK)
		return SHT_ERR_NOMEM;
	p->qpos = qfind(o, r->quark, &found);
	if (!found) {
		t->nruns++;
		p->new_quark = 1;
		return SHT_OK;
	}
	last = o->qtab[p->qpos].last_end;
	if (s <= last)
		t->off |= SHT__NFLAG_RUNS;   /* overlap or out of order */
	else if (s != last + 1)
		t->nexc++;
	return SHT_OK;
}

static sht_err probe_value(struct sht__open *o, const struct sht__oiv *r,
			   struct sht__probe *p)
{
	struct sht__trk *t = &p->t;
	const struct sht__oiv *prev = o->trk.n ? &o->iv[o->trk.n - 1] : NULL;
	uint32_t nd = 0;
	uint64_t key;
	int found;

	if (prev && prev->tag == r->tag && prev->payload == r->payload) {
		p->vrank = prev->vslot;
		return SHT_OK;
	}
	for (unsigned k = 0; k < SHT__TAG_COUNT; k++)
		nd += t->dcount[k];
	if (vgrow(o, nd) != SHT_OK)
		return SHT_ERR_NOMEM;
	p->vpos = vfind(o, r->tag, r->payload, &found);
	if (found) {
		p->vrank = o->vtab[p->vpos].rank;
		return SHT_OK;
	}
	key = sht__value_key(r->tag, r->payload);
	t->dcount[r->tag]++;
	MINMAX(t->dlo[r->tag], t->dhi[r->tag], key);
	p->vrank = nd;
	p->new_value = 1;
	return SHT_OK;
}

sht_err sht__open_probe(struct sht__open *o, const struct sht__oiv *r,
			struct sht__probe *p)
{
	struct sht__trk *t = &p->t;
	uint64_t s = sht__bias(r->start), e = sht__bias(r->end);
	uint64_t d = (uint64_t)r->end - (uint64_t)r->start;
	sht_err err = SHT_OK;

	*t = o->trk;
	p->new_quark = p->new_value = 0;
	p->qpos = p->vpos = p->vrank = 0;
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
	if (t->n && e < t->elast) {
		t->off |= SHT__NFLAG_ETAB;
	} else if (!t->n || e != t->elast) {
		t->nends++;
		t->elast = e;
	}
	if (!(t->off & SHT__NFLAG_RUNS))
		err = probe_quark(o, r, p);
	if (err == SHT_OK && !(t->off & SHT__NFLAG_DICT))
		err = probe_value(o, r, p);
	t->n++;
	return err;
}

/* Drop a layout that is not chosen and clearly larger (see the top). */
static void prune(struct sht__trk *t, uint8_t chosen)
{
	uint64_t nd = 0;

	for (unsigned k = 0; k < SHT__TAG_COUNT; k++)
		nd += t->dcount[k];
	if (!(chosen & SHT__NFLAG_RUNS) && 8 * (uint64_t)t->nruns > 7 * (uint64_t)t->n)
		t->off |= SHT__NFLAG_RUNS;
	if (!(chosen & SHT__NFLAG_DICT) && 8 * nd > 7 * (uint64_t)t->n)
		t->off |= SHT__NFLAG_DICT;
}

void sht__open_commit(struct sht__open *o, struct sht__oiv *r,
		      const struct sht__probe *p, uint8_t chosen)
{
	if (!(p->t.off & SHT__NFLAG_RUNS)) {
		struct sht__qslot *q = &o->qtab[p->qpos];
		q->quark = r->quark;
		q->gen = o->gen;
		q->last_end = sht__bias(r->end);
	}
	r->vslot = p->vrank;
	if (!(p->t.off & SHT__NFLAG_DICT) && p->new_value) {
		struct sht__vslot *v = &o->vtab[p->vpos];
		v->payload = r->payload;
		v->tag = r->tag;
		v->gen = o->gen;
		v->rank = p->vrank;
		o->vals[p->vrank].payload = r->payload;
		o->vals[p->vrank].tag = r->tag;
	}
	r->eslot = p->t.nends - 1;
	o->trk = p->t;
	if (o->trk.n == PRUNE_AT)
		prune(&o->trk, chosen);
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

/* Bytes of the dictionary's values (tag table included), and the
 * number of distinct values. */
static uint64_t dict_bytes(const struct sht__trk *t, uint32_t *nd)
{
	uint64_t bits = 0;

	*nd = 0;
	for (unsigned k = 0; k < SHT__TAG_COUNT; k++) {
		if (!t->dcount[k])
			continue;
		*nd += t->dcount[k];
		bits += (uint64_t)t->dcount[k] * sht__bits(t->dhi[k] - t->dlo[k]);
	}
	return SHT__DICT_HDR + (bits + 7) / 8;
}

/* Values: dictionary or direct, whichever is smaller. */
static void layout_values(const struct sht__trk *t, struct sht__layout *L)
{
	uint64_t n = t->n;
	unsigned tb = (t->types & (t->types - 1)) ? SHT__TBITS : 0;
	unsigned vb = value_bits(t);
	uint32_t nd;
	uint64_t db;

	if (!(t->off & SHT__NFLAG_DICT)) {
		db = dict_bytes(t, &nd);
		if (8 * db + n * sht__bits(nd - 1) < n * (tb + vb)) {
			L->flags |= SHT__NFLAG_DICT;
			L->dbits = (uint8_t)sht__bits(nd - 1);
			L->dict_bytes = db;
			return;
		}
	}
	L->tbits = (uint8_t)tb;
	L->vbits = (uint8_t)vb;
}

/* Whether the end table beats ends of ew bits. */
static int etab_wins(const struct sht__trk *t, unsigned ew)
{
	uint64_t n = t->n, eb = sht__bits(t->emax - t->emin);

	return !(t->off & SHT__NFLAG_ETAB) &&
	       8 * ((t->nends * eb + 7) / 8) + n * sht__bits(t->nends - 1) < n * ew;
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
		L->flags |= SHT__NFLAG_ETAB;
		L->ebits = (uint8_t)eb;
		L->xbits = (uint8_t)sht__bits(t->nends - 1);
		L->etab_bytes = (t->nends * eb + 7) / 8;
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
	if (etab_wins(t, eb)) {
		L->flags |= SHT__NFLAG_ETAB;
		L->xbits = (uint8_t)sht__bits(t->nends - 1);
		L->etab_bytes = (t->nends * eb + 7) / 8;
	}
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
