/*
 * cmd-history.c: `sht history FILE (--quark Q | --attribute PATH)
 * [--from T1] [--to T2] [--resolution R] [--json]`: the intervals of one
 * attribute over a time range (the state system's range query,
 * KERNEL_MODEL.md §2.3), optionally sampled at a resolution as a timeline
 * view would.
 */
#include "cli.h"

static const char history_usage[] =
"Usage: sht history FILE (--quark Q | --attribute PATH) [--from T1]\n"
"                   [--to T2] [--resolution R] [--json] [--trace TRACE]\n"
"                   [--analysis RULES]\n"
"\n"
"Print the intervals of one attribute of the history file FILE from the\n"
"one at T1 to the one at min(T2, end of the history), in time order, one\n"
"per line: quark  path  [start, end]  type  value.\n"
"\n"
"Options:\n"
"  --quark Q         the attribute, by quark\n"
"  --attribute PATH  the attribute, by path: its names joined with \"/\"\n"
"                    (exactly one of --quark and --attribute)\n"
"  --from T1         start of the range, in ns (default: history start);\n"
"                    must lie in the history\n"
"  --to T2           end of the range, in ns (default: history end)\n"
"  --resolution R    keep only the intervals that contain one of T1,\n"
"                    T1 + R, T1 + 2R, ... or the end (default 0: all)\n"
"  --json            print a JSON array of {quark, path, start, end, type,\n"
"                    value}\n"
"  --trace TRACE     the trace a partial history was built from (required\n"
"                    for one: its queries replay it)\n"
"  --analysis RULES  with --trace: the rules file (*.xml, *.rules) a partial\n"
"                    history was built from; it must be the same file\n"
"                    (provider id and version)\n"
"  -h, --help        show this help\n";

enum { OPT_QUARK = 1, OPT_ATTRIBUTE, OPT_FROM, OPT_TO, OPT_RESOLUTION,
       OPT_JSON, OPT_TRACE, OPT_ANALYSIS };

static const cli_opt history_opts[] = {
	{ "quark", 0, 1, OPT_QUARK },
	{ "attribute", 0, 1, OPT_ATTRIBUTE },
	{ "from", 0, 1, OPT_FROM },
	{ "to", 0, 1, OPT_TO },
	{ "resolution", 0, 1, OPT_RESOLUTION },
	{ "json", 0, 0, OPT_JSON },
	{ "trace", 0, 1, OPT_TRACE },
	{ "analysis", 0, 1, OPT_ANALYSIS },
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
	int have_from, have_to;
	sht_time from, to, resolution;
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
		o->have_from = 1;
		return cli_parse_i64("history", "--from", val, SHT_TIME_MIN,
				     SHT_TIME_MAX, &o->from);
	case OPT_TO:
		o->have_to = 1;
		return cli_parse_i64("history", "--to", val, SHT_TIME_MIN,
				     SHT_TIME_MAX, &o->to);
	case OPT_RESOLUTION:
		return cli_parse_i64("history", "--resolution", val, 0,
				     SHT_TIME_MAX, &o->resolution);
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
	if (o->have_from && o->have_to && o->from > o->to)
		return cli_usage_error("history", "--from %lld is after --to "
				       "%lld", (long long)o->from,
				       (long long)o->to);
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
	if (!o->have_from)
		o->from = start;
	if (!o->have_to)
		o->to = end;
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
	cli_ivout_begin(&out, ss, o->json);
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
