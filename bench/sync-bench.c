/*
 * sync-bench.c: the cost of trace synchronization beside the cost of
 * reading the traces (docs/SYNC.md, "Performance").
 *
 *   sync-bench [--size B] [--format ctf|vstf] [--runs R] [--dir D] [--keep]
 *              [--gap NS] [--hosts N]
 *
 * Writes N (default 2) synthetic hosts exchanging TCP packets (sht gen
 * kernel --hosts: shtgen_knet_write), about B bytes each (default 1g;
 * suffixes k, m, g), one packet every NS ns of trace time on average
 * (default 100 000), into D (default $TMPDIR or /tmp), then R times
 * (default 5), each in a child process of its own (so that its peak
 * resident memory is its own):
 *
 *   decode   every event of every trace read (merged in time, as
 *            synchronization reads them), nothing done with them
 *   sync     sht_sync_compute over the same traces
 *   fixed    every event read through its trace's transform
 *            (sht_transform_source: what sht build --sync adds)
 *
 * and prints the medians: seconds, events/s, peak RSS (MiB), and the
 * ratios sync / decode and fixed / decode; one JSON line at the end.
 * Exit status 1 if synchronization is not accurate or the runs disagree
 * on its result, 2 on an error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sht/sht.h"
#include <shtgen/knet.h>
#include "bench-util.h"

#define MAX_RUNS 64

struct opts {
	uint64_t size;
	int vstf, runs, keep;
	uint32_t hosts, gap;
	const char *dir;
};

/* What one measured child reports. */
struct sample {
	double seconds;
	double rss_mib;
	uint64_t events;
	uint64_t matches, peak_pending;
	int quality;
	char slope[64], offset[64];
};

static void die_sht(const char *what)
{
	die("%s: %s", what, sht_errmsg());
}

static const struct option options[] = {
	{ "size", required_argument, NULL, 's' },
	{ "format", required_argument, NULL, 'f' },
	{ "runs", required_argument, NULL, 'r' },
	{ "dir", required_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ "gap", required_argument, NULL, 'g' },
	{ "hosts", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: sync-bench [--size B] [--format ctf|vstf] "
		"[--runs R] [--dir D] [--keep] [--gap NS] [--hosts N]\n");
	exit(status);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int k;

	memset(o, 0, sizeof(*o));
	o->size = (uint64_t)1 << 30;
	o->runs = 5;
	o->hosts = 2;
	o->gap = 100000;
	o->dir = tmp_dir();
	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 's': o->size = parse_bytes("--size", optarg); break;
		case 'f':
			if (strcmp(optarg, "ctf") && strcmp(optarg, "vstf"))
				usage_error("--format: 'ctf' or 'vstf', not '%s'",
					    optarg);
			o->vstf = !strcmp(optarg, "vstf");
			break;
		case 'r':
			o->runs = (int)parse_count_in("--runs", optarg, 1,
						      MAX_RUNS);
			break;
		case 'd': o->dir = optarg; break;
		case 'k': o->keep = 1; break;
		case 'g':
			o->gap = (uint32_t)parse_count_in("--gap", optarg, 1,
							  UINT32_MAX);
			break;
		case 'n':
			o->hosts = (uint32_t)parse_count_in("--hosts", optarg,
							    2, SHTGEN_KNET_MAX_HOSTS);
			break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind < argc)
		usage(stderr, 2);
}

/* ---- the traces ----------------------------------------------------------------- */

struct traces {
	size_t n;
	char path[SHTGEN_KNET_MAX_HOSTS][4200];
	char host[SHTGEN_KNET_MAX_HOSTS][64];
	sht_source src[SHTGEN_KNET_MAX_HOSTS];
	sht_net_layout layout[SHTGEN_KNET_MAX_HOSTS];
	int vstf;
};

static void open_traces(struct traces *t)
{
	for (size_t i = 0; i < t->n; i++) {
		sht_err err = t->vstf ? sht_vstf_open(t->path[i], &t->src[i])
				      : sht_ctf_open(t->path[i], NULL,
						     &t->src[i]);

		if (err < 0)
			die_sht(t->path[i]);
		if (t->vstf || sht_ctf_host_id(&t->src[i], t->host[i],
					       sizeof t->host[i]) != SHT_OK)
			snprintf(t->host[i], sizeof t->host[i], "host%zu", i);
		t->layout[i] = SHT_NET_LAYOUT_LTTNG_2_9;
	}
}

static void close_traces(struct traces *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->vstf)
			sht_vstf_close(&t->src[i]);
		else
			sht_ctf_close(&t->src[i]);
	}
}

/* Every event of the sources, merged in time; their count. */
static uint64_t read_merged(sht_source *src, size_t n)
{
	sht_event ev[SHTGEN_KNET_MAX_HOSTS];
	int live[SHTGEN_KNET_MAX_HOSTS];
	uint64_t count = 0;
	size_t i, best;

	for (i = 0; i < n; i++)
		live[i] = src[i].ops->next(src[i].src, &ev[i]) == SHT_OK;
	for (;;) {
		best = n;
		for (i = 0; i < n; i++)
			if (live[i] && (best == n || ev[i].ts < ev[best].ts))
				best = i;
		if (best == n)
			return count;
		count++;
		live[best] = src[best].ops->next(src[best].src, &ev[best]) ==
			     SHT_OK;
	}
}

/* ---- one measurement in a child ------------------------------------------------- */

enum phase { DECODE, SYNC, FIXED };

static sht_sync *synchronize(struct traces *t)
{
	sht_sync_input in[SHTGEN_KNET_MAX_HOSTS];
	sht_sync *s = NULL;

	for (size_t i = 0; i < t->n; i++)
		in[i] = (sht_sync_input){ &t->src[i], t->path[i], t->host[i],
					  t->layout[i] };
	if (sht_sync_compute(in, t->n, &s) != SHT_OK)
		die_sht("sht_sync_compute");
	return s;
}

static void measure(struct traces *t, enum phase ph, const sht_sync *given,
		    struct sample *out)
{
	sht_source fixed[SHTGEN_KNET_MAX_HOSTS];
	sht_sync_trace_info ti;
	sht_sync_stats st;
	struct rusage ru;
	sht_sync *s;
	double t0;

	memset(out, 0, sizeof(*out));
	open_traces(t);
	t0 = now_s();
	if (ph == DECODE) {
		out->events = read_merged(t->src, t->n);
	} else if (ph == SYNC) {
		s = synchronize(t);
		sht_sync_stats_get(s, &st);
		out->events = st.events;
		out->matches = st.matches;
		out->peak_pending = st.peak_pending;
		out->quality = (int)sht_sync_quality_get(s);
		sht_sync_trace(s, t->n - 1, &ti);
		snprintf(out->slope, sizeof out->slope, "%s",
			 sht_transform_slope(ti.transform));
		snprintf(out->offset, sizeof out->offset, "%s",
			 sht_transform_offset(ti.transform));
		sht_sync_free(s);
	} else {
		for (size_t i = 0; i < t->n; i++) {
			sht_sync_trace(given, i, &ti);
			if (sht_transform_source(&t->src[i], ti.transform,
						 &fixed[i]) != SHT_OK)
				die_sht("sht_transform_source");
		}
		out->events = read_merged(fixed, t->n);
		for (size_t i = 0; i < t->n; i++)
			sht_transform_source_free(&fixed[i]);
	}
	out->seconds = now_s() - t0;
	close_traces(t);
	getrusage(RUSAGE_SELF, &ru);
	out->rss_mib = (double)ru.ru_maxrss / 1024.0;
}

/* Run measure in a child; its sample through a pipe. */
static void in_child(struct traces *t, enum phase ph, const sht_sync *s,
		     struct sample *out)
{
	int fd[2], status;
	pid_t pid;

	if (pipe(fd) != 0)
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct sample x;

		close(fd[0]);
		measure(t, ph, s, &x);
		if (write(fd[1], &x, sizeof x) != (ssize_t)sizeof x)
			_exit(2);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], out, sizeof *out) != (ssize_t)sizeof *out ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "sync-bench: a measurement failed\n");
		exit(2);
	}
	close(fd[0]);
}

/* ---- main --------------------------------------------------------------------------- */

static double med(const struct sample *v, int n, size_t off)
{
	double x[MAX_RUNS];

	for (int i = 0; i < n; i++)
		x[i] = *(const double *)((const char *)&v[i] + off);
	return median(x, (size_t)n);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct traces t;
	shtgen_knet_params p;
	shtgen_knet_write_stats ws;
	struct sample dec[MAX_RUNS], syn[MAX_RUNS], fix[MAX_RUNS];
	char dir[4096];
	sht_sync *s;
	double sd, ss, sf;
	int bad = 0;

	parse(argc, argv, &o);
	memset(&t, 0, sizeof t);
	snprintf(dir, sizeof dir, "%s/sync-bench-%ld", o.dir, (long)getpid());
	shtgen_knet_params_init(&p);
	p.hosts = o.hosts;
	p.packet_gap = o.gap;
	p.k.events = shtgen_kgen_events_for_size(&p.k, o.size, o.vstf);
	fprintf(stderr, "sync-bench: writing %u hosts of %" PRIu64
		" events (about %" PRIu64 " MiB each) into %s\n", p.hosts,
		p.k.events, o.size >> 20, dir);
	if (shtgen_knet_write(&p, dir, o.vstf, NULL, NULL, &ws) != SHT_OK)
		die_sht("writing the traces");
	t.n = p.hosts;
	t.vstf = o.vstf;
	for (size_t i = 0; i < t.n; i++)
		snprintf(t.path[i], sizeof t.path[i], "%s/host%zu%s", dir, i,
			 o.vstf ? ".vstf" : "");
	/* The transforms for the "fixed" runs (and a warm page cache). */
	open_traces(&t);
	s = synchronize(&t);
	close_traces(&t);
	for (int r = 0; r < o.runs; r++) {
		in_child(&t, DECODE, s, &dec[r]);
		in_child(&t, SYNC, s, &syn[r]);
		in_child(&t, FIXED, s, &fix[r]);
		fprintf(stderr, "run %d: decode %.2f s, sync %.2f s, fixed "
			"%.2f s\n", r + 1, dec[r].seconds, syn[r].seconds,
			fix[r].seconds);
		bad |= syn[r].quality != SHT_SYNC_ACCURATE ||
		       strcmp(syn[r].slope, syn[0].slope) != 0 ||
		       strcmp(syn[r].offset, syn[0].offset) != 0 ||
		       syn[r].events != dec[r].events ||
		       fix[r].events != dec[r].events;
	}
	sd = med(dec, o.runs, offsetof(struct sample, seconds));
	ss = med(syn, o.runs, offsetof(struct sample, seconds));
	sf = med(fix, o.runs, offsetof(struct sample, seconds));
	printf("%u hosts, %s, %" PRIu64 " bytes, %" PRIu64 " events (%"
	       PRIu64 " packet events), %d runs, medians:\n", p.hosts,
	       o.vstf ? "VSTF" : "CTF", ws.bytes, ws.events, ws.packet_events,
	       o.runs);
	printf("  decode  %8.2f s %6.2f M events/s  peak RSS %7.1f MiB\n", sd,
	       (double)dec[0].events / sd * 1e-6,
	       med(dec, o.runs, offsetof(struct sample, rss_mib)));
	printf("  sync    %8.2f s %6.2f M events/s  peak RSS %7.1f MiB  "
	       "(%.3f x decode)\n", ss, (double)syn[0].events / ss * 1e-6,
	       med(syn, o.runs, offsetof(struct sample, rss_mib)), ss / sd);
	printf("  fixed   %8.2f s %6.2f M events/s  peak RSS %7.1f MiB  "
	       "(%.3f x decode)\n", sf, (double)fix[0].events / sf * 1e-6,
	       med(fix, o.runs, offsetof(struct sample, rss_mib)), sf / sd);
	printf("  %" PRIu64 " matches, quality %s, at most %" PRIu64
	       " packets waiting; last host: slope %s offset %s\n",
	       syn[0].matches, sht_sync_quality_name(syn[0].quality),
	       syn[0].peak_pending, syn[0].slope, syn[0].offset);
	printf("{\"hosts\":%u,\"format\":\"%s\",\"bytes\":%" PRIu64
	       ",\"events\":%" PRIu64 ",\"packet_events\":%" PRIu64
	       ",\"runs\":%d,\"decode_s\":%.3f,\"sync_s\":%.3f,"
	       "\"fixed_s\":%.3f,\"sync_ratio\":%.4f,\"fixed_ratio\":%.4f,"
	       "\"decode_rss_mib\":%.1f,\"sync_rss_mib\":%.1f,"
	       "\"matches\":%" PRIu64 ",\"peak_pending\":%" PRIu64
	       ",\"quality\":\"%s\"}\n", p.hosts, o.vstf ? "vstf" : "ctf",
	       ws.bytes, ws.events, ws.packet_events, o.runs, sd, ss, sf,
	       ss / sd, sf / sd,
	       med(dec, o.runs, offsetof(struct sample, rss_mib)),
	       med(syn, o.runs, offsetof(struct sample, rss_mib)),
	       syn[0].matches, syn[0].peak_pending,
	       sht_sync_quality_name(syn[0].quality));
	sht_sync_free(s);
	if (!o.keep)
		shtgen_rm_tree(dir);
	return bad ? 1 : 0;
}
