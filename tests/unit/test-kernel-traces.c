/*
 * test-kernel-traces.c: the Linux kernel analysis (src/analysis) over the
 * real LTTng kernel traces of $SHT_SHARED/traces, read by the CTF source,
 * into a history tree file, checked against the model
 * (../shared/KERNEL_MODEL.md §4-§6) and against the trace itself (a second
 * pass over the same trace), never against an earlier run of the code:
 *
 *  - the layout comes from the trace's env (sht_ctf_env ->
 *    sht_kernel_layout_from_env), as Trace Compass picks it (§5);
 *  - the finished file passes sht_reader_check, and its bounds are the
 *    first event and the last state change;
 *  - structure: top-level attributes are CPUs / Threads / IRQs /
 *    Soft_IRQs; the node attributes (those four, CPUs/<c>/IRQs,
 *    CPUs/<c>/Soft_IRQs) are null from start to end; the intervals of
 *    every attribute of a sample tile [start, end] (2D query per quark);
 *  - ~200 sched_switch events spread over the trace (§6.1): at ts,
 *    CPUs/<cpu>/Current_thread = next_tid, the incoming thread
 *    (Threads/<next_tid>, or 0_<cpu> for 0) is running (2 or 3), its
 *    Exec_name is next_comm and Current_cpu_rq the CPU, the CPU status
 *    agrees (2 / 4 with the thread's System_call, or 0 / 8 / 16 for idle),
 *    and the outgoing thread has the status prev_state maps to (§4.2);
 *  - ~200 system call entries (§6.7, layout-dependent names): the CPU's
 *    Current_thread is the next_tid of the CPU's last sched_switch (null,
 *    thread "-1", if none), that thread's System_call is the event name
 *    without its prefix, its status 3 and the CPU status 4;
 *  - determinism: a second run gives the same attribute and interval
 *    counts.
 * Events sharing their timestamp with another event are not sampled (the
 * other event may change the same attributes at the same time).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "util/util.h"
#include "now.h"
#include "tap.h"
#include <shtgen/kgen.h>

/* Events checked per kind and trace, and quarks whose intervals are
 * walked; SHT_KT_SAMPLES=N overrides the first (0: every event, and every
 * quark), for a deeper run by hand. */
static size_t SAMPLES = 200;
static uint64_t TILE_SAMPLE = 2500;

static char traces[2048];
static char tmpdir[2048];

/* ---- the trace, read a second time ---------------------------------------- */

struct sw {                   /* one sched_switch */
	int64_t ts;
	int32_t cpu;
	int64_t prev_tid, prev_state, next_tid;
	char next_comm[64];
	int has_comm;
	int tie;                  /* another event has the same timestamp */
};

struct sc {                   /* one system call entry */
	int64_t ts;
	int32_t cpu;
	char call[96];            /* name without the prefix */
	int64_t cur_tid;          /* next_tid of the CPU's last switch, -1 */
	int tie;
};

#define MAX_CPUS 64

struct facts {
	uint64_t events;
	int64_t first_ts, last_ts;
	int cpu_seen[MAX_CPUS];
	struct sw *sw;
	size_t n_sw, cap_sw;
	struct sc *sc;
	size_t n_sc, cap_sc;
};

static int64_t field_int(const sht_event *ev, const char *name, int *okp)
{
	sht_field f;

	switch (sht_event_field(ev, name, &f)) {
	case SHT_FIELD_INT: return f.v.i;
	case SHT_FIELD_UINT: return (int64_t)f.v.u;
	default: *okp = 0; return 0;
	}
}

/* Syscall-entry name of ev under layout, without its prefix, or NULL
 * (KERNEL_MODEL §5: exit prefixes first, then compat entry, then entry). */
static const char *syscall_entry(const char *name, sht_kernel_layout layout)
{
	static const char *const p20[] = { "compat_sys_", "sys_" };
	static const char *const p26[] = { "compat_syscall_entry_",
					   "syscall_entry_" };
	const char *const *pre = layout == SHT_KERNEL_LAYOUT_LTTNG_2_0 ? p20 : p26;

	if (!name)
		return NULL;
	if (layout == SHT_KERNEL_LAYOUT_LTTNG_2_0) {
		if (!strncmp(name, "exit_syscall", 12))
			return NULL;
	} else if (!strncmp(name, "syscall_exit_", 13) ||
		   !strncmp(name, "compat_syscall_exit_", 20)) {
		return NULL;
	}
	for (int k = 0; k < 2; k++)
		if (!strncmp(name, pre[k], strlen(pre[k])))
			return name + strlen(pre[k]);
	return NULL;
}

static int read_facts(const char *path, sht_kernel_layout layout,
		      struct facts *fx)
{
	sht_source src;
	sht_event ev;
	sht_err err;
	int64_t cur[MAX_CPUS];
	int *last_tie = NULL;     /* tie flag of the previous event, if kept */
	int have_last = 0;

	memset(fx, 0, sizeof *fx);
	for (int k = 0; k < MAX_CPUS; k++)
		cur[k] = -1;
	if (sht_ctf_open(path, NULL, &src) != SHT_OK)
		return 0;
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		int tie = have_last && ev.ts == fx->last_ts;
		if (tie && last_tie)
			*last_tie = 1;
		last_tie = NULL;
		if (!fx->events)
			fx->first_ts = ev.ts;
		fx->events++;
		fx->last_ts = ev.ts;
		have_last = 1;
		if (ev.cpu < 0 || ev.cpu >= MAX_CPUS)
			continue;
		fx->cpu_seen[ev.cpu] = 1;
		const char *call;
		if (ev.name && !strcmp(ev.name, "sched_switch")) {
			struct sw s;
			int good = 1;
			sht_field f;
			memset(&s, 0, sizeof s);
			s.ts = ev.ts;
			s.cpu = ev.cpu;
			s.prev_tid = field_int(&ev, "prev_tid", &good);
			s.prev_state = field_int(&ev, "prev_state", &good);
			s.next_tid = field_int(&ev, "next_tid", &good);
			if (sht_event_field(&ev, "next_comm", &f) == SHT_FIELD_STRING) {
				snprintf(s.next_comm, sizeof s.next_comm, "%s", f.v.s);
				s.has_comm = 1;
			}
			s.tie = tie;
			if (!good)
				continue;
			cur[ev.cpu] = s.next_tid;
			if (fx->n_sw == fx->cap_sw) {
				fx->cap_sw = fx->cap_sw ? 2 * fx->cap_sw : 1024;
				fx->sw = realloc(fx->sw, fx->cap_sw * sizeof *fx->sw);
				if (!fx->sw)
					return 0;
			}
			fx->sw[fx->n_sw] = s;
			last_tie = &fx->sw[fx->n_sw].tie;
			fx->n_sw++;
		} else if ((call = syscall_entry(ev.name, layout)) != NULL) {
			if (fx->n_sc == fx->cap_sc) {
				fx->cap_sc = fx->cap_sc ? 2 * fx->cap_sc : 1024;
				fx->sc = realloc(fx->sc, fx->cap_sc * sizeof *fx->sc);
				if (!fx->sc)
					return 0;
			}
			struct sc *c = &fx->sc[fx->n_sc++];
			c->ts = ev.ts;
			c->cpu = ev.cpu;
			snprintf(c->call, sizeof c->call, "%s", call);
			c->cur_tid = cur[ev.cpu];
			c->tie = tie;
			last_tie = &c->tie;
		}
	}
	sht_ctf_close(&src);
	return err == SHT_END;
}

static void facts_free(struct facts *fx)
{
	free(fx->sw);
	free(fx->sc);
}

/* ---- running the analysis --------------------------------------------- */

static int env_string(const sht_source *src, const char *name, char *buf,
		      size_t size)
{
	sht_field f;

	buf[0] = '\0';
	return sht_ctf_env(src, name, &f) == SHT_OK && sht_field_text(&f, buf, size);
}

struct run {
	sht_kernel_layout layout;
	sht_time start, end;
	uint64_t events, skipped, attrs;
	sht_kernel_stats ks;
	sht_err err;
	double seconds;
};

/* Run the kernel analysis over the trace at path into file. */
static void run_analysis(const char *path, const char *file, struct run *r)
{
	char name[128], major[32], minor[32];
	sht_source src;
	sht_event ev;
	sht_state_opts so;
	sht_state *ss = NULL;
	sht_kernel *k = NULL;
	sht_provider p;
	double t0 = now_s();

	memset(r, 0, sizeof *r);
	r->err = sht_ctf_open(path, NULL, &src);
	if (r->err != SHT_OK)
		return;
	env_string(&src, "tracer_name", name, sizeof name);
	env_string(&src, "tracer_major", major, sizeof major);
	env_string(&src, "tracer_minor", minor, sizeof minor);
	r->layout = sht_kernel_layout_from_env(name, major, minor);
	/* The history starts at the first event. */
	if ((r->err = src.ops->next(src.src, &ev)) != SHT_OK ||
	    (r->err = src.ops->seek(src.src, 0)) != SHT_OK)
		goto out;
	r->start = ev.ts;
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_TREE;
	so.provider = SHT_KERNEL_PROVIDER_ID;
	so.provider_version = SHT_KERNEL_PROVIDER_VERSION;
	unlink(file);
	if ((r->err = sht_state_create(file, r->start, &so, &ss)) != SHT_OK ||
	    (r->err = sht_kernel_create(r->layout, &k)) != SHT_OK)
		goto out;
	sht_kernel_provider(k, &p);
	if ((r->err = sht_state_run(ss, &src, &p, &r->events, &r->skipped)) !=
	    SHT_OK)
		goto out;
	r->end = sht_state_end(ss);
	if ((r->err = sht_state_finish(ss, r->end)) != SHT_OK)
		goto out;
	r->attrs = sht_state_attr_count(ss);
	sht_kernel_stats_get(k, &r->ks);
out:
	if (r->err != SHT_OK)
		diag("run %s: %s: %s", path, sht_strerror(r->err), sht_errmsg());
	sht_state_close(ss);
	sht_kernel_destroy(k);
	sht_ctf_close(&src);
	r->seconds = now_s() - t0;
}

static void report_line(void *ctx, const char *msg)
{
	(void)ctx;
	diag("  check: %s", msg);
}

/* Open file as a tree, check it; its interval count into *intervals. */
static int check_file(const char *what, const char *file, const struct run *r,
		      uint64_t *intervals)
{
	sht_reader *rd = NULL;
	sht_tree_info info;
	int good;

	*intervals = 0;
	if (!is_int(sht_reader_open(file, NULL, &rd), SHT_OK,
		    "%s: the history file opens", what))
		return 0;
	good = is_int(sht_reader_check(rd, report_line, NULL, 20), SHT_OK,
		      "%s: sht_reader_check passes", what);
	sht_reader_info_get(rd, &info);
	*intervals = info.intervals;
	is_i64(info.start, r->start, "%s: file starts at the first event", what);
	is_i64(info.end, r->end, "%s: file ends at sht_state_end", what);
	sht_reader_close(rd);
	return good;
}

/* ---- queries on the reopened history ---------------------------------- */

/* Value of path at t into *v (strings copied to sbuf): 1 found, 0 the
 * attribute does not exist, -1 the query failed. */
static int value_at(sht_state *ss, sht_result *res, const char *path,
		    sht_time t, sht_value *v, char *sbuf, size_t size)
{
	sht_quark q;

	*v = sht_value_null();
	if (sht_state_quark_path(ss, path, false, &q) != SHT_OK)
		return 0;
	if (sht_state_query(ss, q, t, res) != SHT_OK || sht_result_count(res) != 1)
		return -1;
	*v = sht_result_at(res, 0)->value;
	if (v->type == SHT_TYPE_STRING && sbuf) {
		snprintf(sbuf, size, "%.*s", (int)v->len, v->u.str);
		v->u.str = sbuf;
	}
	return 1;
}

static int is_int_value(const sht_value *v, int32_t want)
{
	return v->type == SHT_TYPE_INT32 && v->u.i32 == want;
}

static void thread_name(int64_t tid, int32_t cpu, char *buf, size_t size)
{
	if (tid == 0)
		snprintf(buf, size, "0_%d", cpu);
	else
		snprintf(buf, size, "%" PRId64, tid);
}

/* §4.2: sched_switch prev_state -> thread status (-1 = null). */
static int32_t prev_status(int64_t prev_state)
{
	int64_t s = prev_state & 1023;

	if (s == 0)
		return 5;
	if (s & 3)
		return 1;
	if (s & 64)
		return -1;
	return 6;
}

/* The intervals of q tile [start, end]: consecutive, no gap, no overlap.
 * nulls: 1 if every interval must be null.  Returns 1 if sound. */
static int tiles(sht_state *ss, sht_result *res, sht_quark q, sht_time start,
		 sht_time end, int nulls, char *why, size_t size)
{
	sht_query2d qd;
	size_t n;

	memset(&qd, 0, sizeof qd);
	qd.quarks = &q;
	qd.n_quarks = 1;
	qd.t1 = start;
	qd.t2 = end;
	if (sht_state_query_2d(ss, &qd, res) != SHT_OK) {
		snprintf(why, size, "query failed: %s", sht_errmsg());
		return 0;
	}
	n = sht_result_count(res);
	if (n == 0) {
		snprintf(why, size, "no interval");
		return 0;
	}
	const sht_interval *iv = sht_result_items(res);
	if (iv[0].start != start) {
		snprintf(why, size, "first interval starts at %" PRId64, iv[0].start);
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		if (iv[k].quark != q || iv[k].end < iv[k].start) {
			snprintf(why, size, "interval %zu malformed", k);
			return 0;
		}
		if (k > 0 && iv[k].start != iv[k - 1].end + 1) {
			snprintf(why, size, "interval %zu starts at %" PRId64
				 ", previous ends at %" PRId64, k, iv[k].start,
				 iv[k - 1].end);
			return 0;
		}
		if (nulls && iv[k].value.type != SHT_TYPE_NULL) {
			snprintf(why, size, "interval %zu [%" PRId64 ", %" PRId64
				 "] is not null (%s)", k, iv[k].start, iv[k].end,
				 sht_type_name(iv[k].value.type));
			return 0;
		}
	}
	if (iv[n - 1].end != end) {
		snprintf(why, size, "last interval ends at %" PRId64,
			 iv[n - 1].end);
		return 0;
	}
	return 1;
}

static void check_structure(const char *what, sht_state *ss, sht_result *res,
			    const struct facts *fx, sht_time start, sht_time end)
{
	uint64_t n = sht_state_attr_count(ss);
	const sht_quark *kids;
	size_t n_kids = 0;
	char why[256], path[512];
	int bad = 0;

	/* Top level: only the four trees of §4.1. */
	sht_state_attr_children(ss, SHT_QUARK_ROOT, &kids, &n_kids);
	for (size_t k = 0; k < n_kids; k++) {
		const char *name;
		size_t len;
		sht_state_attr_name(ss, kids[k], &name, &len);
		if (strcmp(name, "CPUs") && strcmp(name, "Threads") &&
		    strcmp(name, "IRQs") && strcmp(name, "Soft_IRQs")) {
			diag("%s: unexpected top-level attribute %s", what, name);
			bad++;
		}
	}
	ok(n_kids >= 2 && !bad, "%s: top level is CPUs/Threads[/IRQs/Soft_IRQs] "
	   "(%zu attributes)", what, n_kids);

	/* CPUs/<c>: the CPUs of the trace. */
	sht_quark cpus;
	bad = 0;
	n_kids = 0;
	if (sht_state_quark_path(ss, "CPUs", false, &cpus) == SHT_OK)
		sht_state_attr_children(ss, cpus, &kids, &n_kids);
	for (size_t k = 0; k < n_kids; k++) {
		const char *name;
		size_t len;
		char *endp;
		sht_state_attr_name(ss, kids[k], &name, &len);
		long c = strtol(name, &endp, 10);
		if (*endp || c < 0 || c >= MAX_CPUS || !fx->cpu_seen[c]) {
			diag("%s: CPUs/%s is not a CPU of the trace", what, name);
			bad++;
		}
	}
	int n_cpus = 0;
	for (int c = 0; c < MAX_CPUS; c++)
		n_cpus += fx->cpu_seen[c];
	ok(!bad && n_kids == (size_t)n_cpus, "%s: CPUs/* are the %d CPUs of the "
	   "trace (%zu)", what, n_cpus, n_kids);

	/* Node attributes: null from start to end. */
	static const char *const nodes[] = { "CPUs", "Threads", "IRQs",
		"Soft_IRQs", "CPUs/*/IRQs", "CPUs/*/Soft_IRQs" };
	size_t n_nodes = 0;
	bad = 0;
	for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
		sht_quark *qs = NULL;
		size_t nq = 0;
		if (sht_state_attr_match(ss, nodes[k], &qs, &nq) != SHT_OK) {
			bad++;
			continue;
		}
		for (size_t j = 0; j < nq; j++) {
			n_nodes++;
			if (!tiles(ss, res, qs[j], start, end, 1, why, sizeof why)) {
				size_t need;
				sht_state_attr_path(ss, qs[j], path, sizeof path, &need);
				diag("%s: node %s: %s", what, path, why);
				bad++;
			}
		}
		free(qs);
	}
	ok(!bad && n_nodes >= 2, "%s: the %zu node attributes are null over "
	   "[start, end]", what, n_nodes);

	/* Every attribute of a sample: its intervals tile [start, end]. */
	uint64_t step = TILE_SAMPLE && n > TILE_SAMPLE ? n / TILE_SAMPLE : 1,
		 checked = 0;
	bad = 0;
	for (uint64_t q = 0; q < n; q += step) {
		checked++;
		if (!tiles(ss, res, (sht_quark)q, start, end, 0, why, sizeof why)) {
			size_t need;
			sht_state_attr_path(ss, (sht_quark)q, path, sizeof path,
					    &need);
			if (bad < 10)
				diag("%s: %s (quark %" PRIu64 "): %s", what, path,
				     q, why);
			bad++;
		}
	}
	is_int(bad, 0, "%s: intervals of %" PRIu64 " of %" PRIu64 " attributes "
	       "tile [start, end]", what, checked, n);
}

/* Indices of up to SAMPLES items, spread evenly over the n candidates
 * (tie == 0) of the n_all items with the given tie flags. */
static size_t pick(const int *tie, size_t stride, size_t n_all, size_t *out)
{
	size_t n = 0, got = 0;

	for (size_t k = 0; k < n_all; k++)
		n += !*(const int *)((const char *)tie + k * stride);
	if (n == 0)
		return 0;
	size_t want = SAMPLES && n > SAMPLES ? SAMPLES : n;
	size_t next_rank = 0, rank = 0;
	for (size_t k = 0; k < n_all && got < want; k++) {
		if (*(const int *)((const char *)tie + k * stride))
			continue;
		if (rank == next_rank) {
			out[got++] = k;
			next_rank = (got * n) / want;
		}
		rank++;
	}
	return got;
}

static void check_switches(const char *what, sht_state *ss, sht_result *res,
			   const struct facts *fx)
{
	size_t *idx = malloc((fx->n_sw + 1) * sizeof *idx), n;
	int bad_cur = 0, bad_run = 0, bad_name = 0, bad_rq = 0, bad_cpu = 0,
	    bad_prev = 0, n_prev = 0;
	char path[256], tn[64], sbuf[256];
	sht_value v, sc;

	if (!idx)
		bail_out("out of memory");
	n = fx->n_sw ? pick(&fx->sw[0].tie, sizeof fx->sw[0], fx->n_sw, idx) : 0;
	ok(n >= (SAMPLES && fx->n_sw >= SAMPLES * 2 ? SAMPLES : 1),
	   "%s: %zu of %zu sched_switch events sampled (no timestamp ties)",
	   what, n, fx->n_sw);
	for (size_t j = 0; j < n; j++) {
		const struct sw *s = &fx->sw[idx[j]];
		int r;

		snprintf(path, sizeof path, "CPUs/%d/Current_thread", s->cpu);
		r = value_at(ss, res, path, s->ts, &v, NULL, 0);
		if (r != 1 || !is_int_value(&v, (int32_t)s->next_tid)) {
			if (bad_cur++ < 5)
				diag("%s: switch at %" PRId64 " cpu %d: %s is %s "
				     "%d, next_tid %" PRId64, what, s->ts, s->cpu,
				     path, sht_type_name(v.type), v.u.i32,
				     s->next_tid);
		}
		thread_name(s->next_tid, s->cpu, tn, sizeof tn);
		snprintf(path, sizeof path, "Threads/%s", tn);
		r = value_at(ss, res, path, s->ts, &v, NULL, 0);
		if (r != 1 || !(is_int_value(&v, 2) || is_int_value(&v, 3))) {
			if (bad_run++ < 5)
				diag("%s: switch at %" PRId64 " cpu %d: %s status "
				     "%s %d, want 2 or 3", what, s->ts, s->cpu,
				     path, sht_type_name(v.type), v.u.i32);
		}
		/* CPU status (§6.1 step 11). */
		int32_t want_cpu = -1;
		if (s->next_tid > 0) {
			snprintf(path, sizeof path, "Threads/%s/System_call", tn);
			r = value_at(ss, res, path, s->ts, &sc, NULL, 0);
			want_cpu = r == 1 && sc.type != SHT_TYPE_NULL ? 4 : 2;
		}
		snprintf(path, sizeof path, "CPUs/%d", s->cpu);
		r = value_at(ss, res, path, s->ts, &v, NULL, 0);
		if (r != 1 || (want_cpu >= 0 ? !is_int_value(&v, want_cpu) :
			       !(is_int_value(&v, 0) || is_int_value(&v, 8) ||
				 is_int_value(&v, 16)))) {
			if (bad_cpu++ < 5)
				diag("%s: switch at %" PRId64 " cpu %d: CPU status "
				     "%s %d, want %d (-1: 0, 8 or 16)", what,
				     s->ts, s->cpu, sht_type_name(v.type),
				     v.u.i32, want_cpu);
		}
		snprintf(path, sizeof path, "Threads/%s/Current_cpu_rq", tn);
		r = value_at(ss, res, path, s->ts, &v, NULL, 0);
		if (r != 1 || !is_int_value(&v, s->cpu)) {
			if (bad_rq++ < 5)
				diag("%s: switch at %" PRId64 " cpu %d: %s is %s "
				     "%d", what, s->ts, s->cpu, path,
				     sht_type_name(v.type), v.u.i32);
		}
		snprintf(path, sizeof path, "Threads/%s/Exec_name", tn);
		r = value_at(ss, res, path, s->ts, &v, sbuf, sizeof sbuf);
		if (r != 1 || v.type != SHT_TYPE_STRING ||
		    (s->has_comm && strcmp(v.u.str, s->next_comm) != 0)) {
			if (bad_name++ < 5)
				diag("%s: switch at %" PRId64 " cpu %d: %s is "
				     "\"%s\" (%s), next_comm \"%s\"", what, s->ts,
				     s->cpu, path, v.type == SHT_TYPE_STRING ?
				     v.u.str : "", sht_type_name(v.type),
				     s->next_comm);
		}
		/* Outgoing thread (§6.1 step 2), unless it is also incoming. */
		if (s->prev_tid != s->next_tid) {
			int32_t want = prev_status(s->prev_state);
			thread_name(s->prev_tid, s->cpu, tn, sizeof tn);
			snprintf(path, sizeof path, "Threads/%s", tn);
			r = value_at(ss, res, path, s->ts, &v, NULL, 0);
			n_prev++;
			if (r != 1 || (want < 0 ? v.type != SHT_TYPE_NULL :
				       !is_int_value(&v, want))) {
				if (bad_prev++ < 5)
					diag("%s: switch at %" PRId64 " cpu %d: "
					     "%s status %s %d, prev_state %" PRId64
					     " maps to %d", what, s->ts, s->cpu,
					     path, sht_type_name(v.type), v.u.i32,
					     s->prev_state, want);
			}
		}
	}
	is_int(bad_cur, 0, "%s: Current_thread = next_tid at %zu switches",
	       what, n);
	is_int(bad_run, 0, "%s: incoming thread running (2/3) at %zu switches",
	       what, n);
	is_int(bad_cpu, 0, "%s: CPU status agrees with the incoming thread at "
	       "%zu switches", what, n);
	is_int(bad_rq, 0, "%s: incoming thread's Current_cpu_rq = cpu at %zu "
	       "switches", what, n);
	is_int(bad_name, 0, "%s: incoming thread's Exec_name = next_comm at "
	       "%zu switches", what, n);
	is_int(bad_prev, 0, "%s: outgoing thread status = map(prev_state) at "
	       "%d switches", what, n_prev);
	free(idx);
}

static void check_syscalls(const char *what, sht_state *ss, sht_result *res,
			   const struct facts *fx, uint64_t expected)
{
	size_t *idx, n;
	int bad_cur = 0, bad_call = 0, bad_st = 0, bad_cpu = 0;
	char path[256], tn[64], sbuf[256];
	sht_value v;

	is_u64((uint64_t)fx->n_sc, expected, "%s: %" PRIu64 " system call "
	       "entries (traces/README.md)", what, expected);
	if (fx->n_sc == 0)
		return;
	idx = malloc(fx->n_sc * sizeof *idx);
	if (!idx)
		bail_out("out of memory");
	n = pick(&fx->sc[0].tie, sizeof fx->sc[0], fx->n_sc, idx);
	ok(n >= (SAMPLES && fx->n_sc >= SAMPLES * 2 ? SAMPLES : 1), "%s: %zu of %zu "
	   "system call entries sampled", what, n, fx->n_sc);
	for (size_t j = 0; j < n; j++) {
		const struct sc *c = &fx->sc[idx[j]];
		int r;

		snprintf(path, sizeof path, "CPUs/%d/Current_thread", c->cpu);
		r = value_at(ss, res, path, c->ts, &v, NULL, 0);
		if (c->cur_tid < 0 ? (r == 1 && v.type != SHT_TYPE_NULL) :
		    (r != 1 || !is_int_value(&v, (int32_t)c->cur_tid))) {
			if (bad_cur++ < 5)
				diag("%s: %s at %" PRId64 " cpu %d: %s is %s %d, "
				     "last switch says %" PRId64, what, c->call,
				     c->ts, c->cpu, path, sht_type_name(v.type),
				     v.u.i32, c->cur_tid);
		}
		if (c->cur_tid < 0)
			snprintf(tn, sizeof tn, "-1");
		else
			thread_name(c->cur_tid, c->cpu, tn, sizeof tn);
		snprintf(path, sizeof path, "Threads/%s/System_call", tn);
		r = value_at(ss, res, path, c->ts, &v, sbuf, sizeof sbuf);
		if (r != 1 || v.type != SHT_TYPE_STRING ||
		    strcmp(v.u.str, c->call) != 0) {
			if (bad_call++ < 5)
				diag("%s: %s at %" PRId64 " cpu %d: %s is \"%s\" "
				     "(%s)", what, c->call, c->ts, c->cpu, path,
				     v.type == SHT_TYPE_STRING ? v.u.str : "",
				     sht_type_name(v.type));
		}
		snprintf(path, sizeof path, "Threads/%s", tn);
		r = value_at(ss, res, path, c->ts, &v, NULL, 0);
		if (r != 1 || !is_int_value(&v, 3)) {
			if (bad_st++ < 5)
				diag("%s: %s at %" PRId64 " cpu %d: %s status %s "
				     "%d, want 3", what, c->call, c->ts, c->cpu,
				     path, sht_type_name(v.type), v.u.i32);
		}
		snprintf(path, sizeof path, "CPUs/%d", c->cpu);
		r = value_at(ss, res, path, c->ts, &v, NULL, 0);
		if (r != 1 || !is_int_value(&v, 4)) {
			if (bad_cpu++ < 5)
				diag("%s: %s at %" PRId64 " cpu %d: CPU status %s "
				     "%d, want 4", what, c->call, c->ts, c->cpu,
				     sht_type_name(v.type), v.u.i32);
		}
	}
	is_int(bad_cur, 0, "%s: Current_thread = last switch's next_tid at %zu "
	       "system call entries", what, n);
	is_int(bad_call, 0, "%s: System_call = the event's syscall name at %zu "
	       "entries", what, n);
	is_int(bad_st, 0, "%s: thread status 3 at %zu entries", what, n);
	is_int(bad_cpu, 0, "%s: CPU status 4 at %zu entries", what, n);
	free(idx);
}

/* ---- one trace ------------------------------------------------------------ */

struct kcase {
	const char *dir;
	const char *file;             /* history file stem */
	sht_kernel_layout layout;     /* §5 from the env (traces/README.md) */
	uint64_t events;              /* traces/README.md */
	uint64_t syscall_entries;     /* traces/README.md */
	int determinism;              /* run twice */
};

static const struct kcase kcases[] = {
	{ "many-threads", "many-threads", SHT_KERNEL_LAYOUT_LTTNG_2_7,
	  240644, 78085, 1 },
	{ "bug446190", "bug446190", SHT_KERNEL_LAYOUT_LTTNG_2_0,
	  31556, 1817, 1 },
	{ "synctraces/scp_src", "scp_src", SHT_KERNEL_LAYOUT_LTTNG_2_0,
	  110771, 0, 1 },
};

static void check_kernel_trace(const struct kcase *kc)
{
	char path[4096], file[4096], file2[4096];
	struct run r1, r2;
	struct facts fx;
	uint64_t iv1 = 0, iv2 = 0;
	sht_state *ss = NULL;
	sht_result *res = NULL;
	const char *what = kc->dir;

	if (kc->dir[0] == '/')           /* a generated trace */
		snprintf(path, sizeof path, "%s", kc->dir);
	else
		snprintf(path, sizeof path, "%s/%s", traces, kc->dir);
	snprintf(file, sizeof file, "%s/%s.sht", tmpdir, kc->file);
	snprintf(file2, sizeof file2, "%s/%s-2.sht", tmpdir, kc->file);

	run_analysis(path, file, &r1);
	if (!is_int(r1.err, SHT_OK, "%s: kernel analysis runs (%.2f s)", what,
		    r1.seconds))
		return;
	is_int((int)r1.layout, (int)kc->layout, "%s: layout from the env",
	       what);
	is_u64(r1.events, kc->events, "%s: every event read", what);
	is_u64(r1.ks.events, kc->events, "%s: every event given to the "
	       "analysis", what);
	ok(r1.ks.handled > 0 && r1.ks.handled <= r1.ks.events,
	   "%s: %" PRIu64 " events handled", what, r1.ks.handled);
	is_u64(r1.ks.malformed, 0, "%s: no handled event lacks a required "
	       "field", what);
	diag("%s: %" PRIu64 " events, %" PRIu64 " handled, %" PRIu64
	     " stopped, %" PRIu64 " skipped by the run, %" PRIu64
	     " attributes", what, r1.ks.events, r1.ks.handled, r1.ks.stopped,
	     r1.skipped, r1.attrs);

	if (!ok(read_facts(path, r1.layout, &fx), "%s: second pass over the "
		"trace", what)) {
		facts_free(&fx);
		return;
	}
	is_u64(fx.events, kc->events, "%s: second pass reads every event", what);
	is_i64(r1.start, fx.first_ts, "%s: history starts at the first event",
	       what);
	ok(r1.end >= r1.start && r1.end <= fx.last_ts, "%s: history ends "
	   "(%" PRId64 ") within the trace", what, r1.end);

	check_file(what, file, &r1, &iv1);
	diag("%s: %" PRIu64 " intervals", what, iv1);

	if (is_int(sht_state_open(file, NULL, &ss), SHT_OK,
		   "%s: sht_state_open", what) &&
	    (res = sht_result_create()) != NULL) {
		const char *id = NULL;
		uint32_t version = 0;
		sht_state_provider(ss, &id, &version);
		is_str(id, SHT_KERNEL_PROVIDER_ID, "%s: provider id", what);
		is_int((int)version, (int)SHT_KERNEL_PROVIDER_VERSION,
		       "%s: provider version", what);
		is_u64(sht_state_attr_count(ss), r1.attrs, "%s: reopened "
		       "attribute count", what);
		is_i64(sht_state_start(ss), r1.start, "%s: reopened start", what);
		is_i64(sht_state_end(ss), r1.end, "%s: reopened end", what);
		check_structure(what, ss, res, &fx, r1.start, r1.end);
		check_switches(what, ss, res, &fx);
		check_syscalls(what, ss, res, &fx, kc->syscall_entries);
	}
	sht_result_destroy(res);
	sht_state_close(ss);

	if (kc->determinism) {
		run_analysis(path, file2, &r2);
		is_int(r2.err, SHT_OK, "%s: second run (%.2f s)", what,
		       r2.seconds);
		is_u64(r2.attrs, r1.attrs, "%s: same attribute count on a "
		       "second run", what);
		check_file(what, file2, &r2, &iv2);
		is_u64(iv2, iv1, "%s: same interval count on a second run", what);
		is_i64(r2.end, r1.end, "%s: same end on a second run", what);
		unlink(file2);
	}
	unlink(file);
	facts_free(&fx);
}

/* A synthetic trace (src/gen/include/shtgen/kgen.h) written as CTF, checked the
 * same way: 8 CPUs, many threads, forks and exits. */
static void check_synthetic(void)
{
	static char dir[4096];
	shtgen_kgen_params p;
	shtgen_kgen_write_stats st;
	struct kcase kc = { dir, "synthetic", SHT_KERNEL_LAYOUT_LTTNG_2_7, 0,
			    0, 1 };

	shtgen_kgen_params_init(&p);
	p.events = 300000;
	p.cpus = 8;
	p.threads = 500;
	p.seed = 42;
	snprintf(dir, sizeof dir, "%s/synthetic-ctf", tmpdir);
	if (!is_int(shtgen_kgen_write_ctf(&p, dir, NULL, NULL, &st), SHT_OK,
		    "synthetic: write a %" PRIu64 "-event CTF trace", p.events))
		return;
	kc.events = st.gen.events;
	kc.syscall_entries = st.gen.syscalls;
	check_kernel_trace(&kc);
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED");
	const char *tmp = getenv("SHT_TMP");
	struct stat sb;
	sht_source probe;

	if (!shared)
		shared = "../shared";
	snprintf(traces, sizeof traces, "%s/traces", shared);
	if (stat(traces, &sb) != 0 || !S_ISDIR(sb.st_mode))
		skip_all("no real traces: %s is absent (set SHT_SHARED)", traces);
	snprintf(tmpdir, sizeof tmpdir, "%s", tmp ? tmp : ".");
	const char *samples = getenv("SHT_KT_SAMPLES");
	if (samples && *samples) {
		SAMPLES = (size_t)strtoull(samples, NULL, 10);
		if (SAMPLES == 0)
			TILE_SAMPLE = 0;
	}

	/* A libsht built without libbabeltrace2 reads no CTF. */
	char p0[4096];
	snprintf(p0, sizeof p0, "%s/%s", traces, kcases[1].dir);
	sht_err err = sht_ctf_open(p0, NULL, &probe);
	if (err == SHT_ERR_INVALID && strstr(sht_errmsg(), "without libbabeltrace2"))
		skip_all("this libsht was built without libbabeltrace2");
	if (err == SHT_OK)
		sht_ctf_close(&probe);

	for (size_t k = 0; k < sizeof kcases / sizeof kcases[0]; k++)
		check_kernel_trace(&kcases[k]);
	check_synthetic();
	return done_testing();
}
