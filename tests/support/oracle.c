/*
 * oracle.c: the brute-force oracle and the random histories of oracle.h.
 */
#include "oracle.h"

/* ---- interval formatting and comparison -------------------------------- */

int orc_iv_equal(const sht_interval *a, const sht_interval *b)
{
	return a->quark == b->quark && a->start == b->start &&
	       a->end == b->end && sht_value_equal(&a->value, &b->value);
}

const char *orc_iv_str(const sht_interval *iv, char *buf, size_t n)
{
	const sht_value *v = &iv->value;
	char val[96];
	uint64_t bits;

	switch (v->type) {
	case SHT_TYPE_NULL:
		snprintf(val, sizeof val, "null");
		break;
	case SHT_TYPE_INT32:
		snprintf(val, sizeof val, "int32 %" PRId32, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		snprintf(val, sizeof val, "int64 %" PRId64, v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		memcpy(&bits, &v->u.d, sizeof bits);
		snprintf(val, sizeof val, "double %g (0x%016" PRIx64 ")",
			 v->u.d, bits);
		break;
	case SHT_TYPE_STRING: {
		char pre[17];
		uint32_t k, m = v->len < 16 ? v->len : 16;

		for (k = 0; k < m; k++) {
			char c = v->u.str ? v->u.str[k] : '?';

			pre[k] = (c >= 32 && c < 127) ? c : '.';
		}
		pre[m] = '\0';
		snprintf(val, sizeof val, "string len=%" PRIu32 " \"%s%s\"",
			 v->len, pre, v->len > 16 ? "..." : "");
		break;
	}
	default:
		snprintf(val, sizeof val, "type=%d?", (int)v->type);
		break;
	}
	snprintf(buf, n, "q=%" PRIu32 " [%" PRId64 ", %" PRId64 "] %s",
		 iv->quark, iv->start, iv->end, val);
	return buf;
}

/* ---- diagnostics with a budget ------------------------------------------ */

static unsigned orc_diag_left = ORC_DIAG_MAX;

void orc_diag_reset(void)
{
	orc_diag_left = ORC_DIAG_MAX;
}

void orc_errlog_init(orc_errlog *l)
{
	l->left = ORC_DIAG_MAX;
	l->errors = 0;
	l->buf[0] = '\0';
	l->len = 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void orc_fail(orc_errlog *l, const char *fmt, ...)
{
	va_list ap;

	if (l)
		l->errors++;
	if (l ? l->left == 0 : orc_diag_left == 0)
		return;
	va_start(ap, fmt);
	if (l) {
		int k;

		l->left--;
		if (l->len < sizeof l->buf - 2) {
			k = vsnprintf(l->buf + l->len,
				      sizeof l->buf - l->len - 1, fmt, ap);
			if (k > 0) {
				l->len += (size_t)k;
				if (l->len > sizeof l->buf - 2)
					l->len = sizeof l->buf - 2;
				l->buf[l->len++] = '\n';
				l->buf[l->len] = '\0';
			}
		}
	} else {
		orc_diag_left--;
		fputs("# ", stdout);
		vprintf(fmt, ap);
		fputc('\n', stdout);
		fflush(stdout);
	}
	va_end(ap);
}

void orc_errlog_print(const orc_errlog *l)
{
	const char *p = l->buf;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		printf("# %.*s\n", (int)n, p);
		p += n + (nl ? 1 : 0);
	}
	fflush(stdout);
}

/* ---- the oracle --------------------------------------------------------- */

void orc_init(orc *o, sht_time start, sht_time end)
{
	memset(o, 0, sizeof *o);
	o->start = start;
	o->end = end;
}

void orc_free(orc *o)
{
	size_t i;

	for (i = 0; i < o->n; i++)
		if (o->ivs[i].value.type == SHT_TYPE_STRING)
			free((void *)(uintptr_t)o->ivs[i].value.u.str);
	free(o->ivs);
	free(o->byq);
	free(o->qs);
	free(o->qlo);
	free(o->prefmax);
	memset(o, 0, sizeof *o);
}

void *orc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "oracle: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void orc_add(orc *o, const sht_interval *iv)
{
	sht_interval *d;

	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 1024;
		sht_interval *p = realloc(o->ivs, nc * sizeof *p);

		if (!p) {
			fprintf(stderr, "oracle: out of memory\n");
			abort();
		}
		o->ivs = p;
		o->cap = nc;
	}
	d = &o->ivs[o->n++];
	*d = *iv;
	if (iv->value.type == SHT_TYPE_STRING) {
		char *s = orc_xmalloc((size_t)iv->value.len + 1);

		if (iv->value.len)
			memcpy(s, iv->value.u.str, iv->value.len);
		s[iv->value.len] = '\0';
		d->value.u.str = s;
		o->n_strings++;
		o->string_bytes += iv->value.len;
	}
}

/* Sort helpers (qsort with a context: use a static pointer). */
static const orc *orc_sort_ctx;

static int orc_cmp_end(const void *a, const void *b)
{
	const sht_interval *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

static int orc_cmp_qs(const void *a, const void *b)
{
	const sht_interval *x = &orc_sort_ctx->ivs[*(const size_t *)a];
	const sht_interval *y = &orc_sort_ctx->ivs[*(const size_t *)b];

	if (x->quark != y->quark)
		return x->quark < y->quark ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * Put the intervals in builder order: non-decreasing end, ties in random
 * order (shuffle first; qsort is not stable, which only adds randomness).
 */
static void orc_order_by_end(orc *o, struct rng *r)
{
	size_t i;

	for (i = o->n; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		sht_interval t = o->ivs[i - 1];

		o->ivs[i - 1] = o->ivs[j];
		o->ivs[j] = t;
	}
	qsort(o->ivs, o->n, sizeof *o->ivs, orc_cmp_end);
}

void orc_index(orc *o)
{
	size_t i, k;

	free(o->byq);
	free(o->qs);
	free(o->qlo);
	free(o->prefmax);
	o->byq = orc_xmalloc(o->n * sizeof *o->byq);
	o->prefmax = orc_xmalloc((o->n + 1) * sizeof *o->prefmax);
	for (i = 0; i < o->n; i++)
		o->byq[i] = i;
	orc_sort_ctx = o;
	qsort(o->byq, o->n, sizeof *o->byq, orc_cmp_qs);
	o->nq = 0;
	for (i = 0; i < o->n; i++)
		if (i == 0 || o->ivs[o->byq[i]].quark !=
			      o->ivs[o->byq[i - 1]].quark)
			o->nq++;
	o->qs = orc_xmalloc(o->nq * sizeof *o->qs);
	o->qlo = orc_xmalloc((o->nq + 1) * sizeof *o->qlo);
	for (i = 0, k = 0; i < o->n; i++)
		if (i == 0 || o->ivs[o->byq[i]].quark !=
			      o->ivs[o->byq[i - 1]].quark) {
			o->qs[k] = o->ivs[o->byq[i]].quark;
			o->qlo[k++] = i;
		}
	o->qlo[o->nq] = o->n;
	o->prefmax[0] = -1;
	for (i = 0; i < o->n; i++) {
		int64_t q = (int64_t)o->ivs[i].quark;

		o->prefmax[i + 1] = q > o->prefmax[i] ? q : o->prefmax[i];
	}
	/* Self-check of the generator: per quark, no overlaps, in order. */
	for (i = 1; i < o->n; i++) {
		const sht_interval *a = &o->ivs[o->byq[i - 1]];
		const sht_interval *b = &o->ivs[o->byq[i]];

		if (a->quark == b->quark && a->end >= b->start) {
			fprintf(stderr, "oracle: generator made overlapping "
					"intervals at quark %" PRIu32 "\n",
				a->quark);
			abort();
		}
	}
	for (i = 1; i < o->n; i++)
		if (o->ivs[i - 1].end > o->ivs[i].end) {
			fprintf(stderr, "oracle: not in end order\n");
			abort();
		}
}

/* Position of quark q in qs[], or ORC_NONE. */
static size_t orc_quark_pos(const orc *o, sht_quark q)
{
	size_t lo = 0, hi = o->nq;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->qs[mid] < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < o->nq && o->qs[lo] == q) ? lo : ORC_NONE;
}

/* Insertion index of quark position qp's interval containing t, or none. */
static size_t orc_lookup_pos(const orc *o, size_t qp, sht_time t)
{
	size_t lo = o->qlo[qp], hi = o->qlo[qp + 1];
	const sht_interval *iv;

	/* last interval with start <= t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->ivs[o->byq[mid]].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == o->qlo[qp])
		return ORC_NONE;
	iv = &o->ivs[o->byq[lo - 1]];
	return iv->end >= t ? o->byq[lo - 1] : ORC_NONE;
}

size_t orc_lookup(const orc *o, sht_quark q, sht_time t)
{
	size_t qp = orc_quark_pos(o, q);

	return qp == ORC_NONE ? ORC_NONE : orc_lookup_pos(o, qp, t);
}

/* ---- checks ------------------------------------------------------------ */

orc_vis orc_vis_all(const orc *o, uint64_t quark_count)
{
	orc_vis v;

	v.lo = v.hi = o->n;
	v.builder = 0;
	v.quark_count = quark_count;
	v.tmin = o->start;
	v.tmax = o->end;
	return v;
}

orc_vis orc_vis_prefix(const orc *o, size_t lo, size_t hi)
{
	orc_vis v;

	v.lo = lo;
	v.hi = hi;
	v.builder = 1;
	v.quark_count = 0;
	v.tmin = o->start;
	v.tmax = o->end;
	return v;
}

/*
 * May a query at (q, t) answer SHT_ERR_RANGE ("time or quark outside the
 * history")?  Only if q is beyond every quark surely stored, or t is
 * outside the history's bounds.
 */
static int orc_range_ok(const orc *o, const orc_vis *v, sht_quark q, sht_time t)
{
	if (t < v->tmin || t > v->tmax)
		return 1;
	if (v->builder)
		return (int64_t)q > o->prefmax[v->lo];
	return (uint64_t)q >= v->quark_count;
}

int orc_check_single(const orc *o, const orc_vis *v,
		     sht_quark q, sht_time t, sht_err rc,
		     const sht_result *res, int allow_err,
		     orc_errlog *log, const char *what)
{
	size_t idx = orc_lookup(o, q, t);
	size_t cnt = sht_result_count(res);
	int must = idx != ORC_NONE && idx < v->lo;
	int may = idx != ORC_NONE && idx < v->hi;
	char eb[160], gb[160];

	if (allow_err && rc < 0 && cnt == 0)
		return 1;
	if (rc == SHT_OK && cnt == 1 && may &&
	    orc_iv_equal(sht_result_at(res, 0), &o->ivs[idx]))
		return 1;
	if (rc == SHT_NOT_FOUND && cnt == 0 && !must)
		return 1;
	if (rc == SHT_ERR_RANGE && cnt == 0 && !must &&
	    orc_range_ok(o, v, q, t))
		return 1;
	orc_fail(log, "%s: query(q=%" PRIu32 ", t=%" PRId64 "): expected %s%s,"
		 " got %s count=%zu%s%s", what, q, t,
		 idx == ORC_NONE ? "SHT_NOT_FOUND" :
		 orc_iv_str(&o->ivs[idx], eb, sizeof eb),
		 idx != ORC_NONE && !must ? " (or not found: not yet inserted)"
					  : "",
		 sht_err_name(rc), cnt, cnt ? " first=" : "",
		 cnt ? orc_iv_str(sht_result_at(res, 0), gb, sizeof gb) : "");
	return 0;
}

int orc_check_full(const orc *o, const orc_vis *v, sht_time t,
		   sht_err rc, const sht_result *res,
		   int allow_err, orc_errlog *log,
		   const char *what)
{
	size_t cnt = sht_result_count(res), i, must = 0, got_must = 0;
	char eb[160], gb[160];
	int okk = 1;

	if (allow_err && rc < 0 && cnt == 0)
		return 1;
	if (rc < 0) {
		orc_fail(log, "%s: full(t=%" PRId64 ") failed: %s", what, t,
			 sht_err_name(rc));
		return 0;
	}
	if (cnt > 0 && rc != SHT_OK) {
		orc_fail(log, "%s: full(t=%" PRId64 ") returned %s with %zu "
			 "items", what, t, sht_err_name(rc), cnt);
		okk = 0;
	}
	for (i = 0; i < o->nq; i++) {
		size_t idx = orc_lookup_pos(o, i, t);

		if (idx != ORC_NONE && idx < v->lo)
			must++;
	}
	for (i = 0; i < cnt && okk; i++) {
		const sht_interval *g = sht_result_at(res, i);
		size_t idx = orc_lookup(o, g->quark, t);

		if (i > 0 && sht_result_at(res, i - 1)->quark >= g->quark) {
			orc_fail(log, "%s: full(t=%" PRId64 ") item %zu not in "
				 "quark order: %s after quark %" PRIu32, what,
				 t, i, orc_iv_str(g, gb, sizeof gb),
				 sht_result_at(res, i - 1)->quark);
			okk = 0;
		} else if (idx == ORC_NONE || idx >= v->hi ||
			   !orc_iv_equal(g, &o->ivs[idx])) {
			orc_fail(log, "%s: full(t=%" PRId64 ") item %zu: got %s,"
				 " expected %s", what, t, i,
				 orc_iv_str(g, gb, sizeof gb),
				 idx == ORC_NONE || idx >= v->hi ? "nothing" :
				 orc_iv_str(&o->ivs[idx], eb, sizeof eb));
			okk = 0;
		} else if (idx < v->lo) {
			got_must++;
		}
	}
	if (okk && got_must != must) {
		/* find the first missing quark for the report */
		size_t j = 0;

		for (i = 0; i < o->nq; i++) {
			size_t idx = orc_lookup_pos(o, i, t);

			if (idx == ORC_NONE || idx >= v->lo)
				continue;
			while (j < cnt && sht_result_at(res, j)->quark <
						  o->qs[i])
				j++;
			if (j >= cnt || sht_result_at(res, j)->quark != o->qs[i])
				break;
		}
		orc_fail(log, "%s: full(t=%" PRId64 "): %zu of %zu expected "
			 "intervals returned (%zu items); first missing: %s",
			 what, t, got_must, must, cnt,
			 i < o->nq ? orc_iv_str(&o->ivs[orc_lookup_pos(o, i, t)],
						eb, sizeof eb) : "?");
		okk = 0;
	}
	return okk;
}

/* ---- 2D queries ---------------------------------------------------------- */

static int orc_cmp_quark(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;

	return x < y ? -1 : x > y;
}

/* Is quark q selected by the query (set or range)?  sorted: q->quarks
 * sorted copy (or NULL for a range query). */
static int orc_2d_selects(const sht_query2d *q, const sht_quark *sorted,
			  sht_quark quark)
{
	if (!q->quarks)
		return quark >= q->qmin && quark <= q->qmax;
	return bsearch(&quark, sorted, q->n_quarks, sizeof *sorted,
		       orc_cmp_quark) != NULL;
}

/* Does [s, e] satisfy the 2D time predicate of q? */
static int orc_2d_time_ok(const sht_query2d *q, sht_time s, sht_time e)
{
	sht_time lo, hi;
	uint64_t d, r, k, off;

	if (e < q->t1 || s > q->t2)
		return 0;
	if (q->resolution <= 0)
		return 1;
	if (s <= q->t2 && e >= q->t2)
		return 1;  /* contains t2 */
	lo = s > q->t1 ? s : q->t1;
	hi = e < q->t2 ? e : q->t2;
	r = (uint64_t)q->resolution;
	d = (uint64_t)lo - (uint64_t)q->t1;
	k = d / r + (d % r != 0);          /* first sample >= lo */
	if (k > ((uint64_t)hi - (uint64_t)q->t1) / r)
		return 0;
	off = k * r;
	return off <= (uint64_t)hi - (uint64_t)q->t1;
}

/* Is p strictly before g in the order q asks for? */
static int orc_2d_ordered(const sht_query2d *q, const sht_interval *p,
			  const sht_interval *g)
{
	if (q->order == SHT_ORDER_QUARK)
		return p->quark < g->quark ||
		       (p->quark == g->quark && p->start < g->start);
	return p->start < g->start ||
	       (p->start == g->start && p->quark < g->quark);
}

int orc_check_2d(const orc *o, const orc_vis *v,
		 const sht_query2d *q, sht_err rc,
		 const sht_result *res, int allow_err,
		 orc_errlog *log, const char *what)
{
	size_t cnt = sht_result_count(res), i, must = 0, got_must = 0;
	sht_quark *sorted = NULL;
	char gb[160], eb[160], qd[160];
	int okk = 1;

	if (q->quarks) {
		snprintf(qd, sizeof qd, "2d(%zu quarks, t=[%" PRId64 ", %" PRId64
			 "], res=%" PRId64 "%s)", q->n_quarks, q->t1, q->t2,
			 q->resolution, q->order == SHT_ORDER_QUARK ? ", by quark" : "");
		sorted = orc_xmalloc(q->n_quarks * sizeof *sorted);
		if (q->n_quarks)
			memcpy(sorted, q->quarks, q->n_quarks * sizeof *sorted);
		qsort(sorted, q->n_quarks, sizeof *sorted, orc_cmp_quark);
	} else {
		snprintf(qd, sizeof qd, "2d(q=[%" PRIu32 ", %" PRIu32 "], t=[%"
			 PRId64 ", %" PRId64 "], res=%" PRId64 "%s)", q->qmin,
			 q->qmax, q->t1, q->t2, q->resolution,
			 q->order == SHT_ORDER_QUARK ? ", by quark" : "");
	}
	if (allow_err && rc < 0 && cnt == 0)
		goto out;
	if (rc < 0) {
		orc_fail(log, "%s: %s failed: %s", what, qd, sht_err_name(rc));
		okk = 0;
		goto out;
	}
	if (cnt > 0 && rc != SHT_OK) {
		orc_fail(log, "%s: %s returned %s with %zu items", what, qd,
			 sht_err_name(rc), cnt);
		okk = 0;
	}
	for (i = 0; i < v->lo; i++) {
		const sht_interval *iv = &o->ivs[i];

		if (orc_2d_selects(q, sorted, iv->quark) &&
		    orc_2d_time_ok(q, iv->start, iv->end))
			must++;
	}
	for (i = 0; i < cnt && okk; i++) {
		const sht_interval *g = sht_result_at(res, i);
		const sht_interval *p = i ? sht_result_at(res, i - 1) : NULL;
		size_t idx = orc_lookup(o, g->quark, g->start);

		if (p && !orc_2d_ordered(q, p, g)) {
			orc_fail(log, "%s: %s item %zu out of %s order: %s "
				 "after %s", what, qd, i,
				 q->order == SHT_ORDER_QUARK ? "(quark, start)"
							     : "(start, quark)",
				 orc_iv_str(g, gb, sizeof gb),
				 orc_iv_str(p, eb, sizeof eb));
			okk = 0;
		} else if (idx == ORC_NONE || idx >= v->hi ||
			   !orc_iv_equal(g, &o->ivs[idx])) {
			orc_fail(log, "%s: %s item %zu: got %s, which is not an "
				 "inserted interval%s%s", what, qd, i,
				 orc_iv_str(g, gb, sizeof gb),
				 idx == ORC_NONE || idx >= v->hi ? "" :
				 "; oracle has ",
				 idx == ORC_NONE || idx >= v->hi ? "" :
				 orc_iv_str(&o->ivs[idx], eb, sizeof eb));
			okk = 0;
		} else if (!orc_2d_selects(q, sorted, g->quark) ||
			   !orc_2d_time_ok(q, g->start, g->end)) {
			orc_fail(log, "%s: %s item %zu: %s does not match the "
				 "query", what, qd, i,
				 orc_iv_str(g, gb, sizeof gb));
			okk = 0;
		} else if (idx < v->lo) {
			got_must++;
		}
	}
	if (okk && got_must != must) {
		size_t j;

		/* name one missing interval */
		for (i = 0; i < v->lo; i++) {
			const sht_interval *iv = &o->ivs[i];

			if (!orc_2d_selects(q, sorted, iv->quark) ||
			    !orc_2d_time_ok(q, iv->start, iv->end))
				continue;
			for (j = 0; j < cnt; j++)
				if (orc_iv_equal(sht_result_at(res, j), iv))
					break;
			if (j == cnt)
				break;
		}
		orc_fail(log, "%s: %s: %zu of %zu expected intervals returned "
			 "(%zu items); first missing: %s", what, qd, got_must,
			 must, cnt, i < v->lo ?
			 orc_iv_str(&o->ivs[i], eb, sizeof eb) : "?");
		okk = 0;
	}
out:
	free(sorted);
	return okk;
}

/* ---- random histories --------------------------------------------------- */

orc_vmix orc_vmix_default(uint32_t block_size, unsigned big_strings)
{
	orc_vmix m;

	m.i32 = 25;
	m.i64 = 20;
	m.dbl = 20;
	m.str = 20;
	m.big_strings = big_strings;
	m.block_size = block_size;
	return m;
}

void orc_gen_init(orc_gen *g, struct rng *rng, orc_vmix mix)
{
	g->rng = rng;
	g->mix = mix;
	g->buf_cap = 100u * 1024u + 64u;
	if (mix.block_size + 64u > g->buf_cap)
		g->buf_cap = (size_t)mix.block_size + 64u;
	g->buf = orc_xmalloc(g->buf_cap);
}

void orc_gen_free(orc_gen *g)
{
	free(g->buf);
	g->buf = NULL;
}

double orc_double_from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof d);
	return d;
}

sht_value orc_gen_value(orc_gen *g)
{
	struct rng *r = g->rng;
	unsigned p = (unsigned)rng_below(r, 100);
	const orc_vmix *m = &g->mix;

	if (p < m->i32) {
		static const int32_t special[] = { 0, -1, 1, INT32_MIN,
						   INT32_MAX };

		if (rng_pct(r, 20))
			return sht_value_int32(special[rng_below(r, 5)]);
		return sht_value_int32((int32_t)(uint32_t)rng_next(r));
	}
	p -= m->i32;
	if (p < m->i64) {
		static const int64_t special[] = { 0, -1, 1, INT64_MIN,
						   INT64_MAX, 1ll << 32 };

		if (rng_pct(r, 25))
			return sht_value_int64(special[rng_below(r, 6)]);
		return sht_value_int64((int64_t)rng_next(r));
	}
	p -= m->i64;
	if (p < m->dbl) {
		static const uint64_t special[] = {
			0x0000000000000000ull,  /* +0.0 */
			0x8000000000000000ull,  /* -0.0 */
			0x7ff8000000000000ull,  /* quiet NaN */
			0xfff8000000000001ull,  /* negative NaN, payload */
			0x7ff0000000000001ull,  /* signalling NaN */
			0x7ff0000000000000ull,  /* +inf */
			0xfff0000000000000ull,  /* -inf */
			0x0000000000000001ull,  /* smallest subnormal */
		};

		if (rng_pct(r, 30))
			return sht_value_double(orc_double_from_bits(
				special[rng_below(r, 8)]));
		return sht_value_double(orc_double_from_bits(rng_next(r)));
	}
	p -= m->dbl;
	if (p < m->str) {
		size_t len, k;
		unsigned kind = (unsigned)rng_below(r, 100);

		if (kind < 10) {
			len = 0;
		} else if (kind < 75) {
			len = 1 + rng_below(r, 24);
		} else if (kind < 93) {
			len = 900 + rng_below(r, 250);   /* ~1 KiB */
		} else if (kind < 98 || m->big_strings == 0) {
			/* around the block size and half of it */
			size_t bs = m->block_size ? m->block_size : 4096;
			static const int64_t delta[] = { -64, -1, 0, 1 };

			len = (rng_pct(r, 50) ? bs / 2 : bs) +
			      (size_t)delta[rng_below(r, 4)];
			if (len > 100u * 1024u)
				len = 100u * 1024u;
		} else {
			g->mix.big_strings--;
			len = rng_pct(r, 50) ? 64u * 1024u : 100u * 1024u;
		}
		for (k = 0; k < len; k++)
			g->buf[k] = (char)('a' + rng_below(r, 26));
		/* embedded NULs and high bytes: strings are bytes */
		if (len > 3 && rng_pct(r, 20)) {
			g->buf[rng_below(r, len)] = '\0';
			g->buf[rng_below(r, len)] = (char)0xff;
		}
		g->buf[len] = '\0';
		return sht_value_string(g->buf, (uint32_t)len);
	}
	return sht_value_null();
}

static int orc_cmp_time(const void *a, const void *b)
{
	sht_time x = *(const sht_time *)a, y = *(const sht_time *)b;

	return x < y ? -1 : x > y;
}

void orc_gen_tiling(orc *o, orc_gen *g, sht_quark q, sht_time s,
		    sht_time e, size_t m, sht_time grid,
		    unsigned short_pct)
{
	struct rng *r = g->rng;
	uint64_t span = (uint64_t)e - (uint64_t)s;  /* cuts in (s, e] */
	uint64_t points = span / (uint64_t)(grid > 0 ? grid : 1);
	sht_time *cuts;
	size_t nc = 0, i, want = m > 0 ? m - 1 : 0;
	sht_time prev;

	if (grid <= 0)
		grid = 1;
	cuts = orc_xmalloc((want * 4 + 1) * sizeof *cuts);
	if (want >= points) {
		/* every grid point is a cut: all intervals of length grid */
		for (i = 0; i < points; i++)
			cuts[nc++] = (sht_time)((uint64_t)s +
						(i + 1) * (uint64_t)grid);
		want = 0;
	}
	for (i = 0; i < want && points > 0; i++) {
		sht_time c = (sht_time)((uint64_t)s +
			(1 + rng_below(r, points)) * (uint64_t)grid);
		int run = rng_pct(r, short_pct) ? 1 + (int)rng_below(r, 3) : 0;

		cuts[nc++] = c;
		while (run-- > 0 && c < e)
			cuts[nc++] = ++c;
	}
	qsort(cuts, nc, sizeof *cuts, orc_cmp_time);
	prev = s;
	for (i = 0; i <= nc; i++) {
		sht_interval iv;
		sht_time c = i < nc ? cuts[i] : (sht_time)((uint64_t)e + 1u);

		if (i < nc && (c <= prev || c > e))
			continue;  /* duplicate */
		iv.quark = q;
		iv.start = prev;
		iv.end = (sht_time)((uint64_t)c - 1u);
		iv.value = orc_gen_value(g);
		orc_add(o, &iv);
		prev = c;
	}
	free(cuts);
}

void orc_seal(orc *o, struct rng *r)
{
	orc_order_by_end(o, r);
	orc_index(o);
}

size_t orc_make_quarks(struct rng *r, sht_quark *out,
		       size_t n_dense, size_t n_sparse)
{
	size_t n = 0, i, k;

	for (i = 0; i < n_dense; i++)
		out[n++] = (sht_quark)i;
	if (n_sparse >= 4) {
		out[n++] = SHT_QUARK_MAX;
		out[n++] = SHT_QUARK_MAX - 1;
		out[n++] = 1u << 31;
		out[n++] = (1u << 31) - 1;
		n_sparse -= 4;
	}
	for (i = 0; i < n_sparse; i++)
		out[n++] = (sht_quark)(n_dense + rng_below(r,
			(uint64_t)SHT_QUARK_MAX + 1 - n_dense));
	qsort(out, n, sizeof *out, orc_cmp_quark);
	for (i = 1, k = 1; i < n; i++)
		if (out[i] != out[k - 1])
			out[k++] = out[i];
	return n ? k : 0;
}

void orc_wl_mixed(orc *o, struct rng *r, uint32_t block_size,
		  sht_time start, sht_time span, size_t n_dense,
		  size_t n_sparse, size_t max_m,
		  unsigned big_strings)
{
	sht_quark *qs = orc_xmalloc((n_dense + n_sparse + 1) * sizeof *qs);
	size_t nq, i;
	orc_gen g;

	orc_init(o, start, start + span);
	orc_gen_init(&g, r, orc_vmix_default(block_size, big_strings));
	nq = orc_make_quarks(r, qs, n_dense, n_sparse);
	for (i = 0; i < nq; i++)
		orc_gen_tiling(o, &g, qs[i], start, start + span,
			       1 + rng_below(r, max_m),
			       rng_pct(r, 50) ? 1 : 100, 10);
	orc_gen_free(&g);
	free(qs);
	orc_seal(o, r);
}
