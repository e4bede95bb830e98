/*
 * state-query.c: sht-bench state's queries through the state system:
 * single (by quark and by name), full and range queries, every answer
 * checked; and the opens of a history file, warm and cold.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "sht-bench.h"
#include "rng.h"

struct squery {
	const struct state_opts *o;
	sht_state *ss;
	sht_result *res;
	struct rng rng;
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

/* ---- a history file: opens and queries ---------------------------------- */

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

void phase_state_query(void *ctx, struct metrics *ms)
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
	rng_seed(&s.rng, o->seed);

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

void state_queries_in_memory(const struct state_opts *o, sht_state *ss,
			     struct metrics *ms)
{
	struct squery s;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.ss = ss;
	s.ms = ms;
	rng_seed(&s.rng, o->seed);
	s.res = sht_result_create();
	if (!s.res)
		die("out of memory");
	sq_all(&s);
	put_int(ms, "mismatches", (double)s.mismatches);
	sht_result_destroy(s.res);
}
