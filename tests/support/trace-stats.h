/*
 * trace-stats.h: the statistics files of the real traces,
 * $SHT_SHARED/traces/stats/<trace>.json (written by trace_stats.py from
 * babeltrace2's own reading), read through jansson for the tests that
 * check the traces against them (test-ctf, test-stats); trace-stats.c,
 * in the test-support library.
 *
 *   tstats_load(path)              the file, or NULL (json_decref() it)
 *   tstats_int(s, "events")        a top-level integer
 *   tstats_names(s, out, max)      "names": [["a", 1], ["b", 2], ...]
 *   tstats_streams(s, per_cpu, n)  "streams": {"host/0/t/channel0_3": n}
 */
#ifndef SHT_TEST_TRACE_STATS_H
#define SHT_TEST_TRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* The parsed file at path, or NULL if it cannot be read or parsed (the
 * reason on stderr). */
json_t *tstats_load(const char *path);

/* The integer value of the top-level key, or -1 if there is none. */
int64_t tstats_int(const json_t *s, const char *key);

/* An event name and its count. */
struct tstats_count {
	char name[128];
	int64_t count;
};

/* "names" into out: the number of names, 0 if there is no such list, it
 * is empty or malformed, or it has more than max. */
size_t tstats_names(const json_t *s, struct tstats_count *out, size_t max);

/* "streams": LTTng writes one stream file per CPU, named ..._N for CPU
 * N; each count is added to per_cpu[N] (the caller zeroes per_cpu).  The
 * number of streams, or -1 if there is no such map, it is malformed, or
 * an N is not in [0, max_cpu). */
int tstats_streams(const json_t *s, int64_t *per_cpu, int max_cpu);

#endif /* SHT_TEST_TRACE_STATS_H */
