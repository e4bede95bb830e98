/*
 * test-ctf.c: the CTF source (src/trace/ctf*.c) on the real LTTng traces
 * of $SHT_SHARED/traces, checked against stats/<trace>.json (produced
 * there with python3-bt2, see traces/README.md) and against what the
 * babeltrace2 CLI prints: counts, first / last timestamps, time order,
 * per-CPU counts, chosen field values, seeks, bad input, the time span
 * from the packet index (and from damaged copies of it), sht_state_run
 * over the source, and the environment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "rng.h"
#include "now.h"
#include "tap.h"
#include "trace-stats.h"
#include <shtgen/ctfw.h>

static char traces[2048];

/* ---- the traces --------------------------------------------------------- */

/*
 * Expected first sched_switch (or first event) of each trace, obtained
 * once with the babeltrace2 2.0.4 CLI:
 *   babeltrace2 --clock-seconds TRACE | grep -m1 sched_switch
 * (synctraces through `babeltrace2 run` with src.ctf.fs connected straight
 * to sink.text.pretty, see traces/README.md), e.g. for many-threads:
 *   [1457113582.794569892] wilbrod sched_switch: { cpu_id = 5 },
 *   { prev_comm = "swapper/5", prev_tid = 0, prev_prio = 20,
 *     prev_state = 0, next_comm = "lttng-consumerd", next_tid = 4297, ... }
 * and for context-switches-ust (head -1; procname and vtid are context
 * fields, addr is 0x804A291):
 *   [1450193697.034689597] qemu1 lttng_ust_cyg_profile:func_entry:
 *   { cpu_id = 0 }, { procname = "lemon_server", vtid = 589 },
 *   { addr = 0x804A291, call_site = 0x8049F3F }
 */
struct trace_case {
	const char *dir;          /* below traces/ */
	const char *json;         /* below traces/stats/ */
	const char *ev_name;      /* the chosen event: first of this name */
	int64_t ev_ts;
	int32_t ev_cpu;
	const char *f_int1;       /* integer field and value */
	int64_t v_int1;
	const char *f_int2;
	int64_t v_int2;
	const char *f_str;        /* string field and value */
	const char *v_str;
};

static const struct trace_case cases[] = {
	{ "many-threads", "many-threads.json", "sched_switch",
	  1457113582794569892, 5, "prev_tid", 0, "next_tid", 4297,
	  "prev_comm", "swapper/5" },
	{ "bug446190", "bug446190.json", "sched_switch",
	  1412670961211296639, 2, "prev_tid", 0, "next_tid", 496,
	  "next_comm", "lttng-consumerd" },
	{ "synctraces/scp_src", "synctraces_scp_src.json", "sched_switch",
	  1361214076525095952, 0, "prev_tid", 2274, "next_tid", 7416,
	  "prev_comm", "lttng-sessiond" },
	{ "synctraces/scp_dest", "synctraces_scp_dest.json", "sched_switch",
	  0, 0, NULL, 0, NULL, 0, NULL, NULL },
	{ "context-switches/context-switches-ust", "context-switches-ust.json",
	  "lttng_ust_cyg_profile:func_entry", 1450193697034689597, 0,
	  "addr", 0x804A291, "vtid", 589, "procname", "lemon_server" },
};

/*
 * Time spans (sht_ctf_time_span) of the traces that have an LTTng packet
 * index: the earliest timestamp_begin and latest timestamp_end of its
 * index files plus the clock offset (1 GHz clocks).  many-threads: the
 * packet index range of traces/README.md; bug446190: computed from its
 * index files with python3 (begin 7623273091389, end 7647710053489 cycles,
 * offset 1412663327522716450).  The other traces have no index/: no span.
 */
struct span_case {
	const char *dir;
	int64_t begin, end;
};

static const struct span_case span_cases[] = {
	{ "many-threads", 1457113582470818709, 1457113583460727377 },
	{ "bug446190", 1412670950795807839, 1412670975232769939 },
};

static const struct span_case *span_case_of(const char *dir)
{
	for (size_t k = 0; k < sizeof span_cases / sizeof span_cases[0]; k++)
		if (!strcmp(span_cases[k].dir, dir))
			return &span_cases[k];
	return NULL;
}

/* The span at open (err0, b0, e0) and now, after reading every event
 * (first .. last), against span_case_of(dir). */
static void check_span_read(const char *dir, const sht_source *src,
			    sht_err err0, sht_time b0, sht_time e0,
			    int64_t first, int64_t last)
{
	const struct span_case *sc = span_case_of(dir);
	sht_time b = 0, e = 0;
	sht_err err = sht_ctf_time_span(src, &b, &e);

	if (!sc) {
		is_int(err0, SHT_NOT_FOUND, "span %s: none at open (no index)",
		       dir);
		is_int(err, SHT_NOT_FOUND, "span %s: none at the end", dir);
		return;
	}
	is_int(err0, SHT_OK, "span %s: known at open", dir);
	is_i64(b0, sc->begin, "span %s: begin is the earliest packet begin",
	       dir);
	is_i64(e0, sc->end, "span %s: end is the latest packet end", dir);
	ok(err == SHT_OK && b == b0 && e == e0, "span %s: the same after "
	   "reading every event", dir);
	ok(b0 <= first && first <= last && last <= e0, "span %s: [%" PRId64
	   ", %" PRId64 "] holds the events [%" PRId64 ", %" PRId64 "]", dir,
	   b0, e0, first, last);
}

static int64_t field_int(const sht_event *ev, const char *name)
{
	sht_field f;

	switch (sht_event_field(ev, name, &f)) {
	case SHT_FIELD_INT: return f.v.i;
	case SHT_FIELD_UINT: return (int64_t)f.v.u;
	default: return INT64_MIN;
	}
}

static const char *field_str(const sht_event *ev, const char *name)
{
	sht_field f;

	return sht_event_field(ev, name, &f) == SHT_FIELD_STRING ? f.v.s : "(none)";
}

/* Each trace is read both ways: through babeltrace2's muxer, and by the
 * stream reader on 2 threads (test-ctf-par compares them event by
 * event). */
static void check_trace(const struct trace_case *tc, int muxer)
{
	sht_ctf_opts opts;
	char path[8192], jpath[8192];
	json_t *json;
	sht_source src;
	sht_event ev;
	sht_err err;
	int64_t per_cpu_exp[64] = { 0 }, per_cpu[64] = { 0 };
	uint64_t n = 0, backward = 0, unknown_cpu = 0;
	int64_t first = 0, last = 0, prev = INT64_MIN;
	int seen = 0;

	snprintf(path, sizeof path, "%s/%s", traces, tc->dir);
	snprintf(jpath, sizeof jpath, "%s/stats/%s", traces, tc->json);
	json = tstats_load(jpath);
	if (!ok(json != NULL, "%s: stats JSON readable", tc->dir))
		return;
	int n_streams = tstats_streams(json, per_cpu_exp, 64);

	sht_ctf_opts_init(&opts);
	opts.muxer = muxer;
	opts.jobs = muxer ? 0 : 2;
	diag("%s: read %s", tc->dir, muxer ? "through babeltrace2's muxer"
					   : "by the stream reader, 2 threads");
	err = sht_ctf_open(path, &opts, &src);
	if (!is_int(err, SHT_OK, "%s: opens", tc->dir)) {
		diag("%s", sht_errmsg());
		json_decref(json);
		return;
	}
	sht_time span_b = 0, span_e = 0;
	sht_err span_err = sht_ctf_time_span(&src, &span_b, &span_e);
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		if (n == 0)
			first = ev.ts;
		last = ev.ts;
		if (ev.ts < prev)
			backward++;
		prev = ev.ts;
		if (ev.pos != n && !seen)
			ok(0, "%s: pos %" PRIu64 " is the ordinal %" PRIu64,
			   tc->dir, ev.pos, n);
		if (ev.cpu >= 0 && ev.cpu < 64)
			per_cpu[ev.cpu]++;
		else
			unknown_cpu++;
		if (!seen && tc->ev_name && tc->f_int1 && ev.name &&
		    !strcmp(ev.name, tc->ev_name)) {
			seen = 1;
			is_i64(ev.ts, tc->ev_ts, "%s: first %s at the time "
			       "babeltrace2 prints", tc->dir, tc->ev_name);
			is_int(ev.cpu, tc->ev_cpu, "%s: its cpu", tc->dir);
			is_i64(field_int(&ev, tc->f_int1), tc->v_int1, "%s: its %s",
			       tc->dir, tc->f_int1);
			is_i64(field_int(&ev, tc->f_int2), tc->v_int2, "%s: its %s",
			       tc->dir, tc->f_int2);
			is_str(field_str(&ev, tc->f_str), tc->v_str, "%s: its %s",
			       tc->dir, tc->f_str);
			sht_field f;
			is_int(sht_event_field(&ev, "no_such_field", &f),
			       SHT_FIELD_NONE, "%s: an absent field is NONE",
			       tc->dir);
			ok((sht_ctf_event_bt(&ev) != NULL) == muxer,
			   "%s: babeltrace2 event reachable through the muxer "
			   "only", tc->dir);
		}
		n++;
	}
	is_int(err, SHT_END, "%s: reads to the end (%s)", tc->dir,
	       err == SHT_END ? "" : sht_errmsg());
	is_u64(n, (uint64_t)tstats_int(json, "events"), "%s: event count", tc->dir);
	is_i64(first, tstats_int(json, "first_ns"), "%s: first timestamp", tc->dir);
	is_i64(last, tstats_int(json, "last_ns"), "%s: last timestamp", tc->dir);
	is_u64(backward, 0, "%s: events in non-decreasing time", tc->dir);
	is_u64(unknown_cpu, 0, "%s: every event has a cpu", tc->dir);
	check_span_read(tc->dir, &src, span_err, span_b, span_e, first, last);
	int cpus_ok = n_streams > 0;
	for (int k = 0; k < 64; k++)
		if (per_cpu[k] != per_cpu_exp[k]) {
			diag("cpu %d: %" PRId64 " events, stats say %" PRId64, k,
			     per_cpu[k], per_cpu_exp[k]);
			cpus_ok = 0;
		}
	ok(cpus_ok, "%s: per-CPU counts match the %d per-stream counts",
	   tc->dir, n_streams);

	sht_source_stats st;
	src.ops->stats(src.src, &st);
	is_u64(st.events, n, "%s: stats count the events", tc->dir);
	is_u64(st.discarded_events, (uint64_t)tstats_int(json, "discarded_events"),
	       "%s: discarded events", tc->dir);
	is_u64(st.discarded_packets,
	       (uint64_t)tstats_int(json, "discarded_packets"),
	       "%s: discarded packets", tc->dir);
	sht_ctf_info info;
	is_int(sht_ctf_info_get(&src, &info), SHT_OK, "%s: info", tc->dir);
	is_int((int)info.streams, n_streams, "%s: one port per stream", tc->dir);
	is_int(info.muxed, n_streams > 1, "%s: muxer only for several streams",
	       tc->dir);
	is_int(src.ops->next(src.src, &ev), SHT_END, "%s: END again", tc->dir);
	sht_ctf_close(&src);
	ok(src.src == NULL, "%s: close zeroes the source", tc->dir);
	json_decref(json);
}

/* ---- seeks -------------------------------------------------------------- */

struct rec {
	int64_t ts;
	uint32_t name_hash;
	int32_t cpu;
	int64_t field;            /* first of a few common integer fields */
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void record(const sht_event *ev, struct rec *r)
{
	static const char *const names[] = { "prev_tid", "tid", "ret", "fd",
					     "irq", "vec", "cpu_id" };
	r->ts = ev->ts;
	r->name_hash = hash_str(ev->name);
	r->cpu = ev->cpu;
	r->field = INT64_MIN;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		int64_t v = field_int(ev, names[k]);
		if (v != INT64_MIN) {
			r->field = v;
			break;
		}
	}
}

static void check_seeks(const char *dir, uint32_t every)
{
	char path[8192];
	sht_ctf_opts opts;
	sht_source src;
	sht_event ev;
	struct rec *recs = NULL, r;
	size_t n = 0, cap = 0;
	sht_err err;

	snprintf(path, sizeof path, "%s/%s", traces, dir);
	sht_ctf_opts_init(&opts);
	opts.index_every = every;
	if (!is_int(sht_ctf_open(path, &opts, &src), SHT_OK, "seek %s/%u: opens",
		    dir, every))
		return;

	/* A seek before anything was read reads forward. */
	is_int(src.ops->seek(src.src, 1000), SHT_OK, "seek %s/%u: forward first",
	       dir, every);
	ok(src.ops->next(src.src, &ev) == SHT_OK && ev.pos == 1000,
	   "seek %s/%u: then delivers ordinal 1000", dir, every);
	is_int(src.ops->seek(src.src, 0), SHT_OK, "seek %s/%u: back to 0", dir,
	       every);

	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			recs = realloc(recs, cap * sizeof *recs);
			if (!recs)
				bail_out("out of memory");
		}
		record(&ev, &recs[n++]);
	}
	is_int(err, SHT_END, "seek %s/%u: full pass of %zu events", dir, every, n);
	if (n < 10) {
		free(recs);
		sht_ctf_close(&src);
		return;
	}

	/* Targets: ends, index neighbours, inside equal-timestamp runs,
	 * random. */
	uint64_t targets[80];
	size_t nt = 0;
	struct rng rng = RNG_INIT(42);
	targets[nt++] = 0;
	targets[nt++] = n - 1;
	targets[nt++] = 1;
	uint32_t sp = every ? every : 4096;   /* the index spacing */
	targets[nt++] = sp;
	targets[nt++] = sp - 1;
	targets[nt++] = sp + 1;
	targets[nt++] = n / 2;
	for (size_t k = 1; k < n && nt < 22; k++)
		if (recs[k].ts == recs[k - 1].ts && (k % 97 == 0 || nt < 12))
			targets[nt++] = k;    /* second of a run */
	size_t runs_first = nt;
	for (size_t k = n / 3; k < n && nt < runs_first + 4; k++)
		if (recs[k].ts == recs[k - 1].ts)
			targets[nt++] = k;
	while (nt < 60)
		targets[nt++] = rng_below(&rng, n);

	int bad = 0;
	double t0 = now_s();
	for (size_t k = 0; k < nt; k++) {
		uint64_t pos = targets[k];
		err = src.ops->seek(src.src, pos);
		if (err != SHT_OK) {
			diag("seek %" PRIu64 ": %s", pos, sht_errmsg());
			bad++;
			continue;
		}
		err = src.ops->next(src.src, &ev);
		if (err != SHT_OK) {
			diag("next after seek %" PRIu64 ": %d %s", pos, err,
			     sht_errmsg());
			bad++;
			continue;
		}
		record(&ev, &r);
		if (ev.pos != pos || r.ts != recs[pos].ts ||
		    r.name_hash != recs[pos].name_hash ||
		    r.cpu != recs[pos].cpu || r.field != recs[pos].field) {
			diag("seek %" PRIu64 ": got pos %" PRIu64 " ts %" PRId64
			     " cpu %d field %" PRId64 ", want ts %" PRId64
			     " cpu %d field %" PRId64, pos, ev.pos, r.ts, r.cpu,
			     r.field, recs[pos].ts, recs[pos].cpu,
			     recs[pos].field);
			bad++;
		}
		/* And the one after it. */
		if (pos + 1 < n && src.ops->next(src.src, &ev) == SHT_OK) {
			record(&ev, &r);
			if (ev.pos != pos + 1 || r.ts != recs[pos + 1].ts ||
			    r.name_hash != recs[pos + 1].name_hash)
				bad++;
		}
	}
	double dt = now_s() - t0;
	is_int(bad, 0, "seek %s/%u: %zu seeks deliver the event of that "
	       "ordinal", dir, every, nt);
	sht_ctf_info info;
	sht_ctf_info_get(&src, &info);
	diag("seek %s every=%u: %zu seeks in %.3f s (%.2f ms each), %" PRIu64
	     " repositionings, %" PRIu64 " events skipped, %" PRIu64
	     " rebuilds, %" PRIu64 " index entries", dir, every, nt, dt,
	     dt * 1e3 / (double)nt, info.seeks, info.seek_skipped,
	     info.rebuilds, info.index_entries);

	ok(src.ops->seek(src.src, n) == SHT_OK &&
	   src.ops->next(src.src, &ev) == SHT_END, "seek %s/%u: to the end, "
	   "then END", dir, every);
	is_int(src.ops->seek(src.src, n + 5), SHT_ERR_RANGE, "seek %s/%u: past "
	       "the end is SHT_ERR_RANGE", dir, every);
	ok(src.ops->seek(src.src, 3) == SHT_OK &&
	   src.ops->next(src.src, &ev) == SHT_OK && ev.pos == 3 &&
	   ev.ts == recs[3].ts, "seek %s/%u: usable after that", dir, every);
	sht_source_stats st;
	src.ops->stats(src.src, &st);
	is_u64(st.discarded_events, 0, "seek %s/%u: re-reads count no discards",
	       dir, every);
	free(recs);
	sht_ctf_close(&src);
}

/* ---- bad input ---------------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t got;
	int rc = 0;

	if (!in || !out)
		rc = -1;
	while (rc == 0 && (got = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, got, out) != got)
			rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		rc = -1;
	return rc;
}

static void expect_refused(const char *path, const char *what,
			   const char *needle)
{
	sht_source src = { 0 };
	sht_err err = sht_ctf_open(path, NULL, &src);

	ok(err < 0, "%s: refused (%s)", what, sht_errmsg());
	ok(src.src == NULL, "%s: out untouched", what);
	if (needle)
		ok(strstr(sht_errmsg(), needle) != NULL, "%s: message says \"%s\"",
		   what, needle);
	if (err == SHT_OK)
		sht_ctf_close(&src);
}

static void check_bad_input(const char *tmp)
{
	char path[4096], from[8400], to[8400];
	FILE *f;

	snprintf(path, sizeof path, "%s/no-such-dir", tmp);
	expect_refused(path, "missing directory", "No such file");

	snprintf(path, sizeof path, "%s/empty", tmp);
	mkdir(path, 0755);
	expect_refused(path, "empty directory", "no metadata");

	snprintf(path, sizeof path, "%s/garbage", tmp);
	mkdir(path, 0755);
	snprintf(to, sizeof to, "%s/metadata", path);
	f = fopen(to, "w");
	if (f) {
		fputs("this is not { CTF metadata ; at all\n", f);
		fclose(f);
	}
	snprintf(to, sizeof to, "%s/channel0_0", path);
	f = fopen(to, "w");
	if (f) {
		fputs("garbage stream\n", f);
		fclose(f);
	}
	expect_refused(path, "garbage metadata", "Cannot open CTF trace");

	snprintf(from, sizeof from, "%s/many-threads/metadata", traces);
	expect_refused(from, "a file, not a directory", "not a directory");

	snprintf(path, sizeof path, "%s/synctraces", traces);
	expect_refused(path, "directory holding two traces", "2 traces");

	/* Merging on request: two copies of context-switches-ust (3,934
	 * events each) give every event of both. */
	{
		sht_ctf_opts opts;
		sht_source src;
		sht_event ev;
		uint64_t n = 0;
		sht_err err;

		snprintf(path, sizeof path, "%s/two", tmp);
		mkdir(path, 0755);
		for (int k = 0; k < 2; k++) {
			snprintf(to, sizeof to, "%s/two/t%d", tmp, k);
			mkdir(to, 0755);
			const char *files[] = { "metadata", "channel0_0" };
			for (int j = 0; j < 2; j++) {
				snprintf(from, sizeof from,
					 "%s/context-switches/context-switches-ust/%s",
					 traces, files[j]);
				snprintf(to, sizeof to, "%s/two/t%d/%s", tmp, k,
					 files[j]);
				copy_file(from, to);
			}
		}
		sht_ctf_opts_init(&opts);
		opts.merge = 1;
		err = sht_ctf_open(path, &opts, &src);
		if (err == SHT_OK) {
			while ((err = src.ops->next(src.src, &ev)) == SHT_OK)
				n++;
			sht_ctf_close(&src);
		}
		ok(err == SHT_END && n == 2 * 3934, "merge of two traces on "
		   "request: %" PRIu64 " events, %s", n,
		   err == SHT_END ? "read" : sht_errmsg());
	}

	/* A truncated stream file, with and without the LTTng index. */
	for (int with_index = 0; with_index < 2; with_index++) {
		const char *t = "many-threads";
		sht_source src;
		sht_event ev;
		uint64_t n = 0;
		sht_err err;

		snprintf(path, sizeof path, "%s/trunc%d", tmp, with_index);
		mkdir(path, 0755);
		if (with_index) {
			snprintf(to, sizeof to, "%s/index", path);
			mkdir(to, 0755);
		}
		int copied = 0;
		for (int cpu = 0; cpu < 8; cpu++) {
			snprintf(from, sizeof from, "%s/%s/channel0_%d", traces, t,
				 cpu);
			snprintf(to, sizeof to, "%s/channel0_%d", path, cpu);
			copied += copy_file(from, to) == 0;
			if (with_index) {
				snprintf(from, sizeof from,
					 "%s/%s/index/channel0_%d.idx", traces, t,
					 cpu);
				snprintf(to, sizeof to, "%s/index/channel0_%d.idx",
					 path, cpu);
				copy_file(from, to);
			}
		}
		snprintf(from, sizeof from, "%s/%s/metadata", traces, t);
		snprintf(to, sizeof to, "%s/metadata", path);
		copied += copy_file(from, to) == 0;
		snprintf(to, sizeof to, "%s/channel0_1", path);
		struct stat sb;
		if (!ok(copied == 9 && stat(to, &sb) == 0 &&
			truncate(to, sb.st_size / 2 + 123) == 0,
			"truncated copy %d made", with_index))
			continue;
		err = sht_ctf_open(path, NULL, &src);
		if (err == SHT_OK) {
			while ((err = src.ops->next(src.src, &ev)) == SHT_OK)
				n++;
			if (err < 0)
				is_int(src.ops->next(src.src, &ev), SHT_ERR_STATE,
				       "truncated stream %d: the source stays "
				       "failed", with_index);
			sht_ctf_close(&src);
		}
		ok(err < 0 && sht_errmsg()[0] != '\0',
		   "truncated stream %s index: error after %" PRIu64
		   " events (%s)", with_index ? "with" : "without", n,
		   sht_errmsg());
	}
}

/* ---- the time span from a damaged index --------------------------------- */

/* A copy of bug446190 (4 streams) whose index/channel0_1.idx is damaged
 * one way each: the span is unknown, never wrong, and the trace reads. */
#define SPAN_TRACE "bug446190"
#define SPAN_STREAMS 4
#define SPAN_EVENTS 31556

enum damage {
	DAMAGE_NONE,              /* the intact copy */
	DAMAGE_MID_ENTRY,         /* truncated inside the last entry */
	DAMAGE_IN_HEADER,         /* truncated inside the header */
	DAMAGE_EMPTY,             /* truncated to nothing */
	DAMAGE_LAST_ENTRY,        /* the last entry cut off (a whole one) */
	DAMAGE_MAGIC,             /* not the index magic */
	DAMAGE_ENTRY_LEN,         /* absurd packet_index_len */
	DAMAGE_STREAM_ID,         /* a stream class the trace does not have */
	DAMAGE_BEGIN_AFTER_END,   /* timestamp_begin > timestamp_end */
	DAMAGE_END_OVERFLOW,      /* timestamp_end past INT64_MAX ns */
	DAMAGE_MISSING,           /* no index file for that stream */
	DAMAGE_COUNT
};

static const char *const damage_names[DAMAGE_COUNT] = {
	"intact copy", "truncated mid-entry", "truncated in the header",
	"empty", "last entry cut off", "bad magic", "bad entry length",
	"unknown stream id", "begin after end", "end overflows", "missing",
};

/* Copy traces/SPAN_TRACE (metadata, streams, index) into the new
 * directory dir: 0, or -1. */
static int copy_span_trace(const char *dir)
{
	char from[8400], to[8400];
	int rc = 0;

	snprintf(to, sizeof to, "%s/index", dir);
	if (mkdir(dir, 0755) != 0 || mkdir(to, 0755) != 0)
		return -1;
	snprintf(from, sizeof from, "%s/%s/metadata", traces, SPAN_TRACE);
	snprintf(to, sizeof to, "%s/metadata", dir);
	rc |= copy_file(from, to);
	for (int k = 0; k < SPAN_STREAMS; k++) {
		snprintf(from, sizeof from, "%s/%s/channel0_%d", traces,
			 SPAN_TRACE, k);
		snprintf(to, sizeof to, "%s/channel0_%d", dir, k);
		rc |= copy_file(from, to);
		snprintf(from, sizeof from, "%s/%s/index/channel0_%d.idx",
			 traces, SPAN_TRACE, k);
		snprintf(to, sizeof to, "%s/index/channel0_%d.idx", dir, k);
		rc |= copy_file(from, to);
	}
	return rc;
}

/* Overwrite the byte at off of path with v: 0, or -1. */
static int poke(const char *path, long off, int v)
{
	FILE *f = fopen(path, "r+b");
	int rc = -1;

	if (!f)
		return -1;
	if (fseek(f, off, SEEK_SET) == 0 && fputc(v, f) == v)
		rc = 0;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

/* Damage index file idx (header 16 bytes, entries of 56: offset,
 * packet_size, content_size, timestamp_begin, timestamp_end,
 * events_discarded, stream_id; big-endian u64). */
static int damage_index(const char *idx, enum damage d)
{
	struct stat sb;

	if (stat(idx, &sb) != 0 || sb.st_size < 16 + 2 * 56)
		return -1;
	switch (d) {
	case DAMAGE_NONE: return 0;
	case DAMAGE_MID_ENTRY: return truncate(idx, sb.st_size - 20);
	case DAMAGE_IN_HEADER: return truncate(idx, 10);
	case DAMAGE_EMPTY: return truncate(idx, 0);
	case DAMAGE_LAST_ENTRY: return truncate(idx, sb.st_size - 56);
	case DAMAGE_MAGIC: return poke(idx, 0, 0x00);
	case DAMAGE_ENTRY_LEN: return poke(idx, 12, 0xff);
	case DAMAGE_STREAM_ID: return poke(idx, 16 + 48 + 7, 99);
	case DAMAGE_BEGIN_AFTER_END: return poke(idx, 16 + 24, 0x7f);
	case DAMAGE_END_OVERFLOW: return poke(idx, 16 + 32, 0x7f);
	case DAMAGE_MISSING: return unlink(idx);
	default: return -1;
	}
}

static void check_span_damaged(const char *tmp, enum damage d)
{
	const struct span_case *sc = span_case_of(SPAN_TRACE);
	const char *what = damage_names[d];
	char dir[4200], idx[4300];
	sht_time b = 0, e = 0;
	sht_source src;
	sht_event ev;
	uint64_t n = 0;
	sht_err err;

	snprintf(dir, sizeof dir, "%s/span%d", tmp, (int)d);
	snprintf(idx, sizeof idx, "%s/index/channel0_1.idx", dir);
	if (!ok(copy_span_trace(dir) == 0 && damage_index(idx, d) == 0,
		"span, index %s: copy made", what))
		return;
	err = sht_ctf_open(dir, NULL, &src);
	if (!is_int(err, SHT_OK, "span, index %s: the trace opens (%s)", what,
		    err == SHT_OK ? "ok" : sht_errmsg()))
		return;
	err = sht_ctf_time_span(&src, &b, &e);
	if (d == DAMAGE_NONE)
		ok(err == SHT_OK && b == sc->begin && e == sc->end,
		   "span, index %s: the original's span", what);
	else
		ok(err == SHT_NOT_FOUND && b == 0 && e == 0,
		   "span, index %s: unknown (SHT_NOT_FOUND), begin / end "
		   "untouched", what);
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK)
		n++;
	ok(err == SHT_END && n == SPAN_EVENTS, "span, index %s: the trace "
	   "reads, %" PRIu64 " events (%s)", what, n,
	   err == SHT_END ? "end" : sht_errmsg());
	sht_ctf_close(&src);
}

/* A trace written by ctfw (src/gen/include/shtgen/ctfw.h): index version 1.1 (72-byte
 * entries), 2 CPUs, 4 KiB packets whose timestamp_begin / _end are their
 * first / last event's: the span is exactly the events' range. */
static void check_span_v11(const char *tmp)
{
	static const shtgen_ctfw_field fields[] = { { "v", SHTGEN_CTFW_S64 } };
	const sht_time t0 = 1500000000000000000;
	shtgen_ctfw_opts wo = { 2, 4096, t0 - 1000000, NULL };
	shtgen_ctfw *w = NULL;
	sht_field val = { SHT_FIELD_INT, { .i = 0 } };
	sht_time b = 0, e = 0, last = t0;
	sht_source src;
	char dir[4200];
	sht_err err;
	uint32_t id;

	snprintf(dir, sizeof dir, "%s/span-v11", tmp);
	err = shtgen_ctfw_create(dir, &wo, &w);
	if (err == SHT_OK)
		err = shtgen_ctfw_event_class(w, "tick", fields, 1, &id);
	for (int k = 0; err == SHT_OK && k < 2000; k++) {
		last = t0 + 37 * k + 11 * (k % 2);
		val.v.i = k;
		err = shtgen_ctfw_event(w, id, last, (uint32_t)(k % 2), &val);
	}
	if (err == SHT_OK)
		err = shtgen_ctfw_finish(w, NULL);
	shtgen_ctfw_destroy(w);
	if (!is_int(err, SHT_OK, "span v1.1: trace written (%s)",
		    err == SHT_OK ? "ok" : sht_errmsg()) ||
	    !is_int(sht_ctf_open(dir, NULL, &src), SHT_OK, "span v1.1: opens"))
		return;
	err = sht_ctf_time_span(&src, &b, &e);
	ok(err == SHT_OK && b == t0 && e == last, "span v1.1: [%" PRId64 ", %"
	   PRId64 "] is the events' [%" PRId64 ", %" PRId64 "]", b, e, t0,
	   last);
	sht_ctf_close(&src);
}

static void check_span(const char *tmp)
{
	sht_source none = { NULL, NULL };
	sht_source src;
	sht_time b = 0, e = 0;
	char path[4200];

	is_int(sht_ctf_time_span(&none, &b, &e), SHT_ERR_INVALID,
	       "span: not a CTF source is SHT_ERR_INVALID");
	is_int(sht_ctf_time_span(NULL, &b, &e), SHT_ERR_INVALID,
	       "span: NULL source is SHT_ERR_INVALID");
	snprintf(path, sizeof path, "%s/many-threads", traces);
	if (is_int(sht_ctf_open(path, NULL, &src), SHT_OK, "span: opens")) {
		is_int(sht_ctf_time_span(&src, NULL, &e), SHT_ERR_INVALID,
		       "span: NULL begin is SHT_ERR_INVALID");
		is_int(sht_ctf_time_span(&src, &b, NULL), SHT_ERR_INVALID,
		       "span: NULL end is SHT_ERR_INVALID");
		sht_ctf_close(&src);
	}
	for (int d = 0; d < DAMAGE_COUNT; d++)
		check_span_damaged(tmp, (enum damage)d);
	check_span_v11(tmp);
}

/* ---- sht_state_run over the source ------------------------------------- */

static sht_err count_handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	const char *elems[2] = { "counts", ev->name ? ev->name : "(null)" };
	sht_quark q;
	sht_err err;

	(void)ctx;
	err = sht_state_quark(ss, SHT_QUARK_ROOT, elems, 2, &q);
	if (err != SHT_OK)
		return err;
	return sht_state_increment(ss, ev->ts, q, 1);
}

static void check_state_run(const struct trace_case *tc)
{
	char path[8192], jpath[8192];
	struct tstats_count *names;
	sht_state_opts so;
	sht_state *ss = NULL;
	sht_source src;
	uint64_t events = 0, skipped = 0;
	json_t *json;
	size_t n_names;

	snprintf(path, sizeof path, "%s/%s", traces, tc->dir);
	snprintf(jpath, sizeof jpath, "%s/stats/%s", traces, tc->json);
	json = tstats_load(jpath);
	names = calloc(1024, sizeof *names);
	if (!json || !names) {
		ok(0, "run %s: stats", tc->dir);
		json_decref(json);
		free(names);
		return;
	}
	n_names = tstats_names(json, names, 1024);
	ok(n_names == (size_t)tstats_int(json, "distinct_names"),
	   "run %s: %zu names in the stats", tc->dir, n_names);
	if (!is_int(sht_ctf_open(path, NULL, &src), SHT_OK, "run %s: opens",
		    tc->dir))
		goto out;
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_MEMORY;
	is_int(sht_state_create(NULL, tstats_int(json, "first_ns"), &so, &ss),
	       SHT_OK, "run %s: state created", tc->dir);
	sht_provider p = { "test-ctf-counts", 1, count_handle, NULL, NULL, NULL, NULL };
	is_int(sht_state_run(ss, &src, &p, &events, &skipped), SHT_OK,
	       "run %s: runs (%s)", tc->dir, sht_errmsg());
	is_u64(events, (uint64_t)tstats_int(json, "events"), "run %s: events",
	       tc->dir);
	int good = 0;
	for (size_t k = 0; k < n_names; k++) {
		const char *elems[2] = { "counts", names[k].name };
		sht_quark q;
		sht_value v;
		sht_time since;
		int64_t got = -1;
		if (sht_state_quark_find(ss, SHT_QUARK_ROOT, elems, 2, &q) ==
			    SHT_OK &&
		    sht_state_ongoing(ss, q, &v, &since) == SHT_OK)
			got = v.type == SHT_TYPE_INT32 ? v.u.i32 :
			      v.type == SHT_TYPE_INT64 ? v.u.i64 : -1;
		if (got == names[k].count)
			good++;
		else
			diag("%s: %s counted %" PRId64 ", stats say %" PRId64,
			     tc->dir, names[k].name, got, names[k].count);
	}
	is_int(good, (int)n_names, "run %s: every per-name count matches",
	       tc->dir);
	const sht_quark *kids;
	size_t n_kids = 0;
	sht_quark counts;
	if (sht_state_quark_path(ss, "counts", false, &counts) == SHT_OK)
		sht_state_attr_children(ss, counts, &kids, &n_kids);
	is_int((int)n_kids, (int)n_names, "run %s: no other names", tc->dir);
	sht_state_close(ss);
	sht_ctf_close(&src);
out:
	free(names);
	json_decref(json);
}

/* ---- the trace environment (sht_ctf_env) --------------------------------- */

/* Expected env per trace: from stats/<trace>.json (python3-bt2) and
 * babeltrace2 --output-format=ctf-metadata; traces/README.md. */
struct env_case {
	const char *dir;
	const char *tracer_name, *domain, *hostname, *kernel_release;
	int64_t major, minor;
	uint64_t entries;        /* env entries in the metadata */
	sht_kernel_layout layout; /* what §5 picks from them */
};

static const struct env_case env_cases[] = {
	{ "many-threads", "lttng-modules", "kernel", "wilbrod", "4.4.3-1-ARCH",
	  2, 8, 9, SHT_KERNEL_LAYOUT_LTTNG_2_7 },
	{ "bug446190", "lttng-modules", "kernel", "lager", "3.10.31-ltsi",
	  2, 5, 9, SHT_KERNEL_LAYOUT_LTTNG_2_0 },
	{ "synctraces/scp_src", "lttng-modules", "kernel", "VM1",
	  "3.6.11-1-ARCH", 2, 1, 9, SHT_KERNEL_LAYOUT_LTTNG_2_0 },
	{ "synctraces/scp_dest", "lttng-modules", "kernel", "VM3",
	  "3.6.11-1-ARCH", 2, 1, 9, SHT_KERNEL_LAYOUT_LTTNG_2_0 },
	{ "context-switches/context-switches-ust", "lttng-ust", "ust", "qemu1",
	  NULL, 2, 6, 5, SHT_KERNEL_LAYOUT_LTTNG_2_0 },
};

static const char *env_str(const sht_source *src, const char *name)
{
	sht_field f;

	if (sht_ctf_env(src, name, &f) != SHT_OK || f.type != SHT_FIELD_STRING)
		return "(none)";
	return f.v.s;
}

static int64_t env_int(const sht_source *src, const char *name)
{
	sht_field f;

	if (sht_ctf_env(src, name, &f) != SHT_OK)
		return INT64_MIN;
	return f.type == SHT_FIELD_INT ? f.v.i :
	       f.type == SHT_FIELD_UINT ? (int64_t)f.v.u : INT64_MIN;
}

static void check_env_values(const struct env_case *ec, const sht_source *src,
			     const char *when)
{
	is_str(env_str(src, "tracer_name"), ec->tracer_name,
	       "env %s %s: tracer_name", ec->dir, when);
	is_i64(env_int(src, "tracer_major"), ec->major,
	       "env %s %s: tracer_major", ec->dir, when);
	is_i64(env_int(src, "tracer_minor"), ec->minor,
	       "env %s %s: tracer_minor", ec->dir, when);
	is_str(env_str(src, "hostname"), ec->hostname, "env %s %s: hostname",
	       ec->dir, when);
	is_str(env_str(src, "domain"), ec->domain, "env %s %s: domain",
	       ec->dir, when);
}

static void check_env(const struct env_case *ec)
{
	char path[8192], major[32], minor[32];
	sht_source src;
	sht_field f;
	sht_event ev;
	sht_err err;

	snprintf(path, sizeof path, "%s/%s", traces, ec->dir);
	if (!is_int(sht_ctf_open(path, NULL, &src), SHT_OK, "env %s: opens",
		    ec->dir))
		return;
	/* Known at open, before any event. */
	check_env_values(ec, &src, "at open");
	if (ec->kernel_release)
		is_str(env_str(&src, "kernel_release"), ec->kernel_release,
		       "env %s: kernel_release", ec->dir);
	else
		is_int(sht_ctf_env(&src, "kernel_release", &f), SHT_NOT_FOUND,
		       "env %s: no kernel_release (userspace)", ec->dir);
	is_int(sht_ctf_env(&src, "tracer_name", &f), SHT_OK,
	       "env %s: tracer_name found", ec->dir);
	ok(f.type == SHT_FIELD_STRING, "env %s: tracer_name is a string",
	   ec->dir);
	is_int(sht_ctf_env(&src, "tracer_major", &f), SHT_OK,
	       "env %s: tracer_major found", ec->dir);
	ok(f.type == SHT_FIELD_INT, "env %s: tracer_major is an INT (CTF 1.8 "
	   "integers are signed in babeltrace2)", ec->dir);
	f.type = SHT_FIELD_INT;
	is_int(sht_ctf_env(&src, "no_such_entry", &f), SHT_NOT_FOUND,
	       "env %s: missing entry is SHT_NOT_FOUND", ec->dir);
	ok(f.type == SHT_FIELD_NONE, "env %s: missing entry gives NONE",
	   ec->dir);

	/* Enumeration: every entry once, names and values agree with the
	 * look-up by name. */
	uint64_t n = 0;
	int agree = 1;
	const char *name;
	while ((err = sht_ctf_env_entry(&src, n, &name, &f)) == SHT_OK) {
		sht_field g;
		if (!name || sht_ctf_env(&src, name, &g) != SHT_OK ||
		    g.type != f.type ||
		    (f.type == SHT_FIELD_STRING ? strcmp(f.v.s, g.v.s) != 0 :
		     f.v.u != g.v.u))
			agree = 0;
		n++;
	}
	is_int(err, SHT_NOT_FOUND, "env %s: enumeration ends with NOT_FOUND",
	       ec->dir);
	is_u64(n, ec->entries, "env %s: %" PRIu64 " entries", ec->dir,
	       ec->entries);
	ok(agree, "env %s: entries by index agree with entries by name",
	   ec->dir);

	snprintf(major, sizeof major, "%" PRId64, env_int(&src, "tracer_major"));
	snprintf(minor, sizeof minor, "%" PRId64, env_int(&src, "tracer_minor"));
	is_int((int)sht_kernel_layout_from_env(env_str(&src, "tracer_name"),
					       major, minor),
	       (int)ec->layout, "env %s: kernel layout from the env", ec->dir);

	/* Unchanged by reading, by reading to the end, and by seeks. */
	for (int k = 0; k < 100 && src.ops->next(src.src, &ev) == SHT_OK; k++)
		;
	check_env_values(ec, &src, "after 100 events");
	while (src.ops->next(src.src, &ev) == SHT_OK)
		;
	check_env_values(ec, &src, "at the end");
	is_int(src.ops->seek(src.src, 0), SHT_OK, "env %s: seek 0", ec->dir);
	check_env_values(ec, &src, "after seek 0");
	sht_ctf_close(&src);
}

static void check_env_bad(void)
{
	sht_source none = { NULL, NULL };
	sht_field f;
	const char *name = "x";

	is_int(sht_ctf_env(&none, "tracer_name", &f), SHT_ERR_INVALID,
	       "env: not a CTF source is SHT_ERR_INVALID");
	is_int(sht_ctf_env(NULL, "tracer_name", &f), SHT_ERR_INVALID,
	       "env: NULL source is SHT_ERR_INVALID");
	is_int(sht_ctf_env_entry(&none, 0, &name, &f), SHT_ERR_INVALID,
	       "env entry: not a CTF source is SHT_ERR_INVALID");
	ok(name == NULL, "env entry: name reset on error");
}

/* Regression: babeltrace2 2.0.4's src.ctf.fs, once seeked to its
 * beginning, gave an empty text field an earlier event's text.  Event
 * 3661 of many-threads (syscall_entry_access) has filename "" (as the
 * babeltrace2 CLI prints it); it must stay "" after a full read and a
 * seek back to 0. */
static void check_seek_text(void)
{
	char path[PATH_MAX];
	sht_source src;
	sht_event ev;
	sht_field f;
	int found = 0;

	snprintf(path, sizeof path, "%s/many-threads", traces);
	if (!ok(sht_ctf_open(path, NULL, &src) == SHT_OK, "seek/text: open many-threads"))
		return;
	while (src.ops->next(src.src, &ev) == SHT_OK)
		;
	ok(src.ops->seek(src.src, 0) == SHT_OK, "seek/text: back to 0 after a full read");
	while (!found && src.ops->next(src.src, &ev) == SHT_OK)
		found = ev.pos == 3661;
	ok(found && strcmp(ev.name, "syscall_entry_access") == 0 &&
	   sht_event_field(&ev, "filename", &f) == SHT_FIELD_STRING && strcmp(f.v.s, "") == 0,
	   "seek/text: event 3661's empty filename stays empty after the seek");
	sht_ctf_close(&src);
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED");
	const char *tmp = getenv("SHT_TMP");
	struct stat sb;

	if (!shared)
		shared = "../shared";
	snprintf(traces, sizeof traces, "%s/traces", shared);
	if (stat(traces, &sb) != 0 || !S_ISDIR(sb.st_mode))
		skip_all("no real traces: %s is absent (set SHT_SHARED)", traces);
	if (!tmp)
		tmp = ".";

	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		check_trace(&cases[k], 1);
		check_trace(&cases[k], 0);
	}
	check_seeks("many-threads", 0);   /* default index spacing */
	check_seeks("many-threads", 3);   /* marks inside equal-ts runs */
	check_seeks("synctraces/scp_src", 1000); /* no muxer */
	check_seek_text();
	check_bad_input(tmp);
	check_span(tmp);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
		check_state_run(&cases[k]);
	for (size_t k = 0; k < sizeof env_cases / sizeof env_cases[0]; k++)
		check_env(&env_cases[k]);
	check_env_bad();
	return done_testing();
}
