/*
 * trace-bench.c: the classic SHT against the eSHT on a real kernel trace
 * (the 2017 paper's Table I): the Linux kernel analysis over a CTF trace
 * into a history file of each variant, then the file's shape and its
 * query costs.
 *
 *   trace-bench TRACE [--dir D] [--block-size B] [--max-children C]
 *               [--queries Q] [--full-queries F] [--seed S] [--check]
 *               [--keep]
 *   trace-bench --open [--mapped] HISTORY... [--queries Q] ...
 *
 * For each variant (eSHT first, then SHT): build (CTF source + kernel
 * provider (layout from the event names), sht_state_run, finish with an
 * fsync, close), then open the file with sht_reader_open and measure
 *   nodes, depth, file bytes, fill of leaves and core nodes;
 *   Q single queries (default 10 000) at uniform random (quark, t), after
 *   1 000 warm-up ones, each timed alone: mean, p50, p99 µs, node visits;
 *   F full queries (default 200) at uniform random t after 20 warm-up:
 *   mean and p99 ms.
 * Both variants get the same query arguments.  Answers are checked: a
 * single answer must be quark q's interval containing t, a full answer
 * must be in strictly increasing quark order with every interval
 * containing t, and every answer of the classic SHT must equal the
 * eSHT's (bounds and value); --check also runs sht_reader_check on each
 * file.  One JSON line per variant; exit status 1 on any mismatch, 2 on
 * an error.
 *
 * --open measures existing histories of one trace instead (e.g. the same
 * analysis built with other block sizes: `sht build --block-size`): no
 * build; each HISTORY, in the order given, gets the same queries (drawn
 * from the first one's quarks and times), and every answer must equal
 * the first history's.  --mapped opens them with sht_reader_opts.mapped
 * (as sht serve does) instead of a reader with the default node cache.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "bench-json.h"
#include "bench-util.h"
#include "rng.h"

#define WARM_SINGLE 1000
#define WARM_FULL 20

struct opts {
	const char *trace, *dir;
	uint32_t block_size, max_children;
	size_t queries, full_queries;
	uint64_t seed;
	int check, keep;
	int open, mapped;         /* --open, --mapped */
};

struct qset {                  /* the query arguments, shared by both */
	sht_quark *q;
	sht_time *t, *tf;
	uint64_t *ans, *ans_full;  /* eSHT's answers (hashes) */
};

static void fail(const char *what)
{
	fprintf(stderr, "trace-bench: %s: %s\n", what, sht_errmsg());
	exit(2);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_iv(const sht_interval *iv)
{
	uint64_t h = mix(mix(mix(1, iv->quark), (uint64_t)iv->start),
			 (uint64_t)iv->end);

	h = mix(h, iv->value.type);
	if (iv->value.type == SHT_TYPE_STRING) {
		for (uint32_t i = 0; i < iv->value.len; i++)
			h = mix(h, (unsigned char)iv->value.u.str[i]);
	} else if (iv->value.type != SHT_TYPE_NULL) {
		uint64_t bits;

		memcpy(&bits, &iv->value.u, sizeof bits);
		if (iv->value.type == SHT_TYPE_INT32)
			bits = (uint32_t)iv->value.u.i32;
		h = mix(h, bits);
	}
	return h;
}

/* Build the kernel-analysis history of the trace into path: seconds. */
static double build(const struct opts *o, sht_variant v, const char *path,
		    uint64_t *events, uint64_t *attrs)
{
	sht_source src;
	sht_event ev;
	sht_kernel *k = NULL;
	sht_provider p;
	sht_state *ss = NULL;
	sht_state_opts so;
	double t0 = now_s();

	if (sht_ctf_open(o->trace, NULL, &src) != SHT_OK)
		fail(o->trace);
	if (src.ops->next(src.src, &ev) != SHT_OK ||
	    src.ops->seek(src.src, ev.pos) != SHT_OK)
		fail("first event");
	if (sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k) != SHT_OK)
		fail("kernel analysis");
	sht_kernel_provider(k, &p);
	sht_state_opts_init(&so);
	so.provider = p.id;
	so.provider_version = p.version;
	so.tree.variant = v;
	so.tree.block_size = o->block_size;
	so.tree.max_children = o->max_children;
	if (sht_state_create(path, ev.ts, &so, &ss) != SHT_OK)
		fail(path);
	if (sht_state_run(ss, &src, &p, events, NULL) != SHT_OK ||
	    sht_state_finish(ss, sht_state_end(ss)) != SHT_OK)
		fail("build");
	*attrs = sht_state_attr_count(ss);
	sht_state_close(ss);
	t0 = now_s() - t0;
	sht_kernel_destroy(k);
	sht_ctf_close(&src);
	return t0;
}

static void draw(struct qset *qs, const struct opts *o, const sht_tree_info *in)
{
	struct rng s = RNG_INIT(o->seed);
	uint64_t span = (uint64_t)(in->end - in->start) + 1;
	size_t n = WARM_SINGLE + o->queries, nf = WARM_FULL + o->full_queries;

	qs->q = malloc(n * sizeof *qs->q);
	qs->t = malloc(n * sizeof *qs->t);
	qs->ans = malloc(n * sizeof *qs->ans);
	qs->tf = malloc(nf * sizeof *qs->tf);
	qs->ans_full = malloc(nf * sizeof *qs->ans_full);
	if (!qs->q || !qs->t || !qs->ans || !qs->tf || !qs->ans_full) {
		fprintf(stderr, "trace-bench: out of memory\n");
		exit(2);
	}
	/* Reduced modulo n, as since the first runs: the same questions. */
	for (size_t i = 0; i < n; i++) {
		qs->q[i] = (sht_quark)(rng_next(&s) % in->quark_count);
		qs->t[i] = in->start + (sht_time)(rng_next(&s) % span);
	}
	for (size_t i = 0; i < nf; i++)
		qs->tf[i] = in->start + (sht_time)(rng_next(&s) % span);
}

/* Single queries: timed one by one; answers checked, hashed into ans
 * (first variant) or compared with ans.  Returns mismatches. */
static uint64_t singles(sht_reader *r, const struct opts *o, struct qset *qs,
			int first, double *mean, double *p50, double *p99,
			double *visits)
{
	size_t n = WARM_SINGLE + o->queries;
	double *lat = malloc(o->queries * sizeof *lat), sum = 0;
	sht_result *res = sht_result_create();
	sht_reader_counters c0, c1;
	uint64_t bad = 0;

	if (!lat || !res)
		fail("memory");
	for (size_t i = 0; i < n; i++) {
		double t0;
		sht_err err;
		uint64_t h = 0;

		if (i == WARM_SINGLE)
			sht_reader_counters_get(r, &c0);
		t0 = now_s();
		err = sht_reader_query(r, qs->q[i], qs->t[i], res);
		t0 = now_s() - t0;
		if (i >= WARM_SINGLE) {
			lat[i - WARM_SINGLE] = t0 * 1e6;
			sum += t0 * 1e6;
		}
		if (err == SHT_OK) {
			const sht_interval *iv = sht_result_at(res, 0);

			if (sht_result_count(res) != 1 || iv->quark != qs->q[i] ||
			    iv->start > qs->t[i] || iv->end < qs->t[i])
				bad++;
			h = hash_iv(iv);
		} else if (err != SHT_NOT_FOUND) {
			fail("single query");
		}
		if (first)
			qs->ans[i] = h;
		else if (qs->ans[i] != h)
			bad++;
	}
	sht_reader_counters_get(r, &c1);
	*visits = (double)(c1.node_visits - c0.node_visits) / (double)o->queries;
	*mean = sum / (double)o->queries;
	qsort(lat, o->queries, sizeof *lat, cmp_double);
	*p50 = pct_sorted(lat, o->queries, 0.50);
	*p99 = pct_sorted(lat, o->queries, 0.99);
	free(lat);
	sht_result_destroy(res);
	return bad;
}

/* Full queries, as singles(); *items: intervals per query (mean). */
static uint64_t fulls(sht_reader *r, const struct opts *o, struct qset *qs,
		      int first, double *mean, double *p99, double *items)
{
	size_t n = WARM_FULL + o->full_queries;
	double *lat = malloc(o->full_queries * sizeof *lat), sum = 0, it = 0;
	sht_result *res = sht_result_create();
	uint64_t bad = 0;

	if (!lat || !res)
		fail("memory");
	for (size_t i = 0; i < n; i++) {
		double t0 = now_s();
		uint64_t h = 0;
		size_t m;

		if (sht_reader_query_full(r, qs->tf[i], res) != SHT_OK)
			fail("full query");
		t0 = now_s() - t0;
		m = sht_result_count(res);
		if (i >= WARM_FULL) {
			lat[i - WARM_FULL] = t0 * 1e3;
			sum += t0 * 1e3;
			it += (double)m;
		}
		for (size_t j = 0; j < m; j++) {
			const sht_interval *iv = sht_result_at(res, j);

			if (iv->start > qs->tf[i] || iv->end < qs->tf[i] ||
			    (j > 0 && sht_result_at(res, j - 1)->quark >= iv->quark))
				bad++;
			h = mix(h, hash_iv(iv));
		}
		if (first)
			qs->ans_full[i] = h;
		else if (qs->ans_full[i] != h)
			bad++;
	}
	*mean = sum / (double)o->full_queries;
	qsort(lat, o->full_queries, sizeof *lat, cmp_double);
	*p99 = pct_sorted(lat, o->full_queries, 0.99);
	*items = it / (double)o->full_queries;
	free(lat);
	sht_result_destroy(res);
	return bad;
}

static void report_line(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "trace-bench: check: %s\n", msg);
}

/* What a measured history was built from (--open: nothing known). */
struct made {
	const char *mode, *label;
	uint64_t events, attrs;
	double build_s;
};

/* Shape and queries of the history at path, one JSON line.  Returns
 * mismatches. */
static uint64_t measure(const struct opts *o, const char *path,
			const struct made *m, struct qset *qs, int first)
{
	uint64_t bad;
	double sm, s50, s99, vis, fm, f99, items;
	sht_reader *r;
	sht_reader_opts ro;
	sht_tree_info in;
	sht_tree_stats st;
	int checked = 0;
	json_t *j;

	sht_reader_opts_init(&ro);
	ro.mapped = o->mapped;
	if (sht_reader_open(path, &ro, &r) != SHT_OK)
		fail(path);
	sht_reader_info_get(r, &in);
	if (sht_reader_stats_get(r, &st) != SHT_OK)
		fail("stats");
	if (in.quark_count == 0)
		fail("empty history");
	if (first)
		draw(qs, o, &in);
	bad = singles(r, o, qs, first, &sm, &s50, &s99, &vis);
	bad += fulls(r, o, qs, first, &fm, &f99, &items);
	if (o->check) {
		if (sht_reader_check(r, report_line, NULL, 10) != SHT_OK)
			bad++;
		checked = 1;
	}
	sht_reader_close(r);
	j = bj_object();
	bj_str(j, "mode", m->mode);
	bj_str(j, o->open ? "history" : "trace", o->open ? path : o->trace);
	bj_str(j, "variant", in.variant == SHT_VARIANT_SHT ? "sht" : "esht");
	if (o->open)
		bj_str(j, "reader", o->mapped ? "mapped" : "cache");
	bj_int(j, "block_size", in.block_size);
	bj_int(j, "max_children", in.max_children);
	if (!o->open) {
		bj_int(j, "events", (int64_t)m->events);
		bj_int(j, "attributes", (int64_t)m->attrs);
	}
	bj_int(j, "intervals", (int64_t)in.intervals);
	if (!o->open) {
		bj_num(j, "build_s", m->build_s);
		bj_num(j, "events_per_s", (double)m->events / m->build_s);
	}
	bj_int(j, "file_bytes", (int64_t)in.file_bytes);
	bj_num(j, "bytes_per_interval", st.bytes_per_interval);
	bj_int(j, "nodes", (int64_t)in.nodes);
	bj_int(j, "depth", in.depth);
	bj_num(j, "fill_leaf", st.fill_leaf);
	bj_num(j, "fill_core", st.fill_core);
	bj_num(j, "single_mean_us", sm);
	bj_num(j, "single_p50_us", s50);
	bj_num(j, "single_p99_us", s99);
	bj_num(j, "single_visits", vis);
	bj_num(j, "full_mean_ms", fm);
	bj_num(j, "full_p99_ms", f99);
	bj_num(j, "full_items", items);
	bj_int(j, "checked", checked);
	bj_int(j, "mismatches", (int64_t)bad);
	bj_print(j);
	return bad;
}

/* One variant: build, then measure.  Returns mismatches. */
static uint64_t run_variant(const struct opts *o, sht_variant v,
			    struct qset *qs, int first)
{
	char path[4096];
	struct made m = { .mode = "trace" };
	uint64_t bad;

	snprintf(path, sizeof path, "%s/trace-bench-%ld-%s.sht", o->dir,
		 (long)getpid(), v == SHT_VARIANT_SHT ? "sht" : "esht");
	m.build_s = build(o, v, path, &m.events, &m.attrs);
	bad = measure(o, path, &m, qs, first);
	if (!o->keep)
		unlink(path);
	return bad;
}

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: trace-bench TRACE [--dir D] [--block-size B] "
		"[--max-children C]\n"
		"                   [--queries Q] [--full-queries F] [--seed S] "
		"[--check] [--keep]\n"
		"       trace-bench --open [--mapped] HISTORY... [--queries Q] "
		"[--full-queries F]\n"
		"                   [--seed S] [--check]\n");
	exit(status);
}

static const struct option options[] = {
	{ "dir", required_argument, NULL, 'd' },
	{ "block-size", required_argument, NULL, 'b' },
	{ "max-children", required_argument, NULL, 'c' },
	{ "queries", required_argument, NULL, 'q' },
	{ "full-queries", required_argument, NULL, 'f' },
	{ "seed", required_argument, NULL, 's' },
	{ "check", no_argument, NULL, 'C' },
	{ "keep", no_argument, NULL, 'k' },
	{ "open", no_argument, NULL, 'O' },
	{ "mapped", no_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct opts o = { .queries = 10000, .full_queries = 200, .seed = 1 };
	struct qset qs;
	uint64_t bad;
	int k;

	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'd': o.dir = optarg; break;
		case 'b':
			o.block_size = (uint32_t)parse_bytes("--block-size",
							     optarg);
			break;
		case 'c':
			o.max_children = (uint32_t)parse_count_in(
				"--max-children", optarg, 0, UINT32_MAX);
			break;
		case 'q': o.queries = parse_count("--queries", optarg); break;
		case 'f':
			o.full_queries = parse_count("--full-queries", optarg);
			break;
		case 's': o.seed = parse_count("--seed", optarg); break;
		case 'C': o.check = 1; break;
		case 'k': o.keep = 1; break;
		case 'O': o.open = 1; break;
		case 'M': o.mapped = 1; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind >= argc || (!o.open && optind + 1 != argc) ||
	    o.queries == 0 || o.full_queries == 0)
		usage(stderr, 2);
	if (o.open) {
		struct made m = { .mode = "open" };

		bad = 0;
		for (int i = optind; i < argc; i++)
			bad += measure(&o, argv[i], &m, &qs, i == optind);
	} else {
		o.trace = argv[optind];
		if (!o.dir)
			o.dir = tmp_dir();
		bad = run_variant(&o, SHT_VARIANT_ESHT, &qs, 1);
		bad += run_variant(&o, SHT_VARIANT_SHT, &qs, 0);
	}
	free(qs.q), free(qs.t), free(qs.ans), free(qs.tf), free(qs.ans_full);
	if (bad)
		fprintf(stderr, "trace-bench: %" PRIu64 " wrong answers\n", bad);
	return bad ? 1 : 0;
}
