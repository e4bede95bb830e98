/*
 * serve.h: the entry point of `sht serve`, the Trace Server Protocol
 * server (src/server/), for the command line (src/cli/cmd-serve.c).
 *
 * The server is built on the public API of libsht only (<sht/sht.h>),
 * libmicrohttpd for HTTP and jansson for JSON; docs/SERVER.md describes
 * what it serves.
 */
#ifndef SHT_SERVER_SERVE_H
#define SHT_SERVER_SERVE_H

#include <stddef.h>

/* What the command line says. */
struct srv_config {
	const char *bind;         /* address to listen on: "127.0.0.1" */
	int port;                 /* 8080; 0: any free port */
	const char **roots;       /* directories traces may be opened from */
	size_t nroots;            /* 0: the current directory */
	const char *cache;        /* history cache; NULL: $XDG_CACHE_HOME/sht */
	int workers;              /* HTTP threads; 0: two per CPU, 8 at least */
	const char **analyses;    /* rules files run on every trace */
	size_t nanalyses;
	unsigned max_connections; /* 0: 64 */
	unsigned timeout_s;       /* idle connection timeout; 0: 60 */
	int quiet;                /* no request log */
	const char *port_file;    /* write the port there once listening */
	const char *web;          /* the viewer's files; NULL: found */
	/* sht view: traces opened as one experiment at start-up */
	const char **open;
	size_t nopen;
	const char *exp_name;     /* the experiment's name; NULL: from the
	                             first trace */
	int browser;              /* start a browser on the page (xdg-open,
	                             when a display is set) */
	int port_fallback;        /* port busy: take any free port */
	int compress;             /* SRV_COMPRESS_AUTO, _ALWAYS or _NEVER */
	unsigned idle_release_s;  /* give memory back after this many idle
	                             seconds; 0: never */
	unsigned map_budget_mib;  /* MiB of each history's blocks kept mapped
	                             (sht_reader_opts.map_budget); 0: all */
	const char **allow_origins; /* web origins whose pages may call the
	                             server (CORS); "*": any */
	size_t nallow_origins;
};

/* origin is a valid --allow-origin: "*" or scheme://host[:port] (http or
 * https, nothing after the host and port), as a browser sends Origin. */
int srv_origin_valid(const char *origin);

/* --map-budget's default, in MiB; 0: no bound (docs/SERVER.md, "Memory":
 * on a 2 GB trace 128 keeps a session under 200 MiB, and costs a fifth
 * more CPU per whole-trace screen). */
#define SRV_MAP_BUDGET_MIB 0

/* When big answers are gzipped (the client must offer gzip in any case):
 * auto, to clients on other machines only (on the loopback the copy of
 * the bytes costs less than compressing them); always; never. */
enum { SRV_COMPRESS_AUTO = 0, SRV_COMPRESS_ALWAYS, SRV_COMPRESS_NEVER };

/*
 * Run the server until SIGINT or SIGTERM: print its URL, serve, then stop
 * cleanly (requests in flight finish, analyses stop and leave no history
 * behind).  Returns 0, or 1 after printing why it could not start.
 */
int srv_run(const struct srv_config *cfg);

#endif /* SHT_SERVER_SERVE_H */
