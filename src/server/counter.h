/*
 * counter.h: counters of the statistics history at many times
 * (counter.c).
 */
#ifndef SHT_SERVER_COUNTER_H
#define SHT_SERVER_COUNTER_H

#include "out.h"

/* out[i] = the counter quark's value at ts->t[i] (0 before its first
 * event or before the history, its last value after the history). */
int srv_counter_at(struct srv_hq *q, sht_quark quark, const struct srv_times *ts,
		   const struct srv_xform *xf, int64_t *out);

/* Counter quark q's value in a full query result (items in quark order):
 * 0 if absent or not an integer. */
int64_t srv_counter_in(const sht_result *res, sht_quark q);

#endif /* SHT_SERVER_COUNTER_H */
