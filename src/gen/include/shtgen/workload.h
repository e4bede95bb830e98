/*
 * workload.h: the synthetic workloads of docs/GENERATOR.md ("Workloads"), as
 * streams of intervals in non-decreasing end time (the order a builder
 * takes).  Internal to the project (CLI, tests, benchmarks).
 *
 * staircase(A, I, D): A attributes, quark a = attribute "a"; for
 *   j = 0 .. A*I-1: t = j*D, a = j mod A, k = j div A, modify(t, a, int32 k);
 *   history [0, A*I*D].  A*(I+1)-1 intervals.
 * churn(N): thread i born at b = 1000 i; quarks: Threads = 0,
 *   Threads/<i> = 1+3i, Threads/<i>/Status = 2+3i,
 *   Threads/<i>/Exec_name = 3+3i; Exec_name = "proc<i>" on [b, b+9999];
 *   Status = int32 1+(k mod 3) on [b+500k, b+500k+499], k = 0..19;
 *   null elsewhere; history [0, N*1000 + 10000].  26N-1 intervals.
 *
 * Each workload exists in two forms: _run generates its intervals
 * directly (no state system: the store benchmark, `sht gen --dump`);
 * _drive performs its state changes, as GENERATOR.md defines them, on a
 * state system, which turns them into the same intervals.
 */
#ifndef SHT_WORKLOAD_H
#define SHT_WORKLOAD_H

#include <stdint.h>

#include "sht/sht.h"
#include "sht/source.h"

/* Receives each interval; a negative return stops the generator, which
 * returns that code. */
typedef sht_err (*shtgen_emit_fn)(void *ctx, const sht_interval *iv);

typedef struct shtgen_staircase {
	uint64_t attributes;     /* A >= 1 */
	uint32_t intervals;      /* I >= 1, default 20 */
	sht_time step;           /* D >= 1, default 1000 */
} shtgen_staircase;

typedef struct shtgen_churn {
	uint64_t threads;        /* N >= 1 */
} shtgen_churn;

/* History bounds and interval count of a workload. */
sht_time shtgen_staircase_end(const shtgen_staircase *w);
uint64_t shtgen_staircase_count(const shtgen_staircase *w);
sht_time shtgen_churn_end(const shtgen_churn *w);
uint64_t shtgen_churn_quarks(const shtgen_churn *w);
uint64_t shtgen_churn_count(const shtgen_churn *w);

/* Generate the intervals, in builder order, through emit. */
sht_err shtgen_staircase_run(const shtgen_staircase *w, shtgen_emit_fn emit,
			   void *ctx);
sht_err shtgen_churn_run(const shtgen_churn *w, shtgen_emit_fn emit, void *ctx);

/*
 * Perform the workload's state changes on ss, then finish it at the
 * workload's end.  ss must be new (no attribute yet), created by the
 * caller with start time 0 and any backend; the attributes get the
 * quarks listed above.  On failure the error of the state system (or
 * SHT_ERR_INVALID for a bad workload or a used ss) is returned with its
 * message set; ss is then unfinished (close it).
 */
sht_err shtgen_staircase_drive(const shtgen_staircase *w, sht_state *ss);
/* Create "0" .. "A-1" at the root of an empty state system, in order, so
 * that quark = index (SHT_ERR_INVALID if the numbering differs). */
sht_err shtgen_staircase_attrs(const shtgen_staircase *w, sht_state *ss);
sht_err shtgen_churn_drive(const shtgen_churn *w, sht_state *ss);
/* Shared by the drivers: SHT_ERR_INVALID (message naming what) unless ss
 * has no attribute and starts at 0. */
sht_err shtgen_drive_check(sht_state *ss, const char *what);

/* The expected value at (t, q), straight from the workload's definition
 * (the oracle for tests and benchmark answer checks).  Strings point to
 * buf (>= 32 bytes). */
sht_value shtgen_staircase_expect(const shtgen_staircase *w, sht_quark q,
				sht_time t);
sht_value shtgen_churn_expect(const shtgen_churn *w, sht_quark q, sht_time t,
			    char *buf);

/* ---- as event streams, for providers (events.c) ------------------------- */
/*
 * Each workload also exists as a source of events (sht/source.h) plus a
 * provider that turns each event into the workload's state changes:
 * running the provider over every event of the source, in order, on a
 * new state system that starts at 0 performs exactly the changes of
 * shtgen_*_drive, in the same order (finish at shtgen_*_end is the caller's).
 *
 * Positions are event indexes 0, 1, 2, ...: seek(p) makes event p the
 * next one, in O(1) (staircase) or O(log N) (churn); seek(p >= count)
 * makes next return SHT_END.  Every event has cpu = -1; its data points
 * to the struct below (owned by the source, valid until its next call).
 *
 * staircase: one event "staircase_modify" per j = 0 .. A*I-1:
 *   ts = j*D, data = { attribute = j mod A, value = j div A }; the
 *   provider does modify(ts, attribute "<a>", int32 value).  On a state
 *   system with no attribute it first creates "0" .. "A-1" in order
 *   (quark = index, as the driver); otherwise it looks "<a>" up by name
 *   (get-or-create), so a replay may start at any event.
 *
 * churn: one event per (time slot, thread) step, in the driver's order
 *   (time, then lower thread first): thread i has 21 events, at
 *   ts = 1000 i + 500 k for step k = 0 .. 20:
 *     k = 0       "thread_birth":  get-or-create Threads, Threads/<i>,
 *                 Threads/<i>/Status, Threads/<i>/Exec_name (this order),
 *                 Exec_name = "proc<i>", then Status = int32 1;
 *     k = 1 .. 19 "thread_status": Status = int32 1 + k mod 3;
 *     k = 20      "thread_exit":   clear(Threads/<i>).
 *   Every event get-or-creates the four attributes of its thread first,
 *   in birth order, so a replay may start at any event.
 *
 * The providers' ctx points at the caller's workload struct (not a
 * copy): keep it alive and unchanged while the provider is in use.
 */

typedef struct shtgen_staircase_event {
	uint64_t attribute;      /* a = j mod A: attribute "<a>" */
	int32_t value;           /* k = j div A: the int32 set */
} shtgen_staircase_event;

typedef enum shtgen_churn_kind {
	SHTGEN_CHURN_BIRTH = 0,    /* "thread_birth" */
	SHTGEN_CHURN_STATUS = 1,   /* "thread_status" */
	SHTGEN_CHURN_EXIT = 2,     /* "thread_exit" */
} shtgen_churn_kind;

typedef struct shtgen_churn_event {
	shtgen_churn_kind kind;
	uint64_t thread;         /* i */
	uint32_t step;           /* k = 0 .. 20: ts = 1000 i + 500 k */
	int32_t status;          /* Status set (1 + k mod 3); 0 for exit */
} shtgen_churn_event;

/* Number of events (0 for an invalid workload) and the time of the last
 * one (the history still ends at shtgen_*_end). */
uint64_t shtgen_staircase_events(const shtgen_staircase *w);
uint64_t shtgen_churn_events(const shtgen_churn *w);
sht_time shtgen_staircase_last_time(const shtgen_staircase *w);
sht_time shtgen_churn_last_time(const shtgen_churn *w);

/* A source over the workload's events, positioned at event 0 (it keeps a
 * copy of w).  SHT_ERR_INVALID for a bad workload, SHT_ERR_NOMEM.  Free
 * with shtgen_workload_source_free (NULL-safe, zeroes *s). */
sht_err shtgen_staircase_source(const shtgen_staircase *w, sht_source *out);
sht_err shtgen_churn_source(const shtgen_churn *w, sht_source *out);
void shtgen_workload_source_free(sht_source *s);

/* The provider, id "staircase" / "churn", version 1; ctx = w (kept alive
 * by the caller).  Its handler returns the state system's errors, or
 * SHT_ERR_INVALID for an event without data or outside the workload. */
void shtgen_staircase_provider(const shtgen_staircase *w, sht_provider *out);
void shtgen_churn_provider(const shtgen_churn *w, sht_provider *out);

/* ---- either workload, by kind (CLI, benchmarks, tests) -------------------- */

typedef enum shtgen_wl_kind {
	SHTGEN_WL_STAIRCASE = 0,
	SHTGEN_WL_CHURN = 1,
} shtgen_wl_kind;

/* A workload of either kind: the parameters of the one `kind` names. */
typedef struct shtgen_workload {
	shtgen_wl_kind kind;
	shtgen_staircase st;
	shtgen_churn ch;
} shtgen_workload;

/* "staircase" or "churn" (also the provider identity). */
const char *shtgen_wl_name(const shtgen_workload *w);
/* What the workload's attributes hold (model.h; static). */
const sht_model *shtgen_wl_model(const shtgen_workload *w);
sht_time shtgen_wl_end(const shtgen_workload *w);
uint64_t shtgen_wl_intervals(const shtgen_workload *w);
uint64_t shtgen_wl_quarks(const shtgen_workload *w);
uint64_t shtgen_wl_events(const shtgen_workload *w);
sht_err shtgen_wl_run(const shtgen_workload *w, shtgen_emit_fn emit, void *ctx);
sht_err shtgen_wl_drive(const shtgen_workload *w, sht_state *ss);
sht_err shtgen_wl_source(const shtgen_workload *w, sht_source *out);
/* ctx points at w, which the caller keeps alive and unchanged. */
void shtgen_wl_provider(const shtgen_workload *w, sht_provider *out);
/* buf: >= 32 bytes, for churn's strings. */
sht_value shtgen_wl_expect(const shtgen_workload *w, sht_quark q, sht_time t,
			 char *buf);

#endif /* SHT_WORKLOAD_H */
