/*
 * cmd-demo.c: `sht demo staircase [--attributes A] [-o FILE]`: the store
 * and state system on an embedded workload: drive the staircase of GENERATOR.md
 * through the state system into an eSHT file, show the file's statistics,
 * answer a few queries (by quark and by attribute path) and compare each
 * answer with the workload's formula, check the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char demo_usage[] =
"Usage: sht demo staircase [--attributes A] [-o FILE]\n"
"\n"
"Run the staircase demo: perform the state changes of the staircase\n"
"workload of A attributes (default 100000, named \"0\" .. \"A-1\"; 20\n"
"changes each, 1000 ns apart) through the state system into an eSHT\n"
"history file, print the build summary and the file's statistics,\n"
"answer three single queries, one query by attribute path and one full\n"
"query, comparing every answer with the workload's formula (\"ok\" or\n"
"\"MISMATCH\"), and check the file.\n"
"Exits with status 1 on any mismatch.\n"
"\n"
"Options:\n"
"  --attributes A     number of attributes (default 100000)\n"
"  -o, --output FILE  keep the history file as FILE (default: a temporary\n"
"                     file in $TMPDIR, removed at the end)\n"
"  -h, --help         show this help\n";

#define DEMO_DEFAULT_ATTRIBUTES 100000u
#define DEMO_SHOW 3               /* intervals shown of the full query */

enum { OPT_ATTRIBUTES = 1, OPT_OUTPUT };

static const cli_opt demo_opts[] = {
	{ "attributes", 0, 1, OPT_ATTRIBUTES },
	{ "output", 'o', 1, OPT_OUTPUT },
	{ NULL, 0, 0, 0 }
};

/* The command line and the workload. */
struct demo {
	shtgen_staircase w;
	const char *path;         /* the history file */
	int temporary;            /* 1: path is ours, remove it at the end */
	char tmp[4096];           /* temporary path */
};

/* ---- queries ----------------------------------------------------------- */

/* Whether iv is the right answer at (t, q); prints the expectation. */
static int demo_expect(const struct demo *d, sht_quark q, sht_time t,
		       const sht_interval *iv)
{
	sht_value ex = shtgen_staircase_expect(&d->w, q, t);
	int ok = iv && iv->quark == q && iv->start <= t && t <= iv->end &&
		 sht_value_equal(&iv->value, &ex);

	printf("  expected: %s", cli_type_name(ex.type));
	if (ex.type != SHT_TYPE_NULL) {
		putchar(' ');
		cli_print_value(stdout, &ex);
	}
	printf("  -> %s\n", ok ? "ok" : "MISMATCH");
	return ok;
}

/* Print one interval as "quark  path  [start, end]  type  value". */
static void demo_print(sht_state *ss, const sht_interval *iv, cli_path *p)
{
	cli_print_interval_path(stdout, iv, cli_attr_path(ss, iv->quark, p));
}

/* The answer of a single query at (t, q); returns 1 if it is right. */
static int demo_answer(const struct demo *d, sht_state *ss, sht_result *res,
		       sht_quark q, sht_time t, cli_path *p)
{
	sht_err err = sht_state_query(ss, q, t, res);
	const sht_interval *iv = NULL;

	printf("  answer:   ");
	if (err == SHT_OK && sht_result_count(res) == 1) {
		iv = sht_result_at(res, 0);
		demo_print(ss, iv, p);
	} else {
		printf("none (%s)\n", err < 0 ? sht_errmsg() :
		       sht_strerror(err));
	}
	return demo_expect(d, q, t, iv);
}

static int demo_single(const struct demo *d, sht_state *ss, sht_result *res,
		       sht_quark q, sht_time t, cli_path *p)
{
	printf("single query: quark %lu at t=%lld\n", (unsigned long)q,
	       (long long)t);
	return demo_answer(d, ss, res, q, t, p);
}

/* A query by name: attribute "a" is quark a. */
static int demo_by_path(const struct demo *d, sht_state *ss, sht_result *res,
			uint64_t a, sht_time t, cli_path *p)
{
	char name[24];
	sht_quark q;
	sht_err err;

	snprintf(name, sizeof(name), "%llu", (unsigned long long)a);
	printf("query by path: attribute \"%s\" at t=%lld\n", name,
	       (long long)t);
	err = sht_state_quark_path(ss, name, false, &q);
	if (err != SHT_OK) {
		printf("  quark:    none (%s)  -> MISMATCH\n", err < 0 ?
		       sht_errmsg() : sht_strerror(err));
		return 0;
	}
	printf("  quark:    %lu%s\n", (unsigned long)q,
	       q == (sht_quark)a ? "" : " (expected another)");
	return demo_answer(d, ss, res, q, t, p) && q == (sht_quark)a;
}

/* Number of wrong intervals in a full answer at t. */
static uint64_t full_wrong(const struct demo *d, const sht_result *res,
			   sht_time t)
{
	size_t n = sht_result_count(res);
	uint64_t wrong = 0;

	if (n != d->w.attributes)
		wrong++;
	for (size_t i = 0; i < n; i++) {
		const sht_interval *iv = sht_result_at(res, i);
		sht_value ex = shtgen_staircase_expect(&d->w, iv->quark, t);

		if (iv->quark != i || iv->start > t || iv->end < t ||
		    !sht_value_equal(&iv->value, &ex))
			wrong++;
	}
	return wrong;
}

static int demo_full(const struct demo *d, sht_state *ss, sht_result *res,
		     sht_time t, cli_path *p)
{
	sht_err err = sht_state_query_full(ss, t, res);
	size_t n = sht_result_count(res);
	uint64_t wrong;

	printf("full query at t=%lld\n", (long long)t);
	if (err < 0) {
		printf("  answer:   none (%s)\n  -> MISMATCH\n", sht_errmsg());
		return 0;
	}
	printf("  answer:   %zu intervals, the first ones:\n", n);
	for (size_t i = 0; i < n && i < DEMO_SHOW; i++) {
		printf("            ");
		demo_print(ss, sht_result_at(res, i), p);
	}
	wrong = full_wrong(d, res, t);
	printf("  expected: %llu intervals, one per attribute, values from "
	       "the formula  -> ", (unsigned long long)d->w.attributes);
	if (wrong == 0)
		printf("ok\n");
	else
		printf("MISMATCH (%llu wrong)\n", (unsigned long long)wrong);
	return wrong == 0;
}

/* Three single queries (the middle of the staircase, the last instant of
 * an initial null, the end of the history), one by attribute path and one
 * full query. */
static int demo_queries(const struct demo *d, sht_state *ss)
{
	uint64_t a = d->w.attributes;
	sht_time t_end = shtgen_staircase_end(&d->w);
	sht_time null_end = (sht_time)(a - 1u) * d->w.step - 1;
	sht_result *res = sht_result_create();
	cli_path p = { NULL, 0 };
	int ok = 1;

	if (!res)
		return cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	ok &= demo_single(d, ss, res, (sht_quark)(a / 2u), t_end / 2, &p);
	ok &= demo_single(d, ss, res, (sht_quark)(a - 1u),
			  null_end < 0 ? 0 : null_end, &p);
	ok &= demo_single(d, ss, res, 0, t_end, &p);
	ok &= demo_by_path(d, ss, res, a / 3u, t_end / 3 * 2, &p);
	ok &= demo_full(d, ss, res, t_end / 3, &p);
	cli_path_free(&p);
	sht_result_destroy(res);
	if (!ok)
		return cli_error("some answers do not match the workload");
	return CLI_OK;
}

/* ---- the run ----------------------------------------------------------- */

static int demo_build(const struct demo *d)
{
	shtgen_workload w;
	sht_builder_opts opts;
	cli_build_summary sum;
	int status;

	memset(&w, 0, sizeof(w));
	w.kind = SHTGEN_WL_STAIRCASE;
	w.st = d->w;
	sht_builder_opts_init(&opts);
	opts.variant = SHT_VARIANT_ESHT;
	opts.no_sync = d->temporary;
	printf("== build: staircase, %llu attributes, %llu intervals, eSHT, "
	       "through the state system ==\n",
	       (unsigned long long)d->w.attributes,
	       (unsigned long long)shtgen_staircase_count(&d->w));
	fflush(stdout);
	status = cli_build_workload(&w, d->path, SHT_BACKEND_TREE, &opts,
				    &sum);
	if (status == CLI_OK)
		cli_print_build_summary(&sum, 0);
	return status;
}

int cli_demo_inspect(const char *path, const char *title,
		     int (*queries)(const void *ctx, sht_state *ss),
		     const void *ctx)
{
	sht_reader *r;
	sht_state *ss;
	int status, step;

	if (cli_open_reader(path, &r) != CLI_OK)
		return CLI_FAIL;
	if (cli_open_state(path, &ss) != CLI_OK) {
		sht_reader_close(r);
		return CLI_FAIL;
	}
	printf("\n== info ==\n");
	status = cli_print_info(path, r, ss, 0);
	printf("\n== %s ==\n", title);
	step = queries(ctx, ss);
	status = status != CLI_OK ? status : step;
	sht_state_close(ss);
	printf("\n== check ==\n");
	fflush(stdout);
	step = cli_check_reader(path, r);
	sht_reader_close(r);
	return status != CLI_OK ? status : step;
}

static int demo_queries_cb(const void *ctx, sht_state *ss)
{
	return demo_queries(ctx, ss);
}

static int demo_run(const struct demo *d)
{
	int status = demo_build(d);

	if (status != CLI_OK)
		return status;
	return cli_demo_inspect(d->path, "queries", demo_queries_cb, d);
}

static int demo_temp_path(struct demo *d)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(d->tmp, sizeof(d->tmp), "%s/sht-demo-XXXXXX",
			     dir) >= sizeof(d->tmp))
		return cli_error("cannot create a temporary file: TMPDIR too "
				 "long");
	fd = mkstemp(d->tmp);
	if (fd < 0)
		return cli_error("cannot create a temporary file in %s: %s",
				 dir, strerror(errno));
	close(fd);
	d->path = d->tmp;
	d->temporary = 1;
	return CLI_OK;
}

static int demo_opt(void *ctx, int id, const char *val)
{
	struct demo *d = ctx;

	if (id == CLI_ARG_POS) {
		cli_usage_error("demo staircase", "unexpected argument '%s'",
				val);
		return -1;
	}
	if (id == OPT_OUTPUT) {
		d->path = val;
		return 0;
	}
	return cli_parse_u64("demo staircase", "--attributes", val, 1,
			     (uint64_t)SHT_QUARK_MAX + 1u, &d->w.attributes);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int demo_parse(struct demo *d, int argc, char **argv)
{
	int rc = cli_parse_options(argc, argv, 1, "demo staircase", demo_opts,
				   demo_usage, demo_opt, d);

	if (rc != CLI_OK)
		return rc;
	if (shtgen_staircase_count(&d->w) == 0)
		return cli_usage_error("demo staircase", "too many attributes");
	return CLI_OK;
}

int cmd_demo_staircase(int argc, char **argv)
{
	static struct demo d;     /* static: the path buffer is large */
	int status;

	memset(&d, 0, sizeof(d));
	d.w.attributes = DEMO_DEFAULT_ATTRIBUTES;
	d.w.intervals = 20;
	d.w.step = 1000;
	status = demo_parse(&d, argc, argv);
	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (!d.path && demo_temp_path(&d) != CLI_OK)
		return CLI_FAIL;
	status = demo_run(&d);
	if (d.temporary)
		remove(d.path);
	return cli_finish_output(status);
}
