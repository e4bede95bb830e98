/*
 * values.c: test-state-rules, rules 1-5: a new attribute is null from the start, a change
 * ends the previous interval, the same value extends it, several changes
 * at one time, the type lock.
 */
#include <math.h>

#include "state-rules.h"

/* ---- 1. a new attribute is null from the history start ------------------ */

static void check_late(fx *f)
{
	expect(f, "a", IVS({ 100, 199, NUL() }, { 200, 500, I32(1) }));
	expect(f, "b", IVS({ 100, 399, NUL() }, { 400, 500, STR("x") }));
	expect(f, "c", IVS({ 100, 500, NUL() }));
	expect(f, "p", IVS({ 100, 500, NUL() }));
	expect(f, "p/q/r", IVS({ 100, 449, NUL() }, { 450, 500, I64(7) }));
	expect_full(f, 100);
	expect_full(f, 450);
	expect_full(f, 500);
}

void sc_late(sht_backend b)
{
	fx f;
	sht_quark a, bq, c, r;
	const char *name;
	size_t len;
	sht_quark parent;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	is_int(a, 0, "%s: first quark is 0", f.bname);
	mod(&f, 200, a, I32(1), SHT_OK, "a = 1 at 200");
	bq = Q(&f, "b");                        /* created at "300" */
	mod(&f, 400, bq, STR("x"), SHT_OK, "b = x at 400");
	c = Q(&f, "c");                         /* never changed */
	r = Q(&f, "p/q/r");                     /* parents first */
	is_int(bq, 1, "%s: b is quark 1", f.bname);
	is_int(c, 2, "%s: c is quark 2", f.bname);
	is_int(r, 5, "%s: p/q/r: p = 3, q = 4, r = 5", f.bname);
	is_int(sht_state_attr_count(f.ss), 6, "%s: 6 attributes", f.bname);
	st(&f, sht_state_attr_name(f.ss, 4, &name, &len), SHT_OK, "name of 4");
	ok(len == 1 && memcmp(name, "q", 1) == 0, "%s: quark 4 is q", f.bname);
	st(&f, sht_state_attr_parent(f.ss, 5, &parent), SHT_OK, "parent of 5");
	is_int(parent, 4, "%s: parent of r is q", f.bname);
	mod(&f, 450, r, I64(7), SHT_OK, "p/q/r = 7L at 450");
	finish(&f, 500);
	check_late(&f);
	if (fx_reopen(&f))
		check_late(&f);
	fx_done(&f);
}

/* ---- 2. a change at t ends the previous interval at t - 1 --------------- */

static void check_ends(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 120, I32(2) }, { 121, 121, I32(3) },
			   { 122, 200, NUL() }));
	expect(f, "b", IVS({ 100, 100, STR("first") },
			   { 101, 200, STR("second") }));
}

void sc_ends(sht_backend b)
{
	fx f;
	sht_quark a, bq;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	mod(&f, 100, bq, STR("first"), SHT_OK, "b = first at the start");
	mod(&f, 101, bq, STR("second"), SHT_OK, "b = second at 101");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 120, a, I32(2), SHT_OK, "a = 2 at 120");
	mod(&f, 121, a, I32(3), SHT_OK, "a = 3 at 121");
	mod(&f, 122, a, NUL(), SHT_OK, "a = null at 122");
	finish(&f, 200);
	check_ends(&f);
	if (fx_reopen(&f))
		check_ends(&f);
	fx_done(&f);
}

/* ---- 3. the same value extends the interval ------------------------------- */

static const char nul1[] = { 'a', '\0', 'b' };
static const char nul2[] = { 'a', '\0', 'c' };

static void check_same(fx *f)
{
	expect(f, "i", IVS({ 100, 109, NUL() }, { 110, 300, I32(1) }));
	expect(f, "n", IVS({ 100, 300, NUL() }));
	expect(f, "s", IVS({ 100, 119, NUL() }, { 120, 139, STRN(nul1, 3) },
			   { 140, 159, STRN(nul2, 3) }, { 160, 179, STR("a") },
			   { 180, 300, STR("") }));
	expect(f, "d", IVS({ 100, 119, NUL() }, { 120, 129, DBL(0.0) },
			   { 130, 139, DBL(-0.0) }, { 140, 300, DBL(NAN) }));
	expect(f, "l", IVS({ 100, 149, NUL() }, { 150, 300, I64(5) }));
}

void sc_same(sht_backend b)
{
	fx f;
	sht_quark i, n, s, d, l;

	fx_create(&f, b, 100);
	i = Q(&f, "i");
	n = Q(&f, "n");
	s = Q(&f, "s");
	d = Q(&f, "d");
	l = Q(&f, "l");
	mod(&f, 105, n, NUL(), SHT_OK, "n = null (already null) at 105");
	mod(&f, 110, i, I32(1), SHT_OK, "i = 1 at 110");
	mod(&f, 120, i, I32(1), SHT_OK, "i = 1 again at 120");
	mod(&f, 120, s, STRN(nul1, 3), SHT_OK, "s = a\\0b at 120");
	mod(&f, 120, d, DBL(0.0), SHT_OK, "d = 0.0 at 120");
	mod(&f, 130, d, DBL(0.0), SHT_OK, "d = 0.0 again at 130");
	mod(&f, 130, d, DBL(-0.0), SHT_OK, "d = -0.0 at 130 (other bits)");
	mod(&f, 130, s, STRN(nul1, 3), SHT_OK, "s = a\\0b again at 130");
	mod(&f, 140, s, STRN(nul2, 3), SHT_OK, "s = a\\0c at 140");
	mod(&f, 140, d, DBL(NAN), SHT_OK, "d = NaN at 140");
	mod(&f, 150, d, DBL(NAN), SHT_OK, "d = NaN again at 150 (same bits)");
	mod(&f, 150, l, I64(5), SHT_OK, "l = 5L at 150");
	mod(&f, 155, l, I64(5), SHT_OK, "l = 5L again at 155");
	mod(&f, 160, s, STR("a"), SHT_OK, "s = a (a prefix) at 160");
	mod(&f, 170, i, I32(1), SHT_OK, "i = 1 again at 170");
	mod(&f, 180, s, STR(""), SHT_OK, "s = empty string at 180");
	mod(&f, 190, s, STR(""), SHT_OK, "s = empty string again at 190");
	mod(&f, 190, n, NUL(), SHT_OK, "n = null again at 190");
	finish(&f, 300);
	check_same(&f);
	if (fx_reopen(&f))
		check_same(&f);
	fx_done(&f);
}

/* ---- 4. several changes at one timestamp -------------------------------- */

static void check_burst(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 300, I32(3) }));
	/* A -> B -> A at 120: two adjacent intervals, both A. */
	expect(f, "b", IVS({ 100, 109, NUL() }, { 110, 119, STR("A") },
			   { 120, 300, STR("A") }));
	/* Changes at the history start: the last one from the start. */
	expect(f, "c", IVS({ 100, 300, I32(9) }));
	/* A change then back to null at one time: [100, 129] null then
	 * [130, ...] null. */
	expect(f, "d", IVS({ 100, 129, NUL() }, { 130, 300, NUL() }));
	/* Null -> 1 -> null at the start: one null interval. */
	expect(f, "e", IVS({ 100, 300, NUL() }));
}

void sc_burst(sht_backend b)
{
	fx f;
	sht_quark a, bq, c, d, e;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	d = Q(&f, "d");
	e = Q(&f, "e");
	mod(&f, 100, c, I32(8), SHT_OK, "c = 8 at the start");
	mod(&f, 100, c, I32(9), SHT_OK, "c = 9 at the start");
	mod(&f, 100, e, I32(1), SHT_OK, "e = 1 at the start");
	mod(&f, 100, e, NUL(), SHT_OK, "e = null at the start");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 110, a, I32(2), SHT_OK, "a = 2 at 110");
	mod(&f, 110, a, I32(3), SHT_OK, "a = 3 at 110");
	mod(&f, 110, bq, STR("A"), SHT_OK, "b = A at 110");
	mod(&f, 120, bq, STR("B"), SHT_OK, "b = B at 120");
	mod(&f, 120, bq, STR("A"), SHT_OK, "b = A at 120");
	mod(&f, 130, d, I32(4), SHT_OK, "d = 4 at 130");
	mod(&f, 130, d, NUL(), SHT_OK, "d = null at 130");
	finish(&f, 300);
	check_burst(&f);
	if (fx_reopen(&f))
		check_burst(&f);
	fx_done(&f);
}

/* ---- 5. type lock ---------------------------------------------------------- */

static void check_types(fx *f)
{
	expect(f, "i", IVS({ 100, 109, NUL() }, { 110, 129, I32(1) },
			   { 130, 149, NUL() }, { 150, 300, I32(2) }));
	expect(f, "s", IVS({ 100, 119, NUL() }, { 120, 300, STR("x") }));
	expect(f, "l", IVS({ 100, 139, NUL() }, { 140, 300, I64(1) }));
	expect(f, "d", IVS({ 100, 300, DBL(2.5) }));
	expect(f, "u", IVS({ 100, 169, STR("no lock") }, { 170, 300, I64(5) }));
}

void sc_types(sht_backend b)
{
	fx f;
	sht_quark i, s, l, d, u;

	fx_create(&f, b, 100);
	i = Q(&f, "i");
	s = Q(&f, "s");
	l = Q(&f, "l");
	d = Q(&f, "d");
	u = Q(&f, "u");
	mod(&f, 100, d, DBL(2.5), SHT_OK, "d = 2.5 at the start");
	mod(&f, 105, i, NUL(), SHT_OK, "null on a fresh attribute");
	mod(&f, 106, i, NUL(), SHT_OK, "null again (locks nothing)");
	mod(&f, 110, i, I32(1), SHT_OK, "i = 1 (locks int)");
	mod(&f, 120, i, STR("x"), SHT_ERR_TYPE, "string into an int");
	mod(&f, 120, i, I64(1), SHT_ERR_TYPE, "long into an int");
	mod(&f, 120, i, DBL(1.0), SHT_ERR_TYPE, "double into an int");
	mod(&f, 120, s, STR("x"), SHT_OK, "s = x (locks string)");
	mod(&f, 125, s, I32(1), SHT_ERR_TYPE, "int into a string");
	mod(&f, 130, i, NUL(), SHT_OK, "null into an int is allowed");
	mod(&f, 140, i, STR("x"), SHT_ERR_TYPE,
	    "string into an int that is null now (still locked)");
	mod(&f, 140, l, I64(1), SHT_OK, "l = 1L (locks long)");
	mod(&f, 145, l, I32(1), SHT_ERR_TYPE, "int into a long");
	mod(&f, 145, d, I32(2), SHT_ERR_TYPE, "int into a double");
	mod(&f, 150, i, I32(2), SHT_OK, "int into the int again");
	/* A refused value changes nothing (no interval). */
	mod(&f, 160, s, DBL(1.0), SHT_ERR_TYPE, "double into a string");
	/* update-ongoing does not lock: u gets a string, then longs. */
	{
		sht_value v = NUL();

		st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
		   "update-ongoing u with null");
		v = STR("no lock");
		st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
		   "update-ongoing u with a string");
	}
	mod(&f, 170, u, I64(5), SHT_OK,
	    "u = 5L after update-ongoing (no lock from it)");
	mod(&f, 170, u, STR("x"), SHT_ERR_TYPE, "string into u, now long");
	finish(&f, 300);
	check_types(&f);
	if (fx_reopen(&f))
		check_types(&f);
	fx_done(&f);
}

/*
 * Trace Compass (TransientState.processStateChange) records the type of
 * the first non-null value before comparing it with the ongoing one, so
 * a modify that writes the value already there (put there by
 * update-ongoing) still locks the type.
 */
void sc_lock_on_same_value(sht_backend b)
{
	fx f;
	sht_quark u;
	sht_value v = STR("s");

	fx_create(&f, b, 100);
	u = Q(&f, "u");
	st(&f, sht_state_update_ongoing(f.ss, u, &v), SHT_OK,
	   "update-ongoing u = s");
	mod(&f, 110, u, STR("s"), SHT_OK, "u = s (same value: no interval)");
	mod(&f, 120, u, I32(1), SHT_ERR_TYPE,
	    "int into u: its type was locked by the same-value modify");
	finish(&f, 200);
	expect(&f, "u", IVS({ 100, 200, STR("s") }));
	fx_done(&f);
}
