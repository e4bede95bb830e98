/*
 * evline.h: lines of the events table (out-events.c) and their search
 * and filter (evsearch.c).
 */
#ifndef SHT_SERVER_EVLINE_H
#define SHT_SERVER_EVLINE_H

#include <regex.h>

#include "evtab.h"

/* Column ids (stable): the Trace column only with several traces. */
enum { COL_TRACE, COL_TIME, COL_CPU, COL_TYPE, COL_CONTENTS, COL_TIME_NS,
       COL_COUNT };

/* A request's columns, search and filter. */
struct ev_query {
	int cols[COL_COUNT];      /* the columns to write, in order */
	size_t ncols;
	regex_t search[COL_COUNT];
	int has_search[COL_COUNT], nsearch;
	int direction;            /* 0 none, 1 NEXT, -1 PREVIOUS */
	regex_t filter;           /* on the event type */
	int has_filter;
	/* Per trace, the statistics counters of the types passing the
	 * filter (ev_filter_prepare). */
	sht_quark *fq[SRV_EXP_TRACES_MAX];
	size_t nfq[SRV_EXP_TRACES_MAX];
};

/* The cells of one event, as text. */
struct ev_cells {
	struct srv_buf cell[COL_COUNT];
};

void ev_cells_fill(struct ev_cells *c, struct srv_exp *e, size_t trace,
		   const sht_event *ev);
void ev_cells_free(struct ev_cells *c);
/* 1 if every search expression matches its cell. */
int ev_search_match(const struct ev_query *q, const struct ev_cells *c);
/* 1 if the event passes the filter. */
int ev_filter_match(const struct ev_query *q, const sht_event *ev);

/* Reading the request (400 on errors); free with ev_query_free. */
int ev_query_parse(struct srv_out_ctx *c, struct ev_query *q);
void ev_query_free(struct ev_query *q);

/* ---- the filter's counts (evsearch.c) -------------------------------------- */
/*
 * With a filter on the event type, the table's index is the rank among
 * the events that pass.  The statistics history counts each type's
 * events up to any time, so the rank of a time is a full query away and
 * the time of a rank a binary search: no scan of the trace.
 */

/* The counters of the types passing the filter, per trace. */
int ev_filter_prepare(struct srv_exp *e, struct ev_query *q);
/* Events passing the filter with a time <= t (experiment time), as far
 * as the statistics histories are built. */
int64_t ev_filter_count(struct srv_exp *e, const struct ev_query *q, sht_time t);
/* The time of the filtered event of rank i: the first time T whose count
 * exceeds i; INT64_MAX if there is none. */
sht_time ev_filter_time(struct srv_exp *e, const struct ev_query *q, uint64_t i);

/* A search's outcome (ev_search). */
struct ev_found {
	int64_t index;            /* the match; -1: none (or cut, or err) */
	int cut;                  /* the time bound stopped it */
	sht_err err;              /* < 0: reading the trace failed, */
	char why[512];            /* with the reader's message */
	double seconds;           /* how long it ran */
	/* Cut: lines lo..hi (their experiment times tlo, thi) were read
	 * without a match (searched; else none was read to the end). */
	int searched;
	uint64_t lo, hi;
	sht_time tlo, thi;
};

/* Search: the first matching line at or after (dir 1) or at or before
 * (dir -1) from, within ev_search_seconds(). */
void ev_search(struct srv_exp *e, const struct ev_query *q, uint64_t from,
	       int dir, uint64_t size, struct ev_found *f);
/* The time bound of a search in seconds (SRV_SEARCH_SECONDS, or
 * SHT_SERVE_SEARCH_SECONDS from the environment). */
double ev_search_seconds(void);
/* At most half the server's workers (at least one) search at once:
 * ev_search_limit at start-up; ev_search_enter takes a place (0) or
 * finds none (-1, *cap set), ev_search_leave gives it back. */
void ev_search_limit(int workers);
int ev_search_enter(int *cap);
void ev_search_leave(void);

/* Reading the table from a line index (the filtered index with a
 * filter): events, their trace and their index. */
struct ev_reader;
struct ev_reader *ev_reader_open(struct srv_exp *e, const struct ev_query *q,
				 uint64_t index, sht_err *err);
sht_err ev_reader_next(struct ev_reader *r, sht_event *ev, size_t *trace,
		       uint64_t *index);
void ev_reader_close(struct ev_reader *r);

#endif /* SHT_SERVER_EVLINE_H */
