/*
 * workload.c: either synthetic workload through one interface, so that the
 * CLI, the benchmarks and the tests need not switch on the kind each time.
 */
#include "workload/workload.h"

#define BY_KIND(w, stair, churn) ((w)->kind == SHT__WL_STAIRCASE ? (stair) : (churn))

const char *sht__wl_name(const sht__workload *w)
{
	return BY_KIND(w, "staircase", "churn");
}

sht_time sht__wl_end(const sht__workload *w)
{
	return BY_KIND(w, sht__staircase_end(&w->st), sht__churn_end(&w->ch));
}

uint64_t sht__wl_intervals(const sht__workload *w)
{
	return BY_KIND(w, sht__staircase_count(&w->st), sht__churn_count(&w->ch));
}

uint64_t sht__wl_quarks(const sht__workload *w)
{
	return BY_KIND(w, w->st.attributes, sht__churn_quarks(&w->ch));
}

uint64_t sht__wl_events(const sht__workload *w)
{
	return BY_KIND(w, sht__staircase_events(&w->st), sht__churn_events(&w->ch));
}

sht_err sht__wl_run(const sht__workload *w, sht__emit_fn emit, void *ctx)
{
	return BY_KIND(w, sht__staircase_run(&w->st, emit, ctx),
		       sht__churn_run(&w->ch, emit, ctx));
}

sht_err sht__wl_drive(const sht__workload *w, sht_state *ss)
{
	return BY_KIND(w, sht__staircase_drive(&w->st, ss), sht__churn_drive(&w->ch, ss));
}

sht_err sht__wl_source(const sht__workload *w, sht_source *out)
{
	return BY_KIND(w, sht__staircase_source(&w->st, out), sht__churn_source(&w->ch, out));
}

void sht__wl_provider(const sht__workload *w, sht_provider *out)
{
	if (w->kind == SHT__WL_STAIRCASE)
		sht__staircase_provider(&w->st, out);
	else
		sht__churn_provider(&w->ch, out);
}

sht_value sht__wl_expect(const sht__workload *w, sht_quark q, sht_time t, char *buf)
{
	return BY_KIND(w, sht__staircase_expect(&w->st, q, t),
		       sht__churn_expect(&w->ch, q, t, buf));
}
