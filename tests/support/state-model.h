/*
 * state-model.h: a brute-force model of the state system, written straight
 * from ../shared/KERNEL_MODEL.md §2 and the comments of include/sht/state.h,
 * for the state tests (test-state-diff, test-state-rules); state-model.c,
 * in the test-support library.
 *
 * Per attribute: its name, parent and children (creation order), the list
 * of closed intervals (time order), the ongoing value with its start, and
 * the locked type.  Every operation is applied literally, with no
 * shortcut:
 *
 *   modify(t, v, q)   time checks; type lock (null always allowed; the
 *                     first non-null v locks the type even when it equals
 *                     the ongoing value, as Trace Compass sets the type
 *                     before its equality test); same
 *                     value: nothing; ongoing start < t: store
 *                     [start, t - 1]; then ongoing = (v, t) (or, at the
 *                     ongoing start, v replaces the value in place).
 *   clear(t, q)       post-order: each child (creation order) cleared
 *                     before q gets modify(t, null).
 *   push(t, v, q)     depth = ongoing of q (null: 0, int32: it, else a type
 *                     error); depth >= SHT_STACK_MAX: SHT_ERR_TOOBIG;
 *                     get-or-create child "<depth + 1>"; modify(q, depth + 1);
 *                     modify(child, v).  (In this order: a failure of the
 *                     second or third step keeps what the earlier ones did.)
 *   pop(t, q)         ongoing null: SHT_NOT_FOUND, nothing changes;
 *                     not int32: type error; popped = ongoing of child
 *                     "<depth>"; modify(q, depth - 1 or null);
 *                     clear(child).
 *   increment(t,q,d)  null: int32 d (int64 d if locked to int64); int32 /
 *                     int64: add; else a type error; then modify.
 *   update_ongoing    the ongoing value is replaced: no time, no type
 *                     check, no type lock, no interval.
 *   finish(end)       every ongoing state with start <= end is stored as
 *                     [start, end].
 *
 * Time checks (every change except update_ongoing): t < history start:
 * SHT_ERR_RANGE; t < the latest change time: SHT_ERR_ORDER.  The latest
 * change time (sm_model.latest, the end of the history while building) is,
 * as in Trace Compass's TransientState.processStateChange, the largest t
 * of a modify that changed something (steps 3 or 4 below; a same-value
 * modify or a refused one does not move it).  With sm_model.latest_on_call
 * set it is instead the largest t of every change call that passed the
 * time checks.
 *
 * Queries: the interval of q containing t, t in [start, end] where end is
 * the finish time or, while building, the latest change time (ongoing
 * states then end there); range queries follow KERNEL_MODEL §2.3 to the
 * letter.
 */
#ifndef SHT_TEST_STATE_MODEL_H
#define SHT_TEST_STATE_MODEL_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "now.h"
#include "rng.h"
#include "scratch.h"

/* ---- small helpers -------------------------------------------------------- */

void *sm_xrealloc(void *p, size_t n);

#define SM_GROW(arr, n, cap)                                                 \
	do {                                                                 \
		if ((n) == (cap)) {                                          \
			(cap) = (cap) ? 2 * (cap) : 8;                       \
			(arr) = sm_xrealloc((arr), (cap) * sizeof *(arr));   \
		}                                                            \
	} while (0)

/* Value equality as the contract states it: same type, same value,
 * strings by bytes, doubles by bit pattern.  (Independent of the
 * library's sht_value_equal, which is itself under test.) */
int sm_value_eq(const sht_value *a, const sht_value *b);

/* Readable value, strings shortened and escaped. */
const char *sm_value_str(const sht_value *v, char *buf, size_t n);

const char *sm_iv_str(const sht_interval *iv, char *buf, size_t n);

int sm_iv_eq(const sht_interval *a, const sht_interval *b);

/* ---- the model ------------------------------------------------------------ */

typedef struct sm_attr {
	char *name;
	size_t name_len;
	sht_quark parent;            /* SHT_QUARK_ROOT for top level */
	sht_quark *kids;
	size_t nkids, capkids;
	sht_interval *ivs;           /* closed intervals, time order, owned */
	size_t niv, capiv;
	sht_value cur;               /* ongoing value (owned) */
	sht_time cur_start;
	sht_type locked;             /* SHT_TYPE_NULL: not locked yet */
} sm_attr;

typedef struct sm_model {
	sm_attr *a;
	size_t n, cap;
	sht_quark *roots;
	size_t nroots, caproots;
	sht_time start;
	sht_time latest;             /* latest change time */
	int latest_on_call;          /* see the top of this file */
	int lock_on_change;          /* 1: a same-value modify does not lock
	                                the type (NOT Trace Compass's rule;
	                                a switch to look past that one
	                                difference) */
	int finished;
	sht_time end;                /* finish time */
	sht_value popped;            /* last popped value (owned) */
} sm_model;

void sm_init(sm_model *m, sht_time start);

void sm_free(sm_model *m);

/* Current end of the history: the finish time or the latest change. */
sht_time sm_end(const sm_model *m);

/* Path elems[0..n) below parent. */
sht_err sm_quark(sm_model *m, sht_quark parent,
		 const char *const *elems, size_t n, int create,
		 sht_quark *out);

sht_err sm_modify(sm_model *m, sht_time t, sht_quark q, const sht_value *v);

sht_err sm_clear(sm_model *m, sht_time t, sht_quark q);

sht_err sm_push(sm_model *m, sht_time t, sht_quark q, const sht_value *v);

/* popped: the model's copy (valid until the next pop). */
sht_err sm_pop(sm_model *m, sht_time t, sht_quark q, sht_value *popped);

sht_err sm_increment(sm_model *m, sht_time t, sht_quark q, int64_t delta);

sht_err sm_update_ongoing(sm_model *m, sht_quark q, const sht_value *v);

sht_err sm_finish(sm_model *m, sht_time end);

/* ---- model queries -------------------------------------------------------- */

/* The interval of q containing t, borrowed (value owned by the model), or
 * SHT_ERR_RANGE.  While building, the ongoing state ends at the latest
 * change time. */
sht_err sm_at(const sm_model *m, sht_quark q, sht_time t, sht_interval *out);

/* A list of borrowed intervals. */
typedef struct sm_list {
	sht_interval *v;
	size_t n, cap;
} sm_list;

void sm_list_add(sm_list *l, const sht_interval *iv);

/* KERNEL_MODEL §2.3 range query, with (r > 0) or without resolution. */
sht_err sm_range_query(const sm_model *m, sht_quark q,
		       sht_time t1, sht_time t2, sht_time r,
		       sm_list *out);

#endif /* SHT_TEST_STATE_MODEL_H */
