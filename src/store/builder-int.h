/*
 * builder-int.h: the builder's state, shared by builder.c (tree shape)
 * and insert.c (interval placement, strings).
 */
#ifndef SHT_BUILDER_INT_H
#define SHT_BUILDER_INT_H

#include "store/store-int.h"


struct sht_builder {
	struct sht__store st;        /* fd, geometry, cache for live queries */
	pthread_mutex_t lock;        /* insert, finish and live queries */
	bool no_sync;
	int failed;                  /* sticky: an I/O or memory error */
	int finished;
	int serialised;              /* sht_builder_set_serialised: no lock */
	sht_time start_time;
	sht_time tree_end;           /* largest end inserted so far */
	_Atomic sht_time pub_end;    /* tree_end, readable without the lock */
	int any;                     /* an interval was inserted */
	uint32_t depth;
	struct sht__open **branch;    /* depth entries, [0] = root */
	uint32_t branch_cap;
	struct sht__child root_entry; /* set when the root closes */
	uint64_t next_block, next_seq, nodes, intervals;
	uint32_t quark_max;
	uint8_t *blk;                /* block_size encode buffer */
	struct sht__scratch scratch; /* the encoder's working memory */
	struct sht__pipe *pipe;      /* threaded: the pipeline */
	struct sht__section sections[SHT__SECTION_SLOTS];
	uint32_t nsections;
};

/* builder.c: options with their defaults resolved, and checked; the
 * builder's memory (one empty leaf) for opts; the header, complete or
 * not, written; the file synced (unless no_sync).  For create and
 * resume (resume.c). */
sht_builder_opts sht__b_resolve_opts(const sht_builder_opts *in);
sht_err sht__b_check_opts(const sht_builder_opts *o);
sht_err sht__b_init(struct sht_builder *b, const sht_builder_opts *o);
sht_err sht__b_write_header(struct sht_builder *b, int complete, sht_time end);
sht_err sht__b_sync(struct sht_builder *b);

/* insert.c: rebuild open node o (reset to its kind, level, seq and start)
 * from its records recs[0..n) in insertion order and its heap bytes, as
 * the inserts built it.  SHT_ERR_CORRUPT if they do not fit as before. */
sht_err sht__open_restore(struct sht_builder *b, struct sht__open *o,
			  const struct sht__oiv *recs, uint32_t n,
			  const uint8_t *heap, uint32_t heap_len);

/* Write len bytes at block number blk; marks the builder failed on error. */
sht_err sht__b_write(struct sht_builder *b, const void *buf, size_t len,
		     uint64_t blk);

/* Write len bytes as a blob or section (kind) at the next free blocks. */
sht_err sht__b_write_blob(struct sht_builder *b, uint8_t kind, const void *s,
			 uint64_t len, uint64_t *first);

/* Insert with the lock held and the interval validated. */
sht_err sht__b_place(struct sht_builder *b, const sht_interval *iv);

/* The threaded pipeline (pipeline.c). */
sht_err sht__pipe_start(struct sht_builder *b);
void sht__pipe_stop(struct sht_builder *b);
sht_err sht__pipe_insert(struct sht_builder *b, const sht_interval *iv);
/* A threaded builder that failed (b->failed set by its threads): the
 * threads' error for the first caller told (I/O, memory: as the
 * single-threaded call that failed would have returned), SHT_ERR_STATE
 * after; the message names the cause.  what: "add a section", ... */
sht_err sht__pipe_failed(struct sht_builder *b, const char *what);
/* Hand the inserting thread's partial batch over. */
void sht__pipe_flush(struct sht_builder *b);
/* With b->lock held: everything accepted is placed and written. */
sht_err sht__pipe_drain(struct sht_builder *b);
/* With b->lock held: a fresh open node, and handing a closed one over. */
struct sht__open *sht__pipe_spare(struct sht_builder *b);
sht_err sht__pipe_close(struct sht_builder *b, struct sht__open *o,
			uint64_t block, sht_time end);

/* Open-node lifecycle. */
struct sht__open *sht__open_new(uint32_t max_children);
void sht__open_free(struct sht__open *o);
void sht__open_reset(struct sht__open *o, uint8_t kind, uint32_t level,
		     uint64_t seq, sht_time start);

/* Close every node below level (and level itself), deepest first, at end.
 * Closed children are linked into their parents. */
sht_err sht__b_close_from(struct sht_builder *b, uint32_t level, sht_time end);
/* Start a new branch at level (splitting higher if parents are full). */
sht_err sht__b_add_sibling(struct sht_builder *b, uint32_t level,
			   sht_time start);

#endif /* SHT_BUILDER_INT_H */
