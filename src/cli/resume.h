/*
 * resume.h: resumable `sht build` (resume.c), over libsht's sht/resume.h.
 *
 * A build of FILE writes FILE.building, keeps FILE.resume (its latest
 * durable checkpoint) beside it, and renames FILE.building to FILE when
 * complete (FILE.resume removed).  A build stopped by a signal (SIGINT,
 * SIGTERM: a last checkpoint first), a kill (the last periodic one), an
 * I/O error or a full disk leaves both; the same command then goes on
 * from the checkpoint.  A lock (flock on FILE.building) keeps two builds
 * of one FILE apart.  The resume file belongs to one build: the trace's
 * files (names, sizes, modification times), the analysis's id and
 * version, the history's kind, start and tree options must all be the
 * same (the decoding threads may differ).
 */
#ifndef SHT_CLI_RESUME_H
#define SHT_CLI_RESUME_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "cli.h"

/* The counters a build keeps in its checkpoints. */
enum { RS_EVENTS, RS_SKIPPED, RS_DISC_EVENTS, RS_DISC_PACKETS, RS_COUNTERS };

struct cli_resume {
	char *building, *rfile;       /* FILE.building, FILE.resume */
	int lock_fd;
	char *ident;                  /* this build's identity */
	size_t ident_len;
	double every, last;           /* seconds between checkpoints */
	uint64_t base[RS_COUNTERS];   /* counters before this process */
	uint64_t taken;               /* checkpoints committed */
	/* the committer thread */
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, stop;
	sht_resume *pending;          /* captured, to commit */
	int busy;
	sht_state *ss;
	char err[256];                /* a failed commit's message */
	/* the run hook's */
	const sht_provider *prov;
	struct cli_progress *pg;
	uint64_t stop_pos;            /* where a signal stopped the run */
};

/* Make the names, the identity and the lock for a build of trace into
 * file.  On failure report and return CLI_FAIL. */
int cli_resume_init(struct cli_resume *r, const char *trace, const char *file,
		    const char *options, sht_time start);
void cli_resume_free(struct cli_resume *r);

/* Resume the build if FILE.resume says so (unless no_resume): CLI_OK and
 * *ss set, with the source sought and the counters in r->base; or CLI_OK
 * with *ss NULL (start over: a message said why if a resume file was
 * there); CLI_FAIL (reported). */
int cli_resume_try(struct cli_resume *r, int no_resume, const sht_state_opts *so,
		   const sht_provider *p, cli_trace *t, sht_state **ss);

/* The run hook (sht_state_run_hook): periodic checkpoints, committed on
 * the committer thread, and on a signal a last one, committed before
 * the run stops (SHT_END). */
sht_err cli_resume_hook(void *ctx, const sht_event *next, uint64_t events,
			uint64_t skipped);
/* Start the committer for ss; wait for it and stop it (before ss closes). */
int cli_resume_start(struct cli_resume *r, sht_state *ss, const sht_provider *p,
		     struct cli_progress *pg);
void cli_resume_stop(struct cli_resume *r);

/* The build is complete (FILE.resume removed) or abandoned (FILE.building
 * and FILE.resume removed). */
void cli_resume_done(struct cli_resume *r);
void cli_resume_abandon(struct cli_resume *r);

/* Catch SIGINT and SIGTERM (a second one is fatal); which one came (0:
 * none). */
void cli_resume_signals(void);
int cli_resume_signal(void);

#endif /* SHT_CLI_RESUME_H */
