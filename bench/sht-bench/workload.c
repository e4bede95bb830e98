/*
 * workload.c: sht-bench's workloads (staircase, churn) and the check of
 * every answer against the workload's definition.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench-util.h"
#include "sht-bench.h"

void wl_init(struct workload *w, shtgen_wl_kind kind, uint64_t size,
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

int check_answer(const struct workload *w, sht_quark q, sht_time t,
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

uint64_t wl_changes(const struct workload *w)
{
	return w->wl.kind == SHTGEN_WL_STAIRCASE
		       ? w->wl.st.attributes * (uint64_t)w->wl.st.intervals
		       : 22 * w->wl.ch.threads;
}

void wl_path(const struct workload *w, sht_quark q, char *buf,
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

void fail(struct metrics *ms, const char *what, sht_err err)
{
	ms->failed = 1;
	snprintf(ms->err, sizeof ms->err, "%s: %s (%s)", what,
		 sht_strerror(err), sht_errmsg());
}

const char *variant_name(sht_variant v)
{
	return v == SHT_VARIANT_SHT ? "sht" : "esht";
}

const char *backend_name(sht_backend b)
{
	return b == SHT_BACKEND_MEMORY ? "memory" :
	       b == SHT_BACKEND_NULL ? "null" : "tree";
}
