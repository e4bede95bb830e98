/*
 * vstf.h: VSTF, the "Very Simple Trace Format" of the thesis's Annex B
 * (version 2: names, typed fields, environment, index, checksums; the
 * byte layout is in docs/VSTF.md).  A writer copies any source with named
 * fields (a CTF trace through sht_ctf_env_entry / sht_ctf_event_fields)
 * into a file; a reader delivers it back as a source:
 *
 *   ts, cpu, name   as written
 *   pos             the event's ordinal (0, 1, 2, ...)
 *   field           the fields written, by name (strings valid until the
 *                   source's next call)
 *   data            NULL
 *
 * A handle is used by one thread at a time.
 */
#ifndef SHT_VSTF_H
#define SHT_VSTF_H

#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/source.h"
#include "sht/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHT_VSTF_VERSION 2u

/* ---- writing ------------------------------------------------------------ */

typedef struct sht_vstf_writer sht_vstf_writer;

typedef struct sht_vstf_write_opts {
	uint32_t index_every;     /* events between index entries; 0: 4096 */
	/* Environment entry of the given index of src (as sht_ctf_env_entry:
	 * SHT_NOT_FOUND past the last); NULL: no environment. */
	sht_err (*env_entry)(const sht_source *src, uint64_t index,
			     const char **name, sht_field *out);
	/* Every field of ev, in order, to fn (as sht_ctf_event_fields);
	 * NULL: events without fields. */
	sht_err (*event_fields)(const sht_event *ev, sht_field_fn fn,
				void *ctx);
} sht_vstf_write_opts;

/* Defaults: index every 4096 events, no environment, no fields. */
SHT_API void sht_vstf_write_opts_init(sht_vstf_write_opts *opts);

/* What a write did. */
typedef struct sht_vstf_write_stats {
	uint64_t events;
	uint64_t fields;
	uint64_t bytes;           /* file size */
	uint64_t event_names;
	uint64_t field_names;
} sht_vstf_write_stats;

/*
 * Low-level writer: create (the file is truncated), add the environment
 * entries, then for each event begin, its fields, end; finish writes the
 * tables and the trailer.  Each function returns SHT_OK or an error (the
 * writer then fails every later call but destroy).  destroy without a
 * successful finish removes the file.
 */
SHT_API sht_err sht_vstf_writer_create(const char *path, uint32_t index_every,
				       sht_vstf_writer **out);
SHT_API sht_err sht_vstf_writer_env(sht_vstf_writer *w, const char *name,
				    const sht_field *value);
SHT_API sht_err sht_vstf_writer_begin(sht_vstf_writer *w, sht_time ts,
				      int32_t cpu, const char *name);
/* Signature of sht_field_fn, so it can be given to an enumerator with the
 * writer as ctx. */
SHT_API sht_err sht_vstf_writer_field(void *w, const char *name,
				      const sht_field *value);
SHT_API sht_err sht_vstf_writer_end(sht_vstf_writer *w);
SHT_API sht_err sht_vstf_writer_finish(sht_vstf_writer *w,
				       sht_vstf_write_stats *stats);
SHT_API void sht_vstf_writer_close(sht_vstf_writer *w);

/*
 * Copy every event of src from where it stands to its end into the VSTF
 * file path, with the environment and the fields opts says how to get
 * (opts may be NULL: defaults).  On failure the file is removed.
 * stats may be NULL.
 */
SHT_API sht_err sht_vstf_write(const sht_source *src, const char *path,
			       const sht_vstf_write_opts *opts,
			       sht_vstf_write_stats *stats);

/* ---- reading ------------------------------------------------------------ */

/*
 * Open the VSTF file path as a source in *out, before its first event
 * (every check of docs/VSTF.md "Reading" is done here or on entering an
 * index block).  @return SHT_OK; SHT_ERR_IO; SHT_ERR_INCOMPLETE (no
 * trailer: truncated, or never finished); SHT_ERR_VERSION; SHT_ERR_CORRUPT;
 * SHT_ERR_NOMEM.  next() returns SHT_OK, SHT_END or SHT_ERR_CORRUPT; a
 * failed source answers SHT_ERR_STATE to everything but close.
 */
SHT_API sht_err sht_vstf_open(const char *path, sht_source *out);

/* Free the source and zero *src.  NULL, or a zeroed source, is a no-op. */
SHT_API void sht_vstf_close(sht_source *src);

/* Event count, index interval and entries of an open VSTF source. */
typedef struct sht_vstf_info {
	uint64_t events;
	uint64_t bytes;
	uint32_t version;
	uint64_t index_every;
	uint64_t index_entries;
	uint64_t event_names;
	uint64_t field_names;
	uint64_t env_entries;
} sht_vstf_info;

/* SHT_ERR_INVALID if src is not a VSTF source. */
SHT_API sht_err sht_vstf_info_get(const sht_source *src, sht_vstf_info *out);

/* Environment entry by name / by index, as sht_ctf_env / sht_ctf_env_entry
 * (strings valid until sht_vstf_close).  SHT_NOT_FOUND if absent. */
SHT_API sht_err sht_vstf_env(const sht_source *src, const char *name,
			     sht_field *out);
SHT_API sht_err sht_vstf_env_entry(const sht_source *src, uint64_t index,
				   const char **name, sht_field *out);

/* Every field of an event delivered by a VSTF source, in file order. */
SHT_API sht_err sht_vstf_event_fields(const sht_event *ev, sht_field_fn fn,
				      void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SHT_VSTF_H */
