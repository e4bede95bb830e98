/*
 * cmd-history.c: `sht history FILE (--quark Q | --attribute PATH)
 * [--from T1] [--to T2] [--resolution R] [--json]`: the intervals of one
 * attribute over a time range (the state system's range query,
 * docs/STATE.md §3), optionally sampled at a resolution as a timeline
 * view would.
 */
#include "cli.h"

static const char history_usage[] =
"Usage: sht history FILE (--quark Q | --attribute PATH) [--from T1]\n"
"                   [--to T2] [--resolution R] [--json]\n"
"                   [--time-format ns|clock|relative] [--trace TRACE]\n"
"                   [--analysis RULES]\n"
"\n"
"Print the intervals of one attribute of the history file FILE from the\n"
"one at T1 to the one at min(T2, end of the history), in time order, one\n"
"per line: quark  path  [start, end]  type  value, the value followed by\n"
"its name when the analysis gives one: 1 (Wait blocked).\n"
"\n"
"Options:\n"
"  --quark Q         the attribute, by quark\n"
"  --attribute PATH  the attribute, by path: its names joined with \"/\"\n"
"                    (exactly one of --quark and --attribute)\n"
"  --from T1         start of the range (default: history start); must lie\n"
"                    in the history; any time form (see TIMES in sht(1)):\n"
"                    nanoseconds, HH:MM:SS.F, +DURATION, start, end\n"
"  --to T2           end of the range (default: history end)\n"
"  --resolution R    keep only the intervals that contain one of T1,\n"
"                    T1 + R, T1 + 2R, ... or the end (default 0: all); R in\n"
"                    ns, or a duration such as 1ms or 2.5us\n"
"  --time-format F   print times as ns (default), clock (time of day, in\n"
"                    the local time zone) or relative (seconds after the\n"
"                    history's start); the first line then says how\n"
"  --json            print a JSON array of {quark, path, start, end, type,\n"
"                    value, label}; times in ns; label only for a value\n"
"                    the analysis names\n"
"  --trace TRACE     the trace a partial history was built from (required\n"
"                    for one: its queries replay it)\n"
"  --analysis RULES  with --trace: the rules file (*.xml, *.rules) a partial\n"
"                    history was built from; it must be the same file\n"
"                    (provider id and version)\n"
"  -h, --help        show this help\n";

enum { OPT_QUARK = 1, OPT_ATTRIBUTE, OPT_FROM, OPT_TO, OPT_RESOLUTION,
       OPT_JSON, OPT_TRACE, OPT_ANALYSIS, OPT_TIME_FORMAT };

static const cli_opt history_opts[] = {
	{ "quark", 0, 1, OPT_QUARK },
	{ "attribute", 0, 1, OPT_ATTRIBUTE },
	{ "from", 0, 1, OPT_FROM },
	{ "to", 0, 1, OPT_TO },
	{ "resolution", 0, 1, OPT_RESOLUTION },
	{ "json", 0, 0, OPT_JSON },
	{ "trace", 0, 1, OPT_TRACE },
	{ "analysis", 0, 1, OPT_ANALYSIS },
	{ "time-format", 0, 1, OPT_TIME_FORMAT },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct history_opts {
	const char *file;
	const char *trace;        /* --trace: a partial history's trace */
	const char *rules;        /* --analysis: its rules file */
	uint64_t quark;
	const char *path;         /* --attribute PATH */
	int n_attr;               /* --quark and --attribute given */
	cli_time_arg from_arg, to_arg; /* as given (text NULL: not) */
	sht_time from, to, resolution;
	cli_time_format format;
	cli_timectx tc;
	int json;
};

static int history_opt(struct history_opts *o, int id, const char *val)
{
	switch (id) {
	case OPT_QUARK:
		o->n_attr++;
		return cli_parse_u64("history", "--quark", val, 0,
				     SHT_QUARK_MAX, &o->quark);
	case OPT_ATTRIBUTE:
		o->n_attr++;
		o->path = val;
		return 0;
	case OPT_FROM:
		return cli_time_arg_parse("history", "--from", val,
					  &o->from_arg);
	case OPT_TO:
		return cli_time_arg_parse("history", "--to", val, &o->to_arg);
	case OPT_RESOLUTION:
		return cli_duration_parse("history", "--resolution", val,
					  &o->resolution);
	case OPT_TIME_FORMAT:
		return cli_time_format_parse("history", "--time-format", val,
					     &o->format);
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
		return cli_take_file("history", &o->file, val);
	}
}

static int history_opt_cb(void *ctx, int id, const char *val)
{
	return history_opt(ctx, id, val);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int history_parse(struct history_opts *o, int argc, char **argv)
{
	int rc = cli_parse_options(argc, argv, 1, "history", history_opts,
				   history_usage, history_opt_cb, o);

	if (rc != CLI_OK)
		return rc;
	if (!o->file)
		return cli_usage_error("history", "missing FILE");
	if (o->n_attr == 0)
		return cli_usage_error("history", "missing --quark Q or "
				       "--attribute PATH");
	if (o->n_attr > 1)
		return cli_usage_error("history", "one attribute only: give "
				       "one --quark or one --attribute");
	if (o->from_arg.text && o->to_arg.text &&
	    o->from_arg.kind == CLI_T_NS && o->to_arg.kind == CLI_T_NS &&
	    o->from_arg.ns > o->to_arg.ns)
		return cli_usage_error("history", "--from %s is after --to %s",
				       o->from_arg.text, o->to_arg.text);
	return CLI_OK;
}

/* The attribute and the range, defaults from the file. */
static int history_target(struct history_opts *o, sht_state *ss,
			  sht_quark *q)
{
	sht_time start = sht_state_start(ss), end = sht_state_end(ss);

	if (o->path) {
		if (cli_resolve_path(o->file, ss, o->path, q) != CLI_OK)
			return CLI_FAIL;
	} else {
		*q = (sht_quark)o->quark;
	}
	cli_timectx_init(&o->tc, start, end, o->format);
	o->from = start;
	o->to = end;
	if ((o->from_arg.text &&
	     cli_time_resolve(&o->tc, "--from", &o->from_arg, &o->from) != CLI_OK) ||
	    (o->to_arg.text &&
	     cli_time_resolve(&o->tc, "--to", &o->to_arg, &o->to) != CLI_OK))
		return CLI_FAIL;
	if (o->from > o->to)
		return cli_error("empty range [%lld, %lld] (%s covers "
				 "[%lld, %lld])", (long long)o->from,
				 (long long)o->to, o->file,
				 (long long)start, (long long)end);
	return CLI_OK;
}

static int history_run(struct history_opts *o, sht_state *ss,
		       sht_result *res)
{
	cli_ivout out;
	sht_quark q;
	sht_err err;

	if (cli_load_attrs(o->file, ss) != CLI_OK ||
	    history_target(o, ss, &q) != CLI_OK)
		return CLI_FAIL;
	err = sht_state_query_range(ss, q, o->from, o->to, o->resolution,
				    res);
	if (err < 0)
		return cli_fail(err, "query quark %lu over [%lld, %lld] in %s",
				(unsigned long)q, (long long)o->from,
				(long long)o->to, o->file);
	cli_ivout_begin(&out, ss, o->json, &o->tc);
	cli_ivout_result(&out, res);
	return cli_ivout_end(&out);
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { 0 };
	struct cli_history h;
	sht_result *res;
	int status = history_parse(&o, argc, argv);

	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (cli_history_open(o.file, o.trace, o.rules, &h) != CLI_OK)
		return CLI_FAIL;
	res = sht_result_create();
	if (res)
		status = history_run(&o, h.ss, res);
	else
		status = cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	sht_result_destroy(res);
	cli_history_close(&h);
	return cli_finish_output(status);
}
