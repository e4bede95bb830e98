/*
 * cmd-gen.c: `sht gen staircase|churn`: generate a synthetic workload of
 * BENCHMARKS.md into a history file, and print what the build took.
 * cli_build_workload is shared with `sht demo`.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

static const char gen_usage[] =
"Usage: sht gen staircase --attributes A [--intervals I] [--step D]\n"
"                         [BUILD OPTIONS] -o FILE\n"
"       sht gen churn --threads N [BUILD OPTIONS] -o FILE\n"
"\n"
"Generate a synthetic workload (see BENCHMARKS.md) into the history file\n"
"FILE and print one summary line: intervals, seconds, intervals/s, bytes.\n"
"\n"
"Workloads:\n"
"  staircase     A attributes changing in turn, every D ns, I times each\n"
"                (A*(I+1)-1 intervals; the eSHT paper's Figure 7)\n"
"  churn         N short-lived threads, one born every 1000 ns\n"
"\n"
"Workload options:\n"
"  --attributes A     staircase: number of attributes (>= 1)\n"
"  --intervals I      staircase: changes per attribute (default 20)\n"
"  --step D           staircase: ns between changes (default 1000)\n"
"  --threads N        churn: number of threads (>= 1)\n"
"\n"
"Build options:\n"
"  --variant V        esht (default) or sht (the classic tree)\n"
"  --block-size B     block bytes, a power of two from 1k to 16M;\n"
"                     suffixes k, K, m, M (default 64k)\n"
"  --max-children C   children per node (default 50)\n"
"  --no-sync          do not fsync the file at the end\n"
"  -o, --output FILE  the history file to write (replaced)\n"
"  --json             print the summary as one JSON object\n"
"  --dump             print the intervals instead of building a file,\n"
"                     one per line: quark  [start, end]  type  value\n"
"  -h, --help         show this help\n";

enum {
	OPT_ATTRIBUTES = 1,
	OPT_INTERVALS,
	OPT_STEP,
	OPT_THREADS,
	OPT_VARIANT,
	OPT_BLOCK_SIZE,
	OPT_MAX_CHILDREN,
	OPT_NO_SYNC,
	OPT_OUTPUT,
	OPT_JSON,
	OPT_DUMP,
};

#define BUILD_OPTS \
	{ "variant", 0, 1, OPT_VARIANT }, \
	{ "block-size", 0, 1, OPT_BLOCK_SIZE }, \
	{ "max-children", 0, 1, OPT_MAX_CHILDREN }, \
	{ "no-sync", 0, 0, OPT_NO_SYNC }, \
	{ "output", 'o', 1, OPT_OUTPUT }, \
	{ "json", 0, 0, OPT_JSON }, \
	{ "dump", 0, 0, OPT_DUMP }, \
	{ NULL, 0, 0, 0 }

static const cli_opt staircase_opts[] = {
	{ "attributes", 0, 1, OPT_ATTRIBUTES },
	{ "intervals", 0, 1, OPT_INTERVALS },
	{ "step", 0, 1, OPT_STEP },
	BUILD_OPTS
};

static const cli_opt churn_opts[] = {
	{ "threads", 0, 1, OPT_THREADS },
	BUILD_OPTS
};

/* Everything the command line says. */
struct gen_opts {
	const char *cmd;          /* "gen staircase" or "gen churn" */
	cli_workload w;
	sht_build_opts build;
	const char *output;       /* -o FILE */
	int have_size;            /* --attributes / --threads given */
	int json;                 /* --json */
	int dump;                 /* --dump */
};

/* ---- building ---------------------------------------------------------- */

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *workload_name(const cli_workload *w)
{
	return w->kind == CLI_WORKLOAD_CHURN ? "churn" : "staircase";
}

static sht_time workload_end(const cli_workload *w)
{
	if (w->kind == CLI_WORKLOAD_CHURN)
		return sht__churn_end(&w->churn);
	return sht__staircase_end(&w->staircase);
}

static sht_err workload_run(const cli_workload *w, sht__emit_fn emit,
			    void *ctx)
{
	if (w->kind == CLI_WORKLOAD_CHURN)
		return sht__churn_run(&w->churn, emit, ctx);
	return sht__staircase_run(&w->staircase, emit, ctx);
}

/* State of one build, passed to build_emit. */
struct build_ctx {
	sht_builder *b;
	uint64_t count;           /* intervals inserted */
	sht_interval failed;      /* the interval refused, if any */
};

static sht_err build_emit(void *ctx, const sht_interval *iv)
{
	struct build_ctx *c = ctx;
	sht_err err = sht_builder_insert(c->b, iv);

	if (err < 0) {
		c->failed = *iv;
		return err;
	}
	c->count++;
	return SHT_OK;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return 0;
	return (uint64_t)st.st_size;
}

/* Generate and finish; on failure report and return CLI_FAIL (the
 * caller destroys the builder). */
static int build_fill(const cli_workload *w, const char *path,
		      struct build_ctx *c)
{
	sht_err err = workload_run(w, build_emit, c);

	if (err < 0) {
		if (c->failed.end >= c->failed.start)
			return cli_fail(err, "insert interval quark=%lu "
					"[%lld, %lld] into %s",
					(unsigned long)c->failed.quark,
					(long long)c->failed.start,
					(long long)c->failed.end, path);
		return cli_fail(err, "generate %s", workload_name(w));
	}
	err = sht_builder_finish(c->b, workload_end(w));
	if (err < 0)
		return cli_fail(err, "finish %s", path);
	return CLI_OK;
}

int cli_build_workload(const cli_workload *w, const char *path,
		       const sht_build_opts *opts, cli_build_summary *out)
{
	struct build_ctx c;
	double t0 = cli_now();
	sht_err err;
	int status;

	memset(&c, 0, sizeof(c));
	c.failed.start = 1;       /* no failed interval yet */
	err = sht_builder_create(path, 0, opts, &c.b);
	if (err < 0)
		return cli_fail(err, "create %s", path);
	status = build_fill(w, path, &c);
	sht_builder_destroy(c.b);
	if (status != CLI_OK) {
		remove(path);     /* incomplete: no reader would take it */
		return status;
	}
	out->workload = workload_name(w);
	out->path = path;
	out->variant = opts->variant;
	out->intervals = c.count;
	out->seconds = cli_now() - t0;
	out->file_bytes = file_size(path);
	return CLI_OK;
}

/* ---- --dump ------------------------------------------------------------ */

static sht_err dump_emit(void *ctx, const sht_interval *iv)
{
	(void)ctx;
	cli_print_interval(stdout, iv);
	return ferror(stdout) ? SHT_ERR_IO : SHT_OK;
}

static int gen_dump(const cli_workload *w)
{
	sht_err err = workload_run(w, dump_emit, NULL);

	if (err < 0)
		return cli_error("cannot write the intervals of %s",
				 workload_name(w));
	return cli_finish_output(CLI_OK);
}

/* ---- options ----------------------------------------------------------- */

static int gen_workload_opt(struct gen_opts *o, int id, const char *val)
{
	uint64_t x;
	int64_t d;

	switch (id) {
	case OPT_ATTRIBUTES:
		o->have_size = 1;
		return cli_parse_u64(o->cmd, "--attributes", val, 1,
				     (uint64_t)SHT_QUARK_MAX + 1u,
				     &o->w.staircase.attributes);
	case OPT_INTERVALS:
		if (cli_parse_u64(o->cmd, "--intervals", val, 1,
				  (uint64_t)INT32_MAX + 1u, &x) < 0)
			return -1;
		o->w.staircase.intervals = (uint32_t)x;
		return 0;
	case OPT_STEP:
		if (cli_parse_i64(o->cmd, "--step", val, 1, INT64_MAX, &d) < 0)
			return -1;
		o->w.staircase.step = d;
		return 0;
	default:                  /* OPT_THREADS */
		o->have_size = 1;
		return cli_parse_u64(o->cmd, "--threads", val, 1,
				     SHT_QUARK_MAX / 3u, &o->w.churn.threads);
	}
}

static int parse_block_size(const char *cmd, const char *val, uint32_t *out)
{
	uint64_t x;

	if (cli_parse_size(cmd, "--block-size", val, SHT_BLOCK_SIZE_MIN,
			   SHT_BLOCK_SIZE_MAX, &x) < 0)
		return -1;
	if (x & (x - 1u)) {
		cli_usage_error(cmd, "invalid value '%s' for --block-size: "
				"not a power of two", val);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

/* One option of gen_opts. */
static int gen_build_opt(struct gen_opts *o, int id, const char *val)
{
	uint64_t x;

	switch (id) {
	case OPT_VARIANT:
		return cli_parse_variant(o->cmd, "--variant", val,
					 &o->build.variant);
	case OPT_BLOCK_SIZE:
		return parse_block_size(o->cmd, val, &o->build.block_size);
	case OPT_MAX_CHILDREN:
		if (cli_parse_u64(o->cmd, "--max-children", val, 2,
				  UINT32_MAX, &x) < 0)
			return -1;
		o->build.max_children = (uint32_t)x;
		return 0;
	case OPT_NO_SYNC:
		o->build.no_sync = 1;
		return 0;
	case OPT_OUTPUT:
		o->output = val;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_DUMP:
		o->dump = 1;
		return 0;
	default:
		return gen_workload_opt(o, id, val);
	}
}

/* Checks once every option is known. */
static int gen_validate(struct gen_opts *o)
{
	int churn = o->w.kind == CLI_WORKLOAD_CHURN;

	if (!o->have_size)
		return cli_usage_error(o->cmd, "missing %s",
				       churn ? "--threads N" : "--attributes A");
	if (!churn && sht__staircase_count(&o->w.staircase) == 0)
		return cli_usage_error(o->cmd, "staircase too long: "
				       "attributes * intervals * step exceeds "
				       "the time range");
	if (o->dump && o->output)
		return cli_usage_error(o->cmd, "--dump writes no file: "
				       "drop -o");
	if (!o->dump && !o->output)
		return cli_usage_error(o->cmd, "missing -o FILE");
	return CLI_OK;
}

static int gen_parse(struct gen_opts *o, int argc, char **argv)
{
	const cli_opt *table = o->w.kind == CLI_WORKLOAD_CHURN ?
			       churn_opts : staircase_opts;
	cli_args a;
	const char *val;
	int id;

	cli_args_init(&a, argc, argv, 2, o->cmd, table);
	while ((id = cli_next(&a, &val)) != CLI_ARG_END) {
		if (id == CLI_ARG_BAD)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			fputs(gen_usage, stdout);
			return -1;
		}
		if (id == CLI_ARG_POS)
			return cli_usage_error(o->cmd, "unexpected argument "
					       "'%s'", val);
		if (gen_build_opt(o, id, val) < 0)
			return CLI_USAGE;
	}
	return gen_validate(o);
}

static int gen_select(struct gen_opts *o, const char *name)
{
	if (strcmp(name, "staircase") == 0) {
		o->w.kind = CLI_WORKLOAD_STAIRCASE;
		o->cmd = "gen staircase";
	} else if (strcmp(name, "churn") == 0) {
		o->w.kind = CLI_WORKLOAD_CHURN;
		o->cmd = "gen churn";
	} else {
		return -1;
	}
	o->w.staircase.intervals = 20;
	o->w.staircase.step = 1000;
	sht_build_opts_init(&o->build);
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_opts o;
	cli_build_summary sum;
	int status;

	memset(&o, 0, sizeof(o));
	if (argc < 2)
		return cli_usage_error("gen", "missing workload: staircase or "
				       "churn");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(gen_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	if (gen_select(&o, argv[1]) < 0)
		return cli_usage_error("gen", "unknown workload '%s' (expected "
				       "staircase or churn)", argv[1]);
	status = gen_parse(&o, argc, argv);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (o.dump)
		return gen_dump(&o.w);
	status = cli_build_workload(&o.w, o.output, &o.build, &sum);
	if (status != CLI_OK)
		return status;
	cli_print_build_summary(&sum, o.json);
	return cli_finish_output(CLI_OK);
}
