/*
 * test-events.c: the staircase and churn workloads as event sources and
 * providers (src/gen/events.c), against their drivers.
 *
 * For each workload, at small sizes:
 *
 *   events   the source's events, read from 0, are exactly the driver's
 *            changes enumerated independently (times, order, payloads);
 *            count and last time agree with shtgen_*_events / _last_time;
 *   seek     seek(p) then next gives event p (and then p + 1), for every
 *            p in a shuffled order (so also backwards), plus random
 *            positions; next after the last event, seek(count) and
 *            seek(> count) give SHT_END;
 *   driver   the provider over every event into a memory state system,
 *            finished at the workload's end, equals the driver's: the
 *            attribute tree (paths, parents, quarks), full queries at
 *            every event time, +-1, and the end, and a 2D query of every
 *            interval;
 *   replay   for positions p (every p on the small ones): a state system
 *            fed events [0, p), then [p, n) from a source seeked to p,
 *            is identical to the driver's; and a fresh one, given the
 *            complete attribute tree first and the ongoing values after
 *            event p - 1 (at the time of event p), then fed [p, n),
 *            continues identically from that time on (what a partial
 *            history does).  Staircase also: fed [p, n) with no
 *            attribute at all, it creates "0" .. "A-1" with quark = index.
 *
 * Seeded (SHT_TEST_SEED overrides; printed).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "tap.h"
#include "sht/sht.h"
#include "sht/source.h"
#include <shtgen/workload.h>

static struct rng rng;     /* seeded in main */

/* ---- one workload, either kind ------------------------------------------- */

typedef struct wl {
	char label[48];
	int churn;                /* 0: staircase, 1: churn */
	shtgen_staircase sc;
	shtgen_churn ch;
} wl;

static wl wl_staircase(uint64_t a, uint32_t i, sht_time d)
{
	wl w;

	memset(&w, 0, sizeof w);
	w.sc.attributes = a;
	w.sc.intervals = i;
	w.sc.step = d;
	snprintf(w.label, sizeof w.label, "staircase(%" PRIu64 ",%u,%" PRId64
		 ")", a, i, d);
	return w;
}

static wl wl_churn(uint64_t n)
{
	wl w;

	memset(&w, 0, sizeof w);
	w.churn = 1;
	w.ch.threads = n;
	snprintf(w.label, sizeof w.label, "churn(%" PRIu64 ")", n);
	return w;
}

static sht_err wl_source(const wl *w, sht_source *s)
{
	return w->churn ? shtgen_churn_source(&w->ch, s)
			: shtgen_staircase_source(&w->sc, s);
}

static void wl_provider(const wl *w, sht_provider *p)
{
	if (w->churn)
		shtgen_churn_provider(&w->ch, p);
	else
		shtgen_staircase_provider(&w->sc, p);
}

static sht_err wl_drive(const wl *w, sht_state *ss)
{
	return w->churn ? shtgen_churn_drive(&w->ch, ss)
			: shtgen_staircase_drive(&w->sc, ss);
}

static uint64_t wl_events(const wl *w)
{
	return w->churn ? shtgen_churn_events(&w->ch)
			: shtgen_staircase_events(&w->sc);
}

static sht_time wl_end(const wl *w)
{
	return w->churn ? shtgen_churn_end(&w->ch) : shtgen_staircase_end(&w->sc);
}

static sht_time wl_last(const wl *w)
{
	return w->churn ? shtgen_churn_last_time(&w->ch)
			: shtgen_staircase_last_time(&w->sc);
}

/* ---- events as plain records --------------------------------------------- */

/* An event with its payload copied out: staircase f = { attribute,
 * value }, churn f = { kind, thread, step, status }. */
typedef struct rec {
	sht_time ts;
	uint64_t pos;
	const char *name;
	int32_t cpu;
	int64_t f[4];
} rec;

static rec rec_of(const wl *w, const sht_event *ev)
{
	rec r;

	memset(&r, 0, sizeof r);
	r.ts = ev->ts;
	r.pos = ev->pos;
	r.name = ev->name;
	r.cpu = ev->cpu;
	if (!ev->data)
		return r;
	if (w->churn) {
		const shtgen_churn_event *d = ev->data;

		r.f[0] = d->kind;
		r.f[1] = (int64_t)d->thread;
		r.f[2] = d->step;
		r.f[3] = d->status;
	} else {
		const shtgen_staircase_event *d = ev->data;

		r.f[0] = (int64_t)d->attribute;
		r.f[1] = d->value;
	}
	return r;
}

static int rec_same(const rec *a, const rec *b)
{
	return a->ts == b->ts && a->pos == b->pos && a->cpu == b->cpu &&
	       a->name && b->name && strcmp(a->name, b->name) == 0 &&
	       memcmp(a->f, b->f, sizeof a->f) == 0;
}

static void rec_diag(const char *what, const rec *r)
{
	diag("  %s: ts=%" PRId64 " pos=%" PRIu64 " name=%s cpu=%d f=%" PRId64
	     ",%" PRId64 ",%" PRId64 ",%" PRId64, what, r->ts, r->pos,
	     r->name ? r->name : "(null)", (int)r->cpu, r->f[0], r->f[1],
	     r->f[2], r->f[3]);
}

/* Every event from position 0 (malloc'd, *n of them); then checks that
 * next keeps giving SHT_END. */
static rec *read_all(const wl *w, uint64_t *n)
{
	uint64_t cap = wl_events(w) + 1u, k = 0;
	rec *all = calloc(cap, sizeof *all);
	sht_source src;
	sht_event ev;
	sht_err err = SHT_OK;

	if (!all || wl_source(w, &src) != SHT_OK)
		bail_out("%s: cannot make the source", w->label);
	while (k < cap && (err = src.ops->next(src.src, &ev)) == SHT_OK)
		all[k++] = rec_of(w, &ev);
	ok(err == SHT_END, "%s: reading from 0 ends with SHT_END", w->label);
	is_int(src.ops->next(src.src, &ev), SHT_END,
	       "%s: next after the end is SHT_END again", w->label);
	shtgen_workload_source_free(&src);
	*n = k;
	return all;
}

/* ---- events: the driver's changes, enumerated independently -------------- */

/* Staircase event j: t = j*D, a = j mod A, k = j div A. */
static void expect_staircase(const wl *w, rec *out, uint64_t *n)
{
	uint64_t a = w->sc.attributes, total = a * w->sc.intervals;

	for (uint64_t j = 0; j < total; j++) {
		rec *r = &out[j];

		memset(r, 0, sizeof *r);
		r->ts = (sht_time)j * w->sc.step;
		r->pos = j;
		r->name = "staircase_modify";
		r->cpu = -1;
		r->f[0] = (int64_t)(j % a);
		r->f[1] = (int64_t)(j / a);
	}
	*n = total;
}

/* Churn: the driver's loop, by brute force: every 500 ns, every thread
 * i whose birth b satisfies b <= t <= b + 10000, lowest first. */
static void expect_churn(const wl *w, rec *out, uint64_t *n)
{
	uint64_t k = 0, threads = w->ch.threads;
	sht_time last = (sht_time)(threads - 1u) * 1000 + 10000;

	for (sht_time t = 0; t <= last; t += 500) {
		for (uint64_t i = 0; i < threads; i++) {
			sht_time d = t - (sht_time)i * 1000;
			rec *r = &out[k];
			int64_t step = d / 500;

			if (d < 0 || d > 10000)
				continue;
			memset(r, 0, sizeof *r);
			r->ts = t;
			r->pos = k++;
			r->cpu = -1;
			r->name = step == 0 ? "thread_birth"
				  : step == 20 ? "thread_exit"
				  : "thread_status";
			r->f[0] = step == 0 ? SHTGEN_CHURN_BIRTH
				  : step == 20 ? SHTGEN_CHURN_EXIT
				  : SHTGEN_CHURN_STATUS;
			r->f[1] = (int64_t)i;
			r->f[2] = step;
			r->f[3] = step == 20 ? 0 : 1 + step % 3;
		}
	}
	*n = k;
}

static void test_events(const wl *w, const rec *all, uint64_t n)
{
	rec *want = calloc(n + 64u * w->ch.threads + 64u, sizeof *want);
	uint64_t nw = 0, bad = 0;

	if (!want)
		bail_out("out of memory");
	if (w->churn)
		expect_churn(w, want, &nw);
	else
		expect_staircase(w, want, &nw);
	is_u64(n, wl_events(w), "%s: %" PRIu64 " events", w->label, n);
	is_u64(n, nw, "%s: as many as the driver's steps", w->label);
	is_i64(n ? all[n - 1].ts : -1, wl_last(w), "%s: last event time",
	       w->label);
	for (uint64_t j = 0; j < n && j < nw; j++) {
		if (rec_same(&all[j], &want[j]))
			continue;
		if (bad++ == 0) {
			rec_diag("got", &all[j]);
			rec_diag("want", &want[j]);
		}
	}
	is_u64(bad, 0, "%s: events equal the driver's changes, in order",
	       w->label);
	free(want);
}

/* ---- seek ---------------------------------------------------------------- */

/* seek(p), then next gives event p and the one after p + 1. */
static int seek_one(const wl *w, sht_source *src, const rec *all,
		    uint64_t n, uint64_t p)
{
	sht_event ev;
	rec r;

	if (src->ops->seek(src->src, p) != SHT_OK)
		return 0;
	for (uint64_t q = p; q < p + 2u; q++) {
		sht_err err = src->ops->next(src->src, &ev);

		if (q >= n)
			return err == SHT_END;
		if (err != SHT_OK)
			return 0;
		r = rec_of(w, &ev);
		if (!rec_same(&r, &all[q])) {
			diag("  after seek(%" PRIu64 "):", p);
			rec_diag("got", &r);
			rec_diag("want", &all[q]);
			return 0;
		}
	}
	return 1;
}

static void test_seek(const wl *w, const rec *all, uint64_t n)
{
	uint64_t *perm = malloc((n + 1u) * sizeof *perm), bad = 0;
	sht_source src;
	sht_event ev;

	if (!perm || wl_source(w, &src) != SHT_OK)
		bail_out("%s: cannot make the source", w->label);
	for (uint64_t i = 0; i < n; i++)
		perm[i] = i;
	for (uint64_t i = n; i > 1; i--) {     /* Fisher-Yates */
		uint64_t j = rng_below(&rng, i), t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (uint64_t i = 0; i < n; i++)
		bad += !seek_one(w, &src, all, n, perm[i]);
	for (int i = 0; i < 200; i++)
		bad += !seek_one(w, &src, all, n, rng_below(&rng, n));
	is_u64(bad, 0, "%s: seek(p) then next gives event p, p + 1 (every p, "
	       "shuffled; 200 random)", w->label);
	ok(seek_one(w, &src, all, n, n - 1u), "%s: seek(last): the last "
	   "event, then SHT_END", w->label);
	is_int(src.ops->seek(src.src, n), SHT_OK, "%s: seek(count)", w->label);
	is_int(src.ops->next(src.src, &ev), SHT_END,
	       "%s: seek(count) then next: SHT_END", w->label);
	src.ops->seek(src.src, n + 7u);
	is_int(src.ops->next(src.src, &ev), SHT_END,
	       "%s: seek(count + 7) then next: SHT_END", w->label);
	src.ops->seek(src.src, UINT64_MAX);
	is_int(src.ops->next(src.src, &ev), SHT_END,
	       "%s: seek(UINT64_MAX) then next: SHT_END", w->label);
	ok(seek_one(w, &src, all, n, 0), "%s: seek(0) after the end",
	   w->label);
	shtgen_workload_source_free(&src);
	free(perm);
}

/* ---- state systems ------------------------------------------------------- */

static sht_state *mem_state(void)
{
	sht_state_opts opts;
	sht_state *ss = NULL;

	sht_state_opts_init(&opts);
	opts.backend = SHT_BACKEND_MEMORY;
	if (sht_state_create(NULL, 0, &opts, &ss) != SHT_OK)
		bail_out("cannot create a memory state system: %s",
			 sht_errmsg());
	return ss;
}

/* Run the provider over events [from, to) of a new source. */
static sht_err run_events(const wl *w, sht_state *ss, uint64_t from,
			  uint64_t to)
{
	sht_provider prov;
	sht_source src;
	sht_event ev;
	sht_err err;

	wl_provider(w, &prov);
	err = wl_source(w, &src);
	if (err == SHT_OK)
		err = src.ops->seek(src.src, from);
	for (uint64_t p = from; err == SHT_OK && p < to; p++) {
		err = src.ops->next(src.src, &ev);
		if (err == SHT_OK && ev.pos != p)
			err = SHT_ERR_INVALID;
		if (err == SHT_OK)
			err = prov.handle(prov.ctx, ss, &ev);
	}
	shtgen_workload_source_free(&src);
	if (err != SHT_OK)
		diag("  run_events [%" PRIu64 ", %" PRIu64 "): %s: %s", from,
		     to, sht_strerror(err), sht_errmsg());
	return err;
}

/* Every event time, +-1, 0 and the end, within [0, end], sorted, unique. */
static int cmp_time(const void *a, const void *b)
{
	sht_time x = *(const sht_time *)a, y = *(const sht_time *)b;

	return (x > y) - (x < y);
}

static sht_time *query_times(const rec *all, uint64_t n, sht_time end,
			     size_t *count)
{
	sht_time *t = malloc((3u * n + 2u) * sizeof *t);
	size_t k = 0, u = 0;

	if (!t)
		bail_out("out of memory");
	t[k++] = 0;
	t[k++] = end;
	for (uint64_t j = 0; j < n; j++)
		for (sht_time d = -1; d <= 1; d++)
			if (all[j].ts + d >= 0 && all[j].ts + d <= end)
				t[k++] = all[j].ts + d;
	qsort(t, k, sizeof *t, cmp_time);
	for (size_t i = 0; i < k; i++)
		if (u == 0 || t[i] != t[u - 1])
			t[u++] = t[i];
	*count = u;
	return t;
}

/* Same attribute tree: count, and every quark's path and parent.  On a
 * difference *why says which. */
static int same_tree(sht_state *a, sht_state *b, char *why, size_t size)
{
	uint64_t n = sht_state_attr_count(a);
	char pa[256], pb[256];
	size_t need;

	if (n != sht_state_attr_count(b)) {
		snprintf(why, size, "attribute counts %" PRIu64 " vs %" PRIu64,
			 n, sht_state_attr_count(b));
		return 0;
	}
	for (sht_quark q = 0; q < n; q++) {
		sht_quark qa, qb;

		if (sht_state_attr_path(a, q, pa, sizeof pa, &need) != SHT_OK ||
		    sht_state_attr_path(b, q, pb, sizeof pb, &need) != SHT_OK ||
		    sht_state_attr_parent(a, q, &qa) != SHT_OK ||
		    sht_state_attr_parent(b, q, &qb) != SHT_OK ||
		    strcmp(pa, pb) != 0 || qa != qb) {
			snprintf(why, size, "quark %u: \"%.100s\" vs "
				 "\"%.100s\"", q, pa, pb);
			return 0;
		}
	}
	return 1;
}

/* Intervals equal; from >= 0 compares starts as max(start, from) (the
 * replayed history does not know what came before from). */
static int same_iv(const sht_interval *a, const sht_interval *b,
		   sht_time from)
{
	sht_time sa = a->start > from ? a->start : from;
	sht_time sb = b->start > from ? b->start : from;

	return a->quark == b->quark && sa == sb && a->end == b->end &&
	       sht_value_equal(&a->value, &b->value);
}

static int same_results(const sht_result *a, const sht_result *b,
			sht_time from, char *why, size_t size)
{
	size_t n = sht_result_count(a);

	if (n != sht_result_count(b)) {
		snprintf(why, size, "%zu vs %zu intervals", n,
			 sht_result_count(b));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const sht_interval *x = sht_result_at(a, i);
		const sht_interval *y = sht_result_at(b, i);

		if (!same_iv(x, y, from)) {
			snprintf(why, size, "item %zu: quark %u [%" PRId64
				 ", %" PRId64 "] vs quark %u [%" PRId64 ", %"
				 PRId64 "] (or values)", i, x->quark, x->start,
				 x->end, y->quark, y->start, y->end);
			return 0;
		}
	}
	return 1;
}

/* Full queries at every time >= from in times[]. */
static int same_full(sht_state *a, sht_state *b, const sht_time *times,
		     size_t nt, sht_time from, char *why, size_t size)
{
	sht_result *ra = sht_result_create(), *rb = sht_result_create();
	int same = ra && rb;

	for (size_t i = 0; same && i < nt; i++) {
		char sub[160];

		if (times[i] < from)
			continue;
		if (sht_state_query_full(a, times[i], ra) != SHT_OK ||
		    sht_state_query_full(b, times[i], rb) != SHT_OK) {
			snprintf(why, size, "full query at %" PRId64 " failed: "
				 "%s", times[i], sht_errmsg());
			same = 0;
		} else if (!same_results(ra, rb, from, sub, sizeof sub)) {
			snprintf(why, size, "full query at %" PRId64 ": %s",
				 times[i], sub);
			same = 0;
		}
	}
	sht_result_destroy(ra);
	sht_result_destroy(rb);
	return same;
}

/* Every interval of every quark over the whole history. */
static int same_all(sht_state *a, sht_state *b, char *why, size_t size)
{
	sht_result *ra = sht_result_create(), *rb = sht_result_create();
	sht_query2d q;
	char sub[160];
	int same = ra && rb;

	memset(&q, 0, sizeof q);
	q.qmin = 0;
	q.qmax = (sht_quark)(sht_state_attr_count(a) - 1u);
	q.t1 = sht_state_start(a);
	q.t2 = sht_state_end(a);
	if (same && (sht_state_query_2d(a, &q, ra) != SHT_OK ||
		     sht_state_query_2d(b, &q, rb) != SHT_OK)) {
		snprintf(why, size, "2D query failed: %s", sht_errmsg());
		same = 0;
	} else if (same && !same_results(ra, rb, SHT_TIME_MIN, sub,
					 sizeof sub)) {
		snprintf(why, size, "2D query of everything: %s", sub);
		same = 0;
	}
	sht_result_destroy(ra);
	sht_result_destroy(rb);
	return same;
}

/* Finished histories a (reference) and b identical: tree, bounds, full
 * queries at times[], every interval. */
static int same_history(sht_state *a, sht_state *b, const sht_time *times,
			size_t nt, char *why, size_t size)
{
	if (!same_tree(a, b, why, size))
		return 0;
	if (sht_state_start(a) != sht_state_start(b) ||
	    sht_state_end(a) != sht_state_end(b)) {
		snprintf(why, size, "bounds differ");
		return 0;
	}
	return same_full(a, b, times, nt, SHT_TIME_MIN, why, size) &&
	       same_all(a, b, why, size);
}

/* ---- provider vs driver -------------------------------------------------- */

/* The provider over every event, finished at the end. */
static sht_state *provider_history(const wl *w, uint64_t n)
{
	sht_state *ss = mem_state();

	if (run_events(w, ss, 0, n) != SHT_OK ||
	    sht_state_finish(ss, wl_end(w)) != SHT_OK)
		bail_out("%s: the provider fails: %s", w->label, sht_errmsg());
	return ss;
}

static void test_driver(const wl *w, sht_state *ref, sht_state *got,
			const sht_time *times, size_t nt)
{
	char why[256] = "";

	if (!ok(same_history(ref, got, times, nt, why, sizeof why),
		"%s: provider over every event == driver (tree, %zu full "
		"queries, every interval)", w->label, nt))
		diag("  %s", why);
}

/* ---- replay from the middle ---------------------------------------------- */

/* Copy the attribute tree of from into the empty to, in quark order, so
 * that quarks agree. */
static int copy_tree(sht_state *from, sht_state *to)
{
	uint64_t n = sht_state_attr_count(from);

	for (sht_quark q = 0; q < n; q++) {
		char name[256];
		const char *s, *elem = name;
		sht_quark parent, got;
		size_t len;

		if (sht_state_attr_name(from, q, &s, &len) != SHT_OK ||
		    sht_state_attr_parent(from, q, &parent) != SHT_OK ||
		    len >= sizeof name)
			return 0;
		memcpy(name, s, len);
		name[len] = '\0';
		if (sht_state_quark(to, parent, &elem, 1, &got) != SHT_OK ||
		    got != q)
			return 0;
	}
	return 1;
}

/* Set in to, at t, every non-null ongoing value of from (a state system
 * being built): the state a checkpoint restores. */
static int restore_values(sht_state *from, sht_state *to, sht_time t)
{
	uint64_t n = sht_state_attr_count(from);

	for (sht_quark q = 0; q < n; q++) {
		sht_value v;
		sht_time since;

		if (sht_state_ongoing(from, q, &v, &since) != SHT_OK)
			return 0;
		if (v.type != SHT_TYPE_NULL &&
		    sht_state_modify(to, t, q, &v) != SHT_OK)
			return 0;
	}
	return 1;
}

/*
 * Replay at p: prefix = events [0, p).  (a) prefix continued with [p, n)
 * is identical to ref.  (b) a fresh system with full's attribute tree and
 * prefix's ongoing values set at ts(p), fed [p, n), equals ref from ts(p)
 * on.  Returns 1 if both hold; *why tells the first failure.
 */
static int replay_at(const wl *w, sht_state *ref, sht_state *full,
		     const rec *all, uint64_t n, uint64_t p,
		     const sht_time *times, size_t nt, char *why, size_t size)
{
	sht_state *prefix = mem_state(), *fresh = mem_state();
	sht_time tp = all[p].ts;
	int good = run_events(w, prefix, 0, p) == SHT_OK;

	if (good && !(good = copy_tree(full, fresh)))
		snprintf(why, size, "p=%" PRIu64 ": copying the tree", p);
	if (good && !(good = restore_values(prefix, fresh, tp)))
		snprintf(why, size, "p=%" PRIu64 ": restoring values", p);
	if (good && !(good = run_events(w, fresh, p, n) == SHT_OK &&
			     sht_state_finish(fresh, wl_end(w)) == SHT_OK))
		snprintf(why, size, "p=%" PRIu64 ": fresh replay fails", p);
	if (good && !(good = same_tree(ref, fresh, why, size) &&
			     same_full(ref, fresh, times, nt, tp, why, size)))
		diag("  fresh replay from p=%" PRIu64 " (t=%" PRId64 ")", p,
		     tp);
	if (good && !(good = run_events(w, prefix, p, n) == SHT_OK &&
			     sht_state_finish(prefix, wl_end(w)) == SHT_OK))
		snprintf(why, size, "p=%" PRIu64 ": continuing fails", p);
	if (good && !(good = same_history(ref, prefix, times, nt, why, size)))
		diag("  [0, p) then [p, n), p=%" PRIu64, p);
	sht_state_close(prefix);
	sht_state_close(fresh);
	return good;
}

/* Positions to replay from: every one if few, else edges and random. */
static void test_replay(const wl *w, sht_state *ref, sht_state *full,
			const rec *all, uint64_t n, const sht_time *times,
			size_t nt)
{
	uint64_t tried = 0, bad = 0;
	int every = n <= 600;
	char why[256] = "";

	for (uint64_t i = 0; i < (every ? n : 40u); i++) {
		uint64_t p = every ? i : i < 3 ? i : i < 6 ? n - (i - 2u)
							    : rng_below(&rng, n);

		tried++;
		if (!replay_at(w, ref, full, all, n, p, times, nt, why,
			       sizeof why) && bad++ == 0)
			diag("  %s", why);
	}
	is_u64(bad, 0, "%s: replay from %" PRIu64 " positions: [0,p)+[p,n) "
	       "== driver; fresh tree + restored state + [p,n) == driver "
	       "from ts(p)", w->label, tried);
}

/* Staircase into an empty system from p: "0" .. "A-1" created first. */
static void test_staircase_empty(const wl *w, uint64_t n)
{
	uint64_t bad = 0;

	for (int i = 0; i < 5; i++) {
		uint64_t p = i == 0 ? n - 1u : rng_below(&rng, n);
		sht_state *ss = mem_state();
		char name[24], got[24];
		size_t need;

		if (run_events(w, ss, p, n) != SHT_OK ||
		    sht_state_attr_count(ss) != w->sc.attributes)
			bad++;
		for (uint64_t a = 0; a < w->sc.attributes; a++) {
			snprintf(name, sizeof name, "%" PRIu64, a);
			if (sht_state_attr_path(ss, (sht_quark)a, got,
						sizeof got, &need) != SHT_OK ||
			    strcmp(got, name) != 0)
				bad++;
		}
		sht_state_close(ss);
	}
	is_u64(bad, 0, "%s: from the middle into an empty system: quark a "
	       "= \"a\"", w->label);
}

/* ---- main ---------------------------------------------------------------- */

static void test_provider_identity(void)
{
	shtgen_staircase sc = { 3, 2, 1 };
	shtgen_churn ch = { 2 };
	sht_provider p;
	sht_source s;

	shtgen_staircase_provider(&sc, &p);
	is_str(p.id, "staircase", "staircase provider id");
	is_int(p.version, 1, "staircase provider version");
	ok(p.ctx == &sc && p.handle, "staircase provider ctx = the workload");
	shtgen_churn_provider(&ch, &p);
	is_str(p.id, "churn", "churn provider id");
	is_int(p.version, 1, "churn provider version");
	ok(p.ctx == &ch && p.handle, "churn provider ctx = the workload");
	sc.attributes = 0;
	is_int(shtgen_staircase_source(&sc, &s), SHT_ERR_INVALID,
	       "staircase source of A = 0: SHT_ERR_INVALID");
	ch.threads = 0;
	is_int(shtgen_churn_source(&ch, &s), SHT_ERR_INVALID,
	       "churn source of N = 0: SHT_ERR_INVALID");
	is_u64(shtgen_churn_events(&ch), 0, "churn N = 0: no events");
	shtgen_workload_source_free(NULL);
}

static void test_workload(const wl *w)
{
	sht_state *ref = mem_state(), *full;
	uint64_t n;
	rec *all = read_all(w, &n);
	sht_time *times;
	size_t nt;

	test_events(w, all, n);
	test_seek(w, all, n);
	if (!ok(wl_drive(w, ref) == SHT_OK, "%s: driver runs", w->label))
		bail_out("%s", sht_errmsg());
	full = provider_history(w, n);
	times = query_times(all, n, wl_end(w), &nt);
	test_driver(w, ref, full, times, nt);
	test_replay(w, ref, full, all, n, times, nt);
	if (!w->churn)
		test_staircase_empty(w, n);
	free(times);
	free(all);
	sht_state_close(full);
	sht_state_close(ref);
}

int main(void)
{
	wl ws[7];
	size_t nw = 0;

	rng_seed(&rng, rng_test_seed(20240611u));
	ws[nw++] = wl_staircase(1, 1, 1);
	ws[nw++] = wl_staircase(7, 5, 3);
	ws[nw++] = wl_staircase(100, 20, 1000);
	ws[nw++] = wl_churn(1);
	ws[nw++] = wl_churn(3);
	ws[nw++] = wl_churn(25);
	test_provider_identity();
	for (size_t i = 0; i < nw; i++)
		test_workload(&ws[i]);
	return done_testing();
}
