/*
 * rules-value.c: values of a rules program on one event: event fields
 * (typed as Trace Compass reads them), constants, the event name, queried
 * attributes, stack peeks, forcedType conversions.  Paths: rules-quark.c.
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

void sht__rl_fmt_i64(char *buf, int64_t x)
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

sht_err sht__rl_value_name(const sht_value *v, char *buf, const char **name)
{
	switch (v->type) {
	case SHT_TYPE_INT32:
		sht__rl_fmt_i64(buf, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		sht__rl_fmt_i64(buf, v->u.i64);
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

sht_err sht__rl_query(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_path *p, int dep, sht_value *out)
{
	sht_quark q;
	sht_err err = sht__rl_quark(r, ss, ev, p, 0, &q);

	*out = sht_value_null();
	if (err != SHT_OK)
		return err < 0 ? err : SHT_OK;
	if (dep)
		sht__rl_mark_dep(r, q);
	return sht_state_ongoing(ss, q, out, NULL);
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
		if (v->type != SHT_TYPE_STRING && sht__rl_value_name(v, buf, &s) == SHT_OK)
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
	sht__rl_fmt_i64(buf, depth.u.i32);
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
					    : sht__rl_query(r, ss, ev, v->query, 0, out);
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
