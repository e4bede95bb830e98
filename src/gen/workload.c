/*
 * workload.c: either synthetic workload through one interface, so that the
 * CLI, the benchmarks and the tests need not switch on the kind each time.
 */
#include <shtgen/workload.h>

#define BY_KIND(w, stair, churn) ((w)->kind == SHTGEN_WL_STAIRCASE ? (stair) : (churn))

const char *shtgen_wl_name(const shtgen_workload *w)
{
	return BY_KIND(w, "staircase", "churn");
}

sht_time shtgen_wl_end(const shtgen_workload *w)
{
	return BY_KIND(w, shtgen_staircase_end(&w->st), shtgen_churn_end(&w->ch));
}

uint64_t shtgen_wl_intervals(const shtgen_workload *w)
{
	return BY_KIND(w, shtgen_staircase_count(&w->st), shtgen_churn_count(&w->ch));
}

uint64_t shtgen_wl_quarks(const shtgen_workload *w)
{
	return BY_KIND(w, w->st.attributes, shtgen_churn_quarks(&w->ch));
}

uint64_t shtgen_wl_events(const shtgen_workload *w)
{
	return BY_KIND(w, shtgen_staircase_events(&w->st), shtgen_churn_events(&w->ch));
}

sht_err shtgen_wl_run(const shtgen_workload *w, shtgen_emit_fn emit, void *ctx)
{
	return BY_KIND(w, shtgen_staircase_run(&w->st, emit, ctx),
		       shtgen_churn_run(&w->ch, emit, ctx));
}

sht_err shtgen_wl_drive(const shtgen_workload *w, sht_state *ss)
{
	return BY_KIND(w, shtgen_staircase_drive(&w->st, ss), shtgen_churn_drive(&w->ch, ss));
}

sht_err shtgen_wl_source(const shtgen_workload *w, sht_source *out)
{
	return BY_KIND(w, shtgen_staircase_source(&w->st, out), shtgen_churn_source(&w->ch, out));
}

static const sht_attr_doc staircase_docs[] = {
	{ "*", SHT_TYPE_INT32,
	  "Attribute a of A: from time (k*A + a)*D it holds step k, for "
	  "k = 0 .. I-1 (null before its first step)." },
};

static const sht_attr_doc churn_docs[] = {
	{ "Threads", SHT_TYPE_NULL, "The threads, one per number i." },
	{ "Threads/*", SHT_TYPE_NULL, "Thread i, born at b = 1000 i." },
	{ "Threads/*/Status", SHT_TYPE_INT32,
	  "1 + (k mod 3) over [b + 500 k, b + 500 k + 499], k = 0 .. 19; "
	  "null elsewhere." },
	{ "Threads/*/Exec_name", SHT_TYPE_STRING,
	  "proc<i> over [b, b + 9999]; null elsewhere." },
};

static const sht_model staircase_model = { staircase_docs, 1, NULL, 0 };
static const sht_model churn_model = {
	churn_docs, sizeof(churn_docs) / sizeof(churn_docs[0]), NULL, 0,
};

const sht_model *shtgen_wl_model(const shtgen_workload *w)
{
	return BY_KIND(w, &staircase_model, &churn_model);
}

void shtgen_wl_provider(const shtgen_workload *w, sht_provider *out)
{
	if (w->kind == SHTGEN_WL_STAIRCASE)
		shtgen_staircase_provider(&w->st, out);
	else
		shtgen_churn_provider(&w->ch, out);
}

sht_value shtgen_wl_expect(const shtgen_workload *w, sht_quark q, sht_time t, char *buf)
{
	return BY_KIND(w, shtgen_staircase_expect(&w->st, q, t),
		       shtgen_churn_expect(&w->ch, q, t, buf));
}
