/*
 * metrics.h: the figures of one run of a phase-by-phase benchmark
 * (sht-bench, sht-limits), and the forked child each phase runs in
 * (metrics.c, in the benchmark library shtbench).
 *
 * A struct metrics is an ordered list of (key, number): keys are string
 * literals, valid in the parent since the child is a fork, not an exec;
 * the child sends its whole struct back through a pipe.
 */
#ifndef SHT_BENCH_METRICS_H
#define SHT_BENCH_METRICS_H

#include <stddef.h>

#define MAX_METRICS 160

struct metric {
	const char *key;        /* a string literal */
	double v;
	int is_int;             /* printed as an integer */
};

struct metrics {
	size_t n;
	int failed;             /* the child could not finish its phase */
	char err[512];          /* why, if failed */
	struct metric m[MAX_METRICS];
};

/* Set key (added at the end if new). */
void put(struct metrics *ms, const char *key, double v);
void put_int(struct metrics *ms, const char *key, double v);

/* 1 and *v if ms has key, else 0. */
int get(const struct metrics *ms, const char *key, double *v);

/* Every metric of src into dst. */
void merge(struct metrics *dst, const struct metrics *src);

/* src's metric from, if any, into dst as to. */
void rename_metric(struct metrics *dst, const struct metrics *src,
		   const char *from, const char *to);

/* Per key of runs[0] but "run", the median over the k runs that have it
 * (finite values only). */
void metrics_median(const struct metrics *runs, size_t k,
		    struct metrics *out);

/* One JSON line (bench-json.h): the string fields strs (pairs key,
 * value, NULL-terminated), then the metrics in order. */
void metrics_print(const char *const *strs, const struct metrics *ms);

/*
 * Run fn(ctx, out) in a forked child and collect its metrics, plus the
 * child's peak RSS (bytes) and user and system CPU seconds under the keys
 * rss_key, user_key, sys_key (each may be NULL).  Returns 0, or -1 if the
 * child failed (out->err says why).
 */
typedef void (*phase_fn)(void *ctx, struct metrics *out);

int run_in_child(const char *rss_key, const char *user_key,
		 const char *sys_key, phase_fn fn, void *ctx,
		 struct metrics *out);

#endif /* SHT_BENCH_METRICS_H */
