/*
 * srv.h: private header of `sht serve` (src/server/).
 *
 * Layers, each in its own files:
 *
 *   http.c      libmicrohttpd: connections, bodies, limits, the log line
 *   route.c     path + method -> handler; the response envelope (reply.c)
 *   req.c       reading request parameters (jansson) with 400 messages
 *   registry.c  traces and experiments by UUID, reference counted
 *   trace.c     opening a trace (CTF directory, VSTF file), its properties
 *   pass.c      the background pass over a trace: every analysis at once
 *   cache.c     history files in the cache directory, `sht build`'s reuse
 *   hist.c      a history being built or built: queries, the name mirror
 *   evtab.c ... the events table: sparse index, seeking, merged reading
 *   out-*.c     one file per output (data provider)
 *
 * Only <sht/sht.h> is used from libsht: no private header of src/.
 *
 * Times: 64-bit nanoseconds (sht_time), never through a double.  Ids sent
 * to clients stay below 2^53 (entry ids come from small counters).
 */
#ifndef SHT_SERVER_SRV_H
#define SHT_SERVER_SRV_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <sht/sht.h>

#include "serve.h"

/* ---- limits ------------------------------------------------------------ */

#define SRV_BODY_MAX (1u << 20)        /* request body bytes */
#define SRV_NBTIMES_MAX 65536          /* sample times per request */
#define SRV_ITEMS_MAX 200000           /* requested_items */
#define SRV_LINES_MAX 10000            /* table lines per request */
#define SRV_TRACES_MAX 1024            /* traces open at once */
#define SRV_EXPS_MAX 1024              /* experiments open at once */
#define SRV_EXP_TRACES_MAX 64          /* traces in one experiment */
#define SRV_NAME_MAX 1024              /* names, uuids, output ids */
#define SRV_SEARCH_SECONDS 10          /* a table search's time budget */

/* ---- growing buffer ---------------------------------------------------- */

struct srv_buf {
	char *p;
	size_t len, cap;
	int oom;                  /* an append failed: the content is cut */
};

void srv_buf_put(struct srv_buf *b, const char *s, size_t n);
void srv_buf_puts(struct srv_buf *b, const char *s);
void srv_buf_printf(struct srv_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void srv_buf_i64(struct srv_buf *b, int64_t v);
/* Writing in place: room for n more bytes (NULL if out of memory: the
 * buffer is marked cut), then srv_buf_commit with the end of what was
 * written there; srv_put_i64 writes at most 20 bytes and returns the end. */
char *srv_buf_room(struct srv_buf *b, size_t n);
void srv_buf_commit(struct srv_buf *b, char *end);
char *srv_put_i64(char *p, int64_t v);
/* Times written one after another (a screen's states) share their
 * digits above the last eight (100 ms): those of the last time are kept
 * and copied.  srv_put_time writes what srv_put_i64 would (at most 20
 * bytes); a zeroed srv_tcache is empty. */
struct srv_tcache {
	uint64_t hi;              /* the time / 10^8 whose digits are kept */
	unsigned len;             /* their count (0: none kept) */
	char digits[16];
};
char *srv_put_time(char *p, int64_t v, struct srv_tcache *c);
/* A finite double as a number literal of at most 15 characters (the
 * client's parser makes longer literals BigInts); integers as digits. */
void srv_buf_double(struct srv_buf *b, double v);
/* Room for more bytes (a hint: appends grow the buffer anyway). */
void srv_buf_reserve(struct srv_buf *b, size_t more);
/* A JSON string literal: as is when it needs no escape, else escaped by
 * jansson (invalid UTF-8 replaced). */
void srv_buf_jstr(struct srv_buf *b, const char *s, size_t n);
/* A JSON string of s (n bytes; invalid UTF-8 and NULs become U+FFFD):
 * every string the server sends goes through these. */
json_t *srv_jstrn(const char *s, size_t n);
json_t *srv_jstr(const char *s);
/* A JSON value through jansson (compact). */
void srv_buf_json(struct srv_buf *b, const json_t *j);
void srv_buf_free(struct srv_buf *b);

/* ---- requests and replies ---------------------------------------------- */

enum srv_method { SRV_GET, SRV_POST, SRV_PUT, SRV_DELETE, SRV_OPTIONS,
		  SRV_HEAD, SRV_OTHER };

struct srv;

struct srv_req {
	struct srv *srv;
	enum srv_method method;
	const char *path;         /* below /tsp/api, e.g. "/traces" */
	const char *body;         /* request body (NUL-terminated), or NULL */
	size_t body_len;
	json_t *root;             /* parsed body (srv_req_parse) */
	json_t *params;           /* root's "parameters" object */
	/* Query-string argument by name, or NULL. */
	const char *(*arg)(void *conn, const char *key);
	void *conn;
};

struct srv_reply {
	int status;               /* HTTP status */
	char *body;               /* JSON, malloc'd */
	size_t len;
	char *body2;              /* NULL, or the rest of the body (malloc'd,
	                             sent after body: a big answer written in
	                             two parts, not copied into one) */
	size_t len2;
	int gzip_ok;              /* the client accepts gzip */
	const char *ctype;        /* Content-Type; NULL: application/json
	                             (an API answer; CORS headers
	                             for --allow-origin only) */
	unsigned retry_after;     /* a 429's or 503's Retry-After (s); 0: none */
};

/* Set the reply to the JSON j (reference stolen) with status. */
void srv_reply_json(struct srv_reply *rep, int status, json_t *j);
/* Set the reply to a buffer (stolen) with status 200. */
void srv_reply_buf(struct srv_reply *rep, struct srv_buf *b);
/* The same with the body in two buffers (both stolen), b then b2; b2
 * empty: srv_reply_buf(rep, b). */
void srv_reply_buf2(struct srv_reply *rep, struct srv_buf *b, struct srv_buf *b2);
/* Free the body (both parts). */
void srv_reply_free(struct srv_reply *rep);
/* Make a body in two parts one (for callers that read rep->body: an
 * answer handled in the process, not sent); out of memory: the reply
 * becomes a 500. */
void srv_reply_join(struct srv_reply *rep);
/* An ErrorResponse {"title", "detail"}; returns -1 for handlers. */
int srv_reply_error(struct srv_reply *rep, int status, const char *title,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A GenericResponse {"model", "status", "statusMessage"} (model stolen,
 * NULL: null; msg NULL: Trace Compass's message of the status). */
void srv_reply_model(struct srv_reply *rep, json_t *model, int status,
		     const char *msg);

/* Status of a data answer (the protocol's strings). */
enum srv_status { SRV_RUNNING, SRV_COMPLETED, SRV_FAILED, SRV_CANCELLED };
const char *srv_status_name(int status);
const char *srv_status_message(int status);

/* ---- request parameters (req.c) ---------------------------------------- */
/*
 * Every getter returns 0 (found, *out set), 1 (absent, optional), or -1
 * after filling rep with 400 "Missing query parameters: KEY" or "Invalid
 * query parameters: KEY".
 */

/* Parse the body: a JSON object with a "parameters" object (an empty
 * body or no "parameters" gives an empty object if !need). */
int srv_req_parse(struct srv_req *req, struct srv_reply *rep, int need);
int srv_req_int(struct srv_req *req, struct srv_reply *rep, const char *key,
		int64_t min, int64_t max, int required, int64_t *out);
int srv_req_str(struct srv_req *req, struct srv_reply *rep, const char *key,
		int required, const char **out);
/* An array of integers within [min, max]; *out malloc'd. */
int srv_req_ints(struct srv_req *req, struct srv_reply *rep, const char *key,
		 int64_t min, int64_t max, size_t max_n, int required,
		 int64_t **out, size_t *n);

/* The sample times of a request: requested_timerange {start, end,
 * nbTimes} (start, start + step, ... < end, then end; step = (end -
 * start) / (nbTimes - 1), at least 1; nbTimes absent or <= 1: start and
 * end) or requested_times [t...] (sorted, duplicates removed). */
struct srv_times {
	sht_time *t;              /* n sorted distinct times (malloc'd) */
	size_t n;
	sht_time start, end;      /* the requested range */
	sht_time step;            /* > 0: t = start + k step, then end */
};
int srv_req_times(struct srv_req *req, struct srv_reply *rep, int required,
		  struct srv_times *out);
/* requested_timerange's start and end only (trees). */
int srv_req_range(struct srv_req *req, struct srv_reply *rep, int required,
		  sht_time *start, sht_time *end);
void srv_times_free(struct srv_times *t);
/* Index of the first time >= t (n if none). */
size_t srv_times_lower(const struct srv_times *ts, sht_time t);
/* 1 if a time of ts falls in [a, b]. */
int srv_times_hit(const struct srv_times *ts, sht_time a, sht_time b);

/* Requests may give any 64-bit times: the distance b - a (a <= b) as an
 * unsigned count, and t - d kept at INT64_MIN if below, never overflow. */
static inline uint64_t srv_span(sht_time a, sht_time b)
{
	return (uint64_t)b - (uint64_t)a;
}

static inline sht_time srv_time_back(sht_time t, uint64_t d)
{
	return srv_span(INT64_MIN, t) >= d ? (sht_time)((uint64_t)t - d) : INT64_MIN;
}

/* ---- names and identities (util.c) -------------------------------------- */

/* A name-based UUID (RFC 9562 version 8) of the given bytes, as text. */
void srv_uuid(char out[37], const void *data, size_t len);
/* Decimal text of v into buf (>= 24 bytes); returns buf. */
char *srv_itoa(int64_t v, char *buf);
/* A number never given twice in this process (temporary file names:
 * two traces of one path write the same cache files). */
unsigned srv_serial(void);
/* Monotonic clock in seconds. */
double srv_now(void);
/* A duration in ns as "1.234 ms" (buf >= 32 bytes). */
const char *srv_fmt_duration(sht_time ns, char *buf, size_t size);
/* An absolute time as "HH:MM:SS.nnn nnn nnn" (UTC of the day). */
const char *srv_fmt_time(sht_time ns, char *buf, size_t size);

/* ---- history handles (hist.c, attrs.c) --------------------------------- */

/* The attribute tree of a history, mirrored in the server: names copied,
 * children in creation order, a hash from (parent, name) to quark.  Grown
 * as the history being built creates attributes. */
struct srv_attrs {
	pthread_rwlock_t lock;
	size_t n, cap;
	char **name;
	sht_quark *parent, *first, *last, *next; /* tree links (NONE: none) */
	sht_quark root_first, root_last;
	sht_quark *hash;          /* open addressing, hcap slots */
	size_t hcap;
};

void srv_attrs_init(struct srv_attrs *a);
void srv_attrs_free(struct srv_attrs *a);
/* Add the attributes ss has beyond a->n (under the write lock). */
sht_err srv_attrs_sync(struct srv_attrs *a, sht_state *ss);
/* How many attributes a has now (takes the read lock). */
size_t srv_attrs_count(struct srv_attrs *a);
/* The following are called with the read lock held. */
sht_quark srv_attrs_child(const struct srv_attrs *a, sht_quark parent,
			  const char *name);
sht_quark srv_attrs_first(const struct srv_attrs *a, sht_quark q);
sht_quark srv_attrs_next(const struct srv_attrs *a, sht_quark q);
/* Full path into buf ("/"-joined), returns buf. */
const char *srv_attrs_fullpath(const struct srv_attrs *a, sht_quark q,
			       char *buf, size_t size);

/* A history of one analysis of one trace. */
enum srv_hist_kind { SRV_AN_KERNEL, SRV_AN_STATS, SRV_AN_RULES, SRV_AN_CPU };

/* The cumulative CPU time history (cpuacc.c), derived from the kernel
 * analysis while it runs: its version follows the kernel model's. */
#define SRV_CPUACC_ID "org.sht.server.cpu-usage"
#define SRV_CPUACC_VERSION (SHT_KERNEL_PROVIDER_VERSION * 100u + 3u)
struct srv_cpuacc;
sht_err srv_cpuacc_create(struct srv_cpuacc **out);
void srv_cpuacc_destroy(struct srv_cpuacc *a);
/* The kernel analysis' state system it watches (NULL: none). */
void srv_cpuacc_watch(struct srv_cpuacc *a, sht_state *kss);
void srv_cpuacc_provider(struct srv_cpuacc *a, sht_provider *p);
/* Its history's options (identity, small blocks). */
void srv_cpuacc_opts(sht_state_opts *so);
/* The same history into file out from a complete kernel history (an
 * older cache's): its running-thread intervals read in time order. */
sht_err srv_cpuacc_derive(const char *kfile, const char *out,
			  const atomic_int *cancel);

struct srv_hist {
	enum srv_hist_kind kind;
	char *label;              /* "Linux Kernel", "Event statistics",
	                             or the rules file's name */
	char *rules;              /* rules file path (SRV_AN_RULES) */
	char *file;               /* history file in the cache */
	char provider[256];       /* provider id once known */
	pthread_rwlock_t lock;    /* ss / rd swap */
	sht_state *ss;            /* building: the live state system;
	                             built: the opened file (names) */
	sht_reader *rd;           /* built: the file's reader (queries) */
	atomic_int status;        /* SRV_RUNNING, _COMPLETED, _FAILED, ... */
	char *message;            /* failure message (set before FAILED) */
	struct srv_attrs attrs;
	unsigned query_threads;   /* threads of a big sampled 2D query */
	size_t map_budget;        /* bytes its reader keeps mapped; 0: all */
	pthread_mutex_t lives_lock;
	struct srv_lives *lives;  /* kernel: thread lifetimes, once built */
};

/* What a request holds while it queries a history. */
struct srv_hq {
	struct srv_hist *h;
	sht_state *ss;
	sht_reader *rd;
	int status;
	sht_time start, end;      /* the history's range so far */
	int valid;                /* 0: nothing queryable yet */
};

/* Take the history for queries (read lock), sync its names; release. */
void srv_hist_acquire(struct srv_hist *h, struct srv_hq *q);
void srv_hist_release(struct srv_hq *q);
/* A 2D query with [t1, t2] clamped to the history; empty result if they
 * do not meet it.  A sampled one over SRV_PAR_QUARKS quarks or more (a
 * screen of rows, not one counter) of a built history runs on the
 * history's query_threads threads (sht_reader_query_2d_threads: the
 * samples cut into runs of time, one per thread, the same answer). */
#define SRV_PAR_QUARKS 64
sht_err srv_hq_2d(struct srv_hq *q, const sht_quark *quarks, size_t n,
		  sht_time t1, sht_time t2, sht_time resolution,
		  sht_result *res);
/* The same by (quark, start) (SHT_ORDER_QUARK): each row's intervals
 * together, in time order, for a caller that walks row by row (tg.h's
 * tg_group).  Both are in outshare.c. */
sht_err srv_hq_rows(struct srv_hq *q, const sht_quark *quarks, size_t n,
		    sht_time t1, sht_time t2, sht_time resolution,
		    sht_result *res);
/* The interval of one quark at t (SHT_NOT_FOUND outside). */
sht_err srv_hq_at(struct srv_hq *q, sht_quark quark, sht_time t,
		  sht_result *res);
/* Every interval at t, one per quark (full query). */
sht_err srv_hq_full(struct srv_hq *q, sht_time t, sht_result *res);

void srv_hist_init(struct srv_hist *h, enum srv_hist_kind kind,
		   const char *label, const char *rules);
void srv_hist_free(struct srv_hist *h);
/* Publish the live state system of a build (RUNNING). */
void srv_hist_building(struct srv_hist *h, sht_state *ss);
/* The build is complete in file: reopen it read-only (COMPLETED). */
sht_err srv_hist_built(struct srv_hist *h);
/* The build failed or was cancelled: drop the live state system. */
void srv_hist_failed(struct srv_hist *h, int status, const char *msg);

/* ---- events index (evindex.c) ----------------------------------------- */

/* Every SRV_INDEX_EVERY events of a trace, the timestamp of that event:
 * the sparse index the events table seeks with. */
#define SRV_INDEX_EVERY 1024u

struct srv_evindex {
	pthread_mutex_t lock;
	sht_time *ts;             /* ts[k] = time of event k * EVERY */
	uint32_t *before;         /* events of time ts[k] just before it */
	size_t n, cap;
	uint32_t run;             /* events of time `last` before the last */
	uint64_t events;          /* events counted so far */
	sht_time first, last;     /* first and last event times */
	int complete;             /* the whole trace was counted */
};

void srv_evindex_init(struct srv_evindex *x);
void srv_evindex_free(struct srv_evindex *x);
/* Record event number ord at ts (in order). */
void srv_evindex_add(struct srv_evindex *x, uint64_t ord, sht_time ts);
int srv_evindex_save(struct srv_evindex *x, const char *path);
int srv_evindex_load(struct srv_evindex *x, const char *path);
/* The last checkpoint whose time is < t: its ordinal (0 if none). */
uint64_t srv_evindex_before(struct srv_evindex *x, sht_time t);
/* A place at or before event ord from which a source can go on with
 * seek_at (sht/source.h): the first event of the time of the checkpoint
 * at or before ord, its ordinal *pos and time *ts; 0 if the index does
 * not reach ord's checkpoint (yet). */
int srv_evindex_anchor(struct srv_evindex *x, uint64_t ord, uint64_t *pos,
		       sht_time *ts);

/* ---- traces (trace.c, pass.c) ------------------------------------------ */

/* Per-trace time transform into the experiment's time (the hook for
 * trace synchronisation): t_exp = t + offset.  Identity today. */
struct srv_xform {
	sht_time offset;
};

static inline sht_time srv_to_exp(const struct srv_xform *x, sht_time t)
{
	return t + x->offset;
}

static inline sht_time srv_from_exp(const struct srv_xform *x, sht_time t)
{
	return t - x->offset;
}

struct srv_cursors;
struct srv_merge;
struct srv_lives;
void srv_cursors_free(struct srv_cursors *c);

struct srv_trace {
	atomic_int refs;
	char uuid[37];
	char *name;
	char *path;               /* real path */
	int vstf;                 /* 1: VSTF file; 0: CTF directory */
	int kernel;               /* a Linux kernel trace (LTTng modules) */
	json_t *properties;       /* environment, as strings */
	char *cachedir;           /* this trace's directory in the cache */
	sht_time first_ts;        /* time of the first event */
	sht_kernel_layout layout;
	struct srv_xform xf;

	struct srv_hist *hists;   /* nhists: kernel (if kernel), stats,
	                             then each rules file */
	size_t nhists;
	struct srv_evindex index;
	atomic_int pass_status;   /* SRV_RUNNING while the pass runs */
	atomic_int cancel;        /* stop the pass */
	int pass_derive_only;     /* the pass only derives the CPU Usage
	                             history from the cached kernel one */
	pthread_t thread;
	int have_thread;
	char *pass_message;       /* why the pass failed */
	atomic_uint_least64_t lost; /* discarded events (tracer) */
	struct srv_cursors *cursors;
};

/* Open the trace at path (already checked against the roots): its
 * source, environment and first event; no analysis yet.  On failure
 * fills rep (406 unreadable, 501 not a trace). */
struct srv_trace *srv_trace_open(struct srv *s, const char *path,
				 const char *name, struct srv_reply *rep);
/* Start the background pass (reusing cached histories). */
int srv_trace_start(struct srv *s, struct srv_trace *t);
void srv_trace_ref(struct srv_trace *t);
void srv_trace_unref(struct srv_trace *t);
/* Stop the pass (and wait for it). */
void srv_trace_stop(struct srv_trace *t);
/* Open a new source over the trace: a CTF trace decoded on jobs threads
 * (0: the caller's; sht_ctf_opts.jobs). */
sht_err srv_trace_source(const struct srv_trace *t, uint32_t jobs,
			 sht_source *out);
void srv_trace_source_close(const struct srv_trace *t, sht_source *src);
/* The trace's events so far and the time of the last one. */
uint64_t srv_trace_events(struct srv_trace *t, sht_time *last);
/* The trace's history of a kind (the first of it), or NULL. */
struct srv_hist *srv_trace_hist(struct srv_trace *t, enum srv_hist_kind k);
/* The Trace model. */
json_t *srv_trace_json(struct srv_trace *t);
/* Every field of an event, in order (CTF or VSTF). */
sht_err srv_trace_fields(const struct srv_trace *t, const sht_event *ev,
			 sht_field_fn fn, void *ctx);

/* ---- experiments -------------------------------------------------------- */

struct srv_ids;

struct srv_exp {
	atomic_int refs;
	char uuid[37];
	char *name;
	struct srv_trace **traces;
	size_t ntraces;
	pthread_mutex_t lock;     /* ids below */
	struct srv_ids *ids[16];  /* entry ids per output (outputs.c) */
	char *tree[16];           /* trees as answered (outputs.c): final */
	size_t tree_len[16];      /* ones, and partial ones for a second */
	int tree_final[16];
	double tree_time[16];
	struct srv_merge *merge;  /* merged event order (>1 trace) */
};

struct srv_exp *srv_exp_new(const char *name, struct srv_trace **traces,
			    size_t n);
void srv_exp_ref(struct srv_exp *e);
/* Start building the merged event order of a multi-trace experiment. */
void srv_merge_start(struct srv *s, struct srv_exp *e);
void srv_exp_unref(struct srv_exp *e);
json_t *srv_exp_json(struct srv_exp *e);
/* The experiment's range and events so far; 1 if every pass is done. */
int srv_exp_progress(struct srv_exp *e, sht_time *start, sht_time *end,
		     uint64_t *events);

/* ---- registry (registry.c) ---------------------------------------------- */

struct srv_registry {
	pthread_mutex_t lock;
	struct srv_trace **traces;
	size_t ntraces, captraces;
	struct srv_exp **exps;
	size_t nexps, capexps;
};

void srv_registry_init(struct srv_registry *r);
void srv_registry_free(struct srv_registry *r);
/* A referenced trace / experiment by UUID, or NULL. */
struct srv_trace *srv_registry_trace(struct srv_registry *r, const char *uuid);
struct srv_exp *srv_registry_exp(struct srv_registry *r, const char *uuid);
/* Under r->lock: add (0, or -1 out of memory), drop (1 if it was there:
 * the caller then releases the registry's reference), in use. */
int srv_registry_add_trace(struct srv_registry *r, struct srv_trace *t);
int srv_registry_add_exp(struct srv_registry *r, struct srv_exp *e);
int srv_registry_drop_trace(struct srv_registry *r, struct srv_trace *t);
int srv_registry_drop_exp(struct srv_registry *r, struct srv_exp *e);
int srv_registry_trace_used(struct srv_registry *r, const struct srv_trace *t);

/* ---- the server ---------------------------------------------------------- */

struct srv {
	struct srv_config cfg;
	char **roots;             /* real paths */
	size_t nroots;
	char *cache;              /* real path of the cache directory */
	struct srv_registry reg;
	atomic_int stopping;
	pthread_mutex_t log_lock;
	unsigned query_threads;   /* threads of a big sampled 2D query */
	char build_time[32];
	char *web;                /* the viewer's files (real path), or NULL */
	int browser_pid;          /* sht view's xdg-open, 0: none */
	/* idle.c: requests in flight, begun so far, when the last ended;
	 * the count at the last release of memory (main thread only) */
	atomic_int inflight;
	atomic_uint_least64_t requests;
	atomic_int_least64_t last_busy_ns;
	uint64_t released_gen;
};

/* Around each request (http.c); then, from the main thread every few
 * hundred ms: once no request has run for cfg.idle_release_s seconds,
 * give the memory of the last answers back (the histories' mapped pages,
 * the heap's free pages).  1 if it did. */
void srv_busy_begin(struct srv *s);
void srv_busy_end(struct srv *s);
int srv_idle_tick(struct srv *s);

/* Resolve the roots and the cache, prepare the registry (0, or -1 after
 * printing why); free everything (every trace's pass stopped first).
 * srv_run does both around the HTTP server; tests call them alone. */
int srv_setup(struct srv *s, const struct srv_config *cfg);
void srv_teardown(struct srv *s);

/* Log one line (stderr) unless quiet. */
void srv_log(struct srv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Remove the partial files of dead servers from the cache directory and
 * its subdirectories (stale.c); the number removed. */
size_t srv_clean_stale(const char *cache);

/* Whether path (a real path) lies under one of the roots. */
int srv_path_allowed(const struct srv *s, const char *real);
/* Check a client's path (given as parameter param): realpath, then the
 * roots.  Returns the real path (malloc'd) or NULL after filling rep
 * (400 empty, 404 absent, 403 outside). */
char *srv_path_check(const struct srv *s, const char *path, const char *param,
		     struct srv_reply *rep);

/* Handle one request (route.c): the HTTP layer's single entry. */
void srv_handle(struct srv_req *req, struct srv_reply *rep);

/* ---- the viewer (static.c, h-sht.c, view.c) ----------------------------- */

/* Find the viewer's files: --web, else <exe>/../share/sht/web, else the
 * source tree's src/web, else the installed data directory.  Sets
 * s->web (NULL, and a note in the log, if none holds index.html). */
void srv_web_find(struct srv *s);
/* GET/HEAD of a file of the viewer (any path outside /tsp/api and
 * /sht/api; "/" is index.html). */
int srv_static(struct srv_req *req, struct srv_reply *rep);
/* sht's own small extension for what TSP lacks (docs/VIEWER.md):
 * GET /sht/api/roots, GET /sht/api/files?path=DIR. */
int srv_h_sht(struct srv_req *req, struct srv_reply *rep, char **seg,
	      size_t n);
/* `sht view`: open cfg's traces as one experiment through the handlers,
 * print the page's URL on a line of its own, start a browser if asked.
 * Returns 0, or -1 after printing why. */
int srv_view_open(struct srv *s, unsigned port);
/* Reap the browser launcher, if any. */
void srv_view_done(struct srv *s);

/* ---- handlers ----------------------------------------------------------- */

int srv_h_health(struct srv_req *req, struct srv_reply *rep);
int srv_h_identifier(struct srv_req *req, struct srv_reply *rep);
int srv_h_traces(struct srv_req *req, struct srv_reply *rep, const char *id);
int srv_h_exps(struct srv_req *req, struct srv_reply *rep, const char *id);

#endif /* SHT_SERVER_SRV_H */
