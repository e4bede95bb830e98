/*
 * tree.h: the state history tree, an on-disk interval store.
 *
 * A history file holds intervals (quark, start, end, value) in fixed-size
 * blocks organised as a tree (docs/FORMAT.md).  It is written once, in one
 * pass, by a builder that receives intervals in non-decreasing end time, and
 * then read by any number of readers.  Two variants exist, chosen per file:
 * the classic State History Tree of the 2011 thesis (SHT) and the enhanced
 * tree of the 2017 paper (eSHT, the default), whose overlapping siblings
 * keep nodes full and the tree shallow when many attributes live long.
 *
 * This layer knows nothing of attribute names, traces or providers.
 */
#ifndef SHT_TREE_H
#define SHT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sht_variant {
	SHT_VARIANT_SHT = 0,   /* classic: siblings disjoint in time */
	SHT_VARIANT_ESHT = 1,  /* enhanced: siblings overlap, quark ranges */
} sht_variant;

#define SHT_BLOCK_SIZE_MIN 1024u
#define SHT_BLOCK_SIZE_MAX (16u * 1024u * 1024u)
#define SHT_DEFAULT_BLOCK_SIZE (64u * 1024u)
#define SHT_DEFAULT_MAX_CHILDREN 50u

/* ---- building ---------------------------------------------------------- */

typedef struct sht_builder_opts {
	sht_variant variant;    /* default SHT_VARIANT_ESHT */
	uint32_t block_size;    /* power of two, 1 KiB .. 16 MiB; 0: 64 KiB */
	uint32_t max_children;  /* >= 2, 32 bytes each must fit in half a
	                           block; 0: 50, or fewer if the block is small */
	bool no_sync;           /* skip fsync at close (tests, benches) */
	bool threaded;          /* place intervals and encode/write nodes on
	                           two threads of their own (same file) */
} sht_builder_opts;

/* Fill opts with the defaults. */
SHT_API void sht_builder_opts_init(sht_builder_opts *opts);

typedef struct sht_builder sht_builder;

/*
 * Create (truncate) the file at path and start a history at start_time.
 * opts may be NULL for the defaults.  The file is marked incomplete until
 * sht_builder_finish succeeds: a crash leaves a file readers refuse.
 * @return SHT_OK (*out set), SHT_ERR_INVALID, SHT_ERR_IO, SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_builder_create(const char *path, sht_time start_time,
				   const sht_builder_opts *opts,
				   sht_builder **out);

/*
 * Insert one interval.  Intervals arrive in non-decreasing end time, with
 * start_time <= start <= end.  The value (and its string) is copied.
 * @return SHT_OK; SHT_ERR_ORDER, SHT_ERR_INVALID or SHT_ERR_TOOBIG for a
 *         refused interval (the builder stays usable); SHT_ERR_IO or
 *         SHT_ERR_NOMEM (the builder becomes failed); SHT_ERR_STATE if the
 *         builder failed earlier or is finished.
 */
SHT_API sht_err sht_builder_insert(sht_builder *b, const sht_interval *iv);

/*
 * Promise that every call on b (inserts, live queries, finish) comes from
 * one thread at a time, serialised by the caller (as a state system does
 * with its own lock): single-threaded builders then insert without taking
 * their lock.  Call it before the first insert; a no-op for threaded
 * builders, whose inserting thread takes no lock anyway.
 */
SHT_API void sht_builder_set_serialised(sht_builder *b);

/*
 * Close every open node at end_time (>= every inserted end), write them,
 * sync, and mark the file complete.  After this only queries and
 * sht_builder_close are valid.
 */
SHT_API sht_err sht_builder_finish(sht_builder *b, sht_time end_time);

/* Longest section, in bytes. */
#define SHT_SECTION_MAX (UINT64_C(1) << 32)

/*
 * Store an opaque section (the layers above the store use them for the
 * attribute tree, the provider's identity, checkpoints).  kind > 0 names
 * it, at most one per kind and 8 per file; version is the caller's.  The
 * bytes are written now and found again by sht_reader_section.
 * @return SHT_OK, SHT_ERR_INVALID (kind 0, taken, no slot, too long),
 *         SHT_ERR_IO, SHT_ERR_NOMEM, SHT_ERR_STATE.
 */
SHT_API sht_err sht_builder_add_section(sht_builder *b, uint32_t kind,
					uint32_t version, const void *data,
					size_t len);

/*
 * Resumable builds.  Everything a builder holds that its file does not
 * (counters, sections' table, the open branch: at most one node per
 * level, as its records in insertion order and its strings) into *data
 * (malloc'd, *len bytes): sht_builder_resume continues from it, in this
 * process or another, to the same file byte for byte.  A threaded builder
 * places and writes what it accepted first.  Call it from the inserting
 * thread, between inserts.  The blocks the checkpoint counts are in the
 * file but maybe not yet on the disk: sht_builder_sync (fsync; from any
 * thread, while the build goes on) before keeping data as durable.
 * @return SHT_OK; SHT_ERR_STATE (failed or finished builder);
 *         SHT_ERR_NOMEM; an I/O error of a threaded builder.
 */
SHT_API sht_err sht_builder_checkpoint(sht_builder *b, void **data,
				       size_t *len);
SHT_API sht_err sht_builder_sync(sht_builder *b);

/*
 * Continue the build of the file at path from a checkpoint of its
 * builder: the file is cut after the blocks the checkpoint counts (blocks
 * written after it are written again) and the builder is as it was, ready
 * for the next insert.  opts must give the same variant, block size and
 * child count (threaded and no_sync may differ).
 * @return SHT_OK (*out set); SHT_ERR_IO (path cannot be opened or cut);
 *         SHT_ERR_CORRUPT (data damaged, or the file shorter than the
 *         blocks it counts); SHT_ERR_INVALID (other geometry); SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_builder_resume(const char *path, const void *data,
				   size_t len, const sht_builder_opts *opts,
				   sht_builder **out);

/* Free the builder.  If it was not finished, the file stays incomplete
 * (readers refuse it).  NULL is a no-op. */
SHT_API void sht_builder_close(sht_builder *b);

/*
 * Threaded builders (opts.threaded): intervals reach the pipeline in batches,
 * and queries from other threads see the batches handed over so far (up to
 * sht_builder_current_end()).  Flush hands the current partial batch over:
 * call it from the inserting thread, or while that thread is known not to
 * be inserting.  A no-op for single-threaded builders.
 */
SHT_API void sht_builder_flush(sht_builder *b);

/* Largest end time inserted so far (start_time if none); for a threaded
 * builder, of the intervals handed to the pipeline. */
SHT_API sht_time sht_builder_current_end(const sht_builder *b);

/* ---- reading ----------------------------------------------------------- */

/*
 * mapped: map the file read-only (mmap) and use its node blocks in place:
 * no copy into a node cache, no allocation per block read; cache_bytes is
 * then unused (the reader keeps a decoded header of every node it used,
 * about 350 bytes each, plus 8 bytes per block of the file).  Checksums
 * are still checked once per block, on its first use, and every block
 * number is still checked against the block count read at open.  Only
 * complete histories open (as without the option), and the file's size
 * must match its header, so the map covers the whole history.
 *   The catch: while the reader is open, the file must not be truncated
 * or rewritten in place (replacing it by rename is fine: the reader keeps
 * the old file).  Truncated under a mapped reader, the next touch of a
 * page past the new end raises SIGBUS and ends the process; rewritten in
 * place, queries may see blocks whose checksums were checked before the
 * change.  Use it for files the process controls (the server's cache);
 * the default, pread into the cache, only ever returns errors.
 *   Pages the queries touch count in the process's RSS (as file pages,
 * RssFile) until sht_reader_release_pages or the reader is closed: the
 * kernel maps a whole block (64 KiB around the touch for smaller blocks)
 * per block a query reads.  map_budget bounds them: once the blocks
 * used in the map since the last release reach map_budget bytes, each
 * further leaf is read with pread into memory of the query's own (freed
 * when the query is done with it) instead of being mapped, while core
 * nodes (every query's way down) are mapped whatever the count.  The
 * blocks kept are the first ones used, so a query repeated over the same
 * blocks copies only those past the budget (about 10 us per 64 KiB
 * block).  The mapped bytes stay under map_budget plus the core nodes
 * past it (64 KiB more per thread at most, racing at the bound).
 */
typedef struct sht_reader_opts {
	size_t cache_bytes;     /* node cache bound; 0: 256 MiB */
	bool mapped;            /* map the file (see above); default false */
	size_t map_budget;      /* mapped: bytes kept mapped (below); 0: no bound */
} sht_reader_opts;

/* Fill opts with the defaults (a 256 MiB node cache, not mapped, no map
 * budget). */
SHT_API void sht_reader_opts_init(sht_reader_opts *opts);

typedef struct sht_reader sht_reader;

/*
 * Open a complete history file.  opts may be NULL.
 * @return SHT_OK (*out set); SHT_ERR_IO (cannot open or read);
 *         SHT_ERR_CORRUPT (not a history file, bad checksum, bad header);
 *         SHT_ERR_VERSION (newer format); SHT_ERR_INCOMPLETE (never
 *         finished); SHT_ERR_NOMEM.  sht_errmsg() says why.
 */
SHT_API sht_err sht_reader_open(const char *path, const sht_reader_opts *opts,
				sht_reader **out);
SHT_API void sht_reader_close(sht_reader *r);       /* NULL is a no-op */

/* ---- header and statistics -------------------------------------------- */

typedef struct sht_tree_info {
	sht_variant variant;
	uint32_t format_version;
	uint32_t block_size;
	uint32_t max_children;
	uint32_t depth;           /* levels; 1 = the root is a leaf */
	uint64_t nodes;           /* node blocks (leaves + core) */
	uint64_t blocks;          /* all blocks: nodes, string blobs, sections */
	uint64_t intervals;
	uint64_t quark_count;     /* 1 + largest quark stored (0 if none) */
	sht_time start;
	sht_time end;
	uint64_t file_bytes;
} sht_tree_info;

SHT_API void sht_reader_info_get(const sht_reader *r, sht_tree_info *out);

/*
 * Read the section of this kind: *data gets a malloc'd copy (free it), *len
 * its length, *version the writer's version (any of the three may be NULL
 * except data).  @return SHT_OK, SHT_NOT_FOUND, SHT_ERR_CORRUPT (checksum
 * or layout), SHT_ERR_IO, SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_reader_section(sht_reader *r, uint32_t kind,
				   uint32_t *version, void **data, size_t *len);

#define SHT_TREE_STATS_MAX_LEVELS 256

typedef struct sht_tree_level_stats {
	uint64_t nodes;
	uint64_t intervals;
	uint64_t used_bytes;      /* bytes of the blocks in use (not padding) */
} sht_tree_level_stats;

typedef struct sht_tree_stats {
	uint64_t leaf_nodes, core_nodes;
	uint64_t blob_blocks;     /* blocks of long string values */
	uint64_t section_blocks;  /* blocks of sections (attribute tree, ...) */
	uint64_t leaf_used_bytes, core_used_bytes;
	double fill_leaf;         /* used bytes / block bytes over leaves */
	double fill_core;         /* same over core nodes (0 if none) */
	double bytes_per_interval;/* file bytes / intervals */
	uint32_t levels;          /* tree levels; level[] itemises the first
	                             SHT_TREE_STATS_MAX_LEVELS of them, 0 = leaves */
	sht_tree_level_stats level[SHT_TREE_STATS_MAX_LEVELS];
} sht_tree_stats;

/* Walk every node's header (reads the whole tree once). */
SHT_API sht_err sht_reader_stats_get(sht_reader *r, sht_tree_stats *out);

/*
 * Integrity walk: every block's checksum and structure, every interval
 * inside its node, every node inside its parent, child summaries equal to
 * the children, records sorted, every block reachable exactly once, padding
 * zero, counts equal to the header.  Problems are reported through report
 * (may be NULL), one line each, at most max_reports of them.
 * @return SHT_OK if sound, SHT_ERR_CORRUPT if not, or an I/O error.
 */
typedef void (*sht_report_fn)(void *ctx, const char *msg);
SHT_API sht_err sht_reader_check(sht_reader *r, sht_report_fn report,
				 void *ctx, unsigned max_reports);

/* ---- queries ----------------------------------------------------------- */
/*
 * Queries are safe from many threads at once on one reader (each with its
 * own sht_result).  They also run on a builder, over everything inserted so
 * far, from another thread while it builds: the state at t is exact for
 * every t <= sht_builder_current_end().
 *
 * Every query clears res first, then fills it.
 */

/* The interval of quark q containing t: one item, or SHT_NOT_FOUND. */
SHT_API sht_err sht_reader_query(sht_reader *r, sht_quark q, sht_time t,
				 sht_result *res);
SHT_API sht_err sht_builder_query(sht_builder *b, sht_quark q, sht_time t,
				  sht_result *res);

/* For every quark, the interval containing t, in quark order; quarks with
 * no interval at t are absent. */
SHT_API sht_err sht_reader_query_full(sht_reader *r, sht_time t,
				      sht_result *res);
SHT_API sht_err sht_builder_query_full(sht_builder *b, sht_time t,
				       sht_result *res);

/*
 * 2D query: the intervals of the selected quarks that intersect [t1, t2],
 * ordered by (start, quark), or by (quark, start) if order is
 * SHT_ORDER_QUARK.  Quarks are either the n values in quarks[] (any
 * order, duplicates ignored) or, if quarks is NULL, the range
 * [qmin, qmax].  With resolution r > 0 only the intervals that contain
 * one of the sample times t1, t1 + r, t1 + 2r, ... <= t2, or t2 itself,
 * are kept: what a timeline view of that many pixels needs.
 *
 * The order changes nothing but the order: the same intervals either
 * way, and the same cost.  SHT_ORDER_QUARK suits a caller that walks one
 * quark at a time (a time-graph row): each quark's intervals are
 * together, in time order.  Zero the struct (memset, or = { 0 } and
 * then the fields) so that order and fields added later keep their
 * defaults; another value of order is SHT_ERR_INVALID.
 */
typedef enum sht_order {
	SHT_ORDER_TIME = 0,       /* by (start, quark): the default */
	SHT_ORDER_QUARK = 1,      /* by (quark, start) */
} sht_order;

typedef struct sht_query2d {
	const sht_quark *quarks;
	size_t n_quarks;
	sht_quark qmin, qmax;
	sht_time t1, t2;
	sht_time resolution;      /* 0: every interval */
	sht_order order;          /* SHT_ORDER_TIME (0) or SHT_ORDER_QUARK */
} sht_query2d;

SHT_API sht_err sht_reader_query_2d(sht_reader *r, const sht_query2d *q,
				    sht_result *res);
SHT_API sht_err sht_builder_query_2d(sht_builder *b, const sht_query2d *q,
				     sht_result *res);

/*
 * sht_reader_query_2d on up to nthreads threads, the calling one
 * included: the sample times are cut into runs of consecutive samples,
 * one per thread, each answered through the reader's shared cache, and
 * the answers joined (an interval holding samples of two runs is kept
 * once): the same intervals in the same order as sht_reader_query_2d
 * (either order).
 * With resolution 0, nthreads <= 1, or fewer than 64 samples a thread,
 * the calling thread answers alone.  Worth it for a big sampled query (a
 * time-graph screen over a whole history of millions of intervals); a
 * thread is started per extra run.  Errors as sht_reader_query_2d, and
 * SHT_ERR_NOMEM if a thread cannot be started.
 */
SHT_API sht_err sht_reader_query_2d_threads(sht_reader *r, const sht_query2d *q,
					    unsigned nthreads, sht_result *res);

/*
 * Cursors: a 2D query answered a piece at a time, for answers too big to
 * hold at once (a scan of a whole history, an SQL table function).  Each
 * sht_cursor_next clears res and fills it with the next piece: the
 * matching intervals of the next node(s) of the tree, at least one, or
 * returns SHT_END when all were handed out.  Together the pieces are
 * exactly the intervals of the same 2D query, each once, but in no
 * particular order (the tree's) where sht_reader_query_2d sorts by
 * (start, quark).  A cursor holds a stack of the nodes left to visit
 * and reads through its reader, which must outlive it; it is used by
 * one thread at a time, and many cursors may run on one reader at once.
 * After an error (a damaged node) it ends: next returns SHT_END.
 */
typedef struct sht_cursor sht_cursor;

/* @return SHT_OK (*out set), SHT_ERR_INVALID (as sht_reader_query_2d),
 *         SHT_ERR_NOMEM. */
SHT_API sht_err sht_reader_cursor_create(sht_reader *r, const sht_query2d *q,
					 sht_cursor **out);
/* @return SHT_OK (res holds >= 1 interval), SHT_END, or an error. */
SHT_API sht_err sht_cursor_next(sht_cursor *c, sht_result *res);
SHT_API void sht_cursor_destroy(sht_cursor *c);     /* NULL is a no-op */

/* Counters of the calling reader, for benchmarks: node visits (cache hits
 * plus misses), cache misses (block reads), since open. */
typedef struct sht_reader_counters {
	uint64_t node_visits;
	uint64_t cache_misses;
	uint64_t bytes_read;
} sht_reader_counters;

SHT_API void sht_reader_counters_get(const sht_reader *r,
				     sht_reader_counters *out);

/* Drop every unpinned node from the cache, forget which blocks' checksums
 * were verified, and ask the kernel to drop the file's cached pages
 * (posix_fadvise DONTNEED): the next queries are cold.  A mapped reader
 * also forgets its decoded nodes and releases its pages: there, do not
 * call it while another thread queries the reader. */
SHT_API void sht_reader_drop_caches(sht_reader *r);

/* Mapped reader: give back the process's mappings of the file's pages
 * (madvise MADV_DONTNEED: they leave its RSS, the kernel's page cache
 * keeps them, the next query maps them again at a minor fault each).
 * Safe while other threads query.  A no-op for a reader that is not
 * mapped. */
SHT_API void sht_reader_release_pages(sht_reader *r);

/* true if r was opened with opts.mapped. */
SHT_API bool sht_reader_mapped(const sht_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SHT_TREE_H */
