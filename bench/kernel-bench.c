/*
 * kernel-bench.c: cost of the Linux kernel analysis (src/analysis/) and of
 * the history on top of decoding the trace.
 *
 *   kernel-bench TRACE [--repeat K] [--backend null|tree|threaded] [--dir D]
 *
 * Four measurements, each K times (default 5), medians printed; the
 * runs are interleaved (decode, null, tree, threaded, decode, ...) so that
 * a change of load on a shared machine falls on all of them alike:
 *   decode  sht_ctf_open, next over every event, one payload field read
 *           per event ("tid", as bench/ctf-bench.c does);
 *   null    CTF + kernel provider (layout AUTO) through sht_state_run
 *           into a state system with the null backend;
 *   tree    the same with the tree backend into D/kernel-bench.sht
 *           (finished at sht_state_end, removed afterwards);
 *   threaded the tree backend with the threaded builder (tree.threaded =
 *           1: placement and encoding on threads of their own, as
 *           `sht build` does), same file.
 * --backend restricts the provider runs to one of them (default: all).
 * One JSON line per measurement: wall seconds, events/s, and for the
 * provider runs the overhead ratio over decoding (x / decode - 1, of the
 * medians) and overhead_paired, the median over the K rounds of each
 * round's own ratio (steadier when the load changes between rounds);
 * cpu_seconds and overhead_cpu are the same from the process's CPU time
 * (user + system), which other processes on the machine disturb less.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "bench-json.h"
#include "bench-util.h"

#define MAX_REPS 101

/* Decode only: seconds, -1 on error; events into *n, CPU seconds into
 * *cpu. */
static double run_decode(const char *trace, uint64_t *n, uint64_t *sum, double *cpu)
{
	sht_source src;
	sht_event ev;
	sht_field f;
	sht_err err;
	double t0 = now_s(), c0 = cpu_s();

	*n = 0;
	if (sht_ctf_open(trace, NULL, &src) != SHT_OK) {
		fprintf(stderr, "kernel-bench: %s\n", sht_errmsg());
		return -1;
	}
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		(*n)++;
		if (sht_event_field(&ev, "tid", &f) == SHT_FIELD_INT)
			*sum += (uint64_t)f.v.i;
		else if (f.type == SHT_FIELD_UINT)
			*sum += f.v.u;
	}
	sht_ctf_close(&src);
	if (err != SHT_END) {
		fprintf(stderr, "kernel-bench: %s\n", sht_errmsg());
		return -1;
	}
	*cpu = cpu_s() - c0;
	return now_s() - t0;
}

/* CTF + kernel provider into a state system: seconds, -1 on error.  path:
 * the history file (tree backend) or NULL (null backend); CPU seconds
 * into *cpu. */
static double run_provider(const char *trace, sht_backend backend, int threads,
			   const char *path, uint64_t *n, uint64_t *attrs, double *cpu)
{
	sht_source src;
	sht_event ev;
	sht_kernel *k = NULL;
	sht_provider p;
	sht_state *ss = NULL;
	sht_state_opts o;
	sht_err err;
	double t0 = now_s(), c0 = cpu_s(), dt = -1;

	*n = 0;
	if (sht_ctf_open(trace, NULL, &src) != SHT_OK) {
		fprintf(stderr, "kernel-bench: %s\n", sht_errmsg());
		return -1;
	}
	err = src.ops->next(src.src, &ev);   /* start time: the first event */
	if (err == SHT_OK)
		err = src.ops->seek(src.src, ev.pos);
	if (err == SHT_OK)
		err = sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k);
	if (err == SHT_OK) {
		sht_kernel_provider(k, &p);
		sht_state_opts_init(&o);
		o.backend = backend;
		o.provider = p.id;
		o.provider_version = p.version;
		o.tree.no_sync = true;
		o.tree.threaded = threads;
		err = sht_state_create(path, ev.ts, &o, &ss);
	}
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, n, NULL);
	if (err == SHT_OK)
		err = sht_state_finish(ss, sht_state_end(ss));
	if (err == SHT_OK) {
		dt = now_s() - t0;
		*cpu = cpu_s() - c0;
		*attrs = sht_state_attr_count(ss);
	} else {
		fprintf(stderr, "kernel-bench: %s\n", sht_errmsg());
	}
	sht_state_close(ss);
	sht_kernel_destroy(k);
	sht_ctf_close(&src);
	return dt;
}

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: kernel-bench TRACE [--repeat K (1..%d)]"
		   " [--backend null|tree|threaded] [--dir D]\n", MAX_REPS);
	exit(status);
}

#define NRUNS 3

static const struct run {
	const char *name;
	sht_backend backend;
	int threads;
} runs[NRUNS] = {
	{ "null", SHT_BACKEND_NULL, 0 },
	{ "tree", SHT_BACKEND_TREE, 0 },
	{ "threaded", SHT_BACKEND_TREE, 1 },
};

struct times {
	double t[MAX_REPS], c[MAX_REPS], ratio[MAX_REPS];
	uint64_t n, attrs;
};

/* One JSON line of a measurement's medians; the provider runs add their
 * overheads over decoding (medians dec, cdec). */
static void print_run(const char *trace, const char *run, int reps,
		      uint64_t n, double t, double c, const struct times *x,
		      double dec, double cdec)
{
	json_t *o = bj_object();

	bj_str(o, "trace", trace);
	bj_str(o, "run", run);
	bj_int(o, "repeat", reps);
	bj_int(o, "events", (int64_t)n);
	if (x)
		bj_int(o, "attributes", (int64_t)x->attrs);
	bj_num(o, "seconds", t);
	bj_num(o, "events_per_s", (double)n / t);
	if (x) {
		double ratio[MAX_REPS];

		memcpy(ratio, x->ratio, sizeof ratio);
		bj_num(o, "overhead", t / dec - 1);
		bj_num(o, "overhead_paired", median(ratio, (size_t)reps));
	}
	bj_num(o, "cpu_seconds", c);
	if (x)
		bj_num(o, "overhead_cpu", c / cdec - 1);
	bj_print(o);
}

static const struct option options[] = {
	{ "repeat", required_argument, NULL, 'r' },
	{ "backend", required_argument, NULL, 'b' },
	{ "dir", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	const char *trace = NULL, *dir = NULL, *only = NULL;
	char path[8192];
	static struct times x[NRUNS];
	double td[MAX_REPS], cd[MAX_REPS], dec, cdec;
	uint64_t n = 0, sum = 0;
	int reps = 5, known = 0, k;

	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'r':
			reps = (int)parse_count_in("--repeat", optarg, 1,
						   MAX_REPS);
			break;
		case 'b': only = optarg; break;
		case 'd': dir = optarg; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind + 1 != argc)
		usage(stderr, 2);
	trace = argv[optind];
	for (int b = 0; only && b < NRUNS; b++)
		known |= !strcmp(only, runs[b].name);
	if (only && !known)
		usage_error("--backend: null, tree or threaded, not '%s'", only);
	if (!dir)
		dir = tmp_dir();
	snprintf(path, sizeof path, "%s/kernel-bench-%ld.sht", dir, (long)getpid());

	for (int r = 0; r < reps; r++) {
		if ((td[r] = run_decode(trace, &n, &sum, &cd[r])) < 0)
			return 1;
		for (int b = 0; b < NRUNS; b++) {
			const struct run *run = &runs[b];
			int tree = run->backend == SHT_BACKEND_TREE;

			if (only && strcmp(only, run->name))
				continue;
			x[b].t[r] = run_provider(trace, run->backend, run->threads,
						 tree ? path : NULL, &x[b].n,
						 &x[b].attrs, &x[b].c[r]);
			if (tree)
				unlink(path);
			if (x[b].t[r] < 0)
				return 1;
			x[b].ratio[r] = x[b].t[r] / td[r] - 1;   /* this round's */
		}
	}
	dec = median(td, reps);
	cdec = median(cd, reps);
	print_run(trace, "decode", reps, n, dec, cdec, NULL, dec, cdec);
	for (int b = 0; b < NRUNS; b++) {
		char name[32];

		if (only && strcmp(only, runs[b].name))
			continue;
		snprintf(name, sizeof name, "kernel+%s", runs[b].name);
		print_run(trace, name, reps, x[b].n, median(x[b].t, (size_t)reps),
			  median(x[b].c, (size_t)reps), &x[b], dec, cdec);
	}
	return 0;
}
