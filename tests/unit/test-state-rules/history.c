/*
 * history.c: test-state-rules, rules 15-19: the attribute tree and its names across a
 * reopen, the provider identity, the null backend, big strings, the life
 * cycle.
 */
#include "state-rules.h"

/* ---- 15. attribute tree, names, reopen ------------------------------------ */

static void check_attrs(fx *f)
{
	static const char *const el[] = { "IRQs", "1/i8042" };
	static const char *const rel[] = { "x", "y" };
	sht_state *ss = f->ss;
	sht_quark q, irq, parent, *m = NULL;
	const sht_quark *kids;
	size_t nk, nm, len, need;
	const char *name;
	char buf[64];
	sht_err rc;

	is_int(sht_state_attr_count(ss), 9, "%s: 9 attributes", fx_tag(f));
	rc = sht_state_quark_find(ss, SHT_QUARK_ROOT, el, 2, &irq);
	ok(rc == SHT_OK && irq == 2, "%s: IRQs/\"1/i8042\" is quark 2",
	   fx_tag(f));
	rc = sht_state_attr_name(ss, 2, &name, &len);
	ok(rc == SHT_OK && len == 7 && memcmp(name, "1/i8042", 7) == 0,
	   "%s: its name holds the slash", fx_tag(f));
	rc = sht_state_attr_path(ss, 2, buf, sizeof buf, &need);
	ok(rc == SHT_OK && need == 12 && strcmp(buf, "IRQs/1/i8042") == 0,
	   "%s: path IRQs/1/i8042 (not escaped)", fx_tag(f));
	rc = sht_state_attr_path(ss, 2, buf, 5, &need);
	ok(rc == SHT_ERR_BUFFER && need == 12 && strlen(buf) < 5,
	   "%s: path into a small buffer: BUFFER, need 12, NUL-terminated",
	   fx_tag(f));
	rc = sht_state_quark_path(ss, "IRQs/1/i8042", false, &q);
	is_int(rc, SHT_NOT_FOUND, "%s: the string form splits at every /",
	       fx_tag(f));
	rc = sht_state_quark_find(ss, SHT_QUARK_ROOT, (const char *const[]){
		"IRQs", "nope" }, 2, &q);
	is_int(rc, SHT_NOT_FOUND, "%s: find of a missing path", fx_tag(f));
	ok(sht_state_quark_find(ss, 999, rel, 2, &q) < 0,
	   "%s: find below an unknown quark fails", fx_tag(f));
	rc = sht_state_quark_find(ss, 3, rel, 2, &q);
	ok(rc == SHT_OK && q == 5, "%s: relative find CPUs/x/y = 5",
	   fx_tag(f));
	rc = sht_state_attr_children(ss, SHT_QUARK_ROOT, &kids, &nk);
	ok(rc == SHT_OK && nk == 3 && kids[0] == 0 && kids[1] == 1 &&
	   kids[2] == 3, "%s: top level: Threads, IRQs, CPUs (creation order)",
	   fx_tag(f));
	rc = sht_state_attr_children(ss, 3, &kids, &nk);
	ok(rc == SHT_OK && nk == 3 && kids[0] == 4 && kids[1] == 6 &&
	   kids[2] == 7, "%s: CPUs: x, 10, 2 (creation order, not sorted)",
	   fx_tag(f));
	rc = sht_state_attr_parent(ss, 5, &parent);
	ok(rc == SHT_OK && parent == 4, "%s: parent of y is x", fx_tag(f));
	rc = sht_state_attr_parent(ss, 0, &parent);
	ok(rc == SHT_OK && parent == SHT_QUARK_ROOT,
	   "%s: parent of a top-level attribute is the root", fx_tag(f));
	is_int(sht_state_attr_name(ss, 9, &name, &len), SHT_ERR_RANGE,
	       "%s: name of an unknown quark", fx_tag(f));
	is_int(sht_state_attr_parent(ss, 9, &parent), SHT_ERR_RANGE,
	       "%s: parent of an unknown quark", fx_tag(f));
	rc = sht_state_attr_match(ss, "CPUs/*", &m, &nm);
	ok(rc == SHT_OK && nm == 3 && m[0] == 4 && m[1] == 6 && m[2] == 7,
	   "%s: match CPUs/* -> x, 10, 2", fx_tag(f));
	free(m);
	m = NULL;
	rc = sht_state_attr_match(ss, "CPUs/*/*", &m, &nm);
	ok(rc == SHT_OK && nm == 2 && m[0] == 5 && m[1] == 8,
	   "%s: match CPUs/*/* -> x/y, 2/z", fx_tag(f));
	free(m);
	m = NULL;
	rc = sht_state_attr_match(ss, "nothing/*", &m, &nm);
	ok(rc == SHT_OK && nm == 0, "%s: no match", fx_tag(f));
	free(m);
	expect(f, "CPUs/2/z", IVS({ 10, 19, NUL() }, { 20, 30, STR("z") }));
	expect(f, "Threads", IVS({ 10, 30, NUL() }));
}

void sc_attrs(sht_backend b)
{
	static const char *const el[] = { "IRQs", "1/i8042" };
	static const char *const rel[] = { "x", "y" };
	fx f;
	sht_quark q, cpus;

	fx_create(&f, b, 10);
	Q(&f, "Threads");                                    /* 0 */
	st(&f, sht_state_quark(f.ss, SHT_QUARK_ROOT, el, 2, &q), SHT_OK,
	   "get-or-create IRQs/\"1/i8042\"");                 /* 1, 2 */
	cpus = Q(&f, "CPUs");                                /* 3 */
	st(&f, sht_state_quark(f.ss, cpus, rel, 2, &q), SHT_OK,
	   "relative get-or-create CPUs/x/y");               /* 4, 5 */
	is_int(q, 5, "%s: CPUs/x/y = 5", f.bname);
	Q(&f, "CPUs/10");                                    /* 6 */
	q = Q(&f, "CPUs/2/z");                               /* 7, 8 */
	st(&f, sht_state_quark(f.ss, SHT_QUARK_ROOT, el, 2, &q), SHT_OK,
	   "get-or-create again");
	is_int(q, 2, "%s: existing quark 2 again", f.bname);
	mod(&f, 20, Q(&f, "CPUs/2/z"), STR("z"), SHT_OK, "CPUs/2/z = z");
	finish(&f, 30);
	check_attrs(&f);
	if (fx_reopen(&f))
		check_attrs(&f);
	fx_done(&f);
}

/* ---- 16. provider identity ------------------------------------------------- */

void sc_provider(sht_backend b)
{
	fx f;
	const char *id = NULL;
	uint32_t ver = 99;

	if (b == SHT_BACKEND_NULL)
		return;
	fx_create_opts(&f, b, 0, "org.eclipse.tracecompass.analysis.os.linux.kernel", 31, 0);
	Q(&f, "a");
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && strcmp(id, "org.eclipse.tracecompass.analysis.os.linux.kernel") == 0 &&
	   ver == 31, "%s: provider identity and version 31", f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && strcmp(id, "org.eclipse.tracecompass.analysis.os.linux.kernel") == 0 &&
		   ver == 31, "%s: provider identity round trip", fx_tag(&f));
	}
	fx_done(&f);

	/* None given: "" and 0. */
	fx_create(&f, b, 0);
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && *id == '\0' && ver == 0, "%s: no provider: \"\" and 0",
	   f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && *id == '\0' && ver == 0,
		   "%s: no provider: \"\" and 0", fx_tag(&f));
	}
	fx_done(&f);

	/* A version without a name survives the round trip too. */
	fx_create_opts(&f, b, 0, "", 5, 0);
	finish(&f, 10);
	st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
	ok(id && *id == '\0' && ver == 5, "%s: provider \"\" version 5",
	   f.bname);
	if (fx_reopen(&f)) {
		id = NULL;
		ver = 99;
		st(&f, sht_state_provider(f.ss, &id, &ver), SHT_OK, "provider");
		ok(id && *id == '\0' && ver == 5,
		   "%s: provider \"\" version 5 round trip (got \"%s\" %u)",
		   fx_tag(&f), id ? id : "(null)", (unsigned)ver);
	}
	fx_done(&f);
}

/* ---- 17. the null backend -------------------------------------------------- */

void sc_null_queries(void)
{
	fx f;
	sht_quark a;
	sht_result *res = sht_result_create();
	sht_query2d q2;
	sht_value v;
	sht_time since;

	fx_create(&f, SHT_BACKEND_NULL, 100);
	a = Q(&f, "a");
	mod(&f, 110, a, I32(1), SHT_OK, "a = 1");
	st(&f, sht_state_ongoing(f.ss, a, &v, &since), SHT_OK, "ongoing a");
	ok(v.type == SHT_TYPE_INT32 && v.u.i32 == 1 && since == 110,
	   "null: the ongoing state is kept (1 since 110)");
	ok(sht_state_query(f.ss, a, 110, res) < 0,
	   "null: single query while building fails");
	finish(&f, 200);
	ok(sht_state_query(f.ss, a, 150, res) < 0, "null: single query fails");
	ok(sht_state_query_full(f.ss, 150, res) < 0, "null: full query fails");
	ok(sht_state_query_range(f.ss, a, 100, 200, 0, res) < 0,
	   "null: range query fails");
	ok(sht_state_query_range(f.ss, a, 100, 200, 10, res) < 0,
	   "null: range query with resolution fails");
	memset(&q2, 0, sizeof q2);
	q2.qmin = 0;
	q2.qmax = 0;
	q2.t1 = 100;
	q2.t2 = 200;
	ok(sht_state_query_2d(f.ss, &q2, res) < 0, "null: 2D query fails");
	is_int(sht_state_end(f.ss), 200, "null: end is the finish time");
	sht_result_destroy(res);
	fx_done(&f);
}

/* ---- 18. big strings ------------------------------------------------------ */

void sc_big_strings(sht_backend b, uint32_t block_size, int max)
{
	fx f;
	sht_quark a;
	size_t n1 = 1u << 20, n2 = max ? SHT_STRING_MAX : 70000;
	char *s1 = malloc(n1), *s2 = malloc(n2);
	size_t i;

	if (!s1 || !s2)
		bail_out("out of memory");
	for (i = 0; i < n1; i++)
		s1[i] = (char)(i * 7 % 253);
	memset(s2, 'z', n2);
	s2[n2 - 1] = '\0';                 /* a NUL at the end, kept */
	fx_create_opts(&f, b, 0, NULL, 0, block_size);
	a = Q(&f, "a");
	mod(&f, 10, a, STRN(s1, (uint32_t)n1), SHT_OK, "a = a 1 MiB string");
	mod(&f, 20, a, STRN(s2, (uint32_t)n2), SHT_OK,
	    max ? "a = a string of SHT_STRING_MAX bytes"
		: "a = a 70000-byte string");
	mod(&f, 30, a, STR("small"), SHT_OK, "a = small");
	finish(&f, 40);
	expect(&f, "a", IVS({ 0, 9, NUL() }, { 10, 19, STRN(s1, (uint32_t)n1) },
			    { 20, 29, STRN(s2, (uint32_t)n2) },
			    { 30, 40, STR("small") }));
	if (fx_reopen(&f))
		expect(&f, "a", IVS({ 0, 9, NUL() },
				    { 10, 19, STRN(s1, (uint32_t)n1) },
				    { 20, 29, STRN(s2, (uint32_t)n2) },
				    { 30, 40, STR("small") }));
	fx_done(&f);
	free(s1);
	free(s2);
}

/* ---- 19. life cycle ---------------------------------------------------------- */

void sc_lifecycle(void)
{
	sht_state_opts opts;
	sht_state *ss = NULL;
	char path[4096];
	sht_quark a;
	sht_value v = I32(1);
	sht_time since;
	sht_err rc;

	sht_state_opts_init(&opts);
	ok(opts.backend == SHT_BACKEND_TREE, "defaults: tree backend");
	rc = sht_state_create(NULL, 0, &opts, &ss);
	is_int(rc, SHT_ERR_INVALID, "tree backend without a path: invalid");
	opts.backend = (sht_backend)7;
	rc = sht_state_create(NULL, 0, &opts, &ss);
	is_int(rc, SHT_ERR_INVALID, "unknown backend: invalid");
	sht_state_close(NULL);

	/* An unfinished file is refused by sht_state_open. */
	sht_state_opts_init(&opts);
	opts.tree.no_sync = true;
	scratch_path(path, sizeof path, "unfinished");
	rc = sht_state_create(path, 0, &opts, &ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s", path, sht_err_name(rc));
	rc = sht_state_quark_path(ss, "a", true, &a);
	if (rc == SHT_OK)
		rc = sht_state_modify(ss, 5, a, &v);
	is_int(rc, SHT_OK, "unfinished: a = 1");
	sht_state_close(ss);
	ss = NULL;
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_ERR_INCOMPLETE, "open an unfinished history: incomplete");
	if (rc == SHT_OK)
		sht_state_close(ss);
	unlink(path);
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_ERR_IO, "open a missing file: I/O error");

	/* The ongoing state of an opened history: none. */
	scratch_path(path, sizeof path, "opened");
	rc = sht_state_create(path, 0, &opts, &ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s", path, sht_err_name(rc));
	rc = sht_state_quark_path(ss, "a", true, &a);
	if (rc == SHT_OK)
		rc = sht_state_modify(ss, 5, a, &v);
	if (rc == SHT_OK)
		rc = sht_state_finish(ss, 9);
	is_int(rc, SHT_OK, "a = 1, finish");
	sht_state_close(ss);
	ss = NULL;
	rc = sht_state_open(path, NULL, &ss);
	is_int(rc, SHT_OK, "open it");
	if (rc == SHT_OK) {
		is_int(sht_state_ongoing(ss, 0, &v, &since), SHT_ERR_STATE,
		       "opened: no ongoing state");
		is_int(sht_state_update_ongoing(ss, 0, &v), SHT_ERR_STATE,
		       "opened: no update-ongoing");
		sht_state_close(ss);
	}
	unlink(path);
}
