/*
 * times.c: the CLI's time forms (see times.h): parsing every form a time
 * option accepts, and printing times as nanoseconds, times of day or
 * offsets from the history's start, exactly.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "times.h"

#define NS_PER_S INT64_C(1000000000)

/* ---- parsing ----------------------------------------------------------- */

static int bad_time(const char *cmd, const char *opt, const char *s,
		    const char *why)
{
	cli_usage_error(cmd, "invalid time '%s' for %s: %s", s, opt, why);
	return -1;
}

/* Exactly n digits at *p (advanced) into *out. */
static int digits(const char **p, int n, int *out)
{
	int x = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		x = x * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = x;
	return 0;
}

/* ".ddd" (1 to 9 digits) at *p, if there, as nanoseconds; -1 if more
 * than 9 digits or none after the point. */
static int fraction_ns(const char **p, int64_t *out)
{
	int64_t x = 0;
	int n = 0;

	*out = 0;
	if (**p != '.')
		return 0;
	(*p)++;
	while (isdigit((unsigned char)**p)) {
		if (++n > 9)
			return -1;
		x = x * 10 + (**p - '0');
		(*p)++;
	}
	if (n == 0)
		return -1;
	while (n++ < 9)
		x *= 10;
	*out = x;
	return 0;
}

/* "H:MM:SS[.f]" or "HH:MM:SS[.f]" at p, to the end. */
static int parse_clock(const char *p, int64_t *ns_of_day)
{
	int h, m, s;
	int64_t frac;

	if (digits(&p, isdigit((unsigned char)p[1]) ? 2 : 1, &h) < 0 ||
	    *p++ != ':' || digits(&p, 2, &m) < 0 || *p++ != ':' ||
	    digits(&p, 2, &s) < 0 || fraction_ns(&p, &frac) < 0 || *p != '\0')
		return -1;
	if (h > 23 || m > 59 || s > 59)
		return -1;
	*ns_of_day = ((int64_t)h * 3600 + m * 60 + s) * NS_PER_S + frac;
	return 0;
}

/* "YYYY-MM-DD HH:MM:SS[.f]" (or with "T"). */
static int parse_date_clock(const char *p, cli_time_arg *a)
{
	if (digits(&p, 4, &a->year) < 0 || *p++ != '-' ||
	    digits(&p, 2, &a->month) < 0 || *p++ != '-' ||
	    digits(&p, 2, &a->day) < 0 || (*p != ' ' && *p != 'T'))
		return -1;
	if (a->month < 1 || a->month > 12 || a->day < 1 || a->day > 31)
		return -1;
	a->have_date = true;
	return parse_clock(p + 1, &a->ns);
}

/* A unit's nanoseconds: "s", "ms", "us", "ns" (the whole rest of p). */
static int64_t unit_ns(const char *p)
{
	while (*p == ' ')
		p++;
	if (strcmp(p, "s") == 0)
		return NS_PER_S;
	if (strcmp(p, "ms") == 0)
		return 1000000;
	if (strcmp(p, "us") == 0)
		return 1000;
	if (strcmp(p, "ns") == 0)
		return 1;
	return 0;
}

/* "+N[.F] UNIT": an exact duration in ns, or -1 with *why set. */
static int parse_duration(const char *p, int64_t *out, const char **why)
{
	int64_t whole = 0, unit, frac = 0, scale = 1;
	int nd = 0;

	*why = "a duration is +N[.F] then s, ms, us or ns (e.g. +1.5s)";
	while (isdigit((unsigned char)*p)) {
		if (whole > (INT64_MAX - 9) / 10)
			return *why = "out of range", -1;
		whole = whole * 10 + (*p++ - '0');
		nd++;
	}
	if (nd == 0)
		return -1;
	if (*p == '.') {
		p++;
		for (nd = 0; isdigit((unsigned char)*p); nd++, p++) {
			if (nd >= 18)
				return *why = "too many digits", -1;
			frac = frac * 10 + (*p - '0');
			scale *= 10;
		}
		if (nd == 0)
			return -1;
	}
	unit = unit_ns(p);
	if (unit == 0)
		return -1;
	while (scale > 1 && frac % 10 == 0) {
		frac /= 10;
		scale /= 10;
	}
	/* The last digit is not 0: exact only if scale divides unit. */
	if (scale > unit)
		return *why = "finer than a nanosecond", -1;
	if (whole > (INT64_MAX - frac * unit / scale) / unit)
		return *why = "out of range", -1;
	*out = whole * unit + frac * unit / scale;
	return 0;
}

int cli_time_arg_parse(const char *cmd, const char *opt, const char *text,
		       cli_time_arg *out)
{
	const char *why = "expected nanoseconds, HH:MM:SS[.F], "
			  "YYYY-MM-DD HH:MM:SS[.F], +DURATION, start or end";
	int64_t x;

	memset(out, 0, sizeof(*out));
	out->text = text;
	if (strcmp(text, "start") == 0) {
		out->kind = CLI_T_START;
	} else if (strcmp(text, "end") == 0) {
		out->kind = CLI_T_END;
	} else if (text[0] == '+') {
		out->kind = CLI_T_REL;
		if (parse_duration(text + 1, &out->ns, &why) < 0)
			return bad_time(cmd, opt, text, why);
	} else if (strchr(text, ':')) {
		out->kind = CLI_T_CLOCK;
		if ((strchr(text, '-') ? parse_date_clock(text, out)
				       : parse_clock(text, &out->ns)) < 0)
			return bad_time(cmd, opt, text, why);
	} else {
		out->kind = CLI_T_NS;
		if (!isdigit((unsigned char)text[text[0] == '-']))
			return bad_time(cmd, opt, text, why);
		if (cli_parse_i64(cmd, opt, text, SHT_TIME_MIN, SHT_TIME_MAX,
				  &x) < 0)
			return -1;
		out->ns = x;
	}
	return 0;
}

int cli_duration_parse(const char *cmd, const char *opt, const char *text,
		       sht_time *out)
{
	const char *why;
	const char *p = text[0] == '+' ? text + 1 : text;
	size_t n = strspn(p, "0123456789");
	int64_t x;

	if (n > 0 && p[n] == '\0' && p == text) {
		if (cli_parse_i64(cmd, opt, text, 0, SHT_TIME_MAX, &x) < 0)
			return -1;
		*out = x;
		return 0;
	}
	if (parse_duration(p, &x, &why) < 0)
		return cli_usage_error(cmd, "invalid duration '%s' for %s: %s",
				       text, opt, why), -1;
	*out = x;
	return 0;
}

int cli_time_format_parse(const char *cmd, const char *opt, const char *s,
			  cli_time_format *out)
{
	if (strcmp(s, "ns") == 0)
		*out = CLI_TIME_NS;
	else if (strcmp(s, "clock") == 0)
		*out = CLI_TIME_CLOCK;
	else if (strcmp(s, "relative") == 0)
		*out = CLI_TIME_RELATIVE;
	else
		return cli_usage_error(cmd, "invalid value '%s' for %s: "
				       "expected 'ns', 'clock' or 'relative'",
				       s, opt), -1;
	return 0;
}

/* ---- the local calendar ------------------------------------------------ */

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The local calendar time of t (false if out of the C library's range);
 * *ns the nanoseconds within the second. */
static bool local_tm(sht_time t, struct tm *tm, int64_t *ns)
{
	int64_t sec = floor_div(t, NS_PER_S);
	time_t s = (time_t)sec;

	*ns = t - sec * NS_PER_S;
	return localtime_r(&s, tm) != NULL;
}

/* Local date and time of day (ns into the day) to a time: false if that
 * local time does not exist (a daylight-saving gap) or is out of range. */
static bool local_to_time(int y, int mo, int d, int64_t ns_of_day,
			  sht_time *out)
{
	int64_t secs = ns_of_day / NS_PER_S;
	struct tm tm;
	time_t s;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = (int)(secs / 3600);
	tm.tm_min = (int)(secs / 60 % 60);
	tm.tm_sec = (int)(secs % 60);
	tm.tm_isdst = -1;
	s = mktime(&tm);
	if (tm.tm_year != y - 1900 || tm.tm_mon != mo - 1 || tm.tm_mday != d ||
	    tm.tm_hour != (int)(secs / 3600) || tm.tm_min != (int)(secs / 60 % 60) ||
	    tm.tm_sec != (int)(secs % 60))
		return false;
	if ((int64_t)s > INT64_MAX / NS_PER_S - 1 ||
	    (int64_t)s < INT64_MIN / NS_PER_S + 1)
		return false;
	*out = (int64_t)s * NS_PER_S + ns_of_day % NS_PER_S;
	return true;
}

/* Is the zone's offset the same at every hour between a and b (at most a
 * day apart: beyond, the fast path is not worth checking)? */
static bool same_offset_between(sht_time a, sht_time b, long offset)
{
	struct tm tm;
	int64_t ns;

	if (b < a || b - a > 86400 * NS_PER_S)
		return false;
	for (sht_time t = a; t < b; t += 3600 * NS_PER_S)
		if (!local_tm(t, &tm, &ns) || tm.tm_gmtoff != offset)
			return false;
	return true;
}

/* The civil date of a day count since 1970-01-01 (proleptic Gregorian). */
static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
	int64_t era, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	yoe = z - era * 146097;
	yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
	doy = z - era * 146097 - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* The fast clock form, for a zone with one offset over the history: the
 * local time is t + offset, exactly. */
static const char *print_clock_fixed(const cli_timectx *c, sht_time t,
				     char *buf, size_t size)
{
	int64_t sec = floor_div(t, NS_PER_S), ns = t - sec * NS_PER_S;
	int64_t local = sec + c->offset, day = floor_div(local, 86400);
	int64_t sod = local - day * 86400;
	int y, m, d;

	civil_from_days(day, &y, &m, &d);
	if (y == c->year && m == c->month && d == c->day)
		snprintf(buf, size, "%02d:%02d:%02d.%09" PRId64,
			 (int)(sod / 3600), (int)(sod / 60 % 60),
			 (int)(sod % 60), ns);
	else
		snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d.%09" PRId64,
			 y, m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
			 (int)(sod % 60), ns);
	return buf;
}

void cli_timectx_init(cli_timectx *c, sht_time start, sht_time end,
		      cli_time_format format)
{
	struct tm tm;
	int64_t ns;

	memset(c, 0, sizeof(*c));
	c->start = start;
	c->end = end;
	c->format = format;
	if (!local_tm(start, &tm, &ns)) {
		c->year = 1970, c->month = 1, c->day = 1;
		snprintf(c->zone, sizeof(c->zone), "UTC");
		return;
	}
	c->year = tm.tm_year + 1900;
	c->month = tm.tm_mon + 1;
	c->day = tm.tm_mday;
	snprintf(c->zone, sizeof(c->zone), "UTC%c%02ld:%02ld %s",
		 tm.tm_gmtoff < 0 ? '-' : '+', labs(tm.tm_gmtoff) / 3600,
		 labs(tm.tm_gmtoff) / 60 % 60, tm.tm_zone ? tm.tm_zone : "");
	c->offset = tm.tm_gmtoff;
	c->fixed = local_tm(end, &tm, &ns) && tm.tm_gmtoff == c->offset &&
		   same_offset_between(start, end, c->offset);
}

int cli_time_resolve(const cli_timectx *c, const char *opt,
		     const cli_time_arg *a, sht_time *out)
{
	switch (a->kind) {
	case CLI_T_NS:
		*out = a->ns;
		return CLI_OK;
	case CLI_T_START:
		*out = c->start;
		return CLI_OK;
	case CLI_T_END:
		*out = c->end;
		return CLI_OK;
	case CLI_T_REL:
		if (c->start > INT64_MAX - a->ns)
			return cli_error("%s %s: past the last representable "
					 "time", opt, a->text);
		*out = c->start + a->ns;
		return CLI_OK;
	case CLI_T_CLOCK:
		break;
	}
	if (!local_to_time(a->have_date ? a->year : c->year,
			   a->have_date ? a->month : c->month,
			   a->have_date ? a->day : c->day, a->ns, out))
		return cli_error("%s %s: no such local time on %04d-%02d-%02d "
				 "(%s)", opt, a->text,
				 a->have_date ? a->year : c->year,
				 a->have_date ? a->month : c->month,
				 a->have_date ? a->day : c->day, c->zone);
	return CLI_OK;
}

/* ---- printing ---------------------------------------------------------- */

static const char *print_ns(sht_time t, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRId64, t);
	return buf;
}

/* A time of day, with the date if not the history's first day; the
 * nanoseconds if the text would not read back exactly (the repeated hour
 * of a daylight-saving change). */
static const char *print_clock(const cli_timectx *c, sht_time t, char *buf,
			       size_t size)
{
	struct tm tm;
	int64_t ns;
	sht_time back;
	bool same_day;

	if (c->fixed && t >= c->start && t <= c->end)
		return print_clock_fixed(c, t, buf, size);
	if (!local_tm(t, &tm, &ns))
		return print_ns(t, buf, size);
	same_day = tm.tm_year + 1900 == c->year && tm.tm_mon + 1 == c->month &&
		   tm.tm_mday == c->day;
	if (!local_to_time(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			   ((int64_t)tm.tm_hour * 3600 + tm.tm_min * 60 +
			    tm.tm_sec) * NS_PER_S + ns, &back) || back != t)
		return print_ns(t, buf, size);
	if (same_day)
		snprintf(buf, size, "%02d:%02d:%02d.%09" PRId64, tm.tm_hour,
			 tm.tm_min, tm.tm_sec, ns);
	else
		snprintf(buf, size, "%04d-%02d-%02d %02d:%02d:%02d.%09" PRId64,
			 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
			 tm.tm_hour, tm.tm_min, tm.tm_sec, ns);
	return buf;
}

/* "+S.nnnnnnnnn s" after the start; the nanoseconds before the start. */
static const char *print_relative(const cli_timectx *c, sht_time t,
				  char *buf, size_t size)
{
	int64_t d;

	if (t < c->start || (c->start < 0 && t > INT64_MAX + c->start))
		return print_ns(t, buf, size);
	d = t - c->start;
	snprintf(buf, size, "+%" PRId64 ".%09" PRId64 " s", d / NS_PER_S,
		 d % NS_PER_S);
	return buf;
}

const char *cli_time_str_as(const cli_timectx *c, cli_time_format f,
			    sht_time t, char *buf, size_t size)
{
	switch (f) {
	case CLI_TIME_CLOCK:
		return print_clock(c, t, buf, size);
	case CLI_TIME_RELATIVE:
		return print_relative(c, t, buf, size);
	case CLI_TIME_NS:
		break;
	}
	return print_ns(t, buf, size);
}

const char *cli_time_str(const cli_timectx *c, sht_time t, char *buf,
			 size_t size)
{
	return cli_time_str_as(c, c->format, t, buf, size);
}

void cli_time_legend(const cli_timectx *c, char *buf, size_t size)
{
	char clock[CLI_TIME_BUF];

	switch (c->format) {
	case CLI_TIME_CLOCK:
		snprintf(buf, size, "# times: time of day on %04d-%02d-%02d "
			 "(the date first on later days), %s", c->year,
			 c->month, c->day, c->zone);
		return;
	case CLI_TIME_RELATIVE:
		snprintf(buf, size, "# times: seconds after the history's "
			 "start, %" PRId64 " = %s on %04d-%02d-%02d, %s",
			 c->start, print_clock(c, c->start, clock,
					       sizeof(clock)),
			 c->year, c->month, c->day, c->zone);
		return;
	case CLI_TIME_NS:
		break;
	}
	buf[0] = '\0';
}
