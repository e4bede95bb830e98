/*
 * q2d-bench.c: the sampled 2D query of a time-graph screen on a real
 * history (a kernel analysis's, e.g. of `sht gen kernel --size 2g`).
 *
 *   q2d-bench HISTORY [--rows N] [--points P] [--repeat K]
 *             [--cache-bytes B] [--window F] [--case NAME]... [--order ORDER]
 *             [--verbose]
 *
 * Cases (each a 2D query over the window at resolution window / P, P = 1920
 * by default, the width of a screen in pixels):
 *   cflow      the status of N threads (Threads/x, which holds it, for N
 *              of the threads spread evenly in attribute order; N = 500):
 *              a Control Flow screen
 *   cpus       every attribute under CPUs (CPUs/x and 1 to 3 levels
 *              below: status, current thread, IRQs, soft IRQs, frequency)
 *              and IRQs/x, Soft_IRQs/x: the rows of a Resources screen
 *   syscalls   Threads/x/System_call of every thread: the labels a
 *              Resources screen asks for
 * The window is the whole history (--window 1) or its first fraction F.
 * --order quark asks the answers by (quark, start) (SHT_ORDER_QUARK, as
 * sht serve does) instead of (start, quark) ("time", the default).
 * --threads T (> 1) asks through sht_reader_query_2d_threads on T threads,
 * as sht serve does with 2 (the cursor path stays one thread; cpu_ms
 * then counts the calling thread's share only: compare ms).
 *
 * Each case runs through four paths (--path: one of them): sht_reader_query_2d on a reader with
 * a node cache of B bytes (--cache-bytes; default the library's), the same
 * with a 16 MiB cache, a cursor (sht_reader_cursor_create, drained) on
 * that reader, and sht_reader_query_2d on a reader that maps the file
 * (sht_reader_opts.mapped: what the server uses; "mapped").  Every call is timed; the first
 * call of each path warms the cache and is not counted; the median of the
 * K next ones (--repeat, default 10) is reported.
 *
 * Output: one JSON line per case and path: case, path, quarks, points,
 * resolution, ms (median), ms_min, cpu_ms (median CPU time of the
 * calling thread: steadier on a shared machine), intervals, visits (node visits per
 * call, sht_reader_counters_get), misses (cache misses per call), and
 * hash, an FNV-1a hash of every (quark, start, end, value) of the answer
 * in the order (start, quark) (the cursor's, and an answer by quark,
 * sorted so first): two builds of the library, or the two orders, give
 * the same answers iff their hashes agree.  The exit
 * status is 1 if the paths of a case disagree, 2 on an error.
 *
 * It uses only the public API, so that the same file builds against an
 * older libsht for before/after comparisons (bench/run-q2d.sh); one from
 * before sht_reader_opts.mapped (November 2026) needs the "mapped" lines
 * taken out, one from before sht_query2d.order the two lines setting it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "bench-json.h"
#include "bench-util.h"

#define MAX_CASES 8

struct opts {
	const char *path;
	uint64_t rows, points, repeat, cache;
	double window;
	const char *cases[MAX_CASES];
	int ncases;
	const char *path1;      /* --path: only this path */
	int by_quark;           /* --order quark */
	unsigned threads;       /* --threads: > 1, sht_reader_query_2d_threads */
};

static void usage(FILE *f)
{
	fputs(
"usage: q2d-bench HISTORY [options]\n"
"  --rows N          threads of the cflow case (500)\n"
"  --points P        samples over the window (1920)\n"
"  --repeat K        timed calls per path, after one warm-up (10)\n"
"  --cache-bytes B   node cache of the first reader (0: library default)\n"
"  --window F        the first fraction F of the history (1)\n"
"  --case NAME       cflow, cpus or syscalls (repeatable; default all)\n"
"  --path NAME       only reader, reader-16m, cursor-16m or mapped\n"
"  --order ORDER     time: answers by (start, quark) (default); quark: by\n"
"                    (quark, start)\n"
"  --threads T       the non-cursor paths through\n"
"                    sht_reader_query_2d_threads on T threads (1: the\n"
"                    one-thread call); cpu_ms then counts the calling\n"
"                    thread only\n"
"  --verbose         progress on stderr\n", f);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "rows", required_argument, NULL, 'n' },
		{ "points", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'k' },
		{ "cache-bytes", required_argument, NULL, 'c' },
		{ "window", required_argument, NULL, 'w' },
		{ "case", required_argument, NULL, 'C' },
		{ "path", required_argument, NULL, 'P' },
		{ "order", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof *o);
	o->rows = 500;
	o->points = 1920;
	o->repeat = 10;
	o->window = 1;
	o->threads = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o->rows = parse_count_in("--rows", optarg, 1, 1u << 24); break;
		case 'p': o->points = parse_count_in("--points", optarg, 1, 1u << 24); break;
		case 'k': o->repeat = parse_count_in("--repeat", optarg, 1, 1000); break;
		case 'c': o->cache = parse_bytes("--cache-bytes", optarg); break;
		case 'w':
			o->window = atof(optarg);
			if (!(o->window > 0 && o->window <= 1))
				usage_error("--window wants a fraction in (0, 1]");
			break;
		case 'C':
			if (o->ncases == MAX_CASES)
				usage_error("too many --case");
			o->cases[o->ncases++] = optarg;
			break;
		case 'P': o->path1 = optarg; break;
		case 'o':
			if (strcmp(optarg, "quark") && strcmp(optarg, "time"))
				usage_error("--order wants quark or time");
			o->by_quark = !strcmp(optarg, "quark");
			break;
		case 't': o->threads = (unsigned)parse_count_in("--threads", optarg, 1, 16); break;
		case 'v': bench_verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		default: bad_option();
		}
	}
	if (optind + 1 != argc)
		usage_error("one HISTORY wanted");
	o->path = argv[optind];
	if (!o->ncases) {
		o->cases[0] = "cflow";
		o->cases[1] = "cpus";
		o->cases[2] = "syscalls";
		o->ncases = 3;
	}
}

/* ---- the quarks of a case ---------------------------------------------- */

struct qlist {
	sht_quark *q;
	size_t n, cap;
};

static void add_match(sht_state *ss, const char *pattern, struct qlist *l)
{
	sht_quark *m = NULL;
	size_t n = 0;
	sht_err err = sht_state_attr_match(ss, pattern, &m, &n);

	if (err != SHT_OK)
		die("%s: %s (%s)", pattern, sht_strerror(err), sht_errmsg());
	if (l->n + n > l->cap) {
		l->cap = 2 * (l->n + n);
		l->q = realloc(l->q, l->cap * sizeof *l->q);
		if (!l->q)
			die("out of memory");
	}
	memcpy(l->q + l->n, m, n * sizeof *m);
	l->n += n;
	free(m);
}

static void case_quarks(sht_state *ss, const struct opts *o, const char *name,
			struct qlist *l)
{
	memset(l, 0, sizeof *l);
	if (!strcmp(name, "cflow")) {
		struct qlist all = { NULL, 0, 0 };
		size_t n;

		add_match(ss, "Threads/*", &all);
		n = o->rows < all.n ? o->rows : all.n;
		l->q = xmalloc((n ? n : 1) * sizeof *l->q);
		for (size_t i = 0; i < n; i++)
			l->q[i] = all.q[i * all.n / n];
		l->n = n;
		free(all.q);
	} else if (!strcmp(name, "cpus")) {
		add_match(ss, "CPUs/*", l);
		add_match(ss, "CPUs/*/*", l);
		add_match(ss, "CPUs/*/*/*", l);
		add_match(ss, "CPUs/*/*/*/*", l);
		add_match(ss, "IRQs/*", l);
		add_match(ss, "Soft_IRQs/*", l);
	} else if (!strcmp(name, "syscalls")) {
		add_match(ss, "Threads/*/System_call", l);
	} else {
		usage_error("unknown case '%s'", name);
	}
	if (l->n == 0)
		die("case %s: no attribute matches in %s", name, o->path);
}

/* ---- answers ------------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return h;
}

static int by_start(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->quark > y->quark) - (x->quark < y->quark);
}

static uint64_t hash_items(const sht_interval *it, size_t n)
{
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < n; i++) {
		const sht_value *v = &it[i].value;

		h = fnv(h, &it[i].quark, sizeof it[i].quark);
		h = fnv(h, &it[i].start, sizeof it[i].start);
		h = fnv(h, &it[i].end, sizeof it[i].end);
		h = fnv(h, &v->type, sizeof v->type);
		if (v->type == SHT_TYPE_STRING)
			h = fnv(h, v->u.str, v->len);
		else if (v->type == SHT_TYPE_INT32)
			h = fnv(h, &v->u.i32, sizeof v->u.i32);
		else if (v->type == SHT_TYPE_INT64)
			h = fnv(h, &v->u.i64, sizeof v->u.i64);
		else if (v->type == SHT_TYPE_DOUBLE)
			h = fnv(h, &v->u.d, sizeof v->u.d);
	}
	return h;
}

/* ---- one path ------------------------------------------------------------ */

struct answer {
	size_t count;
	uint64_t hash;
};

/* The whole answer through a cursor, sorted as the query sorts it. */
static sht_err by_cursor(sht_reader *rd, const sht_query2d *q,
			 sht_result *piece, struct answer *a)
{
	sht_interval *all = NULL;
	size_t n = 0, cap = 0;
	sht_cursor *c = NULL;
	sht_err err = sht_reader_cursor_create(rd, q, &c);

	while (err == SHT_OK && (err = sht_cursor_next(c, piece)) == SHT_OK) {
		size_t k = sht_result_count(piece);
		if (n + k > cap) {
			cap = 2 * (n + k);
			all = realloc(all, cap * sizeof *all);
			if (!all)
				die("out of memory");
		}
		/* strings point into piece: copy them */
		memcpy(all + n, sht_result_items(piece), k * sizeof *all);
		for (size_t i = n; i < n + k; i++)
			if (all[i].value.type == SHT_TYPE_STRING) {
				char *p = xmalloc(all[i].value.len + 1);
				memcpy(p, all[i].value.u.str, all[i].value.len);
				all[i].value.u.str = p;
			}
		n += k;
	}
	sht_cursor_destroy(c);
	if (err == SHT_END)
		err = SHT_OK;
	qsort(all, n, sizeof *all, by_start);
	a->count = n;
	a->hash = hash_items(all, n);
	for (size_t i = 0; i < n; i++)
		if (all[i].value.type == SHT_TYPE_STRING)
			free((char *)(uintptr_t)all[i].value.u.str);
	free(all);
	return err;
}

/* The answer of a query: its hash in (start, quark) order (an answer
 * by quark sorted so first). */
static void hash_answer(const sht_result *res, struct answer *a)
{
	size_t n = sht_result_count(res);
	sht_interval *all = xmalloc((n ? n : 1) * sizeof *all);

	if (n)
		memcpy(all, sht_result_items(res), n * sizeof *all);
	qsort(all, n, sizeof *all, by_start);
	a->count = n;
	a->hash = hash_items(all, n);
	free(all);
}

/* Run one path K + 1 times; print its line; *a gets its answer. */
static void run_path(sht_reader *rd, const sht_query2d *q, int cursor,
		     const char *cname, const char *pname,
		     const struct opts *o, struct answer *a)
{
	sht_result *res = sht_result_create();
	double *ms = xmalloc(o->repeat * sizeof *ms), lo = 0;
	double *cpu = xmalloc(o->repeat * sizeof *cpu);
	sht_reader_counters c0, c1;
	char hash[24];
	json_t *j;

	if (!res)
		die("out of memory");
	for (uint64_t k = 0; k <= o->repeat; k++) {
		double t0, t1, c0s;
		sht_err err;

		if (k == 1)
			sht_reader_counters_get(rd, &c0);
		c0s = thread_cpu_s();
		t0 = now_s();
		if (cursor) {
			err = by_cursor(rd, q, res, a);
		} else if (o->threads > 1) {
			err = sht_reader_query_2d_threads(rd, q, o->threads, res);
		} else {
			err = sht_reader_query_2d(rd, q, res);
		}
		t1 = now_s();
		if (err != SHT_OK)
			die("%s/%s: %s (%s)", cname, pname, sht_strerror(err),
			    sht_errmsg());
		if (!cursor && k == 0)
			hash_answer(res, a);
		if (k > 0) {
			ms[k - 1] = (t1 - t0) * 1e3;
			cpu[k - 1] = (thread_cpu_s() - c0s) * 1e3;
		}
	}
	sht_reader_counters_get(rd, &c1);
	for (uint64_t k = 0; k < o->repeat; k++)
		if (k == 0 || ms[k] < lo)
			lo = ms[k];
	j = bj_object();
	bj_str(j, "case", cname);
	bj_str(j, "path", pname);
	bj_str(j, "order", q->order == SHT_ORDER_QUARK ? "quark" : "time");
	bj_int(j, "quarks", (int64_t)q->n_quarks);
	if (o->threads > 1 && !cursor)
		bj_int(j, "threads", (int64_t)o->threads);
	bj_int(j, "points", (int64_t)o->points);
	bj_int(j, "resolution", q->resolution);
	bj_num(j, "ms", median(ms, o->repeat));
	bj_num(j, "ms_min", lo);
	bj_num(j, "cpu_ms", median(cpu, o->repeat));
	bj_int(j, "intervals", (int64_t)a->count);
	bj_num(j, "visits", (double)(c1.node_visits - c0.node_visits) / (double)o->repeat);
	bj_num(j, "misses", (double)(c1.cache_misses - c0.cache_misses) / (double)o->repeat);
	snprintf(hash, sizeof hash, "%016llx", (unsigned long long)a->hash);
	bj_str(j, "hash", hash);
	bj_num(j, "load", load1());
	bj_print(j);
	free(ms);
	free(cpu);
	sht_result_destroy(res);
}

static sht_reader *open_reader(const char *path, uint64_t cache, bool mapped)
{
	sht_reader_opts ro;
	sht_reader *rd = NULL;
	sht_err err;

	memset(&ro, 0, sizeof ro);
	ro.cache_bytes = (size_t)cache;
	ro.mapped = mapped;
	err = sht_reader_open(path, &ro, &rd);
	if (err != SHT_OK)
		die("%s: %s (%s)", path, sht_strerror(err), sht_errmsg());
	return rd;
}

int main(int argc, char **argv)
{
	struct opts o;
	sht_state *ss = NULL;
	sht_reader *rd[4];
	sht_tree_info info;
	static const char *const pname[4] = { "reader", "reader-16m", "cursor-16m",
					      "mapped" };
	sht_err err;
	int bad = 0;

	parse(argc, argv, &o);
	err = sht_state_open(o.path, NULL, &ss);
	if (err != SHT_OK)
		die("%s: %s (%s)", o.path, sht_strerror(err), sht_errmsg());
	rd[0] = open_reader(o.path, o.cache, false);
	rd[1] = rd[2] = open_reader(o.path, 16u << 20, false);
	rd[3] = open_reader(o.path, 0, true);
	sht_reader_info_get(rd[0], &info);
	for (int i = 0; i < o.ncases; i++) {
		struct answer a[4];
		struct qlist l;
		sht_query2d q;
		double w = (double)((uint64_t)info.end - (uint64_t)info.start);

		case_quarks(ss, &o, o.cases[i], &l);
		memset(&q, 0, sizeof q);
		q.quarks = l.q;
		q.n_quarks = l.n;
		q.t1 = info.start;
		q.t2 = o.window >= 1 ? info.end : info.start + (sht_time)(w * o.window);
		q.resolution = (sht_time)(((uint64_t)q.t2 - (uint64_t)q.t1) / o.points);
		q.order = o.by_quark ? SHT_ORDER_QUARK : SHT_ORDER_TIME;
		if (q.resolution < 1)
			q.resolution = 1;
		note("%s: %zu quarks", o.cases[i], l.n);
		for (int k = 0; k < 4; k++) {
			a[k] = a[0];
			if (!o.path1 || !strcmp(o.path1, pname[k]))
				run_path(rd[k], &q, k == 2, o.cases[i],
					 pname[k], &o, &a[k]);
		}
		for (int k = 1; k < 4 && !o.path1; k++)
			if (a[k].count != a[0].count || a[k].hash != a[0].hash) {
				fprintf(stderr, "q2d-bench: %s: the paths disagree\n", o.cases[i]);
				bad = 1;
			}
		free(l.q);
	}
	sht_reader_close(rd[3]);
	sht_reader_close(rd[1]);
	sht_reader_close(rd[0]);
	sht_state_close(ss);
	return bad;
}
