/*
 * test-rules-traces.c: XML providers on the real traces of
 * $SHT_SHARED/traces, read by the CTF source.
 *
 *  - examples/rules/kernel-core.xml and its native-syntax twin
 *    kernel-core.rules against the built-in kernel analysis
 *    on many-threads (LTTng 2.8 names), bug446190 (2.5), scp_src (2.1)
 *    and xml-stub-kernel-analysis (2.0): for every attribute matching
 *    CPUs/STAR/Current_thread, Threads/STAR (the status) and
 *    Threads/STAR/System_call in either history, every interval is equal
 *    (compared by path: quarks differ; an attribute one history lacks
 *    counts as null over the whole history, which is what its absence
 *    answers).
 *  - examples/rules/ust-callstack.xml on context-switches-ust against an
 *    independent model of the call stacks: after every function entry and
 *    exit, the depth and the top address of that thread's stack.
 *  - ust-callstack.rules (native syntax) gives the same history as
 *    ust-callstack.xml;
 *  - a partial history of bug446190 built by kernel-core.xml answers as
 *    the full one (its queries replay the rules program).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "sht/sht.h"
#include "util/util.h"
#include "tap.h"

static char traces[4096], srcdir[4096];

/* ---- building ----------------------------------------------------------- */

static void env_text(const sht_source *src, const char *name, char *buf, size_t size)
{
	sht_field f;

	buf[0] = '\0';
	if (sht_ctf_env(src, name, &f) == SHT_OK)
		sht_field_text(&f, buf, size);
}

/* An in-memory history of the trace at path: the kernel analysis if xml
 * is NULL, else the rules file xml (XML or native). */
static sht_state *build(const char *path, const char *xml, uint64_t *skipped)
{
	char name[128], major[32], minor[32];
	sht_source src;
	sht_event ev;
	sht_state_opts so;
	sht_state *ss = NULL;
	sht_kernel *k = NULL;
	sht_rules *r = NULL;
	sht_provider p;
	sht_err err;

	if (sht_ctf_open(path, NULL, &src) != SHT_OK)
		bail_out("cannot open %s: %s", path, sht_errmsg());
	env_text(&src, "tracer_name", name, sizeof name);
	env_text(&src, "tracer_major", major, sizeof major);
	env_text(&src, "tracer_minor", minor, sizeof minor);
	err = src.ops->next(src.src, &ev);
	if (err == SHT_OK)
		err = src.ops->seek(src.src, 0);
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_MEMORY;
	if (err == SHT_OK)
		err = sht_state_create(NULL, ev.ts, &so, &ss);
	if (err == SHT_OK && xml)
		err = sht_rules_load(xml, NULL, &r);
	else if (err == SHT_OK)
		err = sht_kernel_create(sht_kernel_layout_from_env(name, major, minor), &k);
	if (err == SHT_OK) {
		if (r)
			sht_rules_provider(r, &p);
		else
			sht_kernel_provider(k, &p);
		err = sht_state_run(ss, &src, &p, NULL, skipped);
	}
	if (err == SHT_OK)
		err = sht_state_finish(ss, sht_state_end(ss));
	if (err != SHT_OK)
		bail_out("cannot build %s: %s", path, sht_errmsg());
	sht_rules_destroy(r);
	sht_kernel_destroy(k);
	sht_ctf_close(&src);
	return ss;
}

/* ---- comparing by path ---------------------------------------------------- */

struct paths {
	char **p;
	size_t n, cap;
};

static void add_matches(sht_state *ss, const char *pattern, struct paths *ps)
{
	sht_quark *qs;
	size_t n, need;
	char buf[512];

	if (sht_state_attr_match(ss, pattern, &qs, &n) != SHT_OK)
		bail_out("match %s: %s", pattern, sht_errmsg());
	for (size_t i = 0; i < n; i++) {
		if (sht_state_attr_path(ss, qs[i], buf, sizeof buf, &need) != SHT_OK)
			bail_out("path of %u", qs[i]);
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : 256;
			ps->p = realloc(ps->p, ps->cap * sizeof *ps->p);
			if (!ps->p)
				bail_out("out of memory");
		}
		ps->p[ps->n++] = strdup(buf);
	}
	free(qs);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The intervals of path over the whole history (one null interval if
 * the attribute does not exist). */
static void intervals(sht_state *ss, const char *path, sht_result *res)
{
	sht_quark q;
	sht_interval none;

	sht_result_clear(res);
	if (sht_state_quark_path(ss, path, false, &q) == SHT_OK) {
		if (sht_state_query_range(ss, q, sht_state_start(ss), sht_state_end(ss), 0, res) != SHT_OK)
			bail_out("range of %s: %s", path, sht_errmsg());
		return;
	}
	none.quark = SHT_QUARK_NONE;
	none.start = sht_state_start(ss);
	none.end = sht_state_end(ss);
	none.value = sht_value_null();
	sht_result_append(res, &none);
}

/* 1 if the intervals of path are equal in a and b (diag on the first
 * difference). */
static int same_path(sht_state *a, sht_state *b, const char *path,
		     sht_result *ra, sht_result *rb, uint64_t *count)
{
	size_t n;

	intervals(a, path, ra);
	intervals(b, path, rb);
	n = sht_result_count(ra);
	if (n != sht_result_count(rb)) {
		diag("%s: %zu intervals (built-in) vs %zu (XML)", path, n, sht_result_count(rb));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const sht_interval *x = sht_result_at(ra, i), *y = sht_result_at(rb, i);

		if (x->start != y->start || x->end != y->end || !sht_value_equal(&x->value, &y->value)) {
			diag("%s: interval %zu differs: [%" PRId64 ", %" PRId64 "] %s vs [%" PRId64 ", %" PRId64 "] %s",
			     path, i, x->start, x->end, sht_type_name(x->value.type), y->start, y->end,
			     sht_type_name(y->value.type));
			return 0;
		}
	}
	*count += n;
	return 1;
}

static void compare_kernel(const char *dir, const char *rules)
{
	static const char *const patterns[] = { "CPUs/*/Current_thread", "Threads/*", "Threads/*/System_call" };
	char path[8192], xml[8192];
	struct paths ps = { NULL, 0, 0 };
	sht_result *ra = sht_result_create(), *rb = sht_result_create();
	uint64_t skipped = 0, count = 0;
	size_t bad = 0, distinct = 0;
	sht_state *a, *b;

	snprintf(path, sizeof path, "%s/%s", traces, dir);
	snprintf(xml, sizeof xml, "%s/examples/rules/%s", srcdir, rules);
	a = build(path, NULL, NULL);
	b = build(path, xml, &skipped);
	is_int(skipped, 0, "%s, %s: no event skipped", dir, rules);
	ok(sht_state_start(a) == sht_state_start(b) && sht_state_end(a) == sht_state_end(b),
	   "%s, %s: same time range", dir, rules);
	for (size_t i = 0; i < 3; i++) {
		add_matches(a, patterns[i], &ps);
		add_matches(b, patterns[i], &ps);
	}
	qsort(ps.p, ps.n, sizeof *ps.p, cmp_str);
	for (size_t i = 0; i < ps.n; i++) {
		if (i && strcmp(ps.p[i], ps.p[i - 1]) == 0)
			continue;
		distinct++;
		if (!same_path(a, b, ps.p[i], ra, rb, &count) && ++bad > 10)
			break;
	}
	ok(bad == 0 && distinct > 0, "%s, %s: %zu attributes, %" PRIu64 " intervals equal to the built-in analysis's",
	   dir, rules, distinct, count);
	for (size_t i = 0; i < ps.n; i++)
		free(ps.p[i]);
	free(ps.p);
	sht_result_destroy(ra);
	sht_result_destroy(rb);
	sht_state_close(a);
	sht_state_close(b);
}

/* ---- the call stack against a model ------------------------------------- */

#define MAX_TID 65536
#define MAX_DEPTH 256

struct model {
	int depth[MAX_TID];
	int64_t stack[MAX_TID][16];
};

static const char *shown(sht_state *ss, const char *path, sht_time t, sht_result *res)
{
	static char buf[64];
	sht_quark q;

	if (sht_state_quark_path(ss, path, false, &q) != SHT_OK)
		return "absent";
	if (sht_state_query(ss, q, t, res) != SHT_OK || sht_result_count(res) != 1)
		return "no answer";
	const sht_value *v = &sht_result_at(res, 0)->value;
	if (v->type == SHT_TYPE_NULL)
		return "null";
	snprintf(buf, sizeof buf, "%" PRId64, v->type == SHT_TYPE_INT32 ? v->u.i32 : v->u.i64);
	return buf;
}

static void check_callstack(void)
{
	char path[8192], xml[8192], attr[128], want[64];
	static struct model m;
	sht_result *res = sht_result_create();
	sht_source src;
	sht_event ev;
	sht_state *ss;
	uint64_t checked = 0, bad = 0;

	snprintf(path, sizeof path, "%s/context-switches/context-switches-ust", traces);
	snprintf(xml, sizeof xml, "%s/examples/rules/ust-callstack.xml", srcdir);
	ss = build(path, xml, NULL);
	if (sht_ctf_open(path, NULL, &src) != SHT_OK)
		bail_out("cannot open %s", path);
	while (src.ops->next(src.src, &ev) == SHT_OK) {
		int entry = strcmp(ev.name, "lttng_ust_cyg_profile:func_entry") == 0;
		sht_field tid, addr;
		int d;

		if (!entry && strcmp(ev.name, "lttng_ust_cyg_profile:func_exit") != 0)
			continue;
		if (sht_event_field(&ev, "vtid", &tid) != SHT_FIELD_INT ||
		    sht_event_field(&ev, "addr", &addr) == SHT_FIELD_NONE ||
		    tid.v.i < 0 || tid.v.i >= MAX_TID)
			bail_out("unexpected event at %" PRId64, ev.ts);
		d = m.depth[tid.v.i];
		if (entry && d < 16)
			m.stack[tid.v.i][d] = (int64_t)addr.v.u;
		d = entry ? d + 1 : d > 0 ? d - 1 : 0;
		m.depth[tid.v.i] = d;
		snprintf(attr, sizeof attr, "Threads/%" PRId64 "/CallStack", tid.v.i);
		snprintf(want, sizeof want, "%d", d);
		bad += strcmp(shown(ss, attr, ev.ts, res), d ? want : "null") != 0;
		if (d > 0 && d <= 16) {
			snprintf(attr, sizeof attr, "Threads/%" PRId64 "/CallStack/%d", tid.v.i, d);
			snprintf(want, sizeof want, "%" PRId64, m.stack[tid.v.i][d - 1]);
			bad += strcmp(shown(ss, attr, ev.ts, res), want) != 0;
		}
		checked++;
	}
	ok(checked == 1948 + 1945 && bad == 0, "context-switches-ust: depth and top of %" PRIu64 " stacks as the model says (%" PRIu64 " differ)", checked, bad);
	sht_ctf_close(&src);
	sht_result_destroy(res);
	sht_state_close(ss);
}

/* ---- the native syntax ------------------------------------------------ */

/* ust-callstack.rules gives the history of ust-callstack.xml: the same
 * attributes (by path) with the same intervals. */
static void check_native(void)
{
	char path[8192], xml[8192], nat[8192], name[512];
	sht_result *ra = sht_result_create(), *rb = sht_result_create();
	sht_state *a, *b;
	uint64_t n, count = 0;
	size_t bad = 0, need;

	snprintf(path, sizeof path, "%s/context-switches/context-switches-ust", traces);
	snprintf(xml, sizeof xml, "%s/examples/rules/ust-callstack.xml", srcdir);
	snprintf(nat, sizeof nat, "%s/examples/rules/ust-callstack.rules", srcdir);
	a = build(path, xml, NULL);
	b = build(path, nat, NULL);
	n = sht_state_attr_count(a);
	is_int(sht_state_attr_count(b), n, "native syntax: as many attributes as the XML");
	for (uint64_t q = 0; q < n; q++) {
		sht_state_attr_path(a, (sht_quark)q, name, sizeof name, &need);
		if (!same_path(a, b, name, ra, rb, &count))
			bad++;
	}
	ok(bad == 0, "native syntax: the same %" PRIu64 " intervals as the XML", count);
	sht_result_destroy(ra);
	sht_result_destroy(rb);
	sht_state_close(a);
	sht_state_close(b);
}

/* ---- a partial history from a rules file ------------------------------- */

/* A partial history of the trace at dir built by kernel-core.xml (a
 * checkpoint every 2000 events) answers as the full one: its replays run
 * the rules program without its quark memos (attributes appear as the
 * replay goes).  Its trace is read on 2 decoding threads, queried at
 * times in order, then at random times (seeks back and forth, each
 * replay bounded by until(): sht/source.h). */
static void check_partial(const char *dir)
{
	char path[8192], xml[8192], file[8192];
	const char *tmp = getenv("SHT_TMP");
	sht_result *a = sht_result_create(), *b = sht_result_create();
	sht_source src, src2;
	sht_state_opts so;
	sht_state *full, *part = NULL, *ss = NULL;
	sht_rules *r = NULL;
	sht_provider p;
	sht_event ev;
	sht_quark *qs = NULL;
	size_t nq = 0, bad = 0, asked = 0;
	sht_err err;

	snprintf(path, sizeof path, "%s/%s", traces, dir);
	snprintf(xml, sizeof xml, "%s/examples/rules/kernel-core.xml", srcdir);
	snprintf(file, sizeof file, "%s/rules-partial.sht", tmp ? tmp : ".");
	full = build(path, xml, NULL);
	if (sht_ctf_open(path, NULL, &src) != SHT_OK || sht_rules_load_xml(xml, NULL, &r) != SHT_OK)
		bail_out("partial: %s", sht_errmsg());
	sht_rules_provider(r, &p);
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_PARTIAL;
	so.checkpoint_events = 2000;
	so.provider = p.id;
	so.provider_version = p.version;
	err = src.ops->next(src.src, &ev);
	if (err == SHT_OK)
		err = src.ops->seek(src.src, 0);
	if (err == SHT_OK)
		err = sht_state_create(file, ev.ts, &so, &ss);
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, NULL, NULL);
	if (err == SHT_OK)
		err = sht_state_finish(ss, sht_state_end(ss));
	sht_state_close(ss);
	sht_ctf_opts co;

	sht_ctf_opts_init(&co);
	co.jobs = 2;
	if (err == SHT_OK && sht_ctf_open(path, &co, &src2) == SHT_OK)
		err = sht_state_open_partial(file, NULL, &src2, &p, &part);
	ok(err == SHT_OK, "%s: partial history from the rules file, opened with it", dir);
	uint64_t rng = 0x2545F4914F6CDD1Dull;

	for (int pat = 0; err == SHT_OK && pat < 3; pat++) {
		sht_time s = sht_state_start(full), e = sht_state_end(full);
		int steps = pat == 1 ? 8 : 40;

		free(qs);
		qs = NULL;
		if (sht_state_attr_match(full, pat == 1 ? "Threads/*" : "CPUs/*/Current_thread", &qs, &nq) != SHT_OK)
			bail_out("match: %s", sht_errmsg());
		for (int i = 0; i <= steps; i++) {
			sht_time t = s + (e - s) / steps * i;

			if (pat == 2) {          /* random times */
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				t = s + (sht_time)((rng >> 11) % (uint64_t)(e - s + 1));
			}

			for (size_t k = 0; k < nq; k++) {
				char name[256];
				size_t need;
				sht_quark q2;

				sht_state_attr_path(full, qs[k], name, sizeof name, &need);
				asked++;
				if (sht_state_quark_path(part, name, false, &q2) != SHT_OK ||
				    sht_state_query(full, qs[k], t, a) != SHT_OK ||
				    sht_state_query(part, q2, t, b) != SHT_OK ||
				    !sht_value_equal(&sht_result_at(a, 0)->value, &sht_result_at(b, 0)->value) ||
				    sht_result_at(a, 0)->start != sht_result_at(b, 0)->start) {
					if (bad++ < 3)
						diag("%s at %" PRId64 " differs", name, t);
				}
			}
		}
	}
	ok(bad == 0 && asked > 0, "%s: %zu answers of the partial history equal the full one's", dir, asked);
	free(qs);
	sht_state_close(part);
	if (err == SHT_OK)
		sht_ctf_close(&src2);
	sht_ctf_close(&src);
	sht_rules_destroy(r);
	sht_state_close(full);
	sht_result_destroy(a);
	sht_result_destroy(b);
}

int main(void)
{
	static const char *const kernel[] = { "many-threads", "bug446190", "synctraces/scp_src",
					      "xml-stub-kernel-analysis" };
	const char *shared = getenv("SHT_SHARED"), *src = getenv("SHT_SRCDIR");
	struct stat sb;
	sht_source probe;
	sht_err err;

	if (!sht_rules_have_xml())
		skip_all("libsht built without XML support");
	snprintf(traces, sizeof traces, "%s/traces", shared ? shared : "../shared");
	snprintf(srcdir, sizeof srcdir, "%s", src ? src : ".");
	if (stat(traces, &sb) != 0 || !S_ISDIR(sb.st_mode))
		skip_all("no real traces: %s is absent (set SHT_SHARED)", traces);
	err = sht_ctf_open(traces, NULL, &probe);
	if (err == SHT_ERR_INVALID && strstr(sht_errmsg(), "without libbabeltrace2"))
		skip_all("this libsht was built without libbabeltrace2");
	if (err == SHT_OK)
		sht_ctf_close(&probe);
	for (size_t i = 0; i < sizeof kernel / sizeof *kernel; i++) {
		compare_kernel(kernel[i], "kernel-core.xml");
		compare_kernel(kernel[i], "kernel-core.rules");
	}
	check_callstack();
	check_native();
	check_partial("bug446190");
	return done_testing();
}
