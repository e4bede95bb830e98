/*
 * cmd-serve.c: `sht serve`: the Trace Server Protocol server
 * (src/server/, docs/SERVER.md).  This file reads the command line; the
 * server itself lives in its own library on libsht's public API.  Built
 * without libmicrohttpd or jansson (SHT_WITH_SERVER=OFF), the command
 * says so.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef SHT_WITH_SERVER
#include "serve.h"
#endif

static const char serve_usage[] =
"Usage: sht serve [--port P] [--bind ADDR] [--root DIR]... [--cache DIR]\n"
"                 [--workers N] [--analysis RULES]... [--max-connections N]\n"
"                 [--timeout S] [--quiet] [--port-file FILE]\n"
"\n"
"Serve traces over the Trace Server Protocol (TSP, HTTP + JSON) under\n"
"/tsp/api, for the Eclipse trace viewer (Theia, VS Code) and any TSP\n"
"client: open traces and experiments, then the Thread Status (Control\n"
"Flow), Resources Status, CPU Usage, Events Table, Statistics, Histogram\n"
"and State System Explorer outputs.  Opening a trace starts its analyses\n"
"in the background (kernel analysis of a kernel trace, event statistics,\n"
"and each --analysis rules file); their histories go to the cache and\n"
"are reused next time, as `sht build` reuses a file.  Prints its URL,\n"
"logs a line per request, stops cleanly on SIGINT or SIGTERM.\n"
"\n"
"Options:\n"
"  --port P             TCP port (default 8080; 0: any free port)\n"
"  --bind ADDR          address to listen on (default 127.0.0.1: this\n"
"                       machine only; 0.0.0.0 or :: open it to the network)\n"
"  --root DIR           traces may be opened only from under DIR (after\n"
"                       resolving links and ..); repeatable; default: the\n"
"                       current directory\n"
"  --cache DIR          history cache (default $XDG_CACHE_HOME/sht, else\n"
"                       ~/.cache/sht)\n"
"  --workers N          HTTP threads (default: two per CPU, at least 8)\n"
"  --analysis RULES     also run this rules file (.xml or .rules) on every\n"
"                       trace; repeatable\n"
"  --max-connections N  connections at once (default 64)\n"
"  --timeout S          close a connection idle for S seconds (default 60)\n"
"  --quiet              no request log\n"
"  --port-file FILE     write the port listened on into FILE (scripts)\n"
"  -h, --help           show this help\n";

enum {
	OPT_PORT = 1,
	OPT_BIND,
	OPT_ROOT,
	OPT_CACHE,
	OPT_WORKERS,
	OPT_ANALYSIS,
	OPT_MAXCONN,
	OPT_TIMEOUT,
	OPT_QUIET,
	OPT_PORT_FILE,
};

static const cli_opt serve_opts[] = {
	{ "port", 0, 1, OPT_PORT },
	{ "bind", 0, 1, OPT_BIND },
	{ "root", 0, 1, OPT_ROOT },
	{ "cache", 0, 1, OPT_CACHE },
	{ "workers", 0, 1, OPT_WORKERS },
	{ "analysis", 0, 1, OPT_ANALYSIS },
	{ "max-connections", 0, 1, OPT_MAXCONN },
	{ "timeout", 0, 1, OPT_TIMEOUT },
	{ "quiet", 0, 0, OPT_QUIET },
	{ "port-file", 0, 1, OPT_PORT_FILE },
	{ NULL, 0, 0, 0 }
};

#ifdef SHT_WITH_SERVER

struct serve_args {
	struct srv_config cfg;
	const char *roots[64];
	const char *analyses[64];
};

static int add_to(const char **list, size_t *n, const char *opt, const char *val)
{
	if (*n == 64) {
		cli_usage_error("serve", "too many %s options (64 at most)", opt);
		return -1;
	}
	if (!*val) {
		cli_usage_error("serve", "empty value for %s", opt);
		return -1;
	}
	list[(*n)++] = val;
	return 0;
}

static int serve_opt(void *ctx, int id, const char *val)
{
	struct serve_args *a = ctx;
	uint64_t u;

	switch (id) {
	case CLI_ARG_POS:
		cli_usage_error("serve", "unexpected argument '%s'", val);
		return -1;
	case OPT_PORT:
		if (cli_parse_u64("serve", "--port", val, 0, 65535, &u) != 0)
			return -1;
		a->cfg.port = (int)u;
		return 0;
	case OPT_BIND:
		a->cfg.bind = val;
		return 0;
	case OPT_ROOT:
		return add_to(a->roots, &a->cfg.nroots, "--root", val);
	case OPT_CACHE:
		a->cfg.cache = val;
		return 0;
	case OPT_WORKERS:
		if (cli_parse_u64("serve", "--workers", val, 1, 256, &u) != 0)
			return -1;
		a->cfg.workers = (int)u;
		return 0;
	case OPT_ANALYSIS:
		if (!cli_analysis_is_rules(val)) {
			cli_usage_error("serve", "--analysis %s: not a rules file "
					"(FILE.xml or FILE.rules)", val);
			return -1;
		}
		return add_to(a->analyses, &a->cfg.nanalyses, "--analysis", val);
	case OPT_MAXCONN:
		if (cli_parse_u64("serve", "--max-connections", val, 1, 10000, &u) != 0)
			return -1;
		a->cfg.max_connections = (unsigned)u;
		return 0;
	case OPT_TIMEOUT:
		if (cli_parse_u64("serve", "--timeout", val, 1, 86400, &u) != 0)
			return -1;
		a->cfg.timeout_s = (unsigned)u;
		return 0;
	case OPT_QUIET:
		a->cfg.quiet = 1;
		return 0;
	default:                  /* OPT_PORT_FILE */
		a->cfg.port_file = val;
		return 0;
	}
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a;
	int status;

	memset(&a, 0, sizeof a);
	a.cfg.port = 8080;
	a.cfg.roots = a.roots;
	a.cfg.analyses = a.analyses;
	status = cli_parse_options(argc, argv, 1, "serve", serve_opts,
				   serve_usage, serve_opt, &a);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	return srv_run(&a.cfg) == 0 ? CLI_OK : CLI_FAIL;
}

#else

int cmd_serve(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
			 strcmp(argv[1], "-h") == 0)) {
		fputs(serve_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	(void)serve_opts;
	return cli_error("cannot serve: this sht was built without the server "
			 "(SHT_WITH_SERVER=OFF: it needs libmicrohttpd and jansson)");
}

#endif
