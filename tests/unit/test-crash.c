/*
 * test-crash.c: a library build killed with SIGKILL leaves a file that is
 * refused, never one that opens as complete.
 *
 * cli/test-crash kills `sht build` (the state system, one thread); here
 * the builder itself is killed, single-threaded and with the threaded
 * pipeline, building the staircase (5 000 attributes x 200 intervals, 4 KiB
 * blocks, fsync on).  A child process builds; the parent kills it after a
 * random delay (seeded) within the time a child takes to build in full
 * (measured first, fork included), then opens the
 * file: it must be refused as incomplete (SHT_ERR_INCOMPLETE) or as too
 * short (SHT_ERR_CORRUPT, killed before the first header was written),
 * or, if the kill came after the finish, open and pass the integrity
 * check.
 *
 *   test-crash [--kills N]   (default 20 per builder)
 */
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"
#include <shtgen/workload.h>

static const shtgen_staircase STAIR = { 5000, 200, 1000 };

static sht_err emit_insert(void *ctx, const sht_interval *iv)
{
	return sht_builder_insert(ctx, iv);
}

static sht_err build(const char *path, int threads)
{
	sht_builder_opts o;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&o);
	o.block_size = 4096;
	o.threaded = threads;
	err = sht_builder_create(path, 0, &o, &b);
	if (err != SHT_OK)
		return err;
	err = shtgen_staircase_run(&STAIR, emit_insert, b);
	if (err == SHT_OK)
		err = sht_builder_finish(b, shtgen_staircase_end(&STAIR));
	sht_builder_close(b);
	return err;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct tally {
	unsigned incomplete, short_file, finished, bad;
};

static void kill_once(const char *path, int threads, uint64_t delay_us,
		      struct tally *t)
{
	sht_reader *r;
	pid_t pid;
	sht_err err;
	int status;

	remove(path);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		bail_out("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(build(path, threads) == SHT_OK ? 0 : 1);
	if (delay_us == UINT64_MAX) {   /* no kill: the full build */
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bail_out("the child's full build failed");
		return;
	}
	sleep_us(delay_us);
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		bail_out("waitpid: %s", strerror(errno));
	err = sht_reader_open(path, NULL, &r);
	if (err == SHT_OK) {
		err = sht_reader_check(r, NULL, NULL, 0);
		sht_reader_close(r);
		/* The kill came after the finish (the child may still have
		 * been freeing or exiting): complete, and it must be sound. */
		if (err == SHT_OK) {
			t->finished++;
			return;
		}
		t->bad++;
		diag("killed at %" PRIu64 " us: opens as complete, check: %s",
		     delay_us, sht_errmsg());
	} else if (err == SHT_ERR_INCOMPLETE) {
		t->incomplete++;
	} else if (err == SHT_ERR_CORRUPT && strstr(sht_errmsg(), "too short")) {
		t->short_file++;
	} else if (err == SHT_ERR_IO && access(path, F_OK) != 0) {
		t->short_file++;        /* killed before the file was created */
	} else {
		t->bad++;
		diag("killed at %" PRIu64 " us: %s: %s", delay_us,
		     sht_strerror(err), sht_errmsg());
	}
}

int main(int argc, char **argv)
{
	unsigned kills = 20;
	char path[PATH_MAX];
	struct rng rng;

	if (argc == 3 && strcmp(argv[1], "--kills") == 0)
		kills = (unsigned)atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--kills N]\n", argv[0]);
		return 2;
	}
	if (scratch_init("crash") != 0)
		bail_out("no scratch directory");
	rng_seed(&rng, rng_test_seed(6));
	scratch_path(path, sizeof path, "crash");
	for (int threads = 0; threads <= 1; threads++) {
		struct tally t = { 0 };
		double t0 = now_s();
		uint64_t full_us;

		kill_once(path, threads, UINT64_MAX, &t);
		full_us = (uint64_t)((now_s() - t0) * 1e6);
		for (unsigned i = 0; i < kills; i++)
			kill_once(path, threads, rng_below(&rng, full_us + 1), &t);
		ok(t.bad == 0 && t.incomplete > 0,
		   "%s builder, full build %.0f ms, %u kills: %u refused as "
		   "incomplete, %u killed before the header, %u after the finish "
		   "(sound), %u open as complete but unsound", threads ? "threaded" : "single-thread",
		   (double)full_us / 1000, kills, t.incomplete, t.short_file,
		   t.finished, t.bad);
	}
	remove(path);
	scratch_done();
	return done_testing();
}
