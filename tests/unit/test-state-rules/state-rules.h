/*
 * state-rules.h: shared by the files of test-state-rules (the rules of
 * the state system, each on the three backends; the plan is main.c's).
 */
#ifndef SHT_TEST_STATE_RULES_H
#define SHT_TEST_STATE_RULES_H

#include "tap.h"
#include "state-model.h"

typedef struct fx {
	sht_backend backend;
	const char *bname;
	char path[4096];
	sht_state *ss;
	int reopened;
} fx;

#define NUL() sht_value_null()
#define I32(x) sht_value_int32(x)
#define I64(x) sht_value_int64(x)
#define DBL(x) sht_value_double(x)
#define STR(s) sht_value_string((s), (uint32_t)strlen(s))
#define STRN(s, n) sht_value_string((s), (n))

typedef struct exp_iv {
	sht_time s, e;
	sht_value v;
} exp_iv;

#define IVS(...) (const exp_iv[]){ __VA_ARGS__ }, \
	sizeof((const exp_iv[]){ __VA_ARGS__ }) / sizeof(exp_iv)

/* ---- the fixture, the shorthands, the expected intervals (fixture.c) */

const char *backend_name(sht_backend b);
sht_state *fx_create_opts(fx *f, sht_backend b, sht_time start,
			  const char *provider, uint32_t pver,
			  uint32_t block_size);
sht_state *fx_create(fx *f, sht_backend b, sht_time start);
sht_state *fx_reopen(fx *f);
void fx_done(fx *f);
const char *fx_tag(const fx *f);
sht_quark Q(fx *f, const char *path);
void st(fx *f, sht_err got, sht_err want, const char *what);
void mod(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
	 const char *what);
void finish(fx *f, sht_time end);
int iv_is(const sht_interval *got, sht_quark q, const exp_iv *e);
void diag_iv(const char *label, const sht_interval *iv);
void diag_exp(const char *label, sht_quark q, const exp_iv *e);
void expect(fx *f, const char *path, const exp_iv *e, size_t n);
void expect_full(fx *f, sht_time t);

/* ---- 1-5: values, ends, the same value, bursts, type lock (values.c) */

void sc_late(sht_backend b);
void sc_ends(sht_backend b);
void sc_same(sht_backend b);
void sc_burst(sht_backend b);
void sc_types(sht_backend b);
void sc_lock_on_same_value(sht_backend b);

/* ---- 6-10: clear, push/pop, increment, update-ongoing, finish (changes.c) */

void sc_clear(sht_backend b);
void push(fx *f, sht_time t, sht_quark q, sht_value v, sht_err want,
	  const char *what);
void sc_stack(sht_backend b);
void sc_stack_partial(sht_backend b);
void sc_stack_deep(sht_backend b, int limit);
void sc_incr(sht_backend b);
void sc_upd(sht_backend b);
void sc_fin(sht_backend b);

/* ---- 11-14: time errors, queries outside and while building, ranges (queries.c)  */

void sc_order(sht_backend b);
void sc_outside(sht_backend b);
void sc_live(sht_backend b);
void sc_ranges(sht_backend b);

/* ---- 15-19: attribute tree, provider, null backend, big strings, life cycle (history.c)  */

void sc_attrs(sht_backend b);
void sc_provider(sht_backend b);
void sc_null_queries(void);
void sc_big_strings(sht_backend b, uint32_t block_size, int max);
void sc_lifecycle(void);

/* ---- 20: queries from other threads (threads.c) */

void sc_threads(sht_backend b);

#endif /* SHT_TEST_STATE_RULES_H */
