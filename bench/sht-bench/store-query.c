/*
 * store-query.c: sht-bench store's query phase: opens, the file's shape,
 * warm and cold single, full and 2D queries, every answer checked.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "sht-bench.h"
#include "rng.h"

/* ---- phase 3: queries --------------------------------------------------------- */

struct qstate {
	const struct store_opts *o;
	sht_reader *r;
	sht_result *res;
	struct rng rng;
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
	sht_reader_opts oo = { .cache_bytes = o->cache_bytes };
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

void phase_query(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	sht_reader_opts oo = { .cache_bytes = o->cache_bytes };
	struct qstate s;
	sht_tree_info info;
	sht_tree_stats *st;
	sht_err err;
	double t0, t1;

	memset(&s, 0, sizeof s);
	s.o = o;
	s.ms = ms;
	rng_seed(&s.rng, o->seed);
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
