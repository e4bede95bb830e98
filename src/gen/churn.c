/*
 * churn.c: the churn workload of docs/GENERATOR.md ("Workloads") (many short-lived
 * threads), as a stream of intervals in builder order.
 *
 * Thread i (0 <= i < N) is born at b = 1000 i.  At b it get-or-creates
 * Threads (quark 0), Threads/<i> (1+3i), Threads/<i>/Status (2+3i) and
 * Threads/<i>/Exec_name (3+3i), sets Exec_name = "proc<i>", and sets
 * Status = int32 1 + (k mod 3) at b + 500k for k = 0..19; at b + 10000 it
 * clears Threads/<i> (Status, then Exec_name, then Threads/<i> itself).
 * Close at T = 1000 N + 10000.
 *
 * The state changes are applied in time order (equal times: lower i first,
 * one thread's changes in the order written) with the rules of
 * docs/STATE.md §2.2 on a small private transient state, so the
 * intervals come out in non-decreasing end time.
 *
 * Memory is O(1): every change falls on a multiple of 500 and a thread
 * only changes during [b, b + 10000], so at most 11 threads are alive at
 * a time and their ongoing states live in a ring.  The states the close
 * emits need not be stored: Threads and every Threads/<i> are null on
 * [0, T] (a clear of a null attribute extends it), and Status and
 * Exec_name of thread i are null on [b + 10000, T].
 *
 * Intervals per thread: Status 20 values + the final null (+ the initial
 * null [0, b-1] if i > 0), Exec_name 2 (+1), Threads/<i> 1; plus Threads:
 * 26 N - 1 in all.
 *
 * shtgen_churn_drive (end of the file) performs the same changes on a state
 * system instead, which applies the same rules.
 */
#include <stdio.h>
#include <string.h>

#include "gen/gen-int.h"
#include <shtgen/workload.h>

enum {
	CHURN_BIRTH_STEP = 1000,  /* b = i * CHURN_BIRTH_STEP */
	CHURN_CHANGE_STEP = 500,  /* Status changes every 500 ns */
	CHURN_CHANGES = 20,       /* k = 0 .. 19 */
	CHURN_LIFE = 10000,       /* clear at b + CHURN_LIFE */
	CHURN_RING = 16,          /* > threads alive at once (11) */
};

/* Ongoing state of one attribute. */
struct churn_slot {
	sht_time start;           /* start of the ongoing interval */
	sht_value value;          /* its value (strings point to a name[]) */
};

/* Transient state of one living thread. */
struct churn_thread {
	uint64_t id;              /* i */
	struct churn_slot status; /* Threads/<i>/Status */
	struct churn_slot exec;   /* Threads/<i>/Exec_name */
	char name[32];            /* "proc<i>", the Exec_name string */
};

/* Where the intervals go. */
struct churn_out {
	shtgen_emit_fn emit;
	void *ctx;
};

static int churn_valid(const shtgen_churn *w)
{
	return w->threads >= 1 && w->threads <= SHT_QUARK_MAX / 3u;
}

sht_time shtgen_churn_end(const shtgen_churn *w)
{
	if (!churn_valid(w))
		return 0;
	return (sht_time)w->threads * CHURN_BIRTH_STEP + CHURN_LIFE;
}

uint64_t shtgen_churn_quarks(const shtgen_churn *w)
{
	if (!churn_valid(w))
		return 0;
	return 3u * w->threads + 1u;
}

uint64_t shtgen_churn_count(const shtgen_churn *w)
{
	if (!churn_valid(w))
		return 0;
	return 26u * w->threads - 1u;
}

static sht_quark status_quark(uint64_t i)
{
	return (sht_quark)(2u + 3u * i);
}

static sht_quark exec_quark(uint64_t i)
{
	return (sht_quark)(3u + 3u * i);
}

/* Same type and value (this workload only has null, int32 and strings). */
static int value_same(const sht_value *a, const sht_value *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SHT_TYPE_NULL:
		return 1;
	case SHT_TYPE_INT32:
		return a->u.i32 == b->u.i32;
	case SHT_TYPE_STRING:
		return a->len == b->len &&
		       memcmp(a->u.str, b->u.str, a->len) == 0;
	default:
		return a->u.i64 == b->u.i64;
	}
}

static sht_err emit_one(const struct churn_out *out, sht_quark q,
			sht_time start, sht_time end, sht_value v)
{
	sht_interval iv;

	iv.quark = q;
	iv.start = start;
	iv.end = end;
	iv.value = v;
	return out->emit(out->ctx, &iv);
}

/* modify(t, v, q) of docs/STATE.md §2.2 on one slot. */
static sht_err slot_modify(const struct churn_out *out,
			   struct churn_slot *s, sht_quark q, sht_time t,
			   sht_value v)
{
	sht_err err;

	if (value_same(&s->value, &v))
		return SHT_OK;
	if (s->start < t) {
		err = emit_one(out, q, s->start, t - 1, s->value);
		if (err < 0)
			return err;
		s->start = t;
	}
	s->value = v;
	return SHT_OK;
}

/* At b: create the attributes (null since 0), set Exec_name, Status 1. */
static sht_err thread_birth(const struct churn_out *out,
			    struct churn_thread *th, uint64_t i, sht_time t)
{
	sht_err err;
	int len;

	th->id = i;
	th->status.start = 0;
	th->status.value = sht_value_null();
	th->exec = th->status;
	len = snprintf(th->name, sizeof(th->name), "proc%llu",
		       (unsigned long long)i);
	err = slot_modify(out, &th->exec, exec_quark(i), t,
			  sht_value_string(th->name, (uint32_t)len));
	if (err < 0)
		return err;
	return slot_modify(out, &th->status, status_quark(i), t,
			   sht_value_int32(1));
}

/* clear(Threads/<i>): children in creation order, then Threads/<i>,
 * which is null already (no change). */
static sht_err thread_clear(const struct churn_out *out,
			    struct churn_thread *th, sht_time t)
{
	sht_err err;

	err = slot_modify(out, &th->status, status_quark(th->id), t,
			  sht_value_null());
	if (err < 0)
		return err;
	return slot_modify(out, &th->exec, exec_quark(th->id), t,
			   sht_value_null());
}

/* Apply thread i's changes at t, in the order written. */
static sht_err thread_step(const struct churn_out *out,
			   struct churn_thread *th, uint64_t i, sht_time t)
{
	sht_time d = t - (sht_time)i * CHURN_BIRTH_STEP;
	sht_time k = d / CHURN_CHANGE_STEP;

	if (d < 0 || d > CHURN_LIFE || d % CHURN_CHANGE_STEP != 0)
		return SHT_OK;
	if (d == 0)
		return thread_birth(out, th, i, t);
	if (d == CHURN_LIFE)
		return thread_clear(out, th, t);
	return slot_modify(out, &th->status, status_quark(i), t,
			   sht_value_int32((int32_t)(1 + k % 3)));
}

/* Every ongoing interval at T, in quark order (see the file comment). */
static sht_err churn_close(const shtgen_churn *w, const struct churn_out *out)
{
	sht_time t_end = shtgen_churn_end(w);
	sht_value null = sht_value_null();
	sht_err err;

	err = emit_one(out, 0, 0, t_end, null);
	for (uint64_t i = 0; err >= 0 && i < w->threads; i++) {
		sht_time dead = (sht_time)i * CHURN_BIRTH_STEP + CHURN_LIFE;

		err = emit_one(out, (sht_quark)(1u + 3u * i), 0, t_end, null);
		if (err >= 0)
			err = emit_one(out, status_quark(i), dead, t_end, null);
		if (err >= 0)
			err = emit_one(out, exec_quark(i), dead, t_end, null);
	}
	return err < 0 ? err : SHT_OK;
}

static sht_err churn_invalid(const shtgen_churn *w, const char *what)
{
	return sht_error_set(SHT_ERR_INVALID, "Cannot %s churn: threads=%llu "
			  "(1 .. %lu)", what, (unsigned long long)w->threads,
			  (unsigned long)(SHT_QUARK_MAX / 3u));
}

/* The threads living at t (b <= t <= b + CHURN_LIFE): [*lo, *hi]. */
static void churn_living(const shtgen_churn *w, sht_time t, uint64_t *lo,
			 uint64_t *hi)
{
	sht_time lo_t = t - CHURN_LIFE;

	*lo = lo_t <= 0 ? 0 : (uint64_t)(lo_t + CHURN_BIRTH_STEP - 1) /
			      CHURN_BIRTH_STEP;
	*hi = (uint64_t)t / CHURN_BIRTH_STEP;
	if (*hi > w->threads - 1u)
		*hi = w->threads - 1u;
}

/* Time of the last change: the clear of the last thread. */
static sht_time churn_last(const shtgen_churn *w)
{
	return (sht_time)(w->threads - 1u) * CHURN_BIRTH_STEP + CHURN_LIFE;
}

sht_err shtgen_churn_run(const shtgen_churn *w, shtgen_emit_fn emit, void *ctx)
{
	struct churn_thread ring[CHURN_RING];
	struct churn_out out = { emit, ctx };
	sht_time t_last;

	if (!churn_valid(w))
		return churn_invalid(w, "generate");
	memset(ring, 0, sizeof(ring));
	t_last = churn_last(w);
	for (sht_time t = 0; t <= t_last; t += CHURN_CHANGE_STEP) {
		uint64_t lo, hi;

		churn_living(w, t, &lo, &hi);
		for (uint64_t i = lo; i <= hi; i++) {
			sht_err err = thread_step(&out, &ring[i % CHURN_RING],
						  i, t);
			if (err < 0)
				return err;
		}
	}
	return churn_close(w, &out);
}

/* ---- through the state system ------------------------------------------ */
/*
 * The same changes as BENCHMARKS.md states them, on a state system, in
 * the same order (time, then thread, then as written); the state system
 * applies the rules the generator above applies by hand.  The ring keeps
 * the quarks of the living threads.
 */

/* Quarks of one living thread. */
struct churn_live {
	sht_quark thread;         /* Threads/<i> */
	sht_quark status;         /* Threads/<i>/Status */
	sht_quark exec;           /* Threads/<i>/Exec_name */
};

/* At b: get-or-create Threads, Threads/<i>, Threads/<i>/Status,
 * Threads/<i>/Exec_name; Exec_name = "proc<i>"; Status = 1. */
static sht_err drive_birth(sht_state *ss, struct churn_live *th, uint64_t i,
			   sht_time t)
{
	char id[24], name[32];
	const char *path[3] = { "Threads", id, "Status" };
	sht_quark threads;
	sht_value v;
	sht_err err;
	int len;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)i);
	err = sht_state_quark(ss, SHT_QUARK_ROOT, path, 1, &threads);
	if (err == SHT_OK)
		err = sht_state_quark(ss, SHT_QUARK_ROOT, path, 2, &th->thread);
	if (err == SHT_OK)
		err = sht_state_quark(ss, SHT_QUARK_ROOT, path, 3, &th->status);
	path[2] = "Exec_name";
	if (err == SHT_OK)
		err = sht_state_quark(ss, SHT_QUARK_ROOT, path, 3, &th->exec);
	if (err < 0)
		return err;
	len = snprintf(name, sizeof(name), "proc%llu", (unsigned long long)i);
	v = sht_value_string(name, (uint32_t)len);
	err = sht_state_modify(ss, t, th->exec, &v);
	if (err < 0)
		return err;
	v = sht_value_int32(1);
	return sht_state_modify(ss, t, th->status, &v);
}

/* Thread i's changes at t, in the order written. */
static sht_err drive_step(sht_state *ss, struct churn_live *th, uint64_t i,
			  sht_time t)
{
	sht_time d = t - (sht_time)i * CHURN_BIRTH_STEP;
	sht_value v;

	if (d < 0 || d > CHURN_LIFE || d % CHURN_CHANGE_STEP != 0)
		return SHT_OK;
	if (d == 0)
		return drive_birth(ss, th, i, t);
	if (d == CHURN_LIFE)
		return sht_state_clear(ss, t, th->thread);
	v = sht_value_int32((int32_t)(1 + (d / CHURN_CHANGE_STEP) % 3));
	return sht_state_modify(ss, t, th->status, &v);
}

sht_err shtgen_churn_drive(const shtgen_churn *w, sht_state *ss)
{
	struct churn_live ring[CHURN_RING];
	sht_time t_last;
	sht_err err;

	if (!churn_valid(w))
		return churn_invalid(w, "drive");
	err = shtgen_drive_check(ss, "churn");
	if (err < 0)
		return err;
	memset(ring, 0, sizeof(ring));
	t_last = churn_last(w);
	for (sht_time t = 0; t <= t_last; t += CHURN_CHANGE_STEP) {
		uint64_t lo, hi;

		churn_living(w, t, &lo, &hi);
		for (uint64_t i = lo; i <= hi; i++) {
			err = drive_step(ss, &ring[i % CHURN_RING], i, t);
			if (err < 0)
				return err;
		}
	}
	return sht_state_finish(ss, shtgen_churn_end(w));
}

/* Status: null outside [b, b + 10000), else 1 + ((t - b) div 500) mod 3. */
static sht_value expect_status(sht_time b, sht_time t)
{
	if (t < b || t >= b + CHURN_LIFE)
		return sht_value_null();
	return sht_value_int32((int32_t)(1 + ((t - b) / CHURN_CHANGE_STEP) % 3));
}

sht_value shtgen_churn_expect(const shtgen_churn *w, sht_quark q, sht_time t,
			    char *buf)
{
	uint64_t i;
	sht_time b;
	int len;

	if (!churn_valid(w) || q == 0 || q > 3u * w->threads || t < 0 ||
	    t > shtgen_churn_end(w))
		return sht_value_null();
	i = (q - 1u) / 3u;
	b = (sht_time)i * CHURN_BIRTH_STEP;
	switch ((q - 1u) % 3u) {
	case 1:
		return expect_status(b, t);
	case 2:
		if (t < b || t >= b + CHURN_LIFE)
			return sht_value_null();
		len = snprintf(buf, 32, "proc%llu", (unsigned long long)i);
		return sht_value_string(buf, (uint32_t)len);
	default:
		return sht_value_null();    /* Threads/<i> */
	}
}
