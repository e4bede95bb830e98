/*
 * evcursor.c: reading a trace's events at any position, for the events
 * table: a small pool of open sources per trace ("cursors"), each
 * remembering the ordinal of the next event it delivers, so that paging
 * on through a table reads on from where the last page stopped.
 *
 * Every move of a cursor goes through pick() and cursor_seek(), the one
 * place that decides how to reach an ordinal: a VSTF file seeks through
 * its index (a short way forward is read); a CTF trace, in libsht today,
 * re-decodes from its start to seek backward, so the cursor closest
 * before the ordinal reads on to it instead.  A faster CTF seek (through
 * LTTng's packet index) changes only these two functions.  The time of an event is found
 * through the sparse index of the trace's pass (evindex.c): a binary
 * search, then at most SRV_INDEX_EVERY events read.
 */
#include <stdlib.h>
#include <string.h>

#include "evtab.h"

#define NCURSORS 8
#define FORWARD_MAX (4 * SRV_INDEX_EVERY)

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

/* The best free cursor for ordinal ord (under the lock): the closest one
 * at or before it (for a VSTF file only within FORWARD_MAX: its seek is
 * cheap; a CTF trace's seek back decodes from the start, so reading on
 * from any earlier cursor costs less), else a closed slot, else the
 * furthest one; NULL if all are busy. */
static struct srv_cursor *pick(struct srv_cursors *p, uint64_t ord)
{
	struct srv_cursor *best = NULL, *any = NULL, *closed = NULL;

	for (int i = 0; i < NCURSORS; i++) {
		struct srv_cursor *c = &p->c[i];

		if (c->busy)
			continue;
		if (!c->open) {
			closed = closed ? closed : c;
		} else if (c->pos <= ord && (!p->vstf || ord - c->pos <= FORWARD_MAX) &&
			   (!best || c->pos > best->pos)) {
			best = c;
		} else if (!any || c->pos > any->pos) {
			any = c;
		}
	}
	return best ? best : closed ? closed : any;
}

/* Make ord the next event of c: read forward (a short way for VSTF, any
 * way for CTF: see pick), else seek. */
static sht_err cursor_seek(struct srv_cursors *p, struct srv_cursor *c,
			   uint64_t ord)
{
	sht_event ev;
	sht_err err;

	if (c->pos <= ord && (!p->vstf || ord - c->pos <= FORWARD_MAX)) {
		while (c->pos < ord) {
			err = c->src.ops->next(c->src.src, &ev);
			if (err != SHT_OK)
				return err;
			c->pos++;
		}
		return SHT_OK;
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
		*err = srv_trace_source(t, &c->src);
		c->open = *err == SHT_OK;
		c->pos = 0;
	}
	if (*err == SHT_OK)
		*err = cursor_seek(p, c, ord);
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
