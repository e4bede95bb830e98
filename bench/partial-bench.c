/*
 * partial-bench.c: partial histories (SHT_BACKEND_PARTIAL) against the
 * full history of the same trace: size, build time, query latency, and
 * the replay work a query costs (thesis §4.5).
 *
 *   partial-bench --workload staircase|churn --size N --every E[,E2,...]
 *                 [--intervals I] [--dir D] [--queries Q]
 *                 [--full-queries F] [--repeat K] [--seed S] [--no-sync]
 *                 [--keep] [--verbose]
 *
 * The trace is the workload's event source (src/gen/include/shtgen/workload.h):
 * staircase with A = N attributes, I = 20 (--intervals) values each,
 * D = 1000 ns (A*I events), or churn with N threads (21 N events).  Each
 * repeat builds the full history (tree backend) and one partial history
 * per spacing E with sht_state_run over the source and the workload's
 * provider (default block size and tree options), then queries each.
 *
 * Output: JSON lines on stdout, one per history per repeat ("type":"run")
 * and, at the end, one per history with the median of every numeric field
 * over the K repeats ("type":"median"; mismatches and diff_full are
 * summed instead).  Progress goes to stderr with --verbose.  The exit
 * status is 1 if any answer was wrong.
 *
 * Fields:
 *   build_s         sht_state_create .. sht_state_finish (the provider run
 *                   over the source included; fsync at finish unless
 *                   --no-sync), the file in --dir (default $TMPDIR or /tmp)
 *   file_bytes      size of the file; ratio = full file / this file
 *                   (a file has at least the 4 KiB header, one block per
 *                   section and the root node: with 64 KiB blocks a
 *                   partial history is never below ~320 KiB)
 *   intervals       intervals in the file's tree (sht_reader_info_get);
 *                   interval_ratio = full history's / this file's
 *   checkpoints     entries of the checkpoint section (0 for the full one)
 *   single_*_us     Q single queries at uniform random (quark, t): quark
 *                   over every attribute, t over [0, end]
 *   live_*_us       Q single queries at an attribute while it holds a
 *                   value of its own (the questions a viewer asks):
 *                   staircase, attribute a at t >= a*D; churn, the Status
 *                   or Exec_name of thread i at t in [1000 i, 1000 i +
 *                   9999].  In churn almost every uniform query lands on
 *                   a long null interval, which a partial history stores.
 *                   Each query is timed alone with CLOCK_MONOTONIC
 *                   (arguments drawn before, answers checked after);
 *                   mean, p50, p99 (nearest rank).
 *   full_mean_ms    F full queries at uniform random t, timed one by one
 *   *_replays, *_events_replayed: per query of the batch, the segments
 *                   replayed (seeks of the source, which the bench wraps
 *                   to count them) and the events read (next calls: a
 *                   replay reads its segment's events plus the first one
 *                   of the next segment, which stops it)
 *   mismatches      answers that differ from the workload's definition
 *                   (shtgen_*_expect; a single answer must also contain t, a
 *                   full answer must hold every quark once, in order)
 *   diff_full       partial answers that differ from the full history's
 *                   answer to the same query (same query sets for every
 *                   history of a repeat): interval bounds for singles (the
 *                   value is checked by mismatches), a hash of every
 *                   interval for full queries
 *
 * How latency is measured ("warm, replay cache cold"): for each history
 * and repeat the file is opened once (sht_state_open, or
 * sht_state_open_partial with the same source and provider).  A warm-up
 * of 2Q single queries (both kinds) and F full queries drawn from another
 * seed fills the node cache; the OS page cache is warm (the file was just
 * written).  A partial history keeps the one segment it replayed last:
 * before each measured batch the bench makes it a segment that the
 * batch's first query does not use (an untimed full query in the next
 * segment), so each batch starts as with an empty replay cache: its first
 * query that is not answered by the stored intervals replays, and a later
 * query skips the replay only if the batch itself just replayed its
 * segment (as any user of the library would see).  The query sets are
 * the same for every history of a repeat (seed + repeat).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "bench-json.h"
#include "bench-util.h"
#include "rng.h"
#include <shtgen/workload.h>

#define MAX_EVERY 16

/* ---- small helpers ----------------------------------------------------- */

/* FNV-1a over bytes. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3u;
	}
	return h;
}

/* ---- a source that counts seeks and events ----------------------------- */

struct counting {
	sht_source inner;
	uint64_t seeks, nexts;
};

static sht_err counting_next(void *src, sht_event *ev)
{
	struct counting *c = src;

	c->nexts++;
	return c->inner.ops->next(c->inner.src, ev);
}

static sht_err counting_seek(void *src, uint64_t pos)
{
	struct counting *c = src;

	c->seeks++;
	return c->inner.ops->seek(c->inner.src, pos);
}

static const sht_source_ops counting_ops = { counting_next, counting_seek, NULL, NULL, NULL };

/* ---- options ------------------------------------------------------------- */

struct opts {
	shtgen_workload w;
	uint64_t size;
	uint64_t intervals;        /* staircase I */
	uint64_t every[MAX_EVERY];
	size_t n_every;
	const char *dir;
	size_t queries, full_queries;
	unsigned repeat;
	uint64_t seed;
	int no_sync, keep;
};

static void usage(FILE *f)
{
	fputs("usage: partial-bench --workload staircase|churn --size N "
	      "--every E[,E2,...]\n"
	      "                     [--dir D] [--queries Q] [--full-queries F] "
	      "[--repeat K]\n"
	      "                     [--seed S] [--no-sync] [--keep] "
	      "[--verbose]\n"
	      "  --size N          staircase: attributes (D=1000); "
	      "churn: threads\n"
	      "  --intervals I     staircase: intervals per attribute "
	      "(default 20)\n"
	      "  --every LIST      checkpoint spacings in events (partial "
	      "histories)\n"
	      "  --dir D           where the files go (default $TMPDIR or "
	      "/tmp)\n"
	      "  --queries Q       random single queries per batch "
	      "(default 200)\n"
	      "  --full-queries F  random full queries per batch (default 10)\n"
	      "  --repeat K        repeats; medians printed last (default 1)\n"
	      "  --no-sync         no fsync at finish\n"
	      "  --keep            keep the history files\n", f);
}

static void parse_every(struct opts *o, const char *s)
{
	char buf[512], *tok, *save = NULL;

	if (strlen(s) >= sizeof buf)
		usage_error("--every: list too long");
	strcpy(buf, s);
	o->n_every = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->n_every == MAX_EVERY)
			usage_error("--every: at most %d spacings", MAX_EVERY);
		o->every[o->n_every] = parse_count("--every", tok);
		if (o->every[o->n_every] == 0)
			usage_error("--every: spacings are >= 1");
		o->n_every++;
	}
}

static const struct option options[] = {
	{ "workload", required_argument, NULL, 'w' },
	{ "size", required_argument, NULL, 's' },
	{ "intervals", required_argument, NULL, 'i' },
	{ "every", required_argument, NULL, 'e' },
	{ "dir", required_argument, NULL, 'd' },
	{ "queries", required_argument, NULL, 'q' },
	{ "full-queries", required_argument, NULL, 'f' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "seed", required_argument, NULL, 'S' },
	{ "no-sync", no_argument, NULL, 'n' },
	{ "keep", no_argument, NULL, 'k' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse_args(struct opts *o, int argc, char **argv)
{
	const char *workload = NULL;
	int k;

	memset(o, 0, sizeof *o);
	o->dir = tmp_dir();
	o->queries = 200;
	o->full_queries = 10;
	o->repeat = 1;
	o->seed = 20240611;
	while ((k = getopt_long(argc, argv, "hv", options, NULL)) != -1) {
		switch (k) {
		case 'w': workload = optarg; break;
		case 's': o->size = parse_count("--size", optarg); break;
		case 'i':
			o->intervals = parse_count_in("--intervals", optarg, 1,
						      UINT32_MAX);
			break;
		case 'e': parse_every(o, optarg); break;
		case 'd': o->dir = optarg; break;
		case 'q':
			o->queries = (size_t)parse_count("--queries", optarg);
			break;
		case 'f':
			o->full_queries = (size_t)parse_count("--full-queries",
							      optarg);
			break;
		case 'r':
			o->repeat = (unsigned)parse_count_in("--repeat", optarg,
							     1, 10000);
			break;
		case 'S': o->seed = parse_count("--seed", optarg); break;
		case 'n': o->no_sync = true; break;
		case 'k': o->keep = 1; break;
		case 'v': bench_verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		default: bad_option();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!workload || !o->size || !o->n_every)
		usage_error("--workload, --size and --every are required");
	if (!strcmp(workload, "staircase")) {
		o->w.kind = SHTGEN_WL_STAIRCASE;
		o->w.st.attributes = o->size;
		o->w.st.intervals = o->intervals ? (uint32_t)o->intervals : 20;
		o->w.st.step = 1000;
	} else if (!strcmp(workload, "churn")) {
		o->w.kind = SHTGEN_WL_CHURN;
		o->w.ch.threads = o->size;
	} else {
		usage_error("--workload: staircase or churn, not \"%s\"",
			    workload);
	}
	if (shtgen_wl_events(&o->w) == 0)
		die("--size %llu: not a valid %s workload",
		    (unsigned long long)o->size, workload);
	if (o->queries < 1)
		o->queries = 1;
}

/* ---- one history --------------------------------------------------------- */

/* Metrics of one history in one repeat. */
struct metrics {
	double build_s;
	double file_bytes, intervals, checkpoints;
	double single_mean_us, single_p50_us, single_p99_us;
	double single_replays, single_events;
	double live_mean_us, live_p50_us, live_p99_us;
	double live_replays, live_events;
	double full_mean_ms;
	double full_replays, full_events;
	double mismatches, diff_full;
};

/* integer: 1 printed as an integer, 2 also summed (not a median) over
 * the repeats. */
static const struct field {
	const char *name;
	size_t off;
	int integer;
} fields[] = {
	{ "build_s", offsetof(struct metrics, build_s), 0 },
	{ "file_bytes", offsetof(struct metrics, file_bytes), 1 },
	{ "intervals", offsetof(struct metrics, intervals), 1 },
	{ "checkpoints", offsetof(struct metrics, checkpoints), 1 },
	{ "single_mean_us", offsetof(struct metrics, single_mean_us), 0 },
	{ "single_p50_us", offsetof(struct metrics, single_p50_us), 0 },
	{ "single_p99_us", offsetof(struct metrics, single_p99_us), 0 },
	{ "single_replays", offsetof(struct metrics, single_replays), 0 },
	{ "single_events_replayed", offsetof(struct metrics, single_events), 0 },
	{ "live_mean_us", offsetof(struct metrics, live_mean_us), 0 },
	{ "live_p50_us", offsetof(struct metrics, live_p50_us), 0 },
	{ "live_p99_us", offsetof(struct metrics, live_p99_us), 0 },
	{ "live_replays", offsetof(struct metrics, live_replays), 0 },
	{ "live_events_replayed", offsetof(struct metrics, live_events), 0 },
	{ "full_mean_ms", offsetof(struct metrics, full_mean_ms), 0 },
	{ "full_replays", offsetof(struct metrics, full_replays), 0 },
	{ "full_events_replayed", offsetof(struct metrics, full_events), 0 },
	{ "mismatches", offsetof(struct metrics, mismatches), 2 },
	{ "diff_full", offsetof(struct metrics, diff_full), 2 },
};
#define NFIELDS (sizeof fields / sizeof *fields)

static double *field_at(struct metrics *m, size_t i)
{
	return (double *)(void *)((char *)m + fields[i].off);
}

/* A batch of single queries and the full history's answers to them. */
struct singles {
	size_t n;
	sht_quark *q;
	sht_time *t;
	sht_time *ref_start, *ref_end;
};

/* The query sets of one repeat (the same for every history). */
struct qset {
	struct singles uni, live;  /* measured single queries */
	struct singles wuni, wlive;/* warm-up */
	size_t nf;
	sht_time *ft, *wft;        /* full queries, measured and warm-up */
	uint64_t *ref_hash;        /* the full history's full answers */
	int have_ref;
};

/* Uniform: quark over every attribute, t over [0, end].  Live: an
 * attribute while it has a value of its own: staircase, attribute a
 * after a*D (its initial null ends); churn, the Status or Exec_name of
 * a thread i during its life [1000 i, 1000 i + 9999]. */
static void singles_make(struct singles *s, const struct opts *o, size_t n,
			 int live, struct rng *r)
{
	const shtgen_workload *w = &o->w;
	uint64_t nq = shtgen_wl_quarks(w);
	sht_time end = shtgen_wl_end(w);

	s->n = n;
	s->q = xcalloc(n, sizeof *s->q);
	s->t = xcalloc(n, sizeof *s->t);
	s->ref_start = xcalloc(n, sizeof *s->ref_start);
	s->ref_end = xcalloc(n, sizeof *s->ref_end);
	for (size_t i = 0; i < n; i++) {
		if (!live) {
			s->q[i] = (sht_quark)rng_below(r, nq);
			s->t[i] = (sht_time)rng_below(r, (uint64_t)end + 1u);
		} else if (w->kind == SHTGEN_WL_STAIRCASE) {
			sht_time a0;

			s->q[i] = (sht_quark)rng_below(r, nq);
			a0 = (sht_time)s->q[i] * w->st.step;
			s->t[i] = a0 + (sht_time)rng_below(r, (uint64_t)(end - a0) + 1u);
		} else {
			uint64_t th = rng_below(r, w->ch.threads);

			s->q[i] = (sht_quark)(2u + 3u * th + rng_below(r, 2u));
			s->t[i] = (sht_time)th * 1000 +
				  (sht_time)rng_below(r, 10000u);
		}
	}
}

static void singles_free(struct singles *s)
{
	free(s->q);
	free(s->t);
	free(s->ref_start);
	free(s->ref_end);
}

static void qset_make(struct qset *s, const struct opts *o, uint64_t seed)
{
	uint64_t span = (uint64_t)shtgen_wl_end(&o->w) + 1u;
	struct rng r = RNG_INIT(seed), wr = RNG_INIT(seed ^ 0x5deece66du);

	memset(s, 0, sizeof *s);
	singles_make(&s->uni, o, o->queries, 0, &r);
	singles_make(&s->live, o, o->queries, 1, &r);
	singles_make(&s->wuni, o, o->queries, 0, &wr);
	singles_make(&s->wlive, o, o->queries, 1, &wr);
	s->nf = o->full_queries;
	s->ft = xcalloc(s->nf, sizeof *s->ft);
	s->wft = xcalloc(s->nf, sizeof *s->wft);
	s->ref_hash = xcalloc(s->nf, sizeof *s->ref_hash);
	for (size_t i = 0; i < s->nf; i++) {
		s->ft[i] = (sht_time)rng_below(&r, span);
		s->wft[i] = (sht_time)rng_below(&wr, span);
	}
}

static void qset_free(struct qset *s)
{
	singles_free(&s->uni);
	singles_free(&s->live);
	singles_free(&s->wuni);
	singles_free(&s->wlive);
	free(s->ft);
	free(s->wft);
	free(s->ref_hash);
}

/* Checkpoint times of a partial history (section 3, docs/FORMAT.md §10). */
static size_t read_checkpoint_times(sht_reader *r, sht_time **out)
{
	uint8_t *d = NULL;
	size_t len = 0, n = 0;

	*out = NULL;
	if (sht_reader_section(r, 3, NULL, (void **)&d, &len) != SHT_OK)
		return 0;
	if (len >= 24 && (len - 24) % 32 == 0) {
		n = (len - 24) / 32;
		*out = xcalloc(n, sizeof **out);
		for (size_t i = 0; i < n; i++) {
			const uint8_t *e = d + 24 + 32 * i + 16;
			uint64_t v = 0;

			for (int b = 7; b >= 0; b--)
				v = v << 8 | e[b];
			(*out)[i] = (sht_time)v;
		}
	}
	free(d);
	return n;
}

static size_t segment_of(const sht_time *cp, size_t n, sht_time t)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (cp[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static sht_err build(const struct opts *o, const char *path, sht_backend be,
		     uint64_t every, double *secs)
{
	sht_state_opts so;
	sht_provider p;
	sht_source src = { NULL, NULL };
	sht_state *ss = NULL;
	uint64_t events = 0, skipped = 0;
	double t0;
	sht_err err;

	shtgen_wl_provider(&o->w, &p);
	sht_state_opts_init(&so);
	so.backend = be;
	so.tree.no_sync = o->no_sync;
	so.provider = p.id;
	so.provider_version = p.version;
	so.checkpoint_events = every;
	err = shtgen_wl_source(&o->w, &src);
	t0 = now_s();
	if (err == SHT_OK)
		err = sht_state_create(path, 0, &so, &ss);
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, &events, &skipped);
	if (err == SHT_OK)
		err = sht_state_finish(ss, shtgen_wl_end(&o->w));
	*secs = now_s() - t0;
	if (err == SHT_OK && (events != shtgen_wl_events(&o->w) || skipped))
		die("build %s: %llu events run, %llu skipped (expected %llu, 0)",
		    path, (unsigned long long)events,
		    (unsigned long long)skipped,
		    (unsigned long long)shtgen_wl_events(&o->w));
	sht_state_close(ss);
	shtgen_workload_source_free(&src);
	return err;
}

/* Check one single answer; 1 if right. */
static int single_ok(const struct opts *o, sht_err err, const sht_result *r,
		     sht_quark q, sht_time t)
{
	char buf[32];
	sht_value want;
	const sht_interval *iv;

	if (err != SHT_OK || sht_result_count(r) != 1)
		return 0;
	iv = sht_result_at(r, 0);
	want = shtgen_wl_expect(&o->w, q, t, buf);
	return iv->quark == q && iv->start <= t && t <= iv->end &&
	       sht_value_equal(&iv->value, &want);
}

/* Check one full answer; 1 if right.  *hash gets a hash of it. */
static int full_ok(const struct opts *o, sht_err err, const sht_result *r,
		   sht_time t, uint64_t *hash)
{
	uint64_t nq = shtgen_wl_quarks(&o->w), h = 0xcbf29ce484222325u;
	char buf[32];
	int good = err == SHT_OK && sht_result_count(r) == nq;

	for (size_t i = 0; i < sht_result_count(r); i++) {
		const sht_interval *iv = sht_result_at(r, i);
		sht_value want = shtgen_wl_expect(&o->w, iv->quark, t, buf);

		if (iv->quark != i || iv->start > t || t > iv->end ||
		    !sht_value_equal(&iv->value, &want))
			good = 0;
		h = fnv(h, &iv->quark, sizeof iv->quark);
		h = fnv(h, &iv->start, sizeof iv->start);
		h = fnv(h, &iv->end, sizeof iv->end);
		h = fnv(h, &iv->value.type, sizeof iv->value.type);
		if (iv->value.type == SHT_TYPE_STRING)
			h = fnv(h, iv->value.u.str, iv->value.len);
		else if (iv->value.type == SHT_TYPE_INT32)
			h = fnv(h, &iv->value.u.i32, sizeof iv->value.u.i32);
		else if (iv->value.type != SHT_TYPE_NULL)
			h = fnv(h, &iv->value.u.i64, sizeof iv->value.u.i64);
	}
	*hash = h;
	return good;
}

struct hist {
	const char *label;         /* "full" or "partial" */
	uint64_t every;            /* 0: full */
	struct metrics *runs;      /* one per repeat */
};

/* An opened history and what its batches need. */
struct session {
	const struct opts *o;
	const struct hist *h;
	const char *path;
	struct counting cs;
	sht_source src;
	sht_provider p;
	sht_state *ss;
	sht_result *res;
	sht_time *cp;              /* checkpoint times (partial) */
	size_t ncp;
	int have_ref;
};

static void session_open(struct session *s)
{
	sht_err err = s->h->every
		? sht_state_open_partial(s->path, NULL, &s->src, &s->p, &s->ss)
		: sht_state_open(s->path, NULL, &s->ss);

	if (err != SHT_OK)
		die("open %s: %s", s->path, sht_errmsg());
}

/* Make the replay cache useless to the next batch, whose first query is
 * at t: replay (with an untimed full query) a segment that does not hold
 * t.  With a single segment, reopen instead (node cache lost). */
static void cool(struct session *s, sht_time t)
{
	size_t k, other;

	if (!s->h->every)
		return;
	if (s->ncp < 2) {
		sht_state_close(s->ss);
		session_open(s);
		return;
	}
	k = segment_of(s->cp, s->ncp, t);
	other = k + 1 < s->ncp ? k + 1 : k - 1;
	if (sht_state_query_full(s->ss, s->cp[other], s->res) != SHT_OK)
		die("cooling full query at %lld: %s", (long long)s->cp[other],
		    sht_errmsg());
}

/* Run a batch of single queries; measured: timings and counts into the
 * out-parameters (else a warm-up).  Answers checked either way. */
static void run_singles(struct session *s, struct singles *b, int measured,
			struct metrics *m, double *mean, double *p50,
			double *p99, double *replays, double *events)
{
	double *lat = xcalloc(b->n, sizeof *lat), sum = 0;
	sht_result *res = s->res;

	if (measured)
		cool(s, b->t[0]);
	s->cs.seeks = s->cs.nexts = 0;
	for (size_t i = 0; i < b->n; i++) {
		double t0 = now_s();
		sht_err err = sht_state_query(s->ss, b->q[i], b->t[i], res);

		lat[i] = now_s() - t0;
		sum += lat[i];
		if (!single_ok(s->o, err, res, b->q[i], b->t[i])) {
			if (m->mismatches++ < 5)
				fprintf(stderr, "partial-bench: %s every %llu: "
					"single q=%u t=%lld wrong (err %d, %zu "
					"items)\n", s->h->label,
					(unsigned long long)s->h->every,
					(unsigned)b->q[i], (long long)b->t[i],
					(int)err, sht_result_count(res));
			continue;
		}
		if (!measured)
			continue;
		if (!s->h->every) {
			b->ref_start[i] = sht_result_at(res, 0)->start;
			b->ref_end[i] = sht_result_at(res, 0)->end;
		} else if (s->have_ref &&
			   (b->ref_start[i] != sht_result_at(res, 0)->start ||
			    b->ref_end[i] != sht_result_at(res, 0)->end)) {
			if (m->diff_full++ < 5)
				fprintf(stderr, "partial-bench: every %llu: "
					"single q=%u t=%lld: [%lld, %lld], full "
					"history [%lld, %lld]\n",
					(unsigned long long)s->h->every,
					(unsigned)b->q[i], (long long)b->t[i],
					(long long)sht_result_at(res, 0)->start,
					(long long)sht_result_at(res, 0)->end,
					(long long)b->ref_start[i],
					(long long)b->ref_end[i]);
		}
	}
	if (measured) {
		*replays = (double)s->cs.seeks / (double)b->n;
		*events = (double)s->cs.nexts / (double)b->n;
		*mean = sum / (double)b->n * 1e6;
		qsort(lat, b->n, sizeof *lat, cmp_double);
		*p50 = pct_sorted(lat, b->n, 0.50) * 1e6;
		*p99 = pct_sorted(lat, b->n, 0.99) * 1e6;
	}
	free(lat);
}

static void run_fulls(struct session *s, struct qset *qs, int measured,
		      struct metrics *m)
{
	const sht_time *ts = measured ? qs->ft : qs->wft;
	double sum = 0;

	if (qs->nf == 0) {
		if (measured)
			m->full_mean_ms = m->full_replays = m->full_events = NAN;
		return;
	}
	if (measured)
		cool(s, ts[0]);
	s->cs.seeks = s->cs.nexts = 0;
	for (size_t i = 0; i < qs->nf; i++) {
		double t0 = now_s();
		sht_err err = sht_state_query_full(s->ss, ts[i], s->res);
		uint64_t hsh;

		sum += now_s() - t0;
		if (!full_ok(s->o, err, s->res, ts[i], &hsh) &&
		    m->mismatches++ < 5)
			fprintf(stderr, "partial-bench: %s every %llu: full "
				"query t=%lld wrong (err %d, %zu items)\n",
				s->h->label, (unsigned long long)s->h->every,
				(long long)ts[i], (int)err,
				sht_result_count(s->res));
		if (!measured)
			continue;
		if (!s->h->every)
			qs->ref_hash[i] = hsh;
		else if (s->have_ref && qs->ref_hash[i] != hsh &&
			 m->diff_full++ < 5)
			fprintf(stderr, "partial-bench: every %llu: full query "
				"t=%lld differs from the full history's\n",
				(unsigned long long)s->h->every,
				(long long)ts[i]);
	}
	if (measured) {
		m->full_mean_ms = sum / (double)qs->nf * 1e3;
		m->full_replays = (double)s->cs.seeks / (double)qs->nf;
		m->full_events = (double)s->cs.nexts / (double)qs->nf;
	}
}

static void run_queries(const struct opts *o, const char *path,
			const struct hist *h, struct qset *qs,
			struct metrics *m)
{
	struct session s;
	sht_reader *r = NULL;
	sht_tree_info info;
	double unused[5];

	memset(&s, 0, sizeof s);
	s.o = o;
	s.h = h;
	s.path = path;
	s.src.ops = &counting_ops;
	s.src.src = &s.cs;
	s.have_ref = qs->have_ref;
	if (!(s.res = sht_result_create()))
		die("out of memory");

	/* The file: size, intervals, checkpoints. */
	if (sht_reader_open(path, NULL, &r) != SHT_OK)
		die("open %s: %s", path, sht_errmsg());
	sht_reader_info_get(r, &info);
	m->file_bytes = (double)info.file_bytes;
	m->intervals = (double)info.intervals;
	if (h->every)
		s.ncp = read_checkpoint_times(r, &s.cp);
	m->checkpoints = (double)s.ncp;
	sht_reader_close(r);

	if (shtgen_wl_source(&o->w, &s.cs.inner) != SHT_OK)
		die("source: %s", sht_errmsg());
	shtgen_wl_provider(&o->w, &s.p);
	session_open(&s);

	/* Warm-up (node cache), then the measured batches. */
	run_singles(&s, &qs->wuni, 0, m, &unused[0], &unused[1], &unused[2],
		    &unused[3], &unused[4]);
	run_singles(&s, &qs->wlive, 0, m, &unused[0], &unused[1], &unused[2],
		    &unused[3], &unused[4]);
	run_fulls(&s, qs, 0, m);
	run_singles(&s, &qs->uni, 1, m, &m->single_mean_us, &m->single_p50_us,
		    &m->single_p99_us, &m->single_replays, &m->single_events);
	run_singles(&s, &qs->live, 1, m, &m->live_mean_us, &m->live_p50_us,
		    &m->live_p99_us, &m->live_replays, &m->live_events);
	run_fulls(&s, qs, 1, m);
	if (!h->every)
		qs->have_ref = 1;

	sht_state_close(s.ss);
	shtgen_workload_source_free(&s.cs.inner);
	sht_result_destroy(s.res);
	free(s.cp);
}

/* ---- output -------------------------------------------------------------- */

static void print_line(const struct opts *o, const char *type,
		       const struct hist *h, unsigned rep, struct metrics *m,
		       const struct metrics *full)
{
	json_t *j = bj_object();

	bj_str(j, "bench", "partial");
	bj_str(j, "type", type);
	bj_str(j, "workload", shtgen_wl_name(&o->w));
	bj_int(j, "size", (int64_t)o->size);
	if (o->w.kind == SHTGEN_WL_STAIRCASE)
		bj_int(j, "staircase_intervals", o->w.st.intervals);
	bj_int(j, "events", (int64_t)shtgen_wl_events(&o->w));
	bj_int(j, "workload_intervals", (int64_t)shtgen_wl_intervals(&o->w));
	bj_int(j, "quarks", (int64_t)shtgen_wl_quarks(&o->w));
	bj_str(j, "history", h->label);
	bj_int(j, "every", (int64_t)h->every);
	if (!strcmp(type, "run"))
		bj_int(j, "repeat", rep);
	else
		bj_int(j, "repeats", o->repeat);
	bj_int(j, "queries", (int64_t)o->queries);
	bj_int(j, "full_queries", (int64_t)o->full_queries);
	bj_int(j, "no_sync", o->no_sync);
	for (size_t i = 0; i < NFIELDS; i++) {
		double v = *field_at(m, i);

		if (fields[i].integer && isfinite(v))
			bj_int(j, fields[i].name, (int64_t)v);
		else
			bj_num(j, fields[i].name, v);
	}
	bj_num(j, "ratio", m->file_bytes > 0 ? full->file_bytes / m->file_bytes
					     : NAN);
	bj_num(j, "interval_ratio", m->intervals > 0
		   ? full->intervals / m->intervals : NAN);
	bj_print(j);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct hist hs[1 + MAX_EVERY];
	size_t nh;
	double *vals;
	int bad = 0;

	parse_args(&o, argc, argv);
	nh = 1 + o.n_every;
	hs[0].label = "full";
	hs[0].every = 0;
	for (size_t i = 0; i < o.n_every; i++) {
		hs[1 + i].label = "partial";
		hs[1 + i].every = o.every[i];
	}
	for (size_t i = 0; i < nh; i++)
		hs[i].runs = xcalloc(o.repeat, sizeof *hs[i].runs);

	for (unsigned rep = 0; rep < o.repeat; rep++) {
		struct qset qs;

		qset_make(&qs, &o, o.seed + rep);
		for (size_t i = 0; i < nh; i++) {
			struct hist *h = &hs[i];
			struct metrics *m = &h->runs[rep];
			char path[4096];
			sht_err err;

			snprintf(path, sizeof path, "%s/partial-bench-%s-%llu-%s%llu.sht",
				 o.dir, shtgen_wl_name(&o.w),
				 (unsigned long long)o.size,
				 h->every ? "p" : "full",
				 (unsigned long long)h->every);
			note("repeat %u: build %s", rep, path);
			err = build(&o, path,
				    h->every ? SHT_BACKEND_PARTIAL : SHT_BACKEND_TREE,
				    h->every, &m->build_s);
			if (err != SHT_OK)
				die("build %s: %s", path, sht_errmsg());
			note("  built in %.2f s; queries", m->build_s);
			run_queries(&o, path, h, &qs, m);
			if (!o.keep)
				unlink(path);
			print_line(&o, "run", h, rep, m, &hs[0].runs[rep]);
			bad |= m->mismatches > 0 || m->diff_full > 0;
		}
		qset_free(&qs);
	}

	/* Medians over the repeats. */
	vals = xcalloc(o.repeat, sizeof *vals);
	{
		struct metrics med[1 + MAX_EVERY];

		for (size_t i = 0; i < nh; i++)
			for (size_t f = 0; f < NFIELDS; f++) {
				double sum = 0;

				for (unsigned rep = 0; rep < o.repeat; rep++) {
					vals[rep] = *field_at(&hs[i].runs[rep], f);
					sum += vals[rep];
				}
				*field_at(&med[i], f) = fields[f].integer == 2
					? sum : median(vals, o.repeat);
			}
		for (size_t i = 0; i < nh; i++)
			print_line(&o, "median", &hs[i], 0, &med[i], &med[0]);
	}
	free(vals);
	for (size_t i = 0; i < nh; i++)
		free(hs[i].runs);
	return bad;
}
