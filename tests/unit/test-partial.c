/*
 * test-partial.c: a partial history answers every query exactly as the
 * full history of the same events does.  Random traces (events with
 * repeated timestamps, each a few state changes of every kind, type
 * errors included) go once into a full history and once into partial
 * histories with several checkpoint spacings; then single queries at every
 * interval bound, full queries, range and 2D queries are compared.
 * Attributes keep appearing all along the trace (g/<n>), and some events
 * look at the attribute tree through the public calls (children, count,
 * matches) and store what they saw: a replay must see the tree as the
 * first run saw it at that event, not the whole file's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "rng.h"
#include "tap.h"

enum { OP_MODIFY, OP_CLEAR, OP_PUSH, OP_POP, OP_INCR, OP_NEWATTR, OP_GROW, OP_LOOK };

struct op {
	int kind;
	int attr;                    /* index into the path table */
	sht_value v;
	char str[8];
};

struct ev {
	sht_time ts;
	int nops;
	struct op ops[5];
};

struct trace {
	struct ev *ev;
	size_t n, next;
	int seeks;
};

static const char *paths[] = {
	"a", "b", "c/x", "c/y", "c/y/z", "d/s", "e", "f/g/h", "cnt", "stk",
};
#define NPATHS (sizeof paths / sizeof *paths)

static struct rng rng;     /* seeded in main */

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

static sht_value random_value(struct op *o)
{
	switch (rnd() % 6) {
	case 0: return sht_value_null();
	case 1: case 2: return sht_value_int32((int32_t)(rnd() % 4));
	case 3: return sht_value_int64((int64_t)(rnd() % 3));
	case 4: return sht_value_double((double)(rnd() % 2));
	default:
		snprintf(o->str, sizeof o->str, "s%d", (int)(rnd() % 3));
		return sht_value_string(o->str, (uint32_t)strlen(o->str));
	}
}

static void make_trace(struct trace *tr, size_t n)
{
	sht_time t = 1000;

	tr->ev = calloc(n, sizeof *tr->ev);
	tr->n = n;
	for (size_t i = 0; i < n; i++) {
		struct ev *e = &tr->ev[i];
		t += rnd() % 4 == 0 ? 0 : (sht_time)(rnd() % 50);
		e->ts = t;
		e->nops = 1 + (int)(rnd() % 3);
		for (int k = 0; k < e->nops; k++) {
			struct op *o = &e->ops[k];
			o->kind = (int)(rnd() % 10);
			o->kind = o->kind < 5 ? OP_MODIFY : o->kind - 4;
			o->attr = (int)(rnd() % NPATHS);
			o->v = random_value(o);
		}
		if (rnd() % 3 == 0)                  /* g/<i / 37> */
			e->ops[e->nops++] = (struct op){ .kind = OP_GROW, .attr = (int)(i / 37) };
		if (rnd() % 3 == 0)
			e->ops[e->nops++] = (struct op){ .kind = OP_LOOK };
	}
}

/* The copy of a trace's events keeps its op strings: fix the pointers. */
static sht_err tr_next(void *src, sht_event *out)
{
	struct trace *tr = src;

	if (tr->next >= tr->n)
		return SHT_END;
	out->ts = tr->ev[tr->next].ts;
	out->pos = tr->next;
	out->name = "ops";
	out->cpu = -1;
	out->field = NULL;
	out->data = &tr->ev[tr->next];
	tr->next++;
	return SHT_OK;
}

static sht_err tr_seek(void *src, uint64_t pos)
{
	struct trace *tr = src;

	tr->next = pos;
	tr->seeks++;
	return SHT_OK;
}

static const sht_source_ops tr_ops = { tr_next, tr_seek, NULL, NULL, NULL };

/* What the tree looks like now, through the public calls: the children
 * of g, the attribute count and the matches of g/ *, stored in "seen". */
static sht_err look(sht_state *ss, sht_time t)
{
	const sht_quark *kids = NULL;
	sht_quark g, seen, *m = NULL;
	size_t nk = 0, nm = 0;
	sht_err err = sht_state_quark_path(ss, "g", true, &g);

	if (err == SHT_OK)
		err = sht_state_attr_children(ss, g, &kids, &nk);
	if (err == SHT_OK)
		err = sht_state_attr_match(ss, "g/*", &m, &nm);
	free(m);
	if (err == SHT_OK)
		err = sht_state_quark_path(ss, "seen", true, &seen);
	if (err == SHT_OK) {
		sht_value v = sht_value_int64((int64_t)(nk * 1000000 +
					sht_state_attr_count(ss) * 1000 + nm));

		err = sht_state_modify(ss, t, seen, &v);
	}
	return err;
}

static sht_err apply(sht_state *ss, sht_time t, struct op *o)
{
	sht_quark q;
	sht_err err;
	sht_value popped;
	char grow[32];

	if (o->kind == OP_LOOK)
		return look(ss, t);
	if (o->kind == OP_GROW) {
		snprintf(grow, sizeof grow, "g/%d", o->attr);
		return sht_state_quark_path(ss, grow, true, &q);
	}
	err = sht_state_quark_path(ss, paths[o->attr], true, &q);

	if (o->v.type == SHT_TYPE_STRING)
		o->v.u.str = o->str;
	if (err != SHT_OK)
		return err;
	switch (o->kind) {
	case OP_MODIFY: return sht_state_modify(ss, t, q, &o->v);
	case OP_CLEAR: return sht_state_clear(ss, t, q);
	case OP_PUSH: return sht_state_push(ss, t, q, &o->v);
	case OP_POP: return sht_state_pop(ss, t, q, &popped);
	case OP_INCR: return sht_state_increment(ss, t, q, 1);
	default: return SHT_OK;      /* OP_NEWATTR: the look-up created it */
	}
}

/* Like Trace Compass: a type or range error skips the rest of the event. */
static sht_err handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	struct ev *e = (struct ev *)(uintptr_t)ev->data;
	(void)ctx;

	for (int k = 0; k < e->nops; k++) {
		sht_err err = apply(ss, ev->ts, &e->ops[k]);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

static sht_err build(const char *path, struct trace *tr, sht_backend be, uint64_t every)
{
	sht_state_opts o;
	sht_provider p = { "random-ops", 3, handle, NULL, NULL, NULL, NULL };
	sht_source src = { &tr_ops, tr };
	sht_state *ss;
	sht_err err;

	sht_state_opts_init(&o);
	o.backend = be;
	o.tree.block_size = 4096;
	o.tree.no_sync = true;
	o.provider = p.id;
	o.provider_version = p.version;
	o.checkpoint_events = every;
	tr->next = 0;
	err = sht_state_create(path, tr->ev[0].ts, &o, &ss);
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, NULL, NULL);
	if (err == SHT_OK)
		err = sht_state_finish(ss, tr->ev[tr->n - 1].ts + 10);
	if (err != SHT_OK)
		diag("build %s: %s", path, sht_errmsg());
	sht_state_close(ss);
	return err;
}

static int same_result(const sht_result *a, const sht_result *b)
{
	if (sht_result_count(a) != sht_result_count(b))
		return 0;
	for (size_t i = 0; i < sht_result_count(a); i++) {
		const sht_interval *x = sht_result_at(a, i), *y = sht_result_at(b, i);
		if (x->quark != y->quark || x->start != y->start || x->end != y->end ||
		    !sht_value_equal(&x->value, &y->value))
			return 0;
	}
	return 1;
}

/* Compare singles at every bound of every full-history interval. */
static size_t compare_singles(sht_state *full, sht_state *part, sht_result *a, sht_result *b)
{
	size_t bad = 0, nq = sht_state_attr_count(full);
	sht_time s = sht_state_start(full), e = sht_state_end(full);

	for (sht_quark q = 0; q < nq; q++) {
		sht_query2d all = { &q, 1, 0, 0, s, e, 0, SHT_ORDER_TIME };
		sht_result *ivs = sht_result_create();
		sht_state_query_2d(full, &all, ivs);
		for (size_t i = 0; i < sht_result_count(ivs); i++) {
			const sht_interval *iv = sht_result_at(ivs, i);
			sht_time ts[3] = { iv->start, iv->end, iv->start + (iv->end - iv->start) / 2 };
			for (int k = 0; k < 3; k++) {
				sht_err e1 = sht_state_query(full, q, ts[k], a);
				sht_err e2 = sht_state_query(part, q, ts[k], b);
				if (e1 != e2 || !same_result(a, b)) {
					if (bad++ < 5)
						diag("single q=%u t=%lld: %d vs %d (%s) full [%lld, %lld] type %d vs partial [%lld, %lld] type %d",
						     q, (long long)ts[k], e1, e2, e2 < 0 ? sht_errmsg() : "",
						     sht_result_count(a) ? (long long)sht_result_at(a, 0)->start : -1,
						     sht_result_count(a) ? (long long)sht_result_at(a, 0)->end : -1,
						     sht_result_count(a) ? (int)sht_result_at(a, 0)->value.type : -1,
						     sht_result_count(b) ? (long long)sht_result_at(b, 0)->start : -1,
						     sht_result_count(b) ? (long long)sht_result_at(b, 0)->end : -1,
						     sht_result_count(b) ? (int)sht_result_at(b, 0)->value.type : -1);
				}
			}
		}
		sht_result_destroy(ivs);
	}
	return bad;
}

static size_t compare_others(sht_state *full, sht_state *part, sht_result *a, sht_result *b)
{
	sht_time s = sht_state_start(full), e = sht_state_end(full);
	size_t bad = 0, nq = sht_state_attr_count(full);

	for (int i = 0; i < 60; i++) {
		sht_time t = s + (sht_time)(rnd() % (uint64_t)(e - s + 1));
		sht_time t2 = t + (sht_time)(rnd() % (uint64_t)(e - t + 1));
		sht_quark q = (sht_quark)(rnd() % nq);
		sht_time r = (sht_time)(rnd() % 3 ? rnd() % 200 + 1 : 0);
		sht_query2d rq = { NULL, 0, 0, (sht_quark)(nq - 1), t, t2, r, SHT_ORDER_TIME };

		if (sht_state_query_full(full, t, a) != sht_state_query_full(part, t, b) || !same_result(a, b))
			if (bad++ < 5)
				diag("full t=%lld differs", (long long)t);
		if (sht_state_query_range(full, q, t, t2, r, a) != sht_state_query_range(part, q, t, t2, r, b) ||
		    !same_result(a, b))
			if (bad++ < 5)
				diag("range q=%u [%lld, %lld] r=%lld differs", q, (long long)t, (long long)t2, (long long)r);
		if (sht_state_query_2d(full, &rq, a) != sht_state_query_2d(part, &rq, b) || !same_result(a, b))
			if (bad++ < 5)
				diag("2D [%lld, %lld] r=%lld differs", (long long)t, (long long)t2, (long long)r);
	}
	return bad;
}

static void run_case(const char *dir, size_t nev, uint64_t every)
{
	char fpath[512], ppath[512];
	struct trace tr;
	sht_state *full, *part;
	sht_provider p = { "random-ops", 3, handle, NULL, NULL, NULL, NULL };
	sht_provider wrong = { "random-ops", 4, handle, NULL, NULL, NULL, NULL };
	sht_source src = { &tr_ops, &tr };
	sht_result *a = sht_result_create(), *b = sht_result_create();

	make_trace(&tr, nev);
	tr.seeks = 0;
	snprintf(fpath, sizeof fpath, "%s/full-%llu.sht", dir, (unsigned long long)every);
	snprintf(ppath, sizeof ppath, "%s/partial-%llu.sht", dir, (unsigned long long)every);
	ok(build(fpath, &tr, SHT_BACKEND_TREE, 0) == SHT_OK, "%zu events: full history", nev);
	ok(build(ppath, &tr, SHT_BACKEND_PARTIAL, every) == SHT_OK,
	   "%zu events: partial history every %llu events", nev, (unsigned long long)every);
	ok(sht_state_open(fpath, NULL, &full) == SHT_OK, "open the full history");
	ok(sht_state_open_partial(ppath, NULL, &src, &wrong, &part) == SHT_ERR_INVALID,
	   "another provider version is refused");
	ok(sht_state_open_partial(ppath, NULL, &src, &p, &part) == SHT_OK, "open the partial history");
	is_int(compare_singles(full, part, a, b), 0, "every single query at every bound agrees");
	is_int(compare_others(full, part, a, b), 0, "full, range and 2D queries agree");
	diag("every %llu: %d seeks", (unsigned long long)every, tr.seeks);
	sht_state_close(full);
	sht_state_close(part);
	sht_result_destroy(a);
	sht_result_destroy(b);
	free(tr.ev);
}

int main(void)
{
	const char *dir = getenv("SHT_TMP");

	rng_seed(&rng, rng_test_seed(424242));
	if (!dir)
		dir = "/tmp";
	run_case(dir, 3000, 7);
	run_case(dir, 3000, 100);
	run_case(dir, 5000, 1000);
	run_case(dir, 400, 100000);
	return done_testing();
}
