/*
 * tap.h: a header-only TAP (Test Anything Protocol) producer for C tests.
 *
 *   #include "tap.h"
 *   int main(void)
 *   {
 *           plan(2);                      (or no_plan(), then 1..N at the end)
 *           ok(f() == 0, "f succeeds on %s", "empty input");
 *           is_int(g(), 3, "g counts three");
 *           return done_testing();
 *   }
 *
 * ok, is_int, is_i64, is_u64, is_str print "ok N - message" or "not ok N -
 * message" (message is a printf format) and return 1 if the test passed, 0
 * if not; the is_* also print both operands on failure.  plan_tests(n) is
 * plan(n).
 * diag() writes "# ..." lines to stderr.  done_testing() prints the plan if
 * none was given and returns the exit status: 0 if every test passed and
 * the count matches the plan, 1 otherwise.  skip_all() exits with 77,
 * which CTest reports as skipped (SKIP_RETURN_CODE).  bail_out() stops
 * the whole test at once.
 *
 * Call from one thread only: the counters are not locked.
 */
#ifndef SHT_TAP_H
#define SHT_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF(f, a)
#endif

#define TAP_SKIP_CODE 77

struct tap_state {
	int planned;   /* tests announced by plan(), -1 if none (yet) */
	int run;       /* tests run so far */
	int failed;    /* tests failed so far */
};

/* The counters.  Each translation unit has its own copy (static inline),
 * so a test program makes all its ok / is_* calls from one .c file. */
static inline struct tap_state *tap__state(void)
{
	static struct tap_state st = { -1, 0, 0 };
	return &st;
}

static inline void tap__vprint(FILE *f, const char *prefix, const char *fmt,
			       va_list ap) TAP_PRINTF(3, 0);
static inline void tap__vprint(FILE *f, const char *prefix, const char *fmt,
			       va_list ap)
{
	fflush(stdout);
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

/* Print "# message" to stderr. */
static inline void diag(const char *fmt, ...) TAP_PRINTF(1, 2);
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap__vprint(stderr, "# ", fmt, ap);
	va_end(ap);
}

/* Announce n tests; call at most once, before the first test. */
static inline void plan(int n)
{
	tap__state()->planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

#define plan_tests(n) plan(n)

/* The number of tests is printed by done_testing() instead. */
static inline void no_plan(void)
{
	tap__state()->planned = -1;
}

/* Skip the whole program: "1..0 # SKIP reason", exit status 77. */
static inline _Noreturn void skip_all(const char *fmt, ...) TAP_PRINTF(1, 2);
static inline _Noreturn void skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap__vprint(stdout, "1..0 # SKIP ", fmt, ap);
	va_end(ap);
	exit(TAP_SKIP_CODE);
}

/* Stop now: "Bail out! reason", exit status 255. */
static inline _Noreturn void bail_out(const char *fmt, ...) TAP_PRINTF(1, 2);
static inline _Noreturn void bail_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap__vprint(stdout, "Bail out! ", fmt, ap);
	va_end(ap);
	exit(255);
}

static inline int tap__okv(int pass, const char *file, int line,
			   const char *fmt, va_list ap) TAP_PRINTF(4, 0);
static inline int tap__okv(int pass, const char *file, int line,
			   const char *fmt, va_list ap)
{
	struct tap_state *st = tap__state();

	st->run++;
	if (!pass)
		st->failed++;
	printf("%sok %d - ", pass ? "" : "not ", st->run);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		diag("  Failed test at %s:%d", file, line);
	return pass;
}

static inline int tap__ok(int pass, const char *file, int line,
			  const char *fmt, ...) TAP_PRINTF(4, 5);
static inline int tap__ok(int pass, const char *file, int line,
			  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap__okv(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

/* ok(cond, fmt, ...): pass if cond is true. */
#define ok(cond, ...) tap__ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

/*
 * is_int(got, want, fmt, ...), is_i64, is_u64, is_str: pass if got equals
 * want; on failure print both, with their source text.  Each operand is
 * evaluated once.  is_int and is_i64 compare as int64_t, is_u64 as
 * uint64_t, is_str with strcmp (two NULLs are equal).
 */
#define is_i64(got, want, ...) \
	tap__is_i64((int64_t)(got), (int64_t)(want), #got, #want, \
		    __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) is_i64(got, want, __VA_ARGS__)
#define is_u64(got, want, ...) \
	tap__is_u64((uint64_t)(got), (uint64_t)(want), #got, #want, \
		    __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) \
	tap__is_str((got), (want), #got, #want, __FILE__, __LINE__, \
		    __VA_ARGS__)

static inline int tap__is_i64(int64_t got, int64_t want, const char *gots,
			      const char *wants, const char *file, int line,
			      const char *fmt, ...) TAP_PRINTF(7, 8);
static inline int tap__is_i64(int64_t got, int64_t want, const char *gots,
			      const char *wants, const char *file, int line,
			      const char *fmt, ...)
{
	int pass = got == want;
	va_list ap;

	va_start(ap, fmt);
	tap__okv(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %" PRId64 ", expected %s = %" PRId64,
		     gots, got, wants, want);
	return pass;
}

static inline int tap__is_u64(uint64_t got, uint64_t want, const char *gots,
			      const char *wants, const char *file, int line,
			      const char *fmt, ...) TAP_PRINTF(7, 8);
static inline int tap__is_u64(uint64_t got, uint64_t want, const char *gots,
			      const char *wants, const char *file, int line,
			      const char *fmt, ...)
{
	int pass = got == want;
	va_list ap;

	va_start(ap, fmt);
	tap__okv(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %" PRIu64 ", expected %s = %" PRIu64,
		     gots, got, wants, want);
	return pass;
}

static inline int tap__is_str(const char *got, const char *want,
			      const char *gots, const char *wants,
			      const char *file, int line,
			      const char *fmt, ...) TAP_PRINTF(7, 8);
static inline int tap__is_str(const char *got, const char *want,
			      const char *gots, const char *wants,
			      const char *file, int line,
			      const char *fmt, ...)
{
	int pass = got == want ||
		   (got != NULL && want != NULL && strcmp(got, want) == 0);
	const char *gq = got ? "\"" : "", *wq = want ? "\"" : "";
	va_list ap;

	va_start(ap, fmt);
	tap__okv(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		diag("  %s = %s%s%s, expected %s = %s%s%s",
		     gots, gq, got ? got : "(null)", gq,
		     wants, wq, want ? want : "(null)", wq);
	return pass;
}

/* Finish: print the plan if none was given, report a count mismatch, and
 * return the exit status for main(). */
static inline int done_testing(void)
{
	struct tap_state *st = tap__state();
	int status = 0;

	if (st->planned < 0) {
		printf("1..%d\n", st->run);
		fflush(stdout);
	} else if (st->planned != st->run) {
		diag("Looks like you planned %d test%s but ran %d.",
		     st->planned, st->planned == 1 ? "" : "s", st->run);
		status = 1;
	}
	if (st->failed > 0) {
		diag("Looks like you failed %d test%s of %d run.", st->failed,
		     st->failed == 1 ? "" : "s", st->run);
		status = 1;
	}
	return status;
}

#endif /* SHT_TAP_H */
