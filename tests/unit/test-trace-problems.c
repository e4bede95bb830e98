/*
 * test-trace-problems.c: trace problems the kernel analysis and the state
 * system meet event by event (docs/RELIABILITY.md §5; the file-level ones,
 * truncation, corruption, metadata, lost events, are in
 * tests/cli/test-trace-problems.sh):
 *
 *  - unmatched entry / exit events: a system call exit without its entry,
 *    a sched_switch away from a thread never seen, an exit on a CPU whose
 *    current thread is unknown.  Defined behaviour (Trace Compass's):
 *    accepted without error, the state is what the event says from there
 *    on (a trace starts in the middle of every thread's life), nothing is
 *    counted as malformed;
 *  - an event earlier than the previous one: the run stops with
 *    SHT_ERR_ORDER and a message giving both times, after the events
 *    before it (sht build then names the event and refuses the history).
 *
 * The traces are VSTF files written here (sht_vstf_writer_*).
 */
#include <stdio.h>
#include <string.h>

#include "sht/sht.h"
#include "tap.h"

struct ev {
	sht_time ts;
	int32_t cpu;
	const char *name;
	int64_t prev_tid, prev_state, next_tid;   /* sched_switch */
};

static sht_err put_int(sht_vstf_writer *w, const char *name, int64_t v)
{
	sht_field f = { SHT_FIELD_INT, { .i = v } };

	return sht_vstf_writer_field(w, name, &f);
}

static sht_err put_str(sht_vstf_writer *w, const char *name, const char *s)
{
	sht_field f = { SHT_FIELD_STRING, { .s = s } };

	return sht_vstf_writer_field(w, name, &f);
}

/* Write evs to path, with an lttng-modules 2.12 environment. */
static int write_trace(const char *path, const struct ev *evs, size_t n)
{
	sht_vstf_writer *w = NULL;
	sht_field tn = { SHT_FIELD_STRING, { .s = "lttng-modules" } };
	sht_field ma = { SHT_FIELD_INT, { .i = 2 } }, mi = { SHT_FIELD_INT, { .i = 12 } };
	sht_err err = sht_vstf_writer_create(path, 0, &w);

	if (err == SHT_OK)
		err = sht_vstf_writer_env(w, "tracer_name", &tn);
	if (err == SHT_OK)
		err = sht_vstf_writer_env(w, "tracer_major", &ma);
	if (err == SHT_OK)
		err = sht_vstf_writer_env(w, "tracer_minor", &mi);
	for (size_t i = 0; i < n && err == SHT_OK; i++) {
		err = sht_vstf_writer_begin(w, evs[i].ts, evs[i].cpu, evs[i].name);
		if (err == SHT_OK && strcmp(evs[i].name, "sched_switch") == 0) {
			err = put_str(w, "prev_comm", "prev");
			if (err == SHT_OK)
				err = put_int(w, "prev_tid", evs[i].prev_tid);
			if (err == SHT_OK)
				err = put_int(w, "prev_prio", 20);
			if (err == SHT_OK)
				err = put_int(w, "prev_state", evs[i].prev_state);
			if (err == SHT_OK)
				err = put_str(w, "next_comm", "next");
			if (err == SHT_OK)
				err = put_int(w, "next_tid", evs[i].next_tid);
			if (err == SHT_OK)
				err = put_int(w, "next_prio", 20);
		} else if (err == SHT_OK && strncmp(evs[i].name, "syscall_exit", 12) == 0) {
			err = put_int(w, "ret", 0);
		}
		if (err == SHT_OK)
			err = sht_vstf_writer_end(w);
	}
	if (err == SHT_OK)
		err = sht_vstf_writer_finish(w, NULL);
	sht_vstf_writer_close(w);
	if (err != SHT_OK)
		diag("write %s: %s", path, sht_errmsg());
	return err == SHT_OK;
}

struct run {
	sht_source src;
	sht_kernel *k;
	sht_state *ss;
	sht_err err;
	uint64_t events;
	sht_kernel_stats ks;
};

/* The kernel analysis (2.7 layout) over path into memory. */
static void run_trace(const char *path, sht_time start, struct run *r)
{
	sht_state_opts so;
	sht_provider p;

	memset(r, 0, sizeof *r);
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_MEMORY;
	r->err = sht_vstf_open(path, &r->src);
	if (r->err == SHT_OK)
		r->err = sht_kernel_create(SHT_KERNEL_LAYOUT_LTTNG_2_7, &r->k);
	if (r->err == SHT_OK)
		r->err = sht_state_create(NULL, start, &so, &r->ss);
	if (r->err != SHT_OK)
		return;
	sht_kernel_provider(r->k, &p);
	r->err = sht_state_run(r->ss, &r->src, &p, &r->events, NULL);
	if (r->err == SHT_OK)
		r->err = sht_state_finish(r->ss, sht_state_end(r->ss));
	sht_kernel_stats_get(r->k, &r->ks);
}

static void run_close(struct run *r)
{
	sht_state_close(r->ss);
	sht_kernel_destroy(r->k);
	sht_vstf_close(&r->src);
}

/* The value of path at t as text: "null", "int N", "str S", or "?". */
static const char *value_at(sht_state *ss, const char *path, sht_time t)
{
	static char buf[128];
	sht_result *res = sht_result_create();
	sht_quark q;
	const sht_value *v;

	snprintf(buf, sizeof buf, "?");
	if (!res || sht_state_quark_path(ss, path, false, &q) != SHT_OK ||
	    sht_state_query(ss, q, t, res) != SHT_OK || sht_result_count(res) != 1) {
		sht_result_destroy(res);
		return buf;
	}
	v = &sht_result_at(res, 0)->value;
	if (v->type == SHT_TYPE_NULL)
		snprintf(buf, sizeof buf, "null");
	else if (v->type == SHT_TYPE_INT32)
		snprintf(buf, sizeof buf, "int %d", (int)v->u.i32);
	else if (v->type == SHT_TYPE_INT64)
		snprintf(buf, sizeof buf, "int %lld", (long long)v->u.i64);
	else if (v->type == SHT_TYPE_STRING)
		snprintf(buf, sizeof buf, "str %.*s", (int)v->len, v->u.str);
	sht_result_destroy(res);
	return buf;
}

static void unmatched(void)
{
	static const struct ev evs[] = {
		/* CPU 0: exit with no current thread known, then a switch
		 * away from tid 99 (never seen) to tid 7 (never seen), whose
		 * system call exit has no entry; then a real entry. */
		{ 1000, 0, "syscall_exit_read", 0, 0, 0 },
		{ 2000, 0, "sched_switch", 99, 1, 7 },
		{ 3000, 0, "syscall_exit_write", 0, 0, 0 },
		{ 4000, 1, "sched_switch", 55, 0, 8 },
		{ 5000, 0, "syscall_entry_read", 0, 0, 0 },
		{ 6000, 0, "syscall_exit_read", 0, 0, 0 },
	};
	struct run r;

	ok(write_trace("unmatched.vstf", evs, 6), "trace with unmatched events written");
	run_trace("unmatched.vstf", 1000, &r);
	is_int(r.err, SHT_OK, "unmatched entry / exit events: the run succeeds (%s)",
	       r.err ? sht_errmsg() : "");
	is_u64(r.events, 6, "... every event is run");
	is_u64(r.ks.malformed, 0, "... none counted as malformed");
	if (r.err == SHT_OK) {
		is_str(value_at(r.ss, "CPUs/0/Current_thread", 2500), "int 7",
		       "switch from an unknown thread: the new one is current");
		is_str(value_at(r.ss, "Threads/99", 2500), "int 1",
		       "... the unknown thread is now known, blocked (prev_state 1)");
		is_str(value_at(r.ss, "Threads/7", 3500), "int 2",
		       "exit without entry: the thread runs in user mode");
		is_str(value_at(r.ss, "Threads/7/System_call", 3500), "null",
		       "... with no system call");
		is_str(value_at(r.ss, "Threads/7/System_call", 5500), "str read",
		       "a later entry is followed as usual");
		is_str(value_at(r.ss, "Threads/55", 4500), "int 5",
		       "switch away from an unknown thread on another CPU: it waits for a CPU");
	}
	run_close(&r);
}

static void out_of_order(void)
{
	static const struct ev evs[] = {
		{ 1000, 0, "sched_switch", 1, 0, 2 },
		{ 2000, 0, "syscall_entry_read", 0, 0, 0 },
		{ 1500, 0, "syscall_exit_read", 0, 0, 0 },
		{ 3000, 0, "syscall_entry_read", 0, 0, 0 },
	};
	struct run r;

	ok(write_trace("order.vstf", evs, 4), "trace with an event out of order written");
	run_trace("order.vstf", 1000, &r);
	is_int(r.err, SHT_ERR_ORDER, "event out of order: the run stops with SHT_ERR_ORDER");
	ok(strstr(sht_errmsg(), "t=1500") && strstr(sht_errmsg(), "2000"),
	   "... the message gives both times: %s", sht_errmsg());
	is_u64(r.events, 3, "... at the third event (the two before it run)");
	run_close(&r);
}

int main(void)
{
	unmatched();
	out_of_order();
	return done_testing();
}
