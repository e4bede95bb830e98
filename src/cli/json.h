/*
 * json.h: a tiny streaming JSON writer for the CLI's --json output.
 *
 * The writer inserts the commas and the ':' itself: call json_key before
 * each member value of an object, and the value functions in order.
 * Strings are bytes of any content: valid UTF-8 passes through, quotes,
 * backslashes and control characters are escaped, and every byte that is
 * not part of a valid UTF-8 sequence is written as \u00XX.  Non-finite
 * doubles, which JSON cannot represent, are written as the strings "NaN",
 * "Infinity" and "-Infinity".
 */
#ifndef SHT_CLI_JSON_H
#define SHT_CLI_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
	FILE *f;                        /* where the text goes */
	int depth;                      /* open containers */
	unsigned char count[JSON_MAX_DEPTH]; /* 1 once an element is written */
	unsigned char lines[JSON_MAX_DEPTH]; /* 1: one element per line */
	int after_key;                  /* a key was written, value next */
} json_writer;

void json_init(json_writer *w, FILE *f);

void json_object_begin(json_writer *w);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w);
/* An array written with one element per line (long result lists). */
void json_array_begin_lines(json_writer *w);
void json_array_end(json_writer *w);

void json_key(json_writer *w, const char *key);

void json_string(json_writer *w, const char *s, size_t len);
void json_cstring(json_writer *w, const char *s);
void json_int(json_writer *w, int64_t x);
void json_uint(json_writer *w, uint64_t x);
void json_double(json_writer *w, double x);
void json_bool(json_writer *w, int x);
/* A number given as decimal text, written as is with all its digits
 * (a decimal too long for a double); text that is not a plain JSON
 * number is written as a string. */
void json_number_text(json_writer *w, const char *digits);
void json_null(json_writer *w);

/* Members: json_key then the value. */
void json_kv_string(json_writer *w, const char *key, const char *s);
void json_kv_int(json_writer *w, const char *key, int64_t x);
void json_kv_uint(json_writer *w, const char *key, uint64_t x);
void json_kv_double(json_writer *w, const char *key, double x);

/* Write s (len bytes) as a quoted, escaped JSON string to f. */
void json_write_quoted(FILE *f, const char *s, size_t len);

#endif /* SHT_CLI_JSON_H */
