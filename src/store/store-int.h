/*
 * store-int.h: private structures of the store layer (src/store only).
 *
 *   io      whole transfers at offsets, sync (plain POSIX calls: the fault
 *           tests wrap pread, pwrite, fsync at link time,
 *           tests/support/faults.h)
 *   codec   block bytes <-> nodes (no I/O, no allocation)
 *   cache   validated blocks by number, pinned while used
 *   builder write path; reader open path; query and check on both
 */
#ifndef SHT_STORE_INT_H
#define SHT_STORE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "sht/tree.h"
#include "store/format.h"
#include "util/result-int.h"
#include "util/util.h"

/* ---- io ----------------------------------------------------------------- */

/* Read or write exactly n bytes at off (retrying on EINTR and short
 * transfers), fsync: 0 or a negative errno (a read past the end of the
 * file is -EIO). */
int sht__pread_full(int fd, void *buf, size_t n, uint64_t off);
int sht__pwrite_full(int fd, const void *buf, size_t n, uint64_t off);
int sht__fsync(int fd);

/* ---- geometry and decoded nodes ---------------------------------------- */

struct sht__geom {
	uint32_t block_size;
	uint32_t max_children;
	sht_variant variant;
};

/*
 * A node decoded from a validated block.  Pointers point into blk.  The
 * header and the sizes of the areas are validated by sht__node_parse; the
 * contents of the areas are not (sht check does that), so every accessor
 * below stays inside its area whatever the bits say, and an index that
 * points outside its table makes the access fail (SHT_ERR_CORRUPT).
 */
struct sht__node {
	/* What every query reads, first (two cache lines). */
	const uint8_t *blk;     /* block_size bytes */
	const uint8_t *records;
	const uint8_t *children;
	const uint8_t *heap;
	sht_time start, end;
	uint64_t sbase, ebase, vbase;
	uint32_t qmin, qmax;
	uint32_t n;             /* records */
	uint32_t nc;            /* children */
	uint32_t level;
	uint32_t w;             /* record width in bits */
	uint32_t eoff, ew;      /* a record's end field: bit offset, width */
	uint32_t voff;          /* a record's value field: bit offset */
	uint8_t kind, flags, ctag;
	uint8_t qbits, sbits, ebits, tbits, vbits; /* field widths */
	/* Runs, end table, dictionary. */
	uint8_t ibits, xbits, dbits; /* record, end and value index widths */
	uint8_t obits;          /* end table: width of an offset */
	uint32_t dirw, excw;    /* run directory and exception entry widths */
	uint32_t nruns, nexc, nends, nvals;
	const uint8_t *dict;    /* DICT: the values (after the tag table) */
	const uint8_t *etab;    /* ETAB: the bases of the blocks of ends */
	const uint8_t *eoffs;   /* ETAB: the ends, as offsets from their base */
	const uint8_t *dir;     /* RUNS: the run directory */
	const uint8_t *exc;     /* RUNS: the start exceptions */
	/* DICT: the values of tag t have indices dfirst[t] .. dfirst[t+1]-1,
	 * are dw[t] bits wide, start at bit doff[t] of dict, and decode to
	 * dbase[t] + field (modulo 2^64). */
	uint32_t dfirst[SHT__TAG_COUNT + 1];
	uint8_t dw[SHT__TAG_COUNT];
	uint64_t dbase[SHT__TAG_COUNT], doff[SHT__TAG_COUNT];
	/* The rest of the header. */
	uint64_t self, seq;
	uint32_t heap_bytes;
	uint32_t used;
};

/* One child entry, decoded. */
struct sht__child {
	uint64_t block;
	sht_time start, end;
	uint32_t qmin, qmax;    /* qmin > qmax: empty subtree */
};

/* One record, decoded.  payload: the int32/int64 value (sign-extended),
 * the double's bits, or the string's heap offset; 0 for null. */
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
/* The same without the checksum: for a block of an immutable history
 * whose checksum this reader has already verified (the structure is
 * still checked). */
sht_err sht__node_decode(const uint8_t *blk, uint64_t blk_no,
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
	if (__builtin_expect(sh + w > 64, 0))
		v |= (uint64_t)q[8] << (64 - sh);
	return v & (~UINT64_C(0) >> (64 - w));      /* w in 1 .. 64 */
}

/* ---- records (records.c) -------------------------------------------------
 *
 * Flat nodes store (quark, start, end, value) in every record.  RUNS nodes
 * group the records of a quark into a run: the run directory gives the
 * quark, the first record and its start; a later record of the run starts
 * one after the previous record's end unless the exception list gives its
 * start.  Ends of a run increase, so a run is searched by end.
 */

/* End-table entry x (< nends): end - ebase.  The table is in blocks of
 * SHT__ETAB_BLOCK entries: a base per block (ebits), an offset from it
 * per entry (obits). */
static inline uint64_t sht__etab_get(const struct sht__node *n, uint32_t x)
{
	return sht__getbits(n->etab, (uint64_t)(x >> SHT__ETAB_SHIFT) * n->ebits,
			    n->ebits) +
	       sht__getbits(n->eoffs, (uint64_t)x * n->obits, n->obits);
}

/* Record i's end (not DURATION); 0 if its end index is out of the table. */
static inline int sht__rec_end(const struct sht__node *n, uint32_t i,
			       sht_time *e)
{
	uint64_t x = sht__getbits(n->records, (uint64_t)i * n->w + n->eoff,
				  n->ew);

	if (n->flags & SHT__NFLAG_ETAB) {
		if (x >= n->nends)
			return 0;
		x = sht__etab_get(n, (uint32_t)x);
	}
	*e = (sht_time)(n->ebase + x);
	return 1;
}

/* Record i's tag and payload; 0 if its value index is out of the table. */
static inline int sht__rec_value(const struct sht__node *n, uint32_t i,
				 uint8_t *tag, uint64_t *payload)
{
	uint64_t pos = (uint64_t)i * n->w + n->voff;

	if (n->flags & SHT__NFLAG_DICT) {
		uint64_t d = sht__getbits(n->records, pos, n->dbits);
		unsigned t = 0;

		if (d >= n->nvals)
			return 0;
		while (d >= n->dfirst[t + 1])   /* dfirst[5] = nvals > d */
			t++;
		*tag = (uint8_t)t;
		*payload = n->dbase[t] +
			   sht__getbits(n->dict, n->doff[t] + (d - n->dfirst[t]) * n->dw[t],
					n->dw[t]);
		return 1;
	}
	*tag = n->tbits ? (uint8_t)sht__getbits(n->records, pos, n->tbits)
			: n->ctag;
	*payload = sht__getbits(n->records, pos + n->tbits, n->vbits);
	if (*tag == SHT__TAG_INT32 || *tag == SHT__TAG_INT64)
		*payload += n->vbase;
	else if (*tag == SHT__TAG_NULL)
		*payload = 0;
	return 1;
}

/* Flat records: the quark and start of record i. */
static inline uint32_t sht__flat_quark(const struct sht__node *n, uint32_t i)
{
	return n->qmin + (uint32_t)sht__getbits(n->records, (uint64_t)i * n->w,
						n->qbits);
}

static inline sht_time sht__flat_start(const struct sht__node *n, uint32_t i)
{
	return (sht_time)(n->sbase + sht__getbits(n->records,
						  (uint64_t)i * n->w + n->qbits,
						  n->sbits));
}

/* Flat records: the end of record i starting at s (DURATION or not). */
static inline int sht__flat_end(const struct sht__node *n, uint32_t i,
				sht_time s, sht_time *e)
{
	if (!sht__rec_end(n, i, e))
		return 0;
	if (n->flags & SHT__NFLAG_DURATION)
		*e = (sht_time)((uint64_t)*e + (uint64_t)s);
	return 1;
}

/* Run r (< nruns): its quark, its records [*a, *b) (clamped so that
 * a <= b <= n) and the start of its first record. */
static inline void sht__run_get(const struct sht__node *n, uint32_t r,
				uint32_t *q, uint32_t *a, uint32_t *b,
				sht_time *s0)
{
	uint64_t pos = (uint64_t)r * n->dirw;
	uint64_t x = sht__getbits(n->dir, pos + n->qbits, n->ibits);
	uint64_t y = r + 1 < n->nruns
		     ? sht__getbits(n->dir, pos + n->dirw + n->qbits, n->ibits)
		     : n->n;

	*q = n->qmin + (uint32_t)sht__getbits(n->dir, pos, n->qbits);
	*b = y < n->n ? (uint32_t)y : n->n;
	*a = x < *b ? (uint32_t)x : *b;
	*s0 = (sht_time)(n->sbase + sht__getbits(n->dir, pos + n->qbits + n->ibits,
						  n->sbits));
}

/* RUNS: the quark of run r (< nruns). */
static inline uint32_t sht__run_quark(const struct sht__node *n, uint32_t r)
{
	return n->qmin + (uint32_t)sht__getbits(n->dir, (uint64_t)r * n->dirw,
						n->qbits);
}

/* RUNS: start exception x (< nexc): its record index, its start. */
static inline uint32_t sht__exc_index(const struct sht__node *n, uint32_t x)
{
	return (uint32_t)sht__getbits(n->exc, (uint64_t)x * n->excw, n->ibits);
}

static inline sht_time sht__exc_start(const struct sht__node *n, uint32_t x)
{
	return (sht_time)(n->sbase + sht__getbits(n->exc, (uint64_t)x * n->excw + n->ibits,
						  n->sbits));
}

/* RUNS: index of the run of quark q, or nruns if q has none here. */
uint32_t sht__run_find(const struct sht__node *n, uint32_t q);
/* RUNS: first run whose quark is >= q (nruns if none). */
uint32_t sht__run_lower_bound(const struct sht__node *n, uint32_t q);
/* A time as a node's end fields compare with it: through the end table,
 * the rank of the first end >= t; else t (offset by ebase). */
struct sht__tkey {
	uint64_t x;             /* records with end field >= x end at >= t */
	int none;               /* no end in the node is >= t */
};
void sht__tkey_make(const struct sht__node *n, sht_time t,
		    struct sht__tkey *k);
/* RUNS: first record i in [a, b) with end >= k's time (b if none).  Ends
 * are not decoded: a damaged index cannot fail here. */
uint32_t sht__run_seek(const struct sht__node *n, uint32_t a, uint32_t b,
		       const struct sht__tkey *k);
/* RUNS: start of record i of the run of records [a, ...) starting at s0. */
sht_err sht__run_start(const struct sht__node *n, uint32_t a, sht_time s0,
		       uint32_t i, sht_time *s);
/* RUNS: record i of the run [a, ...) of quark q starting at s0, whole. */
sht_err sht__run_rec(const struct sht__node *n, uint32_t q, uint32_t a,
		     sht_time s0, uint32_t i, struct sht__rec *r);
/* Flat: record i, whole. */
sht_err sht__flat_rec(const struct sht__node *n, uint32_t i,
		      struct sht__rec *r);
/* Flat: first record index whose quark is >= q (n if none). */
uint32_t sht__rec_lower_bound(const struct sht__node *n, uint32_t q);

/* Records in storage order (quark, start), from a flat index or a run. */
struct sht__cur {
	const struct sht__node *n;
	uint32_t i;             /* next record */
	uint32_t stop;          /* end of the flat range / of the run */
	int all;                /* go on with the next runs */
	/* RUNS only: */
	uint32_t run;           /* the current run */
	uint32_t first;         /* its first record */
	uint32_t quark;         /* its quark */
	sht_time s0;            /* its first record's start */
	uint32_t exc, xidx;     /* next exception and its record (or ~0) */
	int have_prev;          /* prev_end holds record i - 1's end */
	sht_time prev_end;
	int from_exc;           /* the last start came from an exception */
	uint32_t used_exc;      /* exceptions used so far */
};

/* Every record of the node. */
void sht__cur_all(struct sht__cur *c, const struct sht__node *n);
/* Flat: records [from, n).  RUNS: records [from, end of run r). */
void sht__cur_from(struct sht__cur *c, const struct sht__node *n,
		   uint32_t r, uint32_t from);
/* The next record: 1, 0 at the end, or SHT_ERR_CORRUPT. */
int sht__cur_next(struct sht__cur *c, struct sht__rec *r);

/* ---- 2D query inside a node (q2d.c) ---------------------------------- */

/* A 2D query as a node scan needs it: the sample grid (t1, t1 + r, ...
 * <= t2, and t2; r = 0: every time), the quarks (a sorted set of nsel
 * distinct quarks, or sel NULL: the range), and where kept records go
 * (record whole, its quark in the selection). */
struct sht__q2d {
	sht_time t1, t2, r;
	const sht_quark *sel;   /* sorted distinct, or NULL */
	size_t nsel;
	sht_quark qlo, qhi;     /* the range, or the set's first and last */
	/* The block the query reads after this node, if the caller knows
	 * where it is in memory (a mapped reader's), to ask for it ahead;
	 * NULL otherwise.  Only read through prefetches: never dereferenced. */
	const uint8_t *next;
	size_t next_len;
	sht_err (*keep)(void *ctx, const struct sht__node *n,
			const struct sht__rec *r);
	void *ctx;
};
/* Pass every record of node n that q keeps to q->keep, in storage order. */
sht_err sht__q2d_scan(const struct sht__node *n, const struct sht__q2d *q);
/* Can a subtree of quarks [qmin, qmax] hold a quark q selects? */
int sht__q2d_meets(const struct sht__q2d *q, uint32_t qmin, uint32_t qmax);

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

/* Check everything inside a parsed node (verify.c): records, runs,
 * tables, values.  blob (may be NULL) is called for each blob string.
 * @return SHT_OK, SHT_ERR_CORRUPT (message: the first problem), NOMEM. */
sht_err sht__node_verify(const struct sht__node *n,
			 void (*blob)(void *ctx, uint64_t first, uint64_t len),
			 void *ctx);

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

/* An entry pinned by sht__fetch; node valid until sht__release. */
struct sht__centry {
	struct sht__centry *hnext;   /* hash chain */
	uint64_t block;
	atomic_int refs;
	int ref_bit;                 /* CLOCK: recently used */
	/* A mapped reader's block read as a copy (past its budget,
	 * mapbudget.c): the entry is its caller's alone, freed at release. */
	int copy;
	struct sht__node node;
	uint8_t data[];              /* block_size bytes (none if mapped) */
};

struct sht__store {
	int fd;                 /* the history file */
	struct sht__geom geom;
	struct sht__cache *cache;
	_Atomic uint64_t block_count;   /* blocks readable now */
	_Atomic uint64_t visits, misses, bytes_read;
	/* Readers of a complete (immutable) history: one bit per block whose
	 * checksum passed since open; a block read again is not checksummed
	 * again.  NULL (builders): every read is checked. */
	_Atomic uint64_t *verified;
	/* Readers opened with opts.mapped: the whole file, mapped read-only
	 * (blocks are used in place); NULL otherwise. */
	const uint8_t *map;
	size_t map_len;
	/* A mapped reader's budget (sht_reader_opts.map_budget, mapbudget.c):
	 * one bit per window of the map (`window` bytes: a block, or the
	 * 64 KiB the kernel maps around a fault for smaller blocks) that a
	 * query touched since the last release, how many, and the bound in
	 * windows (0: none, touched is NULL). */
	_Atomic uint64_t *touched;
	_Atomic uint64_t ntouched;
	uint64_t budget_windows;
	uint32_t window;
	int path_known;
	char path[256];              /* for messages */
};

sht_err sht__cache_create(size_t bytes, uint32_t block_size,
			  struct sht__cache **out);
/* For a mapped reader: one slot per block, filled on first use, never
 * evicted (an entry is the decoded header, its block stays in the map). */
sht_err sht__cache_create_mapped(uint64_t blocks, struct sht__cache **out);

/* ---- budget of a mapped reader (mapbudget.c) ----------------------------- */

/* Set up st's budget: at most budget bytes of windows of `window` bytes
 * kept mapped (budget > 0). */
sht_err sht__map_budget_init(struct sht__store *st, uint64_t budget,
			     uint32_t window);
void sht__map_budget_free(struct sht__store *st);
/* May block blk (its slot entry e, NULL if none yet) be used in the map?
 * Yes if its window is counted, or is counted now (under the budget, or
 * e is a core node); no: read it as a copy (sht__map_copied after). */
int sht__map_keep(struct sht__store *st, uint64_t blk,
		  const struct sht__centry *e);
/* Block blk was read as a copy: a core node's window is counted (its
 * next fetch uses the map). */
void sht__map_copied(struct sht__store *st, uint64_t blk,
		     const struct sht__centry *e);
/* Every window is given back: forget the counts (before the madvise). */
void sht__map_forget(struct sht__store *st);
void sht__cache_destroy(struct sht__cache *c);
void sht__cache_drop(struct sht__cache *c);

/*
 * Pin the node at block blk, reading and validating it on a miss.  Pair
 * every successful fetch with one sht__release; until then the entry
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
/* The same on up to nthreads threads (q2d-par.c): disk roots only. */
sht_err sht__q_2d_threads(const struct sht__root *r, const sht_query2d *q,
			  unsigned nthreads, sht_result *res);

/* A cursor (util/cursor.c) over a 2D query of a finished tree, a node
 * at a time (query.c); SHT_ERR_STATE on a tree being built. */
sht_err sht__cursor_open(const struct sht__root *rt, const sht_query2d *q,
			 sht_cursor **out);

/* ---- open nodes (builder) ---------------------------------------------- */

/* An interval in an open node (32 bytes).  payload: int value, double
 * bits, or the string's heap offset (struct sht__rec's meaning). */
struct sht__oiv {
	sht_time start, end;
	uint64_t payload;
	uint32_t quark;
	uint8_t tag;
};

/*
 * Running counts of an open node (track.c).  They give the size of the
 * node in every layout in O(1) at every insert, so a node is closed
 * exactly when the next interval would not fit.  Times and int values are
 * biased (sht__bias) to compare as unsigned.
 */
struct sht__trk {
	/* Read or written at every insert. */
	uint32_t n;
	uint8_t types;               /* bit per tag present */
	uint8_t off;                 /* layouts ruled out: SHT__NFLAG_RUNS,
					ETAB, DICT */
	uint8_t obits;               /* end table: widest offset in a block */
	uint32_t qmin, qmax;
	uint32_t nruns;              /* distinct quarks */
	uint32_t nexc;               /* records not starting at the end + 1 of
					the previous record of their quark */
	uint32_t nends;              /* distinct ends */
	uint64_t smin, smax;
	uint64_t emin, emax;
	uint64_t dmin, dmax;         /* end - start */
	uint64_t vmin, vmax;         /* int values */
	uint64_t str_off_max;
	uint64_t elast;              /* largest end so far */
	uint64_t eblock;             /* first end of the end table's last
					block */
	/* Changed with a new distinct value. */
	uint32_t nvals;              /* distinct values */
	uint32_t dcount[SHT__TAG_COUNT]; /* distinct values per tag */
	uint64_t dlo[SHT__TAG_COUNT], dhi[SHT__TAG_COUNT]; /* their keys */
};

/* The layout of a node: what sht__trk_layout chose, what the encoder
 * writes (field names as in struct sht__node). */
struct sht__layout {
	uint8_t flags;
	uint8_t qbits, sbits, ebits, tbits, vbits, ibits, xbits, dbits, obits;
	uint32_t w;                  /* record width */
	uint64_t dict_bytes, etab_bytes, dir_bytes, exc_bytes, rec_bytes;
	uint64_t size;               /* header + child room + areas + heap */
};

/* Values seen in an open node (track.c), emptied by bumping gen. */
struct sht__vslot {                  /* a distinct value (DICT) */
	uint64_t payload;
	uint32_t gen;
	uint32_t rank_tag;           /* insertion rank (index into vals) << 3
					| tag */
};
struct sht__vsmall {                 /* a small value seen (DICT) */
	uint32_t gen;
	uint32_t rank;
};
struct sht__val {                    /* distinct values, insertion order */
	uint64_t payload;
	uint8_t tag;
};

struct sht__open {
	/* Read or written at every insert (track.c's fast path, insert.c):
	 * together, for the cache. */
	struct sht__trk trk;
	struct sht__oiv *iv;         /* n = trk.n records, cap allocated */
	/* The fast path of the size accounting (track.c): the node fits
	 * while each record takes at most inc of the left bytes and changes
	 * no width of the layout last computed (lflags, lvbits: its flags and
	 * value width).  Limits: counts to stop at, and exclusive upper
	 * limits of the fields (biased as in trk; the lower ones are trk's
	 * minima). */
	uint64_t inc, left;
	uint64_t lim_q, lim_s, lim_e, lim_v;
	uint64_t lim_o;              /* an end's offset in its table block */
	uint32_t n_lim, ends_lim;
	uint8_t lflags, lvbits;
	uint32_t gen;                /* current generation of the value tables */
	/* The quarks of the node (RUNS) and the ends of their latest records
	 * (track.c, "quarks"). */
	uint32_t *qdirect;           /* quarks below 16384, by quark */
	uint64_t *qtab;              /* the others, hashed */
	uint32_t qmask;
	uint32_t qtab_n;             /* quarks in qtab */
	uint32_t qroom;              /* quarks qtab holds before growing */
	uint32_t qused_n, qused_cap;
	uint32_t *qused;             /* slots in use, emptied at reset */
	struct sht__vsmall *vsmall;  /* values (DICT): null and int32 0 .. 1023,
					by value */
	struct sht__vslot *vtab;     /* values (DICT), hashed */
	uint32_t vmask;
	uint32_t vtab_n;             /* values in vtab */
	uint32_t sub_qmin, sub_qmax; /* quarks of records + closed subtree */
	sht_time start;
	uint32_t cap;
	uint32_t heap_len, heap_cap;
	/* The rest. */
	uint8_t kind;
	uint32_t level;
	uint64_t seq;
	uint8_t *heap;               /* string entries, as on disk */
	uint32_t *dedup;             /* heap offset + 1 by string hash */
	uint32_t dedup_mask, dedup_count;
	struct sht__val *vals;       /* trk's distinct values by rank */
	uint32_t vals_cap;
	struct sht__layout lay;      /* the layout last computed (n > 0) */
	struct sht__child *ch;       /* closed children, max_children room */
	uint32_t nc;
};

static inline uint64_t sht__bias(sht_time t)
{
	return (uint64_t)t ^ (UINT64_C(1) << 63);
}

static inline sht_time sht__unbias(uint64_t u)
{
	return (sht_time)(u ^ (UINT64_C(1) << 63));
}

/* A value's order in the dictionary, within its tag: ints biased to
 * compare as unsigned, a double's bits, a string's heap offset, 0 for
 * null.  The dictionary stores key - the tag's smallest key. */
static inline uint64_t sht__value_key(uint8_t tag, uint64_t payload)
{
	if (tag == SHT__TAG_INT32 || tag == SHT__TAG_INT64)
		return sht__bias((sht_time)payload);
	return tag == SHT__TAG_NULL ? 0 : payload;
}

/* Empty o's counts and tables (a node reset). */
void sht__open_track_reset(struct sht__open *o);
/* The insertion rank of a distinct value of o (tracked: not DICT-off). */
uint32_t sht__open_value_rank(const struct sht__open *o, uint8_t tag,
			      uint64_t payload);
/* Free the tables (not o). */
void sht__open_track_free(struct sht__open *o);
/*
 * Add r to o if o still fits a block of block_size bytes with it and
 * heap_add more heap bytes (a core node keeping room for max_children
 * child entries): r is appended to o->iv, its slots set, the counts
 * updated.  Exact: a size bound decides when it can, else the layout.
 * @return 1 (added), 0 (no room: o unchanged), SHT_ERR_NOMEM.
 */
int sht__open_add(struct sht__open *o, const struct sht__oiv *r,
		  uint32_t heap_add, uint32_t max_children,
		  uint32_t block_size);
/* Choose the smallest layout for the counts t: the node's bytes with its
 * heap and, for a core node, room for max_children child entries. */
void sht__trk_layout(const struct sht__trk *t, uint8_t kind,
		     uint32_t max_children, uint32_t heap_len,
		     struct sht__layout *out);

/* Working memory of the encoder, kept between nodes (a fresh allocation
 * of this size per node costs page faults). */
struct sht__scratch {
	void *p;
	size_t cap;
};

/* Encode o (sorting its records) into blk (block_size bytes) as block
 * number self, with end time end; s (NULL: the encoder's own, freed) is
 * working memory, reused from node to node.  @return SHT_OK, or
 * SHT_ERR_NOMEM, or SHT_ERR_INVALID if o's records disagree with its
 * counts (a bug: the block would not be what was accounted for). */
sht_err sht__open_encode(struct sht__open *o, uint64_t self, sht_time end,
			 const struct sht__geom *g, struct sht__scratch *s,
			 uint8_t *blk);

#endif /* SHT_STORE_INT_H */
