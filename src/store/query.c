/*
 * query.c: single, full and 2D queries over a tree whose nodes are either
 * on disk (through the cache) or, for a builder, still open in memory.
 *
 * A query descends from the root into every child whose time range (and,
 * for single and 2D queries, quark range) can hold an answer.  In the
 * classic SHT siblings are disjoint, so this is one branch; in the eSHT it
 * is the small subtree of overlapping siblings.  Levels strictly decrease
 * on the way down (checked), so a corrupt file cannot make a query loop.
 * A 2D query enters a child only if it holds a sample time and one of the
 * selected quarks, and reads a node's records through q2d.c, which jumps
 * from sample to sample instead of walking them.
 */
#include <stdlib.h>

#include "store/store-int.h"

/* ---- records to intervals ----------------------------------------------- */

static sht_err put_string(struct sht__store *st, const struct sht__node *n,
			  uint64_t off, sht_interval *iv, sht_result *res)
{
	struct sht__str s;
	sht_err err = sht__heap_get(n, off, &s);

	if (err != SHT_OK)
		return err;
	iv->value.type = SHT_TYPE_STRING;
	iv->value.len = (uint32_t)s.len;
	if (!s.bytes)
		return sht__blob_read(st, s.blob, s.len, res, &iv->value.u.str);
	iv->value.u.str = sht__result_strdup(res, (const char *)s.bytes, s.len);
	return iv->value.u.str ? SHT_OK : SHT_ERR_NOMEM;
}

/* Fill *iv from a record. */
static sht_err make_iv(struct sht__store *st, const struct sht__node *n,
		       const struct sht__rec *r, sht_interval *iv,
		       sht_result *res)
{
	int64_t x = (int64_t)r->payload;

	iv->quark = r->quark;
	iv->start = r->start;
	iv->end = r->end;
	iv->value = sht_value_null();
	switch (r->tag) {
	case SHT__TAG_NULL: return SHT_OK;
	case SHT__TAG_INT32:
		if (x < INT32_MIN || x > INT32_MAX)
			break;
		iv->value = sht_value_int32((int32_t)x);
		return SHT_OK;
	case SHT__TAG_INT64:
		iv->value = sht_value_int64(x);
		return SHT_OK;
	case SHT__TAG_DOUBLE:
		iv->value.type = SHT_TYPE_DOUBLE;
		memcpy(&iv->value.u.d, &r->payload, sizeof(double));
		return SHT_OK;
	case SHT__TAG_STRING:
		return put_string(st, n, r->payload, iv, res);
	}
	return sht__error(SHT_ERR_CORRUPT, "Cannot decode value: block=%llu quark=%u tag=%u",
			  (unsigned long long)n->self, r->quark, r->tag);
}

static sht_err append_rec(struct sht__store *st, const struct sht__node *n,
			  const struct sht__rec *r, sht_result *res)
{
	sht_err err = res->count < res->cap ? SHT_OK
					     : sht__result_reserve(res, res->count + 1);

	if (err == SHT_OK)
		err = make_iv(st, n, r, &res->items[res->count], res);
	if (err == SHT_OK)
		res->count++;
	return err;
}

/* A pseudo node over an open node's heap, for string look-ups. */
static void open_view(const struct sht__open *o, struct sht__node *n)
{
	memset(n, 0, sizeof *n);
	n->heap = o->heap;
	n->heap_bytes = o->heap_len;
	n->self = UINT64_MAX;
}

static void open_rec(const struct sht__oiv *v, struct sht__rec *r)
{
	r->quark = v->quark;
	r->tag = v->tag;
	r->start = v->start;
	r->end = v->end;
	r->payload = v->payload;
}

/* ---- traversal ---------------------------------------------------------- */

/* What a query looks for; the visit functions below filter with it. */
struct qspec {
	int kind;                    /* Q_SINGLE, Q_FULL, Q_2D */
	sht_quark q;                 /* single */
	sht_time t;                  /* single, full */
	struct sht__q2d g;           /* 2D (keep and ctx unset) */
	uint8_t *found;              /* full: bitmap, dense mode */
	uint64_t dense;              /* full: quark_count if dense, else 0 */
	int done;                    /* single: answer found */
};

enum { Q_SINGLE, Q_FULL, Q_2D };

static int node_relevant(const struct qspec *x, sht_time s, sht_time e,
			 uint32_t qmin, uint32_t qmax)
{
	switch (x->kind) {
	case Q_SINGLE:
		return s <= x->t && x->t <= e && qmin <= x->q && x->q <= qmax;
	case Q_FULL:
		return s <= x->t && x->t <= e;
	default:
		return sht__q2d_meets(&x->g, qmin, qmax) &&
		       sht__q2d_hits(x->g.t1, x->g.t2, x->g.r, s, e);
	}
}

/* Keep a record for a full query (dense: at index quark). */
static sht_err keep_full(struct sht__store *st, const struct sht__node *n,
			 const struct sht__rec *r, struct qspec *x,
			 sht_result *res)
{
	if (!x->dense)
		return append_rec(st, n, r, res);
	if (r->quark >= x->dense)
		return sht__error(SHT_ERR_CORRUPT, "Cannot decode record: block=%llu quark=%u >= quark count %llu",
				  (unsigned long long)n->self, r->quark,
				  (unsigned long long)x->dense);
	x->found[r->quark >> 3] |= (uint8_t)(1u << (r->quark & 7));
	return make_iv(st, n, r, &res->items[r->quark], res);
}

static int rec_matches(const struct qspec *x, const struct sht__rec *r)
{
	switch (x->kind) {
	case Q_SINGLE:
		return r->quark == x->q && r->start <= x->t && x->t <= r->end;
	case Q_FULL:
		return r->start <= x->t && x->t <= r->end;
	default:
		if (r->quark < x->g.qlo || r->quark > x->g.qhi ||
		    !sht__q2d_hits(x->g.t1, x->g.t2, x->g.r, r->start, r->end))
			return 0;
		return !x->g.sel || sht__quark_in(x->g.sel, x->g.nsel, r->quark);
	}
}

static sht_err keep(struct sht__store *st, const struct sht__node *n,
		    const struct sht__rec *r, struct qspec *x, sht_result *res)
{
	if (x->kind == Q_FULL)
		return keep_full(st, n, r, x, res);
	if (x->kind == Q_SINGLE)
		x->done = 1;
	return append_rec(st, n, r, res);
}

static sht_err bad_index(const struct sht__node *n, uint32_t i)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot decode record: block=%llu record=%u: index outside its table",
			  (unsigned long long)n->self, i);
}

/* Flat node: the rest of record i, whose quark, start and end are known. */
static sht_err flat_keep(struct sht__store *st, const struct sht__node *n,
			 uint32_t i, struct sht__rec *r, struct qspec *x,
			 sht_result *res)
{
	if (!sht__rec_value(n, i, &r->tag, &r->payload))
		return bad_index(n, i);
	return keep(st, n, r, x, res);
}

/* Flat node: records of quark range [lo, hi] (single queries).
 * Fields are decoded as the filters need them. */
static sht_err flat_quarks(struct sht__store *st, const struct sht__node *n,
			   sht_quark lo, sht_quark hi, struct qspec *x,
			   sht_result *res)
{
	struct sht__rec r;

	for (uint32_t i = sht__rec_lower_bound(n, lo); i < n->n; i++) {
		sht_err err;

		r.quark = sht__flat_quark(n, i);
		if (r.quark > hi)
			break;
		r.start = sht__flat_start(n, i);
		if (x->kind == Q_SINGLE && r.start > x->t)
			break;
		if (!sht__flat_end(n, i, r.start, &r.end))
			return bad_index(n, i);
		if (!rec_matches(x, &r))
			continue;
		err = flat_keep(st, n, i, &r, x, res);
		if (err != SHT_OK || x->done)
			return err;
	}
	return SHT_OK;
}

/* RUNS node: the record of run k containing k's time, if any (single and
 * full queries): the first record ending at or after t, if it starts at
 * or before t.  The value is decoded only for a match. */
static sht_err run_at(struct sht__store *st, const struct sht__node *n,
		      uint32_t k, const struct sht__tkey *key, struct qspec *x,
		      sht_result *res)
{
	struct sht__rec r;
	uint32_t a, b, i;
	sht_time s0;
	sht_err err;

	sht__run_get(n, k, &r.quark, &a, &b, &s0);
	if (s0 > x->t)
		return SHT_OK;
	i = sht__run_seek(n, a, b, key);
	if (i == b)
		return SHT_OK;
	err = sht__run_start(n, a, s0, i, &r.start);
	if (err != SHT_OK || r.start > x->t)
		return err;
	if (!sht__rec_end(n, i, &r.end) || !sht__rec_value(n, i, &r.tag, &r.payload))
		return bad_index(n, i);
	return keep(st, n, &r, x, res);
}

static sht_err scan_runs(struct sht__store *st, const struct sht__node *n,
			 struct qspec *x, sht_result *res)
{
	struct sht__tkey key;
	sht_err err = SHT_OK;
	uint32_t k;

	sht__tkey_make(n, x->t, &key);
	if (x->kind == Q_SINGLE) {
		k = sht__run_find(n, x->q);
		return k < n->nruns ? run_at(st, n, k, &key, x, res) : SHT_OK;
	}
	for (k = 0; err == SHT_OK && k < n->nruns; k++)
		err = run_at(st, n, k, &key, x, res);
	return err;
}

static sht_err scan_full(struct sht__store *st, const struct sht__node *n,
			 struct qspec *x, sht_result *res)
{
	struct sht__rec r;

	for (uint32_t i = 0; i < n->n; i++) {
		sht_err err;

		r.start = sht__flat_start(n, i);
		if (r.start > x->t)
			continue;
		if (!sht__flat_end(n, i, r.start, &r.end))
			return bad_index(n, i);
		if (r.end < x->t)
			continue;
		r.quark = sht__flat_quark(n, i);
		if (!sht__rec_value(n, i, &r.tag, &r.payload))
			return bad_index(n, i);
		err = keep_full(st, n, &r, x, res);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

/* 2D: where q2d.c's scan puts the records it keeps. */
struct keep_2d {
	struct sht__store *st;
	sht_result *res;
};

static sht_err keep_2d(void *ctx, const struct sht__node *n,
		       const struct sht__rec *r)
{
	struct keep_2d *k = ctx;

	return append_rec(k->st, n, r, k->res);
}

/* Where block blk of a mapped store is (NULL if not mapped, or none). */
static const uint8_t *mapped_block(const struct sht__store *st, uint64_t blk)
{
	uint64_t bs = st->geom.block_size;

	if (!st->map || blk == UINT64_MAX || bs == 0 ||
	    st->map_len < SHT__HEADER_REGION ||
	    blk >= (st->map_len - SHT__HEADER_REGION) / bs)
		return NULL;
	return st->map + SHT__HEADER_REGION + blk * bs;
}

static sht_err scan_2d(struct sht__store *st, const struct sht__node *n,
		       const struct qspec *x, uint64_t next, sht_result *res)
{
	struct keep_2d k = { st, res };
	struct sht__q2d g = x->g;

	g.next = mapped_block(st, next);
	g.next_len = st->geom.block_size;
	g.keep = keep_2d;
	g.ctx = &k;
	return sht__q2d_scan(n, &g);
}

/* n's records that x wants; next: the block visited after n (UINT64_MAX:
 * unknown), which a 2D scan asks for ahead. */
static sht_err scan_disk(struct sht__store *st, const struct sht__node *n,
			 struct qspec *x, uint64_t next, sht_result *res)
{
	if (n->n == 0)
		return SHT_OK;
	if (x->kind == Q_SINGLE && (x->q < n->qmin || x->q > n->qmax))
		return SHT_OK;
	if (x->kind == Q_2D)
		return scan_2d(st, n, x, next, res);
	if (n->flags & SHT__NFLAG_RUNS)
		return scan_runs(st, n, x, res);
	switch (x->kind) {
	case Q_SINGLE:
		return flat_quarks(st, n, x->q, x->q, x, res);
	default:
		return scan_full(st, n, x, res);
	}
}

/* The first child of n from i on that x needs (nc if none), in *c. */
static uint32_t next_child(const struct sht__node *n, const struct qspec *x,
			   uint32_t i, struct sht__child *c)
{
	for (; i < n->nc; i++) {
		sht__child_get(n, i, c);
		if (node_relevant(x, c->start, c->end, c->qmin, c->qmax))
			break;
	}
	return i;
}

/* Node blk and the subtree below it; next: the block visited after the
 * subtree (UINT64_MAX: none or unknown). */
static sht_err visit_disk(struct sht__store *st, uint64_t blk, uint32_t level,
			  struct qspec *x, sht_result *res, uint64_t next)
{
	struct sht__centry *e;
	const struct sht__node *n;
	struct sht__child c = { 0 }, d = { 0 };
	uint32_t i;
	sht_err err = sht__fetch(st, blk, &e);

	if (err != SHT_OK)
		return err;
	n = &e->node;
	i = next_child(n, x, 0, &c);
	if (n->level != level)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot descend: block=%llu is at level %u, expected %u",
				 (unsigned long long)blk, n->level, level);
	else
		err = scan_disk(st, n, x, i < n->nc ? c.block : next, res);
	while (err == SHT_OK && !x->done && i < n->nc) {
		uint32_t j = next_child(n, x, i + 1, &d);

		err = visit_disk(st, c.block, level - 1, x, res,
				 j < n->nc ? d.block : next);
		i = j;
		c = d;
	}
	sht__release(e);
	return err;
}

/* An open node: its records, its closed children, then its open child. */
static sht_err visit_open(const struct sht__root *rt, uint32_t i,
			  struct qspec *x, sht_result *res)
{
	const struct sht__open *o = rt->branch[i];
	struct sht__node view;
	struct sht__rec r;
	sht_err err = SHT_OK;

	open_view(o, &view);
	for (uint32_t k = 0; err == SHT_OK && !x->done && k < o->trk.n; k++) {
		open_rec(&o->iv[k], &r);
		if (rec_matches(x, &r))
			err = keep(rt->st, &view, &r, x, res);
	}
	for (uint32_t k = 0; err == SHT_OK && !x->done && k < o->nc; k++) {
		const struct sht__child *c = &o->ch[k];
		if (node_relevant(x, c->start, c->end, c->qmin, c->qmax))
			err = visit_disk(rt->st, c->block, o->level - 1, x, res, UINT64_MAX);
	}
	if (err == SHT_OK && !x->done && i + 1 < rt->depth)
		err = visit_open(rt, i + 1, x, res);
	return err;
}

static sht_err visit_root(const struct sht__root *rt, struct qspec *x,
			  sht_result *res)
{
	if (rt->branch)
		return visit_open(rt, 0, x, res);
	return visit_disk(rt->st, rt->disk_root, rt->depth - 1, x, res, UINT64_MAX);
}

/* ---- the three queries -------------------------------------------------- */

sht_err sht__q_single(const struct sht__root *rt, sht_quark q, sht_time t,
		      sht_result *res)
{
	struct qspec x;
	sht_err err;

	memset(&x, 0, sizeof x);
	x.kind = Q_SINGLE;
	x.q = q;
	x.t = t;
	sht_result_clear(res);
	err = visit_root(rt, &x, res);
	if (err != SHT_OK)
		return err;
	return x.done ? SHT_OK : SHT_NOT_FOUND;
}

/* Move the found entries of a dense full query to the front. */
static void compact(sht_result *res, const uint8_t *found, uint64_t qc)
{
	size_t out = 0;

	for (uint64_t q = 0; q < qc; q++) {
		if (!(found[q >> 3] & (1u << (q & 7))))
			continue;
		if (out != q)
			res->items[out] = res->items[q];
		out++;
	}
	res->count = out;
}

sht_err sht__q_full(const struct sht__root *rt, sht_time t, sht_result *res)
{
	struct qspec x;
	sht_err err = SHT_OK;
	uint64_t qc = rt->quark_count;

	memset(&x, 0, sizeof x);
	x.kind = Q_FULL;
	x.t = t;
	sht_result_clear(res);
	if (qc && qc <= 4 * rt->intervals + 4096 && qc <= (UINT64_C(1) << 26)) {
		x.dense = qc;
		x.found = calloc((qc + 7) / 8, 1);
		err = x.found ? sht__result_reserve(res, qc) : SHT_ERR_NOMEM;
	}
	if (err == SHT_OK)
		err = visit_root(rt, &x, res);
	if (err == SHT_OK && x.dense)
		compact(res, x.found, qc);
	else if (err == SHT_OK)
		sht__result_sort_quark(res);
	free(x.found);
	if (err != SHT_OK)
		sht_result_clear(res);
	return err == SHT_ERR_NOMEM && !*sht_errmsg()
	       ? sht__error(err, "Cannot allocate a full query result") : err;
}

/* A validated 2D query as a node scan reads it; *owned: the sorted set
 * (to free), if q has one.  An empty set gives qlo > qhi. */
static sht_err spec_2d(const sht_query2d *q, struct sht__q2d *g,
		       sht_quark **owned)
{
	sht_err err;

	memset(g, 0, sizeof *g);
	g->t1 = q->t1;
	g->t2 = q->t2;
	g->r = q->resolution;
	g->qlo = q->qmin;
	g->qhi = q->qmax;
	if (!q->quarks)
		return SHT_OK;
	err = sht__q2d_selection(q, owned, &g->nsel);
	if (err != SHT_OK)
		return err;
	g->sel = *owned;
	g->qlo = g->nsel ? g->sel[0] : 1;
	g->qhi = g->nsel ? g->sel[g->nsel - 1] : 0;
	return SHT_OK;
}

sht_err sht__q_2d(const struct sht__root *rt, const sht_query2d *q,
		  sht_result *res)
{
	struct qspec x;
	sht_quark *owned = NULL;
	sht_err err = SHT_OK;

	sht_result_clear(res);
	err = sht__q2d_validate(q);
	if (err != SHT_OK)
		return err;
	memset(&x, 0, sizeof x);
	x.kind = Q_2D;
	err = spec_2d(q, &x.g, &owned);
	if (err == SHT_OK && x.g.qlo <= x.g.qhi)
		err = visit_root(rt, &x, res);
	free(owned);
	if (err != SHT_OK) {
		sht_result_clear(res);
		return err;
	}
	sht__q2d_sort(q, res);
	return SHT_OK;
}

/* ---- cursors: a 2D query a node at a time -------------------------------
 *
 * The traversal of visit_disk with an explicit stack of the nodes still
 * to visit, so that a cursor (util/cursor.c) can stop after a node and
 * resume: an answer of any size streams through one node's worth of
 * memory.
 */

struct cur_node {
	uint64_t blk;
	uint32_t level;
};

struct tree_cursor {
	struct sht__store *st;
	struct qspec x;
	sht_quark *owned;            /* x.sel */
	struct cur_node *stack;
	size_t n, cap;
};

static sht_err cur_push(struct tree_cursor *c, uint64_t blk, uint32_t level)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cur_node *s = realloc(c->stack, cap * sizeof *s);

		if (!s)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow a cursor's stack to %zu nodes", cap);
		c->stack = s;
		c->cap = cap;
	}
	c->stack[c->n].blk = blk;
	c->stack[c->n].level = level;
	c->n++;
	return SHT_OK;
}

/* Visit the node on top of the stack: its matches into res, its
 * relevant children onto the stack. */
static sht_err cur_visit(struct tree_cursor *c, sht_result *res)
{
	struct cur_node at = c->stack[--c->n];
	struct sht__centry *e;
	const struct sht__node *n;
	sht_err err = sht__fetch(c->st, at.blk, &e);

	if (err != SHT_OK)
		return err;
	n = &e->node;
	if (n->level != at.level)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot descend: block=%llu is at level %u, expected %u",
				 (unsigned long long)at.blk, n->level, at.level);
	else
		err = scan_disk(c->st, n, &c->x, UINT64_MAX, res);
	/* Children pushed last first: visited in the order visit_disk takes. */
	for (uint32_t i = n->nc; err == SHT_OK && i-- > 0;) {
		struct sht__child ch;

		sht__child_get(n, i, &ch);
		if (node_relevant(&c->x, ch.start, ch.end, ch.qmin, ch.qmax))
			err = at.level > 0 ? cur_push(c, ch.block, at.level - 1)
					   : sht__error(SHT_ERR_CORRUPT, "Cannot descend: leaf block=%llu has children",
							(unsigned long long)at.blk);
	}
	sht__release(e);
	return err;
}

/* The next node(s) with matches: res (cleared by the caller) gets at
 * least one interval, or the stack empties (SHT_END). */
static sht_err cur_next(void *impl, sht_result *res)
{
	struct tree_cursor *c = impl;
	sht_err err = SHT_OK;

	while (err == SHT_OK && res->count == 0 && c->n > 0)
		err = cur_visit(c, res);
	if (err != SHT_OK) {
		c->n = 0;                      /* a failed cursor ends */
		return err;
	}
	return res->count ? SHT_OK : SHT_END;
}

static void cur_free(void *impl)
{
	struct tree_cursor *c = impl;

	free(c->owned);
	free(c->stack);
	free(c);
}

sht_err sht__cursor_open(const struct sht__root *rt, const sht_query2d *q,
			 sht_cursor **out)
{
	struct tree_cursor *c;
	sht_err err = sht__q2d_validate(q);

	if (err != SHT_OK)
		return err;
	if (rt->branch)
		return sht__error(SHT_ERR_STATE, "Cannot open a cursor on a tree being built");
	c = calloc(1, sizeof *c);
	if (!c)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a cursor");
	c->st = rt->st;
	c->x.kind = Q_2D;
	err = spec_2d(q, &c->x.g, &c->owned);
	if (err == SHT_OK && c->x.g.qlo <= c->x.g.qhi && rt->depth > 0)
		err = cur_push(c, rt->disk_root, rt->depth - 1);
	if (err == SHT_OK)
		err = sht__cursor_new(cur_next, cur_free, c, out);
	if (err != SHT_OK)
		cur_free(c);
	return err;
}
