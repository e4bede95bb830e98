/*
 * http.c: the HTTP side, on libmicrohttpd: a thread pool answering on one
 * address, with the limits of docs/SERVER.md "Security": request headers
 * within MHD's connection memory (64 KiB), bodies up to SRV_BODY_MAX (413
 * beyond), connections past --max-connections closed as they come,
 * --timeout on a silent connection, shorter before its first request.  The checks of guard.c come first (Host on the
 * loopback: 403; API bodies of another type than JSON: 415; preflights
 * of origins not allowed: 403).  Each request's body is gathered, handed
 * to srv_handle (route.c), and its JSON answer sent with exactly
 * "Content-Type: application/json" (the client compares that string),
 * CORS headers for the pages of the origins of --allow-origin only, and
 * gzip when the client offers it, the body is big and the client is not
 * on this machine (--compress: docs/SERVER.md).  One log line per
 * request: method, path, status, milliseconds.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "srv.h"

/* The longest a new connection may stay silent before its first request
 * (--timeout if shorter): connections opened and left idle cannot hold
 * every place for long.  Once it has sent one, a connection has
 * --timeout, between requests too: a client that keeps connections for
 * reuse (Node's agent, browsers) and is busy elsewhere for a while must
 * not find its next request failing on a connection closed meanwhile. */
#define SRV_CONN_WAIT_S 10

/* Why a request is refused before it is handled (guard.c). */
enum deny {
	DENY_NONE,
	DENY_HOST,                /* 403: not a loopback Host */
	DENY_TYPE,                /* 415: an API body that is not JSON */
	DENY_ORIGIN,              /* 403: a preflight of an origin not allowed */
};

/* One request in progress. */
struct conn {
	struct srv_buf body;
	int too_big;
	enum deny deny;
	size_t dropped;           /* body bytes of a refused request */
	const char *cors;         /* Access-Control-Allow-Origin, or NULL */
	int preflight;            /* OPTIONS with Access-Control-Request-Method */
	double t0;
	int status;
	char method[12];
	char *path;
};

struct srv_http {
	struct srv *srv;
	struct MHD_Daemon *d;
	atomic_int active;        /* requests between first call and sent */
	atomic_uint conns;        /* connections let in and not closed */
	atomic_int refusing;      /* the last connection was refused */
	int loopback;             /* listening on a loopback address */
	unsigned wait_s;          /* the wait for a first request (above) */
	unsigned port;
};

static const char *arg_of(void *conn, const char *key)
{
	return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
}

static enum srv_method method_of(const char *m)
{
	static const struct { const char *name; enum srv_method m; } t[] = {
		{ "GET", SRV_GET }, { "POST", SRV_POST }, { "PUT", SRV_PUT },
		{ "DELETE", SRV_DELETE }, { "OPTIONS", SRV_OPTIONS },
		{ "HEAD", SRV_HEAD },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(m, t[i].name) == 0)
			return t[i].m;
	return SRV_OTHER;
}

/* A file of the viewer: its type, no caching without asking, and a
 * policy that lets the page load only from this server. */
static void add_page_headers(struct MHD_Response *r, const char *type)
{
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-cache");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; style-src 'self' 'unsafe-inline'; "
				"img-src 'self' data:; "
				"object-src 'none'; base-uri 'none'; "
				"frame-ancestors 'none'");
}

/* An API answer: JSON; for a page of an allowed origin, the CORS headers
 * that let it read the answer (and, on a preflight, send its request). */
static void add_headers(struct MHD_Response *r, const struct srv_reply *rep,
			const struct conn *st)
{
	if (rep->ctype) {
		add_page_headers(r, rep->ctype);
		return;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (!st->cors)
		return;
	MHD_add_response_header(r, "Access-Control-Allow-Origin", st->cors);
	if (strcmp(st->cors, "*") != 0)
		MHD_add_response_header(r, "Vary", "Origin");
	if (!st->preflight)
		return;
	MHD_add_response_header(r, "Access-Control-Allow-Headers",
				"content-type, accept");
	MHD_add_response_header(r, "Access-Control-Allow-Methods",
				"GET, POST, PUT, DELETE, OPTIONS, HEAD");
	MHD_add_response_header(r, "Access-Control-Max-Age", "600");
}

static void free_parts(void *cls)
{
	struct srv_reply *parts = cls;

	srv_reply_free(parts);
	free(parts);
}

/* The response of rep's body, which it takes (rep->body, body2 NULL
 * after, unless it fails: NULL).  A body in two parts is sent as they
 * lie (an I/O vector), not copied into one. */
static struct MHD_Response *make_response(struct srv_reply *rep)
{
	struct MHD_Response *r;
	struct srv_reply *parts;
	struct MHD_IoVec iov[2];

	if (!rep->body2) {
		r = MHD_create_response_from_buffer(rep->len, rep->body,
						    MHD_RESPMEM_MUST_FREE);
		if (r)
			rep->body = NULL;
		return r;
	}
	if (!(parts = calloc(1, sizeof *parts)))
		return NULL;
	iov[0].iov_base = rep->body;
	iov[0].iov_len = rep->len;
	iov[1].iov_base = rep->body2;
	iov[1].iov_len = rep->len2;
	r = MHD_create_response_from_iovec(iov, 2, free_parts, parts);
	if (!r) {
		free(parts);
		return NULL;
	}
	*parts = *rep;           /* freed with the response */
	rep->body = rep->body2 = NULL;
	return r;
}

static enum MHD_Result send_reply(struct srv_http *h, struct MHD_Connection *c,
				  struct conn *st, struct srv_reply *rep)
{
	struct MHD_Response *r;
	enum MHD_Result ok;
	char timing[48], keep[32];
	int gz = 0;

	if (rep->gzip_ok && rep->len + rep->len2 >= 4096 &&
	    (!rep->ctype || strncmp(rep->ctype, "text/", 5) == 0))
		gz = srv_gzip(rep) == 0;
	r = make_response(rep);
	if (!r) {
		srv_reply_free(rep);
		return MHD_NO;
	}
	add_headers(r, rep, st);
	/* How long a kept-alive connection waits for the next request:
	 * clients that read it (Node's agent) stop reusing it before. */
	snprintf(keep, sizeof keep, "timeout=%u", h->srv->cfg.timeout_s);
	MHD_add_response_header(r, "Keep-Alive", keep);
	if (rep->retry_after) {        /* when to ask again (RFC 9110 10.2.3) */
		snprintf(keep, sizeof keep, "%u", rep->retry_after);
		MHD_add_response_header(r, "Retry-After", keep);
	}
	if (gz)
		MHD_add_response_header(r, "Content-Encoding", "gzip");
	/* The time to the answer (not its sending), for browsers' developer
	 * tools and the benchmarks (W3C Server Timing). */
	snprintf(timing, sizeof timing, "app;dur=%.2f", (srv_now() - st->t0) * 1e3);
	MHD_add_response_header(r, "Server-Timing", timing);
	st->status = rep->status;
	ok = MHD_queue_response(c, (unsigned)rep->status, r);
	MHD_destroy_response(r);
	return ok;
}

static int accepts_gzip(struct MHD_Connection *c)
{
	const char *ae = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     "Accept-Encoding");
	return ae && strstr(ae, "gzip") != NULL;
}

/* sa is a loopback address (127.0.0.0/8, ::1, or ::ffff:127.x). */
static int is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}

/* Is the client on the loopback? */
static int from_loopback(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	return ci && ci->client_addr && is_loopback(ci->client_addr);
}

/* Gzip this request's answer if big? (The client's offer, and --compress.) */
static int may_gzip(const struct srv_http *h, struct MHD_Connection *c)
{
	switch (h->srv->cfg.compress) {
	case SRV_COMPRESS_NEVER:
		return 0;
	case SRV_COMPRESS_ALWAYS:
		return accepts_gzip(c);
	default:
		return accepts_gzip(c) && !from_loopback(c);
	}
}

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* A path of the API (/tsp/api, sht's /sht/api), not a file of the viewer. */
static int is_api(const char *url)
{
	return (strncmp(url, "/tsp/api", 8) == 0 &&
		(url[8] == '/' || url[8] == '\0')) ||
	       strncmp(url, "/sht/api/", 9) == 0;
}

/* The checks of guard.c on a request just received (headers read); sets
 * st's CORS answer and, if it is refused, why. */
static void check_request(const struct srv_http *h, struct MHD_Connection *c,
			  struct conn *st, const char *url)
{
	const struct srv_config *cfg = &h->srv->cfg;
	const char *host = header(c, "Host");
	int body = strcmp(st->method, "POST") == 0 || strcmp(st->method, "PUT") == 0;

	st->cors = srv_origin_allowed(cfg->allow_origins, cfg->nallow_origins,
				      header(c, "Origin"));
	st->preflight = strcmp(st->method, "OPTIONS") == 0 &&
			header(c, "Origin") &&
			header(c, "Access-Control-Request-Method");
	/* No Host at all: a program, never a browser (they all send one),
	 * so no rebinding to fear. */
	if (h->loopback && host && !srv_host_is_loopback(host))
		st->deny = DENY_HOST;
	else if (!is_api(url))
		st->deny = DENY_NONE;
	else if (body && !srv_ctype_is_json(header(c, "Content-Type")))
		st->deny = DENY_TYPE;
	else if (st->preflight && !st->cors)
		st->deny = DENY_ORIGIN;
}

static void deny_reply(struct MHD_Connection *c, const struct conn *st,
		       struct srv_reply *rep)
{
	const char *v;

	switch (st->deny) {
	case DENY_HOST:
		srv_reply_error(rep, 403, "Forbidden host",
				"this server listens on the loopback and answers "
				"requests for localhost, 127.0.0.1 or [::1] only, "
				"not for '%.200s' (a web page could reach it under "
				"another name by DNS rebinding)", header(c, "Host"));
		break;
	case DENY_TYPE:
		v = header(c, "Content-Type");
		srv_reply_error(rep, 415, "Unsupported media type",
				"a %s body must be JSON sent with Content-Type: "
				"application/json, not %s%.200s%s", st->method,
				v ? "'" : "", v ? v : "without a Content-Type",
				v ? "'" : "");
		break;
	default:
		v = header(c, "Origin");
		srv_reply_error(rep, 403, "Origin not allowed",
				"pages of %.200s may not call this server (start it "
				"with --allow-origin %.200s to let them)", v, v);
		break;
	}
}

static enum MHD_Result answer(struct srv_http *h, struct MHD_Connection *c,
			      struct conn *st, const char *url)
{
	struct srv_req req;
	struct srv_reply rep;
	enum MHD_Result ok;

	memset(&rep, 0, sizeof rep);
	rep.gzip_ok = may_gzip(h, c);
	if (st->too_big) {
		srv_reply_error(&rep, 413, "Request too large",
				"the body exceeds %u bytes", SRV_BODY_MAX);
		return send_reply(h, c, st, &rep);
	}
	if (st->deny) {
		deny_reply(c, st, &rep);
		return send_reply(h, c, st, &rep);
	}
	if (st->preflight && is_api(url)) {   /* of an allowed origin */
		srv_reply_json(&rep, 200, json_object());
		return send_reply(h, c, st, &rep);
	}
	memset(&req, 0, sizeof req);
	req.srv = h->srv;
	req.method = method_of(st->method);
	req.path = url;
	req.body = st->body.p;
	req.body_len = st->body.len;
	req.arg = arg_of;
	req.conn = c;
	srv_busy_begin(h->srv);
	srv_handle(&req, &rep);
	json_decref(req.root);
	ok = send_reply(h, c, st, &rep);
	srv_reply_free(&rep);
	srv_busy_end(h->srv);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct srv_http *h = cls;
	struct conn *st = *con_cls;
	const char *cl;

	(void)version;
	if (!st) {
		st = calloc(1, sizeof *st);
		if (!st)
			return MHD_NO;
		st->t0 = srv_now();
		snprintf(st->method, sizeof st->method, "%s", method);
		st->path = strndup(url, 2048);
		cl = header(c, "Content-Length");
		if (cl && strtoull(cl, NULL, 10) > SRV_BODY_MAX)
			st->too_big = 1;
		check_request(h, c, st, url);
		atomic_fetch_add(&h->active, 1);
		*con_cls = st;
		/* From the first request on: --timeout (SRV_CONN_WAIT_S). */
		if (h->wait_s != h->srv->cfg.timeout_s)
			MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
						  h->srv->cfg.timeout_s);
		/* Refused before its body is read (MHD then closes). */
		return st->too_big ? answer(h, c, st, url) : MHD_YES;
	}
	if (st->status)               /* answered early: drop the rest */
		return *upload_size = 0, MHD_YES;
	if (*upload_size && st->deny) {
		/* Refused: the body is read (a small one: the client then
		 * reads the answer rather than a reset) but not kept. */
		st->dropped += *upload_size;
		*upload_size = 0;
		if (st->dropped > SRV_BODY_MAX)
			return answer(h, c, st, url);
		return MHD_YES;
	}
	if (*upload_size) {
		if (st->body.len + *upload_size > SRV_BODY_MAX)
			st->too_big = 1;
		else
			srv_buf_put(&st->body, upload, *upload_size);
		if (st->body.oom)
			st->too_big = 1;
		*upload_size = 0;
		return st->too_big ? answer(h, c, st, url) : MHD_YES;
	}
	return answer(h, c, st, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode why)
{
	struct srv_http *h = cls;
	struct conn *st = *con_cls;

	(void)c;
	if (!st)
		return;
	srv_log(h->srv, "%s %s %d %.1f ms%s", st->method, st->path ? st->path : "?",
		st->status, (srv_now() - st->t0) * 1e3,
		why == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
	srv_buf_free(&st->body);
	free(st->path);
	free(st);
	*con_cls = NULL;
	atomic_fetch_sub(&h->active, 1);
}

/*
 * The limit of --max-connections.  MHD's own limit (kept above ours)
 * stops it from accepting: further connections would wait in the
 * kernel's listen queue, an idle flood holding every client off for the
 * length of --timeout.  Instead each connection is counted here when MHD
 * accepts it (on_accept, MHD's accept policy) and uncounted when it
 * closes (on_connection); one past the limit is closed at once, before
 * any byte is read, and the client sees its connection closed.
 *
 * MHD calls the policy, then the "started" notification, on the thread
 * that accepted, one connection at a time.  A connection let in that
 * never starts (MHD out of memory in between) is uncounted at that
 * thread's next accept, by this thread's pending mark.  (One server per
 * process: the mark is per thread, not per server.)
 */
static _Thread_local int pending;

static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t len)
{
	struct srv_http *h = cls;
	unsigned n;

	(void)addr;
	(void)len;
	if (pending) {
		atomic_fetch_sub(&h->conns, 1);
		pending = 0;
	}
	n = atomic_load(&h->conns);
	do {
		if (n >= h->srv->cfg.max_connections) {
			if (!atomic_exchange(&h->refusing, 1))
				srv_log(h->srv, "refusing connections: %u open "
					"(--max-connections)", n);
			return MHD_NO;
		}
	} while (!atomic_compare_exchange_weak(&h->conns, &n, n + 1));
	pending = 1;
	atomic_store(&h->refusing, 0);
	return MHD_YES;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct srv_http *h = cls;

	(void)c;
	(void)ctx;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		pending = 0;
	else
		atomic_fetch_sub(&h->conns, 1);
}

static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct srv_http *h = cls;
	char msg[512];

	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	srv_log(h->srv, "http: %s", msg);
}

/* The listening address of bind:port. */
static int resolve(const char *bind, int port, struct sockaddr_storage *sa,
		   int *v6)
{
	struct addrinfo hints, *ai = NULL;
	char ps[16];

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(ps, sizeof ps, "%d", port);
	if (getaddrinfo(bind, ps, &hints, &ai) != 0 || !ai)
		return -1;
	memcpy(sa, ai->ai_addr, ai->ai_addrlen);
	*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return 0;
}

struct srv_http *srv_http_start(struct srv *s)
{
	struct srv_http *h = calloc(1, sizeof *h);
	struct sockaddr_storage sa;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_USE_ITC | MHD_USE_ERROR_LOG;
	int v6 = 0;

	if (!h)
		return NULL;
	h->srv = s;
	if (resolve(s->cfg.bind, s->cfg.port, &sa, &v6) != 0) {
		fprintf(stderr, "sht: cannot serve: unknown address '%s'\n",
			s->cfg.bind);
		free(h);
		return NULL;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	h->loopback = is_loopback((const struct sockaddr *)&sa);
	h->wait_s = s->cfg.timeout_s < SRV_CONN_WAIT_S ? s->cfg.timeout_s
						       : SRV_CONN_WAIT_S;
	/* MHD shares its limit among the threads: each may take them all,
	 * on_accept keeps the total. */
	h->d = MHD_start_daemon(flags, (uint16_t)s->cfg.port, on_accept, h,
		on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->cfg.workers,
		MHD_OPTION_CONNECTION_LIMIT,
		(s->cfg.max_connections + 1) * (unsigned)s->cfg.workers,
		MHD_OPTION_CONNECTION_TIMEOUT, h->wait_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_END);
	if (!h->d && s->cfg.port_fallback && s->cfg.port != 0) {
		srv_log(s, "port %d is taken: listening on any free port",
			s->cfg.port);
		s->cfg.port = 0;
		free(h);
		return srv_http_start(s);
	}
	if (!h->d) {
		fprintf(stderr, "sht: cannot serve on %s port %d (in use, or "
			"not an address of this machine)\n", s->cfg.bind,
			s->cfg.port);
		free(h);
		return NULL;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : (unsigned)s->cfg.port;
	return h;
}

unsigned srv_http_port(const struct srv_http *h)
{
	return h->port;
}

void srv_http_stop(struct srv_http *h, double grace_s)
{
	double t0 = srv_now();

	if (!h)
		return;
	/* No new connection; the requests in flight finish (bounded). */
	MHD_quiesce_daemon(h->d);
	while (atomic_load(&h->active) > 0 && srv_now() - t0 < grace_s) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	MHD_stop_daemon(h->d);
	free(h);
}
