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
#include "serve-args.h"

static const char serve_usage[] =
"Usage: sht serve [--port P] [--bind ADDR] [--root DIR]... [--cache DIR]\n"
"                 [--workers N] [--analysis RULES]... [--max-connections N]\n"
"                 [--timeout S] [--quiet] [--port-file FILE] [--web DIR]\n"
"                 [--compress WHEN] [--idle-release S] [--map-budget MIB]\n"
"                 [--allow-origin ORIGIN]...\n"
"\n"
"Serve traces over the Trace Server Protocol (TSP, HTTP + JSON) under\n"
"/tsp/api, for the Eclipse trace viewer (Theia, VS Code) and any TSP\n"
"client: open traces and experiments, then the Thread Status (Control\n"
"Flow), Resources Status, CPU Usage, Events Table, Statistics, Histogram\n"
"and State System Explorer outputs; and sht's own viewer at / (a page\n"
"of the same outputs, docs/VIEWER.md).  Opening a trace starts its\n"
"analyses in the background (kernel analysis of a kernel trace, event\n"
"statistics, and each --analysis rules file); their histories go to the\n"
"cache and are reused next time, as `sht build` reuses a file.  Prints\n"
"its URLs, logs a line per request, stops cleanly on SIGINT or SIGTERM.\n"
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
"  --max-connections N  connections at once (default 64); more are closed\n"
"                       as they come\n"
"  --timeout S          close a connection silent for S seconds (default\n"
"                       60; before its first request, 10 at most)\n"
"  --quiet              no request log\n"
"  --port-file FILE     write the port listened on into FILE (scripts)\n"
"  --web DIR            serve the viewer's files from DIR (default: those\n"
"                       installed with sht)\n"
"  --compress WHEN      gzip big answers to clients that accept it: auto\n"
"                       (default: unless the client is on this machine,\n"
"                       where compressing costs more than it saves),\n"
"                       always, never\n"
"  --idle-release S     after S seconds without a request, give back the\n"
"                       memory of earlier answers: the history pages\n"
"                       mapped (the kernel's page cache keeps them) and\n"
"                       the heap's free pages (default 2; 0: never)\n"
"  --map-budget MIB     a history's blocks that queries read stay mapped\n"
"                       (RssFile) until the idle release; past MIB MiB of\n"
"                       them, further leaves are copied, not mapped\n"
"                       (default 0: no bound; 128 keeps a session on a\n"
"                       2 GB trace under 200 MiB, at more CPU per screen)\n"
"  --allow-origin ORIGIN\n"
"                       let the web pages of ORIGIN (scheme://host[:port],\n"
"                       e.g. http://localhost:3000) call the server from a\n"
"                       browser (CORS); repeatable; * for any page, which\n"
"                       lets every site you visit read your traces.\n"
"                       Default: none (TSP clients in Node and sht's own\n"
"                       viewer need none)\n"
"  -h, --help           show this help\n";

static const cli_opt serve_opts[] = {
	SERVE_COMMON_OPTS,
	{ "quiet", 0, 0, OPT_QUIET },
	{ "port-file", 0, 1, OPT_PORT_FILE },
	{ "allow-origin", 0, 1, OPT_ALLOW_ORIGIN },
	{ NULL, 0, 0, 0 }
};

#ifdef SHT_WITH_SERVER

static int add_to(const char **list, size_t *n, const char *cmd,
		  const char *opt, const char *val)
{
	if (*n == SERVE_LIST_MAX) {
		cli_usage_error(cmd, "too many %s (64 at most)", opt);
		return -1;
	}
	if (!*val) {
		cli_usage_error(cmd, "empty value for %s", opt);
		return -1;
	}
	list[(*n)++] = val;
	return 0;
}

static int compress_opt(struct serve_args *a, const char *cmd, const char *val)
{
	static const struct { const char *name; int mode; } t[] = {
		{ "auto", SRV_COMPRESS_AUTO }, { "always", SRV_COMPRESS_ALWAYS },
		{ "never", SRV_COMPRESS_NEVER },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(val, t[i].name) == 0) {
			a->cfg.compress = t[i].mode;
			return 0;
		}
	cli_usage_error(cmd, "invalid value '%s' for --compress: "
			"auto, always or never", val);
	return -1;
}

int cli_serve_opt(struct serve_args *a, const char *cmd, int id,
		  const char *val)
{
	uint64_t u;

	switch (id) {
	case OPT_PORT:
		if (cli_parse_u64(cmd, "--port", val, 0, 65535, &u) != 0)
			return -1;
		a->cfg.port = (int)u;
		a->cfg.port_fallback = 0;
		return 0;
	case OPT_BIND:
		a->cfg.bind = val;
		return 0;
	case OPT_ROOT:
		return add_to(a->roots, &a->cfg.nroots, cmd, "--root", val);
	case OPT_CACHE:
		a->cfg.cache = val;
		return 0;
	case OPT_WORKERS:
		if (cli_parse_u64(cmd, "--workers", val, 1, 256, &u) != 0)
			return -1;
		a->cfg.workers = (int)u;
		return 0;
	case OPT_ANALYSIS:
		if (!cli_analysis_is_rules(val)) {
			cli_usage_error(cmd, "--analysis %s: not a rules file "
					"(FILE.xml or FILE.rules)", val);
			return -1;
		}
		return add_to(a->analyses, &a->cfg.nanalyses, cmd,
			      "--analysis", val);
	case OPT_MAXCONN:
		if (cli_parse_u64(cmd, "--max-connections", val, 1, 10000, &u) != 0)
			return -1;
		a->cfg.max_connections = (unsigned)u;
		return 0;
	case OPT_TIMEOUT:
		if (cli_parse_u64(cmd, "--timeout", val, 1, 86400, &u) != 0)
			return -1;
		a->cfg.timeout_s = (unsigned)u;
		return 0;
	case OPT_WEB:
		a->cfg.web = val;
		return 0;
	case OPT_COMPRESS:
		return compress_opt(a, cmd, val);
	case OPT_IDLE_RELEASE:
		if (cli_parse_u64(cmd, "--idle-release", val, 0, 86400, &u) != 0)
			return -1;
		a->cfg.idle_release_s = (unsigned)u;
		return 0;
	case OPT_MAP_BUDGET:
		if (cli_parse_u64(cmd, "--map-budget", val, 0, 1u << 20, &u) != 0)
			return -1;
		a->cfg.map_budget_mib = (unsigned)u;
		return 0;
	case OPT_TRACE:
		return add_to(a->open, &a->cfg.nopen, cmd, "traces", val);
	default:
		cli_usage_error(cmd, "unexpected argument '%s'", val);
		return -1;
	}
}

void cli_serve_init(struct serve_args *a)
{
	memset(a, 0, sizeof *a);
	a->cfg.port = 8080;
	a->cfg.idle_release_s = 2;
	a->cfg.map_budget_mib = SRV_MAP_BUDGET_MIB;
	a->cfg.roots = a->roots;
	a->cfg.analyses = a->analyses;
	a->cfg.open = a->open;
	a->cfg.allow_origins = a->origins;
}

static int serve_opt(void *ctx, int id, const char *val)
{
	struct serve_args *a = ctx;

	switch (id) {
	case CLI_ARG_POS:
		cli_usage_error("serve", "unexpected argument '%s'", val);
		return -1;
	case OPT_QUIET:
		a->cfg.quiet = 1;
		return 0;
	case OPT_PORT_FILE:
		a->cfg.port_file = val;
		return 0;
	case OPT_ALLOW_ORIGIN:
		if (!srv_origin_valid(val)) {
			cli_usage_error("serve", "invalid value '%s' for "
					"--allow-origin: an origin as browsers "
					"send it, scheme://host[:port] (e.g. "
					"http://localhost:3000), or *", val);
			return -1;
		}
		return add_to(a->origins, &a->cfg.nallow_origins, "serve",
			      "--allow-origin", val);
	default:
		return cli_serve_opt(a, "serve", id, val);
	}
}

int cmd_serve(int argc, char **argv)
{
	struct serve_args a;
	int status;

	cli_serve_init(&a);
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
