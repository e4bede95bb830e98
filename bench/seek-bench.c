/*
 * seek-bench.c: the cost of a partial history's replaying queries on a
 * CTF trace (sought through its packet index) against the same queries
 * on its VSTF copy (docs/PERFORMANCE.md, "Big traces").
 *
 *   seek-bench HISTORY CTF_TRACE VSTF_TRACE [--queries N] [--jobs J]
 *              [--seed S]
 *
 * HISTORY is a partial history of the kernel analysis (sht build
 * --partial) of CTF_TRACE, whose VSTF copy is VSTF_TRACE (sht convert).
 * Each trace is opened once (the time is printed), with the analysis of
 * the layout its environment gives; then N (default 30) full queries (the
 * state of every attribute: always a replay of the segment holding t) at
 * random times of the history, run on both, alternately, which must give
 * the same answers (hashed).  One JSON line per trace: open ms, the
 * median, mean and p90 ms of a query and its median CPU ms (the process's,
 * decoding threads included: steadier than the wall clock on a busy
 * machine), the median CPU ms of the calling thread alone (the rest is
 * the decoding threads'), and for the CTF trace the median of the events
 * its decoders handed over per query (sht_ctf_info.decoded since the
 * query before: those the replay read, those decoded ahead of it); then
 * the differences of the medians.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "bench-util.h"
#include "rng.h"

#define MAXQ 1000

struct side {
	const char *name;
	sht_source src;
	int vstf;
	sht_kernel *k;
	sht_provider p;
	sht_state *ss;
	double open_ms;
	double ms[MAXQ];
	double cpu_ms[MAXQ];          /* the process's CPU time (all threads) */
	double main_ms[MAXQ];         /* the calling thread's */
	uint64_t decoded_at;          /* sht_ctf_info.decoded after the last */
	double decoded[MAXQ];         /* ... since the query before: those of
	                                 this query and the read-ahead of the
	                                 one before */
};

static sht_err env_of(const struct side *s, const char *name, sht_field *out)
{
	return s->vstf ? sht_vstf_env(&s->src, name, out) : sht_ctf_env(&s->src, name, out);
}

static int open_side(struct side *s, const char *hist, const char *trace, uint32_t jobs)
{
	sht_ctf_opts o;
	sht_field tn, ma, mi;
	double t0 = now_s();
	sht_err err;

	sht_ctf_opts_init(&o);
	o.jobs = jobs;
	err = s->vstf ? sht_vstf_open(trace, &s->src) : sht_ctf_open(trace, &o, &s->src);
	if (err == SHT_OK) {
		char a[32], b[32];
		env_of(s, "tracer_name", &tn);
		env_of(s, "tracer_major", &ma);
		env_of(s, "tracer_minor", &mi);
		sht_field_text(&ma, a, sizeof a);
		sht_field_text(&mi, b, sizeof b);
		err = sht_kernel_create(sht_kernel_layout_from_env(
			tn.type == SHT_FIELD_STRING ? tn.v.s : "", a, b), &s->k);
	}
	if (err == SHT_OK) {
		sht_kernel_provider(s->k, &s->p);
		err = sht_state_open_partial(hist, NULL, &s->src, &s->p, &s->ss);
	}
	s->open_ms = (now_s() - t0) * 1e3;
	if (err != SHT_OK)
		fprintf(stderr, "seek-bench: %s: %s\n", s->name, sht_errmsg());
	return err == SHT_OK;
}

static void close_side(struct side *s)
{
	sht_state_close(s->ss);
	sht_kernel_destroy(s->k);
	if (s->vstf)
		sht_vstf_close(&s->src);
	else
		sht_ctf_close(&s->src);
}

/* Events the CTF side's decoders handed over so far (0 for VSTF). */
static uint64_t decoded(const struct side *s)
{
	sht_ctf_info in;

	return !s->vstf && sht_ctf_info_get(&s->src, &in) == SHT_OK ? in.decoded : 0;
}

/* Full query qi on s: its time in ms (its CPU times into s), the answer's
 * hash into *h. */
static void query(struct side *s, int qi, sht_time t, uint64_t *h, sht_result *res)
{
	double c0 = cpu_s(), m0 = thread_cpu_s(), t0 = now_s();
	sht_err err = sht_state_query_full(s->ss, t, res);

	s->ms[qi] = (now_s() - t0) * 1e3;
	s->cpu_ms[qi] = (cpu_s() - c0) * 1e3;
	s->main_ms[qi] = (thread_cpu_s() - m0) * 1e3;
	s->decoded[qi] = (double)(decoded(s) - s->decoded_at);
	s->decoded_at += (uint64_t)s->decoded[qi];

	*h = (uint64_t)err * 31u;
	for (size_t i = 0; err == SHT_OK && i < sht_result_count(res); i++) {
		const sht_interval *iv = sht_result_at(res, i);
		*h = *h * 31u + iv->quark + (uint64_t)iv->start * 7u + (uint64_t)iv->end +
		     iv->value.type;
		if (iv->value.type == SHT_TYPE_INT32 || iv->value.type == SHT_TYPE_INT64)
			*h += (uint64_t)(iv->value.type == SHT_TYPE_INT32 ? iv->value.u.i32
									   : iv->value.u.i64);
	}
}

static void report(const struct side *s, int n)
{
	double v[MAXQ], c[MAXQ], m[MAXQ], d[MAXQ], sum = 0;

	memcpy(v, s->ms, (size_t)n * sizeof v[0]);
	memcpy(c, s->cpu_ms, (size_t)n * sizeof c[0]);
	memcpy(m, s->main_ms, (size_t)n * sizeof m[0]);
	memcpy(d, s->decoded, (size_t)n * sizeof d[0]);
	for (int i = 0; i < n; i++)
		sum += v[i];
	qsort(v, (size_t)n, sizeof v[0], cmp_double);
	printf("{\"trace\":\"%s\",\"open_ms\":%.1f,\"queries\":%d,\"median_ms\":%.2f,"
	       "\"mean_ms\":%.2f,\"p90_ms\":%.2f,\"median_cpu_ms\":%.2f,"
	       "\"median_caller_cpu_ms\":%.2f,\"median_decoded\":%.0f}\n", s->name,
	       s->open_ms, n, pct_sorted(v, (size_t)n, 0.5), sum / n,
	       pct_sorted(v, (size_t)n, 0.9), median(c, (size_t)n), median(m, (size_t)n),
	       median(d, (size_t)n));
}

struct opts {
	const char *hist, *ctf, *vstf;
	int queries;
	uint32_t jobs;
	uint64_t seed;
};

static const struct option options[] = {
	{ "queries", required_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "seed", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: seek-bench HISTORY CTF_TRACE VSTF_TRACE [--queries N] "
		"[--jobs J] [--seed S]\n");
	exit(status);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int k;

	*o = (struct opts){ NULL, NULL, NULL, 30, 2, 1 };
	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'q':
			o->queries = (int)parse_count_in("--queries", optarg, 1, MAXQ);
			break;
		case 'j':
			o->jobs = (uint32_t)parse_count_in("--jobs", optarg, 0, 256);
			break;
		case 's': o->seed = parse_count("--seed", optarg); break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind + 3 != argc)
		usage(stderr, 2);
	o->hist = argv[optind];
	o->ctf = argv[optind + 1];
	o->vstf = argv[optind + 2];
}

int main(int argc, char **argv)
{
	struct side sd[2];
	struct opts o;
	int nq, bad = 0;
	sht_result *res;

	parse(argc, argv, &o);
	nq = o.queries;
	res = sht_result_create();
	if (!res)
		die("out of memory");
	memset(sd, 0, sizeof sd);
	sd[0].name = "ctf";
	sd[1].name = "vstf";
	sd[1].vstf = 1;
	if (!open_side(&sd[0], o.hist, o.ctf, o.jobs) || !open_side(&sd[1], o.hist, o.vstf, 0))
		return 1;
	sht_time t0 = sht_state_start(sd[0].ss), t1 = sht_state_end(sd[0].ss);
	struct rng rg = RNG_INIT(o.seed);

	sd[0].decoded_at = decoded(&sd[0]);
	for (int i = 0; i < nq; i++) {
		sht_time t = t0 + (sht_time)(rng_below(&rg, (uint64_t)(t1 - t0)));
		uint64_t h0, h1;

		query(&sd[0], i, t, &h0, res);
		query(&sd[1], i, t, &h1, res);
		bad += h0 != h1;
	}
	report(&sd[0], nq);
	report(&sd[1], nq);
	double a[MAXQ], b[MAXQ];
	memcpy(a, sd[0].ms, (size_t)nq * sizeof a[0]);
	memcpy(b, sd[1].ms, (size_t)nq * sizeof b[0]);
	double ca[MAXQ], cb[MAXQ];
	memcpy(ca, sd[0].cpu_ms, (size_t)nq * sizeof ca[0]);
	memcpy(cb, sd[1].cpu_ms, (size_t)nq * sizeof cb[0]);
	printf("{\"ctf_minus_vstf_median_ms\":%.2f,\"ctf_minus_vstf_median_cpu_ms\":%.2f,"
	       "\"different_answers\":%d}\n", median(a, (size_t)nq) - median(b, (size_t)nq),
	       median(ca, (size_t)nq) - median(cb, (size_t)nq), bad);
	sht_result_destroy(res);
	close_side(&sd[0]);
	close_side(&sd[1]);
	return bad ? 1 : 0;
}
