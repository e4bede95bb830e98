/*
 * serve-args.h: the options `sht serve` (cmd-serve.c) and `sht view`
 * (cmd-view.c) share.  Private to src/cli/.
 */
#ifndef SHT_CLI_SERVE_ARGS_H
#define SHT_CLI_SERVE_ARGS_H

#ifdef SHT_WITH_SERVER
#include "serve.h"
#endif

enum {
	OPT_PORT = 1,
	OPT_BIND,
	OPT_ROOT,
	OPT_CACHE,
	OPT_WORKERS,
	OPT_ANALYSIS,
	OPT_MAXCONN,
	OPT_TIMEOUT,
	OPT_WEB,
	OPT_QUIET,
	OPT_PORT_FILE,
	OPT_NAME,
	OPT_NO_BROWSER,
	OPT_LOG,
	OPT_COMPRESS,
	OPT_IDLE_RELEASE,
	OPT_MAP_BUDGET,
	OPT_TRACE,                /* a positional argument of sht view */
	OPT_ALLOW_ORIGIN,         /* sht serve only */
};

#define SERVE_COMMON_OPTS \
	{ "port", 0, 1, OPT_PORT }, \
	{ "bind", 0, 1, OPT_BIND }, \
	{ "root", 0, 1, OPT_ROOT }, \
	{ "cache", 0, 1, OPT_CACHE }, \
	{ "workers", 0, 1, OPT_WORKERS }, \
	{ "analysis", 0, 1, OPT_ANALYSIS }, \
	{ "max-connections", 0, 1, OPT_MAXCONN }, \
	{ "timeout", 0, 1, OPT_TIMEOUT }, \
	{ "web", 0, 1, OPT_WEB }, \
	{ "compress", 0, 1, OPT_COMPRESS }, \
	{ "idle-release", 0, 1, OPT_IDLE_RELEASE }, \
	{ "map-budget", 0, 1, OPT_MAP_BUDGET }

#ifdef SHT_WITH_SERVER

#define SERVE_LIST_MAX 64

struct serve_args {
	struct srv_config cfg;
	const char *roots[SERVE_LIST_MAX];
	const char *analyses[SERVE_LIST_MAX];
	const char *open[SERVE_LIST_MAX];
	const char *origins[SERVE_LIST_MAX];  /* --allow-origin */
	char *root_bufs[SERVE_LIST_MAX];  /* roots made by sht view */
};

/* Defaults of sht serve (port 8080, the lists wired). */
void cli_serve_init(struct serve_args *a);
/* An option of SERVE_COMMON_OPTS, or OPT_TRACE; 0, or -1 after a usage
 * message naming cmd. */
int cli_serve_opt(struct serve_args *a, const char *cmd, int id,
		  const char *val);

#endif

#endif /* SHT_CLI_SERVE_ARGS_H */
