/*
 * reuse.h: when an existing history file may stand for a build that
 * would produce it again (`sht build` and `sht serve` share this rule).
 * Front-end code on the public API only (<sht/sht.h>): linked into the
 * sht tool and the server alike.
 */
#ifndef SHT_FRONT_REUSE_H
#define SHT_FRONT_REUSE_H

#include <stdint.h>

#include <sht/sht.h>

/* The events between checkpoints of a history (0: a full history), or -1
 * if the file cannot be read. */
int64_t fe_partial_every(const char *file);

/* 1 if file is not older than any file of the trace at trace_path (a
 * VSTF file: itself; a directory: every regular file below it). */
int fe_newer(const char *file, const char *trace_path);

/*
 * Whether file is a complete history that running the provider (id,
 * version) over the trace at trace_path would produce again: provider id
 * and version equal, the same kind (full, or partial with `partial`
 * events between checkpoints), starting at the trace's first event
 * first_ts, written with nodes of block_size bytes (the node size
 * decides what a query reads: a history of another size is rebuilt), and
 * not older than any file of the trace (metadata, streams, index; a VSTF
 * file: itself).  Returns 1 (reusable; *ss, if ss is not NULL, is the
 * opened history for the caller to close), else 0 (*ss NULL).
 */
int fe_reusable(const char *file, const char *trace_path, const char *id,
		uint32_t version, sht_time first_ts, uint64_t partial,
		uint32_t block_size, sht_state **ss);

#endif /* SHT_FRONT_REUSE_H */
