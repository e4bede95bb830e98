/*
 * bench-util.c: the shared helpers of bench-util.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"

/* ---- messages ------------------------------------------------------------ */

int bench_verbose;

static void vsay(const char *prefix, const char *fmt, va_list ap,
		 const char *suffix) BENCH_PRINTF(2, 0);
static void vsay(const char *prefix, const char *fmt, va_list ap,
		 const char *suffix)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputs(suffix, stderr);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	char prefix[128];
	va_list ap;

	snprintf(prefix, sizeof prefix, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vsay(prefix, fmt, ap, "");
	va_end(ap);
	exit(2);
}

void usage_error(const char *fmt, ...)
{
	char prefix[128];
	va_list ap;

	snprintf(prefix, sizeof prefix, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vsay(prefix, fmt, ap, " (try --help)");
	va_end(ap);
	exit(2);
}

void bad_option(void)
{
	fprintf(stderr, "%s: try --help\n", program_invocation_short_name);
	exit(2);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (!bench_verbose)
		return;
	va_start(ap, fmt);
	vsay("# ", fmt, ap, "");
	va_end(ap);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/* ---- numbers on the command line ----------------------------------------- */

/* s as digits and a suffix; the multiplier of the suffix from mul(). */
static uint64_t parse_with(const char *opt, const char *s,
			   uint64_t (*mul)(const char *suffix))
{
	char *end;
	unsigned long long v;
	uint64_t m = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-' || *s == '+' || *s == ' ')
		usage_error("%s: not a number: '%s'", opt, s);
	if (*end && (m = mul(end)) == 0)
		usage_error("%s: bad suffix in '%s'", opt, s);
	if (v > UINT64_MAX / m)
		usage_error("%s: too large: '%s'", opt, s);
	return (uint64_t)v * m;
}

static uint64_t count_suffix(const char *x)
{
	if (x[1] != '\0')
		return 0;
	switch (x[0] | 0x20) {
	case 'k': return 1000ull;
	case 'm': return 1000000ull;
	case 'g': return 1000000000ull;
	default: return 0;
	}
}

static uint64_t bytes_suffix(const char *x)
{
	if (x[1] != '\0' && strcmp(x + 1, "i") != 0)
		return 0;
	switch (x[0] | 0x20) {
	case 'k': return 1ull << 10;
	case 'm': return 1ull << 20;
	case 'g': return 1ull << 30;
	default: return 0;
	}
}

uint64_t parse_count(const char *opt, const char *s)
{
	return parse_with(opt, s, count_suffix);
}

uint64_t parse_bytes(const char *opt, const char *s)
{
	return parse_with(opt, s, bytes_suffix);
}

uint64_t parse_count_in(const char *opt, const char *s, uint64_t min,
			uint64_t max)
{
	uint64_t v = parse_count(opt, s);

	if (v < min || v > max)
		usage_error("%s: %llu .. %llu, not '%s'", opt,
			    (unsigned long long)min, (unsigned long long)max, s);
	return v;
}

const char *tmp_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

/* ---- the process and the machine ----------------------------------------- */

uint64_t proc_status_bytes(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	uint64_t kb = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			kb = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cpu_s(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

double thread_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

double load1(void)
{
	double v = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

void cpu_model(char *out, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || !c)
			continue;
		c += 1 + (c[1] == ' ');
		c[strcspn(c, "\n")] = '\0';
		snprintf(out, size, "%s", c);
		break;
	}
	fclose(f);
}

/* ---- statistics ---------------------------------------------------------- */

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pct_sorted(const double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return NAN;
	i = (size_t)ceil(p * (double)n);
	if (i > 0)
		i--;
	if (i >= n)
		i = n - 1;
	return v[i];
}

double median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct lat lat_summary(double *v, size_t n)
{
	struct lat l;
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof *v, cmp_double);
	l.mean = n ? sum / (double)n : NAN;
	l.p50 = pct_sorted(v, n, 0.50);
	l.p99 = pct_sorted(v, n, 0.99);
	l.max = n ? v[n - 1] : NAN;
	return l;
}
