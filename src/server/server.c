/*
 * server.c: srv_run, the life of `sht serve`: resolve the roots and the
 * cache directory, listen, print the URL, serve until SIGINT or SIGTERM,
 * then stop in order: no new connection, the requests in flight finish,
 * every analysis is cancelled (its temporary history removed), and
 * everything is freed.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "evline.h"
#include "http.h"
#include "srv.h"

void srv_log(struct srv *s, const char *fmt, ...)
{
	va_list ap;

	if (s->cfg.quiet)
		return;
	pthread_mutex_lock(&s->log_lock);
	fputs("sht serve: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&s->log_lock);
}

/* mkdir -p, mode 0700 for what it creates. */
static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0700) != 0 && errno != EEXIST)
			return -1;
		buf[i] = path[i];
	}
	return 0;
}

static char *default_cache(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char buf[PATH_MAX];

	if (xdg && xdg[0] == '/')
		snprintf(buf, sizeof buf, "%s/sht", xdg);
	else if (home && home[0] == '/')
		snprintf(buf, sizeof buf, "%s/.cache/sht", home);
	else
		snprintf(buf, sizeof buf, "/tmp/sht-cache-%ld", (long)getuid());
	return strdup(buf);
}

/* A --analysis file must compile: a user who gave a broken one learns it
 * at start-up, as with sht build, not from an empty State System
 * Explorer branch later (each trace's analysis compiles it again). */
static int check_rules(const char *path)
{
	sht_rules *r = NULL;

	if (access(path, R_OK) != 0) {
		fprintf(stderr, "sht: cannot serve: --analysis %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (sht_rules_load(path, NULL, &r) != SHT_OK) {
		fprintf(stderr, "sht: cannot serve: --analysis %s: %s\n", path,
			sht_errmsg());
		return -1;
	}
	sht_rules_destroy(r);
	return 0;
}

int srv_setup(struct srv *s, const struct srv_config *cfg)
{
	const char *dot = ".";
	char *cache;
	size_t stale;

	s->cfg = *cfg;
	if (!s->cfg.bind)
		s->cfg.bind = "127.0.0.1";
	if (s->cfg.workers <= 0) {          /* a slow request (a table page
	                                       far into a CTF trace) must not
	                                       hold the fast ones back */
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		s->cfg.workers = 2 * n > 8 ? (int)(2 * n) : 8;
	}
	ev_search_limit(s->cfg.workers);     /* half of them may search */
	if (!s->cfg.max_connections)
		s->cfg.max_connections = 64;
	if (!s->cfg.timeout_s)
		s->cfg.timeout_s = 60;
	{       /* a whole-trace screen's query on every CPU, up to 4 */
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		s->query_threads = n > 4 ? 4 : n < 1 ? 1 : (unsigned)n;
	}
	pthread_mutex_init(&s->log_lock, NULL);
	srv_registry_init(&s->reg);
	s->roots = calloc(cfg->nroots ? cfg->nroots : 1, sizeof *s->roots);
	if (!s->roots)
		return -1;
	for (size_t i = 0; i < (cfg->nroots ? cfg->nroots : 1); i++) {
		const char *r = cfg->nroots ? cfg->roots[i] : dot;

		s->roots[i] = realpath(r, NULL);
		if (!s->roots[i]) {
			fprintf(stderr, "sht: cannot serve: --root %s: %s\n", r,
				strerror(errno));
			return -1;
		}
		s->nroots++;
	}
	cache = cfg->cache ? strdup(cfg->cache) : default_cache();
	if (!cache || mkdirs(cache) != 0 || !(s->cache = realpath(cache, NULL))) {
		fprintf(stderr, "sht: cannot serve: cache directory %s: %s\n",
			cache ? cache : "?", strerror(errno));
		free(cache);
		return -1;
	}
	free(cache);
	stale = srv_clean_stale(s->cache);
	if (stale && !cfg->quiet)
		fprintf(stderr, "sht serve: removed %zu partial file%s left in %s by a "
			"server that did not stop\n", stale, stale == 1 ? "" : "s", s->cache);
	srv_web_find(s);
	for (size_t i = 0; i < cfg->nanalyses; i++)
		if (check_rules(cfg->analyses[i]) != 0)
			return -1;
	return 0;
}

void srv_teardown(struct srv *s)
{
	srv_registry_free(&s->reg);
	for (size_t i = 0; i < s->nroots; i++)
		free(s->roots[i]);
	free(s->roots);
	free(s->cache);
	free(s->web);
	srv_view_done(s);
}

static void print_url(struct srv *s, unsigned port)
{
	const char *host = s->cfg.bind;
	int v6 = strchr(host, ':') != NULL;

	printf("sht serve: listening on http://%s%s%s:%u/tsp/api (cache %s)\n",
	       v6 ? "[" : "", host, v6 ? "]" : "", port, s->cache);
	if (s->web && !s->cfg.nopen)
		printf("sht serve: the viewer is at http://%s%s%s:%u/\n",
		       v6 ? "[" : "", host, v6 ? "]" : "", port);
	fflush(stdout);
	if (s->cfg.port_file) {
		FILE *f = fopen(s->cfg.port_file, "w");

		if (f) {
			fprintf(f, "%u\n", port);
			fclose(f);
		}
	}
}

/*
 * A screen's answer is built in buffers of tens of MB (the JSON, the 2D
 * query's result, its grouping) freed at the end of the request.  With
 * glibc's defaults each of them is a fresh mmap (or the freed top of a
 * heap is given back), so every request page-faults its buffers in again
 * and zero-fills them: 13 % of a whole-trace Control Flow request's time.
 * Kept in the heap instead (mmap only above 32 MiB, the largest glibc
 * allows; no trimming below 256 MiB), the memory of one request is
 * reused by the next.  One arena for every thread: with two, a Control
 * Flow screen answered by a worker on one arena and a Resources screen on
 * the other each kept its own peak (~20 + ~35 MiB), where one arena
 * reuses the first for the second; and malloc_trim gives back the free
 * pages of the main arena (idle.c) but not the top of another arena,
 * which kept ~35 MiB at rest.  The server allocates little per
 * request (big buffers, grown a few times), so the threads do not queue
 * on the one lock (docs/SERVER.md, "Memory").
 */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_ARENA_MAX, 1);
#endif
}

int srv_run(const struct srv_config *cfg)
{
	struct srv s;
	struct srv_http *h;
	sigset_t set;
	int sig = 0;

	memset(&s, 0, sizeof s);
	tune_malloc();
	/* Every thread started from here on leaves SIGINT and SIGTERM to
	 * the sigwait below. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (srv_setup(&s, cfg) != 0 || !(h = srv_http_start(&s))) {
		srv_teardown(&s);
		return 1;
	}
	print_url(&s, srv_http_port(h));
	if (srv_view_open(&s, srv_http_port(h)) != 0)
		sig = -1;
	while (sig == 0) {
		struct timespec tick = { 0, 250 * 1000000 };
		int got = sigtimedwait(&set, NULL, &tick);

		if (got > 0)
			sig = got;
		else if (srv_idle_tick(&s))
			srv_log(&s, "idle: memory of earlier answers given back");
	}
	atomic_store(&s.stopping, 1);
	if (sig > 0)
		srv_log(&s, "stopping (signal %d): finishing the requests in "
			"flight", sig);
	srv_http_stop(h, 30.0);
	srv_teardown(&s);
	srv_log(&s, "stopped");
	pthread_mutex_destroy(&s.log_lock);
	return sig > 0 ? 0 : 1;
}
