/*
 * state-diff.h: shared by the files of test-state-diff (the differential
 * test of the state system against tests/support/state-model.h; the plan
 * is main.c's).
 */
#ifndef SHT_TEST_STATE_DIFF_H
#define SHT_TEST_STATE_DIFF_H

#include "tap.h"
#include "state-model.h"

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
	struct rng rng;
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

typedef struct round_cfg {
	size_t ops;
	size_t target_attrs;
	sht_time start;
	int latest_on_call;
} round_cfg;

/* Long strings of the scripts, filled by main. */
extern char big1[300], big2[3000];

/* ---- the systems under test, the operation log, the values (script.c) */

void logop(run *R, const char *fmt, ...) TAP_PRINTF(2, 3);
/* First divergence of a system: say what happened and stop checking it. */
void diverge(run *R, sut *s, const char *fmt, ...) TAP_PRINTF(3, 4);
const char *qpath(const sm_model *m, sht_quark q);
sht_value rand_of_type(run *R, sht_type ty);
sht_type rand_type(run *R);
sht_value rand_value(run *R, sht_quark q);
const char *vstr(const sht_value *v);
void assign_pref(run *R, size_t from);

/* ---- the operations, on the model and every system (ops.c) */

int alive(const sut *s);
void cmp_rc(run *R, sut *s, sht_err want, sht_err got,
	    const char *what);
sht_quark rand_quark(run *R);
void op_lookup(run *R, int create);
sht_quark pick_plain(run *R);
void op_modify(run *R);
void op_modify_stack(run *R);
void op_clear(run *R);
void op_push(run *R);
void op_pop(run *R);
void op_increment(run *R);
void op_update(run *R);
void op_ongoing(run *R);

/* ---- the query comparisons (queries.c) */

void check_queries(run *R, sut *s, const char *phase, int thorough);

/* ---- one round (round.c) */

void do_round(run *R, const round_cfg *c, uint64_t seed);

#endif /* SHT_TEST_STATE_DIFF_H */
