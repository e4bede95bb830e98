/*
 * res-sysplan.c: the system-call labels of a Resources screen looked up
 * before its rows are written (res.h).
 *
 * A CPU's "System call" state is labelled with the System_call of the
 * thread it runs at the state's first requested time: a point query per
 * label (the last interval found kept per thread), about 1 000 per CPU
 * on a whole-trace screen of a busy trace, the greater part of the cost
 * of a CPU's row.  Looked up while the rows are written, they all fall
 * on the rows of the CPUs, which cannot be cut finer than a row: the
 * thread that writes three CPUs' rows takes half again as long as the
 * one that writes one CPU's and the IRQs' (2 GB trace: 17 and 11 ms).
 * Looked up first, sorted by thread and time, they are cut in two
 * halves at a thread's boundary (each thread's intervals then come from
 * one worker, in time order) and looked up on two threads; the rows are
 * then written from the two workers' lists with no point query, and
 * their weights split evenly.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "res.h"

#define PLAN_PAR 256            /* needs for a second thread */

static int cmp_need(const void *x, const void *y)
{
	const struct res_need *a = x, *b = y;

	if (a->tq != b->tq)
		return (a->tq > b->tq) - (a->tq < b->tq);
	return (a->at > b->at) - (a->at < b->at);
}

struct worker {
	struct rstates *s;
	const struct res_need *need;
	size_t from, to;
	unsigned w;
	sht_result *one;
	int err;
};

/* Thread tq's System_call quark, looked up once (LAZY: not yet). */
static sht_quark sys_quark(struct rstates *s, struct tid_q *tq)
{
	char name[24];
	sht_quark x = tq->thread;

	if (tq->sys != LAZY)
		return tq->sys;
	pthread_rwlock_rdlock(&s->q.h->attrs.lock);
	if (x == NONE)
		x = srv_attrs_child(&s->q.h->attrs, s->threads, srv_itoa(tq->tid, name));
	tq->sys = x == NONE ? NONE : srv_attrs_child(&s->q.h->attrs, x, "System_call");
	pthread_rwlock_unlock(&s->q.h->attrs.lock);
	return tq->sys;
}

/* Append to the worker's plan the interval of tq's system call holding
 * at (a 1 ns one without a name if none does). */
static int add(struct worker *k, struct tid_q *tq, sht_time at)
{
	struct res_sysplan *p = &k->s->plan[k->w];
	const sht_interval *iv;
	struct res_sysiv *x;

	if (srv_hq_at(&k->s->q, tq->sys, at, k->one) != SHT_OK)
		return 0;                /* res_sys_at asks again */
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct res_sysiv *v = realloc(p->v, cap * sizeof *v);

		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	x = &p->v[p->n];
	x->lo = x->hi = at;
	x->len = -1;
	if (sht_result_count(k->one) > 0) {
		iv = sht_result_items(k->one);
		x->lo = iv->start;
		x->hi = iv->end;
		if (iv->value.type == SHT_TYPE_STRING) {
			x->off = p->names.len;
			srv_buf_put(&p->names, iv->value.u.str, iv->value.len);
			if (p->names.oom)
				return -1;
			x->len = (int64_t)iv->value.len;
		}
	}
	if (tq->plan_n == 0) {
		tq->plan_w = k->w;
		tq->plan_lo = p->n;
	}
	tq->plan_n++;
	p->n++;
	return 0;
}

/* The needs [from, to), sorted: a thread's are met in time order and
 * skipped while the last interval found holds them. */
static void *resolve(void *arg)
{
	struct worker *k = arg;
	const struct res_sysplan *p = &k->s->plan[k->w];

	for (size_t i = k->from; i < k->to && k->err == 0; i++) {
		struct tid_q *tq = &k->s->tids[k->need[i].tq];
		sht_time at = k->need[i].at;

		if (tq->plan_n > 0 && at <= p->v[tq->plan_lo + tq->plan_n - 1].hi)
			continue;
		if (sys_quark(k->s, tq) != NONE)
			k->err = add(k, tq, at);
	}
	return NULL;
}

/* Where the second worker begins: about half, at a thread's first need. */
static size_t cut_at(const struct res_need *need, size_t n)
{
	size_t c = n / 2;

	while (c < n && c > 0 && need[c].tq == need[c - 1].tq)
		c++;
	return c;
}

int res_sys_plan(struct rstates *s, struct res_need *need, size_t n,
		 unsigned threads)
{
	struct worker k[2];
	pthread_t th;
	int two;

	qsort(need, n, sizeof *need, cmp_need);
	memset(k, 0, sizeof k);
	for (unsigned w = 0; w < 2; w++) {
		k[w].s = s;
		k[w].need = need;
		k[w].w = w;
	}
	k[0].to = k[1].from = threads >= 2 && n >= PLAN_PAR ? cut_at(need, n) : n;
	k[1].to = n;
	k[0].one = sht_result_create();
	k[1].one = k[1].from < n ? sht_result_create() : NULL;
	if (!k[0].one || (k[1].from < n && !k[1].one)) {
		sht_result_destroy(k[0].one);
		sht_result_destroy(k[1].one);
		return -1;
	}
	two = k[1].from < n && pthread_create(&th, NULL, resolve, &k[1]) == 0;
	resolve(&k[0]);
	if (two)
		pthread_join(th, NULL);
	else if (k[1].from < n)
		resolve(&k[1]);         /* no thread to be had: here */
	sht_result_destroy(k[0].one);
	sht_result_destroy(k[1].one);
	return k[0].err || k[1].err ? -1 : 0;
}

void res_sys_plan_free(struct rstates *s)
{
	for (unsigned w = 0; w < 2; w++) {
		free(s->plan[w].v);
		srv_buf_free(&s->plan[w].names);
		memset(&s->plan[w], 0, sizeof s->plan[w]);
	}
}
