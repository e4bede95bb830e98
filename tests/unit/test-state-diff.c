/*
 * test-state-diff.c: differential test of the state system against the
 * brute-force model of tests/unit/state-model.h.
 *
 * Each round generates a random script (seeded; the seed is printed and
 * SHT_TEST_SEED overrides it) over a few hundred attributes in a random
 * tree: get-or-create and find by path (names with "/" inside, names that
 * collide with stack slots), modify with values of the attribute's type,
 * null, or a deliberately wrong type, clear, push, pop, increment,
 * update-ongoing, bursts at one timestamp, long gaps, and now and then a
 * change before the start or before the latest change.  The script runs
 * in lockstep on the model and on every system under test:
 *
 *   tree   SHT and eSHT, block sizes 1 KiB, 4 KiB and 64 KiB;
 *   memory
 *   null   (status codes, ongoing values and popped values only)
 *
 * Every call's status must equal the model's, and so must created quarks,
 * popped values and ongoing states.  While building, every few hundred
 * operations, queries at t <= sht_state_end are compared (single, full,
 * range, 2D).  After finish everything is compared: the attribute tree,
 * single queries at every interval bound (start - 1, start, end, end + 1),
 * full queries at random times and at sampled bounds, range queries with
 * random resolutions, 2D queries; then again on the file reopened with
 * sht_state_open.
 *
 * A system that diverges is reported once, with the last operations, and
 * then left alone (its later answers would only repeat the first error).
 * SHT_TEST_TRACE=1 prints every operation; SHT_TEST_SCALE scales the
 * script lengths.  SHT_TEST_MODEL_LOCK=change makes the model lock an
 * attribute's type only when a modify changes its value (not Trace
 * Compass's rule, see state-model.h): a switch to look past that one
 * known difference for others.
 */
#include <math.h>

#include "tap.h"
#include "unit/state-model.h"

/* ---- systems under test ---------------------------------------------------- */

typedef struct sut {
	char label[48];
	sht_backend backend;
	sht_variant variant;
	uint32_t block_size;
	char path[4096];
	sht_state *ss;
	int dead;                    /* diverged: no more checks */
	int reported;
	long checks;                 /* comparisons made */
} sut;

#define MAX_SUT 8
#define LOG_N 40

typedef struct run {
	long hist[16];               /* model statuses: [status + 12] */
	sm_model m;
	sm_rng rng;
	sut s[MAX_SUT];
	int ns;
	sht_time t;                  /* script clock */
	sht_time opt;                /* time of the current operation */
	sht_quark *stacks;           /* attributes used as stacks */
	size_t nstacks, capstacks;
	uint8_t *is_stack;           /* per quark */
	uint8_t *pref;               /* per quark: preferred sht_type */
	size_t capq;
	size_t target_attrs;
	long op;                     /* operation counter */
	char log[LOG_N][200];        /* last operations */
	long logn[LOG_N];            /* their numbers */
	int trace;
	int lock_on_change;          /* SHT_TEST_MODEL_LOCK=change */
	sht_result *res;
	sm_list l1;
	int round;
} run;

static void logop(run *R, const char *fmt, ...) TAP_PRINTF(2, 3);
static void logop(run *R, const char *fmt, ...)
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
static void diverge(run *R, sut *s, const char *fmt, ...) TAP_PRINTF(3, 4);
static void diverge(run *R, sut *s, const char *fmt, ...)
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

static const char *qpath(const sm_model *m, sht_quark q)
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

static char big1[300], big2[3000];
static const char nulab[] = { 'a', '\0', 'b' };
static const char nulac[] = { 'a', '\0', 'c' };

static sht_value rand_of_type(run *R, sht_type ty)
{
	static const int64_t i64s[] = { 0, 1, -1, INT64_C(1) << 40, 7,
					-(INT64_C(1) << 35) };
	static const double dbls[] = { 0.0, -0.0, 1.5, 1e300, -1.0 / 0.0,
				       2.25 };

	switch (ty) {
	case SHT_TYPE_INT32:
		return sht_value_int32((int32_t)sm_range(&R->rng, -2, 5));
	case SHT_TYPE_INT64:
		return sht_value_int64(i64s[sm_below(&R->rng, 6)]);
	case SHT_TYPE_DOUBLE:
		if (sm_pct(&R->rng, 10))
			return sht_value_double(NAN);
		return sht_value_double(dbls[sm_below(&R->rng, 6)]);
	case SHT_TYPE_STRING:
		switch (sm_below(&R->rng, 8)) {
		case 0: return sht_value_string("", 0);
		case 1: return sht_value_string("a", 1);
		case 2: return sht_value_string("b", 1);
		case 3: return sht_value_string(nulab, 3);
		case 4: return sht_value_string(nulac, 3);
		case 5: return sht_value_string("thread-1", 8);
		case 6: return sht_value_string(big1, sizeof big1);
		default:
			return sht_value_string(big2, sm_pct(&R->rng, 50)
				? sizeof big2 : sizeof big2 - 1);
		}
	default:
		return sht_value_null();
	}
}

static sht_type rand_type(run *R)
{
	static const sht_type t[] = { SHT_TYPE_INT32, SHT_TYPE_INT32,
				      SHT_TYPE_INT64, SHT_TYPE_STRING,
				      SHT_TYPE_STRING, SHT_TYPE_DOUBLE };

	return t[sm_below(&R->rng, 6)];
}

/* A value for q: mostly of its preferred type, sometimes null, sometimes
 * any type (which violates the lock when q is locked to another). */
static sht_value rand_value(run *R, sht_quark q)
{
	unsigned u = (unsigned)sm_below(&R->rng, 100);

	if (u < 12)
		return sht_value_null();
	if (u < 20)
		return rand_of_type(R, rand_type(R));
	return rand_of_type(R, (sht_type)R->pref[q]);
}

static const char *vstr(const sht_value *v)
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

static void assign_pref(run *R, size_t from)
{
	size_t q;

	note_new_quarks(R);
	for (q = from; q < R->m.n; q++)
		R->pref[q] = (uint8_t)rand_type(R);
}

/* ---- operations ------------------------------------------------------------------ */

static int alive(const sut *s)
{
	return !s->dead;
}

static void count(run *R, sht_err e)
{
	int k = (int)e + 12;

	if (k >= 0 && k < 16)
		R->hist[k]++;
}

static void cmp_rc(run *R, sut *s, sht_err want, sht_err got,
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

static sht_quark rand_quark(run *R)
{
	return (sht_quark)sm_below(&R->rng, R->m.n);
}

/* Get-or-create (or find) a random path below a random parent. */
static void op_lookup(run *R, int create)
{
	const char *el[3];
	size_t n = 1 + sm_below(&R->rng, 3), i, before = R->m.n;
	sht_quark parent = (R->m.n == 0 || sm_pct(&R->rng, 20))
			   ? SHT_QUARK_ROOT : rand_quark(R);
	sht_quark qm = SHT_QUARK_NONE;
	sht_err em;
	int as_string = parent == SHT_QUARK_ROOT && sm_pct(&R->rng, 50);
	char joined[256];
	int k;

	for (i = 0; i < n; i++) {
		el[i] = names[sm_below(&R->rng, NNAMES)];
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
		    sm_pct(&R->rng, 10)) {
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
	unsigned u = (unsigned)sm_below(&R->rng, 1000);

	if (u < 10 && R->t > R->m.start)
		return R->opt = R->t - sm_range(&R->rng, 1, 50);
	if (u < 14)
		return R->opt = R->m.start - sm_range(&R->rng, 1, 3);
	u = (unsigned)sm_below(&R->rng, 100);
	if (u < 45)
		;                                   /* same timestamp */
	else if (u < 75)
		R->t += sm_range(&R->rng, 1, 10);
	else if (u < 96)
		R->t += sm_range(&R->rng, 10, 2000);
	else
		R->t += sm_range(&R->rng, 1000000, 1000000000);
	return R->opt = R->t;
}

/* A non-stack attribute, often from a small hot set. */
static sht_quark pick_plain(run *R)
{
	int tries;

	for (tries = 0; tries < 50; tries++) {
		sht_quark q = sm_pct(&R->rng, 50) && R->m.n > 16
			      ? (sht_quark)sm_below(&R->rng, 16)
			      : rand_quark(R);

		if (!R->is_stack[q])
			return q;
	}
	return SHT_QUARK_NONE;
}

static void op_modify(run *R)
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

static void op_modify_stack(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value v;
	sht_err em;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[sm_below(&R->rng, R->nstacks)];
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

static void op_clear(run *R)
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

static void op_push(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value v;
	sht_err em;
	size_t before = R->m.n;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[sm_below(&R->rng, R->nstacks)];
	if (R->m.a[q].cur.type == SHT_TYPE_INT32 &&
	    R->m.a[q].cur.u.i32 >= 12)
		return;                             /* keep stacks small */
	t = next_time(R);
	v = rand_value(R, q);
	if (R->pref[q] == SHT_TYPE_INT32 && v.type != SHT_TYPE_NULL &&
	    sm_pct(&R->rng, 70))
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

static void op_pop(run *R)
{
	sht_quark q;
	sht_time t;
	sht_value pm = sht_value_null(), ps;
	sht_err em;
	int j;

	if (!R->nstacks)
		return;
	q = R->stacks[sm_below(&R->rng, R->nstacks)];
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
		int want_value = sm_pct(&R->rng, 90);

		ps = sht_value_int32(-777);
		es = sht_state_pop(s->ss, t, q, want_value ? &ps : NULL);
		cmp_rc(R, s, em, es, "pop");
		if (!s->dead && es == SHT_OK && want_value &&
		    !sm_value_eq(&ps, &pm))
			diverge(R, s, "popped %s, model %s", vstr(&ps),
				vstr(&pm));
	}
}

static void op_increment(run *R)
{
	sht_quark q = pick_plain(R);
	int tries;

	for (tries = 0; tries < 5 && q != SHT_QUARK_NONE &&
	     R->pref[q] != SHT_TYPE_INT32 && R->pref[q] != SHT_TYPE_INT64 &&
	     sm_pct(&R->rng, 80); tries++)
		q = pick_plain(R);
	sht_time t;
	int64_t d;
	sht_err em;
	int j;

	if (q == SHT_QUARK_NONE)
		return;
	t = next_time(R);
	d = sm_range(&R->rng, -2, 3);
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

static void op_update(run *R)
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
	if (!R->is_stack[q] && sm_pct(&R->rng, 40)) {
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
static void op_ongoing(run *R)
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

/* ---- query comparisons ------------------------------------------------------ */

typedef struct qstats {
	long singles, fulls, ranges, q2d;
} qstats;

static int same_list(const sht_result *res, const sht_interval *want,
		     size_t n)
{
	size_t i;

	if (sht_result_count(res) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (!sm_iv_eq(sht_result_at(res, i), &want[i]))
			return 0;
	return 1;
}

static void show_lists(const sht_result *res, const sht_interval *want,
		       size_t n)
{
	size_t i, got = sht_result_count(res), shown = 0;
	char b[256];

	for (i = 0; (i < got || i < n) && shown < 12; i++) {
		int same = i < got && i < n &&
			   sm_iv_eq(sht_result_at(res, i), &want[i]);

		if (same && i + 1 < got && i + 1 < n)
			continue;
		if (i < got)
			diag("    got  [%zu] %s", i,
			     sm_iv_str(sht_result_at(res, i), b, sizeof b));
		if (i < n)
			diag("    want [%zu] %s", i,
			     sm_iv_str(&want[i], b, sizeof b));
		shown++;
	}
}

static int check_single(run *R, sut *s, sht_quark q, sht_time t,
			const char *phase, qstats *st)
{
	sht_interval want;
	sht_err em = sm_at(&R->m, q, t, &want);
	sht_err es = sht_state_query(s->ss, q, t, R->res);

	st->singles++;
	s->checks++;
	if (es != em || (em == SHT_OK && !same_list(R->res, &want, 1))) {
		diverge(R, s, "%s: single query q%" PRIu32 " (%s) at %" PRId64
			": %s with %zu items, model %s", phase, q,
			qpath(&R->m, q), t, sht_err_name(es),
			sht_result_count(R->res), sht_err_name(em));
		show_lists(R->res, &want, em == SHT_OK);
		return 0;
	}
	return 1;
}

static int check_full(run *R, sut *s, sht_time t, const char *phase,
		      qstats *st)
{
	sht_err es = sht_state_query_full(s->ss, t, R->res);
	sht_err em = (t < R->m.start || t > sm_end(&R->m)) ? SHT_ERR_RANGE
							   : SHT_OK;
	size_t q;

	st->fulls++;
	s->checks++;
	R->l1.n = 0;
	if (em == SHT_OK)
		for (q = 0; q < R->m.n; q++) {
			sht_interval iv;

			sm_at(&R->m, (sht_quark)q, t, &iv);
			sm_list_add(&R->l1, &iv);
		}
	if (es != em || !same_list(R->res, R->l1.v, R->l1.n)) {
		diverge(R, s, "%s: full query at %" PRId64 ": %s with %zu "
			"items, model %s with %zu", phase, t, sht_err_name(es),
			sht_result_count(R->res), sht_err_name(em), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

static int check_range(run *R, sut *s, sht_quark q, sht_time t1,
		       sht_time t2, sht_time r, const char *phase, qstats *st)
{
	sht_err em = sm_range_query(&R->m, q, t1, t2, r, &R->l1);
	sht_err es = sht_state_query_range(s->ss, q, t1, t2, r, R->res);

	st->ranges++;
	s->checks++;
	if (es != em ||
	    (em == SHT_OK && !same_list(R->res, R->l1.v, R->l1.n))) {
		diverge(R, s, "%s: range query q%" PRIu32 " (%s) [%" PRId64
			", %" PRId64 "] r=%" PRId64 ": %s with %zu items, "
			"model %s with %zu", phase, q, qpath(&R->m, q), t1,
			t2, r, sht_err_name(es), sht_result_count(R->res),
			sht_err_name(em), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

/* Does [s, e] hold a sample t1 + k r (k >= 0, <= t2) or t2 itself? */
static int hits(sht_time t1, sht_time t2, sht_time r, sht_time s,
		sht_time e)
{
	sht_time a = s > t1 ? s : t1, b = e < t2 ? e : t2, k;

	if (a > b)
		return 0;
	if (r == 0 || (s <= t2 && t2 <= e))
		return 1;
	k = (a - t1 + r - 1) / r;               /* first sample >= a */
	return t1 + k * r <= b;
}

static int cmp_start_quark(const void *x, const void *y)
{
	const sht_interval *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->quark < b->quark ? -1 : a->quark > b->quark;
}

/* Model 2D query: every selected interval intersecting [t1, t2] (with
 * r > 0: holding a sample or t2), by (start, quark). */
static void model_2d(run *R, const sht_quark *sel, size_t nsel, int use_sel,
		     sht_quark qmin, sht_quark qmax, sht_time t1, sht_time t2,
		     sht_time r)
{
	size_t q, i;

	R->l1.n = 0;
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		int in = 0;

		if (use_sel) {
			for (i = 0; i < nsel; i++)
				if (sel[i] == q)
					in = 1;
		} else {
			in = q >= qmin && q <= qmax;
		}
		if (!in)
			continue;
		for (i = 0; i < a->niv; i++)
			if (hits(t1, t2, r, a->ivs[i].start, a->ivs[i].end))
				sm_list_add(&R->l1, &a->ivs[i]);
		if (!R->m.finished && hits(t1, t2, r, a->cur_start,
					   R->m.latest)) {
			sht_interval iv;

			iv.quark = (sht_quark)q;
			iv.start = a->cur_start;
			iv.end = R->m.latest;
			iv.value = a->cur;
			sm_list_add(&R->l1, &iv);
		}
	}
	qsort(R->l1.v, R->l1.n, sizeof *R->l1.v, cmp_start_quark);
}

static int check_2d(run *R, sut *s, const char *phase, qstats *st)
{
	sht_quark sel[6];
	size_t nsel = 0, i;
	sht_query2d q2;
	sht_time lo = R->m.start, hi = sm_end(&R->m), t1, t2, r;
	sht_err es;

	memset(&q2, 0, sizeof q2);
	t1 = sm_range(&R->rng, lo, hi);
	t2 = sm_pct(&R->rng, 30) ? hi : sm_range(&R->rng, t1, hi);
	r = sm_pct(&R->rng, 40) ? 0
	    : sm_range(&R->rng, 1, (t2 - t1) / 4 + 2);
	if (R->m.n == 0)
		return 1;
	if (sm_pct(&R->rng, 50)) {
		nsel = 1 + sm_below(&R->rng, 6);
		for (i = 0; i < nsel; i++)
			sel[i] = rand_quark(R);
		q2.quarks = sel;
		q2.n_quarks = nsel;
	} else {
		q2.qmin = rand_quark(R);
		q2.qmax = q2.qmin + (sht_quark)sm_below(&R->rng,
						R->m.n - q2.qmin < 40
						? R->m.n - q2.qmin : 40);
	}
	q2.t1 = t1;
	q2.t2 = t2;
	q2.resolution = r;
	model_2d(R, sel, nsel, q2.quarks != NULL, q2.qmin, q2.qmax, t1, t2,
		 r);
	es = sht_state_query_2d(s->ss, &q2, R->res);
	st->q2d++;
	s->checks++;
	if (es != SHT_OK || !same_list(R->res, R->l1.v, R->l1.n)) {
		diverge(R, s, "%s: 2D query %s%" PRIu32 "..%" PRIu32
			" [%" PRId64 ", %" PRId64 "] r=%" PRId64 ": %s with "
			"%zu items, model %zu", phase,
			q2.quarks ? "list " : "range ",
			q2.quarks ? sel[0] : q2.qmin,
			q2.quarks ? sel[nsel - 1] : q2.qmax, t1, t2, r,
			sht_err_name(es), sht_result_count(R->res), R->l1.n);
		show_lists(R->res, R->l1.v, R->l1.n);
		return 0;
	}
	return 1;
}

static sht_time rand_t(run *R)
{
	return sm_range(&R->rng, R->m.start, sm_end(&R->m));
}

static sht_time rand_res(run *R, sht_time span)
{
	switch (sm_below(&R->rng, 5)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return sm_range(&R->rng, 1, 20);
	case 3: return sm_range(&R->rng, 1, span / 50 + 1);
	default: return sm_range(&R->rng, 1, span / 3 + 1);
	}
}

/* A random time near the interesting spots: interval bounds. */
static sht_time bound_t(run *R)
{
	sht_quark q = rand_quark(R);
	const sm_attr *a = &R->m.a[q];
	size_t i;
	sht_time t;

	if (a->niv == 0)
		t = a->cur_start;
	else {
		i = sm_below(&R->rng, a->niv);
		t = sm_pct(&R->rng, 50) ? a->ivs[i].start : a->ivs[i].end;
	}
	t += sm_range(&R->rng, -1, 1);
	if (t < R->m.start)
		t = R->m.start;
	if (t > sm_end(&R->m))
		t = sm_end(&R->m);
	return t;
}

/* The attribute tree, quark by quark. */
static int check_attr_tree(run *R, sut *s, const char *phase)
{
	size_t q;

	if (sht_state_attr_count(s->ss) != R->m.n) {
		diverge(R, s, "%s: %" PRIu64 " attributes, model %zu", phase,
			sht_state_attr_count(s->ss), R->m.n);
		return 0;
	}
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		const char *name;
		size_t len, nk, i;
		sht_quark parent;
		const sht_quark *kids;

		s->checks++;
		if (sht_state_attr_name(s->ss, (sht_quark)q, &name, &len) !=
		    SHT_OK || len != a->name_len ||
		    memcmp(name, a->name, len) != 0 ||
		    sht_state_attr_parent(s->ss, (sht_quark)q, &parent) !=
		    SHT_OK || parent != a->parent ||
		    sht_state_attr_children(s->ss, (sht_quark)q, &kids, &nk) !=
		    SHT_OK || nk != a->nkids) {
			diverge(R, s, "%s: attribute q%zu (%s) differs", phase,
				q, qpath(&R->m, (sht_quark)q));
			return 0;
		}
		for (i = 0; i < nk; i++)
			if (kids[i] != a->kids[i]) {
				diverge(R, s, "%s: children of q%zu differ",
					phase, q);
				return 0;
			}
	}
	{
		const sht_quark *kids;
		size_t nk, i;

		if (sht_state_attr_children(s->ss, SHT_QUARK_ROOT, &kids,
					    &nk) != SHT_OK ||
		    nk != R->m.nroots) {
			diverge(R, s, "%s: top-level attributes differ", phase);
			return 0;
		}
		for (i = 0; i < nk; i++)
			if (kids[i] != R->m.roots[i]) {
				diverge(R, s, "%s: top-level attributes differ",
					phase);
				return 0;
			}
	}
	return 1;
}

/*
 * Compare the queries of s with the model.  thorough: every interval
 * bound of every attribute; else a sample (live checks).
 */
static void check_queries(run *R, sut *s, const char *phase, int thorough)
{
	qstats st = { 0, 0, 0, 0 };
	sht_time lo = R->m.start, hi = sm_end(&R->m);
	int nfull = thorough ? 150 : 12, nrange = thorough ? 600 : 40;
	int n2d = thorough ? 150 : 10;
	size_t q, i;
	int k;

	if (s->dead || s->backend == SHT_BACKEND_NULL)
		return;
	if (sht_state_start(s->ss) != lo || sht_state_end(s->ss) != hi) {
		diverge(R, s, "%s: bounds [%" PRId64 ", %" PRId64 "], model [%"
			PRId64 ", %" PRId64 "]", phase,
			sht_state_start(s->ss), sht_state_end(s->ss), lo, hi);
		return;
	}
	if (!check_attr_tree(R, s, phase))
		return;
	/* Single queries at interval bounds. */
	for (q = 0; q < R->m.n; q++) {
		const sm_attr *a = &R->m.a[q];
		size_t n = a->niv + (R->m.finished ? 0 : 1);

		if (!thorough && !sm_pct(&R->rng, 10))
			continue;
		for (i = 0; i < n; i++) {
			sht_time s0 = i < a->niv ? a->ivs[i].start
						 : a->cur_start;
			sht_time e0 = i < a->niv ? a->ivs[i].end : hi;
			const sht_time ts[4] = { s0 - 1, s0, e0, e0 + 1 };
			int j;

			for (j = 0; j < 4; j++) {
				if ((j == 0 && s0 == INT64_MIN) ||
				    (j == 3 && e0 == INT64_MAX))
					continue;
				if (!check_single(R, s, (sht_quark)q, ts[j],
						  phase, &st))
					return;
			}
		}
	}
	/* Outside the history and an unknown quark. */
	if (R->m.n && lo > INT64_MIN &&
	    !check_single(R, s, 0, lo - 1, phase, &st))
		return;
	if (R->m.n && hi < INT64_MAX &&
	    !check_single(R, s, 0, hi + 1, phase, &st))
		return;
	s->checks++;
	if (sht_state_query(s->ss, (sht_quark)R->m.n, lo, R->res) >= 0) {
		diverge(R, s, "%s: query of quark %zu (unknown) succeeded",
			phase, R->m.n);
		return;
	}
	/* Full queries: random times, bounds, the ends. */
	for (k = 0; k < nfull; k++) {
		sht_time t = k == 0 ? lo : k == 1 ? hi : k == 2 && lo > INT64_MIN
			     ? lo - 1 : k == 3 && hi < INT64_MAX ? hi + 1
			     : (k & 1) ? rand_t(R) : bound_t(R);

		if (!check_full(R, s, t, phase, &st))
			return;
	}
	/* Range queries. */
	for (k = 0; k < nrange && R->m.n; k++) {
		sht_quark qq = rand_quark(R);
		sht_time t1 = sm_pct(&R->rng, 50) ? rand_t(R) : bound_t(R);
		sht_time t2 = sm_pct(&R->rng, 20) ? INT64_MAX
			      : sm_pct(&R->rng, 30) ? hi
			      : sm_range(&R->rng, t1, hi);
		sht_time r = rand_res(R, (t2 < hi ? t2 : hi) - t1);

		if (k < 5 && lo > INT64_MIN)
			t1 = lo - 1;             /* a range error */
		if (!check_range(R, s, qq, t1, t2, r, phase, &st))
			return;
	}
	for (k = 0; k < n2d; k++)
		if (!check_2d(R, s, phase, &st))
			return;
	if (thorough)
		printf("# round %d %s %s: %ld single, %ld full, %ld range, "
		       "%ld 2D queries agree\n", R->round, s->label, phase,
		       st.singles, st.fulls, st.ranges, st.q2d);
}

/* ---- one round ------------------------------------------------------------------ */

typedef struct round_cfg {
	size_t ops;
	size_t target_attrs;
	sht_time start;
	int latest_on_call;
} round_cfg;

static void add_sut(run *R, sht_backend b, sht_variant v, uint32_t bs)
{
	sut *s = &R->s[R->ns++];
	sht_state_opts opts;
	sht_err rc;

	memset(s, 0, sizeof *s);
	s->backend = b;
	s->variant = v;
	s->block_size = bs;
	if (b == SHT_BACKEND_TREE)
		snprintf(s->label, sizeof s->label, "tree/%s/%u",
			 v == SHT_VARIANT_SHT ? "SHT" : "eSHT", bs);
	else
		snprintf(s->label, sizeof s->label, "%s",
			 b == SHT_BACKEND_MEMORY ? "memory" : "null");
	sht_state_opts_init(&opts);
	opts.backend = b;
	opts.tree.variant = v;
	opts.tree.block_size = bs;
	opts.tree.no_sync = true;
	opts.provider = "diff.test";
	opts.provider_version = (uint32_t)R->round;
	if (b == SHT_BACKEND_TREE)
		sm_scratch_path(s->path, sizeof s->path, "diff");
	rc = sht_state_create(b == SHT_BACKEND_TREE ? s->path : NULL,
			      R->m.start, &opts, &s->ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s (%s)", s->label,
			 sht_err_name(rc), sht_errmsg());
}

/* A modify at the script clock that surely changes a value. */
static void force_change(run *R)
{
	int tries, j;

	for (tries = 0; tries < 1000; tries++) {
		sht_quark q = pick_plain(R);
		sht_type ty;
		sht_value v;
		sht_err em;

		if (q == SHT_QUARK_NONE)
			continue;
		ty = R->m.a[q].locked != SHT_TYPE_NULL
		     ? R->m.a[q].locked : (sht_type)R->pref[q];
		v = rand_of_type(R, ty);
		if (sm_value_eq(&v, &R->m.a[q].cur))
			continue;
		R->opt = R->t;
		em = sm_modify(&R->m, R->t, q, &v);
		logop(R, "modify q%" PRIu32 " (%s) = %s (last change) -> %s",
		      q, qpath(&R->m, q), vstr(&v), sht_err_name(em));
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], em,
				       sht_state_modify(R->s[j].ss, R->t, q,
							&v), "modify");
		return;
	}
}

static void live_checks(run *R)
{
	int j;

	for (j = 0; j < R->ns; j++)
		check_queries(R, &R->s[j], "live", 0);
}

static void do_round(run *R, const round_cfg *c, uint64_t seed)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	double t0 = sm_now();
	size_t i;
	sht_time end;
	int j, v, b;

	sm_rng_seed(&R->rng, seed);
	sm_init(&R->m, c->start);
	R->m.latest_on_call = c->latest_on_call;
	R->m.lock_on_change = R->lock_on_change;
	R->t = c->start;
	R->ns = 0;
	R->op = 0;
	R->nstacks = 0;
	memset(R->hist, 0, sizeof R->hist);
	memset(R->logn, 0xff, sizeof R->logn);
	R->target_attrs = c->target_attrs;
	for (v = 0; v < 2; v++)
		for (b = 0; b < 3; b++)
			add_sut(R, SHT_BACKEND_TREE,
				v ? SHT_VARIANT_ESHT : SHT_VARIANT_SHT,
				sizes[b]);
	add_sut(R, SHT_BACKEND_MEMORY, SHT_VARIANT_ESHT, 0);
	add_sut(R, SHT_BACKEND_NULL, SHT_VARIANT_ESHT, 0);

	/* A first few attributes, then the script. */
	for (i = 0; i < 8; i++, R->op++)
		op_lookup(R, 1);
	for (i = 0; i < c->ops; i++, R->op++) {
		unsigned u = (unsigned)sm_below(&R->rng, 1000);
		int want_create = R->m.n < R->target_attrs;

		if (u < (want_create ? 90u : 8u))
			op_lookup(R, 1);
		else if (u < 110)
			op_lookup(R, 0);
		else if (u < 460)
			op_modify(R);
		else if (u < 480)
			op_modify_stack(R);
		else if (u < 520)
			op_clear(R);
		else if (u < 640)
			op_push(R);
		else if (u < 740)
			op_pop(R);
		else if (u < 850)
			op_increment(R);
		else if (u < 880)
			op_update(R);
		else
			op_ongoing(R);
		if (i % 700 == 699)
			live_checks(R);
	}
	live_checks(R);

	/* Finish: once too early (when possible), then for real. */
	R->op++;
	R->opt = R->t;
	if (R->m.latest > R->m.start) {
		logop(R, "finish at %" PRId64 " (too early)",
		      R->m.latest - 1);
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], SHT_ERR_ORDER,
				       sht_state_finish(R->s[j].ss,
							R->m.latest - 1),
				       "early finish");
	}
	/* A change at the last time, then finish there (even rounds) or
	 * later (odd rounds). */
	R->op++;
	force_change(R);
	R->op++;
	end = R->m.latest + (R->round % 2 == 0 ? 0
			     : sm_range(&R->rng, 1, 5000));
	R->t = R->opt = end;
	{
		sht_err em = sm_finish(&R->m, end);

		logop(R, "finish at %" PRId64 " -> %s", end, sht_err_name(em));
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], em,
				       sht_state_finish(R->s[j].ss, end),
				       "finish");
	}
	{
		size_t niv = 0;

		for (i = 0; i < R->m.n; i++)
			niv += R->m.a[i].niv;
		printf("# round %d: %zu ops, %zu attributes, %zu stacks, "
		       "%zu intervals, [%" PRId64 ", %" PRId64 "]\n",
		       R->round, c->ops, R->m.n, R->nstacks, niv, R->m.start,
		       end);
		printf("# round %d statuses: ok %ld, not-found (empty pop) "
		       "%ld, type %ld, order %ld, range %ld\n", R->round,
		       R->hist[12 + SHT_OK], R->hist[12 + SHT_NOT_FOUND],
		       R->hist[12 + SHT_ERR_TYPE], R->hist[12 + SHT_ERR_ORDER],
		       R->hist[12 + SHT_ERR_RANGE]);
	}
	for (j = 0; j < R->ns; j++)
		check_queries(R, &R->s[j], "finished", 1);
	/* Null backend: queries fail. */
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (s->backend == SHT_BACKEND_NULL && alive(s) && R->m.n &&
		    sht_state_query_full(s->ss, R->m.start, R->res) >= 0)
			diverge(R, s, "null backend: a full query succeeded");
	}
	/* Reopen the files. */
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];
		const char *id = NULL;
		uint32_t ver = 0;
		sht_err rc;

		if (s->backend != SHT_BACKEND_TREE || s->dead)
			continue;
		sht_state_close(s->ss);
		s->ss = NULL;
		rc = sht_state_open(s->path, NULL, &s->ss);
		if (rc != SHT_OK) {
			diverge(R, s, "reopen: %s (%s)", sht_err_name(rc),
				sht_errmsg());
			continue;
		}
		if (sht_state_provider(s->ss, &id, &ver) != SHT_OK ||
		    strcmp(id, "diff.test") != 0 || ver != (uint32_t)R->round)
			diverge(R, s, "reopened: provider %s %u", id ? id : "?",
				(unsigned)ver);
		check_queries(R, s, "reopened", 1);
	}
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (!s->dead)
			ok(1, "round %d %s: agrees with the model (%ld "
			   "comparisons)", R->round, s->label, s->checks);
		sht_state_close(s->ss);
		if (s->backend == SHT_BACKEND_TREE)
			unlink(s->path);
	}
	sm_free(&R->m);
	printf("# round %d: %.1f s\n", R->round, sm_now() - t0);
}

int main(void)
{
	uint64_t seed = sm_test_seed(20251122);
	const char *sc = getenv("SHT_TEST_SCALE");
	const char *tr = getenv("SHT_TEST_TRACE");
	double scale = sc && atof(sc) > 0 ? atof(sc) : 1.0;
	double t0 = sm_now();
	static run R;
	size_t i;
	round_cfg cfgs[] = {
		/* ops, attributes, start, latest_on_call */
		{ 5000, 300, 0, 1 },
		{ 5000, 40, 1000, 1 },
		{ 4000, 250, INT64_C(1600000000000000000), 1 },
		{ 3000, 120, -INT64_C(5000000000), 1 },
		{ 8000, 12, 0, 1 },
		{ 6000, 500, 77, 1 },
	};

	no_plan();
	if (sm_scratch_init("state-diff") != 0)
		bail_out("Cannot create a scratch directory");
	for (i = 0; i < sizeof big1; i++)
		big1[i] = (char)('a' + i % 26);
	for (i = 0; i < sizeof big2; i++)
		big2[i] = (char)(i % 251);
	R.trace = tr && *tr && *tr != '0';
	if (getenv("SHT_TEST_MODEL_LOCK") &&
	    strcmp(getenv("SHT_TEST_MODEL_LOCK"), "change") == 0) {
		R.lock_on_change = 1;
		printf("# SHT_TEST_MODEL_LOCK=change: a same-value modify does "
		       "not lock the type (not Trace Compass's rule)\n");
	}
	R.res = sht_result_create();
	for (i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
		round_cfg c = cfgs[i];

		c.ops = (size_t)((double)c.ops * scale);
		R.round = (int)i;
		printf("# round %zu: seed %" PRIu64 "\n", i, seed + i);
		do_round(&R, &c, seed + i);
	}
	sht_result_destroy(R.res);
	free(R.l1.v);
	free(R.stacks);
	free(R.is_stack);
	free(R.pref);
	sm_scratch_done();
	printf("# total %.1f s\n", sm_now() - t0);
	return done_testing();
}
