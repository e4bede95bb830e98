/*
 * json.c: the CLI's JSON output through jansson (see json.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* An allocation failed since the last print: the output would be
 * incomplete. */
static bool json_lost;

/* ---- strings ----------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there
 * are not one (overlong forms, surrogates and code points above U+10FFFF
 * are invalid, as jansson also says). */
static size_t utf8_seq_len(const unsigned char *s, size_t left)
{
	unsigned char c = s[0];
	size_t n;
	uint32_t cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, cp = c & 0x1fu, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, cp = c & 0x0fu, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, cp = c & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0u) != 0x80u)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffffu || (cp >= 0xd800u && cp <= 0xdfffu))
		return 0;
	return n;
}

/* s with each byte outside valid UTF-8 replaced by the UTF-8 form of the
 * code point of the same number (malloc'd, *out_len bytes), or NULL. */
static char *utf8_repair(const unsigned char *s, size_t len, size_t *out_len)
{
	char *buf = malloc(len * 2u + 1u);
	size_t i = 0, o = 0;

	if (!buf)
		return NULL;
	while (i < len) {
		size_t n = utf8_seq_len(s + i, len - i);

		if (n > 0) {
			memcpy(buf + o, s + i, n);
			o += n;
			i += n;
			continue;
		}
		buf[o++] = (char)(0xc0u | (s[i] >> 6));
		buf[o++] = (char)(0x80u | (s[i] & 0x3fu));
		i++;
	}
	*out_len = o;
	return buf;
}

static bool utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_seq_len(s + i, len - i);

		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

static json_t *lost(json_t *v)
{
	if (!v)
		json_lost = true;
	return v;
}

json_t *cli_jstr(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	char *fixed;
	json_t *v;

	if (utf8_valid(p, len))
		return lost(json_stringn_nocheck(s, len));
	fixed = utf8_repair(p, len, &n);
	if (!fixed)
		return lost(NULL);
	v = json_stringn_nocheck(fixed, n);
	free(fixed);
	return lost(v);
}

int cli_jstr_set(json_t *str, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	char *fixed;
	int rc;

	if (utf8_valid(p, len))
		return json_string_setn_nocheck(str, s, len);
	fixed = utf8_repair(p, len, &n);
	if (!fixed) {
		json_lost = true;
		return -1;
	}
	rc = json_string_setn_nocheck(str, fixed, n);
	free(fixed);
	return rc;
}

json_t *cli_jcstr(const char *s)
{
	if (!s)
		return lost(json_null());
	return cli_jstr(s, strlen(s));
}

/* ---- numbers and the rest ---------------------------------------------- */

json_t *cli_jint(int64_t x)
{
	return lost(json_integer((json_int_t)x));
}

json_t *cli_juint(uint64_t x)
{
	if (x > (uint64_t)INT64_MAX)
		return lost(json_real((double)x));
	return lost(json_integer((json_int_t)x));
}

json_t *cli_jreal(double x)
{
	if (!isfinite(x))
		return lost(json_null());
	return lost(json_real(x));
}

json_t *cli_jbool(bool x)
{
	return lost(json_boolean(x));
}

void cli_jset(json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) < 0)
		json_lost = true;
}

void cli_jappend(json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) < 0)
		json_lost = true;
}

/* ---- dumping ----------------------------------------------------------- */

/* 1 if %.15g does not read back as x. */
static bool real_needs_17(double x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.15g", x);
	return strtod(buf, NULL) != x;
}

/* 1 if a double in v needs 17 significant digits. */
static bool needs_17(json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_REAL:
		return real_needs_17(json_real_value(v));
	case JSON_OBJECT:
		json_object_foreach(v, key, x)
			if (needs_17(x))
				return true;
		return false;
	case JSON_ARRAY:
		json_array_foreach(v, i, x)
			if (needs_17(x))
				return true;
		return false;
	default:
		return false;
	}
}

/* cli_jdecimal's marker: control characters that no other output of the
 * CLI starts a string with, as jansson escapes them. */
#define DEC_MARK "\x01\x02#"
#define DEC_MARK_DUMPED "\"\\u0001\\u0002#"

/* A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)? */
static bool number_ok(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

json_t *cli_jdecimal(const char *digits)
{
	char buf[256];

	if (!number_ok(digits) || strlen(digits) > sizeof buf - 8)
		return cli_jcstr(digits);
	snprintf(buf, sizeof buf, DEC_MARK "%s", digits);
	return cli_jcstr(buf);
}

/* Replace each dumped marker string "\u0001\u0002#DIGITS" by DIGITS in
 * the n bytes of b; the new length. */
static size_t unmark_decimals(char *b, size_t n)
{
	size_t m = strlen(DEC_MARK_DUMPED), w = 0;

	for (size_t r = 0; r < n;) {
		if (n - r > m && memcmp(b + r, DEC_MARK_DUMPED, m) == 0) {
			r += m;
			while (r < n && b[r] != '"')
				b[w++] = b[r++];
			r++;                 /* the closing quote */
		} else {
			b[w++] = b[r++];
		}
	}
	return w;
}

/* The text of the last dump: json_dumpb into a buffer kept between
 * dumps, then one fwrite (json_dumpf calls fwrite for every token, which
 * made `sht query --json` three times slower). */
static struct {
	char *buf;
	size_t cap;
} dump_text;

/* Dump v to f; false if out of memory or jansson refused (it cannot for
 * the values built here: strings are valid UTF-8, reals finite). */
static bool dump(json_t *v, FILE *f)
{
	size_t flags = JSON_COMPACT | JSON_ENCODE_ANY |
		       JSON_REAL_PRECISION(needs_17(v) ? 17 : 15);
	size_t n = json_dumpb(v, dump_text.buf, dump_text.cap, flags);

	if (n == 0)
		return false;
	if (n > dump_text.cap) {
		size_t cap = n < 4096u ? 4096u : n;
		char *b = realloc(dump_text.buf, cap);

		if (!b)
			return false;
		dump_text.buf = b;
		dump_text.cap = cap;
		n = json_dumpb(v, b, cap, flags);
		if (n == 0 || n > cap)
			return false;
	}
	n = unmark_decimals(dump_text.buf, n);
	fwrite(dump_text.buf, 1, n, f);
	return true;
}

/* Report a lost output and clear the mark: CLI_FAIL. */
static int report_lost(void)
{
	json_lost = false;
	return cli_error("cannot format the JSON output: out of memory");
}

int cli_json_print(json_t *v)
{
	int status = CLI_OK;

	if (!v || json_lost) {
		status = report_lost();
	} else if (!dump(v, stdout)) {
		status = cli_error("cannot format the JSON output");
	} else {
		fputc('\n', stdout);
	}
	json_decref(v);
	return status;
}

void cli_jlist_begin(cli_jlist *l, FILE *f)
{
	l->f = f;
	l->count = 0;
	l->failed = false;
	fputc('[', f);
}

void cli_jlist_put(cli_jlist *l, json_t *v)
{
	if (!v || json_lost || l->failed) {
		l->failed = true;
		return;
	}
	if (l->count > 0)
		fputc(',', l->f);
	fputc('\n', l->f);
	if (!dump(v, l->f))
		l->failed = true;
	l->count++;
}

void cli_jlist_add(cli_jlist *l, json_t *v)
{
	cli_jlist_put(l, v);
	json_decref(v);
}

int cli_jlist_end(cli_jlist *l)
{
	if (l->count > 0)
		fputc('\n', l->f);
	fputs("]\n", l->f);
	if (l->failed)
		return report_lost();
	return CLI_OK;
}

void cli_json_fquote(FILE *f, const char *s, size_t len)
{
	json_t *v = cli_jstr(s, len);

	if (!v || !dump(v, f)) {
		json_lost = true;     /* cli_finish_output fails */
		fputs("\"?\"", f);
	}
	json_decref(v);
}

int cli_json_check_lost(void)
{
	return json_lost ? report_lost() : CLI_OK;
}
