/*
 * trace.h: event sources over real traces.
 *
 * CTF 1.8 (LTTng 2.x) traces are read through libbabeltrace2
 * (src.ctf.fs, and flt.utils.muxer when the trace has several streams).
 * The source delivers every event of the trace in time order:
 *
 *   ts     nanoseconds from the clock's origin (Unix epoch for LTTng)
 *   name   the event class name
 *   cpu    the packet context's cpu_id, else the payload's cpu_id, else -1
 *   pos    the event's ordinal (0, 1, 2, ... in delivery order)
 *   field  payload fields by name, as babeltrace2 names them (LTTng's
 *          leading "_" already stripped); a name the payload lacks is
 *          looked up in the event's specific then common context.
 *          A name with dots is a path below such a field: structure
 *          members by name, and for a variant its selected option, named
 *          "*" or by the option's name ("network_header.*.
 *          transport_header.tcp.seq" in the network events of
 *          lttng-modules 2.9 and later).
 *          Integers are INT / UINT, enumerations their integer, strings
 *          and text arrays / sequences STRING (up to the first NUL),
 *          floating point DOUBLE, booleans UINT, anything else OTHER.
 *          Strings stay valid until the source's next call.
 *   data   opaque (the source); sht_ctf_event_bt() gives the babeltrace2
 *          event to callers that include babeltrace2 themselves.
 *
 * Discarded events and packets messages are counted in the source's
 * stats (a discarded-events message without a count adds 1 and is also
 * counted in sht_ctf_info.discarded_unknown).
 *
 * A trace with a single stream is read without the muxer (babeltrace2's
 * muxer rejects some single-stream traces whose packets overlap, e.g.
 * synctraces).  A directory holding several traces (several "metadata"
 * files below it) is refused unless opts->merge is set.
 *
 * Two readers give the same events in the same order:
 *
 *   the stream reader (default)   every stream decoded on its own (one
 *            babeltrace2 graph per decoding thread, opts->jobs threads,
 *            or the caller's thread when 0), merged by sht in the order
 *            of babeltrace2 2.0.4's flt.utils.muxer, ties included;
 *            events are copied (every field, strings included) out of
 *            babeltrace2 as they are decoded, at most a few hundred KiB
 *            per stream ahead of the caller.  Seeks go through the LTTng
 *            packet index (below).
 *   the babeltrace2 graph (opts->muxer)   src.ctf.fs and
 *            flt.utils.muxer on the caller's thread, as sht read traces
 *            before; sht_ctf_event_bt() works only here.
 *
 * seek(pos) makes the event of ordinal pos the next one delivered (the
 * costs are below sht_ctf_time_span).  Through the babeltrace2 graph a
 * seek forward reads on; a seek backward rebuilds the graph (its
 * seek-beginning can hand back stale empty strings in 2.0.4) and skips
 * pos events, so it costs about the decoding of pos events (babeltrace2
 * 2.0.4 has no real time seek in src.ctf.fs: it emulates one the same
 * way, and its emulation can abort the process).  A sparse index (ordinal
 * -> timestamp and the number of equal-timestamp events before it, every
 * index_every events) is built on the first read and checked on every
 * re-read: if babeltrace2 ever gave the events in another order, the
 * source fails (SHT_ERR_CORRUPT) instead of delivering wrong positions.
 * Seeking to an ordinal never delivered yet reads forward; seek(count)
 * leaves the source at its end; past it is SHT_ERR_RANGE.
 *
 * sht_ctf_time_span() gives the trace's time span without reading it,
 * from the LTTng packet index (<trace>/index/<stream file>.idx: each
 * packet's begin and end timestamps), for progress displays: the earliest
 * packet begin is at or before the first event, the latest packet end at
 * or after the last one.  Traces without an index (not written by LTTng,
 * or converted) have no span.
 *
 * A handle is used by one thread at a time.
 */
#ifndef SHT_TRACE_H
#define SHT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sht_ctf_opts {
	bool merge;               /* accept a directory holding
	                             several traces and merge them in time */
	uint32_t index_every;     /* events between index entries (which
	                             check re-reads); 0: 4096 */
	uint32_t jobs;            /* decoding threads (stream reader); 0:
	                             decode on the caller's thread; at most
	                             256 */
	bool muxer;               /* one babeltrace2 graph with its
	                             flt.utils.muxer, on the caller's
	                             thread (the reference order; no packet
	                             seeks, jobs ignored) */
} sht_ctf_opts;

/* Fill opts with the defaults (no merging, index every 4096 events, the
 * stream reader decoding on the caller's thread). */
SHT_API void sht_ctf_opts_init(sht_ctf_opts *opts);

/*
 * Open the CTF trace directory path (opts may be NULL: defaults) as a
 * source in *out, positioned before the first event.  *out is set only
 * on SHT_OK; close it with sht_ctf_close().
 * @return SHT_OK; SHT_ERR_IO if path cannot be read; SHT_ERR_INVALID if
 *         path is not a directory, holds no trace, or holds several
 *         traces without opts->merge; SHT_ERR_CORRUPT if babeltrace2
 *         rejects the trace (metadata, streams); SHT_ERR_NOMEM.  The
 *         message (sht_errmsg) names the path and babeltrace2's causes.
 *
 * next() returns SHT_OK, SHT_END, or SHT_ERR_CORRUPT when babeltrace2
 * fails while decoding (truncated or corrupt stream); a failed source
 * then answers SHT_ERR_STATE to everything but close.
 */
SHT_API sht_err sht_ctf_open(const char *path, const sht_ctf_opts *opts,
			     sht_source *out);

/* Free the source and zero *src.  NULL, or a zeroed source, is a no-op. */
SHT_API void sht_ctf_close(sht_source *src);

/* What a CTF source found and did, beyond sht_source_stats. */
typedef struct sht_ctf_info {
	uint32_t traces;          /* metadata files found below the path */
	uint32_t streams;         /* src.ctf.fs output ports (streams) */
	bool muxed;               /* read through flt.utils.muxer */
	uint64_t discarded_unknown; /* discarded-events messages with no
	                               count (each counted as 1 event) */
	uint64_t backward;        /* events earlier than the previous one
	                             (0 for a sound trace) */
	uint64_t seeks;           /* seeks that moved babeltrace2 */
	uint64_t seek_skipped;    /* events read and skipped by seeks */
	uint64_t rebuilds;        /* graphs rebuilt (iterator not seekable) */
	uint64_t index_entries;   /* sparse seek index size */
	uint32_t jobs;            /* decoding threads (0: the caller's) */
	uint64_t packet_seeks;    /* seeks through the packet index */
	uint64_t decoded;         /* events the decoders handed over (those
	                             delivered, those read ahead; not those a
	                             seek dropped); stream reader only */
} sht_ctf_info;

/* Fill *out for a source opened by sht_ctf_open().  SHT_ERR_INVALID for
 * another kind of source. */
SHT_API sht_err sht_ctf_info_get(const sht_source *src, sht_ctf_info *out);

/* The babeltrace2 event (const bt_event *) of ev, delivered by a CTF
 * source; valid until the source's next call. */
SHT_API const void *sht_ctf_event_bt(const sht_event *ev);

/*
 * The trace environment (CTF metadata "env" block: tracer_name,
 * tracer_major, tracer_minor, hostname, kernel_release, domain, ...).
 *
 * The environment is that of the trace object of the first babeltrace2
 * message naming a stream: sht_ctf_open() reads the first batch of
 * messages, which begins with a stream-beginning message, so the
 * environment is known as soon as the source is open, before any next().
 * It does not change with seeks, graph rebuilds or failures of the source
 * (it stays readable until sht_ctf_close).  With opts->merge and several
 * traces, it is the environment of the trace whose stream came first.
 *
 * sht_ctf_env() puts the value of the entry name in *out: integers INT (or
 * UINT), strings STRING (valid until sht_ctf_close(), unlike event
 * fields), reals DOUBLE, anything else OTHER.  Values are as babeltrace2
 * gives them: CTF 1.8 integers are INT, strings carry no quotes.
 * @return SHT_OK; SHT_NOT_FOUND (out->type NONE) if the trace has no such
 *         entry (or no trace object was met); SHT_ERR_INVALID if src is
 *         not a CTF source or name / out is NULL (and in a libsht built
 *         without libbabeltrace2).
 */
SHT_API sht_err sht_ctf_env(const sht_source *src, const char *name,
			    sht_field *out);

/*
 * The environment entry of the given index (0, 1, ... in babeltrace2's
 * order): its name in *name (valid until sht_ctf_close) and value in *out
 * as sht_ctf_env() gives it.  @return SHT_OK; SHT_NOT_FOUND past the last
 * entry; SHT_ERR_INVALID as sht_ctf_env().
 */
SHT_API sht_err sht_ctf_env_entry(const sht_source *src, uint64_t index,
				  const char **name, sht_field *out);

/*
 * The trace's time span in ns from the clock's origin, as event
 * timestamps: *begin the earliest packet begin and *end the latest packet
 * end of the LTTng packet index (<trace>/index/<stream file>.idx), read
 * on the first call and then remembered; its clock cycles are converted
 * with the clock class of each packet's stream class.  So *begin <= the
 * first event's ts and *end >= the last one's: a hint for progress
 * (packets can begin well before their first event), not the events'
 * range.  *begin and *end are set only on SHT_OK.
 * @return SHT_OK; SHT_NOT_FOUND if the span is unknown: no index
 *         directory, a non-empty stream file without its index file, an
 *         index file that is truncated, corrupt or does not describe its
 *         stream file exactly (packets back to back to its end), an
 *         unknown stream class, a merge of several traces (opts->merge),
 *         or no stream met yet; SHT_ERR_INVALID if src is not a CTF
 *         source or begin / end is NULL (and in a libsht built without
 *         libbabeltrace2).
 */
SHT_API sht_err sht_ctf_time_span(const sht_source *src, sht_time *begin,
				  sht_time *end);

/*
 * Seeks, for callers that page through a trace (an events table): by
 * ordinal with src->ops->seek, by time with sht_ctf_seek_time, and
 * sht_ctf_index to make every later seek cheap.
 *
 * How they work (the stream reader, opts->muxer unset): the source keeps
 * a sparse index of what it has read (the ordinal, time and
 * equal-timestamp run of every index_every-th event).  A seek to ordinal
 * pos starts at the index entry at or before pos: it restarts babeltrace2
 * on a view of the trace whose streams begin at the packet (LTTng packet
 * index, <trace>/index/<stream file>.idx, else the packets' own headers)
 * that holds the entry's time, drops the events before that time, and
 * reads on to pos.  So it costs one graph
 * build (the metadata parsed again per decoding thread), the decoding of
 * about one packet per stream and at most index_every events, wherever
 * pos is.  A seek to an ordinal near ahead (four index spacings, and
 * what decodes while the graphs are built) reads on.  A seek beyond what
 * was read reads on from the last index entry (building the index as it
 * goes).  A trace whose packets cannot all be found (a stream file
 * without an index, and packet headers of no fixed layout or damaged)
 * seeks from its start as before, and so does the babeltrace2 graph
 * (opts->muxer).  src->ops->seek_at(pos, ts)
 * (source.h), for callers that know pos to be the first event at or after
 * ts, seeks by time at once, wherever pos is.
 */

/*
 * Make the first event at or after time t the next one delivered (the
 * source's end if there is none), and put its ordinal in *pos (may be
 * NULL).  Costs as a seek to an ordinal within the index (above); a time
 * beyond what was read reads on to it.
 * @return SHT_OK; SHT_ERR_INVALID if src is not a CTF source (and in a
 *         libsht built without libbabeltrace2); the source's errors.
 */
SHT_API sht_err sht_ctf_seek_time(const sht_source *src, sht_time t,
				  uint64_t *pos);

/*
 * Read the trace to its end (on the decoding threads), building the index
 * of every index_every-th event, then seek back to where the source was:
 * after it, a seek to any ordinal or time costs as described above.  The
 * trace's event count into *events (may be NULL).
 * @return SHT_OK; SHT_ERR_INVALID as sht_ctf_seek_time; the source's
 *         errors (a trace that fails while read).
 */
SHT_API sht_err sht_ctf_index(const sht_source *src, uint64_t *events);

/*
 * Where the event src delivered last comes from, for messages about it:
 * "stream file F" (the file of the trace holding its packet; babeltrace2
 * gives no packet number), into buf (size bytes, NUL-terminated); ""
 * when src is not a CTF source or has delivered nothing.  Returns the
 * length written.
 */
SHT_API size_t sht_ctf_where(const sht_source *src, char *buf, size_t size);

/*
 * The trace's host id as Trace Compass takes it: the UUID of its clock
 * (the first stream class's default clock that has one), as 36 lowercase
 * characters "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" in buf (size >= 37).
 * Traces of one host share their clock's UUID; synchronization
 * (sht/sync.h) pairs hosts by it.
 * @return SHT_OK; SHT_NOT_FOUND (buf "") if the clock has no UUID or no
 *         stream was met; SHT_ERR_INVALID if src is not a CTF source or
 *         size < 37 (and in a libsht built without libbabeltrace2).
 */
SHT_API sht_err sht_ctf_host_id(const sht_source *src, char *buf,
				size_t size);

/* One field of an event: its name and value (both valid during the call
 * only).  Returning an error stops the enumeration with that error. */
typedef sht_err (*sht_field_fn)(void *ctx, const char *name,
				const sht_field *value);

/*
 * Every field a CTF event's field() can find, in lookup order: the
 * payload's members, then the specific then the common context's members
 * whose names were not met before; each value exactly as ev->field(ev,
 * name) gives it.  ev must come from a CTF source (sht_ctf_event_bt).
 * @return SHT_OK, fn's error, or SHT_ERR_INVALID (not a CTF event, or a
 * libsht without libbabeltrace2).
 */
SHT_API sht_err sht_ctf_event_fields(const sht_event *ev, sht_field_fn fn,
				     void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SHT_TRACE_H */
