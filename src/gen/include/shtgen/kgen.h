/*
 * kgen.h: a generator of synthetic Linux kernel traces, as LTTng 2.12's
 * lttng-modules would record them (event names and payloads of the
 * "2.7 and later" layout of docs/KERNEL-MODEL.md §5), of any size.
 * Internal to the project (CLI, tests, benchmarks).
 *
 * The generator simulates a small kernel: CPUs with a run queue each,
 * threads that belong to processes, fork (clone), run, make system calls,
 * block inside some of them, are woken from another CPU, get preempted,
 * migrate, exit and are freed; hard IRQs that raise soft IRQs, local
 * timer interrupts, frequency changes, and an LTTng statedump of the
 * threads alive at the start.  Every event it emits is consistent with
 * the simulated state (a sched_switch's prev_tid is the thread that was
 * running on that CPU, a syscall exit follows its entry on the same
 * thread, a woken thread was blocked, ...), so the kernel analysis gives
 * a meaningful history.  The live thread count hovers around `threads`.
 *
 * Events come in strictly increasing time (each one 1 .. 2*mean_gap - 1
 * ns after the previous one, over all CPUs), from `start` on.  The same
 * parameters and seed always give the same events.
 *
 * Outputs: a source (sht/source.h) delivering the events with named
 * fields (kgen-out.c), a CTF trace directory that babeltrace2 reads
 * (through src/gen/include/shtgen/ctfw.h), or a VSTF file (sht/vstf.h).
 */
#ifndef SHT_KGEN_H
#define SHT_KGEN_H

#include <stddef.h>
#include <stdint.h>

#include "sht/sht.h"
#include "sht/source.h"
#include "sht/vstf.h"
#include <shtgen/ctfw.h>

typedef struct shtgen_kgen_params {
	uint64_t events;          /* events to emit (statedump included) */
	uint32_t cpus;            /* 1 .. 1024; default 4 */
	uint32_t threads;         /* live threads aimed at; default 200 */
	uint64_t seed;            /* default 1 */
	sht_time start;           /* first event time (ns from the origin) */
	uint32_t mean_gap;        /* mean ns between events; default 400 */
} shtgen_kgen_params;

/* Defaults: 1 000 000 events, 4 CPUs, 200 threads, seed 1, start at
 * 2026-01-01T00:00:00Z, 400 ns between events on average. */
void shtgen_kgen_params_init(shtgen_kgen_params *p);

/* SHT_OK or SHT_ERR_INVALID with a message naming the bad parameter. */
sht_err shtgen_kgen_params_check(const shtgen_kgen_params *p);

/* ---- event classes -------------------------------------------------------- */

#define SHTGEN_KGEN_MAX_FIELDS 12

/* One event class: its name and payload fields (ctfw types). */
typedef struct shtgen_kgen_class {
	const char *name;
	uint32_t nfields;
	shtgen_ctfw_field fields[SHTGEN_KGEN_MAX_FIELDS];
} shtgen_kgen_class;

/* The classes the generator can emit, in id order (ids are indexes). */
const shtgen_kgen_class *shtgen_kgen_classes(uint32_t *count);

/* The trace environment of a generated trace, as LTTng writes it:
 * name / string value pairs and name / integer pairs. */
typedef struct shtgen_kgen_env {
	const char *name;
	const char *str;          /* NULL for an integer entry */
	int64_t num;
} shtgen_kgen_env;
const shtgen_kgen_env *shtgen_kgen_environment(uint32_t *count);

/* ---- the generator -------------------------------------------------------- */

typedef struct shtgen_kgen shtgen_kgen;

/* One generated event: valid until the next call on the generator. */
typedef struct shtgen_kgen_event {
	uint32_t cls;             /* index in shtgen_kgen_classes() */
	uint32_t cpu;
	sht_time ts;
	uint64_t index;           /* 0, 1, 2, ... */
	const sht_field *values;  /* one per field of the class, in order */
} shtgen_kgen_event;

/* Counters of what was simulated (for summaries and tests). */
typedef struct shtgen_kgen_stats {
	uint64_t events;
	uint64_t forks;
	uint64_t exits;
	uint64_t switches;
	uint64_t syscalls;
	uint64_t irqs;
	uint64_t softirqs;
	uint64_t max_live;        /* most threads alive at once */
	uint64_t threads_created; /* statedump threads + forks */
} shtgen_kgen_stats;

sht_err shtgen_kgen_create(const shtgen_kgen_params *p, shtgen_kgen **out);
void shtgen_kgen_destroy(shtgen_kgen *g);

/* The next event into *ev: SHT_OK, or SHT_END after p->events events. */
sht_err shtgen_kgen_next(shtgen_kgen *g, shtgen_kgen_event *ev);
void shtgen_kgen_stats_get(const shtgen_kgen *g, shtgen_kgen_stats *out);

/* ---- outputs (kgen-out.c) ------------------------------------------------- */

/*
 * A source over a new generator for p: named fields (ev->field), cpu,
 * ts, pos = event index; seek(pos) restarts the generator and skips to
 * pos (cost: generating pos events; they are cheap).  Free with
 * shtgen_kgen_source_free.
 */
sht_err shtgen_kgen_source(const shtgen_kgen_params *p, sht_source *out);
void shtgen_kgen_source_free(sht_source *src);

/* What writing a generated trace did. */
typedef struct shtgen_kgen_write_stats {
	shtgen_kgen_stats gen;
	uint64_t bytes;           /* on disk */
	double seconds;
} shtgen_kgen_write_stats;

/* Progress callback: called every 2^16 events with the count so far;
 * may be NULL. */
typedef void (*shtgen_kgen_progress_fn)(void *ctx, uint64_t events);

/* Generate p's trace into the CTF directory dir (which must not exist) /
 * the VSTF file path.  On failure nothing is left behind. */
sht_err shtgen_kgen_write_ctf(const shtgen_kgen_params *p, const char *dir,
			    shtgen_kgen_progress_fn progress, void *pctx,
			    shtgen_kgen_write_stats *stats);
sht_err shtgen_kgen_write_vstf(const shtgen_kgen_params *p, const char *path,
			     shtgen_kgen_progress_fn progress, void *pctx,
			     shtgen_kgen_write_stats *stats);

/* The event count that makes p's trace about `bytes` long, in CTF or
 * (vstf != 0) VSTF, measured on a sample written to $TMPDIR (or /tmp). */
uint64_t shtgen_kgen_events_for_size(const shtgen_kgen_params *p, uint64_t bytes,
				   int vstf);

/* Remove path and, if it is a directory, everything below it (links are
 * removed, not followed): what a failed or temporary CTF output leaves.
 * 0, or -1 if something could not be removed (or path did not exist). */
int shtgen_rm_tree(const char *path);

#endif /* SHT_KGEN_H */
