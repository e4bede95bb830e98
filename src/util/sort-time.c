/*
 * sort-time.c: a 2D answer in (start, quark) order, the default order of
 * every 2D query, or in (quark, start) order (SHT_ORDER_QUARK).
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
 * failure, take qsort.  The order by quark is the same sort with the
 * bytes taken the other way round (the start's first, then the quark's).
 */
#include <stdlib.h>

#include "util/result-int.h"

struct skey {
	uint64_t t;             /* start ^ 2^63 */
	uint32_t q, i;          /* quark, index in the answer */
};

enum { KEY_BYTES = 12, RADIX_MIN = 256 };

/* Byte p of a key, least significant first: by time, the quark's 4 then
 * the start's 8; by quark (by_q), the start's 8 then the quark's 4. */
static inline unsigned key_byte(const struct skey *k, unsigned p, int by_q)
{
	if (by_q)
		return p < 8 ? (unsigned)(k->t >> (8 * p)) & 0xff
			     : (k->q >> (8 * (p - 8))) & 0xff;
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

static int cmp_quark_time(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->quark != y->quark)
		return x->quark < y->quark ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* One stable pass on byte p, from a to b. */
static void pass(const struct skey *a, struct skey *b, size_t n,
		 const size_t *count, unsigned p, int by_q)
{
	size_t at[256], sum = 0;

	for (unsigned v = 0; v < 256; v++) {
		at[v] = sum;
		sum += count[v];
	}
	for (size_t i = 0; i < n; i++)
		b[at[key_byte(&a[i], p, by_q)]++] = a[i];
}

static int radix(sht_result *res, int by_q)
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
			count[p][key_byte(&a[i], p, by_q)]++;
	}
	for (unsigned p = 0; p < KEY_BYTES; p++) {
		if (count[p][key_byte(&a[0], p, by_q)] == n)
			continue;                  /* every key has this byte */
		pass(a, b, n, count[p], p, by_q);
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

static void sort_by(sht_result *res, int by_q)
{
	if (res->count < 2)
		return;
	if (res->count >= RADIX_MIN && res->count <= UINT32_MAX &&
	    radix(res, by_q))
		return;
	qsort(res->items, res->count, sizeof *res->items,
	      by_q ? cmp_quark_time : cmp_time);
}

void sht__q2d_sort(const sht_query2d *q, sht_result *res)
{
	sort_by(res, q->order == SHT_ORDER_QUARK);
}
