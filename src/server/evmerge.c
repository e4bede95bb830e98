/*
 * evmerge.c: the events of an experiment in one order: by time, then by
 * the traces' order in the experiment (each trace's times through its
 * transform).  The table's index of an event is its rank in that order.
 *
 * One trace: the rank is the trace's ordinal.  Several: a thread reads
 * the traces merged once and records, every SRV_INDEX_EVERY ranks, the
 * ordinal each trace has reached; reading from rank i starts every trace
 * at the checkpoint before i and merges on.  The rank of a time needs no
 * such table: it is the sum over the traces of their ordinals of that
 * time.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evtab.h"

struct srv_merge {
	struct srv_exp *e;
	pthread_t thread;
	int have_thread;
	atomic_int cancel;
	atomic_int complete;      /* every trace read to its end */
	atomic_int failed;        /* a trace could not be read: why */
	char message[512];
	pthread_mutex_t lock;
	uint64_t *ord;            /* ord[k * nt + j]: trace j's ordinal at
	                             rank k * SRV_INDEX_EVERY */
	size_t n, cap;
	uint64_t count;           /* ranks so far */
};

/* The merge lost a trace (or could not start): the table is not whole. */
static void merge_fail(struct srv_merge *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void merge_fail(struct srv_merge *m, const char *fmt, ...)
{
	va_list ap;

	if (atomic_load(&m->failed))
		return;
	va_start(ap, fmt);
	vsnprintf(m->message, sizeof m->message, fmt, ap);
	va_end(ap);
	atomic_store(&m->failed, 1);
}

/* ---- building ---------------------------------------------------------------- */

/* The smallest head (time, then trace); -1 if all ended. */
static int min_head(const sht_event *head, const int *live, size_t nt,
		    const struct srv_exp *e)
{
	int best = -1;
	sht_time bt = 0;

	for (size_t j = 0; j < nt; j++) {
		sht_time t;

		if (!live[j])
			continue;
		t = srv_to_exp(&e->traces[j]->xf, head[j].ts);
		if (best < 0 || t < bt) {
			best = (int)j;
			bt = t;
		}
	}
	return best;
}

static int checkpoint(struct srv_merge *m, const uint64_t *pos, size_t nt)
{
	pthread_mutex_lock(&m->lock);
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		uint64_t *p = realloc(m->ord, cap * nt * sizeof *p);

		if (!p) {
			pthread_mutex_unlock(&m->lock);
			return -1;
		}
		m->ord = p;
		m->cap = cap;
	}
	memcpy(m->ord + m->n * nt, pos, nt * sizeof *pos);
	m->n++;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* The next event of a trace: 1, or 0 at its end or on a failure. */
static int merge_next(struct srv_merge *m, struct srv_trace *t, sht_source *src,
		      sht_event *ev)
{
	sht_err err = src->ops->next(src->src, ev);

	if (err < 0)
		merge_fail(m, "cannot read the trace %s: %s", t->path, sht_errmsg());
	return err == SHT_OK;
}

static void *merge_main(void *arg)
{
	struct srv_merge *m = arg;
	struct srv_exp *e = m->e;
	size_t nt = e->ntraces;
	sht_source *src = calloc(nt, sizeof *src);
	sht_event *head = calloc(nt, sizeof *head);
	uint64_t *pos = calloc(nt, sizeof *pos), rank = 0;
	int *live = calloc(nt, sizeof *live), j, ok = src && head && pos && live;

	for (size_t k = 0; ok && k < nt; k++) {
		ok = srv_trace_source(e->traces[k], 0, &src[k]) == SHT_OK;
		if (!ok)
			merge_fail(m, "cannot open the trace %s: %s",
				   e->traces[k]->path, sht_errmsg());
		else
			live[k] = merge_next(m, e->traces[k], &src[k], &head[k]);
	}
	if (!(src && head && pos && live))
		merge_fail(m, "out of memory");
	while (ok && !atomic_load(&m->cancel) && (j = min_head(head, live, nt, e)) >= 0) {
		if (rank % SRV_INDEX_EVERY == 0 && checkpoint(m, pos, nt) != 0) {
			merge_fail(m, "out of memory");
			break;
		}
		pos[j]++;
		rank++;
		if ((rank & 1023) == 0) {
			pthread_mutex_lock(&m->lock);
			m->count = rank;
			pthread_mutex_unlock(&m->lock);
		}
		live[j] = merge_next(m, e->traces[j], &src[j], &head[j]);
	}
	pthread_mutex_lock(&m->lock);
	m->count = rank;
	pthread_mutex_unlock(&m->lock);
	if (ok && !atomic_load(&m->cancel) && j < 0)
		atomic_store(&m->complete, 1);
	for (size_t k = 0; src && k < nt; k++)
		if (src[k].ops)
			srv_trace_source_close(e->traces[k], &src[k]);
	free(src);
	free(head);
	free(pos);
	free(live);
	return NULL;
}

void srv_merge_start(struct srv *s, struct srv_exp *e)
{
	struct srv_merge *m;

	(void)s;
	if (e->ntraces < 2 || e->merge)
		return;
	m = calloc(1, sizeof *m);
	if (!m)
		return;
	m->e = e;
	pthread_mutex_init(&m->lock, NULL);
	e->merge = m;
	m->have_thread = pthread_create(&m->thread, NULL, merge_main, m) == 0;
	if (!m->have_thread)
		merge_fail(m, "cannot start the thread merging the traces");
}

void srv_merge_free(struct srv_merge *m)
{
	if (!m)
		return;
	atomic_store(&m->cancel, 1);
	if (m->have_thread)
		pthread_join(m->thread, NULL);
	pthread_mutex_destroy(&m->lock);
	free(m->ord);
	free(m);
}

int srv_merge_ready(struct srv_exp *e)
{
	return e->ntraces < 2 || (e->merge && atomic_load(&e->merge->complete));
}

uint64_t srv_merge_count(struct srv_exp *e, int *complete)
{
	uint64_t n;
	sht_time last;

	if (e->ntraces == 1) {
		n = srv_trace_events(e->traces[0], &last);
		*complete = atomic_load(&e->traces[0]->pass_status) != SRV_RUNNING;
		return n;
	}
	if (!e->merge) {
		*complete = 0;
		return 0;
	}
	pthread_mutex_lock(&e->merge->lock);
	n = e->merge->count;
	pthread_mutex_unlock(&e->merge->lock);
	*complete = atomic_load(&e->merge->complete);
	return n;
}

int srv_table_status(struct srv_exp *e, int complete, char *msg, size_t n)
{
	for (size_t j = 0; j < e->ntraces; j++) {
		struct srv_trace *t = e->traces[j];

		if (atomic_load(&t->pass_status) != SRV_FAILED)
			continue;
		snprintf(msg, n, "%s", t->pass_message ? t->pass_message :
			 "the analysis pass of the trace could not start");
		return SRV_FAILED;
	}
	if (e->merge && atomic_load(&e->merge->failed)) {
		snprintf(msg, n, "%s", e->merge->message);
		return SRV_FAILED;
	}
	return complete ? SRV_COMPLETED : SRV_RUNNING;
}

sht_err srv_merge_index_of(struct srv_exp *e, sht_time ts, uint64_t *out)
{
	*out = 0;
	for (size_t j = 0; j < e->ntraces; j++) {
		uint64_t o;
		sht_err err = srv_trace_ordinal(e->traces[j],
						srv_from_exp(&e->traces[j]->xf, ts), &o);

		if (err != SHT_OK)
			return err;
		*out += o;
	}
	return SHT_OK;
}

/* ---- reading --------------------------------------------------------------------- */

struct srv_mread {
	struct srv_exp *e;
	size_t nt;
	struct srv_cursor **c;
	sht_event *head;
	int *live;
	int pending;              /* the last head returned must be advanced */
	int last;
};

void srv_mread_close(struct srv_mread *m)
{
	if (!m)
		return;
	for (size_t j = 0; j < m->nt; j++)
		if (m->c[j])
			srv_cursor_give(m->e->traces[j], m->c[j], 0);
	free(m->c);
	free(m->head);
	free(m->live);
	free(m);
}

/* The traces in a fixed global order (their addresses), so that requests
 * taking cursors of several traces cannot wait on each other in a cycle. */
static int cmp_trace(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)*(struct srv_trace *const *)x;
	uintptr_t b = (uintptr_t)*(struct srv_trace *const *)y;

	return (a > b) - (a < b);
}

static sht_err take_all(struct srv_mread *m, const uint64_t *ord)
{
	struct srv_trace **by = malloc(m->nt * sizeof *by);
	sht_err err = SHT_OK;

	if (!by)
		return SHT_ERR_NOMEM;
	memcpy(by, m->e->traces, m->nt * sizeof *by);
	qsort(by, m->nt, sizeof *by, cmp_trace);
	for (size_t k = 0; k < m->nt && err == SHT_OK; k++) {
		size_t j = 0;

		while (m->e->traces[j] != by[k])
			j++;
		m->c[j] = srv_cursor_take(by[k], ord[j], &err);
	}
	free(by);
	for (size_t j = 0; j < m->nt && err == SHT_OK; j++) {
		sht_err e2 = srv_cursor_next(m->c[j], &m->head[j]);

		m->live[j] = e2 == SHT_OK;
		if (e2 < 0)
			err = e2;
	}
	return err;
}

struct srv_mread *srv_mread_open(struct srv_exp *e, uint64_t i, sht_err *err)
{
	struct srv_mread *m = calloc(1, sizeof *m);
	uint64_t *ord = NULL, skip = 0;
	sht_event ev;
	size_t tr;

	*err = SHT_ERR_NOMEM;
	if (!m)
		return NULL;
	m->e = e;
	m->nt = e->ntraces;
	m->c = calloc(m->nt, sizeof *m->c);
	m->head = calloc(m->nt, sizeof *m->head);
	m->live = calloc(m->nt, sizeof *m->live);
	ord = calloc(m->nt, sizeof *ord);
	if (!m->c || !m->head || !m->live || !ord)
		goto fail;
	if (m->nt == 1) {
		ord[0] = i;
	} else {
		size_t k = (size_t)(i / SRV_INDEX_EVERY);

		pthread_mutex_lock(&e->merge->lock);
		if (k >= e->merge->n) {
			pthread_mutex_unlock(&e->merge->lock);
			*err = SHT_END;
			goto fail;
		}
		memcpy(ord, e->merge->ord + k * m->nt, m->nt * sizeof *ord);
		pthread_mutex_unlock(&e->merge->lock);
		skip = i - (uint64_t)k * SRV_INDEX_EVERY;
	}
	*err = take_all(m, ord);
	while (*err == SHT_OK && skip-- > 0)
		*err = srv_mread_next(m, &ev, &tr);
	if (*err != SHT_OK)
		goto fail;
	free(ord);
	return m;
fail:
	free(ord);
	srv_mread_close(m);
	return NULL;
}

sht_err srv_mread_next(struct srv_mread *m, sht_event *ev, size_t *trace)
{
	int j;

	if (m->pending) {                /* advance the trace of the last one */
		sht_err err = srv_cursor_next(m->c[m->last], &m->head[m->last]);

		m->live[m->last] = err == SHT_OK;
		m->pending = 0;
		if (err < 0)
			return err;
	}
	j = min_head(m->head, m->live, m->nt, m->e);
	if (j < 0)
		return SHT_END;
	*ev = m->head[j];
	*trace = (size_t)j;
	m->last = j;
	m->pending = 1;
	return SHT_OK;
}
