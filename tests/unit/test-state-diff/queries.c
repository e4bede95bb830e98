/*
 * queries.c: test-state-diff, every query kind of every system compared with
 * the model, while building and after the finish.
 */
#include "state-diff.h"

/* ---- query comparisons ------------------------------------------------------ */

typedef struct qstats {
	long singles, fulls, ranges, q2d;
} qstats;

static int same_list(const sht_result *res, const sht_interval *want,
		     size_t n)
{
	size_t i;

	if (sht_result_count(res) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (!sm_iv_eq(sht_result_at(res, i), &want[i]))
			return 0;
	return 1;
}

static void show_lists(const sht_result *res, const sht_interval *want,
		       size_t n)
{
	size_t i, got = sht_result_count(res), shown = 0;
	char b[256];

	for (i = 0; (i < got || i < n) && shown < 12; i++) {
		int same = i < got && i < n &&
			   sm_iv_eq(sht_result_at(res, i), &want[i]);

		if (same && i + 1 < got && i + 1 < n)
			continue;
		if (i < got)
			diag("    got  [%zu] %s", i,
			     sm_iv_str(sht_result_at(res, i), b, sizeof b));
		if (i < n)
			diag("    want [%zu] %s", i,
			     sm_iv_str(&want[i], b, sizeof b));
		shown++;
	}
}

static int check_single(run *R, sut *s, sht_quark q, sht_time t,
			const char *phase, qstats *st)
{
	sht_interval want;
	sht_err em = sm_at(&R->m, q, t, &want);
	sht_err es = sht_state_query(s->ss, q, t, R->res);

	st->singles++;
	s->checks++;
	if (es != em || (em == SHT_OK && !same_list(R->res, &want, 1))) {
		diverge(R, s, "%s: single query q%" PRIu32 " (%s) at %" PRId64
			": %s with %zu items, model %s", phase, q,
			qpath(&R->m, q), t, sht_err_name(es),
			sht_result_count(R->res), sht_err_name(em));
		show_lists(R->res, &want, em == SHT_OK);
		return 0;
	}
	return 1;
}

static int check_full(run *R, sut *s, sht_time t, const char *phase,
		      qstats *st)
{
	sht_err es = sht_state_query_full(s->ss, t, R->res);
	sht_err em = (t < R->m.start || t > sm_end(&R->m)) ? SHT_ERR_RANGE
							   : SHT_OK;
	size_t q;

	st->fulls++;
	s->checks++;
	R->l1.n = 0;
	if (em == SHT_OK)
		for (q = 0; q < R->m.n; q++) {
			sht_interval iv;

			sm_at(&R->m, (sht_quark)q, t, &iv);
			sm_list_add(&R->l1, &iv);
		}
	if (es != em || !same_list(R->res, R->l1.v, R->l1.n)) {
		diverge(R, s, "%s: full query at %" PRId64 ": %s with %zu "
			"items, model %s with %zu", phase, t, sht_err_name(es),
			sht_result_count(R->res), sht_err_name(em), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

static int check_range(run *R, sut *s, sht_quark q, sht_time t1,
		       sht_time t2, sht_time r, const char *phase, qstats *st)
{
	sht_err em = sm_range_query(&R->m, q, t1, t2, r, &R->l1);
	sht_err es = sht_state_query_range(s->ss, q, t1, t2, r, R->res);

	st->ranges++;
	s->checks++;
	if (es != em ||
	    (em == SHT_OK && !same_list(R->res, R->l1.v, R->l1.n))) {
		diverge(R, s, "%s: range query q%" PRIu32 " (%s) [%" PRId64
			", %" PRId64 "] r=%" PRId64 ": %s with %zu items, "
			"model %s with %zu", phase, q, qpath(&R->m, q), t1,
			t2, r, sht_err_name(es), sht_result_count(R->res),
			sht_err_name(em), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

/* Does [s, e] hold a sample t1 + k r (k >= 0, <= t2) or t2 itself? */
static int hits(sht_time t1, sht_time t2, sht_time r, sht_time s,
		sht_time e)
{
	sht_time a = s > t1 ? s : t1, b = e < t2 ? e : t2, k;

	if (a > b)
		return 0;
	if (r == 0 || (s <= t2 && t2 <= e))
		return 1;
	k = (a - t1 + r - 1) / r;               /* first sample >= a */
	return t1 + k * r <= b;
}

static int cmp_start_quark(const void *x, const void *y)
{
	const sht_interval *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->quark < b->quark ? -1 : a->quark > b->quark;
}

static int cmp_quark_start(const void *x, const void *y)
{
	const sht_interval *a = x, *b = y;

	if (a->quark != b->quark)
		return a->quark < b->quark ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Model 2D query: every selected interval intersecting [t1, t2] (with
 * r > 0: holding a sample or t2), by (start, quark). */
static void model_2d(run *R, const sht_quark *sel, size_t nsel, int use_sel,
		     sht_quark qmin, sht_quark qmax, sht_time t1, sht_time t2,
		     sht_time r)
{
	size_t q, i;

	R->l1.n = 0;
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		int in = 0;

		if (use_sel) {
			for (i = 0; i < nsel; i++)
				if (sel[i] == q)
					in = 1;
		} else {
			in = q >= qmin && q <= qmax;
		}
		if (!in)
			continue;
		for (i = 0; i < a->niv; i++)
			if (hits(t1, t2, r, a->ivs[i].start, a->ivs[i].end))
				sm_list_add(&R->l1, &a->ivs[i]);
		if (!R->m.finished && hits(t1, t2, r, a->cur_start,
					   R->m.latest)) {
			sht_interval iv;

			iv.quark = (sht_quark)q;
			iv.start = a->cur_start;
			iv.end = R->m.latest;
			iv.value = a->cur;
			sm_list_add(&R->l1, &iv);
		}
	}
	qsort(R->l1.v, R->l1.n, sizeof *R->l1.v, cmp_start_quark);
}

static int check_2d(run *R, sut *s, const char *phase, qstats *st)
{
	sht_quark sel[6];
	size_t nsel = 0, i;
	sht_query2d q2;
	sht_time lo = R->m.start, hi = sm_end(&R->m), t1, t2, r;
	sht_err es;

	memset(&q2, 0, sizeof q2);
	t1 = rng_range(&R->rng, lo, hi);
	t2 = rng_pct(&R->rng, 30) ? hi : rng_range(&R->rng, t1, hi);
	r = rng_pct(&R->rng, 40) ? 0
	    : rng_range(&R->rng, 1, (t2 - t1) / 4 + 2);
	if (R->m.n == 0)
		return 1;
	if (rng_pct(&R->rng, 50)) {
		nsel = 1 + rng_below(&R->rng, 6);
		for (i = 0; i < nsel; i++)
			sel[i] = rand_quark(R);
		q2.quarks = sel;
		q2.n_quarks = nsel;
	} else {
		q2.qmin = rand_quark(R);
		q2.qmax = q2.qmin + (sht_quark)rng_below(&R->rng,
						R->m.n - q2.qmin < 40
						? R->m.n - q2.qmin : 40);
	}
	q2.t1 = t1;
	q2.t2 = t2;
	q2.resolution = r;
	model_2d(R, sel, nsel, q2.quarks != NULL, q2.qmin, q2.qmax, t1, t2,
		 r);
	if (st->q2d % 2) {       /* every other one by (quark, start) */
		q2.order = SHT_ORDER_QUARK;
		qsort(R->l1.v, R->l1.n, sizeof *R->l1.v, cmp_quark_start);
	}
	es = sht_state_query_2d(s->ss, &q2, R->res);
	st->q2d++;
	s->checks++;
	if (es != SHT_OK || !same_list(R->res, R->l1.v, R->l1.n)) {
		diverge(R, s, "%s: 2D query %s%s%" PRIu32 "..%" PRIu32
			" [%" PRId64 ", %" PRId64 "] r=%" PRId64 ": %s with "
			"%zu items, model %zu", phase,
			q2.order == SHT_ORDER_QUARK ? "by quark, " : "",
			q2.quarks ? "list " : "range ",
			q2.quarks ? sel[0] : q2.qmin,
			q2.quarks ? sel[nsel - 1] : q2.qmax, t1, t2, r,
			sht_err_name(es), sht_result_count(R->res), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

static sht_time rand_t(run *R)
{
	return rng_range(&R->rng, R->m.start, sm_end(&R->m));
}

static sht_time rand_res(run *R, sht_time span)
{
	switch (rng_below(&R->rng, 5)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return rng_range(&R->rng, 1, 20);
	case 3: return rng_range(&R->rng, 1, span / 50 + 1);
	default: return rng_range(&R->rng, 1, span / 3 + 1);
	}
}

/* A random time near the interesting spots: interval bounds. */
static sht_time bound_t(run *R)
{
	sht_quark q = rand_quark(R);
	const sm_attr *a = &R->m.a[q];
	size_t i;
	sht_time t;

	if (a->niv == 0)
		t = a->cur_start;
	else {
		i = rng_below(&R->rng, a->niv);
		t = rng_pct(&R->rng, 50) ? a->ivs[i].start : a->ivs[i].end;
	}
	t += rng_range(&R->rng, -1, 1);
	if (t < R->m.start)
		t = R->m.start;
	if (t > sm_end(&R->m))
		t = sm_end(&R->m);
	return t;
}

/* The attribute tree, quark by quark. */
static int check_attr_tree(run *R, sut *s, const char *phase)
{
	size_t q;

	if (sht_state_attr_count(s->ss) != R->m.n) {
		diverge(R, s, "%s: %" PRIu64 " attributes, model %zu", phase,
			sht_state_attr_count(s->ss), R->m.n);
		return 0;
	}
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		const char *name;
		size_t len, nk, i;
		sht_quark parent;
		const sht_quark *kids;

		s->checks++;
		if (sht_state_attr_name(s->ss, (sht_quark)q, &name, &len) !=
		    SHT_OK || len != a->name_len ||
		    memcmp(name, a->name, len) != 0 ||
		    sht_state_attr_parent(s->ss, (sht_quark)q, &parent) !=
		    SHT_OK || parent != a->parent ||
		    sht_state_attr_children(s->ss, (sht_quark)q, &kids, &nk) !=
		    SHT_OK || nk != a->nkids) {
			diverge(R, s, "%s: attribute q%zu (%s) differs", phase,
				q, qpath(&R->m, (sht_quark)q));
			return 0;
		}
		for (i = 0; i < nk; i++)
			if (kids[i] != a->kids[i]) {
				diverge(R, s, "%s: children of q%zu differ",
					phase, q);
				return 0;
			}
	}
	{
		const sht_quark *kids;
		size_t nk, i;

		if (sht_state_attr_children(s->ss, SHT_QUARK_ROOT, &kids,
					    &nk) != SHT_OK ||
		    nk != R->m.nroots) {
			diverge(R, s, "%s: top-level attributes differ", phase);
			return 0;
		}
		for (i = 0; i < nk; i++)
			if (kids[i] != R->m.roots[i]) {
				diverge(R, s, "%s: top-level attributes differ",
					phase);
				return 0;
			}
	}
	return 1;
}

/*
 * Compare the queries of s with the model.  thorough: every interval
 * bound of every attribute; else a sample (live checks).
 */
void check_queries(run *R, sut *s, const char *phase, int thorough)
{
	qstats st = { 0, 0, 0, 0 };
	sht_time lo = R->m.start, hi = sm_end(&R->m);
	int nfull = thorough ? 150 : 12, nrange = thorough ? 600 : 40;
	int n2d = thorough ? 150 : 10;
	size_t q, i;
	int k;

	if (s->dead || s->backend == SHT_BACKEND_NULL)
		return;
	if (sht_state_start(s->ss) != lo || sht_state_end(s->ss) != hi) {
		diverge(R, s, "%s: bounds [%" PRId64 ", %" PRId64 "], model [%"
			PRId64 ", %" PRId64 "]", phase,
			sht_state_start(s->ss), sht_state_end(s->ss), lo, hi);
		return;
	}
	if (!check_attr_tree(R, s, phase))
		return;
	/* Single queries at interval bounds. */
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		size_t n = a->niv + (R->m.finished ? 0 : 1);

		if (!thorough && !rng_pct(&R->rng, 10))
			continue;
		for (i = 0; i < n; i++) {
			sht_time s0 = i < a->niv ? a->ivs[i].start
						 : a->cur_start;
			sht_time e0 = i < a->niv ? a->ivs[i].end : hi;
			const sht_time ts[4] = { s0 - 1, s0, e0, e0 + 1 };
			int j;

			for (j = 0; j < 4; j++) {
				if ((j == 0 && s0 == INT64_MIN) ||
				    (j == 3 && e0 == INT64_MAX))
					continue;
				if (!check_single(R, s, (sht_quark)q, ts[j],
						  phase, &st))
					return;
			}
		}
	}
	/* Outside the history and an unknown quark. */
	if (R->m.n && lo > INT64_MIN &&
	    !check_single(R, s, 0, lo - 1, phase, &st))
		return;
	if (R->m.n && hi < INT64_MAX &&
	    !check_single(R, s, 0, hi + 1, phase, &st))
		return;
	s->checks++;
	if (sht_state_query(s->ss, (sht_quark)R->m.n, lo, R->res) >= 0) {
		diverge(R, s, "%s: query of quark %zu (unknown) succeeded",
			phase, R->m.n);
		return;
	}
	/* Full queries: random times, bounds, the ends. */
	for (k = 0; k < nfull; k++) {
		sht_time t = k == 0 ? lo : k == 1 ? hi : k == 2 && lo > INT64_MIN
			     ? lo - 1 : k == 3 && hi < INT64_MAX ? hi + 1
			     : (k & 1) ? rand_t(R) : bound_t(R);

		if (!check_full(R, s, t, phase, &st))
			return;
	}
	/* Range queries. */
	for (k = 0; k < nrange && R->m.n; k++) {
		sht_quark qq = rand_quark(R);
		sht_time t1 = rng_pct(&R->rng, 50) ? rand_t(R) : bound_t(R);
		sht_time t2 = rng_pct(&R->rng, 20) ? INT64_MAX
			      : rng_pct(&R->rng, 30) ? hi
			      : rng_range(&R->rng, t1, hi);
		sht_time r = rand_res(R, (t2 < hi ? t2 : hi) - t1);

		if (k < 5 && lo > INT64_MIN)
			t1 = lo - 1;             /* a range error */
		if (!check_range(R, s, qq, t1, t2, r, phase, &st))
			return;
	}
	for (k = 0; k < n2d; k++)
		if (!check_2d(R, s, phase, &st))
			return;
	if (thorough)
		printf("# round %d %s %s: %ld single, %ld full, %ld range, "
		       "%ld 2D queries agree\n", R->round, s->label, phase,
		       st.singles, st.fulls, st.ranges, st.q2d);
}
