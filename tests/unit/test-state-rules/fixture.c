/*
 * fixture.c: test-state-rules, the fixture (a state system on one backend, reopened from its file), the
 * shorthands, and the checks of a whole history against hand-written
 * intervals.
 */
#include "state-rules.h"

/* ---- fixture --------------------------------------------------------------- */

const char *backend_name(sht_backend b)
{
	return b == SHT_BACKEND_TREE ? "tree"
	       : b == SHT_BACKEND_MEMORY ? "memory" : "null";
}

sht_state *fx_create_opts(fx *f, sht_backend b, sht_time start,
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
		scratch_path(f->path, sizeof f->path, "rules");
	rc = sht_state_create(b == SHT_BACKEND_TREE ? f->path : NULL, start,
			      &opts, &f->ss);
	if (rc != SHT_OK)
		bail_out("Cannot create a %s state system: %s (%s)", f->bname,
			 sht_err_name(rc), sht_errmsg());
	return f->ss;
}

sht_state *fx_create(fx *f, sht_backend b, sht_time start)
{
	return fx_create_opts(f, b, start, NULL, 0, 0);
}

/* Close and reopen the file (tree backend); NULL for the others. */
sht_state *fx_reopen(fx *f)
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

void fx_done(fx *f)
{
	sht_state_close(f->ss);
	f->ss = NULL;
	if (f->backend == SHT_BACKEND_TREE)
		unlink(f->path);
}

/* What a check is about: "backend[/reopened]". */
const char *fx_tag(const fx *f)
{
	static char buf[64];

	snprintf(buf, sizeof buf, "%s%s", f->bname,
		 f->reopened ? "/reopened" : "");
	return buf;
}

/* ---- shorthands ---------------------------------------------------------- */

sht_quark Q(fx *f, const char *path)
{
	sht_quark q = SHT_QUARK_NONE;
	sht_err rc = sht_state_quark_path(f->ss, path, true, &q);

	if (rc != SHT_OK)
		bail_out("Cannot get-or-create %s: %s", path, sht_err_name(rc));
	return q;
}

/* The status of a change, checked on every backend (null included). */
void st(fx *f, sht_err got, sht_err want, const char *what)
{
	if (!ok(got == want, "%s: %s -> %s", f->bname, what, sht_err_name(want)))
		diag("  got %s%s%s%s", sht_err_name(got), got < 0 ? " (" : "",
		     got < 0 ? sht_errmsg() : "", got < 0 ? ")" : "");
}

void mod(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
	 const char *what)
{
	st(f, sht_state_modify(f->ss, t, q, &v), want, what);
}

void finish(fx *f, sht_time end)
{
	sht_err rc = sht_state_finish(f->ss, end);

	if (!ok(rc == SHT_OK, "%s: finish at %" PRId64, f->bname, end))
		diag("  got %s (%s)", sht_err_name(rc), sht_errmsg());
}

/* ---- expected intervals ------------------------------------------------- */

int iv_is(const sht_interval *got, sht_quark q, const exp_iv *e)
{
	sht_interval w;

	w.quark = q;
	w.start = e->s;
	w.end = e->e;
	w.value = e->v;
	return sm_iv_eq(got, &w);
}

void diag_iv(const char *label, const sht_interval *iv)
{
	char b[256];

	diag("  %s %s", label, sm_iv_str(iv, b, sizeof b));
}

void diag_exp(const char *label, sht_quark q, const exp_iv *e)
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
void expect(fx *f, const char *path, const exp_iv *e, size_t n)
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
void expect_full(fx *f, sht_time t)
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
