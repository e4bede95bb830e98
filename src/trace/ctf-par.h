/*
 * ctf-par.h: private to the CTF source's stream reader (ctf-par.c,
 * ctf-dec.c, ctf-deq.c, ctf-meta.c, ctf-rec.c, ctf-mux.c): every stream
 * of the trace decoded on
 * its own, on one or more threads, and merged in time order by our copy of
 * flt.utils.muxer's rule.  See sht/trace.h for the contract and
 * ctf-int.h for the rest of the source.
 *
 *   decoders (ctf-dec.c,        one babeltrace2 graph each: src.ctf.fs
 *     ctf-deq.c, ctf-dec.h)     (one per trace directory) and a sink of
 *                               ours with one input port per stream it
 *                               decodes; on a thread of its own, or on
 *                               the caller's (jobs = 0)
 *   records (ctf-rec.c,         what a decoder makes of each message: a
 *     ctf-meta.c)               flat copy (type, time, class, cpu, field
 *                               values, strings) in chunks of memory, so
 *                               that no babeltrace2 object ever crosses
 *                               threads; event classes shared by all
 *                               decoders (one name pointer per class)
 *   stream queues (ctf-par.c)   per stream, at most CTF_QUEUE_CHUNKS
 *                               chunks ready: memory stays flat
 *   merge (ctf-mux.c)           flt.utils.muxer 2.0.4's choice, message
 *                               by message, over the streams' queues
 *
 * Why not babeltrace2's own muxer: its upstream iterators must live in
 * its graph, on one thread.  Why a flat copy: babeltrace2's objects have
 * plain (not atomic) reference counts and recycle messages through
 * per-graph pools, so a message cannot be released on another thread.
 *
 * Threads: the consumer (the thread calling next()) and one thread per
 * decoder.  A decoder's mutex guards the queues of its streams; records
 * are written before their chunk is published under it and read after
 * it is taken under it.  babeltrace2 plugins are loaded and released
 * under a process-wide mutex (their component classes sit in a global
 * list).
 */
#ifndef SHT_TRACE_CTF_PAR_H
#define SHT_TRACE_CTF_PAR_H

#include <pthread.h>
#include <stdatomic.h>

#include "ctf-int.h"
#include "util/buf.h"

#define CTF_CHUNK_BYTES (64u * 1024u)  /* records per chunk (bytes) */
#define CTF_QUEUE_CHUNKS 6u            /* ready chunks per stream */
#define CTF_SEEK_CHUNKS 1u             /* ... after a seek, at first */
#define CTF_SEEK_GROW 32u              /* one more per this many taken */
#define CTF_PUBLISH_MIN (CTF_CHUNK_BYTES / 4u) /* bytes handed over to a
                                          starving consumer */
#define CTF_ERRMSG 512u
#define CTF_CACHE_LINE 64              /* bytes (x86-64, arm64) */
#define CTF_TS_SLOW INT64_MIN

/* ---- records (ctf-rec.c) ------------------------------------------------ */

/* An event class as every decoder sees it: its muxer keys and its fields
 * in field() lookup order (payload members, then the specific then the
 * common context's members not named before). */
struct ctf_class {
	struct ctf_class *next;       /* registry list */
	uint32_t dir;                 /* trace directory */
	uint64_t sc_id, id;           /* stream class, event class ids */
	char *name;                   /* NULL if none */
	char *emf;                    /* EMF URI, NULL if none */
	int has_ll, ll;               /* log level */
	uint32_t nf;
	char **fname;
	uint8_t *scope;               /* 0 payload, 1 specific, 2 common */
	uint32_t *midx;               /* member index in its scope */
	uint8_t *compound;            /* 1: a structure or variant */
	uint8_t *kind;                /* enum ctf_kind: how to read it */
	int nested;                   /* some field is (ctf-nest.c) */
	int32_t cpu_f;                /* payload "cpu_id" integer, or -1 */
};

/* A discarded events / packets message's comparison data. */
struct ctf_disc {
	uint64_t count;
	uint64_t cs_begin, cs_end;    /* clock values (cycles), if any */
	uint8_t count_avail, has_cs;
};

/* One message, flat.  Events carry nval values (then their strings);
 * discarded messages one struct ctf_disc. */
struct ctf_rec {
	uint32_t size;                /* bytes, a multiple of 8 */
	uint8_t type;                 /* bt_message_type */
	uint8_t has_ts;               /* 0: no clock snapshot */
	uint16_t nval;
	int32_t cpu;                  /* events */
	uint32_t pad;                 /* events: the offset of the nested
	                                 fields (ctf-nest.c), 0: none */
	int64_t ts;                   /* ns from origin, if has_ts */
	const struct ctf_class *cls;  /* events */
	sht_field val[];
};

struct ctf_chunk {
	struct ctf_chunk *next;
	uint32_t used, cap;           /* bytes of buf */
	uint32_t events;              /* event records in it */
	_Alignas(8) unsigned char buf[];
};

/* What the muxer compares of a stream (set from its stream beginning). */
struct ctf_skey {
	int trace_uuid_set;
	uint8_t trace_uuid[16];
	char *trace_name;
	uint64_t sc_id, id;
	char *name, *sc_name;
	uint8_t flags[9];             /* the stream class's properties, in
	                                 compare_streams order */
	int has_cc, cc_abs, cc_uuid_set;
	uint8_t cc_uuid[16];
	char *cc_name;
	uint64_t cc_freq, cc_prec;
};

/* One stream's queue (guarded by its decoder's mutex but for the
 * producer-only and consumer-only fields). */
struct ctf_sq {
	struct ctf_chunk *ready, *ready_tail;
	uint32_t nready;
	struct ctf_chunk *free;
	uint32_t nalloc;
	uint32_t taken;               /* chunks the consumer took */
	uint64_t published;           /* event records handed over */
	int ended;                    /* no record after the ready ones */
	sht_err err;                  /* and it failed with err (< 0) */
	_Atomic int starving;         /* the consumer waits for it (read by
	                                 the decoder without the lock) */
	/* The producer's and the consumer's own fields, each on a cache line
	 * of its own: each side reads or writes its own once per record, on
	 * its own core, and a line they shared would bounce between the two
	 * cores at every record. */
	int64_t pub_ts;               /* the time of the last timed record
	                                 published (INT64_MIN: none) */
	_Alignas(CTF_CACHE_LINE) struct ctf_chunk *fill;  /* producer */
	int64_t fill_ts;              /* the last timed record's time there
	                                 (INT64_MIN: none) */
	_Alignas(CTF_CACHE_LINE) struct ctf_chunk *cur;   /* consumer */
	uint32_t off;
};

struct ctf_dec;

struct ctf_pstream {
	uint32_t dir;                 /* trace directory */
	uint32_t port;                /* output port of its src.ctf.fs */
	struct ctf_dec *dec;          /* its decoder */
	uint32_t in;                  /* its input port there */
	int keyed;                    /* key set (decoder: before publishing
	                                 its first record) */
	struct ctf_skey key;
	struct ctf_sq q;
};

/* Environment entries of one trace directory, copied. */
struct ctf_env {
	int set;
	uint64_t n;
	char **name;
	sht_field *val;               /* strings owned */
	int has_host;                 /* the host id (sht_ctf_host_id) */
	char host[37];
};

/* ---- the reader --------------------------------------------------------- */

struct ctf_par {
	struct sht_ctf *c;            /* path, dirs (or the view's) */
	const char *const *dirs;      /* what the decoders open */
	uint32_t jobs;                /* decoder threads (0: inline) */
	uint32_t ndec;
	struct ctf_dec **dec;
	uint32_t nstreams;
	struct ctf_pstream *st;
	/* registry (classes, env, stream count), under reg_mu */
	pthread_mutex_t reg_mu;
	struct ctf_class *classes;
	struct ctf_env *env;          /* per directory */
	/* merge (consumer): on lines of its own (sht__ctfp_lines) */
	_Alignas(CTF_CACHE_LINE) uint32_t *active, nactive;
	const struct ctf_rec **hd;    /* head of active[i], NULL: to fetch */
	int64_t *hts;                 /* its time, or CTF_TS_SLOW (no time
	                                 of its own, a stream beginning) */
	int64_t last_ts;
	int expect;                   /* clock class expectation */
	int expect_uuid_set;
	uint8_t expect_uuid[16];
	_Alignas(CTF_CACHE_LINE) uint32_t nbuilt; /* decoders built (or
	                                 failed) */
	double build_ms;              /* the first start's (graphs built) */
	pthread_cond_t built_cv;
	/* packets of each trace directory (ctf-pkt.c), under reg_mu: built
	 * by the first decoder that meets a stream of the directory */
	struct ctf_ptab *ptab;
	uint8_t *ptab_done;
	/* time span from the packet index (one trace), under reg_mu */
	int span_done;
	sht_err span_err;
	int64_t span_begin, span_end;
	struct ctf_view view;         /* the decoders read it, if any */
	int64_t drop_t;               /* decoders make no record of an event
	                                 before it (a seek's; INT64_MIN) */
	uint64_t decoded_before;      /* records published by the decoders
	                                 stopped so far */
};

/* ctf-meta.c */

/* The class of bt event class ec (of trace directory dir), registered
 * once for all decoders.  NULL if out of memory. */
const struct ctf_class *sht__ctfr_class(struct ctf_par *p, uint32_t dir,
					const bt_event_class *ec,
					const bt_stream_class *sc);
void sht__ctfr_classes_free(struct ctf_par *p);

/* The stream key of the stream of message m (a stream beginning). */
sht_err sht__ctfr_key(struct ctf_skey *k, const bt_stream *s);
void sht__ctfr_key_free(struct ctf_skey *k);

/* Copy the environment of trace t (once per directory). */
sht_err sht__ctfr_env(struct ctf_par *p, uint32_t dir, const bt_trace *t);
void sht__ctfr_env_free(struct ctf_env *e);

/* ctf-rec.c */

/* The kind of a field of class fc (sht__ctf_kind_of, fixed per class). */
uint8_t sht__ctfr_kind(const bt_field_class *fc);

/* Read the fields of event message m into vals (cls->nf entries,
 * strings borrowed from m, their lengths in lens) and, if cls->nested,
 * the nodes below its structures and variants into nest; *size: the
 * bytes its record needs.  SHT_OK or SHT_ERR_NOMEM. */
sht_err sht__ctfr_event_read(const struct ctf_class *cls, const bt_message *m,
			     sht_field *vals, uint32_t *lens,
			     struct sht__wbuf *nest, size_t *size);

/* Write the event record r of size bytes from vals, lens (and nest). */
void sht__ctfr_event_write(struct ctf_rec *r, size_t size,
			   const struct ctf_class *cls, const sht_field *vals,
			   const uint32_t *lens, const struct sht__wbuf *nest,
			   int32_t cpu, int64_t ts, int has_ts);

/* ctf-nest.c */

/* 1 if a field of class fc has fields below it (structure, variant). */
int sht__ctfr_compound(const bt_field_class *fc);
/* The nodes below the compound fields of event m, into w (emptied). */
sht_err sht__ctfr_nest_build(const struct ctf_class *cls, const bt_message *m,
			     struct sht__wbuf *w);
/* Field "top.rest" of record r: rest, the path below field top. */
sht_field_type sht__ctfr_nest_field(const struct ctf_rec *r, uint32_t top,
				    const char *rest, sht_field *out);

/* Write a non-event message (size: sizeof(struct ctf_rec) plus a
 * struct ctf_disc). */
size_t sht__ctfr_other_size(void);
void sht__ctfr_other(struct ctf_rec *r, const bt_message *m);

/* The value of field name of the event record r (field() of the
 * source); hints per consumer. */
sht_field_type sht__ctfr_field(struct sht_ctf *c, const struct ctf_rec *r,
			       const char *name, sht_field *out);

/* ---- decoders (ctf-dec.c, ctf-deq.c) ----------------------------------- */

/* Create decoder k of p->ndec (its streams: s with s % ndec == k). */
sht_err sht__ctfd_create(struct ctf_par *p, uint32_t k, struct ctf_dec **out);
/* Build its graph over p->dirs (on the thread that will run it). */
sht_err sht__ctfd_build(struct ctf_dec *d);
void sht__ctfd_destroy(struct ctf_dec *d);

/* Start / stop the decoder's thread (jobs > 0); it builds its graph. */
sht_err sht__ctfd_start(struct ctf_dec *d);
void sht__ctfd_stop(struct ctf_dec *d);

/* The next chunk of stream s, waited for (threads) or decoded here
 * (jobs = 0): SHT_OK and *out, SHT_END, or the stream's error. */
sht_err sht__ctfd_take(struct ctf_dec *d, uint32_t s, struct ctf_chunk **out);

/* The consumer's bound (sht__ctfp_until) for decoder d. */
void sht__ctfd_until(struct ctf_dec *d, int64_t ts);

/* The consumer is done with chunk ch of stream s (NULL: no-op). */
void sht__ctfd_release(struct ctf_dec *d, uint32_t s, struct ctf_chunk *ch);

/* Event records decoder d has published so far. */
uint64_t sht__ctfd_published(struct ctf_dec *d);

/* Event records published since the reader opened (sht_ctf_info). */
uint64_t sht__ctfp_decoded(const struct sht_ctf *c);

/* ---- merge (ctf-mux.c) ------------------------------------------------- */

/* Every stream in the array, no time yet. */
void sht__ctfm_init(struct ctf_par *p);
/* The next record in the muxer's order (SHT_OK, *s its stream; valid
 * until the next call), SHT_END, or an error (a stream's, or the muxer's
 * own). */
sht_err sht__ctfm_next(struct ctf_par *p, const struct ctf_rec **r,
		       uint32_t *s);

/* ---- the reader (ctf-par.c) --------------------------------------------- */

/* n zeroed bytes on cache lines of their own (NULL: out of memory; freed
 * by free()): what one thread writes at every record must share no line
 * with what another thread reads or writes at every record. */
void *sht__ctfp_lines(size_t n);

sht_err sht__ctfp_open(struct sht_ctf *c, uint32_t jobs);
void sht__ctfp_close(struct sht_ctf *c);
/* Stop the decoders and start again from the beginning of dirs (the
 * trace's, or a view of it: ctf-view.c), making no record of an event
 * before drop_t (INT64_MIN: none). */
sht_err sht__ctfp_restart(struct ctf_par *p, const char *const *dirs,
			  int64_t drop_t);

/* Called by a decoder: the sources of its graph give `total` streams
 * (the first one sizes p->st); its graph is built (or failed with err);
 * it met trace t (the time span is computed once, from the index). */
sht_err sht__ctfp_streams(struct ctf_par *p, const bt_component_source **srcs,
			  uint32_t ndirs, uint64_t total);
void sht__ctfp_built(struct ctf_par *p, struct ctf_dec *d, sht_err err);
void sht__ctfp_note_trace(struct ctf_par *p, uint32_t dir, const bt_trace *t);

/* The consumer reads no further than the first record at or after time
 * ts until the next restart (a hint, INT64_MAX: none): a decoder decodes
 * ahead no stream that has published a record at or after ts, unless the
 * consumer starves for it; the record that reaches ts is published at
 * once. */
void sht__ctfp_until(struct ctf_par *p, int64_t ts);

/* Restart the decoders on a view of the trace for time t (ctf-view.c);
 * the events before t are then dropped by next().  SHT_NOT_FOUND (nothing
 * changed) if a directory's packets are not all known. */
sht_err sht__ctfp_seek_view(struct sht_ctf *c, int64_t t);

/* The source's next(), and its move to the next event (ctf-int.h:
 * sht__ctf_advance). */
sht_err sht__ctfp_next(struct sht_ctf *c, sht_event *ev);
sht_err sht__ctfp_advance(struct sht_ctf *c, int64_t *ts, uint64_t *ord,
			  int *mismatch);
/* Whether ev was delivered by a stream reader. */
int sht__ctfp_is_event(const sht_event *ev);
/* The environment of the first stream's trace (NULL if none yet); the
 * current event's stream name (NULL if none); the time span. */
const struct ctf_env *sht__ctfp_env(const struct sht_ctf *c);
const char *sht__ctfp_stream_name(const struct sht_ctf *c);
sht_err sht__ctfp_span(const struct sht_ctf *c, int64_t *begin, int64_t *end);

/* The process-wide lock of plugin loading and release. */
void sht__ctf_plugin_lock(void);
void sht__ctf_plugin_unlock(void);

#endif /* SHT_TRACE_CTF_PAR_H */
