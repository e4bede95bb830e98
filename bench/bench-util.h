/*
 * bench-util.h: the statistics helpers every benchmark program uses, and
 * its clock (tests/support/now.h).
 */
#ifndef SHT_BENCH_UTIL_H
#define SHT_BENCH_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "now.h"

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of n sorted values, p in [0, 1]. */
static inline double pct_sorted(const double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return NAN;
	i = (size_t)ceil(p * (double)n);
	if (i > 0)
		i--;
	if (i >= n)
		i = n - 1;
	return v[i];
}

/* Median of n values (sorts v); mean of the two middle ones if n is even. */
static inline double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* SHT_BENCH_UTIL_H */
