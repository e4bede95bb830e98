/*
 * counter.c: the value of a counter of the statistics history (events
 * up to and including a time) at many times, from one sampled 2D query:
 * the Histogram's buckets and the event counts of a time range.
 */
#include <stdlib.h>
#include <string.h>

#include "counter.h"

static int64_t value_of(const sht_interval *iv)
{
	if (iv->value.type == SHT_TYPE_INT64)
		return iv->value.u.i64;
	if (iv->value.type == SHT_TYPE_INT32)
		return iv->value.u.i32;
	return 0;                       /* null: no event yet */
}

int srv_counter_at(struct srv_hq *q, sht_quark quark, const struct srv_times *ts,
		   const struct srv_xform *xf, int64_t *out)
{
	sht_result *res = sht_result_create();
	const sht_interval *iv;
	size_t n, k = 0;
	sht_err err;

	if (!res)
		return -1;
	err = srv_sample(q, &quark, quark == SHT_QUARK_NONE ? 0 : 1, ts, xf, res);
	if (err < 0) {
		sht_result_destroy(res);
		return -1;
	}
	iv = sht_result_items(res);
	n = sht_result_count(res);
	for (size_t i = 0; i < ts->n; i++) {
		sht_time t = srv_from_exp(xf, ts->t[i]);

		if (!q->valid || t < q->start) {
			out[i] = 0;
			continue;
		}
		if (t > q->end)
			break;
		while (k < n && iv[k].end < t)
			k++;
		out[i] = k < n && iv[k].start <= t ? value_of(&iv[k]) : 0;
	}
	/* Past the end of the history: its last value (no sample time may
	 * fall in the last interval, so it is asked for). */
	if (q->valid && quark != SHT_QUARK_NONE) {
		int64_t last = srv_hq_at(q, quark, q->end, res) == SHT_OK &&
			       sht_result_count(res) ? value_of(sht_result_at(res, 0)) : 0;

		for (size_t i = 0; i < ts->n; i++)
			if (srv_from_exp(xf, ts->t[i]) > q->end)
				out[i] = last;
	}
	sht_result_destroy(res);
	return 0;
}

int64_t srv_counter_in(const sht_result *res, sht_quark q)
{
	const sht_interval *iv = sht_result_items(res);
	size_t n = sht_result_count(res), lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (iv[m].quark < q)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo >= n || iv[lo].quark != q)
		return 0;
	if (iv[lo].value.type == SHT_TYPE_INT64)
		return iv[lo].value.u.i64;
	return iv[lo].value.type == SHT_TYPE_INT32 ? iv[lo].value.u.i32 : 0;
}
