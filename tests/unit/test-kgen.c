/*
 * test-kgen.c: the synthetic kernel trace generator (src/gen/include/shtgen/kgen.h).
 *
 * - determinism: the same parameters give the same events; another seed
 *   other events;
 * - consistency, checked by an independent model of what a kernel trace
 *   may say: strictly increasing time; the statedump first; a
 *   sched_switch's prev_tid is the thread the CPU ran; the thread
 *   switched in was runnable (never blocked, dead or running elsewhere);
 *   a woken thread was blocked; a syscall exit is the one its thread
 *   entered (or a syscall it was blocked in from the start); fork children
 *   are new tids; exits are of the running thread; frees of exited
 *   threads; interrupt entries and exits pair up per CPU; the live thread
 *   count stays near the target;
 * - the source: named fields, positions, seek;
 * - VSTF output read back equals the source, event for event;
 * - the kernel analysis writes the same history from the source and from
 *   the VSTF file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "sht/analysis.h"
#include "sht/vstf.h"
#include "tap.h"
#include "gen/kgen-int.h"

static char tmpdir[2048];

/* FNV-1a over everything an event says. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_event(uint64_t h, const shtgen_kgen_event *ev)
{
	uint32_t n, i;
	const shtgen_kgen_class *k = &shtgen_kgen_classes(&n)[ev->cls];

	h = hash_bytes(h, &ev->cls, sizeof ev->cls);
	h = hash_bytes(h, &ev->cpu, sizeof ev->cpu);
	h = hash_bytes(h, &ev->ts, sizeof ev->ts);
	for (i = 0; i < k->nfields; i++) {
		const sht_field *f = &ev->values[i];

		h = hash_bytes(h, &f->type, sizeof f->type);
		if (f->type == SHT_FIELD_STRING)
			h = hash_bytes(h, f->v.s, strlen(f->v.s));
		else
			h = hash_bytes(h, &f->v.u, sizeof f->v.u);
	}
	return h;
}

static uint64_t run_hash(const shtgen_kgen_params *p, uint64_t *count)
{
	shtgen_kgen *g;
	shtgen_kgen_event ev;
	uint64_t h = 0xcbf29ce484222325ull;

	*count = 0;
	if (shtgen_kgen_create(p, &g) != SHT_OK)
		return 0;
	while (shtgen_kgen_next(g, &ev) == SHT_OK) {
		h = hash_event(h, &ev);
		(*count)++;
	}
	shtgen_kgen_destroy(g);
	return h;
}

static void test_determinism(void)
{
	shtgen_kgen_params p;
	uint64_t h1, h2, h3, n1, n2, n3;

	shtgen_kgen_params_init(&p);
	p.events = 200000;
	h1 = run_hash(&p, &n1);
	h2 = run_hash(&p, &n2);
	p.seed = 2;
	h3 = run_hash(&p, &n3);
	is_u64(n1, 200000, "exactly the events asked for");
	is_u64(n2, n1, "second run: same count");
	ok(h1 == h2, "same parameters, same events");
	ok(h1 != h3, "another seed, other events");
}

static void test_bad_params(void)
{
	shtgen_kgen_params p;
	shtgen_kgen *g = NULL;

	shtgen_kgen_params_init(&p);
	p.cpus = 0;
	is_int(shtgen_kgen_create(&p, &g), SHT_ERR_INVALID, "0 CPUs refused");
	ok(strstr(sht_errmsg(), "cpus=0") != NULL, "message names it: %s",
	   sht_errmsg());
	shtgen_kgen_params_init(&p);
	p.threads = 0;
	is_int(shtgen_kgen_create(&p, &g), SHT_ERR_INVALID, "0 threads refused");
	shtgen_kgen_params_init(&p);
	p.start = INT64_MAX - 10;
	is_int(shtgen_kgen_create(&p, &g), SHT_ERR_INVALID,
	       "time overflow refused");
	ok(g == NULL, "nothing created");
}

#include "kgen-model.h"
#include "kgen-check.h"

static void test_consistency(uint32_t cpus, uint32_t threads, uint64_t seed,
			     uint64_t events)
{
	shtgen_kgen_params p;
	shtgen_kgen *g;
	shtgen_kgen_event ev;
	shtgen_kgen_stats st;
	struct model m;
	sht_err err;

	shtgen_kgen_params_init(&p);
	p.cpus = cpus;
	p.threads = threads;
	p.seed = seed;
	p.events = events;
	if (!is_int(shtgen_kgen_create(&p, &g), SHT_OK, "create %u CPUs, %u "
		    "threads", cpus, threads))
		return;
	model_init(&m, &p);
	while ((err = shtgen_kgen_next(g, &ev)) == SHT_OK && m.errors < 5)
		model_event(&m, &ev);
	shtgen_kgen_stats_get(g, &st);
	is_int(err, SHT_END, "%u CPUs, %u threads: ends cleanly", cpus,
	       threads);
	is_u64(m.errors, 0, "%u CPUs, %u threads, seed %" PRIu64 ": %" PRIu64
	       " events all consistent", cpus, threads, seed, m.events);
	ok(m.switches > events / 50 && m.wakeups > 0 && m.syscalls > 0 &&
	   m.irqs > 0 && m.softirqs > 0, "every kind of activity happens "
	   "(%" PRIu64 " switches, %" PRIu64 " wakeups, %" PRIu64 " syscalls, "
	   "%" PRIu64 " irqs, %" PRIu64 " softirqs)", m.switches, m.wakeups,
	   m.syscalls, m.irqs, m.softirqs);
	ok(st.forks > 0 && st.exits > 0 && m.frees > 0,
	   "threads fork, exit and are freed (%" PRIu64 " / %" PRIu64 " / %"
	   PRIu64 ")", st.forks, st.exits, m.frees);
	ok(st.max_live <= (uint64_t)threads * 11 / 10 + 8,
	   "live threads stay near %u (at most %" PRIu64 ")", threads,
	   st.max_live);
	is_u64(m.forks, st.forks, "the model saw every fork");
	model_free(&m);
	shtgen_kgen_destroy(g);
}

/* ---- the source ------------------------------------------------------------ */

static void test_source(void)
{
	shtgen_kgen_params p;
	sht_source src;
	sht_event ev;
	sht_field f;
	uint64_t i, n = 0, switches = 0;
	sht_time ts_at[64];
	int ok_fields = 1;

	shtgen_kgen_params_init(&p);
	p.events = 50000;
	if (!is_int(shtgen_kgen_source(&p, &src), SHT_OK, "source"))
		return;
	while (src.ops->next(src.src, &ev) == SHT_OK) {
		if (ev.pos != n)
			ok_fields = 0;
		if (n < 64)
			ts_at[n] = ev.ts;
		if (strcmp(ev.name, "sched_switch") == 0) {
			switches++;
			if (sht_event_field(&ev, "next_tid", &f) !=
				    SHT_FIELD_INT ||
			    sht_event_field(&ev, "prev_comm", &f) !=
				    SHT_FIELD_STRING ||
			    sht_event_field(&ev, "nope", &f) !=
				    SHT_FIELD_NONE)
				ok_fields = 0;
		}
		n++;
	}
	is_u64(n, 50000, "the source delivers every event");
	ok(switches > 0 && ok_fields, "positions count up; fields by name "
	   "(%" PRIu64 " switches)", switches);
	for (i = 0; i < 64; i += 21) {
		is_int(src.ops->seek(src.src, i), SHT_OK, "seek %" PRIu64, i);
		ok(src.ops->next(src.src, &ev) == SHT_OK && ev.pos == i &&
		   ev.ts == ts_at[i], "event %" PRIu64 " again after seek", i);
	}
	is_int(src.ops->seek(src.src, 50000), SHT_OK, "seek to the end");
	is_int(src.ops->next(src.src, &ev), SHT_END, "then the end");
	ok(src.ops->seek(src.src, 50001) < 0, "seek past the end refused");
	shtgen_kgen_source_free(&src);
}

/* ---- VSTF round trip ---------------------------------------------------------- */

static void test_vstf(void)
{
	shtgen_kgen_params p;
	shtgen_kgen_write_stats st;
	sht_source vs;
	char path[4096];
	sht_field f;

	shtgen_kgen_params_init(&p);
	p.events = 100000;
	p.cpus = 3;
	snprintf(path, sizeof path, "%s/k.vstf", tmpdir);
	unlink(path);
	if (!is_int(shtgen_kgen_write_vstf(&p, path, NULL, NULL, &st), SHT_OK,
		    "write VSTF"))
		return;
	is_u64(st.gen.events, 100000, "stats: events");
	ok(st.bytes > 100000, "stats: %" PRIu64 " bytes", st.bytes);
	if (!is_int(sht_vstf_open(path, &vs), SHT_OK, "open the VSTF file"))
		return;
	ok(sht_vstf_env(&vs, "tracer_name", &f) == SHT_OK &&
	   f.type == SHT_FIELD_STRING && strcmp(f.v.s, "lttng-modules") == 0,
	   "env: tracer_name");
	ok(sht_vstf_env(&vs, "tracer_minor", &f) == SHT_OK &&
	   f.type == SHT_FIELD_INT && f.v.i == 12, "env: tracer_minor");
	compare_to_source("vstf", &vs, &p);
	sht_vstf_close(&vs);
	unlink(path);
}

/* kB of the process's resident file-backed pages (RssFile), -1 unknown. */
static long rss_file_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "RssFile: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* Reading a VSTF file through keeps a few MiB of its mapping resident,
 * not the whole file. */
static void test_vstf_memory(void)
{
	shtgen_kgen_params p;
	shtgen_kgen_write_stats st;
	sht_source vs;
	sht_event ev;
	char path[4096];
	long before, peak = 0, now;
	uint64_t n = 0;

	shtgen_kgen_params_init(&p);
	p.events = 4000000;
	snprintf(path, sizeof path, "%s/mem.vstf", tmpdir);
	unlink(path);
	if (shtgen_kgen_write_vstf(&p, path, NULL, NULL, &st) != SHT_OK ||
	    sht_vstf_open(path, &vs) != SHT_OK)
		bail_out("cannot write or open %s: %s", path, sht_errmsg());
	before = rss_file_kb();
	while (vs.ops->next(vs.src, &ev) == SHT_OK)
		if ((++n & 0xffff) == 0 && (now = rss_file_kb()) > peak)
			peak = now;
	sht_vstf_close(&vs);
	unlink(path);
	if (before < 0) {
		ok(1, "# SKIP no RssFile in /proc/self/status");
		return;
	}
	ok(peak - before < 40 * 1024, "reading a %" PRIu64 "-byte VSTF file "
	   "kept %ld kB more of it resident (< 40 MiB)", st.bytes,
	   peak - before);
}

/* ---- the kernel analysis from the source and from VSTF ------------------------ */

static void test_kernel_history(void)
{
	shtgen_kgen_params p;
	sht_source src, vs;
	char vpath[4096], h1[4096], h2[4096];
	uint64_t a1 = 0, a2 = 0;

	shtgen_kgen_params_init(&p);
	p.events = 150000;
	p.threads = 64;
	snprintf(vpath, sizeof vpath, "%s/kh.vstf", tmpdir);
	snprintf(h1, sizeof h1, "%s/kh-src.sht", tmpdir);
	snprintf(h2, sizeof h2, "%s/kh-vstf.sht", tmpdir);
	unlink(vpath);
	if (shtgen_kgen_write_vstf(&p, vpath, NULL, NULL, NULL) != SHT_OK ||
	    shtgen_kgen_source(&p, &src) != SHT_OK)
		bail_out("cannot write the trace: %s", sht_errmsg());
	is_int(analyse(&src, h1, &a1), SHT_OK, "kernel analysis over the "
	       "generator");
	shtgen_kgen_source_free(&src);
	if (!is_int(sht_vstf_open(vpath, &vs), SHT_OK, "open VSTF"))
		return;
	is_int(analyse(&vs, h2, &a2), SHT_OK, "kernel analysis over VSTF");
	sht_vstf_close(&vs);
	ok(a1 > 64 * 4, "%" PRIu64 " attributes", a1);
	is_u64(a2, a1, "same attribute count");
	ok(same_file(h1, h2), "byte-identical histories");
	unlink(vpath);
	unlink(h1);
	unlink(h2);
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");

	snprintf(tmpdir, sizeof tmpdir, "%s", tmp ? tmp : ".");
	test_bad_params();
	test_determinism();
	test_consistency(4, 200, 1, 400000);
	test_consistency(1, 5, 7, 100000);
	test_consistency(16, 2000, 3, 300000);
	test_consistency(2, 1, 11, 50000);
	test_source();
	test_vstf();
	test_vstf_memory();
	test_kernel_history();
	return done_testing();
}
