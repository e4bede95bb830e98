/*
 * test-faults-build.c: builds that fail at every I/O point and allocation.
 *
 * Four builds: the staircase workload through the builder (one thread and
 * the threaded pipeline), a random mixed history (every value type, long
 * strings in blobs, a section) and a synthetic kernel trace through the
 * state system and the kernel analysis.  Each runs once counting its
 * pwrite, fsync and allocation calls (tests/support/faults.h), then again
 * with the nth call failing, for n = 1, 2, ... (every point, or --points
 * of them spread evenly: first and last included), in each fault mode.
 * Every run must: return an error with a message (or, for an allocation
 * that the code can do without, succeed with a file that passes the
 * integrity check and has the same bytes as without faults); free everything (allocation count back where it was:
 * no leak); leave no file, or one that sht_reader_open refuses: never one
 * that opens as complete after a failed build.
 *
 *   test-faults-build [--points N]   (0: every point; default 40)
 */
#include "faults.h"

#include <sys/stat.h>
#include <time.h>

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"
#include "kgen-history.h"
#include <shtgen/kgen.h>
#include <shtgen/workload.h>

struct wl {
	const char *name;
	sht_err (*run)(const struct wl *w, const char *path);
	uint32_t block_size;
	bool threaded;
	const orc *o;           /* mixed: the intervals */
};

/* ---- the builds ----------------------------------------------------------- */

static sht_err emit_insert(void *ctx, const sht_interval *iv)
{
	return sht_builder_insert(ctx, iv);
}

static sht_err finish_builder(sht_builder *b, sht_err err, sht_time end)
{
	if (err == SHT_OK)
		err = sht_builder_finish(b, end);
	sht_builder_close(b);
	return err;
}

static const shtgen_staircase STAIR = { 40, 200, 1000 };

static sht_err run_staircase(const struct wl *w, const char *path)
{
	sht_builder_opts o;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&o);
	o.block_size = w->block_size;
	o.threaded = w->threaded;
	err = sht_builder_create(path, 0, &o, &b);
	if (err != SHT_OK)
		return err;
	err = shtgen_staircase_run(&STAIR, emit_insert, b);
	return finish_builder(b, err, shtgen_staircase_end(&STAIR));
}

static sht_err run_mixed(const struct wl *w, const char *path)
{
	static const char sect[] = "a section of the mixed history";
	sht_builder_opts o;
	sht_builder *b;
	sht_err err;

	sht_builder_opts_init(&o);
	o.block_size = w->block_size;
	err = sht_builder_create(path, w->o->start, &o, &b);
	if (err != SHT_OK)
		return err;
	for (size_t i = 0; err == SHT_OK && i < w->o->n; i++)
		err = sht_builder_insert(b, &w->o->ivs[i]);
	if (err == SHT_OK)
		err = sht_builder_add_section(b, 7, 1, sect, sizeof sect);
	return finish_builder(b, err, w->o->end);
}

static sht_err run_kernel(const struct wl *w, const char *path)
{
	shtgen_kgen_params kp;
	sht_state_opts so;

	shtgen_kgen_params_init(&kp);
	kp.events = 20000;
	kp.threads = 40;
	sht_state_opts_init(&so);
	so.tree.block_size = w->block_size;
	return kgen_history(&kp, &so, path);
}

/* ---- one faulty run and its verdict --------------------------------------- */

struct tally {
	uint64_t runs, errors, absorbed, no_file, refused, not_reached;
	uint64_t bad;           /* a broken promise (reported) */
};

static uint64_t total_runs, total_errors, total_absorbed;
static uint64_t w_intervals;    /* intervals of the build without faults */
static char w_ref[PATH_MAX];    /* the file of the build without faults */

/* Same bytes as the file of the build without faults? */
static int same_as_ref(const char *path)
{
	FILE *a = fopen(path, "rb"), *b = fopen(w_ref, "rb");
	int same = a && b, ca, cb;

	while (same) {
		ca = getc(a);
		cb = getc(b);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (a)
		fclose(a);
	if (b)
		fclose(b);
	return same;
}

static int file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/* A file of a successful build: it opens, passes the integrity walk and
 * holds the intervals of the build without faults (*intervals; 0: any,
 * set to the count). */
static int file_sound(const char *path, uint64_t *intervals)
{
	sht_reader *r;
	sht_tree_info info;
	sht_err err;

	if (sht_reader_open(path, NULL, &r) != SHT_OK)
		return 0;
	err = sht_reader_check(r, NULL, NULL, 0);
	sht_reader_info_get(r, &info);
	sht_reader_close(r);
	if (*intervals == 0)
		*intervals = info.intervals;
	return err == SHT_OK && info.intervals == *intervals;
}

static void fault_run(const struct wl *w, const struct flt_plan *pl,
		      const char *path, struct tally *t)
{
	long live = flt_live_now();
	char msg[256];
	sht_reader *r;
	sht_err err, oerr;

	remove(path);
	flt_arm(pl);
	err = w->run(w, path);
	flt_disarm();
	snprintf(msg, sizeof msg, "%s", sht_errmsg());
	t->runs++;
	if (flt_live_now() != live) {
		t->bad++;
		diag("%s %s #%" PRIu64 ": %ld allocations not freed", w->name,
		     flt_op_name[pl->op], pl->nth, flt_live_now() - live);
	}
	if (atomic_load(&flt_fired) == 0) {
		t->not_reached++;
		return;
	}
	if (err == SHT_OK) {
		t->absorbed++;
		if (pl->op != FLT_ALLOC || !file_sound(path, &w_intervals) ||
		    !same_as_ref(path)) {
			t->bad++;
			diag("%s %s #%" PRIu64 ": the fault was not reported",
			     w->name, flt_op_name[pl->op], pl->nth);
		}
		return;
	}
	t->errors++;
	if (!msg[0]) {
		t->bad++;
		diag("%s %s #%" PRIu64 ": %s without a message", w->name,
		     flt_op_name[pl->op], pl->nth, sht_strerror(err));
	}
	if (!file_exists(path)) {
		t->no_file++;
		return;
	}
	oerr = sht_reader_open(path, NULL, &r);
	if (oerr == SHT_OK) {
		sht_reader_close(r);
		t->bad++;
		diag("%s %s #%" PRIu64 ": failed (%s) but the file opens as complete",
		     w->name, flt_op_name[pl->op], pl->nth, msg);
		return;
	}
	t->refused++;
}

static const struct flt_fault MODES[] = {
	{ FLT_PWRITE, ENOSPC, FLT_ERRNO, 0, "pwrite ENOSPC" },
	{ FLT_PWRITE, EIO, FLT_ERRNO, 1, "pwrite EIO, sticky" },
	{ FLT_PWRITE, 0, FLT_SHORT, 0, "pwrite short, then ENOSPC" },
	{ FLT_SYNC, EIO, FLT_ERRNO, 0, "fsync EIO" },
	{ FLT_SYNC, EIO, FLT_ERRNO, 1, "fsync EIO, sticky" },
	{ FLT_ALLOC, ENOMEM, FLT_ERRNO, 0, "alloc NULL" },
	{ FLT_ALLOC, ENOMEM, FLT_ERRNO, 1, "alloc NULL, sticky" },
};


static void run_workload(const struct wl *w, uint64_t max_points)
{
	struct flt_plan pl = { -1, 0, 0, 0, 0 };
	uint64_t calls[FLT_NOPS];
	long live = flt_live_now();
	char path[PATH_MAX];
	double t0 = now_s();
	sht_err err;

	scratch_path(path, sizeof path, w->name);
	flt_arm(&pl);
	err = w->run(w, path);
	flt_disarm();
	for (int i = 0; i < FLT_NOPS; i++)
		calls[i] = flt_calls(i);
	if (!is_int(err, SHT_OK, "%s: builds without faults", w->name)) {
		diag("%s", sht_errmsg());
		return;
	}
	w_intervals = 0;
	ok(file_sound(path, &w_intervals), "%s: file sound", w->name);
	is_int((int)(flt_live_now() - live), 0, "%s: no allocation left", w->name);
	if (snprintf(w_ref, sizeof w_ref, "%.4000s.ref", path) >= (int)sizeof w_ref ||
	    rename(path, w_ref) != 0)
		bail_out("rename %s: %s", path, strerror(errno));
	diag("%s: %" PRIu64 " pwrite, %" PRIu64 " fsync, %" PRIu64
	     " allocations", w->name, calls[FLT_PWRITE], calls[FLT_SYNC],
	     calls[FLT_ALLOC]);
	for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
		const struct flt_fault *md = &MODES[m];
		uint64_t n = calls[md->op];
		uint64_t k = max_points && max_points < n ? max_points : n;
		struct tally t = { 0 };

		for (uint64_t i = 0; i < k; i++) {
			struct flt_plan fp = { md->op, flt_point(i, k, n), md->err,
					       md->fmode, md->sticky };

			fault_run(w, &fp, path, &t);
		}
		ok(t.bad == 0 && t.errors + t.absorbed > 0,
		   "%s, %s: %" PRIu64 " of %" PRIu64 " points: %" PRIu64
		   " errors (%" PRIu64 " no file, %" PRIu64 " refused), %" PRIu64
		   " absorbed, %" PRIu64 " not reached, %" PRIu64 " broken",
		   w->name, md->what, k, n, t.errors, t.no_file, t.refused,
		   t.absorbed, t.not_reached, t.bad);
		total_runs += t.runs;
		total_errors += t.errors;
		total_absorbed += t.absorbed;
	}
	remove(path);
	remove(w_ref);
	diag("%s: %.1f s", w->name, now_s() - t0);
}


/* ---- a thread's failure told to a checkpoint ------------------------------- */

/* The threaded pipeline fails on its writing thread (the disk full from
 * the first write) while the inserting thread only queues intervals.  The
 * first call told of it must get the write's error (SHT_ERR_IO, with its
 * cause), whichever it is: a checkpoint taken before any insert saw the
 * failure once answered "builder is failed" (SHT_ERR_STATE, no cause),
 * and sht build then took the full disk for a fatal error and removed
 * the files it keeps to resume (tests/cli/test-resume caught it). */
static void test_checkpoint_told(void)
{
	const struct flt_plan pl = { FLT_PWRITE, 1, ENOSPC, FLT_ERRNO, 1 };
	sht_builder_opts o;
	sht_builder *b;
	char path[512];
	sht_err err = SHT_OK, cerr;
	const char *who = "insert";
	void *data = NULL;
	size_t len = 0;

	scratch_path(path, sizeof path, "told");
	sht_builder_opts_init(&o);
	o.block_size = 1024;
	o.threaded = true;
	o.no_sync = true;
	if (sht_builder_create(path, 0, &o, &b) != SHT_OK)
		bail_out("cannot create %s: %s", path, sht_errmsg());
	flt_arm(&pl);
	for (int64_t i = 0; i < 2000000 && err == SHT_OK &&
	     atomic_load(&flt_fired) == 0; i++) {
		sht_interval iv = { (sht_quark)(i % 50), i, i,
				    sht_value_int32((int32_t)i) };

		err = sht_builder_insert(b, &iv);
	}
	if (err == SHT_OK) {        /* the failure not told yet: let the
				       threads place what is queued */
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		who = "checkpoint";
		err = sht_builder_checkpoint(b, &data, &len);
	}
	flt_disarm();
	ok(atomic_load(&flt_fired) > 0, "the disk filled during the build");
	is_str(sht_strerror(err), sht_strerror(SHT_ERR_IO),
	       "the first call told of the write's failure (%s) gets its error", who);
	ok(strstr(sht_errmsg(), "No space") != NULL, "and its cause: %s", sht_errmsg());
	cerr = sht_builder_checkpoint(b, &data, &len);
	ok(cerr != SHT_OK && strstr(sht_errmsg(), "No space") != NULL,
	   "a later checkpoint fails with the cause too: %s", sht_errmsg());
	free(data);
	sht_builder_close(b);
	remove(path);
}

int main(int argc, char **argv)
{
	uint64_t max_points = 40;
	struct rng rng;
	orc mixed;

	if (argc == 3 && strcmp(argv[1], "--points") == 0)
		max_points = strtoull(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--points N]\n", argv[0]);
		return 2;
	}
	if (scratch_init("faults-build") != 0)
		bail_out("no scratch directory");
	rng_seed(&rng, rng_test_seed(6));
	orc_wl_mixed(&mixed, &rng, 4096, 1000, 2000000, 30, 4, 60, 1);
	{
		const struct wl W[] = {
			{ "staircase", run_staircase, 1024, false, NULL },
			{ "staircase-threads", run_staircase, 1024, true, NULL },
			{ "mixed", run_mixed, 4096, false, &mixed },
			{ "kernel", run_kernel, 4096, false, NULL },
		};

		for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
			run_workload(&W[i], max_points);
	}
	diag("total: %" PRIu64 " faulty builds, %" PRIu64 " errors, %" PRIu64
	     " absorbed", total_runs, total_errors, total_absorbed);
	test_checkpoint_told();
	orc_free(&mixed);
	scratch_done();
	return done_testing();
}
