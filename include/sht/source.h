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

#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sht_state sht_state;

typedef struct sht_event {
	sht_time ts;              /* nanoseconds */
	uint64_t pos;             /* where seek() finds this event again */
	const char *name;         /* event type name (may be NULL) */
	int32_t cpu;              /* -1 if unknown */
	const void *data;         /* source-specific payload, for providers */
} sht_event;

typedef struct sht_source_ops {
	/* Next event into *ev (valid until the next call): SHT_OK, SHT_END at
	 * the end, or an error. */
	sht_err (*next)(void *src, sht_event *ev);
	/* Make the event at pos the next one delivered. */
	sht_err (*seek)(void *src, uint64_t pos);
} sht_source_ops;

typedef struct sht_source {
	const sht_source_ops *ops;
	void *src;
} sht_source;

typedef struct sht_provider {
	const char *id;           /* identity stored in the history */
	uint32_t version;         /* a different version means a rebuild */
	/* Apply the state changes of one event. */
	sht_err (*handle)(void *ctx, sht_state *ss, const sht_event *ev);
	void *ctx;
} sht_provider;

#ifdef __cplusplus
}
#endif

#endif /* SHT_SOURCE_H */
