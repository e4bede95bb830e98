/*
 * cmd-demo-kernel.c: `sht demo [kernel]`: the whole job on an embedded
 * default, no trace needed: generate a synthetic Linux kernel trace
 * (src/gen/include/shtgen/kgen.h) as CTF, build its kernel-analysis history with
 * `sht build`, show the file's statistics, answer queries and compare
 * each answer with what the trace itself says (the thread a sched_switch
 * put on a CPU, its name, the system call a thread entered), and check
 * the file.  `sht demo staircase` runs the staircase demo (cmd-demo.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include <shtgen/kgen.h>

static const char demo_kernel_usage[] =
"Usage: sht demo [kernel] [OPTION]...\n"
"  or:  sht demo staircase [--attributes A] [-o FILE]\n"
"\n"
"Generate a synthetic Linux kernel trace (see 'sht gen kernel'; default\n"
"1000000 events, 4 CPUs, 200 threads), build its history with the Linux\n"
"kernel analysis ('sht build'), print the file's statistics, query it at\n"
"sampled context switches and system call entries and compare every\n"
"answer with the trace's own event (\"ok\" or \"MISMATCH\"), and check the\n"
"file.  Exits with status 1 on any mismatch.  'sht demo staircase' runs\n"
"the staircase workload demo instead ('sht demo staircase --help').\n"
"\n"
"Options:\n"
"  --events N         events of the trace (default 1000000)\n"
"  --cpus C           CPUs (default 4)\n"
"  --threads T        live threads (default 200)\n"
"  --format F         ctf (default) or vstf: the trace's format\n"
"  -o, --output DIR   keep the trace (DIR/trace) and the history\n"
"                     (DIR/trace.sht) in DIR, created if needed (default:\n"
"                     a temporary directory in $TMPDIR, removed at the\n"
"                     end)\n"
"  -h, --help         show this help\n";

enum { SAMPLES = 4 };             /* switches and syscall entries checked */

enum { OPT_EVENTS = 1, OPT_CPUS, OPT_THREADS, OPT_FORMAT, OPT_OUTPUT };

static const cli_opt demo_kernel_opts[] = {
	{ "events", 0, 1, OPT_EVENTS },
	{ "cpus", 0, 1, OPT_CPUS },
	{ "threads", 0, 1, OPT_THREADS },
	{ "format", 0, 1, OPT_FORMAT },
	{ "output", 'o', 1, OPT_OUTPUT },
	{ NULL, 0, 0, 0 }
};

struct kdemo {
	shtgen_kgen_params p;
	shtgen_kgen_stats gen;
	int vstf;
	const char *dir;
	int temporary;
	char tmpdir[4096];
	char trace[4200];
	char file[4200];
};

/* One thing the trace says, to compare with the history. */
struct fact {
	sht_time ts;
	char path[64];            /* the attribute */
	int is_string;
	int64_t num;
	char str[64];
	char what[96];            /* the event that says it */
};

/* ---- what the trace says ------------------------------------------------------ */

static int64_t field_int(const sht_event *ev, const char *name)
{
	sht_field f;

	if (sht_event_field(ev, name, &f) == SHT_FIELD_INT)
		return f.v.i;
	return f.type == SHT_FIELD_UINT ? (int64_t)f.v.u : -1;
}

static const char *field_str(const sht_event *ev, const char *name)
{
	sht_field f;

	return sht_event_field(ev, name, &f) == SHT_FIELD_STRING ? f.v.s : "";
}

/* Facts at the k-th sampled sched_switch: the CPU's current thread, and
 * the incoming thread's name. */
static void switch_facts(const sht_event *ev, struct fact *f)
{
	int64_t tid = field_int(ev, "next_tid");

	f[0].ts = f[1].ts = ev->ts;
	snprintf(f[0].path, sizeof f[0].path, "CPUs/%d/Current_thread",
		 ev->cpu);
	f[0].num = tid;
	snprintf(f[0].what, sizeof f[0].what, "sched_switch on CPU %d: "
		 "next_tid %" PRId64, ev->cpu, tid);
	if (tid == 0)
		snprintf(f[1].path, sizeof f[1].path, "Threads/0_%d/Exec_name",
			 ev->cpu);
	else
		snprintf(f[1].path, sizeof f[1].path, "Threads/%" PRId64
			 "/Exec_name", tid);
	f[1].is_string = 1;
	snprintf(f[1].str, sizeof f[1].str, "%s", field_str(ev, "next_comm"));
	snprintf(f[1].what, sizeof f[1].what, "sched_switch: next_comm");
}

/* The fact of a sampled syscall entry by thread tid. */
static void syscall_fact(const sht_event *ev, int64_t tid, struct fact *f)
{
	f->ts = ev->ts;
	snprintf(f->path, sizeof f->path, "Threads/%" PRId64 "/System_call",
		 tid);
	f->is_string = 1;
	snprintf(f->str, sizeof f->str, "%s", ev->name + 14);
	snprintf(f->what, sizeof f->what, "%s on CPU %d", ev->name, ev->cpu);
}

/* Read the trace again (from the generator: the same events) and pick
 * SAMPLES switches and syscall entries spread over it.  Returns the
 * number of facts. */
static size_t trace_facts(const struct kdemo *d, struct fact *facts)
{
	sht_source src;
	sht_event ev;
	int64_t *cur = calloc(d->p.cpus, sizeof(*cur));
	uint64_t sw = 0, sc = 0;
	uint64_t sw_step = d->gen.switches / (SAMPLES + 1) + 1;
	uint64_t sc_step = d->gen.syscalls / (SAMPLES + 1) + 1;
	size_t n = 0;

	if (!cur || shtgen_kgen_source(&d->p, &src) != SHT_OK) {
		free(cur);
		return 0;
	}
	while (src.ops->next(src.src, &ev) == SHT_OK && n < 3 * SAMPLES) {
		if (strcmp(ev.name, "lttng_statedump_process_state") == 0 &&
		    field_int(&ev, "status") == 6)
			cur[field_int(&ev, "cpu")] = field_int(&ev, "tid");
		if (strcmp(ev.name, "sched_switch") == 0) {
			cur[ev.cpu] = field_int(&ev, "next_tid");
			if (++sw % sw_step == 0) {
				switch_facts(&ev, &facts[n]);
				n += 2;
			}
		} else if (strncmp(ev.name, "syscall_entry_", 14) == 0 &&
			   ++sc % sc_step == 0 && cur[ev.cpu] > 0) {
			syscall_fact(&ev, cur[ev.cpu], &facts[n++]);
		}
	}
	shtgen_kgen_source_free(&src);
	free(cur);
	return n;
}

/* ---- the history's answers ---------------------------------------------------- */

static int answer(sht_state *ss, sht_result *res, const struct fact *f)
{
	sht_quark q;
	const sht_interval *iv = NULL;
	int good;

	printf("at %" PRId64 ": %s = ", f->ts, f->path);
	if (sht_state_quark_path(ss, f->path, false, &q) == SHT_OK &&
	    sht_state_query(ss, q, f->ts, res) == SHT_OK &&
	    sht_result_count(res) == 1)
		iv = sht_result_at(res, 0);
	if (!iv) {
		printf("(no answer: %s)  -> MISMATCH\n", sht_errmsg());
		return 0;
	}
	cli_print_value(stdout, &iv->value);
	if (f->is_string)
		good = iv->value.type == SHT_TYPE_STRING &&
		       iv->value.len == strlen(f->str) &&
		       memcmp(iv->value.u.str, f->str, iv->value.len) == 0;
	else
		good = iv->value.type == SHT_TYPE_INT32 &&
		       iv->value.u.i32 == f->num;
	printf("   (trace: %s)  -> %s\n", f->what, good ? "ok" : "MISMATCH");
	return good;
}

/* Thread statuses at t, from one full query. */
static void full_summary(sht_state *ss, sht_result *res, sht_time t)
{
	sht_quark *threads = NULL;
	size_t n = 0, i;
	uint64_t by[8] = { 0 }, other = 0;
	const sht_interval *iv;

	if (sht_state_query_full(ss, t, res) != SHT_OK ||
	    sht_state_attr_match(ss, "Threads/*", &threads, &n) != SHT_OK) {
		printf("full query at %" PRId64 ": failed: %s\n", t,
		       sht_errmsg());
		return;
	}
	for (i = 0; i < n; i++) {
		iv = sht_result_at(res, (size_t)threads[i]);
		if (iv && iv->value.type == SHT_TYPE_INT32 &&
		    iv->value.u.i32 >= 0 && iv->value.u.i32 < 8)
			by[iv->value.u.i32]++;
		else
			other++;
	}
	printf("full query at %" PRId64 ": %zu intervals; of %zu threads: "
	       "%" PRIu64 " running (user %" PRIu64 ", system call %" PRIu64
	       "), %" PRIu64 " interrupted, %" PRIu64 " waiting for a CPU, %"
	       PRIu64 " blocked, %" PRIu64 " not alive or unknown\n", t,
	       sht_result_count(res), n, by[2] + by[3], by[2], by[3], by[4],
	       by[5], by[1] + by[6] + by[7], by[0] + other);
	free(threads);
}

static int demo_queries(const struct kdemo *d, sht_state *ss)
{
	struct fact facts[3 * SAMPLES + 2];
	size_t n = trace_facts(d, facts), i, good = 0;
	sht_result *res = sht_result_create();

	if (!res)
		return cli_fail(SHT_ERR_NOMEM, "allocate a result set");
	for (i = 0; i < n; i++)
		good += (size_t)answer(ss, res, &facts[i]);
	full_summary(ss, res, (sht_state_start(ss) + sht_state_end(ss)) / 2);
	sht_result_destroy(res);
	printf("%zu of %zu answers agree with the trace\n", good, n);
	if (n == 0 || good != n)
		return cli_error("some answers do not match the trace");
	return CLI_OK;
}

/* ---- the run ------------------------------------------------------------------- */

static int demo_generate(struct kdemo *d)
{
	shtgen_kgen_write_stats st;
	sht_err err;

	printf("== generate: a synthetic kernel trace, %" PRIu64 " events, %u "
	       "CPUs, %u threads, as %s ==\n", d->p.events, d->p.cpus,
	       d->p.threads, d->vstf ? "VSTF" : "CTF");
	fflush(stdout);
	memset(&st, 0, sizeof(st));
	err = d->vstf ? shtgen_kgen_write_vstf(&d->p, d->trace, NULL, NULL, &st)
		      : shtgen_kgen_write_ctf(&d->p, d->trace, NULL, NULL, &st);
	if (err < 0)
		return cli_fail(err, "generate the trace %s", d->trace);
	d->gen = st.gen;
	printf("%s: %" PRIu64 " events, %" PRIu64 " bytes, %" PRIu64
	       " threads (%" PRIu64 " forks), %" PRIu64 " context switches, %"
	       PRIu64 " system calls, %.2f s\n", d->trace, st.gen.events,
	       st.bytes, st.gen.threads_created, st.gen.forks,
	       st.gen.switches, st.gen.syscalls, st.seconds);
	return CLI_OK;
}

static int demo_build(const struct kdemo *d)
{
	char build[] = "build", out[] = "-o", np[] = "--no-progress";
	char *argv[5];

	argv[0] = build;
	argv[1] = (char *)(uintptr_t)d->trace;
	argv[2] = out;
	argv[3] = (char *)(uintptr_t)d->file;
	argv[4] = np;
	printf("\n== build: the Linux kernel analysis (sht build) ==\n");
	fflush(stdout);
	return cmd_build(5, argv);
}

static int demo_queries_cb(const void *ctx, sht_state *ss)
{
	return demo_queries(ctx, ss);
}

static int demo_run(struct kdemo *d)
{
	if (demo_generate(d) != CLI_OK || demo_build(d) != CLI_OK)
		return CLI_FAIL;
	return cli_demo_inspect(d->file, "queries: the history against the "
				"trace", demo_queries_cb, d);
}

/* DIR (created if needed) or a new temporary directory; the paths in it. */
static int demo_paths(struct kdemo *d)
{
	const char *tmp = getenv("TMPDIR");

	if (!d->dir) {
		snprintf(d->tmpdir, sizeof(d->tmpdir), "%s/sht-demo-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(d->tmpdir))
			return cli_error("cannot create a temporary directory "
					 "in %s: %s", tmp && *tmp ? tmp : "/tmp",
					 strerror(errno));
		d->dir = d->tmpdir;
		d->temporary = 1;
	} else if (mkdir(d->dir, 0777) != 0 && errno != EEXIST) {
		return cli_error("cannot create %s: %s", d->dir,
				 strerror(errno));
	}
	snprintf(d->trace, sizeof(d->trace), "%s/trace%s", d->dir,
		 d->vstf ? ".vstf" : "");
	snprintf(d->file, sizeof(d->file), "%s/trace.sht", d->dir);
	/* A kept directory gets a new trace and history each run. */
	shtgen_rm_tree(d->trace);
	remove(d->file);
	return CLI_OK;
}

static int demo_opt(void *ctx, int id, const char *val)
{
	struct kdemo *d = ctx;
	uint64_t v;

	switch (id) {
	case CLI_ARG_POS:
		cli_usage_error("demo", "unexpected argument '%s'", val);
		return -1;
	case OPT_EVENTS:
		return cli_parse_u64("demo", "--events", val, 1000,
				     (uint64_t)1 << 40, &d->p.events);
	case OPT_CPUS:
		if (cli_parse_u64("demo", "--cpus", val, 1, 1024, &v) < 0)
			return -1;
		d->p.cpus = (uint32_t)v;
		return 0;
	case OPT_THREADS:
		if (cli_parse_u64("demo", "--threads", val, 1, 100000, &v) < 0)
			return -1;
		d->p.threads = (uint32_t)v;
		return 0;
	case OPT_FORMAT:
		if (strcmp(val, "ctf") != 0 && strcmp(val, "vstf") != 0) {
			cli_usage_error("demo", "invalid value '%s' for "
					"--format: expected ctf or vstf", val);
			return -1;
		}
		d->vstf = strcmp(val, "vstf") == 0;
		return 0;
	default:                          /* OPT_OUTPUT */
		d->dir = val;
		return 0;
	}
}

/* Whether this libsht reads CTF (a build without libbabeltrace2 says it
 * was built so, whatever the path). */
static int ctf_readable(void)
{
	sht_source probe;
	sht_err err = sht_ctf_open("/nonexistent-sht-probe", NULL, &probe);

	if (err == SHT_OK)
		sht_ctf_close(&probe);
	return !(err == SHT_ERR_INVALID &&
		 strstr(sht_errmsg(), "without libbabeltrace2"));
}

int cmd_demo(int argc, char **argv)
{
	static struct kdemo d;    /* static: the path buffers are large */
	int first = 1, status;

	if (argc >= 2 && strcmp(argv[1], "staircase") == 0)
		return cmd_demo_staircase(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "kernel") == 0)
		first = 2;
	memset(&d, 0, sizeof(d));
	shtgen_kgen_params_init(&d.p);
	status = cli_parse_options(argc, argv, first, "demo",
				   demo_kernel_opts, demo_kernel_usage,
				   demo_opt, &d);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (!d.vstf && !ctf_readable()) {
		printf("(this sht reads no CTF: built without libbabeltrace2; "
		       "the demo trace is VSTF)\n");
		d.vstf = 1;
	}
	if (demo_paths(&d) != CLI_OK)
		return CLI_FAIL;
	status = demo_run(&d);
	if (d.temporary)
		shtgen_rm_tree(d.dir);
	return cli_finish_output(status);
}
