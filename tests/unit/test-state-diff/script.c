/*
 * script.c: test-state-diff, the systems under test, the log of the last
 * operations, the first divergence of a system, random values.
 */
#include <math.h>

#include "state-diff.h"

/* ---- systems under test ---------------------------------------------------- */

void logop(run *R, const char *fmt, ...)
{
	va_list ap;
	char *dst = R->log[R->op % LOG_N];
	int k;

	R->logn[R->op % LOG_N] = R->op;
	k = snprintf(dst, 200, "#%ld t=%" PRId64 " ", R->op, R->opt);

	va_start(ap, fmt);
	vsnprintf(dst + k, 200 - (size_t)k, fmt, ap);
	va_end(ap);
	if (R->trace)
		printf("# %s\n", dst);
}

/* First divergence of a system: say what happened and stop checking it. */

void diverge(run *R, sut *s, const char *fmt, ...)
{
	va_list ap;
	char msg[512];
	long i;

	if (s->dead)
		return;
	s->dead = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	ok(0, "round %d %s: agrees with the model (op %ld)", R->round,
	   s->label, R->op);
	diag("  %s", msg);
	diag("  last operations:");
	for (i = R->op - LOG_N + 1; i <= R->op; i++)
		if (i >= 0 && R->logn[i % LOG_N] == i)
			diag("    %s", R->log[i % LOG_N]);
}

const char *qpath(const sm_model *m, sht_quark q)
{
	static char buf[512];
	sht_quark chain[64];
	size_t n = 0, o = 0, len;

	while (q != SHT_QUARK_ROOT && q < m->n && n < 64) {
		chain[n++] = q;
		q = m->a[q].parent;
	}
	while (n-- > 0) {
		const sm_attr *a = &m->a[chain[n]];

		if (o && o + 1 < sizeof buf)
			buf[o++] = '/';
		len = a->name_len;
		if (len > sizeof buf - 1 - o)
			len = sizeof buf - 1 - o;
		memcpy(buf + o, a->name, len);
		o += len;
	}
	buf[o] = '\0';
	return buf;
}

/* ---- values ------------------------------------------------------------------- */

char big1[300], big2[3000];
static const char nulab[] = { 'a', '\0', 'b' };
static const char nulac[] = { 'a', '\0', 'c' };

sht_value rand_of_type(run *R, sht_type ty)
{
	static const int64_t i64s[] = { 0, 1, -1, INT64_C(1) << 40, 7,
					-(INT64_C(1) << 35) };
	static const double dbls[] = { 0.0, -0.0, 1.5, 1e300, -1.0 / 0.0,
				       2.25 };

	switch (ty) {
	case SHT_TYPE_INT32:
		return sht_value_int32((int32_t)rng_range(&R->rng, -2, 5));
	case SHT_TYPE_INT64:
		return sht_value_int64(i64s[rng_below(&R->rng, 6)]);
	case SHT_TYPE_DOUBLE:
		if (rng_pct(&R->rng, 10))
			return sht_value_double(NAN);
		return sht_value_double(dbls[rng_below(&R->rng, 6)]);
	case SHT_TYPE_STRING:
		switch (rng_below(&R->rng, 8)) {
		case 0: return sht_value_string("", 0);
		case 1: return sht_value_string("a", 1);
		case 2: return sht_value_string("b", 1);
		case 3: return sht_value_string(nulab, 3);
		case 4: return sht_value_string(nulac, 3);
		case 5: return sht_value_string("thread-1", 8);
		case 6: return sht_value_string(big1, sizeof big1);
		default:
			return sht_value_string(big2, rng_pct(&R->rng, 50)
				? sizeof big2 : sizeof big2 - 1);
		}
	default:
		return sht_value_null();
	}
}

sht_type rand_type(run *R)
{
	static const sht_type t[] = { SHT_TYPE_INT32, SHT_TYPE_INT32,
				      SHT_TYPE_INT64, SHT_TYPE_STRING,
				      SHT_TYPE_STRING, SHT_TYPE_DOUBLE };

	return t[rng_below(&R->rng, 6)];
}

/* A value for q: mostly of its preferred type, sometimes null, sometimes
 * any type (which violates the lock when q is locked to another). */
sht_value rand_value(run *R, sht_quark q)
{
	unsigned u = (unsigned)rng_below(&R->rng, 100);

	if (u < 12)
		return sht_value_null();
	if (u < 20)
		return rand_of_type(R, rand_type(R));
	return rand_of_type(R, (sht_type)R->pref[q]);
}

const char *vstr(const sht_value *v)
{
	static char buf[4][160];
	static int k;

	k = (k + 1) & 3;
	return sm_value_str(v, buf[k], sizeof buf[k]);
}

/* ---- bookkeeping of new quarks ----------------------------------------------- */

static void note_new_quarks(run *R)
{
	while (R->capq < R->m.n) {
		size_t old = R->capq, cap = old ? 2 * old : 256;

		R->is_stack = sm_xrealloc(R->is_stack, cap);
		R->pref = sm_xrealloc(R->pref, cap);
		memset(R->is_stack + old, 0, cap - old);
		memset(R->pref + old, 0, cap - old);
		R->capq = cap;
	}
}

void assign_pref(run *R, size_t from)
{
	size_t q;

	note_new_quarks(R);
	for (q = from; q < R->m.n; q++)
		R->pref[q] = (uint8_t)rand_type(R);
}
