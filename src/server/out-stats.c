/*
 * out-stats.c: "Statistics", a data tree of sht's own (Trace Compass has
 * no event-count output over TSP): per trace, the events of each type in
 * the whole trace and per CPU, and, when the client sends a time range
 * with "isFiltered": true (the viewer's selection), a "Selection" branch
 * with the counts in that range.  Read from the event statistics history
 * with one full query per instant (the end; the range's two ends).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"

#define NONE SHT_QUARK_NONE

static int stats_applies(struct srv_exp *e)
{
	(void)e;
	return 1;
}

struct stree {
	struct srv_out_ctx *c;
	size_t ti;
	json_t *entries;
	const struct srv_attrs *a;
	const sht_result *hi, *lo; /* counters at the end, before the start */
	int section;              /* 0 whole trace, 1 selection */
};

static int64_t count(const struct stree *s, sht_quark q)
{
	return srv_counter_in(s->hi, q) - (s->lo ? srv_counter_in(s->lo, q) : 0);
}

static int64_t add(struct stree *s, int64_t key, int64_t parent,
		   const char *label, int64_t n, int64_t total)
{
	struct srv_idkey k = { (int64_t)s->ti, key, s->section };
	int64_t id = srv_ids_get(s->c->ids, k);
	json_t *e = srv_entry(id, parent, 0, 0, 0, 1);
	char num[32], pct[32];

	snprintf(pct, sizeof pct, "%.2f %%", total > 0 ? 100.0 * (double)n /
		 (double)total : 0.0);
	srv_entry_label(e, label);
	srv_entry_label(e, srv_itoa(n, num));
	srv_entry_label(e, pct);
	json_array_append_new(s->entries, e);
	return id;
}

struct typed {
	sht_quark q;
	int64_t n;
};

static int cmp_typed(const void *x, const void *y)
{
	const struct typed *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return (a->q > b->q) - (a->q < b->q);
}

/* The children of types (an event_types node), by count. */
static void types(struct stree *s, sht_quark node, int64_t parent, int64_t total)
{
	struct typed *v = NULL;
	size_t n = 0, cap = 0;

	for (sht_quark q = node == NONE ? NONE : srv_attrs_first(s->a, node);
	     q != NONE; q = srv_attrs_next(s->a, q)) {
		if (n == cap) {
			void *p = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
			if (!p)
				break;
			v = p;
		}
		v[n].q = q;
		v[n++].n = count(s, q);
	}
	qsort(v, n, sizeof *v, cmp_typed);
	for (size_t i = 0; i < n; i++)
		if (v[i].n > 0)
			add(s, v[i].q, parent, s->a->name[v[i].q], v[i].n, total);
	free(v);
}

/* One section (whole trace or selection) under parent. */
static void section(struct stree *s, int64_t parent, const char *label)
{
	const struct srv_attrs *a = s->a;
	sht_quark total = srv_attrs_child(a, NONE, "total");
	sht_quark et = srv_attrs_child(a, NONE, "event_types");
	sht_quark cpus = srv_attrs_child(a, NONE, "cpus");
	int64_t all = total == NONE ? 0 : count(s, total), id, cid;
	char buf[64];

	id = add(s, -2, parent, label, all, all);
	types(s, et, id, all);
	if (cpus == NONE)
		return;
	cid = add(s, -3, id, "CPUs", all, all);
	for (sht_quark c = srv_attrs_first(a, cpus); c != NONE; c = srv_attrs_next(a, c)) {
		sht_quark ct = srv_attrs_child(a, c, "total");
		int64_t n = ct == NONE ? 0 : count(s, ct), k;

		snprintf(buf, sizeof buf, "CPU %s", a->name[c]);
		k = add(s, (int64_t)c, cid, buf, n, all);
		types(s, srv_attrs_child(a, c, "event_types"), k, n);
	}
}

/* The full query of the counters at t (clamped to the history). */
static int counters(struct srv_hq *q, sht_time t, sht_result *res)
{
	if (t > q->end)
		t = q->end;
	if (t < q->start)
		return 1;                 /* nothing yet: all zero */
	return srv_hq_full(q, t, res) == SHT_OK ? 0 : -1;
}

static void trace_tree(struct srv_out_ctx *c, size_t ti, json_t *entries,
		       int sel, sht_time t1, sht_time t2)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *h = srv_trace_hist(t, SRV_AN_STATS);
	sht_result *hi = sht_result_create(), *lo = sht_result_create();
	struct stree s = { c, ti, entries, &h->attrs, hi, NULL, 0 };
	struct srv_hq q;
	int64_t root;
	json_t *e;
	struct srv_idkey k = { (int64_t)ti, -1, 0 };

	root = srv_ids_get(c->ids, k);
	e = srv_entry(root, -1, 0, 0, 0, 0);
	srv_entry_label(e, t->name);
	srv_entry_label(e, "");
	srv_entry_label(e, "");
	json_array_append_new(entries, e);
	srv_hist_acquire(h, &q);
	if (hi && lo && q.valid && counters(&q, q.end, hi) == 0) {
		pthread_rwlock_rdlock(&h->attrs.lock);
		section(&s, root, "Total");
		t1 = srv_from_exp(&t->xf, t1);
		t2 = srv_from_exp(&t->xf, t2);
		/* The counts before t1: none if t1 is at or before the
		 * start (then t1 - 1 might not even exist). */
		if (sel && counters(&q, t2, hi) >= 0 &&
		    (t1 <= q.start || counters(&q, t1 - 1, lo) >= 0)) {
			s.lo = t1 > q.start ? lo : NULL;
			s.section = 1;
			section(&s, root, "Selection");
		}
		pthread_rwlock_unlock(&h->attrs.lock);
	}
	srv_hist_release(&q);
	sht_result_destroy(hi);
	sht_result_destroy(lo);
}

static int stats_tree(struct srv_out_ctx *c)
{
	json_t *model = json_object(), *entries = json_array(), *h = json_array();
	json_t *f = json_object_get(c->req->params, "isFiltered");
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	sht_time t1 = 0, t2 = 0;
	int sel;

	sel = srv_req_range(c->req, c->rep, 0, &t1, &t2);
	if (sel < 0) {
		json_decref(model);
		json_decref(entries);
		json_decref(h);
		return -1;
	}
	sel = sel == 0 && json_is_true(f);
	json_array_append_new(h, srv_header("Label", "", "STRING"));
	json_array_append_new(h, srv_header("Count", "Events", "NUMBER"));
	json_array_append_new(h, srv_header("%", "Share of the events", "STRING"));
	for (size_t i = 0; i < c->e->ntraces; i++) {
		hs[i] = srv_trace_hist(c->e->traces[i], SRV_AN_STATS);
		trace_tree(c, i, entries, sel, t1, t2);
	}
	json_object_set_new(model, "headers", h);
	json_object_set_new(model, "autoExpandLevel", json_integer(2));
	json_object_set_new(model, "entries", entries);
	srv_reply_tree(c->rep, model, hs, c->e->ntraces);
	return 0;
}

const struct srv_output srv_out_stats = {
	.index = SRV_OUT_STATS,
	.id = "org.eclipse.tracecompass.sht.statistics",
	.name = "Statistics",
	.description = "Events per type, in total and per CPU, in the whole "
		       "trace and in the selected time range",
	.type = SRV_OUT_DATA_TREE,
	.applies = stats_applies,
	.tree = stats_tree,
};
