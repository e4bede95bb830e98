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
 * until one matches, within SRV_SEARCH_SECONDS.
 */
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

/* The first (dir 1) or last (dir -1) match in [from, to); -1 if none. */
static int64_t scan(struct srv_exp *e, const struct ev_query *q, uint64_t from,
		    uint64_t to, int dir, double deadline, int *timeout)
{
	struct ev_cells cells;
	struct ev_reader *r;
	int64_t found = -1;
	uint64_t idx;
	sht_event ev;
	size_t tr;
	sht_err err;

	r = ev_reader_open(e, q, from, &err);
	if (!r)
		return -1;
	memset(&cells, 0, sizeof cells);
	while (ev_reader_next(r, &ev, &tr, &idx) == SHT_OK && idx < to) {
		ev_cells_fill(&cells, e, tr, &ev);
		if (ev_search_match(q, &cells)) {
			found = (int64_t)idx;
			if (dir > 0)
				break;
		}
		if ((idx & 255) == 0 && srv_now() > deadline) {
			*timeout = 1;
			break;
		}
	}
	ev_cells_free(&cells);
	ev_reader_close(r);
	return found;
}

int64_t ev_search(struct srv_exp *e, const struct ev_query *q, uint64_t from,
		  int dir, uint64_t size)
{
	double deadline = srv_now() + SRV_SEARCH_SECONDS;
	int timeout = 0;
	uint64_t block = 4 * SRV_INDEX_EVERY, end = from + 1;

	if (dir > 0)
		return from < size ? scan(e, q, from, size, 1, deadline, &timeout) : -1;
	if (end > size)
		end = size;
	while (end > 0 && !timeout) {
		uint64_t start = end > block ? end - block : 0;
		int64_t hit = scan(e, q, start, end, -1, deadline, &timeout);

		if (hit >= 0)
			return hit;
		end = start;
	}
	return -1;
}
