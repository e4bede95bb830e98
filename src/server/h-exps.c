/*
 * h-exps.c: /experiments: list, create (POST), describe, delete.
 *
 * As for traces, creating is idempotent: the same name with the same
 * traces answers 200 with the experiment already there, the same name
 * with other traces 409 with it.  Deleting an experiment leaves its
 * traces open.
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "srv.h"

static json_t *exp_list(struct srv_registry *r)
{
	json_t *a = json_array();

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->nexps; i++)
		json_array_append_new(a, srv_exp_json(r->exps[i]));
	pthread_mutex_unlock(&r->lock);
	return a;
}

/* The referenced traces of the "traces" parameter (404 for an unknown
 * one); *out malloc'd. */
static int get_traces(struct srv_req *req, struct srv_reply *rep,
		      struct srv_trace ***out, size_t *n)
{
	json_t *a = json_object_get(req->params, "traces");
	struct srv_trace **t;
	size_t len;

	if (!a || json_is_null(a))
		return srv_reply_error(rep, 400, "Missing query parameters", "traces");
	if (!json_is_array(a) || (len = json_array_size(a)) == 0 ||
	    len > SRV_EXP_TRACES_MAX)
		return srv_reply_error(rep, 400, "Invalid query parameters",
				       "traces: an array of 1 to %d trace UUIDs",
				       SRV_EXP_TRACES_MAX);
	t = calloc(len, sizeof *t);
	if (!t)
		return srv_reply_error(rep, 500, "Out of memory", NULL);
	for (*n = 0; *n < len; (*n)++) {
		const char *id = json_string_value(json_array_get(a, *n));
		int twice = 0;

		t[*n] = id ? srv_registry_trace(&req->srv->reg, id) : NULL;
		for (size_t k = 0; t[*n] && k < *n; k++)
			if (t[k] == t[*n]) {   /* twice the same trace */
				srv_trace_unref(t[*n]);
				t[*n] = NULL;
				twice = 1;
			}
		if (!t[*n]) {
			for (size_t k = 0; k < *n; k++)
				srv_trace_unref(t[k]);
			free(t);
			if (!id)
				return srv_reply_error(rep, 400, "Invalid query parameters",
						       "traces: not a string");
			if (twice)
				return srv_reply_error(rep, 400, "Invalid query parameters",
						       "traces: %s given twice", id);
			return srv_reply_error(rep, 404, "No such trace",
					       "no trace %s", id);
		}
	}
	*out = t;
	return 0;
}

static int same_traces(const struct srv_exp *e, struct srv_trace **t, size_t n)
{
	if (e->ntraces != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (e->traces[i] != t[i])
			return 0;
	return 1;
}

/* Under the lock: 200 with the experiment named name if it has the same
 * traces, 409 if not, 1 if there is none. */
static int existing(struct srv_registry *r, struct srv_reply *rep,
		    const char *name, struct srv_trace **t, size_t n)
{
	json_t *j;

	for (size_t i = 0; i < r->nexps; i++) {
		struct srv_exp *e = r->exps[i];

		if (strcmp(e->name, name) != 0)
			continue;
		if (same_traces(e, t, n)) {
			srv_reply_json(rep, 200, srv_exp_json(e));
			return 0;
		}
		j = json_object();
		json_object_set_new(j, "title", json_string("Conflict name"));
		json_object_set_new(j, "detail", srv_jstr("an experiment of this "
							  "name has other traces"));
		json_object_set_new(j, "experiment", srv_exp_json(e));
		srv_reply_json(rep, 409, j);
		return -1;
	}
	return 1;
}

static int create(struct srv_req *req, struct srv_reply *rep)
{
	struct srv_registry *r = &req->srv->reg;
	struct srv_trace **t = NULL;
	struct srv_exp *e = NULL;
	const char *name;
	size_t n = 0;
	int rc;

	if (srv_req_parse(req, rep, 1) != 0 ||
	    srv_req_str(req, rep, "name", 1, &name) != 0 ||
	    get_traces(req, rep, &t, &n) != 0)
		return -1;
	pthread_mutex_lock(&r->lock);
	rc = existing(r, rep, name, t, n);
	if (rc == 1 && r->nexps >= SRV_EXPS_MAX) {
		rc = -1;
		srv_reply_error(rep, 429, "Too many experiments",
				"at most %d experiments may be open", SRV_EXPS_MAX);
	} else if (rc == 1) {
		e = srv_exp_new(name, t, n);
		rc = e && srv_registry_add_exp(r, e) == 0 ? 0 : -2;
	}
	pthread_mutex_unlock(&r->lock);
	for (size_t k = 0; k < n; k++)
		srv_trace_unref(t[k]);
	free(t);
	if (rc == -2) {
		srv_exp_unref(e);
		return srv_reply_error(rep, 500, "Out of memory", NULL);
	}
	if (e) {
		srv_merge_start(req->srv, e);
		srv_reply_json(rep, 200, srv_exp_json(e));
	}
	return rc;
}

static int delete_exp(struct srv_req *req, struct srv_reply *rep,
		      struct srv_exp *e)
{
	struct srv_registry *r = &req->srv->reg;
	int dropped;

	pthread_mutex_lock(&r->lock);
	dropped = srv_registry_drop_exp(r, e);
	pthread_mutex_unlock(&r->lock);
	srv_reply_json(rep, 200, srv_exp_json(e));
	if (dropped)
		srv_exp_unref(e);
	return 0;
}

int srv_h_exps(struct srv_req *req, struct srv_reply *rep, const char *id)
{
	struct srv_exp *e;
	int rc;

	if (!id) {
		if (req->method == SRV_GET) {
			srv_reply_json(rep, 200, exp_list(&req->srv->reg));
			return 0;
		}
		if (req->method == SRV_POST)
			return create(req, rep);
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	}
	if (req->method != SRV_GET && req->method != SRV_DELETE)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	e = srv_registry_exp(&req->srv->reg, id);
	if (!e)
		return srv_reply_error(rep, 404, "No such trace",   /* TC's title */
				       "no experiment %s", id);
	if (req->method == SRV_GET) {
		srv_reply_json(rep, 200, srv_exp_json(e));
		rc = 0;
	} else {
		rc = delete_exp(req, rep, e);
	}
	srv_exp_unref(e);
	return rc;
}
