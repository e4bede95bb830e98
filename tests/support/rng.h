/*
 * rng.h: the pseudo-random generator of every test and benchmark.
 *
 *   struct rng r = RNG_INIT(seed);     (or rng_seed(&r, seed))
 *   rng_next(&r)                       64 random bits
 *   rng_below(&r, n)                   uniform in [0, n); n == 0: 64 bits
 *   rng_range(&r, lo, hi)              uniform in [lo, hi], any int64 bounds
 *   rng_pct(&r, p)                     1 with probability p percent
 *   rng_test_seed(dflt)                SHT_TEST_SEED or dflt, printed
 *
 * splitmix64: one 64-bit word of state, any seed (0 included) is good, a
 * period of 2^64, and it passes BigCrush; plenty for query arguments and
 * random histories.  rng_below maps a draw onto [0, n) by Lemire's
 * multiply-shift (bias below n / 2^64, no division).  A benchmark that
 * seeds two programs alike draws the same questions in both (sht-bench and
 * sht-sqlite-bench), and a test that prints its seed can be replayed with
 * SHT_TEST_SEED.  The synthetic kernel trace generator (src/gen/kgen)
 * steps the same recurrence over its own state.
 *
 * Header-only (static inline): the benchmarks draw in their loops.
 */
#ifndef SHT_TEST_RNG_H
#define SHT_TEST_RNG_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct rng {
	uint64_t s;
};

#define RNG_INIT(seed) { (uint64_t)(seed) }

static inline void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed;
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); n == 0 means the full 64-bit range. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	if (n == 0)
		return rng_next(r);
	return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Uniform in [lo, hi] (inclusive), any int64 bounds. */
static inline int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;   /* 0: full range */

	return (int64_t)((uint64_t)lo + rng_below(r, span));
}

/* 1 with probability pct percent. */
static inline int rng_pct(struct rng *r, unsigned pct)
{
	return rng_below(r, 100) < pct;
}

/* A test's seed: SHT_TEST_SEED (decimal or 0x hex) or dflt, printed as a
 * TAP comment so that a failure can be replayed. */
static inline uint64_t rng_test_seed(uint64_t dflt)
{
	const char *env = getenv("SHT_TEST_SEED");
	uint64_t seed = dflt;

	if (env && *env)
		seed = strtoull(env, NULL, 0);
	printf("# seed %" PRIu64 " (override with SHT_TEST_SEED)\n", seed);
	fflush(stdout);
	return seed;
}

#endif /* SHT_TEST_RNG_H */
