/*
 * test-state-rules: the state-system rules of ../shared/KERNEL_MODEL.md §2
 * and include/sht/state.h, one at a time, each on the three backends:
 *
 *   tree    history file under $SHT_TMP; every check runs on the finished
 *           live history and again on the file reopened by sht_state_open;
 *   memory  the same checks on the live history;
 *   null    only that the changes give the same status codes and that
 *           queries fail.
 *
 * Expected intervals are written out by hand for every scenario (not
 * computed by tests/support/state-model.h, so that the model and these tests
 * do not share a misreading); only the range queries with resolution are
 * computed, by applying KERNEL_MODEL §2.3 to the hand-written intervals,
 * after one hand-computed example checks that algorithm itself.
 *
 * Also: big strings, the life cycle (create / open errors), and queries
 * from reader threads while one thread builds, then on the opened file.
 *
 * sht-test-label: threads
 */
#include "state-rules.h"

static const sht_backend all_backends[] = { SHT_BACKEND_TREE,
					    SHT_BACKEND_MEMORY,
					    SHT_BACKEND_NULL };

int main(void)
{
	size_t i;
	double t0 = now_s();

	no_plan();
	if (scratch_init("state-rules") != 0)
		bail_out("Cannot create a scratch directory");
	for (i = 0; i < sizeof all_backends / sizeof all_backends[0]; i++) {
		sht_backend b = all_backends[i];

		diag("---- backend %s", backend_name(b));
		sc_late(b);
		sc_ends(b);
		sc_same(b);
		sc_burst(b);
		sc_types(b);
		sc_lock_on_same_value(b);
		sc_clear(b);
		sc_stack(b);
		sc_stack_partial(b);
		sc_stack_deep(b, b != SHT_BACKEND_TREE);
		sc_incr(b);
		sc_upd(b);
		sc_fin(b);
		sc_order(b);
		sc_outside(b);
		sc_live(b);
		sc_ranges(b);
		sc_attrs(b);
		sc_provider(b);
		sc_big_strings(b, 1024, b == SHT_BACKEND_MEMORY);
		if (b != SHT_BACKEND_NULL)
			sc_threads(b);
	}
	sc_null_queries();
	sc_lifecycle();
	diag("total %.1f s", now_s() - t0);
	scratch_done();
	return done_testing();
}
