/*
 * test-faults-state.c: queries through the state system whose reads and
 * allocations fail in turn.
 *
 * A synthetic kernel trace (20 000 events) is turned into a history by
 * the kernel analysis.  A script opens it with sht_state_open (a cache of
 * 4 blocks), looks attributes up by path (the attribute tree is a section,
 * read on first use), and runs full and single queries at 12 times.  Run
 * without faults it records a hash of every answer; then it runs once per
 * fault point (tests/support/faults.h: pread EIO, short, a flipped bit;
 * allocation NULL; single and sticky), and every answer must be an error
 * or hash as without faults; nothing may leak.
 *
 *   test-faults-state [--points N]   (0: every point; default 60)
 */
#include "faults.h"

#include "oracle.h"
#include "sht/sht.h"
#include "tap.h"
#include "kgen-history.h"
#include <shtgen/kgen.h>

#define NT 12
#define NANS (2 * NT + 1)

static const char *const PATHS[] = {
	"CPUs/0/Current_thread", "CPUs/1/Status", "Threads", "CPUs/3/Current_thread",
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* A hash of an answer: its code and every interval, value included. */
static uint64_t answer_hash(sht_err err, const sht_result *res)
{
	uint64_t h = mix(1, (uint64_t)(int64_t)err);

	for (size_t i = 0; err >= 0 && i < sht_result_count(res); i++) {
		const sht_interval *iv = sht_result_at(res, i);

		h = mix(h, iv->quark);
		h = mix(h, (uint64_t)iv->start);
		h = mix(h, (uint64_t)iv->end);
		h = mix(h, iv->value.type);
		if (iv->value.type == SHT_TYPE_STRING)
			for (uint32_t k = 0; k < iv->value.len; k++)
				h = mix(h, (unsigned char)iv->value.u.str[k]);
		else
			h = mix(h, (uint64_t)iv->value.u.i64);
	}
	return h;
}

struct tally {
	uint64_t open_err, answers, errors, wrong, leaks;
};

/* The script; ref: hashes to compare with (NULL: record them into out). */
static void script(const char *path, const uint64_t *ref, uint64_t *out,
		   struct tally *t)
{
	sht_reader_opts oo = { .cache_bytes = 4 * 4096 };
	sht_result *res = sht_result_create();
	sht_state *ss = NULL;
	sht_time t0, t1;
	size_t a = 0;

	if (!res || sht_state_open(path, &oo, &ss) != SHT_OK) {
		t->open_err++;
		sht_result_destroy(res);
		return;
	}
	t0 = sht_state_start(ss);
	t1 = sht_state_end(ss);
	for (int i = 0; i < NT; i++) {
		sht_time at = t0 + (t1 - t0) / (NT - 1) * i;
		const char *p = PATHS[i % 4];
		uint64_t h[2];
		sht_err e[2];
		sht_quark q;

		e[0] = sht_state_query_full(ss, at, res);
		h[0] = answer_hash(e[0], res);
		e[1] = sht_state_quark_path(ss, p, false, &q);
		if (e[1] == SHT_OK)
			e[1] = sht_state_query(ss, q, at, res);
		else
			sht_result_clear(res);
		h[1] = answer_hash(e[1], res);
		for (int k = 0; k < 2; k++, a++) {
			t->answers++;
			t->errors += e[k] < 0;
			if (!ref)
				out[a] = h[k];
			else if (e[k] >= 0 && h[k] != ref[a])
				t->wrong++;
		}
	}
	{
		sht_err err = sht_state_query_full(ss, t1, res);

		if (!ref)
			out[a] = answer_hash(err, res);
		else if (err >= 0 && answer_hash(err, res) != ref[a])
			t->wrong++;
		t->answers++;
		t->errors += err < 0;
	}
	sht_state_close(ss);
	sht_result_destroy(res);
}

static int build(const char *path)
{
	shtgen_kgen_params kp;
	sht_state_opts so;

	shtgen_kgen_params_init(&kp);
	kp.events = 20000;
	kp.threads = 40;
	sht_state_opts_init(&so);
	so.tree.block_size = 4096;
	so.tree.no_sync = true;
	return kgen_history(&kp, &so, path) == SHT_OK;
}

int main(int argc, char **argv)
{
	uint64_t max_points = 60, calls[FLT_NOPS], ref[NANS], total = 0;
	struct flt_plan none = { -1, 0, 0, 0, 0 };
	struct tally t0 = { 0 };
	char path[PATH_MAX];

	if (argc == 3 && strcmp(argv[1], "--points") == 0)
		max_points = strtoull(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--points N]\n", argv[0]);
		return 2;
	}
	if (scratch_init("faults-state") != 0)
		bail_out("no scratch directory");
	scratch_path(path, sizeof path, "kernel");
	if (!ok(build(path), "kernel history built"))
		bail_out("%s", sht_errmsg());
	flt_arm(&none);
	script(path, NULL, ref, &t0);
	flt_disarm();
	for (int i = 0; i < FLT_NOPS; i++)
		calls[i] = flt_calls(i);
	ok(t0.open_err == 0 && t0.errors == 0 && t0.answers == NANS,
	   "without faults: %" PRIu64 " answers (%" PRIu64 " preads, %" PRIu64
	   " allocations)", t0.answers, calls[FLT_PREAD], calls[FLT_ALLOC]);
	size_t nm;
	const struct flt_fault *modes = flt_read_modes(&nm);

	for (size_t m = 0; m < nm; m++) {
		const struct flt_fault *md = &modes[m];
		uint64_t n = calls[md->op];
		uint64_t k = max_points && max_points < n ? max_points : n;
		struct tally t = { 0 };

		for (uint64_t i = 0; i < k; i++) {
			struct flt_plan fp = { md->op, flt_point(i, k, n), md->err,
					       md->fmode, md->sticky };
			long live = flt_live_now();

			flt_arm(&fp);
			script(path, ref, NULL, &t);
			flt_disarm();
			t.leaks += flt_live_now() != live;
		}
		ok(t.wrong == 0 && t.leaks == 0,
		   "%s: %" PRIu64 " of %" PRIu64 " points: %" PRIu64
		   " opens refused, %" PRIu64 " answers (%" PRIu64 " errors, %"
		   PRIu64 " wrong), leaks %" PRIu64, md->what, k, n, t.open_err,
		   t.answers, t.errors, t.wrong, t.leaks);
		total += k;
	}
	diag("total: %" PRIu64 " faulty scripts", total);
	remove(path);
	scratch_done();
	return done_testing();
}
