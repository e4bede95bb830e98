/*
 * test-partial-workloads.c: partial histories of the staircase and churn
 * workloads (src/gen/include/shtgen/workload.h), built with sht_state_run
 * over the workload's event source and provider, answer every query
 * exactly as the full history of the same events does, and as the
 * workload's definition says (shtgen_*_expect).
 *
 * For each workload: one full history (tree backend), then partial
 * histories with checkpoints every 1, 7, 100, 1000 events and every more
 * events than the trace has.  Each partial file passes sht_reader_check,
 * its checkpoints follow docs/FORMAT.md §10 (the first event of a new
 * timestamp once `every` events have passed) and its tree holds exactly
 * the full history's intervals that hold some checkpoint's time - 1.
 * Opened with sht_state_open_partial, it must agree with the full history
 * on single queries at every interval bound of every attribute (start,
 * end, middle), at checkpoint boundaries and at random, full queries at
 * 100 random times and at checkpoint boundaries, range queries with and
 * without resolution, and 2D queries (quark lists and ranges, with and
 * without resolution).  Opening with another provider version or identity, and
 * opening a full history as a partial one, are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "rng.h"
#include "tap.h"
#include <shtgen/workload.h>

/* ---- a source that counts its seeks and events ----------------------- */

struct counting {
	sht_source inner;
	uint64_t seeks, nexts;
};

static sht_err counting_next(void *src, sht_event *ev)
{
	struct counting *c = src;

	c->nexts++;
	return c->inner.ops->next(c->inner.src, ev);
}

static sht_err counting_seek(void *src, uint64_t pos)
{
	struct counting *c = src;

	c->seeks++;
	return c->inner.ops->seek(c->inner.src, pos);
}

static const sht_source_ops counting_ops = { counting_next, counting_seek, NULL, NULL, NULL };

/* ---- helpers ------------------------------------------------------------- */

static struct rng rng;     /* seeded in main */

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

static sht_time rnd_time(sht_time lo, sht_time hi)
{
	return lo + (sht_time)(rnd() % (uint64_t)(hi - lo + 1));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int same_iv(const sht_interval *x, const sht_interval *y)
{
	return x->quark == y->quark && x->start == y->start &&
	       x->end == y->end && sht_value_equal(&x->value, &y->value);
}

static int same_result(const sht_result *a, const sht_result *b)
{
	if (sht_result_count(a) != sht_result_count(b))
		return 0;
	for (size_t i = 0; i < sht_result_count(a); i++)
		if (!same_iv(sht_result_at(a, i), sht_result_at(b, i)))
			return 0;
	return 1;
}

static void value_str(const sht_value *v, char *buf, size_t size)
{
	switch (v->type) {
	case SHT_TYPE_NULL:
		snprintf(buf, size, "null");
		break;
	case SHT_TYPE_INT32:
		snprintf(buf, size, "int32 %d", (int)v->u.i32);
		break;
	case SHT_TYPE_STRING:
		snprintf(buf, size, "\"%.*s\"", (int)v->len, v->u.str);
		break;
	default:
		snprintf(buf, size, "type %d", (int)v->type);
		break;
	}
}

static void describe(const sht_result *r, sht_err err, char *buf,
		     size_t size)
{
	char v[64];

	if (err < 0 || sht_result_count(r) == 0) {
		snprintf(buf, size, "err %d, %zu items", (int)err,
			 sht_result_count(r));
		return;
	}
	value_str(&sht_result_at(r, 0)->value, v, sizeof v);
	snprintf(buf, size, "[%lld, %lld] %s (%zu items)",
		 (long long)sht_result_at(r, 0)->start,
		 (long long)sht_result_at(r, 0)->end, v, sht_result_count(r));
}

/* Every interval agrees with the workload's definition at both ends. */
static int ivs_match_expect(const shtgen_workload *w, const sht_result *r)
{
	char buf[32];

	for (size_t i = 0; i < sht_result_count(r); i++) {
		const sht_interval *iv = sht_result_at(r, i);
		sht_value e1 = shtgen_wl_expect(w, iv->quark, iv->start, buf);

		if (!sht_value_equal(&iv->value, &e1))
			return 0;
		e1 = shtgen_wl_expect(w, iv->quark, iv->end, buf);
		if (!sht_value_equal(&iv->value, &e1))
			return 0;
	}
	return 1;
}

/* ---- building ------------------------------------------------------------ */

static sht_err build(const shtgen_workload *w, const char *path, sht_backend be,
		     uint64_t every)
{
	sht_state_opts o;
	sht_provider p;
	sht_source src = { NULL, NULL };
	sht_state *ss = NULL;
	uint64_t events = 0, skipped = 0;
	sht_err err;

	shtgen_wl_provider(w, &p);
	sht_state_opts_init(&o);
	o.backend = be;
	o.tree.block_size = 4096;
	o.tree.no_sync = true;
	o.provider = p.id;
	o.provider_version = p.version;
	o.checkpoint_events = every;
	err = shtgen_wl_source(w, &src);
	if (err == SHT_OK)
		err = sht_state_create(path, 0, &o, &ss);
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, &events, &skipped);
	if (err == SHT_OK && (events != shtgen_wl_events(w) || skipped != 0))
		err = SHT_ERR_INVALID;
	if (err == SHT_OK)
		err = sht_state_finish(ss, shtgen_wl_end(w));
	if (err != SHT_OK)
		diag("build %s: err %d events %llu skipped %llu: %s", path,
		     (int)err, (unsigned long long)events,
		     (unsigned long long)skipped, sht_errmsg());
	sht_state_close(ss);
	shtgen_workload_source_free(&src);
	return err;
}

/* Every interval of the full history, per quark in time order. */
struct all_ivs {
	sht_result *res;              /* all of them */
	size_t *first;                /* per quark: index of its first */
	size_t nq;
};

static int collect(sht_state *full, struct all_ivs *all)
{
	sht_result *one = sht_result_create();
	size_t nq = sht_state_attr_count(full);
	int good = one != NULL;

	all->res = sht_result_create();
	all->first = calloc(nq + 1, sizeof *all->first);
	all->nq = nq;
	good = good && all->res && all->first;
	for (sht_quark q = 0; good && q < nq; q++) {
		sht_query2d qq = { &q, 1, 0, 0, sht_state_start(full),
				   sht_state_end(full), 0, SHT_ORDER_TIME };

		all->first[q] = sht_result_count(all->res);
		good = sht_state_query_2d(full, &qq, one) == SHT_OK;
		for (size_t i = 0; good && i < sht_result_count(one); i++)
			good = sht_result_append(all->res,
						 sht_result_at(one, i)) == SHT_OK;
	}
	if (good)
		all->first[nq] = sht_result_count(all->res);
	sht_result_destroy(one);
	return good;
}

static void all_free(struct all_ivs *all)
{
	sht_result_destroy(all->res);
	free(all->first);
}

/* ---- checkpoints (docs/FORMAT.md §10) ---------------------------------- */

struct ckpt {
	uint64_t index, pos, attrs;
	sht_time ts;
};

static int read_checkpoints(const char *path, struct ckpt **out, size_t *n,
			    uint64_t *every, uint64_t *events)
{
	sht_reader *r = NULL;
	uint8_t *d = NULL;
	size_t len = 0;
	uint32_t ver = 0;
	int good = 0;

	*out = NULL;
	*n = 0;
	if (sht_reader_open(path, NULL, &r) != SHT_OK)
		return 0;
	if (sht_reader_section(r, 3, &ver, (void **)&d, &len) == SHT_OK &&
	    ver == 1 && len >= 24 && (len - 24) % 32 == 0 &&
	    get_u64(d) == (len - 24) / 32) {
		*n = (size_t)get_u64(d);
		*every = get_u64(d + 8);
		*events = get_u64(d + 16);
		*out = calloc(*n ? *n : 1, sizeof **out);
		for (size_t i = 0; *out && i < *n; i++) {
			const uint8_t *e = d + 24 + 32 * i;

			(*out)[i].index = get_u64(e);
			(*out)[i].pos = get_u64(e + 8);
			(*out)[i].ts = (sht_time)get_u64(e + 16);
			(*out)[i].attrs = get_u64(e + 24);
		}
		good = *out != NULL;
	}
	free(d);
	sht_reader_close(r);
	return good;
}

/* Attributes existing before event idx of w (the provider creates them). */
static uint64_t attrs_before(const shtgen_workload *w, uint64_t idx,
			     uint64_t births)
{
	if (idx == 0)
		return 0;
	if (w->kind == SHTGEN_WL_STAIRCASE)
		return w->st.attributes;
	return births ? 1 + 3 * births : 0;
}

/* The checkpoints §10 prescribes, from the events themselves. */
static size_t expected_checkpoints(const shtgen_workload *w, uint64_t every,
				   struct ckpt *cp, size_t max)
{
	sht_source src;
	sht_event ev;
	uint64_t idx = 0, next_at = 0, births = 0;
	sht_time last = 0;
	size_t n = 0;

	if (shtgen_wl_source(w, &src) != SHT_OK)
		return 0;
	while (src.ops->next(src.src, &ev) == SHT_OK) {
		if (idx == 0 || (idx >= next_at && ev.ts > last)) {
			if (n < max) {
				cp[n].index = idx;
				cp[n].pos = ev.pos;
				cp[n].ts = ev.ts;
				cp[n].attrs = attrs_before(w, idx, births);
			}
			n++;
			next_at = idx + every;
		}
		if (w->kind == SHTGEN_WL_CHURN &&
		    ((const shtgen_churn_event *)ev.data)->kind ==
		    SHTGEN_CHURN_BIRTH)
			births++;
		last = ev.ts;
		idx++;
	}
	shtgen_workload_source_free(&src);
	return n;
}

/* Does [s, e] hold cp[k].ts - 1 for some k >= 1? */
static int crosses(const struct ckpt *cp, size_t n, sht_time s, sht_time e)
{
	for (size_t k = 1; k < n; k++)
		if (s <= cp[k].ts - 1 && cp[k].ts - 1 <= e)
			return 1;
	return 0;
}

static void report_line(void *ctx, const char *msg)
{
	(void)ctx;
	diag("  check: %s", msg);
}

/* ---- comparisons ----------------------------------------------------- */

struct cmp {
	const shtgen_workload *w;
	sht_state *full, *part;
	sht_result *a, *b;
	size_t bad, expect_bad, n;
	const char *what;
};

/* One single query on both; the answer must also match the workload. */
static void single(struct cmp *c, sht_quark q, sht_time t)
{
	sht_err e1 = sht_state_query(c->full, q, t, c->a);
	sht_err e2 = sht_state_query(c->part, q, t, c->b);
	char buf[32], d1[128], d2[128];
	sht_value want;

	c->n++;
	if (e1 != e2 || !same_result(c->a, c->b)) {
		if (c->bad++ < 5) {
			describe(c->a, e1, d1, sizeof d1);
			describe(c->b, e2, d2, sizeof d2);
			diag("%s: single %s q=%u t=%lld: full %s, partial %s%s%s",
			     shtgen_wl_name(c->w), c->what, (unsigned)q,
			     (long long)t, d1, d2, e2 < 0 ? ": " : "", e2 < 0 ? sht_errmsg() : "");
		}
		return;
	}
	want = shtgen_wl_expect(c->w, q, t, buf);
	if (e1 != SHT_OK || sht_result_count(c->a) != 1 ||
	    sht_result_at(c->a, 0)->start > t ||
	    sht_result_at(c->a, 0)->end < t ||
	    !sht_value_equal(&sht_result_at(c->a, 0)->value, &want)) {
		if (c->expect_bad++ < 5) {
			describe(c->a, e1, d1, sizeof d1);
			value_str(&want, d2, sizeof d2);
			diag("%s: single q=%u t=%lld: %s, expected %s",
			     shtgen_wl_name(c->w), (unsigned)q, (long long)t,
			     d1, d2);
		}
	}
}

/* Single queries at the start, end and middle of every interval, quark
 * by quark (segments alternate: most queries replay). */
static void singles_by_quark(struct cmp *c, const struct all_ivs *all)
{
	c->what = "at a bound";
	for (sht_quark q = 0; q < all->nq; q++)
		for (size_t i = all->first[q]; i < all->first[q + 1]; i++) {
			const sht_interval *iv = sht_result_at(all->res, i);

			single(c, q, iv->start);
			single(c, q, iv->end);
			single(c, q, iv->start + (iv->end - iv->start) / 2);
		}
}

/* Every quark at ts - 1, ts and ts + 1 of some checkpoints. */
static void singles_at_checkpoints(struct cmp *c, const struct ckpt *cp,
				   size_t n)
{
	size_t step = n > 12 ? n / 12 : 1;
	sht_time end = sht_state_end(c->full);
	uint64_t nq = sht_state_attr_count(c->full);

	c->what = "at a checkpoint";
	for (size_t k = 0; k < n; k += step)
		for (sht_time d = -1; d <= 1; d++) {
			sht_time t = cp[k].ts + d;

			if (t < 0 || t > end)
				continue;
			for (sht_quark q = 0; q < nq; q++)
				single(c, q, t);
		}
}

/* Random (quark, time) pairs: most fall in another segment than the
 * previous one, so most replay. */
static void singles_random(struct cmp *c, int count)
{
	sht_time end = sht_state_end(c->full);
	uint64_t nq = sht_state_attr_count(c->full);

	c->what = "at random";
	for (int i = 0; i < count; i++)
		single(c, (sht_quark)(rnd() % nq), rnd_time(0, end));
}

static void full_at(struct cmp *c, sht_time t)
{
	sht_err e1 = sht_state_query_full(c->full, t, c->a);
	sht_err e2 = sht_state_query_full(c->part, t, c->b);
	char buf[32];

	c->n++;
	if (e1 != e2 || !same_result(c->a, c->b)) {
		if (c->bad++ < 5)
			diag("%s: full query t=%lld: err %d/%d, %zu/%zu items%s%s",
			     shtgen_wl_name(c->w), (long long)t, (int)e1, (int)e2,
			     sht_result_count(c->a), sht_result_count(c->b),
			     e2 < 0 ? ": " : "", e2 < 0 ? sht_errmsg() : "");
		return;
	}
	if (e1 != SHT_OK || sht_result_count(c->a) != shtgen_wl_quarks(c->w)) {
		if (c->expect_bad++ < 5)
			diag("%s: full query t=%lld: err %d, %zu items, expected %llu",
			     shtgen_wl_name(c->w), (long long)t, (int)e1,
			     sht_result_count(c->a),
			     (unsigned long long)shtgen_wl_quarks(c->w));
		return;
	}
	for (size_t i = 0; i < sht_result_count(c->a); i++) {
		const sht_interval *iv = sht_result_at(c->a, i);
		sht_value want = shtgen_wl_expect(c->w, iv->quark, t, buf);

		if (iv->quark != i || iv->start > t || iv->end < t ||
		    !sht_value_equal(&iv->value, &want)) {
			if (c->expect_bad++ < 5)
				diag("%s: full query t=%lld: item %zu (q=%u) wrong",
				     shtgen_wl_name(c->w), (long long)t, i,
				     (unsigned)iv->quark);
			return;
		}
	}
}

static void fulls(struct cmp *c, const struct ckpt *cp, size_t n)
{
	sht_time end = sht_state_end(c->full);
	size_t step = n > 10 ? n / 10 : 1;

	for (int i = 0; i < 100; i++)
		full_at(c, rnd_time(0, end));
	for (size_t k = 1; k < n; k += step) {
		full_at(c, cp[k].ts - 1);
		full_at(c, cp[k].ts);
	}
	full_at(c, 0);
	full_at(c, end);
}

/* Range query of q over [t1, t2] with resolution r on both (t2 past the
 * end means the end); the answer must match the workload, run from the
 * interval at t1 to the one at min(t2, end), contiguous if r == 0. */
static void range(struct cmp *c, sht_quark q, sht_time t1, sht_time t2,
		  sht_time r)
{
	sht_err e1 = sht_state_query_range(c->full, q, t1, t2, r, c->a);
	sht_err e2 = sht_state_query_range(c->part, q, t1, t2, r, c->b);
	size_t n = sht_result_count(c->a);
	sht_time last = t2 < sht_state_end(c->full) ? t2 : sht_state_end(c->full);

	c->n++;
	if (e1 != e2 || !same_result(c->a, c->b)) {
		if (c->bad++ < 5)
			diag("%s: range q=%u [%lld, %lld] r=%lld: err %d/%d, %zu/%zu items",
			     shtgen_wl_name(c->w), (unsigned)q, (long long)t1,
			     (long long)t2, (long long)r, (int)e1, (int)e2,
			     n, sht_result_count(c->b));
		return;
	}
	if (e1 != SHT_OK || n == 0 || !ivs_match_expect(c->w, c->a) ||
	    sht_result_at(c->a, 0)->start > t1 ||
	    sht_result_at(c->a, n - 1)->end < last ||
	    sht_result_at(c->a, n - 1)->start > last) {
		if (c->expect_bad++ < 5)
			diag("%s: range q=%u [%lld, %lld] r=%lld: err %d, %zu items, not the workload's",
			     shtgen_wl_name(c->w), (unsigned)q, (long long)t1,
			     (long long)t2, (long long)r, (int)e1, n);
		return;
	}
	for (size_t i = 1; r == 0 && i < n; i++)
		if (sht_result_at(c->a, i)->start !=
		    sht_result_at(c->a, i - 1)->end + 1) {
			if (c->expect_bad++ < 5)
				diag("%s: range q=%u [%lld, %lld]: gap at item %zu",
				     shtgen_wl_name(c->w), (unsigned)q,
				     (long long)t1, (long long)t2, i);
			return;
		}
}

static void ranges(struct cmp *c, int count)
{
	sht_time end = sht_state_end(c->full);
	uint64_t nq = sht_state_attr_count(c->full);

	/* The whole history of a few quarks, then random windows. */
	for (int i = 0; i < 6; i++) {
		sht_quark q = (sht_quark)(rnd() % nq);

		range(c, q, 0, end, 0);
		range(c, q, 0, end, 1 + (sht_time)(rnd() % 5000));
	}
	for (int i = 0; i < count; i++) {
		sht_quark q = (sht_quark)(rnd() % nq);
		sht_time t1 = rnd_time(0, end);
		sht_time span = rnd() % 2 ? end / 50 : end / 5;
		sht_time t2 = t1 + (sht_time)(rnd() % (uint64_t)(span + 1));
		sht_time r = rnd() % 2 ? 0 : 1 + (sht_time)(rnd() % 3000);

		range(c, q, t1, t2, r);
	}
}

static void q2d(struct cmp *c, const sht_query2d *q)
{
	sht_err e1 = sht_state_query_2d(c->full, q, c->a);
	sht_err e2 = sht_state_query_2d(c->part, q, c->b);

	c->n++;
	if (e1 != e2 || !same_result(c->a, c->b)) {
		if (c->bad++ < 5)
			diag("%s: 2D %s [%lld, %lld] r=%lld: err %d/%d, %zu/%zu items",
			     shtgen_wl_name(c->w), q->quarks ? "list" : "range",
			     (long long)q->t1, (long long)q->t2,
			     (long long)q->resolution, (int)e1, (int)e2,
			     sht_result_count(c->a), sht_result_count(c->b));
		return;
	}
	if (e1 != SHT_OK || !ivs_match_expect(c->w, c->a)) {
		if (c->expect_bad++ < 5)
			diag("%s: 2D [%lld, %lld]: err %d or a value not the workload's",
			     shtgen_wl_name(c->w), (long long)q->t1,
			     (long long)q->t2, (int)e1);
	}
}

static void queries_2d(struct cmp *c, int count)
{
	sht_time end = sht_state_end(c->full);
	uint64_t nq = sht_state_attr_count(c->full);
	sht_quark list[6];

	for (int i = 0; i < count; i++) {
		sht_query2d q;
		sht_time span = rnd() % 3 ? end / 40 : end;

		memset(&q, 0, sizeof q);
		q.t1 = rnd_time(0, end);
		q.t2 = q.t1 + (sht_time)(rnd() % (uint64_t)(span + 1));
		if (q.t2 > end)
			q.t2 = end;
		q.resolution = rnd() % 2 ? 0 : 1 + (sht_time)(rnd() % 4000);
		if (i % 2) {
			q.n_quarks = 1 + (size_t)(rnd() % 6);
			for (size_t k = 0; k < q.n_quarks; k++)
				list[k] = (sht_quark)(rnd() % nq);
			q.quarks = list;
		} else {
			q.qmin = (sht_quark)(rnd() % nq);
			q.qmax = q.qmin + (sht_quark)(rnd() % 40);
			if (q.qmax >= nq)
				q.qmax = (sht_quark)(nq - 1);
		}
		q2d(c, &q);
	}
	/* Everything, whole history, with and without resolution. */
	{
		sht_query2d q = { NULL, 0, 0, (sht_quark)(nq - 1), 0, end, 0, SHT_ORDER_TIME };

		q2d(c, &q);
		q.resolution = end / 97 + 1;
		q2d(c, &q);
	}
}

/* ---- one partial history -------------------------------------------- */

static void check_partial(const shtgen_workload *w, const char *dir,
			  sht_state *full, const struct all_ivs *all,
			  uint64_t every)
{
	char path[512];
	struct counting cs;
	sht_source src = { &counting_ops, &cs };
	sht_provider p, wrong;
	sht_reader *r = NULL;
	sht_state *part = NULL;
	struct ckpt *cp = NULL, *want = NULL;
	size_t ncp = 0, nwant;
	uint64_t f_every = 0, f_events = 0, crossing = 0;
	sht_tree_info info;
	struct cmp c;

	snprintf(path, sizeof path, "%s/%s-partial-%llu.sht", dir,
		 shtgen_wl_name(w), (unsigned long long)every);
	if (!ok(build(w, path, SHT_BACKEND_PARTIAL, every) == SHT_OK,
		"%s: partial history every %llu events", shtgen_wl_name(w),
		(unsigned long long)every))
		return;

	/* The file: sound, its checkpoints and intervals as §10 says. */
	ok(sht_reader_open(path, NULL, &r) == SHT_OK &&
	   sht_reader_check(r, report_line, NULL, 10) == SHT_OK,
	   "%s every %llu: sht_reader_check passes", shtgen_wl_name(w),
	   (unsigned long long)every);
	memset(&info, 0, sizeof info);
	if (r)
		sht_reader_info_get(r, &info);
	sht_reader_close(r);
	ok(read_checkpoints(path, &cp, &ncp, &f_every, &f_events),
	   "%s every %llu: checkpoint section readable", shtgen_wl_name(w),
	   (unsigned long long)every);
	nwant = expected_checkpoints(w, every, NULL, 0);
	want = calloc(nwant ? nwant : 1, sizeof *want);
	expected_checkpoints(w, every, want, nwant);
	{
		int same = ncp == nwant && f_every == every &&
			   f_events == shtgen_wl_events(w);

		for (size_t k = 0; same && k < ncp; k++)
			same = cp[k].index == want[k].index &&
			       cp[k].pos == want[k].pos &&
			       cp[k].ts == want[k].ts &&
			       cp[k].attrs == want[k].attrs;
		ok(same, "%s every %llu: %zu checkpoints where §10 puts them "
		   "(expected %zu)", shtgen_wl_name(w),
		   (unsigned long long)every, ncp, nwant);
	}
	for (size_t i = 0; i < sht_result_count(all->res); i++) {
		const sht_interval *iv = sht_result_at(all->res, i);

		crossing += crosses(want, nwant, iv->start, iv->end);
	}
	is_u64(info.intervals, crossing,
	       "%s every %llu: the tree holds the %llu intervals crossing a "
	       "checkpoint (full history: %zu)", shtgen_wl_name(w),
	       (unsigned long long)every, (unsigned long long)crossing,
	       sht_result_count(all->res));

	/* Opening. */
	memset(&cs, 0, sizeof cs);
	if (!ok(shtgen_wl_source(w, &cs.inner) == SHT_OK, "source"))
		goto out;
	shtgen_wl_provider(w, &p);
	wrong = p;
	wrong.version = p.version + 1;
	is_int(sht_state_open_partial(path, NULL, &src, &wrong, &part),
	       SHT_ERR_INVALID, "%s every %llu: provider version %u refused",
	       shtgen_wl_name(w), (unsigned long long)every, wrong.version);
	wrong = p;
	wrong.id = w->kind == SHTGEN_WL_STAIRCASE ? "churn" : "staircase";
	is_int(sht_state_open_partial(path, NULL, &src, &wrong, &part),
	       SHT_ERR_INVALID, "%s every %llu: provider \"%s\" refused",
	       shtgen_wl_name(w), (unsigned long long)every, wrong.id);
	if (!ok(sht_state_open_partial(path, NULL, &src, &p, &part) == SHT_OK,
		"%s every %llu: open the partial history", shtgen_wl_name(w),
		(unsigned long long)every)) {
		diag("%s", sht_errmsg());
		goto out;
	}
	is_u64(sht_state_attr_count(part), sht_state_attr_count(full),
	       "%s every %llu: same attributes", shtgen_wl_name(w),
	       (unsigned long long)every);

	memset(&c, 0, sizeof c);
	c.w = w;
	c.full = full;
	c.part = part;
	c.a = sht_result_create();
	c.b = sht_result_create();

	singles_by_quark(&c, all);
	singles_at_checkpoints(&c, want, nwant);
	singles_random(&c, 1000);
	is_int(c.bad, 0, "%s every %llu: %zu single queries agree with the "
	       "full history", shtgen_wl_name(w), (unsigned long long)every, c.n);
	is_int(c.expect_bad, 0, "%s every %llu: and with the workload",
	       shtgen_wl_name(w), (unsigned long long)every);
	diag("%s every %llu: %zu checkpoints, %llu/%zu intervals stored, "
	     "%llu replays, %llu events replayed for %zu single queries",
	     shtgen_wl_name(w), (unsigned long long)every, ncp,
	     (unsigned long long)info.intervals, sht_result_count(all->res),
	     (unsigned long long)cs.seeks, (unsigned long long)cs.nexts, c.n);

	c.bad = c.expect_bad = c.n = 0;
	fulls(&c, want, nwant);
	is_int(c.bad, 0, "%s every %llu: %zu full queries agree with the full "
	       "history", shtgen_wl_name(w), (unsigned long long)every, c.n);
	is_int(c.expect_bad, 0, "%s every %llu: and with the workload",
	       shtgen_wl_name(w), (unsigned long long)every);

	c.bad = c.expect_bad = c.n = 0;
	ranges(&c, 60);
	is_int(c.bad, 0, "%s every %llu: %zu range queries (with and without "
	       "resolution) agree with the full history", shtgen_wl_name(w),
	       (unsigned long long)every, c.n);
	is_int(c.expect_bad, 0, "%s every %llu: and with the workload",
	       shtgen_wl_name(w), (unsigned long long)every);

	c.bad = c.expect_bad = c.n = 0;
	queries_2d(&c, 40);
	is_int(c.bad, 0, "%s every %llu: %zu 2D queries agree with the full "
	       "history", shtgen_wl_name(w), (unsigned long long)every, c.n);
	is_int(c.expect_bad, 0, "%s every %llu: and with the workload",
	       shtgen_wl_name(w), (unsigned long long)every);

	sht_result_destroy(c.a);
	sht_result_destroy(c.b);
out:
	sht_state_close(part);
	shtgen_workload_source_free(&cs.inner);
	free(cp);
	free(want);
}

/* ---- one workload -------------------------------------------------------- */

static void run_workload(const shtgen_workload *w, const char *dir)
{
	char fpath[512];
	sht_state *full = NULL, *bogus = NULL;
	struct all_ivs all;
	sht_source src;
	sht_provider p;
	const uint64_t spacings[] = { 1, 7, 100, 1000, 0 };

	memset(&all, 0, sizeof all);
	snprintf(fpath, sizeof fpath, "%s/%s-full.sht", dir, shtgen_wl_name(w));
	if (!ok(build(w, fpath, SHT_BACKEND_TREE, 0) == SHT_OK,
		"%s: full history of %llu events", shtgen_wl_name(w),
		(unsigned long long)shtgen_wl_events(w)))
		return;
	if (!ok(sht_state_open(fpath, NULL, &full) == SHT_OK,
		"%s: open the full history", shtgen_wl_name(w)))
		return;
	if (!ok(collect(full, &all), "%s: collect its intervals",
		shtgen_wl_name(w)))
		goto out;
	is_u64(sht_result_count(all.res), shtgen_wl_intervals(w),
	       "%s: %llu intervals, as the workload defines", shtgen_wl_name(w),
	       (unsigned long long)shtgen_wl_intervals(w));
	ok(ivs_match_expect(w, all.res),
	   "%s: every interval has the workload's value", shtgen_wl_name(w));

	/* A full history has no checkpoints: not a partial history. */
	if (ok(shtgen_wl_source(w, &src) == SHT_OK, "source")) {
		shtgen_wl_provider(w, &p);
		is_int(sht_state_open_partial(fpath, NULL, &src, &p, &bogus),
		       SHT_ERR_INVALID, "%s: a full history does not open as "
		       "a partial one", shtgen_wl_name(w));
		sht_state_close(bogus);
		shtgen_workload_source_free(&src);
	}

	for (size_t i = 0; i < sizeof spacings / sizeof *spacings; i++) {
		uint64_t every = spacings[i] ? spacings[i]
					     : 2 * shtgen_wl_events(w) + 1;

		check_partial(w, dir, full, &all, every);
	}
out:
	all_free(&all);
	sht_state_close(full);
}

int main(void)
{
	const char *dir = getenv("SHT_TMP");
	shtgen_workload st, ch;

	rng_seed(&rng, rng_test_seed(0x9e3779b97f4a7c15u));
	if (!dir)
		dir = "/tmp";

	memset(&st, 0, sizeof st);
	st.kind = SHTGEN_WL_STAIRCASE;
	st.st.attributes = 50;
	st.st.intervals = 20;
	st.st.step = 1000;
	run_workload(&st, dir);

	memset(&ch, 0, sizeof ch);
	ch.kind = SHTGEN_WL_CHURN;
	ch.ch.threads = 200;
	run_workload(&ch, dir);
	return done_testing();
}
