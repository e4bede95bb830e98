/*
 * cmd-gen.c: `sht gen staircase|churn`: perform the state changes of a
 * synthetic workload of GENERATOR.md on a state system, which writes a
 * history file (with its attribute tree and provider identity), and print
 * what the build took.  --dump prints the workload's intervals from the
 * interval generator instead.  cli_build_workload is shared with
 * `sht demo`.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char gen_usage[] =
"Usage: sht gen staircase --attributes A -o FILE [OPTION]...\n"
"  or:  sht gen churn --threads N -o FILE [OPTION]...\n"
"  or:  sht gen staircase|churn ... --backend memory|null\n"
"  or:  sht gen staircase|churn ... --dump\n"
"  or:  sht gen kernel -o OUT [OPTION]...\n"
"\n"
"Perform the state changes of a synthetic workload (see GENERATOR.md)\n"
"through the state system into the history file FILE, which keeps the\n"
"attribute names and the provider identity (the workload's name, version\n"
"1), and print one summary line: intervals, seconds, intervals/s,\n"
"attributes, bytes.  'sht gen kernel' writes a synthetic Linux kernel\n"
"trace instead (see 'sht gen kernel --help', sht-gen-kernel(1)).\n"
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
"  --backend B        where the state system puts the intervals: tree\n"
"                     (default: the file), memory or null (no file, no -o:\n"
"                     times the state system alone; the summary then gives\n"
"                     the workload's interval count)\n"
"  --json             print the summary as one JSON object\n"
"  --dump             print the intervals of the interval generator (no\n"
"                     state system, no file), one per line:\n"
"                     quark  [start, end]  type  value\n"
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
	OPT_BACKEND,
};

#define BUILD_OPTS \
	{ "variant", 0, 1, OPT_VARIANT }, \
	{ "block-size", 0, 1, OPT_BLOCK_SIZE }, \
	{ "max-children", 0, 1, OPT_MAX_CHILDREN }, \
	{ "no-sync", 0, 0, OPT_NO_SYNC }, \
	{ "output", 'o', 1, OPT_OUTPUT }, \
	{ "json", 0, 0, OPT_JSON }, \
	{ "dump", 0, 0, OPT_DUMP }, \
	{ "backend", 0, 1, OPT_BACKEND }, \
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
	shtgen_workload w;
	sht_builder_opts build;
	const char *output;       /* -o FILE */
	sht_backend backend;      /* --backend */
	int have_backend;
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

/* The intervals and bytes of the finished file. */
static int build_file_stats(const char *path, cli_build_summary *out)
{
	sht_reader *r;
	sht_tree_info in;

	if (cli_open_reader(path, &r) != CLI_OK)
		return CLI_FAIL;
	sht_reader_info_get(r, &in);
	out->intervals = in.intervals;
	out->file_bytes = in.file_bytes;
	sht_reader_close(r);
	return CLI_OK;
}

int cli_build_workload(const shtgen_workload *w, const char *path,
		       sht_backend backend, const sht_builder_opts *opts,
		       cli_build_summary *out)
{
	const char *file = backend == SHT_BACKEND_TREE ? path : NULL;
	char tool[96];
	const sht_build_note notes[] = {
		{ "tool", tool }, { "workload", shtgen_wl_name(w) },
	};
	sht_state_opts so;
	sht_state *ss;
	double t0 = cli_now();
	sht_err err;

	sht_state_opts_init(&so);
	so.backend = backend;
	so.tree = *opts;
	so.provider = shtgen_wl_name(w);
	so.provider_version = CLI_WORKLOAD_VERSION;
	so.model = shtgen_wl_model(w);
	snprintf(tool, sizeof(tool), "sht %s (libsht %s)", SHT_VERSION_STRING,
		 sht_version_string());
	so.notes = notes;
	so.n_notes = sizeof(notes) / sizeof(notes[0]);
	err = sht_state_create(file, 0, &so, &ss);
	if (err < 0)
		return file ? cli_fail(err, "create %s", file)
			    : cli_fail(err, "create a %s state system",
				       cli_backend_name(backend));
	err = shtgen_wl_drive(w, ss);
	if (err < 0) {
		cli_fail(err, "build %s%s%s", shtgen_wl_name(w),
			 file ? " into " : "", file ? file : "");
		sht_state_close(ss);
		if (file)
			remove(file);     /* incomplete: no reader takes it */
		return CLI_FAIL;
	}
	memset(out, 0, sizeof(*out));
	out->attributes = sht_state_attr_count(ss);
	sht_state_close(ss);
	out->seconds = cli_now() - t0;
	out->workload = shtgen_wl_name(w);
	out->path = file;
	out->backend = backend;
	out->variant = opts->variant;
	if (file)
		return build_file_stats(file, out);
	out->intervals = shtgen_wl_intervals(w);
	return CLI_OK;
}

/* ---- --dump ------------------------------------------------------------ */

static sht_err dump_emit(void *ctx, const sht_interval *iv)
{
	(void)ctx;
	cli_print_interval(stdout, iv);
	return ferror(stdout) ? SHT_ERR_IO : SHT_OK;
}

static int gen_dump(const shtgen_workload *w)
{
	sht_err err = shtgen_wl_run(w, dump_emit, NULL);

	if (err < 0)
		return cli_error("cannot write the intervals of %s",
				 shtgen_wl_name(w));
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
				     &o->w.st.attributes);
	case OPT_INTERVALS:
		if (cli_parse_u64(o->cmd, "--intervals", val, 1,
				  (uint64_t)INT32_MAX + 1u, &x) < 0)
			return -1;
		o->w.st.intervals = (uint32_t)x;
		return 0;
	case OPT_STEP:
		if (cli_parse_i64(o->cmd, "--step", val, 1, INT64_MAX, &d) < 0)
			return -1;
		o->w.st.step = d;
		return 0;
	default:                  /* OPT_THREADS */
		o->have_size = 1;
		return cli_parse_u64(o->cmd, "--threads", val, 1,
				     SHT_QUARK_MAX / 3u, &o->w.ch.threads);
	}
}

static int parse_backend(const char *cmd, const char *val, sht_backend *out)
{
	if (strcmp(val, "tree") == 0) {
		*out = SHT_BACKEND_TREE;
	} else if (strcmp(val, "memory") == 0) {
		*out = SHT_BACKEND_MEMORY;
	} else if (strcmp(val, "null") == 0) {
		*out = SHT_BACKEND_NULL;
	} else {
		cli_usage_error(cmd, "invalid value '%s' for --backend: "
				"expected 'tree', 'memory' or 'null'", val);
		return -1;
	}
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
		return cli_parse_block_size(o->cmd, val, &o->build.block_size);
	case OPT_MAX_CHILDREN:
		if (cli_parse_u64(o->cmd, "--max-children", val, 2,
				  UINT32_MAX, &x) < 0)
			return -1;
		o->build.max_children = (uint32_t)x;
		return 0;
	case OPT_NO_SYNC:
		o->build.no_sync = true;
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
	case OPT_BACKEND:
		o->have_backend = 1;
		return parse_backend(o->cmd, val, &o->backend);
	default:
		return gen_workload_opt(o, id, val);
	}
}

/* Checks once every option is known. */
static int gen_validate(struct gen_opts *o)
{
	int churn = o->w.kind == SHTGEN_WL_CHURN;

	if (!o->have_size)
		return cli_usage_error(o->cmd, "missing %s",
				       churn ? "--threads N" : "--attributes A");
	if (!churn && shtgen_wl_intervals(&o->w) == 0)
		return cli_usage_error(o->cmd, "staircase too long: "
				       "attributes * intervals * step exceeds "
				       "the time range");
	if (o->dump && o->output)
		return cli_usage_error(o->cmd, "--dump writes no file: "
				       "drop -o");
	if (o->dump && o->have_backend)
		return cli_usage_error(o->cmd, "--dump uses no state system: "
				       "drop --backend");
	if (o->backend != SHT_BACKEND_TREE && o->output)
		return cli_usage_error(o->cmd, "--backend %s writes no file: "
				       "drop -o", cli_backend_name(o->backend));
	if (!o->dump && o->backend == SHT_BACKEND_TREE && !o->output)
		return cli_usage_error(o->cmd, "missing -o FILE");
	return CLI_OK;
}

static int gen_opt(void *ctx, int id, const char *val)
{
	struct gen_opts *o = ctx;

	if (id == CLI_ARG_POS) {
		cli_usage_error(o->cmd, "unexpected argument '%s'", val);
		return -1;
	}
	return gen_build_opt(o, id, val);
}

static int gen_parse(struct gen_opts *o, int argc, char **argv)
{
	const cli_opt *table = o->w.kind == SHTGEN_WL_CHURN ?
			       churn_opts : staircase_opts;
	int rc = cli_parse_options(argc, argv, 2, o->cmd, table, gen_usage,
				   gen_opt, o);

	if (rc != CLI_OK)
		return rc;
	return gen_validate(o);
}

static int gen_select(struct gen_opts *o, const char *name)
{
	if (strcmp(name, "staircase") == 0) {
		o->w.kind = SHTGEN_WL_STAIRCASE;
		o->cmd = "gen staircase";
	} else if (strcmp(name, "churn") == 0) {
		o->w.kind = SHTGEN_WL_CHURN;
		o->cmd = "gen churn";
	} else {
		return -1;
	}
	o->w.st.intervals = 20;
	o->w.st.step = 1000;
	sht_builder_opts_init(&o->build);
	return 0;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_opts o;
	cli_build_summary sum;
	int status;

	memset(&o, 0, sizeof(o));
	if (argc < 2)
		return cli_usage_error("gen", "missing workload: staircase, "
				       "churn or kernel");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(gen_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	if (strcmp(argv[1], "kernel") == 0)
		return cmd_gen_kernel(argc, argv);
	if (gen_select(&o, argv[1]) < 0)
		return cli_usage_error("gen", "unknown workload '%s' (expected "
				       "staircase, churn or kernel)", argv[1]);
	status = gen_parse(&o, argc, argv);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (o.dump)
		return gen_dump(&o.w);
	status = cli_build_workload(&o.w, o.output, o.backend, &o.build,
				    &sum);
	if (status != CLI_OK)
		return status;
	return cli_finish_output(cli_print_build_summary(&sum, o.json));
}
