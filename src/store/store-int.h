/*
 * store-int.h: private structures of the store layer (src/store only).
 *
 *   io      bytes at offsets, sync (a table of functions: tests inject faults)
 *   codec   block bytes <-> nodes (no I/O, no allocation)
 *   cache   validated blocks by number, pinned while used
 *   builder write path; reader open path; query and check on both
 */
#ifndef SHT_STORE_INT_H
#define SHT_STORE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "store/format.h"
#include "util/result-int.h"
#include "util/util.h"

/* ---- io ----------------------------------------------------------------- */

struct sht__io {
	/* Each returns 0 or a negative errno; short transfers are errors. */
	int (*pread)(struct sht__io *io, void *buf, size_t n, uint64_t off);
	int (*pwrite)(struct sht__io *io, const void *buf, size_t n,
		      uint64_t off);
	int (*sync)(struct sht__io *io);
	int fd;
};

/* The POSIX implementation on fd. */
void sht__io_posix(struct sht__io *io, int fd);

/* ---- geometry and decoded nodes ---------------------------------------- */

struct sht__geom {
	uint32_t block_size;
	uint32_t max_children;
	sht_variant variant;
};

/* A node decoded from a validated block.  Pointers point into blk. */
struct sht__node {
	const uint8_t *blk;     /* block_size bytes */
	uint8_t kind, flags, ctag;
	uint32_t level;
	uint8_t qbits, sbits, ebits, tbits, vbits;
	uint32_t w;             /* record width in bits */
	uint32_t n;             /* records */
	uint32_t nc;            /* children */
	uint32_t heap_bytes;
	uint32_t used;
	uint32_t qmin, qmax;
	uint64_t self, seq;
	sht_time start, end;
	uint64_t sbase, ebase, vbase;
	const uint8_t *children;
	const uint8_t *records;
	const uint8_t *heap;
};

/* One child entry, decoded. */
struct sht__child {
	uint64_t block;
	sht_time start, end;
	uint32_t qmin, qmax;    /* qmin > qmax: empty subtree */
};

/* One record, decoded (payload not yet turned into a value). */
struct sht__rec {
	uint32_t quark;
	uint8_t tag;
	sht_time start, end;
	uint64_t payload;
};

/*
 * Validate the block (checksum, then structure) and decode its header.
 * blk_no is where it was read from; block_count bounds child numbers.
 * @return SHT_OK or SHT_ERR_CORRUPT (message names the block).
 */
sht_err sht__node_parse(const uint8_t *blk, uint64_t blk_no,
			uint64_t block_count, const struct sht__geom *g,
			struct sht__node *out);

static inline uint64_t sht__getbits(const uint8_t *p, uint64_t pos,
				    unsigned w)
{
	const uint8_t *q = p + (pos >> 3);
	unsigned sh = (unsigned)(pos & 7);
	uint64_t v;

	if (w == 0)
		return 0;
	v = sht__load_le64(q) >> sh;
	if (sh + w > 64)
		v |= (uint64_t)q[8] << (64 - sh);
	return w == 64 ? v : v & ((UINT64_C(1) << w) - 1);
}

static inline uint32_t sht__rec_quark(const struct sht__node *n, uint32_t i)
{
	return n->qmin + (uint32_t)sht__getbits(n->records,
						(uint64_t)i * n->w, n->qbits);
}

static inline void sht__rec_decode(const struct sht__node *n, uint32_t i,
				   struct sht__rec *r)
{
	uint64_t pos = (uint64_t)i * n->w;

	r->quark = n->qmin + (uint32_t)sht__getbits(n->records, pos, n->qbits);
	pos += n->qbits;
	r->start = (sht_time)(n->sbase + sht__getbits(n->records, pos, n->sbits));
	pos += n->sbits;
	r->end = (sht_time)(n->ebase + sht__getbits(n->records, pos, n->ebits));
	if (n->flags & SHT__NFLAG_DURATION)
		r->end = (sht_time)((uint64_t)r->end + (uint64_t)r->start);
	pos += n->ebits;
	r->tag = n->tbits ? (uint8_t)sht__getbits(n->records, pos, n->tbits)
			  : n->ctag;
	pos += n->tbits;
	r->payload = sht__getbits(n->records, pos, n->vbits);
}

static inline void sht__child_get(const struct sht__node *n, uint32_t i,
				  struct sht__child *c)
{
	const uint8_t *p = n->children + (size_t)i * SHT__CHILD_ENTRY;

	c->block = sht__get_u64(p);
	c->start = (sht_time)sht__get_u64(p + 8);
	c->end = (sht_time)sht__get_u64(p + 16);
	c->qmin = sht__get_u32(p + 24);
	c->qmax = sht__get_u32(p + 28);
}

/* First record index whose quark is >= q (n if none). */
uint32_t sht__rec_lower_bound(const struct sht__node *n, uint32_t q);

/* A section of the file (an entry of the header's section table). */
struct sht__section {
	uint32_t kind, version;
	uint64_t first, length;
	uint32_t crc;
};

/* Decode the 4096-byte header region (validated).  Fills info and root. */
struct sht__header {
	uint32_t version, header_len, flags;
	sht_variant variant;
	uint32_t block_size, max_children, depth;
	uint64_t block_count, root, quark_count, intervals, nodes;
	sht_time start, end;
	struct sht__section sections[SHT__SECTION_SLOTS];
	uint32_t nsections;
};
sht_err sht__header_parse(const uint8_t *h, struct sht__header *out);
void sht__header_encode(const struct sht__header *hd, uint8_t *h);

/* Heap entry at off: string bytes (inline) or blob reference. */
struct sht__str {
	uint64_t len;
	const uint8_t *bytes;   /* inline: the bytes; blob: NULL */
	uint64_t blob;          /* blob: first block */
};
sht_err sht__heap_get(const struct sht__node *n, uint64_t off,
		      struct sht__str *out);

/* Bytes a blob of len bytes takes, rounded up to whole blocks. */
uint64_t sht__blob_blocks(uint64_t len, uint32_t block_size);

/* Check the geometry options (block size, max children). */
sht_err sht__geom_check(uint32_t block_size, uint32_t max_children);

/* ---- cache -------------------------------------------------------------- */

struct sht__cache;

/* An entry pinned by sht__cache_fetch; node valid until released. */
struct sht__centry {
	struct sht__centry *hnext;   /* hash chain */
	uint64_t block;
	atomic_int refs;
	int ref_bit;                 /* CLOCK: recently used */
	struct sht__node node;
	uint8_t data[];              /* block_size bytes */
};

struct sht__store {
	struct sht__io io;
	struct sht__geom geom;
	struct sht__cache *cache;
	_Atomic uint64_t block_count;   /* blocks readable now */
	_Atomic uint64_t visits, misses, bytes_read;
	int path_known;
	char path[256];              /* for messages */
};

sht_err sht__cache_create(size_t bytes, uint32_t block_size,
			  struct sht__cache **out);
void sht__cache_destroy(struct sht__cache *c);
void sht__cache_drop(struct sht__cache *c);

/*
 * Pin the node at block blk, reading and validating it on a miss.  Pair
 * every successful fetch with one sht__cache_release; until then the entry
 * cannot be evicted.  @return SHT_OK, SHT_ERR_IO, SHT_ERR_CORRUPT, NOMEM.
 */
sht_err sht__fetch(struct sht__store *st, uint64_t blk,
		   struct sht__centry **out);
void sht__release(struct sht__centry *e);

/* Read and validate the whole run of blocks of a blob or section (kind);
 * *out is malloc'd, data at SHT__BLOB_HDR. */
sht_err sht__blob_load(struct sht__store *st, uint8_t kind, uint64_t first,
		       uint64_t len, uint8_t **out);
/* Read a blob string into res's arena; *out points to its bytes. */
sht_err sht__blob_read(struct sht__store *st, uint64_t first, uint64_t len,
		       sht_result *res, const char **out);

/* ---- queries over a tree (disk nodes, and open nodes of a builder) ------ */

struct sht__open;

/* Where a query starts: a disk root, or the builder's open branch. */
struct sht__root {
	struct sht__store *st;
	uint64_t disk_root;          /* when branch is NULL */
	struct sht__open *const *branch; /* builder: open nodes, root first */
	uint32_t depth;
	uint64_t quark_count;
	uint64_t intervals;
};

sht_err sht__q_single(const struct sht__root *r, sht_quark q, sht_time t,
		      sht_result *res);
sht_err sht__q_full(const struct sht__root *r, sht_time t, sht_result *res);
sht_err sht__q_2d(const struct sht__root *r, const sht_query2d *q,
		  sht_result *res);

/* Turn a record into an interval appended to res (string copied). */
sht_err sht__rec_append(struct sht__store *st, const struct sht__node *n,
			const struct sht__rec *rec, sht_result *res);


/* ---- open nodes (builder) ---------------------------------------------- */

/* An interval in an open node.  payload: int value, double bits, or the
 * string's heap offset, as on disk but before subtracting vbase. */
struct sht__oiv {
	sht_time start, end;
	uint64_t payload;
	uint32_t quark;
	uint8_t tag;
};

/* Running minima and maxima of an open node: they give the field widths,
 * so the encoded size is known in O(1) at every insert. */
struct sht__trk {
	uint32_t qmin, qmax;
	uint64_t smin, smax;         /* times, biased to unsigned order */
	uint64_t emin, emax;
	uint64_t dmin, dmax;         /* end - start */
	uint64_t vmin, vmax;         /* int values, biased */
	uint64_t str_off_max;
	uint32_t n;
	uint8_t types;               /* bit per tag present */
};

struct sht__open {
	uint8_t kind;
	uint32_t level;
	uint64_t seq;
	sht_time start;
	struct sht__oiv *iv;         /* n = trk.n records, cap allocated */
	uint32_t cap;
	uint8_t *heap;               /* string entries, as on disk */
	uint32_t heap_len, heap_cap;
	uint32_t *dedup;             /* heap offset + 1 by string hash */
	uint32_t dedup_mask, dedup_count;
	struct sht__trk trk;
	struct sht__child *ch;       /* closed children, max_children room */
	uint32_t nc;
	uint32_t sub_qmin, sub_qmax; /* quarks of records + closed subtree */
};

static inline uint64_t sht__bias(sht_time t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

static inline sht_time sht__unbias(uint64_t u)
{
	return (sht_time)(u ^ (UINT64_C(1) << 63));
}

void sht__trk_reset(struct sht__trk *t);
void sht__trk_add(struct sht__trk *t, const struct sht__oiv *r);
/* Record width in bits and whether ends are stored as durations. */
uint32_t sht__trk_width(const struct sht__trk *t, int *duration);
/* Bytes the node would take with its records, heap and child room. */
uint64_t sht__open_size(const struct sht__open *o, const struct sht__trk *t,
			uint32_t heap_len, uint32_t max_children);

/* Encode o (sorting its records) into blk (block_size bytes) as block
 * number self, with end time end. */
void sht__open_encode(struct sht__open *o, uint64_t self, sht_time end,
		      const struct sht__geom *g, uint8_t *blk);

#endif /* SHT_STORE_INT_H */
