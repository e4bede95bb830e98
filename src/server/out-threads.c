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
 * States: one sampled 2D query over the rows' Threads/<x> and
 * Threads/<x>/System_call (the label of a system call state).
 */
#include <stdlib.h>
#include <string.h>

#include "tg.h"

#define NONE SHT_QUARK_NONE

/* One thread lifetime of a trace. */
struct life {
	int64_t tid, pid, ppid;
	sht_quark thread;         /* Threads/<x> */
	sht_time start, end;      /* first and last Exec_name instants */
	const sht_value *exec;    /* latest name (in the query result) */
	int64_t id, parent;
};

/* The threads of a trace: Threads/<x> with their attribute quarks. */
struct thr {
	sht_quark thread, exec, pid, ppid;
	int64_t tid;
};

struct tree_ctx {
	struct srv_out_ctx *c;
	size_t ti;                /* trace index in the experiment */
	struct srv_trace *t;
	struct srv_hq q;
	struct thr *thr;
	size_t nthr;
	struct life *life;
	size_t nlife, caplife;
	sht_result *names, *pp;
	int64_t trace_id;
};

static int thread_tid(const char *name, int64_t *tid)
{
	char *end;
	long long v;

	if (strncmp(name, "0_", 2) == 0) {  /* 0_<cpu>: the idle thread */
		*tid = 0;
		return 1;
	}
	v = strtoll(name, &end, 10);
	if (*end || end == name || v < 0)
		return 0;                   /* "-1" and others: not a thread */
	*tid = v;
	return 1;
}

/* Threads/<x> of the history (attribute read lock held). */
static int list_threads(struct tree_ctx *x)
{
	const struct srv_attrs *a = &x->q.h->attrs;
	sht_quark threads = srv_attrs_child(a, NONE, "Threads");
	size_t cap = 0;

	if (threads == NONE)
		return 0;
	for (sht_quark k = srv_attrs_first(a, threads); k != NONE;
	     k = srv_attrs_next(a, k)) {
		struct thr th;

		if (!thread_tid(a->name[k], &th.tid))
			continue;
		th.thread = k;
		th.exec = srv_attrs_child(a, k, "Exec_name");
		th.pid = srv_attrs_child(a, k, "PID");
		th.ppid = srv_attrs_child(a, k, "PPID");
		if (th.exec == NONE)
			continue;
		if (x->nthr == cap) {
			cap = cap ? cap * 2 : 256;
			void *p = realloc(x->thr, cap * sizeof *x->thr);
			if (!p)
				return -1;
			x->thr = p;
		}
		x->thr[x->nthr++] = th;
	}
	return 0;
}

static struct life *new_life(struct tree_ctx *x)
{
	if (x->nlife == x->caplife) {
		size_t cap = x->caplife ? x->caplife * 2 : 256;
		void *p = realloc(x->life, cap * sizeof *x->life);

		if (!p)
			return NULL;
		x->life = p;
		x->caplife = cap;
	}
	memset(&x->life[x->nlife], 0, sizeof x->life[0]);
	return &x->life[x->nlife++];
}

/* The lifetimes: runs of non-null Exec_name, from one 2D query. */
static int find_lives(struct tree_ctx *x, int32_t *of_quark)
{
	sht_quark *qs = malloc((x->nthr ? x->nthr : 1) * sizeof *qs);
	int32_t *open = malloc((x->nthr ? x->nthr : 1) * sizeof *open);
	const sht_interval *iv;
	size_t n;

	if (!qs || !open) {
		free(qs);
		free(open);
		return -1;
	}
	for (size_t i = 0; i < x->nthr; i++) {
		qs[i] = x->thr[i].exec;
		of_quark[x->thr[i].exec] = (int32_t)i;
		of_quark[x->thr[i].thread] = (int32_t)i;
		open[i] = -1;
	}
	if (srv_hq_2d(&x->q, qs, x->nthr, x->q.start, x->q.end, 0, x->names) < 0)
		n = 0;
	else
		n = sht_result_count(x->names);
	iv = sht_result_items(x->names);
	for (size_t k = 0; k < n; k++) {   /* in start order */
		int32_t i = of_quark[iv[k].quark];
		struct life *l;

		if (iv[k].value.type == SHT_TYPE_NULL) {
			open[i] = -1;
			continue;
		}
		if (open[i] >= 0 && x->life[open[i]].end + 1 == iv[k].start) {
			l = &x->life[open[i]];
		} else {
			l = new_life(x);
			if (!l)
				break;
			open[i] = (int32_t)(l - x->life);
			l->tid = x->thr[i].tid;
			l->thread = x->thr[i].thread;
			l->start = iv[k].start;
		}
		l->end = iv[k].end;
		l->exec = &iv[k].value;
	}
	free(qs);
	free(open);
	return 0;
}

/* The int value of quark q at t in the PID/PPID result (0 if none). */
static int64_t value_at(const struct tg_group *g, sht_quark q, sht_time t)
{
	const sht_interval *iv = q == NONE ? NULL : tg_group_at(g, q, t);

	return iv && iv->value.type == SHT_TYPE_INT32 ? iv->value.u.i32 : 0;
}

static int read_pids(struct tree_ctx *x, const int32_t *of_thread)
{
	sht_quark *qs = malloc((2 * x->nthr + 1) * sizeof *qs);
	struct tg_group g;
	size_t n = 0;

	if (!qs)
		return -1;
	for (size_t i = 0; i < x->nthr; i++) {
		if (x->thr[i].pid != NONE)
			qs[n++] = x->thr[i].pid;
		if (x->thr[i].ppid != NONE)
			qs[n++] = x->thr[i].ppid;
	}
	if (srv_hq_2d(&x->q, qs, n, x->q.start, x->q.end, 0, x->pp) < 0 ||
	    tg_group(&g, x->pp) != 0) {
		free(qs);
		return -1;
	}
	for (size_t k = 0; k < x->nlife; k++) {
		struct life *l = &x->life[k];
		const struct thr *th = &x->thr[of_thread[l->thread]];

		l->pid = value_at(&g, th->pid, l->end);
		l->ppid = value_at(&g, th->ppid, l->end);
	}
	tg_group_free(&g);
	free(qs);
	return 0;
}

static int cmp_life(const void *a, const void *b)
{
	const struct life *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* The entry of tid alive at t (lives sorted by tid, start), else the
 * trace's.  A parent comes before its child in (start, tid) order, so
 * odd data (a statedump's ppid) can never make a cycle. */
static int64_t parent_of(const struct tree_ctx *x, int64_t tid, sht_time t,
			 int64_t child_tid)
{
	size_t lo = 0, hi = x->nlife;

	if (tid <= 0)
		return x->trace_id;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (x->life[m].tid < tid || (x->life[m].tid == tid &&
					     x->life[m].start <= t))
			lo = m + 1;
		else
			hi = m;
	}
	if (lo > 0 && x->life[lo - 1].tid == tid && x->life[lo - 1].start <= t &&
	    t <= x->life[lo - 1].end &&
	    (x->life[lo - 1].start < t || tid < child_tid))
		return x->life[lo - 1].id;
	return x->trace_id;
}

static void add_entry(struct tree_ctx *x, json_t *entries, const struct life *l)
{
	const struct srv_xform *xf = &x->t->xf;
	json_t *j = srv_entry(l->id, l->parent, 1, srv_to_exp(xf, l->start),
			      srv_to_exp(xf, l->end) + 1, 1);
	json_t *md = json_object(), *labels = json_object_get(j, "labels");
	const sht_value *v = l->exec;
	json_t *exec = srv_jstrn(v->u.str, v->len);
	char num[24];

	json_array_append(labels, exec);
	json_array_append_new(labels, json_string(srv_itoa(l->tid, num)));
	json_array_append_new(labels, json_string(srv_itoa(l->pid > 0 ? l->pid
							    : l->tid, num)));
	json_array_append_new(labels, json_string(l->ppid > 0 ?
					srv_itoa(l->ppid, num) : ""));
	json_object_set_new(md, "TID", json_pack("[I]", (json_int_t)l->tid));
	json_object_set_new(md, "PTID", json_pack("[I]", (json_int_t)l->ppid));
	json_object_set_new(md, "PID", json_pack("[I]", (json_int_t)(l->pid > 0 ?
							   l->pid : l->tid)));
	json_object_set_new(md, "Exec_Name", json_pack("[o]", exec));
	json_object_set_new(j, "metadata", md);
	json_array_append_new(entries, j);
}

/* The entries of one trace. */
static int trace_entries(struct tree_ctx *x, json_t *entries)
{
	const struct srv_xform *xf = &x->t->xf;
	struct srv_idkey k = { (int64_t)x->ti, -1, 0 };
	int32_t *of_quark = NULL;
	json_t *te;
	int rc = 0;

	x->trace_id = srv_ids_get(x->c->ids, k);
	te = srv_entry(x->trace_id, -1, 1, srv_to_exp(xf, x->q.valid ? x->q.start
					     : x->t->first_ts),
		       srv_to_exp(xf, x->q.valid ? x->q.end : x->t->first_ts), 0);
	srv_entry_label(te, x->t->name);
	for (int i = 0; i < 3; i++)
		srv_entry_label(te, "");
	json_array_append_new(entries, te);
	if (!x->q.valid)
		return 0;
	pthread_rwlock_rdlock(&x->q.h->attrs.lock);
	of_quark = malloc((x->q.h->attrs.n + 1) * sizeof *of_quark);
	if (!of_quark || list_threads(x) != 0 || find_lives(x, of_quark) != 0 ||
	    read_pids(x, of_quark) != 0)
		rc = -1;
	pthread_rwlock_unlock(&x->q.h->attrs.lock);
	if (rc == 0) {
		qsort(x->life, x->nlife, sizeof *x->life, cmp_life);
		for (size_t i = 0; i < x->nlife; i++) {
			struct srv_idkey lk = { (int64_t)x->ti, x->life[i].thread,
						x->life[i].start };

			x->life[i].id = srv_ids_get(x->c->ids, lk);
			srv_ids_set_aux(x->c->ids, x->life[i].id, x->life[i].end, 0);
		}
		for (size_t i = 0; i < x->nlife; i++) {
			x->life[i].parent = parent_of(x, x->life[i].ppid,
						      x->life[i].start,
						      x->life[i].tid);
			add_entry(x, entries, &x->life[i]);
		}
	}
	free(of_quark);
	return rc;
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
	json_t *model = json_object(), *h = json_array(), *entries = json_array();
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	size_t nh = 0;
	int rc = 0;

	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		json_array_append_new(h, srv_header(headers[i][0], headers[i][1], NULL));
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
		x.names = sht_result_create();
		x.pp = sht_result_create();
		srv_hist_acquire(kh, &x.q);
		rc = x.names && x.pp ? trace_entries(&x, entries) : -1;
		srv_hist_release(&x.q);
		sht_result_destroy(x.names);
		sht_result_destroy(x.pp);
		free(x.thr);
		free(x.life);
	}
	json_object_set_new(model, "headers", h);
	json_object_set_new(model, "autoExpandLevel", json_integer(-1));
	json_object_set_new(model, "entries", entries);
	if (rc != 0) {
		json_decref(model);
		return srv_reply_error(c->rep, 500, "Cannot build the tree", "%s",
				       sht_errmsg());
	}
	c->cacheable = srv_reply_tree(c->rep, model, hs, nh) == SRV_COMPLETED;
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

/* The rows of trace ti: status quarks and their System_call children. */
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
		if (sys[i] != NONE)
			qs[k++] = sys[i];
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
	return k;
}

/* The states of one row from the grouped result. */
static void row_states(struct tg_out *o, const struct tg_group *g,
		       const struct tg_row *r, sht_quark sys,
		       const struct srv_times *ts, const struct srv_xform *xf)
{
	sht_time ls = r->k.c, le = r->aux[0];   /* the lifetime, inclusive */
	size_t lo, hi;

	tg_group_range(g, (sht_quark)r->k.b, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		const sht_interval *iv = &g->items[g->idx[k]], *sc;
		sht_time a = iv->start > ls ? iv->start : ls;
		sht_time b = iv->end < le ? iv->end : le;
		const char *key = status_key(&iv->value), *label = NULL;
		size_t len = 0;

		if (a > b || !srv_times_hit(ts, srv_to_exp(xf, a), srv_to_exp(xf, b)))
			continue;
		if (key && iv->value.u.i32 == 3 && sys != NONE &&
		    (sc = tg_group_at(g, sys, iv->start)) != NULL &&
		    sc->value.type == SHT_TYPE_STRING) {
			label = sc->value.u.str;
			len = sc->value.len;
		}
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 key, label, len);
	}
}

static int trace_states(struct srv_out_ctx *c, size_t ti, struct tg_row *rows,
			size_t n, const struct srv_times *ts, struct tg_out *o,
			int *status)
{
	struct srv_trace *t = c->e->traces[ti];
	struct srv_hist *kh = srv_trace_hist(t, SRV_AN_KERNEL);
	sht_quark *qs = malloc((2 * n + 1) * sizeof *qs);
	sht_quark *sys = malloc((n + 1) * sizeof *sys);
	sht_result *res = sht_result_create();
	struct tg_group g = { 0 };
	struct srv_hq q;
	size_t nq;
	int rc = -1;

	if (!kh || !qs || !sys || !res)
		goto out;
	srv_hist_acquire(kh, &q);
	nq = row_quarks(&q, rows, n, ti, qs, sys);
	if (srv_sample(&q, qs, nq, ts, &t->xf, res) == SHT_OK &&
	    tg_group(&g, res) == 0) {
		for (size_t i = 0; i < n; i++) {
			if (!rows[i].known || rows[i].k.a != (int64_t)ti)
				continue;
			tg_row_begin(o, rows[i].id);
			if (rows[i].k.b >= 0)
				row_states(o, &g, &rows[i], sys[i], ts, &t->xf);
			tg_row_end(o);
		}
		if (srv_query_status(&q, 1, srv_from_exp(&t->xf, ts->end)) == SRV_RUNNING)
			*status = SRV_RUNNING;
		rc = 0;
	}
	srv_hist_release(&q);
out:
	tg_group_free(&g);
	sht_result_destroy(res);
	free(qs);
	free(sys);
	return rc;
}

static int threads_states(struct srv_out_ctx *c)
{
	struct srv_times ts;
	struct tg_row *rows = NULL;
	struct tg_out o;
	size_t n = 0;
	int status = SRV_COMPLETED;

	if (srv_req_times(c->req, c->rep, 1, &ts) != 0)
		return -1;
	if (tg_rows(c, &rows, &n) != 0) {
		srv_times_free(&ts);
		return -1;
	}
	tg_begin(&o);
	for (size_t ti = 0; ti < c->e->ntraces; ti++)
		if (trace_states(c, ti, rows, n, &ts, &o, &status) != 0 &&
		    srv_trace_hist(c->e->traces[ti], SRV_AN_KERNEL))
			status = SRV_FAILED;
	tg_end(&o, c->rep, status);
	free(rows);
	srv_times_free(&ts);
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
