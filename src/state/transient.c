/*
 * transient.c: the ongoing state of every attribute and the rules that
 * turn state changes into intervals (docs/STATE.md §2).
 *
 * Invariants (lock held):
 *  (1) cur[q].start <= ss->now for every q; ongoing intervals are not in
 *      the backend yet, closed ones are.
 *  (2) Intervals reach the backend in non-decreasing end time: a change at
 *      t >= now ends an interval at t - 1 >= every earlier end.
 *  (3) cur[q].locked, once set, never changes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "state/state-int.h"

static void value_free(sht_value *v)
{
	if (v->type == SHT_TYPE_STRING)
		free((char *)(uintptr_t)v->u.str);
	*v = sht_value_null();
}

/* Deep copy of v into *dst (freeing dst's old string). */
static sht_err value_set(sht_value *dst, const sht_value *v)
{
	char *s = NULL;

	if (v->type == SHT_TYPE_STRING) {
		s = malloc((size_t)v->len + 1);
		if (!s)
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a string of %u bytes", v->len);
		if (v->len)
			memcpy(s, v->u.str, v->len);
		s[v->len] = '\0';
	}
	value_free(dst);
	*dst = *v;
	if (s)
		dst->u.str = s;
	return SHT_OK;
}

sht_err sht__ongoing_grow(sht_state *ss, uint64_t count)
{
	if (count <= ss->ncur)
		return SHT_OK;
	if (count > ss->capcur) {
		size_t cap = ss->capcur ? ss->capcur : 64;
		struct sht__ongoing *p;
		sht_time *at;
		while (cap < count)
			cap *= 2;
		void *mem;
		/* Cache-line aligned (realloc is not): no entry spans two
		 * lines.  malloc, not aligned_alloc: one allocator for all. */
		mem = malloc(cap * sizeof *p + 63);
		at = mem ? realloc(ss->locked_at, cap * sizeof *at) : NULL;
		if (!at) {
			free(mem);
			return sht__error(SHT_ERR_NOMEM, "Cannot grow the transient state to %zu attributes", cap);
		}
		p = (struct sht__ongoing *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
		if (ss->ncur)
			memcpy(p, ss->cur, ss->ncur * sizeof *p);
		free(ss->cur_mem);
		ss->cur_mem = mem;
		ss->cur = p;
		ss->locked_at = at;
		ss->capcur = cap;
	}
	for (size_t q = ss->ncur; q < count; q++) {
		ss->cur[q].v = sht_value_null();
		ss->cur[q].start = ss->start;
		ss->cur[q].locked = SHT_TYPE_NULL;
		ss->locked_at[q] = 0;
	}
	ss->ncur = (size_t)count;
	return SHT_OK;
}

static sht_err emit(sht_state *ss, sht_quark q, sht_time end)
{
	sht_interval iv;
	sht_err err;

	iv.quark = q;
	iv.start = ss->cur[q].start;
	iv.end = end;
	iv.value = ss->cur[q].v;
	err = ss->ops->insert(ss->be, &iv);
	if (err < 0)
		ss->failed = 1;
	return err;
}

static SHT__COLD sht_err type_fail(sht_quark q, uint8_t locked, sht_type got)
{
	return sht__error(SHT_ERR_TYPE, "Cannot modify attribute: quark=%u holds %s values, got %s",
			  q, sht_type_name((sht_type)locked), sht_type_name(got));
}

/* sht_value_equal, with the common cases inline. */
static inline int same_value(const sht_value *a, const sht_value *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SHT_TYPE_NULL: return 1;
	case SHT_TYPE_INT32: return a->u.i32 == b->u.i32;
	case SHT_TYPE_INT64: return a->u.i64 == b->u.i64;
	default: return sht_value_equal(a, b);
	}
}

sht_err sht__modify(sht_state *ss, sht_time t, sht_quark q, const sht_value *v)
{
	struct sht__ongoing *o = &ss->cur[q];
	sht_err err;

	if (v->type != SHT_TYPE_NULL && o->locked != SHT_TYPE_NULL && o->locked != v->type)
		return type_fail(q, o->locked, v->type);
	/* The first non-null value locks the type, even if it changes
	 * nothing (update-ongoing may have put it there unlocked). */
	if (v->type != SHT_TYPE_NULL && o->locked == SHT_TYPE_NULL) {
		o->locked = (uint8_t)v->type;
		ss->locked_at[q] = t;
	}
	if (same_value(&o->v, v))
		return SHT_OK;
	if (o->start < t) {
		err = emit(ss, q, t - 1);
		if (err != SHT_OK)
			return err;
		o->start = t;
	}
	return value_set(&o->v, v);
}

/* Post-order walk of q's subtree (children in creation order, each
 * child's subtree before the child, q last), nulling every attribute. */
sht_err sht__clear(sht_state *ss, sht_time t, sht_quark q)
{
	struct frame { sht_quark q; size_t next; } *st = NULL;
	size_t n = 0, cap = 0;
	sht_value null = sht_value_null();
	sht_err err = SHT_OK;

	for (sht_quark cur = q;;) {
		const sht_quark *kids;
		size_t nk;

		if (n == cap) {
			struct frame *p = realloc(st, (cap = cap ? 2 * cap : 16) * sizeof *p);
			if (!p) {
				err = sht__error(SHT_ERR_NOMEM, "Cannot clear attribute: quark=%u", q);
				break;
			}
			st = p;
		}
		st[n].q = cur;
		st[n++].next = 0;
		/* Descend to the first child not yet done, or finish the frame. */
		for (;;) {
			struct frame *f = &st[n - 1];
			sht__attr_children(ss, f->q, &kids, &nk);
			if (f->next < nk) {
				cur = kids[f->next++];
				break;
			}
			err = sht__modify(ss, t, f->q, &null);
			if (err != SHT_OK || --n == 0)
				goto out;
		}
	}
out:
	free(st);
	return err;
}

/* Child of q named after the decimal number d. */
static sht_err stack_slot(sht_state *ss, sht_quark q, int32_t d, int create,
			  sht_quark *out)
{
	char name[16];
	int len = snprintf(name, sizeof name, "%d", (int)d);
	sht_err err = sht__attr_get(ss, q, name, (size_t)len, create, out);

	if (err == SHT_OK)
		err = sht__ongoing_grow(ss, sht__attrs_count(ss->attrs));
	return err;
}

static sht_err stack_depth(sht_state *ss, sht_quark q, int32_t *depth)
{
	const sht_value *v = &ss->cur[q].v;

	*depth = 0;
	if (v->type == SHT_TYPE_NULL)
		return SHT_OK;
	if (v->type != SHT_TYPE_INT32 || v->u.i32 < 0)
		return sht__error(SHT_ERR_TYPE, "Cannot use attribute as a stack: quark=%u holds a %s",
				  q, sht_type_name(v->type));
	*depth = v->u.i32;
	return SHT_OK;
}

sht_err sht__push(sht_state *ss, sht_time t, sht_quark q, const sht_value *v)
{
	int32_t depth;
	sht_quark slot;
	sht_value dv;
	sht_err err = stack_depth(ss, q, &depth);

	if (err != SHT_OK)
		return err;
	if (depth >= SHT_STACK_MAX)
		return sht__error(SHT_ERR_TOOBIG, "Cannot push: quark=%u stack holds %d values already",
				  q, (int)depth);
	err = stack_slot(ss, q, depth + 1, 1, &slot);
	dv = sht_value_int32(depth + 1);
	if (err == SHT_OK)
		err = sht__modify(ss, t, q, &dv);
	if (err == SHT_OK)
		err = sht__modify(ss, t, slot, v);
	return err;
}

sht_err sht__pop(sht_state *ss, sht_time t, sht_quark q, sht_value *popped)
{
	int32_t depth;
	sht_quark slot;
	sht_value dv;
	sht_err err = stack_depth(ss, q, &depth);

	if (err != SHT_OK)
		return err;
	if (depth == 0)
		return SHT_NOT_FOUND;
	err = stack_slot(ss, q, depth, 0, &slot);
	if (err == SHT_NOT_FOUND)
		return sht__error(SHT_ERR_NOATTR, "Cannot pop: quark=%u has depth %d but no element %d",
				  q, (int)depth, (int)depth);
	if (err != SHT_OK)
		return err;
	/* Keep the popped value: clearing the slot frees its string. */
	err = value_set(&ss->popped, &ss->cur[slot].v);
	dv = depth > 1 ? sht_value_int32(depth - 1) : sht_value_null();
	if (err == SHT_OK)
		err = sht__modify(ss, t, q, &dv);
	if (err == SHT_OK)
		err = sht__clear(ss, t, slot);
	if (err == SHT_OK && popped)
		*popped = ss->popped;
	return err;
}

sht_err sht__increment(sht_state *ss, sht_time t, sht_quark q, int64_t delta)
{
	const struct sht__ongoing *o = &ss->cur[q];
	sht_value nv;

	switch (o->v.type) {
	case SHT_TYPE_NULL:
		nv = o->locked == SHT_TYPE_INT64 ? sht_value_int64(delta)
						 : sht_value_int32((int32_t)(uint32_t)delta);
		break;
	case SHT_TYPE_INT32:
		nv = sht_value_int32((int32_t)((uint32_t)o->v.u.i32 + (uint32_t)delta));
		break;
	case SHT_TYPE_INT64:
		nv = sht_value_int64((int64_t)((uint64_t)o->v.u.i64 + (uint64_t)delta));
		break;
	default:
		return sht__error(SHT_ERR_TYPE, "Cannot increment attribute: quark=%u holds a %s",
				  q, sht_type_name(o->v.type));
	}
	return sht__modify(ss, t, q, &nv);
}

sht_err sht__ongoing_set(sht_state *ss, sht_quark q, const sht_value *v,
			sht_time start)
{
	ss->cur[q].start = start;
	return value_set(&ss->cur[q].v, v);
}

sht_err sht__update_ongoing(sht_state *ss, sht_quark q, const sht_value *v)
{
	return value_set(&ss->cur[q].v, v);
}

sht_err sht__close_all(sht_state *ss, sht_time end)
{
	for (size_t q = 0; q < ss->ncur; q++) {
		sht_err err;
		if (ss->cur[q].start > end)
			continue;
		err = emit(ss, (sht_quark)q, end);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

void sht__ongoing_free(sht_state *ss)
{
	for (size_t q = 0; q < ss->ncur; q++)
		value_free(&ss->cur[q].v);
	value_free(&ss->popped);
	free(ss->cur_mem);
	free(ss->locked_at);
	ss->cur_mem = NULL;
	ss->cur = NULL;
	ss->locked_at = NULL;
	ss->ncur = ss->capcur = 0;
}
