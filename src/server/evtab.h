/*
 * evtab.h: the events table's reading of traces: cursors over a trace
 * (evcursor.c) and the merged order of an experiment's traces
 * (evmerge.c).
 */
#ifndef SHT_SERVER_EVTAB_H
#define SHT_SERVER_EVTAB_H

#include "out.h"

struct srv_cursor;

/* A cursor of t whose next event is ordinal ord (NULL and *err on
 * failure); give it back when done (broken: it failed, close it). */
struct srv_cursor *srv_cursor_take(struct srv_trace *t, uint64_t ord,
				   sht_err *err);
void srv_cursor_give(struct srv_trace *t, struct srv_cursor *c, int broken);
/* The next event (valid until the cursor's next call). */
sht_err srv_cursor_next(struct srv_cursor *c, sht_event *ev);
/* The ordinal of t's first event at or after ts (trace time). */
sht_err srv_trace_ordinal(struct srv_trace *t, sht_time ts, uint64_t *out);

/* ---- merged order (evmerge.c) -------------------------------------------- */

/* The experiment's events so far in merged order; *complete if every
 * trace was read to its end. */
uint64_t srv_merge_count(struct srv_exp *e, int *complete);

/* The table's status: FAILED (msg, n bytes, says why) if a trace could
 * not be read to its end, by its pass or by the merge: the lines stop
 * where the reading did; else COMPLETED if complete (srv_merge_count),
 * RUNNING if not. */
int srv_table_status(struct srv_exp *e, int complete, char *msg, size_t n);

/* Reading the experiment's events in merged order (time, then trace
 * order), from merged index i. */
struct srv_mread;
struct srv_mread *srv_mread_open(struct srv_exp *e, uint64_t i, sht_err *err);
/* The next event and its trace index; SHT_END at the end. */
sht_err srv_mread_next(struct srv_mread *m, sht_event *ev, size_t *trace);
void srv_mread_close(struct srv_mread *m);
/* The merged index of the first event at or after ts (experiment time). */
sht_err srv_merge_index_of(struct srv_exp *e, sht_time ts, uint64_t *out);

#endif /* SHT_SERVER_EVTAB_H */
