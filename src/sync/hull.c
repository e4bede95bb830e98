/*
 * hull.c: the fully incremental convex hull algorithm for one pair of
 * hosts, as Trace Compass runs it (SyncAlgorithmFullyIncremental).
 *
 * A matched packet is a point (x, y): x the time on the reference host
 * (the pair's first host in byte order), y the time on the other.  Packets
 * sent by the reference are above the line y = f(x) that maps one clock
 * onto the other (the receive comes later), packets sent by the other
 * host below it.  The algorithm keeps the lower hull of the points above
 * ("lower bound list") and the upper hull of the points below ("upper
 * bound list"), incrementally (a new point removes the points it makes
 * useless from the end of its list), and two lines that separate the
 * sets: lmax, through a point of each list, with the largest slope, and
 * lmin with the smallest.  Each line's points are moved along the other
 * list as new points come (adjust_bound).  The answer is their bisector:
 * slope (amax + amin) / 2 and intercept (bmin + bmax) / 2, in decimals
 * rounded to 34 digits as Trace Compass computes them.
 *
 * Cross products are exact (128-bit); Trace Compass computes them in
 * 64-bit longs, which wrap when a product exceeds 2^63 (points hours
 * apart with millisecond deviations); results are equal below that.
 */
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"

struct pt {
	int64_t x, y;
	uint64_t id;              /* identity (Trace Compass compares objects) */
	size_t idx;               /* index in its list when added */
};

struct plist {
	struct pt *v;
	size_t n, cap;
};

/* A line through two points, either of which may be missing. */
struct line {
	struct pt p[2];
	int has[2];
};

struct sht__hull {
	uint32_t ref, other;
	sht__dec amin, bmax, amax, bmin, alpha, beta;
	uint64_t matches, accurate, next_id;
	sht_sync_quality quality;
	struct plist upper;       /* received by the reference: below */
	struct plist lower;       /* sent by the reference: above */
	struct line lmax, lmin;
};

struct sht__hull *sht__hull_new(uint32_t ref, uint32_t other)
{
	struct sht__hull *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->ref = ref;
	h->other = other;
	sht__dec_init(&h->amin);
	sht__dec_init(&h->bmax);
	sht__dec_init(&h->amax);
	sht__dec_init(&h->bmin);
	sht__dec_init(&h->alpha);
	sht__dec_init(&h->beta);
	sht__dec_set_i64(&h->amin, 1);
	sht__dec_set_i64(&h->amax, 1);
	sht__dec_set_i64(&h->alpha, 1);
	h->quality = SHT_SYNC_ABSENT;
	return h;
}

void sht__hull_free(struct sht__hull *h)
{
	if (!h)
		return;
	sht__dec_clear(&h->amin);
	sht__dec_clear(&h->bmax);
	sht__dec_clear(&h->amax);
	sht__dec_clear(&h->bmin);
	sht__dec_clear(&h->alpha);
	sht__dec_clear(&h->beta);
	free(h->upper.v);
	free(h->lower.v);
	free(h);
}

/* Sign of the cross product (a - p) x (b - p): > 0 counter-clockwise. */
static int cross_sign(const struct pt *p, const struct pt *a,
		      const struct pt *b)
{
	__int128 cp = ((__int128)a->x - p->x) * ((__int128)b->y - p->y) -
		      ((__int128)a->y - p->y) * ((__int128)b->x - p->x);

	return (cp > 0) - (cp < 0);
}

/* Index of q in l (same identity), or -1. */
static long index_of(const struct plist *l, const struct pt *q)
{
	if (q->idx < l->n && l->v[q->idx].id == q->id)
		return (long)q->idx;
	return -1;
}

static int push(struct plist *l, struct pt *p)
{
	struct pt *v;
	size_t cap;

	if (l->n == l->cap) {
		cap = l->cap ? l->cap * 2 : 16;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	p->idx = l->n;
	l->v[l->n++] = *p;
	return 0;
}

/* Drop the points p makes useless from the end of l, then add p. */
static int remove_useless(struct pt *p, struct plist *l, int inv)
{
	while (l->n >= 2 &&
	       cross_sign(p, &l->v[l->n - 2], &l->v[l->n - 1]) * inv > 0)
		l->n--;
	return push(l, p);
}

/* Move line's first point along the other list (l) while that makes the
 * line tighter. */
static void adjust_bound(struct line *ln, const struct plist *l, int inv)
{
	const struct pt *minp = NULL, *next;
	long i = ln->has[0] ? index_of(l, &ln->p[0]) : -1;
	int done = 0;

	if (i < 0)
		i = 0;
	while (i + 1 < (long)l->n && !done) {
		minp = &l->v[i];
		next = &l->v[i + 1];
		if (cross_sign(minp, next, &ln->p[1]) * inv > 0) {
			if (next->x < ln->p[1].x) {
				i++;
			} else {
				ln->has[0] = 0;
				done = 1;
			}
		} else {
			ln->p[0] = *minp;
			ln->has[0] = 1;
			done = 1;
		}
	}
	if (!ln->has[0] && minp) {
		ln->p[0] = *minp;
		ln->has[0] = 1;
	}
	if (ln->has[0] && ln->p[0].x > ln->p[1].x)
		ln->has[0] = 0;
}

/* Slope between p and q (1 if q is missing or vertical). */
static void slope(sht__dec *out, const struct pt *p, const struct pt *q)
{
	sht__dec dy, dx;

	sht__dec_set_i64(out, 1);
	if (!q || p->x == q->x)
		return;
	sht__dec_init(&dy);
	sht__dec_init(&dx);
	sht__dec_set_i64(&dy, p->y - q->y);
	sht__dec_set_i64(&dx, p->x - q->x);
	sht__dec_div_mc(out, &dy, &dx);
	sht__dec_clear(&dy);
	sht__dec_clear(&dx);
}

/* Intercept of the line of slope a through p: y - round(a * x). */
static void intercept(sht__dec *out, const struct pt *p, const sht__dec *a)
{
	sht__dec x, y;

	sht__dec_init(&x);
	sht__dec_init(&y);
	sht__dec_set_i64(&x, p->x);
	sht__dec_set_i64(&y, p->y);
	sht__dec_mul_mc(&x, a, &x);
	sht__dec_sub(out, &y, &x);
	sht__dec_clear(&x);
	sht__dec_clear(&y);
}

/* The bisector of lmax and lmin, and the quality. */
static void approximate(struct sht__hull *h)
{
	sht__dec amax, amin, two;
	sht_sync_quality q;

	if (!h->lmax.has[0] && !h->lmin.has[0]) {
		if ((!h->lmax.has[0] && !h->lmin.has[1]) ||
		    (!h->lmax.has[1] && !h->lmin.has[0]))
			h->quality = SHT_SYNC_INCOMPLETE;
		return;
	}
	if (h->quality == SHT_SYNC_FAIL)
		return;              /* the last good result stays */
	sht__dec_init(&amax);
	sht__dec_init(&amin);
	sht__dec_init(&two);
	slope(&amax, &h->lmax.p[1], h->lmax.has[0] ? &h->lmax.p[0] : NULL);
	slope(&amin, &h->lmin.p[1], h->lmin.has[0] ? &h->lmin.p[0] : NULL);
	if (!h->lmax.has[0] || !h->lmin.has[0])
		q = SHT_SYNC_APPROXIMATE;
	else if (sht__dec_cmp(&amax, &amin) > 0)
		q = SHT_SYNC_ACCURATE;
	else
		q = SHT_SYNC_FAIL;   /* the lines cross */
	if (q != SHT_SYNC_FAIL) {
		sht__dec_set_i64(&two, 2);
		sht__dec_set(&h->amax, &amax);
		intercept(&h->bmin, &h->lmax.p[1], &h->amax);
		sht__dec_set(&h->amin, &amin);
		intercept(&h->bmax, &h->lmin.p[1], &h->amin);
		sht__dec_add(&h->alpha, &h->amax, &h->amin);
		sht__dec_div_mc(&h->alpha, &h->alpha, &two);
		sht__dec_add(&h->beta, &h->bmin, &h->bmax);
		sht__dec_div_mc(&h->beta, &h->beta, &two);
	}
	h->quality = q;
	sht__dec_clear(&amax);
	sht__dec_clear(&amin);
	sht__dec_clear(&two);
}

int sht__hull_add(struct sht__hull *h, uint32_t from, int64_t send_ts,
		  uint32_t to, int64_t recv_ts)
{
	struct plist *bl, *obl;
	struct line *ln, *oln;
	struct pt p;
	int inv, qualify = 0;

	h->matches++;
	memset(&p, 0, sizeof(p));
	p.id = ++h->next_id;
	if (from > to) {              /* sent by the other host */
		bl = &h->upper;
		obl = &h->lower;
		ln = &h->lmin;
		oln = &h->lmax;
		p.x = recv_ts;
		p.y = send_ts;
		inv = 1;
	} else {                      /* sent by the reference */
		bl = &h->lower;
		obl = &h->upper;
		ln = &h->lmax;
		oln = &h->lmin;
		p.x = send_ts;
		p.y = recv_ts;
		inv = -1;
	}
	if (!ln->has[0] || !ln->has[1] ||
	    cross_sign(&p, &ln->p[0], &ln->p[1]) * inv > 0) {
		h->accurate++;
		qualify = 1;
		if (remove_useless(&p, bl, inv) != 0)
			return -1;
		ln->p[1] = p;
		ln->has[1] = 1;
	}
	adjust_bound(ln, obl, inv);
	if (oln->has[1] && (!oln->has[0] || index_of(bl, &oln->p[0]) < 0))
		adjust_bound(oln, bl, -inv);
	if (qualify)
		approximate(h);
	return 0;
}

uint32_t sht__hull_ref(const struct sht__hull *h)
{
	return h->ref;
}

uint32_t sht__hull_other(const struct sht__hull *h)
{
	return h->other;
}

sht_sync_quality sht__hull_quality(const struct sht__hull *h)
{
	return h->quality;
}

void sht__hull_counts(const struct sht__hull *h, uint64_t *matches,
		      uint64_t *accurate, uint64_t *points)
{
	*matches = h->matches;
	*accurate = h->accurate;
	*points = h->upper.n + h->lower.n;
}

sht_err sht__hull_transform(const struct sht__hull *h, sht_transform **out)
{
	sht__dec one, s, o;
	sht_err err;

	if (h->quality != SHT_SYNC_ACCURATE &&
	    h->quality != SHT_SYNC_APPROXIMATE && h->quality != SHT_SYNC_FAIL)
		return sht_transform_identity(out);
	sht__dec_init(&one);
	sht__dec_init(&s);
	sht__dec_init(&o);
	sht__dec_set_i64(&one, 1);
	sht__dec_div_mc(&s, &one, &h->alpha);
	sht__dec_neg(&o, &h->beta);
	sht__dec_div_mc(&o, &o, &h->alpha);
	err = sht__transform_new(&s, &o, out);
	sht__dec_clear(&one);
	sht__dec_clear(&s);
	sht__dec_clear(&o);
	return err;
}

void sht__hull_accuracy(const struct sht__hull *h, sht__dec *out)
{
	sht__dec_sub(out, &h->amax, &h->amin);
}

void sht__hull_slopes(const struct sht__hull *h, sht__dec *amax,
		      sht__dec *amin)
{
	sht__dec_set(amax, &h->amax);
	sht__dec_set(amin, &h->amin);
}

void sht__hull_formula(const struct sht__hull *h, sht__dec *alpha,
		       sht__dec *beta)
{
	sht__dec_set(alpha, &h->alpha);
	sht__dec_set(beta, &h->beta);
}
