/*
 * evsearch.c: the events table's filter on the event type, through the
 * statistics history, and its text search, by reading the events.
 *
 * Filter: the statistics history counts the events of each type up to
 * any time; the events passing the filter up to t are the sum of the
 * counters of the passing types at t (one full query per trace).  The
 * filtered line i is then at the first time T where that count exceeds
 * i (a binary search on time, about 64 full queries), among the events
 * of time T: read from the first event at T, skipping those before.
 *
 * Search: read on (NEXT) or back block by block (PREVIOUS) from the line
 * until one matches, within SRV_SEARCH_SECONDS; a search cut by that
 * bound says which lines it read without a match, so that the answer
 * tells "no match" from "not searched".  Searches read events for
 * seconds on a worker thread each: at most half the workers search at
 * once (ev_search_enter), the others stay free for the views.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "evline.h"

#define NONE SHT_QUARK_NONE

int ev_filter_prepare(struct srv_exp *e, struct ev_query *q)
{
	for (size_t j = 0; q->has_filter && j < e->ntraces; j++) {
		struct srv_hist *h = srv_trace_hist(e->traces[j], SRV_AN_STATS);
		const struct srv_attrs *a = &h->attrs;
		struct srv_hq hq;
		sht_quark et;

		srv_hist_acquire(h, &hq);
		pthread_rwlock_rdlock(&h->attrs.lock);
		et = srv_attrs_child(a, NONE, "event_types");
		q->fq[j] = malloc((a->n + 1) * sizeof *q->fq[j]);
		for (sht_quark k = et == NONE || !q->fq[j] ? NONE : srv_attrs_first(a, et);
		     k != NONE; k = srv_attrs_next(a, k))
			if (regexec(&q->filter, a->name[k], 0, NULL, 0) == 0)
				q->fq[j][q->nfq[j]++] = k;
		pthread_rwlock_unlock(&h->attrs.lock);
		srv_hist_release(&hq);
		if (!q->fq[j])
			return -1;
	}
	return 0;
}

int64_t ev_filter_count(struct srv_exp *e, const struct ev_query *q, sht_time t)
{
	sht_result *res = sht_result_create();
	int64_t n = 0;

	for (size_t j = 0; res && j < e->ntraces; j++) {
		struct srv_trace *tr = e->traces[j];
		struct srv_hist *h = srv_trace_hist(tr, SRV_AN_STATS);
		sht_time at = srv_from_exp(&tr->xf, t);
		struct srv_hq hq;

		srv_hist_acquire(h, &hq);
		if (hq.valid && at >= hq.start &&
		    srv_hq_full(&hq, at > hq.end ? hq.end : at, res) == SHT_OK)
			for (size_t k = 0; k < q->nfq[j]; k++)
				n += srv_counter_in(res, q->fq[j][k]);
		srv_hist_release(&hq);
	}
	sht_result_destroy(res);
	return n;
}

sht_time ev_filter_time(struct srv_exp *e, const struct ev_query *q, uint64_t i)
{
	sht_time lo, hi;
	uint64_t events;

	srv_exp_progress(e, &lo, &hi, &events);
	if (lo == SHT_TIME_MIN || ev_filter_count(e, q, hi) <= (int64_t)i)
		return SHT_TIME_MAX;
	lo--;                             /* count(lo) <= i < count(hi) */
	while (hi - lo > 1) {
		sht_time mid = lo + (hi - lo) / 2;

		if (ev_filter_count(e, q, mid) > (int64_t)i)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* ---- reading lines ---------------------------------------------------------------- */

struct ev_reader {
	struct srv_mread *m;
	const struct ev_query *q;
	uint64_t index;           /* of the next line */
};

struct ev_reader *ev_reader_open(struct srv_exp *e, const struct ev_query *q,
				 uint64_t index, sht_err *err)
{
	struct ev_reader *r = calloc(1, sizeof *r);
	uint64_t start = index, skip = 0;
	sht_event ev;
	size_t tr;

	*err = SHT_ERR_NOMEM;
	if (!r)
		return NULL;
	r->q = q;
	r->index = index;
	if (q->has_filter) {
		sht_time t = ev_filter_time(e, q, index);

		if (t == SHT_TIME_MAX) {
			*err = SHT_END;
			free(r);
			return NULL;
		}
		*err = srv_merge_index_of(e, t, &start);
		skip = index - (uint64_t)ev_filter_count(e, q, t - 1);
		if (*err != SHT_OK) {
			free(r);
			return NULL;
		}
	}
	r->m = srv_mread_open(e, start, err);
	if (!r->m) {
		free(r);
		return NULL;
	}
	while (skip > 0 && (*err = srv_mread_next(r->m, &ev, &tr)) == SHT_OK)
		skip -= ev_filter_match(q, &ev);
	if (*err < 0 || *err == SHT_END) {
		ev_reader_close(r);
		return NULL;
	}
	*err = SHT_OK;
	return r;
}

sht_err ev_reader_next(struct ev_reader *r, sht_event *ev, size_t *trace,
		       uint64_t *index)
{
	sht_err err;

	while ((err = srv_mread_next(r->m, ev, trace)) == SHT_OK &&
	       !ev_filter_match(r->q, ev))
		;
	if (err == SHT_OK)
		*index = r->index++;
	return err;
}

void ev_reader_close(struct ev_reader *r)
{
	if (!r)
		return;
	srv_mread_close(r->m);
	free(r);
}

/* ---- search ------------------------------------------------------------------------- */

/* The time bound of one search: SRV_SEARCH_SECONDS, or the environment's
 * SHT_SERVE_SEARCH_SECONDS (a positive number, at most an hour: tests
 * make searches stop early with it). */
static double search_seconds_v = SRV_SEARCH_SECONDS;
static pthread_once_t search_once = PTHREAD_ONCE_INIT;

static void search_env(void)
{
	const char *v = getenv("SHT_SERVE_SEARCH_SECONDS");
	char *end;
	double d;

	if (!v || !*v)
		return;
	d = strtod(v, &end);
	if (!*end && d > 0 && d <= 3600)
		search_seconds_v = d;
}

double ev_search_seconds(void)
{
	pthread_once(&search_once, search_env);
	return search_seconds_v;
}

/* Searches running now, and how many may run at once. */
static atomic_int searching;
static atomic_int search_cap = 4;

void ev_search_limit(int workers)
{
	atomic_store(&search_cap, workers / 2 > 1 ? workers / 2 : 1);
}

int ev_search_enter(int *cap)
{
	*cap = atomic_load(&search_cap);
	if (atomic_fetch_add(&searching, 1) >= *cap) {
		atomic_fetch_sub(&searching, 1);
		return -1;
	}
	return 0;
}

void ev_search_leave(void)
{
	atomic_fetch_sub(&searching, 1);
}

/* Where a scan stands: the first and last lines it read (and their
 * experiment times). */
struct scan_pos {
	uint64_t n, first, last;
	sht_time tfirst, tlast;
};

/* Reading failed: keep the reader's message before anything else runs. */
static void search_failed(struct ev_found *f, sht_err err)
{
	f->err = err;
	snprintf(f->why, sizeof f->why, "%s", sht_errmsg());
}

/* The first (dir 1) or last (dir -1) match in [from, to); -1 if none, or
 * if the bound cut it (f->cut) or the trace failed (f->err). */
static int64_t scan(struct srv_exp *e, const struct ev_query *q, uint64_t from,
		    uint64_t to, int dir, double deadline, struct ev_found *f,
		    struct scan_pos *p)
{
	struct ev_cells cells;
	struct ev_reader *r;
	int64_t found = -1;
	uint64_t idx;
	sht_event ev;
	size_t tr;
	sht_err err;

	memset(p, 0, sizeof *p);
	r = ev_reader_open(e, q, from, &err);
	if (!r) {
		if (err < 0)
			search_failed(f, err);
		return -1;
	}
	memset(&cells, 0, sizeof cells);
	err = SHT_OK;
	while (r->index < to && (err = ev_reader_next(r, &ev, &tr, &idx)) == SHT_OK) {
		p->last = idx;
		p->tlast = srv_to_exp(&e->traces[tr]->xf, ev.ts);
		if (p->n++ == 0) {
			p->first = idx;
			p->tfirst = p->tlast;
		}
		ev_cells_fill(&cells, e, tr, &ev);
		if (ev_search_match(q, &cells)) {
			found = (int64_t)idx;
			if (dir > 0)
				break;
		}
		if ((p->n & 255) == 0 && srv_now() > deadline) {
			f->cut = 1;
			break;
		}
	}
	if (err < 0)
		search_failed(f, err);
	ev_cells_free(&cells);
	ev_reader_close(r);
	return f->cut || f->err < 0 ? -1 : found;
}

/* Searching on (NEXT): one scan to the end. */
static void search_next(struct srv_exp *e, const struct ev_query *q,
			uint64_t from, uint64_t size, double deadline,
			struct ev_found *f)
{
	struct scan_pos p;

	if (from >= size)
		return;
	f->index = scan(e, q, from, size, 1, deadline, f, &p);
	if (f->cut && p.n) {
		f->searched = 1;
		f->lo = p.first;
		f->tlo = p.tfirst;
		f->hi = p.last;
		f->thi = p.tlast;
	}
}

/* Searching back (PREVIOUS): blocks of lines, each read forward, the
 * nearest first; lo..hi grows over the blocks read to their end. */
static void search_previous(struct srv_exp *e, const struct ev_query *q,
			    uint64_t from, uint64_t size, double deadline,
			    struct ev_found *f)
{
	uint64_t block = 4 * SRV_INDEX_EVERY, end = from + 1;
	struct scan_pos p;

	if (end > size)
		end = size;
	while (end > 0) {
		uint64_t start = end > block ? end - block : 0;
		int64_t hit = scan(e, q, start, end, -1, deadline, f, &p);

		if (hit >= 0 || f->cut || f->err < 0) {
			f->index = hit;
			return;
		}
		if (p.n && !f->searched) {
			f->searched = 1;
			f->hi = p.last;
			f->thi = p.tlast;
		}
		if (p.n) {
			f->lo = p.first;
			f->tlo = p.tfirst;
		}
		end = start;
	}
}

void ev_search(struct srv_exp *e, const struct ev_query *q, uint64_t from,
	       int dir, uint64_t size, struct ev_found *f)
{
	double t0 = srv_now();
	double deadline = t0 + ev_search_seconds();

	memset(f, 0, sizeof *f);
	f->index = -1;
	if (dir > 0)
		search_next(e, q, from, size, deadline, f);
	else
		search_previous(e, q, from, size, deadline, f);
	f->seconds = srv_now() - t0;
	if (!f->cut)
		f->searched = 0;
}
