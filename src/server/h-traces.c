/*
 * h-traces.c: /traces: list, open (POST), describe, close (DELETE).
 *
 * Opening is idempotent, as the viewer needs it: the same name and path
 * answer 200 with the trace already open; the same name with another
 * path answers 409 with that trace (the viewer then retries "name(1)").
 * Opening starts the trace's analyses in the background (pass.c).
 */
#include <stdlib.h>
#include <string.h>

#include "srv.h"

static json_t *trace_list(struct srv_registry *r)
{
	json_t *a = json_array();

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->ntraces; i++)
		json_array_append_new(a, srv_trace_json(r->traces[i]));
	pthread_mutex_unlock(&r->lock);
	return a;
}

/* Under the lock: the open trace named name, or NULL. */
static struct srv_trace *by_name(struct srv_registry *r, const char *name)
{
	for (size_t i = 0; i < r->ntraces; i++)
		if (strcmp(r->traces[i]->name, name) == 0)
			return r->traces[i];
	return NULL;
}

/* 200 with old if it is the same trace, else 409 with it. */
static int existing(struct srv_reply *rep, struct srv_trace *old,
		    const char *real)
{
	json_t *j;

	if (strcmp(old->path, real) == 0) {
		srv_reply_json(rep, 200, srv_trace_json(old));
		return 0;
	}
	j = json_object();
	json_object_set_new(j, "title", json_string("Conflict name"));
	json_object_set_new(j, "detail", srv_jstr("a trace of this name is "
						  "open with another path"));
	json_object_set_new(j, "trace", srv_trace_json(old));
	srv_reply_json(rep, 409, j);
	return -1;
}

/* Register t (opened outside the lock) unless another request was
 * faster; the reply says which trace stands. */
static int add_trace(struct srv *s, struct srv_reply *rep, struct srv_trace *t)
{
	struct srv_registry *r = &s->reg;
	struct srv_trace *old;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	old = by_name(r, t->name);
	if (old) {
		rc = existing(rep, old, t->path);
		pthread_mutex_unlock(&r->lock);
		srv_trace_unref(t);
		return rc;
	}
	if (r->ntraces >= SRV_TRACES_MAX || srv_registry_add_trace(r, t) != 0) {
		pthread_mutex_unlock(&r->lock);
		srv_trace_unref(t);
		return srv_reply_error(rep, 429, "Too many traces",
				       "at most %d traces may be open", SRV_TRACES_MAX);
	}
	pthread_mutex_unlock(&r->lock);
	if (srv_trace_start(s, t) != 0)
		srv_log(s, "cannot start the analyses of %s", t->path);
	srv_reply_json(rep, 200, srv_trace_json(t));
	return 0;
}

static int open_trace(struct srv_req *req, struct srv_reply *rep)
{
	struct srv *s = req->srv;
	const char *uri, *name = NULL, *base;
	struct srv_trace *t, *old;
	char *real;
	int rc;

	if (srv_req_parse(req, rep, 1) != 0 ||
	    srv_req_str(req, rep, "uri", 1, &uri) != 0 ||
	    srv_req_str(req, rep, "name", 0, &name) < 0)
		return -1;
	real = srv_path_check(s, uri, "uri", rep);
	if (!real)
		return -1;
	base = strrchr(real, '/');
	if (!name || !*name)
		name = base && base[1] ? base + 1 : real;
	pthread_mutex_lock(&s->reg.lock);
	old = by_name(&s->reg, name);
	if (old) {
		rc = existing(rep, old, real);
		pthread_mutex_unlock(&s->reg.lock);
		free(real);
		return rc;
	}
	pthread_mutex_unlock(&s->reg.lock);
	t = srv_trace_open(s, real, name, rep);
	free(real);
	return t ? add_trace(s, rep, t) : -1;
}

static int delete_trace(struct srv_req *req, struct srv_reply *rep,
			struct srv_trace *t)
{
	struct srv_registry *r = &req->srv->reg;
	int dropped;

	pthread_mutex_lock(&r->lock);
	if (srv_registry_trace_used(r, t)) {
		json_t *j = json_object();

		pthread_mutex_unlock(&r->lock);
		json_object_set_new(j, "title", json_string("Trace in use"));
		json_object_set_new(j, "detail", json_string("an experiment uses the trace"));
		json_object_set_new(j, "trace", srv_trace_json(t));
		srv_reply_json(rep, 409, j);
		return -1;
	}
	dropped = srv_registry_drop_trace(r, t);
	pthread_mutex_unlock(&r->lock);
	srv_reply_json(rep, 200, srv_trace_json(t));
	if (dropped)
		srv_trace_unref(t);       /* the registry's reference */
	return 0;
}

int srv_h_traces(struct srv_req *req, struct srv_reply *rep, const char *id)
{
	struct srv_trace *t;
	int rc;

	if (!id) {
		if (req->method == SRV_GET) {
			srv_reply_json(rep, 200, trace_list(&req->srv->reg));
			return 0;
		}
		if (req->method == SRV_POST)
			return open_trace(req, rep);
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	}
	if (req->method != SRV_GET && req->method != SRV_DELETE)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	t = srv_registry_trace(&req->srv->reg, id);
	if (!t)
		return srv_reply_error(rep, 404, "No such trace", "no trace %s", id);
	if (req->method == SRV_GET) {
		srv_reply_json(rep, 200, srv_trace_json(t));
		rc = 0;
	} else {
		rc = delete_trace(req, rep, t);
	}
	srv_trace_unref(t);
	return rc;
}
