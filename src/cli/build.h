/*
 * build.h: the pieces of `sht build` (cmd-build.c) that its experiment
 * mode, `sht build TRACE... --sync` (cmd-build-sync.c), shares.  Private
 * to src/cli/.
 */
#ifndef SHT_CLI_BUILD_H
#define SHT_CLI_BUILD_H

#include "cli.h"

/* Everything the command line says, and for one trace of an experiment
 * what its history is built with. */
struct build_opts {
	const char *trace;        /* the trace of this build */
	char **traces;            /* every TRACE given */
	size_t ntraces;
	const char *output;       /* -o FILE (--sync: DIR), or NULL */
	const char *analysis;     /* "kernel" */
	uint64_t partial;         /* --partial N, 0: full history */
	int json;
	int force;
	int no_progress;
	int merge;                /* --merge: several traces, merged */
	int single_thread;        /* --single-thread: no builder threads */
	int want_sync;            /* --sync */
	uint64_t jobs;            /* --jobs N: CTF decoding threads */
	int no_resume;            /* --no-resume: start over */
	uint32_t block_size;      /* --block-size B (default 64 KiB) */
	/* experiment builds: the trace's transform and the whole result,
	 * stored with the history (NULL otherwise) */
	const sht_transform *transform;
	const sht_sync *sync;
};

struct build_result {
	uint64_t events, skipped;
	sht_source_stats sst;
	uint64_t attributes;
	sht_time start, end;
	sht_tree_info info;
	double seconds;
};

/* Whether file is a complete history this build would produce again
 * (provider, kind, start first_ts, not older than the trace, and with
 * o->sync the same synchronization stored): 1 with *ss the opened
 * history (the caller closes it), else 0. */
int cli_build_can_reuse(const struct build_opts *o, const char *file,
			const struct cli_analysis *an, sht_time first_ts,
			sht_state **ss);
/* 1 if file is not older than any file of trace. */
int cli_build_newer(const char *file, const char *trace);
/* 1 if the history ss stores a synchronization equal to s (the same
 * traces, hosts and transforms). */
int cli_build_same_sync(sht_state *ss, const sht_sync *s);
/* "reusing FILE ..." or its JSON object. */
int cli_build_print_reuse(const char *file, sht_state *ss, int json);
/* CLI_OK, or CLI_FAIL if the JSON output could not be made. */
int cli_build_print_summary(const struct build_opts *o, const char *file,
			    const struct cli_analysis *an,
			    const struct build_result *res);
/* Build (or reuse) o->trace's history into file, the trace open in
 * pg->trace: prints its summary. */
int cli_build_run(const struct build_opts *o, const char *file,
		  struct cli_progress *pg);
/* sht build TRACE... --sync */
int cli_build_sync(const struct build_opts *o);

#endif /* SHT_CLI_BUILD_H */
