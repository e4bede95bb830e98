/*
 * cpuacc.c: the cumulative CPU time history behind "CPU Usage" (out-cpu.c).
 *
 * A provider fed in the same pass as the kernel analysis, right after it:
 * it reads nothing from the event but its CPU, and watches the running
 * thread of that CPU (CPUs/<n>/Current_thread) in the kernel analysis'
 * live state system.  When that thread's interval ends (a new interval
 * begins at t), the time it ran, t - start, is added to
 *
 *   CPUs/<n>/<tid>   int64: CPU time of tid on CPU n up to t - 1
 *   CPUs/<n>/busy    int64: the same for every tid > 0 (the "Total")
 *
 * set at t, and CPUs/<n>/running holds a copy of the running thread (same
 * intervals, same values).  So the CPU time of tid on n over [0, t] is
 * the value at t plus, when n runs tid at t, t - (start of that interval)
 * + 1: two point lookups per attribute for a range, one per sample time
 * for a chart, all in this history (a fifth of the kernel history's size
 * on a generated trace), written in 16 KiB blocks rather than 64 KiB
 * since a chart reads about one leaf per sample time (on the 2 GB trace
 * 30 ms of CPU for 1 000 samples, against 33 ms with 64 KiB and 43 ms
 * with 4 KiB, where the tree gets deeper).
 * This counts exactly the intervals of the kernel history (same bounds,
 * tids > 0), since those are what the running thread's ongoing state
 * becomes; the kernel analysis only changes a CPU's running thread on an
 * event of that CPU, so watching the event's CPU sees every change.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

#define NONE SHT_QUARK_NONE
#define CPUS_MAX 65536

struct acc_cpu {
	sht_quark cur;            /* kernel CPUs/<n>/Current_thread, or NONE */
	uint64_t looked;          /* kernel attribute count when not found */
	sht_quark dir, busy, run; /* ours: CPUs/<n>, its busy and running */
	sht_time since;           /* start of the running interval seen */
	int32_t tid;              /* its thread (<= 0: not counted) */
	int64_t busy_ns;          /* the value of busy */
};

/* A (CPU, thread) pair: its attribute and value (kept here rather than
 * looked up by name and read back at every switch). */
struct acc_pair {
	uint64_t key;             /* cpu << 32 | tid (tid > 0); 0: free */
	sht_quark q;
	int64_t ns;
};

struct srv_cpuacc {
	sht_state *kss;           /* the kernel analysis' state system */
	struct acc_cpu *cpu;
	size_t ncpu;
	struct acc_pair *pairs;   /* open addressing, cap a power of 2 */
	size_t npairs, cap;
};


static struct acc_cpu *cpu_slot(struct srv_cpuacc *a, int32_t n)
{
	if (n < 0 || n >= CPUS_MAX)
		return NULL;
	if ((size_t)n >= a->ncpu) {
		size_t m = (size_t)n + 1 > a->ncpu * 2 ? (size_t)n + 1 : a->ncpu * 2;
		struct acc_cpu *p = realloc(a->cpu, m * sizeof *p);

		if (!p)
			return NULL;
		for (size_t i = a->ncpu; i < m; i++)
			p[i] = (struct acc_cpu){ NONE, UINT64_MAX, NONE, NONE, NONE, 0, 0, 0 };
		a->cpu = p;
		a->ncpu = m;
	}
	return &a->cpu[n];
}

/* The kernel's Current_thread of CPU n (looked up again only when the
 * kernel history has new attributes). */
static sht_quark running_quark(struct srv_cpuacc *a, struct acc_cpu *c, int32_t n)
{
	char num[24];
	const char *path[3] = { "CPUs", num, "Current_thread" };
	uint64_t count;

	if (c->cur != NONE)
		return c->cur;
	count = sht_state_attr_count(a->kss);
	if (count == c->looked)
		return NONE;
	c->looked = count;
	snprintf(num, sizeof num, "%" PRId32, n);
	if (sht_state_quark_find(a->kss, SHT_QUARK_ROOT, path, 3, &c->cur) != SHT_OK)
		c->cur = NONE;
	return c->cur;
}

static size_t pair_home(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15u) >> 32) & (cap - 1);
}

static int pairs_grow(struct srv_cpuacc *a)
{
	size_t cap = a->cap ? a->cap * 2 : 1024;
	struct acc_pair *p = calloc(cap, sizeof *p);

	if (!p)
		return -1;
	for (size_t i = 0; i < a->cap; i++) {
		size_t h = a->pairs[i].key ? pair_home(a->pairs[i].key, cap) : 0;

		if (!a->pairs[i].key)
			continue;
		while (p[h].key)
			h = (h + 1) & (cap - 1);
		p[h] = a->pairs[i];
	}
	free(a->pairs);
	a->pairs = p;
	a->cap = cap;
	return 0;
}

/* The pair (CPU n, tid), its attribute CPUs/<n>/<tid> created if new. */
static struct acc_pair *pair(struct srv_cpuacc *a, sht_state *ss,
			     const struct acc_cpu *c, int32_t n, int32_t tid)
{
	uint64_t key = (uint64_t)(uint32_t)n << 32 | (uint32_t)tid;
	char num[24];
	const char *path[1] = { num };
	size_t h;

	if (2 * (a->npairs + 1) > a->cap && pairs_grow(a) != 0)
		return NULL;
	for (h = pair_home(key, a->cap); a->pairs[h].key; h = (h + 1) & (a->cap - 1))
		if (a->pairs[h].key == key)
			return &a->pairs[h];
	snprintf(num, sizeof num, "%" PRId32, tid);
	if (sht_state_quark(ss, c->dir, path, 1, &a->pairs[h].q) != SHT_OK)
		return NULL;
	a->pairs[h].key = key;
	a->pairs[h].ns = 0;
	a->npairs++;
	return &a->pairs[h];
}

/* q = ns at t. */
static sht_err set_ns(sht_state *ss, sht_quark q, sht_time t, int64_t ns)
{
	sht_value v = sht_value_int64(ns);

	return sht_state_modify(ss, t, q, &v);
}

/* CPUs/<n> and its busy and running attributes. */
static sht_err cpu_dir(sht_state *ss, struct acc_cpu *c, int32_t n)
{
	char num[24];
	const char *path[2] = { "CPUs", num };
	sht_err err;

	if (c->dir != NONE)
		return SHT_OK;
	snprintf(num, sizeof num, "%" PRId32, n);
	err = sht_state_quark(ss, SHT_QUARK_ROOT, path, 2, &c->dir);
	path[0] = "busy";
	if (err == SHT_OK)
		err = sht_state_quark(ss, c->dir, path, 1, &c->busy);
	path[0] = "running";
	if (err == SHT_OK)
		err = sht_state_quark(ss, c->dir, path, 1, &c->run);
	if (err != SHT_OK)
		c->dir = NONE;
	return err;
}

/* CPU n runs v (the kernel's value) from t on; c->tid ran from c->since
 * to t - 1 if t is later. */
static sht_err switched(struct srv_cpuacc *a, sht_state *ss, struct acc_cpu *c,
			int32_t n, sht_time t, const sht_value *v)
{
	sht_err err = cpu_dir(ss, c, n);

	if (err == SHT_OK && c->tid > 0 && t > c->since) {
		struct acc_pair *p = pair(a, ss, c, n, c->tid);

		if (!p)
			return sht_error_set(SHT_ERR_NOMEM, "cannot record the CPU time of %"
					     PRId32 " on CPU %" PRId32, c->tid, n);
		p->ns += t - c->since;
		c->busy_ns += t - c->since;
		err = set_ns(ss, p->q, t, p->ns);
		if (err == SHT_OK)
			err = set_ns(ss, c->busy, t, c->busy_ns);
	}
	if (err == SHT_OK)
		err = sht_state_modify(ss, t, c->run, v);
	c->since = t;
	c->tid = v->type == SHT_TYPE_INT32 ? v->u.i32 : 0;
	return err;
}


static sht_err acc_handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	struct srv_cpuacc *a = ctx;
	int32_t n = sht_event_cpu(ev);
	struct acc_cpu *c = a->kss ? cpu_slot(a, n) : NULL;
	sht_quark cur = c ? running_quark(a, c, n) : NONE;
	sht_value v;
	sht_time since;

	if (cur == NONE || sht_state_ongoing(a->kss, cur, &v, &since) != SHT_OK ||
	    v.type != SHT_TYPE_INT32 ||
	    (since == c->since && v.u.i32 == c->tid && c->dir != NONE))
		return SHT_OK;
	return switched(a, ss, c, n, since, &v);
}

sht_err srv_cpuacc_create(struct srv_cpuacc **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? SHT_OK : SHT_ERR_NOMEM;
}

void srv_cpuacc_destroy(struct srv_cpuacc *a)
{
	if (!a)
		return;
	free(a->cpu);
	free(a->pairs);
	free(a);
}

void srv_cpuacc_watch(struct srv_cpuacc *a, sht_state *kss)
{
	a->kss = kss;
}

void srv_cpuacc_opts(sht_state_opts *so)
{
	sht_state_opts_init(so);
	so->provider = SRV_CPUACC_ID;
	so->provider_version = SRV_CPUACC_VERSION;
	so->tree.block_size = 16384;
}

void srv_cpuacc_provider(struct srv_cpuacc *a, sht_provider *p)
{
	memset(p, 0, sizeof *p);
	p->id = SRV_CPUACC_ID;
	p->version = SRV_CPUACC_VERSION;
	p->handle = acc_handle;
	p->ctx = a;
}

/* ---- from a complete kernel history ---------------------------------------- */

/* The running-thread quarks of the kernel history kss, sorted, with
 * their CPU numbers (*n; malloc'd). */
static sht_quark *derive_quarks(sht_state *kss, int32_t **cpu, size_t *n)
{
	sht_quark *q = NULL;
	sht_err err = sht_state_attr_match(kss, "CPUs/*/Current_thread", &q, n);
	size_t k = 0;

	*cpu = err == SHT_OK ? malloc((*n ? *n : 1) * sizeof **cpu) : NULL;
	for (size_t i = 0; *cpu && i < *n; i++) {
		sht_quark p;
		const char *name;
		size_t len;
		char *end;
		long v;

		if (sht_state_attr_parent(kss, q[i], &p) != SHT_OK ||
		    sht_state_attr_name(kss, p, &name, &len) != SHT_OK)
			continue;
		v = strtol(name, &end, 10);
		if (end != name + len || v < 0 || v >= CPUS_MAX)
			continue;               /* not a CPU number: ignored */
		q[k] = q[i];
		(*cpu)[k++] = (int32_t)v;
	}
	*n = k;
	for (size_t i = 1; i < k; i++)          /* by quark (few CPUs) */
		for (size_t j = i; j > 0 && q[j - 1] > q[j]; j--) {
			sht_quark tq = q[j];
			int32_t tc = (*cpu)[j];

			q[j] = q[j - 1];
			(*cpu)[j] = (*cpu)[j - 1];
			q[j - 1] = tq;
			(*cpu)[j - 1] = tc;
		}
	return q;
}

static size_t find_quark(const sht_quark *q, size_t n, sht_quark x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (q[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* The intervals of qs starting in [a, b], in time order, fed as the live
 * provider sees them. */
static sht_err derive_window(struct srv_cpuacc *acc, sht_state *ss, sht_reader *rd,
			     const sht_quark *qs, const int32_t *cpu, size_t n,
			     sht_time a, sht_time b, sht_result *res)
{
	sht_query2d qq;
	const sht_interval *iv;
	sht_err err;

	memset(&qq, 0, sizeof qq);
	qq.quarks = qs;
	qq.n_quarks = n;
	qq.t1 = a;
	qq.t2 = b;
	err = sht_reader_query_2d(rd, &qq, res);
	iv = sht_result_items(res);
	for (size_t i = 0, m = sht_result_count(res); err == SHT_OK && i < m; i++) {
		size_t k = find_quark(qs, n, iv[i].quark);
		struct acc_cpu *c = k < n ? cpu_slot(acc, cpu[k]) : NULL;

		if (c && iv[i].start >= a && iv[i].value.type == SHT_TYPE_INT32)
			err = switched(acc, ss, c, cpu[k], iv[i].start, &iv[i].value);
	}
	return err;
}

static sht_err derive(struct srv_cpuacc *acc, sht_state *kss, sht_reader *rd,
		      sht_state *ss, const atomic_int *cancel)
{
	size_t n = 0;
	int32_t *cpu = NULL;
	sht_quark *qs = derive_quarks(kss, &cpu, &n);
	sht_time start = sht_state_start(kss), end = sht_state_end(kss);
	sht_time w = (sht_time)(srv_span(start, end) / 512 + 1);
	sht_result *res = sht_result_create();
	sht_err err = qs && cpu && res ? SHT_OK : SHT_ERR_NOMEM;

	/* Windows [a, b] of w: in unsigned, a history may span 64 bits. */
	for (sht_time a = start, b = start; err == SHT_OK && start <= end; a = b + 1) {
		if (atomic_load(cancel)) {
			err = SHT_ERR_STATE;
			sht_error_set(err, "cancelled");
			break;
		}
		b = srv_span(a, end) < (uint64_t)w ? end : a + w - 1;
		err = derive_window(acc, ss, rd, qs, cpu, n, a, b, res);
		if (b == end)
			break;
	}
	if (err == SHT_OK)
		err = sht_state_finish(ss, end);
	sht_result_destroy(res);
	free(qs);
	free(cpu);
	return err;
}

sht_err srv_cpuacc_derive(const char *kfile, const char *out,
			  const atomic_int *cancel)
{
	sht_reader_opts ro;
	sht_state_opts so;
	sht_state *kss = NULL, *ss = NULL;
	sht_reader *rd = NULL;
	struct srv_cpuacc acc = { 0 };
	sht_err err;

	sht_reader_opts_init(&ro);
	err = sht_state_open(kfile, &ro, &kss);
	if (err == SHT_OK)
		err = sht_reader_open(kfile, &ro, &rd);
	srv_cpuacc_opts(&so);
	if (err == SHT_OK)
		err = sht_state_create(out, sht_state_start(kss), &so, &ss);
	if (err == SHT_OK)
		err = derive(&acc, kss, rd, ss, cancel);
	sht_state_close(ss);
	sht_reader_close(rd);
	sht_state_close(kss);
	free(acc.cpu);
	free(acc.pairs);
	return err;
}
