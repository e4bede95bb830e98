/*
 * cmd-view.c: `sht view TRACE...`: `sht serve` with the traces opened as
 * one experiment and the viewer's URL printed on a line of its own (a
 * browser started on it when there is a display).  The server, its
 * options and its page are those of cmd-serve.c and src/server/.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "serve-args.h"

static const char view_usage[] =
"Usage: sht view TRACE... [--port P] [--bind ADDR] [--root DIR]...\n"
"                [--cache DIR] [--analysis RULES]... [--name NAME]\n"
"                [--no-browser] [--log] [--web DIR] [--compress WHEN]\n"
"                [--idle-release S] [--map-budget MIB]\n"
"\n"
"Look at traces in a browser: start the server of `sht serve`, open the\n"
"traces (CTF directories or VSTF files) as one experiment, print the URL\n"
"of sht's viewer showing it on a line of its own, open that page in a\n"
"browser when a display is available ($DISPLAY or $WAYLAND_DISPLAY, via\n"
"xdg-open), and serve until interrupted (Ctrl-C).  The analyses run in\n"
"the background; the page fills in as they progress.  On a remote\n"
"machine, forward the port through SSH (docs/VIEWER.md).\n"
"\n"
"Options:\n"
"  --port P             TCP port (default 8080, or any free port if 8080\n"
"                       is taken; 0: any free port)\n"
"  --bind ADDR          address to listen on (default 127.0.0.1)\n"
"  --root DIR           the page may open more traces from under DIR;\n"
"                       repeatable (default: the traces' directories)\n"
"  --cache DIR          history cache (default $XDG_CACHE_HOME/sht, else\n"
"                       ~/.cache/sht)\n"
"  --analysis RULES     also run this rules file (.xml or .rules)\n"
"  --name NAME          the experiment's name (default: the first trace's)\n"
"  --no-browser         do not start a browser\n"
"  --log                log a line per request (stderr)\n"
"  --web DIR            serve the viewer's files from DIR\n"
"  --compress WHEN      gzip big answers: auto (default: not to a browser\n"
"                       on this machine), always, never\n"
"  --idle-release S     after S seconds without a request, give back the\n"
"                       memory of earlier answers (default 2; 0: never)\n"
"  --map-budget MIB     MiB of each history kept mapped between idle\n"
"                       releases (default 0: no bound)\n"
"  -h, --help           show this help\n";

static const cli_opt view_opts[] = {
	SERVE_COMMON_OPTS,
	{ "name", 0, 1, OPT_NAME },
	{ "no-browser", 0, 0, OPT_NO_BROWSER },
	{ "log", 0, 0, OPT_LOG },
	{ NULL, 0, 0, 0 }
};

#ifdef SHT_WITH_SERVER

static int view_opt(void *ctx, int id, const char *val)
{
	struct serve_args *a = ctx;

	switch (id) {
	case CLI_ARG_POS:
		return cli_serve_opt(a, "view", OPT_TRACE, val);
	case OPT_NAME:
		a->cfg.exp_name = val;
		return 0;
	case OPT_NO_BROWSER:
		a->cfg.browser = 0;
		return 0;
	case OPT_LOG:
		a->cfg.quiet = 0;
		return 0;
	default:
		return cli_serve_opt(a, "view", id, val);
	}
}

/* Without --root: the directory holding each trace (once each). */
static int default_roots(struct serve_args *a)
{
	for (size_t i = 0; i < a->cfg.nopen; i++) {
		char *real = realpath(a->open[i], NULL), *slash;
		int seen = 0;

		if (!real)
			return cli_error("cannot view %s: no such file or "
					 "directory", a->open[i]);
		slash = strrchr(real, '/');
		if (slash == real)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		for (size_t k = 0; k < a->cfg.nroots; k++)
			seen |= strcmp(a->roots[k], real) == 0;
		if (seen) {
			free(real);
			continue;
		}
		a->root_bufs[a->cfg.nroots] = real;
		a->roots[a->cfg.nroots++] = real;
	}
	return CLI_OK;
}

int cmd_view(int argc, char **argv)
{
	struct serve_args a;
	int status;

	cli_serve_init(&a);
	a.cfg.port_fallback = 1;
	a.cfg.browser = 1;
	a.cfg.quiet = 1;
	status = cli_parse_options(argc, argv, 1, "view", view_opts,
				   view_usage, view_opt, &a);
	if (status < 0)
		return cli_finish_output(CLI_OK);   /* --help */
	if (status != CLI_OK)
		return status;
	if (!a.cfg.nopen)
		return cli_usage_error("view", "no trace to view");
	if (!a.cfg.nroots)
		status = default_roots(&a);
	if (status == CLI_OK)
		status = srv_run(&a.cfg) == 0 ? CLI_OK : CLI_FAIL;
	for (size_t i = 0; i < SERVE_LIST_MAX; i++)
		free(a.root_bufs[i]);
	return status;
}

#else

int cmd_view(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 ||
			 strcmp(argv[1], "-h") == 0)) {
		fputs(view_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	(void)view_opts;
	return cli_error("cannot view: this sht was built without the server "
			 "(SHT_WITH_SERVER=OFF: it needs libmicrohttpd and jansson)");
}

#endif
