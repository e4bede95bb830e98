/*
 * route.c: from a request's method and path (below /tsp/api) to its
 * handler.  Unknown paths answer 404, known paths with another method
 * 405, OPTIONS (a browser's CORS preflight) 200; every answer is JSON.
 * Paths below /sht/api are sht's own extension (h-sht.c); any other path
 * is a file of the viewer (static.c).
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "srv.h"

#define PREFIX "/tsp/api"
#define SHT_PREFIX "/sht/api/"
#define MAX_SEG 12

/* Split path at "/" into at most MAX_SEG segments (copied into buf). */
static size_t split(const char *path, char *buf, size_t size, char **seg)
{
	size_t n = 0, len = strlen(path);
	char *p, *save = NULL;

	if (len >= size)
		return MAX_SEG + 1;
	memcpy(buf, path, len + 1);
	for (p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (n == MAX_SEG)
			return MAX_SEG + 1;
		seg[n++] = p;
	}
	return n;
}

static int not_found(struct srv_reply *rep, const char *path)
{
	return srv_reply_error(rep, 404, "Not found", "no endpoint %s", path);
}

static int bad_method(struct srv_reply *rep)
{
	return srv_reply_error(rep, 405, "Method not allowed", NULL);
}

static int experiment(struct srv_req *req, struct srv_reply *rep, char **seg,
		      size_t n)
{
	struct srv_exp *e;
	int rc;

	if (n == 2)
		return srv_h_exps(req, rep, seg[1]);
	if (strcmp(seg[2], "outputs") != 0)
		return not_found(rep, req->path);
	e = srv_registry_exp(&req->srv->reg, seg[1]);
	if (!e)
		return srv_reply_error(rep, 404, "No such trace",   /* TC's title */
				       "no experiment %s", seg[1]);
	rc = srv_h_outputs(req, rep, e, seg + 3, n - 3);
	srv_exp_unref(e);
	return rc;
}

static int dispatch(struct srv_req *req, struct srv_reply *rep, char **seg,
		    size_t n)
{
	if (n == 1 && strcmp(seg[0], "health") == 0)
		return req->method == SRV_GET ? srv_h_health(req, rep)
					      : bad_method(rep);
	if (n == 1 && strcmp(seg[0], "identifier") == 0)
		return req->method == SRV_GET ? srv_h_identifier(req, rep)
					      : bad_method(rep);
	if (n >= 1 && n <= 2 && strcmp(seg[0], "traces") == 0)
		return srv_h_traces(req, rep, n == 2 ? seg[1] : NULL);
	if (n == 1 && strcmp(seg[0], "experiments") == 0)
		return srv_h_exps(req, rep, NULL);
	if (n >= 2 && strcmp(seg[0], "experiments") == 0)
		return experiment(req, rep, seg, n);
	return not_found(rep, req->path);
}

/* /sht/api/...: the extension's few read-only endpoints. */
static void sht_api(struct srv_req *req, struct srv_reply *rep)
{
	char buf[1024], *seg[MAX_SEG];
	size_t n = split(req->path + strlen(SHT_PREFIX), buf, sizeof buf, seg);

	if (req->method == SRV_HEAD)
		req->method = SRV_GET;
	if (n > MAX_SEG || n == 0)
		not_found(rep, req->path);
	else
		srv_h_sht(req, rep, seg, n);
}

void srv_handle(struct srv_req *req, struct srv_reply *rep)
{
	char buf[4096], *seg[MAX_SEG];
	size_t n;

	if (strncmp(req->path, SHT_PREFIX, strlen(SHT_PREFIX)) == 0) {
		sht_api(req, rep);
		return;
	}
	if (strncmp(req->path, PREFIX, strlen(PREFIX)) != 0 ||
	    (req->path[strlen(PREFIX)] != '/' && req->path[strlen(PREFIX)] != '\0')) {
		srv_static(req, rep);
		return;
	}
	if (req->method == SRV_OPTIONS) {
		srv_reply_json(rep, 200, json_object());
		return;
	}
	if (req->method == SRV_HEAD)          /* MHD sends no body */
		req->method = SRV_GET;
	if (req->method == SRV_OTHER) {
		bad_method(rep);
		return;
	}
	req->path += strlen(PREFIX);
	n = split(req->path, buf, sizeof buf, seg);
	if (n > MAX_SEG || n == 0) {
		not_found(rep, req->path);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (strlen(seg[i]) > SRV_NAME_MAX) {
			not_found(rep, req->path);
			return;
		}
	dispatch(req, rep, seg, n);
	if (!rep->body)
		srv_reply_error(rep, 500, "Internal error", "no answer for %s",
				req->path);
}
