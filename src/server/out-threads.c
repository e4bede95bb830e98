/*
 * out-threads.c: "Thread Status", the Control Flow view: one row per
 * thread lifetime, nested by parent, states from the kernel analysis's
 * thread status (Trace Compass's ThreadStatusDataProvider: its id, name,
 * columns, style keys and colours).
 *
 * Tree: per trace, an entry for the trace, then one entry per maximal
 * run of non-null Threads/<x>/Exec_name (a reused tid is a new entry, a
 * rename is not), labels [exec, tid, pid, ppid] with PID and PPID read at
 * the end of the run; its parent is the entry of its PPID alive when it
 * starts.  Two 2D queries per trace (the Exec_name runs, the PID/PPID
 * values), whatever the number of threads.
 *
 * States: one sampled 2D query over the rows' Threads/<x>; the label of
 * a system call state by a point query of Threads/<x>/System_call at its
 * start (a screen has a few of them per row: on the 2 GB trace's whole
 * screen of 500 rows, 1 077 of 112 209 states; asking the 2D query for
 * every row's System_call as well cost more than the rest of it).
 */
#include <stdlib.h>
#include <string.h>

#include "lives.h"
#include "tg.h"

#define NONE SHT_QUARK_NONE

struct tree_ctx {
	struct srv_out_ctx *c;
	size_t ti;                /* trace index in the experiment */
	struct srv_trace *t;
	struct srv_hq q;
	const struct srv_lives *l;
	int64_t *id;              /* entry id of each lifetime */
	int64_t trace_id;
	size_t *written;          /* entries written so far (commas) */
};

/* The entry of tid alive at t (lives sorted by tid, start), else the
 * trace's.  A parent comes before its child in (start, tid) order, so
 * odd data (a statedump's ppid) can never make a cycle. */
static int64_t parent_of(const struct tree_ctx *x, int64_t tid, sht_time t,
			 int64_t child_tid)
{
	const struct srv_life *v = x->l->v;
	size_t lo = 0, hi = x->l->n;

	if (tid <= 0)
		return x->trace_id;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (v[m].tid < tid || (v[m].tid == tid && v[m].start <= t))
			lo = m + 1;
		else
			hi = m;
	}
	if (lo > 0 && v[lo - 1].tid == tid && v[lo - 1].start <= t &&
	    t <= v[lo - 1].end && (v[lo - 1].start < t || tid < child_tid))
		return x->id[lo - 1];
	return x->trace_id;
}

/* One entry, written straight into the tree's buffer (a tree can hold
 * tens of thousands of threads). */
static void add_entry(struct tree_ctx *x, struct srv_buf *b, size_t i)
{
	const struct srv_xform *xf = &x->t->xf;
	const struct srv_life *l = &x->l->v[i];
	const char *name = x->l->names + l->name_off;
	int64_t pid = l->pid > 0 ? l->pid : l->tid;

	srv_buf_puts(b, (*x->written)++ ? ",{\"id\":" : "{\"id\":");
	srv_buf_i64(b, x->id[i]);
	srv_buf_puts(b, ",\"parentId\":");
	srv_buf_i64(b, parent_of(x, l->ppid, l->start, l->tid));
	srv_buf_puts(b, ",\"labels\":[");
	srv_buf_jstr(b, name, l->name_len);
	srv_buf_puts(b, ",\"");
	srv_buf_i64(b, l->tid);
	srv_buf_puts(b, "\",\"");
	srv_buf_i64(b, pid);
	srv_buf_puts(b, "\",\"");
	if (l->ppid > 0)
		srv_buf_i64(b, l->ppid);
	srv_buf_puts(b, "\"],\"start\":");
	srv_buf_i64(b, srv_to_exp(xf, l->start));
	srv_buf_puts(b, ",\"end\":");
	srv_buf_i64(b, srv_to_exp(xf, l->end) + 1);
	srv_buf_puts(b, ",\"hasData\":true,\"metadata\":{\"TID\":[");
	srv_buf_i64(b, l->tid);
	srv_buf_puts(b, "],\"PTID\":[");
	srv_buf_i64(b, l->ppid);
	srv_buf_puts(b, "],\"PID\":[");
	srv_buf_i64(b, pid);
	srv_buf_puts(b, "],\"Exec_Name\":[");
	srv_buf_jstr(b, name, l->name_len);
	srv_buf_puts(b, "]}}");
}

/* The entries of one trace. */
static int trace_entries(struct tree_ctx *x, struct srv_buf *b)
{
	const struct srv_xform *xf = &x->t->xf;
	struct srv_idkey k = { (int64_t)x->ti, -1, 0 };
	struct srv_lives fresh = { 0 };
	json_t *te;

	x->trace_id = srv_ids_get(x->c->ids, k);
	te = srv_entry(x->trace_id, -1, 1, srv_to_exp(xf, x->q.valid ? x->q.start
					     : x->t->first_ts),
		       srv_to_exp(xf, x->q.valid ? x->q.end : x->t->first_ts), 0);
	srv_entry_label(te, x->t->name);
	for (int i = 0; i < 3; i++)
		srv_entry_label(te, "");
	if ((*x->written)++)
		srv_buf_put(b, ",", 1);
	srv_buf_json(b, te);
	json_decref(te);
	if (!x->q.valid)
		return 0;
	x->l = srv_hist_lives(&x->q);       /* built: kept; building: now */
	if (!x->l) {
		if (srv_lives_compute(&x->q, &fresh) != 0)
			return -1;
		x->l = &fresh;
	}
	x->id = malloc((x->l->n + 1) * sizeof *x->id);
	if (!x->id) {
		srv_lives_free(&fresh);
		return -1;
	}
	for (size_t i = 0; i < x->l->n; i++) {
		struct srv_idkey lk = { (int64_t)x->ti, x->l->v[i].thread,
					x->l->v[i].start };

		x->id[i] = srv_ids_get(x->c->ids, lk);
		srv_ids_set_aux(x->c->ids, x->id[i], x->l->v[i].end, 0);
	}
	srv_buf_reserve(b, x->l->n * 200);
	for (size_t i = 0; i < x->l->n; i++)
		add_entry(x, b, i);
	free(x->id);
	srv_lives_free(&fresh);
	return 0;
}

/* ---- tree ------------------------------------------------------------------ */

static const char *const headers[][2] = {
	{ "Exec_Name", "The name of the executable" },
	{ "TID", "The ID of the thread" },
	{ "PID", "The ID of the process (thread group)" },
	{ "PTID", "The ID of the parent thread" },
};

static int threads_applies(struct srv_exp *e)
{
	for (size_t i = 0; i < e->ntraces; i++)
		if (e->traces[i]->kernel)
			return 1;
	return 0;
}

static int threads_tree(struct srv_out_ctx *c)
{
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	struct srv_buf b = { 0 };
	json_t *h = json_array();
	size_t nh = 0, written = 0;
	int rc = 0, st;
	const char *msg = NULL;

	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		json_array_append_new(h, srv_header(headers[i][0], headers[i][1], NULL));
	srv_buf_puts(&b, "{\"model\":{\"headers\":");
	srv_buf_json(&b, h);
	json_decref(h);
	srv_buf_puts(&b, ",\"autoExpandLevel\":-1,\"entries\":[");
	for (size_t i = 0; i < c->e->ntraces && rc == 0; i++) {
		struct tree_ctx x;
		struct srv_hist *kh = srv_trace_hist(c->e->traces[i], SRV_AN_KERNEL);

		if (!kh)
			continue;
		hs[nh++] = kh;
		memset(&x, 0, sizeof x);
		x.c = c;
		x.ti = i;
		x.t = c->e->traces[i];
		x.written = &written;
		srv_hist_acquire(kh, &x.q);
		rc = trace_entries(&x, &b);
		srv_hist_release(&x.q);
	}
	if (rc != 0) {
		srv_buf_free(&b);
		return srv_reply_error(c->rep, 500, "Cannot build the tree", "%s",
				       sht_errmsg());
	}
	st = srv_hist_tree_status(hs, nh);
	for (size_t i = 0; st == SRV_FAILED && i < nh && !msg; i++)
		msg = hs[i]->message;
	srv_buf_puts(&b, "]},\"status\":\"");
	srv_buf_puts(&b, srv_status_name(st));
	srv_buf_puts(&b, "\",\"statusMessage\":");
	msg = msg ? msg : srv_status_message(st);
	srv_buf_jstr(&b, msg, strlen(msg));
	srv_buf_puts(&b, "}");
	srv_reply_buf(c->rep, &b);
	c->cacheable = st == SRV_COMPLETED;
	return 0;
}

/* ---- states ------------------------------------------------------------------ */

static const char *status_key(const sht_value *v)
{
	static const char *const keys[] = {
		"Unknown", "Wait blocked", "Usermode", "System call",
		"Interrupt", "Wait for CPU", "Wait",
	};

	if (v->type == SHT_TYPE_NULL)
		return NULL;
	if (v->type != SHT_TYPE_INT32 || v->u.i32 < 0 || v->u.i32 > 6)
		return "Unknown";
	return keys[v->u.i32];
}

/* The rows of trace ti: status quarks (qs), and their System_call
 * children (sys, per row). */
static size_t row_quarks(struct srv_hq *q, const struct tg_row *rows, size_t n,
			 size_t ti, sht_quark *qs, sht_quark *sys)
{
	size_t k = 0;

	pthread_rwlock_rdlock(&q->h->attrs.lock);
	for (size_t i = 0; i < n; i++) {
		sys[i] = NONE;
		if (!rows[i].known || rows[i].k.a != (int64_t)ti || rows[i].k.b < 0 ||
		    (uint64_t)rows[i].k.b >= q->h->attrs.n)
			continue;
		qs[k++] = (sht_quark)rows[i].k.b;
		sys[i] = srv_attrs_child(&q->h->attrs, (sht_quark)rows[i].k.b,
					 "System_call");
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
	return k;
}

/* The frame of a trace's states. */
struct cf_ctx {
	struct srv_hq q;
	const struct srv_times *ts;
	const struct srv_xform *xf;
	struct tg_group g;
	sht_result *one;          /* a point query's */
	const struct tg_row *rows;
	const sht_quark *sys;     /* per row: its System_call quark */
	int64_t ti;               /* the trace's index */
};

/* The name of the system call of quark sys at t: the interval the 2D
 * query of the screen would have had (one it keeps, srv_sample_keeps). */
static const char *sys_label(struct cf_ctx *x, sht_quark sys, sht_time t,
			     size_t *len)
{
	const sht_interval *iv;

	if (sys == NONE || srv_hq_at(&x->q, sys, t, x->one) != SHT_OK ||
	    sht_result_count(x->one) == 0)
		return NULL;
	iv = sht_result_items(x->one);
	if (iv->value.type != SHT_TYPE_STRING ||
	    !srv_sample_keeps(&x->q, x->ts, x->xf, iv->start, iv->end))
		return NULL;
	*len = iv->value.len;
	return iv->value.u.str;
}

/* The states of one row from the grouped result. */
static void row_states(struct tg_out *o, struct cf_ctx *x,
		       const struct tg_row *r, sht_quark sys)
{
	const struct tg_group *g = &x->g;
	const struct srv_times *ts = x->ts;
	const struct srv_xform *xf = x->xf;
	sht_time ls = r->k.c, le = r->aux[0];   /* the lifetime, inclusive */
	size_t lo, hi;

	tg_group_range(g, (sht_quark)r->k.b, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		const sht_interval *iv = &g->items[k];
		sht_time a = iv->start > ls ? iv->start : ls;
		sht_time b = iv->end < le ? iv->end : le;
		const char *key = status_key(&iv->value), *label = NULL;
		size_t len = 0;

		if (a > b || !srv_times_hit(ts, srv_to_exp(xf, a), srv_to_exp(xf, b)))
			continue;
		if (key && iv->value.u.i32 == 3)
			label = sys_label(x, sys, iv->start, &len);
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 key, label, len);
	}
}

/* Rows [from, to) of the trace (tg_write_fn). */
static void write_rows(void *ctx, struct tg_out *o, size_t from, size_t to)
{
	struct cf_ctx *x = ctx;

	for (size_t i = from; i < to; i++) {
		if (!x->rows[i].known || x->rows[i].k.a != x->ti)
			continue;
		tg_row_begin(o, x->rows[i].id);
		if (x->rows[i].k.b >= 0)
			row_states(o, x, &x->rows[i], x->sys[i]);
		tg_row_end(o);
	}
}

/* The cost of row i: its intervals, and one for the row (tg_weight_fn). */
static uint64_t row_weight(void *ctx, size_t i)
{
	const struct cf_ctx *x = ctx;

	return 1 + tg_row_items(&x->g, &x->rows[i], x->ti);
}

/* Write the rows, on two threads for a big screen (the second part with
 * its own point-query result). */
static void write_all(struct cf_ctx *x, struct tg_out *o, size_t n)
{
	struct cf_ctx x2 = *x;
	void *ctx[2] = { x, &x2 };

	x2.one = sht_result_create();
	tg_write_rows(o, n, x2.one ? x->q.h->query_threads : 1, TG_PAR_WEIGHT,
		      row_weight, write_rows, ctx);
	sht_result_destroy(x2.one);
}

static int trace_states(struct srv_out_ctx *c, size_t ti, struct tg_row *rows,
			size_t n, const struct srv_times *ts, struct tg_out *o,
			int *status)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *kh = srv_trace_hist(t, SRV_AN_KERNEL);
	sht_quark *qs = malloc((n + 1) * sizeof *qs);
	sht_quark *sys = malloc((n + 1) * sizeof *sys);
	sht_result *res = sht_result_create();
	struct cf_ctx x = { .ts = ts, .xf = &t->xf, .one = sht_result_create(),
			    .rows = rows, .sys = sys, .ti = (int64_t)ti };
	size_t nq;
	int rc = -1;

	if (!kh || !qs || !sys || !res || !x.one)
		goto out;
	srv_hist_acquire(kh, &x.q);
	nq = row_quarks(&x.q, rows, n, ti, qs, sys);
	if (srv_sample(&x.q, qs, nq, ts, &t->xf, res) == SHT_OK &&
	    tg_group(&x.g, res) == 0) {
		srv_buf_reserve(&o->b, sht_result_count(res) * 80);
		write_all(&x, o, n);
		if (srv_query_status(&x.q, 1, srv_from_exp(&t->xf, ts->end)) == SRV_RUNNING)
			*status = SRV_RUNNING;
		rc = 0;
	}
	srv_hist_release(&x.q);
out:
	tg_group_free(&x.g);
	sht_result_destroy(res);
	sht_result_destroy(x.one);
	free(qs);
	free(sys);
	return rc;
}

static int threads_states(struct srv_out_ctx *c)
{
	struct tg_states s;

	if (tg_states_begin(c, &s) != 0)
		return -1;
	for (size_t ti = 0; ti < c->e->ntraces; ti++)
		if (trace_states(c, ti, s.rows, s.n, &s.ts, &s.o, &s.status) != 0 &&
		    srv_trace_hist(c->e->traces[ti], SRV_AN_KERNEL))
			s.status = SRV_FAILED;
	tg_states_end(c, &s);
	return 0;
}

/* ---- tooltip, styles, arrows --------------------------------------------------- */

/* The first requested time and item (400 if absent). */
int srv_tooltip_args(struct srv_out_ctx *c, sht_time *t, struct tg_row *row)
{
	int64_t *v = NULL;
	size_t n = 0;

	if (srv_req_ints(c->req, c->rep, "requested_times", INT64_MIN, INT64_MAX,
			 SRV_NBTIMES_MAX, 1, &v, &n) != 0)
		return -1;
	if (n == 0) {
		free(v);
		return srv_reply_error(c->rep, 400, "Invalid query parameters",
				       "requested_times: empty");
	}
	*t = v[0];
	free(v);
	if (srv_req_ints(c->req, c->rep, "requested_items", 0, INT64_C(1) << 53,
			 SRV_ITEMS_MAX, 1, &v, &n) != 0)
		return -1;
	memset(row, 0, sizeof *row);
	if (n > 0) {
		row->id = v[0];
		row->known = srv_ids_key(c->ids, v[0], &row->k, row->aux) == 0;
	}
	free(v);
	return 0;
}

/* key: the value of attribute name of thread at t, as text. */
static void tip_attr(json_t *m, struct srv_hq *q, sht_quark thread,
		     const char *name, const char *key, sht_time t, sht_result *res)
{
	sht_quark a;
	char buf[64];
	size_t len = 0;
	const char *s;

	pthread_rwlock_rdlock(&q->h->attrs.lock);
	a = name ? srv_attrs_child(&q->h->attrs, thread, name) : thread;
	pthread_rwlock_unlock(&q->h->attrs.lock);
	if (a == NONE || srv_hq_at(q, a, t, res) != SHT_OK ||
	    sht_result_count(res) == 0)
		return;
	s = tg_value_label(&sht_result_at(res, 0)->value, buf, sizeof buf, &len);
	if (s)
		json_object_set_new(m, key, srv_jstrn(s, len));
}

static int threads_tooltip(struct srv_out_ctx *c)
{
	struct tg_row r;
	struct srv_trace *t;
	struct srv_hist *kh;
	struct srv_hq q;
	sht_result *res;
	json_t *m;
	sht_time at;

	if (srv_tooltip_args(c, &at, &r) != 0)
		return -1;
	if (!r.known || r.k.b < 0 || (size_t)r.k.a >= c->e->ntraces ||
	    !(kh = srv_trace_hist(t = c->e->traces[r.k.a], SRV_AN_KERNEL))) {
		srv_reply_model(c->rep, json_object(), SRV_COMPLETED, NULL);
		return 0;
	}
	at = srv_from_exp(&t->xf, at);
	m = json_object();
	res = sht_result_create();
	srv_hist_acquire(kh, &q);
	if (res && q.valid) {
		sht_quark th = (sht_quark)r.k.b;

		tip_attr(m, &q, th, "Exec_name", "Exec_Name", at, res);
		tip_attr(m, &q, th, NULL, "Status", at, res);
		tip_attr(m, &q, th, "System_call", "System call", at, res);
		tip_attr(m, &q, th, "Current_cpu_rq", "CPU", at, res);
		tip_attr(m, &q, th, "Prio", "Priority", at, res);
	}
	srv_hist_release(&q);
	sht_result_destroy(res);
	{
		const char *st = json_string_value(json_object_get(m, "Status"));
		sht_value v = sht_value_int32(st ? atoi(st) : -1);
		const char *key = st ? status_key(&v) : NULL;

		if (key)
			json_object_set_new(m, "Status", json_string(key));
	}
	srv_reply_model(c->rep, m, SRV_COMPLETED, NULL);
	return 0;
}

static json_t *threads_styles(void)
{
	json_t *m = json_object();
	static const struct { const char *name, *color; double h; } s[] = {
		{ "Unknown", "#646464", 0.33 }, { "Wait blocked", "#c8c800", 0.50 },
		{ "Usermode", "#00c800", 1.00 }, { "System call", "#0000c8", 1.00 },
		{ "Interrupt", "#c80064", 0.75 }, { "Wait for CPU", "#c86400", 0.50 },
		{ "Wait", "#c8c8c8", 0.50 },
	};

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		json_object_set_new(m, s[i].name, srv_style_def(s[i].name, s[i].color,
							      s[i].h, 1.0, "Process States"));
	json_object_set_new(m, "CPU transition",
			    srv_style_def("CPU transition", "#646464", 0.10, 1.0, "Arrows"));
	return m;
}

/* No arrows yet (optional in the protocol): an empty list. */
int srv_no_arrows(struct srv_out_ctx *c)
{
	srv_reply_model(c->rep, json_array(), SRV_COMPLETED, NULL);
	return 0;
}

const struct srv_output srv_out_threads = {
	.index = SRV_OUT_THREADS,
	.id = "org.eclipse.tracecompass.internal.analysis.os.linux.core."
	      "threadstatus.ThreadStatusDataProvider",
	.name = "Thread Status",
	.description = "Show the hierarchy of Linux threads and their status "
		       "(RUNNING, SYSCALL, IRQ, IDLE)",
	.type = SRV_OUT_TIME_GRAPH,
	.applies = threads_applies,
	.cache_tree = 1,
	.tree = threads_tree,
	.states = threads_states,
	.tooltip = threads_tooltip,
	.arrows = srv_no_arrows,
	.styles = threads_styles,
};
