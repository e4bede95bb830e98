/*
 * outputs.c: the outputs of an experiment and the routes below
 * /experiments/{e}/outputs:
 *
 *   GET  outputs                         the list (bare array)
 *   GET  outputs/markerSets              none ([]), as Trace Compass's default
 *   GET  outputs/{o}                     one descriptor
 *   POST outputs/{o}/style               the style map
 *   GET  outputs/{o}/annotations         categories (none)
 *   POST outputs/{o}/annotations         annotations (none)
 *   POST outputs/timeGraph/{o}/{tree,states,arrows,tooltip}
 *   POST outputs/XY/{o}/{tree,xy}
 *   POST outputs/data/{o}/tree
 *   POST outputs/table/{o}/{columns,lines}
 *
 * An unknown output is 404 ("Data provider doesn't exist"), one that does
 * not apply to the experiment or has no such endpoint 405 ("Analysis
 * cannot run"), as Trace Compass answers.
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"

static const struct srv_output *const outputs[] = {
	&srv_out_threads, &srv_out_resources, &srv_out_cpu, &srv_out_events,
	&srv_out_stats, &srv_out_histogram, &srv_out_ssx,
};

#define NOUT (sizeof outputs / sizeof outputs[0])

const struct srv_output *srv_output_find(const char *id)
{
	for (size_t i = 0; i < NOUT; i++)
		if (strcmp(outputs[i]->id, id) == 0)
			return outputs[i];
	return NULL;
}

static const char *type_name(enum srv_out_type t)
{
	switch (t) {
	case SRV_OUT_TIME_GRAPH: return "TIME_GRAPH";
	case SRV_OUT_XY: return "TREE_TIME_XY";
	case SRV_OUT_TABLE: return "TABLE";
	default: return "DATA_TREE";
	}
}

json_t *srv_output_json(const struct srv_output *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "id", json_string(o->id));
	json_object_set_new(j, "name", json_string(o->name));
	json_object_set_new(j, "description", json_string(o->description));
	json_object_set_new(j, "type", json_string(type_name(o->type)));
	return j;
}

static int list(struct srv_reply *rep, struct srv_exp *e)
{
	json_t *a = json_array();

	for (size_t i = 0; i < NOUT; i++)
		if (outputs[i]->applies(e))
			json_array_append_new(a, srv_output_json(outputs[i]));
	srv_reply_json(rep, 200, a);
	return 0;
}

static int cannot_run(struct srv_reply *rep, const char *id)
{
	return srv_reply_error(rep, 405, "Analysis cannot run",
			       "output %s has no such endpoint for this experiment", id);
}

/* The output o of e, 404 / 405 otherwise. */
static const struct srv_output *find(struct srv_reply *rep, struct srv_exp *e,
				     const char *id)
{
	const struct srv_output *o = srv_output_find(id);

	if (!o) {
		srv_reply_error(rep, 404, "Data provider doesn't exist",
				"no output %s", id);
		return NULL;
	}
	if (!o->applies(e)) {
		srv_reply_error(rep, 405, "Analysis cannot run",
				"output %s does not apply to experiment %s", id,
				e->uuid);
		return NULL;
	}
	return o;
}

/* How long a tree built while its analyses run is answered again: the
 * viewer polls trees while they are RUNNING, and every client of an
 * experiment asks the same; building one queries the whole live history
 * under its lock, which the analysis needs too. */
#define PARTIAL_TREE_SECONDS 1.0

/* A tree answered before: final, or partial and recent: answer it again. */
static int cached_tree(struct srv_reply *rep, struct srv_exp *e,
		       const struct srv_output *o)
{
	char *body = NULL;
	size_t len = 0;

	pthread_mutex_lock(&e->lock);
	if (e->tree[o->index] && !e->tree_final[o->index] &&
	    srv_now() - e->tree_time[o->index] > PARTIAL_TREE_SECONDS) {
		free(e->tree[o->index]);
		e->tree[o->index] = NULL;
	}
	if (e->tree[o->index] && (body = malloc(e->tree_len[o->index])) != NULL) {
		len = e->tree_len[o->index];
		memcpy(body, e->tree[o->index], len);
	}
	pthread_mutex_unlock(&e->lock);
	if (!body)
		return 0;
	srv_reply_free(rep);
	rep->status = 200;
	rep->body = body;
	rep->len = len;
	return 1;
}

static void keep_tree(struct srv_reply *rep, struct srv_exp *e,
		      const struct srv_output *o, int final)
{
	char *copy = malloc(rep->len);

	if (!copy)
		return;
	memcpy(copy, rep->body, rep->len);
	pthread_mutex_lock(&e->lock);
	if (!e->tree[o->index] || (final && !e->tree_final[o->index])) {
		free(e->tree[o->index]);
		e->tree[o->index] = copy;
		e->tree_len[o->index] = rep->len;
		e->tree_final[o->index] = final;
		e->tree_time[o->index] = srv_now();
		copy = NULL;
	}
	pthread_mutex_unlock(&e->lock);
	free(copy);
}

static int call(struct srv_req *req, struct srv_reply *rep, struct srv_exp *e,
		const struct srv_output *o, srv_out_fn fn)
{
	struct srv_out_ctx c;
	int rc;

	if (!fn)
		return cannot_run(rep, o->id);
	if (req->method != SRV_POST)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	if (srv_req_parse(req, rep, 0) != 0)
		return -1;
	if (fn == o->tree && o->cache_tree && cached_tree(rep, e, o))
		return 0;
	memset(&c, 0, sizeof c);
	c.req = req;
	c.rep = rep;
	c.e = e;
	c.o = o;
	c.ids = srv_exp_ids(e, o->index);
	if (!c.ids)
		return srv_reply_error(rep, 500, "Out of memory", NULL);
	rc = fn(&c);
	if (rc == 0 && fn == o->tree && o->cache_tree && rep->status == 200)
		keep_tree(rep, e, o, c.cacheable);
	return rc;
}

/* POST .../{kind}/{o}/{what}. */
static int typed(struct srv_req *req, struct srv_reply *rep, struct srv_exp *e,
		 const char *kind, const char *id, const char *what)
{
	const struct srv_output *o = find(rep, e, id);
	srv_out_fn fn = NULL;

	if (!o)
		return -1;
	if (strcmp(kind, "timeGraph") == 0 && o->type == SRV_OUT_TIME_GRAPH) {
		if (strcmp(what, "tree") == 0)
			fn = o->tree;
		else if (strcmp(what, "states") == 0)
			fn = o->states;
		else if (strcmp(what, "arrows") == 0)
			fn = o->arrows;
		else if (strcmp(what, "tooltip") == 0)
			fn = o->tooltip;
	} else if (strcmp(kind, "XY") == 0 && (o->type == SRV_OUT_XY ||
					       o->type == SRV_OUT_DATA_TREE)) {
		/* The viewer asks a data tree's tree here when data/ fails. */
		if (strcmp(what, "tree") == 0)
			fn = o->tree;
		else if (strcmp(what, "xy") == 0)
			fn = o->xy;
	} else if (strcmp(kind, "data") == 0 && o->type == SRV_OUT_DATA_TREE) {
		if (strcmp(what, "tree") == 0)
			fn = o->tree;
	} else if (strcmp(kind, "table") == 0 && o->type == SRV_OUT_TABLE) {
		if (strcmp(what, "columns") == 0)
			fn = o->columns;
		else if (strcmp(what, "lines") == 0)
			fn = o->lines;
	}
	return call(req, rep, e, o, fn);
}

static int style(struct srv_req *req, struct srv_reply *rep, struct srv_exp *e,
		 const char *id)
{
	const struct srv_output *o = find(rep, e, id);
	json_t *m;

	if (!o)
		return -1;
	if (req->method != SRV_POST)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	if (srv_req_parse(req, rep, 0) != 0)
		return -1;
	m = json_object();
	json_object_set_new(m, "styles", o->styles ? o->styles() : json_object());
	srv_reply_model(rep, m, SRV_COMPLETED, NULL);
	return 0;
}

/* No annotation of any kind yet: the cheap, correct answers. */
static int annotations(struct srv_req *req, struct srv_reply *rep,
		       struct srv_exp *e, const char *id)
{
	json_t *m = json_object();

	if (!find(rep, e, id)) {
		json_decref(m);
		return -1;
	}
	if (req->method == SRV_GET) {
		json_object_set_new(m, "annotationCategories", json_array());
	} else if (req->method == SRV_POST) {
		if (srv_req_parse(req, rep, 0) != 0) {
			json_decref(m);
			return -1;
		}
		json_object_set_new(m, "annotations", json_object());
	} else {
		json_decref(m);
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	}
	srv_reply_model(rep, m, SRV_COMPLETED, NULL);
	return 0;
}

int srv_h_outputs(struct srv_req *req, struct srv_reply *rep,
		  struct srv_exp *e, char **seg, size_t n)
{
	const struct srv_output *o;

	if (n == 0)
		return req->method == SRV_GET ? list(rep, e)
			: srv_reply_error(rep, 405, "Method not allowed", NULL);
	if (n == 1 && strcmp(seg[0], "markerSets") == 0) {
		if (req->method != SRV_GET)
			return srv_reply_error(rep, 405, "Method not allowed", NULL);
		srv_reply_model(rep, json_array(), SRV_COMPLETED, NULL);
		return 0;
	}
	if (n == 1) {
		if (req->method != SRV_GET)
			return srv_reply_error(rep, 405, "Method not allowed", NULL);
		o = find(rep, e, seg[0]);
		if (o)
			srv_reply_json(rep, 200, srv_output_json(o));
		return o ? 0 : -1;
	}
	if (n == 2 && strcmp(seg[1], "style") == 0)
		return style(req, rep, e, seg[0]);
	if (n == 2 && strcmp(seg[1], "annotations") == 0)
		return annotations(req, rep, e, seg[0]);
	if (n == 2 && strcmp(seg[1], "configTypes") == 0 && req->method == SRV_GET) {
		if (!find(rep, e, seg[0]))
			return -1;
		srv_reply_json(rep, 200, json_array());
		return 0;
	}
	if (n == 3)
		return typed(req, rep, e, seg[0], seg[1], seg[2]);
	return srv_reply_error(rep, 404, "Not found", "no endpoint %s", req->path);
}
