/*
 * queries.c: test-state-rules, rules 11-14: time errors on changes, queries outside the
 * history, queries while building, range queries with and without
 * resolution.
 */
#include "state-rules.h"

/* ---- 11. time errors on changes ------------------------------------------ */

void sc_order(sht_backend b)
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

void sc_outside(sht_backend b)
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

void sc_live(sht_backend b)
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

void sc_ranges(sht_backend b)
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
