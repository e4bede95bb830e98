/*
 * rules-eval.c: running a handler's state changes on one event:
 * conditions (comparisons of fields, attributes and values; not, and, or)
 * and assignments (modify, delete, push, pop, popAll, increment, update).
 */
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* ---- conditions ------------------------------------------------------------ */

static int is_num(const sht_value *v)
{
	return v->type == SHT_TYPE_INT32 || v->type == SHT_TYPE_INT64 ||
	       v->type == SHT_TYPE_DOUBLE;
}

static int64_t as_i64(const sht_value *v)
{
	return v->type == SHT_TYPE_INT32 ? v->u.i32 : v->u.i64;
}

/* Order of a and b: <0, 0, >0, or 2 if they do not compare (types). */
static int order(const sht_value *a, const sht_value *b)
{
	if (a->type == SHT_TYPE_NULL || b->type == SHT_TYPE_NULL)
		return a->type == b->type ? 0 : 2;
	if (is_num(a) && is_num(b)) {
		if (a->type == SHT_TYPE_DOUBLE || b->type == SHT_TYPE_DOUBLE) {
			double x = a->type == SHT_TYPE_DOUBLE ? a->u.d : (double)as_i64(a);
			double y = b->type == SHT_TYPE_DOUBLE ? b->u.d : (double)as_i64(b);

			return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
		}
		return as_i64(a) < as_i64(b) ? -1 : as_i64(a) > as_i64(b);
	}
	if (a->type == SHT_TYPE_STRING && b->type == SHT_TYPE_STRING) {
		size_t n = a->len < b->len ? a->len : b->len;
		int c = memcmp(a->u.str, b->u.str, n);

		if (c == 0)
			c = a->len < b->len ? -1 : a->len > b->len;
		return c < 0 ? -1 : c > 0;
	}
	return 2;
}

static int test(enum rl_op op, int o)
{
	switch (op) {
	case RL_OP_EQ: return o == 0;
	case RL_OP_NE: return o != 0;
	case RL_OP_GE: return o == 0 || o == 1;
	case RL_OP_GT: return o == 1;
	case RL_OP_LE: return o == 0 || o == -1;
	default:       return o == -1;            /* RL_OP_LT */
	}
}

static int compare(sht_rules *r, sht_state *ss, const sht_event *ev,
		   const struct rl_cond *c)
{
	char lbuf[RL_NAME_MAX], rbuf[RL_NAME_MAX];
	sht_value a = sht_value_null(), b;
	sht_quark q;
	sht_err err = SHT_OK;

	if (c->path) {
		err = sht__rl_quark(r, ss, ev, c->path, 0, &q);
		if (err == SHT_OK)
			err = sht_state_ongoing(ss, q, &a, NULL);
		else if (err == SHT_NOT_FOUND)
			err = SHT_OK;
	} else if (c->field) {
		if (sht__rl_field(ev, c->field, &a) != SHT_OK)
			a = sht_value_null();
	} else {
		err = sht__rl_value(r, ss, ev, c->lvalue, &a, lbuf);
	}
	if (err == SHT_OK)
		err = sht__rl_value(r, ss, ev, &c->rvalue, &b, rbuf);
	if (err < 0)
		return err;
	return test(c->op, order(&a, &b));
}

int sht__rl_cond(sht_rules *r, sht_state *ss, const sht_event *ev,
		 const struct rl_cond *c)
{
	int t;

	switch (c->kind) {
	case RL_C_CMP:
		return compare(r, ss, ev, c);
	case RL_C_NOT:
		t = sht__rl_cond(r, ss, ev, &c->kids[0]);
		return t < 0 ? t : !t;
	default:
		for (size_t i = 0; i < c->nkids; i++) {
			t = sht__rl_cond(r, ss, ev, &c->kids[i]);
			if (t < 0)
				return t;
			if (c->kind == RL_C_AND ? !t : t)
				return t;
		}
		return c->kind == RL_C_AND;
	}
}

/* ---- assignments ------------------------------------------------------------ */

/* Trace Compass's increment: a null attribute takes the value itself. */
static sht_err increment(sht_state *ss, sht_time t, sht_quark q, const sht_value *v)
{
	sht_value cur;
	sht_err err;

	if (v->type != SHT_TYPE_INT32 && v->type != SHT_TYPE_INT64)
		return v->type == SHT_TYPE_NULL ? SHT_OK :
		       sht__error(SHT_ERR_TYPE, "Cannot increment by a %s", sht_type_name(v->type));
	err = sht_state_ongoing(ss, q, &cur, NULL);
	if (err < 0)
		return err;
	if (cur.type == SHT_TYPE_NULL)
		return sht_state_modify(ss, t, q, v);
	return sht_state_increment(ss, t, q, as_i64(v));
}

static sht_err pop(sht_state *ss, sht_time t, sht_quark q, int all)
{
	sht_err err;

	do
		err = sht_state_pop(ss, t, q, NULL);
	while (all && err == SHT_OK);
	return err == SHT_NOT_FOUND ? SHT_OK : err;
}

/* The state change of c to q with the value val. */
static sht_err change(sht_rules *r, sht_state *ss, const sht_event *ev,
		      const struct rl_value *v, sht_quark q)
{
	char buf[RL_NAME_MAX];
	sht_value val;
	sht_err err;

	if (v->kind == RL_V_DELETE)
		return sht_state_clear(ss, ev->ts, q);
	if (v->stack == RL_S_POP || v->stack == RL_S_POPALL)
		return pop(ss, ev->ts, q, v->stack == RL_S_POPALL);
	err = sht__rl_value(r, ss, ev, v, &val, buf);
	if (err < 0)
		return err;
	if (v->stack == RL_S_PUSH)
		return sht_state_push(ss, ev->ts, q, &val);
	if (v->increment)
		return increment(ss, ev->ts, q, &val);
	if (v->update)
		return sht_state_update_ongoing(ss, q, &val);
	return sht_state_modify(ss, ev->ts, q, &val);
}

static sht_err assign(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_change *c)
{
	const struct rl_value *v = &c->value;
	sht_quark q;
	sht_err err = sht__rl_quark(r, ss, ev, &c->path, 1, &q);

	if (err == SHT_NOT_FOUND) {
		r->stats.skipped++;
		return SHT_OK;
	}
	if (err < 0)
		return err;
	err = change(r, ss, ev, v, q);
	/* After the change: what its value read was resolved before it. */
	sht__rl_wrote(r, q, v->kind == RL_V_DELETE || v->stack != RL_S_NONE);
	return err;
}

static sht_err apply(sht_rules *r, sht_state *ss, const sht_event *ev,
		     struct rl_change *c)
{
	int t;

	if (c->block) {
		for (size_t i = 0; i < c->nseq; i++) {
			sht_err err = apply(r, ss, ev, &c->seq[i]);

			if (err < 0)
				return err;
		}
		return SHT_OK;
	}
	if (!c->cond)
		return assign(r, ss, ev, c);
	t = sht__rl_cond(r, ss, ev, c->cond);
	if (t < 0)
		return t;
	c = t ? c->then : c->els;
	return c ? apply(r, ss, ev, c) : SHT_OK;
}

sht_err sht__rl_run(sht_rules *r, sht_state *ss, const sht_event *ev,
		    const struct rl_handler *h)
{
	for (size_t i = 0; i < h->nchanges; i++) {
		sht_err err = apply(r, ss, ev, &h->changes[i]);

		if (err < 0)
			return err;
	}
	return SHT_OK;
}
