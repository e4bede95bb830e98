/*
 * cmd-history.c: `sht history FILE --quark Q [--from T1] [--to T2]
 * [--resolution R] [--json]`: the intervals of one quark over a time range
 * (a 2D query on one quark), optionally sampled at a resolution as a
 * timeline view would.
 */
#include "cli.h"

static const char history_usage[] =
"Usage: sht history FILE --quark Q [--from T1] [--to T2] [--resolution R]\n"
"                   [--json]\n"
"\n"
"Print the intervals of quark Q in the history file FILE that intersect\n"
"[T1, T2], in time order, one per line: quark  [start, end]  type  value.\n"
"\n"
"Options:\n"
"  --quark Q        the quark (required)\n"
"  --from T1        start of the range, in ns (default: history start)\n"
"  --to T2          end of the range, in ns (default: history end)\n"
"  --resolution R   keep only the intervals that contain one of T1,\n"
"                   T1 + R, T1 + 2R, ... or T2 (default 0: all)\n"
"  --json           print a JSON array of {quark, start, end, type, value}\n"
"  -h, --help       show this help\n";

enum { OPT_QUARK = 1, OPT_FROM, OPT_TO, OPT_RESOLUTION, OPT_JSON };

static const cli_opt history_opts[] = {
	{ "quark", 0, 1, OPT_QUARK },
	{ "from", 0, 1, OPT_FROM },
	{ "to", 0, 1, OPT_TO },
	{ "resolution", 0, 1, OPT_RESOLUTION },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct history_opts {
	const char *file;
	uint64_t quark;
	int have_quark, have_from, have_to;
	sht_time from, to, resolution;
	int json;
};

static int history_opt(struct history_opts *o, int id, const char *val)
{
	switch (id) {
	case OPT_QUARK:
		o->have_quark = 1;
		return cli_parse_u64("history", "--quark", val, 0,
				     SHT_QUARK_MAX, &o->quark);
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
	default:                  /* positional */
		if (o->file) {
			cli_usage_error("history", "unexpected argument '%s'",
					val);
			return -1;
		}
		o->file = val;
		return 0;
	}
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int history_parse(struct history_opts *o, int argc, char **argv)
{
	cli_args a;
	const char *val;
	int id;

	cli_args_init(&a, argc, argv, 1, "history", history_opts);
	while ((id = cli_next(&a, &val)) != CLI_ARG_END) {
		if (id == CLI_ARG_BAD)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			fputs(history_usage, stdout);
			return -1;
		}
		if (history_opt(o, id, val) < 0)
			return CLI_USAGE;
	}
	if (!o->file)
		return cli_usage_error("history", "missing FILE");
	if (!o->have_quark)
		return cli_usage_error("history", "missing --quark Q");
	if (o->have_from && o->have_to && o->from > o->to)
		return cli_usage_error("history", "--from %lld is after --to "
				       "%lld", (long long)o->from,
				       (long long)o->to);
	return CLI_OK;
}

static void history_print(const struct history_opts *o,
			  const sht_result *res)
{
	size_t n = sht_result_count(res);
	json_writer w;

	if (!o->json) {
		for (size_t i = 0; i < n; i++)
			cli_print_interval(stdout, sht_result_at(res, i));
		return;
	}
	json_init(&w, stdout);
	json_array_begin_lines(&w);
	for (size_t i = 0; i < n; i++)
		cli_json_interval(&w, sht_result_at(res, i));
	json_array_end(&w);
	fputc('\n', stdout);
}

/* Fill in the defaults from the file and check the range. */
static int history_range(struct history_opts *o, sht_reader *r,
			 sht_query2d *q)
{
	sht_info in;

	sht_reader_info(r, &in);
	if (o->quark >= in.quark_count)
		return cli_error("%s has no quark %llu (quarks 0 .. %lld)",
				 o->file, (unsigned long long)o->quark,
				 (long long)in.quark_count - 1);
	if (!o->have_from)
		o->from = in.start;
	if (!o->have_to)
		o->to = in.end;
	if (o->from > o->to)
		return cli_error("empty range [%lld, %lld] (%s covers "
				 "[%lld, %lld])", (long long)o->from,
				 (long long)o->to, o->file,
				 (long long)in.start, (long long)in.end);
	q->qmin = q->qmax = (sht_quark)o->quark;
	q->t1 = o->from;
	q->t2 = o->to;
	q->resolution = o->resolution;
	return CLI_OK;
}

static int history_run(struct history_opts *o, sht_reader *r,
		       sht_result *res)
{
	sht_quark quark = (sht_quark)o->quark;
	sht_query2d q = { 0 };
	sht_err err;

	if (history_range(o, r, &q) != CLI_OK)
		return CLI_FAIL;
	q.quarks = &quark;
	q.n_quarks = 1;
	err = sht_reader_query_2d(r, &q, res);
	if (err < 0)
		return cli_fail(err, "query quark %lu over [%lld, %lld] in %s",
				(unsigned long)quark, (long long)q.t1,
				(long long)q.t2, o->file);
	history_print(o, res);
	return CLI_OK;
}

int cmd_history(int argc, char **argv)
{
	struct history_opts o = { 0 };
	sht_reader *r;
	sht_result *res;
	int status = history_parse(&o, argc, argv);

	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (cli_open_reader(o.file, &r) != CLI_OK)
		return CLI_FAIL;
	res = sht_result_create();
	if (res)
		status = history_run(&o, r, res);
	else
		status = cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	sht_result_destroy(res);
	sht_reader_close(r);
	return cli_finish_output(status);
}
