/*
 * cpu-cum.c: CPU Usage from the cumulative CPU time history (cpuacc.c).
 *
 * The CPU time of thread x over [0, t] is, summed over the CPUs n,
 *
 *   C(x, t) = value of CPUs/<n>/<x> at t              (null: 0)
 *           + t - s + 1 if n runs x at t, its running interval
 *             (CPUs/<n>/running, the kernel's Current_thread) starting
 *             at s,
 *
 * with t clamped to the history's end, and 0 before its start.  A range
 * (a, b] costs C(b) - C(a): the tree takes every attribute at two times;
 * a chart the ticked threads' attributes at each sample time, all in one
 * sampled 2D query of that history (the samples of a chart are evenly
 * spaced, as the query's resolution).  Every attribute of a history has
 * an interval at every time of its range, so a missing one means the
 * histories disagree: the caller then sums the intervals instead.
 */
#include <stdlib.h>
#include <string.h>

#include "cpucum.h"
#include "tg.h"

#define NONE SHT_QUARK_NONE

static sht_quark *child_of_cpus(struct srv_hist *h, const char *name, size_t *n)
{
	const struct srv_attrs *a = &h->attrs;
	sht_quark cpus, *v = NULL;
	size_t k = 0, cap = 0;

	pthread_rwlock_rdlock(&h->attrs.lock);
	cpus = srv_attrs_child(a, NONE, "CPUs");
	for (sht_quark c = cpus == NONE ? NONE : srv_attrs_first(a, cpus);
	     c != NONE; c = srv_attrs_next(a, c)) {
		sht_quark ct = srv_attrs_child(a, c, name);

		if (ct == NONE)
			continue;
		if (k == cap) {
			void *p = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
			if (!p)
				break;
			v = p;
		}
		v[k++] = ct;
	}
	pthread_rwlock_unlock(&h->attrs.lock);
	*n = k;
	return v;
}

sht_quark *srv_cpu_running_quarks(struct srv_hist *h, size_t *n)
{
	return child_of_cpus(h, "Current_thread", n);
}

/* The quarks qa[0..na) then CPUs/<n>/running of the cumulative history
 * (*nr of them): one array (malloc'd). */
static sht_quark *with_running(struct srv_hist *h, sht_quark *qa, size_t na,
			       size_t *nr)
{
	sht_quark *qr = child_of_cpus(h, "running", nr);
	sht_quark *v = qr || !*nr ? realloc(qa, (na + *nr + 1) * sizeof *v) : NULL;

	if (v && *nr)
		memcpy(v + na, qr, *nr * sizeof *v);
	free(qr);
	if (!v)
		free(qa);
	return v;
}

int srv_cpucum_ready(const struct srv_hq *kq, const struct srv_hq *cq)
{
	return kq->status == SRV_COMPLETED && cq->status == SRV_COMPLETED &&
	       kq->valid && cq->valid && kq->rd && cq->rd &&
	       kq->start == cq->start && kq->end == cq->end;
}

/* The intervals of qs holding the sample times T[0..nt) (clamped to the
 * history), grouped by quark; step > 0: the times from the first inside
 * the history are evenly spaced (but for the last). */
static int sampled(struct srv_hq *q, const sht_quark *qs, size_t nq,
		   const sht_time *T, size_t nt, sht_time step,
		   sht_result *res, struct tg_group *g)
{
	sht_query2d qq;
	sht_time t1, t2 = T[nt - 1] < q->end ? T[nt - 1] : q->end;
	size_t i = 0;

	while (i < nt && T[i] < q->start)  /* the first sample time inside */
		i++;
	t1 = i < nt ? T[i] : t2;
	if (t1 > t2)
		t1 = t2;
	sht_result_clear(res);
	memset(&qq, 0, sizeof qq);
	qq.quarks = qs;
	qq.n_quarks = nq;
	qq.t1 = t1;
	qq.t2 = t2;
	qq.resolution = step > 0 ? step : 0;
	qq.order = SHT_ORDER_QUARK;          /* as tg_group reads it */
	if (nq && t2 >= q->start && sht_reader_query_2d(q->rd, &qq, res) != SHT_OK)
		return -1;
	return tg_group(g, res);
}

/* The interval of quark holding t (clamped to the end); *iv NULL before
 * the start.  -1 if the history has none. */
static int at(const struct srv_hq *q, const struct tg_group *g, sht_quark quark,
	      sht_time t, const sht_interval **iv)
{
	*iv = NULL;
	if (t < q->start)
		return 0;
	*iv = tg_group_at(g, quark, t < q->end ? t : q->end);
	return *iv ? 0 : -1;
}

static int64_t cum_of(const sht_interval *iv)
{
	return iv && iv->value.type == SHT_TYPE_INT64 ? iv->value.u.i64 : 0;
}

/* The running thread of the CPU of running quark r at t and the time it
 * has run up to t (tid 0: none). */
static int running_at(const struct srv_hq *cq, const struct tg_group *g,
		      sht_quark r, sht_time t, int32_t *tid, int64_t *ns)
{
	const sht_interval *iv;

	*tid = 0;
	*ns = 0;
	if (at(cq, g, r, t, &iv) != 0)
		return -1;
	if (iv && iv->value.type == SHT_TYPE_INT32 && iv->value.u.i32 > 0) {
		*tid = iv->value.u.i32;
		*ns = (t < cq->end ? t : cq->end) - iv->start + 1;
	}
	return 0;
}

/* ---- tree ------------------------------------------------------------------ */

/* Every CPUs/<n>/<tid> attribute of the cumulative history: quarks and
 * tids (*n; malloc'd). */
static sht_quark *thread_attrs(struct srv_hist *h, int64_t **tids, size_t *n)
{
	const struct srv_attrs *a = &h->attrs;
	sht_quark cpus, *v = NULL;
	size_t k = 0, cap = 0;

	*tids = NULL;
	pthread_rwlock_rdlock(&h->attrs.lock);
	cpus = srv_attrs_child(a, NONE, "CPUs");
	for (sht_quark c = cpus == NONE ? NONE : srv_attrs_first(a, cpus);
	     c != NONE; c = srv_attrs_next(a, c))
		for (sht_quark x = srv_attrs_first(a, c); x != NONE;
		     x = srv_attrs_next(a, x)) {
			char *end;
			long long tid = strtoll(a->name[x], &end, 10);

			if (*end || end == a->name[x])
				continue;           /* busy, running */
			if (k == cap) {
				size_t m = cap ? cap * 2 : 256;
				void *p = realloc(v, m * sizeof *v), *r;

				if (p)
					v = p;
				r = p ? realloc(*tids, m * sizeof **tids) : NULL;
				if (!r)
					goto out;
				*tids = r;
				cap = m;
			}
			v[k] = x;
			(*tids)[k++] = tid;
		}
out:
	pthread_rwlock_unlock(&h->attrs.lock);
	*n = k;
	return v;
}

static int cmp_usage(const void *x, const void *y)
{
	const struct cpu_usage *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Sort u[0..k) by tid, merge equal tids, keep those that ran; NULL if a
 * thread's time came out negative (inconsistent histories). */
static struct cpu_usage *merge(struct cpu_usage *u, size_t k, size_t *n,
			       int64_t *total)
{
	size_t m = 0;

	qsort(u, k, sizeof *u, cmp_usage);
	for (size_t i = 0; i < k; i++)
		if (m && u[m - 1].tid == u[i].tid)
			u[m - 1].ns += u[i].ns;
		else
			u[m++] = u[i];
	*n = 0;
	*total = 0;
	for (size_t i = 0; i < m; i++) {
		if (u[i].ns < 0) {
			free(u);
			return NULL;
		}
		if (u[i].ns > 0) {
			*total += u[i].ns;
			u[(*n)++] = u[i];
		}
	}
	return u;
}

/* The entries (tid, +-ns) of the range: attributes, then running parts. */
static struct cpu_usage *deltas(struct srv_hq *kq, struct srv_hq *cq,
				const sht_time T[2], size_t *k)
{
	size_t na = 0, nc = 0;
	int64_t *tids = NULL;
	sht_quark *qa = thread_attrs(cq->h, &tids, &na);
	sht_quark *qc;
	sht_result *ra = sht_result_create();
	struct tg_group ga = { 0 };
	struct cpu_usage *u;
	uint64_t d = srv_span(T[0], T[1]);
	sht_time step = d <= INT64_MAX ? (sht_time)d : INT64_MAX;   /* 2 or 3 samples */
	int ok;

	(void)kq;
	qa = with_running(cq->h, qa, na, &nc);
	qc = qa ? qa + na : NULL;
	u = malloc((na + 2 * nc + 1) * sizeof *u);
	ok = u && ra && qa && sampled(cq, qa, na + nc, T, 2, step, ra, &ga) == 0;

	*k = 0;
	for (size_t i = 0; ok && i < na; i++) {
		const sht_interval *a, *b;

		ok = at(cq, &ga, qa[i], T[0], &a) == 0 && at(cq, &ga, qa[i], T[1], &b) == 0;
		if (ok && cum_of(b) != cum_of(a))
			u[(*k)++] = (struct cpu_usage){ tids[i], cum_of(b) - cum_of(a) };
	}
	for (size_t i = 0; ok && i < nc; i++)
		for (int j = 0; ok && j < 2; j++) {
			int32_t tid;
			int64_t ns;

			ok = running_at(cq, &ga, qc[i], T[j], &tid, &ns) == 0;
			if (ok && tid > 0)
				u[(*k)++] = (struct cpu_usage){ tid, j ? ns : -ns };
		}
	tg_group_free(&ga);
	sht_result_destroy(ra);
	free(qa);
	free(tids);
	if (!ok) {
		free(u);
		return NULL;
	}
	return u;
}

struct cpu_usage *srv_cpucum_tree(struct srv_hq *kq, struct srv_hq *cq,
				  sht_time t1, sht_time t2, size_t *n,
				  int64_t *total)
{
	/* C(t1 - 1): 0 before the history (t1 - 1 might not exist). */
	sht_time T[2] = { t1 > cq->start ? t1 - 1 : INT64_MIN, t2 };
	struct cpu_usage *u;
	size_t k;

	*n = 0;
	*total = 0;
	if (t1 > t2)
		return calloc(1, sizeof *u);
	u = deltas(kq, cq, T, &k);
	return u ? merge(u, k, n, total) : NULL;
}

/* ---- chart ----------------------------------------------------------------- */

/* The attributes of the series: for each series s, those of its thread
 * (or "busy") on every CPU, as qs[first[s] .. first[s + 1]). */
static sht_quark *series_attrs(struct srv_hist *h, const int64_t *tids,
			       size_t ns, size_t *first)
{
	const struct srv_attrs *a = &h->attrs;
	sht_quark cpus, *v;
	size_t ncpu = 0, k = 0;
	char num[24];

	pthread_rwlock_rdlock(&h->attrs.lock);
	cpus = srv_attrs_child(a, NONE, "CPUs");
	for (sht_quark c = cpus == NONE ? NONE : srv_attrs_first(a, cpus);
	     c != NONE; c = srv_attrs_next(a, c))
		ncpu++;
	v = malloc((ns * ncpu + 1) * sizeof *v);
	for (size_t s = 0; v && s < ns; s++) {
		const char *name = tids[s] < 0 ? "busy" : srv_itoa(tids[s], num);

		first[s] = k;
		for (sht_quark c = cpus == NONE ? NONE : srv_attrs_first(a, cpus);
		     c != NONE; c = srv_attrs_next(a, c)) {
			sht_quark x = srv_attrs_child(a, c, name);

			if (x != NONE)
				v[k++] = x;
		}
	}
	first[ns] = k;
	pthread_rwlock_unlock(&h->attrs.lock);
	return v;
}

/* C(tids[s], T[i]) for every i into c[0..nt). */
static int series_cum(const struct srv_hq *cq, const struct tg_group *ga,
		      const sht_quark *qa, size_t a0, size_t a1,
		      const sht_quark *qc, size_t nc, int64_t tid,
		      const sht_time *T, size_t nt, int64_t *c)
{
	for (size_t i = 0; i < nt; i++) {
		const sht_interval *iv;
		int64_t sum = 0, ns;
		int32_t r;

		for (size_t j = a0; j < a1; j++) {
			if (at(cq, ga, qa[j], T[i], &iv) != 0)
				return -1;
			sum += cum_of(iv);
		}
		for (size_t j = 0; j < nc; j++) {
			if (running_at(cq, ga, qc[j], T[i], &r, &ns) != 0)
				return -1;
			if (r > 0 && (tid < 0 || r == tid))
				sum += ns;
		}
		c[i] = sum;
	}
	return 0;
}

int srv_cpucum_series(struct srv_hq *kq, struct srv_hq *cq, const int64_t *tids,
		      size_t ns, const sht_time *T, size_t nt, sht_time step,
		      int64_t *out)
{
	size_t nc = 0, *first = malloc((ns + 1) * sizeof *first);
	sht_quark *qa = first ? series_attrs(cq->h, tids, ns, first) : NULL;
	sht_quark *qc;
	sht_result *ra = sht_result_create();
	struct tg_group ga = { 0 };
	int64_t *c = malloc((nt ? nt : 1) * sizeof *c);
	int ok;

	(void)kq;
	qa = qa ? with_running(cq->h, qa, first[ns], &nc) : NULL;
	qc = qa ? qa + first[ns] : NULL;
	ok = qa && c && ra && nt >= 2 &&
	     sampled(cq, qa, first[ns] + nc, T, nt, step, ra, &ga) == 0;
	for (size_t s = 0; ok && s < ns; s++) {
		ok = series_cum(cq, &ga, qa, first[s], first[s + 1], qc, nc,
				tids[s], T, nt, c) == 0;
		for (size_t i = 0; ok && i + 1 < nt; i++)
			out[s * (nt - 1) + i] = c[i + 1] - c[i];
	}
	tg_group_free(&ga);
	sht_result_destroy(ra);
	free(first);
	free(qa);
	free(c);
	return ok ? 0 : -1;
}
