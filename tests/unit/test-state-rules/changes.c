/*
 * changes.c: test-state-rules, rules 6-10: clear, push and pop, increment,
 * update-ongoing, finish.
 */
#include "state-rules.h"

/* ---- 6. clear ---------------------------------------------------------------- */

static void check_clear(fx *f)
{
	expect(f, "p", IVS({ 100, 109, NUL() }, { 110, 199, I32(1) },
			   { 200, 400, NUL() }));
	expect(f, "p/a", IVS({ 100, 109, NUL() }, { 110, 199, I32(2) },
			     { 200, 400, NUL() }));
	expect(f, "p/a/x", IVS({ 100, 109, NUL() }, { 110, 199, STR("x") },
			       { 200, 400, NUL() }));
	/* Already null: cleared without a new interval. */
	expect(f, "p/a/y", IVS({ 100, 400, NUL() }));
	expect(f, "p/b", IVS({ 100, 109, NUL() }, { 110, 199, I64(3) },
			     { 200, 400, NUL() }));
	/* Set at 200 then cleared at 200: the value is replaced in place,
	 * which leaves two adjacent null intervals. */
	expect(f, "p/c", IVS({ 100, 199, NUL() }, { 200, 400, NUL() }));
	/* Outside the subtree: untouched. */
	expect(f, "q", IVS({ 100, 109, NUL() }, { 110, 400, I32(5) }));
	/* A leaf cleared, then set again. */
	expect(f, "q/z", IVS({ 100, 109, NUL() }, { 110, 249, I32(6) },
			     { 250, 259, NUL() }, { 260, 400, I32(7) }));
}

void sc_clear(sht_backend b)
{
	fx f;
	sht_quark p, pa, px, pb, pc, qq, qz;

	fx_create(&f, b, 100);
	p = Q(&f, "p");
	pa = Q(&f, "p/a");
	px = Q(&f, "p/a/x");
	Q(&f, "p/a/y");
	pb = Q(&f, "p/b");
	qq = Q(&f, "q");
	qz = Q(&f, "q/z");
	mod(&f, 110, p, I32(1), SHT_OK, "p = 1");
	mod(&f, 110, pa, I32(2), SHT_OK, "p/a = 2");
	mod(&f, 110, px, STR("x"), SHT_OK, "p/a/x = x");
	mod(&f, 110, pb, I64(3), SHT_OK, "p/b = 3L");
	mod(&f, 110, qq, I32(5), SHT_OK, "q = 5");
	mod(&f, 110, qz, I32(6), SHT_OK, "q/z = 6");
	pc = Q(&f, "p/c");
	mod(&f, 200, pc, I32(9), SHT_OK, "p/c = 9 at 200");
	st(&f, sht_state_clear(f.ss, 200, p), SHT_OK, "clear p at 200");
	st(&f, sht_state_clear(f.ss, 250, qz), SHT_OK, "clear q/z at 250");
	st(&f, sht_state_clear(f.ss, 255, qz), SHT_OK, "clear q/z again");
	mod(&f, 260, qz, I32(7), SHT_OK, "q/z = 7 at 260");
	mod(&f, 270, pa, STR("x"), SHT_ERR_TYPE,
	    "clear keeps the type lock of p/a");
	finish(&f, 400);
	check_clear(&f);
	if (fx_reopen(&f))
		check_clear(&f);
	fx_done(&f);
}

/* ---- 7. push / pop ---------------------------------------------------------- */

static void popped_is(fx *f, sht_time t, sht_quark q, sht_err want_rc,
		      sht_value want, const char *what)
{
	sht_value got = sht_value_int32(-12345);
	sht_err rc = sht_state_pop(f->ss, t, q, &got);
	char gb[128], wb[128];

	if (!ok(rc == want_rc && (rc != SHT_OK || sm_value_eq(&got, &want)),
		"%s: %s", f->bname, what))
		diag("  got %s %s, want %s %s", sht_err_name(rc),
		     sm_value_str(&got, gb, sizeof gb), sht_err_name(want_rc),
		     sm_value_str(&want, wb, sizeof wb));
}

void push(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
	  const char *what)
{
	st(f, sht_state_push(f->ss, t, q, &v), want, what);
}

static void check_stack(fx *f)
{
	expect(f, "s", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 129, I32(2) }, { 130, 139, I32(1) },
			   { 140, 159, NUL() }, { 160, 500, NUL() }));
	expect(f, "s/1", IVS({ 100, 109, NUL() }, { 110, 139, STR("f") },
			     { 140, 500, NUL() }));
	expect(f, "s/2", IVS({ 100, 119, NUL() }, { 120, 129, STR("g") },
			     { 130, 500, NUL() }));
	/* The element's children are cleared with it. */
	expect(f, "s/2/x", IVS({ 100, 124, NUL() }, { 125, 129, I32(3) },
			       { 130, 500, NUL() }));
	/* Push and pop at one timestamp. */
	expect(f, "t", IVS({ 100, 199, NUL() }, { 200, 500, NUL() }));
	expect(f, "t/1", IVS({ 100, 199, NUL() }, { 200, 500, NUL() }));
	/* A stack of longs, left pushed. */
	expect(f, "u", IVS({ 100, 209, NUL() }, { 210, 219, I32(1) },
			   { 220, 500, I32(2) }));
	expect(f, "u/1", IVS({ 100, 209, NUL() }, { 210, 500, I64(10) }));
	expect(f, "u/2", IVS({ 100, 219, NUL() }, { 220, 500, DBL(0.5) }));
	expect(f, "w", IVS({ 100, 299, NUL() }, { 300, 500, STR("not int") }));
}

void sc_stack(sht_backend b)
{
	fx f;
	sht_quark s, s2x, t, u, w;
	sht_value ov;
	sht_time since;

	fx_create(&f, b, 100);
	s = Q(&f, "s");
	popped_is(&f, 105, s, SHT_NOT_FOUND, NUL(), "pop on a fresh stack");
	push(&f, 110, s, STR("f"), SHT_OK, "push f at 110");
	st(&f, sht_state_ongoing(f.ss, s, &ov, &since), SHT_OK, "ongoing s");
	ok(ov.type == SHT_TYPE_INT32 && ov.u.i32 == 1 && since == 110,
	   "%s: s holds int 1 since 110", f.bname);
	push(&f, 120, s, STR("g"), SHT_OK, "push g at 120");
	is_int(sht_state_attr_count(f.ss), 3, "%s: s, s/1, s/2", f.bname);
	s2x = Q(&f, "s/2/x");
	mod(&f, 125, s2x, I32(3), SHT_OK, "s/2/x = 3");
	{
		/* The popped string stays valid until the next change
		 * (queries and look-ups are not changes). */
		sht_value got;
		sht_result *res = sht_result_create();
		sht_quark tmp;

		st(&f, sht_state_pop(f.ss, 130, s, &got), SHT_OK,
		   "pop at 130");
		if (b != SHT_BACKEND_NULL)
			sht_state_query(f.ss, s, 125, res);
		sht_state_quark_path(f.ss, "s/2", false, &tmp);
		ok(got.type == SHT_TYPE_STRING && got.len == 1 &&
		   got.u.str[0] == 'g' && got.u.str[1] == '\0',
		   "%s: pop at 130 gave \"g\", still readable after a query",
		   f.bname);
		sht_result_destroy(res);
	}
	popped_is(&f, 140, s, SHT_OK, STR("f"), "pop at 140 gives f");
	popped_is(&f, 150, s, SHT_NOT_FOUND, NUL(), "pop on the emptied stack");
	/* A popped value with the NULL out pointer. */
	push(&f, 160, s, NUL(), SHT_OK, "push null at 160");
	st(&f, sht_state_pop(f.ss, 160, s, NULL), SHT_OK,
	   "pop at 160 into NULL (gives null, not \"empty\")");

	t = Q(&f, "t");
	push(&f, 200, t, I32(4), SHT_OK, "push 4 on t at 200");
	popped_is(&f, 200, t, SHT_OK, I32(4), "pop t at 200 gives 4");

	u = Q(&f, "u");
	push(&f, 210, u, I64(10), SHT_OK, "push 10L on u");
	push(&f, 220, u, DBL(0.5), SHT_OK, "push 0.5 on u");

	w = Q(&f, "w");
	mod(&f, 300, w, STR("not int"), SHT_OK, "w = a string");
	push(&f, 300, w, I32(1), SHT_ERR_TYPE, "push on a string attribute");
	popped_is(&f, 300, w, SHT_ERR_TYPE, NUL(), "pop on a string attribute");
	is_int(sht_state_attr_count(f.ss), 10,
	       "%s: refused pushes created nothing", f.bname);
	finish(&f, 500);
	check_stack(&f);
	if (fx_reopen(&f))
		check_stack(&f);
	fx_done(&f);
}

/*
 * Trace Compass's pushAttribute: modify(depth) then modify(element); when
 * the second fails with a type error, the first stays.  z above: after
 * the refused push at 330 z holds 1 from 330.  Checked separately so its
 * outcome does not hide the rest.
 */
void sc_stack_partial(sht_backend b)
{
	fx f;
	sht_quark z;

	fx_create(&f, b, 100);
	z = Q(&f, "z");
	push(&f, 310, z, STR("s"), SHT_OK, "push s on z");
	popped_is(&f, 320, z, SHT_OK, STR("s"), "pop z");
	push(&f, 330, z, I32(1), SHT_ERR_TYPE, "push an int: z/1 holds strings");
	finish(&f, 500);
	expect(&f, "z", IVS({ 100, 309, NUL() }, { 310, 319, I32(1) },
			   { 320, 329, NUL() }, { 330, 500, I32(1) }));
	expect(&f, "z/1", IVS({ 100, 309, NUL() }, { 310, 319, STR("s") },
			     { 320, 500, NUL() }));
	fx_done(&f);
}

/* Deep stacks: LIFO order over 200 elements, and SHT_STACK_MAX once. */
void sc_stack_deep(sht_backend b, int limit)
{
	fx f;
	sht_quark s;
	int i, good = 1;
	sht_value got;
	sht_err rc;
	uint64_t n0;

	fx_create(&f, b, 0);
	s = Q(&f, "deep");
	for (i = 1; i <= 200; i++) {
		sht_value v = I64(i * 3);

		rc = sht_state_push(f.ss, i, s, &v);
		if (rc != SHT_OK && good) {
			diag("  push %d: %s", i, sht_err_name(rc));
			good = 0;
		}
	}
	for (i = 200; i >= 1; i--) {
		rc = sht_state_pop(f.ss, 1000 - i, s, &got);
		if ((rc != SHT_OK || got.type != SHT_TYPE_INT64 ||
		     got.u.i64 != i * 3) && good) {
			diag("  pop %d: %s", i, sht_err_name(rc));
			good = 0;
		}
	}
	ok(good, "%s: 200 pushes then 200 pops in LIFO order", f.bname);
	popped_is(&f, 1000, s, SHT_NOT_FOUND, NUL(), "then empty");
	if (limit) {
		for (i = 1, good = 1; i <= SHT_STACK_MAX; i++) {
			sht_value v = I64(i);

			rc = sht_state_push(f.ss, 2000, s, &v);
			if (rc != SHT_OK) {
				diag("  push %d: %s", i, sht_err_name(rc));
				good = 0;
				break;
			}
		}
		ok(good, "%s: %d pushes at one timestamp", f.bname,
		   SHT_STACK_MAX);
		n0 = sht_state_attr_count(f.ss);
		push(&f, 2001, s, I64(-1), SHT_ERR_TOOBIG,
		     "push past SHT_STACK_MAX");
		is_int(sht_state_attr_count(f.ss), n0,
		       "%s: the refused push created nothing", f.bname);
		st(&f, sht_state_ongoing(f.ss, s, &got, NULL), SHT_OK,
		   "ongoing depth");
		ok(got.type == SHT_TYPE_INT32 && got.u.i32 == SHT_STACK_MAX,
		   "%s: depth stays %d", f.bname, SHT_STACK_MAX);
		popped_is(&f, 2002, s, SHT_OK, I64(SHT_STACK_MAX),
			  "pop the top");
		push(&f, 2003, s, I64(7), SHT_OK, "push again below the limit");
	}
	finish(&f, 3000);
	if (b != SHT_BACKEND_NULL && limit) {
		char path[32];

		snprintf(path, sizeof path, "deep/%d", SHT_STACK_MAX);
		expect(&f, path, IVS({ 0, 1999, NUL() },
				     { 2000, 2001, I64(SHT_STACK_MAX) },
				     { 2002, 2002, NUL() },
				     { 2003, 3000, I64(7) }));
	}
	fx_done(&f);
}

/* ---- 8. increment ------------------------------------------------------------ */

static void check_incr(fx *f)
{
	expect(f, "c", IVS({ 100, 109, NUL() }, { 110, 119, I32(1) },
			   { 120, 129, I32(6) }, { 130, 139, I32(-4) },
			   { 140, 300, I32(0) }));
	expect(f, "l", IVS({ 100, 109, NUL() }, { 110, 119, I64(1) },
			   { 120, 129, NUL() }, { 130, 139, I64(7) },
			   { 140, 300, I64(8000000007) }));
	expect(f, "z", IVS({ 100, 149, NUL() }, { 150, 300, I32(0) }));
	expect(f, "s", IVS({ 100, 159, NUL() }, { 160, 169, STR("x") },
			   { 170, 300, NUL() }));
}

void sc_incr(sht_backend b)
{
	fx f;
	sht_quark c, l, z, s, d;

	fx_create(&f, b, 100);
	c = Q(&f, "c");
	l = Q(&f, "l");
	z = Q(&f, "z");
	s = Q(&f, "s");
	d = Q(&f, "d");
	st(&f, sht_state_increment(f.ss, 110, c, 1), SHT_OK,
	   "increment a null: int 1");
	mod(&f, 110, l, I64(1), SHT_OK, "l = 1L");
	st(&f, sht_state_increment(f.ss, 120, c, 5), SHT_OK, "+5: 6");
	mod(&f, 120, l, NUL(), SHT_OK, "l = null");
	st(&f, sht_state_increment(f.ss, 130, c, -10), SHT_OK, "-10: -4");
	st(&f, sht_state_increment(f.ss, 130, l, 7), SHT_OK,
	   "increment a null locked to long: long 7");
	st(&f, sht_state_increment(f.ss, 135, c, 0), SHT_OK,
	   "+0: same value, nothing");
	st(&f, sht_state_increment(f.ss, 140, c, 4), SHT_OK, "+4: 0");
	st(&f, sht_state_increment(f.ss, 140, l, 8000000000), SHT_OK,
	   "long + 8e9");
	st(&f, sht_state_increment(f.ss, 150, z, 0), SHT_OK,
	   "increment a null by 0: int 0 (a new value)");
	mod(&f, 160, s, STR("x"), SHT_OK, "s = x");
	st(&f, sht_state_increment(f.ss, 165, s, 1), SHT_ERR_TYPE,
	   "increment a string");
	mod(&f, 170, s, NUL(), SHT_OK, "s = null");
	st(&f, sht_state_increment(f.ss, 175, s, 1), SHT_ERR_TYPE,
	   "increment a null locked to string (int result refused)");
	mod(&f, 180, d, DBL(1.0), SHT_OK, "d = 1.0");
	st(&f, sht_state_increment(f.ss, 185, d, 1), SHT_ERR_TYPE,
	   "increment a double");
	finish(&f, 300);
	check_incr(&f);
	if (fx_reopen(&f))
		check_incr(&f);
	fx_done(&f);
}

/* ---- 9. update-ongoing --------------------------------------------------- */

static void check_upd(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 179, I32(5) },
			   { 180, 199, STR("str") }, { 200, 300, I32(7) }));
	expect(f, "b", IVS({ 100, 300, DBL(3.5) }));
	expect(f, "c", IVS({ 100, 149, NUL() }, { 150, 300, I64(1) }));
}

void sc_upd(sht_backend b)
{
	fx f;
	sht_quark a, bq, c;
	sht_value v;
	sht_time since;

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1 at 110");
	mod(&f, 150, c, I64(1), SHT_OK, "c = 1L at 150");
	v = I32(5);
	st(&f, sht_state_update_ongoing(f.ss, a, &v), SHT_OK,
	   "update-ongoing a = 5: covers [110, ...]");
	st(&f, sht_state_ongoing(f.ss, a, &v, &since), SHT_OK, "ongoing a");
	ok(v.type == SHT_TYPE_INT32 && v.u.i32 == 5 && since == 110,
	   "%s: a holds 5 since 110", f.bname);
	mod(&f, 160, a, STR("x"), SHT_ERR_TYPE, "a is locked to int");
	mod(&f, 170, a, I32(5), SHT_OK, "a = 5 at 170: the same value");
	mod(&f, 180, a, I32(6), SHT_OK, "a = 6 at 180");
	v = STR("str");
	st(&f, sht_state_update_ongoing(f.ss, a, &v), SHT_OK,
	   "update-ongoing a = str: no type check");
	mod(&f, 190, a, STR("str"), SHT_ERR_TYPE,
	    "the lock is still int after update-ongoing");
	mod(&f, 200, a, I32(7), SHT_OK, "a = 7 at 200");
	v = DBL(3.5);
	st(&f, sht_state_update_ongoing(f.ss, bq, &v), SHT_OK,
	   "update-ongoing of a fresh attribute: from the start");
	mod(&f, 120, c, I64(9), SHT_ERR_ORDER, "c at 120 < 200: order");
	finish(&f, 300);
	check_upd(&f);
	if (fx_reopen(&f))
		check_upd(&f);
	fx_done(&f);
}

/* ---- 10. finish ------------------------------------------------------------- */

static void check_fin(fx *f)
{
	expect(f, "a", IVS({ 100, 109, NUL() }, { 110, 1000, I32(1) }));
	expect(f, "b", IVS({ 100, 999, NUL() }, { 1000, 1000, STR("last") }));
	expect(f, "c", IVS({ 100, 1000, NUL() }));
	expect(f, "c/d", IVS({ 100, 1000, NUL() }));
	is_int(sht_state_start(f->ss), 100, "%s: start 100", fx_tag(f));
	is_int(sht_state_end(f->ss), 1000, "%s: end 1000", fx_tag(f));
}

void sc_fin(sht_backend b)
{
	fx f;
	sht_quark a, bq, c;
	sht_value v = I32(2);

	fx_create(&f, b, 100);
	a = Q(&f, "a");
	bq = Q(&f, "b");
	c = Q(&f, "c");
	Q(&f, "c/d");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1");
	mod(&f, 1000, bq, STR("last"), SHT_OK, "b = last at 1000");
	is_int(sht_state_end(f.ss), 1000, "%s: end while building = 1000",
	       f.bname);
	st(&f, sht_state_finish(f.ss, 999), SHT_ERR_ORDER,
	   "finish before the last change");
	finish(&f, 1000);
	mod(&f, 1001, a, I32(3), SHT_ERR_STATE, "modify after finish");
	st(&f, sht_state_clear(f.ss, 1001, c), SHT_ERR_STATE,
	   "clear after finish");
	st(&f, sht_state_push(f.ss, 1001, c, &v), SHT_ERR_STATE,
	   "push after finish");
	st(&f, sht_state_pop(f.ss, 1001, c, NULL), SHT_ERR_STATE,
	   "pop after finish");
	st(&f, sht_state_increment(f.ss, 1001, c, 1), SHT_ERR_STATE,
	   "increment after finish");
	st(&f, sht_state_update_ongoing(f.ss, c, &v), SHT_ERR_STATE,
	   "update-ongoing after finish");
	st(&f, sht_state_finish(f.ss, 2000), SHT_ERR_STATE, "finish twice");
	check_fin(&f);
	if (fx_reopen(&f)) {
		sht_quark q;

		check_fin(&f);
		mod(&f, 1001, a, I32(3), SHT_ERR_STATE,
		    "modify an opened history");
		st(&f, sht_state_quark_path(f.ss, "new", true, &q), SHT_ERR_STATE,
		   "create an attribute in an opened history");
		st(&f, sht_state_finish(f.ss, 2000), SHT_ERR_STATE,
		   "finish an opened history");
	}
	fx_done(&f);

	/* Finish later than the last change. */
	fx_create(&f, b, 0);
	a = Q(&f, "a");
	mod(&f, 5, a, I32(1), SHT_OK, "a = 1 at 5");
	finish(&f, 1000000);
	expect(&f, "a", IVS({ 0, 4, NUL() }, { 5, 1000000, I32(1) }));
	fx_done(&f);

	/* Nothing at all: an empty history [7, 7], and one without
	 * attributes. */
	fx_create(&f, b, 7);
	finish(&f, 7);
	if (b != SHT_BACKEND_NULL) {
		sht_result *res = sht_result_create();

		is_int(sht_state_query_full(f.ss, 7, res), SHT_OK,
		       "%s: full query of a history without attributes",
		       f.bname);
		is_int(sht_result_count(res), 0, "%s: nothing in it", f.bname);
		sht_result_destroy(res);
	}
	if (fx_reopen(&f)) {
		is_int(sht_state_attr_count(f.ss), 0, "%s: no attributes",
		       fx_tag(&f));
		is_int(sht_state_end(f.ss), 7, "%s: end 7", fx_tag(&f));
	}
	fx_done(&f);
}
