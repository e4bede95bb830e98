/*
 * sync.h: one timeline for traces of several hosts (trace
 * synchronization, docs/SYNC.md).
 *
 * Each host stamps its trace with its own clock.  TCP packets seen leaving
 * one host and entering another pair the clocks: the receive cannot come
 * before the send.  sht_sync_compute() reads the traces once, merged in
 * time, matches the packets (the same keys as Trace Compass: sequence
 * number, acknowledgement number and flags), and for each pair of hosts
 * runs the fully incremental convex hull algorithm over the matched
 * pairs; a spanning tree over the hosts then gives every trace a linear
 * transform t' = slope * t + offset onto the reference host's clock (the
 * first host id in byte order among the hosts that exchanged packets).
 * Slopes and offsets are decimals computed as Trace Compass computes them
 * (34 significant digits, half-even rounding) and applied as its fast
 * transform applies them, so corrected timestamps equal Trace Compass's
 * to the nanosecond.
 *
 *   sht_sync_input in[2] = {
 *           { &src_a, "a", host_a, SHT_NET_LAYOUT_LTTNG_2_0 },
 *           { &src_b, "b", host_b, SHT_NET_LAYOUT_LTTNG_2_0 } };
 *   sht_sync *s;
 *   sht_sync_compute(in, 2, &s);
 *   sht_sync_trace_info ti;
 *   sht_sync_trace(s, 1, &ti);            ti.transform: b's transform
 *   sht_source fixed;
 *   sht_transform_source(&src_b2, ti.transform, &fixed);
 *   ... b's events on a's clock ...
 *   sht_transform_source_free(&fixed);
 *   sht_sync_free(s);
 *
 * Handles are used by one thread at a time.
 */
#ifndef SHT_SYNC_H
#define SHT_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/source.h"
#include "sht/state.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- time transforms ---------------------------------------------------- */

/*
 * A clock transform t' = slope * t + offset: the identity, a constant
 * offset (slope exactly 1, integer offset), or a linear transform whose
 * slope is in [1e-9, 1e9].  slope and offset are decimals of any length
 * (a synchronization gives 34 significant digits).  Applied as Trace
 * Compass's "fast" linear transform does: within each aligned block of
 * 2^30 ns (fewer bits for slopes >= 4) the block start is transformed
 * exactly and the rest with a 64-bit fixed-point slope, so the result may
 * differ by 1 ns from floor(slope * t + offset); it is what Trace Compass
 * shows.  Applying is a few integer operations, plus one decimal
 * computation when t leaves the block of the previous call.
 */
typedef struct sht_transform sht_transform;

/*
 * A transform from its slope and offset in plain decimal notation
 * ("-12.5", no exponent).  @return SHT_OK; SHT_ERR_INVALID (not a
 * number, or a slope outside [1e-9, 1e9]); SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_transform_create(const char *slope, const char *offset,
				     sht_transform **out);
/* The identity. */
SHT_API sht_err sht_transform_identity(sht_transform **out);
SHT_API sht_err sht_transform_copy(const sht_transform *t,
				   sht_transform **out);
/* NULL is a no-op. */
SHT_API void sht_transform_free(sht_transform *t);

/* true for the identity (slope 1, offset 0). */
SHT_API bool sht_transform_is_identity(const sht_transform *t);
/* The slope and offset in plain decimal notation with all their digits
 * ("1" and "0" for the identity); valid while t lives. */
SHT_API const char *sht_transform_slope(const sht_transform *t);
SHT_API const char *sht_transform_offset(const sht_transform *t);

/* t applied to ts.  Not const: it remembers the last block (use one copy
 * per thread).  Wraps around like Java's long arithmetic where the result
 * leaves the int64 range. */
SHT_API sht_time sht_transform_apply(sht_transform *t, sht_time ts);

/*
 * A source that delivers in's events with their timestamps transformed
 * by a copy of t (positions, names, fields and seeks unchanged).  in must
 * outlive it.  A transform is increasing, so the events stay in time
 * order.  @return SHT_OK or SHT_ERR_NOMEM.  Free with
 * sht_transform_source_free (which does not close in).
 */
SHT_API sht_err sht_transform_source(const sht_source *in,
				     const sht_transform *t, sht_source *out);
SHT_API void sht_transform_source_free(sht_source *src);

/* ---- network events --------------------------------------------------- */

/*
 * Which kernel events of a trace carry TCP packets, besides the
 * inet_sock_local_out (send) / inet_sock_local_in (receive) events of
 * lttng-modules' network add-ons (fields seq, ack_seq, flags), which are
 * matched in every trace.  As Trace Compass's kernel layouts:
 *
 *   NONE        not an LTTng kernel trace: no other event
 *   LTTNG_2_0   net_dev_queue / netif_receive_skb, fields
 *               transport_fields.thtype_tcp.{seq,ack_seq,flags}
 *               (lttng-modules before 2.7)
 *   LTTNG_2_7   net_dev_queue / net_if_receive_skb, the same fields
 *               (2.7, 2.8)
 *   LTTNG_2_9   net_dev_queue / net_if_receive_skb, fields
 *               network_header.*.transport_header.tcp.{seq,ack_seq,flags}
 *               (2.9 and later; "*" is the variant's selected option)
 *
 * Field paths are asked of the event's field() with "." between the
 * elements (sht_ctf_open sources answer them).
 */
typedef enum sht_net_layout {
	SHT_NET_LAYOUT_NONE = 0,
	SHT_NET_LAYOUT_LTTNG_2_0 = 1,
	SHT_NET_LAYOUT_LTTNG_2_7 = 2,
	SHT_NET_LAYOUT_LTTNG_2_9 = 3,
} sht_net_layout;

/*
 * The layout Trace Compass uses for a trace's environment: domain
 * "kernel" and tracer_name "lttng-modules" with tracer_major >= 2 select
 * by tracer_minor (>= 9: 2.9, >= 7: 2.7, else 2.0); another tracer of a
 * kernel trace gets 2.0; no domain "kernel" gives NONE.  Values may carry
 * surrounding double quotes; NULL means absent.
 */
SHT_API sht_net_layout sht_net_layout_from_env(const char *domain,
					       const char *tracer_name,
					       const char *tracer_major,
					       const char *tracer_minor);

/* ---- synchronization -------------------------------------------------- */

/* How well a pair of hosts (or all of them) is synchronized, worst first:
 * the values order them. */
typedef enum sht_sync_quality {
	SHT_SYNC_ABSENT = 0,      /* no packet between the hosts */
	SHT_SYNC_INCOMPLETE = 1,  /* not enough packets both ways to bound
	                             the clocks' relation */
	SHT_SYNC_FAIL = 2,        /* the bounds crossed (a clock jumped, or
	                             packets were mismatched): the last
	                             result before that is kept */
	SHT_SYNC_APPROXIMATE = 3, /* one bound found: a usable estimate */
	SHT_SYNC_ACCURATE = 4,    /* both bounds found, not crossing */
} sht_sync_quality;

/* "absent", "incomplete", "fail", "approximate", "accurate". */
SHT_API const char *sht_sync_quality_name(sht_sync_quality q);

/* One trace to synchronize. */
typedef struct sht_sync_input {
	const sht_source *src;    /* read from where it stands to its end */
	const char *name;         /* kept in the result (a path), or NULL */
	const char *host;         /* host id: traces of one host share one
	                             clock (CTF: sht_ctf_host_id) */
	sht_net_layout layout;
} sht_sync_input;

typedef struct sht_sync sht_sync;

/*
 * Synchronize n traces (n >= 1).  Reads every source to its end, merged
 * in time (ties: the earlier input first).  Memory holds the packets
 * waiting for their match (bounded by the packets in flight once every
 * host has exchanged packets with every other; see docs/SYNC.md) and the
 * hull points, never the events.  Fewer than two hosts, or no packet
 * exchanged, is not an error: every transform is then the identity and
 * the quality SHT_SYNC_ABSENT.
 * @return SHT_OK; SHT_ERR_INVALID (n == 0, a NULL source or host);
 *         a source's error (its message says which trace); SHT_ERR_ORDER
 *         if a source goes back in time; SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_sync_compute(const sht_sync_input *in, size_t n,
				 sht_sync **out);
/* NULL is a no-op. */
SHT_API void sht_sync_free(sht_sync *s);

/* Number of traces. */
SHT_API size_t sht_sync_count(const sht_sync *s);

typedef struct sht_sync_trace_info {
	const char *name;         /* as given ("" if NULL) */
	const char *host;
	bool reference;           /* the reference host's trace */
	bool synced;              /* on the reference's clock (the
	                             reference itself, or linked to it by
	                             packets); 0: left as it is */
	const sht_transform *transform;  /* valid while s lives */
} sht_sync_trace_info;

/* Trace i (in input order).  SHT_ERR_RANGE past the last. */
SHT_API sht_err sht_sync_trace(const sht_sync *s, size_t i,
			       sht_sync_trace_info *out);

/* One pair of hosts that exchanged packets. */
typedef struct sht_sync_pair_info {
	const char *reference;    /* the pair's reference (first in order) */
	const char *other;
	uint64_t matches;         /* packet pairs between them */
	uint64_t accurate;        /* of those, pairs that moved a bound */
	sht_sync_quality quality;
	const char *slope, *offset;  /* other's clock onto reference's */
	const char *accuracy;     /* max slope - min slope of the bounds */
} sht_sync_pair_info;

SHT_API size_t sht_sync_pair_count(const sht_sync *s);
SHT_API sht_err sht_sync_pair(const sht_sync *s, size_t k,
			      sht_sync_pair_info *out);

typedef struct sht_sync_stats {
	uint64_t events;          /* events read, all traces */
	uint64_t packets;         /* of those, TCP send and receive events */
	uint64_t matches;         /* matched send/receive pairs (Trace
	                             Compass's count: loopback pairs of one
	                             host included) */
	uint64_t pending;         /* events left unmatched at the end */
	uint64_t peak_pending;    /* most events waiting at once */
	uint64_t hull_points;     /* points kept on the hulls at the end */
} sht_sync_stats;

SHT_API void sht_sync_stats_get(const sht_sync *s, sht_sync_stats *out);

/*
 * The quality of the whole: for each host but the reference, the worst
 * quality on its path of pairs to the reference (a host without a path:
 * the best quality of its pairs, absent or incomplete); the worst of
 * those.  SHT_SYNC_ABSENT with fewer than two hosts.
 */
SHT_API sht_sync_quality sht_sync_quality_get(const sht_sync *s);

/* ---- storing the result with a history ------------------------------- */

/*
 * Store s in the history ss (before sht_state_finish; section kind
 * SHT_SYNC_SECTION, docs/FORMAT.md) so that a history built on the
 * corrected axis says which transforms made it.  A stored result keeps
 * names, hosts, transforms, pairs and counts (not the hulls).
 * @return SHT_OK; SHT_ERR_STATE (finished or failed history);
 *         SHT_ERR_INVALID (already stored); SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_sync_store(const sht_sync *s, sht_state *ss);

/* The result stored with an opened history.  @return SHT_OK;
 * SHT_NOT_FOUND (none); SHT_ERR_CORRUPT; SHT_ERR_IO; SHT_ERR_NOMEM. */
SHT_API sht_err sht_sync_stored(sht_state *ss, sht_sync **out);

/*
 * The source that replays the trace at path `trace` for the history ss
 * (a partial history's queries replay their trace): for a history built
 * on an experiment's synchronized clock (a stored synchronization), in
 * read through that trace's transform, found by the trace's real path
 * among the stored names, into *out (free it with
 * sht_transform_source_free; it does not close in) and *transformed set;
 * for any other history *out = *in and *transformed cleared.
 * @return SHT_OK; SHT_ERR_INVALID if the trace is not one of the
 *         experiment's (the message names it); the errors of
 *         sht_sync_stored and sht_transform_source.
 */
SHT_API sht_err sht_sync_replay_source(sht_state *ss, const char *trace,
				       const sht_source *in, sht_source *out,
				       bool *transformed);

#define SHT_SYNC_SECTION 16u

#ifdef __cplusplus
}
#endif

#endif /* SHT_SYNC_H */
