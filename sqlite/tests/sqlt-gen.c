/*
 * sqlt-gen.c: random histories for the SQLite extension's test, and
 * their brute-force copy into plain SQLite tables (the oracle).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sqlt.h"
#include "tap.h"

/* The tests' one generator (tests/support/rng.h) over the state *s. */
uint64_t sqlt_rand(uint64_t *s)
{
	struct rng r = RNG_INIT(*s);
	uint64_t v = rng_next(&r);

	*s = r.s;
	return v;
}

int64_t sqlt_between(uint64_t *s, int64_t lo, int64_t hi)
{
	struct rng r = RNG_INIT(*s);
	int64_t v = rng_range(&r, lo, hi);

	*s = r.s;
	return v;
}

/* Names that stress paths and patterns. */
static const char *const names[] = {
	"a", "b", "Threads", "CPUs", "42", "7", "x*y", "q?r", "[br]", "50%",
	"_u_", "sl/ash", "\xc3\x9c" "n\xc3\xaf" "c\xc3\xb6" "d\xc3\xa9", "A", "Status",
	"System_call", "with space", "",
};
#define NNAMES (sizeof names / sizeof *names)

struct gen {
	sht_state *ss;
	uint64_t rnd;
	sht_quark *q;            /* attributes created */
	sht_type *type;          /* the type each one takes */
	size_t n;
};

static void new_attr(struct gen *g)
{
	const char *elems[4];
	size_t depth = (size_t)sqlt_between(&g->rnd, 1, 4);
	sht_quark q;
	size_t old = sht_state_attr_count(g->ss);

	for (size_t i = 0; i < depth; i++)
		elems[i] = names[sqlt_rand(&g->rnd) % NNAMES];
	if (sht_state_quark(g->ss, SHT_QUARK_ROOT, elems, depth, &q) != SHT_OK)
		bail_out("create an attribute: %s", sht_errmsg());
	/* Every attribute the path created becomes a target. */
	for (size_t k = old; k < sht_state_attr_count(g->ss); k++) {
		g->q[g->n] = (sht_quark)k;
		g->type[g->n] = (sht_type)sqlt_between(&g->rnd, 1, 4);
		g->n++;
	}
}

static sht_value draw_value(struct gen *g, sht_type t, char *buf, size_t size)
{
	int64_t x = sqlt_between(&g->rnd, -5, 5);

	if (sqlt_rand(&g->rnd) % 8 == 0)
		return sht_value_null();
	switch (t) {
	case SHT_TYPE_INT32: return sht_value_int32((int32_t)x);
	case SHT_TYPE_INT64: return sht_value_int64(x * INT64_C(1000000000007));
	case SHT_TYPE_DOUBLE: return sht_value_double((double)x / 4.0);
	default:
		snprintf(buf, size, "v%lld%s", (long long)x, x % 3 ? "" : " spaced");
		return sht_value_string(buf, (uint32_t)strlen(buf));
	}
}

static void change(struct gen *g, sht_time t)
{
	size_t i = (size_t)(sqlt_rand(&g->rnd) % g->n);
	char buf[32];
	sht_value v;
	sht_err err;

	if (sqlt_rand(&g->rnd) % 40 == 0) {
		err = sht_state_clear(g->ss, t, g->q[i]);
	} else {
		v = draw_value(g, g->type[i], buf, sizeof buf);
		err = sht_state_modify(g->ss, t, g->q[i], &v);
	}
	if (err != SHT_OK)
		bail_out("change at %lld: %s", (long long)t, sht_errmsg());
}

void sqlt_gen(const char *path, uint64_t seed, unsigned attrs,
	      unsigned changes, uint32_t block_size)
{
	struct gen g;
	sht_state_opts o;
	sht_time t = 1000000000 + (sht_time)(seed % 1000);

	memset(&g, 0, sizeof g);
	g.rnd = seed;
	g.q = calloc(4 * (size_t)attrs + 4, sizeof *g.q);
	g.type = calloc(4 * (size_t)attrs + 4, sizeof *g.type);
	if (!g.q || !g.type)
		bail_out("out of memory");
	sht_state_opts_init(&o);
	o.provider = "sqlite-test";
	o.provider_version = 1;
	o.tree.no_sync = true;
	o.tree.block_size = block_size;
	if (sht_state_create(path, t, &o, &g.ss) != SHT_OK)
		bail_out("create %s: %s", path, sht_errmsg());
	while (g.n < attrs)
		new_attr(&g);
	for (unsigned i = 0; i < changes; i++) {
		/* 0: several changes at one timestamp. */
		t += sqlt_between(&g.rnd, 0, 3) * sqlt_between(&g.rnd, 1, 1000);
		change(&g, t);
	}
	if (sht_state_finish(g.ss, t + 10) != SHT_OK)
		bail_out("finish %s: %s", path, sht_errmsg());
	sht_state_close(g.ss);
	free(g.q);
	free(g.type);
}

/* ---- the oracle -------------------------------------------------------- */

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		bail_out("%s: %s", sql, err);
}

static void bind_value(sqlite3_stmt *st, int col, const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_INT32: sqlite3_bind_int64(st, col, v->u.i32); break;
	case SHT_TYPE_INT64: sqlite3_bind_int64(st, col, v->u.i64); break;
	case SHT_TYPE_DOUBLE: sqlite3_bind_double(st, col, v->u.d); break;
	case SHT_TYPE_STRING:
		sqlite3_bind_text(st, col, v->u.str, (int)v->len, SQLITE_TRANSIENT);
		break;
	default: sqlite3_bind_null(st, col); break;
	}
}

static void step_done(sqlite3 *db, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		bail_out("insert: %s", sqlite3_errmsg(db));
	sqlite3_reset(st);
}

/* Every interval of q, by single queries from the start to the end. */
static void load_quark(sqlite3 *db, sqlite3_stmt *st, sht_state *ss,
		       sht_quark q, struct sqlt_hist *h, sht_result *res)
{
	sht_time t = h->start;

	while (t <= h->end) {
		const sht_interval *iv;

		if (sht_state_query(ss, q, t, res) != SHT_OK)
			bail_out("quark %u at %lld: %s", q, (long long)t, sht_errmsg());
		iv = sht_result_at(res, 0);
		sqlite3_bind_int64(st, 1, q);
		sqlite3_bind_text(st, 2, h->paths[q], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, iv->start);
		sqlite3_bind_int64(st, 4, iv->end);
		sqlite3_bind_text(st, 5, sht_type_name(iv->value.type), -1, SQLITE_STATIC);
		bind_value(st, 6, &iv->value);
		step_done(db, st);
		h->intervals++;
		if (iv->end == SHT_TIME_MAX)
			break;
		t = iv->end + 1;
	}
}

static char *path_of(sht_state *ss, sht_quark q)
{
	size_t need = 0;
	char small[1], *buf;

	sht_state_attr_path(ss, q, small, sizeof small, &need);
	buf = malloc(need + 1);
	if (!buf || sht_state_attr_path(ss, q, buf, need + 1, &need) != SHT_OK)
		bail_out("path of %u: %s", q, sht_errmsg());
	return buf;
}

static void load_attr(sqlite3 *db, sqlite3_stmt *st, sht_state *ss, sht_quark q,
		      const struct sqlt_hist *h)
{
	sht_quark parent;
	const char *name;
	size_t len;

	if (sht_state_attr_parent(ss, q, &parent) != SHT_OK ||
	    sht_state_attr_name(ss, q, &name, &len) != SHT_OK)
		bail_out("attribute %u: %s", q, sht_errmsg());
	sqlite3_bind_int64(st, 1, q);
	if (parent == SHT_QUARK_ROOT)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, parent);
	sqlite3_bind_text(st, 3, name, (int)len, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, h->paths[q], -1, SQLITE_STATIC);
	step_done(db, st);
}

void sqlt_load(sqlite3 *db, const char *path, struct sqlt_hist *h)
{
	sqlite3_stmt *iv, *at;
	sht_result *res = sht_result_create();
	sht_state *ss;

	memset(h, 0, sizeof *h);
	snprintf(h->path, sizeof h->path, "%s", path);
	if (sht_state_open(path, NULL, &ss) != SHT_OK)
		bail_out("open %s: %s", path, sht_errmsg());
	h->start = sht_state_start(ss);
	h->end = sht_state_end(ss);
	h->nattrs = sht_state_attr_count(ss);
	h->paths = calloc(h->nattrs + 1, sizeof *h->paths);
	exec(db, "DROP TABLE IF EXISTS iv; DROP TABLE IF EXISTS attrs;"
		 "CREATE TABLE iv(quark INTEGER, path TEXT, start INTEGER, "
		 "\"end\" INTEGER, type TEXT, value);"
		 "CREATE TABLE attrs(quark INTEGER, parent INTEGER, name TEXT, path TEXT);"
		 "BEGIN");
	if (sqlite3_prepare_v2(db, "INSERT INTO iv VALUES (?,?,?,?,?,?)", -1, &iv, NULL) ||
	    sqlite3_prepare_v2(db, "INSERT INTO attrs VALUES (?,?,?,?)", -1, &at, NULL))
		bail_out("prepare: %s", sqlite3_errmsg(db));
	for (uint64_t q = 0; q < h->nattrs; q++)
		h->paths[q] = path_of(ss, (sht_quark)q);
	for (uint64_t q = 0; q < h->nattrs; q++) {
		load_quark(db, iv, ss, (sht_quark)q, h, res);
		load_attr(db, at, ss, (sht_quark)q, h);
	}
	sqlite3_finalize(iv);
	sqlite3_finalize(at);
	/* Indexes only make the oracle's queries quicker (the self join). */
	exec(db, "CREATE INDEX iv_quark ON iv(quark);"
		 "COMMIT");
	sht_result_destroy(res);
	sht_state_close(ss);
}

void sqlt_hist_free(struct sqlt_hist *h)
{
	for (uint64_t q = 0; h->paths && q < h->nattrs; q++)
		free(h->paths[q]);
	free(h->paths);
	h->paths = NULL;
}
