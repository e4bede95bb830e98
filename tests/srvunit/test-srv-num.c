/*
 * test-srv-num.c: the server's number writer (srv_put_i64, util.c), which
 * writes every start and end of a time-graph answer, against snprintf:
 * the edges of each digit count, both signs, the extremes, and random
 * values of every magnitude.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bad += !same((int64_t)(x >> (x % 64)));
	}
	ok(bad == 0, "a million random values (%zu wrong)", bad);
	return done_testing();
}
