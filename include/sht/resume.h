/*
 * resume.h: resumable builds on disk.  A build that dies (killed, out of
 * disk, interrupted) leaves its history file unfinished; with a resume
 * file beside it, holding the build's latest checkpoint, the same build
 * started again goes on from there instead of from the first event, and
 * ends with the file an uninterrupted build gives, byte for byte.
 *
 * A checkpoint is taken between two events of different times (the run
 * hook of sht_state_run_hook), in two steps so that the build does not
 * wait for the disk:
 *
 *   sht_resume_capture   on the building thread: the state system's
 *                        checkpoint (sht_state_checkpoint), the provider's
 *                        state (sht_provider.save), the source position
 *                        of the next event and the caller's counters
 *   sht_resume_commit    on any thread, while the build goes on: syncs
 *                        the history file (so the blocks the checkpoint
 *                        counts are on the disk), then writes the resume
 *                        file durably and atomically (a temporary file,
 *                        fsync, rename, fsync of the directory)
 *
 * and to go on:
 *
 *   sht_resume_open      reads a resume file, checks its checksum and
 *                        that it belongs to this build (the caller's
 *                        identity bytes: trace, options, ...)
 *   sht_resume_start     resumes the state system on the history file and
 *                        the provider (sht_provider.load), and says where
 *                        the source goes on (seek_at(pos, ts)).
 *
 * Resume file (little-endian): "SHTRESUM", version 1, the identity, the
 * next event's position and time, 8 counters of the caller, the provider's
 * state, the state system's checkpoint (each a u64 length and its bytes),
 * and a CRC-32C of all that.
 */
#ifndef SHT_RESUME_H
#define SHT_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/source.h"
#include "sht/state.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sht_resume_info {
	uint64_t pos;             /* the next event's source position */
	sht_time ts;              /* its time (no earlier event is left) */
	uint64_t counters[8];     /* the caller's (events so far, ...) */
} sht_resume_info;

typedef struct sht_resume sht_resume;

/*
 * Take a checkpoint of the build of ss by provider p (p->save, if any),
 * for the next event at info->pos / info->ts; ident (ident_len bytes)
 * identifies the build.  Between events, on the building thread.
 * @return SHT_OK (*out set); sht_state_checkpoint's and p->save's errors.
 */
SHT_API sht_err sht_resume_capture(sht_state *ss, const sht_provider *p,
				   const void *ident, size_t ident_len,
				   const sht_resume_info *info, sht_resume **out);

/*
 * Sync ss's history file, then write r to path durably (through
 * path.tmp and a rename).  From any thread, while ss goes on building (not
 * closed).  @return SHT_OK; SHT_ERR_IO (path or the history file).
 */
SHT_API sht_err sht_resume_commit(const sht_resume *r, sht_state *ss,
				  const char *path);

/*
 * Read the resume file at path, and check that it is whole and made for
 * ident.  @return SHT_OK (*out set); SHT_NOT_FOUND (no file);
 * SHT_ERR_CORRUPT (damaged: checksum, layout); SHT_ERR_INVALID (another
 * build's: its identity differs); SHT_ERR_IO; SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_resume_open(const char *path, const void *ident,
				size_t ident_len, sht_resume **out);

/*
 * Resume the build of the history file at history from r (opened or
 * captured): the state system into *ss (sht_state_resume with opts), the
 * provider p (p->load), and *info: where the source goes on and the
 * caller's counters.  @return SHT_OK; sht_state_resume's and p->load's
 * errors (SHT_ERR_CORRUPT if p has no load but state was saved).
 */
SHT_API sht_err sht_resume_start(const sht_resume *r, const char *history,
				 const sht_state_opts *opts, const sht_provider *p,
				 sht_state **ss, sht_resume_info *info);

/* NULL is a no-op. */
SHT_API void sht_resume_destroy(sht_resume *r);

#ifdef __cplusplus
}
#endif

#endif /* SHT_RESUME_H */
