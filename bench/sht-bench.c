/*
 * sht-bench.c: benchmarks of the history tree store and of the whole
 * state system, the workloads and metrics of ../shared/BENCHMARKS.md, and
 * the machine's physical limits.
 *
 *   sht-bench store --workload staircase|churn --size N [options]
 *   sht-bench state --workload staircase|churn --size N [options]
 *   sht-bench limits [--dir DIR] [--limit-bytes B] [--repeat K] [--quick]
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
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include <shtgen/workload.h>
#include "bench-util.h"

/* ---- small helpers ----------------------------------------------------- */

static int g_verbose;

static void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sht-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* Peak and current resident set of this process from /proc/self/status,
 * in bytes (0 if unreadable). */
static uint64_t proc_status_bytes(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	uint64_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			kb = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

/* Parse an unsigned integer with an optional suffix: k, m, g (powers of
 * 1000) or K, M, G / Ki, Mi, Gi (powers of 1024), e.g. 1m, 64K, 1Gi. */
static uint64_t parse_u64(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		die("%s: not a number: '%s'", opt, s);
	if (*end) {
		int bin = end[0] >= 'A' && end[0] <= 'Z';

		switch (end[0] | 0x20) {
		case 'k': mul = bin ? 1ull << 10 : 1000ull; break;
		case 'm': mul = bin ? 1ull << 20 : 1000000ull; break;
		case 'g': mul = bin ? 1ull << 30 : 1000000000ull; break;
		default: die("%s: bad suffix in '%s'", opt, s);
		}
		if (end[1] == 'i' && end[2] == '\0')
			mul = mul == 1000ull ? 1ull << 10 :
			      mul == 1000000ull ? 1ull << 20 :
			      mul == 1000000000ull ? 1ull << 30 : mul;
		else if (end[1] != '\0')
			die("%s: bad suffix in '%s'", opt, s);
	}
	if (v > UINT64_MAX / mul)
		die("%s: too large: '%s'", opt, s);
	return (uint64_t)v * mul;
}

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);
		p += w;
		n -= (size_t)w;
	}
}

/* Read up to n bytes; returns how many before EOF. */
static size_t read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* ---- metrics: an ordered list of (key, number) ---------------------------- */

#define MAX_METRICS 160

struct metric {
	const char *key;        /* string literal (see design note 1) */
	double v;
	int is_int;             /* print without decimals */
};

struct metrics {
	size_t n;
	int failed;             /* the child could not finish its phase */
	char err[512];          /* why, if failed */
	struct metric m[MAX_METRICS];
};

static void put(struct metrics *ms, const char *key, double v)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (strcmp(ms->m[i].key, key) == 0) {
			ms->m[i].v = v;
			return;
		}
	}
	if (ms->n == MAX_METRICS)
		die("too many metrics (key %s)", key);
	ms->m[ms->n].key = key;
	ms->m[ms->n].v = v;
	ms->m[ms->n].is_int = 0;
	ms->n++;
}

static void put_int(struct metrics *ms, const char *key, double v)
{
	put(ms, key, v);
	for (size_t i = 0; i < ms->n; i++)
		if (strcmp(ms->m[i].key, key) == 0)
			ms->m[i].is_int = 1;
}

static int get(const struct metrics *ms, const char *key, double *v)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (strcmp(ms->m[i].key, key) == 0) {
			*v = ms->m[i].v;
			return 1;
		}
	}
	return 0;
}

static void merge(struct metrics *dst, const struct metrics *src)
{
	for (size_t i = 0; i < src->n; i++) {
		if (src->m[i].is_int)
			put_int(dst, src->m[i].key, src->m[i].v);
		else
			put(dst, src->m[i].key, src->m[i].v);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v, int is_int)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (is_int && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

/* Fixed string fields first (pairs key, value; NULL-terminated), then the
 * numbers. */
static void json_line(const char *const *strs, const struct metrics *ms)
{
	FILE *f = stdout;

	fputc('{', f);
	for (size_t i = 0; strs[i]; i += 2) {
		if (i)
			fputc(',', f);
		json_str(f, strs[i]);
		fputc(':', f);
		json_str(f, strs[i + 1]);
	}
	for (size_t i = 0; i < ms->n; i++) {
		fputc(',', f);
		json_str(f, ms->m[i].key);
		fputc(':', f);
		json_num(f, ms->m[i].v, ms->m[i].is_int);
	}
	fputs("}\n", f);
	fflush(f);
}

/* Per key of runs[0], the median over the runs that have it. */
static void metrics_median(const struct metrics *runs, size_t k,
			   struct metrics *out)
{
	double *v = xmalloc(k * sizeof *v);

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < runs[0].n; i++) {
		const char *key = runs[0].m[i].key;
		size_t n = 0;
		double x, med;

		if (strcmp(key, "run") == 0)
			continue;

		for (size_t r = 0; r < k; r++)
			if (get(&runs[r], key, &x) && isfinite(x))
				v[n++] = x;
		med = median(v, n);
		/* A median of two integers may be a half: keep it. */
		if (runs[0].m[i].is_int && med == floor(med))
			put_int(out, key, med);
		else
			put(out, key, med);
	}
	free(v);
}

/* ---- running a phase in a child ---------------------------------------------- */

typedef void (*phase_fn)(void *ctx, struct metrics *out);

/*
 * Run fn in a forked child and collect its metrics, plus the child's
 * rusage (peak RSS, CPU times) under the names prefix + "_maxrss_bytes",
 * "_user_s", "_sys_s".  Returns 0, or -1 if the child failed (out->err).
 */
static int run_in_child(const char *rss_key, const char *user_key,
			const char *sys_key, phase_fn fn, void *ctx,
			struct metrics *out)
{
	int fds[2];
	pid_t pid;
	int status;
	struct rusage ru;
	size_t got;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) < 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct metrics *ms = calloc(1, sizeof *ms);

		close(fds[0]);
		if (!ms)
			_exit(3);
		fn(ctx, ms);
		write_all(fds[1], ms, sizeof *ms);
		close(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	memset(out, 0, sizeof *out);
	got = read_all(fds[0], out, sizeof *out);
	close(fds[0]);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	}
	if (got != sizeof *out || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		memset(out, 0, sizeof *out);
		out->failed = 1;
		if (WIFSIGNALED(status))
			snprintf(out->err, sizeof out->err,
				 "child killed by signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(out->err, sizeof out->err,
				 "child exited with status %d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	if (rss_key)
		put_int(out, rss_key, (double)ru.ru_maxrss * 1024.0);
	if (user_key)
		put(out, user_key, (double)ru.ru_utime.tv_sec +
				   (double)ru.ru_utime.tv_usec * 1e-6);
	if (sys_key)
		put(out, sys_key, (double)ru.ru_stime.tv_sec +
				  (double)ru.ru_stime.tv_usec * 1e-6);
	return out->failed ? -1 : 0;
}

static void fail(struct metrics *ms, const char *what, sht_err err)
{
	ms->failed = 1;
	snprintf(ms->err, sizeof ms->err, "%s: %s (%s)", what,
		 sht_strerror(err), sht_errmsg());
}

/* ---- workloads ---------------------------------------------------------------- */

/* The workload, and the bounds and quark count its checks use on every
 * query (computed once, through sht__wl_*). */
struct workload {
	shtgen_workload wl;
	sht_time start, end;
	uint64_t quarks;        /* quarks the workload uses: 0 .. quarks-1 */
};

static void wl_init(struct workload *w, shtgen_wl_kind kind, uint64_t size,
		    uint32_t intervals)
{
	memset(w, 0, sizeof *w);
	w->wl.kind = kind;
	if (kind == SHTGEN_WL_STAIRCASE) {
		w->wl.st.attributes = size;
		w->wl.st.intervals = intervals;
		w->wl.st.step = 1000;
	} else {
		w->wl.ch.threads = size;
	}
	w->start = 0;
	w->end = shtgen_wl_end(&w->wl);
	w->quarks = shtgen_wl_quarks(&w->wl);
	if (kind == SHTGEN_WL_STAIRCASE) {
		if (w->end <= 0)
			die("staircase: invalid size %" PRIu64 " x %u", size,
			    intervals);
	} else {
		if (w->end <= 0 || w->quarks == 0)
			die("churn: invalid size %" PRIu64, size);
	}
}

/*
 * Bounds of the interval of (q, t) that the workload's definition and the
 * state-system rules imply (a clear of a null attribute extends it, the
 * close ends every ongoing state at T): 1 and *lo, *hi set, or 0 if (q, t)
 * is outside the workload.
 */
static int wl_bounds(const struct workload *w, sht_quark q, sht_time t,
		     sht_time *lo, sht_time *hi)
{
	if (w->wl.kind == SHTGEN_WL_STAIRCASE) {
		sht_time d = w->wl.st.step;
		sht_time ad = (sht_time)w->wl.st.attributes * d;
		sht_time a0 = (sht_time)q * d;
		sht_time k;

		if (q >= w->wl.st.attributes || t < 0 || t > w->end)
			return 0;
		if (t < a0) {
			*lo = 0;
			*hi = a0 - 1;
			return 1;
		}
		k = (t - a0) / ad;
		if (k > (sht_time)w->wl.st.intervals - 1)
			k = (sht_time)w->wl.st.intervals - 1;
		*lo = a0 + k * ad;
		*hi = k == (sht_time)w->wl.st.intervals - 1 ? w->end
							 : *lo + ad - 1;
		return 1;
	} else {
		uint64_t i;
		sht_time b;

		if (q >= w->quarks || t < w->start || t > w->end)
			return 0;
		if (q == 0 || (q - 1) % 3 == 0) {  /* Threads, Threads/<i> */
			*lo = w->start;
			*hi = w->end;
			return 1;
		}
		i = (q - 1) / 3;
		b = (sht_time)i * 1000;
		if (t < b) {
			*lo = w->start;
			*hi = b - 1;
			return 1;
		}
		if (t >= b + 10000) {
			*lo = b + 10000;
			*hi = w->end;
			return 1;
		}
		switch ((q - 1) % 3) {
		case 1:         /* Status */
			*lo = b + (t - b) / 500 * 500;
			*hi = *lo + 499;
			return 1;
		case 2:         /* Exec_name */
			*lo = b;
			*hi = b + 9999;
			return 1;
		default:
			return 0;
		}
	}
}

/*
 * Check one answer of quark q at t: iv (NULL for no interval).  Returns 0
 * if right; else 1, and prints the first few mismatches.
 */
static int check_answer(const struct workload *w, sht_quark q, sht_time t,
			const sht_interval *iv, uint64_t *reported)
{
	char buf[64];
	sht_value exp = shtgen_wl_expect(&w->wl, q, t, buf);
	sht_time lo, hi;
	const char *why = NULL;

	if (!iv) {
		if (exp.type != SHT_TYPE_NULL)
			why = "no interval, expected a value";
	} else if (iv->quark != q) {
		why = "wrong quark";
	} else if (iv->start > t || iv->end < t) {
		why = "interval does not contain t";
	} else if (!sht_value_equal(&iv->value, &exp)) {
		why = "wrong value";
	} else if (wl_bounds(w, q, t, &lo, &hi) &&
		   (iv->start != lo || iv->end != hi)) {
		why = "wrong bounds";
	}
	if (!why)
		return 0;
	if ((*reported)++ < 10) {
		fprintf(stderr, "sht-bench: MISMATCH q=%" PRIu32 " t=%" PRId64
			": %s", q, t, why);
		if (iv)
			fprintf(stderr, " (got q=%" PRIu32 " [%" PRId64
				", %" PRId64 "] type=%s i32=%" PRId32 ")",
				iv->quark, iv->start, iv->end,
				sht_type_name(iv->value.type),
				iv->value.u.i32);
		fprintf(stderr, " expected type=%s i32=%" PRId32 "\n",
			sht_type_name(exp.type), exp.u.i32);
	}
	return 1;
}

/* ---- store benchmark: options ------------------------------------------------- */

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

/* ---- phase 1: the generator alone -------------------------------------------- */

struct gen_ctx {
	uint64_t n;
	uint64_t sink;
};

static sht_err emit_count(void *ctx, const sht_interval *iv)
{
	struct gen_ctx *g = ctx;

	g->n++;
	g->sink += (uint64_t)iv->end ^ iv->quark;
	return SHT_OK;
}

static void phase_gen(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	struct gen_ctx g = { 0, 0 };
	double t0 = now_s();
	sht_err err = shtgen_wl_run(&o->w.wl, emit_count, &g);
	double t1 = now_s();

	if (err < 0) {
		fail(ms, "generator", err);
		return;
	}
	put(ms, "gen_s", t1 - t0);
	put_int(ms, "gen_intervals", (double)g.n);
	put_int(ms, "gen_checksum_low", (double)(g.sink & 0xffff));
}

/* ---- phase 2: the build ------------------------------------------------------- */

struct build_ctx {
	sht_builder *b;
	uint64_t n;
};

static sht_err emit_insert(void *ctx, const sht_interval *iv)
{
	struct build_ctx *c = ctx;
	sht_err err = sht_builder_insert(c->b, iv);

	if (err < 0)
		return err;
	c->n++;
	return SHT_OK;
}

static void phase_build(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	struct build_ctx c = { NULL, 0 };
	uint64_t rss0 = proc_status_bytes("VmRSS");
	double t0, t1, t2, t3, t4;
	sht_err err;

	t0 = now_s();
	err = sht_builder_create(o->path, o->w.start, &o->bo, &c.b);
	if (err < 0) {
		fail(ms, "sht_builder_create", err);
		return;
	}
	t1 = now_s();
	err = shtgen_wl_run(&o->w.wl, emit_insert, &c);
	t2 = now_s();
	if (err < 0) {
		char what[96];

		snprintf(what, sizeof what, "sht_builder_insert #%" PRIu64,
			 c.n);
		fail(ms, what, err);
		sht_builder_close(c.b);
		return;
	}
	err = sht_builder_finish(c.b, o->w.end);
	t3 = now_s();
	if (err < 0) {
		fail(ms, "sht_builder_finish", err);
		sht_builder_close(c.b);
		return;
	}
	sht_builder_close(c.b);
	t4 = now_s();

	put(ms, "build_s", t4 - t0);
	put(ms, "build_create_s", t1 - t0);
	put(ms, "build_insert_s", t2 - t1);
	put(ms, "build_finish_s", t3 - t2);
	put(ms, "build_destroy_s", t4 - t3);
	put_int(ms, "intervals", (double)c.n);
	put(ms, "intervals_per_s", (double)c.n / (t4 - t0));
	put_int(ms, "build_rss_start_bytes", (double)rss0);
	put_int(ms, "build_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
}

/* ---- phase 3: queries --------------------------------------------------------- */

struct lat {
	double mean, p50, p99, max;
};

static struct lat lat_summary(double *v, size_t n)
{
	struct lat l;
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof *v, cmp_double);
	l.mean = n ? sum / (double)n : NAN;
	l.p50 = pct_sorted(v, n, 0.50);
	l.p99 = pct_sorted(v, n, 0.99);
	l.max = n ? v[n - 1] : NAN;
	return l;
}

struct qstate {
	const struct store_opts *o;
	sht_reader *r;
	sht_result *res;
	uint64_t rng;
	uint64_t quarks;        /* drawn in [0, quarks) */
	uint64_t mismatches;
	uint64_t not_found;     /* SHT_NOT_FOUND answers (right or not) */
	uint64_t reported;
	struct metrics *ms;
};

static sht_time draw_time(struct qstate *s)
{
	const struct workload *w = &s->o->w;

	return w->start + (sht_time)rng_below(&s->rng,
					       (uint64_t)(w->end - w->start) + 1);
}

/* One single query, checked.  Returns its latency in seconds, or a
 * negative number on a query error (recorded in ms). */
static double single_one(struct qstate *s)
{
	sht_quark q = (sht_quark)rng_below(&s->rng, s->quarks);
	sht_time t = draw_time(s);
	double t0, t1;
	sht_err err;
	const sht_interval *iv = NULL;

	t0 = now_s();
	err = sht_reader_query(s->r, q, t, s->res);
	t1 = now_s();
	if (err < 0) {
		fail(s->ms, "sht_reader_query", err);
		return -1;
	}
	if (err == SHT_OK) {
		if (sht_result_count(s->res) != 1) {
			s->mismatches++;
			return t1 - t0;
		}
		iv = sht_result_at(s->res, 0);
	} else {
		s->not_found++;
	}
	s->mismatches += (uint64_t)check_answer(&s->o->w, q, t, iv,
						&s->reported);
	return t1 - t0;
}

/* n single queries, in batches of batch (0: one batch) each preceded by a
 * cache drop if cold.  Metrics under prefix. */
static int single_batch(struct qstate *s, uint64_t n, int cold,
			const char *k_mean, const char *k_p50,
			const char *k_p99, const char *k_max,
			const char *k_visits, const char *k_misses,
			const char *k_bytes)
{
	double *lat = xmalloc(n * sizeof *lat);
	sht_reader_counters c0, c1;
	struct lat l;

	sht_reader_counters_get(s->r, &c0);
	for (uint64_t i = 0; i < n; i++) {
		if (cold && i % s->o->cold_batch == 0)
			sht_reader_drop_caches(s->r);
		lat[i] = single_one(s);
		if (lat[i] < 0) {
			free(lat);
			return -1;
		}
	}
	sht_reader_counters_get(s->r, &c1);
	l = lat_summary(lat, n);
	put(s->ms, k_mean, l.mean * 1e6);
	put(s->ms, k_p50, l.p50 * 1e6);
	put(s->ms, k_p99, l.p99 * 1e6);
	put(s->ms, k_max, l.max * 1e6);
	put(s->ms, k_visits,
	    (double)(c1.node_visits - c0.node_visits) / (double)n);
	put(s->ms, k_misses,
	    (double)(c1.cache_misses - c0.cache_misses) / (double)n);
	put(s->ms, k_bytes, (double)(c1.bytes_read - c0.bytes_read) / (double)n);
	free(lat);
	return 0;
}

static int cmp_iv_quark(const void *key, const void *elem)
{
	sht_quark q = *(const sht_quark *)key;
	const sht_interval *iv = elem;

	return (q > iv->quark) - (q < iv->quark);
}

/* Check a full-query answer: quark order, every interval contains t,
 * and 64 sampled quarks against the oracle. */
static void check_full(struct qstate *s, sht_time t)
{
	size_t n = sht_result_count(s->res);
	const sht_interval *items = sht_result_items(s->res);
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		if ((i > 0 && items[i].quark <= items[i - 1].quark) ||
		    items[i].start > t || items[i].end < t) {
			bad = 1;
			break;
		}
	}
	if (bad || n > s->quarks) {
		s->mismatches++;
		if (s->reported++ < 10)
			fprintf(stderr, "sht-bench: MISMATCH full query "
				"t=%" PRId64 ": %zu items, unsorted or not "
				"containing t\n", t, n);
		return;
	}
	for (int k = 0; k < 64; k++) {
		sht_quark q = (sht_quark)rng_below(&s->rng, s->quarks);
		const sht_interval *iv = bsearch(&q, items, n, sizeof *items,
						 cmp_iv_quark);

		s->mismatches += (uint64_t)check_answer(&s->o->w, q, t, iv,
							&s->reported);
	}
}

static int full_batch(struct qstate *s, uint64_t warmup, uint64_t n, int cold,
		      const char *k_mean, const char *k_p50, const char *k_p99,
		      const char *k_max, const char *k_visits,
		      const char *k_items)
{
	double *lat = xmalloc(n * sizeof *lat);
	sht_reader_counters c0, c1;
	double items = 0;
	struct lat l;

	for (uint64_t i = 0; i < warmup + n; i++) {
		sht_time t = draw_time(s);
		double t0, t1;
		sht_err err;

		if (i == warmup)
			sht_reader_counters_get(s->r, &c0);
		if (cold && i >= warmup && (i - warmup) % s->o->cold_batch == 0)
			sht_reader_drop_caches(s->r);
		t0 = now_s();
		err = sht_reader_query_full(s->r, t, s->res);
		t1 = now_s();
		if (err < 0) {
			fail(s->ms, "sht_reader_query_full", err);
			free(lat);
			return -1;
		}
		if (i >= warmup) {
			lat[i - warmup] = t1 - t0;
			items += (double)sht_result_count(s->res);
		}
		check_full(s, t);
	}
	sht_reader_counters_get(s->r, &c1);
	l = lat_summary(lat, n);
	put(s->ms, k_mean, l.mean * 1e3);
	put(s->ms, k_p50, l.p50 * 1e3);
	put(s->ms, k_p99, l.p99 * 1e3);
	put(s->ms, k_max, l.max * 1e3);
	put(s->ms, k_visits,
	    (double)(c1.node_visits - c0.node_visits) / (double)n);
	put(s->ms, k_items, items / (double)n);
	free(lat);
	return 0;
}

/* The 2D query: q2d_quarks attributes x the whole range at q2d_points
 * points; median of 10 calls.  Every returned interval is checked at its
 * two ends. */
static int q2d_batch(struct qstate *s, int cold, const char *k_ms)
{
	const struct store_opts *o = s->o;
	uint64_t nq = o->q2d_quarks < s->quarks ? o->q2d_quarks : s->quarks;
	sht_quark *qs = xmalloc(nq * sizeof *qs);
	sht_query2d q;
	double ms[10];
	size_t count = 0;

	for (uint64_t i = 0; i < nq; i++)
		qs[i] = (sht_quark)(o->q2d_first ? i : i * s->quarks / nq);
	memset(&q, 0, sizeof q);
	q.quarks = qs;
	q.n_quarks = nq;
	q.t1 = o->w.start;
	q.t2 = o->w.end;
	q.resolution = (o->w.end - o->w.start) / (sht_time)o->q2d_points;
	if (q.resolution < 1)
		q.resolution = 1;
	for (int rep = 0; rep < 10; rep++) {
		double t0, t1;
		sht_err err;

		if (cold)
			sht_reader_drop_caches(s->r);
		t0 = now_s();
		err = sht_reader_query_2d(s->r, &q, s->res);
		t1 = now_s();
		if (err < 0) {
			fail(s->ms, "sht_reader_query_2d", err);
			free(qs);
			return -1;
		}
		ms[rep] = (t1 - t0) * 1e3;
		if (rep == 0) {
			const sht_interval *it = sht_result_items(s->res);

			count = sht_result_count(s->res);
			for (size_t i = 0; i < count; i++) {
				if (i > 0 && (it[i].start < it[i - 1].start ||
					      (it[i].start == it[i - 1].start &&
					       it[i].quark <= it[i - 1].quark))) {
					s->mismatches++;
					if (s->reported++ < 10)
						fprintf(stderr,
							"sht-bench: MISMATCH "
							"2D order at %zu\n", i);
				}
				s->mismatches += (uint64_t)check_answer(
					&o->w, it[i].quark, it[i].start, &it[i],
					&s->reported);
				s->mismatches += (uint64_t)check_answer(
					&o->w, it[i].quark, it[i].end, &it[i],
					&s->reported);
			}
		} else if (sht_result_count(s->res) != count) {
			s->mismatches++;
		}
	}
	put(s->ms, k_ms, median(ms, 10));
	if (!cold) {
		put_int(s->ms, "q2d_intervals", (double)count);
		put_int(s->ms, "q2d_quarks", (double)nq);
		put_int(s->ms, "q2d_points", (double)o->q2d_points);
	}
	free(qs);
	return 0;
}

static int time_opens(struct qstate *s, int cold, const char *key)
{
	const struct store_opts *o = s->o;
	sht_reader_opts oo = { o->cache_bytes };
	double v[15];
	int n = o->opens < 15 ? o->opens : 15;

	for (int i = 0; i < n; i++) {
		sht_reader *r2;
		double t0, t1;
		sht_err err;

		if (cold)
			sht_reader_drop_caches(s->r);
		t0 = now_s();
		err = sht_reader_open(o->path, &oo, &r2);
		t1 = now_s();
		if (err < 0) {
			fail(s->ms, "sht_reader_open", err);
			return -1;
		}
		sht_reader_close(r2);
		v[i] = (t1 - t0) * 1e3;
	}
	put(s->ms, key, median(v, (size_t)n));
	return 0;
}

static void phase_query(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	sht_reader_opts oo = { o->cache_bytes };
	struct qstate s;
	sht_tree_info info;
	sht_tree_stats *st;
	sht_err err;
	double t0, t1;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.ms = ms;
	s.rng = o->seed;
	s.quarks = o->w.quarks;

	/* Open: the first open after the build, then the median of several
	 * warm ones (the first query can run once open returns). */
	t0 = now_s();
	err = sht_reader_open(o->path, &oo, &s.r);
	t1 = now_s();
	if (err < 0) {
		fail(ms, "sht_reader_open", err);
		return;
	}
	put(ms, "open_first_ms", (t1 - t0) * 1e3);
	s.res = sht_result_create();
	if (!s.res)
		die("out of memory");
	if (time_opens(&s, 0, "open_ms") < 0)
		goto out;

	sht_reader_info_get(s.r, &info);
	put_int(ms, "file_bytes", (double)info.file_bytes);
	put_int(ms, "nodes", (double)info.nodes);
	put_int(ms, "blocks", (double)info.blocks);
	put_int(ms, "depth", info.depth);
	put_int(ms, "file_intervals", (double)info.intervals);
	put_int(ms, "quark_count", (double)info.quark_count);
	put(ms, "bytes_per_interval",
	    info.intervals ? (double)info.file_bytes / (double)info.intervals
			   : NAN);
	if (info.quark_count != o->w.quarks)
		fprintf(stderr, "sht-bench: warning: file quark_count %" PRIu64
			" != workload quarks %" PRIu64 "\n", info.quark_count,
			o->w.quarks);
	if (info.start != o->w.start || info.end != o->w.end) {
		s.mismatches++;
		fprintf(stderr, "sht-bench: MISMATCH file range [%" PRId64
			", %" PRId64 "] != workload [%" PRId64 ", %" PRId64
			"]\n", info.start, info.end, o->w.start, o->w.end);
	}

	st = xmalloc(sizeof *st);
	t0 = now_s();
	err = sht_reader_stats_get(s.r, st);
	t1 = now_s();
	if (err < 0) {
		fail(ms, "sht_reader_stats_get", err);
		free(st);
		goto out;
	}
	put(ms, "stats_s", t1 - t0);
	put_int(ms, "leaf_nodes", (double)st->leaf_nodes);
	put_int(ms, "core_nodes", (double)st->core_nodes);
	put_int(ms, "blob_blocks", (double)st->blob_blocks);
	put(ms, "fill_leaf", st->fill_leaf);
	put(ms, "fill_core", st->fill_core);
	free(st);

	if (o->check) {
		t0 = now_s();
		err = sht_reader_check(s.r, NULL, NULL, 0);
		t1 = now_s();
		put(ms, "check_s", t1 - t0);
		if (err != SHT_OK) {
			s.mismatches++;
			fprintf(stderr, "sht-bench: sht_reader_check: %s (%s)\n",
				sht_strerror(err), sht_errmsg());
		}
	}

	/* Single queries, warm: 1000 warm-up, then the timed ones. */
	if (!o->no_single) {
		note("single queries (warm)");
		for (int i = 0; i < 1000; i++)
			if (single_one(&s) < 0)
				goto out;
		if (single_batch(&s, o->queries, 0, "single_mean_us",
				 "single_p50_us", "single_p99_us",
				 "single_max_us", "single_visits",
				 "single_misses", "single_read_bytes") < 0)
			goto out;
		put_int(ms, "single_n", (double)o->queries);
	}

	if (!o->no_full) {
		note("full queries (warm)");
		if (full_batch(&s, 20, o->full_queries, 0, "full_mean_ms",
			       "full_p50_ms", "full_p99_ms", "full_max_ms",
			       "full_visits", "full_items") < 0)
			goto out;
		put_int(ms, "full_n", (double)o->full_queries);
	}

	if (!o->no_2d) {
		note("2D queries (warm)");
		if (q2d_batch(&s, 0, "q2d_ms") < 0)
			goto out;
	}

	if (o->cold && !o->no_single) {
		note("single queries (cold)");
		if (single_batch(&s, o->cold_queries, 1, "cold_single_mean_us",
				 "cold_single_p50_us", "cold_single_p99_us",
				 "cold_single_max_us", "cold_single_visits",
				 "cold_single_misses",
				 "cold_single_read_bytes") < 0)
			goto out;
	}
	if (o->cold && !o->no_full) {
		note("full queries (cold)");
		if (full_batch(&s, 0, o->cold_full_queries, 1,
			       "cold_full_mean_ms", "cold_full_p50_ms",
			       "cold_full_p99_ms", "cold_full_max_ms",
			       "cold_full_visits", "cold_full_items") < 0)
			goto out;
	}
	if (o->cold && !o->no_2d) {
		note("2D query (cold)");
		if (q2d_batch(&s, 1, "cold_q2d_ms") < 0)
			goto out;
	}
	if (o->cold) {
		note("open (cold)");
		if (time_opens(&s, 1, "cold_open_ms") < 0)
			goto out;
		put_int(ms, "cold_batch", (double)o->cold_batch);
	}
out:
	put_int(ms, "mismatches", (double)s.mismatches);
	put_int(ms, "not_found", (double)s.not_found);
	put_int(ms, "query_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
	sht_result_destroy(s.res);
	sht_reader_close(s.r);
}

/* ---- store: one run ------------------------------------------------------------- */

static const char *variant_name(sht_variant v)
{
	return v == SHT_VARIANT_SHT ? "sht" : "esht";
}

/* One whole run: generator, build, queries.  Returns the number of
 * mismatches, or -1 if a phase failed. */
static int store_run(struct store_opts *o, int run, struct metrics *out)
{
	struct metrics part;
	const char *strs[] = { "mode", "store", "type", "run",
			       "workload", shtgen_wl_name(&o->w.wl),
			       "variant", variant_name(o->bo.variant),
			       NULL };
	double mis = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	put_int(out, "run", run);
	put_int(out, "size", (double)o->size);
	put_int(out, "block_size", o->bo.block_size);
	put_int(out, "max_children", o->bo.max_children);
	if (o->w.wl.kind == SHTGEN_WL_STAIRCASE)
		put_int(out, "staircase_i", o->intervals);
	put_int(out, "no_sync", o->bo.no_sync);
	put_int(out, "seed", (double)o->seed);

	if (o->reuse)
		goto queries;
	snprintf(o->path, sizeof o->path, "%s/sht-bench-%s-%" PRIu64
		 "-%s-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 variant_name(o->bo.variant), (long)getpid());

	note("run %d: generator alone", run);
	if (run_in_child(NULL, NULL, NULL, phase_gen, o, &part) < 0)
		goto failed;
	merge(out, &part);

	note("run %d: build %s", run, o->path);
	if (run_in_child("build_maxrss_bytes", "build_user_s", "build_sys_s",
			 phase_build, o, &part) < 0)
		goto failed;
	merge(out, &part);

queries:
	note("run %d: queries %s", run, o->path);
	if (run_in_child("query_maxrss_bytes", "query_user_s", "query_sys_s",
			 phase_query, o, &part) < 0)
		goto failed;
	merge(out, &part);

	if (get(out, "mismatches", &mis) && mis > 0)
		rc = (int)mis;
	if (!o->keep && !o->reuse)
		unlink(o->path);
	json_line(strs, out);
	return rc;
failed:
	fprintf(stderr, "sht-bench: run %d failed: %s\n", run, part.err);
	if (!o->keep && !o->reuse)
		unlink(o->path);
	return -1;
}

/* ---- limits: the machine's physical anchors ------------------------------------ */

struct limits_opts {
	const char *dir;
	uint64_t bytes;
	int keep;
	int quick;      /* --quick: memory tests over <= 16 MiB, fewer steps */
};

struct chase_line {
	struct chase_line *next;
	char pad[64 - sizeof(struct chase_line *)];
};

static void *volatile chase_sink;

/* Average latency of one dependent load over a random cycle of lines
 * covering bytes, in ns. */
static double chase_ns(size_t bytes, uint64_t steps, uint64_t *seed)
{
	size_t n = bytes / sizeof(struct chase_line);
	struct chase_line *a = xmalloc(n * sizeof *a);
	size_t *perm = xmalloc(n * sizeof *perm);
	struct chase_line *p;
	double t0, t1;

	/* Sattolo's algorithm: one cycle through every line. */
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rng_below(seed, i);
		size_t tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (size_t i = 0; i < n; i++)
		a[perm[i]].next = &a[perm[(i + 1) % n]];
	free(perm);
	p = &a[0];
	for (uint64_t i = 0; i < n; i++)     /* touch, warm the TLB */
		p = p->next;
	t0 = now_s();
	for (uint64_t i = 0; i < steps; i++)
		p = p->next;
	t1 = now_s();
	chase_sink = p;                       /* keep the loop */
	free(a);
	return (t1 - t0) / (double)steps * 1e9;
}

static double mem_read_gbps(size_t bytes)
{
	uint64_t *a = xmalloc(bytes);
	size_t n = bytes / sizeof *a;
	volatile uint64_t sink;
	uint64_t sum = 0;
	double best = 0;

	for (size_t i = 0; i < n; i++)
		a[i] = i;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_s(), t1;

		for (size_t i = 0; i < n; i++)
			sum += a[i];
		t1 = now_s();
		if ((double)bytes / (t1 - t0) / 1e9 > best)
			best = (double)bytes / (t1 - t0) / 1e9;
	}
	sink = sum;
	(void)sink;
	free(a);
	return best;
}

static void phase_limits(void *ctx, struct metrics *ms)
{
	const struct limits_opts *o = ctx;
	const size_t chunk = 1u << 20;
	char path[4096];
	char *buf;
	uint64_t seed = 12345;
	uint64_t chunks = o->bytes / chunk;
	int fd;
	double t0, t1, t2;
	double lat[400];

	snprintf(path, sizeof path, "%s/sht-bench-limits-%ld.tmp", o->dir,
		 (long)getpid());
	if (posix_memalign((void **)&buf, 4096, chunk) != 0)
		die("out of memory");
	for (size_t i = 0; i < chunk / 8; i++) {
		uint64_t x = rng_next(&seed);

		memcpy(buf + i * 8, &x, 8);
	}

	/* Sequential write, 1 MiB chunks, then fsync. */
	note("limits: sequential write of %" PRIu64 " bytes", chunks * chunk);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	t0 = now_s();
	for (uint64_t i = 0; i < chunks; i++) {
		buf[0] = (char)i;
		if (write(fd, buf, chunk) != (ssize_t)chunk)
			die("write %s: %s", path, strerror(errno));
	}
	t1 = now_s();
	if (fsync(fd) < 0)
		die("fsync %s: %s", path, strerror(errno));
	t2 = now_s();
	put_int(ms, "file_bytes", (double)(chunks * chunk));
	put(ms, "write_nosync_MBps", (double)(chunks * chunk) / (t1 - t0) / 1e6);
	put(ms, "write_fsync_MBps", (double)(chunks * chunk) / (t2 - t0) / 1e6);
	put(ms, "fsync_s", t2 - t1);

	/* Sequential read, warm (the pages are cached after the write). */
	note("limits: sequential read");
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		t0 = now_s();
		for (uint64_t i = 0; i < chunks; i++)
			if (pread(fd, buf, chunk, (off_t)(i * chunk)) !=
			    (ssize_t)chunk)
				die("read %s: %s", path, strerror(errno));
		t1 = now_s();
		put(ms, pass ? "read_cold_MBps" : "read_warm_MBps",
		    (double)(chunks * chunk) / (t1 - t0) / 1e6);
	}

	/* Random 64 KiB reads (one node): warm, then cold (pages dropped). */
	note("limits: random 64 KiB reads");
	for (int pass = 0; pass < 2; pass++) {
		uint64_t blocks = chunks * chunk / 65536;
		size_t n = sizeof lat / sizeof lat[0];
		double sum = 0;

		posix_fadvise(fd, 0, 0, pass ? POSIX_FADV_DONTNEED
					      : POSIX_FADV_NORMAL);
		if (pass == 0) {      /* make sure it is all cached */
			for (uint64_t i = 0; i < chunks; i++)
				if (pread(fd, buf, chunk,
					  (off_t)(i * chunk)) < 0)
					die("read: %s", strerror(errno));
		}
		for (size_t i = 0; i < n; i++) {
			off_t off = (off_t)(rng_below(&seed, blocks) * 65536);

			t0 = now_s();
			if (pread(fd, buf, 65536, off) != 65536)
				die("read %s: %s", path, strerror(errno));
			t1 = now_s();
			lat[i] = (t1 - t0) * 1e6;
			sum += lat[i];
		}
		put(ms, pass ? "pread64k_cold_mean_us" : "pread64k_warm_mean_us",
		    sum / (double)n);
		put(ms, pass ? "pread64k_cold_p50_us" : "pread64k_warm_p50_us",
		    median(lat, n));
	}
	close(fd);
	if (!o->keep)
		unlink(path);
	free(buf);

	/* Memory: dependent random loads (pointer chasing), and a
	 * sequential read. */
	note("limits: memory latency");
	{
		uint64_t div = o->quick ? 20 : 1;

		put(ms, "mem_latency_ns_32KiB",
		    chase_ns(32u << 10, 20000000 / div, &seed));
		put(ms, "mem_latency_ns_1MiB",
		    chase_ns(1u << 20, 20000000 / div, &seed));
		put(ms, "mem_latency_ns_16MiB",
		    chase_ns(16u << 20, 10000000 / div, &seed));
		if (!o->quick)
			put(ms, "mem_latency_ns_256MiB",
			    chase_ns(256u << 20, 10000000, &seed));
		put(ms, "mem_read_GBps",
		    mem_read_gbps(o->quick ? 16u << 20 : 256u << 20));
	}
	{
		double c0 = now_s(), c1 = c0;
		int k;

		for (k = 0; k < 1000000; k++)
			c1 = now_s();
		put(ms, "clock_ns", (c1 - c0) / k * 1e9);
	}
	put_int(ms, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	put_int(ms, "mem_bytes", (double)sysconf(_SC_PHYS_PAGES) *
				 (double)sysconf(_SC_PAGESIZE));
}

/* ---- state: the whole state system ---------------------------------------------- */
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
	sht_builder_opts bo;      /* tree backend: variant, block, children,
				   no_sync, threads */
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

static const char *backend_name(sht_backend b)
{
	return b == SHT_BACKEND_MEMORY ? "memory" :
	       b == SHT_BACKEND_NULL ? "null" : "tree";
}

/* State changes the drive makes: staircase A*I modifies; churn, per
 * thread, 2 modifies at birth, 19 Status modifies and 1 clear. */
static uint64_t wl_changes(const struct workload *w)
{
	return w->wl.kind == SHTGEN_WL_STAIRCASE
		       ? w->wl.st.attributes * (uint64_t)w->wl.st.intervals
		       : 22 * w->wl.ch.threads;
}

/* Full name of quark q in the workload's attribute tree. */
static void wl_path(const struct workload *w, sht_quark q, char *buf,
		    size_t size)
{
	static const char *const leaf[3] = { "", "/Status", "/Exec_name" };

	if (w->wl.kind == SHTGEN_WL_STAIRCASE)
		snprintf(buf, size, "%" PRIu32, q);
	else if (q == 0)
		snprintf(buf, size, "Threads");
	else
		snprintf(buf, size, "Threads/%" PRIu32 "%s", (q - 1) / 3,
			 leaf[(q - 1) % 3]);
}

struct squery {
	const struct state_opts *o;
	sht_state *ss;
	sht_result *res;
	uint64_t rng;
	uint64_t mismatches;
	uint64_t reported;
	struct metrics *ms;
};

static sht_time sq_time(struct squery *s)
{
	const struct workload *w = &s->o->w;

	return w->start + (sht_time)rng_below(&s->rng,
					       (uint64_t)(w->end - w->start) + 1);
}

static void sq_mismatch(struct squery *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sq_mismatch(struct squery *s, const char *fmt, ...)
{
	va_list ap;

	s->mismatches++;
	if (s->reported++ >= 10)
		return;
	fputs("sht-bench: MISMATCH ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Check the answer of a single query of (q, t) that returned err. */
static void sq_check_single(struct squery *s, sht_quark q, sht_time t,
			    sht_err err)
{
	if (err != SHT_OK || sht_result_count(s->res) != 1) {
		sq_mismatch(s, "q=%" PRIu32 " t=%" PRId64 ": %s, %zu intervals",
			    q, t, err == SHT_OK ? "ok" : sht_strerror(err),
			    sht_result_count(s->res));
		return;
	}
	s->mismatches += (uint64_t)check_answer(
		&s->o->w, q, t, sht_result_at(s->res, 0), &s->reported);
}

static int sq_failed(struct squery *s, const char *what, sht_err err)
{
	fail(s->ms, what, err);
	return -1;
}

/* Single queries by quark: 1 000 warm-up, then --queries timed. */
static int sq_single(struct squery *s)
{
	uint64_t n = s->o->queries;
	double *lat = xmalloc(n * sizeof *lat);
	struct lat l;

	for (uint64_t i = 0; i < 1000 + n; i++) {
		sht_quark q = (sht_quark)rng_below(&s->rng, s->o->w.quarks);
		sht_time t = sq_time(s);
		double t0, t1;
		sht_err err;

		t0 = now_s();
		err = sht_state_query(s->ss, q, t, s->res);
		t1 = now_s();
		if (err < 0 && err != SHT_ERR_RANGE) {
			free(lat);
			return sq_failed(s, "sht_state_query", err);
		}
		if (i >= 1000)
			lat[i - 1000] = t1 - t0;
		sq_check_single(s, q, t, err);
	}
	l = lat_summary(lat, n);
	put(s->ms, "single_mean_us", l.mean * 1e6);
	put(s->ms, "single_p50_us", l.p50 * 1e6);
	put(s->ms, "single_p99_us", l.p99 * 1e6);
	put(s->ms, "single_max_us", l.max * 1e6);
	put_int(s->ms, "single_n", (double)n);
	free(lat);
	return 0;
}

/* Single queries by name: sht_state_quark_path (find), then
 * sht_state_query; names formatted before the clock starts. */
static int sq_single_name(struct squery *s)
{
	uint64_t n = s->o->queries;
	double *lat = xmalloc(n * sizeof *lat);
	double *look = xmalloc(n * sizeof *look);
	struct lat l;
	char name[64];

	for (uint64_t i = 0; i < n; i++) {
		sht_quark q = (sht_quark)rng_below(&s->rng, s->o->w.quarks);
		sht_quark found = SHT_QUARK_NONE;
		sht_time t = sq_time(s);
		double t0, t1, t2;
		sht_err err;

		wl_path(&s->o->w, q, name, sizeof name);
		t0 = now_s();
		err = sht_state_quark_path(s->ss, name, false, &found);
		t1 = now_s();
		if (err == SHT_OK)
			err = sht_state_query(s->ss, found, t, s->res);
		t2 = now_s();
		if (err < 0 && err != SHT_ERR_RANGE) {
			free(lat);
			free(look);
			return sq_failed(s, "look-up and query", err);
		}
		lat[i] = t2 - t0;
		look[i] = t1 - t0;
		if (found != q)
			sq_mismatch(s, "name \"%s\" gave quark %" PRIu32
				    ", expected %" PRIu32, name, found, q);
		else
			sq_check_single(s, q, t, err);
	}
	l = lat_summary(lat, n);
	put(s->ms, "name_mean_us", l.mean * 1e6);
	put(s->ms, "name_p50_us", l.p50 * 1e6);
	put(s->ms, "name_p99_us", l.p99 * 1e6);
	l = lat_summary(look, n);
	put(s->ms, "lookup_mean_us", l.mean * 1e6);
	put(s->ms, "lookup_p50_us", l.p50 * 1e6);
	put(s->ms, "lookup_p99_us", l.p99 * 1e6);
	free(lat);
	free(look);
	return 0;
}

/* A full query at t: one interval per quark, in quark order, each
 * containing t; 64 random quarks checked against the oracle. */
static void sq_check_full(struct squery *s, sht_time t)
{
	size_t n = sht_result_count(s->res);
	const sht_interval *it = sht_result_items(s->res);

	if (n != s->o->w.quarks) {
		sq_mismatch(s, "full query t=%" PRId64 ": %zu intervals, "
			    "expected %" PRIu64, t, n, s->o->w.quarks);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (it[i].quark != (sht_quark)i || it[i].start > t ||
		    it[i].end < t) {
			sq_mismatch(s, "full query t=%" PRId64 ": item %zu is "
				    "q=%" PRIu32 " [%" PRId64 ", %" PRId64 "]",
				    t, i, it[i].quark, it[i].start, it[i].end);
			return;
		}
	}
	for (int k = 0; k < 64; k++) {
		sht_quark q = (sht_quark)rng_below(&s->rng, n);

		s->mismatches += (uint64_t)check_answer(&s->o->w, q, t, &it[q],
							&s->reported);
	}
}

static int sq_full(struct squery *s)
{
	uint64_t n = s->o->full_queries;
	double *lat = xmalloc(n * sizeof *lat);
	struct lat l;

	for (uint64_t i = 0; i < 20 + n; i++) {
		sht_time t = sq_time(s);
		double t0, t1;
		sht_err err;

		t0 = now_s();
		err = sht_state_query_full(s->ss, t, s->res);
		t1 = now_s();
		if (err < 0) {
			free(lat);
			return sq_failed(s, "sht_state_query_full", err);
		}
		if (i >= 20)
			lat[i - 20] = t1 - t0;
		sq_check_full(s, t);
	}
	l = lat_summary(lat, n);
	put(s->ms, "full_mean_ms", l.mean * 1e3);
	put(s->ms, "full_p50_ms", l.p50 * 1e3);
	put(s->ms, "full_p99_ms", l.p99 * 1e3);
	put(s->ms, "full_max_ms", l.max * 1e3);
	put_int(s->ms, "full_n", (double)n);
	return free(lat), 0;
}

/*
 * A range query of q over [t1, t2] at resolution r: the intervals of q
 * holding a sample t1 + k r or t2 (KERNEL_MODEL.md §2.3), in time order,
 * each one once, none other.  Each checked at both ends.
 */
static void sq_check_range(struct squery *s, sht_quark q, sht_time t1,
			   sht_time t2, sht_time r)
{
	size_t n = sht_result_count(s->res);
	const sht_interval *it = sht_result_items(s->res);
	size_t k = 0;
	int hit = 0;

	for (size_t i = 0; i < n; i++) {
		if (it[i].quark != q ||
		    (i > 0 && it[i].start <= it[i - 1].end)) {
			sq_mismatch(s, "range q=%" PRIu32 ": item %zu out of "
				    "order or of another quark", q, i);
			return;
		}
		s->mismatches += (uint64_t)check_answer(
			&s->o->w, q, it[i].start, &it[i], &s->reported);
		s->mismatches += (uint64_t)check_answer(
			&s->o->w, q, it[i].end, &it[i], &s->reported);
	}
	for (sht_time x = t1;; x = t2 - x > r ? x + r : t2) {
		while (k < n && it[k].end < x) {
			if (!hit)
				goto extra;
			k++;
			hit = 0;
		}
		if (k == n || it[k].start > x) {
			sq_mismatch(s, "range q=%" PRIu32 ": no interval at "
				    "sample %" PRId64, q, x);
			return;
		}
		hit = 1;
		if (x == t2)
			break;
	}
	if (k + 1 == n)
		return;
	k++;
extra:
	sq_mismatch(s, "range q=%" PRIu32 ": interval %zu holds no sample", q,
		    k);
}

static int sq_range(struct squery *s)
{
	const struct workload *w = &s->o->w;
	uint64_t n = s->o->range_queries;
	double *lat = xmalloc(n * sizeof *lat);
	sht_time r = (w->end - w->start) / (sht_time)s->o->range_points;
	double items = 0;
	struct lat l;

	if (r < 1)
		r = 1;
	for (uint64_t i = 0; i < 10 + n; i++) {
		sht_quark q = (sht_quark)rng_below(&s->rng, w->quarks);
		double t0, t1;
		sht_err err;

		t0 = now_s();
		err = sht_state_query_range(s->ss, q, w->start, w->end, r,
					    s->res);
		t1 = now_s();
		if (err < 0) {
			free(lat);
			return sq_failed(s, "sht_state_query_range", err);
		}
		if (i >= 10) {
			lat[i - 10] = t1 - t0;
			items += (double)sht_result_count(s->res);
		}
		sq_check_range(s, q, w->start, w->end, r);
	}
	l = lat_summary(lat, n);
	put(s->ms, "range_mean_us", l.mean * 1e6);
	put(s->ms, "range_p50_us", l.p50 * 1e6);
	put(s->ms, "range_p99_us", l.p99 * 1e6);
	put(s->ms, "range_items", items / (double)n);
	put_int(s->ms, "range_n", (double)n);
	put_int(s->ms, "range_points", (double)s->o->range_points);
	return free(lat), 0;
}

/* The history's identity: attributes, bounds, provider. */
static void sq_check_history(struct squery *s)
{
	const struct workload *w = &s->o->w;
	const char *id = NULL;
	uint32_t version = 0;
	uint64_t attrs = sht_state_attr_count(s->ss);

	if (attrs != w->quarks)
		sq_mismatch(s, "%" PRIu64 " attributes, expected %" PRIu64,
			    attrs, w->quarks);
	if (sht_state_start(s->ss) != w->start ||
	    sht_state_end(s->ss) != w->end)
		sq_mismatch(s, "history [%" PRId64 ", %" PRId64 "], expected "
			    "[%" PRId64 ", %" PRId64 "]", sht_state_start(s->ss),
			    sht_state_end(s->ss), w->start, w->end);
	if (sht_state_provider(s->ss, &id, &version) != SHT_OK ||
	    strcmp(id, shtgen_wl_name(&s->o->w.wl)) != 0 || version != 1)
		sq_mismatch(s, "provider \"%s\" v%" PRIu32 ", expected \"%s\" v1",
			    id ? id : "(none)", version,
			    shtgen_wl_name(&s->o->w.wl));
}

/* Every query kind on s->ss; 0 or -1 (failure in s->ms). */
static int sq_all(struct squery *s)
{
	sq_check_history(s);
	/* Warm-up (as the store benchmark's sht_reader_stats_get does before its
	 * queries): 65 full queries evenly spread over the history read the
	 * nodes of every part of it into the node cache; the 1 000 random
	 * single queries below and the 20 full ones warm the rest. */
	note("warm-up");
	for (int i = 0; i <= 64; i++) {
		const struct workload *w = &s->o->w;
		sht_time t = w->start + (sht_time)((double)(w->end - w->start) *
						   i / 64);
		sht_err err = sht_state_query_full(s->ss, t, s->res);

		if (err < 0)
			return sq_failed(s, "sht_state_query_full", err);
	}
	note("single queries by quark");
	if (sq_single(s) < 0)
		return -1;
	note("single queries by name");
	if (sq_single_name(s) < 0)
		return -1;
	note("full queries");
	if (sq_full(s) < 0)
		return -1;
	note("range queries");
	return sq_range(s);
}

/* ---- state: build ---------------------------------------------------------------- */

static double rusage_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static void phase_state_build(void *ctx, struct metrics *ms)
{
	const struct state_opts *o = ctx;
	sht_state_opts so;
	sht_state *ss = NULL;
	uint64_t rss0 = proc_status_bytes("VmRSS");
	uint64_t count = shtgen_wl_intervals(&o->w.wl);
	struct rusage ru;
	double t0, t1, t2, t3, t4, build;
	sht_err err;

	sht_state_opts_init(&so);
	so.backend = o->backend;
	so.tree = o->bo;
	so.provider = shtgen_wl_name(&o->w.wl);
	so.provider_version = 1;

	t0 = now_s();
	err = sht_state_create(o->backend == SHT_BACKEND_TREE ? o->path : NULL,
			       o->w.start, &so, &ss);
	t1 = now_s();
	if (err < 0) {
		fail(ms, "sht_state_create", err);
		return;
	}
	err = shtgen_wl_drive(&o->w.wl, ss);
	t2 = now_s();
	if (err < 0) {
		fail(ms, "drive (changes and sht_state_finish)", err);
		sht_state_close(ss);
		return;
	}
	put_int(ms, "build_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
	if (o->backend == SHT_BACKEND_MEMORY) {
		struct squery s;

		/* The build's own CPU and peak, before the queries. */
		getrusage(RUSAGE_SELF, &ru);
		put(ms, "build_user_s", rusage_s(&ru.ru_utime));
		put(ms, "build_sys_s", rusage_s(&ru.ru_stime));
		put_int(ms, "build_maxrss_bytes",
			(double)proc_status_bytes("VmHWM"));
		memset(&s, 0, sizeof s);
		s.o = o;
		s.ss = ss;
		s.ms = ms;
		s.rng = o->seed;
		s.res = sht_result_create();
		if (!s.res)
			die("out of memory");
		sq_all(&s);
		put_int(ms, "mismatches", (double)s.mismatches);
		sht_result_destroy(s.res);
		put_int(ms, "query_vmhwm_bytes",
			(double)proc_status_bytes("VmHWM"));
	}
	t3 = now_s();
	sht_state_close(ss);
	t4 = now_s();
	if (o->backend != SHT_BACKEND_MEMORY) {
		getrusage(RUSAGE_SELF, &ru);
		put(ms, "build_user_s", rusage_s(&ru.ru_utime));
		put(ms, "build_sys_s", rusage_s(&ru.ru_stime));
	}
	build = (t2 - t0) + (t4 - t3);
	put(ms, "build_s", build);
	put(ms, "build_create_s", t1 - t0);
	put(ms, "build_drive_s", t2 - t1);
	put(ms, "build_close_s", t4 - t3);
	put_int(ms, "intervals", (double)count);
	put(ms, "intervals_per_s", (double)count / build);
	put_int(ms, "changes", (double)wl_changes(&o->w));
	put(ms, "changes_per_s", (double)wl_changes(&o->w) / build);
	put_int(ms, "build_rss_start_bytes", (double)rss0);
}

/* ---- state: opens and queries of the file ------------------------------------------ */

/* Drop the file's cached pages (no special rights needed). */
static void drop_file_pages(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/*
 * n opens (with the look-up of name if name, the first use of the
 * attribute tree): medians of open alone, look-up alone, both, in ms.
 * cold: the file's pages dropped before each.
 */
static int sq_opens(struct squery *s, int n, int cold, const char *name,
		    sht_quark expect, const char *k_open, const char *k_lookup,
		    const char *k_both)
{
	double vo[32], vl[32], vb[32];

	if (n > 32)
		n = 32;
	for (int i = 0; i < n; i++) {
		sht_state *ss;
		sht_quark q = SHT_QUARK_NONE;
		double t0, t1, t2;
		sht_err err;

		if (cold)
			drop_file_pages(s->o->path);
		t0 = now_s();
		err = sht_state_open(s->o->path, NULL, &ss);
		t1 = now_s();
		if (err < 0)
			return sq_failed(s, "sht_state_open", err);
		if (name) {
			err = sht_state_quark_path(ss, name, false, &q);
			t2 = now_s();
			if (err < 0) {
				sht_state_close(ss);
				return sq_failed(s, "sht_state_quark_path", err);
			}
			if (q != expect)
				sq_mismatch(s, "name \"%s\" gave quark %" PRIu32
					    ", expected %" PRIu32, name, q,
					    expect);
			vl[i] = (t2 - t1) * 1e3;
			vb[i] = (t2 - t0) * 1e3;
		}
		vo[i] = (t1 - t0) * 1e3;
		sht_state_close(ss);
	}
	put(s->ms, k_open, median(vo, (size_t)n));
	if (name) {
		put(s->ms, k_lookup, median(vl, (size_t)n));
		put(s->ms, k_both, median(vb, (size_t)n));
	}
	return 0;
}

static void phase_state_query(void *ctx, struct metrics *ms)
{
	const struct state_opts *o = ctx;
	struct squery s;
	sht_reader *r;
	sht_tree_info info;
	char name[64];
	sht_quark last = (sht_quark)(o->w.quarks - 1);
	sht_quark q = SHT_QUARK_NONE;
	void *data;
	size_t len;
	double t0, t1, t2;
	sht_err err;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.ms = ms;
	s.rng = o->seed;

	/* The first open after the build, and its first look-up (of the
	 * last attribute created): this state system runs the queries. */
	if (o->w.wl.kind == SHTGEN_WL_CHURN)
		last = (sht_quark)(o->w.quarks - 2);   /* .../Status */
	wl_path(&o->w, last, name, sizeof name);
	t0 = now_s();
	err = sht_state_open(o->path, NULL, &s.ss);
	t1 = now_s();
	if (err < 0) {
		fail(ms, "sht_state_open", err);
		return;
	}
	err = sht_state_quark_path(s.ss, name, false, &q);
	t2 = now_s();
	if (err < 0) {
		fail(ms, "sht_state_quark_path", err);
		sht_state_close(s.ss);
		return;
	}
	if (q != last)
		sq_mismatch(&s, "name \"%s\" gave quark %" PRIu32, name, q);
	put(ms, "open_first_ms", (t1 - t0) * 1e3);
	put(ms, "lookup_first_ms", (t2 - t1) * 1e3);
	s.res = sht_result_create();
	if (!s.res)
		die("out of memory");

	note("opens");
	if (sq_opens(&s, o->opens, 0, NULL, 0, "open_ms", NULL, NULL) < 0 ||
	    sq_opens(&s, o->opens, 0, name, last, "open2_ms",
		     "open_lookup_only_ms", "open_lookup_ms") < 0)
		goto out;

	/* The file, through a reader of its own (not timed). */
	err = sht_reader_open(o->path, NULL, &r);
	if (err < 0) {
		fail(ms, "sht_reader_open", err);
		goto out;
	}
	sht_reader_info_get(r, &info);
	put_int(ms, "file_bytes", (double)info.file_bytes);
	put_int(ms, "nodes", (double)info.nodes);
	put_int(ms, "depth", info.depth);
	put_int(ms, "file_intervals", (double)info.intervals);
	put(ms, "bytes_per_interval",
	    info.intervals ? (double)info.file_bytes / (double)info.intervals
			   : NAN);
	if (info.intervals != shtgen_wl_intervals(&o->w.wl))
		sq_mismatch(&s, "file holds %" PRIu64 " intervals, expected "
			    "%" PRIu64, info.intervals,
			    shtgen_wl_intervals(&o->w.wl));
	/* Section 1: the attribute tree (docs/FORMAT.md §6). */
	if (sht_reader_section(r, 1, NULL, &data, &len) == SHT_OK) {
		put_int(ms, "attrs_section_bytes", (double)len);
		free(data);
	}
	sht_reader_close(r);

	if (sq_all(&s) < 0)
		goto out;
	/* Last, as they drop the file's pages (the queries above are warm). */
	note("opens (cold)");
	sq_opens(&s, o->opens < 5 ? o->opens : 5, 1, name, last,
		 "cold_open_ms", "cold_lookup_only_ms", "cold_open_lookup_ms");
out:
	put_int(ms, "mismatches", (double)s.mismatches);
	put_int(ms, "query_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
	sht_result_destroy(s.res);
	sht_state_close(s.ss);
}

/* ---- state: one run ---------------------------------------------------------------- */

/* Copy a metric of src under another name (both string literals). */
static void rename_metric(struct metrics *dst, const struct metrics *src,
			  const char *from, const char *to)
{
	double v;

	if (get(src, from, &v))
		put(dst, to, v);
}

static int state_run(struct state_opts *o, int run, struct metrics *out)
{
	struct metrics part;
	const char *strs[] = { "mode", "state", "type", "run",
			       "workload", shtgen_wl_name(&o->w.wl),
			       "backend", backend_name(o->backend),
			       "variant", variant_name(o->bo.variant),
			       NULL };
	int tree = o->backend == SHT_BACKEND_TREE;
	double mis = 0, a, b;
	int rc = 0;

	memset(out, 0, sizeof *out);
	put_int(out, "run", run);
	put_int(out, "size", (double)o->size);
	put_int(out, "threads", o->bo.threaded);
	put_int(out, "block_size", o->bo.block_size);
	put_int(out, "max_children", o->bo.max_children);
	if (o->w.wl.kind == SHTGEN_WL_STAIRCASE)
		put_int(out, "staircase_i", o->intervals);
	put_int(out, "no_sync", o->bo.no_sync);
	put_int(out, "seed", (double)o->seed);
	snprintf(o->path, sizeof o->path, "%s/sht-bench-state-%s-%" PRIu64
		 "-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 (long)getpid());
	snprintf(o->store_path, sizeof o->store_path, "%s/sht-bench-store-%s-%"
		 PRIu64 "-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 (long)getpid());

	if (tree && !o->no_store) {
		struct store_opts *so = xmalloc(sizeof *so);
		struct stat st;

		note("run %d: store-only build %s", run, o->store_path);
		memset(so, 0, sizeof *so);
		so->w = o->w;
		so->bo = o->bo;
		strcpy(so->path, o->store_path);
		if (run_in_child("store_build_maxrss_bytes", "store_build_user_s",
				 NULL, phase_build, so, &part) < 0) {
			free(so);
			unlink(o->store_path);
			goto failed;
		}
		free(so);
		rename_metric(out, &part, "build_s", "store_build_s");
		rename_metric(out, &part, "intervals_per_s",
			      "store_intervals_per_s");
		rename_metric(out, &part, "store_build_maxrss_bytes",
			      "store_build_maxrss_bytes");
		rename_metric(out, &part, "store_build_user_s",
			      "store_build_user_s");
		if (stat(o->store_path, &st) == 0)
			put_int(out, "store_file_bytes", (double)st.st_size);
		unlink(o->store_path);
	}

	note("run %d: build (%s backend)", run, backend_name(o->backend));
	if (run_in_child(o->backend == SHT_BACKEND_MEMORY
				 ? "child_maxrss_bytes" : "build_maxrss_bytes",
			 NULL, NULL, phase_state_build, o, &part) < 0)
		goto failed;
	merge(out, &part);
	if (get(out, "build_s", &a) && get(out, "store_build_s", &b))
		put(out, "state_vs_store", a / b);

	if (tree) {
		note("run %d: opens and queries %s", run, o->path);
		if (run_in_child("query_maxrss_bytes", "query_user_s",
				 "query_sys_s", phase_state_query, o, &part) < 0)
			goto failed;
		merge(out, &part);
		if (get(out, "file_bytes", &a) &&
		    get(out, "store_file_bytes", &b))
			put_int(out, "state_extra_bytes", a - b);
		if (!o->keep)
			unlink(o->path);
	}
	if (get(out, "mismatches", &mis) && mis > 0)
		rc = (int)mis;
	json_line(strs, out);
	return rc;
failed:
	fprintf(stderr, "sht-bench: run %d failed: %s\n", run, part.err);
	if (!o->keep)
		unlink(o->path);
	return -1;
}

/* ---- command line --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs(
"usage: sht-bench store --workload staircase|churn --size N [options]\n"
"       sht-bench state --workload staircase|churn --size N [options]\n"
"       sht-bench limits [--dir DIR] [--limit-bytes B] [--repeat K] [--quick]\n"
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
"Output: JSON lines on stdout.  Exit status 1 if an answer was wrong,\n"
"2 on errors.\n", f);
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		die("%s needs an argument", argv[*i]);
	return argv[++*i];
}

static int cmd_store(int argc, char **argv)
{
	struct store_opts o;
	const char *wl = NULL;
	int repeat = 1;
	int have_cq = 0, have_cfq = 0;
	struct metrics *runs;
	int worst = 0;
	const char *tmp = getenv("TMPDIR");

	memset(&o, 0, sizeof o);
	sht_builder_opts_init(&o.bo);
	if (o.bo.block_size == 0)
		o.bo.block_size = SHT_DEFAULT_BLOCK_SIZE;
	if (o.bo.max_children == 0)
		o.bo.max_children = SHT_DEFAULT_MAX_CHILDREN;
	o.bo.no_sync = 0;
	o.intervals = 20;
	o.dir = tmp && *tmp ? tmp : "/tmp";
	o.queries = 10000;
	o.full_queries = 200;
	o.cold_batch = 200;
	o.q2d_quarks = 1000;
	o.q2d_points = 1920;
	o.opens = 9;
	o.seed = 1;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--workload"))
			wl = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--size"))
			o.size = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--variant")) {
			const char *v = need_arg(argc, argv, &i);

			if (!strcmp(v, "esht"))
				o.bo.variant = SHT_VARIANT_ESHT;
			else if (!strcmp(v, "sht"))
				o.bo.variant = SHT_VARIANT_SHT;
			else
				die("--variant: esht or sht, not '%s'", v);
		} else if (!strcmp(a, "--block-size"))
			o.bo.block_size = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--max-children"))
			o.bo.max_children = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--intervals"))
			o.intervals = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--no-sync"))
			o.bo.no_sync = true;
		else if (!strcmp(a, "--dir"))
			o.dir = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--keep"))
			o.keep = 1;
		else if (!strcmp(a, "--queries"))
			o.queries = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--full-queries"))
			o.full_queries = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--cold"))
			o.cold = 1;
		else if (!strcmp(a, "--cold-queries")) {
			o.cold_queries = parse_u64(a, need_arg(argc, argv, &i));
			have_cq = 1;
		} else if (!strcmp(a, "--cold-full-queries")) {
			o.cold_full_queries =
				parse_u64(a, need_arg(argc, argv, &i));
			have_cfq = 1;
		} else if (!strcmp(a, "--cold-batch"))
			o.cold_batch = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--q2d-quarks"))
			o.q2d_quarks = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--q2d-points"))
			o.q2d_points = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--q2d-first"))
			o.q2d_first = 1;
		else if (!strcmp(a, "--opens"))
			o.opens = (int)parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--cache-bytes"))
			o.cache_bytes = (size_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--check"))
			o.check = 1;
		else if (!strcmp(a, "--skip")) {
			const char *v = need_arg(argc, argv, &i);

			o.no_single |= strstr(v, "single") != NULL;
			o.no_full |= strstr(v, "full") != NULL;
			o.no_2d |= strstr(v, "2d") != NULL;
			if (!o.no_single && !o.no_full && !o.no_2d)
				die("--skip: a list of single, full, 2d");
		} else if (!strcmp(a, "--file")) {
			const char *v = need_arg(argc, argv, &i);

			if (strlen(v) >= sizeof o.path)
				die("--file: path too long");
			strcpy(o.path, v);
			o.reuse = 1;
		}
		else if (!strcmp(a, "--seed"))
			o.seed = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--repeat"))
			repeat = (int)parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
			g_verbose = 1;
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else
			die("unknown option '%s' (try --help)", a);
	}
	if (!wl || o.size == 0)
		die("store needs --workload staircase|churn and --size N");
	if (!strcmp(wl, "staircase"))
		wl_init(&o.w, SHTGEN_WL_STAIRCASE, o.size, o.intervals);
	else if (!strcmp(wl, "churn"))
		wl_init(&o.w, SHTGEN_WL_CHURN, o.size, 0);
	else
		die("--workload: staircase or churn, not '%s'", wl);
	if (!have_cq)
		o.cold_queries = o.queries;
	if (!have_cfq)
		o.cold_full_queries = o.full_queries;
	if (repeat < 1 || o.queries < 1 || o.full_queries < 1 ||
	    o.cold_queries < 1 || o.cold_full_queries < 1 ||
	    o.cold_batch < 1 || o.q2d_points < 1 || o.q2d_quarks < 1 ||
	    o.opens < 1)
		die("counts must be >= 1");

	runs = xmalloc((size_t)repeat * sizeof *runs);
	for (int r = 0; r < repeat; r++) {
		int rc = store_run(&o, r, &runs[r]);

		if (rc < 0)
			return 2;
		if (rc > 0)
			worst = 1;
	}
	if (repeat > 1) {
		struct metrics med;
		const char *strs[] = { "mode", "store", "type", "median",
				       "workload", shtgen_wl_name(&o.w.wl),
				       "variant", variant_name(o.bo.variant),
				       NULL };

		metrics_median(runs, (size_t)repeat, &med);
		put_int(&med, "runs", repeat);
		json_line(strs, &med);
	}
	free(runs);
	if (worst)
		fprintf(stderr, "sht-bench: wrong answers (see mismatches)\n");
	return worst;
}

static int cmd_limits(int argc, char **argv)
{
	struct limits_opts o;
	int repeat = 1;
	struct metrics *runs;
	const char *tmp = getenv("TMPDIR");
	const char *strs[] = { "mode", "limits", "type", "run", NULL };
	const char *mstrs[] = { "mode", "limits", "type", "median", NULL };

	memset(&o, 0, sizeof o);
	o.dir = tmp && *tmp ? tmp : "/tmp";
	o.bytes = 1ull << 30;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--dir"))
			o.dir = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--limit-bytes"))
			o.bytes = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--keep"))
			o.keep = 1;
		else if (!strcmp(a, "--quick"))
			o.quick = 1;
		else if (!strcmp(a, "--repeat"))
			repeat = (int)parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
			g_verbose = 1;
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else
			die("unknown option '%s' (try --help)", a);
	}
	if (repeat < 1 || o.bytes < (1u << 20))
		die("--repeat >= 1, --limit-bytes >= 1M");
	runs = xmalloc((size_t)repeat * sizeof *runs);
	for (int r = 0; r < repeat; r++) {
		if (run_in_child(NULL, NULL, NULL, phase_limits, &o,
				 &runs[r]) < 0)
			die("limits run %d failed: %s", r, runs[r].err);
		put_int(&runs[r], "run", r);
		json_line(strs, &runs[r]);
	}
	if (repeat > 1) {
		struct metrics med;

		metrics_median(runs, (size_t)repeat, &med);
		put_int(&med, "runs", repeat);
		json_line(mstrs, &med);
	}
	free(runs);
	return 0;
}

static int cmd_state(int argc, char **argv)
{
	struct state_opts o;
	const char *wl = NULL;
	int repeat = 1;
	struct metrics *runs;
	int worst = 0;
	const char *tmp = getenv("TMPDIR");

	memset(&o, 0, sizeof o);
	sht_builder_opts_init(&o.bo);
	if (o.bo.block_size == 0)
		o.bo.block_size = SHT_DEFAULT_BLOCK_SIZE;
	if (o.bo.max_children == 0)
		o.bo.max_children = SHT_DEFAULT_MAX_CHILDREN;
	o.bo.no_sync = 0;
	o.bo.threaded = false;
	o.backend = SHT_BACKEND_TREE;
	o.intervals = 20;
	o.dir = tmp && *tmp ? tmp : "/tmp";
	o.queries = 10000;
	o.full_queries = 200;
	o.range_queries = 1000;
	o.range_points = 1920;
	o.opens = 9;
	o.seed = 1;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--workload"))
			wl = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--size"))
			o.size = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--backend")) {
			const char *v = need_arg(argc, argv, &i);

			if (!strcmp(v, "tree"))
				o.backend = SHT_BACKEND_TREE;
			else if (!strcmp(v, "memory"))
				o.backend = SHT_BACKEND_MEMORY;
			else if (!strcmp(v, "null"))
				o.backend = SHT_BACKEND_NULL;
			else
				die("--backend: tree, memory or null, not '%s'",
				    v);
		} else if (!strcmp(a, "--threads")) {
			uint64_t v = parse_u64(a, need_arg(argc, argv, &i));

			if (v > 1)
				die("--threads: 0 or 1");
			o.bo.threaded = v != 0;
		} else if (!strcmp(a, "--variant")) {
			const char *v = need_arg(argc, argv, &i);

			if (!strcmp(v, "esht"))
				o.bo.variant = SHT_VARIANT_ESHT;
			else if (!strcmp(v, "sht"))
				o.bo.variant = SHT_VARIANT_SHT;
			else
				die("--variant: esht or sht, not '%s'", v);
		} else if (!strcmp(a, "--block-size"))
			o.bo.block_size = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--max-children"))
			o.bo.max_children = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--intervals"))
			o.intervals = (uint32_t)parse_u64(
				a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--no-sync"))
			o.bo.no_sync = true;
		else if (!strcmp(a, "--no-store"))
			o.no_store = 1;
		else if (!strcmp(a, "--dir"))
			o.dir = need_arg(argc, argv, &i);
		else if (!strcmp(a, "--keep"))
			o.keep = 1;
		else if (!strcmp(a, "--queries"))
			o.queries = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--full-queries"))
			o.full_queries = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--range-queries"))
			o.range_queries = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--range-points"))
			o.range_points = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--opens"))
			o.opens = (int)parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--seed"))
			o.seed = parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--repeat"))
			repeat = (int)parse_u64(a, need_arg(argc, argv, &i));
		else if (!strcmp(a, "--verbose") || !strcmp(a, "-v"))
			g_verbose = 1;
		else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else
			die("unknown option '%s' (try --help)", a);
	}
	if (!wl || o.size == 0)
		die("state needs --workload staircase|churn and --size N");
	if (!strcmp(wl, "staircase"))
		wl_init(&o.w, SHTGEN_WL_STAIRCASE, o.size, o.intervals);
	else if (!strcmp(wl, "churn"))
		wl_init(&o.w, SHTGEN_WL_CHURN, o.size, 0);
	else
		die("--workload: staircase or churn, not '%s'", wl);
	if (repeat < 1 || o.queries < 1 || o.full_queries < 1 ||
	    o.range_queries < 1 || o.range_points < 1 || o.opens < 1)
		die("counts must be >= 1");

	runs = xmalloc((size_t)repeat * sizeof *runs);
	for (int r = 0; r < repeat; r++) {
		int rc = state_run(&o, r, &runs[r]);

		if (rc < 0)
			return 2;
		if (rc > 0)
			worst = 1;
	}
	if (repeat > 1) {
		struct metrics med;
		const char *strs[] = { "mode", "state", "type", "median",
				       "workload", shtgen_wl_name(&o.w.wl),
				       "backend", backend_name(o.backend),
				       "variant", variant_name(o.bo.variant),
				       NULL };

		metrics_median(runs, (size_t)repeat, &med);
		put_int(&med, "runs", repeat);
		json_line(strs, &med);
	}
	free(runs);
	if (worst)
		fprintf(stderr, "sht-bench: wrong answers (see mismatches)\n");
	return worst;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "store"))
		return cmd_store(argc - 2, argv + 2);
	if (!strcmp(argv[1], "limits"))
		return cmd_limits(argc - 2, argv + 2);
	if (!strcmp(argv[1], "state"))
		return cmd_state(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
