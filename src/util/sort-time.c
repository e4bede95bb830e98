/*
 * sort-time.c: a 2D answer in (start, quark) order, the order every 2D
 * query returns.
 *
 * A whole-history answer holds hundreds of thousands of intervals of 48
 * bytes, collected node by node; qsort with a comparison callback spent
 * a third of such a query moving them.  Instead: a key of 16 bytes per
 * interval (start with its sign bit flipped, so that unsigned order is
 * signed order; quark; index), sorted by LSD radix on bytes (the quark's
 * first, then the start's; a byte that every key shares is skipped, which
 * leaves 5 to 7 passes for a real history), then the intervals gathered
 * once in that order.  (start, quark) is unique in an answer, so the
 * order is the same as qsort's.  Small answers, and any allocation
 * failure, take qsort.
 */
#include <stdlib.h>

#include "util/result-int.h"

struct skey {
	uint64_t t;             /* start ^ 2^63 */
	uint32_t q, i;          /* quark, index in the answer */
};

enum { KEY_BYTES = 12, RADIX_MIN = 256 };

/* Byte p of a key, least significant first: the quark's 4, the start's 8. */
static inline unsigned key_byte(const struct skey *k, unsigned p)
{
	return p < 4 ? (k->q >> (8 * p)) & 0xff
		     : (unsigned)(k->t >> (8 * (p - 4))) & 0xff;
}

static int cmp_time(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->quark < y->quark ? -1 : x->quark > y->quark;
}

/* One stable pass on byte p, from a to b. */
static void pass(const struct skey *a, struct skey *b, size_t n,
		 const size_t *count, unsigned p)
{
	size_t at[256], sum = 0;

	for (unsigned v = 0; v < 256; v++) {
		at[v] = sum;
		sum += count[v];
	}
	for (size_t i = 0; i < n; i++)
		b[at[key_byte(&a[i], p)]++] = a[i];
}

static int radix(sht_result *res)
{
	size_t n = res->count;
	struct skey *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *t;
	size_t (*count)[256] = calloc(KEY_BYTES, sizeof *count);
	sht_interval *out = malloc(res->cap * sizeof *out);

	if (!a || !b || !count || !out) {
		free(a);
		free(b);
		free(count);
		free(out);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		a[i].t = (uint64_t)res->items[i].start ^ (UINT64_C(1) << 63);
		a[i].q = res->items[i].quark;
		a[i].i = (uint32_t)i;
		for (unsigned p = 0; p < KEY_BYTES; p++)
			count[p][key_byte(&a[i], p)]++;
	}
	for (unsigned p = 0; p < KEY_BYTES; p++) {
		if (count[p][key_byte(&a[0], p)] == n)
			continue;                  /* every key has this byte */
		pass(a, b, n, count[p], p);
		t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = res->items[a[i].i];
	free(res->items);
	res->items = out;
	free(a);
	free(b);
	free(count);
	return 1;
}

void sht__result_sort_time(sht_result *res)
{
	if (res->count < 2)
		return;
	if (res->count >= RADIX_MIN && res->count <= UINT32_MAX && radix(res))
		return;
	qsort(res->items, res->count, sizeof *res->items, cmp_time);
}
