/*
 * analysis.h: state providers shipped with libsht.
 *
 * The Linux kernel analysis reproduces Trace Compass's "Linux Kernel"
 * analysis (docs/KERNEL-MODEL.md, provider version 31): from the
 * events of an LTTng kernel trace it builds the attribute tree CPUs/...,
 * Threads/..., IRQs/..., Soft_IRQs/... with the same quark order and the
 * same values.
 *
 *   sht_kernel *k;
 *   sht_provider p;
 *   sht_kernel_create(sht_kernel_layout_from_env(name, major, minor), &k);
 *   sht_kernel_provider(k, &p);
 *   sht_state_run(ss, &src, &p, NULL, NULL);
 *   sht_kernel_destroy(k);
 *
 * One sht_kernel serves one history at a time (it may serve the replays of
 * a partial history built with it); it is not thread-safe.
 */
#ifndef SHT_ANALYSIS_H
#define SHT_ANALYSIS_H

#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Provider identity stored in histories: Trace Compass's analysis id and
 * its provider version (a history of another version is rebuilt). */
#define SHT_KERNEL_PROVIDER_ID "org.eclipse.tracecompass.analysis.os.linux.kernel"
#define SHT_KERNEL_PROVIDER_VERSION 31u

/*
 * Event names of an LTTng version (docs/KERNEL-MODEL.md §5).  The 2.0 layout
 * (base) also serves 2.1-2.5 and every unknown tracer; 2.7 serves 2.7,
 * 2.8 and 2.9, whose names are the same.
 *
 * SHT_KERNEL_LAYOUT_AUTO, for sources without trace metadata, decides from
 * the names themselves: it keeps the set of layouts consistent with the
 * layout-specific names seen so far (initially all three); an event whose
 * name only some layouts know (sys_*, exit_syscall*, syscall_entry_*,
 * softirq_*, irq_softirq_*, x86_irq_vectors_*) is handled if a layout of
 * the set knows it, and the set shrinks to those layouts.  On a trace
 * written by one LTTng version this handles every event as that version's
 * layout would.  It differs from Trace Compass only where the metadata
 * contradicts the names (e.g. 2.6 names in a trace whose env is missing:
 * Trace Compass then uses the base layout and ignores them), so a reader
 * with metadata should pass sht_kernel_layout_from_env().
 */
typedef enum sht_kernel_layout {
	SHT_KERNEL_LAYOUT_AUTO = 0,
	SHT_KERNEL_LAYOUT_LTTNG_2_0 = 1,  /* sys_*, exit_syscall, softirq_* */
	SHT_KERNEL_LAYOUT_LTTNG_2_6 = 2,  /* syscall_entry_*, softirq_* */
	SHT_KERNEL_LAYOUT_LTTNG_2_7 = 3,  /* syscall_entry_*, irq_softirq_*,
	                                     x86_irq_vectors_* */
} sht_kernel_layout;

/*
 * The layout Trace Compass picks from the metadata env (§5): tracer_name
 * "lttng-modules" with tracer_major >= 2 selects by tracer_minor (>= 7:
 * 2.7, 6: 2.6, else 2.0); anything else, a NULL or non-numeric value
 * included, gives 2.0.  Values may carry surrounding double quotes.
 */
SHT_API sht_kernel_layout sht_kernel_layout_from_env(const char *tracer_name,
						     const char *tracer_major,
						     const char *tracer_minor);

/* What the analysis did with the events it saw. */
typedef struct sht_kernel_stats {
	uint64_t events;     /* events given to the handler */
	uint64_t handled;    /* of those, events of a handled type */
	uint64_t stopped;    /* handled events a handler stopped on as the model
	                        says: unknown CPU, tid 0 without CPU, a missing
	                        field the model allows, an IRQ exit with no
	                        active IRQ */
	uint64_t malformed;  /* handled events skipped because a field the
	                        model requires is missing or not of the
	                        expected type (Trace Compass would abort):
	                        the handler returned SHT_ERR_NOATTR or
	                        SHT_ERR_TYPE, which sht_state_run skips */
} sht_kernel_stats;

typedef struct sht_kernel sht_kernel;

/* A kernel analysis for the given layout.  @return SHT_OK,
 * SHT_ERR_INVALID (unknown layout), SHT_ERR_NOMEM. */
SHT_API sht_err sht_kernel_create(sht_kernel_layout layout, sht_kernel **out);

/* NULL is a no-op.  Providers filled from k become invalid. */
SHT_API void sht_kernel_destroy(sht_kernel *k);

/* Fill *out with the provider (id, version, handler) running k. */
SHT_API void sht_kernel_provider(sht_kernel *k, sht_provider *out);

/* The layout in use: the one given, or for AUTO the one decided so far
 * (SHT_KERNEL_LAYOUT_AUTO while names leave several possible). */
SHT_API sht_kernel_layout sht_kernel_layout_in_use(const sht_kernel *k);

SHT_API void sht_kernel_stats_get(const sht_kernel *k, sht_kernel_stats *out);

/* ---- event statistics --------------------------------------------------- */
/*
 * The event statistics analysis counts events per event type, in total
 * and per CPU, over time: the thesis's canonical user of partial
 * histories (one state change per counter per event, which a partial
 * history stores compactly).  It follows Trace Compass's statistics
 * state system (TmfStateStatistics: "total", "event_types/<name>") and
 * adds per-CPU counters; its layout is not Trace Compass's, hence its own
 * provider id, SHT_EVSTATS_PROVIDER_ID ("event-statistics"), version 1.
 *
 * Attributes (every counter an int64):
 *
 *   total                          events
 *   event_types/<name>             events named <name>
 *   cpus/<cpu>/total               events on CPU <cpu> (decimal)
 *   cpus/<cpu>/event_types/<name>  events named <name> on CPU <cpu>
 *
 * <name> is the event name as one path element (a "/" in it does not
 * split it).  An event with an unknown CPU (cpu < 0) is counted in
 * total and event_types/<name> only; an event without a name (NULL) in
 * total and cpus/<cpu>/total only.
 *
 * Each event adds 1 to each of its counters at the event's timestamp,
 * in the order above: the value of a counter at t is the number of its
 * events with a timestamp <= t.  Several events at one timestamp give
 * one interval holding the final count (the state system keeps the last
 * change at a timestamp): the count after the burst, never the
 * intermediate ones.  A counter is null from the history start until its
 * first event (read it as 0), then holds 1, 2, ... up to the history end.
 *
 * Creation order: the first event of a history, named N on CPU c,
 * creates total, event_types, event_types/N, cpus, cpus/c, cpus/c/total,
 * cpus/c/event_types, cpus/c/event_types/N (quarks 0 to 7); later events
 * create the missing elements of their paths in the same order, parent
 * before child.
 *
 *   sht_evstats *s;
 *   sht_provider p;
 *   sht_evstats_create(&s);
 *   sht_evstats_provider(s, &p);
 *   sht_state_run(ss, &src, &p, NULL, NULL);
 *   sht_evstats_destroy(s);
 *
 * Quarks are cached between events (per event name, per CPU) while
 * sht_state_cacheable_count() allows it, so a counted event costs a few
 * increments.  One sht_evstats serves one history at a time (it may serve
 * the replays of a partial history built with it); not thread-safe.
 */

#define SHT_EVSTATS_PROVIDER_ID "event-statistics"
#define SHT_EVSTATS_PROVIDER_VERSION 1u

/* What the analysis saw. */
typedef struct sht_evstats_info {
	uint64_t events;       /* events given to the handler (replays of a
	                          partial history included) */
	uint64_t unknown_cpu;  /* of those, events with cpu < 0 */
	uint64_t unnamed;      /* of those, events with a NULL name */
	uint64_t names;        /* distinct event names seen */
} sht_evstats_info;

typedef struct sht_evstats sht_evstats;

/* An event statistics analysis.  @return SHT_OK, SHT_ERR_NOMEM. */
SHT_API sht_err sht_evstats_create(sht_evstats **out);

/* NULL is a no-op.  Providers filled from s become invalid. */
SHT_API void sht_evstats_destroy(sht_evstats *s);

/* Fill *out with the provider (id, version, handler) running s. */
SHT_API void sht_evstats_provider(sht_evstats *s, sht_provider *out);

SHT_API void sht_evstats_info_get(const sht_evstats *s, sht_evstats_info *out);

#ifdef __cplusplus
}
#endif

#endif /* SHT_ANALYSIS_H */
