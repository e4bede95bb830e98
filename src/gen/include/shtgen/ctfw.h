/*
 * ctfw.h: a CTF 1.8 trace writer (private to the project: the synthetic
 * kernel trace generator, tests and benchmarks).  It writes a directory
 * that babeltrace2 (and Trace Compass) read as an LTTng kernel trace:
 *
 *   DIR/metadata          TSDL text (with the "CTF 1.8" signature
 *                         comment): trace
 *                         (little-endian, uuid, packet header), env,
 *                         clock "monotonic" (1 GHz, offset), one stream
 *                         class with the packet context LTTng uses
 *                         (timestamp_begin, timestamp_end, content_size,
 *                         packet_size, packet_seq_num, events_discarded,
 *                         cpu_id) and an event header (id, 64-bit
 *                         timestamp), one event class per declared event
 *   DIR/channel0_<cpu>    one stream file per CPU, in packets
 *   DIR/index/channel0_<cpu>.idx   LTTng packet index (version 1.1)
 *
 * Field names are written with LTTng's leading "_" (babeltrace2 strips
 * it: "_prev_tid" reads back as "prev_tid").  Timestamps are nanoseconds
 * from the clock's origin (the Unix epoch for LTTng); the clock offset
 * is chosen so cycles = ts - offset stay small.
 *
 * Events of one CPU must come in non-decreasing time; CPUs interleave
 * freely (readers merge the streams).  The output is written under
 * DIR.tmp-PID and renamed to DIR by finish, so a failed or interrupted
 * write leaves no directory that looks like a complete trace; DIR must
 * not exist.  No babeltrace2 here: this builds without it.
 *
 * Packets: each CPU has one packet buffer in memory (packet_size bytes,
 * allocated at its first event) that goes out with one write() when the
 * next event does not fit.  A packet holds at least one event, and its
 * timestamp_begin / timestamp_end are its first / last event's cycles.
 * The last packet of a stream is cut to its content rounded up to 4 KiB
 * (as LTTng cuts the packets it flushes at stop).  A CPU without any
 * event gets one empty 4 KiB packet spanning the trace's first to last
 * event, so that every CPU has its stream as in LTTng traces.
 * Implementation: ctfw.c (life, index, directory), ctfw-stream.c
 * (events, packets), ctfw-meta.c (declarations, TSDL), ctfw-int.h
 * (packet layout).
 *
 * Errors: any failed call (bad argument included) leaves the writer
 * failed: every later call but destroy returns SHT_ERR_STATE.  Messages
 * name DIR, and for I/O errors the file (under DIR.tmp-PID).
 *
 * Reading back with babeltrace2 2.0.4: an empty string or text field can
 * read back holding an earlier event's text (its string field clear only
 * resets the length); the bytes written are right, the reader has to
 * look at bt_field_string_get_length().
 *
 * A writer is used by one thread at a time.
 */
#ifndef SHT_CTFW_H
#define SHT_CTFW_H

#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/source.h"

/* The type of a declared field, and how the value given for it is read. */
typedef enum shtgen_ctfw_type {
	SHTGEN_CTFW_S32 = 0,        /* signed 32-bit (value: INT or UINT) */
	SHTGEN_CTFW_S64 = 1,        /* signed 64-bit (INT or UINT) */
	SHTGEN_CTFW_U32 = 2,        /* unsigned 32-bit (INT or UINT) */
	SHTGEN_CTFW_U64 = 3,        /* unsigned 64-bit (INT or UINT) */
	SHTGEN_CTFW_STRING = 4,     /* NUL-terminated string (STRING) */
	SHTGEN_CTFW_TEXT16 = 5,     /* char[16], UTF-8 text as LTTng's comm
	                             fields (STRING, cut to 15 bytes, NUL
	                             padded; the cut backs off to a UTF-8
	                             character boundary) */
} shtgen_ctfw_type;
/* An integer value must fit its field's type exactly (S32 takes INT in
 * [INT32_MIN, INT32_MAX] or UINT <= INT32_MAX, U64 takes any UINT or an
 * INT >= 0, ...); a string value must be STRING with a non-NULL s. */

typedef struct shtgen_ctfw_field {
	const char *name;         /* without the leading "_": [A-Za-z0-9_]+,
	                             unique within the class */
	shtgen_ctfw_type type;
} shtgen_ctfw_field;

typedef struct shtgen_ctfw_opts {
	uint32_t cpus;            /* stream files channel0_0 .. cpus-1;
	                             1 .. 65536 */
	uint32_t packet_size;     /* bytes per packet, a multiple of 4096;
	                             0: 256 KiB */
	sht_time clock_offset;    /* ns from the origin at cycle 0; >= 0
	                             (metadata: offset_s and offset) */
	const uint8_t *clock_uuid;/* 16 bytes: the clock's UUID (the host
	                             id of synchronization); NULL: random */
} shtgen_ctfw_opts;

typedef struct shtgen_ctfw shtgen_ctfw;

/* What a write did. */
typedef struct shtgen_ctfw_stats {
	uint64_t events;
	uint64_t packets;
	uint64_t bytes;           /* all files, metadata and index included */
} shtgen_ctfw_stats;

/*
 * Start writing the trace directory dir.  @return SHT_OK; SHT_ERR_INVALID
 * (bad opts, or dir exists); SHT_ERR_IO; SHT_ERR_NOMEM.
 */
sht_err shtgen_ctfw_create(const char *dir, const shtgen_ctfw_opts *opts,
			 shtgen_ctfw **out);

/* Add an environment entry (before the first event): a string (no
 * control characters; quotes and backslashes are escaped), or a signed
 * integer.  Names are C identifiers, not TSDL keywords, each set once.
 * @return SHT_OK; SHT_ERR_INVALID; SHT_ERR_NOMEM. */
sht_err shtgen_ctfw_env_str(shtgen_ctfw *w, const char *name, const char *value);
sht_err shtgen_ctfw_env_int(shtgen_ctfw *w, const char *name, int64_t value);

/* Declare an event class (before the first event, or between events):
 * its name (non-empty, no control characters), its fields in order
 * (fields may be NULL if nfields is 0); its id (0, 1, ...) in *id (id
 * may be NULL).  @return SHT_OK; SHT_ERR_INVALID; SHT_ERR_NOMEM. */
sht_err shtgen_ctfw_event_class(shtgen_ctfw *w, const char *name,
			      const shtgen_ctfw_field *fields, size_t nfields,
			      uint32_t *id);

/*
 * Write one event of class id at ts on cpu, values[i] for the class's
 * field i (all of them, in order; NULL for a class without fields).
 * @return SHT_OK; SHT_ERR_ORDER if ts is earlier than the previous event
 * of that CPU, or earlier than clock_offset; SHT_ERR_INVALID (unknown
 * class or cpu, value of the wrong type or out of range, event too large
 * for a packet); SHT_ERR_IO; SHT_ERR_NOMEM.  After an error every call
 * but destroy fails.
 */
sht_err shtgen_ctfw_event(shtgen_ctfw *w, uint32_t id, sht_time ts, uint32_t cpu,
			const sht_field *values);

/* Flush the last packets, write the index and metadata, sync every
 * file and both directories, rename DIR.tmp-PID to DIR (refused if DIR
 * exists by then, even empty) and sync DIR's parent.  stats may be NULL.
 * @return SHT_OK; SHT_ERR_INVALID (DIR exists); SHT_ERR_IO;
 * SHT_ERR_NOMEM; SHT_ERR_STATE (failed or finished writer). */
sht_err shtgen_ctfw_finish(shtgen_ctfw *w, shtgen_ctfw_stats *stats);

/* Free the writer; without a successful finish the partial directory is
 * removed.  NULL is a no-op. */
void shtgen_ctfw_destroy(shtgen_ctfw *w);

#endif /* SHT_CTFW_H */
