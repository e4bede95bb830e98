/*
 * store.c: sht-bench store: the generator alone (its cost, to subtract),
 * the build, and one run of the three phases (design notes in main.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "sht-bench.h"

/* ---- phase 1: the generator alone -------------------------------------------- */

struct gen_ctx {
	uint64_t n;
	uint64_t sink;
};

static sht_err emit_count(void *ctx, const sht_interval *iv)
{
	struct gen_ctx *g = ctx;

	g->n++;
	g->sink += (uint64_t)iv->end ^ iv->quark;
	return SHT_OK;
}

static void phase_gen(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	struct gen_ctx g = { 0, 0 };
	double t0 = now_s();
	sht_err err = shtgen_wl_run(&o->w.wl, emit_count, &g);
	double t1 = now_s();

	if (err < 0) {
		fail(ms, "generator", err);
		return;
	}
	put(ms, "gen_s", t1 - t0);
	put_int(ms, "gen_intervals", (double)g.n);
	put_int(ms, "gen_checksum_low", (double)(g.sink & 0xffff));
}

/* ---- phase 2: the build ------------------------------------------------------- */

struct build_ctx {
	sht_builder *b;
	uint64_t n;
};

static sht_err emit_insert(void *ctx, const sht_interval *iv)
{
	struct build_ctx *c = ctx;
	sht_err err = sht_builder_insert(c->b, iv);

	if (err < 0)
		return err;
	c->n++;
	return SHT_OK;
}

void phase_build(void *ctx, struct metrics *ms)
{
	const struct store_opts *o = ctx;
	struct build_ctx c = { NULL, 0 };
	uint64_t rss0 = proc_status_bytes("VmRSS");
	double t0, t1, t2, t3, t4;
	sht_err err;

	t0 = now_s();
	err = sht_builder_create(o->path, o->w.start, &o->bo, &c.b);
	if (err < 0) {
		fail(ms, "sht_builder_create", err);
		return;
	}
	t1 = now_s();
	err = shtgen_wl_run(&o->w.wl, emit_insert, &c);
	t2 = now_s();
	if (err < 0) {
		char what[96];

		snprintf(what, sizeof what, "sht_builder_insert #%" PRIu64,
			 c.n);
		fail(ms, what, err);
		sht_builder_close(c.b);
		return;
	}
	err = sht_builder_finish(c.b, o->w.end);
	t3 = now_s();
	if (err < 0) {
		fail(ms, "sht_builder_finish", err);
		sht_builder_close(c.b);
		return;
	}
	sht_builder_close(c.b);
	t4 = now_s();

	put(ms, "build_s", t4 - t0);
	put(ms, "build_create_s", t1 - t0);
	put(ms, "build_insert_s", t2 - t1);
	put(ms, "build_finish_s", t3 - t2);
	put(ms, "build_destroy_s", t4 - t3);
	put_int(ms, "intervals", (double)c.n);
	put(ms, "intervals_per_s", (double)c.n / (t4 - t0));
	put_int(ms, "build_rss_start_bytes", (double)rss0);
	put_int(ms, "build_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
}

/* ---- one run ------------------------------------------------------------- */

int store_run(struct store_opts *o, int run, struct metrics *out)
{
	struct metrics part;
	const char *strs[] = { "mode", "store", "type", "run",
			       "workload", shtgen_wl_name(&o->w.wl),
			       "variant", variant_name(o->bo.variant),
			       NULL };
	double mis = 0;
	int rc = 0;

	memset(out, 0, sizeof *out);
	put_int(out, "run", run);
	put_int(out, "size", (double)o->size);
	put_int(out, "block_size", o->bo.block_size);
	put_int(out, "max_children", o->bo.max_children);
	if (o->w.wl.kind == SHTGEN_WL_STAIRCASE)
		put_int(out, "staircase_i", o->intervals);
	put_int(out, "no_sync", o->bo.no_sync);
	put_int(out, "seed", (double)o->seed);

	if (o->reuse)
		goto queries;
	snprintf(o->path, sizeof o->path, "%s/sht-bench-%s-%" PRIu64
		 "-%s-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 variant_name(o->bo.variant), (long)getpid());

	note("run %d: generator alone", run);
	if (run_in_child(NULL, NULL, NULL, phase_gen, o, &part) < 0)
		goto failed;
	merge(out, &part);

	note("run %d: build %s", run, o->path);
	if (run_in_child("build_maxrss_bytes", "build_user_s", "build_sys_s",
			 phase_build, o, &part) < 0)
		goto failed;
	merge(out, &part);

queries:
	note("run %d: queries %s", run, o->path);
	if (run_in_child("query_maxrss_bytes", "query_user_s", "query_sys_s",
			 phase_query, o, &part) < 0)
		goto failed;
	merge(out, &part);

	if (get(out, "mismatches", &mis) && mis > 0)
		rc = (int)mis;
	if (!o->keep && !o->reuse)
		unlink(o->path);
	metrics_print(strs, out);
	return rc;
failed:
	fprintf(stderr, "sht-bench: run %d failed: %s\n", run, part.err);
	if (!o->keep && !o->reuse)
		unlink(o->path);
	return -1;
}
