/*
 * test-state-rules.c: the state-system rules of ../shared/KERNEL_MODEL.md §2
 * and include/sht/state.h, one at a time, each on the three backends:
 *
 *   tree    history file under $SHT_TMP; every check runs on the finished
 *           live history and again on the file reopened by sht_state_open;
 *   memory  the same checks on the live history;
 *   null    only that the changes give the same status codes and that
 *           queries fail.
 *
 * Expected intervals are written out by hand for every scenario (not
 * computed by tests/unit/state-model.h, so that the model and these tests
 * do not share a misreading); only the range queries with resolution are
 * computed, by applying KERNEL_MODEL §2.3 to the hand-written intervals,
 * after one hand-computed example checks that algorithm itself.
 *
 * Also: big strings, the life cycle (create / open errors), and queries
 * from reader threads while one thread builds, then on the opened file.
 *
 * sht-test-label: threads
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

#include "tap.h"
#include "unit/state-model.h"

/* ---- fixture --------------------------------------------------------------- */

typedef struct fx {
	sht_backend backend;
	const char *bname;
	char path[4096];
	sht_state *ss;
	int reopened;
} fx;

static const sht_backend all_backends[] = { SHT_BACKEND_TREE,
					    SHT_BACKEND_MEMORY,
					    SHT_BACKEND_NULL };

static const char *backend_name(sht_backend b)
{
	return b == SHT_BACKEND_TREE ? "tree"
	       : b == SHT_BACKEND_MEMORY ? "memory" : "null";
}

static sht_state *fx_create_opts(fx *f, sht_backend b, sht_time start,
				 const char *provider, uint32_t pver,
				 uint32_t block_size)
{
	sht_state_opts opts;
	sht_err rc;

	memset(f, 0, sizeof *f);
	f->backend = b;
	f->bname = backend_name(b);
	sht_state_opts_init(&opts);
	opts.backend = b;
	opts.tree.no_sync = true;
	if (block_size)
		opts.tree.block_size = block_size;
	opts.provider = provider;
	opts.provider_version = pver;
	if (b == SHT_BACKEND_TREE)
		sm_scratch_path(f->path, sizeof f->path, "rules");
	rc = sht_state_create(b == SHT_BACKEND_TREE ? f->path : NULL, start,
			      &opts, &f->ss);
	if (rc != SHT_OK)
		bail_out("Cannot create a %s state system: %s (%s)", f->bname,
			 sht_err_name(rc), sht_errmsg());
	return f->ss;
}

static sht_state *fx_create(fx *f, sht_backend b, sht_time start)
{
	return fx_create_opts(f, b, start, NULL, 0, 0);
}

/* Close and reopen the file (tree backend); NULL for the others. */
static sht_state *fx_reopen(fx *f)
{
	sht_err rc;

	if (f->backend != SHT_BACKEND_TREE)
		return NULL;
	sht_state_close(f->ss);
	f->ss = NULL;
	rc = sht_state_open(f->path, NULL, &f->ss);
	if (!ok(rc == SHT_OK, "%s: reopen %s: %s", f->bname, f->path,
		sht_err_name(rc))) {
		diag("  %s", sht_errmsg());
		f->ss = NULL;
		return NULL;
	}
	f->reopened = 1;
	return f->ss;
}

static void fx_done(fx *f)
{
	sht_state_close(f->ss);
	f->ss = NULL;
	if (f->backend == SHT_BACKEND_TREE)
		unlink(f->path);
}

/* What a check is about: "backend[/reopened]". */
static const char *fx_tag(const fx *f)
{
	static char buf[64];

	snprintf(buf, sizeof buf, "%s%s", f->bname,
		 f->reopened ? "/reopened" : "");
	return buf;
}

/* ---- shorthands ---------------------------------------------------------- */

#define NUL() sht_value_null()
#define I32(x) sht_value_int32(x)
#define I64(x) sht_value_int64(x)
#define DBL(x) sht_value_double(x)
#define STR(s) sht_value_string((s), (uint32_t)strlen(s))
#define STRN(s, n) sht_value_string((s), (n))

static sht_quark Q(fx *f, const char *path)
{
	sht_quark q = SHT_QUARK_NONE;
	sht_err rc = sht_state_quark_path(f->ss, path, true, &q);

	if (rc != SHT_OK)
		bail_out("Cannot get-or-create %s: %s", path, sht_err_name(rc));
	return q;
}

/* The status of a change, checked on every backend (null included). */
static void st(fx *f, sht_err got, sht_err want, const char *what)
{
	if (!ok(got == want, "%s: %s -> %s", f->bname, what, sht_err_name(want)))
		diag("  got %s%s%s%s", sht_err_name(got), got < 0 ? " (" : "",
		     got < 0 ? sht_errmsg() : "", got < 0 ? ")" : "");
}

static void mod(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
		const char *what)
{
	st(f, sht_state_modify(f->ss, t, q, &v), want, what);
}

static void finish(fx *f, sht_time end)
{
	sht_err rc = sht_state_finish(f->ss, end);

	if (!ok(rc == SHT_OK, "%s: finish at %" PRId64, f->bname, end))
		diag("  got %s (%s)", sht_err_name(rc), sht_errmsg());
}

/* ---- expected intervals ------------------------------------------------- */

typedef struct exp_iv {
	sht_time s, e;
	sht_value v;
} exp_iv;

#define IVS(...) (const exp_iv[]){ __VA_ARGS__ }, \
	sizeof((const exp_iv[]){ __VA_ARGS__ }) / sizeof(exp_iv)

static int iv_is(const sht_interval *got, sht_quark q, const exp_iv *e)
{
	sht_interval w;

	w.quark = q;
	w.start = e->s;
	w.end = e->e;
	w.value = e->v;
	return sm_iv_eq(got, &w);
}

static void diag_iv(const char *label, const sht_interval *iv)
{
	char b[256];

	diag("  %s %s", label, sm_iv_str(iv, b, sizeof b));
}

static void diag_exp(const char *label, sht_quark q, const exp_iv *e)
{
	sht_interval w;

	w.quark = q;
	w.start = e->s;
	w.end = e->e;
	w.value = e->v;
	diag_iv(label, &w);
}

/*
 * The whole history of `path`: the range query over [start, end] without
 * resolution returns exactly these intervals; single queries at both
 * ends of each, and one step outside, agree.  Nothing on the null
 * backend.
 */
static void expect(fx *f, const char *path, const exp_iv *e, size_t n)
{
	sht_state *ss = f->ss;
	sht_result *res = sht_result_create();
	sht_time s0 = sht_state_start(ss), e0 = sht_state_end(ss);
	sht_quark q;
	sht_err rc;
	size_t i, cnt;
	int good = 1;

	if (f->backend == SHT_BACKEND_NULL) {
		sht_result_destroy(res);
		return;
	}
	rc = sht_state_quark_path(ss, path, false, &q);
	if (!ok(rc == SHT_OK, "%s: %s exists", fx_tag(f), path)) {
		sht_result_destroy(res);
		return;
	}
	/* The expectation itself must tile [start, end]. */
	if (n == 0 || e[0].s != s0 || e[n - 1].e != e0)
		diag("  (test bug? %s expected from %" PRId64 " to %" PRId64
		     ", history [%" PRId64 ", %" PRId64 "])", path,
		     n ? e[0].s : 0, n ? e[n - 1].e : 0, s0, e0);
	rc = sht_state_query_range(ss, q, s0, e0, 0, res);
	cnt = sht_result_count(res);
	if (rc != SHT_OK || cnt != n)
		good = 0;
	for (i = 0; good && i < n; i++)
		if (!iv_is(sht_result_at(res, i), q, &e[i]))
			good = 0;
	if (!ok(good, "%s: %s has %zu intervals as expected", fx_tag(f), path,
		n)) {
		diag("  range query: %s, %zu items", sht_err_name(rc), cnt);
		for (i = 0; i < cnt || i < n; i++) {
			if (i < cnt)
				diag_iv("got ", sht_result_at(res, i));
			if (i < n)
				diag_exp("want", q, &e[i]);
		}
	}
	/* Single queries at the bounds of every interval. */
	good = 1;
	for (i = 0; i < n; i++) {
		sht_time ts[2] = { e[i].s, e[i].e };
		int k;

		for (k = 0; k < 2; k++) {
			rc = sht_state_query(ss, q, ts[k], res);
			if (rc != SHT_OK || sht_result_count(res) != 1 ||
			    !iv_is(sht_result_at(res, 0), q, &e[i])) {
				if (good)
					diag("  single query %s at %" PRId64
					     ": %s, %zu items", path, ts[k],
					     sht_err_name(rc),
					     sht_result_count(res));
				if (good && sht_result_count(res))
					diag_iv("got ", sht_result_at(res, 0));
				if (good)
					diag_exp("want", q, &e[i]);
				good = 0;
			}
		}
	}
	ok(good, "%s: %s single queries at every interval bound", fx_tag(f),
	   path);
	sht_result_destroy(res);
}

/* Full query at t: one interval per quark, in quark order, each equal to
 * the single query of that quark. */
static void expect_full(fx *f, sht_time t)
{
	sht_state *ss = f->ss;
	sht_result *full, *one;
	uint64_t n, i;
	sht_err rc;
	int good = 1;

	if (f->backend == SHT_BACKEND_NULL)
		return;
	full = sht_result_create();
	one = sht_result_create();
	n = sht_state_attr_count(ss);
	rc = sht_state_query_full(ss, t, full);
	if (rc != SHT_OK || sht_result_count(full) != n) {
		diag("  full query at %" PRId64 ": %s, %zu items, %" PRIu64
		     " attributes", t, sht_err_name(rc),
		     sht_result_count(full), n);
		good = 0;
	}
	for (i = 0; good && i < n; i++) {
		const sht_interval *a = sht_result_at(full, (size_t)i);

		rc = sht_state_query(ss, (sht_quark)i, t, one);
		if (a->quark != i || rc != SHT_OK ||
		    sht_result_count(one) != 1 ||
		    !sm_iv_eq(a, sht_result_at(one, 0)) || a->start > t ||
		    a->end < t) {
			diag("  full query at %" PRId64 ", item %" PRIu64, t,
			     i);
			diag_iv("full  ", a);
			if (sht_result_count(one))
				diag_iv("single", sht_result_at(one, 0));
			good = 0;
		}
	}
	ok(good, "%s: full query at %" PRId64 " = the single queries",
	   fx_tag(f), t);
	sht_result_destroy(full);
	sht_result_destroy(one);
}

/* ---- 1. a new attribute is null from the history start ------------------ */

static void check_late(fx *f)
{
	expect(f, "a", IVS({ 100, 199, NUL() }, { 200, 500, I32(1) }));
	expect(f, "b", IVS({ 100, 399, NUL() }, { 400, 500, STR("x") }));
	expect(f, "c", IVS({ 100, 500, NUL() }));
	expect(f, "p", IVS({ 100, 500, NUL() }));
	expect(f, "p/q/r", IVS({ 100, 449, NUL() }, { 450, 500, I64(7) }));
	expect_full(f, 100);
	expect_full(f, 450);
	expect_full(f, 500);
}

static void sc_late(sht_backend b)
{
	fx f;
	sht_quark a, bq, c, r;
	const char *name;
	size_t len;
	sht_quark parent;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	is_int(a, 0, "%s: first quark is 0", f.bname);
	mod(&f, 200, a, I32(1), SHT_OK, "a = 1 at 200");
	bq = Q(&f, "b");                        /* created at "300" */
	mod(&f, 400, bq, STR("x"), SHT_OK, "b = x at 400");
	c = Q(&f, "c");                         /* never changed */
	r = Q(&f, "p/q/r");                     /* parents first */
	is_int(bq, 1, "%s: b is quark 1", f.bname);
	is_int(c, 2, "%s: c is quark 2", f.bname);
	is_int(r, 5, "%s: p/q/r: p = 3, q = 4, r = 5", f.bname);
	is_int(sht_state_attr_count(f.ss), 6, "%s: 6 attributes", f.bname);
	st(&f, sht_state_attr_name(f.ss, 4, &name, &len), SHT_OK, "name of 4");
	ok(len == 1 && memcmp(name, "q", 1) == 0, "%s: quark 4 is q", f.bname);
	st(&f, sht_state_attr_parent(f.ss, 5, &parent), SHT_OK, "parent of 5");
	is_int(parent, 4, "%s: parent of r is q", f.bname);
	mod(&f, 450, r, I64(7), SHT_OK, "p/q/r = 7L at 450");
	finish(&f, 500);
	check_late(&f);
	if (fx_reopen(&f))
		check_late(&f);
	fx_done(&f);
}

/* ---- 2. a change at t ends the previous interval at t - 1 --------------- */

static void check_ends(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 120, I32(2) }, { 121, 121, I32(3) },
			   { 122, 200, NUL() }));
	expect(f, "b", IVS({ 100, 100, STR("first") },
			   { 101, 200, STR("second") }));
}

static void sc_ends(sht_backend b)
{
	fx f;
	sht_quark a, bq;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	mod(&f, 100, bq, STR("first"), SHT_OK, "b = first at the start");
	mod(&f, 101, bq, STR("second"), SHT_OK, "b = second at 101");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 120, a, I32(2), SHT_OK, "a = 2 at 120");
	mod(&f, 121, a, I32(3), SHT_OK, "a = 3 at 121");
	mod(&f, 122, a, NUL(), SHT_OK, "a = null at 122");
	finish(&f, 200);
	check_ends(&f);
	if (fx_reopen(&f))
		check_ends(&f);
	fx_done(&f);
}

/* ---- 3. the same value extends the interval ------------------------------- */

static const char nul1[] = { 'a', '\0', 'b' };
static const char nul2[] = { 'a', '\0', 'c' };

static void check_same(fx *f)
{
	expect(f, "i", IVS({ 100, 109, NUL() }, { 110, 300, I32(1) }));
	expect(f, "n", IVS({ 100, 300, NUL() }));
	expect(f, "s", IVS({ 100, 119, NUL() }, { 120, 139, STRN(nul1, 3) },
			   { 140, 159, STRN(nul2, 3) }, { 160, 179, STR("a") },
			   { 180, 300, STR("") }));
	expect(f, "d", IVS({ 100, 119, NUL() }, { 120, 129, DBL(0.0) },
			   { 130, 139, DBL(-0.0) }, { 140, 300, DBL(NAN) }));
	expect(f, "l", IVS({ 100, 149, NUL() }, { 150, 300, I64(5) }));
}

static void sc_same(sht_backend b)
{
	fx f;
	sht_quark i, n, s, d, l;

	fx_create(&f, b, 100);
	i = Q(&f, "i");
	n = Q(&f, "n");
	s = Q(&f, "s");
	d = Q(&f, "d");
	l = Q(&f, "l");
	mod(&f, 105, n, NUL(), SHT_OK, "n = null (already null) at 105");
	mod(&f, 110, i, I32(1), SHT_OK, "i = 1 at 110");
	mod(&f, 120, i, I32(1), SHT_OK, "i = 1 again at 120");
	mod(&f, 120, s, STRN(nul1, 3), SHT_OK, "s = a\\0b at 120");
	mod(&f, 120, d, DBL(0.0), SHT_OK, "d = 0.0 at 120");
	mod(&f, 130, d, DBL(0.0), SHT_OK, "d = 0.0 again at 130");
	mod(&f, 130, d, DBL(-0.0), SHT_OK, "d = -0.0 at 130 (other bits)");
	mod(&f, 130, s, STRN(nul1, 3), SHT_OK, "s = a\\0b again at 130");
	mod(&f, 140, s, STRN(nul2, 3), SHT_OK, "s = a\\0c at 140");
	mod(&f, 140, d, DBL(NAN), SHT_OK, "d = NaN at 140");
	mod(&f, 150, d, DBL(NAN), SHT_OK, "d = NaN again at 150 (same bits)");
	mod(&f, 150, l, I64(5), SHT_OK, "l = 5L at 150");
	mod(&f, 155, l, I64(5), SHT_OK, "l = 5L again at 155");
	mod(&f, 160, s, STR("a"), SHT_OK, "s = a (a prefix) at 160");
	mod(&f, 170, i, I32(1), SHT_OK, "i = 1 again at 170");
	mod(&f, 180, s, STR(""), SHT_OK, "s = empty string at 180");
	mod(&f, 190, s, STR(""), SHT_OK, "s = empty string again at 190");
	mod(&f, 190, n, NUL(), SHT_OK, "n = null again at 190");
	finish(&f, 300);
	check_same(&f);
	if (fx_reopen(&f))
		check_same(&f);
	fx_done(&f);
}

/* ---- 4. several changes at one timestamp -------------------------------- */

static void check_burst(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 300, I32(3) }));
	/* A -> B -> A at 120: two adjacent intervals, both A. */
	expect(f, "b", IVS({ 100, 109, NUL() }, { 110, 119, STR("A") },
			   { 120, 300, STR("A") }));
	/* Changes at the history start: the last one from the start. */
	expect(f, "c", IVS({ 100, 300, I32(9) }));
	/* A change then back to null at one time: [100, 129] null then
	 * [130, ...] null. */
	expect(f, "d", IVS({ 100, 129, NUL() }, { 130, 300, NUL() }));
	/* Null -> 1 -> null at the start: one null interval. */
	expect(f, "e", IVS({ 100, 300, NUL() }));
}

static void sc_burst(sht_backend b)
{
	fx f;
	sht_quark a, bq, c, d, e;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	d = Q(&f, "d");
	e = Q(&f, "e");
	mod(&f, 100, c, I32(8), SHT_OK, "c = 8 at the start");
	mod(&f, 100, c, I32(9), SHT_OK, "c = 9 at the start");
	mod(&f, 100, e, I32(1), SHT_OK, "e = 1 at the start");
	mod(&f, 100, e, NUL(), SHT_OK, "e = null at the start");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 110, a, I32(2), SHT_OK, "a = 2 at 110");
	mod(&f, 110, a, I32(3), SHT_OK, "a = 3 at 110");
	mod(&f, 110, bq, STR("A"), SHT_OK, "b = A at 110");
	mod(&f, 120, bq, STR("B"), SHT_OK, "b = B at 120");
	mod(&f, 120, bq, STR("A"), SHT_OK, "b = A at 120");
	mod(&f, 130, d, I32(4), SHT_OK, "d = 4 at 130");
	mod(&f, 130, d, NUL(), SHT_OK, "d = null at 130");
	finish(&f, 300);
	check_burst(&f);
	if (fx_reopen(&f))
		check_burst(&f);
	fx_done(&f);
}

/* ---- 5. type lock ---------------------------------------------------------- */

static void check_types(fx *f)
{
	expect(f, "i", IVS({ 100, 109, NUL() }, { 110, 129, I32(1) },
			   { 130, 149, NUL() }, { 150, 300, I32(2) }));
	expect(f, "s", IVS({ 100, 119, NUL() }, { 120, 300, STR("x") }));
	expect(f, "l", IVS({ 100, 139, NUL() }, { 140, 300, I64(1) }));
	expect(f, "d", IVS({ 100, 300, DBL(2.5) }));
	expect(f, "u", IVS({ 100, 169, STR("no lock") }, { 170, 300, I64(5) }));
}

static void sc_types(sht_backend b)
{
	fx f;
	sht_quark i, s, l, d, u;

	fx_create(&f, b, 100);
	i = Q(&f, "i");
	s = Q(&f, "s");
	l = Q(&f, "l");
	d = Q(&f, "d");
	u = Q(&f, "u");
	mod(&f, 100, d, DBL(2.5), SHT_OK, "d = 2.5 at the start");
	mod(&f, 105, i, NUL(), SHT_OK, "null on a fresh attribute");
	mod(&f, 106, i, NUL(), SHT_OK, "null again (locks nothing)");
	mod(&f, 110, i, I32(1), SHT_OK, "i = 1 (locks int)");
	mod(&f, 120, i, STR("x"), SHT_ERR_TYPE, "string into an int");
	mod(&f, 120, i, I64(1), SHT_ERR_TYPE, "long into an int");
	mod(&f, 120, i, DBL(1.0), SHT_ERR_TYPE, "double into an int");
	mod(&f, 120, s, STR("x"), SHT_OK, "s = x (locks string)");
	mod(&f, 125, s, I32(1), SHT_ERR_TYPE, "int into a string");
	mod(&f, 130, i, NUL(), SHT_OK, "null into an int is allowed");
	mod(&f, 140, i, STR("x"), SHT_ERR_TYPE,
	    "string into an int that is null now (still locked)");
	mod(&f, 140, l, I64(1), SHT_OK, "l = 1L (locks long)");
	mod(&f, 145, l, I32(1), SHT_ERR_TYPE, "int into a long");
	mod(&f, 145, d, I32(2), SHT_ERR_TYPE, "int into a double");
	mod(&f, 150, i, I32(2), SHT_OK, "int into the int again");
	/* A refused value changes nothing (no interval). */
	mod(&f, 160, s, DBL(1.0), SHT_ERR_TYPE, "double into a string");
	/* update-ongoing does not lock: u gets a string, then longs. */
	{
		sht_value v = NUL();

		st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
		   "update-ongoing u with null");
		v = STR("no lock");
		st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
		   "update-ongoing u with a string");
	}
	mod(&f, 170, u, I64(5), SHT_OK,
	    "u = 5L after update-ongoing (no lock from it)");
	mod(&f, 170, u, STR("x"), SHT_ERR_TYPE, "string into u, now long");
	finish(&f, 300);
	check_types(&f);
	if (fx_reopen(&f))
		check_types(&f);
	fx_done(&f);
}

/*
 * Trace Compass (TransientState.processStateChange) records the type of
 * the first non-null value before comparing it with the ongoing one, so
 * a modify that writes the value already there (put there by
 * update-ongoing) still locks the type.
 */
static void sc_lock_on_same_value(sht_backend b)
{
	fx f;
	sht_quark u;
	sht_value v = STR("s");

	fx_create(&f, b, 100);
	u = Q(&f, "u");
	st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
	   "update-ongoing u = s");
	mod(&f, 110, u, STR("s"), SHT_OK, "u = s (same value: no interval)");
	mod(&f, 120, u, I32(1), SHT_ERR_TYPE,
	    "int into u: its type was locked by the same-value modify");
	finish(&f, 200);
	expect(&f, "u", IVS({ 100, 200, STR("s") }));
	fx_done(&f);
}

/* ---- 6. clear ---------------------------------------------------------------- */

static void check_clear(fx *f)
{
	expect(f, "p", IVS({ 100, 109, NUL() }, { 110, 199, I32(1) },
			   { 200, 400, NUL() }));
	expect(f, "p/a", IVS({ 100, 109, NUL() }, { 110, 199, I32(2) },
			     { 200, 400, NUL() }));
	expect(f, "p/a/x", IVS({ 100, 109, NUL() }, { 110, 199, STR("x") },
			       { 200, 400, NUL() }));
	/* Already null: cleared without a new interval. */
	expect(f, "p/a/y", IVS({ 100, 400, NUL() }));
	expect(f, "p/b", IVS({ 100, 109, NUL() }, { 110, 199, I64(3) },
			     { 200, 400, NUL() }));
	/* Set at 200 then cleared at 200: the value is replaced in place,
	 * which leaves two adjacent null intervals. */
	expect(f, "p/c", IVS({ 100, 199, NUL() }, { 200, 400, NUL() }));
	/* Outside the subtree: untouched. */
	expect(f, "q", IVS({ 100, 109, NUL() }, { 110, 400, I32(5) }));
	/* A leaf cleared, then set again. */
	expect(f, "q/z", IVS({ 100, 109, NUL() }, { 110, 249, I32(6) },
			     { 250, 259, NUL() }, { 260, 400, I32(7) }));
}

static void sc_clear(sht_backend b)
{
	fx f;
	sht_quark p, pa, px, pb, pc, qq, qz;

	fx_create(&f, b, 100);
	p = Q(&f, "p");
	pa = Q(&f, "p/a");
	px = Q(&f, "p/a/x");
	Q(&f, "p/a/y");
	pb = Q(&f, "p/b");
	qq = Q(&f, "q");
	qz = Q(&f, "q/z");
	mod(&f, 110, p, I32(1), SHT_OK, "p = 1");
	mod(&f, 110, pa, I32(2), SHT_OK, "p/a = 2");
	mod(&f, 110, px, STR("x"), SHT_OK, "p/a/x = x");
	mod(&f, 110, pb, I64(3), SHT_OK, "p/b = 3L");
	mod(&f, 110, qq, I32(5), SHT_OK, "q = 5");
	mod(&f, 110, qz, I32(6), SHT_OK, "q/z = 6");
	pc = Q(&f, "p/c");
	mod(&f, 200, pc, I32(9), SHT_OK, "p/c = 9 at 200");
	st(&f, sht_state_clear(f.ss, 200, p), SHT_OK, "clear p at 200");
	st(&f, sht_state_clear(f.ss, 250, qz), SHT_OK, "clear q/z at 250");
	st(&f, sht_state_clear(f.ss, 255, qz), SHT_OK, "clear q/z again");
	mod(&f, 260, qz, I32(7), SHT_OK, "q/z = 7 at 260");
	mod(&f, 270, pa, STR("x"), SHT_ERR_TYPE,
	    "clear keeps the type lock of p/a");
	finish(&f, 400);
	check_clear(&f);
	if (fx_reopen(&f))
		check_clear(&f);
	fx_done(&f);
}

/* ---- 7. push / pop ---------------------------------------------------------- */

static void popped_is(fx *f, sht_time t, sht_quark q, sht_err want_rc,
		      sht_value want, const char *what)
{
	sht_value got = sht_value_int32(-12345);
	sht_err rc = sht_state_pop(f->ss, t, q, &got);
	char gb[128], wb[128];

	if (!ok(rc == want_rc && (rc != SHT_OK || sm_value_eq(&got, &want)),
		"%s: %s", f->bname, what))
		diag("  got %s %s, want %s %s", sht_err_name(rc),
		     sm_value_str(&got, gb, sizeof gb), sht_err_name(want_rc),
		     sm_value_str(&want, wb, sizeof wb));
}

static void push(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
		 const char *what)
{
	st(f, sht_state_push(f->ss, t, q, &v), want, what);
}

static void check_stack(fx *f)
{
	expect(f, "s", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 129, I32(2) }, { 130, 139, I32(1) },
			   { 140, 159, NUL() }, { 160, 500, NUL() }));
	expect(f, "s/1", IVS({ 100, 109, NUL() }, { 110, 139, STR("f") },
			     { 140, 500, NUL() }));
	expect(f, "s/2", IVS({ 100, 119, NUL() }, { 120, 129, STR("g") },
			     { 130, 500, NUL() }));
	/* The element's children are cleared with it. */
	expect(f, "s/2/x", IVS({ 100, 124, NUL() }, { 125, 129, I32(3) },
			       { 130, 500, NUL() }));
	/* Push and pop at one timestamp. */
	expect(f, "t", IVS({ 100, 199, NUL() }, { 200, 500, NUL() }));
	expect(f, "t/1", IVS({ 100, 199, NUL() }, { 200, 500, NUL() }));
	/* A stack of longs, left pushed. */
	expect(f, "u", IVS({ 100, 209, NUL() }, { 210, 219, I32(1) },
			   { 220, 500, I32(2) }));
	expect(f, "u/1", IVS({ 100, 209, NUL() }, { 210, 500, I64(10) }));
	expect(f, "u/2", IVS({ 100, 219, NUL() }, { 220, 500, DBL(0.5) }));
	expect(f, "w", IVS({ 100, 299, NUL() }, { 300, 500, STR("not int") }));
}

static void sc_stack(sht_backend b)
{
	fx f;
	sht_quark s, s2x, t, u, w;
	sht_value ov;
	sht_time since;

	fx_create(&f, b, 100);
	s = Q(&f, "s");
	popped_is(&f, 105, s, SHT_NOT_FOUND, NUL(), "pop on a fresh stack");
	push(&f, 110, s, STR("f"), SHT_OK, "push f at 110");
	st(&f, sht_state_ongoing(f.ss, s, &ov, &since), SHT_OK, "ongoing s");
	ok(ov.type == SHT_TYPE_INT32 && ov.u.i32 == 1 && since == 110,
	   "%s: s holds int 1 since 110", f.bname);
	push(&f, 120, s, STR("g"), SHT_OK, "push g at 120");
	is_int(sht_state_attr_count(f.ss), 3, "%s: s, s/1, s/2", f.bname);
	s2x = Q(&f, "s/2/x");
	mod(&f, 125, s2x, I32(3), SHT_OK, "s/2/x = 3");
	{
		/* The popped string stays valid until the next change
		 * (queries and look-ups are not changes). */
		sht_value got;
		sht_result *res = sht_result_create();
		sht_quark tmp;

		st(&f, sht_state_pop(f.ss, 130, s, &got), SHT_OK,
		   "pop at 130");
		if (b != SHT_BACKEND_NULL)
			sht_state_query(f.ss, s, 125, res);
		sht_state_quark_path(f.ss, "s/2", false, &tmp);
		ok(got.type == SHT_TYPE_STRING && got.len == 1 &&
		   got.u.str[0] == 'g' && got.u.str[1] == '\0',
		   "%s: pop at 130 gave \"g\", still readable after a query",
		   f.bname);
		sht_result_destroy(res);
	}
	popped_is(&f, 140, s, SHT_OK, STR("f"), "pop at 140 gives f");
	popped_is(&f, 150, s, SHT_NOT_FOUND, NUL(), "pop on the emptied stack");
	/* A popped value with the NULL out pointer. */
	push(&f, 160, s, NUL(), SHT_OK, "push null at 160");
	st(&f, sht_state_pop(f.ss, 160, s, NULL), SHT_OK,
	   "pop at 160 into NULL (gives null, not \"empty\")");

	t = Q(&f, "t");
	push(&f, 200, t, I32(4), SHT_OK, "push 4 on t at 200");
	popped_is(&f, 200, t, SHT_OK, I32(4), "pop t at 200 gives 4");

	u = Q(&f, "u");
	push(&f, 210, u, I64(10), SHT_OK, "push 10L on u");
	push(&f, 220, u, DBL(0.5), SHT_OK, "push 0.5 on u");

	w = Q(&f, "w");
	mod(&f, 300, w, STR("not int"), SHT_OK, "w = a string");
	push(&f, 300, w, I32(1), SHT_ERR_TYPE, "push on a string attribute");
	popped_is(&f, 300, w, SHT_ERR_TYPE, NUL(), "pop on a string attribute");
	is_int(sht_state_attr_count(f.ss), 10,
	       "%s: refused pushes created nothing", f.bname);
	finish(&f, 500);
	check_stack(&f);
	if (fx_reopen(&f))
		check_stack(&f);
	fx_done(&f);
}

/*
 * Trace Compass's pushAttribute: modify(depth) then modify(element); when
 * the second fails with a type error, the first stays.  z above: after
 * the refused push at 330 z holds 1 from 330.  Checked separately so its
 * outcome does not hide the rest.
 */
static void sc_stack_partial(sht_backend b)
{
	fx f;
	sht_quark z;

	fx_create(&f, b, 100);
	z = Q(&f, "z");
	push(&f, 310, z, STR("s"), SHT_OK, "push s on z");
	popped_is(&f, 320, z, SHT_OK, STR("s"), "pop z");
	push(&f, 330, z, I32(1), SHT_ERR_TYPE, "push an int: z/1 holds strings");
	finish(&f, 500);
	expect(&f, "z", IVS({ 100, 309, NUL() }, { 310, 319, I32(1) },
			   { 320, 329, NUL() }, { 330, 500, I32(1) }));
	expect(&f, "z/1", IVS({ 100, 309, NUL() }, { 310, 319, STR("s") },
			     { 320, 500, NUL() }));
	fx_done(&f);
}

/* Deep stacks: LIFO order over 200 elements, and SHT_STACK_MAX once. */
static void sc_stack_deep(sht_backend b, int limit)
{
	fx f;
	sht_quark s;
	int i, good = 1;
	sht_value got;
	sht_err rc;
	uint64_t n0;

	fx_create(&f, b, 0);
	s = Q(&f, "deep");
	for (i = 1; i <= 200; i++) {
		sht_value v = I64(i * 3);

		rc = sht_state_push(f.ss, i, s, &v);
		if (rc != SHT_OK && good) {
			diag("  push %d: %s", i, sht_err_name(rc));
			good = 0;
		}
	}
	for (i = 200; i >= 1; i--) {
		rc = sht_state_pop(f.ss, 1000 - i, s, &got);
		if ((rc != SHT_OK || got.type != SHT_TYPE_INT64 ||
		     got.u.i64 != i * 3) && good) {
			diag("  pop %d: %s", i, sht_err_name(rc));
			good = 0;
		}
	}
	ok(good, "%s: 200 pushes then 200 pops in LIFO order", f.bname);
	popped_is(&f, 1000, s, SHT_NOT_FOUND, NUL(), "then empty");
	if (limit) {
		for (i = 1, good = 1; i <= SHT_STACK_MAX; i++) {
			sht_value v = I64(i);

			rc = sht_state_push(f.ss, 2000, s, &v);
			if (rc != SHT_OK) {
				diag("  push %d: %s", i, sht_err_name(rc));
				good = 0;
				break;
			}
		}
		ok(good, "%s: %d pushes at one timestamp", f.bname,
		   SHT_STACK_MAX);
		n0 = sht_state_attr_count(f.ss);
		push(&f, 2001, s, I64(-1), SHT_ERR_TOOBIG,
		     "push past SHT_STACK_MAX");
		is_int(sht_state_attr_count(f.ss), n0,
		       "%s: the refused push created nothing", f.bname);
		st(&f, sht_state_ongoing(f.ss, s, &got, NULL), SHT_OK,
		   "ongoing depth");
		ok(got.type == SHT_TYPE_INT32 && got.u.i32 == SHT_STACK_MAX,
		   "%s: depth stays %d", f.bname, SHT_STACK_MAX);
		popped_is(&f, 2002, s, SHT_OK, I64(SHT_STACK_MAX),
			  "pop the top");
		push(&f, 2003, s, I64(7), SHT_OK, "push again below the limit");
	}
	finish(&f, 3000);
	if (b != SHT_BACKEND_NULL && limit) {
		char path[32];

		snprintf(path, sizeof path, "deep/%d", SHT_STACK_MAX);
		expect(&f, path, IVS({ 0, 1999, NUL() },
				     { 2000, 2001, I64(SHT_STACK_MAX) },
				     { 2002, 2002, NUL() },
				     { 2003, 3000, I64(7) }));
	}
	fx_done(&f);
}

/* ---- 8. increment ------------------------------------------------------------ */

static void check_incr(fx *f)
{
	expect(f, "c", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 129, I32(6) }, { 130, 139, I32(-4) },
			   { 140, 300, I32(0) }));
	expect(f, "l", IVS({ 100, 109, NUL() }, { 110, 119, I64(1) },
			   { 120, 129, NUL() }, { 130, 139, I64(7) },
			   { 140, 300, I64(8000000007) }));
	expect(f, "z", IVS({ 100, 149, NUL() }, { 150, 300, I32(0) }));
	expect(f, "s", IVS({ 100, 159, NUL() }, { 160, 169, STR("x") },
			   { 170, 300, NUL() }));
}

static void sc_incr(sht_backend b)
{
	fx f;
	sht_quark c, l, z, s, d;

	fx_create(&f, b, 100);
	c = Q(&f, "c");
	l = Q(&f, "l");
	z = Q(&f, "z");
	s = Q(&f, "s");
	d = Q(&f, "d");
	st(&f, sht_state_increment(f.ss, 110, c, 1), SHT_OK,
	   "increment a null: int 1");
	mod(&f, 110, l, I64(1), SHT_OK, "l = 1L");
	st(&f, sht_state_increment(f.ss, 120, c, 5), SHT_OK, "+5: 6");
	mod(&f, 120, l, NUL(), SHT_OK, "l = null");
	st(&f, sht_state_increment(f.ss, 130, c, -10), SHT_OK, "-10: -4");
	st(&f, sht_state_increment(f.ss, 130, l, 7), SHT_OK,
	   "increment a null locked to long: long 7");
	st(&f, sht_state_increment(f.ss, 135, c, 0), SHT_OK,
	   "+0: same value, nothing");
	st(&f, sht_state_increment(f.ss, 140, c, 4), SHT_OK, "+4: 0");
	st(&f, sht_state_increment(f.ss, 140, l, 8000000000), SHT_OK,
	   "long + 8e9");
	st(&f, sht_state_increment(f.ss, 150, z, 0), SHT_OK,
	   "increment a null by 0: int 0 (a new value)");
	mod(&f, 160, s, STR("x"), SHT_OK, "s = x");
	st(&f, sht_state_increment(f.ss, 165, s, 1), SHT_ERR_TYPE,
	   "increment a string");
	mod(&f, 170, s, NUL(), SHT_OK, "s = null");
	st(&f, sht_state_increment(f.ss, 175, s, 1), SHT_ERR_TYPE,
	   "increment a null locked to string (int result refused)");
	mod(&f, 180, d, DBL(1.0), SHT_OK, "d = 1.0");
	st(&f, sht_state_increment(f.ss, 185, d, 1), SHT_ERR_TYPE,
	   "increment a double");
	finish(&f, 300);
	check_incr(&f);
	if (fx_reopen(&f))
		check_incr(&f);
	fx_done(&f);
}

/* ---- 9. update-ongoing --------------------------------------------------- */

static void check_upd(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 179, I32(5) },
			   { 180, 199, STR("str") }, { 200, 300, I32(7) }));
	expect(f, "b", IVS({ 100, 300, DBL(3.5) }));
	expect(f, "c", IVS({ 100, 149, NUL() }, { 150, 300, I64(1) }));
}

static void sc_upd(sht_backend b)
{
	fx f;
	sht_quark a, bq, c;
	sht_value v;
	sht_time since;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 150, c, I64(1), SHT_OK, "c = 1L at 150");
	v = I32(5);
	st(&f, sht_state_update_ongoing(f.ss, a, &v), SHT_OK,
	   "update-ongoing a = 5: covers [110, ...]");
	st(&f, sht_state_ongoing(f.ss, a, &v, &since), SHT_OK, "ongoing a");
	ok(v.type == SHT_TYPE_INT32 && v.u.i32 == 5 && since == 110,
	   "%s: a holds 5 since 110", f.bname);
	mod(&f, 160, a, STR("x"), SHT_ERR_TYPE, "a is locked to int");
	mod(&f, 170, a, I32(5), SHT_OK, "a = 5 at 170: the same value");
	mod(&f, 180, a, I32(6), SHT_OK, "a = 6 at 180");
	v = STR("str");
	st(&f, sht_state_update_ongoing(f.ss, a, &v), SHT_OK,
	   "update-ongoing a = str: no type check");
	mod(&f, 190, a, STR("str"), SHT_ERR_TYPE,
	    "the lock is still int after update-ongoing");
	mod(&f, 200, a, I32(7), SHT_OK, "a = 7 at 200");
	v = DBL(3.5);
	st(&f, sht_state_update_ongoing(f.ss, bq, &v), SHT_OK,
	   "update-ongoing of a fresh attribute: from the start");
	mod(&f, 120, c, I64(9), SHT_ERR_ORDER, "c at 120 < 200: order");
	finish(&f, 300);
	check_upd(&f);
	if (fx_reopen(&f))
		check_upd(&f);
	fx_done(&f);
}

/* ---- 10. finish ------------------------------------------------------------- */

static void check_fin(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 1000, I32(1) }));
	expect(f, "b", IVS({ 100, 999, NUL() }, { 1000, 1000, STR("last") }));
	expect(f, "c", IVS({ 100, 1000, NUL() }));
	expect(f, "c/d", IVS({ 100, 1000, NUL() }));
	is_int(sht_state_start(f->ss), 100, "%s: start 100", fx_tag(f));
	is_int(sht_state_end(f->ss), 1000, "%s: end 1000", fx_tag(f));
}

static void sc_fin(sht_backend b)
{
	fx f;
	sht_quark a, bq, c;
	sht_value v = I32(2);

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	Q(&f, "c/d");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1");
	mod(&f, 1000, bq, STR("last"), SHT_OK, "b = last at 1000");
	is_int(sht_state_end(f.ss), 1000, "%s: end while building = 1000",
	       f.bname);
	st(&f, sht_state_finish(f.ss, 999), SHT_ERR_ORDER,
	   "finish before the last change");
	finish(&f, 1000);
	mod(&f, 1001, a, I32(3), SHT_ERR_STATE, "modify after finish");
	st(&f, sht_state_clear(f.ss, 1001, c), SHT_ERR_STATE,
	   "clear after finish");
	st(&f, sht_state_push(f.ss, 1001, c, &v), SHT_ERR_STATE,
	   "push after finish");
	st(&f, sht_state_pop(f.ss, 1001, c, NULL), SHT_ERR_STATE,
	   "pop after finish");
	st(&f, sht_state_increment(f.ss, 1001, c, 1), SHT_ERR_STATE,
	   "increment after finish");
	st(&f, sht_state_update_ongoing(f.ss, c, &v), SHT_ERR_STATE,
	   "update-ongoing after finish");
	st(&f, sht_state_finish(f.ss, 2000), SHT_ERR_STATE, "finish twice");
	check_fin(&f);
	if (fx_reopen(&f)) {
		sht_quark q;

		check_fin(&f);
		mod(&f, 1001, a, I32(3), SHT_ERR_STATE,
		    "modify an opened history");
		st(&f, sht_state_quark_path(f.ss, "new", true, &q), SHT_ERR_STATE,
		   "create an attribute in an opened history");
		st(&f, sht_state_finish(f.ss, 2000), SHT_ERR_STATE,
		   "finish an opened history");
	}
	fx_done(&f);

	/* Finish later than the last change. */
	fx_create(&f, b, 0);
	a = Q(&f, "a");
	mod(&f, 5, a, I32(1), SHT_OK, "a = 1 at 5");
	finish(&f, 1000000);
	expect(&f, "a", IVS({ 0, 4, NUL() }, { 5, 1000000, I32(1) }));
	fx_done(&f);

	/* Nothing at all: an empty history [7, 7], and one without
	 * attributes. */
	fx_create(&f, b, 7);
	finish(&f, 7);
	if (b != SHT_BACKEND_NULL) {
		sht_result *res = sht_result_create();

		is_int(sht_state_query_full(f.ss, 7, res), SHT_OK,
		       "%s: full query of a history without attributes",
		       f.bname);
		is_int(sht_result_count(res), 0, "%s: nothing in it", f.bname);
		sht_result_destroy(res);
	}
	if (fx_reopen(&f)) {
		is_int(sht_state_attr_count(f.ss), 0, "%s: no attributes",
		       fx_tag(&f));
		is_int(sht_state_end(f.ss), 7, "%s: end 7", fx_tag(&f));
	}
	fx_done(&f);
}

/* ---- 11. time errors on changes ------------------------------------------ */

static void sc_order(sht_backend b)
{
	fx f;
	sht_quark a, bq;
	sht_value v = I32(1);

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	mod(&f, 99, a, I32(1), SHT_ERR_RANGE, "modify before the start");
	st(&f, sht_state_clear(f.ss, 50, a), SHT_ERR_RANGE,
	   "clear before the start");
	st(&f, sht_state_push(f.ss, INT64_MIN, a, &v), SHT_ERR_RANGE,
	   "push at INT64_MIN");
	mod(&f, 200, a, I32(1), SHT_OK, "a = 1 at 200");
	mod(&f, 199, bq, I32(1), SHT_ERR_ORDER,
	    "b at 199 < the latest change (on a): order");
	mod(&f, 150, a, I32(2), SHT_ERR_ORDER, "a at 150: order");
	st(&f, sht_state_clear(f.ss, 199, a), SHT_ERR_ORDER, "clear at 199");
	st(&f, sht_state_push(f.ss, 199, bq, &v), SHT_ERR_ORDER,
	   "push at 199");
	st(&f, sht_state_pop(f.ss, 199, bq, NULL), SHT_ERR_ORDER,
	   "pop at 199");
	st(&f, sht_state_increment(f.ss, 199, bq, 1), SHT_ERR_ORDER,
	   "increment at 199");
	mod(&f, 99, a, I32(1), SHT_ERR_RANGE,
	    "before the start is a range error, not an order error");
	mod(&f, 200, bq, I32(4), SHT_OK, "b = 4 at 200 (= latest): fine");
	mod(&f, 300, 999, I32(4), SHT_ERR_RANGE, "modify an unknown quark");
	{
		sht_value bad = I32(0);

		bad.type = (sht_type)99;
		mod(&f, 300, a, bad, SHT_ERR_INVALID, "a value of type 99");
		bad = sht_value_string("x", SHT_STRING_MAX + 1u);
		mod(&f, 300, a, bad, SHT_ERR_TOOBIG,
		    "a string longer than SHT_STRING_MAX");
	}
	finish(&f, 300);
	expect(&f, "a", IVS({ 100, 199, NUL() }, { 200, 300, I32(1) }));
	expect(&f, "b", IVS({ 100, 199, NUL() }, { 200, 300, I32(4) }));
	fx_done(&f);

	/* A history may start anywhere, INT64_MIN included. */
	fx_create(&f, b, INT64_MIN);
	a = Q(&f, "a");
	mod(&f, INT64_MIN, a, I32(1), SHT_OK, "a = 1 at INT64_MIN");
	mod(&f, INT64_MIN + 1, a, I32(2), SHT_OK, "a = 2 at INT64_MIN + 1");
	mod(&f, -1, a, I32(3), SHT_OK, "a = 3 at -1");
	finish(&f, INT64_MAX);
	expect(&f, "a", IVS({ INT64_MIN, INT64_MIN, I32(1) },
			    { INT64_MIN + 1, -2, I32(2) },
			    { -1, INT64_MAX, I32(3) }));
	fx_done(&f);
}

/* ---- 12. queries outside the history -------------------------------------- */

static void range_errors(fx *f, sht_time s, sht_time e)
{
	sht_result *res = sht_result_create();
	sht_query2d q2;
	const sht_time bad[] = { s - 1, e + 1, INT64_MIN, INT64_MAX };
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		sht_time t = bad[i];

		if ((t == INT64_MIN && s == INT64_MIN) ||
		    (t == INT64_MAX && e == INT64_MAX))
			continue;
		is_int(sht_state_query(f->ss, 0, t, res), SHT_ERR_RANGE,
		       "%s: single query at %" PRId64 ": range", fx_tag(f), t);
		is_int(sht_state_query_full(f->ss, t, res), SHT_ERR_RANGE,
		       "%s: full query at %" PRId64 ": range", fx_tag(f), t);
		is_int(sht_state_query_range(f->ss, 0, t, e, 0, res),
		       SHT_ERR_RANGE, "%s: range query from %" PRId64
		       ": range", fx_tag(f), t);
		is_int(sht_state_query_range(f->ss, 0, t, e, 7, res),
		       SHT_ERR_RANGE, "%s: range query (r = 7) from %" PRId64
		       ": range", fx_tag(f), t);
	}
	ok(sht_state_query(f->ss, 9999, s, res) < 0,
	   "%s: single query of an unknown quark fails", fx_tag(f));
	/* t2 past the end is clamped. */
	is_int(sht_state_query_range(f->ss, 0, s, INT64_MAX, 0, res), SHT_OK,
	       "%s: range query to INT64_MAX is clamped", fx_tag(f));
	ok(sht_result_count(res) > 0 &&
	   sht_result_at(res, sht_result_count(res) - 1)->end == e,
	   "%s: ... and ends with the last interval", fx_tag(f));
	memset(&q2, 0, sizeof q2);
	q2.quarks = NULL;
	q2.qmin = 0;
	q2.qmax = 0;
	q2.t1 = s;
	q2.t2 = e;
	is_int(sht_state_query_2d(f->ss, &q2, res), SHT_OK,
	       "%s: 2D query over the whole history", fx_tag(f));
	sht_result_destroy(res);
}

static void sc_outside(sht_backend b)
{
	fx f;
	sht_quark a;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	mod(&f, 150, a, I32(1), SHT_OK, "a = 1 at 150");
	finish(&f, 200);
	if (b != SHT_BACKEND_NULL) {
		range_errors(&f, 100, 200);
		if (fx_reopen(&f))
			range_errors(&f, 100, 200);
	}
	fx_done(&f);
}

/* ---- 13. queries while building ------------------------------------------- */

static void sc_live(sht_backend b)
{
	fx f;
	sht_quark a, bq, c;
	sht_result *res = sht_result_create();
	sht_err rc;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	is_int(sht_state_end(f.ss), 100, "%s: end = start before any change",
	       f.bname);
	if (b != SHT_BACKEND_NULL) {
		is_int(sht_state_query(f.ss, a, 100, res), SHT_OK,
		       "%s: query at the start before any change", f.bname);
		ok(sht_result_count(res) == 1 &&
		   sht_result_at(res, 0)->start == 100 &&
		   sht_result_at(res, 0)->end == 100,
		   "%s: ... [100, 100] null", f.bname);
		is_int(sht_state_query(f.ss, a, 101, res), SHT_ERR_RANGE,
		       "%s: query past the current end", f.bname);
	}
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 120, bq, STR("x"), SHT_OK, "b = x at 120");
	is_int(sht_state_end(f.ss), 120, "%s: end = latest change", f.bname);
	if (b != SHT_BACKEND_NULL) {
		expect(&f, "a", IVS({ 100, 109, NUL() }, { 110, 120, I32(1) }));
		expect(&f, "b", IVS({ 100, 119, NUL() }, { 120, 120, STR("x") }));
		expect_full(&f, 100);
		expect_full(&f, 115);
		expect_full(&f, 120);
		is_int(sht_state_query_full(f.ss, 121, res), SHT_ERR_RANGE,
		       "%s: full query past the current end", f.bname);
		rc = sht_state_query_range(f.ss, a, 105, 1000, 0, res);
		ok(rc == SHT_OK && sht_result_count(res) == 2 &&
		   sht_result_at(res, 1)->end == 120,
		   "%s: range query clamped to the current end", f.bname);
	}
	/* A late attribute while building. */
	c = Q(&f, "c");
	mod(&f, 130, c, I64(3), SHT_OK, "c = 3L at 130");
	mod(&f, 140, a, I32(2), SHT_OK, "a = 2 at 140");
	if (b != SHT_BACKEND_NULL) {
		expect(&f, "a", IVS({ 100, 109, NUL() }, { 110, 139, I32(1) },
				    { 140, 140, I32(2) }));
		expect(&f, "b", IVS({ 100, 119, NUL() },
				    { 120, 140, STR("x") }));
		expect(&f, "c", IVS({ 100, 129, NUL() }, { 130, 140, I64(3) }));
		expect_full(&f, 125);
		expect_full(&f, 140);
	}
	/* A same-timestamp burst, seen between its steps. */
	mod(&f, 150, a, I32(3), SHT_OK, "a = 3 at 150");
	if (b != SHT_BACKEND_NULL)
		expect(&f, "a", IVS({ 100, 109, NUL() }, { 110, 139, I32(1) },
				    { 140, 149, I32(2) },
				    { 150, 150, I32(3) }));
	mod(&f, 150, a, I32(4), SHT_OK, "a = 4 at 150");
	if (b != SHT_BACKEND_NULL)
		expect(&f, "a", IVS({ 100, 109, NUL() }, { 110, 139, I32(1) },
				    { 140, 149, I32(2) },
				    { 150, 150, I32(4) }));
	finish(&f, 160);
	expect(&f, "a", IVS({ 100, 109, NUL() }, { 110, 139, I32(1) },
			    { 140, 149, I32(2) }, { 150, 160, I32(4) }));
	sht_result_destroy(res);
	fx_done(&f);
}

/* ---- 14. range queries with and without resolution ------------------------ */

/* KERNEL_MODEL §2.3 over a hand-written interval list (tiling [s0, e0]). */
static const exp_iv *ivs_at(const exp_iv *e, size_t n, sht_time t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (e[i].s <= t && t <= e[i].e)
			return &e[i];
	bail_out("test bug: no expected interval at %" PRId64, t);
}

static size_t spec_range(const exp_iv *e, size_t n, sht_time hist_end,
			 sht_time t1, sht_time t2, sht_time r,
			 const exp_iv **out)
{
	sht_time end = t2 < hist_end ? t2 : hist_end;
	const exp_iv *iv = ivs_at(e, n, t1);
	size_t k = 0;

	if (r == 0) {
		out[k++] = iv;
		while (iv->e < end) {
			iv = ivs_at(e, n, iv->e + 1);
			out[k++] = iv;
		}
		return k;
	}
	{
		sht_time ts = t1;

		while (ts <= end) {
			iv = ivs_at(e, n, ts);
			out[k++] = iv;
			ts += ((iv->e - ts) / r + 1) * r;
		}
		if (iv->e < end)
			out[k++] = ivs_at(e, n, end);
	}
	return k;
}

static void check_ranges(fx *f, const exp_iv *e, size_t n)
{
	sht_result *res = sht_result_create();
	static const sht_time rs[] = { 0, 1, 2, 3, 5, 7, 10, 13, 50, 99, 1000 };
	const exp_iv *want[64];
	sht_quark q;
	sht_time t1, t2;
	size_t ri, k, i;
	int bad = 0, runs = 0;
	sht_time s0 = e[0].s, e0 = e[n - 1].e;

	if (f->backend == SHT_BACKEND_NULL ||
	    sht_state_quark_path(f->ss, "r", false, &q) != SHT_OK) {
		sht_result_destroy(res);
		return;
	}
	for (t1 = s0; t1 <= e0; t1 += 3)
		for (t2 = t1; t2 <= e0 + 20; t2 += 4)
			for (ri = 0; ri < sizeof rs / sizeof rs[0]; ri++) {
				sht_err rc = sht_state_query_range(
					f->ss, q, t1, t2, rs[ri], res);
				int good;

				k = spec_range(e, n, e0, t1, t2, rs[ri], want);
				good = rc == SHT_OK &&
				       sht_result_count(res) == k;
				for (i = 0; good && i < k; i++)
					good = iv_is(sht_result_at(res, i), q,
						     want[i]);
				runs++;
				if (!good && bad++ < 3) {
					diag("  range(%" PRId64 ", %" PRId64
					     ", r=%" PRId64 "): %s, %zu items, "
					     "want %zu", t1, t2, rs[ri],
					     sht_err_name(rc),
					     sht_result_count(res), k);
					for (i = 0; i < sht_result_count(res);
					     i++)
						diag_iv("got ",
							sht_result_at(res, i));
					for (i = 0; i < k; i++)
						diag_exp("want", q, want[i]);
				}
			}
	ok(bad == 0, "%s: %d range queries (r = 0 and r > 0) as §2.3 says",
	   fx_tag(f), runs);
	sht_result_destroy(res);
}

static void sc_ranges(sht_backend b)
{
	const exp_iv e[] = {
		{ 0, 9, NUL() }, { 10, 19, I32(1) }, { 20, 20, I32(2) },
		{ 21, 50, I32(3) }, { 51, 51, NUL() }, { 52, 52, I32(4) },
		{ 53, 99, I32(5) }, { 100, 100, I32(6) },
	};
	const exp_iv *want[16];
	size_t n = sizeof e / sizeof e[0], k;
	fx f;
	sht_quark r;

	/* The algorithm itself, on hand-computed cases. */
	k = spec_range(e, n, 100, 5, 60, 10, want);
	ok(k == 4 && want[0] == &e[0] && want[1] == &e[1] &&
	   want[2] == &e[3] && want[3] == &e[6],
	   "§2.3 by hand: (5, 60, r=10) -> [0,9] [10,19] [21,50] [53,99]");
	k = spec_range(e, n, 100, 0, 20, 7, want);
	ok(k == 3 && want[0] == &e[0] && want[1] == &e[1] && want[2] == &e[2],
	   "§2.3 by hand: (0, 20, r=7) -> [0,9] [10,19] then [20,20] at t2");
	k = spec_range(e, n, 100, 0, 18, 10, want);
	ok(k == 2 && want[0] == &e[0] && want[1] == &e[1],
	   "§2.3 by hand: (0, 18, r=10) -> [0,9] [10,19]");
	k = spec_range(e, n, 100, 20, 1000, 0, want);
	ok(k == 6 && want[0] == &e[2] && want[5] == &e[7],
	   "§2.3 by hand: (20, 1000, r=0) -> 6 intervals to the end");

	fx_create(&f, b, 0);
	r = Q(&f, "r");
	Q(&f, "other");
	for (k = 1; k < n; k++)
		if (e[k].v.type != SHT_TYPE_NULL ||
		    e[k - 1].v.type != SHT_TYPE_NULL)
			mod(&f, e[k].s, r, e[k].v, SHT_OK, "r changes");
	finish(&f, 100);
	check_ranges(&f, e, n);
	expect(&f, "r", e, n);
	if (fx_reopen(&f))
		check_ranges(&f, e, n);
	fx_done(&f);
}

/* ---- 15. attribute tree, names, reopen ------------------------------------ */

static void check_attrs(fx *f)
{
	static const char *const el[] = { "IRQs", "1/i8042" };
	static const char *const rel[] = { "x", "y" };
	sht_state *ss = f->ss;
	sht_quark q, irq, parent, *m = NULL;
	const sht_quark *kids;
	size_t nk, nm, len, need;
	const char *name;
	char buf[64];
	sht_err rc;

	is_int(sht_state_attr_count(ss), 9, "%s: 9 attributes", fx_tag(f));
	rc = sht_state_quark_find(ss, SHT_QUARK_ROOT, el, 2, &irq);
	ok(rc == SHT_OK && irq == 2, "%s: IRQs/\"1/i8042\" is quark 2",
	   fx_tag(f));
	rc = sht_state_attr_name(ss, 2, &name, &len);
	ok(rc == SHT_OK && len == 7 && memcmp(name, "1/i8042", 7) == 0,
	   "%s: its name holds the slash", fx_tag(f));
	rc = sht_state_attr_path(ss, 2, buf, sizeof buf, &need);
	ok(rc == SHT_OK && need == 12 && strcmp(buf, "IRQs/1/i8042") == 0,
	   "%s: path IRQs/1/i8042 (not escaped)", fx_tag(f));
	rc = sht_state_attr_path(ss, 2, buf, 5, &need);
	ok(rc == SHT_ERR_BUFFER && need == 12 && strlen(buf) < 5,
	   "%s: path into a small buffer: BUFFER, need 12, NUL-terminated",
	   fx_tag(f));
	rc = sht_state_quark_path(ss, "IRQs/1/i8042", false, &q);
	is_int(rc, SHT_NOT_FOUND, "%s: the string form splits at every /",
	       fx_tag(f));
	rc = sht_state_quark_find(ss, SHT_QUARK_ROOT, (const char *const[]){
		"IRQs", "nope" }, 2, &q);
	is_int(rc, SHT_NOT_FOUND, "%s: find of a missing path", fx_tag(f));
	ok(sht_state_quark_find(ss, 999, rel, 2, &q) < 0,
	   "%s: find below an unknown quark fails", fx_tag(f));
	rc = sht_state_quark_find(ss, 3, rel, 2, &q);
	ok(rc == SHT_OK && q == 5, "%s: relative find CPUs/x/y = 5",
	   fx_tag(f));
	rc = sht_state_attr_children(ss, SHT_QUARK_ROOT, &kids, &nk);
	ok(rc == SHT_OK && nk == 3 && kids[0] == 0 && kids[1] == 1 &&
	   kids[2] == 3, "%s: top level: Threads, IRQs, CPUs (creation order)",
	   fx_tag(f));
	rc = sht_state_attr_children(ss, 3, &kids, &nk);
	ok(rc == SHT_OK && nk == 3 && kids[0] == 4 && kids[1] == 6 &&
	   kids[2] == 7, "%s: CPUs: x, 10, 2 (creation order, not sorted)",
	   fx_tag(f));
	rc = sht_state_attr_parent(ss, 5, &parent);
	ok(rc == SHT_OK && parent == 4, "%s: parent of y is x", fx_tag(f));
	rc = sht_state_attr_parent(ss, 0, &parent);
	ok(rc == SHT_OK && parent == SHT_QUARK_ROOT,
	   "%s: parent of a top-level attribute is the root", fx_tag(f));
	is_int(sht_state_attr_name(ss, 9, &name, &len), SHT_ERR_RANGE,
	       "%s: name of an unknown quark", fx_tag(f));
	is_int(sht_state_attr_parent(ss, 9, &parent), SHT_ERR_RANGE,
	       "%s: parent of an unknown quark", fx_tag(f));
	rc = sht_state_attr_match(ss, "CPUs/*", &m, &nm);
	ok(rc == SHT_OK && nm == 3 && m[0] == 4 && m[1] == 6 && m[2] == 7,
	   "%s: match CPUs/* -> x, 10, 2", fx_tag(f));
	free(m);
	m = NULL;
	rc = sht_state_attr_match(ss, "CPUs/*/*", &m, &nm);
	ok(rc == SHT_OK && nm == 2 && m[0] == 5 && m[1] == 8,
	   "%s: match CPUs/*/* -> x/y, 2/z", fx_tag(f));
	free(m);
	m = NULL;
	rc = sht_state_attr_match(ss, "nothing/*", &m, &nm);
	ok(rc == SHT_OK && nm == 0, "%s: no match", fx_tag(f));
	free(m);
	expect(f, "CPUs/2/z", IVS({ 10, 19, NUL() }, { 20, 30, STR("z") }));
	expect(f, "Threads", IVS({ 10, 30, NUL() }));
}

static void sc_attrs(sht_backend b)
{
	static const char *const el[] = { "IRQs", "1/i8042" };
	static const char *const rel[] = { "x", "y" };
	fx f;
	sht_quark q, cpus;

	fx_create(&f, b, 10);
	Q(&f, "Threads");                                    /* 0 */
	st(&f, sht_state_quark(f.ss, SHT_QUARK_ROOT, el, 2, &q), SHT_OK,
	   "get-or-create IRQs/\"1/i8042\"");                 /* 1, 2 */
	cpus = Q(&f, "CPUs");                                /* 3 */
	st(&f, sht_state_quark(f.ss, cpus, rel, 2, &q), SHT_OK,
	   "relative get-or-create CPUs/x/y");               /* 4, 5 */
	is_int(q, 5, "%s: CPUs/x/y = 5", f.bname);
	Q(&f, "CPUs/10");                                    /* 6 */
	q = Q(&f, "CPUs/2/z");                               /* 7, 8 */
	st(&f, sht_state_quark(f.ss, SHT_QUARK_ROOT, el, 2, &q), SHT_OK,
	   "get-or-create again");
	is_int(q, 2, "%s: existing quark 2 again", f.bname);
	mod(&f, 20, Q(&f, "CPUs/2/z"), STR("z"), SHT_OK, "CPUs/2/z = z");
	finish(&f, 30);
	check_attrs(&f);
	if (fx_reopen(&f))
		check_attrs(&f);
	fx_done(&f);
}

/* ---- 16. provider identity ------------------------------------------------- */

static void sc_provider(sht_backend b)
{
	fx f;
	const char *id = NULL;
	uint32_t ver = 99;

	if (b == SHT_BACKEND_NULL)
		return;
	fx_create_opts(&f, b, 0, "org.eclipse.tracecompass.analysis.os.linux.kernel", 31, 0);
	Q(&f, "a");
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && strcmp(id, "org.eclipse.tracecompass.analysis.os.linux.kernel") == 0 &&
	   ver == 31, "%s: provider identity and version 31", f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && strcmp(id, "org.eclipse.tracecompass.analysis.os.linux.kernel") == 0 &&
		   ver == 31, "%s: provider identity round trip", fx_tag(&f));
	}
	fx_done(&f);

	/* None given: "" and 0. */
	fx_create(&f, b, 0);
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && *id == '\0' && ver == 0, "%s: no provider: \"\" and 0",
	   f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && *id == '\0' && ver == 0,
		   "%s: no provider: \"\" and 0", fx_tag(&f));
	}
	fx_done(&f);

	/* A version without a name survives the round trip too. */
	fx_create_opts(&f, b, 0, "", 5, 0);
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && *id == '\0' && ver == 5, "%s: provider \"\" version 5",
	   f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && *id == '\0' && ver == 5,
		   "%s: provider \"\" version 5 round trip (got \"%s\" %u)",
		   fx_tag(&f), id ? id : "(null)", (unsigned)ver);
	}
	fx_done(&f);
}

/* ---- 17. the null backend -------------------------------------------------- */

static void sc_null_queries(void)
{
	fx f;
	sht_quark a;
	sht_result *res = sht_result_create();
	sht_query2d q2;
	sht_value v;
	sht_time since;

	fx_create(&f, SHT_BACKEND_NULL, 100);
	a = Q(&f, "a");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1");
	st(&f, sht_state_ongoing(f.ss, a, &v, &since), SHT_OK, "ongoing a");
	ok(v.type == SHT_TYPE_INT32 && v.u.i32 == 1 && since == 110,
	   "null: the ongoing state is kept (1 since 110)");
	ok(sht_state_query(f.ss, a, 110, res) < 0,
	   "null: single query while building fails");
	finish(&f, 200);
	ok(sht_state_query(f.ss, a, 150, res) < 0, "null: single query fails");
	ok(sht_state_query_full(f.ss, 150, res) < 0, "null: full query fails");
	ok(sht_state_query_range(f.ss, a, 100, 200, 0, res) < 0,
	   "null: range query fails");
	ok(sht_state_query_range(f.ss, a, 100, 200, 10, res) < 0,
	   "null: range query with resolution fails");
	memset(&q2, 0, sizeof q2);
	q2.qmin = 0;
	q2.qmax = 0;
	q2.t1 = 100;
	q2.t2 = 200;
	ok(sht_state_query_2d(f.ss, &q2, res) < 0, "null: 2D query fails");
	is_int(sht_state_end(f.ss), 200, "null: end is the finish time");
	sht_result_destroy(res);
	fx_done(&f);
}

/* ---- 18. big strings ------------------------------------------------------ */

static void sc_big_strings(sht_backend b, uint32_t block_size, int max)
{
	fx f;
	sht_quark a;
	size_t n1 = 1u << 20, n2 = max ? SHT_STRING_MAX : 70000;
	char *s1 = malloc(n1), *s2 = malloc(n2);
	size_t i;

	if (!s1 || !s2)
		bail_out("out of memory");
	for (i = 0; i < n1; i++)
		s1[i] = (char)(i * 7 % 253);
	memset(s2, 'z', n2);
	s2[n2 - 1] = '\0';                 /* a NUL at the end, kept */
	fx_create_opts(&f, b, 0, NULL, 0, block_size);
	a = Q(&f, "a");
	mod(&f, 10, a, STRN(s1, (uint32_t)n1), SHT_OK, "a = a 1 MiB string");
	mod(&f, 20, a, STRN(s2, (uint32_t)n2), SHT_OK,
	    max ? "a = a string of SHT_STRING_MAX bytes"
		: "a = a 70000-byte string");
	mod(&f, 30, a, STR("small"), SHT_OK, "a = small");
	finish(&f, 40);
	expect(&f, "a", IVS({ 0, 9, NUL() }, { 10, 19, STRN(s1, (uint32_t)n1) },
			    { 20, 29, STRN(s2, (uint32_t)n2) },
			    { 30, 40, STR("small") }));
	if (fx_reopen(&f))
		expect(&f, "a", IVS({ 0, 9, NUL() },
				    { 10, 19, STRN(s1, (uint32_t)n1) },
				    { 20, 29, STRN(s2, (uint32_t)n2) },
				    { 30, 40, STR("small") }));
	fx_done(&f);
	free(s1);
	free(s2);
}

/* ---- 19. life cycle ---------------------------------------------------------- */

static void sc_lifecycle(void)
{
	sht_state_opts opts;
	sht_state *ss = NULL;
	char path[4096];
	sht_quark a;
	sht_value v = I32(1);
	sht_time since;
	sht_err rc;

	sht_state_opts_init(&opts);
	ok(opts.backend == SHT_BACKEND_TREE, "defaults: tree backend");
	rc = sht_state_create(NULL, 0, &opts, &ss);
	is_int(rc, SHT_ERR_INVALID, "tree backend without a path: invalid");
	opts.backend = (sht_backend)7;
	rc = sht_state_create(NULL, 0, &opts, &ss);
	is_int(rc, SHT_ERR_INVALID, "unknown backend: invalid");
	sht_state_close(NULL);

	/* An unfinished file is refused by sht_state_open. */
	sht_state_opts_init(&opts);
	opts.tree.no_sync = true;
	sm_scratch_path(path, sizeof path, "unfinished");
	rc = sht_state_create(path, 0, &opts, &ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s", path, sht_err_name(rc));
	rc = sht_state_quark_path(ss, "a", true, &a);
	if (rc == SHT_OK)
		rc = sht_state_modify(ss, 5, a, &v);
	is_int(rc, SHT_OK, "unfinished: a = 1");
	sht_state_close(ss);
	ss = NULL;
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_ERR_INCOMPLETE, "open an unfinished history: incomplete");
	if (rc == SHT_OK)
		sht_state_close(ss);
	unlink(path);
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_ERR_IO, "open a missing file: I/O error");

	/* The ongoing state of an opened history: none. */
	sm_scratch_path(path, sizeof path, "opened");
	rc = sht_state_create(path, 0, &opts, &ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s", path, sht_err_name(rc));
	rc = sht_state_quark_path(ss, "a", true, &a);
	if (rc == SHT_OK)
		rc = sht_state_modify(ss, 5, a, &v);
	if (rc == SHT_OK)
		rc = sht_state_finish(ss, 9);
	is_int(rc, SHT_OK, "a = 1, finish");
	sht_state_close(ss);
	ss = NULL;
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_OK, "open it");
	if (rc == SHT_OK) {
		is_int(sht_state_ongoing(ss, 0, &v, &since), SHT_ERR_STATE,
		       "opened: no ongoing state");
		is_int(sht_state_update_ongoing(ss, 0, &v), SHT_ERR_STATE,
		       "opened: no update-ongoing");
		sht_state_close(ss);
	}
	unlink(path);
}

/* ---- 20. queries from other threads -------------------------------------- */

/*
 * One thread builds: at t = 10 k (k = 1 .. K) it sets "n" to long k, and
 * touches x/<k % 50> now and then.  Reader threads meanwhile query at
 * random t <= sht_state_end(): "n" at t must be [10 k, ...] = k (null
 * before 10), the full query must hold one interval per quark containing
 * t, and a range query of "n" must step k by k.  Then the same on the
 * opened file from several threads.
 */

#define TH_K 20000
#define TH_READERS 3
#define TH_X 50

typedef struct th_ctx {
	sht_state *ss;
	sht_quark n;
	atomic_int done;
	uint64_t nattrs;             /* fixed before the readers start */
	int finished;                /* 1: history finished, end fixed */
} th_ctx;

typedef struct th_reader {
	th_ctx *c;
	pthread_t tid;
	uint64_t seed;
	long queries, errors;
	char first[256];
} th_reader;

static void th_err(th_reader *r, const char *fmt, ...) TAP_PRINTF(2, 3);
static void th_err(th_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->errors++ == 0) {
		va_start(ap, fmt);
		vsnprintf(r->first, sizeof r->first, fmt, ap);
		va_end(ap);
	}
}

/* "n" at t: the interval starts at 10 floor(t / 10) (0 before 10). */
static void th_check_n(th_reader *r, const sht_interval *iv, sht_time t)
{
	sht_time k = t / 10, s0 = k ? 10 * k : 0;

	if (iv->quark != r->c->n || iv->start != s0 || iv->end < t ||
	    iv->end > (k ? s0 + 9 : 9) ||
	    (k == 0 ? iv->value.type != SHT_TYPE_NULL
		    : (iv->value.type != SHT_TYPE_INT64 ||
		       iv->value.u.i64 != k)))
		th_err(r, "n at %" PRId64 ": q%" PRIu32 " [%" PRId64 ", %"
		       PRId64 "] type %d", t, iv->quark, iv->start, iv->end,
		       (int)iv->value.type);
}

static void *th_read(void *arg)
{
	th_reader *r = arg;
	th_ctx *c = r->c;
	sht_result *res = sht_result_create();
	sm_rng rng;
	int last = 0;

	sm_rng_seed(&rng, r->seed);
	while (!last) {
		sht_time e, t, t2;
		sht_err rc;
		size_t i, cnt;

		last = c->finished ? r->queries >= 3000
				   : atomic_load(&c->done);
		e = sht_state_end(c->ss);
		t = sm_range(&rng, 0, e);
		r->queries++;
		switch (sm_below(&rng, 3)) {
		case 0:
			rc = sht_state_query(c->ss, c->n, t, res);
			if (rc != SHT_OK || sht_result_count(res) != 1)
				th_err(r, "single at %" PRId64 ": %s", t,
				       sht_err_name(rc));
			else
				th_check_n(r, sht_result_at(res, 0), t);
			break;
		case 1:
			rc = sht_state_query_full(c->ss, t, res);
			cnt = sht_result_count(res);
			if (rc != SHT_OK || cnt != c->nattrs) {
				th_err(r, "full at %" PRId64 ": %s, %zu items",
				       t, sht_err_name(rc), cnt);
				break;
			}
			for (i = 0; i < cnt; i++) {
				const sht_interval *iv = sht_result_at(res, i);

				if (iv->quark != i || iv->start > t ||
				    iv->end < t) {
					th_err(r, "full at %" PRId64 ": item %zu"
					       " q%" PRIu32 " [%" PRId64 ", %"
					       PRId64 "]", t, i, iv->quark,
					       iv->start, iv->end);
					break;
				}
			}
			th_check_n(r, sht_result_at(res, c->n), t);
			break;
		default:
			t2 = sm_range(&rng, t, t + 500 < e ? t + 500 : e);
			rc = sht_state_query_range(c->ss, c->n, t, t2,
						   sm_below(&rng, 2) ? 0 : 7,
						   res);
			cnt = sht_result_count(res);
			if (rc != SHT_OK || cnt == 0) {
				th_err(r, "range [%" PRId64 ", %" PRId64
				       "]: %s", t, t2, sht_err_name(rc));
				break;
			}
			th_check_n(r, sht_result_at(res, 0), t);
			for (i = 1; i < cnt; i++) {
				const sht_interval *a = sht_result_at(res, i - 1);
				const sht_interval *b = sht_result_at(res, i);

				if (b->start <= a->end || b->start > t2 ||
				    b->value.type != SHT_TYPE_INT64 ||
				    b->value.u.i64 != b->start / 10) {
					th_err(r, "range [%" PRId64 ", %" PRId64
					       "]: item %zu [%" PRId64 ", %"
					       PRId64 "]", t, t2, i, b->start,
					       b->end);
					break;
				}
			}
		}
	}
	sht_result_destroy(res);
	return NULL;
}

static void th_run_readers(th_ctx *c, th_reader *rd, int n, uint64_t seed)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&rd[i], 0, sizeof rd[i]);
		rd[i].c = c;
		rd[i].seed = seed + (uint64_t)i;
		if (pthread_create(&rd[i].tid, NULL, th_read, &rd[i]) != 0)
			bail_out("pthread_create failed");
	}
}

static void th_join(fx *f, th_reader *rd, int n, const char *phase)
{
	int i;

	for (i = 0; i < n; i++) {
		pthread_join(rd[i].tid, NULL);
		if (!ok(rd[i].errors == 0, "%s: %s reader %d: %ld queries, "
			"all consistent", f->bname, phase, i, rd[i].queries))
			diag("  %ld errors, first: %s", rd[i].errors,
			     rd[i].first);
	}
}

static void sc_threads(sht_backend b)
{
	fx f;
	th_ctx c;
	th_reader rd[4];
	sht_quark x[TH_X];
	int k, i, bad = 0;

	fx_create_opts(&f, b, 0, NULL, 0, 4096);
	memset(&c, 0, sizeof c);
	c.ss = f.ss;
	c.n = Q(&f, "n");
	for (i = 0; i < TH_X; i++) {
		char p[16];

		snprintf(p, sizeof p, "x/%d", i);
		x[i] = Q(&f, p);
	}
	c.nattrs = sht_state_attr_count(f.ss);
	atomic_store(&c.done, 0);
	th_run_readers(&c, rd, TH_READERS, 77);
	for (k = 1; k <= TH_K; k++) {
		sht_value v = I64(k);
		sht_err rc = sht_state_modify(f.ss, 10 * k, c.n, &v);

		if (rc == SHT_OK && k % 3 == 0) {
			v = I32(k);
			rc = sht_state_modify(f.ss, 10 * k, x[k % TH_X], &v);
		}
		if (rc == SHT_OK && k % 101 == 0)
			rc = sht_state_clear(f.ss, 10 * k, x[0] - 1);
		if (rc != SHT_OK && bad++ == 0)
			diag("  change at %d: %s", 10 * k, sht_err_name(rc));
	}
	atomic_store(&c.done, 1);
	th_join(&f, rd, TH_READERS, "while building");
	ok(bad == 0, "%s: %d changes while readers query", f.bname, TH_K);
	finish(&f, 10 * TH_K + 5);
	if (fx_reopen(&f)) {
		c.ss = f.ss;
		c.finished = 1;
		th_run_readers(&c, rd, 4, 99);
		th_join(&f, rd, 4, "opened");
	}
	fx_done(&f);
}

int main(void)
{
	size_t i;
	double t0 = sm_now();

	no_plan();
	if (sm_scratch_init("state-rules") != 0)
		bail_out("Cannot create a scratch directory");
	for (i = 0; i < sizeof all_backends / sizeof all_backends[0]; i++) {
		sht_backend b = all_backends[i];

		diag("---- backend %s", backend_name(b));
		sc_late(b);
		sc_ends(b);
		sc_same(b);
		sc_burst(b);
		sc_types(b);
		sc_lock_on_same_value(b);
		sc_clear(b);
		sc_stack(b);
		sc_stack_partial(b);
		sc_stack_deep(b, b != SHT_BACKEND_TREE);
		sc_incr(b);
		sc_upd(b);
		sc_fin(b);
		sc_order(b);
		sc_outside(b);
		sc_live(b);
		sc_ranges(b);
		sc_attrs(b);
		sc_provider(b);
		sc_big_strings(b, 1024, b == SHT_BACKEND_MEMORY);
		if (b != SHT_BACKEND_NULL)
			sc_threads(b);
	}
	sc_null_queries();
	sc_lifecycle();
	diag("total %.1f s", sm_now() - t0);
	sm_scratch_done();
	return done_testing();
}
