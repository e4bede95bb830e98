/*
 * events.c: the staircase and churn workloads of docs/GENERATOR.md
 * as event sources (sht/source.h) and the providers that turn their events
 * into the state changes of shtgen_staircase_drive / shtgen_churn_drive, in
 * the same order.  workload.h defines the events.
 *
 * Positions are event indexes.  Both workloads are closed-form, so an
 * event is computed from its index:
 *
 *   staircase: event j is (t = j*D, a = j mod A, k = j div A).
 *
 *   churn: time advances in slots of 500 ns; thread i has one event at
 *   each slot s = 2i .. 2i + 20 (step k = s - 2i), and at one slot the
 *   threads come lowest first, as the driver applies them.  The events
 *   before slot s number E(s) = sum_i min(21, max(0, s - 2i)), which has a
 *   closed form (churn_before); seek(p) finds the slot by a binary search
 *   on E, and the thread as lo(s) + p - E(s).  next() walks (slot,
 *   thread) without searching.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gen/gen-int.h"
#include <shtgen/workload.h>

/* The churn constants of BENCHMARKS.md (churn.c keeps its own copy). */
enum {
	EV_BIRTH_STEP = 1000,     /* b = 1000 i */
	EV_SLOT = 500,            /* every change falls on a multiple of 500 */
	EV_SLOTS_APART = EV_BIRTH_STEP / EV_SLOT,  /* births: 2 slots apart */
	EV_STEPS = 21,            /* steps k = 0 (birth) .. 20 (exit) */
	EV_LAST_STEP = EV_STEPS - 1,
};

static const char STAIRCASE_NAME[] = "staircase_modify";
static const char BIRTH_NAME[] = "thread_birth";
static const char STATUS_NAME[] = "thread_status";
static const char EXIT_NAME[] = "thread_exit";

/* Position of a source at or past its end. */
static uint64_t clamp_pos(uint64_t pos, uint64_t count)
{
	return pos < count ? pos : count;
}

/* Drop the const of a workload for a void * slot that is only read
 * through (ctx of a provider); uintptr_t keeps -Wcast-qual quiet. */
static void *unconst(const void *p)
{
	return (void *)(uintptr_t)p;
}

/* ==== staircase =========================================================== */

uint64_t shtgen_staircase_events(const shtgen_staircase *w)
{
	if (shtgen_staircase_end(w) <= 0)     /* 0 for an invalid workload */
		return 0;
	return w->attributes * w->intervals;
}

sht_time shtgen_staircase_last_time(const shtgen_staircase *w)
{
	uint64_t n = shtgen_staircase_events(w);

	return n ? (sht_time)(n - 1u) * w->step : 0;
}

/* Source state: the workload, the next index, the current event's data. */
struct staircase_src {
	shtgen_staircase w;
	uint64_t count;           /* A*I */
	uint64_t pos;             /* next event, <= count */
	shtgen_staircase_event data;
};

static sht_err staircase_next(void *src, sht_event *ev)
{
	struct staircase_src *s = src;
	uint64_t j = s->pos;

	if (j >= s->count)
		return SHT_END;
	s->data.attribute = j % s->w.attributes;
	s->data.value = (int32_t)(j / s->w.attributes);
	ev->ts = (sht_time)j * s->w.step;
	ev->pos = j;
	ev->name = STAIRCASE_NAME;
	ev->cpu = -1;
	ev->field = NULL;
	ev->data = &s->data;
	s->pos = j + 1u;
	return SHT_OK;
}

static sht_err staircase_seek(void *src, uint64_t pos)
{
	struct staircase_src *s = src;

	s->pos = clamp_pos(pos, s->count);
	return SHT_OK;
}

static const sht_source_ops staircase_ops = { staircase_next, staircase_seek, NULL, NULL, NULL };

sht_err shtgen_staircase_source(const shtgen_staircase *w, sht_source *out)
{
	struct staircase_src *s;

	if (shtgen_staircase_end(w) <= 0)
		return sht_error_set(SHT_ERR_INVALID, "Cannot make a staircase "
				  "source: attributes=%llu intervals=%lu "
				  "step=%lld (each >= 1, A*I*D within "
				  "sht_time)",
				  (unsigned long long)w->attributes,
				  (unsigned long)w->intervals,
				  (long long)w->step);
	s = calloc(1, sizeof(*s));
	if (!s)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot make a staircase "
				  "source: out of memory");
	s->w = *w;
	s->count = shtgen_staircase_events(w);
	out->ops = &staircase_ops;
	out->src = s;
	return SHT_OK;
}

void shtgen_workload_source_free(sht_source *s)
{
	if (!s)
		return;
	free(s->src);
	s->src = NULL;
	s->ops = NULL;
}

/* Quark of attribute "<a>": get-or-create by name, after creating them
 * all on an empty state system. */
static sht_err staircase_quark(const shtgen_staircase *w, sht_state *ss,
			       uint64_t a, sht_quark *q)
{
	char name[24];
	const char *elem = name;

	if (sht_state_attr_count(ss) == 0) {
		sht_err err = shtgen_staircase_attrs(w, ss);

		if (err < 0)
			return err;
	}
	snprintf(name, sizeof(name), "%llu", (unsigned long long)a);
	return sht_state_quark(ss, SHT_QUARK_ROOT, &elem, 1, q);
}

/* One "staircase_modify": modify(ts, "<a>", int32 k). */
static sht_err staircase_handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	const shtgen_staircase *w = ctx;
	const shtgen_staircase_event *d = ev->data;
	sht_value v;
	sht_quark q;
	sht_err err;

	if (!d || d->attribute >= w->attributes)
		return sht_error_set(SHT_ERR_INVALID, "Cannot handle a staircase "
				  "event at %lld: no data or attribute out of "
				  "range", (long long)ev->ts);
	err = staircase_quark(w, ss, d->attribute, &q);
	if (err < 0)
		return err;
	v = sht_value_int32(d->value);
	return sht_state_modify(ss, ev->ts, q, &v);
}

void shtgen_staircase_provider(const shtgen_staircase *w, sht_provider *out)
{
	out->id = "staircase";
	out->version = 1;
	out->handle = staircase_handle;
	out->ctx = unconst(w);
	out->model = NULL;
}

/* ==== churn =============================================================== */

/* Valid churn workloads are those with an end time (churn.c's rule). */
static int churn_ok(const shtgen_churn *w)
{
	return shtgen_churn_end(w) > 0;
}

uint64_t shtgen_churn_events(const shtgen_churn *w)
{
	return churn_ok(w) ? EV_STEPS * w->threads : 0;
}

/* The clear of the last thread. */
sht_time shtgen_churn_last_time(const shtgen_churn *w)
{
	if (!churn_ok(w))
		return 0;
	return (sht_time)(w->threads - 1u) * EV_BIRTH_STEP +
	       (sht_time)EV_LAST_STEP * EV_SLOT;
}

/* Lowest and highest thread with an event at slot s: thread i has events
 * at slots 2i .. 2i + 20.  Empty (lo > hi) only past the last slot. */
static uint64_t churn_slot_lo(uint64_t s)
{
	if (s <= EV_LAST_STEP)
		return 0;
	return (s - EV_LAST_STEP + EV_SLOTS_APART - 1u) / EV_SLOTS_APART;
}

static uint64_t churn_slot_hi(uint64_t n, uint64_t s)
{
	uint64_t hi = s / EV_SLOTS_APART;

	return hi < n - 1u ? hi : n - 1u;
}

/*
 * E(s): events at slots < s, sum over i < n of min(21, max(0, s - 2i)).
 * Threads i < full are done (s - 2i >= 21: 21 each); threads full .. last
 * (2i < s) have s - 2i each, an arithmetic series.
 */
static uint64_t churn_before(uint64_t n, uint64_t s)
{
	uint64_t full = 0, last, cnt;

	if (s >= EV_STEPS) {
		full = (s - EV_STEPS) / EV_SLOTS_APART + 1u;
		if (full > n)
			full = n;
	}
	if (s == 0)
		return 0;
	last = (s - 1u) / EV_SLOTS_APART;
	if (last > n - 1u)
		last = n - 1u;
	if (last < full)
		return EV_STEPS * full;
	cnt = last - full + 1u;
	return EV_STEPS * full + cnt * s - (full + last) * cnt;
}

/* Source state: the workload, the next event as (pos, slot, thread). */
struct churn_src {
	uint64_t n;               /* threads */
	uint64_t count;           /* 21 n */
	uint64_t pos;             /* next event, <= count */
	uint64_t slot;            /* its slot (ts = 500 slot) */
	uint64_t thread;          /* its thread */
	shtgen_churn_event data;
};

/* Position the cursor at event pos < count: the slot s with
 * E(s) <= pos < E(s + 1), by bisection; then the thread. */
static void churn_locate(struct churn_src *s, uint64_t pos)
{
	uint64_t lo = 0;
	uint64_t hi = EV_SLOTS_APART * (s->n - 1u) + EV_STEPS; /* E = count */

	while (hi - lo > 1u) {    /* E(lo) <= pos < E(hi) */
		uint64_t mid = lo + (hi - lo) / 2u;

		if (churn_before(s->n, mid) <= pos)
			lo = mid;
		else
			hi = mid;
	}
	s->pos = pos;
	s->slot = lo;
	s->thread = churn_slot_lo(lo) + (pos - churn_before(s->n, lo));
}

/* Fill the event data of (slot, thread). */
static void churn_fill(struct churn_src *s, sht_event *ev)
{
	uint32_t k = (uint32_t)(s->slot - EV_SLOTS_APART * s->thread);

	s->data.thread = s->thread;
	s->data.step = k;
	if (k == 0) {
		s->data.kind = SHTGEN_CHURN_BIRTH;
		ev->name = BIRTH_NAME;
	} else if (k == EV_LAST_STEP) {
		s->data.kind = SHTGEN_CHURN_EXIT;
		ev->name = EXIT_NAME;
	} else {
		s->data.kind = SHTGEN_CHURN_STATUS;
		ev->name = STATUS_NAME;
	}
	s->data.status = k == EV_LAST_STEP ? 0 : (int32_t)(1u + k % 3u);
	ev->ts = (sht_time)s->slot * EV_SLOT;
	ev->pos = s->pos;
	ev->cpu = -1;
	ev->field = NULL;
	ev->data = &s->data;
}

/* Move the cursor to the next event: next thread of the slot, or the
 * first thread of the next slot. */
static void churn_advance(struct churn_src *s)
{
	s->pos++;
	if (s->pos >= s->count)
		return;
	if (s->thread < churn_slot_hi(s->n, s->slot)) {
		s->thread++;
		return;
	}
	s->slot++;
	s->thread = churn_slot_lo(s->slot);
}

static sht_err churn_next(void *src, sht_event *ev)
{
	struct churn_src *s = src;

	if (s->pos >= s->count)
		return SHT_END;
	churn_fill(s, ev);
	churn_advance(s);
	return SHT_OK;
}

static sht_err churn_seek(void *src, uint64_t pos)
{
	struct churn_src *s = src;

	if (pos >= s->count)
		s->pos = s->count;
	else
		churn_locate(s, pos);
	return SHT_OK;
}

static const sht_source_ops churn_ops = { churn_next, churn_seek, NULL, NULL, NULL };

sht_err shtgen_churn_source(const shtgen_churn *w, sht_source *out)
{
	struct churn_src *s;

	if (!churn_ok(w))
		return sht_error_set(SHT_ERR_INVALID, "Cannot make a churn "
				  "source: threads=%llu (1 .. %lu)",
				  (unsigned long long)w->threads,
				  (unsigned long)(SHT_QUARK_MAX / 3u));
	s = calloc(1, sizeof(*s));
	if (!s)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot make a churn source: "
				  "out of memory");
	s->n = w->threads;
	s->count = shtgen_churn_events(w);
	churn_locate(s, 0);
	out->ops = &churn_ops;
	out->src = s;
	return SHT_OK;
}

/* Quarks of one thread's attributes. */
struct churn_quarks {
	sht_quark thread;         /* Threads/<i> */
	sht_quark status;         /* Threads/<i>/Status */
	sht_quark exec;           /* Threads/<i>/Exec_name */
};

/* Get-or-create Threads, Threads/<i>, Threads/<i>/Status and
 * Threads/<i>/Exec_name, in this order (the driver's at birth). */
static sht_err churn_thread_quarks(sht_state *ss, uint64_t i,
				   struct churn_quarks *q)
{
	char id[24];
	const char *elem = "Threads";
	sht_quark threads;
	sht_err err;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)i);
	err = sht_state_quark(ss, SHT_QUARK_ROOT, &elem, 1, &threads);
	elem = id;
	if (err == SHT_OK)
		err = sht_state_quark(ss, threads, &elem, 1, &q->thread);
	elem = "Status";
	if (err == SHT_OK)
		err = sht_state_quark(ss, q->thread, &elem, 1, &q->status);
	elem = "Exec_name";
	if (err == SHT_OK)
		err = sht_state_quark(ss, q->thread, &elem, 1, &q->exec);
	return err;
}

/* Birth: Exec_name = "proc<i>", then Status = 1. */
static sht_err churn_birth(sht_state *ss, const struct churn_quarks *q,
			   const shtgen_churn_event *d, sht_time t)
{
	char name[32];
	sht_value v;
	sht_err err;
	int len;

	len = snprintf(name, sizeof(name), "proc%llu",
		       (unsigned long long)d->thread);
	v = sht_value_string(name, (uint32_t)len);
	err = sht_state_modify(ss, t, q->exec, &v);
	if (err < 0)
		return err;
	v = sht_value_int32(d->status);
	return sht_state_modify(ss, t, q->status, &v);
}

/* One churn event: the changes of one thread at one slot. */
static sht_err churn_handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	const shtgen_churn *w = ctx;
	const shtgen_churn_event *d = ev->data;
	struct churn_quarks q;
	sht_value v;
	sht_err err;

	if (!d || d->thread >= w->threads || d->kind > SHTGEN_CHURN_EXIT)
		return sht_error_set(SHT_ERR_INVALID, "Cannot handle a churn "
				  "event at %lld: no data or thread out of "
				  "range",
				  (long long)ev->ts);
	err = churn_thread_quarks(ss, d->thread, &q);
	if (err < 0)
		return err;
	switch (d->kind) {
	case SHTGEN_CHURN_BIRTH:
		return churn_birth(ss, &q, d, ev->ts);
	case SHTGEN_CHURN_EXIT:
		return sht_state_clear(ss, ev->ts, q.thread);
	default:
		v = sht_value_int32(d->status);
		return sht_state_modify(ss, ev->ts, q.status, &v);
	}
}

void shtgen_churn_provider(const shtgen_churn *w, sht_provider *out)
{
	out->id = "churn";
	out->version = 1;
	out->handle = churn_handle;
	out->ctx = unconst(w);
	out->model = NULL;
}
