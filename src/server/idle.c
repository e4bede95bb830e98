/*
 * idle.c: give memory back once the server is idle (docs/SERVER.md,
 * "Memory").
 *
 * A whole-trace screen of a big history maps the history's blocks it
 * reads (RssFile: ~185 MiB on a 2 GB trace) and leaves tens of MB of
 * freed answer buffers in the heap, which the server keeps on purpose
 * (server.c, tune_malloc): the next request of a burst reuses both
 * without a fault.  Once no request has run for cfg.idle_release_s
 * seconds, the main thread gives both back: the readers' mapped pages
 * (sht_reader_release_pages: they leave the process, the kernel's page
 * cache keeps them) and the heap's free pages (malloc_trim).  The first
 * request after that maps its pages again at a minor fault each.
 */
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "srv.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void srv_busy_begin(struct srv *s)
{
	atomic_fetch_add(&s->inflight, 1);
	atomic_fetch_add(&s->requests, 1);
}

void srv_busy_end(struct srv *s)
{
	atomic_store(&s->last_busy_ns, now_ns());
	atomic_fetch_sub(&s->inflight, 1);
}

/* Every built history of every trace: its mapped pages out of the RSS. */
static void release_histories(struct srv *s)
{
	pthread_mutex_lock(&s->reg.lock);
	for (size_t i = 0; i < s->reg.ntraces; i++) {
		struct srv_trace *t = s->reg.traces[i];

		for (size_t k = 0; k < t->nhists; k++) {
			struct srv_hist *h = &t->hists[k];

			pthread_rwlock_rdlock(&h->lock);
			if (h->rd)
				sht_reader_release_pages(h->rd);
			pthread_rwlock_unlock(&h->lock);
		}
	}
	pthread_mutex_unlock(&s->reg.lock);
}

int srv_idle_tick(struct srv *s)
{
	int64_t idle = (int64_t)s->cfg.idle_release_s * 1000000000;
	uint64_t gen = atomic_load(&s->requests);

	/* Requests since the last release (one that begins while this one
	 * runs changes gen again: the next idle time releases again). */
	if (s->cfg.idle_release_s == 0 || gen == s->released_gen ||
	    atomic_load(&s->inflight) != 0 ||
	    now_ns() - atomic_load(&s->last_busy_ns) < idle)
		return 0;
	s->released_gen = gen;
	release_histories(s);
#ifdef __GLIBC__
	malloc_trim(0);
#endif
	return 1;
}
