/*
 * state-model.c: the brute-force model of the state system of
 * state-model.h.
 */
#include "state-model.h"

/* ---- small helpers -------------------------------------------------------- */

void *sm_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "state-model: out of memory\n");
		abort();
	}
	return q;
}

int sm_value_eq(const sht_value *a, const sht_value *b)
{
	uint64_t x, y;

	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SHT_TYPE_NULL:
		return 1;
	case SHT_TYPE_INT32:
		return a->u.i32 == b->u.i32;
	case SHT_TYPE_INT64:
		return a->u.i64 == b->u.i64;
	case SHT_TYPE_DOUBLE:
		memcpy(&x, &a->u.d, sizeof x);
		memcpy(&y, &b->u.d, sizeof y);
		return x == y;
	case SHT_TYPE_STRING:
		if (a->len != b->len)
			return 0;
		for (x = 0; x < a->len; x++)
			if (a->u.str[x] != b->u.str[x])
				return 0;
		return 1;
	}
	return 0;
}

/* Owned deep copy (free with sm_value_free). */
static sht_value sm_value_dup(const sht_value *v)
{
	sht_value c = *v;

	if (v->type == SHT_TYPE_STRING) {
		char *s = sm_xrealloc(NULL, (size_t)v->len + 1);

		if (v->len)
			memcpy(s, v->u.str, v->len);
		s[v->len] = '\0';
		c.u.str = s;
	}
	return c;
}

static void sm_value_free(sht_value *v)
{
	if (v->type == SHT_TYPE_STRING)
		free((void *)(uintptr_t)v->u.str);
	*v = sht_value_null();
}

const char *sm_value_str(const sht_value *v, char *buf, size_t n)
{
	uint64_t bits;
	size_t k, o;

	switch (v->type) {
	case SHT_TYPE_NULL:
		snprintf(buf, n, "null");
		break;
	case SHT_TYPE_INT32:
		snprintf(buf, n, "int32 %" PRId32, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		snprintf(buf, n, "int64 %" PRId64, v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		memcpy(&bits, &v->u.d, sizeof bits);
		snprintf(buf, n, "double %g (0x%016" PRIx64 ")", v->u.d,
			 bits);
		break;
	case SHT_TYPE_STRING:
		o = (size_t)snprintf(buf, n, "string[%" PRIu32 "] \"",
				     v->len);
		for (k = 0; k < v->len && k < 24 && o + 6 < n; k++) {
			unsigned char c = (unsigned char)v->u.str[k];

			if (c >= 32 && c < 127 && c != '"' && c != '\\')
				buf[o++] = (char)c;
			else
				o += (size_t)snprintf(buf + o, n - o, "\\x%02x",
						      c);
		}
		snprintf(buf + o, n - o, "%s\"", k < v->len ? "..." : "");
		break;
	default:
		snprintf(buf, n, "type %d?", (int)v->type);
	}
	return buf;
}

const char *sm_iv_str(const sht_interval *iv, char *buf, size_t n)
{
	char vb[128];

	snprintf(buf, n, "q%" PRIu32 " [%" PRId64 ", %" PRId64 "] %s",
		 iv->quark, iv->start, iv->end,
		 sm_value_str(&iv->value, vb, sizeof vb));
	return buf;
}

int sm_iv_eq(const sht_interval *a, const sht_interval *b)
{
	return a->quark == b->quark && a->start == b->start &&
	       a->end == b->end && sm_value_eq(&a->value, &b->value);
}

/* ---- the model ------------------------------------------------------------ */

void sm_init(sm_model *m, sht_time start)
{
	memset(m, 0, sizeof *m);
	m->start = start;
	m->latest = start;
	m->popped = sht_value_null();
}

void sm_free(sm_model *m)
{
	size_t q, i;

	for (q = 0; q < m->n; q++) {
		sm_attr *a = &m->a[q];

		for (i = 0; i < a->niv; i++)
			sm_value_free(&a->ivs[i].value);
		free(a->ivs);
		free(a->kids);
		free(a->name);
		sm_value_free(&a->cur);
	}
	free(m->a);
	free(m->roots);
	sm_value_free(&m->popped);
	memset(m, 0, sizeof *m);
}

sht_time sm_end(const sm_model *m)
{
	return m->finished ? m->end : m->latest;
}

static void sm_children(const sm_model *m, sht_quark parent,
			const sht_quark **kids, size_t *n)
{
	if (parent == SHT_QUARK_ROOT) {
		*kids = m->roots;
		*n = m->nroots;
	} else {
		*kids = m->a[parent].kids;
		*n = m->a[parent].nkids;
	}
}

/* Child `name` of parent: SHT_OK (found or created), SHT_NOT_FOUND. */
static sht_err sm_child(sm_model *m, sht_quark parent,
			const char *name, size_t len, int create,
			sht_quark *out)
{
	const sht_quark *kids;
	size_t nk, i;
	sm_attr *a;

	sm_children(m, parent, &kids, &nk);
	for (i = 0; i < nk; i++) {
		const sm_attr *c = &m->a[kids[i]];

		if (c->name_len == len && memcmp(c->name, name, len) == 0) {
			*out = kids[i];
			return SHT_OK;
		}
	}
	if (!create)
		return SHT_NOT_FOUND;
	SM_GROW(m->a, m->n, m->cap);
	a = &m->a[m->n];
	memset(a, 0, sizeof *a);
	a->name = sm_xrealloc(NULL, len + 1);
	memcpy(a->name, name, len);
	a->name[len] = '\0';
	a->name_len = len;
	a->parent = parent;
	a->cur = sht_value_null();
	a->cur_start = m->start;
	a->locked = SHT_TYPE_NULL;
	*out = (sht_quark)m->n++;
	if (parent == SHT_QUARK_ROOT) {
		SM_GROW(m->roots, m->nroots, m->caproots);
		m->roots[m->nroots++] = *out;
	} else {
		sm_attr *p = &m->a[parent];

		SM_GROW(p->kids, p->nkids, p->capkids);
		p->kids[p->nkids++] = *out;
	}
	return SHT_OK;
}

sht_err sm_quark(sm_model *m, sht_quark parent,
		 const char *const *elems, size_t n, int create,
		 sht_quark *out)
{
	sht_quark q = parent;
	size_t i;

	for (i = 0; i < n; i++) {
		sht_err e = sm_child(m, q, elems[i], strlen(elems[i]), create,
				     &q);

		if (e != SHT_OK)
			return e;
	}
	*out = q;
	return SHT_OK;
}

/* Time checks of a change at t (the latest change time moves to t). */
static sht_err sm_check_time(sm_model *m, sht_time t)
{
	if (m->finished)
		return SHT_ERR_STATE;
	if (t < m->start)
		return SHT_ERR_RANGE;
	if (t < m->latest)
		return SHT_ERR_ORDER;
	if (m->latest_on_call)
		m->latest = t;
	return SHT_OK;
}

static void sm_store(sm_attr *a, sht_quark q, sht_time s, sht_time e,
		     const sht_value *v)
{
	sht_interval *iv;

	SM_GROW(a->ivs, a->niv, a->capiv);
	iv = &a->ivs[a->niv++];
	iv->quark = q;
	iv->start = s;
	iv->end = e;
	iv->value = sm_value_dup(v);
}

/* KERNEL_MODEL §2.2 modify, steps 1 to 4 (time already checked). */
static sht_err sm_modify_raw(sm_model *m, sht_time t, sht_quark q,
			     const sht_value *v)
{
	sm_attr *a = &m->a[q];

	/* 1. type lock */
	if (v->type != SHT_TYPE_NULL && a->locked != SHT_TYPE_NULL &&
	    a->locked != v->type)
		return SHT_ERR_TYPE;
	if (v->type != SHT_TYPE_NULL && a->locked == SHT_TYPE_NULL &&
	    !m->lock_on_change)
		a->locked = v->type;
	/* 2. same value: nothing */
	if (sm_value_eq(&a->cur, v))
		return SHT_OK;
	if (v->type != SHT_TYPE_NULL && a->locked == SHT_TYPE_NULL)
		a->locked = v->type;
	/* 3. store [start, t - 1] */
	if (a->cur_start < t) {
		sm_store(a, q, a->cur_start, t - 1, &a->cur);
		a->cur_start = t;
	}
	/* 4. (or) replace in place */
	sm_value_free(&a->cur);
	a->cur = sm_value_dup(v);
	if (t > m->latest)
		m->latest = t;
	return SHT_OK;
}

sht_err sm_modify(sm_model *m, sht_time t, sht_quark q, const sht_value *v)
{
	sht_err e = sm_check_time(m, t);

	return e != SHT_OK ? e : sm_modify_raw(m, t, q, v);
}

static void sm_clear_raw(sm_model *m, sht_time t, sht_quark q)
{
	static const sht_value null = { SHT_TYPE_NULL, 0, { 0 } };
	size_t i;

	for (i = 0; i < m->a[q].nkids; i++)
		sm_clear_raw(m, t, m->a[q].kids[i]);
	sm_modify_raw(m, t, q, &null);
}

sht_err sm_clear(sm_model *m, sht_time t, sht_quark q)
{
	sht_err e = sm_check_time(m, t);

	if (e == SHT_OK)
		sm_clear_raw(m, t, q);
	return e;
}

sht_err sm_push(sm_model *m, sht_time t, sht_quark q, const sht_value *v)
{
	sht_err e = sm_check_time(m, t);
	int32_t depth;
	char name[16];
	sht_quark sub;
	sht_value dv;

	if (e != SHT_OK)
		return e;
	if (m->a[q].cur.type == SHT_TYPE_NULL)
		depth = 0;
	else if (m->a[q].cur.type == SHT_TYPE_INT32)
		depth = m->a[q].cur.u.i32;
	else
		return SHT_ERR_TYPE;
	if (depth >= SHT_STACK_MAX)
		return SHT_ERR_TOOBIG;
	depth++;
	snprintf(name, sizeof name, "%d", (int)depth);
	sm_child(m, q, name, strlen(name), 1, &sub);
	dv = sht_value_int32(depth);
	e = sm_modify_raw(m, t, q, &dv);
	if (e != SHT_OK)
		return e;
	return sm_modify_raw(m, t, sub, v);
}

sht_err sm_pop(sm_model *m, sht_time t, sht_quark q, sht_value *popped)
{
	sht_err e = sm_check_time(m, t);
	int32_t depth;
	char name[16];
	sht_quark sub;
	sht_value dv;

	if (e != SHT_OK)
		return e;
	if (m->a[q].cur.type == SHT_TYPE_NULL)
		return SHT_NOT_FOUND;
	if (m->a[q].cur.type != SHT_TYPE_INT32)
		return SHT_ERR_TYPE;
	depth = m->a[q].cur.u.i32;
	snprintf(name, sizeof name, "%d", (int)depth);
	if (depth <= 0 || sm_child(m, q, name, strlen(name), 0, &sub) !=
	    SHT_OK) {
		/* Never produced by the tests' scripts (undefined). */
		fprintf(stderr, "state-model: pop of a broken stack\n");
		abort();
	}
	sm_value_free(&m->popped);
	m->popped = sm_value_dup(&m->a[sub].cur);
	dv = depth > 1 ? sht_value_int32(depth - 1) : sht_value_null();
	e = sm_modify_raw(m, t, q, &dv);
	if (e != SHT_OK)
		return e;
	sm_clear_raw(m, t, sub);
	if (popped)
		*popped = m->popped;
	return SHT_OK;
}

sht_err sm_increment(sm_model *m, sht_time t, sht_quark q, int64_t delta)
{
	sht_err e = sm_check_time(m, t);
	const sm_attr *a = &m->a[q];
	sht_value nv;

	if (e != SHT_OK)
		return e;
	switch (a->cur.type) {
	case SHT_TYPE_NULL:
		nv = a->locked == SHT_TYPE_INT64 ? sht_value_int64(delta)
						 : sht_value_int32((int32_t)delta);
		break;
	case SHT_TYPE_INT32:
		nv = sht_value_int32((int32_t)(a->cur.u.i32 + delta));
		break;
	case SHT_TYPE_INT64:
		nv = sht_value_int64(a->cur.u.i64 + delta);
		break;
	default:
		return SHT_ERR_TYPE;
	}
	return sm_modify_raw(m, t, q, &nv);
}

sht_err sm_update_ongoing(sm_model *m, sht_quark q, const sht_value *v)
{
	if (m->finished)
		return SHT_ERR_STATE;
	sm_value_free(&m->a[q].cur);
	m->a[q].cur = sm_value_dup(v);
	return SHT_OK;
}

sht_err sm_finish(sm_model *m, sht_time end)
{
	size_t q;

	if (m->finished)
		return SHT_ERR_STATE;
	if (end < m->latest)           /* (latest >= start) */
		return SHT_ERR_ORDER;
	for (q = 0; q < m->n; q++) {
		sm_attr *a = &m->a[q];

		if (a->cur_start <= end)
			sm_store(a, (sht_quark)q, a->cur_start, end, &a->cur);
	}
	m->finished = 1;
	m->end = end;
	return SHT_OK;
}

/* ---- model queries -------------------------------------------------------- */

sht_err sm_at(const sm_model *m, sht_quark q, sht_time t, sht_interval *out)
{
	const sm_attr *a;
	size_t lo, hi;

	if (q >= m->n || t < m->start || t > sm_end(m))
		return SHT_ERR_RANGE;
	a = &m->a[q];
	lo = 0;
	hi = a->niv;
	while (lo < hi) {            /* first interval with end >= t */
		size_t mid = lo + (hi - lo) / 2;

		if (a->ivs[mid].end < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->niv) {
		if (a->ivs[lo].start > t) {
			fprintf(stderr, "state-model: gap in q%" PRIu32
				" at %" PRId64 "\n", q, t);
			abort();
		}
		*out = a->ivs[lo];
		return SHT_OK;
	}
	if (m->finished || a->cur_start > t) {
		fprintf(stderr, "state-model: nothing for q%" PRIu32
			" at %" PRId64 "\n", q, t);
		abort();
	}
	out->quark = q;
	out->start = a->cur_start;
	out->end = m->latest;
	out->value = a->cur;
	return SHT_OK;
}

void sm_list_add(sm_list *l, const sht_interval *iv)
{
	SM_GROW(l->v, l->n, l->cap);
	l->v[l->n++] = *iv;
}

sht_err sm_range_query(const sm_model *m, sht_quark q,
		       sht_time t1, sht_time t2, sht_time r,
		       sm_list *out)
{
	sht_time end = t2 < sm_end(m) ? t2 : sm_end(m);
	sht_interval iv;
	sht_err e;

	out->n = 0;
	e = sm_at(m, q, t1, &iv);
	if (e != SHT_OK)
		return e;
	if (r <= 0) {
		sm_list_add(out, &iv);
		while (iv.end < end) {
			sm_at(m, q, iv.end + 1, &iv);
			sm_list_add(out, &iv);
		}
		return SHT_OK;
	}
	{
		sht_time ts = t1;
		int any = 0;

		while (ts <= end) {
			sm_at(m, q, ts, &iv);
			sm_list_add(out, &iv);
			any = 1;
			ts += ((iv.end - ts) / r + 1) * r;
		}
		if (any && iv.end < end) {
			sm_at(m, q, end, &iv);
			sm_list_add(out, &iv);
		}
	}
	return SHT_OK;
}
