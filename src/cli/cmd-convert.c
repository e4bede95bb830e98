/*
 * cmd-convert.c: `sht convert TRACE -o OUT.vstf`: copy a CTF trace into a
 * VSTF file (the thesis's Annex B format, docs/VSTF.md): every event with
 * all its fields, and the trace's environment.  The file is written under
 * a temporary name next to OUT and renamed over it once complete.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char convert_usage[] =
"Usage: sht convert TRACE -o FILE [OPTION]...\n"
"\n"
"Copy the CTF trace directory TRACE (an LTTng 2.x trace) into FILE in\n"
"VSTF, the \"Very Simple Trace Format\" of the thesis's Annex B (see\n"
"VSTF.md): every event (name, timestamp, CPU, every payload and\n"
"context field with its name and type) and the trace's environment, with\n"
"an index for seeking.  Then print a summary: events, bytes, seconds.\n"
"\n"
"Options:\n"
"  -o, --output FILE  the VSTF file to write (required)\n"
"  --index-every N    events between index entries (default 4096)\n"
"  --json             print the summary as one JSON object\n"
"  --merge            TRACE holds several CTF traces: merge them in time\n"
"                     (without it such a directory is an error)\n"
"  -h, --help         show this help\n";

enum {
	OPT_OUTPUT = 1,
	OPT_INDEX_EVERY,
	OPT_JSON,
	OPT_MERGE,
};

static const cli_opt convert_opts[] = {
	{ "output", 'o', 1, OPT_OUTPUT },
	{ "index-every", 0, 1, OPT_INDEX_EVERY },
	{ "json", 0, 0, OPT_JSON },
	{ "merge", 0, 0, OPT_MERGE },
	{ NULL, 0, 0, 0 }
};

struct convert_opts {
	const char *trace;
	const char *output;
	uint64_t index_every;
	int json;
	int merge;                /* --merge: several traces, merged */
};

static int convert_opt(void *ctx, int id, const char *val)
{
	struct convert_opts *o = ctx;

	switch (id) {
	case CLI_ARG_POS:
		return cli_take_file("convert", &o->trace, val);
	case OPT_OUTPUT:
		if (!*val) {
			cli_usage_error("convert", "empty value for --output");
			return -1;
		}
		o->output = val;
		return 0;
	case OPT_INDEX_EVERY:
		return cli_parse_u64("convert", "--index-every", val, 1,
				     UINT32_MAX, &o->index_every);
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_MERGE:
		o->merge = 1;
		return 0;
	default:
		return 0;
	}
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o;
	sht_vstf_write_opts wo;
	sht_vstf_write_stats ws;
	sht_source src;
	sht_ctf_opts co;
	char *tmp;
	double t0, secs;
	sht_err err;
	int status;
	size_t n;

	memset(&o, 0, sizeof(o));
	status = cli_parse_options(argc, argv, 1, "convert", convert_opts,
				   convert_usage, convert_opt, &o);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (!o.trace)
		return cli_usage_error("convert", "missing TRACE");
	if (!o.output)
		return cli_usage_error("convert", "missing -o FILE");

	n = strlen(o.output) + 32;
	tmp = malloc(n);
	if (!tmp)
		return cli_error("cannot convert %s: out of memory", o.trace);
	snprintf(tmp, n, "%s.tmp.%ld", o.output, (long)getpid());

	t0 = cli_now();
	sht_ctf_opts_init(&co);
	co.merge = o.merge;
	co.jobs = cli_default_jobs();
	err = sht_ctf_open(o.trace, &co, &src);
	if (err < 0) {
		free(tmp);
		return cli_fail(err, "open the trace %s", o.trace);
	}
	sht_vstf_write_opts_init(&wo);
	if (o.index_every)
		wo.index_every = (uint32_t)o.index_every;
	wo.env_entry = sht_ctf_env_entry;
	wo.event_fields = sht_ctf_event_fields;
	memset(&ws, 0, sizeof(ws));
	err = sht_vstf_write(&src, tmp, &wo, &ws);
	sht_ctf_close(&src);
	if (err < 0) {
		status = cli_fail(err, "convert %s to %s", o.trace, o.output);
		free(tmp);
		return status;
	}
	if (rename(tmp, o.output) != 0) {
		status = cli_error("cannot rename %s to %s: %s", tmp,
				   o.output, strerror(errno));
		unlink(tmp);
		free(tmp);
		return status;
	}
	free(tmp);
	secs = cli_now() - t0;

	if (o.json) {
		json_t *j = json_object();

		cli_jset(j, "output", cli_jcstr(o.output));
		cli_jset(j, "events", cli_juint(ws.events));
		cli_jset(j, "fields", cli_juint(ws.fields));
		cli_jset(j, "event_names", cli_juint(ws.event_names));
		cli_jset(j, "field_names", cli_juint(ws.field_names));
		cli_jset(j, "bytes", cli_juint(ws.bytes));
		cli_jset(j, "seconds", cli_jreal(secs));
		return cli_finish_output(cli_json_print(j));
	} else {
		printf("converted %s to %s\n", o.trace, o.output);
		printf("events       %llu\n", (unsigned long long)ws.events);
		printf("fields       %llu\n", (unsigned long long)ws.fields);
		printf("event names  %llu\n",
		       (unsigned long long)ws.event_names);
		printf("field names  %llu\n",
		       (unsigned long long)ws.field_names);
		printf("bytes        %llu\n", (unsigned long long)ws.bytes);
		printf("seconds      %.3f\n", secs);
	}
	return cli_finish_output(CLI_OK);
}
