/*
 * evindex.c: the sparse index of a trace's events: the timestamp of every
 * SRV_INDEX_EVERY-th event, recorded by the analysis pass and kept in the
 * cache beside the histories (events.idx), so that the events table finds
 * the event of a time (binary search, then a short read) and the number
 * of events is known when the histories are reused.
 *
 * With each checkpoint, how many events of its time come just before it,
 * so that the first event of that time has a known ordinal: a CTF trace
 * is sought there by time (seek_at, through its packet index).
 *
 * File: "SHTEVIX2", u32 every, u32 0, u64 events, i64 first, i64 last,
 * u64 n, n x i64 times, n x u32 events before, u64 FNV-1a of everything
 * before; little-endian
 * (the machine's: the cache is local).  Written under a temporary name
 * and renamed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv.h"

static const char MAGIC[8] = "SHTEVIX2";

void srv_evindex_init(struct srv_evindex *x)
{
	memset(x, 0, sizeof *x);
	pthread_mutex_init(&x->lock, NULL);
}

void srv_evindex_free(struct srv_evindex *x)
{
	free(x->ts);
	free(x->before);
	pthread_mutex_destroy(&x->lock);
}

/* Room for twice as many checkpoints (under the lock); 0 or -1. */
static int grow(struct srv_evindex *x)
{
	size_t cap = x->cap ? x->cap * 2 : 1024;
	sht_time *ts = realloc(x->ts, cap * sizeof *ts);
	uint32_t *b;

	if (!ts)
		return -1;
	x->ts = ts;
	if (!(b = realloc(x->before, cap * sizeof *b)))
		return -1;
	x->before = b;
	x->cap = cap;
	return 0;
}

void srv_evindex_add(struct srv_evindex *x, uint64_t ord, sht_time ts)
{
	pthread_mutex_lock(&x->lock);
	if (ord == 0)
		x->first = ts;
	else if (ts == x->last)
		x->run += x->run < UINT32_MAX;
	else
		x->run = 0;
	x->last = ts;
	x->events = ord + 1;
	if (ord % SRV_INDEX_EVERY == 0 && ord / SRV_INDEX_EVERY == x->n &&
	    (x->n < x->cap || grow(x) == 0)) {
		x->ts[x->n] = ts;
		x->before[x->n++] = x->run;
	}   /* else the index stays shorter: seeks read more */
	pthread_mutex_unlock(&x->lock);
}

uint64_t srv_evindex_before(struct srv_evindex *x, sht_time t)
{
	size_t lo = 0, hi;

	pthread_mutex_lock(&x->lock);
	hi = x->n;
	while (lo < hi) {            /* first checkpoint with ts >= t */
		size_t mid = lo + (hi - lo) / 2;

		if (x->ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	pthread_mutex_unlock(&x->lock);
	return lo ? (uint64_t)(lo - 1) * SRV_INDEX_EVERY : 0;
}

int srv_evindex_anchor(struct srv_evindex *x, uint64_t ord, uint64_t *pos,
		       sht_time *ts)
{
	uint64_t k = ord / SRV_INDEX_EVERY;
	int ok;

	pthread_mutex_lock(&x->lock);
	ok = k < x->n;
	if (ok) {
		*ts = x->ts[k];
		*pos = k * SRV_INDEX_EVERY - x->before[k];
	}
	pthread_mutex_unlock(&x->lock);
	return ok;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

struct ix_head {
	char magic[8];
	uint32_t every, zero;
	uint64_t events;
	int64_t first, last;
	uint64_t n;
};

int srv_evindex_save(struct srv_evindex *x, const char *path)
{
	char tmp[4096];
	struct ix_head h;
	uint64_t sum;
	FILE *f;
	int ok;

	snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(),
		 srv_serial());
	f = fopen(tmp, "wb");
	if (!f)
		return -1;
	pthread_mutex_lock(&x->lock);
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, 8);
	h.every = SRV_INDEX_EVERY;
	h.events = x->events;
	h.first = x->first;
	h.last = x->last;
	h.n = x->n;
	sum = fnv(UINT64_C(0xcbf29ce484222325), &h, sizeof h);
	sum = fnv(sum, x->ts, x->n * sizeof *x->ts);
	sum = fnv(sum, x->before, x->n * sizeof *x->before);
	ok = fwrite(&h, sizeof h, 1, f) == 1 &&
	     fwrite(x->ts, sizeof *x->ts, x->n, f) == x->n &&
	     fwrite(x->before, sizeof *x->before, x->n, f) == x->n &&
	     fwrite(&sum, sizeof sum, 1, f) == 1;
	pthread_mutex_unlock(&x->lock);
	ok = (fclose(f) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

int srv_evindex_load(struct srv_evindex *x, const char *path)
{
	struct ix_head h;
	uint64_t sum, want;
	sht_time *ts = NULL;
	uint32_t *before = NULL;
	FILE *f = fopen(path, "rb");
	int ok;

	if (!f)
		return -1;
	ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, MAGIC, 8) == 0 &&
	     h.every == SRV_INDEX_EVERY && h.n <= (h.events + SRV_INDEX_EVERY - 1) /
	     SRV_INDEX_EVERY && h.n < (UINT64_C(1) << 40) &&
	     (ts = malloc((h.n ? h.n : 1) * sizeof *ts)) != NULL &&
	     fread(ts, sizeof *ts, h.n, f) == h.n &&
	     (before = malloc((h.n ? h.n : 1) * sizeof *before)) != NULL &&
	     fread(before, sizeof *before, h.n, f) == h.n &&
	     fread(&want, sizeof want, 1, f) == 1;
	fclose(f);
	if (ok) {
		sum = fnv(UINT64_C(0xcbf29ce484222325), &h, sizeof h);
		sum = fnv(sum, ts, h.n * sizeof *ts);
		ok = fnv(sum, before, h.n * sizeof *before) == want;
	}
	for (uint64_t k = 0; ok && k < h.n; k++)
		ok = before[k] <= k * SRV_INDEX_EVERY;
	if (!ok) {
		free(ts);
		free(before);
		return -1;
	}
	pthread_mutex_lock(&x->lock);
	free(x->ts);
	free(x->before);
	x->ts = ts;
	x->before = before;
	x->n = x->cap = h.n;
	x->events = h.events;
	x->first = h.first;
	x->last = h.last;
	x->complete = 1;
	pthread_mutex_unlock(&x->lock);
	return 0;
}
