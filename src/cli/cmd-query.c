/*
 * cmd-query.c: `sht query FILE --at T [--quark Q]... [--json]`: the state
 * at one time, of every attribute (full query) or of the given quarks
 * (single queries).
 */
#include <stdlib.h>

#include "cli.h"

static const char query_usage[] =
"Usage: sht query FILE --at T [--quark Q]... [--json]\n"
"\n"
"Print the intervals of the history file FILE that contain time T (ns):\n"
"of every quark (full query), or of each quark given with --quark (single\n"
"queries), one per line: quark  [start, end]  type  value.\n"
"A quark with no interval at T is reported on standard error and the exit\n"
"status is 1 (the other answers are still printed).\n"
"\n"
"Options:\n"
"  --at T       the time, in ns (required)\n"
"  --quark Q    query this quark only (repeatable)\n"
"  --json       print a JSON array of {quark, start, end, type, value};\n"
"               type is null, int (int32), long (int64), double or string\n"
"  -h, --help   show this help\n";

enum { OPT_AT = 1, OPT_QUARK, OPT_JSON };

static const cli_opt query_opts[] = {
	{ "at", 0, 1, OPT_AT },
	{ "quark", 0, 1, OPT_QUARK },
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct query_opts {
	const char *file;
	sht_time at;
	int have_at;
	sht_quark *quarks;        /* --quark values, in order */
	size_t n_quarks;
	int json;
};

/* Where the answers go. */
struct query_out {
	int json;
	json_writer w;
};

static int query_opt(struct query_opts *o, int id, const char *val)
{
	uint64_t q;

	switch (id) {
	case OPT_AT:
		o->have_at = 1;
		return cli_parse_i64("query", "--at", val, SHT_TIME_MIN,
				     SHT_TIME_MAX, &o->at);
	case OPT_QUARK:
		if (cli_parse_u64("query", "--quark", val, 0, SHT_QUARK_MAX,
				  &q) < 0)
			return -1;
		o->quarks[o->n_quarks++] = (sht_quark)q;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	default:                  /* positional */
		if (o->file) {
			cli_usage_error("query", "unexpected argument '%s'",
					val);
			return -1;
		}
		o->file = val;
		return 0;
	}
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int query_parse(struct query_opts *o, int argc, char **argv)
{
	cli_args a;
	const char *val;
	int id;

	cli_args_init(&a, argc, argv, 1, "query", query_opts);
	while ((id = cli_next(&a, &val)) != CLI_ARG_END) {
		if (id == CLI_ARG_BAD)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			fputs(query_usage, stdout);
			return -1;
		}
		if (query_opt(o, id, val) < 0)
			return CLI_USAGE;
	}
	if (!o->file)
		return cli_usage_error("query", "missing FILE");
	if (!o->have_at)
		return cli_usage_error("query", "missing --at T");
	return CLI_OK;
}

static void out_result(struct query_out *out, const sht_result *res)
{
	size_t n = sht_result_count(res);

	for (size_t i = 0; i < n; i++) {
		if (out->json)
			cli_json_interval(&out->w, sht_result_at(res, i));
		else
			cli_print_interval(stdout, sht_result_at(res, i));
	}
}

static int query_full(const struct query_opts *o, sht_reader *r,
		      sht_result *res, struct query_out *out)
{
	sht_err err = sht_reader_query_full(r, o->at, res);

	if (err < 0)
		return cli_fail(err, "query %s at t=%lld", o->file,
				(long long)o->at);
	out_result(out, res);
	return CLI_OK;
}

static int query_one(const struct query_opts *o, sht_reader *r,
		     sht_quark q, sht_result *res, struct query_out *out)
{
	sht_err err = sht_reader_query(r, q, o->at, res);

	if (err == SHT_NOT_FOUND)
		return cli_error("%s: no interval of quark %lu at t=%lld",
				 o->file, (unsigned long)q, (long long)o->at);
	if (err < 0)
		return cli_fail(err, "query quark %lu at t=%lld in %s",
				(unsigned long)q, (long long)o->at, o->file);
	out_result(out, res);
	return CLI_OK;
}

static int query_run(const struct query_opts *o, sht_reader *r,
		     sht_result *res)
{
	struct query_out out;
	int status = CLI_OK;

	out.json = o->json;
	json_init(&out.w, stdout);
	if (out.json)
		json_array_begin_lines(&out.w);
	if (o->n_quarks == 0)
		status = query_full(o, r, res, &out);
	for (size_t i = 0; i < o->n_quarks; i++)
		if (query_one(o, r, o->quarks[i], res, &out) != CLI_OK)
			status = CLI_FAIL;
	if (out.json) {
		json_array_end(&out.w);
		fputc('\n', stdout);
	}
	return status;
}

static int query_open_run(const struct query_opts *o)
{
	sht_reader *r;
	sht_result *res;
	int status;

	if (cli_open_reader(o->file, &r) != CLI_OK)
		return CLI_FAIL;
	res = sht_result_create();
	if (!res) {
		sht_reader_close(r);
		return cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	}
	status = query_run(o, r, res);
	sht_result_destroy(res);
	sht_reader_close(r);
	return status;
}

int cmd_query(int argc, char **argv)
{
	struct query_opts o = { 0 };
	int status;

	o.quarks = malloc(sizeof(*o.quarks) * (size_t)argc);
	if (!o.quarks)
		return cli_error("cannot allocate memory");
	status = query_parse(&o, argc, argv);
	if (status < 0)
		status = CLI_OK;          /* --help */
	else if (status == CLI_OK)
		status = query_open_run(&o);
	free(o.quarks);
	return cli_finish_output(status);
}
