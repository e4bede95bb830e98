/*
 * bench-json.h: the JSON lines the benchmarks print, through jansson
 * (bench-json.c, in the benchmark library shtbench).
 *
 *   json_t *o = bj_object();
 *   bj_str(o, "mode", "store");
 *   bj_int(o, "intervals", n);
 *   bj_num(o, "build_s", t);
 *   bj_print(o);                 one line on stdout, flushed; o released
 *
 * One rule for every program: keys in the order they are set, integers
 * exact, other numbers with 6 significant digits, and a number that is
 * not finite (NaN, an infinity: a figure that could not be measured) is
 * null.  Out of memory dies (exit status 2).
 */
#ifndef SHT_BENCH_JSON_H
#define SHT_BENCH_JSON_H

#include <stdint.h>

#include <jansson.h>

json_t *bj_object(void);
void bj_str(json_t *o, const char *key, const char *v);
void bj_int(json_t *o, const char *key, int64_t v);
void bj_num(json_t *o, const char *key, double v);
void bj_bool(json_t *o, const char *key, int v);

/* Print o as one line on stdout, flush, and release o. */
void bj_print(json_t *o);

#endif /* SHT_BENCH_JSON_H */
