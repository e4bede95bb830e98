/*
 * attrs-bench.c: cost of the attribute tree (src/state/attrs.c): creating
 * N attributes, serializing them as the attribute tree section, loading
 * that section back, and the heap each tree takes.
 *
 *   attrs-bench [--count N] [--repeat K] [--shape flat|threads]
 *
 * Shapes: flat = "0" .. "N-1" below the root (the acceptance case, N =
 * 1 000 000 by default); threads = a kernel-like tree, "Threads/<tid>"
 * with 9 children each (PPID, Exec_name, ...), N attributes in all.
 * Output: one JSON line per run on stdout, and with --repeat K > 1 a last
 * line ("type":"median") with the median of each field:
 *   {"type":"run","shape":..,"count":..,"create_ms":..,"serialize_ms":..,
 *    "load_ms":..,"create_cpu_ms":..,"serialize_cpu_ms":..,"load_cpu_ms":..,
 *    "bytes":..,"load_bytes":..,"section_bytes":..}
 * *_ms: wall clock; *_cpu_ms: CPU time of the thread (steadier on a busy
 * machine).  bytes / load_bytes: heap taken by the created / loaded tree
 * (mallinfo2, or the sanitizer's count in ASan builds).  Names are formatted before
 * the clock starts.  Exit status 1 if a call fails or the loaded tree
 * differs in size.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench-json.h"
#include "bench-util.h"

#include "state/attrs.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif

#ifdef HAVE_ASAN
/* From <sanitizer/allocator_interface.h>, which gcc does not install. */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
#include <malloc.h>
static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}
#endif

static const char *const thread_attrs[9] = {
	"PPID", "PID", "Exec_name", "Prio", "System_call", "Current_cpu_rq",
	"Status", "Stack", "CPU",
};

/* One look-up to perform: parent is an index into the results so far
 * (or -1 for the root); name points into a shared buffer. */
struct op {
	long parent;            /* index of the parent's op, -1: the root */
	const char *name;       /* name bytes */
	size_t len;             /* name length */
};

/* Wall-clock and CPU (this thread) times in ms. */
struct clock2 {
	double wall;            /* CLOCK_MONOTONIC */
	double cpu;             /* CLOCK_THREAD_CPUTIME_ID: less hurt by a busy machine */
};

static struct clock2 now(void)
{
	struct timespec w, c;

	clock_gettime(CLOCK_MONOTONIC, &w);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	return (struct clock2){ w.tv_sec * 1e3 + w.tv_nsec / 1e6,
				c.tv_sec * 1e3 + c.tv_nsec / 1e6 };
}

/* Metrics of one run, in output order. */
#define NMETRIC 9
static const char *const metric_name[NMETRIC] = {
	"create_ms", "serialize_ms", "load_ms", "create_cpu_ms",
	"serialize_cpu_ms", "load_cpu_ms", "bytes", "load_bytes",
	"section_bytes",
};

static void print_run(const char *type, const char *shape, size_t count,
		      const double *m)
{
	json_t *o = bj_object();

	bj_str(o, "type", type);
	bj_str(o, "shape", shape);
	bj_int(o, "count", (int64_t)count);
	for (int i = 0; i < NMETRIC; i++) {
		if (i < 6)
			bj_num(o, metric_name[i], m[i]);
		else
			bj_int(o, metric_name[i], (int64_t)m[i]);
	}
	bj_print(o);
}

/* The look-ups that build the tree; names are stored in *text. */
static struct op *plan_ops(const char *shape, size_t count, char **text)
{
	struct op *ops = malloc(count * sizeof *ops);
	char *t = malloc(count * 16 + 16), *w = t;
	size_t i, thread = 0;

	if (!ops || !t)
		exit(1);
	for (i = 0; i < count; i++) {
		size_t r = (i - 1) % 10;        /* threads: place in a group */
		int n;

		if (strcmp(shape, "flat") == 0 || i == 0) {
			n = i ? sprintf(w, "%zu", i) : sprintf(w, "%s", *shape == 'f' ? "0" : "Threads");
			ops[i] = (struct op){ -1, w, (size_t)n };
			w += n + 1;
		} else if (r == 0) {
			n = sprintf(w, "%zu", 1000 + thread++);
			ops[i] = (struct op){ 0, w, (size_t)n };
			w += n + 1;
		} else {
			ops[i] = (struct op){ (long)(i - r), thread_attrs[r - 1],
					      strlen(thread_attrs[r - 1]) };
		}
	}
	*text = t;
	return ops;
}

/* One run: create, serialize, load; metrics into m[NMETRIC]. */
static int run(const char *shape, size_t count, double *m)
{
	char *text;
	struct op *ops = plan_ops(shape, count, &text);
	sht_quark *quark = malloc(count * sizeof *quark);
	struct sht__attrs *a, *b;
	size_t base, len, i;
	struct clock2 t0, t1, t2, t3;
	uint8_t *buf;

	base = heap_bytes();
	t0 = now();
	if (!quark || sht__attrs_create(&a) != SHT_OK)
		return 1;
	for (i = 0; i < count; i++) {
		sht_quark p = ops[i].parent < 0 ? SHT_QUARK_ROOT : quark[ops[i].parent];

		if (sht__attrs_get(a, p, ops[i].name, ops[i].len, 1, &quark[i]) != SHT_OK)
			return fprintf(stderr, "%s\n", sht_errmsg()), 1;
	}
	t1 = now();
	m[6] = (double)(heap_bytes() - base);
	if (sht__attrs_serialize(a, &buf, &len) != SHT_OK)
		return 1;
	t2 = now();
	base = heap_bytes();
	if (sht__attrs_load(buf, len, &b) != SHT_OK)
		return fprintf(stderr, "%s\n", sht_errmsg()), 1;
	t3 = now();
	m[7] = (double)(heap_bytes() - base);
	m[0] = t1.wall - t0.wall;
	m[1] = t2.wall - t1.wall;
	m[2] = t3.wall - t2.wall;
	m[3] = t1.cpu - t0.cpu;
	m[4] = t2.cpu - t1.cpu;
	m[5] = t3.cpu - t2.cpu;
	m[8] = (double)len;
	i = sht__attrs_count(a) != count || sht__attrs_count(b) != count;
	sht__attrs_destroy(a);
	sht__attrs_destroy(b);
	free(buf);
	free(quark);
	free(ops);
	free(text);
	return (int)i;
}

static const struct option options[] = {
	{ "count", required_argument, NULL, 'c' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "shape", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: attrs-bench [--count N] [--repeat K (1..64)] "
		"[--shape flat|threads]\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *shape = "flat";
	size_t count = 1000000;
	int repeat = 1, i, k, rc = 0;
	double (*m)[NMETRIC], col[64];

	while ((i = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (i) {
		case 'c':
			count = (size_t)parse_count_in("--count", optarg, 1,
						       SHT_QUARK_MAX);
			break;
		case 'r':
			repeat = (int)parse_count_in("--repeat", optarg, 1, 64);
			break;
		case 's': shape = optarg; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind < argc || (strcmp(shape, "flat") && strcmp(shape, "threads")))
		usage(stderr, 2);
	m = calloc((size_t)repeat, sizeof *m);
	for (i = 0; m && i < repeat && rc == 0; i++) {
		rc = run(shape, count, m[i]);
		if (rc == 0)
			print_run("run", shape, count, m[i]);
	}
	if (m && rc == 0 && repeat > 1) {
		for (k = 0; k < NMETRIC; k++) {
			for (i = 0; i < repeat; i++)
				col[i] = m[i][k];
			qsort(col, (size_t)repeat, sizeof col[0], cmp_double);
			m[0][k] = col[repeat / 2];
		}
		print_run("median", shape, count, m[0]);
	}
	free(m);
	return m ? rc : 1;
}
