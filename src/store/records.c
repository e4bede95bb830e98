/*
 * records.c: reading the records of a parsed node (docs/FORMAT.md §3):
 * flat records, runs (directory and start exceptions), the end table and
 * the value dictionary.
 *
 * sht__node_parse has checked the header and that every area fits in the
 * block; the areas' contents are checked only by sht check.  So every
 * index read from a record is compared with its table's size before use
 * (SHT_ERR_CORRUPT otherwise), run bounds are clamped to the records, and
 * searches stay inside their ranges whatever order the entries are in: a
 * damaged node gives wrong answers or an error, never a read outside it.
 */
#include "store/store-int.h"

static sht_err bad_rec(const struct sht__node *n, uint32_t i, const char *what)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot decode record: block=%llu record=%u: %s",
			  (unsigned long long)n->self, i, what);
}

/* End and value of record i (the fields every layout has). */
static sht_err end_value(const struct sht__node *n, uint32_t i,
			 struct sht__rec *r)
{
	if (!sht__rec_end(n, i, &r->end))
		return bad_rec(n, i, "end index outside the end table");
	if (!sht__rec_value(n, i, &r->tag, &r->payload))
		return bad_rec(n, i, "value index outside the dictionary");
	return SHT_OK;
}

/* ---- flat records ------------------------------------------------------- */

sht_err sht__flat_rec(const struct sht__node *n, uint32_t i,
		      struct sht__rec *r)
{
	r->quark = sht__flat_quark(n, i);
	r->start = sht__flat_start(n, i);
	if (!sht__flat_end(n, i, r->start, &r->end))
		return bad_rec(n, i, "end index outside the end table");
	if (!sht__rec_value(n, i, &r->tag, &r->payload))
		return bad_rec(n, i, "value index outside the dictionary");
	return SHT_OK;
}

uint32_t sht__rec_lower_bound(const struct sht__node *n, uint32_t q)
{
	uint32_t lo = 0, hi = n->n;

	if (q <= n->qmin)
		return 0;
	if (q > n->qmax)
		return n->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__flat_quark(n, mid) < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- runs --------------------------------------------------------------- */

uint32_t sht__run_lower_bound(const struct sht__node *n, uint32_t q)
{
	uint32_t lo = 0, hi = n->nruns;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__run_quark(n, mid) < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t sht__run_find(const struct sht__node *n, uint32_t q)
{
	uint32_t r = sht__run_lower_bound(n, q);

	return r < n->nruns && sht__run_quark(n, r) == q ? r : n->nruns;
}

/* ETAB: index of the first end-table entry >= x (nends if none): the
 * first block whose base is >= x, then the entries of the block before. */
static uint32_t etab_rank(const struct sht__node *n, uint64_t x)
{
	uint32_t blocks = (n->nends + SHT__ETAB_BLOCK - 1) / SHT__ETAB_BLOCK;
	uint32_t lo = 0, hi = blocks, first;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__getbits(n->etab, (uint64_t)mid * n->ebits, n->ebits) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	first = (lo - 1) * SHT__ETAB_BLOCK;
	hi = lo * SHT__ETAB_BLOCK < n->nends ? lo * SHT__ETAB_BLOCK : n->nends;
	lo = first;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__etab_get(n, mid) < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sht__tkey_make(const struct sht__node *n, sht_time t,
		    struct sht__tkey *k)
{
	uint64_t x;

	k->none = 0;
	if (t <= (sht_time)n->ebase) {      /* every end is >= t */
		k->x = 0;
		return;
	}
	x = (uint64_t)t - n->ebase;         /* > 0: t - ebase, no overflow */
	if (!(n->flags & SHT__NFLAG_ETAB)) {
		k->x = x;
		k->none = n->ew < 64 && x >= (UINT64_C(1) << n->ew);
		return;
	}
	k->x = etab_rank(n, x);
	k->none = k->x == n->nends;
}

uint32_t sht__run_seek(const struct sht__node *n, uint32_t a, uint32_t b,
		       const struct sht__tkey *k)
{
	if (k->none)
		return b;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		if (sht__getbits(n->records, (uint64_t)mid * n->w + n->eoff, n->ew) < k->x)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* First exception whose record index is >= i (nexc if none). */
static uint32_t exc_lower_bound(const struct sht__node *n, uint32_t i)
{
	uint32_t lo = 0, hi = n->nexc;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__exc_index(n, mid) < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

sht_err sht__run_start(const struct sht__node *n, uint32_t a, sht_time s0,
		       uint32_t i, sht_time *s)
{
	uint32_t x;
	sht_time prev;

	if (i == a) {
		*s = s0;
		return SHT_OK;
	}
	x = exc_lower_bound(n, i);
	if (x < n->nexc && sht__exc_index(n, x) == i) {
		*s = sht__exc_start(n, x);
		return SHT_OK;
	}
	if (!sht__rec_end(n, i - 1, &prev))
		return bad_rec(n, i - 1, "end index outside the end table");
	*s = (sht_time)((uint64_t)prev + 1);
	return SHT_OK;
}

sht_err sht__run_rec(const struct sht__node *n, uint32_t q, uint32_t a,
		     sht_time s0, uint32_t i, struct sht__rec *r)
{
	sht_err err = end_value(n, i, r);

	r->quark = q;
	return err != SHT_OK ? err : sht__run_start(n, a, s0, i, &r->start);
}

/* ---- cursor ------------------------------------------------------------- */

static void cur_exc(struct sht__cur *c, uint32_t x)
{
	c->exc = x;
	c->xidx = x < c->n->nexc ? sht__exc_index(c->n, x) : UINT32_MAX;
}

static void cur_load_run(struct sht__cur *c)
{
	uint32_t a, b;

	sht__run_get(c->n, c->run, &c->quark, &a, &b, &c->s0);
	c->first = c->i = a;
	c->stop = b;
	c->have_prev = 0;
}

void sht__cur_all(struct sht__cur *c, const struct sht__node *n)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	c->all = 1;
	if (!(n->flags & SHT__NFLAG_RUNS)) {
		c->stop = n->n;
		return;
	}
	if (n->nruns)
		cur_load_run(c);
	cur_exc(c, 0);
}

void sht__cur_from(struct sht__cur *c, const struct sht__node *n,
		   uint32_t r, uint32_t from)
{
	memset(c, 0, sizeof *c);
	c->n = n;
	if (!(n->flags & SHT__NFLAG_RUNS)) {
		c->i = from;
		c->stop = n->n;
		return;
	}
	c->run = r;
	if (r < n->nruns) {
		cur_load_run(c);
		if (from > c->i)
			c->i = from < c->stop ? from : c->stop;
	}
	cur_exc(c, exc_lower_bound(n, c->i));
}

/* RUNS: start of record c->i of the current run. */
static sht_err cur_start(struct sht__cur *c, sht_time *s)
{
	const struct sht__node *n = c->n;
	uint32_t i = c->i;

	while (c->xidx < i)           /* only in a damaged node */
		cur_exc(c, c->exc + 1);
	c->from_exc = 0;
	if (i == c->first) {
		*s = c->s0;
	} else if (c->xidx == i) {
		*s = sht__exc_start(n, c->exc);
		cur_exc(c, c->exc + 1);
		c->from_exc = 1;
		c->used_exc++;
	} else {
		if (!c->have_prev && !sht__rec_end(n, i - 1, &c->prev_end))
			return bad_rec(n, i - 1, "end index outside the end table");
		*s = (sht_time)((uint64_t)c->prev_end + 1);
	}
	return SHT_OK;
}

int sht__cur_next(struct sht__cur *c, struct sht__rec *r)
{
	const struct sht__node *n = c->n;
	sht_err err;

	if (!(n->flags & SHT__NFLAG_RUNS)) {
		if (c->i >= c->stop)
			return 0;
		err = sht__flat_rec(n, c->i++, r);
		return err == SHT_OK ? 1 : err;
	}
	while (c->i >= c->stop) {
		if (!c->all || c->run + 1 >= n->nruns)
			return 0;
		c->run++;
		cur_load_run(c);
	}
	r->quark = c->quark;
	err = end_value(n, c->i, r);
	if (err == SHT_OK)
		err = cur_start(c, &r->start);
	if (err != SHT_OK)
		return err;
	c->prev_end = r->end;
	c->have_prev = 1;
	c->i++;
	return 1;
}
