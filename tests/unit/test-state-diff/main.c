/*
 * test-state-diff: differential test of the state system against the
 * brute-force model of tests/support/state-model.h.
 *
 * Each round generates a random script (seeded; the seed is printed and
 * SHT_TEST_SEED overrides it) over a few hundred attributes in a random
 * tree: get-or-create and find by path (names with "/" inside, names that
 * collide with stack slots), modify with values of the attribute's type,
 * null, or a deliberately wrong type, clear, push, pop, increment,
 * update-ongoing, bursts at one timestamp, long gaps, and now and then a
 * change before the start or before the latest change.  The script runs
 * in lockstep on the model and on every system under test:
 *
 *   tree   SHT and eSHT, block sizes 1 KiB, 4 KiB and 64 KiB;
 *   memory
 *   null   (status codes, ongoing values and popped values only)
 *
 * Every call's status must equal the model's, and so must created quarks,
 * popped values and ongoing states.  While building, every few hundred
 * operations, queries at t <= sht_state_end are compared (single, full,
 * range, 2D).  After finish everything is compared: the attribute tree,
 * single queries at every interval bound (start - 1, start, end, end + 1),
 * full queries at random times and at sampled bounds, range queries with
 * random resolutions, 2D queries; then again on the file reopened with
 * sht_state_open.
 *
 * A system that diverges is reported once, with the last operations, and
 * then left alone (its later answers would only repeat the first error).
 * SHT_TEST_TRACE=1 prints every operation; SHT_TEST_SCALE scales the
 * script lengths.  SHT_TEST_MODEL_LOCK=change makes the model lock an
 * attribute's type only when a modify changes its value (not Trace
 * Compass's rule, see state-model.h): a switch to look past that one
 * known difference for others.
 */
#include "state-diff.h"

int main(void)
{
	uint64_t seed = rng_test_seed(20251122);
	const char *sc = getenv("SHT_TEST_SCALE");
	const char *tr = getenv("SHT_TEST_TRACE");
	double scale = sc && atof(sc) > 0 ? atof(sc) : 1.0;
	double t0 = now_s();
	static run R;
	size_t i;
	round_cfg cfgs[] = {
		/* ops, attributes, start, latest_on_call */
		{ 5000, 300, 0, 1 },
		{ 5000, 40, 1000, 1 },
		{ 4000, 250, INT64_C(1600000000000000000), 1 },
		{ 3000, 120, -INT64_C(5000000000), 1 },
		{ 8000, 12, 0, 1 },
		{ 6000, 500, 77, 1 },
	};

	no_plan();
	if (scratch_init("state-diff") != 0)
		bail_out("Cannot create a scratch directory");
	for (i = 0; i < sizeof big1; i++)
		big1[i] = (char)('a' + i % 26);
	for (i = 0; i < sizeof big2; i++)
		big2[i] = (char)(i % 251);
	R.trace = tr && *tr && *tr != '0';
	if (getenv("SHT_TEST_MODEL_LOCK") &&
	    strcmp(getenv("SHT_TEST_MODEL_LOCK"), "change") == 0) {
		R.lock_on_change = 1;
		printf("# SHT_TEST_MODEL_LOCK=change: a same-value modify does "
		       "not lock the type (not Trace Compass's rule)\n");
	}
	R.res = sht_result_create();
	for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
		round_cfg c = cfgs[i];

		c.ops = (size_t)((double)c.ops * scale);
		R.round = (int)i;
		printf("# round %zu: seed %" PRIu64 "\n", i, seed + i);
		do_round(&R, &c, seed + i);
	}
	sht_result_destroy(R.res);
	free(R.l1.v);
	free(R.stacks);
	free(R.is_stack);
	free(R.pref);
	scratch_done();
	printf("# total %.1f s\n", now_s() - t0);
	return done_testing();
}
