/*
 * rules-test.h: for the rules tests: the in-memory event source of
 * event-harness.h, a run of a rules provider (XML or native) into an
 * in-memory history, and values of attributes by path, shown as text
 * ("null", "i:5", "l:5", "s:x"); rules-test.c, in the test-support
 * library.
 */
#ifndef SHT_RULES_TEST_H
#define SHT_RULES_TEST_H

#include <stdio.h>
#include <string.h>

#include "sht/sht.h"
#include "event-harness.h"
#include "tap.h"

struct run {
	sht_state *ss;
	sht_rules *r;
	uint64_t events, skipped;
	sht_err err;              /* of sht_state_run */
};

/* Compile text, XML or native (bail out if it does not), and run it over
 * ev[0..n). */
void run_text(struct run *r, const char *text, int native,
	      const struct tev *ev, size_t n);

/* Release what run_text made. */
void done(struct run *r);

#define RUN(r, xml, evs) run_text(r, xml, 0, evs, sizeof evs / sizeof *evs)
#define RUN_NATIVE(r, text, evs) run_text(r, text, 1, evs, sizeof evs / sizeof *evs)

/* The value of path at t as text ("null", "i:5", "l:5", "d:0.5", "s:x"),
 * valid for four calls; "absent" if there is no such attribute. */
const char *val(struct run *r, const char *path, sht_time t);

#define VAL(r, path, t, want, ...) is_str(val(r, path, t), want, __VA_ARGS__)

/* ---- scenarios both syntaxes run: the same events, the same checks ---- */

/* Paths and values (test_paths*). */
extern const struct tev EV_PATHS[3];

/* Operations: "in" pushes field f on Stack, increments Count by 1 and
 * LCount by 10L, peeks Stack into Top, updates Upd to f, sets Node/child
 * to 7; "out" pops Stack; "all" pops all of Stack and deletes Node. */
extern const struct tev EV_OPS[6];

/* Conditions. */
extern const struct tev EV_COND[1];

/* The history of the operations program over EV_OPS. */
void check_ops(struct run *r);

#endif /* SHT_RULES_TEST_H */
