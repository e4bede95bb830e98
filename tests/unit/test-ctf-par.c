/* sht-test-label: threads
 * test-ctf-par.c: the CTF stream reader (sht_ctf_opts.jobs, src/trace/
 * ctf-par.h) against babeltrace2's own muxer (sht_ctf_opts.muxer), event
 * by event: time, name, cpu, position, stream file and every field
 * (sht_ctf_event_fields) must be the same, in the same order, for 0, 1, 2 and 5 decoding threads,
 * and so must the counts of discarded events and packets, the environment
 * and the time span.  The muxer is the oracle.
 *
 * Traces: every CTF trace below $SHT_SHARED/traces; the synctraces pair
 * merged (two traces, two UUIDs); two links to many-threads merged (every
 * event has a twin of the same time, trace UUID, trace name, stream class
 * and stream id: the order falls to the stream names, the deepest tie
 * break); synthetic kernel traces of 8 and 16 CPUs; and a trace written
 * for ties: every timestamp on several CPUs at once, runs of equal
 * timestamps within a CPU, 4 KiB packets (packet boundaries at tied
 * times), a CPU without events.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"
#include <shtgen/ctfw.h>
#include <shtgen/kgen.h>
#include "ctf-sig.h"

/* Ties the oracle saw: events of the time of the one before. */
static size_t count_ties(const struct run *r)
{
	size_t t = 0;

	for (size_t i = 1; i < r->n; i++)
		t += r->ev[i].ts == r->ev[i - 1].ts;
	return t;
}

static void compare(const char *name, const struct run *a, const struct run *b,
		    uint32_t jobs)
{
	size_t i = 0;

	while (i < a->n && i < b->n && !memcmp(&a->ev[i], &b->ev[i], sizeof a->ev[i]))
		i++;
	if (!ok(i == a->n && a->n == b->n, "%s, %u threads: the %zu events, "
		"same order and contents", name, jobs, a->n) && i < a->n && i < b->n)
		diag("first difference at event %zu: t=%" PRId64 " cpu %d / t=%" PRId64
		     " cpu %d", i, a->ev[i].ts, a->ev[i].cpu, b->ev[i].ts, b->ev[i].cpu);
	is_int(b->end, a->end, "%s, %u threads: ends the same way", name, jobs);
	ok(b->st.discarded_events == a->st.discarded_events &&
	   b->st.discarded_packets == a->st.discarded_packets &&
	   b->st.events == a->st.events, "%s, %u threads: same counts", name, jobs);
	ok(b->env_hash == a->env_hash, "%s, %u threads: same environment", name, jobs);
	ok(b->span_err == a->span_err && b->span_b == a->span_b && b->span_e == a->span_e,
	   "%s, %u threads: same time span", name, jobs);
}

static void check(const char *name, const char *path)
{
	static const uint32_t jobs[] = { 0, 1, 2, 5 };
	struct run ref, r;

	if (!ok(read_trace(path, 1, 0, &ref), "%s: opens through the muxer", name)) {
		diag("%s", ref.msg);
		return;
	}
	diag("%s: %zu events, %zu of the time of the one before, end %d %s",
	     name, ref.n, count_ties(&ref), ref.end, ref.end < 0 ? ref.msg : "");
	for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		if (ok(read_trace(path, 0, jobs[k], &r), "%s, %u threads: opens",
		       name, jobs[k]))
			compare(name, &ref, &r, jobs[k]);
		else
			diag("%s", r.msg);
		free(r.ev);
	}
	free(ref.ev);
}

/* ---- traces ------------------------------------------------------------- */

static int is_trace(const char *dir)
{
	char p[8192];
	struct stat sb;
	int n = snprintf(p, sizeof p, "%s/metadata", dir);

	return n > 0 && (size_t)n < sizeof p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Every trace directory below dir (depth-first, sorted names). */
static void walk(const char *root, const char *rel, int depth)
{
	char path[4096];
	struct dirent **names;
	int n;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (is_trace(path)) {
		check(rel, path);
		return;
	}
	if (depth > 4 || (n = scandir(path, &names, NULL, alphasort)) < 0)
		return;
	for (int i = 0; i < n; i++) {
		char sub[8192 + 512];
		struct stat sb;

		snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(sub, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[i]->d_name);
			walk(root, sub, depth + 1);
		}
		free(names[i]);
	}
	free(names);
}

static void kgen_trace(const char *tmp, uint32_t cpus, uint64_t seed)
{
	char dir[4096], name[64];
	shtgen_kgen_params p;

	shtgen_kgen_params_init(&p);
	p.events = 60000;
	p.cpus = cpus;
	p.seed = seed;
	p.threads = 100;
	snprintf(dir, sizeof dir, "%s/kgen-%u-%" PRIu64, tmp, cpus, seed);
	snprintf(name, sizeof name, "synthetic, %u CPUs, seed %" PRIu64, cpus, seed);
	if (ok(shtgen_kgen_write_ctf(&p, dir, NULL, NULL, NULL) == SHT_OK, "%s: written", name))
		check(name, dir);
}

/* 5 CPUs (CPU 4 without events), times 1000, 1001, ...: at each, 0 to 3
 * events on each of CPUs 0..3, of 3 classes, 4 KiB packets. */
static void tie_trace(const char *tmp)
{
	static const shtgen_ctfw_field f[] = { { "a", SHTGEN_CTFW_S64 },
					     { "s", SHTGEN_CTFW_STRING } };
	char dir[4096], text[32];
	shtgen_ctfw_opts o = { 5, 4096, 0, NULL };
	shtgen_ctfw *w = NULL;
	uint64_t x = 88172645463325252ull;
	sht_err err;

	snprintf(dir, sizeof dir, "%s/ties", tmp);
	err = shtgen_ctfw_create(dir, &o, &w);
	if (err == SHT_OK)
		err = shtgen_ctfw_env_str(w, "tracer_name", "lttng-modules");
	for (uint32_t c = 0; err == SHT_OK && c < 3; c++) {
		snprintf(text, sizeof text, "class_%u", c);
		err = shtgen_ctfw_event_class(w, text, f, 2, NULL);
	}
	for (int64_t t = 1000; err == SHT_OK && t < 7000; t++)
		for (uint32_t cpu = 0; err == SHT_OK && cpu < 4; cpu++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			for (uint64_t k = 0; err == SHT_OK && k < x % 4; k++) {
				sht_field v[2];
				v[0].type = SHT_FIELD_INT;
				v[0].v.i = t * 10 + (int64_t)k;
				snprintf(text, sizeof text, "c%u-%" PRIu64, cpu, k);
				v[1].type = SHT_FIELD_STRING;
				v[1].v.s = text;
				err = shtgen_ctfw_event(w, (uint32_t)((x >> 8) + k) % 3, t, cpu, v);
			}
		}
	if (err == SHT_OK)
		err = shtgen_ctfw_finish(w, NULL);
	shtgen_ctfw_destroy(w);
	if (ok(err == SHT_OK, "tie trace written (%s)", err ? sht_errmsg() : "ok"))
		check("ties", dir);
}

/* A directory holding two copies (made of links) of one trace, merged. */
static void twin_trace(const char *tmp, const char *traces, const char *name)
{
	char dir[4096], src[4096], copy[4200], label[128];

	snprintf(dir, sizeof dir, "%s/twins-%s", tmp, name);
	if (traces[0] == '/' || !getcwd(src, sizeof src))
		snprintf(src, sizeof src, "%s/%s", traces, name);
	else
		snprintf(src + strlen(src), sizeof src - strlen(src), "/%s/%s", traces, name);
	snprintf(label, sizeof label, "two copies of %s, merged", name);
	if (!ok(mkdir(dir, 0755) == 0, "%s: directory made", label))
		return;
	snprintf(copy, sizeof copy, "%s/a", dir);
	int made = link_trace(src, copy, 1);
	snprintf(copy, sizeof copy, "%s/b", dir);
	made &= link_trace(src, copy, 1);
	if (ok(made, "%s: links made", label))
		check(label, dir);
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED");
	const char *tmp = getenv("SHT_TMP");
	char traces[4096], cmd[8400];

	char tmpl[] = "/tmp/test-ctf-par-XXXXXX";

	if (tmp) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", tmp, tmp);
		if (system(cmd) != 0)
			return 1;
	} else if (!(tmp = mkdtemp(tmpl))) {
		return 1;
	}
	tie_trace(tmp);
	kgen_trace(tmp, 8, 3);
	kgen_trace(tmp, 16, 4);
	if (!shared)
		shared = "../shared";
	snprintf(traces, sizeof traces, "%s/traces", shared);
	if (is_trace(traces) || access(traces, F_OK) == 0) {
		walk(traces, "", 0);
		check("synctraces, both traces merged",
		      (snprintf(cmd, sizeof cmd, "%s/synctraces", traces), cmd));
		twin_trace(tmp, traces, "bug446190");
		twin_trace(tmp, traces, "many-threads");
	} else {
		diag("no real traces: %s is absent (set SHT_SHARED)", traces);
	}
	return done_testing();
}
