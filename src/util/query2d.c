/*
 * query2d.c: the parts of a 2D query every backend shares: the sampling
 * rule, the quark selection, the validation and the order by quark of a
 * full query (a 2D answer's orders: sort-time.c).
 */
#include <stdlib.h>

#include "util/result-int.h"

int sht__q2d_hits(sht_time t1, sht_time t2, sht_time r, sht_time s, sht_time e)
{
	sht_time a = s > t1 ? s : t1, b = e < t2 ? e : t2;
	uint64_t off, step, rem;

	if (a > b)
		return 0;
	if (r <= 0 || b == t2)
		return 1;
	off = (uint64_t)a - (uint64_t)t1;
	step = (uint64_t)r;
	rem = off % step;
	if (rem && step - rem > UINT64_MAX - off)
		return 0;
	return (rem ? off + (step - rem) : off) <= (uint64_t)b - (uint64_t)t1;
}

sht_err sht__q2d_validate(const sht_query2d *q)
{
	if (q->t1 > q->t2 || q->resolution < 0 ||
	    (!q->quarks && (q->qmin > q->qmax || q->n_quarks)))
		return sht__error(SHT_ERR_INVALID, "Cannot run 2D query: t1=%lld t2=%lld resolution=%lld quarks %u..%u",
				  (long long)q->t1, (long long)q->t2,
				  (long long)q->resolution, q->qmin, q->qmax);
	if (q->order != SHT_ORDER_TIME && q->order != SHT_ORDER_QUARK)
		return sht__error(SHT_ERR_INVALID, "Cannot run 2D query: order=%d unknown",
				  (int)q->order);
	return SHT_OK;
}

static int cmp_quark_id(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;
	return x < y ? -1 : x > y;
}

int sht__quark_in(const sht_quark *sel, size_t n, sht_quark q)
{
	return bsearch(&q, sel, n, sizeof *sel, cmp_quark_id) != NULL;
}

sht_err sht__q2d_selection(const sht_query2d *q, sht_quark **out, size_t *n)
{
	size_t k = 0;
	sht_quark *s = malloc((q->n_quarks ? q->n_quarks : 1) * sizeof *s);

	if (!s)
		return sht__error(SHT_ERR_NOMEM, "Cannot copy %zu quarks", q->n_quarks);
	if (q->n_quarks) {
		memcpy(s, q->quarks, q->n_quarks * sizeof *s);
		qsort(s, q->n_quarks, sizeof *s, cmp_quark_id);
	}
	for (size_t i = 0; i < q->n_quarks; i++)
		if (k == 0 || s[k - 1] != s[i])
			s[k++] = s[i];
	*out = s;
	*n = k;
	return SHT_OK;
}

static int cmp_quark(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;
	return x->quark < y->quark ? -1 : x->quark > y->quark;
}

void sht__result_sort_quark(sht_result *res)
{
	if (res->count > 1)
		qsort(res->items, res->count, sizeof *res->items, cmp_quark);
}
