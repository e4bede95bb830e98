/*
 * cmd-gen-kernel.c: `sht gen kernel`: write a synthetic Linux kernel trace
 * (src/gen/include/shtgen/kgen.h) as a CTF directory that babeltrace2 reads, or as
 * a VSTF file, of a given number of events or an approximate size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include <shtgen/kgen.h>
#include <shtgen/knet.h>

static const char gen_kernel_usage[] =
"Usage: sht gen kernel -o OUT [--events N | --size B] [OPTION]...\n"
"  or:  sht gen kernel -o DIR --hosts N [OPTION]...\n"
"\n"
"Write a synthetic Linux kernel trace, as lttng-modules 2.12 records one:\n"
"CPUs with run queues; threads that fork, run, make system calls, block,\n"
"are woken, get preempted, migrate, exec, exit and are freed; hard IRQs,\n"
"soft IRQs, timer interrupts, frequency changes; a statedump of the\n"
"threads alive at the start.  The same options always give the same\n"
"trace.  OUT is a CTF trace directory (it must not exist; readable by\n"
"babeltrace2 and by 'sht build'), or a VSTF file with --format vstf or\n"
"a name ending in .vstf.\n"
"\n"
"With --hosts N, DIR receives the traces of N hosts that exchange TCP\n"
"packets, DIR/host0 ... DIR/host<N-1> (or host0.vstf ...), each with\n"
"its own kernel (--events / --size each, seed S + h) and its own clock:\n"
"host h's clock is ahead of host 0's by h * NS at the start and gains\n"
"h * PPB ns per second.  Hosts h and h+1 exchange packets (one every\n"
"--packet-gap ns on average over all links, each taking MIN .. MAX ns):\n"
"inet_sock_local_out on the sender, inet_sock_local_in on the receiver,\n"
"as lttng-modules' network add-ons record them: the input of 'sht sync'\n"
"and 'sht build --sync'.\n"
"\n"
"Options:\n"
"  -o, --output OUT   the trace to write\n"
"  --format F         ctf (default) or vstf\n"
"  --events N         events to write (default 1000000)\n"
"  --size B           about B bytes of trace instead (suffixes k, m, g:\n"
"                     KiB, MiB, GiB)\n"
"  --cpus C           CPUs (default 4)\n"
"  --threads T        live threads aimed at (default 200)\n"
"  --seed S           random seed, 0 .. 2^63-1 (default 1)\n"
"  --hosts N          N hosts (2 .. 64) exchanging packets, into DIR\n"
"  --clock-offset NS  clock offset per host step (default 3000000)\n"
"  --drift PPB        clock drift per host step, parts per 10^9\n"
"                     (default 50000, within +-1000000)\n"
"  --packet-gap NS    mean time between packets (default 100000)\n"
"  --latency MIN:MAX  packet travel time range, ns (default\n"
"                     20000:200000)\n"
"  --json             print the summary as one JSON object\n"
"  --no-progress      no progress line (shown only on a terminal)\n"
"  -h, --help         show this help\n";

enum {
	OPT_OUTPUT = 1,
	OPT_FORMAT,
	OPT_EVENTS,
	OPT_SIZE,
	OPT_CPUS,
	OPT_THREADS,
	OPT_SEED,
	OPT_JSON,
	OPT_NO_PROGRESS,
	OPT_HOSTS,
	OPT_CLOCK_OFFSET,
	OPT_DRIFT,
	OPT_PACKET_GAP,
	OPT_LATENCY,
};

static const cli_opt gen_kernel_opts[] = {
	{ "output", 'o', 1, OPT_OUTPUT },
	{ "format", 0, 1, OPT_FORMAT },
	{ "events", 0, 1, OPT_EVENTS },
	{ "size", 0, 1, OPT_SIZE },
	{ "cpus", 0, 1, OPT_CPUS },
	{ "threads", 0, 1, OPT_THREADS },
	{ "seed", 0, 1, OPT_SEED },
	{ "json", 0, 0, OPT_JSON },
	{ "no-progress", 0, 0, OPT_NO_PROGRESS },
	{ "hosts", 0, 1, OPT_HOSTS },
	{ "clock-offset", 0, 1, OPT_CLOCK_OFFSET },
	{ "drift", 0, 1, OPT_DRIFT },
	{ "packet-gap", 0, 1, OPT_PACKET_GAP },
	{ "latency", 0, 1, OPT_LATENCY },
	{ NULL, 0, 0, 0 }
};

struct gk_opts {
	shtgen_kgen_params p;
	shtgen_knet_params net;     /* --hosts: the rest of the parameters */
	int hosts;                /* a --hosts option or another net one */
	int net_opt;
	const char *output;
	int vstf;                 /* --format vstf, or OUT ends in .vstf */
	int have_format;
	int have_events;
	uint64_t size;            /* --size, 0: --events */
	int json;
	int progress;
};

/* A byte count with an optional k/m/g suffix (KiB, MiB, GiB). */
static int parse_bytes(const char *s, uint64_t *out)
{
	char num[32];
	size_t len = strlen(s);
	unsigned shift = 0;
	uint64_t v;

	if (len > 0 && len < sizeof(num)) {
		switch (s[len - 1]) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: break;
		}
	}
	if (shift == 0 || len >= sizeof(num))
		return cli_parse_u64("gen kernel", "--size", s, 1,
				     (uint64_t)1 << 50, out);
	memcpy(num, s, len - 1);
	num[len - 1] = '\0';
	if (cli_parse_u64("gen kernel", "--size", num, 1,
			  ((uint64_t)1 << 50) >> shift, &v) < 0)
		return -1;
	*out = v << shift;
	return 0;
}

static int gk_number(struct gk_opts *o, int id, const char *val)
{
	uint64_t v;

	switch (id) {
	case OPT_EVENTS:
		o->have_events = 1;
		return cli_parse_u64("gen kernel", "--events", val, 1,
				     (uint64_t)1 << 48, &o->p.events);
	case OPT_SIZE:
		return parse_bytes(val, &o->size);
	case OPT_CPUS:
		if (cli_parse_u64("gen kernel", "--cpus", val, 1, 1024,
				  &v) < 0)
			return -1;
		o->p.cpus = (uint32_t)v;
		return 0;
	case OPT_THREADS:
		if (cli_parse_u64("gen kernel", "--threads", val, 1, 1000000,
				  &v) < 0)
			return -1;
		o->p.threads = (uint32_t)v;
		return 0;
	default:                          /* OPT_SEED */
		return cli_parse_u64("gen kernel", "--seed", val, 0,
				     INT64_MAX, &o->p.seed);
	}
}

/* "MIN:MAX" latencies. */
static int parse_latency(const char *val, shtgen_knet_params *n)
{
	const char *colon = strchr(val, ':');
	char lo[32];
	uint64_t a, b;

	if (!colon || (size_t)(colon - val) >= sizeof lo) {
		cli_usage_error("gen kernel", "invalid value '%s' for "
				"--latency: expected MIN:MAX (ns)", val);
		return -1;
	}
	memcpy(lo, val, (size_t)(colon - val));
	lo[colon - val] = '\0';
	if (cli_parse_u64("gen kernel", "--latency", lo, 0, 1000000000, &a) < 0 ||
	    cli_parse_u64("gen kernel", "--latency", colon + 1, a, 1000000000,
			  &b) < 0)
		return -1;
	n->lat_min = (uint32_t)a;
	n->lat_max = (uint32_t)b;
	return 0;
}

/* The options of --hosts. */
static int gk_net(struct gk_opts *o, int id, const char *val)
{
	uint64_t v;
	int64_t i;

	o->net_opt = 1;
	switch (id) {
	case OPT_HOSTS:
		if (cli_parse_u64("gen kernel", "--hosts", val, 2,
				  SHTGEN_KNET_MAX_HOSTS, &v) < 0)
			return -1;
		o->net.hosts = (uint32_t)v;
		o->hosts = 1;
		return 0;
	case OPT_CLOCK_OFFSET:
		if (cli_parse_i64("gen kernel", "--clock-offset", val,
				  -((int64_t)1 << 50), (int64_t)1 << 50, &i) < 0)
			return -1;
		o->net.offset = i;
		return 0;
	case OPT_DRIFT:
		if (cli_parse_i64("gen kernel", "--drift", val, -1000000,
				  1000000, &i) < 0)
			return -1;
		o->net.drift_ppb = i;
		return 0;
	case OPT_PACKET_GAP:
		if (cli_parse_u64("gen kernel", "--packet-gap", val, 1,
				  1000000000, &v) < 0)
			return -1;
		o->net.packet_gap = (uint32_t)v;
		return 0;
	default:                          /* OPT_LATENCY */
		return parse_latency(val, &o->net);
	}
}

static int gk_opt(void *ctx, int id, const char *val)
{
	struct gk_opts *o = ctx;

	switch (id) {
	case CLI_ARG_POS:
		cli_usage_error("gen kernel", "unexpected argument '%s'", val);
		return -1;
	case OPT_OUTPUT:
		o->output = val;
		return 0;
	case OPT_FORMAT:
		if (strcmp(val, "ctf") != 0 && strcmp(val, "vstf") != 0) {
			cli_usage_error("gen kernel", "invalid value '%s' for "
					"--format: expected ctf or vstf", val);
			return -1;
		}
		o->vstf = strcmp(val, "vstf") == 0;
		o->have_format = 1;
		return 0;
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_NO_PROGRESS:
		o->progress = 0;
		return 0;
	case OPT_HOSTS:
	case OPT_CLOCK_OFFSET:
	case OPT_DRIFT:
	case OPT_PACKET_GAP:
	case OPT_LATENCY:
		return gk_net(o, id, val);
	default:
		return gk_number(o, id, val);
	}
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void gk_progress(void *ctx, uint64_t events)
{
	const struct gk_opts *o = ctx;

	fprintf(stderr, "\rgenerating: %" PRIu64 " of %" PRIu64
		" events (%.0f %%)   ", events, o->p.events,
		100.0 * (double)events / (double)o->p.events);
	fflush(stderr);
}

/* CLI_OK, or CLI_FAIL if the JSON output could not be made. */
static int gk_summary(const struct gk_opts *o,
		      const shtgen_kgen_write_stats *st)
{
	json_t *j;

	if (!o->json) {
		printf("%s: %s trace, %" PRIu64 " events, %u CPUs, %" PRIu64
		       " threads (%" PRIu64 " forks, %" PRIu64 " exits), %"
		       PRIu64 " bytes, %.2f s, %.0f events/s\n", o->output,
		       o->vstf ? "VSTF" : "CTF", st->gen.events, o->p.cpus,
		       st->gen.threads_created, st->gen.forks, st->gen.exits,
		       st->bytes, st->seconds,
		       st->seconds > 0 ? (double)st->gen.events / st->seconds
				       : 0.0);
		return CLI_OK;
	}
	j = json_object();
	cli_jset(j, "output", cli_jcstr(o->output));
	cli_jset(j, "format", cli_jcstr(o->vstf ? "vstf" : "ctf"));
	cli_jset(j, "events", cli_juint(st->gen.events));
	cli_jset(j, "cpus", cli_juint(o->p.cpus));
	cli_jset(j, "seed", cli_juint(o->p.seed));
	cli_jset(j, "threads_created", cli_juint(st->gen.threads_created));
	cli_jset(j, "max_live_threads", cli_juint(st->gen.max_live));
	cli_jset(j, "forks", cli_juint(st->gen.forks));
	cli_jset(j, "exits", cli_juint(st->gen.exits));
	cli_jset(j, "switches", cli_juint(st->gen.switches));
	cli_jset(j, "syscalls", cli_juint(st->gen.syscalls));
	cli_jset(j, "irqs", cli_juint(st->gen.irqs));
	cli_jset(j, "softirqs", cli_juint(st->gen.softirqs));
	cli_jset(j, "bytes", cli_juint(st->bytes));
	cli_jset(j, "seconds", cli_jreal(st->seconds));
	return cli_json_print(j);
}

/* --hosts N: the traces of N hosts into the directory o->output. */
static int gen_hosts(struct gk_opts *o)
{
	shtgen_knet_write_stats st;
	json_t *j;
	sht_err err;

	o->net.k = o->p;
	o->p.events *= o->net.hosts;      /* for the progress line */
	err = shtgen_knet_write(&o->net, o->output, o->vstf,
			      o->progress ? gk_progress : NULL, o, &st);
	if (o->progress)
		fprintf(stderr, "\r%*s\r", 60, "");
	if (err < 0)
		return cli_fail(err, "generate the traces of %u hosts in %s",
				o->net.hosts, o->output);
	if (!o->json) {
		printf("%s: %u hosts, %s traces, %" PRIu64 " events (%" PRIu64
		       " packet sends and receives), %" PRIu64 " bytes, "
		       "%.2f s\n", o->output, o->net.hosts,
		       o->vstf ? "VSTF" : "CTF", st.events, st.packet_events,
		       st.bytes, st.seconds);
		return cli_finish_output(CLI_OK);
	}
	j = json_object();
	cli_jset(j, "output", cli_jcstr(o->output));
	cli_jset(j, "format", cli_jcstr(o->vstf ? "vstf" : "ctf"));
	cli_jset(j, "hosts", cli_juint(o->net.hosts));
	cli_jset(j, "events", cli_juint(st.events));
	cli_jset(j, "packet_events", cli_juint(st.packet_events));
	cli_jset(j, "clock_offset", cli_jint(o->net.offset));
	cli_jset(j, "drift_ppb", cli_jint(o->net.drift_ppb));
	cli_jset(j, "packet_gap", cli_juint(o->net.packet_gap));
	cli_jset(j, "latency_min", cli_juint(o->net.lat_min));
	cli_jset(j, "latency_max", cli_juint(o->net.lat_max));
	cli_jset(j, "seed", cli_juint(o->net.k.seed));
	cli_jset(j, "bytes", cli_juint(st.bytes));
	cli_jset(j, "seconds", cli_jreal(st.seconds));
	return cli_finish_output(cli_json_print(j));
}

int cmd_gen_kernel(int argc, char **argv)
{
	struct gk_opts o;
	shtgen_kgen_write_stats st;
	sht_err err;
	int status;

	memset(&o, 0, sizeof(o));
	shtgen_kgen_params_init(&o.p);
	shtgen_knet_params_init(&o.net);
	o.progress = isatty(STDERR_FILENO);
	status = cli_parse_options(argc, argv, 2, "gen kernel",
				   gen_kernel_opts, gen_kernel_usage, gk_opt,
				   &o);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (!o.output)
		return cli_usage_error("gen kernel", "missing -o OUT");
	if (o.size && o.have_events)
		return cli_usage_error("gen kernel", "give --events or --size, "
				       "not both");
	if (!o.have_format)
		o.vstf = ends_with(o.output, ".vstf");
	if (o.size)
		o.p.events = shtgen_kgen_events_for_size(&o.p, o.size, o.vstf);
	if (o.net_opt && !o.hosts)
		return cli_usage_error("gen kernel", "--clock-offset, --drift, "
				       "--packet-gap and --latency need "
				       "--hosts N");
	if (o.hosts)
		return gen_hosts(&o);
	memset(&st, 0, sizeof(st));
	err = o.vstf ? shtgen_kgen_write_vstf(&o.p, o.output,
					    o.progress ? gk_progress : NULL,
					    &o, &st)
		     : shtgen_kgen_write_ctf(&o.p, o.output,
					   o.progress ? gk_progress : NULL,
					   &o, &st);
	if (o.progress)
		fprintf(stderr, "\r%*s\r", 60, "");
	if (err < 0)
		return cli_fail(err, "generate the kernel trace %s", o.output);
	return cli_finish_output(gk_summary(&o, &st));
}
