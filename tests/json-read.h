/*
 * json-read.h: a minimal reader of the trace statistics files
 * $SHT_SHARED/traces/stats/<trace>.json (written by trace_stats.py, see
 * traces/README.md), for the tests that check the real traces against
 * them (test-ctf, test-stats):
 *
 *   json_slurp(path)                  the file as a NUL-terminated string
 *   json_top(json, "events")          a top-level integer
 *   json_names(json, out, max)        "names": [["a", 1], ["b", 2], ...]
 *   json_streams(json, per_cpu, max)  "streams": {"host/0/t/channel0_3": n}
 *
 * Not a JSON parser: strings have no escapes in these files, and a key is
 * found by its first occurrence (the keys read here appear once, at the
 * top level).  Functions are static inline: a test uses what it needs.
 */
#ifndef SHT_TESTS_JSON_READ_H
#define SHT_TESTS_JSON_READ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contents of path, NUL-terminated (free() it), or NULL. */
static inline char *json_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* A position in the text; each step skips white space first and returns
 * 1 if it read what it expects (and moved past it), else 0. */
struct json_reader {
	const char *p;
};

static inline void json_ws(struct json_reader *j)
{
	while (*j->p && strchr(" \t\r\n", *j->p))
		j->p++;
}

static inline int json_char(struct json_reader *j, char c)
{
	json_ws(j);
	if (*j->p != c)
		return 0;
	j->p++;
	return 1;
}

/* A string into buf (truncated to size - 1 bytes). */
static inline int json_string(struct json_reader *j, char *buf, size_t size)
{
	size_t n = 0;

	if (!json_char(j, '"'))
		return 0;
	while (*j->p && *j->p != '"') {
		if (n + 1 < size)
			buf[n++] = *j->p;
		j->p++;
	}
	buf[n] = '\0';
	return json_char(j, '"');
}

static inline int json_int(struct json_reader *j, int64_t *out)
{
	char *end;

	json_ws(j);
	*out = strtoll(j->p, &end, 10);
	if (end == j->p)
		return 0;
	j->p = end;
	return 1;
}

/* Position j just after "key": (its first occurrence as a key). */
static inline int json_key(struct json_reader *j, const char *json,
			   const char *key)
{
	char pat[80];
	const char *p;

	snprintf(pat, sizeof pat, "\"%s\"", key);
	for (p = json; (p = strstr(p, pat)) != NULL; p += strlen(pat)) {
		j->p = p + strlen(pat);
		if (json_char(j, ':'))
			return 1;
	}
	return 0;
}

/* The integer value of key, or -1 if there is none. */
static inline int64_t json_top(const char *json, const char *key)
{
	struct json_reader j;
	int64_t v;

	return json_key(&j, json, key) && json_int(&j, &v) ? v : -1;
}

/* An event name and its count. */
struct json_count {
	char name[128];
	int64_t count;
};

/* "names": [["a", 1], ...] into out: the number of names, 0 if there is
 * no such list, it is empty or malformed, or it has more than max. */
static inline size_t json_names(const char *json, struct json_count *out,
				size_t max)
{
	struct json_reader j;
	size_t n = 0;

	if (!json_key(&j, json, "names") || !json_char(&j, '['))
		return 0;
	if (json_char(&j, ']'))
		return 0;
	do {
		if (n == max || !json_char(&j, '[') ||
		    !json_string(&j, out[n].name, sizeof out[n].name) ||
		    !json_char(&j, ',') || !json_int(&j, &out[n].count) ||
		    !json_char(&j, ']'))
			return 0;
		n++;
	} while (json_char(&j, ','));
	return json_char(&j, ']') ? n : 0;
}

/* "streams": {"host/id/trace/channel0_N": count, ...}: LTTng writes one
 * stream file per CPU, N being the CPU; each count is added to
 * per_cpu[N] (the caller zeroes per_cpu).  The number of streams, or -1
 * if there is no such map, it is malformed, or an N is not in
 * [0, max_cpu). */
static inline int json_streams(const char *json, int64_t *per_cpu,
			       int max_cpu)
{
	struct json_reader j;
	char key[512];
	int n = 0;

	if (!json_key(&j, json, "streams") || !json_char(&j, '{'))
		return -1;
	if (json_char(&j, '}'))
		return 0;
	do {
		int64_t count;
		const char *us;
		int cpu;

		if (!json_string(&j, key, sizeof key) || !json_char(&j, ':') ||
		    !json_int(&j, &count))
			return -1;
		us = strrchr(key, '_');
		cpu = us ? atoi(us + 1) : -1;
		if (cpu < 0 || cpu >= max_cpu)
			return -1;
		per_cpu[cpu] += count;
		n++;
	} while (json_char(&j, ','));
	return json_char(&j, '}') ? n : -1;
}

#endif /* SHT_TESTS_JSON_READ_H */
