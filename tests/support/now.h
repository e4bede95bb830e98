/*
 * now.h: the clock of the tests and benchmarks.
 */
#ifndef SHT_TEST_NOW_H
#define SHT_TEST_NOW_H

#include <time.h>

/* Monotonic time in seconds. */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* SHT_TEST_NOW_H */
