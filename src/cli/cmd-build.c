/*
 * cmd-build.c: `sht build TRACE`: run an analysis (the Linux kernel
 * analysis, or the event statistics) over a CTF trace or a VSTF file into
 * a history file, with a progress line on a terminal and a summary at the
 * end; an existing complete history of the same trace, analysis and
 * backend is reused instead of rebuilt.
 *
 * The file is written as FILE.building and renamed over FILE once
 * complete, so an older FILE stays as it was until then; the build is
 * resumable (resume.h): an interrupted one leaves FILE.building and its
 * checkpoint FILE.resume, and the same command goes on from there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"
#include "resume.h"
#include "reuse.h"
#include "stall.h"

static const char build_usage[] =
"Usage: sht build TRACE [-o FILE] [--analysis A] [--partial N] [OPTION]...\n"
"  or:  sht build TRACE... --sync [-o DIR] [OPTION]...\n"
"\n"
"Run an analysis (the Linux kernel analysis by default) over TRACE, a CTF\n"
"trace directory (an LTTng 2.x kernel trace) or a VSTF file (sht convert,\n"
"sht gen kernel), and write its state history into FILE, then print a\n"
"summary:\n"
"events, events skipped by the analysis, discarded events and packets\n"
"(the tracer's own losses), intervals, attributes, nodes, depth, file\n"
"size, seconds and events/s.  The history starts at the trace's first\n"
"event and ends at its last state change.\n"
"\n"
"If FILE already holds a complete history that this command would build\n"
"again, it is reused (\"reusing FILE ...\", nothing rebuilt): its provider\n"
"id and version equal the analysis's, it is of the same kind (full, or\n"
"partial with the same N), it has the same block size, it starts at the\n"
"trace's first event, and it is not older than any file of TRACE\n"
"(metadata, streams, index).\n"
"--force rebuilds anyway.\n"
"\n"
"With --sync, the TRACEs (one or more, from several hosts) are an\n"
"experiment: their clocks are synchronized first (as 'sht sync' does:\n"
"matched TCP packets, the fully incremental convex hull), then each\n"
"trace's history is built on the corrected time axis, its events'\n"
"timestamps transformed onto the reference host's clock, into\n"
"DIR/<trace name>.sht (DIR: -o, default the current directory; a name\n"
"taken twice gets -2, -3 ...).  Each history stores the transforms of\n"
"the whole experiment, so a build of the same traces later reuses them\n"
"instead of synchronizing again, and its histories too when they can be\n"
"reused as above.\n"
"\n"
"Options:\n"
"  -o, --output FILE  the history file (default: the name of TRACE's\n"
"                     directory + \".sht\", in the current directory, e.g.\n"
"                     many-threads.sht for traces/many-threads); with\n"
"                     --sync, the directory of the histories (created)\n"
"  --sync             synchronize the TRACEs' clocks and build each\n"
"                     history on the corrected time axis (see above)\n"
"  --analysis A       kernel (default): the Linux kernel analysis, its\n"
"                     layout picked from the trace's environment;\n"
"                     stats: event counts per type, in total and per CPU\n"
"                     (when libsht has it); RULES.xml: a Trace Compass\n"
"                     XML state provider, RULES.rules: the same in sht's\n"
"                     native syntax (RULES.md); its id and a hash\n"
"                     of the file's bytes are stored as the provider\n"
"                     version (an edited file is rebuilt)\n"
"  --partial N        write a partial history: a checkpoint every N events\n"
"                     (queries replay the trace from the nearest one)\n"
"  --block-size B     the size of the history's nodes: a power of two\n"
"                     from 1k to 16M, suffixes k, K, m, M (default 64k;\n"
"                     smaller ones make whole-trace time-graph queries\n"
"                     slower: PERFORMANCE.md, \"Block size\")\n"
"  --json             print the summary as one JSON object\n"
"  --force            rebuild even if FILE can be reused\n"
"  --merge            TRACE is a directory holding several CTF traces (e.g.\n"
"                     a session's kernel and user-space traces): read them\n"
"                     all, merged in time (without it such a directory is\n"
"                     an error)\n"
"  --single-thread    write the history on the analysis's thread (by\n"
"                     default, when more than one CPU is online, the\n"
"                     history tree places intervals and encodes and\n"
"                     writes its nodes on two threads of its own; the\n"
"                     file is the same byte for byte)\n"
"  --jobs N           decode a CTF trace's streams on N threads (default:\n"
"                     the CPUs online; 0: on the analysis's thread); the\n"
"                     events and the history are the same for every N\n"
"  --no-resume        start over even if FILE.resume holds a checkpoint of\n"
"                     this build (see below)\n"
"  --no-progress      no progress line (it is shown only when stderr is a\n"
"                     terminal: percent done, events, events/s, time\n"
"                     elapsed and left; without a CTF packet index the\n"
"                     percent is unknown and the trace time reached is\n"
"                     shown)\n"
"  -h, --help         show this help\n"
"\n"
"A trace problem stops the build with an error naming where it is (an\n"
"event out of time order: its number, time and stream file; a\n"
"truncated or corrupt stream: the file or the events read before it),\n"
"exit status 1 and no FILE; events the tracer lost are counted in the\n"
"summary and a warning.  A trace reader that makes no progress for 60 s\n"
"(SHT_STALL_SECONDS; 0: no limit), or aborts (babeltrace2 asserts on some\n"
"corrupt streams), stops the build the same way (RELIABILITY.md).\n"
"\n"
"Resumable builds: the history is written into FILE.building, renamed to\n"
"FILE when complete; every 10 s (SHT_RESUME_SECONDS) a checkpoint of the\n"
"build is kept durably in FILE.resume.  A build that is interrupted\n"
"(SIGINT or SIGTERM: a last checkpoint first, exit status 130 / 143),\n"
"killed, or stopped by an I/O error or a full disk leaves both files;\n"
"the same command then resumes from the checkpoint (\"resuming ...\" on\n"
"stderr), and FILE is the same, byte for byte, as an uninterrupted\n"
"build's.  The checkpoint is used only by the same build: the same trace\n"
"files (names, sizes, times), analysis, --partial, --merge, --block-size\n"
"and clock transform; --jobs may differ.  A second build of FILE while one\n"
"runs is refused.  (BIG-TRACES.md)\n";

enum {
	OPT_OUTPUT = 1,
	OPT_ANALYSIS,
	OPT_PARTIAL,
	OPT_JSON,
	OPT_FORCE,
	OPT_NO_PROGRESS,
	OPT_MERGE,
	OPT_SINGLE_THREAD,
	OPT_SYNC,
	OPT_JOBS,
	OPT_NO_RESUME,
	OPT_BLOCK_SIZE,
};

static const cli_opt build_opts[] = {
	{ "output", 'o', 1, OPT_OUTPUT },
	{ "analysis", 0, 1, OPT_ANALYSIS },
	{ "partial", 0, 1, OPT_PARTIAL },
	{ "json", 0, 0, OPT_JSON },
	{ "force", 0, 0, OPT_FORCE },
	{ "no-progress", 0, 0, OPT_NO_PROGRESS },
	{ "merge", 0, 0, OPT_MERGE },
	{ "single-thread", 0, 0, OPT_SINGLE_THREAD },
	{ "sync", 0, 0, OPT_SYNC },
	{ "jobs", 'j', 1, OPT_JOBS },
	{ "no-resume", 0, 0, OPT_NO_RESUME },
	{ "block-size", 0, 1, OPT_BLOCK_SIZE },
	{ NULL, 0, 0, 0 }
};

/* ---- reuse ------------------------------------------------------------- */

/*
 * Whether file is a complete history this build would produce again (see
 * the help): front/reuse.c's rule, shared with sht serve, then what only
 * sht build records (its notes, a synchronisation).  Returns 1 (reusable:
 * *ss is the opened history, for the message; the caller closes it),
 * else 0.
 */
int cli_build_can_reuse(const struct build_opts *o, const char *file,
			const struct cli_analysis *an, sht_time first_ts,
			sht_state **ss)
{
	if (!fe_reusable(file, o->trace, an->prov.id, an->prov.version,
			 first_ts, o->partial, o->block_size, ss))
		return 0;
	/* Built before histories kept their model and notes: rebuild it so
	 * that it has them. */
	if (!cli_note(*ss, "tool"))
		return 0;
	return !o->sync || cli_build_same_sync(*ss, o->sync);
}

int cli_build_newer(const char *file, const char *trace)
{
	return fe_newer(file, trace);
}

int cli_build_print_reuse(const char *file, sht_state *ss, int json)
{
	const char *id = "";
	uint32_t version = 0;
	json_t *o;

	sht_state_provider(ss, &id, &version);
	if (!json) {
		printf("reusing %s (built by %s version %" PRIu32 "; "
		       "--force rebuilds)\n", file, id, version);
		return cli_finish_output(CLI_OK);
	}
	o = json_object();
	cli_jset(o, "file", cli_jcstr(file));
	cli_jset(o, "reused", cli_jbool(true));
	cli_jset(o, "provider", cli_jcstr(id));
	cli_jset(o, "provider_version", cli_juint(version));
	cli_jset(o, "attributes", cli_juint(sht_state_attr_count(ss)));
	return cli_finish_output(cli_json_print(o));
}

/* ---- building ---------------------------------------------------------- */


/* Report a run stopped by err after n events (docs/RELIABILITY.md §5):
 * an event out of time order is named by its ordinal and, for CTF, its
 * stream file; a trace that cannot be read further, by the
 * events read before it and the last one's time. */
static void run_failed(const struct build_opts *o, struct cli_progress *pg,
		       sht_state *ss, sht_err err, uint64_t n)
{
	char where[512];

	if (err == SHT_ERR_ORDER && n > 0) {
		sht_ctf_where(&pg->trace->src, where, sizeof where);
		cli_fail(err, "build the history of %s: event %" PRIu64
			 " is out of time order%s%s", o->trace, n - 1,
			 where[0] ? " in " : "", where);
	} else if (n > 0) {
		cli_fail(err, "build the history of %s: after %" PRIu64
			 " events (the last at t=%" PRId64 ")", o->trace, n,
			 (int64_t)sht_state_end(ss));
	} else {
		cli_fail(err, "build the history of %s", o->trace);
	}
}

/* Tell of the tracer's own losses: the history is built from the events
 * that remain, and the states the lost events would have changed stay
 * as they were until later events set them. */
static void warn_discarded(const struct build_opts *o, const sht_source_stats *st)
{
	if (!st->discarded_events && !st->discarded_packets)
		return;
	fprintf(stderr, "sht: warning: %s: the tracer lost %" PRIu64
		" events and %" PRIu64 " packets (discarded-events / "
		"discarded-packets records): the history is built from the "
		"events that remain; states the lost events changed are "
		"wrong until later events set them again\n", o->trace,
		st->discarded_events, st->discarded_packets);
}

/* Errors after which the same build can go on from its last checkpoint:
 * the disk's and the memory's (and a signal's); a trace that cannot be
 * read would fail again at the same place. */
static int resumable(sht_err err)
{
	return err == SHT_ERR_IO || err == SHT_ERR_NOMEM || err == SHT_END;
}

/* The run stopped (err): keep the files to resume, or remove them. */
static int run_stopped(const struct build_opts *o, struct cli_resume *rs,
		       sht_err err)
{
	if (err == SHT_END) {
		fprintf(stderr, "sht: the build of %s was interrupted at event %" PRIu64
			": run the same command again to resume it (--no-resume "
			"starts over)\n", o->trace, rs->stop_pos);
		return 128 + cli_resume_signal();
	}
	if (resumable(err) && !o->no_resume && rs->taken + (rs->base[RS_EVENTS] > 0)) {
		fprintf(stderr, "sht: %s and %s are kept: run the same command again "
			"to resume the build from its last checkpoint\n",
			rs->building, rs->rfile);
		return CLI_FAIL;
	}
	cli_resume_abandon(rs);
	return CLI_FAIL;
}

/* The state system: resumed from FILE.resume, else created. */
static int build_state(const struct build_opts *o, struct cli_resume *rs,
		       struct cli_progress *pg, struct cli_analysis *an,
		       struct build_result *res, sht_state **ss)
{
	struct cli_notes notes;
	sht_state_opts so;
	sht_err err;
	int status;

	cli_notes_build(&notes, o->trace, pg->trace, an, o->partial, o->merge);
	sht_state_opts_init(&so);
	so.notes = notes.note;
	so.n_notes = notes.count;
	so.backend = o->partial ? SHT_BACKEND_PARTIAL : SHT_BACKEND_TREE;
	so.checkpoint_events = o->partial;
	so.provider = an->prov.id;
	so.provider_version = an->prov.version;
	so.tree.threaded = !o->single_thread && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	so.tree.block_size = o->block_size;
	status = cli_resume_try(rs, o->no_resume, &so, &an->prov, pg->trace, ss);
	if (status == CLI_OK && *ss) {
		pg->events = rs->base[RS_EVENTS];
	} else if (status == CLI_OK) {
		err = sht_state_create(rs->building, res->start, &so, ss);
		if (err == SHT_OK && o->sync)   /* a resumed one has it already */
			err = sht_sync_store(o->sync, *ss);
		if (err < 0) {
			if (*ss)
				sht_state_close(*ss);
			*ss = NULL;
			cli_resume_abandon(rs);
			status = cli_fail(err, "create %s", rs->building);
		}
	}
	cli_notes_free(&notes);   /* copied */
	return status;
}

/* Build into FILE.building, resumable (resume.h). */
static int build_history(const struct build_opts *o, struct cli_resume *rs,
			 struct cli_progress *pg, struct cli_analysis *an,
			 struct build_result *res)
{
	sht_source src, fixed;
	sht_state *ss = NULL;
	sht_reader *r;
	sht_err err = SHT_OK;

	if (build_state(o, rs, pg, an, res, &ss) != CLI_OK)
		return CLI_FAIL;
	cli_progress_source(pg, &src);   /* it feeds the watchdog too */
	if (o->transform) {
		/* Outside the progress source: progress (and the checkpoints'
		 * trace positions) see the trace's own times, the analysis the
		 * corrected ones. */
		err = sht_transform_source(&src, o->transform, &fixed);
		src = fixed;
	}
	if (err == SHT_OK && cli_resume_start(rs, ss, &an->prov, pg) != CLI_OK)
		err = SHT_ERR_INVALID;    /* reported */
	if (err != SHT_OK) {
		if (err != SHT_ERR_INVALID)
			cli_fail(err, "build the history of %s", o->trace);
		if (o->transform)
			sht_transform_source_free(&fixed);
		sht_state_close(ss);
		cli_resume_abandon(rs);
		return CLI_FAIL;
	}
	err = sht_state_run_hook(ss, &src, &an->prov, cli_resume_hook, rs,
				 &res->events, &res->skipped);
	if (o->transform)
		sht_transform_source_free(&fixed);
	cli_stall_disarm();
	cli_progress_clear(pg);
	cli_resume_stop(rs);
	if (err < 0) {
		run_failed(o, pg, ss, err, rs->base[RS_EVENTS] + res->events);
	} else if (err == SHT_OK) {
		res->end = sht_state_end(ss);
		err = sht_state_finish(ss, res->end);
		if (err < 0)
			cli_fail(err, "build the history of %s", o->trace);
	}
	res->events += rs->base[RS_EVENTS];
	res->skipped += rs->base[RS_SKIPPED];
	if (err != SHT_OK) {
		sht_state_close(ss);
		return run_stopped(o, rs, err);
	}
	res->attributes = sht_state_attr_count(ss);
	sht_state_close(ss);
	cli_progress_stats(pg, &res->sst);
	res->sst.discarded_events += rs->base[RS_DISC_EVENTS];
	res->sst.discarded_packets += rs->base[RS_DISC_PACKETS];
	warn_discarded(o, &res->sst);
	if (cli_open_reader(rs->building, &r) != CLI_OK) {
		cli_resume_abandon(rs);
		return CLI_FAIL;
	}
	sht_reader_info_get(r, &res->info);
	sht_reader_close(r);
	return CLI_OK;
}

/* CLI_OK, or CLI_FAIL if the JSON output could not be made. */
int cli_build_print_summary(const struct build_opts *o, const char *file,
			    const struct cli_analysis *an,
			    const struct build_result *res)
{
	double rate = res->seconds > 0 ? (double)res->events / res->seconds
				       : 0.0;
	json_t *j;

	if (!o->json) {
		printf("%s: %" PRIu64 " events (%" PRIu64 " skipped, "
		       "%" PRIu64 " discarded events, %" PRIu64
		       " discarded packets) in %.3f s, %.0f events/s\n",
		       file, res->events, res->skipped,
		       res->sst.discarded_events, res->sst.discarded_packets,
		       res->seconds, rate);
		printf("%s history: %" PRIu64 " intervals, %" PRIu64
		       " attributes, %" PRIu64 " nodes, depth %" PRIu32
		       ", %" PRIu64 " bytes (%s %s, layout %s)\n",
		       o->partial ? "partial" : "full", res->info.intervals,
		       res->attributes, res->info.nodes, res->info.depth,
		       res->info.file_bytes, an->prov.id, an->name,
		       an->kernel ? cli_layout_name(an->layout) : "none");
		return CLI_OK;
	}
	j = json_object();
	cli_jset(j, "file", cli_jcstr(file));
	cli_jset(j, "trace", cli_jcstr(o->trace));
	cli_jset(j, "reused", cli_jbool(false));
	cli_jset(j, "analysis", cli_jcstr(an->name));
	cli_jset(j, "layout", cli_jcstr(an->kernel ?
					cli_layout_name(an->layout) : "none"));
	cli_jset(j, "provider", cli_jcstr(an->prov.id));
	cli_jset(j, "provider_version", cli_juint(an->prov.version));
	cli_jset(j, "backend", cli_jcstr(o->partial ? "partial" : "tree"));
	cli_jset(j, "checkpoint_events", cli_juint(o->partial));
	cli_jset(j, "events", cli_juint(res->events));
	cli_jset(j, "events_skipped", cli_juint(res->skipped));
	cli_jset(j, "discarded_events", cli_juint(res->sst.discarded_events));
	cli_jset(j, "discarded_packets", cli_juint(res->sst.discarded_packets));
	cli_jset(j, "start", cli_jint(res->start));
	cli_jset(j, "end", cli_jint(res->end));
	cli_jset(j, "intervals", cli_juint(res->info.intervals));
	cli_jset(j, "attributes", cli_juint(res->attributes));
	cli_jset(j, "nodes", cli_juint(res->info.nodes));
	cli_jset(j, "depth", cli_juint(res->info.depth));
	cli_jset(j, "file_bytes", cli_juint(res->info.file_bytes));
	cli_jset(j, "seconds", cli_jreal(res->seconds));
	cli_jset(j, "events_per_second", cli_jreal(rate));
	return cli_json_print(j);
}

/* The default FILE: the last name of TRACE + ".sht" (malloc'd). */
static char *default_output(const char *trace)
{
	char *abs = realpath(trace, NULL);
	const char *base = abs ? abs : trace;
	const char *slash = strrchr(base, '/');
	size_t len;
	char *out;

	if (slash && slash[1])
		base = slash + 1;
	if (!*base || strcmp(base, "/") == 0)
		base = "trace";
	len = strlen(base) + 5;
	out = malloc(len);
	if (out)
		snprintf(out, len, "%s.sht", base);
	free(abs);
	return out;
}

/* What the resume file must agree on besides the trace (resume.h). */
static void build_options(const struct build_opts *o, const struct cli_analysis *an,
			  char *buf, size_t size)
{
	sht_builder_opts bo;

	sht_builder_opts_init(&bo);
	snprintf(buf, size, "analysis %s\nprovider %s %" PRIu32 "\npartial %" PRIu64
		 "\nmerge %d\ntree %d %" PRIu32 " %" PRIu32 "\ntransform %s %s",
		 an->name, an->prov.id, an->prov.version, o->partial, o->merge,
		 (int)bo.variant, o->block_size, bo.max_children,
		 o->transform ? sht_transform_slope(o->transform) : "-",
		 o->transform ? sht_transform_offset(o->transform) : "-");
}

/* Build FILE through FILE.building and FILE.resume. */
static int build_resumable(const struct build_opts *o, const char *file,
			   struct cli_progress *pg, struct cli_analysis *an,
			   struct build_result *res)
{
	struct cli_resume rs;
	char options[1024];
	int status;

	build_options(o, an, options, sizeof options);
	status = cli_resume_init(&rs, o->trace, file, options, res->start);
	if (status == CLI_OK) {
		cli_progress_start(pg);
		cli_stall_output(rs.building);
		status = build_history(o, &rs, pg, an, res);
	}
	if (status == CLI_OK && rename(rs.building, file) != 0) {
		status = cli_error("cannot rename %s to %s: %s", rs.building, file,
				   strerror(errno));
		cli_resume_abandon(&rs);
	}
	if (status == CLI_OK)
		cli_resume_done(&rs);
	cli_resume_free(&rs);
	return status;
}

/* Run the build once the trace is open in pg->trace. */
int cli_build_run(const struct build_opts *o, const char *file,
		  struct cli_progress *pg)
{
	struct cli_analysis an;
	struct build_result res;
	sht_state *old = NULL;
	sht_event ev;
	sht_err err;
	double t0 = cli_now();
	int status;

	memset(&res, 0, sizeof(res));
	/* The history starts at the first event. */
	err = pg->trace->src.ops->next(pg->trace->src.src, &ev);
	if (err == SHT_END)
		return cli_error("cannot build %s: the trace has no events",
				 o->trace);
	if (err >= 0)
		err = pg->trace->src.ops->seek(pg->trace->src.src, 0);
	if (err < 0)
		return cli_fail(err, "read the first event of %s", o->trace);
	pg->first_ts = ev.ts;
	res.start = ev.ts;
	if (o->transform) {
		sht_transform *t;

		if (sht_transform_copy(o->transform, &t) != SHT_OK)
			return cli_error("cannot build %s: out of memory",
					 o->trace);
		res.start = sht_transform_apply(t, ev.ts);
		sht_transform_free(t);
	}
	if (cli_analysis_create(&an, o->analysis, pg->trace) != CLI_OK)
		return CLI_FAIL;
	if (!o->force && cli_build_can_reuse(o, file, &an, res.start, &old)) {
		status = cli_build_print_reuse(file, old, o->json);
		sht_state_close(old);
		cli_analysis_destroy(&an);
		return status;
	}
	sht_state_close(old);
	status = build_resumable(o, file, pg, &an, &res);
	if (status == CLI_OK) {
		res.seconds = cli_now() - t0;
		status = cli_finish_output(cli_build_print_summary(o, file,
								   &an, &res));
	}
	cli_analysis_destroy(&an);
	return status;
}

/* ---- options ----------------------------------------------------------- */

static int build_opt(void *ctx, int id, const char *val)
{
	struct build_opts *o = ctx;

	switch (id) {
	case CLI_ARG_POS:
		o->traces[o->ntraces++] = (char *)(uintptr_t)val;
		o->trace = o->traces[0];
		return 0;
	case OPT_SYNC:
		o->want_sync = 1;
		return 0;
	case OPT_OUTPUT:
		if (!*val) {
			cli_usage_error("build", "empty value for --output");
			return -1;
		}
		o->output = val;
		return 0;
	case OPT_ANALYSIS:
		if (strcmp(val, "kernel") != 0 && !cli_analysis_is_rules(val) &&
		    (!CLI_HAVE_STATS || strcmp(val, "stats") != 0)) {
			cli_usage_error("build", "invalid value '%s' for "
					"--analysis: expected " CLI_ANALYSES
					" or a rules file FILE.xml or FILE.rules",
					val);
			return -1;
		}
		o->analysis = val;
		return 0;
	case OPT_PARTIAL:
		return cli_parse_u64("build", "--partial", val, 1,
				     (uint64_t)1 << 40, &o->partial);
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_FORCE:
		o->force = 1;
		return 0;
	case OPT_MERGE:
		o->merge = 1;
		return 0;
	case OPT_SINGLE_THREAD:
		o->single_thread = 1;
		return 0;
	case OPT_NO_RESUME:
		o->no_resume = 1;
		return 0;
	case OPT_JOBS:
		return cli_parse_u64("build", "--jobs", val, 0, 256, &o->jobs);
	case OPT_BLOCK_SIZE:
		return cli_parse_block_size("build", val, &o->block_size);
	default:                  /* OPT_NO_PROGRESS */
		o->no_progress = 1;
		return 0;
	}
}

static int build_one(struct build_opts *o_);

int cmd_build(int argc, char **argv)
{
	struct build_opts o;
	int status;

	memset(&o, 0, sizeof(o));
	o.analysis = "kernel";
	o.jobs = cli_default_jobs();
	o.block_size = SHT_DEFAULT_BLOCK_SIZE;
	o.traces = calloc((size_t)argc + 1, sizeof(*o.traces));
	if (!o.traces)
		return cli_error("cannot build: out of memory");
	status = cli_parse_options(argc, argv, 1, "build", build_opts,
				   build_usage, build_opt, &o);
	if (status == CLI_OK && !o.trace)
		status = cli_usage_error("build", "missing TRACE");
	if (status == CLI_OK && o.ntraces > 1 && !o.want_sync)
		status = cli_usage_error("build", "several TRACEs need --sync "
					 "(an experiment on one time axis)");
	if (status == CLI_OK && o.want_sync && o.merge)
		status = cli_usage_error("build", "--merge and --sync do not "
					 "go together");
	if (status == CLI_OK && o.want_sync)
		status = cli_build_sync(&o);
	else if (status == CLI_OK)
		status = build_one(&o);
	free(o.traces);
	return status < 0 ? cli_finish_output(CLI_OK) : status;   /* --help */
}

/* One trace, one history (without --sync). */
static int build_one(struct build_opts *o_)
{
	struct build_opts o = *o_;
	struct cli_progress pg;
	cli_trace trace;
	char *def = NULL;
	const char *file;
	int status;

	file = o.output;
	if (!file) {
		def = default_output(o.trace);
		if (!def)
			return cli_error("cannot build %s: out of memory",
					 o.trace);
		file = def;
	}
	cli_stall_arm(o.trace, NULL);
	cli_resume_signals();
	status = cli_trace_open(o.trace, o.merge, (uint32_t)o.jobs, &trace);
	if (status == CLI_OK) {
		cli_progress_init(&pg, &trace, "building",
				  !o.no_progress && isatty(STDERR_FILENO));
		status = cli_build_run(&o, file, &pg);
		cli_trace_close(&trace);
	}
	cli_stall_disarm();
	free(def);
	return status;
}
