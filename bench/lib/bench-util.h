/*
 * bench-util.h: what every benchmark program shares (bench-util.c, in the
 * benchmark library shtbench): messages and exits, allocation, numbers
 * on the command line, the process's figures, and statistics.  The clock
 * and the random generator are the tests' own (tests/support/now.h,
 * rng.h); JSON output is bench-json.h.
 */
#ifndef SHT_BENCH_UTIL_H
#define SHT_BENCH_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "now.h"

#define BENCH_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- messages ------------------------------------------------------------ */

/* "PROGRAM: message" on stderr, exit status 2 (an error, not a result). */
_Noreturn void die(const char *fmt, ...) BENCH_PRINTF(1, 2);

/* "# message" on stderr if bench_verbose (--verbose). */
extern int bench_verbose;
void note(const char *fmt, ...) BENCH_PRINTF(1, 2);

/* For an option parser's error: "PROGRAM: message (try --help)", exit 2. */
_Noreturn void usage_error(const char *fmt, ...) BENCH_PRINTF(1, 2);

/* After getopt_long's own message ('?'): "PROGRAM: try --help", exit 2. */
_Noreturn void bad_option(void);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);

/* ---- numbers on the command line ----------------------------------------- */

/*
 * One rule for every benchmark: a count (attributes, queries, events,
 * seeds) takes k, m or g (x 1000, 1e6, 1e9, either case); a size in
 * bytes takes K, M or G (or k, m, g, Ki, Mi, Gi: powers of 1024).  A bad
 * number dies with the option's name.
 */
uint64_t parse_count(const char *opt, const char *s);
uint64_t parse_bytes(const char *opt, const char *s);

/* A count in [min, max], else die. */
uint64_t parse_count_in(const char *opt, const char *s, uint64_t min,
			uint64_t max);

/* The directory for scratch files: $TMPDIR, else /tmp. */
const char *tmp_dir(void);

/* ---- the process and the machine ----------------------------------------- */

/* A field of /proc/self/status in bytes ("VmRSS", "VmHWM"; 0 if absent). */
uint64_t proc_status_bytes(const char *key);

/* CPU time (user + system) of the process, and of the calling thread, s:
 * steadier than the wall clock when other work shares the machine. */
double cpu_s(void);
double thread_cpu_s(void);

/* The 1-minute load average, -1 if unknown. */
double load1(void);

/* The CPU's model name ("unknown" if /proc/cpuinfo has none). */
void cpu_model(char *out, size_t size);

/* ---- statistics ---------------------------------------------------------- */

int cmp_double(const void *a, const void *b);

/* Nearest-rank percentile of n sorted values, p in [0, 1]; NaN if n = 0. */
double pct_sorted(const double *v, size_t n, double p);

/* Median of n values (sorts v); mean of the two middle ones if n is even;
 * NaN if n = 0. */
double median(double *v, size_t n);

/* Mean, median, 99th percentile and maximum of n latencies (sorts v). */
struct lat {
	double mean, p50, p99, max;
};

struct lat lat_summary(double *v, size_t n);

#endif /* SHT_BENCH_UTIL_H */
