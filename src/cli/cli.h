/*
 * cli.h: shared pieces of the `sht` command-line tool: exit statuses,
 * error reporting, the option parser, strict number parsing, and the
 * printers that several commands share.  Private to src/cli/.
 *
 * Conventions: errors go to stderr as "sht: cannot ...: <why>", exit
 * status 1 (CLI_FAIL); usage errors as "sht: <what>" plus a hint, exit
 * status 2 (CLI_USAGE).  Every command is `int cmd_X(int argc, char **argv)`
 * with argv[0] the command name, and returns its exit status.
 */
#ifndef SHT_CLI_H
#define SHT_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "sht/sht.h"
#include <shtgen/workload.h>
#include "json.h"
#include "times.h"

enum {
	CLI_OK = 0,       /* success */
	CLI_FAIL = 1,     /* an operation failed (bad file, I/O, mismatch) */
	CLI_USAGE = 2,    /* bad command line */
};

/* ---- commands (cmd-*.c) ------------------------------------------------ */

int cmd_build(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_gen(int argc, char **argv);
/* `sht gen kernel` (cmd-gen-kernel.c), dispatched by cmd_gen. */
int cmd_gen_kernel(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_sync(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_view(int argc, char **argv);
/* `sht demo staircase` (cmd-demo.c), dispatched by cmd_demo. */
int cmd_demo_staircase(int argc, char **argv);
/* The end of a demo (cmd-demo.c): the file's info, queries(ctx, ss)
 * under the heading title, and the check; every step runs even if an
 * earlier one failed.  Returns the first failure. */
int cli_demo_inspect(const char *path, const char *title,
		     int (*queries)(const void *ctx, sht_state *ss),
		     const void *ctx);

/* ---- errors (args.c) --------------------------------------------------- */

/* Print "sht: <msg>" and "Try 'sht <cmd> --help'." to stderr; return
 * CLI_USAGE.  cmd may be NULL (top level). */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "sht: cannot <what>: <sht_errmsg() or sht_strerror(err)>" to
 * stderr; return CLI_FAIL. */
int cli_fail(sht_err err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "sht: <msg>" to stderr (no library cause); return CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flush stdout and report a write error; return status, or CLI_FAIL if
 * the output could not be written. */
int cli_finish_output(int status);

/* Open a history file; on failure report "cannot open PATH" and return
 * CLI_FAIL. */
int cli_open_reader(const char *path, sht_reader **out);
/* The same through the state system (names, provider identity). */
int cli_open_state(const char *path, sht_state **out);
/* Load the attribute tree of an opened history (it loads on first use);
 * on failure report "cannot read the attribute tree of PATH" and return
 * CLI_FAIL.  A file without one has an empty tree: CLI_OK. */
int cli_load_attrs(const char *path, sht_state *ss);
/* Load the model and notes of an opened history; on failure report
 * "cannot read the model of PATH" and return CLI_FAIL (a file without
 * them has an empty model: CLI_OK). */
int cli_load_model(const char *path, sht_state *ss);
/* Quark of the attribute at path ("/"-separated names) in the opened
 * history file; on failure (no such attribute: "FILE has no attribute
 * 'PATH'") report and return CLI_FAIL. */
int cli_resolve_path(const char *file, sht_state *ss, const char *path,
		     sht_quark *out);

/* ---- traces (trace-in.c) ---------------------------------------------- */

/* A trace the CLI reads: a CTF directory or a VSTF file. */
typedef struct cli_trace {
	sht_source src;
	int vstf;                 /* 1: a VSTF file; 0: a CTF directory */
	uint64_t events;          /* VSTF: the event count; 0: unknown */
	sht_time span_begin;      /* CTF: the packet index's time span; */
	sht_time span_end;        /* both 0 if the trace has none */
} cli_trace;

/* Open path: a directory as CTF (merge: accept a directory holding
 * several traces and merge them in time; jobs: decoding threads, 0 on
 * this thread), a file as VSTF.  On failure report "cannot open ..." and
 * return CLI_FAIL. */
int cli_trace_open(const char *path, int merge, uint32_t jobs, cli_trace *t);
/* The default number of decoding threads: the CPUs online (1 .. 256). */
uint32_t cli_default_jobs(void);
void cli_trace_close(cli_trace *t);
/* An environment entry, as sht_ctf_env / sht_vstf_env. */
sht_err cli_trace_env(const cli_trace *t, const char *name, sht_field *out);
/* How much of the trace is read once `events` events, the last at ts,
 * are: 0 .. 1 (VSTF: by events; CTF: by time over the packet index's
 * span), or -1 if unknown. */
double cli_trace_fraction(const cli_trace *t, uint64_t events, sht_time ts);

/* ---- experiments: several traces on one timeline (exp.c) -------------- */

/* The traces of an experiment, opened, with what synchronization needs:
 * each trace's host id (its CTF clock's UUID; else the trace's file or
 * directory name, as Trace Compass names a host without one) and the
 * network layout of its environment. */
struct cli_exp {
	size_t n;
	char **paths;             /* borrowed */
	char **names;             /* the traces' real paths (malloc'd): their
	                             names in the synchronization */
	cli_trace *tr;
	char **host;              /* malloc'd */
	sht_net_layout *layout;
	int show_progress;        /* a progress line while synchronizing */
};

/* Open the n traces (n >= 1); on failure report, close what was opened
 * and return CLI_FAIL. */
int cli_exp_open(struct cli_exp *e, char **paths, size_t n);
void cli_exp_close(struct cli_exp *e);
/* Synchronize the traces: read each from where it stands to its end,
 * then seek each back to its first event.  On failure report and return
 * CLI_FAIL. */
int cli_exp_sync(struct cli_exp *e, sht_sync **out);
/* Say on stderr why s leaves traces on their own clocks (one trace, one
 * host, no packet exchanged, hosts without a path to the reference);
 * nothing if every trace is synchronized. */
void cli_sync_warn(const struct cli_exp *e, const sht_sync *s);
/* The traces of s as a JSON array: per trace its path (paths[i], or the
 * name stored in s if paths is NULL), host, slope and offset (numbers
 * with all their digits), reference and synced. */
json_t *cli_sync_json_traces(const sht_sync *s, char **paths);
/* A trace's base name (last path element; "trace" if none), malloc'd. */
char *cli_base_name(const char *path);

/* ---- analyses and histories (analysis.c) ------------------------------ */

/* `--analysis stats` is offered when libsht has the event statistics
 * analysis (analysis.h defines its provider id). */
#ifdef SHT_EVSTATS_PROVIDER_ID
#define CLI_HAVE_STATS 1
#define CLI_ANALYSES "'kernel' or 'stats'"
#else
#define CLI_HAVE_STATS 0
#define CLI_ANALYSES "'kernel'"
#endif

/* One analysis: its provider, and the object behind it. */
struct cli_analysis {
	const char *name;         /* "kernel", "stats" or a FILE.xml */
	sht_kernel *kernel;
#if CLI_HAVE_STATS
	sht_evstats *stats;
#endif
	sht_rules *rules;         /* a rules file (FILE.xml, FILE.rules) */
	sht_kernel_layout layout;
	sht_provider prov;
};

/* 1 if the --analysis name is a rules file (ends in ".xml" or ".rules"). */
int cli_analysis_is_rules(const char *name);

/* The analysis name (kernel: its layout from the trace's environment);
 * on failure report and return CLI_FAIL. */
int cli_analysis_create(struct cli_analysis *an, const char *name,
			const cli_trace *src);
void cli_analysis_destroy(struct cli_analysis *an);
/* "lttng-2.0", "lttng-2.6", "lttng-2.7" or "auto". */
const char *cli_layout_name(sht_kernel_layout l);
/* The events between checkpoints of a history (0: a full history), or
 * -1 if the file cannot be read (the rule of front/reuse.c). */
int64_t cli_partial_every(const char *file);

/* A history opened for queries: a partial one replays its trace. */
struct cli_history {
	sht_state *ss;
	cli_trace trace;          /* partial: the trace it was built from */
	struct cli_analysis an;   /* partial: the analysis that built it */
	sht_source fixed;         /* partial, synchronized (build --sync):
	                             the trace on the corrected clock */
	int have_trace, have_an, have_fixed;
};

/* Open path; a partial history needs trace (else an error says so) and
 * is opened with sht_state_open_partial over it, replaying the analysis
 * that built it: a built-in one, or the rules file rules (which must be
 * the one the history names: same provider id and version).  On failure
 * report and return CLI_FAIL (h is then closed). */
int cli_history_open(const char *path, const char *trace, const char *rules,
		     struct cli_history *h);
void cli_history_close(struct cli_history *h);

/* ---- build notes (notes.c) -------------------------------------------- */

/* What `sht build` notes in a history (model.h, sht_build_note): tool,
 * trace, trace format, tracer, host, analysis, kernel layout, options
 * (those that decide the contents: --partial N, --merge); empty values
 * are left out. */
#define CLI_NOTES_MAX 10
struct cli_notes {
	sht_build_note note[CLI_NOTES_MAX];
	size_t count;
	char tool[96], tracer[128], host[128], options[96];
	char *trace_abs, *analysis_abs;   /* realpath()s, or NULL */
};

void cli_notes_build(struct cli_notes *n, const char *trace,
		     const cli_trace *t, const struct cli_analysis *an,
		     uint64_t partial, int merge);
void cli_notes_free(struct cli_notes *n);
/* The value of a history's note key, or NULL. */
const char *cli_note(sht_state *ss, const char *key);

/* ---- progress line (progress.c) --------------------------------------- */

struct cli_progress {
	cli_trace *trace;
	const char *verb;         /* "building" */
	int show;                 /* print the line (stderr is a terminal) */
	uint64_t events;          /* passed on so far */
	sht_time first_ts;        /* the trace's first event (set by caller) */
	sht_time last_ts;         /* the last one passed on, as the trace has it */
	double t0, last;
	int printed;              /* a line is on the terminal */
};

void cli_progress_init(struct cli_progress *p, cli_trace *t, const char *verb,
		       int show);
/* Start the clock (just before the first event is read). */
void cli_progress_start(struct cli_progress *p);
/* A source over p->trace that counts and shows the events it passes on. */
void cli_progress_source(struct cli_progress *p, sht_source *out);
/* Erase the line, if one is shown. */
void cli_progress_clear(struct cli_progress *p);
/* The trace's counters (events, discarded events and packets). */
void cli_progress_stats(struct cli_progress *p, sht_source_stats *out);

/* ---- option parser (args.c) -------------------------------------------- */

/*
 * Options are parsed by getopt_long: "--name VALUE", "--name=VALUE", "-x
 * VALUE", "-xVALUE", flags "--name", "-x" (several in one "-xy"), a long
 * name abbreviated to any unambiguous prefix, anywhere among the positional
 * arguments, in command-line order; "--" ends the options.  Every table
 * has --help and -h.
 */
typedef struct cli_opt {
	const char *name;   /* long name without "--" */
	char short_name;    /* 0 if none */
	int has_arg;        /* 1: takes a value */
	int id;             /* passed to the callback (> 0, < 1000) */
} cli_opt;

enum {
	CLI_ARG_POS = -1,   /* id of a positional argument */
	CLI_OPT_HELP = 1000 /* id of the --help/-h option every table has */
};

/*
 * The option loop every command runs: each option and positional argument
 * (id CLI_ARG_POS), from argv[first] on, goes to fn with its value (NULL
 * for a flag), in command-line order; fn returns < 0 after reporting a
 * usage error.  --help prints usage.  Errors are reported as "sht: unknown
 * option '--x'", "option '--x' needs a value", "option '--x' takes no
 * value", "ambiguous option '--x'".  Returns CLI_OK, CLI_USAGE, CLI_FAIL
 * (out of memory), or -1 after --help.
 */
typedef int (*cli_opt_fn)(void *ctx, int id, const char *val);
/* Take the one positional FILE argument: -1 (usage error reported) if
 * *file is already set. */
int cli_take_file(const char *cmd, const char **file, const char *val);
int cli_parse_options(int argc, char **argv, int first, const char *cmd,
		      const cli_opt *opts, const char *usage, cli_opt_fn fn,
		      void *ctx);

/* ---- strict number parsing (args.c) ------------------------------------ */
/*
 * Each returns 0 and sets *out, or reports a usage error naming opt and
 * returns -1: empty text, trailing junk, sign where not allowed, overflow,
 * or a value outside [min, max].
 */
int cli_parse_i64(const char *cmd, const char *opt, const char *s,
		  int64_t min, int64_t max, int64_t *out);
int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t min, uint64_t max, uint64_t *out);
/* A byte count with an optional suffix k/K (KiB) or m/M (MiB). */
int cli_parse_size(const char *cmd, const char *opt, const char *s,
		   uint64_t min, uint64_t max, uint64_t *out);

/* --block-size: a size (as cli_parse_size) that is a power of two from
 * SHT_BLOCK_SIZE_MIN to SHT_BLOCK_SIZE_MAX (sht gen, sht build). */
int cli_parse_block_size(const char *cmd, const char *s, uint32_t *out);

/* Parse "esht" or "sht". */
int cli_parse_variant(const char *cmd, const char *opt, const char *s,
		      sht_variant *out);
const char *cli_variant_name(sht_variant v);

/* ---- shared printers (print.c) ----------------------------------------- */

/* "null", "int" (int32), "long" (int64), "double" or "string". */
const char *cli_type_name(sht_type t);
/* One interval as "quark  [start, end]  type  value". */
void cli_print_interval(FILE *f, const sht_interval *iv);
/* One interval with the path of its attribute:
 * "quark  path  [start, end]  type  value" (path as cli_print_name). */
void cli_print_interval_path(FILE *f, const sht_interval *iv,
			     const char *path);
/* An attribute name or path: as is if it is plain (not empty, no space,
 * control character, quote or backslash), else as a quoted JSON string,
 * so that a field never splits and "" shows an empty one. */
void cli_print_name(FILE *f, const char *s, size_t len);
/* One value as in the human form: null, a number, or a quoted string. */
void cli_print_value(FILE *f, const sht_value *v);
/* The value, then " (label)" if label is not NULL: "2 (Usermode)". */
void cli_print_labeled(FILE *f, const sht_value *v, const char *label);
/* "quark  path  [start, end]  type  value[ (label)]", times in tc's
 * format (NULL: nanoseconds). */
void cli_print_interval_as(FILE *f, const sht_interval *iv, const char *path,
			   const cli_timectx *tc, const char *label);
/* The value alone as JSON. */
json_t *cli_json_value(const sht_value *v);

/* The full path of an attribute, in a buffer that grows as needed. */
typedef struct cli_path {
	char *buf;                /* NUL-terminated path; "" if unknown */
	size_t cap;               /* bytes allocated */
} cli_path;

/* Path of q into p->buf: "" for a quark the attribute tree lacks (a file
 * without one), or if memory runs out. */
const char *cli_attr_path(sht_state *ss, sht_quark q, cli_path *p);
void cli_path_free(cli_path *p);

/* Printing the intervals of a query (sht query, sht history), each with
 * its attribute's path: human lines, or one JSON array. */
typedef struct cli_ivout {
	int json;
	cli_jlist list;
	sht_state *ss;            /* where the paths and labels come from */
	const cli_timectx *tc;    /* how times print (human form) */
	cli_path path;
	/* JSON: the element reused for every interval, and its members. */
	json_t *row, *row_q, *row_path, *row_start, *row_end, *row_type;
} cli_ivout;

/* Start the output; the human form begins with tc's legend line if its
 * format is not nanoseconds. */
void cli_ivout_begin(cli_ivout *o, sht_state *ss, int json,
		     const cli_timectx *tc);
void cli_ivout_result(cli_ivout *o, const sht_result *res);
void cli_ivout_interval(cli_ivout *o, const sht_interval *iv);
/* CLI_OK, or CLI_FAIL after reporting if JSON output was lost. */
int cli_ivout_end(cli_ivout *o);

/* Header and statistics of an open file, its attribute count and
 * provider identity (sht info): r and ss open the same file. */
int cli_print_info(const char *path, sht_reader *r, sht_state *ss, int json);

/* What a build did (sht gen, sht demo). */
typedef struct cli_build_summary {
	const char *workload;     /* "staircase" or "churn" */
	const char *path;         /* NULL: no file (memory, null backend) */
	sht_backend backend;
	sht_variant variant;
	uint64_t intervals;       /* in the file; else the workload's count */
	uint64_t attributes;
	double seconds;
	uint64_t file_bytes;
} cli_build_summary;

/* "tree", "memory" or "null". */
const char *cli_backend_name(sht_backend b);

/* CLI_OK, or CLI_FAIL after reporting (JSON output lost). */
int cli_print_build_summary(const cli_build_summary *s, int json);

/* Run the integrity check on an open file (sht check): problems to
 * stderr, "FILE: ok (N nodes, M intervals)" to stdout if sound.
 * @return CLI_OK if sound, else CLI_FAIL. */
int cli_check_reader(const char *file, sht_reader *r);

/* ---- building a workload (cmd-gen.c, used by demo) --------------------- */

/* Provider version stored by `sht gen` and `sht demo` (the provider id
 * is the workload's name). */
#define CLI_WORKLOAD_VERSION 1u

/* Build the workload through the state system (its _drive function) with
 * the given backend; path is the file of the tree backend (NULL for the
 * others), opts its options.  On failure the error is reported, the
 * partial file removed, and CLI_FAIL returned. */
int cli_build_workload(const shtgen_workload *w, const char *path,
		       sht_backend backend, const sht_builder_opts *opts,
		       cli_build_summary *out);

/* Monotonic clock, in seconds. */
double cli_now(void);

#endif /* SHT_CLI_H */
