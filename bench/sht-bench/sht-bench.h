/*
 * sht-bench.h: shared by the files of sht-bench (bench/sht-bench/):
 *
 *   main.c         the command line, the runs, the medians
 *   workload.c     the workloads and the check of every answer
 *   store.c        sht-bench store: the generator and build phases, a run
 *   store-query.c  sht-bench store: the query phase
 *   state.c        sht-bench state: the build phase, a run
 *   state-query.c  sht-bench state: the queries, of a file or in memory
 *
 * The design notes are main.c's.
 */
#ifndef SHT_BENCH_SHT_BENCH_H
#define SHT_BENCH_SHT_BENCH_H

#include <stdint.h>

#include "sht/sht.h"
#include <shtgen/workload.h>
#include "metrics.h"

/* ---- workloads (workload.c) ---------------------------------------------- */

/* The workload, and the bounds and quark count its checks use on every
 * query (computed once, through shtgen_wl_*). */
struct workload {
	shtgen_workload wl;
	sht_time start, end;
	uint64_t quarks;        /* quarks the workload uses: 0 .. quarks-1 */
};

/* Staircase: size attributes, intervals each; churn: size threads.  Dies
 * if the workload is empty. */
void wl_init(struct workload *w, shtgen_wl_kind kind, uint64_t size,
	     uint32_t intervals);

/* Check one answer of quark q at t: iv (NULL for no interval).  Returns
 * 0 if right; else 1, and prints the first few mismatches (counted in
 * *reported). */
int check_answer(const struct workload *w, sht_quark q, sht_time t,
		 const sht_interval *iv, uint64_t *reported);

/* State changes the drive makes: staircase A*I modifies; churn, per
 * thread, 2 modifies at birth, 19 Status modifies and 1 clear. */
uint64_t wl_changes(const struct workload *w);

/* Full name of quark q in the workload's attribute tree. */
void wl_path(const struct workload *w, sht_quark q, char *buf, size_t size);

/* A phase's failure: what, the error and the library's message, in ms. */
void fail(struct metrics *ms, const char *what, sht_err err);

const char *variant_name(sht_variant v);
const char *backend_name(sht_backend b);

/* ---- sht-bench store (store.c, store-query.c) ---------------------------- */

struct store_opts {
	struct workload w;
	uint64_t size;
	sht_builder_opts bo;
	uint32_t intervals;     /* staircase I */
	const char *dir;
	int keep;
	uint64_t queries;       /* single queries (warm) */
	uint64_t full_queries;  /* full queries (warm) */
	uint64_t cold_queries;  /* single queries (cold) */
	uint64_t cold_full_queries;
	uint64_t cold_batch;
	uint64_t q2d_quarks;
	uint64_t q2d_points;
	int q2d_first;          /* 1: the first quarks, 0: spread */
	int opens;
	uint64_t seed;
	int cold;
	int check;              /* run sht_reader_check too */
	int no_single, no_full, no_2d;  /* --skip: phases left out */
	int reuse;              /* --file: query an existing file */
	size_t cache_bytes;
	char path[4096];
};

/* Phases, each run by run_in_child with the struct store_opts. */
void phase_build(void *ctx, struct metrics *ms);
void phase_query(void *ctx, struct metrics *ms);

/* One whole run: generator, build, queries; its JSON line printed.
 * Returns the number of mismatches, or -1 if a phase failed. */
int store_run(struct store_opts *o, int run, struct metrics *out);

/* ---- sht-bench state (state.c, state-query.c) ---------------------------- */

/*
 * sht-bench state drives the workload's state changes through the state
 * system (sht_state_create with provider "staircase" or "churn", version 1;
 * shtgen_staircase_drive / shtgen_churn_drive, which end with sht_state_finish;
 * sht_state_close) instead of feeding the builder directly.  Phases, each
 * in a forked child (design note 1):
 *   store   (tree backend, unless --no-store) the store-only build of the
 *           same workload with the same tree options, as `sht-bench store`
 *           does it: the baseline of the state system's overhead;
 *   build   create, drive, close; with the memory backend the queries run
 *           in this child too, on the finished history, before the close
 *           (the history lives nowhere else), and the build's peak is the
 *           VmHWM read at the end of the drive;
 *   query   (tree backend) opens of the file, then the queries.
 * Every answer is checked (design note 2); the state system stores null
 * intervals, so every quark has an interval at every t of the history and
 * a missing one counts as a mismatch.
 */

struct state_opts {
	struct workload w;
	uint64_t size;
	uint32_t intervals;     /* staircase I */
	sht_backend backend;
	sht_builder_opts bo;    /* tree backend: variant, block, children,
				   no_sync, threaded */
	const char *dir;
	int keep;
	int no_store;           /* skip the store-only build */
	uint64_t queries;       /* single queries, by quark and by name */
	uint64_t full_queries;
	uint64_t range_queries;
	uint64_t range_points;  /* resolution = history length / points */
	int opens;
	uint64_t seed;
	char path[4096];
	char store_path[4096];
};

/* The query phase of a tree backend's file (run_in_child, struct
 * state_opts). */
void phase_state_query(void *ctx, struct metrics *ms);

/* Every query kind on the history ss (memory backend: in the build's
 * child, before the close); mismatches and figures in ms. */
void state_queries_in_memory(const struct state_opts *o, sht_state *ss,
			     struct metrics *ms);

/* One whole run; its JSON line printed.  Returns the number of
 * mismatches, or -1 if a phase failed. */
int state_run(struct state_opts *o, int run, struct metrics *out);

#endif /* SHT_BENCH_SHT_BENCH_H */
