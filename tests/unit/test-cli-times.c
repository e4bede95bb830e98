/*
 * test-cli-times.c: the CLI's time forms (src/cli/times.c): every printed
 * form reads back as the same nanosecond, in several time zones (UTC, a
 * half-hour offset, zones with daylight-saving changes) and across
 * days and DST changes; each input form gives the time it names, checked
 * against values computed here by hand; bad forms are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "cli/cli.h"

#define NS INT64_C(1000000000)

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

/* Parse and resolve text in c; -1 if refused. */
static int parse(const cli_timectx *c, const char *text, sht_time *out)
{
	cli_time_arg a;

	if (cli_time_arg_parse("test", "--at", text, &a) < 0)
		return -1;
	return cli_time_resolve(c, "--at", &a, out) == CLI_OK ? 0 : -1;
}

/* Random times over [start, start + span], printed in each format and
 * read back. */
static void round_trip(const char *tz, sht_time start, int64_t span)
{
	int bad = 0, dated = 0, as_ns = 0;

	set_tz(tz);
	for (int i = 0; i < 4000; i++) {
		cli_timectx c;
		sht_time t = start + (sht_time)(next() % (uint64_t)span), back;
		char buf[CLI_TIME_BUF];

		if (i % 7 == 0)
			t = start + (sht_time)(next() % 4) * (span / 3);
		for (int f = CLI_TIME_NS; f <= CLI_TIME_RELATIVE; f++) {
			cli_timectx_init(&c, start, start + span, (cli_time_format)f);
			cli_time_str(&c, t, buf, sizeof buf);
			dated += f == CLI_TIME_CLOCK && strchr(buf, '-') != NULL;
			as_ns += f == CLI_TIME_CLOCK && !strchr(buf, ':');
			if (parse(&c, buf, &back) < 0 || back != t) {
				if (bad++ < 5)
					diag("%s: %lld printed '%s' read back %lld",
					     tz, (long long)t, buf, (long long)back);
			}
		}
	}
	is_int(bad, 0, "%s: 4000 times x 3 formats read back exactly", tz);
	if (span > 2 * 86400 * NS)
		ok(dated > 0, "%s: later days print their date (%d)", tz, dated);
	(void)as_ns;
}

/* The forms against hand-computed times (TZ=UTC, then +05:30). */
static void forms(void)
{
	cli_timectx c;
	/* 2016-03-04 17:46:22.794565804 UTC */
	sht_time start = INT64_C(1457113582794565804), t;

	set_tz("UTC");
	cli_timectx_init(&c, start, start + 5 * NS, CLI_TIME_NS);
	ok(parse(&c, "1457113583000000000", &t) == 0 && t == INT64_C(1457113583000000000), "ns");
	ok(parse(&c, "-5", &t) == 0 && t == -5, "negative ns");
	ok(parse(&c, "17:46:23", &t) == 0 && t == INT64_C(1457113583000000000), "HH:MM:SS");
	ok(parse(&c, "17:46:23.5", &t) == 0 && t == INT64_C(1457113583500000000), "one fraction digit");
	ok(parse(&c, "17:46:22.794565804", &t) == 0 && t == start, "nine fraction digits");
	ok(parse(&c, "9:00:00", &t) == 0 && t == INT64_C(1457082000000000000), "H:MM:SS");
	ok(parse(&c, "2016-03-05 00:00:01.25", &t) == 0 && t == INT64_C(1457136001250000000), "date and time");
	ok(parse(&c, "2016-03-05T00:00:01", &t) == 0 && t == INT64_C(1457136001000000000), "date T time");
	ok(parse(&c, "+1.5s", &t) == 0 && t == start + 1500000000, "+1.5s");
	ok(parse(&c, "+120ms", &t) == 0 && t == start + 120000000, "+120ms");
	ok(parse(&c, "+7us", &t) == 0 && t == start + 7000, "+7us");
	ok(parse(&c, "+42ns", &t) == 0 && t == start + 42, "+42ns");
	ok(parse(&c, "+1.234567890 s", &t) == 0 && t == start + 1234567890, "+S.N s with a space");
	ok(parse(&c, "+0.000001000000 s", &t) == 0 && t == start + 1000, "trailing zeros past ns");
	ok(parse(&c, "+2.5ms", &t) == 0 && t == start + 2500000, "+2.5ms");
	ok(parse(&c, "start", &t) == 0 && t == start, "start");
	ok(parse(&c, "end", &t) == 0 && t == start + 5 * NS, "end");
	set_tz("Asia/Kolkata");
	cli_timectx_init(&c, start, start + 5 * NS, CLI_TIME_NS);
	ok(parse(&c, "23:16:23", &t) == 0 && t == INT64_C(1457113583000000000),
	   "a time of day in UTC+05:30");
	ok(strstr(c.zone, "+05:30") != NULL, "the zone says +05:30: %s", c.zone);
}

static void refused(void)
{
	static const char *const bad[] = {
		"", "abc", "25:00:00", "12:60:00", "12:00", "12:00:00.", "12:00:00.1234567890",
		"+1.5", "+s", "+1.0000000001s", "+-1s", "+1 h", "2016-13-01 00:00:00",
		"2016-02-30", "1.5", "0x10", "99999999999999999999", "+99999999999s",
		"starts", " 5", "5 ",
	};
	cli_timectx c;
	int accepted = 0;
	sht_time t;

	set_tz("UTC");
	cli_timectx_init(&c, 0, NS, CLI_TIME_NS);
	fclose(stderr);           /* the usage messages */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse(&c, bad[i], &t) == 0) {
			accepted++;
			diag("accepted '%s' as %lld", bad[i], (long long)t);
		}
	is_int(accepted, 0, "%zu malformed times refused", sizeof bad / sizeof bad[0]);
}

/* A local time that does not exist (the hour skipped at a DST change) is
 * refused; one that exists twice prints as ns, exactly. */
static void dst(void)
{
	cli_timectx c;
	sht_time t;
	char buf[CLI_TIME_BUF];
	/* 2016-03-27 00:00 UTC; Paris skips 02:00-03:00 local that day. */
	sht_time start = INT64_C(1459036800) * NS;

	set_tz("Europe/Paris");
	cli_timectx_init(&c, start, start + 86400 * NS, CLI_TIME_CLOCK);
	ok(parse(&c, "02:30:00", &t) < 0, "02:30 on the day Paris skips it is refused");
	ok(parse(&c, "03:30:00", &t) == 0 && t == start + (int64_t)5400 * NS,
	   "03:30 CEST is 01:30 UTC");
	/* New York repeats 01:00-02:00 on 2016-11-06 (05:00-07:00 UTC). */
	set_tz("America/New_York");
	start = INT64_C(1478404800) * NS;  /* 2016-11-06 04:00 UTC */
	cli_timectx_init(&c, start, start + 4 * 3600 * NS, CLI_TIME_CLOCK);
	t = start + (int64_t)(2 * 3600 + 15 * 60) * NS;   /* 06:15 UTC, 01:15 EST */
	cli_time_str(&c, t, buf, sizeof buf);
	{
		sht_time back;

		ok(parse(&c, buf, &back) == 0 && back == t,
		   "a repeated local time prints so that it reads back (%s)", buf);
	}
}

int main(void)
{
	forms();
	round_trip("UTC", INT64_C(1457113582794565804), 3 * 3600 * NS);
	round_trip("Asia/Kolkata", INT64_C(1457113582794565804), 86400 * NS / 2);
	round_trip("Europe/Paris", INT64_C(1459036800) * NS, 3 * 86400 * NS);
	round_trip("America/New_York", INT64_C(1478300000) * NS, 4 * 86400 * NS);
	round_trip("UTC", 0, 1000);
	round_trip("UTC", -INT64_C(86400) * NS, 2 * 86400 * NS);
	dst();
	refused();
	return done_testing();
}
