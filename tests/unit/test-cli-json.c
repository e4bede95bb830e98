/*
 * test-cli-json.c: the CLI's JSON output (src/cli/json.c, on jansson):
 * the streamed array's framing, strings of any bytes, doubles that read
 * back exactly, non-finite doubles as null, 64-bit integers.  Each text is
 * read back with jansson's parser and compared with what went in.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "cli/json.h"

/* The text a list of the given values makes (malloc'd). */
static char *list_text(json_t **v, size_t n, int *status)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cli_jlist l;

	if (!f)
		bail_out("open_memstream failed");
	cli_jlist_begin(&l, f);
	for (size_t i = 0; i < n; i++)
		cli_jlist_add(&l, v[i]);
	*status = cli_jlist_end(&l);
	fclose(f);
	return buf;
}

/* The text of one value, as the only element of a list, without the
 * framing "[\n" and "\n]\n". */
static char *one_text(json_t *v)
{
	int status;
	char *t = list_text(&v, 1, &status);
	size_t len = strlen(t);

	if (status != 0 || len < 5)
		bail_out("list of one failed: '%s'", t);
	memmove(t, t + 2, len - 2);
	t[len - 5] = '\0';
	return t;
}

static void test_framing(void)
{
	json_t *v[2];
	int status;
	char *t;

	t = list_text(NULL, 0, &status);
	is_str(t, "[]\n", "an empty list is [] and a newline");
	free(t);
	v[0] = json_object();
	cli_jset(v[0], "quark", cli_juint(3));
	cli_jset(v[0], "path", cli_jcstr("Threads/1"));
	cli_jset(v[0], "parent", cli_jcstr(NULL));
	v[1] = cli_jint(-7);
	t = list_text(v, 2, &status);
	is_int(status, 0, "a list of two ends well");
	is_str(t, "[\n{\"quark\":3,\"path\":\"Threads/1\",\"parent\":null},\n-7\n]\n",
	       "one element per line, compact, members in order");
	free(t);
}

/* The string of the JSON text t (one string value), or NULL. */
static json_t *parse(const char *t)
{
	json_error_t e;

	return json_loads(t, JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
}

static void test_strings(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *text;     /* what the output must be */
		const char *decoded;  /* what it must read back as */
		size_t dlen;
	} c[] = {
		{ "plain", 5, "\"plain\"", "plain", 5 },
		{ "q\"b\\s/", 6, "\"q\\\"b\\\\s/\"", "q\"b\\s/", 6 },
		/* jansson writes \u with upper-case hex digits. */
		{ "t\x01\n\x1f", 4, "\"t\\u0001\\n\\u001F\"", "t\x01\n\x1f", 4 },
		{ "a\0b", 3, "\"a\\u0000b\"", "a\0b", 3 },
		{ "\xc3\xa9t\xc3\xa9", 5, "\"\xc3\xa9t\xc3\xa9\"",
		  "\xc3\xa9t\xc3\xa9", 5 },
		/* Not UTF-8: the byte stands for U+00FF / U+0080 / U+00C3. */
		{ "x\xff", 2, "\"x\xc3\xbf\"", "x\xc3\xbf", 3 },
		{ "\x80\xc3", 2, "\"\xc2\x80\xc3\x83\"", "\xc2\x80\xc3\x83", 4 },
		/* An overlong form and a surrogate are not UTF-8 either. */
		{ "\xc0\xaf", 2, "\"\xc3\x80\xc2\xaf\"", "\xc3\x80\xc2\xaf", 4 },
		{ "\xed\xa0\x80", 3, "\"\xc3\xad\xc2\xa0\xc2\x80\"",
		  "\xc3\xad\xc2\xa0\xc2\x80", 6 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *t = one_text(cli_jstr(c[i].in, c[i].len));
		json_t *back = parse(t);

		is_str(t, c[i].text, "string %zu written as expected", i);
		ok(back && json_is_string(back) &&
		   json_string_length(back) == c[i].dlen &&
		   memcmp(json_string_value(back), c[i].decoded,
			  c[i].dlen) == 0,
		   "string %zu reads back as expected", i);
		json_decref(back);
		free(t);
	}
}

/* xorshift64*: the test's own sequence. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Random valid UTF-8 text reads back byte for byte; random bytes always
 * make a text jansson reads. */
static void test_random_strings(void)
{
	uint64_t s = 42;
	int bad_valid = 0, bad_any = 0;

	for (int round = 0; round < 2000; round++) {
		char buf[64];
		size_t len = 0;
		json_t *back;
		char *t;

		while (len < sizeof(buf) - 4) {
			uint32_t cp = (uint32_t)(next_rand(&s) % 0x110000u);

			if (cp >= 0xd800 && cp <= 0xdfff)
				continue;
			if (cp < 0x80) {
				buf[len++] = (char)cp;
			} else if (cp < 0x800) {
				buf[len++] = (char)(0xc0 | cp >> 6);
				buf[len++] = (char)(0x80 | (cp & 0x3f));
			} else if (cp < 0x10000) {
				buf[len++] = (char)(0xe0 | cp >> 12);
				buf[len++] = (char)(0x80 | (cp >> 6 & 0x3f));
				buf[len++] = (char)(0x80 | (cp & 0x3f));
			} else {
				buf[len++] = (char)(0xf0 | cp >> 18);
				buf[len++] = (char)(0x80 | (cp >> 12 & 0x3f));
				buf[len++] = (char)(0x80 | (cp >> 6 & 0x3f));
				buf[len++] = (char)(0x80 | (cp & 0x3f));
			}
		}
		t = one_text(cli_jstr(buf, len));
		back = parse(t);
		if (!back || json_string_length(back) != len ||
		    memcmp(json_string_value(back), buf, len) != 0)
			bad_valid++;
		json_decref(back);
		free(t);

		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (char)next_rand(&s);
		t = one_text(cli_jstr(buf, sizeof(buf)));
		back = parse(t);
		if (!back || !json_is_string(back))
			bad_any++;
		json_decref(back);
		free(t);
	}
	is_int(bad_valid, 0, "2000 random UTF-8 strings read back exactly");
	is_int(bad_any, 0, "2000 random byte strings make valid JSON");
}

static void test_numbers(void)
{
	char *t;
	uint64_t s = 7;
	int bad = 0;

	t = one_text(cli_jreal(0.1));
	is_str(t, "0.1", "0.1 with 15 digits");
	free(t);
	t = one_text(cli_jreal(2.0));
	is_str(t, "2.0", "an integral double keeps its point");
	free(t);
	t = one_text(cli_jreal(NAN));
	is_str(t, "null", "NaN is null");
	free(t);
	t = one_text(cli_jreal(INFINITY));
	is_str(t, "null", "+infinity is null");
	free(t);
	t = one_text(cli_jreal(-INFINITY));
	is_str(t, "null", "-infinity is null");
	free(t);
	t = one_text(cli_juint((uint64_t)INT64_MAX));
	is_str(t, "9223372036854775807", "INT64_MAX exactly");
	free(t);
	t = one_text(cli_jint(INT64_MIN));
	is_str(t, "-9223372036854775808", "INT64_MIN exactly");
	free(t);

	/* Random finite doubles read back exactly. */
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = next_rand(&s);
		double d;
		json_t *back;

		memcpy(&d, &bits, sizeof(d));
		if (!isfinite(d))
			continue;
		t = one_text(cli_jreal(d));
		back = parse(t);
		if (!back || !json_is_real(back) || json_real_value(back) != d) {
			if (bad++ < 5)
				diag("%.17g written as %s", d, t);
		}
		json_decref(back);
		free(t);
	}
	is_int(bad, 0, "20000 random doubles read back exactly");
}

int main(void)
{
	test_framing();
	test_strings();
	test_random_strings();
	test_numbers();
	return done_testing();
}
