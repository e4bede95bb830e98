/*
 * json.c: the CLI's streaming JSON writer (see json.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

void json_init(json_writer *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
}

/* Separator before a value: a comma after a previous element, a newline
 * in a one-per-line array, nothing after a key. */
static void json_before_value(json_writer *w)
{
	int d = w->depth - 1;

	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (d < 0 || d >= JSON_MAX_DEPTH)
		return;
	if (w->count[d])
		fputc(',', w->f);
	w->count[d] = 1;
	if (w->lines[d])
		fputc('\n', w->f);
}

static void json_open(json_writer *w, char c, int lines)
{
	json_before_value(w);
	fputc(c, w->f);
	if (w->depth < JSON_MAX_DEPTH) {
		w->count[w->depth] = 0;
		w->lines[w->depth] = (unsigned char)lines;
	}
	w->depth++;
}

static void json_close(json_writer *w, char c)
{
	w->depth--;
	if (w->depth < JSON_MAX_DEPTH && w->lines[w->depth] &&
	    w->count[w->depth])
		fputc('\n', w->f);
	fputc(c, w->f);
}

void json_object_begin(json_writer *w)
{
	json_open(w, '{', 0);
}

void json_object_end(json_writer *w)
{
	json_close(w, '}');
}

void json_array_begin(json_writer *w)
{
	json_open(w, '[', 0);
}

void json_array_begin_lines(json_writer *w)
{
	json_open(w, '[', 1);
}

void json_array_end(json_writer *w)
{
	json_close(w, ']');
}

void json_key(json_writer *w, const char *key)
{
	json_before_value(w);
	json_write_quoted(w->f, key, strlen(key));
	fputc(':', w->f);
	w->after_key = 1;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes there
 * are not one (overlong forms, surrogates and code points above U+10FFFF
 * are invalid). */
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

/* One ASCII byte, escaped as JSON requires. */
static void json_put_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':  fputs("\\\"", f); return;
	case '\\': fputs("\\\\", f); return;
	case '\b': fputs("\\b", f); return;
	case '\f': fputs("\\f", f); return;
	case '\n': fputs("\\n", f); return;
	case '\r': fputs("\\r", f); return;
	case '\t': fputs("\\t", f); return;
	default:
		break;
	}
	if (c < 0x20 || c == 0x7f)
		fprintf(f, "\\u%04x", c);
	else
		fputc(c, f);
}

/* Printable ASCII that needs no escape. */
static int json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

void json_write_quoted(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	fputc('"', f);
	while (i < len) {
		size_t n;

		/* A run of plain bytes in one write (names, paths, keys). */
		for (n = 0; i + n < len && json_plain(p[i + n]); n++)
			;
		if (n > 0) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		n = utf8_seq_len(p + i, len - i);

		if (n == 1) {
			json_put_ascii(f, p[i]);
		} else if (n > 1) {
			fwrite(p + i, 1, n, f);
		} else {
			fprintf(f, "\\u%04x", p[i]);   /* not UTF-8 */
			n = 1;
		}
		i += n;
	}
	fputc('"', f);
}

void json_string(json_writer *w, const char *s, size_t len)
{
	json_before_value(w);
	json_write_quoted(w->f, s, len);
}

void json_cstring(json_writer *w, const char *s)
{
	json_string(w, s, strlen(s));
}

/* A JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)? (no exponent needed). */
static int json_number_ok(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return 0;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return 0;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

void json_number_text(json_writer *w, const char *digits)
{
	json_before_value(w);
	if (json_number_ok(digits))
		fputs(digits, w->f);
	else
		json_write_quoted(w->f, digits, strlen(digits));
}

void json_int(json_writer *w, int64_t x)
{
	json_before_value(w);
	fprintf(w->f, "%lld", (long long)x);
}

void json_uint(json_writer *w, uint64_t x)
{
	json_before_value(w);
	fprintf(w->f, "%llu", (unsigned long long)x);
}

void json_double(json_writer *w, double x)
{
	if (isnan(x)) {
		json_cstring(w, "NaN");
	} else if (isinf(x)) {
		json_cstring(w, x > 0 ? "Infinity" : "-Infinity");
	} else {
		char buf[32];

		/* The shortest of 15 or 17 digits that reads back exactly. */
		snprintf(buf, sizeof(buf), "%.15g", x);
		if (strtod(buf, NULL) != x)
			snprintf(buf, sizeof(buf), "%.17g", x);
		json_before_value(w);
		fputs(buf, w->f);
	}
}

void json_bool(json_writer *w, int x)
{
	json_before_value(w);
	fputs(x ? "true" : "false", w->f);
}

void json_null(json_writer *w)
{
	json_before_value(w);
	fputs("null", w->f);
}

void json_kv_string(json_writer *w, const char *key, const char *s)
{
	json_key(w, key);
	json_cstring(w, s);
}

void json_kv_int(json_writer *w, const char *key, int64_t x)
{
	json_key(w, key);
	json_int(w, x);
}

void json_kv_uint(json_writer *w, const char *key, uint64_t x)
{
	json_key(w, key);
	json_uint(w, x);
}

void json_kv_double(json_writer *w, const char *key, double x)
{
	json_key(w, key);
	json_double(w, x);
}
