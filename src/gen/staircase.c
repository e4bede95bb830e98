/*
 * staircase.c: the staircase workload of docs/GENERATOR.md (the
 * synthetic trace of the eSHT paper, its Figure 7), as a stream of
 * intervals in builder order.
 *
 * A attributes, quark a = attribute "a", history start 0.  For
 * j = 0 .. A*I-1: t = j*D, a = j mod A, k = j div A, modify(t, a, int32 k);
 * close at T = A*I*D.  Each modify ends the attribute's ongoing interval
 * at t - 1, so the intervals come out in the order of j:
 *
 *   k == 0, a > 0: [0, a*D - 1]             null   (attribute 0's is empty)
 *   k > 0:         [(j - A)*D, j*D - 1]     int32 k - 1
 *   close, a = 0 .. A-1: [(A*(I-1) + a)*D, T]  int32 I - 1
 *
 * Every end is j*D - 1 or T: non-decreasing.  Values are int32, so
 * I <= 2^31; A <= SHT_QUARK_MAX + 1 and A*I*D must fit sht_time.  Count: (A - 1) + A*(I - 1)
 * + A = A*(I + 1) - 1.
 *
 * shtgen_staircase_drive (end of the file) performs the same changes on a
 * state system instead.
 */
#include <stdio.h>

#include "gen/gen-int.h"
#include <shtgen/workload.h>

/* 1 if the workload is valid and A*I*D (and so every time) fits sht_time
 * and every quark fits sht_quark. */
static int staircase_valid(const shtgen_staircase *w)
{
	uint64_t a = w->attributes;
	uint64_t i = w->intervals;
	uint64_t d = (uint64_t)w->step;

	if (a < 1 || i < 1 || w->step < 1)
		return 0;
	if (a - 1 > SHT_QUARK_MAX || i - 1 > INT32_MAX)
		return 0;
	if (a > (uint64_t)SHT_TIME_MAX / i)
		return 0;
	return a * i <= (uint64_t)SHT_TIME_MAX / d;
}

sht_time shtgen_staircase_end(const shtgen_staircase *w)
{
	if (!staircase_valid(w))
		return 0;
	return (sht_time)(w->attributes * w->intervals) * w->step;
}

uint64_t shtgen_staircase_count(const shtgen_staircase *w)
{
	if (!staircase_valid(w))
		return 0;
	return w->attributes * ((uint64_t)w->intervals + 1) - 1;
}

static sht_err emit_one(shtgen_emit_fn emit, void *ctx, sht_quark q,
			sht_time start, sht_time end, sht_value v)
{
	sht_interval iv;

	iv.quark = q;
	iv.start = start;
	iv.end = end;
	iv.value = v;
	return emit(ctx, &iv);
}

/* The ongoing intervals at the close, in quark order. */
static sht_err staircase_close(const shtgen_staircase *w, shtgen_emit_fn emit,
			       void *ctx)
{
	uint64_t a_count = w->attributes;
	sht_time d = w->step;
	sht_time t_end = shtgen_staircase_end(w);
	sht_time base = (sht_time)(a_count * (w->intervals - 1u));
	sht_value v = sht_value_int32((int32_t)(w->intervals - 1u));
	sht_err err;

	for (uint64_t a = 0; a < a_count; a++) {
		err = emit_one(emit, ctx, (sht_quark)a, (base + (sht_time)a) * d,
			       t_end, v);
		if (err < 0)
			return err;
	}
	return SHT_OK;
}

sht_err shtgen_staircase_run(const shtgen_staircase *w, shtgen_emit_fn emit,
			   void *ctx)
{
	uint64_t a_count = w->attributes;
	uint64_t total;
	sht_time d = w->step;
	sht_err err;

	if (!staircase_valid(w))
		return sht_error_set(SHT_ERR_INVALID, "Cannot generate staircase: "
				  "attributes=%llu intervals=%lu step=%lld "
				  "(each >= 1, A*I*D within sht_time)",
				  (unsigned long long)w->attributes,
				  (unsigned long)w->intervals,
				  (long long)w->step);
	total = a_count * w->intervals;
	for (uint64_t j = 0; j < total; j++) {
		uint64_t a = j % a_count;
		uint64_t k = j / a_count;
		sht_time t = (sht_time)j * d;

		if (k == 0 && a == 0)
			continue;       /* attribute 0's null interval is empty */
		if (k == 0)
			err = emit_one(emit, ctx, (sht_quark)a, 0, t - 1,
				       sht_value_null());
		else
			err = emit_one(emit, ctx, (sht_quark)a,
				       (sht_time)(j - a_count) * d, t - 1,
				       sht_value_int32((int32_t)(k - 1)));
		if (err < 0)
			return err;
	}
	return staircase_close(w, emit, ctx);
}

/*
 * BENCHMARKS.md: null if t < a*D, else int32 (t - a*D) div (A*D).  The
 * formula gives I at t = T for attribute 0, whose last interval (value
 * I - 1) ends at T: the value is capped at I - 1.  Outside the history
 * [0, T] and for quarks >= A there is no interval: null.
 */
sht_value shtgen_staircase_expect(const shtgen_staircase *w, sht_quark q,
				sht_time t)
{
	sht_time d = w->step;
	sht_time a0;
	uint64_t k;

	if (!staircase_valid(w) || q >= w->attributes || t < 0 ||
	    t > shtgen_staircase_end(w))
		return sht_value_null();
	a0 = (sht_time)q * d;
	if (t < a0)
		return sht_value_null();
	k = (uint64_t)(t - a0) / (w->attributes * (uint64_t)d);
	if (k > w->intervals - 1u)
		k = w->intervals - 1u;
	return sht_value_int32((int32_t)k);
}

/* ---- through the state system ------------------------------------------ */
/*
 * staircase(A, I, D) as BENCHMARKS.md states it: create "0" .. "A-1",
 * then modify(j*D, quark j mod A, int32 j div A) for j = 0 .. A*I-1, then
 * finish at A*I*D.  The state system's rules make the intervals listed at
 * the top of this file (a modify at the start time 0 leaves attribute 0 no
 * null interval).
 */

sht_err shtgen_drive_check(sht_state *ss, const char *what)
{
	uint64_t n = sht_state_attr_count(ss);
	sht_time start = sht_state_start(ss);

	if (n != 0 || start != 0)
		return sht_error_set(SHT_ERR_INVALID, "Cannot drive %s: the state "
				  "system must be new and start at 0 "
				  "(attributes=%llu start=%lld)", what,
				  (unsigned long long)n, (long long)start);
	return SHT_OK;
}

/* Create "0" .. "A-1" at the root, in order: quark a = attribute "a". */
sht_err shtgen_staircase_attrs(const shtgen_staircase *w, sht_state *ss)
{
	char name[24];
	const char *elem = name;

	for (uint64_t a = 0; a < w->attributes; a++) {
		sht_quark q;
		sht_err err;

		snprintf(name, sizeof(name), "%llu", (unsigned long long)a);
		err = sht_state_quark(ss, SHT_QUARK_ROOT, &elem, 1, &q);
		if (err < 0)
			return err;
		if (q != (sht_quark)a)
			return sht_error_set(SHT_ERR_INVALID, "Cannot drive "
					  "staircase: attribute \"%s\" got "
					  "quark %lu", name, (unsigned long)q);
	}
	return SHT_OK;
}

sht_err shtgen_staircase_drive(const shtgen_staircase *w, sht_state *ss)
{
	uint64_t a_count = w->attributes;
	uint64_t total;
	sht_err err;

	if (!staircase_valid(w))
		return sht_error_set(SHT_ERR_INVALID, "Cannot drive staircase: "
				  "attributes=%llu intervals=%lu step=%lld "
				  "(each >= 1, A*I*D within sht_time)",
				  (unsigned long long)w->attributes,
				  (unsigned long)w->intervals,
				  (long long)w->step);
	err = shtgen_drive_check(ss, "staircase");
	if (err == SHT_OK)
		err = shtgen_staircase_attrs(w, ss);
	if (err < 0)
		return err;
	total = a_count * w->intervals;
	for (uint64_t j = 0, a = 0, k = 0; j < total; j++) {
		sht_value v = sht_value_int32((int32_t)k);

		err = sht_state_modify(ss, (sht_time)j * w->step,
				       (sht_quark)a, &v);
		if (err < 0)
			return err;
		if (++a == a_count) {   /* a = j mod A, k = j div A */
			a = 0;
			k++;
		}
	}
	return sht_state_finish(ss, shtgen_staircase_end(w));
}
