/*
 * backend-mem.c: intervals kept in memory, per quark in time order (the
 * state system gives each quark its intervals in order), for small traces
 * and tests: no file.  Also the "null" backend, which keeps nothing.
 */
#include <stdlib.h>

#include "state/state-int.h"

struct mem_iv {
	sht_time start, end;
	sht_value v;                 /* string: owned copy */
};

struct mem_quark {
	struct mem_iv *iv;
	size_t n, cap;
};

struct mem {
	struct mem_quark *q;
	size_t nq;
	sht_time last_end;
	int any;
};

sht_err sht__backend_mem_create(void **out)
{
	struct mem *m = calloc(1, sizeof *m);

	if (!m)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the memory backend");
	*out = m;
	return SHT_OK;
}

static sht_err grow_quarks(struct mem *m, sht_quark q)
{
	size_t n = (size_t)q + 1, cap = m->nq ? m->nq : 16;
	struct mem_quark *p;

	if (n <= m->nq)
		return SHT_OK;
	while (cap < n)
		cap *= 2;
	p = realloc(m->q, cap * sizeof *p);
	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot grow the memory backend to %zu quarks", cap);
	memset(p + m->nq, 0, (cap - m->nq) * sizeof *p);
	m->q = p;
	m->nq = cap;
	return SHT_OK;
}

static sht_err push_iv(struct mem_quark *mq, const sht_interval *iv)
{
	struct mem_iv *dst;

	if (mq->n == mq->cap) {
		size_t cap = mq->cap ? 2 * mq->cap : 4;
		struct mem_iv *p = realloc(mq->iv, cap * sizeof *p);
		if (!p)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow the memory backend");
		mq->iv = p;
		mq->cap = cap;
	}
	dst = &mq->iv[mq->n];
	dst->start = iv->start;
	dst->end = iv->end;
	dst->v = iv->value;
	if (iv->value.type == SHT_TYPE_STRING) {
		char *s = malloc((size_t)iv->value.len + 1);
		if (!s)
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a string of %u bytes", iv->value.len);
		if (iv->value.len)
			memcpy(s, iv->value.u.str, iv->value.len);
		s[iv->value.len] = '\0';
		dst->v.u.str = s;
	}
	mq->n++;
	return SHT_OK;
}

static sht_err mem_insert(void *be, const sht_interval *iv)
{
	struct mem *m = be;
	struct mem_quark *mq;
	sht_err err;

	if (iv->start > iv->end || (m->any && iv->end < m->last_end))
		return sht__error(SHT_ERR_ORDER, "Cannot insert interval: quark=%u [%lld, %lld] after end %lld",
				  iv->quark, (long long)iv->start, (long long)iv->end,
				  (long long)m->last_end);
	err = grow_quarks(m, iv->quark);
	if (err != SHT_OK)
		return err;
	mq = &m->q[iv->quark];
	if (mq->n && mq->iv[mq->n - 1].end >= iv->start)
		return sht__error(SHT_ERR_INVALID, "Cannot insert interval: quark=%u [%lld, %lld] overlaps the previous one",
				  iv->quark, (long long)iv->start, (long long)iv->end);
	err = push_iv(mq, iv);
	if (err == SHT_OK) {
		m->last_end = iv->end;
		m->any = 1;
	}
	return err;
}

static sht_err mem_finish(void *be, sht_time end, const void *attrs,
			  size_t attrs_len, const void *prov, size_t prov_len)
{
	(void)be; (void)end; (void)attrs; (void)attrs_len; (void)prov; (void)prov_len;
	return SHT_OK;
}

/* First interval of mq ending at or after t (mq->n if none). */
static size_t first_ending(const struct mem_quark *mq, sht_time t)
{
	size_t lo = 0, hi = mq->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mq->iv[mid].end < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static sht_err append(sht_result *res, sht_quark q, const struct mem_iv *x)
{
	sht_interval iv;

	iv.quark = q;
	iv.start = x->start;
	iv.end = x->end;
	iv.value = x->v;
	return sht_result_append(res, &iv);
}

static sht_err mem_query(void *be, sht_quark q, sht_time t, sht_result *res)
{
	struct mem *m = be;
	size_t i;

	sht_result_clear(res);
	if (q >= m->nq)
		return SHT_NOT_FOUND;
	i = first_ending(&m->q[q], t);
	if (i == m->q[q].n || m->q[q].iv[i].start > t)
		return SHT_NOT_FOUND;
	return append(res, q, &m->q[q].iv[i]);
}

static sht_err mem_query_full(void *be, sht_time t, sht_result *res)
{
	struct mem *m = be;

	sht_result_clear(res);
	for (size_t q = 0; q < m->nq; q++) {
		const struct mem_quark *mq = &m->q[q];
		size_t i = first_ending(mq, t);
		if (i < mq->n && mq->iv[i].start <= t) {
			sht_err err = append(res, (sht_quark)q, &mq->iv[i]);
			if (err != SHT_OK)
				return err;
		}
	}
	return SHT_OK;
}

static sht_err scan_quark(const struct mem *m, sht_quark q, const sht_query2d *qq,
			  sht_result *res)
{
	const struct mem_quark *mq = &m->q[q];

	for (size_t i = first_ending(mq, qq->t1); i < mq->n && mq->iv[i].start <= qq->t2; i++) {
		sht_err err;
		if (!sht__q2d_hits(qq->t1, qq->t2, qq->resolution, mq->iv[i].start, mq->iv[i].end))
			continue;
		err = append(res, q, &mq->iv[i]);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

static sht_err mem_query_2d(void *be, const sht_query2d *qq, sht_result *res)
{
	struct mem *m = be;
	sht_quark *sel = NULL;
	size_t nsel = 0;
	sht_err err = sht__q2d_validate(qq);

	sht_result_clear(res);
	if (err == SHT_OK && qq->quarks)
		err = sht__q2d_selection(qq, &sel, &nsel);
	if (err == SHT_OK && qq->quarks) {
		for (size_t k = 0; err == SHT_OK && k < nsel && sel[k] < m->nq; k++)
			err = scan_quark(m, sel[k], qq, res);
	} else if (err == SHT_OK) {
		for (uint64_t q = qq->qmin; err == SHT_OK && q <= qq->qmax && q < m->nq; q++)
			err = scan_quark(m, (sht_quark)q, qq, res);
	}
	free(sel);
	if (err == SHT_OK)
		sht__q2d_sort(qq, res);
	return err;
}

static void mem_destroy(void *be)
{
	struct mem *m = be;

	if (!m)
		return;
	for (size_t q = 0; q < m->nq; q++) {
		for (size_t i = 0; i < m->q[q].n; i++)
			if (m->q[q].iv[i].v.type == SHT_TYPE_STRING)
				free((char *)(uintptr_t)m->q[q].iv[i].v.u.str);
		free(m->q[q].iv);
	}
	free(m->q);
	free(m);
}

const struct sht__backend_ops sht__backend_mem = {
	"memory", mem_insert, mem_finish, mem_query, mem_query_full,
	mem_query_2d, mem_destroy, NULL,
};

/* ---- null: keeps nothing ------------------------------------------------ */

static sht_err null_insert(void *be, const sht_interval *iv)
{
	(void)be;
	(void)iv;
	return SHT_OK;
}

static sht_err null_query(void *be, sht_quark q, sht_time t, sht_result *res)
{
	(void)be; (void)q; (void)t;
	sht_result_clear(res);
	return sht__error(SHT_ERR_STATE, "Cannot query: the null backend keeps no history");
}

static sht_err null_query_full(void *be, sht_time t, sht_result *res)
{
	return null_query(be, 0, t, res);
}

static sht_err null_query_2d(void *be, const sht_query2d *q, sht_result *res)
{
	return null_query(be, 0, q->t1, res);
}

static void null_destroy(void *be)
{
	(void)be;
}

const struct sht__backend_ops sht__backend_null = {
	"null", null_insert, mem_finish, null_query, null_query_full,
	null_query_2d, null_destroy, NULL,
};
