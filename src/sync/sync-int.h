/*
 * sync-int.h: private to src/sync/ (trace synchronization, sht/sync.h).
 *
 *   dec.c        decimals with BigDecimal's DECIMAL128 rounding (dec.h)
 *   transform.c  clock transforms: creation, composition, inverse, and
 *                Trace Compass's fast application
 *   tsource.c    the source wrapper that applies a transform
 *   pending.c    events waiting for their match: hash by key, FIFO by time
 *   match.c      packet matching over the merged traces
 *   hull.c       the fully incremental convex hull of one pair of hosts
 *   graph.c      the hosts' spanning tree and the composed transforms
 *   sync.c       sht_sync_compute and the result's accessors
 *   store.c      the result as a history section
 */
#ifndef SHT_SYNC_INT_H
#define SHT_SYNC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sht/sht.h"
#include "sht/sync.h"
#include "sync/dec.h"

/* ---- transforms (transform.c) -------------------------------------------- */

enum sht__tkind {
	SHT__T_IDENTITY = 0,
	SHT__T_CONSTANT = 1,      /* slope exactly 1, integer offset */
	SHT__T_LINEAR = 2,        /* Trace Compass's fast linear transform */
};

struct sht_transform {
	enum sht__tkind kind;
	sht__dec alpha, beta;     /* slope, offset */
	char *slope_s, *offset_s; /* their text */
	int64_t const_off;        /* CONSTANT */
	/* LINEAR: fixed-point slope over blocks of 2^delta_bits ns */
	int64_t alpha_long;
	int delta_bits;
	int64_t delta_max;
	int64_t range_start;      /* block of the last call */
	int64_t range_off;        /* its transformed start */
};

/* A transform of the given slope and offset (copied): identity, constant
 * or linear as Trace Compass's factory picks (slope equal to one with an
 * integer offset: constant, or identity if the offset is 0).
 * SHT_ERR_INVALID if a linear slope is outside [1e-9, 1e9]. */
sht_err sht__transform_new(const sht__dec *slope, const sht__dec *offset,
			   sht_transform **out);
/* A transform of exactly that kind (a stored one read back). */
sht_err sht__transform_make(enum sht__tkind kind, const sht__dec *slope,
			    const sht__dec *offset, sht_transform **out);
/* a o b (a applied after b): slope a.s * b.s, offset a.s * b.o + a.o,
 * rounded as Trace Compass composes. */
sht_err sht__transform_compose(const sht_transform *a, const sht_transform *b,
			       sht_transform **out);
/* The inverse: slope 1 / s, offset -o / s (rounded). */
sht_err sht__transform_inverse(const sht_transform *t, sht_transform **out);

/* ---- pending events (pending.c) ------------------------------------------ */

/* A packet's identity, as Trace Compass's TcpEventKey. */
struct sht__pkey {
	uint64_t seq, ack, flags;
};

struct sht__pentry {
	struct sht__pkey key;
	int64_t ts;
	int alive;
};

/* The events of one trace and one direction waiting for their match:
 * look-up by key, removal of the oldest by time (entries arrive in time
 * order). */
struct sht__pending {
	struct sht__pentry *ring; /* FIFO, cap a power of two */
	uint64_t head, tail;      /* sequence numbers: [head, tail) */
	size_t cap;
	uint64_t *slots;          /* hash: sequence number + 1, 0 empty */
	size_t nslots;            /* a power of two */
	size_t live;
};

void sht__pending_init(struct sht__pending *p);
void sht__pending_free(struct sht__pending *p);
/* 1 and *ts if key waits, else 0. */
int sht__pending_find(const struct sht__pending *p, const struct sht__pkey *k,
		      int64_t *ts);
/* Remove key (which must wait). */
void sht__pending_remove(struct sht__pending *p, const struct sht__pkey *k);
/* Add key at ts (not already waiting; ts >= every ts added before).
 * -1 when out of memory. */
int sht__pending_add(struct sht__pending *p, const struct sht__pkey *k,
		     int64_t ts);
/* Remove every entry with ts < before. */
void sht__pending_drop_before(struct sht__pending *p, int64_t before);

/* ---- convex hull of one pair of hosts (hull.c) --------------------------- */

struct sht__hull;

/* ref < other (host indexes in byte order of the host ids). */
struct sht__hull *sht__hull_new(uint32_t ref, uint32_t other);
void sht__hull_free(struct sht__hull *h);
/* One match: sent at send_ts by host from, received at recv_ts by host
 * to (the pair {from, to} is the hull's).  -1 when out of memory. */
int sht__hull_add(struct sht__hull *h, uint32_t from, int64_t send_ts,
		  uint32_t to, int64_t recv_ts);
uint32_t sht__hull_ref(const struct sht__hull *h);
uint32_t sht__hull_other(const struct sht__hull *h);
sht_sync_quality sht__hull_quality(const struct sht__hull *h);
void sht__hull_counts(const struct sht__hull *h, uint64_t *matches,
		      uint64_t *accurate, uint64_t *points);
/* The other host's transform onto the reference's clock (identity unless
 * the quality is accurate, approximate or fail). */
sht_err sht__hull_transform(const struct sht__hull *h, sht_transform **out);
/* The slopes of the two bounds (1 until computed). */
void sht__hull_slopes(const struct sht__hull *h, sht__dec *amax,
		      sht__dec *amin);
/* The pair's formula: other = alpha * reference + beta (1 and 0 until
 * computed). */
void sht__hull_formula(const struct sht__hull *h, sht__dec *alpha,
		       sht__dec *beta);
/* alpha_max - alpha_min, exact. */
void sht__hull_accuracy(const struct sht__hull *h, sht__dec *out);

/* ---- spanning tree (graph.c) --------------------------------------------- */

/*
 * Transforms of nh hosts onto the root's clock from the hulls (in their
 * creation order): pairs of quality accurate, approximate or fail are
 * edges (reference -> other with the hull's transform, and back with its
 * inverse); the root is the smallest host among them; a host's transform
 * composes the edges of its breadth-first path from the root.  out[h]
 * gets host h's transform (identity if unreached), reached[h] whether it
 * is the root or reached, *root the root (UINT32_MAX if no edge).
 */
sht_err sht__graph_transforms(struct sht__hull *const *hulls, size_t nhulls,
			      uint32_t nh, sht_transform **out,
			      int *reached, sht_sync_quality *path_quality,
			      uint32_t *root);

/* ---- matching (match.c) -------------------------------------------------- */

struct sht__matcher;

/* Match the packets of n traces, each of host host[i] (indexes 0 .. nh-1)
 * with layout[i]; each match goes to the hulls. */
sht_err sht__matcher_new(size_t n, const uint32_t *host, uint32_t nh,
			 const sht_net_layout *layout,
			 struct sht__matcher **out);
void sht__matcher_free(struct sht__matcher *m);
/* One event of trace i. */
sht_err sht__matcher_event(struct sht__matcher *m, size_t i,
			   const sht_event *ev);
/* The hulls built so far, in creation order (owned by m). */
struct sht__hull *const *sht__matcher_hulls(const struct sht__matcher *m,
					    size_t *n);
void sht__matcher_stats(const struct sht__matcher *m, sht_sync_stats *out);

/* ---- the result (sync.c, store.c) ---------------------------------------- */

struct sht__sync_trace {
	char *name, *host;
	bool reference, synced;
	sht_transform *t;
};

struct sht__sync_pair {
	char *reference, *other;
	uint64_t matches, accurate;
	sht_sync_quality quality;
	char *slope, *offset, *accuracy;
};

struct sht_sync {
	struct sht__sync_trace *tr;
	size_t n;
	struct sht__sync_pair *pairs;
	size_t npairs;
	sht_sync_stats st;
	sht_sync_quality quality;
};

/* A zeroed result of n traces and npairs pairs (NULL: out of memory). */
sht_sync *sht__sync_alloc(size_t n, size_t npairs);

#endif /* SHT_SYNC_INT_H */
