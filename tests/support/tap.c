/*
 * tap.c: the TAP producer of tap.h, with the program's one set of
 * counters.
 */
#include "tap.h"

static struct {
	int planned;   /* tests announced by plan(), -1 if none (yet) */
	int run;       /* tests run so far */
	int failed;    /* tests failed so far */
} tap = { -1, 0, 0 };

static void vprint(FILE *f, const char *prefix, const char *fmt, va_list ap)
	TAP_PRINTF(3, 0);
static void vprint(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(stderr, "# ", fmt, ap);
	va_end(ap);
}

void plan(int n)
{
	tap.planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

void no_plan(void)
{
	tap.planned = -1;
}

_Noreturn void skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(stdout, "1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(TAP_SKIP_CODE);
}

_Noreturn void bail_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(stdout, "Bail out! ", fmt, ap);
	va_end(ap);
	exit(255);
}

/* "ok N - message" or "not ok N - message"; a failure is counted and
 * located. */
static int test_v(int pass, const char *file, int line, const char *fmt,
		  va_list ap) TAP_PRINTF(4, 0);
static int test_v(int pass, const char *file, int line, const char *fmt,
		  va_list ap)
{
	tap.run++;
	if (!pass)
		tap.failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap.run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		diag("  Failed test at %s:%d", file, line);
	return pass;
}

int tap__ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	test_v(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

int tap__is_i64(int64_t got, int64_t want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...)
{
	int pass = got == want;
	va_list ap;

	va_start(ap, fmt);
	test_v(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %" PRId64 ", expected %s = %" PRId64,
		     gots, got, wants, want);
	return pass;
}

int tap__is_u64(uint64_t got, uint64_t want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...)
{
	int pass = got == want;
	va_list ap;

	va_start(ap, fmt);
	test_v(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %" PRIu64 ", expected %s = %" PRIu64,
		     gots, got, wants, want);
	return pass;
}

int tap__is_str(const char *got, const char *want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...)
{
	int pass = got == want ||
		   (got != NULL && want != NULL && strcmp(got, want) == 0);
	const char *gq = got ? "\"" : "", *wq = want ? "\"" : "";
	va_list ap;

	va_start(ap, fmt);
	test_v(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %s%s%s, expected %s = %s%s%s",
		     gots, gq, got ? got : "(null)", gq,
		     wants, wq, want ? want : "(null)", wq);
	return pass;
}

int done_testing(void)
{
	int status = 0;

	if (tap.planned < 0) {
		printf("1..%d\n", tap.run);
		fflush(stdout);
	} else if (tap.planned != tap.run) {
		diag("Looks like you planned %d test%s but ran %d.",
		     tap.planned, tap.planned == 1 ? "" : "s", tap.run);
		status = 1;
	}
	if (tap.failed > 0) {
		diag("Looks like you failed %d test%s of %d run.", tap.failed,
		     tap.failed == 1 ? "" : "s", tap.run);
		status = 1;
	}
	return status;
}
