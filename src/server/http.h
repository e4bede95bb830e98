/*
 * http.h: the HTTP server of `sht serve` (http.c, libmicrohttpd), and
 * gzip of big answers (gzip.c, zlib).
 */
#ifndef SHT_SERVER_HTTP_H
#define SHT_SERVER_HTTP_H

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

/* Compress rep->body in place (gzip format): 0, or -1 (body unchanged). */
int srv_gzip(struct srv_reply *rep);

#endif /* SHT_SERVER_HTTP_H */
