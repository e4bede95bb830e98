/*
 * http.h: the HTTP server of `sht serve` (http.c, libmicrohttpd), and
 * gzip of big answers (gzip.c, zlib).
 */
#ifndef SHT_SERVER_HTTP_H
#define SHT_SERVER_HTTP_H

#include <stddef.h>

struct srv;
struct srv_reply;
struct srv_http;

/* Listen on the configured address with the worker threads; NULL (after
 * printing why) if it cannot. */
struct srv_http *srv_http_start(struct srv *s);
/* The port listened on (the chosen one for port 0). */
unsigned srv_http_port(const struct srv_http *h);
/* Stop accepting, let the requests in flight finish (at most grace_s
 * seconds), stop. */
void srv_http_stop(struct srv_http *h, double grace_s);

/* The checks of guard.c (docs/SERVER.md, "Security"). */
/* host (a Host header: name[:port]) names this machine's loopback:
 * localhost, 127.x.x.x or [::1] (or [::ffff:127.x.x.x]), any port. */
int srv_host_is_loopback(const char *host);
/* ctype (a Content-Type header, NULL if none) is application/json, with
 * parameters or not (case and spaces as HTTP allows). */
int srv_ctype_is_json(const char *ctype);
/* The Access-Control-Allow-Origin to send to origin (a request's Origin
 * header, NULL if none) given the n origins allowed: "*" if "*" is one
 * of them, origin itself if listed (case aside), else NULL. */
const char *srv_origin_allowed(const char *const *allowed, size_t n,
			       const char *origin);

/* Compress rep->body in place (gzip format): 0, or -1 (body unchanged). */
int srv_gzip(struct srv_reply *rep);

#endif /* SHT_SERVER_HTTP_H */
