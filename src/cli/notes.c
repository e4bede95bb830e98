/*
 * notes.c: the build notes `sht build` stores in a history (model.h,
 * sht_state_opts.notes): how it was built, for `sht describe`.  Only what
 * decides the history's contents is noted (not --single-thread, not the
 * time of the build), so that equal builds still give equal files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The text of an environment entry ("" if absent). */
static void env_text(const cli_trace *t, const char *name, char *buf,
		     size_t size)
{
	sht_field f;

	buf[0] = '\0';
	if (cli_trace_env(t, name, &f) == SHT_OK)
		sht_field_text(&f, buf, size);
}

static void add(struct cli_notes *n, const char *key, const char *value)
{
	if (n->count < CLI_NOTES_MAX && value && *value) {
		n->note[n->count].key = key;
		n->note[n->count++].value = value;
	}
}

/* The tracer as the environment names it: "lttng-modules 2.8.0". */
static void tracer_text(const cli_trace *t, char *buf, size_t size)
{
	char name[64], major[16], minor[16], patch[16];

	env_text(t, "tracer_name", name, sizeof(name));
	env_text(t, "tracer_major", major, sizeof(major));
	env_text(t, "tracer_minor", minor, sizeof(minor));
	env_text(t, "tracer_patchlevel", patch, sizeof(patch));
	if (!name[0]) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, size, "%s%s%s%s%s%s%s", name, major[0] ? " " : "", major,
		 minor[0] ? "." : "", minor, patch[0] ? "." : "", patch);
}

void cli_notes_build(struct cli_notes *n, const char *trace,
		     const cli_trace *t, const struct cli_analysis *an,
		     uint64_t partial, int merge)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->tool, sizeof(n->tool), "sht %s (libsht %s)",
		 SHT_VERSION_STRING, sht_version_string());
	n->trace_abs = realpath(trace, NULL);
	n->analysis_abs = an->rules ? realpath(an->name, NULL) : NULL;
	tracer_text(t, n->tracer, sizeof(n->tracer));
	env_text(t, "hostname", n->host, sizeof(n->host));
	if (partial)
		snprintf(n->options, sizeof(n->options), "--partial %llu%s",
			 (unsigned long long)partial, merge ? " --merge" : "");
	else
		snprintf(n->options, sizeof(n->options), "%s",
			 merge ? "--merge" : "");
	add(n, "tool", n->tool);
	add(n, "trace", n->trace_abs ? n->trace_abs : trace);
	add(n, "trace format", t->vstf ? "VSTF" : "CTF");
	add(n, "tracer", n->tracer);
	add(n, "host", n->host);
	add(n, "analysis", n->analysis_abs ? n->analysis_abs : an->name);
	if (an->kernel)
		add(n, "kernel layout", cli_layout_name(an->layout));
	add(n, "options", n->options);
}

void cli_notes_free(struct cli_notes *n)
{
	free(n->trace_abs);
	free(n->analysis_abs);
	memset(n, 0, sizeof(*n));
}

const char *cli_note(sht_state *ss, const char *key)
{
	const sht_build_note *nt;
	size_t n;

	if (sht_state_notes(ss, &nt, &n) != SHT_OK)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(nt[i].key, key) == 0)
			return nt[i].value;
	return NULL;
}
