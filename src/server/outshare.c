/*
 * outshare.c: pieces every output uses: tree entries and headers, styles,
 * the status of an answer, and the sampled 2D query of a time-graph or XY
 * request (one query per screen, never one per sample).
 */
#include <string.h>

#include "out.h"

json_t *srv_entry(int64_t id, int64_t parent, int has_time, sht_time start,
		  sht_time end, int has_data)
{
	json_t *j = json_object();

	json_object_set_new(j, "id", json_integer(id));
	json_object_set_new(j, "parentId", json_integer(parent));
	json_object_set_new(j, "labels", json_array());
	if (has_time) {
		json_object_set_new(j, "start", json_integer(start));
		json_object_set_new(j, "end", json_integer(end));
	}
	json_object_set_new(j, "hasData", json_boolean(has_data));
	return j;
}

void srv_entry_label(json_t *entry, const char *label)
{
	json_array_append_new(json_object_get(entry, "labels"), srv_jstr(label));
}

json_t *srv_header(const char *name, const char *tooltip, const char *type)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", json_string(name));
	json_object_set_new(j, "tooltip", json_string(tooltip ? tooltip : ""));
	if (type)
		json_object_set_new(j, "dataType", json_string(type));
	return j;
}

json_t *srv_style_def(const char *name, const char *color, double height,
		      double opacity, const char *group)
{
	json_t *j = json_object(), *v = json_object();

	json_object_set_new(v, "style-name", json_string(name));
	if (color)
		json_object_set_new(v, "background-color", json_string(color));
	json_object_set_new(v, "height", json_real(height));
	json_object_set_new(v, "opacity", json_real(opacity));
	if (group)
		json_object_set_new(v, "style-group", json_string(group));
	json_object_set_new(j, "values", v);
	return j;
}

int srv_hist_tree_status(struct srv_hist *const *h, size_t n)
{
	size_t failed = 0;

	for (size_t i = 0; i < n; i++) {
		int st = atomic_load(&h[i]->status);

		if (st == SRV_RUNNING)
			return SRV_RUNNING;
		failed += st == SRV_FAILED || st == SRV_CANCELLED;
	}
	return n && failed == n ? SRV_FAILED : SRV_COMPLETED;
}

int srv_query_status(struct srv_hq *q, size_t n, sht_time last)
{
	int st = SRV_COMPLETED;

	for (size_t i = 0; i < n; i++) {
		if (q[i].status == SRV_RUNNING && last > q[i].end)
			st = SRV_RUNNING;
		else if (q[i].status != SRV_RUNNING && q[i].status != SRV_COMPLETED &&
			 st == SRV_COMPLETED && n == 1)
			st = SRV_FAILED;
	}
	return st;
}

/* The 2D query of srv_hq_2d in the given order. */
static sht_err hq_2d(struct srv_hq *q, const sht_quark *quarks, size_t n,
		     sht_time t1, sht_time t2, sht_time resolution,
		     sht_order order, sht_result *res)
{
	sht_query2d qq;

	sht_result_clear(res);
	if (!q->valid || n == 0)
		return SHT_OK;
	if (t1 < q->start)
		t1 = q->start;
	if (t2 > q->end)
		t2 = q->end;
	if (t1 > t2)
		return SHT_OK;
	memset(&qq, 0, sizeof qq);
	qq.quarks = quarks;
	qq.n_quarks = n;
	qq.t1 = t1;
	qq.t2 = t2;
	qq.resolution = resolution;
	qq.order = order;
	if (q->rd && n >= SRV_PAR_QUARKS && resolution > 0)
		return sht_reader_query_2d_threads(q->rd, &qq, q->h->query_threads, res);
	return q->rd ? sht_reader_query_2d(q->rd, &qq, res)
		     : sht_state_query_2d(q->ss, &qq, res);
}

sht_err srv_hq_2d(struct srv_hq *q, const sht_quark *quarks, size_t n,
		  sht_time t1, sht_time t2, sht_time resolution,
		  sht_result *res)
{
	return hq_2d(q, quarks, n, t1, t2, resolution, SHT_ORDER_TIME, res);
}

sht_err srv_hq_rows(struct srv_hq *q, const sht_quark *quarks, size_t n,
		    sht_time t1, sht_time t2, sht_time resolution,
		    sht_result *res)
{
	return hq_2d(q, quarks, n, t1, t2, resolution, SHT_ORDER_QUARK, res);
}

/*
 * The 2D query of a request's times (experiment times, turned into the
 * trace's through xf).  Evenly spaced times are exactly the 2D query's
 * samples t1 + k r (plus t2) when t1 is the first of them inside the
 * history: one query gives exactly the intervals holding a time.  Uneven
 * times (an explicit requested_times list) take every interval over
 * their span: the caller keeps those holding a time (srv_times_hit),
 * which it does anyway for entries that live part of the range.
 */
sht_err srv_sample(struct srv_hq *q, const sht_quark *quarks, size_t n,
		   const struct srv_times *ts, const struct srv_xform *xf,
		   sht_result *res)
{
	size_t i0, i1;

	sht_result_clear(res);
	if (!q->valid || ts->n == 0 || n == 0)
		return SHT_OK;
	i0 = srv_times_lower(ts, srv_to_exp(xf, q->start));
	i1 = srv_times_lower(ts, srv_to_exp(xf, q->end) + 1);
	if (i0 >= i1)
		return SHT_OK;
	return srv_hq_rows(q, quarks, n, srv_from_exp(xf, ts->t[i0]),
			   srv_from_exp(xf, ts->t[i1 - 1]), ts->step, res);
}

int srv_sample_keeps(const struct srv_hq *q, const struct srv_times *ts,
		     const struct srv_xform *xf, sht_time a, sht_time b)
{
	size_t i0, i1;

	if (!q->valid || ts->n == 0)
		return 0;
	i0 = srv_times_lower(ts, srv_to_exp(xf, q->start));
	i1 = srv_times_lower(ts, srv_to_exp(xf, q->end) + 1);
	if (i0 >= i1 || a > srv_from_exp(xf, ts->t[i1 - 1]) ||
	    b < srv_from_exp(xf, ts->t[i0]))
		return 0;
	return ts->step == 0 || srv_times_hit(ts, srv_to_exp(xf, a), srv_to_exp(xf, b));
}

int srv_reply_tree(struct srv_reply *rep, json_t *model,
		   struct srv_hist *const *h, size_t n)
{
	int st = srv_hist_tree_status(h, n);
	const char *msg = NULL;
	char some[1200];

	for (size_t i = 0; st != SRV_RUNNING && i < n && !msg; i++)
		if (atomic_load(&h[i]->status) == SRV_FAILED)
			msg = h[i]->message;
	if (msg && st == SRV_COMPLETED) {     /* the others answer: say it */
		snprintf(some, sizeof some, "Completed, but an analysis failed: %s", msg);
		msg = some;
	}
	srv_reply_model(rep, model, st, msg);
	return st;
}
