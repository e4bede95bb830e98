/*
 * out-histogram.c: "Histogram", events per time bucket, from the event
 * statistics history's "total" counter (Trace Compass's
 * HistogramDataProvider id and name: the viewer's overview finds it by
 * the name).  y[i] = events in (t[i-1], t[i]], the first bucket as wide
 * as the second: one sampled 2D query per trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "xy.h"

static int hist_applies(struct srv_exp *e)
{
	(void)e;
	return 1;
}

static int hist_tree(struct srv_out_ctx *c)
{
	json_t *model = json_object(), *entries = json_array();
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	size_t nh = 0;

	for (size_t i = 0; i < c->e->ntraces; i++) {
		struct srv_trace *t = c->e->traces[i];
		struct srv_idkey kr = { (int64_t)i, 0, 0 }, kt = { (int64_t)i, 1, 0 };
		int64_t root = srv_ids_get(c->ids, kr), total = srv_ids_get(c->ids, kt);
		json_t *e = srv_entry(root, -1, 0, 0, 0, 0);

		hs[nh++] = srv_trace_hist(t, SRV_AN_STATS);
		srv_entry_label(e, t->name);
		json_array_append_new(entries, e);
		e = srv_entry(total, root, 0, 0, 0, 1);
		srv_entry_label(e, "Total");
		json_object_set_new(e, "isDefault", json_true());
		json_array_append_new(entries, e);
	}
	json_object_set_new(model, "headers", json_array());
	json_object_set_new(model, "entries", entries);
	srv_reply_tree(c->rep, model, hs, nh);
	return 0;
}

/* The times with one more in front (t0 - step), for the first bucket;
 * none if that is below INT64_MIN (the bucket then counts from there).
 * Any 64-bit times: the step in unsigned. */
static int widen(const struct srv_times *ts, struct srv_times *w)
{
	uint64_t step = ts->n > 1 ? srv_span(ts->t[0], ts->t[1]) : 1;

	*w = *ts;
	w->t = malloc((ts->n + 1) * sizeof *w->t);
	if (!w->t)
		return -1;
	w->t[0] = srv_span(INT64_MIN, ts->t[0]) > step ? ts->t[0] - (sht_time)step :
		  ts->t[0];
	memcpy(w->t + 1, ts->t, ts->n * sizeof *ts->t);
	w->n = ts->n + (w->t[0] < ts->t[0] ? 1 : 0);
	if (w->n == ts->n)
		memmove(w->t, w->t + 1, ts->n * sizeof *ts->t);
	w->start = w->t[0];
	return 0;
}

/* The series of trace ti. */
static int trace_series(struct srv_out_ctx *c, struct xy_out *o, size_t ti,
			int64_t id, const struct srv_times *ts, int *status)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_STATS);
	struct srv_times w;
	struct srv_hq q;
	int64_t *cnt = NULL;
	double *y = malloc(ts->n * sizeof *y);
	char name[512];
	int rc = -1;

	if (!h || !y || widen(ts, &w) != 0) {
		free(y);
		return -1;
	}
	cnt = malloc(w.n * sizeof *cnt);
	srv_hist_acquire(h, &q);
	if (cnt) {
		sht_quark total;

		pthread_rwlock_rdlock(&h->attrs.lock);
		total = srv_attrs_child(&h->attrs, SHT_QUARK_NONE, "total");
		pthread_rwlock_unlock(&h->attrs.lock);
		rc = srv_counter_at(&q, total, &w, &t->xf, cnt);
	}
	if (rc == 0) {
		size_t off = w.n - ts->n;   /* 1 if widened */

		for (size_t i = 0; i < ts->n; i++)
			y[i] = (double)(cnt[i + off] - (i + off ? cnt[i + off - 1] : 0));
		snprintf(name, sizeof name, "%s/Total", t->name);
		xy_series(o, id, name, ts->t, y, ts->n, "bar");
		if (srv_query_status(&q, 1, srv_from_exp(&t->xf, ts->end)) == SRV_RUNNING)
			*status = SRV_RUNNING;
	}
	srv_hist_release(&q);
	free(w.t);
	free(cnt);
	free(y);
	return rc;
}

static int hist_xy(struct srv_out_ctx *c)
{
	struct xy_request x;

	if (xy_request_begin(c, "Histogram", &x) != 0)
		return -1;
	for (size_t i = 0; i < x.n; i++) {
		struct srv_idkey k;

		if (srv_ids_key(c->ids, x.ids[i], &k, NULL) != 0 || k.b != 1 ||
		    (size_t)k.a >= c->e->ntraces)
			continue;
		if (trace_series(c, &x.o, (size_t)k.a, x.ids[i], &x.ts, &x.status) != 0)
			x.status = SRV_FAILED;
	}
	xy_request_end(c, &x);
	return 0;
}

const struct srv_output srv_out_histogram = {
	.index = SRV_OUT_HISTOGRAM,
	.id = "org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider",
	.name = "Histogram",
	.description = "Show a histogram of number of events to time for a trace",
	.type = SRV_OUT_XY,
	.applies = hist_applies,
	.tree = hist_tree,
	.xy = hist_xy,
};
