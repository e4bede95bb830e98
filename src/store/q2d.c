/*
 * q2d.c: the records of one node that a 2D query keeps (docs/FORMAT.md
 * §3), read without walking the others.
 *
 * A node's records are sorted by (quark, start) and those of one quark do
 * not overlap, so within a quark the ends strictly increase.  For each
 * selected quark the scan searches the first record ending at or after
 * t1; after a record ending at e it searches the first record ending at
 * or after the next sample time after e (with resolution 0, e + 1).  The
 * records jumped over end before that sample time and start after e, so
 * they hold none.  Searches gallop (the record at hand, then 1, 2, 4, ...
 * ahead, then bisection): a step to the next record costs one end, a jump
 * over d records O(log d).  A record reached by a jump in a RUNS node
 * gets its start from the exceptions or from the previous record's end
 * (sht__run_start), as the format defines it.
 *
 * The node's quarks are met the same way: with a set of quarks, the
 * selected quarks and the node's quarks (its flat records, or its runs)
 * are intersected by alternate galloping searches, so neither the records
 * of unselected quarks nor the selected quarks absent from the node are
 * walked one by one.
 *
 * On a damaged node (ends out of order) answers may be wrong, but every
 * search stays inside its range, every index read is checked and every
 * step moves forward.
 */
#include "store/store-int.h"

static sht_err bad_rec(const struct sht__node *n, uint64_t i)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot decode record: block=%llu record=%llu: index outside its table",
			  (unsigned long long)n->self, (unsigned long long)i);
}

/*
 * First index in [i, b) at which below(ctx, index) is 0, below being 1
 * on a prefix of the range (b if none): i, then i + 1, i + 2, i + 4, ...
 * until one is not below, then bisection between the last two probes.
 */
static size_t gallop(size_t i, size_t b, int (*below)(const void *, size_t),
		     const void *ctx)
{
	size_t lo = i, hi, step = 1;

	if (i >= b || !below(ctx, i))
		return i < b ? i : b;
	for (;;) {                      /* below(lo) */
		if (b - lo <= step) {
			hi = b;
			break;
		}
		if (!below(ctx, lo + step)) {
			hi = lo + step;
			break;
		}
		lo += step;
		step *= 2;
	}
	for (lo++; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (below(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- the records of one quark ---------------------------------------- */

/* One quark's records [a, b) in a node. */
struct grp {
	const struct sht__node *n;
	uint32_t a, b;
	uint32_t quark;
	uint32_t run;           /* RUNS: its run */
	sht_time s0;            /* RUNS: start of record a */
	int runs;
};

static int grp_end(const struct grp *g, uint32_t i, sht_time *e)
{
	if (g->runs)
		return sht__rec_end(g->n, i, e);
	return sht__flat_end(g->n, i, sht__flat_start(g->n, i), e);
}

struct end_key {
	const struct grp *g;
	sht_time t;
	int bad;                /* an end index was outside its table */
};

static int end_below(const void *ctx, size_t i)
{
	struct end_key *k = (struct end_key *)(uintptr_t)ctx;
	sht_time e;

	if (!grp_end(k->g, (uint32_t)i, &e)) {
		k->bad = 1;
		return 0;
	}
	return e < k->t;
}

/* First record in [i, b) ending at or after t (b if none). */
static sht_err grp_seek(const struct grp *g, uint32_t i, sht_time t,
			uint32_t *out)
{
	struct end_key k = { g, t, 0 };

	*out = (uint32_t)gallop(i, g->b, end_below, &k);
	return k.bad ? bad_rec(g->n, *out) : SHT_OK;
}

/* The first sample time after e: 0 if none (e >= t2). */
static int next_sample(const struct sht__q2d *q, sht_time e, sht_time *s)
{
	uint64_t k, span;

	if (e >= q->t2)
		return 0;
	if (q->r <= 0 || e < q->t1) {
		*s = q->r <= 0 ? e + 1 : q->t1;
		return 1;
	}
	span = (uint64_t)q->t2 - (uint64_t)q->t1;
	k = ((uint64_t)e - (uint64_t)q->t1) / (uint64_t)q->r + 1;
	*s = k <= span / (uint64_t)q->r
	     ? (sht_time)((uint64_t)q->t1 + k * (uint64_t)q->r) : q->t2;
	return 1;
}

static sht_err grp_start(const struct grp *g, uint32_t i, sht_time *s)
{
	if (!g->runs) {
		*s = sht__flat_start(g->n, i);
		return SHT_OK;
	}
	return sht__run_start(g->n, g->a, g->s0, i, s);
}

/* Keep record i (quark, start, end in r) if it holds a sample time. */
static sht_err grp_keep(const struct grp *g, const struct sht__q2d *q,
			uint32_t i, struct sht__rec *r)
{
	if (!sht__q2d_hits(q->t1, q->t2, q->r, r->start, r->end))
		return SHT_OK;
	if (!sht__rec_value(g->n, i, &r->tag, &r->payload))
		return bad_rec(g->n, i);
	return q->keep(q->ctx, g->n, r);
}

/* Resolution > 0: from sample to sample. */
static sht_err grp_sampled(const struct grp *g, const struct sht__q2d *q)
{
	struct sht__rec r;
	sht_time s = q->t1;
	uint32_t i = g->a;
	sht_err err;

	r.quark = g->quark;
	for (;;) {
		err = grp_seek(g, i, s, &i);
		if (err != SHT_OK || i == g->b)
			return err;
		err = grp_start(g, i, &r.start);
		if (err != SHT_OK || r.start > q->t2)
			return err;
		if (!grp_end(g, i, &r.end))
			return bad_rec(g->n, i);
		err = grp_keep(g, q, i, &r);
		if (err != SHT_OK || !next_sample(q, r.end, &s))
			return err;
		i++;
	}
}

/* Resolution 0: every record from the first ending at or after t1 to
 * the last starting at or before t2 (RUNS: starts from the previous
 * ends as the cursor reads them). */
static sht_err grp_every(const struct grp *g, const struct sht__q2d *q)
{
	struct sht__cur c;
	struct sht__rec r;
	uint32_t i;
	sht_err err = grp_seek(g, g->a, q->t1, &i);
	int rc;

	if (err != SHT_OK)
		return err;
	if (g->runs) {
		sht__cur_from(&c, g->n, g->run, i);
		while ((rc = sht__cur_next(&c, &r)) == 1 && r.start <= q->t2)
			if (sht__q2d_hits(q->t1, q->t2, q->r, r.start, r.end) &&
			    (err = q->keep(q->ctx, g->n, &r)) != SHT_OK)
				return err;
		return rc < 0 ? (sht_err)rc : SHT_OK;
	}
	r.quark = g->quark;
	for (; i < g->b; i++) {
		r.start = sht__flat_start(g->n, i);
		if (r.start > q->t2)
			break;
		if (!sht__flat_end(g->n, i, r.start, &r.end))
			return bad_rec(g->n, i);
		err = grp_keep(g, q, i, &r);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

static sht_err grp_scan(const struct grp *g, const struct sht__q2d *q)
{
	return q->r > 0 ? grp_sampled(g, q) : grp_every(g, q);
}

/* ---- the node's quarks ------------------------------------------------ */

struct quark_key {
	const struct sht__node *n;
	const sht_quark *sel;
	uint32_t q;
};

static int flat_below(const void *ctx, size_t i)
{
	const struct quark_key *k = ctx;
	return sht__flat_quark(k->n, (uint32_t)i) < k->q;
}

static int run_below(const void *ctx, size_t i)
{
	const struct quark_key *k = ctx;
	return sht__run_quark(k->n, (uint32_t)i) < k->q;
}

static int sel_below(const void *ctx, size_t i)
{
	const struct quark_key *k = ctx;
	return k->sel[i] < k->q;
}

/* Index of the first selected quark >= q at or after k (nsel if none). */
static size_t sel_seek(const struct sht__q2d *q, size_t k, uint32_t quark)
{
	struct quark_key key = { NULL, q->sel, quark };

	return gallop(k, q->nsel, sel_below, &key);
}

/* The next quark to look for at or after quark (in the selection), or 0
 * if none is left; *k follows the set. */
static int want_next(const struct sht__q2d *q, size_t *k, uint32_t quark,
		     uint32_t *want)
{
	if (quark > q->qhi)
		return 0;
	if (!q->sel) {
		*want = quark;
		return 1;
	}
	*k = sel_seek(q, *k, quark);
	if (*k == q->nsel)
		return 0;
	*want = q->sel[*k];
	return 1;
}

static sht_err flat_scan(const struct sht__node *n, const struct sht__q2d *q)
{
	struct quark_key key = { n, NULL, 0 };
	struct grp g = { n, 0, 0, 0, 0, 0, 0 };
	size_t k = 0;
	uint32_t i = 0;

	while (i < n->n) {
		uint32_t quark = sht__flat_quark(n, i), want;
		sht_err err;

		if (!want_next(q, &k, quark < q->qlo ? q->qlo : quark, &want))
			break;
		if (want != quark) {             /* skip to the wanted quark */
			key.q = want;
			i = (uint32_t)gallop(i, n->n, flat_below, &key);
			continue;
		}
		g.quark = quark;
		g.a = i;
		key.q = quark + 1;               /* quark <= SHT_QUARK_MAX */
		g.b = quark < UINT32_MAX ? (uint32_t)gallop(i, n->n, flat_below, &key)
					 : n->n;
		err = grp_scan(&g, q);
		if (err != SHT_OK)
			return err;
		i = g.b;
	}
	return SHT_OK;
}

static sht_err runs_scan(const struct sht__node *n, const struct sht__q2d *q)
{
	struct quark_key key = { n, NULL, 0 };
	struct grp g = { n, 0, 0, 0, 0, 0, 1 };
	size_t k = 0;
	uint32_t run = 0;

	while (run < n->nruns) {
		uint32_t quark = sht__run_quark(n, run), want;
		sht_err err;

		if (!want_next(q, &k, quark < q->qlo ? q->qlo : quark, &want))
			break;
		if (want != quark) {
			key.q = want;
			run = (uint32_t)gallop(run, n->nruns, run_below, &key);
			continue;
		}
		g.run = run;
		sht__run_get(n, run, &g.quark, &g.a, &g.b, &g.s0);
		err = grp_scan(&g, q);
		if (err != SHT_OK)
			return err;
		run++;
	}
	return SHT_OK;
}

sht_err sht__q2d_scan(const struct sht__node *n, const struct sht__q2d *q)
{
	if (n->n == 0 || q->qhi < n->qmin || q->qlo > n->qmax)
		return SHT_OK;
	return (n->flags & SHT__NFLAG_RUNS) ? runs_scan(n, q) : flat_scan(n, q);
}

int sht__q2d_meets(const struct sht__q2d *q, uint32_t qmin, uint32_t qmax)
{
	size_t k;

	if (qmin > q->qhi || qmax < q->qlo)
		return 0;
	if (!q->sel)
		return 1;
	k = sel_seek(q, 0, qmin);
	return k < q->nsel && q->sel[k] <= qmax;
}
