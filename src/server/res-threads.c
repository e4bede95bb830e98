/*
 * res-threads.c: the threads a Resources screen shows running on its CPUs
 * (res.h): found once per screen from the first query's Current_thread
 * intervals, their names from the history's thread lifetimes (or a second
 * query while the history is being built), their system calls by point
 * queries of Threads/<tid>/System_call.
 */
#include <stdlib.h>
#include <string.h>

#include "res.h"

/* Thread tid's look-ups, found among the running threads' tids (a
 * compact array: a screen of thousands of threads searches it for every
 * state of a CPU's Threads row). */
struct tid_q *res_find_tid(const struct rstates *s, int64_t tid)
{
	size_t lo = 0, hi = s->ntids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->tidv[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ntids && s->tidv[lo] == tid ? &s->tids[lo] : NULL;
}

/* A string value of the second query (quark q at t), or NULL. */
static const char *name_at(const struct rstates *s, sht_quark q, sht_time t,
			   size_t *len)
{
	const sht_interval *iv = q == NONE ? NULL : tg_group_at(&s->g2, q, t);

	if (!iv || iv->value.type != SHT_TYPE_STRING)
		return NULL;
	*len = iv->value.len;
	return iv->value.u.str;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* The distinct threads the first result shows running (the values of
 * its Current_thread quarks), sorted; the attributes locked. */
static int64_t *running_tids(const struct rstates *s, size_t *n)
{
	const struct tg_group *g = &s->g1;
	int64_t *v = malloc((g->n ? g->n : 1) * sizeof *v);
	size_t k = 0, d = 0;

	if (!v)
		return NULL;
	for (size_t r = 0; r < g->nruns; r++) {
		size_t hi = r + 1 < g->nruns ? g->runs[r + 1].lo : g->n;

		if (strcmp(s->q.h->attrs.name[g->runs[r].q], "Current_thread") != 0)
			continue;
		for (size_t i = g->runs[r].lo; i < hi; i++)
			if (g->items[i].value.type == SHT_TYPE_INT32 &&
			    g->items[i].value.u.i32 > 0)
				v[k++] = g->items[i].value.u.i32;
	}
	qsort(v, k, sizeof *v, cmp_i64);
	for (size_t i = 0; i < k; i++)
		if (d == 0 || v[i] != v[d - 1])
			v[d++] = v[i];
	*n = d;
	return v;
}

/* The first lifetime in [i, n) of a tid >= tid: i, then 1, 2, 4, ...
 * further, then bisection (the threads of a screen are few among many,
 * or most of them: either way a short step each). */
static size_t life_gallop(const struct srv_lives *l, size_t i, int64_t tid)
{
	size_t lo = i, hi, step = 1;

	if (i >= l->n || l->v[i].tid >= tid)
		return i;
	for (;;) {                          /* l->v[lo].tid < tid */
		if (l->n - lo <= step) {
			hi = l->n;
			break;
		}
		if (l->v[lo + step].tid >= tid) {
			hi = lo + step;
			break;
		}
		lo += step;
		step *= 2;
	}
	for (lo++; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each thread's lifetimes (both lists sorted by tid: one walk), and its
 * Threads/<tid> quark from them. */
static void life_ranges(const struct srv_lives *l, struct tid_q *tq, size_t n)
{
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		j = life_gallop(l, j, tq[i].tid);
		tq[i].life_lo = j;
		while (j < l->n && l->v[j].tid == tq[i].tid)
			j++;                /* a thread has a lifetime or few */
		tq[i].life_hi = j;
		if (j > tq[i].life_lo)
			tq[i].thread = l->v[tq[i].life_lo].thread;
	}
}

/* The threads running in the first result and their quarks (in tid
 * order); then the second query, their Exec_name, unless the history's
 * thread lifetimes give the names. */
int res_thread_names(struct rstates *s)
{
	const struct srv_attrs *a = &s->q.h->attrs;
	sht_quark threads, *qs = NULL;
	int64_t *tids;
	size_t n = 0, k = 0;
	char name[24];

	s->lives = srv_hist_lives(&s->q);
	pthread_rwlock_rdlock(&s->q.h->attrs.lock);
	tids = s->tidv = running_tids(s, &n);   /* kept ones moved to the front */
	s->tids = malloc((n ? n : 1) * sizeof *s->tids);
	threads = s->threads = srv_attrs_child(a, NONE, "Threads");
	for (size_t i = 0; tids && s->tids && threads != NONE && i < n; i++) {
		struct tid_q *tq = &s->tids[s->ntids];
		sht_quark x = NONE;

		/* With lifetimes, the quarks are looked up when needed: a
		 * screen of thousands of threads needs few. */
		if (!s->lives &&
		    (x = srv_attrs_child(a, threads, srv_itoa(tids[i], name))) == NONE)
			continue;
		tq->tid = tids[i];
		tq->thread = x;
		tq->exec = s->lives ? NONE : srv_attrs_child(a, x, "Exec_name");
		tq->sys = s->lives ? LAZY : srv_attrs_child(a, x, "System_call");
		tq->values[0] = '\0';
		tq->life_lo = tq->life_hi = 0;
		tq->sys_lo = 1;
		tq->sys_hi = 0;
		tids[s->ntids++] = tids[i];
	}
	pthread_rwlock_unlock(&s->q.h->attrs.lock);
	qs = malloc((s->ntids + 1) * sizeof *qs);
	if (!tids || !s->tids || !qs) {
		free(qs);
		return -1;
	}
	if (s->lives)
		life_ranges(s->lives, s->tids, s->ntids);
	for (size_t i = 0; i < s->ntids; i++)
		if (!s->lives && s->tids[i].exec != NONE)
			qs[k++] = s->tids[i].exec;
	k = srv_sample(&s->q, qs, k, s->ts, &s->t->xf, s->r2) == SHT_OK &&
	    tg_group(&s->g2, s->r2) == 0 ? 0 : 1;
	free(qs);
	return k ? -1 : 0;
}

/* The system call of thread tq at t (a requested time), or NULL: a
 * point query, unless t is in the interval looked up last. */
const char *res_sys_at(struct rstates *s, struct tid_q *tq, sht_time t,
		       size_t *len)
{
	const sht_interval *iv;
	char name[24];

	if (tq->sys == LAZY) {
		sht_quark x = tq->thread;

		pthread_rwlock_rdlock(&s->q.h->attrs.lock);
		if (x == NONE)
			x = srv_attrs_child(&s->q.h->attrs, s->threads, srv_itoa(tq->tid, name));
		tq->sys = x == NONE ? NONE : srv_attrs_child(&s->q.h->attrs, x, "System_call");
		pthread_rwlock_unlock(&s->q.h->attrs.lock);
	}
	if (tq->sys == NONE)
		return NULL;
	if (t < tq->sys_lo || t > tq->sys_hi) {
		if (srv_hq_at(&s->q, tq->sys, t, s->one) != SHT_OK ||
		    sht_result_count(s->one) == 0)
			return NULL;
		iv = sht_result_items(s->one);
		tq->sys_lo = iv->start;
		tq->sys_hi = iv->end;
		tq->sys_len = -1;
		if (iv->value.type == SHT_TYPE_STRING) {
			tq->sys_off = s->sysnames.len;
			srv_buf_put(&s->sysnames, iv->value.u.str, iv->value.len);
			tq->sys_len = s->sysnames.oom ? -1 : (int64_t)iv->value.len;
		}
	}
	if (tq->sys_len < 0)
		return NULL;
	*len = (size_t)tq->sys_len;
	return s->sysnames.p + tq->sys_off;
}

/* The first lifetime of l in [lo, hi) after (tid, t): after the
 * lifetimes of smaller tids and those of tid starting at or before t. */
static size_t life_lower(const struct srv_lives *l, size_t lo, size_t hi,
			 int64_t tid, sht_time t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].tid < tid || (l->v[mid].tid == tid && l->v[mid].start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The name of thread tid at t: from the lifetimes if the history has
 * them (those of tid found by life_ranges; the one holding t, and its
 * name then), else from the second query. */
const char *res_exec_at(const struct rstates *s, const struct tid_q *tq,
			sht_time t, size_t *len)
{
	const struct srv_lives *l = s->lives;
	size_t k;

	if (!l)
		return name_at(s, tq->exec, t, len);
	k = life_lower(l, tq->life_lo, tq->life_hi, tq->tid, t);   /* last starting <= t */
	if (k == tq->life_lo || l->v[k - 1].end < t)
		return NULL;
	return srv_life_name_at(l, &l->v[k - 1], t, len);
}
