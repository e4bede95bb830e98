/*
 * ops.c: test-state-diff, each operation of a script, run on the model and
 * on every system under test, statuses and results compared.
 */
#include "state-diff.h"

/* ---- operations ------------------------------------------------------------------ */

int alive(const sut *s)
{
	return !s->dead;
}

static void count(run *R, sht_err e)
{
	int k = (int)e + 12;

	if (k >= 0 && k < 16)
		R->hist[k]++;
}

void cmp_rc(run *R, sut *s, sht_err want, sht_err got,
	    const char *what)
{
	s->checks++;
	if (got != want)
		diverge(R, s, "%s: status %s, model %s (%s)", what,
			sht_err_name(got), sht_err_name(want),
			got < 0 ? sht_errmsg() : "");
}

static const char *const names[] = {
	"a", "b", "c", "d", "1", "2", "3", "10", "CPUs", "Threads", "x/y",
	"1/i8042", "with space", "\xc3\xa9", "0_1", "Current_thread",
};
#define NNAMES (sizeof names / sizeof names[0])

sht_quark rand_quark(run *R)
{
	return (sht_quark)rng_below(&R->rng, R->m.n);
}

/* Get-or-create (or find) a random path below a random parent. */
void op_lookup(run *R, int create)
{
	const char *el[3];
	size_t n = 1 + rng_below(&R->rng, 3), i, before = R->m.n;
	sht_quark parent = (R->m.n == 0 || rng_pct(&R->rng, 20))
			   ? SHT_QUARK_ROOT : rand_quark(R);
	sht_quark qm = SHT_QUARK_NONE;
	sht_err em;
	int as_string = parent == SHT_QUARK_ROOT && rng_pct(&R->rng, 50);
	char joined[256];
	int k;

	for (i = 0; i < n; i++) {
		el[i] = names[rng_below(&R->rng, NNAMES)];
		if (strchr(el[i], '/'))
			as_string = 0;
	}
	joined[0] = '\0';
	for (i = 0, k = 0; i < n; i++)
		k += snprintf(joined + k, sizeof joined - (size_t)k, "%s%s",
			      i ? "/" : "", el[i]);
	R->opt = R->t;
	em = sm_quark(&R->m, parent, el, n, create, &qm);
	logop(R, "%s %s\"%s\" below %s -> %s q%" PRIu32,
	      create ? "get-or-create" : "find", as_string ? "string " : "",
	      joined, parent == SHT_QUARK_ROOT ? "root"
	      : qpath(&R->m, parent), sht_err_name(em), qm);
	if (create) {
		assign_pref(R, before);
		/* A fresh leaf becomes a stack now and then, unless its
		 * name is a number (it could then be another stack's
		 * slot, and a push would set it to any value). */
		if (R->m.n > before && qm == R->m.n - 1 &&
		    strspn(el[n - 1], "0123456789") != strlen(el[n - 1]) &&
		    rng_pct(&R->rng, 10)) {
			SM_GROW(R->stacks, R->nstacks, R->capstacks);
			R->stacks[R->nstacks++] = qm;
			R->is_stack[qm] = 1;
		}
	}
	for (int j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];
		sht_quark qs = SHT_QUARK_NONE;
		sht_err es;

		if (!alive(s))
			continue;
		if (as_string)
			es = sht_state_quark_path(s->ss, joined, create, &qs);
		else if (create)
			es = sht_state_quark(s->ss, parent, el, n, &qs);
		else
			es = sht_state_quark_find(s->ss, parent, el, n, &qs);
		cmp_rc(R, s, em, es, "look-up");
		if (!s->dead && em == SHT_OK && qs != qm)
			diverge(R, s, "look-up gave q%" PRIu32 ", model q%"
				PRIu32, qs, qm);
		if (!s->dead && sht_state_attr_count(s->ss) != R->m.n)
			diverge(R, s, "%" PRIu64 " attributes, model %zu",
				sht_state_attr_count(s->ss), R->m.n);
	}
}

/* The time of the next change: bursts, small steps, long gaps, and now
 * and then one in the past (order) or before the start (range). */
static sht_time next_time(run *R)
{
	unsigned u = (unsigned)rng_below(&R->rng, 1000);

	if (u < 10 && R->t > R->m.start)
		return R->opt = R->t - rng_range(&R->rng, 1, 50);
	if (u < 14)
		return R->opt = R->m.start - rng_range(&R->rng, 1, 3);
	u = (unsigned)rng_below(&R->rng, 100);
	if (u < 45)
		;                                   /* same timestamp */
	else if (u < 75)
		R->t += rng_range(&R->rng, 1, 10);
	else if (u < 96)
		R->t += rng_range(&R->rng, 10, 2000);
	else
		R->t += rng_range(&R->rng, 1000000, 1000000000);
	return R->opt = R->t;
}

/* A non-stack attribute, often from a small hot set. */
sht_quark pick_plain(run *R)
{
	int tries;

	for (tries = 0; tries < 50; tries++) {
		sht_quark q = rng_pct(&R->rng, 50) && R->m.n > 16
			      ? (sht_quark)rng_below(&R->rng, 16)
			      : rand_quark(R);

		if (!R->is_stack[q])
			return q;
	}
	return SHT_QUARK_NONE;
}

void op_modify(run *R)
{
	sht_quark q = pick_plain(R);
	sht_time t;
	sht_value v;
	sht_err em;
	int j;

	if (q == SHT_QUARK_NONE)
		return;
	/* Stacks only get wrong-typed values (never an int32 depth). */
	t = next_time(R);
	v = rand_value(R, q);
	em = sm_modify(&R->m, t, q, &v);
	logop(R, "modify q%" PRIu32 " (%s) = %s -> %s", q, qpath(&R->m, q),
	      vstr(&v), sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++)
		if (alive(&R->s[j]))
			cmp_rc(R, &R->s[j], em,
			       sht_state_modify(R->s[j].ss, t, q, &v),
			       "modify");
}

void op_modify_stack(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value v;
	sht_err em;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[rng_below(&R->rng, R->nstacks)];
	t = next_time(R);
	do
		v = rand_of_type(R, rand_type(R));
	while (v.type == SHT_TYPE_INT32);
	em = sm_modify(&R->m, t, q, &v);
	logop(R, "modify stack q%" PRIu32 " (%s) = %s -> %s", q,
	      qpath(&R->m, q), vstr(&v), sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++)
		if (alive(&R->s[j]))
			cmp_rc(R, &R->s[j], em,
			       sht_state_modify(R->s[j].ss, t, q, &v),
			       "modify (stack)");
}

void op_clear(run *R)
{
	sht_quark q = rand_quark(R);
	sht_time t = next_time(R);
	sht_err em = sm_clear(&R->m, t, q);
	int j;

	logop(R, "clear q%" PRIu32 " (%s, %zu children) -> %s", q,
	      qpath(&R->m, q), R->m.a[q].nkids, sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++)
		if (alive(&R->s[j]))
			cmp_rc(R, &R->s[j], em,
			       sht_state_clear(R->s[j].ss, t, q), "clear");
}

void op_push(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value v;
	sht_err em;
	size_t before = R->m.n;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[rng_below(&R->rng, R->nstacks)];
	if (R->m.a[q].cur.type == SHT_TYPE_INT32 &&
	    R->m.a[q].cur.u.i32 >= 12)
		return;                             /* keep stacks small */
	t = next_time(R);
	v = rand_value(R, q);
	if (R->pref[q] == SHT_TYPE_INT32 && v.type != SHT_TYPE_NULL &&
	    rng_pct(&R->rng, 70))
		v = rand_of_type(R, SHT_TYPE_STRING);
	em = sm_push(&R->m, t, q, &v);
	assign_pref(R, before);
	logop(R, "push q%" PRIu32 " (%s) %s -> %s", q, qpath(&R->m, q),
	      vstr(&v), sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (!alive(s))
			continue;
		cmp_rc(R, s, em, sht_state_push(s->ss, t, q, &v), "push");
		if (!s->dead && sht_state_attr_count(s->ss) != R->m.n)
			diverge(R, s, "%" PRIu64 " attributes after push, "
				"model %zu", sht_state_attr_count(s->ss),
				R->m.n);
	}
}

void op_pop(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value pm = sht_value_null(), ps;
	sht_err em;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[rng_below(&R->rng, R->nstacks)];
	t = next_time(R);
	em = sm_pop(&R->m, t, q, &pm);
	logop(R, "pop q%" PRIu32 " (%s) -> %s %s", q, qpath(&R->m, q),
	      sht_err_name(em), em == SHT_OK ? vstr(&pm) : "");
	count(R, em);
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];
		sht_err es;

		if (!alive(s))
			continue;
		int want_value = rng_pct(&R->rng, 90);

		ps = sht_value_int32(-777);
		es = sht_state_pop(s->ss, t, q, want_value ? &ps : NULL);
		cmp_rc(R, s, em, es, "pop");
		if (!s->dead && es == SHT_OK && want_value &&
		    !sm_value_eq(&ps, &pm))
			diverge(R, s, "popped %s, model %s", vstr(&ps),
				vstr(&pm));
	}
}

void op_increment(run *R)
{
	sht_quark q = pick_plain(R);
	int tries;

	for (tries = 0; tries < 5 && q != SHT_QUARK_NONE &&
	     R->pref[q] != SHT_TYPE_INT32 && R->pref[q] != SHT_TYPE_INT64 &&
	     rng_pct(&R->rng, 80); tries++)
		q = pick_plain(R);
	sht_time t;
	int64_t d;
	sht_err em;
	int j;

	if (q == SHT_QUARK_NONE)
		return;
	t = next_time(R);
	d = rng_range(&R->rng, -2, 3);
	em = sm_increment(&R->m, t, q, d);
	logop(R, "increment q%" PRIu32 " (%s) by %" PRId64 " -> %s", q,
	      qpath(&R->m, q), d, sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++)
		if (alive(&R->s[j]))
			cmp_rc(R, &R->s[j], em,
			       sht_state_increment(R->s[j].ss, t, q, d),
			       "increment");
}

void op_update(run *R)
{
	sht_quark q = rand_quark(R);
	sht_value v;
	sht_err em;
	int j;

	v = R->is_stack[q] ? rand_of_type(R, rand_type(R))
			   : rand_value(R, q);
	if (R->is_stack[q] && v.type == SHT_TYPE_INT32)
		v = sht_value_null();
	R->opt = R->t;
	em = sm_update_ongoing(&R->m, q, &v);
	logop(R, "update-ongoing q%" PRIu32 " (%s) = %s -> %s", q,
	      qpath(&R->m, q), vstr(&v), sht_err_name(em));
	count(R, em);
	for (j = 0; j < R->ns; j++)
		if (alive(&R->s[j]))
			cmp_rc(R, &R->s[j], em,
			       sht_state_update_ongoing(R->s[j].ss, q, &v),
			       "update-ongoing");
	/* Often followed by a modify with that same value (which, on an
	 * attribute not locked yet, locks its type: §2.2 step 1 comes
	 * before step 2). */
	if (!R->is_stack[q] && rng_pct(&R->rng, 40)) {
		sht_time t = next_time(R);

		R->op++;
		em = sm_modify(&R->m, t, q, &v);
		logop(R, "modify q%" PRIu32 " (%s) = %s (same) -> %s", q,
		      qpath(&R->m, q), vstr(&v), sht_err_name(em));
		count(R, em);
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], em,
				       sht_state_modify(R->s[j].ss, t, q, &v),
				       "modify");
	}
}

/* sht_state_ongoing of a few attributes. */
void op_ongoing(run *R)
{
	int k, j;

	for (k = 0; k < 4; k++) {
		sht_quark q = rand_quark(R);
		const sm_attr *a = &R->m.a[q];

		for (j = 0; j < R->ns; j++) {
			sut *s = &R->s[j];
			sht_value v;
			sht_time since = -1;
			sht_err e;

			if (!alive(s))
				continue;
			s->checks++;
			e = sht_state_ongoing(s->ss, q, &v, &since);
			if (e != SHT_OK || !sm_value_eq(&v, &a->cur) ||
			    since != a->cur_start)
				diverge(R, s, "ongoing q%" PRIu32 " (%s): %s "
					"%s since %" PRId64 ", model %s since %"
					PRId64, q, qpath(&R->m, q),
					sht_err_name(e), e == SHT_OK
					? vstr(&v) : "", since, vstr(&a->cur),
					a->cur_start);
		}
	}
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (alive(s) && sht_state_end(s->ss) != sm_end(&R->m))
			diverge(R, s, "end %" PRId64 ", model %" PRId64,
				sht_state_end(s->ss), sm_end(&R->m));
	}
}
