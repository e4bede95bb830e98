/*
 * rules-xml-change.c: compiling Trace Compass XML state changes:
 * <stateChange> (assignment or if/then/else), <stateAttribute> (paths,
 * locations expanded here), <stateValue>, and the conditions <if>,
 * <condition>, <field>, <not>, <and>, <or>.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-xml-int.h"

/* ---- paths ------------------------------------------------------------------ */

static sht_err path_add(struct rl_path *p, enum rl_elem_kind kind,
			const char *text, struct rl_path *sub)
{
	struct rl_elem *e = realloc(p->elems, (p->n + 1) * sizeof *e);

	if (!e) {
		free(sub);
		return sht__error(SHT_ERR_NOMEM, "Cannot grow an attribute path");
	}
	p->elems = e;
	e = &p->elems[p->n++];
	e->kind = kind;
	e->sub = sub;
	e->text = text ? strdup(text) : NULL;
	if (text && !e->text)
		return sht__error(SHT_ERR_NOMEM, "Cannot copy an attribute name");
	return SHT_OK;
}

static sht_err attribute(struct xc *x, xmlNode *n, struct rl_path *p);

/* The stateAttribute elements from *cur on, appended to p; *cur moves to
 * the first element that is not one. */
static sht_err attributes(struct xc *x, xmlNode **cur, struct rl_path *p)
{
	xmlNode *c = sht__xc_elem(*cur);
	sht_err err = SHT_OK;

	while (err == SHT_OK && sht__xc_is(c, "stateAttribute")) {
		err = attribute(x, c, p);
		c = sht__xc_elem(c->next);
	}
	*cur = c;
	return err;
}

/* A sub-path from the stateAttribute children of n (query, concat). */
static sht_err sub_path(struct xc *x, xmlNode *n, struct rl_path **out)
{
	xmlNode *c = n->children;
	struct rl_path *p = calloc(1, sizeof *p);
	sht_err err;

	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a path");
	err = attributes(x, &c, p);
	if (err == SHT_OK && c)
		err = sht__xc_error(x, c, "unexpected element in <%s>", (const char *)n->name);
	if (err == SHT_OK && p->n == 0)
		err = sht__xc_error(x, n, "needs <stateAttribute> children");
	if (err == SHT_OK && p->n > RL_PATH_MAX)
		err = sht__xc_error(x, n, "path longer than %d elements", RL_PATH_MAX);
	if (err != SHT_OK) {
		sht__rl_path_free(p);
		free(p);
		return err;
	}
	err = sht__rl_path_seal(x->r, p);
	if (err != SHT_OK) {
		sht__rl_path_free(p);
		free(p);
		return err;
	}
	*out = p;
	return SHT_OK;
}

static sht_err location_ref(struct xc *x, xmlNode *n, const char *id,
			    struct rl_path *p)
{
	xmlNode *loc = sht__xc_location(x, id), *c;
	sht_err err;

	if (!loc)
		return sht__xc_error(x, n, "no <location> with id '%s' (defined before)", id);
	if (x->loc_depth >= XC_LOCATION_DEPTH)
		return sht__xc_error(x, n, "locations nested deeper than %d (a cycle?)", XC_LOCATION_DEPTH);
	x->loc_depth++;
	c = loc->children;
	err = attributes(x, &c, p);
	x->loc_depth--;
	return err;
}

static sht_err attribute(struct xc *x, xmlNode *n, struct rl_path *p)
{
	static const char *const ok[] = { "type", "value", NULL };
	const char *type = sht__xc_prop(n, "type"), *v = sht__xc_prop(n, "value");
	struct rl_path *sub;
	int nested = strcmp(type ? type : "", "query") == 0 ||
		     strcmp(type ? type : "", "concat") == 0;
	sht_err err = sht__xc_check(x, n, ok);

	if (err != SHT_OK)
		return err;
	if (!type)
		return sht__xc_error(x, n, "needs the attribute 'type'");
	if (!nested && sht__xc_elem(n->children))
		return sht__xc_error(x, sht__xc_elem(n->children), "unexpected element in a stateAttribute of type '%s'", type);
	if (strcmp(type, "null") == 0)
		return SHT_OK;
	if (strcmp(type, "eventName") == 0)
		return path_add(p, RL_E_EVNAME, NULL, NULL);
	if (nested) {
		err = sub_path(x, n, &sub);
		return err ? err : path_add(p, type[0] == 'q' ? RL_E_QUERY : RL_E_CONCAT, NULL, sub);
	}
	if (strcmp(type, "constant") != 0 && strcmp(type, "eventField") != 0 &&
	    strcmp(type, "location") != 0)
		return sht__xc_error(x, n, "unsupported type '%s'", type);
	if (!v)
		return sht__xc_error(x, n, "type '%s' needs the attribute 'value'", type);
	if (type[0] == 'l')
		return location_ref(x, n, v, p);
	if (type[1] == 'v')
		return path_add(p, RL_E_FIELD, v, NULL);
	err = sht__xc_value(x, n, v, &v);
	return err ? err : path_add(p, RL_E_CONST, v, NULL);
}

/* ---- values ---------------------------------------------------------------- */

static int parse_bool(const char *s, int *out)
{
	if (!s)
		*out = 0;
	else if (strcmp(s, "true") == 0)
		*out = 1;
	else if (strcmp(s, "false") == 0)
		*out = 0;
	else
		return -1;
	return 0;
}

static sht_err parse_int(struct xc *x, xmlNode *n, const char *s, int64_t lo,
			 int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = s ? strtoll(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || v < lo || v > hi)
		return sht__xc_error(x, n, "value '%s' is not an integer of this type", s ? s : "");
	*out = v;
	return SHT_OK;
}

static sht_err constant(struct xc *x, xmlNode *n, const char *type,
			struct rl_value *v)
{
	const char *s = sht__xc_prop(n, "value");
	const char *given = s;
	int64_t i = 0;
	char *copy;
	sht_err err = sht__xc_value(x, n, s, &s);

	if (err != SHT_OK)
		return err;
	if (given && given[0] == '$' && strcmp(type, "string") != 0 &&
	    !(v->defname = strdup(given + 1)))
		return sht__error(SHT_ERR_NOMEM, "Cannot copy a definedValue name");
	if (strcmp(type, "string") == 0) {
		if (!s)
			return sht__xc_error(x, n, "type 'string' needs the attribute 'value'");
		if (!(copy = strdup(s)))
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a string value");
		v->kind = RL_V_STRING;
		v->constant = sht_value_string(copy, (uint32_t)strlen(copy));
		return SHT_OK;
	}
	if (type[0] == 'i') {
		err = parse_int(x, n, s, INT32_MIN, INT32_MAX, &i);
		v->kind = RL_V_INT;
		v->constant = sht_value_int32((int32_t)i);
	} else {
		err = parse_int(x, n, s, INT64_MIN, INT64_MAX, &i);
		v->kind = RL_V_LONG;
		v->constant = sht_value_int64(i);
	}
	return err;
}

static sht_err value_kind(struct xc *x, xmlNode *n, const char *type,
			  struct rl_value *v)
{
	const char *s = sht__xc_prop(n, "value");

	if (strcmp(type, "int") == 0 || strcmp(type, "long") == 0 ||
	    strcmp(type, "string") == 0)
		return constant(x, n, type, v);
	if (strcmp(type, "null") == 0 || strcmp(type, "delete") == 0) {
		v->kind = type[0] == 'n' ? RL_V_NULL : RL_V_DELETE;
		return SHT_OK;
	}
	if (strcmp(type, "eventName") == 0) {
		v->kind = RL_V_EVNAME;
		s = sht__xc_prop(n, "strip");
		if (s && !(v->strip = strdup(s)))
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a prefix");
		return SHT_OK;
	}
	if (strcmp(type, "eventField") == 0) {
		if (!s || !*s)
			return sht__xc_error(x, n, "type 'eventField' needs the attribute 'value'");
		v->kind = RL_V_FIELD;
		if (!(v->field = strdup(s)))
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a field name");
		return SHT_OK;
	}
	if (strcmp(type, "query") == 0) {
		v->kind = RL_V_QUERY;
		return sub_path(x, n, &v->query);
	}
	return sht__xc_error(x, n, "unsupported type '%s'", type);
}

/* mask="N" (extension): integer values ANDed with N, N > 0. */
static sht_err value_mask(struct xc *x, xmlNode *n, struct rl_value *v)
{
	const char *m = sht__xc_prop(n, "mask");

	if (!m)
		return SHT_OK;
	if (v->kind != RL_V_FIELD && v->kind != RL_V_QUERY)
		return sht__xc_error(x, n, "'mask' needs type 'eventField' or 'query'");
	return parse_int(x, n, m, 1, INT64_MAX, &v->mask);
}

static sht_err value_options(struct xc *x, xmlNode *n, struct rl_value *v)
{
	static const char *const stacks[] = { "", "push", "pop", "popAll", "peek" };
	static const char *const forced[] = { "", "int", "long", "string", "double" };
	const char *st = sht__xc_prop(n, "stack"), *ft = sht__xc_prop(n, "forcedType");

	if (parse_bool(sht__xc_prop(n, "increment"), &v->increment) ||
	    parse_bool(sht__xc_prop(n, "update"), &v->update))
		return sht__xc_error(x, n, "'increment' and 'update' take 'true' or 'false'");
	for (int i = 1; st && i < 5 && !v->stack; i++)
		v->stack = strcmp(st, stacks[i]) == 0 ? (enum rl_stack)i : RL_S_NONE;
	if (st && !v->stack)
		return sht__xc_error(x, n, "unsupported stack '%s'", st);
	for (int i = 1; ft && i < 5 && !v->forced; i++)
		v->forced = strcmp(ft, forced[i]) == 0 ? (enum rl_forced)i : RL_F_NONE;
	if (ft && !v->forced)
		return sht__xc_error(x, n, "unsupported forcedType '%s'", ft);
	if (v->stack == RL_S_PEEK && v->kind != RL_V_QUERY)
		return sht__xc_error(x, n, "stack 'peek' needs type 'query'");
	if (sht__xc_prop(n, "strip") && v->kind != RL_V_EVNAME)
		return sht__xc_error(x, n, "'strip' needs type 'eventName'");
	return value_mask(x, n, v);
}

/* A stateValue; in_change: the value of an assignment (push, pop,
 * increment, update and delete are allowed there only). */
static sht_err value(struct xc *x, xmlNode *n, int in_change, struct rl_value *v)
{
	static const char *const ok[] = { "type", "value", "forcedType", "increment",
					  "update", "stack", "id", "strip", "mask", NULL };
	const char *type = sht__xc_prop(n, "type");
	sht_err err = sht__xc_check(x, n, ok);

	if (err != SHT_OK)
		return err;
	if (!type)
		return sht__xc_error(x, n, "needs the attribute 'type'");
	if (strcmp(type, "query") != 0 && sht__xc_elem(n->children))
		return sht__xc_error(x, sht__xc_elem(n->children), "unexpected element in a stateValue of type '%s'", type);
	err = value_kind(x, n, type, v);
	if (err == SHT_OK)
		err = value_options(x, n, v);
	if (err == SHT_OK && !in_change &&
	    (v->kind == RL_V_DELETE || v->increment || v->update ||
	     (v->stack && v->stack != RL_S_PEEK)))
		err = sht__xc_error(x, n, "delete, increment, update, push and pop are for state changes, not conditions");
	return err;
}

/* ---- conditions -------------------------------------------------------------- */

static sht_err cond(struct xc *x, xmlNode *n, struct rl_cond *c);

static sht_err comparison(struct xc *x, xmlNode *n, struct rl_cond *c)
{
	static const char *const ok[] = { "operator", NULL };
	static const char *const ops[] = { "eq", "ne", "ge", "gt", "le", "lt" };
	static const char *const fok[] = { "name", NULL };
	const char *op = sht__xc_prop(n, "operator");
	xmlNode *k = sht__xc_elem(n->children);
	sht_err err = sht__xc_check(x, n, ok);
	size_t i = 0;

	c->kind = RL_C_CMP;
	while (op && i < 6 && strcmp(op, ops[i]) != 0)
		i++;
	if (err == SHT_OK && i == 6)
		err = sht__xc_error(x, n, "unsupported operator '%s'", op);
	c->op = (enum rl_op)(op ? i : 0);
	if (err != SHT_OK)
		return err;
	if (sht__xc_is(k, "stateAttribute")) {
		if (!(c->path = calloc(1, sizeof *c->path)))
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate a path");
		err = attributes(x, &k, c->path);
		if (err == SHT_OK)
			err = sht__rl_path_seal(x->r, c->path);
		if (err == SHT_OK && c->path->n > RL_PATH_MAX)
			err = sht__xc_error(x, n, "path longer than %d elements", RL_PATH_MAX);
	} else if (sht__xc_is(k, "field")) {
		const char *f = sht__xc_prop(k, "name");

		err = sht__xc_check(x, k, fok);
		if (err == SHT_OK && (!f || !*f))
			err = sht__xc_error(x, k, "needs the attribute 'name'");
		if (err == SHT_OK && !(c->field = strdup(f)))
			err = sht__error(SHT_ERR_NOMEM, "Cannot copy a field name");
		k = sht__xc_elem(k->next);
	} else if (sht__xc_is(k, "stateValue")) {
		if (!(c->lvalue = calloc(1, sizeof *c->lvalue)))
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate a value");
		err = value(x, k, 0, c->lvalue);
		k = sht__xc_elem(k->next);
	} else {
		return sht__xc_error(x, k ? k : n, k ? "unexpected element in <condition>" :
				     "needs a <stateAttribute>, <field> or <stateValue>");
	}
	if (err != SHT_OK)
		return err;
	if (!sht__xc_is(k, "stateValue"))
		return sht__xc_error(x, k ? k : n, "expected a <stateValue> to compare with");
	err = value(x, k, 0, &c->rvalue);
	if (err == SHT_OK && sht__xc_elem(k->next))
		err = sht__xc_error(x, sht__xc_elem(k->next), "unexpected element in <condition>");
	return err;
}

/* not, and, or: their children conditions. */
static sht_err compound(struct xc *x, xmlNode *n, struct rl_cond *c)
{
	size_t count = 0;
	sht_err err = SHT_OK;

	c->kind = sht__xc_is(n, "not") ? RL_C_NOT : sht__xc_is(n, "and") ? RL_C_AND : RL_C_OR;
	for (xmlNode *k = sht__xc_elem(n->children); k; k = sht__xc_elem(k->next))
		count++;
	if (count == 0 || (c->kind == RL_C_NOT && count != 1))
		return sht__xc_error(x, n, c->kind == RL_C_NOT ? "needs exactly one condition" :
				     "needs at least one condition");
	if (!(c->kids = calloc(count, sizeof *c->kids)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate conditions");
	for (xmlNode *k = sht__xc_elem(n->children); err == SHT_OK && k;
	     k = sht__xc_elem(k->next))
		err = cond(x, k, &c->kids[c->nkids++]);
	return err;
}

static sht_err cond(struct xc *x, xmlNode *n, struct rl_cond *c)
{
	static const char *const none[] = { NULL };
	sht_err err;

	if (sht__xc_is(n, "condition"))
		return comparison(x, n, c);
	if (!sht__xc_is(n, "not") && !sht__xc_is(n, "and") && !sht__xc_is(n, "or"))
		return sht__xc_error(x, n, "unsupported element in a condition");
	err = sht__xc_check(x, n, none);
	return err ? err : compound(x, n, c);
}

/* <if>: exactly one condition, not, and or or. */
static sht_err if_elem(struct xc *x, xmlNode *n, struct rl_cond **out)
{
	static const char *const none[] = { NULL };
	xmlNode *k = sht__xc_elem(n->children);
	sht_err err = sht__xc_check(x, n, none);

	if (err != SHT_OK)
		return err;
	if (!k || sht__xc_elem(k->next))
		return sht__xc_error(x, n, "needs exactly one <condition>, <not>, <and> or <or>");
	if (!(*out = calloc(1, sizeof **out)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a condition");
	return cond(x, k, *out);
}

/* ---- state changes ---------------------------------------------------------------- */

static sht_err branch(struct xc *x, xmlNode *n, struct rl_change **out)
{
	if (!(*out = calloc(1, sizeof **out)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a state change");
	return sht__xc_change(x, n, *out);
}

static sht_err conditional(struct xc *x, xmlNode *k, struct rl_change *out)
{
	xmlNode *ifn = k;
	sht_err err = if_elem(x, k, &out->cond);

	k = sht__xc_elem(k->next);
	if (err == SHT_OK && !sht__xc_is(k, "then"))
		return sht__xc_error(x, k ? k : ifn, "expected <then> after <if>");
	if (err == SHT_OK)
		err = branch(x, k, &out->then);
	k = err == SHT_OK ? sht__xc_elem(k->next) : NULL;
	if (err == SHT_OK && sht__xc_is(k, "else")) {
		err = branch(x, k, &out->els);
		k = sht__xc_elem(k->next);
	}
	if (err == SHT_OK && k)
		err = sht__xc_error(x, k, "unexpected element after <then>/<else>");
	return err;
}

sht_err sht__xc_change(struct xc *x, xmlNode *n, struct rl_change *out)
{
	static const char *const none[] = { NULL };
	xmlNode *k = sht__xc_elem(n->children);
	sht_err err = sht__xc_check(x, n, none);

	out->line = (int)xmlGetLineNo(n);
	if (err != SHT_OK)
		return err;
	if (sht__xc_is(k, "if"))
		return conditional(x, k, out);
	if (!sht__xc_is(k, "stateAttribute"))
		return sht__xc_error(x, k ? k : n, k ? "unsupported element in a state change" :
				     "needs <stateAttribute> elements and a <stateValue>, or <if>");
	err = attributes(x, &k, &out->path);
	if (err == SHT_OK && (out->path.n == 0 || out->path.n > RL_PATH_MAX))
		err = sht__xc_error(x, n, "the attribute path must have 1 to %d elements", RL_PATH_MAX);
	if (err == SHT_OK)
		err = sht__rl_path_seal(x->r, &out->path);
	if (err == SHT_OK && !sht__xc_is(k, "stateValue"))
		err = sht__xc_error(x, k ? k : n, k ? "unsupported element in a state change" :
				    "needs a <stateValue>");
	if (err == SHT_OK)
		err = value(x, k, 1, &out->value);
	if (err == SHT_OK && (k = sht__xc_elem(k->next)))
		err = sht__xc_error(x, k, "unsupported element in a state change");
	return err;
}
