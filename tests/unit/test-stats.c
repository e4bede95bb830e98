/*
 * test-stats.c: the event statistics analysis (sht/analysis.h).
 *
 * Synthetic events (same-timestamp bursts, unknown CPU, unnamed events,
 * a "/" in a name, a CPU beyond the quark cache, a name pointer reused for
 * another text) through sht_state_run into memory, partial and null
 * backends: every counter at every time against a brute-force count, the
 * attribute layout and creation order.  Then the real traces of
 * $SHT_SHARED/traces: final counts per event name and per CPU against
 * stats/<trace>.json, and a partial history of bug446190 (a checkpoint
 * every 1000 events) answering as the full history at 200 random times.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"
#include "rng.h"
#include "tap.h"
#include "trace-stats.h"

static char tmpdir[4096];

/* ---- synthetic source ---------------------------------------------------- */

struct sev {
	sht_time ts;
	const char *name;           /* NULL: unnamed */
	int32_t cpu;
	int reuse;                  /* delivered through the shared buffer */
};

static const struct sev SEVS[] = {
	{ 10, "A", 0, 0 },
	{ 20, "B", 1, 0 },
	{ 20, "A", 1, 0 },
	{ 20, "A", 1, 0 },
	{ 30, "A", -1, 0 },
	{ 40, NULL, 0, 0 },
	{ 50, "x/y", 0, 0 },
	{ 60, "B", 5000, 0 },
	{ 70, "C", 0, 1 },
	{ 80, "D", 0, 1 },
	{ 80, "A", 0, 0 },
	{ 80, "A", -1, 0 },
	{ 90, "C", 0, 1 },
	{ 100, "B", 1, 0 },
};
#define NSEVS (sizeof SEVS / sizeof SEVS[0])
#define SYN_END 110

struct syn {
	size_t i;
	char buf[8];                /* one pointer, several names */
};

static sht_err syn_next(void *p, sht_event *ev)
{
	struct syn *s = p;
	const struct sev *e;

	if (s->i >= NSEVS)
		return SHT_END;
	e = &SEVS[s->i];
	memset(ev, 0, sizeof *ev);
	ev->ts = e->ts;
	ev->pos = s->i;
	ev->cpu = e->cpu;
	if (e->reuse) {
		snprintf(s->buf, sizeof s->buf, "%s", e->name);
		ev->name = s->buf;
	} else {
		ev->name = e->name;
	}
	s->i++;
	return SHT_OK;
}

static sht_err syn_seek(void *p, uint64_t pos)
{
	struct syn *s = p;

	if (pos > NSEVS)
		return SHT_ERR_RANGE;
	s->i = (size_t)pos;
	return SHT_OK;
}

static const sht_source_ops SYN_OPS = { syn_next, syn_seek, NULL, NULL, NULL };

/* Brute force: events with ts <= t, of name (NULL: any) on cpu (-2: any). */
static int64_t syn_count(sht_time t, const char *name, int32_t cpu)
{
	int64_t n = 0;

	for (size_t i = 0; i < NSEVS; i++) {
		const struct sev *e = &SEVS[i];

		if (e->ts > t)
			continue;
		if (name && (!e->name || strcmp(e->name, name) != 0))
			continue;
		if (cpu != -2 && e->cpu != cpu)
			continue;
		n++;
	}
	return n;
}

/* Creation order expected (paths joined with "/"). */
static const char *const SYN_ATTRS[] = {
	"total", "event_types", "event_types/A", "cpus", "cpus/0", "cpus/0/total",
	"cpus/0/event_types", "cpus/0/event_types/A",
	"event_types/B", "cpus/1", "cpus/1/total", "cpus/1/event_types",
	"cpus/1/event_types/B",
	"cpus/1/event_types/A",
	"event_types/x/y", "cpus/0/event_types/x/y",
	"cpus/5000", "cpus/5000/total", "cpus/5000/event_types",
	"cpus/5000/event_types/B",
	"event_types/C", "cpus/0/event_types/C",
	"event_types/D", "cpus/0/event_types/D",
};
#define NSYN_ATTRS (sizeof SYN_ATTRS / sizeof SYN_ATTRS[0])

/* Value of the counter q at t: count (0 for null), -1 on error or a
 * non-int64 value. */
static int64_t counter_at(sht_state *ss, sht_result *res, sht_quark q, sht_time t)
{
	const sht_interval *iv;

	if (sht_state_query(ss, q, t, res) != SHT_OK || sht_result_count(res) != 1)
		return -1;
	iv = sht_result_at(res, 0);
	if (iv->value.type == SHT_TYPE_NULL)
		return 0;
	if (iv->value.type != SHT_TYPE_INT64)
		return -1;
	return iv->value.u.i64;
}

static int64_t path_at(sht_state *ss, sht_result *res, const char *const *elems, size_t n,
		       sht_time t)
{
	sht_quark q;
	sht_err err = sht_state_quark_find(ss, SHT_QUARK_ROOT, elems, n, &q);

	if (err == SHT_NOT_FOUND)
		return 0;
	if (err != SHT_OK)
		return -1;
	return counter_at(ss, res, q, t);
}

/* Every counter at every time 0 .. SYN_END against the brute force. */
static void check_syn_values(const char *what, sht_state *ss, sht_result *res)
{
	static const char *const names[] = { "A", "B", "x/y", "C", "D", "E" };
	static const int32_t cpus[] = { 0, 1, 5000, 2 };
	char cb[16];
	int bad = 0;

	for (sht_time t = 0; t <= SYN_END; t++) {
		const char *p[4];
		int64_t got, want;

		p[0] = "total";
		if ((got = path_at(ss, res, p, 1, t)) != (want = syn_count(t, NULL, -2)) && bad++ < 5)
			diag("%s: total at %" PRId64 ": %" PRId64 ", want %" PRId64, what, t, got, want);
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			p[0] = "event_types";
			p[1] = names[i];
			if ((got = path_at(ss, res, p, 2, t)) != (want = syn_count(t, names[i], -2)) &&
			    bad++ < 5)
				diag("%s: event_types/%s at %" PRId64 ": %" PRId64 ", want %" PRId64,
				     what, names[i], t, got, want);
		}
		for (size_t c = 0; c < sizeof cpus / sizeof cpus[0]; c++) {
			snprintf(cb, sizeof cb, "%d", (int)cpus[c]);
			p[0] = "cpus";
			p[1] = cb;
			p[2] = "total";
			if ((got = path_at(ss, res, p, 3, t)) != (want = syn_count(t, NULL, cpus[c])) &&
			    bad++ < 5)
				diag("%s: cpus/%s/total at %" PRId64 ": %" PRId64 ", want %" PRId64,
				     what, cb, t, got, want);
			for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
				p[2] = "event_types";
				p[3] = names[i];
				got = path_at(ss, res, p, 4, t);
				want = syn_count(t, names[i], cpus[c]);
				if (got != want && bad++ < 5)
					diag("%s: cpus/%s/event_types/%s at %" PRId64 ": %" PRId64
					     ", want %" PRId64, what, cb, names[i], t, got, want);
			}
		}
	}
	ok(bad == 0, "%s: every counter at every time 0..%d is the brute-force count", what,
	   SYN_END);
}

static void check_syn_layout(const char *what, sht_state *ss)
{
	char buf[256];
	size_t need;
	int bad = 0;

	is_u64(sht_state_attr_count(ss), NSYN_ATTRS, "%s: attribute count", what);
	for (size_t q = 0; q < NSYN_ATTRS && q < sht_state_attr_count(ss); q++) {
		if (sht_state_attr_path(ss, (sht_quark)q, buf, sizeof buf, &need) != SHT_OK ||
		    strcmp(buf, SYN_ATTRS[q]) != 0) {
			if (bad++ < 5)
				diag("%s: quark %zu is %s, want %s", what, q, buf, SYN_ATTRS[q]);
		}
	}
	ok(bad == 0, "%s: attribute paths in creation order", what);

	/* "x/y" is one element below event_types. */
	const char *name = NULL;
	size_t len = 0;
	sht_quark parent = SHT_QUARK_NONE;
	ok(sht_state_attr_name(ss, 14, &name, &len) == SHT_OK && len == 3 &&
	   memcmp(name, "x/y", 3) == 0 && sht_state_attr_parent(ss, 14, &parent) == SHT_OK &&
	   parent == 1, "%s: a \"/\" in an event name stays in one element", what);
}

static void check_syn_intervals(const char *what, sht_state *ss, sht_result *res)
{
	const sht_interval *iv;
	sht_quark q;
	int good;

	/* total: null [0,9], 1 [10,19], 4 [20,29] (one interval for the
	 * burst of three at 20), ... */
	if (!ok(sht_state_quark_path(ss, "total", false, &q) == SHT_OK, "%s: total exists", what))
		return;
	good = sht_state_query_range(ss, q, 0, SYN_END, 0, res) == SHT_OK &&
	       sht_result_count(res) >= 3;
	iv = good ? sht_result_items(res) : NULL;
	good = good && iv[0].start == 0 && iv[0].end == 9 && iv[0].value.type == SHT_TYPE_NULL &&
	       iv[1].start == 10 && iv[1].end == 19 && iv[1].value.type == SHT_TYPE_INT64 &&
	       iv[1].value.u.i64 == 1 && iv[2].start == 20 && iv[2].end == 29 &&
	       iv[2].value.u.i64 == 4;
	ok(good, "%s: total is null, then 1, then 4 for the burst at 20 (one interval)", what);
	/* One interval per distinct timestamp with events, plus the null. */
	size_t want = 1;
	for (size_t i = 0; i < NSEVS; i++)
		want += i == 0 || SEVS[i].ts != SEVS[i - 1].ts;
	is_u64(sht_result_count(res), want, "%s: total: one interval per event timestamp", what);
	/* Unknown CPU: counted in total and event_types only. */
	is_i64(counter_at(ss, res, q, 30), 5, "%s: total at 30 counts the unknown-CPU event",
	       what);
	ok(sht_state_quark_path(ss, "cpus/-1", false, &q) == SHT_NOT_FOUND,
	   "%s: no cpus/-1 attribute", what);
	ok(sht_state_quark_path(ss, "event_types/", false, &q) == SHT_NOT_FOUND,
	   "%s: no attribute for the unnamed event", what);
	is_i64(counter_at(ss, res, 5, 40), 2, "%s: cpus/0/total counts the unnamed event", what);
	is_i64(counter_at(ss, res, 2, 40), 4, "%s: event_types/A at 40", what);
	is_i64(counter_at(ss, res, 2, SYN_END), 6, "%s: event_types/A at the end", what);
	is_i64(counter_at(ss, res, 7, 80), 2, "%s: cpus/0/event_types/A at 80", what);
	is_i64(counter_at(ss, res, 21, 90), 2,
	       "%s: cpus/0/event_types/C at 90 (name pointer reused)", what);
	is_i64(counter_at(ss, res, 23, 90), 1, "%s: cpus/0/event_types/D at 90", what);
}

static sht_state *syn_build(const char *what, sht_backend backend, const char *path,
			    sht_evstats *st)
{
	struct syn sy = { 0, "" };
	sht_source src = { &SYN_OPS, &sy };
	sht_state_opts so;
	sht_provider p;
	sht_state *ss = NULL;
	uint64_t events = 0, skipped = 0;

	sht_state_opts_init(&so);
	so.backend = backend;
	so.checkpoint_events = 3;
	so.provider = SHT_EVSTATS_PROVIDER_ID;
	so.provider_version = SHT_EVSTATS_PROVIDER_VERSION;
	sht_evstats_provider(st, &p);
	if (!ok(sht_state_create(path, 0, &so, &ss) == SHT_OK, "%s: create", what))
		return NULL;
	sht_err err = sht_state_run(ss, &src, &p, &events, &skipped);
	ok(err == SHT_OK && events == NSEVS && skipped == 0, "%s: run (%s)", what,
	   err == SHT_OK ? "ok" : sht_errmsg());
	ok(sht_state_finish(ss, SYN_END) == SHT_OK, "%s: finish", what);
	return ss;
}

static void test_synthetic(void)
{
	sht_evstats *st = NULL;
	sht_result *res = sht_result_create();
	sht_evstats_info info;
	sht_provider p;
	sht_state *ss, *ss2;

	if (!ok(sht_evstats_create(&st) == SHT_OK && res, "create the analysis"))
		bail_out("no memory");
	sht_evstats_provider(st, &p);
	is_str(p.id, "event-statistics", "provider id");
	is_u64(p.version, 1, "provider version");

	ss = syn_build("memory", SHT_BACKEND_MEMORY, NULL, st);
	if (ss) {
		check_syn_layout("memory", ss);
		check_syn_values("memory", ss, res);
		check_syn_intervals("memory", ss, res);
	}
	sht_evstats_info_get(st, &info);
	is_u64(info.events, NSEVS, "info: events");
	is_u64(info.unknown_cpu, 2, "info: unknown CPU");
	is_u64(info.unnamed, 1, "info: unnamed");
	is_u64(info.names, 5, "info: distinct names");

	/* The same analysis on a second history, the first one still open:
	 * its quark cache must not leak over. */
	ss2 = syn_build("second memory", SHT_BACKEND_MEMORY, NULL, st);
	if (ss2) {
		check_syn_layout("second memory", ss2);
		check_syn_values("second memory", ss2, res);
	}
	sht_state_close(ss2);
	sht_state_close(ss);

	/* Null backend: runs, nothing to query. */
	ss = syn_build("null", SHT_BACKEND_NULL, NULL, st);
	sht_state_close(ss);

	/* Partial history, a checkpoint every 3 events, replayed through a
	 * fresh analysis (no cache while replaying). */
	char path[4200];
	snprintf(path, sizeof path, "%s/stats-syn.partial", tmpdir);
	unlink(path);
	ss = syn_build("partial build", SHT_BACKEND_PARTIAL, path, st);
	sht_state_close(ss);
	sht_evstats *st2 = NULL;
	struct syn sy = { 0, "" };
	sht_source src = { &SYN_OPS, &sy };
	sht_provider p2;
	ss = NULL;
	if (ok(sht_evstats_create(&st2) == SHT_OK, "second analysis")) {
		sht_evstats_provider(st2, &p2);
		sht_err err = sht_state_open_partial(path, NULL, &src, &p2, &ss);
		if (ok(err == SHT_OK, "open the partial history (%s)",
		       err == SHT_OK ? "ok" : sht_errmsg())) {
			check_syn_layout("partial", ss);
			check_syn_values("partial", ss, res);
			check_syn_intervals("partial", ss, res);
		}
	}
	sht_state_close(ss);
	sht_evstats_destroy(st2);
	unlink(path);

	sht_evstats_destroy(st);
	sht_result_destroy(res);
}

/* ---- real traces ------------------------------------------------------- */

struct tcase {
	const char *dir, *json;
};

static const struct tcase TCASES[] = {
	{ "bug446190", "bug446190.json" },
	{ "many-threads", "many-threads.json" },
	{ "synctraces/scp_src", "synctraces_scp_src.json" },
	{ "synctraces/scp_dest", "synctraces_scp_dest.json" },
	{ "context-switches/context-switches-ust", "context-switches-ust.json" },
};

static char traces[4096];

#define MAX_NAMES 512
#define MAX_CPUS 64

/* Build the full (memory) history of a trace. */
static sht_state *trace_build(const char *dir, sht_backend backend, const char *file,
			      uint64_t *nevents)
{
	char path[4200];
	sht_source src;
	sht_evstats *st = NULL;
	sht_state_opts so;
	sht_provider p;
	sht_state *ss = NULL;
	sht_event first;
	sht_err err;

	snprintf(path, sizeof path, "%s/%s", traces, dir);
	err = sht_ctf_open(path, NULL, &src);
	if (!ok(err == SHT_OK, "%s: open the trace (%s)", dir, err == SHT_OK ? "ok" : sht_errmsg()))
		return NULL;
	/* The history starts at the first event. */
	err = src.ops->next(src.src, &first);
	if (err == SHT_OK)
		err = src.ops->seek(src.src, 0);
	sht_state_opts_init(&so);
	so.backend = backend;
	so.checkpoint_events = 1000;
	so.provider = SHT_EVSTATS_PROVIDER_ID;
	so.provider_version = SHT_EVSTATS_PROVIDER_VERSION;
	if (err == SHT_OK)
		err = sht_evstats_create(&st);
	if (err == SHT_OK)
		err = sht_state_create(file, first.ts, &so, &ss);
	if (err == SHT_OK) {
		uint64_t skipped = 0;

		sht_evstats_provider(st, &p);
		err = sht_state_run(ss, &src, &p, nevents, &skipped);
		if (err == SHT_OK && skipped)
			err = SHT_ERR_STATE;
	}
	if (err == SHT_OK)
		err = sht_state_finish(ss, sht_state_end(ss));
	ok(err == SHT_OK, "%s: build (%s)", dir, err == SHT_OK ? "ok" : sht_errmsg());
	sht_evstats_destroy(st);
	sht_ctf_close(&src);
	if (err != SHT_OK) {
		sht_state_close(ss);
		return NULL;
	}
	return ss;
}

static void check_trace(const struct tcase *tc, sht_state **keep)
{
	char jpath[4200], cb[16];
	json_t *json;
	static struct tstats_count names[MAX_NAMES];
	int64_t per_cpu[MAX_CPUS] = { 0 };
	sht_result *res = sht_result_create();
	uint64_t events = 0;
	sht_state *ss;

	snprintf(jpath, sizeof jpath, "%s/stats/%s", traces, tc->json);
	json = tstats_load(jpath);
	if (!ok(json != NULL && res, "%s: stats JSON readable", tc->dir)) {
		sht_result_destroy(res);
		return;
	}
	size_t nn = tstats_names(json, names, MAX_NAMES);
	int ns = tstats_streams(json, per_cpu, MAX_CPUS);
	ok(nn > 0 && (int64_t)nn == tstats_int(json, "distinct_names") && ns > 0,
	   "%s: JSON: %zu names, %d streams", tc->dir, nn, ns);

	ss = trace_build(tc->dir, SHT_BACKEND_MEMORY, NULL, &events);
	if (!ss)
		goto out;
	sht_time end = sht_state_end(ss);
	const char *p[4];
	sht_quark q;

	is_u64(events, (uint64_t)tstats_int(json, "events"), "%s: events run", tc->dir);
	p[0] = "total";
	is_i64(path_at(ss, res, p, 1, end), tstats_int(json, "events"), "%s: total", tc->dir);

	/* event_types/<name> for every name, and nothing else. */
	int bad = 0;
	for (size_t i = 0; i < nn; i++) {
		p[0] = "event_types";
		p[1] = names[i].name;
		int64_t got = path_at(ss, res, p, 2, end);
		if (got != names[i].count && bad++ < 5)
			diag("%s: event_types/%s = %" PRId64 ", want %" PRId64, tc->dir,
			     names[i].name, got, names[i].count);
	}
	ok(bad == 0, "%s: event_types/<name> = the JSON's count for all %zu names", tc->dir, nn);
	const sht_quark *kids;
	size_t nk = 0;
	int found = sht_state_quark_path(ss, "event_types", false, &q) == SHT_OK &&
		    sht_state_attr_children(ss, q, &kids, &nk) == SHT_OK;
	ok(found && nk == nn, "%s: %zu event types (%zu in the JSON)", tc->dir, nk, nn);

	/* cpus/<cpu>/total per stream; the per-CPU per-name counters add up
	 * to the per-name ones. */
	bad = 0;
	int ncpu = 0;
	for (int c = 0; c < MAX_CPUS; c++) {
		snprintf(cb, sizeof cb, "%d", c);
		p[0] = "cpus";
		p[1] = cb;
		p[2] = "total";
		int64_t got = path_at(ss, res, p, 3, end);
		ncpu += got > 0;
		if (got != per_cpu[c] && bad++ < 5)
			diag("%s: cpus/%d/total = %" PRId64 ", want %" PRId64, tc->dir, c, got,
			     per_cpu[c]);
	}
	ok(bad == 0 && ncpu == ns, "%s: cpus/<cpu>/total = the JSON's per-stream counts (%d CPUs)",
	   tc->dir, ncpu);
	nk = 0;
	found = sht_state_quark_path(ss, "cpus", false, &q) == SHT_OK &&
		sht_state_attr_children(ss, q, &kids, &nk) == SHT_OK;
	ok(found && (int)nk == ns, "%s: %zu cpus/<cpu>, one per stream", tc->dir, nk);
	bad = 0;
	for (size_t i = 0; i < nn; i++) {
		int64_t sum = 0;

		for (int c = 0; c < MAX_CPUS; c++) {
			if (!per_cpu[c])
				continue;
			snprintf(cb, sizeof cb, "%d", c);
			p[0] = "cpus";
			p[1] = cb;
			p[2] = "event_types";
			p[3] = names[i].name;
			sum += path_at(ss, res, p, 4, end);
		}
		if (sum != names[i].count && bad++ < 5)
			diag("%s: sum of cpus/*/event_types/%s = %" PRId64 ", want %" PRId64,
			     tc->dir, names[i].name, sum, names[i].count);
	}
	ok(bad == 0, "%s: per-CPU per-name counts add up to the per-name counts", tc->dir);
	if (keep)
		*keep = ss;
	else
		sht_state_close(ss);
out:
	sht_result_destroy(res);
	json_decref(json);
}

/* Same answers from a partial history (checkpoint every 1000 events)
 * as from the full one, at 200 random times. */
static void check_partial(sht_state *full)
{
	const char *dir = "bug446190";
	char file[4200], path[4200];
	uint64_t events = 0;
	sht_state *ps;
	sht_source src;
	sht_evstats *st = NULL;
	sht_provider p;
	sht_result *r1 = sht_result_create(), *r2 = sht_result_create();

	snprintf(file, sizeof file, "%s/stats-bug446190.partial", tmpdir);
	unlink(file);
	ps = trace_build(dir, SHT_BACKEND_PARTIAL, file, &events);
	sht_state_close(ps);
	if (!ps)
		goto out;
	snprintf(path, sizeof path, "%s/%s", traces, dir);
	if (!ok(sht_ctf_open(path, NULL, &src) == SHT_OK && sht_evstats_create(&st) == SHT_OK,
		"%s: reopen for the partial history", dir))
		goto out;
	sht_evstats_provider(st, &p);
	ps = NULL;
	sht_err err = sht_state_open_partial(file, NULL, &src, &p, &ps);
	if (ok(err == SHT_OK, "%s: open the partial history (%s)", dir,
	       err == SHT_OK ? "ok" : sht_errmsg())) {
		const char *id = NULL;
		uint32_t ver = 0;

		ok(sht_state_provider(ps, &id, &ver) == SHT_OK && id &&
		   strcmp(id, SHT_EVSTATS_PROVIDER_ID) == 0 && ver == SHT_EVSTATS_PROVIDER_VERSION,
		   "%s: provider identity stored", dir);
		is_u64(sht_state_attr_count(ps), sht_state_attr_count(full),
		       "%s: same attribute count", dir);
		sht_time t0 = sht_state_start(full), t1 = sht_state_end(full);
		struct rng rng = RNG_INIT(rng_test_seed(0x2545F4914F6CDD1Du));
		int bad = 0, checked = 0;
		for (int k = 0; k < 200; k++) {
			sht_time t = rng_range(&rng, t0, t1);
			if (sht_state_query_full(full, t, r1) != SHT_OK ||
			    sht_state_query_full(ps, t, r2) != SHT_OK ||
			    sht_result_count(r1) != sht_result_count(r2)) {
				if (bad++ < 5)
					diag("t=%" PRId64 ": query failed or sizes differ (%zu, %zu): %s",
					     t, sht_result_count(r1), sht_result_count(r2), sht_errmsg());
				continue;
			}
			const sht_interval *a = sht_result_items(r1), *b = sht_result_items(r2);
			for (size_t i = 0; i < sht_result_count(r1); i++) {
				checked++;
				if (a[i].quark != b[i].quark || a[i].start != b[i].start ||
				    a[i].end != b[i].end || !sht_value_equal(&a[i].value, &b[i].value)) {
					if (bad++ < 5)
						diag("t=%" PRId64 " quark %u: full [%" PRId64 ",%" PRId64
						     "] vs partial quark %u [%" PRId64 ",%" PRId64 "]",
						     t, a[i].quark, a[i].start, a[i].end, b[i].quark,
						     b[i].start, b[i].end);
				}
			}
		}
		ok(bad == 0 && checked > 0,
		   "%s: partial = full at 200 random times (%d intervals compared)", dir, checked);
	}
	sht_state_close(ps);
	sht_ctf_close(&src);
out:
	sht_evstats_destroy(st);
	sht_result_destroy(r1);
	sht_result_destroy(r2);
	unlink(file);
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED");
	const char *tmp = getenv("SHT_TMP");
	struct stat sb;
	sht_source probe;
	char p0[4200];

	snprintf(tmpdir, sizeof tmpdir, "%s", tmp ? tmp : ".");
	mkdir(tmpdir, 0777);
	test_synthetic();

	snprintf(traces, sizeof traces, "%s/traces", shared ? shared : "../shared");
	if (stat(traces, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		diag("real traces skipped: %s is absent (set SHT_SHARED)", traces);
		return done_testing();
	}
	snprintf(p0, sizeof p0, "%s/%s", traces, TCASES[0].dir);
	sht_err err = sht_ctf_open(p0, NULL, &probe);
	if (err == SHT_ERR_INVALID && strstr(sht_errmsg(), "without libbabeltrace2")) {
		diag("real traces skipped: this libsht was built without libbabeltrace2");
		return done_testing();
	}
	if (err == SHT_OK)
		sht_ctf_close(&probe);

	sht_state *full = NULL;
	for (size_t k = 0; k < sizeof TCASES / sizeof TCASES[0]; k++)
		check_trace(&TCASES[k], k == 0 ? &full : NULL);
	if (full)
		check_partial(full);
	sht_state_close(full);
	return done_testing();
}
