/*
 * evcursor.c: reading a trace's events at any position, for the events
 * table: a small pool of open sources per trace ("cursors"), each
 * remembering the ordinal of the next event it delivers, so that paging
 * on through a table reads on from where the last page stopped.
 *
 * Every move of a cursor goes through pick() and cursor_seek(), the one
 * place that decides how to reach an ordinal: a short way forward is
 * read; further, a VSTF file seeks through its own index, a CTF trace by
 * time through its packet index (seek_at, libsht's stream reader: the
 * graphs start again at the packets holding that time, tens of ms) to
 * the first event of the time of the pass's checkpoint before the
 * ordinal (evindex.c), then reads on to it (at most about
 * SRV_INDEX_EVERY events).  Before the pass has reached the ordinal, a
 * CTF trace seeks by ordinal (libsht's own marks; from its start if it
 * has none there).  The time of an event is found through the same
 * sparse index: a binary search, then at most SRV_INDEX_EVERY events
 * read.
 */
#include <stdlib.h>
#include <string.h>

#include "evtab.h"

#define NCURSORS 8
/* Events read on rather than seeking: a VSTF seek costs a few reads, a
 * CTF one restarts babeltrace2's graphs (about as long as decoding some
 * 30 000 events). */
#define FORWARD_MAX (4 * SRV_INDEX_EVERY)
#define FORWARD_MAX_CTF (16 * SRV_INDEX_EVERY)

struct srv_cursor {
	sht_source src;
	uint64_t pos;             /* ordinal of the next event delivered */
	int open, busy;
};

struct srv_cursors {
	int vstf;                 /* the trace's kind, to close its sources */
	pthread_mutex_t lock;
	pthread_cond_t free;
	struct srv_cursor c[NCURSORS];
};

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;

static struct srv_cursors *pool_of(struct srv_trace *t)
{
	struct srv_cursors *p;

	pthread_mutex_lock(&create_lock);
	if (!t->cursors && (t->cursors = calloc(1, sizeof *t->cursors)) != NULL) {
		pthread_mutex_init(&t->cursors->lock, NULL);
		pthread_cond_init(&t->cursors->free, NULL);
		t->cursors->vstf = t->vstf;
	}
	p = t->cursors;
	pthread_mutex_unlock(&create_lock);
	return p;
}

static void close_src(struct srv_cursors *p, sht_source *src)
{
	if (p->vstf)
		sht_vstf_close(src);
	else
		sht_ctf_close(src);
}

void srv_cursors_free(struct srv_cursors *p)
{
	if (!p)
		return;
	for (int i = 0; i < NCURSORS; i++)
		if (p->c[i].open)
			close_src(p, &p->c[i].src);
	pthread_cond_destroy(&p->free);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static uint64_t forward_max(const struct srv_cursors *p)
{
	return p->vstf ? FORWARD_MAX : FORWARD_MAX_CTF;
}

/* The best free cursor for ordinal ord (under the lock): the closest one
 * at or before it within forward_max (further, a seek costs less than
 * reading on), else a closed slot, else the furthest one; NULL if all
 * are busy. */
static struct srv_cursor *pick(struct srv_cursors *p, uint64_t ord)
{
	struct srv_cursor *best = NULL, *any = NULL, *closed = NULL;
	uint64_t fwd = forward_max(p);

	for (int i = 0; i < NCURSORS; i++) {
		struct srv_cursor *c = &p->c[i];

		if (c->busy)
			continue;
		if (!c->open) {
			closed = closed ? closed : c;
		} else if (c->pos <= ord && ord - c->pos <= fwd &&
			   (!best || c->pos > best->pos)) {
			best = c;
		} else if (!any || c->pos > any->pos) {
			any = c;
		}
	}
	return best ? best : closed ? closed : any;
}

static sht_err read_on(struct srv_cursor *c, uint64_t ord)
{
	sht_event ev;
	sht_err err;

	while (c->pos < ord) {
		err = c->src.ops->next(c->src.src, &ev);
		if (err != SHT_OK)
			return err;
		c->pos++;
	}
	return SHT_OK;
}

/* Make ord the next event of c: read forward a short way, else seek (a
 * CTF trace: by time to the index's anchor before ord, then read on). */
static sht_err cursor_seek(struct srv_trace *t, struct srv_cursors *p,
			   struct srv_cursor *c, uint64_t ord)
{
	uint64_t at;
	sht_time ts;
	sht_err err;

	if (c->pos <= ord && ord - c->pos <= forward_max(p))
		return read_on(c, ord);
	if (!p->vstf && srv_evindex_anchor(&t->index, ord, &at, &ts)) {
		err = sht_source_seek_at(&c->src, at, ts);
		c->pos = at;
		return err == SHT_OK ? read_on(c, ord) : err;
	}
	err = c->src.ops->seek(c->src.src, ord);
	if (err == SHT_OK)
		c->pos = ord;
	return err;
}

struct srv_cursor *srv_cursor_take(struct srv_trace *t, uint64_t ord,
				   sht_err *err)
{
	struct srv_cursors *p = pool_of(t);
	struct srv_cursor *c;

	*err = SHT_ERR_NOMEM;
	if (!p)
		return NULL;
	pthread_mutex_lock(&p->lock);
	while ((c = pick(p, ord)) == NULL)
		pthread_cond_wait(&p->free, &p->lock);
	c->busy = 1;
	pthread_mutex_unlock(&p->lock);
	*err = SHT_OK;
	if (!c->open) {
		*err = srv_trace_source(t, 0, &c->src);
		c->open = *err == SHT_OK;
		c->pos = 0;
	}
	if (*err == SHT_OK)
		*err = cursor_seek(t, p, c, ord);
	if (*err != SHT_OK) {
		srv_cursor_give(t, c, 1);
		return NULL;
	}
	return c;
}

void srv_cursor_give(struct srv_trace *t, struct srv_cursor *c, int broken)
{
	struct srv_cursors *p = t->cursors;

	if (broken && c->open) {          /* a failed source is closed */
		close_src(p, &c->src);
		c->open = 0;
	}
	pthread_mutex_lock(&p->lock);
	c->busy = 0;
	pthread_cond_signal(&p->free);
	pthread_mutex_unlock(&p->lock);
}

sht_err srv_cursor_next(struct srv_cursor *c, sht_event *ev)
{
	sht_err err = c->src.ops->next(c->src.src, ev);

	if (err == SHT_OK)
		c->pos++;
	return err;
}

/* The ordinal of the first event of t at or after time ts (trace time);
 * the event count if none. */
sht_err srv_trace_ordinal(struct srv_trace *t, sht_time ts, uint64_t *out)
{
	uint64_t ord = srv_evindex_before(&t->index, ts), n;
	struct srv_cursor *c;
	sht_time last;
	sht_event ev;
	sht_err err;

	n = srv_trace_events(t, &last);
	if (ts <= t->first_ts) {
		*out = 0;
		return SHT_OK;
	}
	c = srv_cursor_take(t, ord, &err);
	if (!c)
		return err;
	while ((err = srv_cursor_next(c, &ev)) == SHT_OK && ev.ts < ts)
		ord++;
	srv_cursor_give(t, c, err < 0);
	if (err == SHT_END) {
		*out = ord > n ? ord : n;
		return SHT_OK;
	}
	*out = ord;
	return err < 0 ? err : SHT_OK;
}
