/*
 * test-srv-util.c: helpers every time-graph answer leans on, against
 * plain references.  The number writer (srv_put_i64, util.c), which
 * writes every start and end, against snprintf: the edges of each digit
 * count, both signs, the extremes, and random values of every magnitude;
 * its time variant (srv_put_time), which keeps the digits above the last
 * eight of the time before, the same on walks of near and far times.
 * The index of the first requested time >= t (srv_times_lower, req.c),
 * which takes evenly spaced times by their step, against a linear search:
 * grids of many spans and steps (a shorter last one), uneven lists, and
 * times before, between, on and after them.  Whether a screen's sampled
 * query keeps an interval (srv_sample_keeps, outshare.c), against its
 * definition read plainly: a requested time inside the history and the
 * interval (evenly spaced times), or the interval meeting the span of
 * those times (uneven ones), with a trace offset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "srv.h"
#include "tap.h"

/* 1 if srv_put_i64(v) is snprintf's "%lld" of v, and no byte more. */
static int same(int64_t v)
{
	char want[32], got[40];
	char *end;

	memset(got, 'x', sizeof got);
	snprintf(want, sizeof want, "%" PRId64, v);
	end = srv_put_i64(got, v);
	if ((size_t)(end - got) != strlen(want) || memcmp(got, want, strlen(want)) != 0 ||
	    got[strlen(want)] != 'x') {
		diag("%s: got %.*s", want, (int)(end - got), got);
		return 0;
	}
	return 1;
}

/* 1 if srv_put_time(v) with cache c is "%lld" of v, and no byte more. */
static int same_time(int64_t v, struct srv_tcache *c)
{
	char want[32], got[40];
	char *end;

	memset(got, 'x', sizeof got);
	snprintf(want, sizeof want, "%" PRId64, v);
	end = srv_put_time(got, v, c);
	if ((size_t)(end - got) != strlen(want) || memcmp(got, want, strlen(want)) != 0 ||
	    got[strlen(want)] != 'x') {
		diag("time %s: got %.*s", want, (int)(end - got), got);
		return 0;
	}
	return 1;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* srv_times_lower(ts, t) against a linear search; 1 if equal. */
static int lower_ok(const struct srv_times *ts, sht_time t)
{
	size_t i = 0;

	while (i < ts->n && ts->t[i] < t)
		i++;
	if (srv_times_lower(ts, t) == i)
		return 1;
	diag("n=%zu step=%" PRId64 " t=%" PRId64 ": got %zu, want %zu", ts->n,
	     ts->step, t, srv_times_lower(ts, t), i);
	return 0;
}

/* Random grids (start + k step while < end, then end; or an uneven
 * list, step 0), each probed at and around every time and at random. */
static void times_lower(void)
{
	uint64_t x = 12345;
	size_t bad = 0, probes = 0;

	for (int g = 0; g < 3000; g++) {
		struct srv_times ts;
		size_t n = 1 + rnd(&x) % 300;
		sht_time start = (sht_time)(rnd(&x) >> 2) - (INT64_C(1) << 60);
		sht_time step = 1 + (sht_time)(rnd(&x) % (g % 3 ? 1000 : 10000000));

		ts.t = malloc(n * sizeof *ts.t);
		for (size_t k = 0; k < n; k++)
			ts.t[k] = start + (sht_time)k * step;
		if (n > 1 && g % 2)            /* a shorter last step */
			ts.t[n - 1] -= (sht_time)(rnd(&x) % (uint64_t)step);
		if (n > 1 && ts.t[n - 1] <= ts.t[n - 2])
			ts.t[n - 1] = ts.t[n - 2] + 1;
		ts.n = n;
		ts.start = ts.t[0];
		ts.end = ts.t[n - 1];
		ts.step = g % 5 == 4 ? 0 : step;      /* some by bisection */
		for (size_t k = 0; k < n; k++)
			for (sht_time d = -1; d <= 1; d++) {
				bad += !lower_ok(&ts, ts.t[k] + d);
				probes++;
			}
		for (int k = 0; k < 20; k++) {
			sht_time span = ts.end - ts.start + 2 * step + 1;

			bad += !lower_ok(&ts, ts.start - step +
					 (sht_time)(rnd(&x) % (uint64_t)span));
			probes++;
		}
		bad += !lower_ok(&ts, INT64_MIN) + !lower_ok(&ts, INT64_MAX);
		probes += 2;
		free(ts.t);
	}
	ok(bad == 0, "first requested time >= t: %zu probes of 3000 grids (%zu wrong)",
	   probes, bad);
}

/* srv_sample_keeps against the plain definition on random intervals. */
static void sample_keeps(void)
{
	uint64_t x = 777;
	size_t bad = 0, probes = 0, kept = 0;

	for (int g = 0; g < 2000; g++) {
		struct srv_times ts;
		struct srv_hq q;
		struct srv_xform xf = { (sht_time)(rnd(&x) % 1000) - 500 };
		size_t n = 1 + rnd(&x) % 50;
		sht_time step = 1 + (sht_time)(rnd(&x) % 100), start = (sht_time)(rnd(&x) % 1000);

		ts.t = malloc(n * sizeof *ts.t);
		for (size_t k = 0; k < n; k++)    /* even, or jittered (step 0) */
			ts.t[k] = start + (sht_time)k * step +
				  (g % 2 ? (sht_time)(rnd(&x) % (uint64_t)step) / 2 : 0);
		ts.n = n;
		ts.start = ts.t[0];
		ts.end = ts.t[n - 1];
		ts.step = g % 2 ? 0 : step;
		memset(&q, 0, sizeof q);
		q.valid = 1;
		q.start = (sht_time)(rnd(&x) % 3000) - 500;
		q.end = q.start + (sht_time)(rnd(&x) % 3000);
		for (int k = 0; k < 50; k++) {
			sht_time a = q.start + (sht_time)(rnd(&x) % (uint64_t)(q.end - q.start + 1));
			sht_time b = a + (sht_time)(rnd(&x) % 200);
			sht_time lo = INT64_MAX, hi = INT64_MIN;
			int want = 0, got;

			if (b > q.end)
				b = q.end;
			for (size_t i = 0; i < n; i++) {  /* requested, in the history */
				sht_time t = srv_from_exp(&xf, ts.t[i]);

				if (t < q.start || t > q.end)
					continue;
				lo = t < lo ? t : lo;
				hi = t > hi ? t : hi;
				want |= ts.step > 0 && a <= t && t <= b;
			}
			if (ts.step == 0)
				want = lo <= hi && a <= hi && b >= lo;
			got = srv_sample_keeps(&q, &ts, &xf, a, b);
			kept += got;
			probes++;
			if (got != want && bad++ < 3)
				diag("step %" PRId64 " [%" PRId64 ", %" PRId64 "]: got %d", ts.step, a, b, got);
		}
		free(ts.t);
	}
	ok(bad == 0 && kept > 0 && kept < probes, "a sampled query keeps [a, b]: %zu probes, "
	   "%zu kept (%zu wrong)", probes, kept, bad);
}

int main(void)
{
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t bad = 0, n = 0;
	uint64_t p = 1;

	for (int d = 0; d < 19; d++, p *= 10)      /* around every 10^d */
		for (int64_t k = -2; k <= 2; k++) {
			int64_t v = (int64_t)p + k;

			bad += !same(v) + !same(-v);
			n += 2;
		}
	bad += !same(INT64_MAX) + !same(INT64_MIN) + !same(INT64_MIN + 1) + !same(0);
	n += 4;
	ok(bad == 0, "%zu values at the digit-count edges and extremes (%zu wrong)", n, bad);
	bad = 0;
	for (int i = 0; i < 1000000; i++) {        /* every magnitude */
		rnd(&x);
		bad += !same((int64_t)(x >> (x % 64)));
	}
	ok(bad == 0, "a million random values (%zu wrong)", bad);
	bad = 0;
	{
		struct srv_tcache c = { 0 };
		int64_t t = INT64_C(1767225599999999000);   /* 10^8 boundary ahead */

		for (int i = 0; i < 1000000; i++) {     /* steps of 0..2^(0..40) */
			rnd(&x);
			t += (int64_t)((x >> 24) & ((UINT64_C(1) << (x % 41)) - 1));
			if (i % 1000 == 999)        /* a jump back, or to another magnitude */
				t = (int64_t)(x >> (x % 64));
			bad += !same_time(t, &c);
		}
		bad += !same_time(0, &c) + !same_time(99999999, &c) +
		       !same_time(100000000, &c) + !same_time(-5, &c) +
		       !same_time(INT64_MAX, &c) + !same_time(INT64_MAX - 1, &c) +
		       !same_time(INT64_MIN, &c);
	}
	ok(bad == 0, "a million times in walks, srv_put_time (%zu wrong)", bad);
	times_lower();
	sample_keeps();
	return done_testing();
}
