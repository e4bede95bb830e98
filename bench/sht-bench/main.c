/*
 * sht-bench: benchmarks of the history tree store and of the whole
 * state system, on the synthetic workloads (staircase, churn).  The
 * machine's limits are sht-limits' (bench/limits.c).
 *
 *   sht-bench store --workload staircase|churn --size N [options]
 *   sht-bench state --workload staircase|churn --size N [options]
 *
 * Output: JSON lines on stdout, one object per run, flushed as soon as the
 * run ends; with --repeat K a last line ("type":"median") holds the median
 * of every numeric field over the K runs.  Progress and errors go to
 * stderr.  docs/PERFORMANCE.md explains every field.
 *
 * Design notes:
 *  (1) Peak RSS is process-wide, so each phase runs in a forked child of a
 *      small parent: the generator alone (its cost, to subtract), the build
 *      (its peak RSS is the builder's alone), and the queries.  A child
 *      sends its metrics back through a pipe.  Metric keys are string
 *      literals, valid in the parent since the child is a fork, not an exec.
 *  (2) Every query answer is checked against the workload's oracle
 *      (shtgen_staircase_expect, shtgen_churn_expect) plus the interval bounds
 *      the workload's definition implies; any mismatch makes the run fail
 *      (exit status 1) after its line is printed.
 *  (3) Times come from clock_gettime(CLOCK_MONOTONIC).  Single queries are
 *      timed one by one (the clock costs ~20 ns here, far below a query),
 *      full and 2D queries call by call.  Query arguments are drawn before
 *      the clock starts and answers are checked after it stops.
 *  (4) Cold = sht_reader_drop_caches() (node cache emptied and the file's
 *      pages dropped with posix_fadvise DONTNEED) before each batch of
 *      --cold-batch queries (200, as the thesis did), outside the timing.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "sht-bench.h"

/* ---- command line --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs(
"usage: sht-bench store --workload staircase|churn --size N [options]\n"
"       sht-bench state --workload staircase|churn --size N [options]\n"
"\n"
"store options:\n"
"  --variant esht|sht      tree variant (esht)\n"
"  --block-size B          block bytes, e.g. 64K (64K)\n"
"  --max-children C        children per node (50)\n"
"  --intervals I           staircase intervals per attribute (20)\n"
"  --no-sync               build with no_sync=1 (no fsync at finish)\n"
"  --dir DIR               where the history file goes ($TMPDIR or /tmp)\n"
"  --keep                  keep the file\n"
"  --queries Q             warm single queries (10000)\n"
"  --full-queries F        warm full queries (200)\n"
"  --cold                  also measure cold queries\n"
"  --cold-queries Q        cold single queries (= --queries)\n"
"  --cold-full-queries F   cold full queries (= --full-queries)\n"
"  --cold-batch N          queries between cache drops (200)\n"
"  --q2d-quarks N          2D query attributes (1000)\n"
"  --q2d-points N          2D query resolution in points (1920)\n"
"  --q2d-first             2D query on the first quarks, not spread\n"
"  --opens N               opens timed for the median (9)\n"
"  --cache-bytes B         reader node cache (0: library default)\n"
"  --check                 also run sht_reader_check\n"
"  --skip LIST             leave out query kinds: single,full,2d\n"
"  --file PATH             query this existing file (built by --keep with\n"
"                          the same workload options); no build\n"
"  --seed S                query seed (1)\n"
"state options (also --variant, --block-size, --max-children, --intervals,\n"
"  --no-sync, --dir, --keep, --queries, --full-queries, --opens, --seed):\n"
"  --backend tree|memory|null  where the intervals go (tree)\n"
"  --threads 0|1           tree: the threaded builder pipeline (0)\n"
"  --range-queries R       range queries, 1 quark x the history (1000)\n"
"  --range-points P        their resolution: history length / P (1920)\n"
"  --no-store              skip the store-only build beside it\n"
"common options:\n"
"  --repeat K              run K times, then print the medians\n"
"  --verbose               progress on stderr\n"
"Counts take k, m or g (x 1000); sizes in bytes K, M or G (x 1024).\n"
"Output: JSON lines on stdout.  Exit status 1 if an answer was wrong,\n"
"2 on errors.\n", f);
}

enum {
	OPT_WORKLOAD = 256, OPT_SIZE, OPT_VARIANT, OPT_BLOCK_SIZE,
	OPT_MAX_CHILDREN, OPT_INTERVALS, OPT_NO_SYNC, OPT_DIR, OPT_KEEP,
	OPT_QUERIES, OPT_FULL_QUERIES, OPT_OPENS, OPT_SEED, OPT_REPEAT,
	/* store */
	OPT_COLD, OPT_COLD_QUERIES, OPT_COLD_FULL_QUERIES, OPT_COLD_BATCH,
	OPT_Q2D_QUARKS, OPT_Q2D_POINTS, OPT_Q2D_FIRST, OPT_CACHE_BYTES,
	OPT_CHECK, OPT_SKIP, OPT_FILE,
	/* state */
	OPT_BACKEND, OPT_THREADS, OPT_RANGE_QUERIES, OPT_RANGE_POINTS,
	OPT_NO_STORE,
};

#define COMMON_OPTIONS                                                        \
	{ "workload", required_argument, NULL, OPT_WORKLOAD },                \
	{ "size", required_argument, NULL, OPT_SIZE },                        \
	{ "variant", required_argument, NULL, OPT_VARIANT },                  \
	{ "block-size", required_argument, NULL, OPT_BLOCK_SIZE },            \
	{ "max-children", required_argument, NULL, OPT_MAX_CHILDREN },        \
	{ "intervals", required_argument, NULL, OPT_INTERVALS },              \
	{ "no-sync", no_argument, NULL, OPT_NO_SYNC },                        \
	{ "dir", required_argument, NULL, OPT_DIR },                          \
	{ "keep", no_argument, NULL, OPT_KEEP },                              \
	{ "queries", required_argument, NULL, OPT_QUERIES },                  \
	{ "full-queries", required_argument, NULL, OPT_FULL_QUERIES },        \
	{ "opens", required_argument, NULL, OPT_OPENS },                      \
	{ "seed", required_argument, NULL, OPT_SEED },                        \
	{ "repeat", required_argument, NULL, OPT_REPEAT },                    \
	{ "verbose", no_argument, NULL, 'v' },                                \
	{ "help", no_argument, NULL, 'h' }

static const struct option store_options[] = {
	COMMON_OPTIONS,
	{ "cold", no_argument, NULL, OPT_COLD },
	{ "cold-queries", required_argument, NULL, OPT_COLD_QUERIES },
	{ "cold-full-queries", required_argument, NULL, OPT_COLD_FULL_QUERIES },
	{ "cold-batch", required_argument, NULL, OPT_COLD_BATCH },
	{ "q2d-quarks", required_argument, NULL, OPT_Q2D_QUARKS },
	{ "q2d-points", required_argument, NULL, OPT_Q2D_POINTS },
	{ "q2d-first", no_argument, NULL, OPT_Q2D_FIRST },
	{ "cache-bytes", required_argument, NULL, OPT_CACHE_BYTES },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "skip", required_argument, NULL, OPT_SKIP },
	{ "file", required_argument, NULL, OPT_FILE },
	{ NULL, 0, NULL, 0 }
};

static const struct option state_options[] = {
	COMMON_OPTIONS,
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "range-queries", required_argument, NULL, OPT_RANGE_QUERIES },
	{ "range-points", required_argument, NULL, OPT_RANGE_POINTS },
	{ "no-store", no_argument, NULL, OPT_NO_STORE },
	{ NULL, 0, NULL, 0 }
};

/* The fields of the options both modes take. */
struct common {
	const char *wl;
	uint64_t *size;
	sht_builder_opts *bo;
	uint32_t *intervals;
	const char **dir;
	int *keep;
	uint64_t *queries, *full_queries;
	int *opens;
	uint64_t *seed;
	int repeat;
};

/* A count that fits the int or uint32_t it goes to, >= 1. */
static uint32_t small_count(const char *opt, const char *s)
{
	return (uint32_t)parse_count_in(opt, s, 1, INT32_MAX);
}

static sht_variant parse_variant(const char *v)
{
	if (!strcmp(v, "esht"))
		return SHT_VARIANT_ESHT;
	if (!strcmp(v, "sht"))
		return SHT_VARIANT_SHT;
	usage_error("--variant: esht or sht, not '%s'", v);
}

/* Apply option c (getopt_long's answer) if both modes take it: 1, else
 * 0. */
static int common_option(int c, struct common *o)
{
	switch (c) {
	case OPT_WORKLOAD: o->wl = optarg; break;
	case OPT_SIZE: *o->size = parse_count("--size", optarg); break;
	case OPT_VARIANT: o->bo->variant = parse_variant(optarg); break;
	case OPT_BLOCK_SIZE:
		o->bo->block_size = (uint32_t)parse_bytes("--block-size", optarg);
		if (o->bo->block_size != parse_bytes("--block-size", optarg))
			usage_error("--block-size: too large: '%s'", optarg);
		break;
	case OPT_MAX_CHILDREN:
		o->bo->max_children = small_count("--max-children", optarg);
		break;
	case OPT_INTERVALS:
		*o->intervals = small_count("--intervals", optarg);
		break;
	case OPT_NO_SYNC: o->bo->no_sync = true; break;
	case OPT_DIR: *o->dir = optarg; break;
	case OPT_KEEP: *o->keep = 1; break;
	case OPT_QUERIES: *o->queries = parse_count("--queries", optarg); break;
	case OPT_FULL_QUERIES:
		*o->full_queries = parse_count("--full-queries", optarg);
		break;
	case OPT_OPENS: *o->opens = (int)small_count("--opens", optarg); break;
	case OPT_SEED: *o->seed = parse_count("--seed", optarg); break;
	case OPT_REPEAT: o->repeat = (int)small_count("--repeat", optarg); break;
	case 'v': bench_verbose = 1; break;
	case 'h': usage(stdout); exit(0);
	default: return 0;
	}
	return 1;
}

/* The workload of --workload and --size. */
static void common_workload(const char *mode, const struct common *c,
			    struct workload *w)
{
	if (!c->wl || *c->size == 0)
		usage_error("%s needs --workload staircase|churn and --size N",
			    mode);
	if (!strcmp(c->wl, "staircase"))
		wl_init(w, SHTGEN_WL_STAIRCASE, *c->size, *c->intervals);
	else if (!strcmp(c->wl, "churn"))
		wl_init(w, SHTGEN_WL_CHURN, *c->size, 0);
	else
		usage_error("--workload: staircase or churn, not '%s'", c->wl);
}

/* Options end at the first argument that is not one. */
static void no_operands(int argc, char **argv)
{
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
}

static void store_defaults(struct store_opts *o)
{
	memset(o, 0, sizeof *o);
	sht_builder_opts_init(&o->bo);
	if (o->bo.block_size == 0)
		o->bo.block_size = SHT_DEFAULT_BLOCK_SIZE;
	if (o->bo.max_children == 0)
		o->bo.max_children = SHT_DEFAULT_MAX_CHILDREN;
	o->bo.no_sync = 0;
	o->intervals = 20;
	o->dir = tmp_dir();
	o->queries = 10000;
	o->full_queries = 200;
	o->cold_batch = 200;
	o->q2d_quarks = 1000;
	o->q2d_points = 1920;
	o->opens = 9;
	o->seed = 1;
}

static void parse_skip(struct store_opts *o, const char *v)
{
	o->no_single |= strstr(v, "single") != NULL;
	o->no_full |= strstr(v, "full") != NULL;
	o->no_2d |= strstr(v, "2d") != NULL;
	if (!o->no_single && !o->no_full && !o->no_2d)
		usage_error("--skip: a list of single, full, 2d");
}

/* sht-bench store's options into o; returns --repeat. */
static int store_args(int argc, char **argv, struct store_opts *o)
{
	struct common c = { NULL, &o->size, &o->bo, &o->intervals, &o->dir,
			    &o->keep, &o->queries, &o->full_queries, &o->opens,
			    &o->seed, 1 };
	int have_cq = 0, have_cfq = 0, k;

	store_defaults(o);
	optind = 2;
	while ((k = getopt_long(argc, argv, "hv", store_options, NULL)) != -1) {
		if (common_option(k, &c))
			continue;
		switch (k) {
		case OPT_COLD: o->cold = 1; break;
		case OPT_COLD_QUERIES:
			o->cold_queries = parse_count("--cold-queries", optarg);
			have_cq = 1;
			break;
		case OPT_COLD_FULL_QUERIES:
			o->cold_full_queries =
				parse_count("--cold-full-queries", optarg);
			have_cfq = 1;
			break;
		case OPT_COLD_BATCH:
			o->cold_batch = parse_count("--cold-batch", optarg);
			break;
		case OPT_Q2D_QUARKS:
			o->q2d_quarks = parse_count("--q2d-quarks", optarg);
			break;
		case OPT_Q2D_POINTS:
			o->q2d_points = parse_count("--q2d-points", optarg);
			break;
		case OPT_Q2D_FIRST: o->q2d_first = 1; break;
		case OPT_CACHE_BYTES:
			o->cache_bytes = (size_t)parse_bytes("--cache-bytes",
							     optarg);
			break;
		case OPT_CHECK: o->check = 1; break;
		case OPT_SKIP: parse_skip(o, optarg); break;
		case OPT_FILE:
			if (strlen(optarg) >= sizeof o->path)
				usage_error("--file: path too long");
			strcpy(o->path, optarg);
			o->reuse = 1;
			break;
		default: bad_option();
		}
	}
	no_operands(argc, argv);
	common_workload("store", &c, &o->w);
	if (!have_cq)
		o->cold_queries = o->queries;
	if (!have_cfq)
		o->cold_full_queries = o->full_queries;
	if (o->queries < 1 || o->full_queries < 1 || o->cold_queries < 1 ||
	    o->cold_full_queries < 1 || o->cold_batch < 1 ||
	    o->q2d_points < 1 || o->q2d_quarks < 1)
		usage_error("counts must be >= 1");
	return c.repeat;
}

/* One mode's runs: each prints its line; then, with repeat > 1, the
 * line of medians (the fixed strings mstrs).  Exit status: 0, 1 if an
 * answer was wrong, 2 if a run failed. */
static int run_all(int (*run)(void *o, int r, struct metrics *out), void *o,
		   int repeat, const char *const *mstrs)
{
	struct metrics *runs = xmalloc((size_t)repeat * sizeof *runs);
	int worst = 0;

	for (int r = 0; r < repeat; r++) {
		int rc = run(o, r, &runs[r]);

		if (rc < 0) {
			free(runs);
			return 2;
		}
		if (rc > 0)
			worst = 1;
	}
	if (repeat > 1) {
		struct metrics med;

		metrics_median(runs, (size_t)repeat, &med);
		put_int(&med, "runs", repeat);
		metrics_print(mstrs, &med);
	}
	free(runs);
	if (worst)
		fprintf(stderr, "sht-bench: wrong answers (see mismatches)\n");
	return worst;
}

static int run_store(void *o, int r, struct metrics *out)
{
	return store_run(o, r, out);
}

static int cmd_store(int argc, char **argv)
{
	struct store_opts o;
	int repeat = store_args(argc, argv, &o);
	const char *strs[] = { "mode", "store", "type", "median",
			       "workload", shtgen_wl_name(&o.w.wl),
			       "variant", variant_name(o.bo.variant), NULL };

	return run_all(run_store, &o, repeat, strs);
}

static sht_backend parse_backend(const char *v)
{
	if (!strcmp(v, "tree"))
		return SHT_BACKEND_TREE;
	if (!strcmp(v, "memory"))
		return SHT_BACKEND_MEMORY;
	if (!strcmp(v, "null"))
		return SHT_BACKEND_NULL;
	usage_error("--backend: tree, memory or null, not '%s'", v);
}

static void state_defaults(struct state_opts *o)
{
	memset(o, 0, sizeof *o);
	sht_builder_opts_init(&o->bo);
	if (o->bo.block_size == 0)
		o->bo.block_size = SHT_DEFAULT_BLOCK_SIZE;
	if (o->bo.max_children == 0)
		o->bo.max_children = SHT_DEFAULT_MAX_CHILDREN;
	o->bo.no_sync = 0;
	o->bo.threaded = false;
	o->backend = SHT_BACKEND_TREE;
	o->intervals = 20;
	o->dir = tmp_dir();
	o->queries = 10000;
	o->full_queries = 200;
	o->range_queries = 1000;
	o->range_points = 1920;
	o->opens = 9;
	o->seed = 1;
}

/* sht-bench state's options into o; returns --repeat. */
static int state_args(int argc, char **argv, struct state_opts *o)
{
	struct common c = { NULL, &o->size, &o->bo, &o->intervals, &o->dir,
			    &o->keep, &o->queries, &o->full_queries, &o->opens,
			    &o->seed, 1 };
	int k;

	state_defaults(o);
	optind = 2;
	while ((k = getopt_long(argc, argv, "hv", state_options, NULL)) != -1) {
		if (common_option(k, &c))
			continue;
		switch (k) {
		case OPT_BACKEND: o->backend = parse_backend(optarg); break;
		case OPT_THREADS:
			o->bo.threaded = parse_count_in("--threads", optarg, 0,
							1) != 0;
			break;
		case OPT_RANGE_QUERIES:
			o->range_queries = parse_count("--range-queries", optarg);
			break;
		case OPT_RANGE_POINTS:
			o->range_points = parse_count("--range-points", optarg);
			break;
		case OPT_NO_STORE: o->no_store = 1; break;
		default: bad_option();
		}
	}
	no_operands(argc, argv);
	common_workload("state", &c, &o->w);
	if (o->queries < 1 || o->full_queries < 1 || o->range_queries < 1 ||
	    o->range_points < 1)
		usage_error("counts must be >= 1");
	return c.repeat;
}

static int run_state(void *o, int r, struct metrics *out)
{
	return state_run(o, r, out);
}

static int cmd_state(int argc, char **argv)
{
	struct state_opts o;
	int repeat = state_args(argc, argv, &o);
	const char *strs[] = { "mode", "state", "type", "median",
			       "workload", shtgen_wl_name(&o.w.wl),
			       "backend", backend_name(o.backend),
			       "variant", variant_name(o.bo.variant), NULL };

	return run_all(run_state, &o, repeat, strs);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "store"))
		return cmd_store(argc, argv);
	if (!strcmp(argv[1], "state"))
		return cmd_state(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
