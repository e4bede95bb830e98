/*
 * bench-json.c: the JSON lines of bench-json.h.
 */
#include <math.h>
#include <stdio.h>

#include "bench-json.h"
#include "bench-util.h"

static void set(json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) != 0)
		die("out of memory (JSON field %s)", key);
}

json_t *bj_object(void)
{
	json_t *o = json_object();

	if (!o)
		die("out of memory (JSON object)");
	return o;
}

void bj_str(json_t *o, const char *key, const char *v)
{
	json_t *s = json_string(v);

	if (!s && v)
		die("JSON field %s: not UTF-8 text: %s", key, v);
	set(o, key, s);
}

void bj_int(json_t *o, const char *key, int64_t v)
{
	set(o, key, json_integer((json_int_t)v));
}

void bj_num(json_t *o, const char *key, double v)
{
	set(o, key, isfinite(v) ? json_real(v) : json_null());
}

void bj_bool(json_t *o, const char *key, int v)
{
	set(o, key, json_boolean(v));
}

void bj_print(json_t *o)
{
	if (json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(6)) != 0)
		die("cannot write the JSON line");
	putchar('\n');
	fflush(stdout);
	json_decref(o);
}
