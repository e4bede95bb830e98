/*
 * rules-quark.c: the quark of a rules path on one event: its constant
 * prefix (once per history), then each element through the program's
 * memos (docs/RULES.md, "How it runs"): the per-event memo of path
 * prefixes, the program-wide memo from (parent, name, integer, constant
 * or queried attributes and their versions) to quark, and the marks of
 * the attributes whose values name paths.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* Remember that a path's element read the value of q. */
void sht__rl_mark_dep(sht_rules *r, sht_quark q)
{
	if (q >= r->ndep) {
		size_t n = r->ndep ? r->ndep : 256;
		uint32_t *d;

		while (n <= q)
			n *= 2;
		d = realloc(r->dep, n * sizeof *d);
		if (!d) {
			r->cache_on = 0;      /* cannot track: no memos */
			return;
		}
		memset(d + r->ndep, 0, (n - r->ndep) * sizeof *d);
		r->dep = d;
		r->ndep = n;
	}
	if (!r->dep[q])
		r->dep[q] = 1;
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
		err = sht__rl_query(r, ss, ev, e->sub, 1, &v);
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
	return sht__rl_value_name(&v, buf, name);
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
	sht_err err;

	if (e->is_cpu && ev->cpu >= 0) {
		*v = sht_value_int32(ev->cpu);
		return SHT_OK;
	}
	err = e->kind == RL_E_FIELD ? sht__rl_field(ev, e->text, v)
				    : sht__rl_query(r, ss, ev, e->sub, 1, v);
	if (err == SHT_OK && v->type == SHT_TYPE_NULL)
		return SHT_NOT_FOUND;
	return err;
}

static struct rl_memo *memo_at(sht_rules *r, sht_quark parent, uint64_t key)
{
	uint64_t h = ((uint64_t)parent * 0x9E3779B97F4A7C15u) ^ (key * 0xC2B2AE3D27D4EB4Fu);

	return &r->memo[(h >> 40) & (RL_MEMO - 1)];
}

/* The memo entry for (parent, kind RL_M_INT or RL_M_CONST, key) if it
 * holds it, else NULL and *slot the entry to fill. */
static struct rl_memo *memo_key(sht_rules *r, sht_quark parent, uint32_t kind,
				int64_t key, struct rl_memo **slot)
{
	struct rl_memo *m = memo_at(r, parent, (uint64_t)key ^ (uint64_t)kind << 56);

	*slot = m;
	if (m->gen == r->gen && m->parent == parent && m->key == key && m->kind == kind)
		return m;
	m->gen = 0;
	m->parent = parent;
	m->key = key;
	m->kind = kind;
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
	if (m->gen == r->gen && m->parent == parent && m->kind == RL_M_NAME &&
	    memcmp(m->name, name, len + 1) == 0)
		return m;
	m->gen = 0;
	m->parent = parent;
	m->kind = RL_M_NAME;
	memcpy(m->name, name, len + 1);
	return NULL;
}

/* The attributes a depkeyed element e reads, with their versions, into
 * deps (quark, version pairs); SHT_NOT_FOUND if one does not exist. */
static sht_err elem_deps(sht_rules *r, sht_state *ss, const sht_event *ev,
			 struct rl_elem *e, uint32_t deps[2 * RL_MEMO_DEPS])
{
	size_t n = 0;

	memset(deps, 0, 2 * RL_MEMO_DEPS * sizeof *deps);
	for (size_t i = 0; i < (e->kind == RL_E_QUERY ? 1 : e->sub->n); i++) {
		struct rl_elem *part = e->kind == RL_E_QUERY ? e : &e->sub->elems[i];
		sht_quark q;
		sht_err err;

		if (part->kind != RL_E_QUERY)
			continue;
		err = sht__rl_quark(r, ss, ev, part->sub, 0, &q);
		if (err != SHT_OK)
			return err;
		sht__rl_mark_dep(r, q);
		if (!r->cache_on)
			return SHT_NOT_FOUND;
		deps[n++] = q;
		deps[n++] = r->dep[q];
	}
	return SHT_OK;
}

/* The memo entry for e's RL_M_DEP key under parent: deps (quark,
 * version pairs) in the current version epoch. */
static struct rl_memo *memo_dep(sht_rules *r, sht_quark parent, const struct rl_elem *e,
				const uint32_t deps[2 * RL_MEMO_DEPS])
{
	uint64_t h = RL_M_DEP | (uint64_t)e->dkey << 2;

	for (size_t i = 0; i < 2 * RL_MEMO_DEPS; i++)
		h = (h ^ deps[i]) * 0x100000001B3u;
	return memo_at(r, parent, h);
}

static int dep_hit(const sht_rules *r, const struct rl_memo *m, sht_quark parent,
		   const struct rl_elem *e, const uint32_t deps[2 * RL_MEMO_DEPS])
{
	return m->gen == r->gen && m->parent == parent &&
	       m->kind == (RL_M_DEP | e->dkey << 2) && m->key == r->vepoch &&
	       memcmp(m->name, deps, sizeof m->name) == 0;
}

static void dep_store(const sht_rules *r, struct rl_memo *m, sht_quark parent,
		      const struct rl_elem *e, const uint32_t deps[2 * RL_MEMO_DEPS],
		      sht_quark q)
{
	m->gen = r->gen;
	m->parent = parent;
	m->q = q;
	m->kind = RL_M_DEP | e->dkey << 2;
	m->key = r->vepoch;
	memcpy(m->name, deps, sizeof m->name);
}

/* The name of element e on ev, or its integer key (*kind RL_M_INT: an
 * integer value, *name NULL; RL_M_CONST: a constant's number). */
static sht_err elem_key(sht_rules *r, sht_state *ss, const sht_event *ev,
			struct rl_elem *e, char *buf, const char **name,
			int64_t *key, uint32_t *kind)
{
	sht_value v;
	sht_err err;

	*kind = RL_M_NAME;
	if (e->kind == RL_E_CONST) {
		*name = e->text;
		*key = e->cid;
		*kind = RL_M_CONST;
		return SHT_OK;
	}
	if (e->kind != RL_E_FIELD && e->kind != RL_E_QUERY)
		return elem_name(r, ss, ev, e, buf, name);
	err = elem_value(r, ss, ev, e, &v);
	if (err != SHT_OK)
		return err;
	if (v.type == SHT_TYPE_INT32 || v.type == SHT_TYPE_INT64) {
		*key = v.type == SHT_TYPE_INT32 ? v.u.i32 : v.u.i64;
		*kind = RL_M_INT;
		*name = NULL;             /* formatted on a memo miss */
		return SHT_OK;
	}
	return sht__rl_value_name(&v, buf, name);
}

/* The child of *q for element e by its name, through the program's
 * memo. */
static sht_err child_named(sht_rules *r, sht_state *ss, const sht_event *ev,
			   struct rl_elem *e, int create, sht_quark *q)
{
	char buf[RL_NAME_MAX];
	const char *name;
	struct rl_memo *hit = NULL, *slot = NULL;
	int64_t key = 0;
	uint32_t kind;
	sht_err err = elem_key(r, ss, ev, e, buf, &name, &key, &kind);

	if (err != SHT_OK)
		return err;
	if (r->cache_on && r->memo) {
		if (kind != RL_M_NAME) {
			hit = memo_key(r, *q, kind, key, &slot);
		} else {
			size_t len;
			uint64_t h = sht__rl_hash(name, &len);

			hit = memo_str(r, *q, name, len, h, &slot);
		}
	}
	if (hit) {
		*q = hit->q;
		return SHT_OK;
	}
	if (!name) {
		sht__rl_fmt_i64(buf, key);
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

/* The child of *q for element e: for a depkeyed element, first through
 * the memo keyed by the attributes it reads and their versions. */
static sht_err child(sht_rules *r, sht_state *ss, const sht_event *ev,
		     struct rl_elem *e, int create, sht_quark *q)
{
	uint32_t deps[2 * RL_MEMO_DEPS];
	struct rl_memo *m;
	sht_quark parent = *q;
	sht_err err;

	if (!e->dkey || !r->cache_on || !r->memo)
		return child_named(r, ss, ev, e, create, q);
	err = elem_deps(r, ss, ev, e, deps);
	if (err < 0)
		return err;
	if (err != SHT_OK)
		return child_named(r, ss, ev, e, create, q);
	m = memo_dep(r, parent, e, deps);
	if (dep_hit(r, m, parent, e, deps)) {
		*q = m->q;
		return SHT_OK;
	}
	err = child_named(r, ss, ev, e, create, q);
	if (err == SHT_OK && r->cache_on)
		dep_store(r, m, parent, e, deps, *q);
	return err;
}

/* The per-event memo of p's longest prefix resolved in this event and
 * still valid, with its length, or 0 (none). */
static size_t memo_prefix(const sht_rules *r, const struct rl_path *p, sht_quark *q)
{
	for (size_t i = p->n; i > p->nconst; i--) {
		const struct rl_ev_memo *m = &r->ev_memo[p->psig[i - 1 - p->nconst]];

		if (m->serial == r->serial && (i <= p->ndyn || m->wser == r->wser)) {
			*q = m->q;
			return i;
		}
	}
	return 0;
}

sht_err sht__rl_quark(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_path *p, int create, sht_quark *out)
{
	struct rl_ev_memo *em = r->cache_on ? r->ev_memo : NULL;
	sht_quark q = SHT_QUARK_ROOT;
	size_t i = em ? memo_prefix(r, p, &q) : 0;
	sht_err err = SHT_OK;

	if (i == 0) {
		err = prefix_quark(r, ss, p, create, &q);
		i = p->nconst;
	}
	for (; err == SHT_OK && i < p->n; i++) {
		err = child(r, ss, ev, &p->elems[i], create, &q);
		if (err == SHT_OK && em) {
			struct rl_ev_memo *m = &em[p->psig[i - p->nconst]];

			m->serial = r->serial;
			m->wser = r->wser;
			m->q = q;
		}
	}
	if (err == SHT_OK)
		*out = q;
	return err;
}
