/*
 * json.h: the CLI's --json output, written with jansson (Debian
 * libjansson-dev), the JSON library the project chose for reading and
 * writing JSON (README.md, "JSON output").
 *
 * A command builds each output object as a jansson value with the helpers
 * below and prints it with cli_json_print.  Outputs that can be huge (the
 * intervals of `sht query` and `sht history`, the attributes of `sht
 * tree`) never become one tree in memory: cli_jlist writes the framing
 * ("[", ",", "]") itself and dumps each element, a small object, as it
 * comes, one per line.
 *
 * Rules of the output (the same in every command):
 * - compact: no space after ':' or ','; members in the order they were set;
 * - strings are bytes of any content: valid UTF-8 passes through; a byte
 *   that is not part of valid UTF-8 stands for the character of the same
 *   number (U+0000 .. U+00FF, as if the text were Latin-1), so no input is
 *   refused and nothing is lost;
 * - integers are signed 64-bit;
 * - a double is written with the fewest of 15 or 17 significant digits that
 *   reads back exactly for every double of the element (jansson always
 *   writes a decimal point or an exponent: 2.0, 1e-7);
 * - non-finite doubles (NaN, infinities), which JSON cannot represent, are
 *   written as null.
 *
 * Memory: a helper that cannot allocate returns NULL (or drops the member)
 * and remembers it; cli_json_print and cli_jlist_end then report "cannot
 * format the JSON output: out of memory" and fail.  Single-threaded use.
 */
#ifndef SHT_CLI_JSON_H
#define SHT_CLI_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* ---- values (new references; NULL if memory ran out) ------------------- */

/* A string of len bytes of any content (see the rules above). */
json_t *cli_jstr(const char *s, size_t len);
/* Replace the text of the string value str by the len bytes at s (same
 * rules); 0, or -1 (remembered) if memory ran out. */
int cli_jstr_set(json_t *str, const char *s, size_t len);
/* A NUL-terminated string; NULL s gives JSON null. */
json_t *cli_jcstr(const char *s);
json_t *cli_jint(int64_t x);
/* x above INT64_MAX (no output of the CLI has one) becomes the nearest
 * double. */
json_t *cli_juint(uint64_t x);
/* null if x is not finite. */
json_t *cli_jreal(double x);
json_t *cli_jbool(bool x);
/* A number given as decimal text ("-12.5"), written as a JSON number with
 * all its digits (a double would keep 17): the value is a string holding a
 * marker that the output replaces by the digits.  Text that is not a
 * plain JSON number stays a string. */
json_t *cli_jdecimal(const char *digits);

/* obj[key] = v, taking v's reference.  obj or v NULL, or a failed insert,
 * is remembered as an allocation failure. */
void cli_jset(json_t *obj, const char *key, json_t *v);
/* Append v to the array arr, the same way. */
void cli_jappend(json_t *arr, json_t *v);

/* ---- output ------------------------------------------------------------ */

/* Dump v (compact) and a newline to stdout, then release it.  Returns
 * CLI_OK, or CLI_FAIL after reporting if v is NULL or a member was lost. */
int cli_json_print(json_t *v);

/* A JSON array streamed element by element: "[", then each element on a
 * line of its own, then "]" and a newline ("[]" if empty). */
typedef struct cli_jlist {
	FILE *f;
	uint64_t count;           /* elements written */
	bool failed;              /* an element could not be made */
} cli_jlist;

void cli_jlist_begin(cli_jlist *l, FILE *f);
/* Write v and release it; NULL v (or a lost member) marks the list
 * failed and writes nothing. */
void cli_jlist_add(cli_jlist *l, json_t *v);
/* Write v, keeping it (the caller reuses it for the next element). */
void cli_jlist_put(cli_jlist *l, json_t *v);
/* Close the array.  Returns CLI_OK, or CLI_FAIL after reporting if an
 * element was lost. */
int cli_jlist_end(cli_jlist *l);

/* ---- the human form ---------------------------------------------------- */

/* Write s (len bytes) to f as a quoted JSON string, by the same rules
 * (out of memory: "?", remembered). */
void cli_json_fquote(FILE *f, const char *s, size_t len);

/* CLI_OK, or CLI_FAIL after reporting if output was lost since the last
 * check (cli_finish_output calls it). */
int cli_json_check_lost(void);

#endif /* SHT_CLI_JSON_H */
