/*
 * workload.h: the synthetic workloads of ../shared/BENCHMARKS.md, as
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
 * _drive performs its state changes, as BENCHMARKS.md defines them, on a
 * state system, which turns them into the same intervals.
 */
#ifndef SHT_WORKLOAD_H
#define SHT_WORKLOAD_H

#include <stdint.h>

#include "sht/sht.h"

/* Receives each interval; a negative return stops the generator, which
 * returns that code. */
typedef sht_err (*sht__emit_fn)(void *ctx, const sht_interval *iv);

typedef struct sht__staircase {
	uint64_t attributes;     /* A >= 1 */
	uint32_t intervals;      /* I >= 1, default 20 */
	sht_time step;           /* D >= 1, default 1000 */
} sht__staircase;

typedef struct sht__churn {
	uint64_t threads;        /* N >= 1 */
} sht__churn;

/* History bounds and interval count of a workload. */
sht_time sht__staircase_end(const sht__staircase *w);
uint64_t sht__staircase_count(const sht__staircase *w);
sht_time sht__churn_end(const sht__churn *w);
uint64_t sht__churn_quarks(const sht__churn *w);
uint64_t sht__churn_count(const sht__churn *w);

/* Generate the intervals, in builder order, through emit. */
sht_err sht__staircase_run(const sht__staircase *w, sht__emit_fn emit,
			   void *ctx);
sht_err sht__churn_run(const sht__churn *w, sht__emit_fn emit, void *ctx);

/*
 * Perform the workload's state changes on ss, then finish it at the
 * workload's end.  ss must be new (no attribute yet), created by the
 * caller with start time 0 and any backend; the attributes get the
 * quarks listed above.  On failure the error of the state system (or
 * SHT_ERR_INVALID for a bad workload or a used ss) is returned with its
 * message set; ss is then unfinished (close it).
 */
sht_err sht__staircase_drive(const sht__staircase *w, sht_state *ss);
sht_err sht__churn_drive(const sht__churn *w, sht_state *ss);
/* Shared by the drivers: SHT_ERR_INVALID (message naming what) unless ss
 * has no attribute and starts at 0. */
sht_err sht__drive_check(sht_state *ss, const char *what);

/* The expected value at (t, q), straight from the workload's definition
 * (the oracle for tests and benchmark answer checks).  Strings point to
 * buf (>= 32 bytes). */
sht_value sht__staircase_expect(const sht__staircase *w, sht_quark q,
				sht_time t);
sht_value sht__churn_expect(const sht__churn *w, sht_quark q, sht_time t,
			    char *buf);

#endif /* SHT_WORKLOAD_H */
