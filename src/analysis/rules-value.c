/*
 * rules-value.c: values of a rules program on one event: event fields
 * (typed as Trace Compass reads them), constants, the event name, queried
 * attributes, stack peeks, forcedType conversions; and attribute paths.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

sht_err sht__rl_field(const sht_event *ev, const char *name, sht_value *out)
{
	sht_field f;

	/* Trace Compass's "cpu" field is the event's CPU aspect. */
	if (ev->cpu >= 0 && name[0] == 'c' && strcmp(name, "cpu") == 0) {
		*out = sht_value_int32(ev->cpu);
		return SHT_OK;
	}
	switch (sht_event_field(ev, name, &f)) {
	case SHT_FIELD_INT:
		*out = sht_value_int64(f.v.i);
		return SHT_OK;
	case SHT_FIELD_UINT:
		*out = sht_value_int64((int64_t)f.v.u);
		return SHT_OK;
	case SHT_FIELD_DOUBLE:
		*out = sht_value_double(f.v.d);
		return SHT_OK;
	case SHT_FIELD_STRING:
		*out = sht_value_string(f.v.s, (uint32_t)strlen(f.v.s));
		return SHT_OK;
	default:
		*out = sht_value_null();
		return SHT_NOT_FOUND;
	}
}

/* Decimal text of x into buf (at least 21 bytes). */
static void fmt_i64(char *buf, int64_t x)
{
	char tmp[24];
	uint64_t u = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		*buf++ = '-';
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
}

/* A value as an attribute name, into buf (RL_NAME_MAX bytes); *name may
 * point to the value's own text.  SHT_NOT_FOUND for null. */
static sht_err value_name(const sht_value *v, char *buf, const char **name)
{
	switch (v->type) {
	case SHT_TYPE_INT32:
		fmt_i64(buf, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		fmt_i64(buf, v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		snprintf(buf, RL_NAME_MAX, "%.17g", v->u.d);
		break;
	case SHT_TYPE_STRING:
		*name = v->u.str;
		return SHT_OK;
	default:
		return SHT_NOT_FOUND;
	}
	*name = buf;
	return SHT_OK;
}

/* The ongoing value of the attribute at p (null if p does not exist). */
static sht_err query_value(sht_rules *r, sht_state *ss, const sht_event *ev,
			   struct rl_path *p, sht_value *out)
{
	sht_quark q;
	sht_err err = sht__rl_quark(r, ss, ev, p, 0, &q);

	*out = sht_value_null();
	if (err != SHT_OK)
		return err < 0 ? err : SHT_OK;
	return sht_state_ongoing(ss, q, out, NULL);
}

/* The name of one path element on ev, into buf. */
static sht_err elem_name(sht_rules *r, sht_state *ss, const sht_event *ev,
			 const struct rl_elem *e, char *buf, const char **name)
{
	sht_value v;
	sht_err err;

	switch (e->kind) {
	case RL_E_CONST:
		*name = e->text;
		return SHT_OK;
	case RL_E_EVNAME:
		*name = ev->name;
		return SHT_OK;
	case RL_E_FIELD:
		err = sht__rl_field(ev, e->text, &v);
		break;
	case RL_E_QUERY:
		err = query_value(r, ss, ev, e->sub, &v);
		break;
	default: {                              /* RL_E_CONCAT */
		char part[RL_NAME_MAX];
		size_t len = 0;

		for (size_t i = 0; i < e->sub->n; i++) {
			const char *s;
			size_t n;

			err = elem_name(r, ss, ev, &e->sub->elems[i], part, &s);
			if (err != SHT_OK)
				return err;
			n = strlen(s);
			if (len + n >= RL_NAME_MAX)
				return sht__error(SHT_ERR_TOOBIG, "Cannot build an attribute name of more than %d bytes", RL_NAME_MAX - 1);
			memcpy(buf + len, s, n);
			len += n;
		}
		buf[len] = '\0';
		*name = buf;
		return SHT_OK;
	}
	}
	if (err != SHT_OK)
		return err;
	return value_name(&v, buf, name);
}

/* Quark of p's constant prefix, cached for the program's generation. */
static sht_err prefix_quark(sht_rules *r, sht_state *ss, struct rl_path *p,
			    int create, sht_quark *out)
{
	const char *names[RL_PATH_MAX];
	sht_err err;

	if (p->nconst == 0) {
		*out = SHT_QUARK_ROOT;
		return SHT_OK;
	}
	if (r->cache_on && p->prefix_gen == r->gen) {
		*out = p->prefix_q;
		return SHT_OK;
	}
	for (size_t i = 0; i < p->nconst; i++)
		names[i] = p->elems[i].text;
	err = create ? sht_state_quark(ss, SHT_QUARK_ROOT, names, p->nconst, out)
		     : sht_state_quark_find(ss, SHT_QUARK_ROOT, names, p->nconst, out);
	if (err == SHT_OK && r->cache_on) {
		p->prefix_q = *out;
		p->prefix_gen = r->gen;
	}
	return err;
}

/* The value of a FIELD or QUERY element on ev (SHT_NOT_FOUND if none). */
static sht_err elem_value(sht_rules *r, sht_state *ss, const sht_event *ev,
			  const struct rl_elem *e, sht_value *v)
{
	sht_err err = e->kind == RL_E_FIELD ? sht__rl_field(ev, e->text, v)
					    : query_value(r, ss, ev, e->sub, v);

	if (err == SHT_OK && v->type == SHT_TYPE_NULL)
		return SHT_NOT_FOUND;
	return err;
}

static struct rl_memo *memo_at(sht_rules *r, sht_quark parent, uint64_t key)
{
	uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15u) ^ (key * 0xC2B2AE3D27D4EB4Fu);

	return &r->memo[(h >> 40) & (RL_MEMO - 1)];
}

/* The memo entry for (parent, integer key) if it holds it, else NULL and
 * *slot the entry to fill. */
static struct rl_memo *memo_int(sht_rules *r, sht_quark parent, int64_t key,
				struct rl_memo **slot)
{
	struct rl_memo *m = memo_at(r, parent, (uint64_t)key);

	*slot = m;
	if (m->gen == r->gen && m->parent == parent && m->key == key && m->is_int)
		return m;
	m->gen = 0;
	m->parent = parent;
	m->key = key;
	m->is_int = 1;
	return NULL;
}

/* The same for a name of len bytes hashing to h (NULL and *slot NULL if
 * it is too long to remember). */
static struct rl_memo *memo_str(sht_rules *r, sht_quark parent, const char *name,
				size_t len, uint64_t h, struct rl_memo **slot)
{
	struct rl_memo *m;

	*slot = NULL;
	if (len >= RL_MEMO_NAME)
		return NULL;
	m = memo_at(r, parent, h);
	*slot = m;
	if (m->gen == r->gen && m->parent == parent && !m->is_int &&
	    memcmp(m->name, name, len + 1) == 0)
		return m;
	m->gen = 0;
	m->parent = parent;
	m->is_int = 0;
	memcpy(m->name, name, len + 1);
	return NULL;
}

/* The name of element e on ev, or its integer key (*is_int). */
static sht_err elem_key(sht_rules *r, sht_state *ss, const sht_event *ev,
			struct rl_elem *e, char *buf, const char **name,
			int64_t *key, int *is_int)
{
	sht_value v;
	sht_err err;

	*is_int = 0;
	if (e->kind == RL_E_CONST) {
		*name = e->text;
		*key = 0;
		*is_int = 1;
		return SHT_OK;
	}
	if (e->kind != RL_E_FIELD && e->kind != RL_E_QUERY)
		return elem_name(r, ss, ev, e, buf, name);
	err = elem_value(r, ss, ev, e, &v);
	if (err != SHT_OK)
		return err;
	if (v.type == SHT_TYPE_INT32 || v.type == SHT_TYPE_INT64) {
		*key = v.type == SHT_TYPE_INT32 ? v.u.i32 : v.u.i64;
		*is_int = 1;
		*name = NULL;             /* formatted on a memo miss */
		return SHT_OK;
	}
	return value_name(&v, buf, name);
}

/* The child of *q for element e, through the program's memo. */
static sht_err child(sht_rules *r, sht_state *ss, const sht_event *ev,
		     struct rl_elem *e, int create, sht_quark *q)
{
	char buf[RL_NAME_MAX];
	const char *name;
	struct rl_memo *hit = NULL, *slot = NULL;
	int64_t key = 0;
	int is_int = 0;
	sht_err err = elem_key(r, ss, ev, e, buf, &name, &key, &is_int);

	if (err != SHT_OK)
		return err;
	if (r->cache_on && r->memo) {
		if (is_int && !name) {
			hit = memo_int(r, *q, key, &slot);
		} else {
			size_t len = e->len;
			uint64_t h = e->kind == RL_E_CONST ? e->hash : sht__rl_hash(name, &len);

			hit = memo_str(r, *q, name, len, h, &slot);
		}
	}
	if (hit) {
		*q = hit->q;
		return SHT_OK;
	}
	if (!name) {
		fmt_i64(buf, key);
		name = buf;
	}
	err = create ? sht_state_quark(ss, *q, &name, 1, q)
		     : sht_state_quark_find(ss, *q, &name, 1, q);
	if (err == SHT_OK && slot) {
		slot->q = *q;
		slot->gen = r->gen;
	}
	return err;
}

sht_err sht__rl_quark(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_path *p, int create, sht_quark *out)
{
	sht_quark q;
	sht_err err;

	struct rl_ev_memo *em = p->event_static && r->cache_on && r->ev_memo
				? &r->ev_memo[p->sig] : NULL;

	if (em && em->serial == r->serial) {
		*out = em->q;
		return SHT_OK;
	}
	err = prefix_quark(r, ss, p, create, &q);
	for (size_t i = p->nconst; err == SHT_OK && i < p->n; i++)
		err = child(r, ss, ev, &p->elems[i], create, &q);
	if (err != SHT_OK)
		return err;
	*out = q;
	if (em) {
		em->serial = r->serial;
		em->q = q;
	}
	return SHT_OK;
}

/* ---- values ---------------------------------------------------------------- */

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long x;

	if (!*s)
		return -1;
	x = strtoll(s, &end, 10);
	if (*end)
		return -1;
	*out = x;
	return 0;
}

/* forcedType: convert v (a failed conversion gives null). */
static void force(enum rl_forced f, sht_value *v, char *buf)
{
	int64_t x;
	const char *s;

	if (f == RL_F_NONE || v->type == SHT_TYPE_NULL)
		return;
	if (f == RL_F_STRING) {
		if (v->type != SHT_TYPE_STRING && value_name(v, buf, &s) == SHT_OK)
			*v = sht_value_string(s, (uint32_t)strlen(s));
		return;
	}
	if (v->type == SHT_TYPE_STRING) {
		if (parse_i64(v->u.str, &x) != 0) {
			*v = sht_value_null();
			return;
		}
	} else if (v->type == SHT_TYPE_DOUBLE) {
		x = (int64_t)v->u.d;
	} else {
		x = v->type == SHT_TYPE_INT32 ? v->u.i32 : v->u.i64;
	}
	if (f == RL_F_INT)
		*v = sht_value_int32((int32_t)x);
	else if (f == RL_F_LONG)
		*v = sht_value_int64(x);
	else if (v->type != SHT_TYPE_DOUBLE)
		*v = sht_value_double((double)x);
}

/* The element on top of the stack at p: child "<depth>" of p. */
static sht_err peek(sht_rules *r, sht_state *ss, const sht_event *ev,
		    struct rl_path *p, sht_value *out, char *buf)
{
	sht_quark q, top;
	sht_value depth;
	const char *name = buf;
	sht_err err = sht__rl_quark(r, ss, ev, p, 0, &q);

	*out = sht_value_null();
	if (err != SHT_OK)
		return err < 0 ? err : SHT_OK;
	err = sht_state_ongoing(ss, q, &depth, NULL);
	if (err < 0 || depth.type != SHT_TYPE_INT32 || depth.u.i32 <= 0)
		return err < 0 ? err : SHT_OK;
	fmt_i64(buf, depth.u.i32);
	if (sht_state_quark_find(ss, q, &name, 1, &top) != SHT_OK)
		return SHT_OK;
	return sht_state_ongoing(ss, top, out, NULL);
}

sht_err sht__rl_value(sht_rules *r, sht_state *ss, const sht_event *ev,
		      const struct rl_value *v, sht_value *out, char *buf)
{
	sht_err err = SHT_OK;
	const char *s;
	size_t n;

	switch (v->kind) {
	case RL_V_FIELD:
		err = sht__rl_field(ev, v->field, out);
		err = err == SHT_NOT_FOUND ? SHT_OK : err;
		break;
	case RL_V_EVNAME:
		s = ev->name ? ev->name : "";
		n = v->strip ? strlen(v->strip) : 0;
		if (n && strncmp(s, v->strip, n) == 0)
			s += n;
		*out = sht_value_string(s, (uint32_t)strlen(s));
		break;
	case RL_V_QUERY:
		err = v->stack == RL_S_PEEK ? peek(r, ss, ev, v->query, out, buf)
					    : query_value(r, ss, ev, v->query, out);
		break;
	case RL_V_NULL:
	case RL_V_DELETE:
		*out = sht_value_null();
		break;
	default:
		*out = v->constant;
		break;
	}
	if (err == SHT_OK && v->mask && out->type == SHT_TYPE_INT64)
		out->u.i64 &= v->mask;
	else if (err == SHT_OK && v->mask && out->type == SHT_TYPE_INT32)
		out->u.i32 &= (int32_t)v->mask;
	if (err == SHT_OK)
		force(v->forced, out, buf);
	return err;
}
