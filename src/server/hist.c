/*
 * hist.c: one analysis's history, as the outputs query it.
 *
 *   (none) --srv_hist_building--> RUNNING: queries go to the live state
 *      |                          system (it answers while it builds)
 *      |                             |
 *      |              srv_hist_built |  srv_hist_failed
 *      v                             v          v
 *   COMPLETED (reused from the cache) ... COMPLETED   FAILED / CANCELLED
 *
 * Once built, the file is reopened: an sht_state for the attribute names
 * and a reader for the queries, because a reader answers many threads at
 * once while a state system serialises its queries under one lock.  The
 * swap happens under the write side of h->lock; a request holds the read
 * side for as long as it uses the handles (srv_hist_acquire / release).
 */
#include <stdlib.h>
#include <string.h>

#include "lives.h"
#include "srv.h"

void srv_hist_init(struct srv_hist *h, enum srv_hist_kind kind,
		   const char *label, const char *rules)
{
	memset(h, 0, sizeof *h);
	h->kind = kind;
	h->label = strdup(label);
	h->rules = rules ? strdup(rules) : NULL;
	pthread_rwlock_init(&h->lock, NULL);
	pthread_mutex_init(&h->lives_lock, NULL);
	atomic_init(&h->status, SRV_RUNNING);
	srv_attrs_init(&h->attrs);
}

void srv_hist_free(struct srv_hist *h)
{
	sht_reader_close(h->rd);
	sht_state_close(h->ss);
	srv_attrs_free(&h->attrs);
	if (h->lives) {
		srv_lives_free(h->lives);
		free(h->lives);
	}
	pthread_mutex_destroy(&h->lives_lock);
	pthread_rwlock_destroy(&h->lock);
	free(h->label);
	free(h->rules);
	free(h->file);
	free(h->message);
}

void srv_hist_building(struct srv_hist *h, sht_state *ss)
{
	pthread_rwlock_wrlock(&h->lock);
	h->ss = ss;
	atomic_store(&h->status, SRV_RUNNING);
	pthread_rwlock_unlock(&h->lock);
}

sht_err srv_hist_built(struct srv_hist *h)
{
	sht_reader_opts small, mapped;
	sht_state *ss = NULL, *old;
	sht_reader *rd = NULL;
	const char *id;
	uint32_t version;
	sht_err err;

	/* The state system only gives names: a small cache.  The reader
	 * answers the queries with the file mapped: a whole-trace screen
	 * uses its blocks in place instead of copying ~190 MB through a
	 * node cache.  Safe from SIGBUS because the file is complete and in
	 * the server's own cache directory, where a history is only ever
	 * replaced by rename (pass.c), never truncated or rewritten in place:
	 * the reader keeps the file it mapped.  Its pages stay mapped (RssFile)
	 * until the idle release (idle.c): giving them back after each big
	 * request costs more in page faults than the map saves.  At most
	 * --map-budget MiB of them: past it, the reader copies further leaves
	 * rather than map them (docs/SERVER.md, "Memory"). */
	sht_reader_opts_init(&small);
	small.cache_bytes = 1u << 20;
	sht_reader_opts_init(&mapped);
	mapped.mapped = true;
	mapped.map_budget = h->map_budget;
	err = sht_state_open(h->file, &small, &ss);
	if (err == SHT_OK)
		err = sht_reader_open(h->file, &mapped, &rd);
	if (err != SHT_OK) {
		char msg[512];

		snprintf(msg, sizeof msg, "cannot open the history %s: %s",
			 h->file, sht_errmsg());
		sht_state_close(ss);
		srv_hist_failed(h, SRV_FAILED, msg);
		return err;
	}
	if (sht_state_provider(ss, &id, &version) == SHT_OK)
		snprintf(h->provider, sizeof h->provider, "%s", id);
	pthread_rwlock_wrlock(&h->lock);
	old = h->ss;
	h->ss = ss;
	h->rd = rd;
	atomic_store(&h->status, SRV_COMPLETED);
	pthread_rwlock_unlock(&h->lock);
	sht_state_close(old);
	return SHT_OK;
}

void srv_hist_failed(struct srv_hist *h, int status, const char *msg)
{
	sht_state *old;

	pthread_rwlock_wrlock(&h->lock);
	old = h->ss;
	h->ss = NULL;
	if (msg && !h->message)
		h->message = strdup(msg);
	atomic_store(&h->status, status);
	pthread_rwlock_unlock(&h->lock);
	sht_state_close(old);
}

void srv_hist_acquire(struct srv_hist *h, struct srv_hq *q)
{
	memset(q, 0, sizeof *q);
	q->h = h;
	pthread_rwlock_rdlock(&h->lock);
	q->ss = h->ss;
	q->rd = h->rd;
	q->status = atomic_load(&h->status);
	if (!q->ss)
		return;
	q->start = sht_state_start(q->ss);
	q->end = sht_state_end(q->ss);
	q->valid = q->end >= q->start;
	if (srv_attrs_sync(&h->attrs, q->ss) != SHT_OK)
		q->valid = 0;
}

void srv_hist_release(struct srv_hq *q)
{
	if (q->h)
		pthread_rwlock_unlock(&q->h->lock);
	q->h = NULL;
}

sht_err srv_hq_at(struct srv_hq *q, sht_quark quark, sht_time t,
		  sht_result *res)
{
	sht_err err;

	sht_result_clear(res);
	if (!q->valid || t < q->start || t > q->end)
		return SHT_NOT_FOUND;
	err = q->rd ? sht_reader_query(q->rd, quark, t, res)
		    : sht_state_query(q->ss, quark, t, res);
	return err == SHT_ERR_RANGE ? SHT_NOT_FOUND : err;
}

sht_err srv_hq_full(struct srv_hq *q, sht_time t, sht_result *res)
{
	sht_result_clear(res);
	if (!q->valid || t < q->start || t > q->end)
		return SHT_NOT_FOUND;
	return q->rd ? sht_reader_query_full(q->rd, t, res)
		     : sht_state_query_full(q->ss, t, res);
}
