/*
 * tap.h: a TAP (Test Anything Protocol) producer for C tests (tap.c, in
 * the test-support library).
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
 * One set of counters per program, whatever file of it calls them.  Call
 * from one thread only: the counters are not locked.
 */
#ifndef SHT_TAP_H
#define SHT_TAP_H

/* What the tests have always had from here. */
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

/* Print "# message" to stderr. */
void diag(const char *fmt, ...) TAP_PRINTF(1, 2);

/* Announce n tests; call at most once, before the first test. */
void plan(int n);

#define plan_tests(n) plan(n)

/* The number of tests is printed by done_testing() instead. */
void no_plan(void);

/* Skip the whole program: "1..0 # SKIP reason", exit status 77. */
_Noreturn void skip_all(const char *fmt, ...) TAP_PRINTF(1, 2);

/* Stop now: "Bail out! reason", exit status 255. */
_Noreturn void bail_out(const char *fmt, ...) TAP_PRINTF(1, 2);

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

/* Finish: print the plan if none was given, report a count mismatch, and
 * return the exit status for main(). */
int done_testing(void);

/* The macros' functions. */
int tap__ok(int pass, const char *file, int line, const char *fmt, ...)
	TAP_PRINTF(4, 5);
int tap__is_i64(int64_t got, int64_t want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...) TAP_PRINTF(7, 8);
int tap__is_u64(uint64_t got, uint64_t want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...) TAP_PRINTF(7, 8);
int tap__is_str(const char *got, const char *want, const char *gots,
		const char *wants, const char *file, int line,
		const char *fmt, ...) TAP_PRINTF(7, 8);

#endif /* SHT_TAP_H */
