/*
 * rules-test.c: the runs, values and shared scenarios of rules-test.h.
 */
#include "rules-test.h"

void run_text(struct run *r, const char *text, int native,
	      const struct tev *ev, size_t n)
{
	struct tsrc s = { ev, n, 0 };
	sht_source src = { &TOPS, &s };
	sht_state_opts opts;
	sht_provider p;
	sht_err err;

	memset(r, 0, sizeof *r);
	err = native ? sht_rules_parse_native(text, strlen(text), "t.rules", &r->r)
		     : sht_rules_parse_xml(text, strlen(text), "t.xml", NULL, &r->r);
	if (err != SHT_OK)
		bail_out("cannot compile: %s", sht_errmsg());
	sht_state_opts_init(&opts);
	opts.backend = SHT_BACKEND_MEMORY;
	if (sht_state_create(NULL, ev[0].ts, &opts, &r->ss) != SHT_OK)
		bail_out("cannot create: %s", sht_errmsg());
	sht_rules_provider(r->r, &p);
	r->err = sht_state_run(r->ss, &src, &p, &r->events, &r->skipped);
	if (r->err != SHT_OK)
		diag("run: %s", sht_errmsg());
	if (sht_state_finish(r->ss, ev[n - 1].ts) != SHT_OK)
		bail_out("finish failed: %s", sht_errmsg());
}

void done(struct run *r)
{
	sht_state_close(r->ss);
	sht_rules_destroy(r->r);
}

const char *val(struct run *r, const char *path, sht_time t)
{
	static sht_result *res;
	sht_quark q;

	if (!res)
		res = sht_result_create();
	if (sht_state_quark_path(r->ss, path, 0, &q) != SHT_OK)
		return "absent";
	if (sht_state_query(r->ss, q, t, res) != SHT_OK || sht_result_count(res) != 1)
		return "no answer";
	return tev_show(&sht_result_at(res, 0)->value);
}

/* ---- scenarios both syntaxes run: the same events, the same checks ---- */

/* Paths and values (test_paths*). */
const struct tev EV_PATHS[3] = {
	{ "run", 10, 3, { I("tid", 42) } },
	{ "sys_open", 20, 3, { { NULL, 0, 0, NULL } } },
	{ "sys_exit", 30, 3, { { NULL, 0, 0, NULL } } },
};

/* Operations: "in" pushes field f on Stack, increments Count by 1 and
 * LCount by 10L, peeks Stack into Top, updates Upd to f, sets Node/child
 * to 7; "out" pops Stack; "all" pops all of Stack and deletes Node. */
const struct tev EV_OPS[6] = {
	{ "in", 10, 0, { I("f", 100) } },
	{ "in", 20, 0, { I("f", 200) } },
	{ "out", 30, 0, { { NULL, 0, 0, NULL } } },
	{ "in", 40, 0, { I("f", 300) } },
	{ "all", 50, 0, { { NULL, 0, 0, NULL } } },
	{ "out", 60, 0, { { NULL, 0, 0, NULL } } },
};

/* Conditions. */
const struct tev EV_COND[1] = {
	{ "e", 10, 0, { I("x", 5), S("s", "abc") } },
};

void check_ops(struct run *r)
{
	VAL(r, "Stack", 20, "i:2", "push: depth");
	VAL(r, "Stack/2", 20, "l:200", "push: element");
	VAL(r, "Stack", 30, "i:1", "pop");
	VAL(r, "Stack/2", 30, "null", "pop nulls the element");
	VAL(r, "Top", 20, "l:200", "peek");
	VAL(r, "Top", 40, "l:300", "peek after pop and push");
	VAL(r, "Stack", 50, "null", "popAll empties");
	VAL(r, "Stack/1", 50, "null", "popAll nulls every element");
	VAL(r, "Count", 10, "i:1", "increment of null takes the value");
	VAL(r, "Count", 40, "i:3", "increment");
	VAL(r, "LCount", 40, "l:30", "increment keeps long");
	VAL(r, "Upd", 10, "l:300", "update: the last value covers the whole interval");
	VAL(r, "Node/child", 40, "i:7", "before delete");
	VAL(r, "Node/child", 50, "null", "delete nulls the children");
	VAL(r, "Node", 50, "null", "delete nulls the attribute");
}
