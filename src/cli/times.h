/*
 * times.h: the CLI's time forms (docs/TIMES in sht(1), "TIMES").
 *
 * A time option accepts:
 *   1457113583227228162          nanoseconds since 1970 (the trace's clock)
 *   15:59:43.010787311           a time of day on the history's first day,
 *   2016-03-04 15:59:43.01       or on a given day, in the local time zone
 *                                (TZ); 0 to 9 digits after the point
 *   +1.5s  +120ms  +7us  +42ns   a duration after the history's start
 *   +1.234567890 s               (a space before the unit is allowed)
 *   start, end                   the history's first and last time
 * and `--time-format ns|clock|relative` prints times on the terminal as
 * nanoseconds (default), as a time of day (HH:MM:SS.nnnnnnnnn; the date
 * first if not the history's first day) or as +S.nnnnnnnnn s after the
 * start.  Every printed form reads back as the same nanosecond.
 */
#ifndef SHT_CLI_TIMES_H
#define SHT_CLI_TIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/sht.h"

typedef enum cli_time_format {
	CLI_TIME_NS = 0,
	CLI_TIME_CLOCK = 1,
	CLI_TIME_RELATIVE = 2,
} cli_time_format;

/* A time option as given, checked for form when parsed, resolved once
 * the history (its start, end and day) is known. */
typedef struct cli_time_arg {
	const char *text;         /* NULL: not given */
	enum { CLI_T_NS, CLI_T_CLOCK, CLI_T_REL, CLI_T_START, CLI_T_END } kind;
	int64_t ns;               /* NS: the time; REL: the offset; CLOCK:
	                             nanoseconds into the day */
	bool have_date;           /* CLOCK: a date was given */
	int year, month, day;
} cli_time_arg;

/* What printing and resolving need to know of the history. */
typedef struct cli_timectx {
	sht_time start, end;
	cli_time_format format;
	int year, month, day;     /* the local date of start */
	char zone[64];            /* "UTC+01:00 CET", of start */
	/* The zone's offset from UTC, in s, if it is the same at start and
	 * end (no daylight-saving change between): times then print by
	 * arithmetic, without the C library's time zone code. */
	bool fixed;
	long offset;
} cli_timectx;

/* Parse text as a time option (any form above); on a bad form report a
 * usage error naming opt and return -1. */
int cli_time_arg_parse(const char *cmd, const char *opt, const char *text,
		       cli_time_arg *out);

/* The time a parsed option names in the history of c: CLI_OK, or
 * CLI_FAIL after reporting (a time that does not exist, e.g. skipped by a
 * daylight-saving change, or out of the 64-bit nanosecond range). */
int cli_time_resolve(const cli_timectx *c, const char *opt,
		     const cli_time_arg *a, sht_time *out);

/* A duration: nanoseconds, or N[.F] with a unit s, ms, us or ns (an
 * optional "+" first); usage error and -1 if not. */
int cli_duration_parse(const char *cmd, const char *opt, const char *text,
		       sht_time *out);

/* "ns", "clock" or "relative". */
int cli_time_format_parse(const char *cmd, const char *opt, const char *s,
			  cli_time_format *out);

void cli_timectx_init(cli_timectx *c, sht_time start, sht_time end,
		      cli_time_format format);

/* t in c's format (always the exact nanosecond) into buf; returns buf.
 * 48 bytes always suffice. */
#define CLI_TIME_BUF 48
const char *cli_time_str(const cli_timectx *c, sht_time t, char *buf,
			 size_t size);
/* t in the given format, whatever c's. */
const char *cli_time_str_as(const cli_timectx *c, cli_time_format f,
			    sht_time t, char *buf, size_t size);

/* The line that says how times read in c's format ("# times: ..."), or
 * "" for nanoseconds. */
void cli_time_legend(const cli_timectx *c, char *buf, size_t size);

#endif /* SHT_CLI_TIMES_H */
