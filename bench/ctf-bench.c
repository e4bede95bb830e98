/*
 * ctf-bench.c: decoding speed of the CTF source (src/trace/ctf*.c) on the
 * real traces, next to babeltrace2's own read-only decoding of the same
 * trace.
 *
 *   ctf-bench [TRACES_DIR [REPS]]     (default $SHT_SHARED/traces, 5)
 *
 * For each trace: REPS times, open the source, read every event and one
 * payload field per event ("tid": found in scheduler and statedump events,
 * looked up and missed in the others), close; and REPS times run
 *   babeltrace2 --output-format=dummy TRACE
 * as a subprocess (for single-stream traces, whose packets the default
 * muxer may reject, `babeltrace2 run` with src.ctf.fs connected straight
 * to sink.utils.dummy, as the source does).  Prints the medians (wall
 * clock) and events/s of both.
 */
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "bench-util.h"

extern char **environ;

#define MAX_REPS 31

/* One pass: events read into *n; -1 on error. */
static double run_sht(const char *path, uint64_t *n, uint64_t *sum)
{
	sht_source src;
	sht_event ev;
	sht_field f;
	sht_err err;
	double t0 = now_s();

	*n = 0;
	if (sht_ctf_open(path, NULL, &src) != SHT_OK) {
		fprintf(stderr, "ctf-bench: %s\n", sht_errmsg());
		return -1;
	}
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		(*n)++;
		if (sht_event_field(&ev, "tid", &f) == SHT_FIELD_INT)
			*sum += (uint64_t)f.v.i;
		else if (f.type == SHT_FIELD_UINT)
			*sum += f.v.u;
	}
	sht_ctf_close(&src);
	if (err != SHT_END) {
		fprintf(stderr, "ctf-bench: %s\n", sht_errmsg());
		return -1;
	}
	return now_s() - t0;
}

/* One babeltrace2 run; -1 on error. */
static double run_bt2(const char *path, int single_stream)
{
	char params[8300];
	char *argv_mux[] = { "babeltrace2", "--output-format=dummy",
			     (char *)(uintptr_t)path, NULL };
	char *argv_run[] = { "babeltrace2", "run", "--component=src:src.ctf.fs",
			     params, "--component=sink:sink.utils.dummy",
			     "--connect=src:sink", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status;
	double t0;

	snprintf(params, sizeof params, "--params=inputs=[\"%s\"]", path);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
	t0 = now_s();
	if (posix_spawnp(&pid, "babeltrace2", &fa, NULL,
			 single_stream ? argv_run : argv_mux, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return now_s() - t0;
}

int main(int argc, char **argv)
{
	static const char *const traces[] = {
		"many-threads", "bug446190", "synctraces/scp_src",
		"synctraces/scp_dest", "context-switches/context-switches-ust",
	};
	char dir[4096], path[8192];
	const char *shared = getenv("SHT_SHARED");
	int reps = 5;

	if (argc > 1)
		snprintf(dir, sizeof dir, "%s", argv[1]);
	else
		snprintf(dir, sizeof dir, "%s/traces",
			 shared ? shared : "../shared");
	if (argc > 2)
		reps = atoi(argv[2]);
	if (reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: ctf-bench [TRACES_DIR [REPS 1..%d]]\n",
			MAX_REPS);
		return 2;
	}
	printf("%-40s %9s %10s %12s %10s %12s %6s\n", "trace", "events",
	       "sht s", "sht ev/s", "bt2 s", "bt2 ev/s", "ratio");
	for (size_t k = 0; k < sizeof traces / sizeof traces[0]; k++) {
		double ts[MAX_REPS], tb[MAX_REPS];
		uint64_t n = 0, sum = 0;
		sht_source src;
		sht_ctf_info info = { 0 };

		snprintf(path, sizeof path, "%s/%s", dir, traces[k]);
		if (sht_ctf_open(path, NULL, &src) != SHT_OK) {
			fprintf(stderr, "ctf-bench: %s\n", sht_errmsg());
			return 1;
		}
		sht_ctf_info_get(&src, &info);
		sht_ctf_close(&src);
		for (int r = 0; r < reps; r++) {
			ts[r] = run_sht(path, &n, &sum);
			tb[r] = run_bt2(path, info.streams == 1);
			if (ts[r] < 0 || tb[r] < 0) {
				fprintf(stderr, "ctf-bench: %s failed (%s)\n", path,
					ts[r] < 0 ? "sht" : "babeltrace2");
				return 1;
			}
		}
		double ms = median(ts, reps), mb = median(tb, reps);
		printf("%-40s %9" PRIu64 " %10.4f %12.0f %10.4f %12.0f %6.2f\n",
		       traces[k], n, ms, (double)n / ms, mb, (double)n / mb,
		       ms / mb);
	}
	return 0;
}
