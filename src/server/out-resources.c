/*
 * out-resources.c: "Resources Status": the CPUs with their status,
 * current thread, frequency, hard and soft IRQs (Trace Compass's
 * ResourcesStatusDataProvider: its id, names, labels and style keys).
 *
 * Tree per trace: the trace; per CPU (by number) "CPU n Threads"
 * (CPUs/n/Current_thread), "CPU n States" (CPUs/n) with its "IRQ <name>"
 * and "SOFT_IRQ <v> <label>" children, "CPU n Frequency"; then the
 * aggregate IRQs/<name> and Soft_IRQs/<v> rows, each with a "CPU n
 * States" child per CPU that has a copy of it.
 *
 * States: one sampled 2D query over the rows' quarks (with each CPU's
 * current thread and maximum frequency).  Labels: a thread's name from
 * the history's thread lifetimes (else one more sampled 2D query over
 * the Exec_name of the threads met); the system call of a CPU's "System
 * call" state by a point query of its thread's System_call at the
 * state's first requested time, the last answer kept per thread (a 2D
 * query of every such thread's System_call took hundreds of thousands
 * of intervals, of which a screen shows a few per CPU and pixel).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "res.h"

static const char *const soft_names[] = {
	"High priority tasklet", "Timer", "Network TX", "Network RX",
	"Block device", "Block device IO Poll", "Tasklet", "Scheduler",
	"High res timer", "RCU data",
};

static int res_applies(struct srv_exp *e)
{
	for (size_t i = 0; i < e->ntraces; i++)
		if (e->traces[i]->kernel)
			return 1;
	return 0;
}

/* ---- tree ------------------------------------------------------------------ */

struct rtree {
	struct srv_out_ctx *c;
	size_t ti;
	const struct srv_attrs *a;
	json_t *entries;
	sht_time start, end;      /* experiment times */
	int64_t root;
};

struct cpu {
	long n;
	sht_quark q;
};

static int cmp_cpu(const void *x, const void *y)
{
	const struct cpu *a = x, *b = y;

	return (a->n > b->n) - (a->n < b->n);
}

static int64_t add(struct rtree *r, sht_quark q, int kind, int64_t parent,
		   const char *label, long cpu)
{
	struct srv_idkey k = { (int64_t)r->ti, q == NONE ? -1 : (int64_t)q, kind };
	int64_t id = srv_ids_get(r->c->ids, k);
	json_t *e = srv_entry(id, parent, 1, r->start, r->end, kind != K_TRACE);

	srv_entry_label(e, label);
	if (cpu >= 0)
		json_object_set_new(e, "metadata",
				    json_pack("{s:[I]}", "CPU", (json_int_t)cpu));
	json_array_append_new(r->entries, e);
	return id;
}

static void soft_label(char *buf, size_t size, const char *vec)
{
	char *end;
	long v = strtol(vec, &end, 10);

	snprintf(buf, size, "SOFT_IRQ %s %s", vec, !*end && v >= 0 && v < 10 ?
		 soft_names[v] : "unknown");
}

/* The CPUs of the history, by number (*n of them, malloc'd). */
static struct cpu *list_cpus(const struct srv_attrs *a, size_t *n)
{
	sht_quark cpus = srv_attrs_child(a, NONE, "CPUs");
	struct cpu *v = NULL;
	size_t k = 0, cap = 0;

	for (sht_quark q = cpus == NONE ? NONE : srv_attrs_first(a, cpus);
	     q != NONE; q = srv_attrs_next(a, q)) {
		char *end;
		long num = strtol(a->name[q], &end, 10);

		if (*end || end == a->name[q])
			continue;
		if (k == cap) {
			void *p = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);
			if (!p)
				break;
			v = p;
		}
		v[k].n = num;
		v[k++].q = q;
	}
	qsort(v, k, sizeof *v, cmp_cpu);
	*n = k;
	return v;
}

static void cpu_rows(struct rtree *r, const struct cpu *cpu)
{
	const struct srv_attrs *a = r->a;
	sht_quark ct = srv_attrs_child(a, cpu->q, "Current_thread");
	sht_quark irqs = srv_attrs_child(a, cpu->q, "IRQs");
	sht_quark softs = srv_attrs_child(a, cpu->q, "Soft_IRQs");
	sht_quark freq = srv_attrs_child(a, cpu->q, "Frequency");
	char label[256];
	int64_t st;

	if (ct != NONE) {
		snprintf(label, sizeof label, "CPU %ld Threads", cpu->n);
		add(r, ct, K_THREAD, r->root, label, cpu->n);
	}
	snprintf(label, sizeof label, "CPU %ld States", cpu->n);
	st = add(r, cpu->q, K_CPU, r->root, label, cpu->n);
	for (sht_quark q = irqs == NONE ? NONE : srv_attrs_first(a, irqs);
	     q != NONE; q = srv_attrs_next(a, q)) {
		snprintf(label, sizeof label, "IRQ %s", a->name[q]);
		add(r, q, K_IRQ, st, label, -1);
	}
	for (sht_quark q = softs == NONE ? NONE : srv_attrs_first(a, softs);
	     q != NONE; q = srv_attrs_next(a, q)) {
		soft_label(label, sizeof label, a->name[q]);
		add(r, q, K_SOFT, st, label, -1);
	}
	if (freq != NONE) {
		snprintf(label, sizeof label, "CPU %ld Frequency", cpu->n);
		add(r, freq, K_FREQ, r->root, label, cpu->n);
	}
}

/* IRQs/<name> or Soft_IRQs/<v>: the aggregate row and its CPU copies. */
static void aggregates(struct rtree *r, const struct cpu *cpus, size_t ncpu,
		       const char *top, const char *sub, int kind)
{
	const struct srv_attrs *a = r->a;
	sht_quark agg = srv_attrs_child(a, NONE, top);
	char label[256];

	for (sht_quark q = agg == NONE ? NONE : srv_attrs_first(a, agg);
	     q != NONE; q = srv_attrs_next(a, q)) {
		int64_t id;

		if (kind == K_SOFT)
			soft_label(label, sizeof label, a->name[q]);
		else
			snprintf(label, sizeof label, "IRQ %s", a->name[q]);
		id = add(r, q, kind, r->root, label, -1);
		for (size_t i = 0; i < ncpu; i++) {
			sht_quark s = srv_attrs_child(a, cpus[i].q, sub);
			sht_quark c = s == NONE ? NONE : srv_attrs_child(a, s, a->name[q]);

			if (c == NONE)
				continue;
			snprintf(label, sizeof label, "CPU %ld States", cpus[i].n);
			add(r, c, kind | VARIANT, id, label, cpus[i].n);
		}
	}
}

static int res_tree_trace(struct srv_out_ctx *c, size_t ti, json_t *entries,
			  struct srv_hist *h)
{
	struct srv_trace *t = c->e->traces[ti];
	struct rtree r = { c, ti, &h->attrs, entries, 0, 0, 0 };
	struct srv_hq q;
	struct cpu *cpus;
	size_t ncpu = 0;

	srv_hist_acquire(h, &q);
	r.start = srv_to_exp(&t->xf, q.valid ? q.start : t->first_ts);
	r.end = srv_to_exp(&t->xf, q.valid ? q.end : t->first_ts);
	r.root = add(&r, NONE, K_TRACE, -1, t->name, -1);
	if (q.valid) {
		pthread_rwlock_rdlock(&h->attrs.lock);
		cpus = list_cpus(r.a, &ncpu);
		for (size_t i = 0; i < ncpu; i++)
			cpu_rows(&r, &cpus[i]);
		aggregates(&r, cpus, ncpu, "IRQs", "IRQs", K_IRQ);
		aggregates(&r, cpus, ncpu, "Soft_IRQs", "Soft_IRQs", K_SOFT);
		pthread_rwlock_unlock(&h->attrs.lock);
		free(cpus);
	}
	srv_hist_release(&q);
	return 0;
}

static int res_tree(struct srv_out_ctx *c)
{
	json_t *model = json_object(), *entries = json_array();
	struct srv_hist *hs[SRV_EXP_TRACES_MAX];
	size_t nh = 0;

	for (size_t i = 0; i < c->e->ntraces; i++) {
		struct srv_hist *h = srv_trace_hist(c->e->traces[i], SRV_AN_KERNEL);

		if (h) {
			hs[nh++] = h;
			res_tree_trace(c, i, entries, h);
		}
	}
	json_object_set_new(model, "headers", json_array());
	json_object_set_new(model, "autoExpandLevel", json_integer(1));
	json_object_set_new(model, "entries", entries);
	c->cacheable = srv_reply_tree(c->rep, model, hs, nh) == SRV_COMPLETED;
	return 0;
}

/* ---- states ------------------------------------------------------------------ */

/* The first query's quarks: each row's, with what its states need. */
static size_t row_quarks(struct rstates *s, const struct tg_row *rows, size_t n,
			 size_t ti, sht_quark *qs)
{
	const struct srv_attrs *a = &s->q.h->attrs;
	size_t k = 0;

	pthread_rwlock_rdlock(&s->q.h->attrs.lock);
	for (size_t i = 0; i < n; i++) {
		sht_quark q = (sht_quark)rows[i].k.b, p;

		s->ct[i] = s->maxf[i] = NONE;
		if (!rows[i].known || rows[i].k.a != (int64_t)ti || rows[i].k.b < 0 ||
		    (uint64_t)rows[i].k.b >= a->n)
			continue;
		qs[k++] = q;
		if ((rows[i].k.c & 0xff) == K_CPU &&
		    (s->ct[i] = srv_attrs_child(a, q, "Current_thread")) != NONE)
			qs[k++] = s->ct[i];
		if ((rows[i].k.c & 0xff) == K_FREQ && (p = a->parent[q]) != NONE &&
		    (s->maxf[i] = srv_attrs_child(a, p, "Max frequency")) != NONE)
			qs[k++] = s->maxf[i];
		if ((rows[i].k.c & 0xff) == K_THREAD)
			s->ct[i] = q;
	}
	pthread_rwlock_unlock(&s->q.h->attrs.lock);
	return k;
}

static const char *cpu_key(int32_t v)
{
	switch (v) {
	case 0: return "Idle";
	case 1: return "Soft Irq raised";
	case 2: return "Usermode";
	case 4: return "System call";
	case 8: return "Soft Irq";
	case 16: return "Interrupt";
	default: return "Unknown";
	}
}

/* A CPU in user mode or a system call: one state per thread it ran. */
static void cpu_split(struct rstates *s, struct tg_out *o, const sht_interval *iv,
		      sht_quark ct)
{
	const struct srv_xform *xf = &s->t->xf;
	size_t lo, hi, n = 0;

	tg_group_range(&s->g1, ct, &lo, &hi);
	for (size_t k = tg_group_first_at(&s->g1, lo, hi, iv->start); k < hi; k++) {
		const sht_interval *c = &s->g1.items[k];

		if (c->start > iv->end)
			break;
		sht_time a = c->start > iv->start ? c->start : iv->start;
		sht_time b = c->end < iv->end ? c->end : iv->end, at;
		struct tid_q *tq;
		const char *label = NULL;
		size_t len = 0;

		if (a > b || !res_hit(s, a, b, &at))
			continue;
		if (c->value.type == SHT_TYPE_INT32 &&
		    (tq = res_find_tid(s, c->value.u.i32)) != NULL)
			label = iv->value.u.i32 == 2 ? res_exec_at(s, tq, at, &len)
						      : res_sys_at(s, tq, at, &len);
		tg_state(o, srv_to_exp(xf, a), srv_to_exp(xf, b) + 1,
			 cpu_key(iv->value.u.i32), label, len);
		n++;
	}
	if (n == 0)
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 cpu_key(iv->value.u.i32), NULL, 0);
}

/* 25 hues of saturation and brightness 0.8 (Trace Compass's palette):
 * hue m of (tid + 14) % 25, m in -24..24 (C's remainder of a negative
 * tid keeps its sign). */
static void thread_color(int m, char out[8])
{
	double h = (double)m / 25.0 * 6.0, v = 0.8, s = 0.8;
	double f = h - floor(h), p = v * (1 - s), q = v * (1 - s * f),
	       t = v * (1 - s * (1 - f)), r, g, b;

	switch ((int)h % 6) {
	case 0: r = v, g = t, b = p; break;
	case 1: r = q, g = v, b = p; break;
	case 2: r = p, g = v, b = t; break;
	case 3: r = p, g = q, b = v; break;
	case 4: r = t, g = p, b = v; break;
	default: r = v, g = p, b = q; break;
	}
	snprintf(out, 8, "#%02x%02x%02x", (int)(r * 255 + 0.5), (int)(g * 255 + 0.5),
		 (int)(b * 255 + 0.5));
}

static char palette[49][8];           /* hue m at m + 24 */
static pthread_once_t palette_once = PTHREAD_ONCE_INIT;

static void palette_make(void)
{
	for (int m = -24; m <= 24; m++)
		thread_color(m, palette[m + 24]);
}

#define PUT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* The style values of thread tid's states, its colour and name (at most
 * 57 bytes and the NUL: out has 64). */
static void thread_values(int32_t tid, char out[64])
{
	char *p = out;

	pthread_once(&palette_once, palette_make);
	p = PUT(p, "{\"background-color\":\"");
	memcpy(p, palette[((int64_t)tid + 14) % 25 + 24], 7);
	p = PUT(p + 7, "\",\"style-name\":\"");
	p += strlen(srv_itoa(tid, p));
	p = PUT(p, "\"}");
	*p = '\0';
}

/* "name (tid)" into label (320 bytes), the name cut at 256 bytes. */
static size_t thread_label(char *label, const char *name, size_t len, int32_t tid)
{
	char *p = label;

	if (name) {
		len = strnlen(name, len > 256 ? 256 : len);
		memcpy(p, name, len);
		p += len;
	}
	*p++ = ' ';
	*p++ = '(';
	p += strlen(srv_itoa(tid, p));
	*p++ = ')';
	*p = '\0';
	return (size_t)(p - label);
}

static void thread_state(struct rstates *s, struct tg_out *o,
			 const sht_interval *iv, sht_time at)
{
	const struct srv_xform *xf = &s->t->xf;
	struct tid_q *tq;
	char label[320], values[64];
	const char *name = NULL, *v = values;
	size_t len = 0;
	int32_t tid = iv->value.u.i32;

	if (iv->value.type != SHT_TYPE_INT32 || tid == 0) {
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 NULL, NULL, 0);
		return;
	}
	if ((tq = res_find_tid(s, tid)) != NULL) {
		name = res_exec_at(s, tq, at, &len);
		if (!tq->values[0])
			thread_values(tid, tq->values);
		v = tq->values;
	} else {
		thread_values(tid, values);
	}
	len = thread_label(label, name, len, tid);
	tg_state_v(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
		   "thread", label, len, v);
}

static void freq_state(struct rstates *s, struct tg_out *o,
		       const sht_interval *iv, sht_quark maxq, sht_time at)
{
	const struct srv_xform *xf = &s->t->xf;
	const sht_interval *m = maxq == NONE ? NULL : tg_group_at(&s->g1, maxq, at);
	double hz, max;

	if (iv->value.type != SHT_TYPE_INT64) {
		tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
			 NULL, NULL, 0);
		return;
	}
	hz = (double)iv->value.u.i64;
	max = m && m->value.type == SHT_TYPE_INT64 && m->value.u.i64 > 0 ?
	      (double)m->value.u.i64 : hz;
	if (!s->freq.valid || s->freq.hz != iv->value.u.i64 || s->freq.max != max) {
		char *label = s->freq.label;   /* a CPU has few frequencies: kept */
		size_t size = sizeof s->freq.label;

		if (hz >= 1e9)
			snprintf(label, size, "%.1f GHz", hz / 1e9);
		else if (hz >= 1e6)
			snprintf(label, size, "%.1f MHz", hz / 1e6);
		else
			snprintf(label, size, "%.0f Hz", hz);
		snprintf(s->freq.values, sizeof s->freq.values, "{\"height\":%.4g}",
			 max > 0 ? (hz / max > 1 ? 1.0 : hz / max) : 1.0);
		s->freq.hz = iv->value.u.i64;
		s->freq.max = max;
		s->freq.valid = 1;
	}
	tg_state_v(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
		   "frequency", s->freq.label, strlen(s->freq.label), s->freq.values);
}

static const char *simple_key(int kind, const sht_value *v)
{
	if (v->type != SHT_TYPE_INT32)
		return v->type == SHT_TYPE_NULL ? NULL : "Unknown";
	if (kind == K_IRQ)
		return "Interrupt";
	if (kind == K_SOFT)
		return v->u.i32 == 1 ? "Soft Irq raised" : v->u.i32 == 8 ? "Soft Irq"
									  : "Unknown";
	return cpu_key(v->u.i32);
}

static void row_states(struct rstates *s, struct tg_out *o,
		       const struct tg_row *r, size_t i)
{
	const struct srv_xform *xf = &s->t->xf;
	int kind = (int)(r->k.c & 0xff);
	size_t lo, hi;

	tg_group_range(&s->g1, (sht_quark)r->k.b, &lo, &hi);
	for (size_t k = lo; k < hi; k++) {
		const sht_interval *iv = &s->g1.items[k];
		sht_time at;

		if (!res_hit(s, iv->start, iv->end, &at))
			continue;
		if (kind == K_CPU && iv->value.type == SHT_TYPE_INT32 &&
		    (iv->value.u.i32 == 2 || iv->value.u.i32 == 4) && s->ct[i] != NONE)
			cpu_split(s, o, iv, s->ct[i]);
		else if (kind == K_THREAD)
			thread_state(s, o, iv, at);
		else if (kind == K_FREQ)
			freq_state(s, o, iv, s->maxf[i], at);
		else
			tg_state(o, srv_to_exp(xf, iv->start), srv_to_exp(xf, iv->end) + 1,
				 simple_key(kind, &iv->value), NULL, 0);
	}
}

/* Rows [from, to) of the trace (tg_write_fn). */
static void write_rows(void *ctx, struct tg_out *o, size_t from, size_t to)
{
	struct rstates *s = ctx;

	for (size_t i = from; i < to; i++) {
		if (!s->rows[i].known || s->rows[i].k.a != s->ti)
			continue;
		tg_row_begin(o, s->rows[i].id);
		if (s->rows[i].k.b >= 0)
			row_states(s, o, &s->rows[i], i);
		tg_row_end(o);
	}
}

/* The cost of row i: its intervals, times what each costs to write
 * (measured on the 2 GB trace, in units of ~40 ns: an IRQ's state 1, a
 * thread's 5 (name and style), a frequency's 2, a CPU's status 60: split
 * by thread, labelled by point queries), one for the row. */
static uint64_t row_weight(void *ctx, size_t i)
{
	const struct rstates *s = ctx;
	size_t n = tg_row_items(&s->g1, &s->rows[i], s->ti);

	switch (s->rows[i].k.c & 0xff) {
	case K_CPU:
		return 1 + n * 60;
	case K_THREAD:
		return 1 + n * 5;
	case K_FREQ:
		return 1 + n * 2;
	default:
		return 1 + n;
	}
}

/* Write the rows, on two threads for a big screen: the second part with
 * its own point-query result, names and copy of the threads' look-ups. */
static void write_all(struct rstates *s, struct tg_out *o, size_t n)
{
	struct rstates s2 = *s;
	void *ctx[2] = { s, &s2 };
	unsigned threads = s->q.h->query_threads;

	memset(&s2.sysnames, 0, sizeof s2.sysnames);
	s2.one = sht_result_create();
	s2.tids = malloc((s->ntids ? s->ntids : 1) * sizeof *s2.tids);
	if (!s2.one || !s2.tids)
		threads = 1;
	else
		memcpy(s2.tids, s->tids, s->ntids * sizeof *s2.tids);
	tg_write_rows(o, n, threads, TG_PAR_WEIGHT, row_weight, write_rows, ctx);
	sht_result_destroy(s2.one);
	srv_buf_free(&s2.sysnames);
	free(s2.tids);
}

static int trace_states(struct srv_out_ctx *c, size_t ti, struct tg_row *rows,
			size_t n, const struct srv_times *ts, struct tg_out *o,
			int *status)
{
	struct rstates s;
	struct srv_hist *h = srv_trace_hist(c->e->traces[ti], SRV_AN_KERNEL);
	sht_quark *qs = malloc((3 * n + 1) * sizeof *qs);
	size_t nq;
	int rc = -1;

	memset(&s, 0, sizeof s);
	s.rows = rows;
	s.ti = (int64_t)ti;
	s.c = c;
	s.t = c->e->traces[ti];
	s.ts = ts;
	s.r1 = sht_result_create();
	s.r2 = sht_result_create();
	s.one = sht_result_create();
	s.ct = malloc((n + 1) * sizeof *s.ct);
	s.maxf = malloc((n + 1) * sizeof *s.maxf);
	if (!h || !qs || !s.r1 || !s.r2 || !s.one || !s.ct || !s.maxf)
		goto out;
	srv_hist_acquire(h, &s.q);
	nq = row_quarks(&s, rows, n, ti, qs);
	if (srv_sample(&s.q, qs, nq, ts, &s.t->xf, s.r1) == SHT_OK &&
	    tg_group(&s.g1, s.r1) == 0 && res_thread_names(&s) == 0) {
		srv_buf_reserve(&o->b, sht_result_count(s.r1) * 110);
		write_all(&s, o, n);
		if (srv_query_status(&s.q, 1, srv_from_exp(&s.t->xf, ts->end)) ==
		    SRV_RUNNING)
			*status = SRV_RUNNING;
		rc = 0;
	}
	srv_hist_release(&s.q);
out:
	tg_group_free(&s.g1);
	tg_group_free(&s.g2);
	sht_result_destroy(s.r1);
	sht_result_destroy(s.r2);
	sht_result_destroy(s.one);
	srv_buf_free(&s.sysnames);
	free(s.tids);
	free(s.tidv);
	free(s.ct);
	free(s.maxf);
	free(qs);
	return rc;
}

static int res_states(struct srv_out_ctx *c)
{
	struct tg_states s;

	if (tg_states_begin(c, &s) != 0)
		return -1;
	for (size_t ti = 0; ti < c->e->ntraces; ti++)
		if (srv_trace_hist(c->e->traces[ti], SRV_AN_KERNEL) &&
		    trace_states(c, ti, s.rows, s.n, &s.ts, &s.o, &s.status) != 0)
			s.status = SRV_FAILED;
	tg_states_end(c, &s);
	return 0;
}

/* ---- tooltip and styles ---------------------------------------------------------- */

/* The value of q at t as text into m[key]. */
static void tip(json_t *m, struct srv_hq *q, sht_quark quark, const char *key,
		sht_time t, sht_result *res, sht_value *out)
{
	char buf[64];
	size_t len = 0;
	const char *s;

	if (quark == NONE || srv_hq_at(q, quark, t, res) != SHT_OK ||
	    sht_result_count(res) == 0)
		return;
	if (out)
		*out = sht_result_at(res, 0)->value;
	s = tg_value_label(&sht_result_at(res, 0)->value, buf, sizeof buf, &len);
	if (s && key)
		json_object_set_new(m, key, srv_jstrn(s, len));
}

/* The thread running on CPU quark cpu at t: TID, and Process and
 * System_call (a CPU's row), or Exec_Name (a CPU's Threads row). */
static void tip_thread(json_t *m, struct srv_hq *q, sht_quark ct, sht_time t,
		       sht_result *res, int threads_row)
{
	const struct srv_attrs *a = &q->h->attrs;
	sht_value v = sht_value_null();
	sht_quark th = NONE, exec = NONE, sys = NONE, threads;
	char name[24];

	tip(m, q, ct, "TID", t, res, &v);
	if (v.type != SHT_TYPE_INT32 || v.u.i32 <= 0)
		return;
	pthread_rwlock_rdlock(&q->h->attrs.lock);
	threads = srv_attrs_child(a, NONE, "Threads");
	if (threads != NONE)
		th = srv_attrs_child(a, threads, srv_itoa(v.u.i32, name));
	if (th != NONE) {
		exec = srv_attrs_child(a, th, "Exec_name");
		sys = srv_attrs_child(a, th, "System_call");
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
	tip(m, q, exec, threads_row ? "Exec_Name" : "Process", t, res, NULL);
	if (!threads_row)
		tip(m, q, sys, "System_call", t, res, NULL);
}

/* Attribute q's name as a JSON string. */
static json_t *name_json(struct srv_hq *q, sht_quark quark)
{
	json_t *j;

	pthread_rwlock_rdlock(&q->h->attrs.lock);
	j = json_string(q->h->attrs.name[quark]);
	pthread_rwlock_unlock(&q->h->attrs.lock);
	return j;
}

/* The name of the first child of CPU cpu's list sub ("IRQs",
 * "Soft_IRQs") whose value at t is want (any non-null if want < 0) into
 * m[key]. */
static void tip_active(json_t *m, struct srv_hq *q, sht_quark cpu, const char *sub,
		       int32_t want, const char *key, sht_time t, sht_result *res)
{
	const struct srv_attrs *a = &q->h->attrs;
	sht_quark list, *k = NULL;
	size_t n = 0, cap = 0;

	pthread_rwlock_rdlock(&q->h->attrs.lock);   /* not held by the queries */
	list = srv_attrs_child(a, cpu, sub);
	for (sht_quark x = list == NONE ? NONE : srv_attrs_first(a, list);
	     x != NONE; x = srv_attrs_next(a, x)) {
		if (n == cap) {
			sht_quark *p = realloc(k, (cap = cap ? 2 * cap : 64) * sizeof *k);

			if (!p)
				break;
			k = p;
		}
		k[n++] = x;
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
	for (size_t i = 0; i < n; i++) {
		sht_value v = sht_value_null();

		tip(m, q, k[i], NULL, t, res, &v);
		if (v.type == SHT_TYPE_INT32 && (want < 0 || v.u.i32 == want)) {
			json_object_set_new(m, key, name_json(q, k[i]));
			break;
		}
	}
	free(k);
}

/* An IRQ or soft IRQ row (per CPU or aggregate, quark q: .../<sub>/<x>):
 * the CPUs whose own <sub>/<x> has q's value at t ("0, 3"). */
static void tip_cpus(json_t *m, struct srv_hq *q, sht_quark quark, const char *sub,
		     sht_time t, sht_result *res)
{
	const struct srv_attrs *a = &q->h->attrs;
	sht_value v = sht_value_null(), w;
	struct cpu *cpus;
	size_t ncpu = 0, len = 0;
	sht_quark *copy;
	char text[256];

	tip(m, q, quark, NULL, t, res, &v);
	if (v.type != SHT_TYPE_INT32)
		return;
	pthread_rwlock_rdlock(&q->h->attrs.lock);
	cpus = list_cpus(a, &ncpu);
	copy = malloc((ncpu + 1) * sizeof *copy);
	for (size_t i = 0; cpus && copy && i < ncpu; i++) {
		sht_quark s = srv_attrs_child(a, cpus[i].q, sub);

		copy[i] = s == NONE ? NONE : srv_attrs_child(a, s, a->name[quark]);
	}
	pthread_rwlock_unlock(&q->h->attrs.lock);
	text[0] = '\0';
	for (size_t i = 0; cpus && copy && i < ncpu && len < sizeof text - 32; i++) {
		w = sht_value_null();
		tip(m, q, copy[i], NULL, t, res, &w);
		if (w.type == SHT_TYPE_INT32 && w.u.i32 == v.u.i32)
			len += (size_t)snprintf(text + len, sizeof text - len, "%s%ld",
						len ? ", " : "", cpus[i].n);
	}
	if (len)
		json_object_set_new(m, "CPU", json_string(text));
	free(copy);
	free(cpus);
}

/* A CPU row: its status, and what it runs (thread, soft IRQ, IRQ). */
static void tip_cpu(json_t *m, struct srv_hq *q, sht_quark quark, sht_time t,
		    sht_result *res)
{
	sht_value v = sht_value_null();
	sht_quark ct;

	tip(m, q, quark, NULL, t, res, &v);
	if (v.type != SHT_TYPE_INT32)
		return;
	json_object_set_new(m, "Status", json_string(cpu_key(v.u.i32)));
	if (v.u.i32 == 2 || v.u.i32 == 4) {
		pthread_rwlock_rdlock(&q->h->attrs.lock);
		ct = srv_attrs_child(&q->h->attrs, quark, "Current_thread");
		pthread_rwlock_unlock(&q->h->attrs.lock);
		tip_thread(m, q, ct, t, res, 0);
	} else if (v.u.i32 == 8) {
		tip_active(m, q, quark, "Soft_IRQs", 8, "SOFT IRQ", t, res);
	} else if (v.u.i32 == 16) {
		tip_active(m, q, quark, "IRQs", -1, "IRQ", t, res);
	}
}

static int res_tooltip(struct srv_out_ctx *c)
{
	struct tg_row r;
	struct srv_trace *t;
	struct srv_hist *h;
	struct srv_hq q;
	sht_result *res;
	json_t *m;
	sht_time at;
	int kind;

	if (srv_tooltip_args(c, &at, &r) != 0)
		return -1;
	if (!r.known || r.k.b < 0 || (size_t)r.k.a >= c->e->ntraces ||
	    !(h = srv_trace_hist(t = c->e->traces[r.k.a], SRV_AN_KERNEL))) {
		srv_reply_model(c->rep, json_object(), SRV_COMPLETED, NULL);
		return 0;
	}
	at = srv_from_exp(&t->xf, at);
	kind = (int)(r.k.c & 0xff);
	m = json_object();
	res = sht_result_create();
	srv_hist_acquire(h, &q);
	if (res && q.valid && (uint64_t)r.k.b < srv_attrs_count(&h->attrs)) {
		sht_quark quark = (sht_quark)r.k.b;
		sht_value v = sht_value_null();
		const char *sub = kind == K_IRQ ? "IRQs" : "Soft_IRQs";

		if (kind == K_CPU) {
			tip_cpu(m, &q, quark, at, res);
		} else if (kind == K_THREAD) {
			tip_thread(m, &q, quark, at, res, 1);
		} else if (kind == K_FREQ) {
			tip(m, &q, quark, "Frequency", at, res, NULL);
		} else if ((r.k.c & VARIANT) && (kind == K_IRQ || kind == K_SOFT)) {
			tip(m, &q, quark, NULL, at, res, &v);
			if (v.type == SHT_TYPE_INT32)
				json_object_set_new(m, kind == K_IRQ ? "IRQ" : "SOFT IRQ",
						    name_json(&q, quark));
		} else if (kind == K_IRQ || kind == K_SOFT) {
			tip_cpus(m, &q, quark, sub, at, res);
		}
	}
	srv_hist_release(&q);
	sht_result_destroy(res);
	srv_reply_model(c->rep, m, SRV_COMPLETED, NULL);
	return 0;
}

static json_t *res_styles(void)
{
	json_t *m = json_object();
	static const struct { const char *name, *color; double h; } s[] = {
		{ "Idle", "#c8c8c8", 0.66 }, { "Usermode", "#00c800", 1.0 },
		{ "System call", "#0000c8", 1.0 }, { "Interrupt", "#c80064", 1.0 },
		{ "Soft Irq", "#c89664", 1.0 }, { "Soft Irq raised", "#c8c800", 1.0 },
		{ "Unknown", "#646464", 1.0 },
	};

	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		json_object_set_new(m, s[i].name, srv_style_def(s[i].name, s[i].color,
							      s[i].h, 1.0, "CPU states"));
	json_object_set_new(m, "thread", srv_style_def("Thread", "#00c800", 1.0,
						      1.0, "Other"));
	json_object_set_new(m, "frequency", srv_style_def("Frequency", "#00c800",
							 1.0, 1.0, "Other"));
	return m;
}

const struct srv_output srv_out_resources = {
	.index = SRV_OUT_RESOURCES,
	.id = "org.eclipse.tracecompass.internal.analysis.os.linux.core."
	      "threadstatus.ResourcesStatusDataProvider",
	.name = "Resources Status",
	.description = "Show the state of CPUs (SYSCALL, RUNNING, IRQ, SOFT_IRQ "
		       "or IDLE) and its IRQs/SOFT_IRQs as well as its frequency.",
	.type = SRV_OUT_TIME_GRAPH,
	.applies = res_applies,
	.cache_tree = 1,
	.tree = res_tree,
	.states = res_states,
	.tooltip = res_tooltip,
	.arrows = srv_no_arrows,
	.styles = res_styles,
};
