/*
 * reply.c: the bodies the server answers with: any JSON value, the
 * protocol's ErrorResponse {"title", "detail"} and its GenericResponse
 * envelope {"model", "status", "statusMessage"} (Trace Compass's status
 * messages).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

static const char oom_body[] =
	"{\"title\":\"Out of memory\",\"detail\":\"the server could not build the answer\"}";

void srv_reply_free(struct srv_reply *rep)
{
	free(rep->body);
	free(rep->body2);
	rep->body = rep->body2 = NULL;
	rep->len = rep->len2 = 0;
}

static void reply_oom(struct srv_reply *rep)
{
	srv_reply_free(rep);
	rep->status = 500;
	rep->body = strdup(oom_body);
	rep->len = rep->body ? strlen(rep->body) : 0;
}

void srv_reply_json(struct srv_reply *rep, int status, json_t *j)
{
	struct srv_buf b = { 0 };

	if (!j) {
		reply_oom(rep);
		return;
	}
	srv_buf_json(&b, j);
	json_decref(j);
	if (b.oom) {
		srv_buf_free(&b);
		reply_oom(rep);
		return;
	}
	srv_reply_free(rep);
	rep->status = status;
	rep->body = b.p ? b.p : strdup("null");
	rep->len = b.p ? b.len : 4;
}

void srv_reply_buf(struct srv_reply *rep, struct srv_buf *b)
{
	if (b->oom || !b->p) {
		srv_buf_free(b);
		reply_oom(rep);
		return;
	}
	srv_reply_free(rep);
	rep->status = 200;
	rep->body = b->p;
	rep->len = b->len;
	memset(b, 0, sizeof *b);
}

void srv_reply_join(struct srv_reply *rep)
{
	char *p;

	if (!rep->body2)
		return;
	p = rep->body ? realloc(rep->body, rep->len + rep->len2) : NULL;
	if (!p) {
		reply_oom(rep);
		return;
	}
	memcpy(p + rep->len, rep->body2, rep->len2);
	free(rep->body2);
	rep->body = p;
	rep->len += rep->len2;
	rep->body2 = NULL;
	rep->len2 = 0;
}

void srv_reply_buf2(struct srv_reply *rep, struct srv_buf *b, struct srv_buf *b2)
{
	if (!b2->p || b2->len == 0) {
		srv_buf_free(b2);
		srv_reply_buf(rep, b);
		return;
	}
	if (b->oom || b2->oom || !b->p) {
		srv_buf_free(b);
		srv_buf_free(b2);
		reply_oom(rep);
		return;
	}
	srv_reply_buf(rep, b);
	rep->body2 = b2->p;
	rep->len2 = b2->len;
	memset(b2, 0, sizeof *b2);
}

int srv_reply_error(struct srv_reply *rep, int status, const char *title,
		    const char *fmt, ...)
{
	char detail[1024];
	json_t *j;
	va_list ap;

	j = json_object();
	json_object_set_new(j, "title", srv_jstr(title));
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof detail, fmt, ap);
		va_end(ap);
		json_object_set_new(j, "detail", srv_jstr(detail));
	}
	srv_reply_json(rep, status, j);
	return -1;
}

const char *srv_status_name(int status)
{
	switch (status) {
	case SRV_RUNNING: return "RUNNING";
	case SRV_COMPLETED: return "COMPLETED";
	case SRV_CANCELLED: return "CANCELLED";
	default: return "FAILED";
	}
}

const char *srv_status_message(int status)
{
	switch (status) {
	case SRV_RUNNING: return "Running";
	case SRV_COMPLETED: return "Completed";
	case SRV_CANCELLED: return "Task has been cancelled";
	default: return "Failed";
	}
}

void srv_reply_model(struct srv_reply *rep, json_t *model, int status,
		     const char *msg)
{
	json_t *j = json_object();

	json_object_set_new(j, "model", model ? model : json_null());
	json_object_set_new(j, "status", json_string(srv_status_name(status)));
	json_object_set_new(j, "statusMessage",
			    srv_jstr(msg ? msg : srv_status_message(status)));
	srv_reply_json(rep, 200, j);
}
