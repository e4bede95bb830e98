/*
 * pass.c: the analyses of a trace, run in the background.
 *
 * One thread per trace reads the trace once and feeds every analysis that
 * has no reusable history in the cache (the kernel analysis for a kernel
 * trace, the event statistics, each rules file given at start-up), and
 * records the sparse events index.  Each analysis writes its history
 * under a temporary name (cache.c); while it runs its live state system
 * answers the outputs (hist.c: RUNNING, with what is built so far); at
 * the end the file is renamed and reopened (COMPLETED).  An analysis that
 * fails stops alone (FAILED with the library's message); a trace that
 * cannot be decoded further fails every analysis still running; a
 * cancelled pass (trace deleted, server stopping) removes its temporary
 * files, so no half-written history is ever left.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lives.h"
#include "reuse.h"
#include "srv.h"

/* One analysis being built. */
struct pass_an {
	struct srv_hist *h;
	sht_kernel *kernel;
	sht_evstats *stats;
	sht_rules *rules;
	struct srv_cpuacc *acc;   /* SRV_AN_CPU: watches base, the kernel's */
	struct pass_an *base;
	sht_provider prov;
	sht_state *ss;
	char *tmp;
	int active;               /* still fed */
	sht_time end;             /* SRV_AN_CPU: the kernel history's end */
	uint64_t skipped;
};

/* The provider of h, created (rules files are compiled here). */
static sht_err an_create(struct srv_trace *t, struct pass_an *a)
{
	sht_err err;

	switch (a->h->kind) {
	case SRV_AN_KERNEL:
		err = sht_kernel_create(t->layout, &a->kernel);
		if (err == SHT_OK)
			sht_kernel_provider(a->kernel, &a->prov);
		return err;
	case SRV_AN_STATS:
		err = sht_evstats_create(&a->stats);
		if (err == SHT_OK)
			sht_evstats_provider(a->stats, &a->prov);
		return err;
	case SRV_AN_CPU:
		err = srv_cpuacc_create(&a->acc);
		if (err == SHT_OK)
			srv_cpuacc_provider(a->acc, &a->prov);
		return err;
	default:
		err = sht_rules_load(a->h->rules, NULL, &a->rules);
		if (err == SHT_OK)
			sht_rules_provider(a->rules, &a->prov);
		return err;
	}
}

static void an_destroy(struct pass_an *a)
{
	sht_kernel_destroy(a->kernel);
	sht_evstats_destroy(a->stats);
	sht_rules_destroy(a->rules);
	srv_cpuacc_destroy(a->acc);
	if (a->tmp) {
		remove(a->tmp);
		free(a->tmp);
	}
	a->kernel = NULL;
	a->stats = NULL;
	a->rules = NULL;
	a->acc = NULL;
	a->tmp = NULL;
}

/* ---- starting ------------------------------------------------------------ */

/* The histories of the trace: kernel and cumulative CPU time (kernel
 * traces: the latter fed right after the former), statistics, rules. */
static int make_hists(struct srv *s, struct srv_trace *t)
{
	static const char *const stem[] = {
		[SRV_AN_KERNEL] = "kernel", [SRV_AN_STATS] = "stats",
		[SRV_AN_CPU] = "cpu-usage",
	};
	size_t n = (t->kernel ? 2 : 0) + 1 + s->cfg.nanalyses, k = 0;
	char path[4096], id[37];

	t->hists = calloc(n, sizeof *t->hists);
	if (!t->hists)
		return -1;
	if (t->kernel) {
		srv_hist_init(&t->hists[k++], SRV_AN_KERNEL, "Linux Kernel", NULL);
		srv_hist_init(&t->hists[k++], SRV_AN_CPU, "CPU Usage", NULL);
	}
	srv_hist_init(&t->hists[k++], SRV_AN_STATS, "Event statistics", NULL);
	for (size_t i = 0; i < s->cfg.nanalyses; i++) {
		const char *f = s->cfg.analyses[i], *base = strrchr(f, '/');

		srv_hist_init(&t->hists[k++], SRV_AN_RULES, base ? base + 1 : f, f);
	}
	t->nhists = n;
	for (k = 0; k < n; k++) {
		struct srv_hist *h = &t->hists[k];

		if (h->kind == SRV_AN_RULES) {
			srv_uuid(id, h->rules, strlen(h->rules));
			snprintf(path, sizeof path, "%s/rules-%.8s.sht", t->cachedir, id);
		} else {
			snprintf(path, sizeof path, "%s/%s.sht", t->cachedir,
				 stem[h->kind]);
		}
		h->file = strdup(path);
		h->query_threads = s->query_threads;
		h->map_budget = (size_t)s->cfg.map_budget_mib << 20;
		if (!h->file || !h->label)
			return -1;
	}
	return 0;
}

/* The options h's history is built with (its block size is part of the
 * reuse rule: a cached history of another size is rebuilt). */
static void an_opts(const struct srv_hist *h, sht_state_opts *so)
{
	sht_state_opts_init(so);
	if (h->kind == SRV_AN_CPU)
		srv_cpuacc_opts(so);
}

/* 1 if h's history in the cache can be reused (then it is opened). */
static int try_reuse(struct srv_trace *t, struct srv_hist *h)
{
	struct pass_an a = { .h = h };
	sht_state_opts so;
	int ok;

	if (an_create(t, &a) != SHT_OK) {
		srv_hist_failed(h, SRV_FAILED, sht_errmsg());
		an_destroy(&a);
		return 1;                  /* nothing to build: it failed */
	}
	snprintf(h->provider, sizeof h->provider, "%s", a.prov.id);
	an_opts(h, &so);
	ok = fe_reusable(h->file, t->path, a.prov.id, a.prov.version,
			 t->first_ts, 0, so.tree.block_size, NULL);
	an_destroy(&a);
	return ok && srv_hist_built(h) == SHT_OK;
}

static void *pass_main(void *arg);

int srv_trace_start(struct srv *s, struct srv_trace *t)
{
	char path[4096];
	int todo = 0, derive = 0;

	if (make_hists(s, t) != 0)
		return -1;
	if (mkdir(t->cachedir, 0700) != 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof path, "%s/events.idx", t->cachedir);
	for (size_t i = 0; i < t->nhists; i++) {
		struct srv_hist *h = &t->hists[i];

		if (try_reuse(t, h))
			continue;
		/* With the kernel history of an older cache, derived from
		 * it (pass_derive) without reading the trace. */
		if (h->kind == SRV_AN_CPU && i > 0 &&
		    atomic_load(&t->hists[i - 1].status) == SRV_COMPLETED)
			derive = 1;
		else
			todo = 1;
	}
	if (!todo && srv_evindex_load(&t->index, path) == 0 &&
	    t->index.first == t->first_ts) {
		if (!derive)
			return 0;          /* everything from the cache */
		t->pass_derive_only = 1;
	}
	atomic_store(&t->pass_status, SRV_RUNNING);
	/* The thread holds no reference: the last unref stops and joins it
	 * before freeing the trace. */
	if (pthread_create(&t->thread, NULL, pass_main, t) != 0) {
		atomic_store(&t->pass_status, SRV_FAILED);
		return -1;
	}
	t->have_thread = 1;
	return 0;
}

void srv_trace_stop(struct srv_trace *t)
{
	if (!t->have_thread)
		return;
	atomic_store(&t->cancel, 1);
	pthread_join(t->thread, NULL);
	t->have_thread = 0;
}

/* ---- the pass -------------------------------------------------------------- */

/* Create the state system of a, publishing it as RUNNING. */
static int an_begin(struct srv_trace *t, struct pass_an *a, unsigned serial)
{
	sht_state_opts so;
	size_t len = strlen(a->h->file) + 48;
	sht_err err;

	if (an_create(t, a) != SHT_OK) {
		srv_hist_failed(a->h, SRV_FAILED, sht_errmsg());
		return -1;
	}
	snprintf(a->h->provider, sizeof a->h->provider, "%s", a->prov.id);
	a->tmp = malloc(len);
	if (!a->tmp) {
		srv_hist_failed(a->h, SRV_FAILED, "out of memory");
		return -1;
	}
	snprintf(a->tmp, len, "%s.tmp-%ld-%u", a->h->file, (long)getpid(), serial);
	an_opts(a->h, &so);
	so.provider = a->prov.id;
	so.provider_version = a->prov.version;
	err = sht_state_create(a->tmp, t->first_ts, &so, &a->ss);
	if (err != SHT_OK) {
		srv_hist_failed(a->h, SRV_FAILED, sht_errmsg());
		return -1;
	}
	srv_hist_building(a->h, a->ss);
	a->active = 1;
	return 0;
}

/* Errors a handler may meet on a sound trace: they skip the event only
 * (as sht_state_run does). */
static int skippable(sht_err err)
{
	return err == SHT_ERR_TYPE || err == SHT_ERR_RANGE ||
	       err == SHT_ERR_NOATTR || err == SHT_NOT_FOUND;
}

/* Stop feeding a: FAILED (or CANCELLED) with msg; its file removed. */
static void an_stop(struct pass_an *a, int status, const char *msg)
{
	a->active = 0;
	srv_hist_failed(a->h, status, msg);   /* closes the state system */
	a->ss = NULL;
}

static void an_event(struct pass_an *a, const sht_event *ev, uint64_t ord)
{
	char msg[512];
	sht_err err = sht_state_event(a->ss, ev);

	if (err == SHT_OK)
		err = a->prov.handle(a->prov.ctx, a->ss, ev);
	if (err == SHT_OK)
		return;
	if (skippable(err)) {
		a->skipped++;
		return;
	}
	snprintf(msg, sizeof msg, "the analysis stopped at event %" PRIu64
		 " (t=%" PRId64 "): %s", ord, (int64_t)ev->ts, sht_errmsg());
	an_stop(a, SRV_FAILED, msg);
}

/* The end of the trace: finish, rename, reopen. */
static void an_end(struct pass_an *a)
{
	char msg[512];
	sht_err err = sht_state_finish(a->ss, a->base ? a->end : sht_state_end(a->ss));

	if (err == SHT_OK && rename(a->tmp, a->h->file) != 0)
		err = SHT_ERR_IO;
	if (err != SHT_OK) {
		snprintf(msg, sizeof msg, "cannot complete the history %s: %s",
			 a->h->file, sht_errmsg());
		an_stop(a, SRV_FAILED, msg);
		return;
	}
	a->active = 0;
	free(a->tmp);
	a->tmp = NULL;                     /* renamed: keep it */
	a->ss = NULL;
	if (srv_hist_built(a->h) == SHT_OK && a->h->kind == SRV_AN_KERNEL) {
		struct srv_hq q;           /* the Control Flow rows, kept */

		srv_hist_acquire(a->h, &q);
		srv_hist_lives(&q);
		srv_hist_release(&q);
	}
}

/* The kernel analysis among an[0..n), if it runs. */
static struct pass_an *pass_kernel(struct pass_an *an, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (an[i].h->kind == SRV_AN_KERNEL && an[i].active)
			return &an[i];
	return NULL;
}

/* Feed a derived analysis after its base: it stops if the base did. */
static void an_derived(struct pass_an *a, const sht_event *ev, uint64_t ord)
{
	if (!a->base->active) {
		an_stop(a, SRV_FAILED, "the kernel analysis stopped");
		return;
	}
	srv_cpuacc_watch(a->acc, a->base->ss);
	an_event(a, ev, ord);
}

/* The analyses to build: those whose history was not reused. */
static size_t pass_setup(struct srv_trace *t, struct pass_an *an)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nhists; i++) {
		struct srv_hist *h = &t->hists[i];

		if (atomic_load(&h->status) != SRV_RUNNING || h->ss)
			continue;
		an[n].h = h;
		if (h->kind == SRV_AN_CPU && !(an[n].base = pass_kernel(an, n))) {
			srv_hist_failed(h, SRV_FAILED, "the kernel analysis is not running");
			continue;
		}
		if (an_begin(t, &an[n], srv_serial()) == 0)
			n++;
		else
			an_destroy(&an[n]);
	}
	return n;
}

static void pass_finish(struct srv_trace *t, struct pass_an *an, size_t n,
			sht_err err, uint64_t ord)
{
	char msg[768], path[4096];
	int cancelled = atomic_load(&t->cancel);

	if (err < 0 && !cancelled)
		snprintf(msg, sizeof msg, "cannot read the trace %s after %" PRIu64
			 " events: %s", t->path, ord, sht_errmsg());
	for (size_t i = 0; i < n; i++)     /* before the base is finished */
		if (an[i].base && an[i].active && an[i].base->active)
			an[i].end = sht_state_end(an[i].base->ss);
		else if (an[i].base && an[i].active && !cancelled && err >= 0)
			an_stop(&an[i], SRV_FAILED, "the kernel analysis stopped");
	for (size_t i = 0; i < n; i++) {
		if (an[i].active && cancelled)
			an_stop(&an[i], SRV_CANCELLED, "the trace was closed");
		else if (an[i].active && err < 0)
			an_stop(&an[i], SRV_FAILED, msg);
		else if (an[i].active)
			an_end(&an[i]);
		an_destroy(&an[i]);
	}
	if (err >= 0 && !cancelled) {
		pthread_mutex_lock(&t->index.lock);
		t->index.complete = 1;
		pthread_mutex_unlock(&t->index.lock);
		snprintf(path, sizeof path, "%s/events.idx", t->cachedir);
		srv_evindex_save(&t->index, path);
		atomic_store(&t->pass_status, SRV_COMPLETED);
	} else {
		if (err < 0 && !cancelled)
			t->pass_message = strdup(msg);
		atomic_store(&t->pass_status, cancelled ? SRV_CANCELLED : SRV_FAILED);
	}
}

/* The pass decodes a CTF trace's streams on a thread per CPU (at most
 * 8), the analyses run on its own; the cursors of the events table
 * decode on their callers' threads. */
static uint32_t pass_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > 8 ? 8u : (uint32_t)n;
}

/* The cumulative CPU time history from a reused kernel history. */
static void pass_derive(struct srv_trace *t)
{
	struct srv_hist *k = srv_trace_hist(t, SRV_AN_KERNEL);
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_CPU);
	char tmp[4200], msg[4400];
	sht_err err;

	if (!k || !h || atomic_load(&k->status) != SRV_COMPLETED ||
	    atomic_load(&h->status) != SRV_RUNNING || h->ss)
		return;
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", h->file, (long)getpid(), srv_serial());
	err = srv_cpuacc_derive(k->file, tmp, &t->cancel);
	if (err == SHT_OK && rename(tmp, h->file) != 0)
		err = SHT_ERR_IO;
	if (err == SHT_OK) {
		srv_hist_built(h);
		return;
	}
	snprintf(msg, sizeof msg, "cannot derive %s from %s: %s", h->file,
		 k->file, sht_errmsg());
	remove(tmp);
	srv_hist_failed(h, atomic_load(&t->cancel) ? SRV_CANCELLED : SRV_FAILED, msg);
}

static void *pass_main(void *arg)
{
	struct srv_trace *t = arg;
	struct pass_an an[64];
	sht_source src;
	sht_source_stats st;
	sht_event ev;
	uint64_t ord = 0;
	size_t n = t->nhists < 64 ? t->nhists : 64;
	sht_err err;

	memset(an, 0, sizeof an);
	pass_derive(t);
	if (t->pass_derive_only) {
		atomic_store(&t->pass_status, atomic_load(&t->cancel) ?
			     SRV_CANCELLED : SRV_COMPLETED);
		return NULL;
	}
	if (n > 0)
		n = pass_setup(t, an);
	err = srv_trace_source(t, pass_jobs(), &src);
	if (err != SHT_OK) {
		pass_finish(t, an, n, err, 0);
		return NULL;
	}
	while (!atomic_load_explicit(&t->cancel, memory_order_relaxed) &&
	       (err = src.ops->next(src.src, &ev)) == SHT_OK) {
		for (size_t i = 0; i < n; i++)
			if (an[i].active && an[i].base)
				an_derived(&an[i], &ev, ord);
			else if (an[i].active)
				an_event(&an[i], &ev, ord);
		srv_evindex_add(&t->index, ord++, ev.ts);
	}
	if (src.ops->stats) {
		src.ops->stats(src.src, &st);
		atomic_store(&t->lost, st.discarded_events);
	}
	if (err == SHT_END)
		err = SHT_OK;
	pass_finish(t, an, n, err, ord);
	srv_trace_source_close(t, &src);
	return NULL;
}
