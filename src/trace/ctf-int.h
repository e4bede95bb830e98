/*
 * ctf-int.h: private to the CTF source (src/trace/ctf*.c, the files that
 * include babeltrace2; not ctfw*.c).  The source's state, and the
 * functions its files share.
 *
 *   ctf.c         open, close, info; the errors; the source operations
 *   ctf-graph.c   the babeltrace2 graph: components, the simple sink, one
 *                 request per run, the current batch's references
 *   ctf-read.c    message iteration and event delivery: next(), cpu,
 *                 timestamps, discarded counts, fields
 *   ctf-seek.c    seek() and the sparse index of marks
 *   ctf-env.c     the trace object and its environment (sht_ctf_env)
 *   ctf-span.c    the trace's time span from the LTTng packet index
 *   ctf-fields.c  sht_ctf_event_fields (through the event's field())
 *
 * Graph:  src.ctf.fs --(one port per stream)--> flt.utils.muxer --> sink
 *         src.ctf.fs --(single stream)------------------------------> sink
 * The sink is a "simple sink" whose consume function performs exactly one
 * request (next batch, or seek) per bt_graph_run_once(): every operation
 * on the message iterator happens inside the consuming method, as the
 * graph expects.  The consume function never reports END to the graph
 * (it records at_end instead), so the graph stays runnable and a seek
 * after the end still works.
 *
 * Positions are event ordinals.  Invariants:
 *  (1) ordinal is the ordinal of the next event the iterator gives.
 *  (2) marks[k] describes ordinal k * every: its timestamp, and how many
 *      events of that same timestamp come just before it ("before").
 *      Marks are appended the first time their ordinal is reached.
 *  (3) A seek before the current ordinal rebuilds the graph (seeking the
 *      iterator to its beginning is disabled: CTF_TRUST_SEEK_BEGINNING)
 *      and skips to the ordinal;
 *      a seek after it reads on.  Every mark met again is checked: a
 *      different timestamp or run means the events come in another
 *      order than on the first read, and the source fails rather than
 *      deliver wrong positions.  (Time seeks would use the marks as
 *      starting points, but babeltrace2 2.0.4 only emulates them, at the
 *      same cost, and its emulation can abort: see ctf_sink_consume.)
 *  (4) Every message reference taken from a batch is put exactly once:
 *      events when the next one is read (cur_msg), others at once; a seek
 *      or close puts the rest of the batch.
 *  (5) trace holds a reference to the trace object (environment) of the
 *      first message that names a stream: normally taken at open time from
 *      the first batch, which starts with a stream-beginning message; else
 *      from the first such message read later.  Kept across seeks and
 *      graph rebuilds (the first one wins), put at close.
 */
#ifndef SHT_TRACE_CTF_INT_H
#define SHT_TRACE_CTF_INT_H

#include <babeltrace2/babeltrace.h>

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/trace.h"

/* Seek back by the iterator's seek-beginning (0: rebuild the graph; see
 * ctf_sink_consume). */
#define CTF_TRUST_SEEK_BEGINNING 0

#define CTF_INDEX_EVERY 4096u
#define CTF_JOBS_MAX 256u         /* decoding threads at most */
#define CTF_CPU_CACHE 32u        /* packets whose cpu_id is remembered */

enum ctf_req {
	CTF_REQ_NEXT = 0,        /* next batch of messages */
	CTF_REQ_SEEK_BEGIN = 1,  /* seek the beginning */
};

enum ctf_seeked {
	CTF_SEEKED_BEGIN = 0,    /* positioned at the beginning */
	CTF_SEEKED_NONE = 1,     /* cannot seek: rebuild the graph */
};

struct ctf_mark {
	int64_t ts;              /* timestamp of event k * every */
	uint64_t before;         /* events of that timestamp just before it */
};

struct ctf_pkt_cpu {
	const bt_packet *pkt;    /* reference held; NULL: free slot */
	int32_t cpu;
};

/* A payload member's index, remembered by (structure class, name
 * pointer): a hint, checked against the member's name before use. */
struct ctf_fhint {
	const bt_field_class *fc;
	const char *name;
	uint64_t idx;
};

#define CTF_FHINTS 64

/* The same for the stream reader's records (ctf-par.h): a field's index
 * in its class, by (class, name pointer), checked before use. */
struct ctf_class;
struct ctf_rec;
struct ctf_par;
struct ctf_rhint {
	const struct ctf_class *cls;
	const char *name;
	uint32_t idx;
};

struct sht_ctf {
	char *path;
	char **dirs;                  /* trace directories (metadata found) */
	size_t n_dirs;
	bool merge;
	uint32_t every;          /* index spacing */
	int muxer;               /* 1: babeltrace2's graph and muxer (the
	                            fields below down to fhint); 0: the
	                            stream reader (par) */
	uint32_t jobs;           /* the stream reader's decoding threads */

	/* babeltrace2 */
	const bt_plugin *plugin_ctf;
	const bt_plugin *plugin_utils;
	bt_graph *graph;
	bt_message_iterator *iter;    /* borrowed from the simple sink */
	enum ctf_req req;             /* what consume does next */
	enum ctf_seeked seeked;       /* result of the last seek request */

	/* current batch (the iterator's array; we own the references) */
	bt_message_array_const msgs;
	uint64_t n_msgs, i_msg;
	int at_end;                   /* iterator said END */

	/* current event */
	const bt_message *cur_msg;    /* reference held until the next call */
	const bt_event *cur_ev;
	const bt_field *cur_payload;
	struct ctf_fhint fhint[CTF_FHINTS]; /* ctf-read.c: field() by name */

	/* the stream reader (ctf-par.h): its current event record */
	struct ctf_par *par;
	const struct ctf_rec *cur_rec;
	uint32_t cur_s;               /* its stream */
	const struct ctf_rec *look;   /* a record taken at open, not yet
	                                 delivered (NULL) */
	uint32_t look_s;
	int prev_have_last;           /* have_last, last_ts and run before */
	int64_t prev_last_ts;         /* the current record (a seek back */
	uint64_t prev_run;            /* by one delivers it again) */
	int dropping;                 /* a seek drops the events before */
	int64_t drop_t;               /* this time */
	int env_known;                /* env_dir is the first stream's */
	uint32_t env_dir;
	struct ctf_rhint rhint[CTF_FHINTS];

	struct ctf_pkt_cpu cpus[CTF_CPU_CACHE];
	unsigned cpu_next;            /* round-robin replacement */

	/* positions */
	uint64_t ordinal;             /* of the next event (1) */
	uint64_t high;                /* highest ordinal reached + 1 */
	int have_last;
	int64_t last_ts;              /* of the previous event */
	uint64_t run;                 /* events of last_ts, ending there */
	struct ctf_mark *marks;       /* (2) */
	size_t n_marks, cap_marks;

	const bt_trace *trace;        /* (5) reference held, or NULL */

	/* time span from the LTTng packet index (ctf-span.c), computed by
	 * the first sht_ctf_time_span() that finds trace set */
	int span_known;               /* 1: span_err and the span are set */
	sht_err span_err;             /* SHT_OK or SHT_NOT_FOUND */
	int64_t span_begin, span_end; /* ns from origin, if SHT_OK */

	sht_err failed;               /* sticky error, SHT_OK if none */
	sht_source_stats st;
	sht_ctf_info info;
};

/* ctf.c: the source's operations, and errors. */
extern const sht_source_ops sht__ctf_ops;

/* The CTF source of src, or NULL if src is not an open CTF source. */
struct sht_ctf *sht__ctf_of(const sht_source *src);

/* Make an error of err, "Cannot <what>: path=<path>", with babeltrace2's
 * causes of this thread appended (and released). */
sht_err sht__ctf_error(sht_err err, const char *what, const char *path);

/* sht__ctf_error, and c fails (sticky). */
sht_err sht__ctf_fail(struct sht_ctf *c, sht_err err, const char *what);

/* The SHT_ERR_STATE answer of a failed source. */
sht_err sht__ctf_failed(const struct sht_ctf *c);

/* ctf-graph.c */

/* Build the graph and read the first batch (which surfaces errors of the
 * streams' first packets).  Positions at ordinal 0. */
sht_err sht__ctf_graph_build(struct sht_ctf *c);

/* ctf-pkt.c: the LTTng packet index (<trace>/index/<stream>.idx), shared
 * with ctf-trunc.c.  A big-endian u64; the index header of f (magic
 * checked): 1 with its major version and entry size (at most
 * SHT__CTF_IDX_ENTRY_MAX), or 0; whether name in dir is a data stream
 * file for src.ctf.fs (a regular file, not "metadata", not hidden), its
 * size in *size. */
#define SHT__CTF_IDX_ENTRY_MAX 1024u   /* larger: not an index we know */
uint64_t sht__ctf_be64(const unsigned char *p);
int sht__ctf_idx_header(FILE *f, uint32_t *major, uint32_t *len);
int sht__ctf_is_data(const char *dir, const char *name, uint64_t *size);

/* ctf-pkt.c: the packets of the data files of a trace directory, from
 * the LTTng index (packets back to back, whole files). */
struct ctf_pkt {
	uint64_t off, size;           /* bytes */
	uint64_t content;             /* bits */
	uint64_t cyc_begin, cyc_end;  /* clock cycles */
	uint64_t disc, sc_id;         /* events discarded, stream class */
	int64_t begin, end;           /* ns from origin */
};

struct ctf_pfile {
	char *name;                   /* data file, in its directory */
	uint64_t size;
	struct ctf_pkt *pk;           /* in file order */
	size_t n;
};

struct tsdl_packets;
struct ctf_ptab {
	struct ctf_pfile *f;
	size_t n;
	int usable;                   /* every non-empty file has packets */
	int from_index;               /* all from LTTng's index files */
	int layouts;                  /* 0 not read, 1 none, 2 in tp */
	struct tsdl_packets *tp;      /* the packet layouts (ctf-tsdl.h) */
};

/* The packet table of dir, clocks from trace class tc: SHT_OK (t->usable
 * says whether every file's packets are known), or an error. */
sht_err sht__ctf_ptab_build(const char *dir, const bt_trace_class *tc,
			    struct ctf_ptab *t);
void sht__ctf_ptab_free(struct ctf_ptab *t);
/* cycles of stream class stream_id's clock as ns from origin: 1, or 0
 * (no such class or clock, overflow). */
int sht__ctf_cycles_ns(const bt_trace_class *tc, uint64_t stream_id,
		       uint64_t cycles, int64_t *ns);

/* ctf-view.c: a view of the trace for a seek to time t (a temporary
 * directory per trace directory: links to the files, and indexes that
 * start each data file at the first packet that can hold an event at or
 * after t). */
struct ctf_view {
	char *root;
	char **dirs;
	size_t n;
};
/* The index of the first packet of f a view for time t lists. */
size_t sht__ctf_view_first(const struct ctf_pfile *f, int64_t t);
/* Make the view of the n trace directories dirs (packet tables tabs, all
 * usable) for time t in *v.  SHT_OK, SHT_ERR_IO, SHT_ERR_NOMEM. */
sht_err sht__ctf_view_make(char *const *dirs, size_t n, const struct ctf_ptab *tabs,
			   int64_t t, struct ctf_view *v);
/* Remove the view's directories and free it; a zeroed view: no-op. */
void sht__ctf_view_free(struct ctf_view *v);

/* ctf-span.c: the time span of the packets of every data file of trace
 * directory dir, from its LTTng index, clocks from trace class tc
 * (sht_ctf_time_span says when it is unknown): SHT_OK or SHT_NOT_FOUND. */
sht_err sht__ctf_span_dir(const char *dir, const bt_trace_class *tc,
			  int64_t *begin, int64_t *end);

/* ctf-trunc.c: SHT_ERR_CORRUPT (with a message naming the file and the
 * packet) if a stream file of trace directory dir is shorter than its
 * LTTng index says; else SHT_OK. */
sht_err sht__ctf_check_truncation(const char *dir);

/* ctf-pkt.c: the packet layouts of the trace in dir, from its metadata
 * (plain or packetized): 1, or 0 (none known). */
int sht__ctf_layouts(const char *dir, struct tsdl_packets *tp);

/* ctf-check.c: SHT_ERR_CORRUPT (with a message naming the file, the
 * packet's byte offset and what is wrong) if a packet of a stream file
 * of dir has a size babeltrace2 cannot survive or a packet's sizes
 * disagree; else SHT_OK (also when the layouts are unknown). */
sht_err sht__ctf_check_packets(const char *dir);

/* Put every reference the graph holds (batch, event, packets), then the
 * graph.  A zeroed or destroyed graph is a no-op. */
void sht__ctf_graph_destroy(struct sht_ctf *c);

/* Run the graph once for request req. */
sht_err sht__ctf_run(struct sht_ctf *c, enum ctf_req req);

/* Put every reference of the current batch and event. */
void sht__ctf_drop_messages(struct sht_ctf *c);

/* ctf-read.c */

/*
 * Read the next event: it becomes current (cur_msg) with timestamp *ts
 * and ordinal *ord; ordinal, marks and the equal-timestamp run advance.
 * SHT_OK, SHT_END, or an error (sticky).  *mismatch is set if a mark met
 * again disagrees (invariant 3 broken); the caller decides.
 */
sht_err sht__ctf_advance(struct sht_ctf *c, int64_t *ts, uint64_t *ord,
			 int *mismatch);

/* The source's next(). */
sht_err sht__ctf_next(void *src, sht_event *ev);

/* An event of timestamp ts was read: its ordinal into *ord; ordinal,
 * high, marks and the equal-timestamp run advance; *mismatch as
 * sht__ctf_advance.  SHT_OK or SHT_ERR_NOMEM (sticky). */
sht_err sht__ctf_position(struct sht_ctf *c, int64_t ts, uint64_t *ord,
			  int *mismatch);

/* How a field is read, from its class's type: a member's class is fixed,
 * so the stream reader works it out once per event class
 * (sht__ctfr_kind), not once per event. */
enum ctf_kind {
	CTF_KIND_OTHER = 0,           /* structure, array, variant...
	                                 (SHT_FIELD_OTHER) */
	CTF_KIND_UINT,                /* unsigned integer or enumeration */
	CTF_KIND_INT,                 /* signed integer or enumeration */
	CTF_KIND_STRING,
	CTF_KIND_DOUBLE,
	CTF_KIND_SINGLE,
	CTF_KIND_BOOL,
};

static inline uint8_t sht__ctf_kind_of(bt_field_class_type t)
{
	/* Enumerations are integers (is() matches their super type). */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return CTF_KIND_UINT;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return CTF_KIND_INT;
	switch (t) {
	case BT_FIELD_CLASS_TYPE_STRING: return CTF_KIND_STRING;
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL: return CTF_KIND_DOUBLE;
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL: return CTF_KIND_SINGLE;
	case BT_FIELD_CLASS_TYPE_BOOL: return CTF_KIND_BOOL;
	default: return CTF_KIND_OTHER;
	}
}

/* The value of field f, read as kind says. */
static inline void sht__ctf_kind_value(uint8_t kind, const bt_field *f, sht_field *out)
{
	switch (kind) {
	case CTF_KIND_UINT:
		out->type = SHT_FIELD_UINT;
		out->v.u = bt_field_integer_unsigned_get_value(f);
		return;
	case CTF_KIND_INT:
		out->type = SHT_FIELD_INT;
		out->v.i = bt_field_integer_signed_get_value(f);
		return;
	case CTF_KIND_STRING:
		/* src.ctf.fs turns text arrays and sequences into strings;
		 * the value is a C string, so it ends at the first NUL.
		 * babeltrace2 2.0.4 clears a string field by setting its
		 * length to 0 only: an empty string of a recycled event
		 * still holds an earlier event's text, so the length
		 * decides. */
		out->type = SHT_FIELD_STRING;
		out->v.s = bt_field_string_get_length(f) > 0
				   ? bt_field_string_get_value(f) : "";
		return;
	case CTF_KIND_DOUBLE:
		out->type = SHT_FIELD_DOUBLE;
		out->v.d = bt_field_real_double_precision_get_value(f);
		return;
	case CTF_KIND_SINGLE:
		out->type = SHT_FIELD_DOUBLE;
		out->v.d = bt_field_real_single_precision_get_value(f);
		return;
	case CTF_KIND_BOOL:
		out->type = SHT_FIELD_UINT;
		out->v.u = bt_field_bool_get_value(f) ? 1u : 0u;
		return;
	default:
		out->type = SHT_FIELD_OTHER;
		out->v.u = 0;
		return;
	}
}

/* A scalar field's value as sht_ctf_open's field() gives it. */
sht_field_type sht__ctf_field_value(const bt_field *f, sht_field *out);

/* ctf-path.c: the field at a dotted path ("a.b.c": structure members,
 * "*" or the selected option's name for a variant's option) below the
 * first element, which is looked up as field() looks up names (payload,
 * specific then common context).  SHT_FIELD_NONE if the path leads
 * nowhere. */
sht_field_type sht__ctf_field_path(const bt_event *ev, const bt_field *payload,
				   const char *path, sht_field *out);
/* The host id of trace t (its first clock's UUID) into buf: 1, or 0 if
 * none. */
int sht__ctf_trace_host(const bt_trace *t, char buf[37]);

/* ctf-seek.c */

/* The source's seek() and seek_at(). */
sht_err sht__ctf_seek(void *src, uint64_t pos);
sht_err sht__ctf_seek_at(void *src, uint64_t pos, sht_time ts);

/* Mark ordinal o (a multiple of every) with ts and before: append the
 * mark the first time, else set *mismatch if it disagrees (invariant 2,
 * 3).  SHT_OK or SHT_ERR_NOMEM (sticky). */
sht_err sht__ctf_mark(struct sht_ctf *c, uint64_t o, int64_t ts,
		      uint64_t before, int *mismatch);

/* c fails with SHT_ERR_CORRUPT: events came in another order. */
sht_err sht__ctf_mismatch(struct sht_ctf *c);

/* ctf-env.c */

/* Take the trace of m if it names a stream (invariant 5); call only while
 * c->trace is NULL. */
void sht__ctf_note_trace(struct sht_ctf *c, const bt_message *m);

/* Take the trace from the messages of the current batch not read yet. */
void sht__ctf_note_trace_batch(struct sht_ctf *c);

#endif /* SHT_TRACE_CTF_INT_H */
