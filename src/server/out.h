/*
 * out.h: the outputs (data providers) of an experiment, one file each
 * (out-*.c), behind one table (outputs.c) that the routes dispatch to.
 *
 * Ids, names, descriptions and types are Trace Compass's, so that TSP
 * clients that know them work unchanged; the Statistics data tree is
 * sht's own.  Every handler fills the reply and returns 0, or -1 after an
 * error reply.
 */
#ifndef SHT_SERVER_OUT_H
#define SHT_SERVER_OUT_H

#include "srv.h"

enum srv_out_type { SRV_OUT_TIME_GRAPH, SRV_OUT_XY, SRV_OUT_TABLE,
		    SRV_OUT_DATA_TREE };

/* The outputs, in the order of the list; index into srv_exp.ids[]. */
enum srv_out_index { SRV_OUT_THREADS, SRV_OUT_RESOURCES, SRV_OUT_CPU,
		     SRV_OUT_EVENTS, SRV_OUT_STATS, SRV_OUT_HISTOGRAM,
		     SRV_OUT_SSX, SRV_OUT_COUNT };

struct srv_output;

/* One call on an output. */
struct srv_out_ctx {
	struct srv_req *req;
	struct srv_reply *rep;
	struct srv_exp *e;
	const struct srv_output *o;
	struct srv_ids *ids;      /* the output's entry ids in e */
	int cacheable;            /* set by a tree: the answer is final */
};

typedef int (*srv_out_fn)(struct srv_out_ctx *c);

struct srv_output {
	enum srv_out_index index;
	const char *id, *name, *description;
	enum srv_out_type type;
	/* 1 if the output applies to e (listed, answered; else 405). */
	int (*applies)(struct srv_exp *e);
	srv_out_fn tree;          /* timeGraph / XY / data tree */
	int cache_tree;           /* a tree is kept and answered again, for
	                             good once final, for a second while its
	                             analyses run (it ignores the request's
	                             parameters) */
	srv_out_fn states;        /* timeGraph states */
	srv_out_fn tooltip;       /* timeGraph tooltip */
	srv_out_fn arrows;        /* timeGraph arrows */
	srv_out_fn xy;            /* XY series */
	srv_out_fn columns;       /* table columns */
	srv_out_fn lines;         /* table lines */
	json_t *(*styles)(void);  /* the style map (time graphs) */
};

extern const struct srv_output srv_out_threads, srv_out_resources,
	srv_out_cpu, srv_out_events, srv_out_stats, srv_out_histogram,
	srv_out_ssx;

/* The output of id, or NULL. */
const struct srv_output *srv_output_find(const char *id);
json_t *srv_output_json(const struct srv_output *o);

/* Routes below /experiments/{e}/outputs (outputs.c). */
int srv_h_outputs(struct srv_req *req, struct srv_reply *rep,
		  struct srv_exp *e, char **seg, size_t nseg);

/* ---- entry ids (ids.c) ----------------------------------------------------- */
/*
 * Each output of an experiment numbers its entries 1, 2, 3, ... by a key
 * of three integers (e.g. trace, quark, lifetime start), stable for the
 * server's lifetime, with two integers of data per entry.
 */
struct srv_idkey {
	int64_t a, b, c;
};

struct srv_ids *srv_ids_new(void);
void srv_ids_free(struct srv_ids *ids);
/* The id of k, created if new (-1: out of memory). */
int64_t srv_ids_get(struct srv_ids *ids, struct srv_idkey k);
/* The key and data of id: 0, or -1 for an unknown id. */
int srv_ids_key(struct srv_ids *ids, int64_t id, struct srv_idkey *k,
		int64_t aux[2]);
void srv_ids_set_aux(struct srv_ids *ids, int64_t id, int64_t a0, int64_t a1);
/* The ids of output index i of e (created on first use). */
struct srv_ids *srv_exp_ids(struct srv_exp *e, enum srv_out_index i);

/* ---- shared pieces of the outputs (outshare.c) ------------------------------ */

/* A tree entry {"id", "parentId", "labels": [...], "hasData"} with
 * optional start/end (time graphs: has_time). */
json_t *srv_entry(int64_t id, int64_t parent, int has_time, sht_time start,
		  sht_time end, int has_data);
void srv_entry_label(json_t *entry, const char *label);
/* A header {"name", "tooltip"[, "dataType"]}. */
json_t *srv_header(const char *name, const char *tooltip, const char *type);
/* A style map entry: colour "#rrggbb", height, opacity, group. */
json_t *srv_style_def(const char *name, const char *color, double height,
		      double opacity, const char *group);

/* Status of a tree from its histories: RUNNING while one builds, FAILED
 * if all failed, else COMPLETED. */
int srv_hist_tree_status(struct srv_hist *const *h, size_t n);
/* A tree's answer with that status; a failure carries the message of
 * the first history that failed. */
int srv_reply_tree(struct srv_reply *rep, json_t *model,
		   struct srv_hist *const *h, size_t n);

/* The generic answer "model + status" of a time-graph or XY query over
 * times: COMPLETED if every history is built or covers the last time. */
int srv_query_status(struct srv_hq *q, size_t n, sht_time last);

/* Sampled 2D query: the intervals of quarks that hold one of the times
 * (one 2D query at the times' step; every interval over their span for
 * uneven times), ordered by (quark, start), as time-graph rows read
 * them. */
sht_err srv_sample(struct srv_hq *q, const sht_quark *quarks, size_t n,
		   const struct srv_times *ts, const struct srv_xform *xf,
		   sht_result *res);
/* Whether srv_sample's query over ts would keep an interval [a, b] of
 * the history (trace times): one holding a requested time (evenly spaced
 * times) or meeting their span (uneven times).  For an interval found
 * otherwise (a point query) where a screen used to take it from the 2D
 * query's answer. */
int srv_sample_keeps(const struct srv_hq *q, const struct srv_times *ts,
		     const struct srv_xform *xf, sht_time a, sht_time b);

/* ---- events table (evtab.c, evmerge.c, evcursor.c) --------------------------- */

void srv_merge_free(struct srv_merge *m);
/* 1 if the experiment's merged event order is ready (one trace: always). */
int srv_merge_ready(struct srv_exp *e);

#endif /* SHT_SERVER_OUT_H */
