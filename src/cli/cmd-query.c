/*
 * cmd-query.c: `sht query FILE --at T [--quark Q]... [--attribute PATH]...
 * [--json]`: the state at one time, of every attribute (full query) or
 * of the given attributes (single queries), through the state system, so
 * that every answer shows its attribute's path.
 */
#include <stdlib.h>

#include "cli.h"

static const char query_usage[] =
"Usage: sht query FILE --at T [--quark Q]... [--attribute PATH]... [OPTION]...\n"
"\n"
"Print the intervals of the history file FILE that contain time T: of\n"
"every attribute (full query), or of each attribute given with --quark or\n"
"--attribute (single queries, in the order given), one per line:\n"
"quark  path  [start, end]  type  value, the value followed by its name\n"
"when the analysis gives one: 2 (Usermode).\n"
"A path that is empty or holds spaces, quotes or control characters is\n"
"printed as a quoted string.  A quark with no interval at T is reported on\n"
"standard error and the exit status is 1 (the other answers are still\n"
"printed); an unknown attribute path is an error (exit status 1, nothing\n"
"printed).\n"
"\n"
"Options:\n"
"  --at T            the time (required): nanoseconds, HH:MM:SS.F on the\n"
"                    history's first day, +DURATION after its start (+1.5s,\n"
"                    +120ms), start or end (see TIMES in sht(1))\n"
"  --quark Q         query this quark (repeatable)\n"
"  --attribute PATH  query the attribute of this path, its names joined\n"
"                    with \"/\", e.g. Threads/42/Status (repeatable)\n"
"  --trace TRACE     the trace a partial history was built from (sht build\n"
"                    --partial N): its queries replay it from the nearest\n"
"                    checkpoint; required for a partial history\n"
"  --analysis RULES  with --trace: the rules file (*.xml, *.rules) a partial\n"
"                    history was built from (sht build --analysis); it\n"
"                    must be the same file (provider id and version)\n"
"  --time-format F   print times as ns (default), clock (time of day, in\n"
"                    the local time zone) or relative (seconds after the\n"
"                    history's start); the first line then says how\n"
"  --json            print a JSON array of {quark, path, start, end, type,\n"
"                    value, label}; times in ns; type is null, int\n"
"                    (int32), long (int64), double or string; path is \"\"\n"
"                    in a file without attribute names; label only for a\n"
"                    value the analysis names\n"
"  -h, --help        show this help\n";

enum { OPT_AT = 1, OPT_QUARK, OPT_ATTRIBUTE, OPT_JSON, OPT_TRACE, OPT_ANALYSIS,
       OPT_TIME_FORMAT };

static const cli_opt query_opts[] = {
	{ "at", 0, 1, OPT_AT },
	{ "quark", 0, 1, OPT_QUARK },
	{ "attribute", 0, 1, OPT_ATTRIBUTE },
	{ "json", 0, 0, OPT_JSON },
	{ "trace", 0, 1, OPT_TRACE },
	{ "analysis", 0, 1, OPT_ANALYSIS },
	{ "time-format", 0, 1, OPT_TIME_FORMAT },
	{ NULL, 0, 0, 0 }
};

/* One --quark or --attribute. */
struct query_sel {
	const char *path;         /* --attribute PATH, or NULL for --quark */
	sht_quark quark;          /* --quark Q, or the path's once resolved */
};

/* The command line. */
struct query_opts {
	const char *file;
	const char *trace;        /* --trace: a partial history's trace */
	const char *rules;        /* --analysis: its rules file */
	cli_time_arg at_arg;      /* --at as given */
	sht_time at;              /* resolved once the file is open */
	cli_time_format format;   /* --time-format */
	cli_timectx tc;
	struct query_sel *sel;    /* in the order given */
	size_t n_sel;
	int json;
};

static int query_opt(struct query_opts *o, int id, const char *val)
{
	uint64_t q;

	switch (id) {
	case OPT_AT:
		return cli_time_arg_parse("query", "--at", val, &o->at_arg);
	case OPT_TIME_FORMAT:
		return cli_time_format_parse("query", "--time-format", val,
					     &o->format);
	case OPT_QUARK:
		if (cli_parse_u64("query", "--quark", val, 0, SHT_QUARK_MAX,
				  &q) < 0)
			return -1;
		o->sel[o->n_sel].path = NULL;
		o->sel[o->n_sel++].quark = (sht_quark)q;
		return 0;
	case OPT_ATTRIBUTE:
		o->sel[o->n_sel].path = val;
		o->sel[o->n_sel++].quark = SHT_QUARK_NONE;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_TRACE:
		o->trace = val;
		return 0;
	case OPT_ANALYSIS:
		o->rules = val;
		return 0;
	default:                  /* positional */
		return cli_take_file("query", &o->file, val);
	}
}

static int query_opt_cb(void *ctx, int id, const char *val)
{
	return query_opt(ctx, id, val);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int query_parse(struct query_opts *o, int argc, char **argv)
{
	int rc = cli_parse_options(argc, argv, 1, "query", query_opts,
				   query_usage, query_opt_cb, o);

	if (rc != CLI_OK)
		return rc;
	if (!o->file)
		return cli_usage_error("query", "missing FILE");
	if (!o->at_arg.text)
		return cli_usage_error("query", "missing --at T");
	return CLI_OK;
}

/* Every path to its quark before any query: nothing is printed for a
 * command line naming an unknown attribute. */
static int query_resolve(struct query_opts *o, sht_state *ss)
{
	for (size_t i = 0; i < o->n_sel; i++)
		if (o->sel[i].path &&
		    cli_resolve_path(o->file, ss, o->sel[i].path,
				     &o->sel[i].quark) != CLI_OK)
			return CLI_FAIL;
	return CLI_OK;
}

static int query_full(const struct query_opts *o, sht_state *ss,
		      sht_result *res, cli_ivout *out)
{
	sht_err err = sht_state_query_full(ss, o->at, res);

	if (err < 0)
		return cli_fail(err, "query %s at t=%lld", o->file,
				(long long)o->at);
	cli_ivout_result(out, res);
	return CLI_OK;
}

static int query_one(const struct query_opts *o, sht_state *ss,
		     sht_quark q, sht_result *res, cli_ivout *out)
{
	sht_err err = sht_state_query(ss, q, o->at, res);

	if (err == SHT_NOT_FOUND)
		return cli_error("%s: no interval of quark %lu at t=%lld",
				 o->file, (unsigned long)q, (long long)o->at);
	if (err < 0)
		return cli_fail(err, "query quark %lu at t=%lld in %s",
				(unsigned long)q, (long long)o->at, o->file);
	cli_ivout_result(out, res);
	return CLI_OK;
}

static int query_run(struct query_opts *o, sht_state *ss, sht_result *res)
{
	cli_ivout out;
	int status;

	/* The paths of the answers need the attribute tree anyway. */
	if (cli_load_attrs(o->file, ss) != CLI_OK ||
	    query_resolve(o, ss) != CLI_OK)
		return CLI_FAIL;
	cli_timectx_init(&o->tc, sht_state_start(ss), sht_state_end(ss),
			 o->format);
	if (cli_time_resolve(&o->tc, "--at", &o->at_arg, &o->at) != CLI_OK)
		return CLI_FAIL;
	cli_ivout_begin(&out, ss, o->json, &o->tc);
	status = CLI_OK;
	if (o->n_sel == 0)
		status = query_full(o, ss, res, &out);
	for (size_t i = 0; i < o->n_sel; i++)
		if (query_one(o, ss, o->sel[i].quark, res, &out) != CLI_OK)
			status = CLI_FAIL;
	if (cli_ivout_end(&out) != CLI_OK)
		status = CLI_FAIL;
	return status;
}

static int query_open_run(struct query_opts *o)
{
	struct cli_history h;
	sht_result *res;
	int status;

	if (cli_history_open(o->file, o->trace, o->rules, &h) != CLI_OK)
		return CLI_FAIL;
	res = sht_result_create();
	if (!res) {
		cli_history_close(&h);
		return cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	}
	status = query_run(o, h.ss, res);
	sht_result_destroy(res);
	cli_history_close(&h);
	return status;
}

int cmd_query(int argc, char **argv)
{
	struct query_opts o = { 0 };
	int status;

	o.sel = malloc(sizeof(*o.sel) * (size_t)argc);
	if (!o.sel)
		return cli_error("cannot allocate memory");
	status = query_parse(&o, argc, argv);
	if (status < 0)
		status = CLI_OK;          /* --help */
	else if (status == CLI_OK)
		status = query_open_run(&o);
	free(o.sel);
	return cli_finish_output(status);
}
