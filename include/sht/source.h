/*
 * source.h: events, event sources and providers: what turns a trace into
 * state changes, and what a partial history replays to answer a query.
 *
 * A source delivers events in non-decreasing time; each event has a
 * position (opaque to the state system, e.g. an event index or a byte
 * offset) such that seek(position) makes the next event delivered be that
 * event again.  A provider's handler turns one event into state changes on
 * a state system.  Running the same provider over the same events from the
 * same state always gives the same changes: that is what lets a partial
 * history rebuild any state from its nearest checkpoint.
 */
#ifndef SHT_SOURCE_H
#define SHT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/model.h"
#include "sht/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sht_state sht_state;

/* A payload field's value, as providers read it. */
typedef enum sht_field_type {
	SHT_FIELD_NONE = 0,       /* no such field */
	SHT_FIELD_INT = 1,        /* signed integer, or enumeration (its value) */
	SHT_FIELD_UINT = 2,       /* unsigned integer, or enumeration */
	SHT_FIELD_DOUBLE = 3,     /* floating point */
	SHT_FIELD_STRING = 4,     /* string, or text array up to its first NUL */
	SHT_FIELD_OTHER = 5,      /* structure, sequence, ...: not a scalar */
} sht_field_type;

typedef struct sht_field {
	sht_field_type type;
	union {
		int64_t i;
		uint64_t u;
		double d;
		const char *s;    /* valid until the source's next call */
	} v;
} sht_field;

typedef struct sht_event sht_event;

struct sht_event {
	sht_time ts;              /* nanoseconds since the clock's origin */
	uint64_t pos;             /* where seek() finds this event again */
	const char *name;         /* event type name (may be NULL) */
	int32_t cpu;              /* -1 if unknown */
	const void *data;         /* source-specific payload, for providers */
	/* Payload field by name (CTF: without the leading "_"); NULL for a
	 * source without named fields.  Returns the field's type (and its
	 * value in *out), SHT_FIELD_NONE if the event has no such field. */
	sht_field_type (*field)(const sht_event *ev, const char *name,
				sht_field *out);
};

/* ev->field(ev, name, out), or SHT_FIELD_NONE for sources without fields. */
static inline sht_field_type sht_event_field(const sht_event *ev,
					     const char *name, sht_field *out)
{
	if (!ev->field) {
		out->type = SHT_FIELD_NONE;
		return SHT_FIELD_NONE;
	}
	return ev->field(ev, name, out);
}

/* The event's CPU: the source's (ev->cpu), else an integer payload field
 * "cpu_id" (as LTTng's kernel events carry in some layouts), else -1. */
static inline int32_t sht_event_cpu(const sht_event *ev)
{
	sht_field f;

	if (ev->cpu >= 0)
		return ev->cpu;
	switch (sht_event_field(ev, "cpu_id", &f)) {
	case SHT_FIELD_INT:
		return f.v.i >= 0 && f.v.i <= INT32_MAX ? (int32_t)f.v.i : -1;
	case SHT_FIELD_UINT:
		return f.v.u <= INT32_MAX ? (int32_t)f.v.u : -1;
	default:
		return -1;
	}
}

/*
 * A scalar field (or environment entry) as text into buf (size bytes,
 * always NUL-terminated, truncated if need be): a string as it is,
 * integers in decimal, a double with 17 significant digits.  false (and
 * "") for NONE, OTHER, or size 0.
 */
SHT_API bool sht_field_text(const sht_field *f, char *buf, size_t size);

/* What a source skipped or could not deliver, reported, never hidden. */
typedef struct sht_source_stats {
	uint64_t events;          /* delivered so far */
	uint64_t discarded_events;/* the tracer's own count of lost events */
	uint64_t discarded_packets;
} sht_source_stats;

typedef struct sht_source_ops {
	/* Next event into *ev (valid until the next call): SHT_OK, SHT_END at
	 * the end, or an error. */
	sht_err (*next)(void *src, sht_event *ev);
	/* Make the event at pos the next one delivered. */
	sht_err (*seek)(void *src, uint64_t pos);
	/* Counters so far (may be NULL: all zero but events). */
	void (*stats)(void *src, sht_source_stats *out);
	/* Optional (may be NULL: seek is used): seek(pos) for a caller that
	 * knows the event at pos to be the first of the source at or after
	 * time ts (the event before it, if any, is earlier), as a partial
	 * history's checkpoint or a resumable build's does.  A source that
	 * can seek by time (a CTF trace, through its packet index) uses ts
	 * and trusts pos. */
	sht_err (*seek_at)(void *src, uint64_t pos, sht_time ts);
	/* Optional (may be NULL), a hint: until the next seek, the caller
	 * reads no further than the first event at or after time ts.  A
	 * source that decodes ahead of its reader on other threads (a CTF
	 * trace's decoding threads) stops decoding ahead there, instead of
	 * decoding events the caller will not read; every event is still
	 * delivered if asked (next() past ts only waits for its decoding).
	 * A partial history's replay tells its source the segment's end. */
	void (*until)(void *src, sht_time ts);
} sht_source_ops;


typedef struct sht_source {
	const sht_source_ops *ops;
	void *src;
} sht_source;

/* src's seek_at if it has one, else its seek. */
static inline sht_err sht_source_seek_at(const sht_source *src, uint64_t pos,
					 sht_time ts)
{
	if (src->ops->seek_at)
		return src->ops->seek_at(src->src, pos, ts);
	return src->ops->seek(src->src, pos);
}

/* src's until(ts) if it has one (a hint; nothing otherwise). */
static inline void sht_source_until(const sht_source *src, sht_time ts)
{
	if (src->ops->until)
		src->ops->until(src->src, ts);
}

typedef struct sht_provider {
	const char *id;           /* identity stored in the history */
	uint32_t version;         /* a different version means a rebuild */
	/* Apply the state changes of one event. */
	sht_err (*handle)(void *ctx, sht_state *ss, const sht_event *ev);
	void *ctx;
	/* What its attributes and values mean (model.h), or NULL. */
	const sht_model *model;
	/* Optional, for resumable builds (NULL: the provider keeps nothing
	 * between events but caches): its own state between two events as
	 * bytes (*data malloc'd), and that state put back into a provider
	 * made the same way (SHT_ERR_CORRUPT if the bytes are not its own). */
	sht_err (*save)(void *ctx, void **data, size_t *len);
	sht_err (*load)(void *ctx, const void *data, size_t len);
} sht_provider;

#ifdef __cplusplus
}
#endif

#endif /* SHT_SOURCE_H */
