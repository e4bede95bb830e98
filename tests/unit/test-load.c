/*
 * test-load.c: many readers on one history while another process builds.
 * sht-test-label: threads
 *
 * A random mixed history (every value type, long strings in blobs) is
 * built, then a child process (forked before any thread) builds and
 * checks other histories (the kernel analysis over a synthetic kernel
 * trace, then the staircase through the threaded builder, in turn) into
 * another file until told to stop, while --threads reader threads query
 * the first file for --seconds: single queries, full queries and 2D
 * queries at random, every answer checked against the oracle.  Even
 * threads share one reader with a 16-block cache (evictions under
 * contention), odd threads each open their own.  Fails on any wrong
 * answer or error, a failed build or check in the child, or a child that
 * built nothing.
 *
 *   test-load [--seconds S] [--threads N]    (default 20 s, 4 threads)
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"
#include "kgen-history.h"
#include <shtgen/kgen.h>
#include <shtgen/workload.h>

struct reader_arg {
	const orc *o;
	sht_reader *r;          /* shared, or NULL: open path */
	const char *path;
	uint64_t seed;
	double until;
	uint64_t queries[3], errors, wrong;
	orc_errlog log;
};

static void *reader_main(void *p)
{
	struct reader_arg *a = p;
	sht_reader *r = a->r;
	sht_result *res = sht_result_create();
	sht_tree_info info;
	struct rng rng;
	orc_vis v;

	orc_errlog_init(&a->log);
	if (!res || (!r && sht_reader_open(a->path, NULL, &r) != SHT_OK)) {
		orc_fail(&a->log, "cannot start: %s", sht_errmsg());
		a->errors++;
		sht_result_destroy(res);
		return NULL;
	}
	sht_reader_info_get(r, &info);
	v = orc_vis_all(a->o, info.quark_count);
	rng_seed(&rng, a->seed);
	while (now_s() < a->until) {
		for (int i = 0; i < 64; i++) {
			const sht_interval *iv = &a->o->ivs[rng_below(&rng, a->o->n)];
			sht_time at = iv->start + (sht_time)rng_below(&rng,
					(uint64_t)(iv->end - iv->start) + 1);
			unsigned kind = rng_below(&rng, 100) < 90 ? 0 :
					rng_below(&rng, 2) + 1;
			sht_err err;
			int good;

			if (kind == 0) {
				err = sht_reader_query(r, iv->quark, at, res);
				good = orc_check_single(a->o, &v, iv->quark, at, err,
							res, 0, &a->log, "single");
			} else if (kind == 1) {
				err = sht_reader_query_full(r, at, res);
				good = orc_check_full(a->o, &v, at, err, res, 0,
						      &a->log, "full");
			} else {
				sht_quark hi = iv->quark > SHT_QUARK_MAX - 20
					       ? SHT_QUARK_MAX : iv->quark + 20;
				sht_query2d q = { NULL, 0, iv->quark, hi, at,
						  at + 20000, 0, SHT_ORDER_TIME };

				err = sht_reader_query_2d(r, &q, res);
				good = orc_check_2d(a->o, &v, &q, err, res, 0,
						    &a->log, "2d");
			}
			a->queries[kind]++;
			a->errors += err < 0;
			a->wrong += !good;
		}
	}
	if (r != a->r)
		sht_reader_close(r);
	sht_result_destroy(res);
	return NULL;
}

/* ---- the building process ------------------------------------------------- */

static volatile sig_atomic_t child_stop;

static void on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

static sht_err emit_insert(void *ctx, const sht_interval *iv)
{
	return sht_builder_insert(ctx, iv);
}

static sht_err build_staircase(const char *path)
{
	static const shtgen_staircase w = { 500, 100, 1000 };
	sht_builder_opts o;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&o);
	o.threaded = true;
	o.no_sync = true;
	err = sht_builder_create(path, 0, &o, &b);
	if (err != SHT_OK)
		return err;
	err = shtgen_staircase_run(&w, emit_insert, b);
	if (err == SHT_OK)
		err = sht_builder_finish(b, shtgen_staircase_end(&w));
	sht_builder_close(b);
	return err;
}

static sht_err build_kernel(const char *path, uint64_t seed)
{
	shtgen_kgen_params kp;
	sht_state_opts so;

	shtgen_kgen_params_init(&kp);
	kp.events = 100000;
	kp.seed = seed;
	sht_state_opts_init(&so);
	so.tree.no_sync = true;
	return kgen_history(&kp, &so, path);
}

/* Build and check until SIGTERM (at least once); exit status: builds
 * (capped), 0 if one failed. */
static int child_main(const char *path, const sigset_t *old)
{
	struct sigaction sa;
	unsigned builds = 0;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);   /* SIGTERM was blocked */
	do {
		sht_reader *r;
		sht_err err = builds % 2 ? build_staircase(path)
					 : build_kernel(path, builds + 1);

		if (err == SHT_OK)
			err = sht_reader_open(path, NULL, &r);
		if (err == SHT_OK) {
			err = sht_reader_check(r, NULL, NULL, 0);
			sht_reader_close(r);
		}
		if (err != SHT_OK) {
			fprintf(stderr, "# builder: %s\n", sht_errmsg());
			return 0;
		}
		builds++;
	} while (!child_stop);
	printf("# builder process: %u histories built and checked\n", builds);
	fflush(stdout);
	return builds > 250 ? 250 : (int)builds;
}

/* ---- main ----------------------------------------------------------------- */

static int build_file(const orc *o, const char *path)
{
	sht_builder_opts bo;
	sht_builder *b;
	sht_err err = SHT_OK;

	sht_builder_opts_init(&bo);
	bo.block_size = 4096;
	bo.no_sync = true;
	if (sht_builder_create(path, o->start, &bo, &b) != SHT_OK)
		return 0;
	for (size_t i = 0; err == SHT_OK && i < o->n; i++)
		err = sht_builder_insert(b, &o->ivs[i]);
	if (err == SHT_OK)
		err = sht_builder_finish(b, o->end);
	sht_builder_close(b);
	return err == SHT_OK;
}

int main(int argc, char **argv)
{
	double seconds = 20;
	unsigned nthreads = 4;
	char path[PATH_MAX], bpath[PATH_MAX];
	sht_reader_opts small = { .cache_bytes = 16 * 4096 };
	struct reader_arg *args;
	pthread_t *tids;
	uint64_t q[3] = { 0 }, errors = 0, wrong = 0, seed;
	sht_reader *shared;
	struct rng rng;
	double t0;
	sigset_t term, oldmask;
	pid_t pid;
	int status;
	orc o;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--threads") == 0)
			nthreads = (unsigned)atoi(argv[i + 1]);
	}
	if (argc % 2 == 0 || seconds <= 0 || nthreads == 0 || nthreads > 256) {
		fprintf(stderr, "usage: %s [--seconds S] [--threads N]\n", argv[0]);
		return 2;
	}
	if (scratch_init("load") != 0)
		bail_out("no scratch directory");
	seed = rng_test_seed(7);
	rng_seed(&rng, seed);
	orc_wl_mixed(&o, &rng, 4096, 1000, 50000000, 400, 8, 200, 1);
	scratch_path(path, sizeof path, "load");
	scratch_path(bpath, sizeof bpath, "build");
	if (!ok(build_file(&o, path), "history of %zu intervals built", o.n))
		bail_out("%s", sht_errmsg());
	fflush(NULL);
	/* SIGTERM blocked until the child has its handler (and in the parent,
	 * which does not need it). */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &oldmask);
	pid = fork();
	if (pid < 0)
		bail_out("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(child_main(bpath, &oldmask));
	if (sht_reader_open(path, &small, &shared) != SHT_OK)
		bail_out("%s", sht_errmsg());
	args = calloc(nthreads, sizeof *args);
	tids = calloc(nthreads, sizeof *tids);
	if (!args || !tids)
		bail_out("out of memory");
	t0 = now_s();
	for (unsigned i = 0; i < nthreads; i++) {
		args[i].o = &o;
		args[i].r = i % 2 ? NULL : shared;
		args[i].path = path;
		args[i].seed = seed * 1000 + i;
		args[i].until = t0 + seconds;
		if (pthread_create(&tids[i], NULL, reader_main, &args[i]) != 0)
			bail_out("pthread_create failed");
	}
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(tids[i], NULL);
		orc_errlog_print(&args[i].log);
		for (int k = 0; k < 3; k++)
			q[k] += args[i].queries[k];
		errors += args[i].errors;
		wrong += args[i].wrong;
	}
	t0 = now_s() - t0;
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		status = 0;
	ok(WIFEXITED(status) && WEXITSTATUS(status) > 0,
	   "builder process: %d histories built and checked meanwhile",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	ok(errors == 0 && wrong == 0,
	   "%u threads, %.1f s: %" PRIu64 " single, %" PRIu64 " full, %" PRIu64
	   " 2D queries (%.0f/s), every answer checked: %" PRIu64 " wrong, %"
	   PRIu64 " errors", nthreads, t0, q[0], q[1], q[2],
	   (double)(q[0] + q[1] + q[2]) / t0, wrong, errors);
	sht_reader_close(shared);
	free(args);
	free(tids);
	remove(path);
	remove(bpath);
	orc_free(&o);
	scratch_done();
	return done_testing();
}
