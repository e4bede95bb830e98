/*
 * cmd-history.c: `sht history FILE (--quark Q | --attribute PATH |
 * --pattern GLOB) [--from T1] [--to T2] [--resolution R] [--json]`: the
 * intervals of one attribute over a time range (the state system's range
 * query, docs/STATE.md §3), optionally sampled at a resolution as a
 * timeline view would; or of every attribute a pattern matches (a 2D
 * query); optionally without nulls, or only the longest.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char history_usage[] =
"Usage: sht history FILE (--quark Q | --attribute PATH | --pattern GLOB)\n"
"                   [OPTION]...\n"
"\n"
"Print the intervals of one attribute of the history file FILE from the\n"
"one at T1 to the one at min(T2, end of the history), in time order, one\n"
"per line: quark  path  [start, end]  type  value, the value followed by\n"
"its name when the analysis gives one: 1 (Wait blocked).  With --pattern,\n"
"the intervals of every attribute the pattern matches that meet [T1, T2],\n"
"ordered by start time, then quark.\n"
"\n"
"Options:\n"
"  --quark Q         the attribute, by quark\n"
"  --attribute PATH  the attribute, by path: its names joined with \"/\"\n"
"  --pattern GLOB    every attribute matching GLOB, \"/\"-separated names\n"
"                    where \"*\" is any one name (Threads/*/System_call);\n"
"                    exactly one of --quark, --attribute and --pattern\n"
"  --non-null        leave out the intervals that hold null\n"
"  --value V         only the intervals whose value is V: its name (\"Wait\n"
"                    blocked\"), an integer, a string's text, or null\n"
"  --longest N       only the N longest intervals (end - start), longest\n"
"                    first (ties: earlier start, then lower quark)\n"
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
       OPT_JSON, OPT_TRACE, OPT_ANALYSIS, OPT_TIME_FORMAT, OPT_PATTERN,
       OPT_NON_NULL, OPT_LONGEST, OPT_VALUE };

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
	{ "pattern", 0, 1, OPT_PATTERN },
	{ "non-null", 0, 0, OPT_NON_NULL },
	{ "longest", 0, 1, OPT_LONGEST },
	{ "value", 0, 1, OPT_VALUE },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct history_opts {
	const char *file;
	const char *trace;        /* --trace: a partial history's trace */
	const char *rules;        /* --analysis: its rules file */
	uint64_t quark;
	const char *path;         /* --attribute PATH */
	const char *pattern;      /* --pattern GLOB */
	int n_attr;               /* --quark, --attribute, --pattern given */
	int non_null;             /* --non-null */
	const char *value;        /* --value V */
	uint64_t longest;         /* --longest N, 0: all */
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
	case OPT_PATTERN:
		o->n_attr++;
		o->pattern = val;
		return 0;
	case OPT_NON_NULL:
		o->non_null = 1;
		return 0;
	case OPT_VALUE:
		o->value = val;
		return 0;
	case OPT_LONGEST:
		return cli_parse_u64("history", "--longest", val, 1,
				     UINT32_MAX, &o->longest);
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
		return cli_usage_error("history", "missing --quark Q, "
				       "--attribute PATH or --pattern GLOB");
	if (o->n_attr > 1)
		return cli_usage_error("history", "one attribute only: give "
				       "one --quark, --attribute or --pattern");
	if (o->pattern && !*o->pattern)
		return cli_usage_error("history", "empty --pattern");
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
	} else if (!o->pattern) {
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

/* The 2D query of every attribute matching o->pattern. */
static int history_pattern(struct history_opts *o, sht_state *ss,
			   sht_result *res)
{
	sht_quark *m = NULL;
	size_t n = 0;
	sht_query2d q2;
	sht_err err = sht_state_attr_match(ss, o->pattern, &m, &n);

	if (err < 0)
		return cli_fail(err, "match '%s' in %s", o->pattern, o->file);
	if (n == 0) {
		free(m);
		return cli_error("%s: no attribute matches '%s'", o->file,
				 o->pattern);
	}
	memset(&q2, 0, sizeof(q2));
	q2.quarks = m;
	q2.n_quarks = n;
	q2.t1 = o->from;
	q2.t2 = o->to;
	q2.resolution = o->resolution;
	err = sht_state_query_2d(ss, &q2, res);
	free(m);
	if (err < 0)
		return cli_fail(err, "query '%s' over [%lld, %lld] in %s",
				o->pattern, (long long)o->from,
				(long long)o->to, o->file);
	return CLI_OK;
}

/* Longest first; ties: earlier start, then lower quark. */
static int cmp_longest(const void *a, const void *b)
{
	const sht_interval *x = *(const sht_interval *const *)a;
	const sht_interval *y = *(const sht_interval *const *)b;
	uint64_t dx = (uint64_t)x->end - (uint64_t)x->start;
	uint64_t dy = (uint64_t)y->end - (uint64_t)y->start;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->quark > y->quark) - (x->quark < y->quark);
}

/* Does iv hold the value --value V names: its label, its integer, its
 * string, or null? */
static int value_matches(const char *want, sht_state *ss,
			 const sht_interval *iv)
{
	const char *label = sht_state_value_label(ss, iv->quark, &iv->value);
	char *end;
	long long x;

	if (label && strcmp(label, want) == 0)
		return 1;
	switch (iv->value.type) {
	case SHT_TYPE_NULL:
		return strcmp(want, "null") == 0;
	case SHT_TYPE_INT32:
	case SHT_TYPE_INT64:
		x = strtoll(want, &end, 10);
		return *want && !*end &&
		       x == (iv->value.type == SHT_TYPE_INT32 ?
			     iv->value.u.i32 : iv->value.u.i64);
	case SHT_TYPE_STRING:
		return strlen(want) == iv->value.len &&
		       memcmp(want, iv->value.u.str, iv->value.len) == 0;
	default:
		return 0;
	}
}

/* Print res, without nulls (--non-null), only the longest (--longest). */
static int history_print(const struct history_opts *o, sht_state *ss,
			 const sht_result *res)
{
	size_t n = sht_result_count(res), k = 0;
	const sht_interval **v = malloc((n ? n : 1) * sizeof(*v));
	cli_ivout out;

	if (!v)
		return cli_fail(SHT_ERR_NOMEM, "sort %zu intervals", n);
	for (size_t i = 0; i < n; i++) {
		const sht_interval *iv = sht_result_at(res, i);

		if (o->non_null && iv->value.type == SHT_TYPE_NULL)
			continue;
		if (o->value && !value_matches(o->value, ss, iv))
			continue;
		v[k++] = iv;
	}
	if (o->longest) {
		qsort(v, k, sizeof(*v), cmp_longest);
		if (k > o->longest)
			k = (size_t)o->longest;
	}
	cli_ivout_begin(&out, ss, o->json, &o->tc);
	for (size_t i = 0; i < k; i++)
		cli_ivout_interval(&out, v[i]);
	free(v);
	return cli_ivout_end(&out);
}

static int history_run(struct history_opts *o, sht_state *ss,
		       sht_result *res)
{
	sht_quark q = 0;
	sht_err err;

	if (cli_load_attrs(o->file, ss) != CLI_OK ||
	    history_target(o, ss, &q) != CLI_OK)
		return CLI_FAIL;
	if (o->pattern) {
		if (history_pattern(o, ss, res) != CLI_OK)
			return CLI_FAIL;
	} else {
		err = sht_state_query_range(ss, q, o->from, o->to,
					    o->resolution, res);
		if (err < 0)
			return cli_fail(err, "query quark %lu over [%lld, %lld] "
					"in %s", (unsigned long)q,
					(long long)o->from, (long long)o->to,
					o->file);
	}
	return history_print(o, ss, res);
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
