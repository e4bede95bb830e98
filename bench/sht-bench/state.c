/*
 * state.c: sht-bench state: the build through the state system, and one
 * run of its phases (see sht-bench.h and the design notes in main.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench-util.h"
#include "sht-bench.h"

/* ---- the build ----------------------------------------------------------- */

static double rusage_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static void phase_state_build(void *ctx, struct metrics *ms)
{
	const struct state_opts *o = ctx;
	sht_state_opts so;
	sht_state *ss = NULL;
	uint64_t rss0 = proc_status_bytes("VmRSS");
	uint64_t count = shtgen_wl_intervals(&o->w.wl);
	struct rusage ru;
	double t0, t1, t2, t3, t4, build;
	sht_err err;

	sht_state_opts_init(&so);
	so.backend = o->backend;
	so.tree = o->bo;
	so.provider = shtgen_wl_name(&o->w.wl);
	so.provider_version = 1;

	t0 = now_s();
	err = sht_state_create(o->backend == SHT_BACKEND_TREE ? o->path : NULL,
			       o->w.start, &so, &ss);
	t1 = now_s();
	if (err < 0) {
		fail(ms, "sht_state_create", err);
		return;
	}
	err = shtgen_wl_drive(&o->w.wl, ss);
	t2 = now_s();
	if (err < 0) {
		fail(ms, "drive (changes and sht_state_finish)", err);
		sht_state_close(ss);
		return;
	}
	put_int(ms, "build_vmhwm_bytes", (double)proc_status_bytes("VmHWM"));
	if (o->backend == SHT_BACKEND_MEMORY) {
		/* The build's own CPU and peak, before the queries. */
		getrusage(RUSAGE_SELF, &ru);
		put(ms, "build_user_s", rusage_s(&ru.ru_utime));
		put(ms, "build_sys_s", rusage_s(&ru.ru_stime));
		put_int(ms, "build_maxrss_bytes",
			(double)proc_status_bytes("VmHWM"));
		state_queries_in_memory(o, ss, ms);
		put_int(ms, "query_vmhwm_bytes",
			(double)proc_status_bytes("VmHWM"));
	}
	t3 = now_s();
	sht_state_close(ss);
	t4 = now_s();
	if (o->backend != SHT_BACKEND_MEMORY) {
		getrusage(RUSAGE_SELF, &ru);
		put(ms, "build_user_s", rusage_s(&ru.ru_utime));
		put(ms, "build_sys_s", rusage_s(&ru.ru_stime));
	}
	build = (t2 - t0) + (t4 - t3);
	put(ms, "build_s", build);
	put(ms, "build_create_s", t1 - t0);
	put(ms, "build_drive_s", t2 - t1);
	put(ms, "build_close_s", t4 - t3);
	put_int(ms, "intervals", (double)count);
	put(ms, "intervals_per_s", (double)count / build);
	put_int(ms, "changes", (double)wl_changes(&o->w));
	put(ms, "changes_per_s", (double)wl_changes(&o->w) / build);
	put_int(ms, "build_rss_start_bytes", (double)rss0);
}

/* ---- one run ------------------------------------------------------------- */

int state_run(struct state_opts *o, int run, struct metrics *out)
{
	struct metrics part;
	const char *strs[] = { "mode", "state", "type", "run",
			       "workload", shtgen_wl_name(&o->w.wl),
			       "backend", backend_name(o->backend),
			       "variant", variant_name(o->bo.variant),
			       NULL };
	int tree = o->backend == SHT_BACKEND_TREE;
	double mis = 0, a, b;
	int rc = 0;

	memset(out, 0, sizeof *out);
	put_int(out, "run", run);
	put_int(out, "size", (double)o->size);
	put_int(out, "threads", o->bo.threaded);
	put_int(out, "block_size", o->bo.block_size);
	put_int(out, "max_children", o->bo.max_children);
	if (o->w.wl.kind == SHTGEN_WL_STAIRCASE)
		put_int(out, "staircase_i", o->intervals);
	put_int(out, "no_sync", o->bo.no_sync);
	put_int(out, "seed", (double)o->seed);
	snprintf(o->path, sizeof o->path, "%s/sht-bench-state-%s-%" PRIu64
		 "-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 (long)getpid());
	snprintf(o->store_path, sizeof o->store_path, "%s/sht-bench-store-%s-%"
		 PRIu64 "-%ld.sht", o->dir, shtgen_wl_name(&o->w.wl), o->size,
		 (long)getpid());

	if (tree && !o->no_store) {
		struct store_opts *so = xmalloc(sizeof *so);
		struct stat st;

		note("run %d: store-only build %s", run, o->store_path);
		memset(so, 0, sizeof *so);
		so->w = o->w;
		so->bo = o->bo;
		strcpy(so->path, o->store_path);
		if (run_in_child("store_build_maxrss_bytes", "store_build_user_s",
				 NULL, phase_build, so, &part) < 0) {
			free(so);
			unlink(o->store_path);
			goto failed;
		}
		free(so);
		rename_metric(out, &part, "build_s", "store_build_s");
		rename_metric(out, &part, "intervals_per_s",
			      "store_intervals_per_s");
		rename_metric(out, &part, "store_build_maxrss_bytes",
			      "store_build_maxrss_bytes");
		rename_metric(out, &part, "store_build_user_s",
			      "store_build_user_s");
		if (stat(o->store_path, &st) == 0)
			put_int(out, "store_file_bytes", (double)st.st_size);
		unlink(o->store_path);
	}

	note("run %d: build (%s backend)", run, backend_name(o->backend));
	if (run_in_child(o->backend == SHT_BACKEND_MEMORY
				 ? "child_maxrss_bytes" : "build_maxrss_bytes",
			 NULL, NULL, phase_state_build, o, &part) < 0)
		goto failed;
	merge(out, &part);
	if (get(out, "build_s", &a) && get(out, "store_build_s", &b))
		put(out, "state_vs_store", a / b);

	if (tree) {
		note("run %d: opens and queries %s", run, o->path);
		if (run_in_child("query_maxrss_bytes", "query_user_s",
				 "query_sys_s", phase_state_query, o, &part) < 0)
			goto failed;
		merge(out, &part);
		if (get(out, "file_bytes", &a) &&
		    get(out, "store_file_bytes", &b))
			put_int(out, "state_extra_bytes", a - b);
		if (!o->keep)
			unlink(o->path);
	}
	if (get(out, "mismatches", &mis) && mis > 0)
		rc = (int)mis;
	metrics_print(strs, out);
	return rc;
failed:
	fprintf(stderr, "sht-bench: run %d failed: %s\n", run, part.err);
	if (!o->keep)
		unlink(o->path);
	return -1;
}
