/*
 * analysis.c: the analyses the CLI runs (sht build), and opening a
 * history for queries (sht query, sht history), which for a partial
 * history means opening the trace it was built from and the same
 * analysis, so that queries can replay the trace from a checkpoint.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "reuse.h"

/* An environment entry as text ("" if absent or not a scalar). */
static void env_text(const cli_trace *t, const char *name, char *buf,
		     size_t size)
{
	sht_field f;

	buf[0] = '\0';
	if (cli_trace_env(t, name, &f) == SHT_OK)
		sht_field_text(&f, buf, size);
}

const char *cli_layout_name(sht_kernel_layout l)
{
	switch (l) {
	case SHT_KERNEL_LAYOUT_LTTNG_2_0: return "lttng-2.0";
	case SHT_KERNEL_LAYOUT_LTTNG_2_6: return "lttng-2.6";
	case SHT_KERNEL_LAYOUT_LTTNG_2_7: return "lttng-2.7";
	default: return "auto";
	}
}

int cli_analysis_is_rules(const char *name)
{
	size_t n = strlen(name);

	return (n > 4 && strcmp(name + n - 4, ".xml") == 0) ||
	       (n > 6 && strcmp(name + n - 6, ".rules") == 0);
}

int cli_analysis_create(struct cli_analysis *an, const char *name,
			const cli_trace *src)
{
	char tname[128], major[32], minor[32];
	sht_err err;

	memset(an, 0, sizeof(*an));
	an->name = name;
	if (cli_analysis_is_rules(name)) {
		err = sht_rules_load(name, NULL, &an->rules);
		if (err < 0)
			return cli_error("%s", sht_errmsg());
		sht_rules_provider(an->rules, &an->prov);
		return CLI_OK;
	}
#if CLI_HAVE_STATS
	if (strcmp(name, "stats") == 0) {
		err = sht_evstats_create(&an->stats);
		if (err < 0)
			return cli_fail(err, "create the statistics analysis");
		sht_evstats_provider(an->stats, &an->prov);
		return CLI_OK;
	}
#endif
	env_text(src, "tracer_name", tname, sizeof tname);
	env_text(src, "tracer_major", major, sizeof major);
	env_text(src, "tracer_minor", minor, sizeof minor);
	an->layout = sht_kernel_layout_from_env(tname, major, minor);
	err = sht_kernel_create(an->layout, &an->kernel);
	if (err < 0)
		return cli_fail(err, "create the kernel analysis");
	sht_kernel_provider(an->kernel, &an->prov);
	return CLI_OK;
}

void cli_analysis_destroy(struct cli_analysis *an)
{
	sht_rules_destroy(an->rules);
	an->rules = NULL;
	sht_kernel_destroy(an->kernel);
	an->kernel = NULL;
#if CLI_HAVE_STATS
	sht_evstats_destroy(an->stats);
	an->stats = NULL;
#endif
}

int64_t cli_partial_every(const char *file)
{
	return fe_partial_every(file);
}

/* ---- opening a history for queries ----------------------------------------- */

/* The analysis name of a provider id, or NULL if the CLI has none. */
static const char *analysis_of(const char *id)
{
	if (strcmp(id, SHT_KERNEL_PROVIDER_ID) == 0)
		return "kernel";
#if CLI_HAVE_STATS
	if (strcmp(id, SHT_EVSTATS_PROVIDER_ID) == 0)
		return "stats";
#endif
	return NULL;
}

/* A history built on the corrected clock of an experiment (sht build
 * --sync) replays its trace through the trace's transform (h->fixed);
 * any other, the trace itself.  *src the source to replay. */
static int replay_source(const char *path, const char *trace,
			 struct cli_history *h, const sht_source **src)
{
	bool transformed;
	sht_err err = sht_sync_replay_source(h->ss, trace, &h->trace.src, &h->fixed,
					     &transformed);

	*src = &h->trace.src;
	if (err < 0)
		return cli_fail(err, "replay the partial history %s", path);
	h->have_fixed = transformed;
	*src = transformed ? &h->fixed : &h->trace.src;
	return CLI_OK;
}

/* h->ss is the history opened plainly: reopen it as a partial history
 * replaying the trace through the analysis that built it. */
static int open_partial(const char *path, const char *trace, const char *rules,
			struct cli_history *h)
{
	const char *id = "", *name;
	const sht_source *src;
	uint32_t version = 0;
	sht_err err;

	sht_state_provider(h->ss, &id, &version);
	name = rules ? rules : analysis_of(id);
	if (!name)
		return cli_error("cannot replay the partial history %s: its "
				 "provider '%s' is not an analysis of sht%s",
				 path, id, id[0] ? "; if it was built from a rules "
				 "file, give that file with --analysis FILE" : "");
	if (rules && !cli_analysis_is_rules(rules))
		return cli_error("--analysis %s: not a rules file (*.xml or "
				 "*.rules)", rules);
	/* A history of several merged traces was built with --merge; for a
	 * single trace merging changes nothing. */
	if (cli_trace_open(trace, 1, cli_default_jobs(), &h->trace) != CLI_OK)
		return CLI_FAIL;
	h->have_trace = 1;
	if (cli_analysis_create(&h->an, name, &h->trace) != CLI_OK)
		return CLI_FAIL;
	h->have_an = 1;
	if (rules && strcmp(h->an.prov.id, id) != 0)
		return cli_error("cannot replay the partial history %s: it was "
				 "built by provider '%s', %s defines '%s'", path,
				 id, rules, h->an.prov.id);
	if (rules && h->an.prov.version != version)
		return cli_error("cannot replay the partial history %s: it was "
				 "built by version %u of '%s' (declared %u), %s is "
				 "version %u (declared %u): the file changed since "
				 "(give the file it was built with, or rebuild)",
				 path, version, id, version >> 24, rules,
				 h->an.prov.version, h->an.prov.version >> 24);
	if (h->an.prov.version != version)
		return cli_error("cannot replay the partial history %s: built "
				 "by %s version %u, this is version %u "
				 "(rebuild it)", path, id, version,
				 h->an.prov.version);
	if (replay_source(path, trace, h, &src) != CLI_OK)
		return CLI_FAIL;
	sht_state_close(h->ss);
	h->ss = NULL;
	err = sht_state_open_partial(path, NULL, src, &h->an.prov, &h->ss);
	if (err < 0)
		return cli_fail(err, "open the partial history %s", path);
	return CLI_OK;
}

int cli_history_open(const char *path, const char *trace, const char *rules,
		     struct cli_history *h)
{
	int64_t every;

	memset(h, 0, sizeof(*h));
	if (cli_open_state(path, &h->ss) != CLI_OK)
		return CLI_FAIL;
	every = fe_partial_every(path);
	if (every <= 0)                   /* a full history (or unreadable:
	                                     the queries will say so) */
		return CLI_OK;
	if (!trace) {
		cli_history_close(h);
		return cli_error("%s is a partial history (a checkpoint every "
				 "%" PRId64 " events): its queries replay the "
				 "trace it was built from; give it with --trace "
				 "TRACE", path, every);
	}
	if (open_partial(path, trace, rules, h) != CLI_OK) {
		cli_history_close(h);
		return CLI_FAIL;
	}
	return CLI_OK;
}

void cli_history_close(struct cli_history *h)
{
	sht_state_close(h->ss);
	if (h->have_an)
		cli_analysis_destroy(&h->an);
	if (h->have_fixed)
		sht_transform_source_free(&h->fixed);
	if (h->have_trace)
		cli_trace_close(&h->trace);
	memset(h, 0, sizeof(*h));
}
