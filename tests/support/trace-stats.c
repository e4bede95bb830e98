/*
 * trace-stats.c: the statistics files of trace-stats.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-stats.h"

json_t *tstats_load(const char *path)
{
	json_error_t e;
	json_t *s = json_load_file(path, 0, &e);

	if (!s)
		fprintf(stderr, "%s:%d: %s\n", path, e.line, e.text);
	return s;
}

int64_t tstats_int(const json_t *s, const char *key)
{
	json_t *v = json_object_get(s, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

size_t tstats_names(const json_t *s, struct tstats_count *out, size_t max)
{
	json_t *names = json_object_get(s, "names"), *pair;
	size_t i;

	if (!json_is_array(names) || json_array_size(names) > max)
		return 0;
	json_array_foreach(names, i, pair) {
		json_t *name = json_array_get(pair, 0);
		json_t *count = json_array_get(pair, 1);

		if (json_array_size(pair) != 2 || !json_is_string(name) ||
		    !json_is_integer(count))
			return 0;
		snprintf(out[i].name, sizeof out[i].name, "%s",
			 json_string_value(name));
		out[i].count = (int64_t)json_integer_value(count);
	}
	return json_array_size(names);
}

int tstats_streams(const json_t *s, int64_t *per_cpu, int max_cpu)
{
	json_t *streams = json_object_get(s, "streams"), *count;
	const char *key;
	int n = 0;

	if (!json_is_object(streams))
		return -1;
	json_object_foreach(streams, key, count) {
		const char *us = strrchr(key, '_');
		int cpu = us ? atoi(us + 1) : -1;

		if (!json_is_integer(count) || cpu < 0 || cpu >= max_cpu)
			return -1;
		per_cpu[cpu] += (int64_t)json_integer_value(count);
		n++;
	}
	return n;
}
