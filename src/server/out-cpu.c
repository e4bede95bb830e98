/*
 * out-cpu.c: "CPU Usage" (Trace Compass's CpuUsageDataProvider id,
 * columns and series names).  A thread's CPU time over a range is the
 * length of the intervals where a CPU runs it (the kernel history's
 * CPUs/<n>/Current_thread).
 *
 * Tree (for the part of the requested range the trace covers, else the
 * whole trace): per trace a "Total" entry, then one per thread that ran
 * (tid > 0): [name, tid, percent of that range, time].  XY: for each
 * ticked entry, y[i] = 100 x CPU time in (t[i-1], t[i]] / (t[i] -
 * t[i-1]), summed over CPUs (the total can reach 100 x CPUs).  Requests
 * may give any 64-bit times: widths are unsigned (srv_span).
 *
 * Both come from the cumulative CPU time history (cpu-cum.c) once it is
 * complete; else (analysis running, or "sht_cpu_usage": "intervals", the
 * tests' oracle) by summing the running-thread intervals of the range,
 * one 2D query per trace and request.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpucum.h"
#include "tg.h"
#include "xy.h"

#define NONE SHT_QUARK_NONE

static int cpu_applies(struct srv_exp *e)
{
	for (size_t i = 0; i < e->ntraces; i++)
		if (e->traces[i]->kernel)
			return 1;
	return 0;
}

/* Every interval of the CPUs' running threads over [t1, t2] (trace
 * times). */
static sht_err running(struct srv_hq *q, sht_time t1, sht_time t2,
		       sht_result *res)
{
	size_t n;
	sht_quark *qs = srv_cpu_running_quarks(q->h, &n);
	sht_err err = srv_hq_2d(q, qs, n, t1, t2, 0, res);

	free(qs);
	return err;
}

/* The cumulative CPU time history of t for queries (q->h NULL if the
 * request asks for the sum of the intervals: "sht_cpu_usage":
 * "intervals", which tests compare with). */
static void cum_acquire(struct srv_out_ctx *c, struct srv_trace *t, struct srv_hq *q)
{
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_CPU);
	const char *how = NULL;

	memset(q, 0, sizeof *q);
	if (srv_req_str(c->req, c->rep, "sht_cpu_usage", 0, &how) == 0 &&
	    strcmp(how, "intervals") == 0)
		return;
	if (h)
		srv_hist_acquire(h, q);
}

/* ---- tree -------------------------------------------------------------------- */

static int cmp_usage(const void *x, const void *y)
{
	const struct cpu_usage *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* CPU time per thread over [t1, t2]; *total the sum (tids > 0). */
static struct cpu_usage *usage_of(const sht_result *res, sht_time t1, sht_time t2,
			      size_t *n, int64_t *total)
{
	const sht_interval *iv = sht_result_items(res);
	size_t m = sht_result_count(res), k = 0;
	struct cpu_usage *u = malloc((m ? m : 1) * sizeof *u);

	*total = 0;
	if (!u)
		return NULL;
	for (size_t i = 0; i < m; i++) {
		sht_time a = iv[i].start > t1 ? iv[i].start : t1;
		sht_time b = iv[i].end < t2 ? iv[i].end : t2;

		if (iv[i].value.type != SHT_TYPE_INT32 || iv[i].value.u.i32 <= 0 || a > b)
			continue;
		u[k].tid = iv[i].value.u.i32;
		u[k++].ns = b - a + 1;         /* within the history's span */
	}
	qsort(u, k, sizeof *u, cmp_usage);
	*n = 0;
	for (size_t i = 0; i < k; i++) {     /* merge equal tids */
		if (*n && u[*n - 1].tid == u[i].tid)
			u[*n - 1].ns += u[i].ns;
		else
			u[(*n)++] = u[i];
		*total += u[i].ns;
	}
	return u;
}

/* The Exec_name quarks of the threads of u (NONE: none). */
static void name_quarks(struct srv_hq *q, const struct cpu_usage *u, size_t n,
			sht_quark *qs)
{
	const struct srv_attrs *a = &q->h->attrs;
	sht_quark threads;
	char num[24];

	pthread_rwlock_rdlock(&q->h->attrs.lock);
	threads = srv_attrs_child(a, NONE, "Threads");
	for (size_t i = 0; i < n; i++) {
		sht_quark x = threads == NONE ? NONE :
			      srv_attrs_child(a, threads, srv_itoa(u[i].tid, num));

		qs[i] = x == NONE ? NONE : srv_attrs_child(a, x, "Exec_name");
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
}

static char *name_of(const sht_interval *iv)
{
	char *s = malloc(iv->value.len + 1);

	if (s) {
		memcpy(s, iv->value.u.str, iv->value.len);
		s[iv->value.len] = 0;
	}
	return s;
}

/* The latest string of each quark qs[i] over [t1, t2] (the names not
 * found yet; a found one's quark becomes NONE): one 2D query over the
 * range, which reads every node of the range. */
static void names_range(struct srv_hq *q, sht_quark *qs, size_t n, sht_time t1,
			sht_time t2, char **names)
{
	sht_result *res = sht_result_create();
	struct tg_group g = { 0 };

	if (res && srv_hq_rows(q, qs, n, t1, t2, 0, res) == SHT_OK && tg_group(&g, res) == 0)
		for (size_t i = 0; i < n; i++) {
			size_t lo, hi;

			if (qs[i] == NONE)
				continue;
			tg_group_range(&g, qs[i], &lo, &hi);
			while (hi-- > lo) {
				const sht_interval *iv = &g.items[hi];

				if (iv->value.type == SHT_TYPE_STRING) {
					names[i] = name_of(iv);
					break;
				}
			}
		}
	tg_group_free(&g);
	sht_result_destroy(res);
}

/* The same by looking back from t2: the value at t2 (one 2D query at
 * that time), then, for a thread without a name then (it had exited),
 * the intervals before, at most 8 of them; a found name's or a nameless
 * thread's quark becomes NONE, the others are left to names_range. */
static void names_back(struct srv_hq *q, sht_quark *qs, size_t n, sht_time t1,
		       sht_time t2, char **names)
{
	sht_result *res = sht_result_create(), *one = sht_result_create();
	struct tg_group g = { 0 };
	sht_time lo = t1 > q->start ? t1 : q->start, at = t2 < q->end ? t2 : q->end;

	if (!res || !one || at < lo || srv_hq_rows(q, qs, n, at, at, 0, res) != SHT_OK ||
	    tg_group(&g, res) != 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const sht_interval *iv = qs[i] == NONE ? NULL : tg_group_at(&g, qs[i], at);

		for (int k = 0; iv && k < 8; k++) {
			if (iv->value.type == SHT_TYPE_STRING) {
				names[i] = name_of(iv);
				break;
			}
			if (iv->start <= lo) {
				iv = NULL;          /* none in the range */
				break;
			}
			iv = srv_hq_at(q, qs[i], iv->start - 1, one) == SHT_OK &&
			     sht_result_count(one) ? sht_result_items(one) : NULL;
		}
		if (names[i] || !iv)
			qs[i] = NONE;
	}
out:
	tg_group_free(&g);
	sht_result_destroy(res);
	sht_result_destroy(one);
}

/* The latest name (Exec_name) of each thread of u over [t1, t2]
 * (malloc'd, NULL if none): looking back from t2 if fast, else (and for
 * what that leaves) by one 2D query over the range. */
static void thread_names(struct srv_hq *q, const struct cpu_usage *u, size_t n,
			 sht_time t1, sht_time t2, int fast, char **names)
{
	sht_quark *qs = malloc((n ? n : 1) * sizeof *qs);
	size_t left = 0;

	for (size_t i = 0; i < n; i++)
		names[i] = NULL;
	if (!qs)
		return;
	name_quarks(q, u, n, qs);
	if (fast)
		names_back(q, qs, n, t1, t2, names);
	for (size_t i = 0; i < n; i++)
		left += qs[i] != NONE;
	if (left)
		names_range(q, qs, n, t1, t2, names);
	free(qs);
}

static void usage_entry(json_t *entries, int64_t id, int64_t parent,
			const char *name, const char *tid, int64_t ns, double range)
{
	json_t *e = srv_entry(id, parent, 0, 0, 0, 1);
	char pct[32], dur[48];

	snprintf(pct, sizeof pct, "%.3f %%", range > 0 ? 100.0 * (double)ns /
		 range : 0.0);
	srv_entry_label(e, name);
	srv_entry_label(e, tid);
	srv_entry_label(e, pct);
	srv_entry_label(e, srv_fmt_duration(ns, dur, sizeof dur));
	json_array_append_new(entries, e);
}

static int trace_tree(struct srv_out_ctx *c, size_t ti, json_t *entries,
		      int have_range, sht_time t1, sht_time t2)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_KERNEL);
	sht_result *res = sht_result_create();
	struct srv_idkey kt = { (int64_t)ti, -1, 0 };
	struct cpu_usage *u = NULL;
	char **nv = NULL;
	int fast = 0;
	struct srv_hq q, cq;
	size_t n = 0;
	int64_t total = 0, root;
	double width;
	char name[256], num[24];

	srv_hist_acquire(h, &q);
	cum_acquire(c, t, &cq);
	/* The range the history covers (so far) within the requested one,
	 * as Trace Compass does: the shares are of that time, the same for
	 * [INT64_MIN, INT64_MAX] as for the trace's own span. */
	if (have_range) {
		t1 = srv_from_exp(&t->xf, t1);
		t2 = srv_from_exp(&t->xf, t2);
	}
	if (!have_range || t1 < q.start)
		t1 = q.start;
	if (!have_range || t2 > q.end)
		t2 = q.end;
	width = t1 <= t2 ? (double)srv_span(t1, t2) + 1.0 : 0.0;
	if (q.valid && t1 > t2)
		u = calloc(1, sizeof *u);       /* nothing ran there */
	if (!u && cq.h && srv_cpucum_ready(&q, &cq))
		fast = (u = srv_cpucum_tree(&q, &cq, t1, t2, &n, &total)) != NULL;
	if (!u && res && q.valid && running(&q, t1, t2, res) == SHT_OK)
		u = usage_of(res, t1, t2, &n, &total);
	root = srv_ids_get(c->ids, kt);
	usage_entry(entries, root, -1, t->name, "Total", total, width);
	nv = u ? malloc((n ? n : 1) * sizeof *nv) : NULL;
	if (nv)
		thread_names(&q, u, n, t1, t2, fast, nv);
	for (size_t i = 0; nv && i < n; i++) {
		struct srv_idkey k = { (int64_t)ti, u[i].tid, 0 };

		snprintf(name, sizeof name, "%s", nv[i] ? nv[i] : "");
		free(nv[i]);
		usage_entry(entries, srv_ids_get(c->ids, k), root, name,
			    srv_itoa(u[i].tid, num), u[i].ns, width);
	}
	srv_hist_release(&cq);
	srv_hist_release(&q);
	free(nv);
	free(u);
	sht_result_destroy(res);
	return 0;
}

static const char *const headers[][2] = {
	{ "Process", "The name of the thread" }, { "TID", "The ID of the thread" },
	{ "%", "Share of the CPU time of the range" }, { "Time", "CPU time" },
};

static int cpu_tree(struct srv_out_ctx *c)
{
	json_t *model = json_object(), *h = json_array(), *entries = json_array();
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	sht_time t1 = 0, t2 = 0;
	size_t nh = 0;
	int have = srv_req_range(c->req, c->rep, 0, &t1, &t2);

	if (have < 0) {
		json_decref(model);
		json_decref(h);
		json_decref(entries);
		return -1;
	}
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		json_array_append_new(h, srv_header(headers[i][0], headers[i][1], NULL));
	for (size_t i = 0; i < c->e->ntraces; i++) {
		if (!c->e->traces[i]->kernel)
			continue;
		hs[nh++] = srv_trace_hist(c->e->traces[i], SRV_AN_KERNEL);
		trace_tree(c, i, entries, have == 0, t1, t2);
	}
	json_object_set_new(model, "headers", h);
	json_object_set_new(model, "entries", entries);
	srv_reply_tree(c->rep, model, hs, nh);
	return 0;
}

/* ---- xy ------------------------------------------------------------------------ */

/* The width of the first bucket: the second's (1 if one sample).  The
 * times may span the whole 64 bits: unsigned. */
static uint64_t first_width(const struct srv_times *ts)
{
	return ts->n > 1 ? srv_span(ts->t[0], ts->t[1]) : 1;
}

/* Add the running time of one interval [a, b] (experiment times) into the
 * buckets (t[i-1], t[i]] it overlaps; bucket 0 is (t0 - w0, t0] with w0
 * the second bucket's width, from INT64_MIN + 1 if that is below (as
 * sample_times' T[0]). */
static void spread(const struct srv_times *ts, sht_time a, sht_time b, double *ns)
{
	size_t i = srv_times_lower(ts, a);    /* first t[i] >= a */

	for (; i < ts->n; i++) {
		sht_time lo = i ? ts->t[i - 1] + 1 :
			      srv_time_back(ts->t[0], first_width(ts)) + 1;
		sht_time x = a > lo ? a : lo, y = b < ts->t[i] ? b : ts->t[i];

		if (x <= y)
			ns[i] += (double)srv_span(x, y) + 1.0;
		if (ts->t[i] >= b)
			break;
	}
}

/* The sample times of the chart as trace times: T[0] = t[0] - w0 (kept
 * at INT64_MIN if below), then t[0..n); *step their spacing if even (but
 * for the last, and for T[0] if kept) and at most INT64_MAX, else 0. */
static sht_time *sample_times(const struct srv_trace *t, const struct srv_times *ts,
			      sht_time *step)
{
	sht_time *T = malloc((ts->n + 1) * sizeof *T);
	uint64_t d;

	if (!T)
		return NULL;
	T[0] = srv_from_exp(&t->xf, srv_time_back(ts->t[0], first_width(ts)));
	for (size_t i = 0; i < ts->n; i++)
		T[i + 1] = srv_from_exp(&t->xf, ts->t[i]);
	d = srv_span(T[ts->n > 1], T[1 + (ts->n > 1)]);
	if (T[0] != INT64_MIN && srv_span(T[0], T[1]) != d)
		d = 0;
	for (size_t i = 1; i + 1 < ts->n; i++)
		if (srv_span(T[i], T[i + 1]) != d)
			d = 0;
	*step = d <= INT64_MAX ? (sht_time)d : 0;
	return T;
}

/* CPU time per bucket of series s (thread tid, < 0: all) from the
 * running-thread intervals iv[0..m). */
static void sum_intervals(const struct srv_trace *t, const struct srv_times *ts,
			  const sht_interval *iv, size_t m, int64_t tid, double *ns)
{
	memset(ns, 0, ts->n * sizeof *ns);
	for (size_t k = 0; k < m; k++)
		if (iv[k].value.type == SHT_TYPE_INT32 && iv[k].value.u.i32 > 0 &&
		    (tid < 0 || iv[k].value.u.i32 == tid))
			spread(ts, srv_to_exp(&t->xf, iv[k].start),
			       srv_to_exp(&t->xf, iv[k].end), ns);
}

/* The series of trace ti: from the cumulative history when it is there
 * (*fast set), else from the intervals in res. */
static int trace_sums(struct srv_out_ctx *c, size_t ti, const struct srv_idkey *keys,
		      size_t n, const struct srv_times *ts, double *ns,
		      struct srv_hq *q, int *running_hist)
{
	struct srv_trace *t = c->e->traces[ti];
	sht_time step = 0;
	sht_time *T = sample_times(t, ts, &step);
	int64_t *tids = malloc((n ? n : 1) * sizeof *tids), *cum = NULL;
	sht_result *res = NULL;
	struct srv_hq cq;
	size_t k = 0;
	int rc = -1;

	cum_acquire(c, t, &cq);
	for (size_t s = 0; tids && s < n; s++)
		if (keys[s].a == (int64_t)ti)
			tids[k++] = keys[s].b;
	if (T && tids && cq.h && srv_cpucum_ready(q, &cq) &&
	    (cum = malloc((k * ts->n + 1) * sizeof *cum)) &&
	    srv_cpucum_series(q, &cq, tids, k, T, ts->n + 1, step, cum) == 0) {
		for (size_t i = 0; i < k * ts->n; i++)
			ns[i] = (double)cum[i];
		rc = 0;
	} else if (T && tids && (res = sht_result_create()) &&
		   (!q->valid || running(q, T[0] + 1, srv_from_exp(&t->xf, ts->end),
					 res) == SHT_OK)) {
		size_t m = q->valid ? sht_result_count(res) : 0;

		for (size_t s = 0; s < k; s++)
			sum_intervals(t, ts, sht_result_items(res), m, tids[s],
				      ns + s * ts->n);
		*running_hist = srv_query_status(q, 1, srv_from_exp(&t->xf, ts->end)) ==
				SRV_RUNNING;
		rc = 0;
	}
	if (cq.h)
		srv_hist_release(&cq);
	sht_result_destroy(res);
	free(cum);
	free(tids);
	free(T);
	return rc;
}

static int trace_series(struct srv_out_ctx *c, struct xy_out *o, size_t ti,
			const int64_t *ids, const struct srv_idkey *keys,
			size_t n, const struct srv_times *ts, int *status)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_KERNEL);
	double *ns = malloc((n * ts->n + 1) * sizeof *ns);
	struct srv_hq q;
	char name[512];
	int rc = -1, live = 0;
	size_t k = 0;

	if (!h || !ns)
		goto out;
	srv_hist_acquire(h, &q);
	rc = trace_sums(c, ti, keys, n, ts, ns, &q, &live);
	srv_hist_release(&q);
	for (size_t s = 0; rc == 0 && s < n; s++) {
		double *y = ns + k * ts->n;

		if (keys[s].a != (int64_t)ti)
			continue;
		k++;
		for (size_t i = 0; i < ts->n; i++) {
			uint64_t width = i ? srv_span(ts->t[i - 1], ts->t[i]) :
					 first_width(ts);

			y[i] = width > 0 ? 100.0 * y[i] / (double)width : 0;
		}
		if (keys[s].b < 0)
			snprintf(name, sizeof name, "total:%s", t->name);
		else
			snprintf(name, sizeof name, "%s:%" PRId64, t->name, keys[s].b);
		xy_series(o, ids[s], name, ts->t, y, ts->n, "line");
	}
	if (live)
		*status = SRV_RUNNING;
out:
	free(ns);
	return rc;
}

static int cpu_xy(struct srv_out_ctx *c)
{
	struct xy_request x;
	struct srv_idkey *keys;
	size_t k = 0;

	if (xy_request_begin(c, "CPU Usage", &x) != 0)
		return -1;
	keys = malloc((x.n ? x.n : 1) * sizeof *keys);
	for (size_t i = 0; keys && i < x.n; i++)
		if (srv_ids_key(c->ids, x.ids[i], &keys[k], NULL) == 0 &&
		    (size_t)keys[k].a < c->e->ntraces)
			x.ids[k++] = x.ids[i];
	for (size_t ti = 0; keys && ti < c->e->ntraces; ti++)
		if (c->e->traces[ti]->kernel &&
		    trace_series(c, &x.o, ti, x.ids, keys, k, &x.ts, &x.status) != 0)
			x.status = SRV_FAILED;
	free(keys);
	xy_request_end(c, &x);
	return 0;
}

const struct srv_output srv_out_cpu = {
	.index = SRV_OUT_CPU,
	.id = "org.eclipse.tracecompass.analysis.os.linux.core.cpuusage.CpuUsageDataProvider",
	.name = "CPU Usage",
	.description = "Show the CPU usage of a Linux kernel trace, returns the "
		       "CPU usage per process and can be filtered by CPU core",
	.type = SRV_OUT_XY,
	.applies = cpu_applies,
	.tree = cpu_tree,
	.xy = cpu_xy,
};
