/*
 * q2d.c: the records of one node that a 2D query keeps (docs/FORMAT.md
 * §3), read without walking the others.
 *
 * A node's records are sorted by (quark, start) and those of one quark do
 * not overlap, so within a quark the ends strictly increase, and over the
 * node (quark, end) increases.  For each selected quark the scan searches
 * the first record ending at or after s, the first sample time in the
 * node (no record of the node starts before the node); after a record
 * ending at e it searches the first record ending at or after the next
 * sample time after e (with resolution 0, the next record).  The records
 * jumped over end before that sample time and start after e, so they hold
 * none.  Searches gallop (the record at hand, then 1, 2, 4, ... ahead,
 * then bisection): a step to the next record costs one probe, a jump over
 * d records O(log d).  A probe compares end fields as stored (through the
 * end table, the rank of the sample time; the time itself otherwise, but
 * for ends stored as durations), so it decodes nothing and cannot fail;
 * only the records found are decoded.  A record reached by a jump in a
 * RUNS node gets its start as the format defines it (as sht__run_start
 * does): from its exception, searched forward from the last one found,
 * or one after the previous record's end.  A run whose last record ends
 * before the sample time costs that one probe.
 *
 * The node's quarks are met the same way: the selected quarks and the
 * node's quarks (searched in flat records on (quark, end) directly, or
 * through the run directory) are intersected by alternate galloping
 * searches, so neither the records of unselected quarks nor the selected
 * quarks absent from the node are walked one by one.
 *
 * On a damaged node (ends out of order) answers may be wrong, but every
 * search stays inside its range, every index read is checked and every
 * step moves forward.
 */
#include "store/store-int.h"

#define Q2D_INLINE static inline __attribute__((always_inline))

static sht_err bad_rec(const struct sht__node *n, uint64_t i)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot decode record: block=%llu record=%llu: index outside its table",
			  (unsigned long long)n->self, (unsigned long long)i);
}

/*
 * First index in [i, b) at which below(ctx, index) is 0, below being 1
 * on a prefix of the range (b if none): i, then i + 1, i + 2, i + 4, ...
 * until one is not below, then bisection between the last two probes.
 * Inlined, so that each caller's below is too.
 */
Q2D_INLINE size_t gallop(size_t i, size_t b,
			 int (*below)(const void *, size_t), const void *ctx)
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

/* ---- ends against a sample time ----------------------------------------- */

/* A sample time as the node's end fields compare with it. */
struct tkey {
	const struct sht__node *n;
	sht_time t;
	struct sht__tkey k;     /* not DURATION */
	int dur;                /* ends stored as durations: decode them */
};

static void tkey_init(struct tkey *c, const struct sht__node *n, sht_time t)
{
	c->n = n;
	c->t = t;
	c->dur = (n->flags & SHT__NFLAG_DURATION) != 0;
	if (!c->dur)
		sht__tkey_make(n, t, &c->k);
}

/* The keys of one node scan: of its first sample time (every quark's
 * first search), and of the last later one (often the next search's);
 * and the last sample time up to the node's end, after which no search
 * in the node is needed.
 *
 * Through an end table, a key is two bisections (sht__tkey_make), and
 * every selected quark of the node walks the same sample times: so the
 * keys made are kept, KEY_SLOTS of them by a hash of their time (a
 * collision makes the key again).  On the 30 000-thread trace's
 * Resources screen, making keys again took a tenth of the CPU. */
#define KEY_SLOTS 64

struct tkeys {
	struct tkey first, later;
	sht_time last;
	int any;                /* last is set: a sample is <= the node's end */
	int keep;               /* an end table: keys are kept in the slots */
	uint64_t valid;         /* the slots holding a key */
	sht_time slot_t[KEY_SLOTS];
	struct sht__tkey slot_k[KEY_SLOTS];
};

/* The last sample time at or before t (0: none, t < t1). */
static int last_sample(const struct sht__q2d *q, sht_time t, sht_time *s)
{
	if (t < q->t1)
		return 0;
	if (t >= q->t2 || q->r <= 0)
		*s = t < q->t2 ? t : q->t2;
	else
		*s = (sht_time)((uint64_t)q->t1 + ((uint64_t)t - (uint64_t)q->t1) /
				(uint64_t)q->r * (uint64_t)q->r);
	return 1;
}

static void tkeys_init(struct tkeys *k, const struct sht__node *n,
		       const struct sht__q2d *q, sht_time s)
{
	tkey_init(&k->first, n, s);
	k->later = k->first;
	k->any = last_sample(q, n->end, &k->last);
	k->keep = !k->first.dur && (n->flags & SHT__NFLAG_ETAB);
	k->valid = 0;
}

static struct tkey *tkeys_at(struct tkeys *k, sht_time t)
{
	unsigned i;

	if (t == k->first.t)
		return &k->first;
	if (t == k->later.t)
		return &k->later;
	if (!k->keep) {
		tkey_init(&k->later, k->first.n, t);
		return &k->later;
	}
	i = (unsigned)(((uint64_t)t * UINT64_C(0x9e3779b97f4a7c15)) >> 58);
	k->later.t = t;
	if ((k->valid >> i & 1) && k->slot_t[i] == t) {
		k->later.k = k->slot_k[i];
		return &k->later;
	}
	sht__tkey_make(k->first.n, t, &k->later.k);
	k->valid |= UINT64_C(1) << i;
	k->slot_t[i] = t;
	k->slot_k[i] = k->later.k;
	return &k->later;
}

/* Does record i end before the key's time?  (No index is decoded.) */
Q2D_INLINE int end_before(const struct tkey *c, uint32_t i)
{
	const struct sht__node *n = c->n;
	sht_time e;

	if (c->dur)            /* never with an end table: cannot fail */
		return sht__flat_end(n, i, sht__flat_start(n, i), &e) && e < c->t;
	return c->k.none ||
	       sht__getbits(n->records, (uint64_t)i * n->w + n->eoff, n->ew) < c->k.x;
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

/* The next sample time after e if it is within the node (0: none there;
 * a division only when there is one). */
static int next_in_node(const struct sht__q2d *q, const struct tkeys *k,
			sht_time e, sht_time *s)
{
	return k->any && e < k->last && next_sample(q, e, s);
}

/* The first sample time a record of n can hold (0: none). */
static int first_sample(const struct sht__q2d *q, const struct sht__node *n,
			sht_time *s)
{
	if (n->start <= q->t1) {
		*s = q->t1;
		return 1;
	}
	return next_sample(q, n->start - 1, s);
}

/* Keep record i (quark, start, end in r) if it holds a sample time; key:
 * the search that found it, whose time (a sample) it ends at or after,
 * so that it holds that sample if it starts by then (NULL: unknown). */
static sht_err keep_rec(const struct sht__node *n, const struct sht__q2d *q,
			uint32_t i, struct sht__rec *r, const struct tkey *key)
{
	if (!(key && r->start <= key->t) &&
	    !sht__q2d_hits(q->t1, q->t2, q->r, r->start, r->end))
		return SHT_OK;
	if (!sht__rec_value(n, i, &r->tag, &r->payload))
		return bad_rec(n, i);
	return q->keep(q->ctx, n, r);
}

/* ---- the selection ------------------------------------------------------ */

struct sel_key {
	const sht_quark *sel;
	uint32_t q;
};

static int sel_below(const void *ctx, size_t i)
{
	const struct sel_key *k = ctx;
	return k->sel[i] < k->q;
}

/* The first quark at or after quark that q selects (0: none is left);
 * *k follows the set. */
static int want_next(const struct sht__q2d *q, size_t *k, uint32_t quark,
		     uint32_t *want)
{
	struct sel_key key = { q->sel, quark };

	if (quark < q->qlo)
		quark = q->qlo;
	if (quark > q->qhi)
		return 0;
	if (!q->sel) {
		*want = quark;
		return 1;
	}
	key.q = quark;
	*k = gallop(*k, q->nsel, sel_below, &key);
	if (*k == q->nsel)
		return 0;
	*want = q->sel[*k];
	return 1;
}

/* ---- memory ---------------------------------------------------------------
 *
 * A whole-history query reads more nodes than the processor's caches hold,
 * so each node comes from memory, and the searches would wait for it a
 * line at a time, in no order the processor can guess.  So the scan asks
 * for the node's small areas (children, dictionary, end table, run
 * directory, exceptions) at once, and for its records a window ahead of
 * where it is: the quarks are met in storage order, so the window slides
 * forward, and the loads overlap the searches.  Asking for the whole node
 * at once did less well (the requests queue up); without either, the
 * Control Flow query of bench/q2d-bench.c on a 2 GB kernel history took
 * about 40 % more CPU time.
 *
 * The node the query reads next (q->next, when the caller knows it) is
 * asked for too, a few lines (NEXT_STEP) each time the window moves (at
 * each selected quark met), and the rest of its block when the scan
 * ends.  Its lines then come while this node's searches run instead of
 * while the next node's wait for them: the Control Flow query above
 * takes about 20 % less CPU time so.  Asking for the whole next block at
 * once gained nothing, nor did asking in proportion to the progress
 * through this node's records (both ask for many lines at a time, and
 * the scan waits for the queue); 8 or 32 lines a step did a little
 * worse than 16.
 */

#define PREFETCH_AHEAD 4096     /* bytes of records ahead of the scan */
#define NEXT_STEP 16            /* lines of the next node per window step */

struct window {
	const uint8_t *at, *end;    /* next line to ask for; end of records */
	const uint8_t *nat, *nend;  /* the same in the next node's block
				     * (both NULL: none) */
};

static void prefetch_areas(const struct sht__node *n)
{
	for (const uint8_t *p = n->blk; p < n->records; p += 64)
		__builtin_prefetch(p);
}

static void window_init(struct window *w, const struct sht__node *n,
			const struct sht__q2d *q)
{
	w->at = n->records;
	w->end = n->records + (((uint64_t)n->n * n->w + 7) >> 3);
	w->nat = q->next;
	w->nend = q->next ? q->next + q->next_len : NULL;
}

/* Ask for the records up to PREFETCH_AHEAD bytes after record i, and for
 * NEXT_STEP more lines of the next node's block. */
static void window_to(struct window *w, const struct sht__node *n, uint32_t i)
{
	const uint8_t *to = n->records + (((uint64_t)i * n->w) >> 3) + PREFETCH_AHEAD;

	if (to > w->end)
		to = w->end;
	for (; w->at < to; w->at += 64)
		__builtin_prefetch(w->at);
	for (unsigned k = 0; k < NEXT_STEP && w->nat < w->nend; k++, w->nat += 64)
		__builtin_prefetch(w->nat);
}

/* The scan has ended: the rest of the next node's block. */
static void window_end(struct window *w)
{
	for (; w->nat < w->nend; w->nat += 64)
		__builtin_prefetch(w->nat);
}

/* ---- flat nodes: one search on (quark, end) ---------------------------- */

struct qe_key {
	const struct tkey *e;
	uint32_t q;
};

/* Is record i before (q, end >= t) in (quark, end) order? */
static int qe_below(const void *ctx, size_t i)
{
	const struct qe_key *k = ctx;
	uint32_t q = sht__flat_quark(k->e->n, (uint32_t)i);

	return q < k->q || (q == k->q && end_before(k->e, (uint32_t)i));
}

/* The records of quark from i (the first ending at or after the key's
 * time, which is the first sample time of the node); *i: where the next
 * quark's search may start. */
static sht_err flat_quark(const struct sht__q2d *q, struct tkeys *tk,
			  uint32_t quark, uint32_t *i)
{
	const struct sht__node *n = tk->first.n;
	struct qe_key key = { &tk->first, quark };
	sht_time s;
	struct sht__rec r;
	uint32_t j = *i;
	sht_err err;

	r.quark = quark;
	while (j < n->n && sht__flat_quark(n, j) == quark) {
		r.start = sht__flat_start(n, j);
		if (r.start > q->t2)
			break;
		if (!sht__flat_end(n, j, r.start, &r.end))
			return bad_rec(n, j);
		err = keep_rec(n, q, j, &r, key.e);
		if (err != SHT_OK)
			return err;
		*i = ++j;
		if (q->r <= 0) {        /* every record: the next one */
			key.e = NULL;
			continue;
		}
		if (!next_in_node(q, tk, r.end, &s))
			break;                  /* no record here ends after */
		key.e = tkeys_at(tk, s);
		j = (uint32_t)gallop(j, n->n, qe_below, &key);
	}
	*i = j;
	return SHT_OK;
}

static sht_err flat_scan(const struct sht__node *n, const struct sht__q2d *q,
			 sht_time s, struct window *win)
{
	struct tkeys tk;
	struct qe_key key = { &tk.first, 0 };
	uint32_t i = 0, from = q->qlo, want;
	size_t k = 0;

	tkeys_init(&tk, n, q, s);
	while (i < n->n && want_next(q, &k, from, &want)) {
		uint32_t quark;
		sht_err err;

		key.q = want;
		i = (uint32_t)gallop(i, n->n, qe_below, &key);
		if (i == n->n)
			break;
		quark = sht__flat_quark(n, i);
		if (quark != want) {          /* want has nothing here */
			from = quark;
			continue;
		}
		window_to(win, n, i);
		err = flat_quark(q, &tk, quark, &i);
		if (err != SHT_OK || quark == UINT32_MAX)
			return err;
		from = quark + 1;
	}
	return SHT_OK;
}

/* ---- RUNS nodes: the run directory, then a search in the run ----------- */

struct run_key {
	const struct sht__node *n;
	uint32_t q;
};

static int run_below(const void *ctx, size_t i)
{
	const struct run_key *k = ctx;
	return sht__run_quark(k->n, (uint32_t)i) < k->q;
}

static int end_below(const void *ctx, size_t i)
{
	return end_before(ctx, (uint32_t)i);
}

struct exc_key {
	const struct sht__node *n;
	uint32_t i;
};

static int exc_below(const void *ctx, size_t x)
{
	const struct exc_key *k = ctx;
	return sht__exc_index(k->n, (uint32_t)x) < k->i;
}

/* Start of record i of the run [a, ...) starting at s0 (as
 * sht__run_start); *xc: an exception at or before the first one for i,
 * moved forward (records are met in increasing order). */
static sht_err run_start(const struct sht__node *n, uint32_t a, sht_time s0,
			 uint32_t i, uint32_t *xc, sht_time *s)
{
	struct exc_key key = { n, i };
	sht_time prev;

	if (i == a) {
		*s = s0;
		return SHT_OK;
	}
	*xc = (uint32_t)gallop(*xc, n->nexc, exc_below, &key);
	if (*xc < n->nexc && sht__exc_index(n, *xc) == i) {
		*s = sht__exc_start(n, *xc);
		return SHT_OK;
	}
	if (!sht__rec_end(n, i - 1, &prev))
		return bad_rec(n, i - 1);
	*s = (sht_time)((uint64_t)prev + 1);
	return SHT_OK;
}

/* Resolution 0: every record of run k from the first ending at or after
 * s up to the last starting at or before t2, starts from the previous
 * ends as the cursor reads them. */
static sht_err run_every(const struct sht__q2d *q, const struct tkey *tk,
			 uint32_t k, uint32_t a, uint32_t b)
{
	struct sht__cur c;
	struct sht__rec r;
	sht_err err;
	int rc;

	sht__cur_from(&c, tk->n, k, (uint32_t)gallop(a, b, end_below, tk));
	while ((rc = sht__cur_next(&c, &r)) == 1 && r.start <= q->t2)
		if (sht__q2d_hits(q->t1, q->t2, q->r, r.start, r.end) &&
		    (err = q->keep(q->ctx, tk->n, &r)) != SHT_OK)
			return err;
	return rc < 0 ? (sht_err)rc : SHT_OK;
}

/* Run k, from sample to sample; *xc: see run_start. */
static sht_err run_sampled(const struct sht__q2d *q, struct tkeys *tk,
			   uint32_t k, uint32_t *xc, struct window *win)
{
	const struct sht__node *n = tk->first.n;
	const struct tkey *key = &tk->first;
	struct sht__rec r;
	uint32_t a, b, i;
	sht_time s0;
	sht_err err;

	sht__run_get(n, k, &r.quark, &a, &b, &s0);
	window_to(win, n, b);
	if (q->r <= 0)
		return run_every(q, key, k, a, b);
	if (a == b || end_before(key, b - 1))
		return SHT_OK;          /* the whole run ends before */
	for (i = a;;) {
		i = (uint32_t)gallop(i, b, end_below, key);
		if (i == b)
			return SHT_OK;
		err = run_start(n, a, s0, i, xc, &r.start);
		if (err != SHT_OK || r.start > q->t2)
			return err;
		if (!sht__rec_end(n, i, &r.end))
			return bad_rec(n, i);
		err = keep_rec(n, q, i, &r, key);
		if (err != SHT_OK || !next_in_node(q, tk, r.end, &r.start))
			return err;
		key = tkeys_at(tk, r.start);
		i++;
	}
}

static sht_err runs_scan(const struct sht__node *n, const struct sht__q2d *q,
			 sht_time s, struct window *win)
{
	struct run_key key = { n, 0 };
	struct tkeys tk;
	uint32_t run = 0, want, xc = 0;
	size_t k = 0;

	tkeys_init(&tk, n, q, s);
	while (run < n->nruns) {
		uint32_t quark = sht__run_quark(n, run);
		sht_err err;

		if (!want_next(q, &k, quark, &want))
			break;
		if (want != quark) {          /* skip to the wanted quark */
			key.q = want;
			run = (uint32_t)gallop(run, n->nruns, run_below, &key);
			continue;
		}
		err = run_sampled(q, &tk, run, &xc, win);
		if (err != SHT_OK)
			return err;
		run++;
	}
	return SHT_OK;
}

sht_err sht__q2d_scan(const struct sht__node *n, const struct sht__q2d *q)
{
	struct window win;
	sht_time s;
	sht_err err;

	if (n->n == 0 || q->qhi < n->qmin || q->qlo > n->qmax ||
	    !first_sample(q, n, &s))
		return SHT_OK;
	prefetch_areas(n);
	window_init(&win, n, q);
	err = (n->flags & SHT__NFLAG_RUNS) ? runs_scan(n, q, s, &win)
					   : flat_scan(n, q, s, &win);
	window_end(&win);
	return err;
}

int sht__q2d_meets(const struct sht__q2d *q, uint32_t qmin, uint32_t qmax)
{
	size_t k = 0;
	uint32_t want;

	if (qmin > qmax || qmax < q->qlo)
		return 0;
	return want_next(q, &k, qmin, &want) && want <= qmax;
}
