/*
 * out-ssx.c: "State System Explorer": every history of every trace (the
 * kernel analysis, the event statistics, each rules file) as its
 * attribute tree, one row per attribute, its values as labelled states
 * (Trace Compass's StateSystemDataProvider: id, columns, labels, style
 * keys).  A user's own analysis is viewable with no code of its own.
 *
 * Rows: trace > analysis > state system (its provider id) > attributes
 * [name, quark].  States: int in decimal, long in hex, string as is,
 * double unlabelled; the style key of a value is Java's string hash of
 * its text modulo 9 (nine colours), null values get "Unknown", the
 * analysis and state-system rows one "Transparent" state over the
 * history.  One sampled 2D query per history on screen.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg.h"

#define NONE SHT_QUARK_NONE

/* Key: a = trace, b = history (-1: the trace row), c = quark, or -1 the
 * analysis row, -2 the state-system row. */

static int ssx_applies(struct srv_exp *e)
{
	(void)e;
	return 1;
}

struct sx {
	struct srv_out_ctx *c;
	size_t ti, hi;
	json_t *entries;
	sht_time start, end;
};

static int64_t row(struct sx *x, int64_t b, int64_t q, int64_t parent,
		   const char *label, const char *quark, int has_data)
{
	struct srv_idkey k = { (int64_t)x->ti, b, q };
	int64_t id = srv_ids_get(x->c->ids, k);
	json_t *e = srv_entry(id, parent, 1, x->start, x->end, has_data);

	srv_entry_label(e, label);
	srv_entry_label(e, quark);
	json_array_append_new(x->entries, e);
	return id;
}

/* The attributes below parent, depth first (iteratively: histories can
 * nest deeply). */
static void attributes(struct sx *x, const struct srv_attrs *a, int64_t top)
{
	sht_quark q = srv_attrs_first(a, NONE);
	int64_t *ids = malloc((a->n + 1) * sizeof *ids);
	char num[24];

	if (!ids)
		return;
	while (q != NONE) {
		sht_quark p = a->parent[q];

		ids[q] = row(x, (int64_t)x->hi, q, p == NONE ? top : ids[p],
			     a->name[q], srv_itoa(q, num), 1);
		if (srv_attrs_first(a, q) != NONE) {
			q = srv_attrs_first(a, q);
			continue;
		}
		while (q != NONE && srv_attrs_next(a, q) == NONE)
			q = a->parent[q];
		if (q != NONE)
			q = srv_attrs_next(a, q);
	}
	free(ids);
}

static void hist_rows(struct sx *x, struct srv_hist *h, int64_t trace_row)
{
	struct srv_trace *t = x->c->e->traces[x->ti];
	struct srv_hq q;
	int64_t mod, ss;

	srv_hist_acquire(h, &q);
	x->start = srv_to_exp(&t->xf, q.valid ? q.start : t->first_ts);
	x->end = srv_to_exp(&t->xf, q.valid ? q.end : t->first_ts);
	if (atomic_load(&h->status) == SRV_FAILED) {  /* said on its branch */
		char label[1024];

		snprintf(label, sizeof label, "%s (failed: %s)", h->label,
			 h->message && h->message[0] ? h->message : "no message");
		mod = row(x, (int64_t)x->hi, -1, trace_row, label, "", 1);
	} else {
		mod = row(x, (int64_t)x->hi, -1, trace_row, h->label, "", 1);
	}
	ss = row(x, (int64_t)x->hi, -2, mod, h->provider[0] ? h->provider : h->label,
		 "", 1);
	if (q.valid) {
		pthread_rwlock_rdlock(&h->attrs.lock);
		attributes(x, &h->attrs, ss);
		pthread_rwlock_unlock(&h->attrs.lock);
	}
	srv_hist_release(&q);
}

static int ssx_tree(struct srv_out_ctx *c)
{
	json_t *model = json_object(), *hd = json_array(), *entries = json_array();
	struct srv_hist *hs[SRV_EXP_TRACES_MAX * 8];
	size_t nh = 0;

	json_array_append_new(hd, srv_header("State System / Attribute", "", NULL));
	json_array_append_new(hd, srv_header("Quark", "", NULL));
	for (size_t i = 0; i < c->e->ntraces; i++) {
		struct srv_trace *t = c->e->traces[i];
		struct sx x = { c, i, 0, entries, srv_to_exp(&t->xf, t->first_ts), 0 };
		int64_t tr;
		sht_time last;

		srv_trace_events(t, &last);
		x.end = srv_to_exp(&t->xf, last);
		tr = row(&x, -1, -1, -1, t->name, "", 0);
		for (size_t k = 0; k < t->nhists; k++) {
			x.hi = k;
			if (nh < sizeof hs / sizeof hs[0])
				hs[nh++] = &t->hists[k];
			hist_rows(&x, &t->hists[k], tr);
		}
	}
	json_object_set_new(model, "headers", hd);
	json_object_set_new(model, "autoExpandLevel", json_integer(1));
	json_object_set_new(model, "entries", entries);
	c->cacheable = srv_reply_tree(c->rep, model, hs, nh) == SRV_COMPLETED;
	return 0;
}

/* ---- states ------------------------------------------------------------------ */

/* Java's String.hashCode of the value's text, modulo 9 (floorMod). */
static const char *value_key(const sht_value *v)
{
	static const char *const keys[] = { "0", "1", "2", "3", "4", "5", "6", "7", "8" };
	char buf[64];
	const char *s = buf;
	size_t n;
	int32_t h = 0;

	switch (v->type) {
	case SHT_TYPE_NULL:
		return "Unknown";
	case SHT_TYPE_INT32:
		snprintf(buf, sizeof buf, "%" PRId32, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		snprintf(buf, sizeof buf, "%" PRId64, v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		snprintf(buf, sizeof buf, "%.17g", v->u.d);
		break;
	default:
		s = v->u.str;
		break;
	}
	n = v->type == SHT_TYPE_STRING ? v->len : strlen(buf);
	for (size_t i = 0; i < n; i++)
		h = (int32_t)((uint32_t)h * 31u + (unsigned char)s[i]);
	return keys[((h % 9) + 9) % 9];
}

static void attr_states(struct tg_out *o, const struct tg_group *g,
			sht_quark q, const struct srv_times *ts,
			const struct srv_xform *xf)
{
	size_t lo, hi;

	tg_group_range(g, q, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		const sht_interval *iv = &g->items[k];
		char buf[64];
		size_t len = 0;
		const char *label;

		if (!srv_times_hit(ts, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end)))
			continue;
		label = tg_value_label(&iv->value, buf, sizeof buf, &len);
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 value_key(&iv->value), label, len);
	}
}

/* The rows of history hi of trace ti. */
static void hist_states(struct srv_out_ctx *c, size_t ti, size_t hi,
			const struct tg_row *rows, size_t n,
			const struct srv_times *ts, struct tg_out *o, int *status)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *h = &t->hists[hi];
	sht_quark *qs = malloc((n + 1) * sizeof *qs);
	sht_result *res = sht_result_create();
	struct tg_group g = { 0 };
	struct srv_hq q;
	size_t k = 0, nattrs;

	srv_hist_acquire(h, &q);
	nattrs = srv_attrs_count(&h->attrs);
	for (size_t i = 0; qs && i < n; i++)
		if (rows[i].known && rows[i].k.a == (int64_t)ti &&
		    rows[i].k.b == (int64_t)hi && rows[i].k.c >= 0 &&
		    (uint64_t)rows[i].k.c < nattrs)
			qs[k++] = (sht_quark)rows[i].k.c;
	if (qs && res && srv_sample(&q, qs, k, ts, &t->xf, res) == SHT_OK &&
	    tg_group(&g, res) == 0) {
		srv_buf_reserve(&o->b, sht_result_count(res) * 80);
		for (size_t i = 0; i < n; i++) {
			if (!rows[i].known || rows[i].k.a != (int64_t)ti ||
			    rows[i].k.b != (int64_t)hi)
				continue;
			tg_row_begin(o, rows[i].id);
			if (rows[i].k.c >= 0)
				attr_states(o, &g, (sht_quark)rows[i].k.c, ts, &t->xf);
			else if (q.valid)
				tg_state(o, srv_to_exp(&t->xf, q.start),
					 srv_to_exp(&t->xf, q.end) + 1, "Transparent",
					 NULL, 0);
			tg_row_end(o);
		}
		if (srv_query_status(&q, 1, srv_from_exp(&t->xf, ts->end)) == SRV_RUNNING)
			*status = SRV_RUNNING;
	}
	srv_hist_release(&q);
	tg_group_free(&g);
	sht_result_destroy(res);
	free(qs);
}

static int ssx_states(struct srv_out_ctx *c)
{
	struct tg_states s;

	if (tg_states_begin(c, &s) != 0)
		return -1;
	for (size_t i = 0; i < s.n; i++)      /* trace rows: no states */
		if (s.rows[i].known && s.rows[i].k.b < 0) {
			tg_row_begin(&s.o, s.rows[i].id);
			tg_row_end(&s.o);
		}
	for (size_t ti = 0; ti < c->e->ntraces; ti++)
		for (size_t hi = 0; hi < c->e->traces[ti]->nhists; hi++)
			hist_states(c, ti, hi, s.rows, s.n, &s.ts, &s.o, &s.status);
	tg_states_end(c, &s);
	return 0;
}

/* ---- tooltip, styles ------------------------------------------------------------ */

static int ssx_tooltip(struct srv_out_ctx *c)
{
	struct tg_row r;
	struct srv_trace *t;
	struct srv_hist *h;
	struct srv_hq q;
	sht_result *res;
	json_t *m;
	sht_time at;
	char path[4096], num[24], buf[64];

	if (srv_tooltip_args(c, &at, &r) != 0)
		return -1;
	if (!r.known || r.k.b < 0 || r.k.c < 0 || (size_t)r.k.a >= c->e->ntraces ||
	    (size_t)r.k.b >= c->e->traces[r.k.a]->nhists) {
		srv_reply_model(c->rep, json_object(), SRV_COMPLETED, NULL);
		return 0;
	}
	t = c->e->traces[r.k.a];
	h = &t->hists[r.k.b];
	m = json_object();
	res = sht_result_create();
	srv_hist_acquire(h, &q);
	if ((uint64_t)r.k.c < srv_attrs_count(&h->attrs)) {
		size_t len = 0;
		const char *s;

		json_object_set_new(m, "Quark", json_string(srv_itoa(r.k.c, num)));
		pthread_rwlock_rdlock(&h->attrs.lock);
		srv_attrs_fullpath(&h->attrs, (sht_quark)r.k.c, path, sizeof path);
		pthread_rwlock_unlock(&h->attrs.lock);
		json_object_set_new(m, "Full attribute path", srv_jstr(path));
		if (res && srv_hq_at(&q, (sht_quark)r.k.c, srv_from_exp(&t->xf, at),
				     res) == SHT_OK && sht_result_count(res)) {
			const sht_value *v = &sht_result_at(res, 0)->value;

			s = tg_value_label(v, buf, sizeof buf, &len);
			if (v->type == SHT_TYPE_DOUBLE) {
				snprintf(buf, sizeof buf, "%.17g", v->u.d);
				s = buf;
				len = strlen(buf);
			}
			json_object_set_new(m, "Value", s ? srv_jstrn(s, len)
							  : json_string("null"));
		}
	}
	srv_hist_release(&q);
	sht_result_destroy(res);
	srv_reply_model(c->rep, m, SRV_COMPLETED, NULL);
	return 0;
}

static json_t *ssx_styles(void)
{
	static const char *const colors[] = {
		"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
		"#edc948", "#b07aa1", "#ff9da7", "#9c755f",
	};
	json_t *m = json_object();
	char key[4];

	for (int i = 0; i < 9; i++) {
		snprintf(key, sizeof key, "%d", i);
		json_object_set_new(m, key, srv_style_def(key, colors[i], 1.0, 1.0,
							 "Values"));
	}
	json_object_set_new(m, "Unknown", srv_style_def("Unknown", "#c0c0c0", 1.0,
						      1.0, "Values"));
	json_object_set_new(m, "Transparent", srv_style_def("Transparent", "#000000",
							   1.0, 0.0, "Values"));
	return m;
}

const struct srv_output srv_out_ssx = {
	.index = SRV_OUT_SSX,
	.id = "org.eclipse.tracecompass.internal.tmf.core.statesystem.provider."
	      "StateSystemDataProvider",
	.name = "State System Explorer",
	.description = "Displays the states of state system attributes over time",
	.type = SRV_OUT_TIME_GRAPH,
	.applies = ssx_applies,
	.cache_tree = 1,
	.tree = ssx_tree,
	.states = ssx_states,
	.tooltip = ssx_tooltip,
	.arrows = srv_no_arrows,
	.styles = ssx_styles,
};
