/*
 * tg.h: helpers of the time-graph outputs (tg.c): the rows a states
 * request names, a 2D result grouped by quark, and the states answer
 * written straight into a buffer.
 *
 * A screen of states can hold a million intervals; building one jansson
 * object per state and value costs several allocations each, so the
 * states array is written into a growing buffer: numbers by srv_buf_i64,
 * strings (labels) escaped by jansson (srv_buf_jstr), the style of each
 * key dumped once by jansson.
 */
#ifndef SHT_SERVER_TG_H
#define SHT_SERVER_TG_H

#include "out.h"

/* A row asked for: its entry id and key (trace index, quark, ...). */
struct tg_row {
	int64_t id;
	struct srv_idkey k;
	int64_t aux[2];
	int known;                /* the id exists */
};

/* The rows of requested_items (unknown ids kept, known = 0). */
int tg_rows(struct srv_out_ctx *c, struct tg_row **rows, size_t *n);

/* A 2D result asked by (quark, start) (srv_hq_rows, srv_sample), read
 * row by row: each quark's items are together, in start order, and read
 * in place, one after the other (a screen's result is tens of MB: read
 * through an index sorted by quark, each item was a cache miss).  runs
 * lists each quark present and where its items begin, small enough to
 * stay in the cache while the rows look themselves up. */
struct tg_run {
	sht_quark q;
	uint32_t lo;              /* its first item */
};

struct tg_group {
	const sht_interval *items;
	size_t n;
	struct tg_run *runs;      /* by quark */
	size_t nruns;
};

/* Group res (in (quark, start) order: -1 if it is not, or on ENOMEM). */
int tg_group(struct tg_group *g, const sht_result *res);
void tg_group_free(struct tg_group *g);
/* The items of quark q: items[*lo .. *hi). */
void tg_group_range(const struct tg_group *g, sht_quark q, size_t *lo,
		    size_t *hi);
/* Among items[lo .. hi) (one quark's, in start order), the last one
 * starting at or before t (lo if none). */
size_t tg_group_first_at(const struct tg_group *g, size_t lo, size_t hi,
			 sht_time t);
/* How many items of g are row r's (0 if r is unknown, of another trace
 * than ti, or has no quark). */
size_t tg_row_items(const struct tg_group *g, const struct tg_row *r, int64_t ti);
/* The item of quark q holding t, or NULL. */
const sht_interval *tg_group_at(const struct tg_group *g, sht_quark q,
				sht_time t);

/* Writing the states answer. */
struct tg_out {
	struct srv_buf b;
	int nrows, nstates;       /* written so far in the row / model */
	struct srv_buf head;      /* empty, or the answer's first part (rows
	                             written on two threads: b is the rest) */
	struct srv_tcache tc;     /* the states' times */
};

void tg_begin(struct tg_out *o);
void tg_row_begin(struct tg_out *o, int64_t id);
/* A state [start, end) (experiment times); style key NULL: a null state,
 * else a constant that needs no JSON escape (written as is);
 * label may be NULL. */
void tg_state(struct tg_out *o, sht_time start, sht_time end, const char *key,
	      const char *label, size_t label_len);
/* The same with style values: values is the text of a JSON object. */
void tg_state_v(struct tg_out *o, sht_time start, sht_time end,
		const char *key, const char *label, size_t label_len,
		const char *values);
void tg_row_end(struct tg_out *o);
/*
 * A screen's rows written on two threads.  Rows [0, n) are cut where
 * about half of their weight is before (weight(ctx[0], i): the cost of
 * row i, e.g. its intervals); the calling thread writes the first part
 * into o with write(ctx[0], o, 0, cut), a new thread the second with
 * write(ctx[1], o2, cut, n) into a buffer of its own, which becomes o's
 * (the first part set aside as o->head: the answer is sent in two parts,
 * not copied into one; a second split in one answer is copied).  ctx[1]
 * is the second part's own context (its own results and caches: the two
 * run at once).  With threads < 2, a total
 * weight under min_weight, or no thread to be had, the calling thread
 * writes every row with ctx[0].  write begins and ends each row it
 * writes (tg_row_begin, tg_row_end).  The environment variable
 * SHT_SERVE_SPLIT_ROWS, if set to a number, replaces min_weight (the
 * tests set 1, so that their small traces' screens take both paths).
 */
/* Below this weight (tg_weight_fn: about an interval of the cheapest
 * kind, ~40 ns to write) a screen is written on one thread: a thread
 * costs ~0.1 ms, 20 000 units ~0.8 ms. */
#define TG_PAR_WEIGHT 20000

typedef void (*tg_write_fn)(void *ctx, struct tg_out *o, size_t from, size_t to);
typedef uint64_t (*tg_weight_fn)(void *ctx, size_t i);

void tg_write_rows(struct tg_out *o, size_t n, unsigned threads,
		   uint64_t min_weight, tg_weight_fn weight, tg_write_fn write,
		   void *const ctx[2]);

/* Close the model with its status and reply. */
void tg_end(struct tg_out *o, struct srv_reply *rep, int status);

/* The frame of a states request: its sample times and rows, the answer
 * begun, the status so far (COMPLETED until a trace says otherwise). */
struct tg_states {
	struct srv_times ts;
	struct tg_row *rows;
	size_t n;
	struct tg_out o;
	int status;
};

/* Parse the request into s and begin the answer; -1: an error reply is
 * set, nothing to free. */
int tg_states_begin(struct srv_out_ctx *c, struct tg_states *s);
/* Close the answer with s->status, reply, free s. */
void tg_states_end(struct srv_out_ctx *c, struct tg_states *s);

/* The label of a value (int decimal, long 0x hex, string, double none). */
const char *tg_value_label(const sht_value *v, char *buf, size_t size,
			   size_t *len);

/* The first requested_times and requested_items of a tooltip request. */
int srv_tooltip_args(struct srv_out_ctx *c, sht_time *t, struct tg_row *row);
/* An empty arrows answer. */
int srv_no_arrows(struct srv_out_ctx *c);

#endif /* SHT_SERVER_TG_H */
