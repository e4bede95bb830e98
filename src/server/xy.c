/*
 * xy.c: XY answers (xy.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xy.h"

void xy_begin(struct xy_out *o, const char *title)
{
	memset(o, 0, sizeof *o);
	srv_buf_puts(&o->b, "{\"model\":{\"title\":");
	srv_buf_jstr(&o->b, title, strlen(title));
	srv_buf_puts(&o->b, ",\"series\":[");
}

static const char axis[] =
	"{\"label\":\"X Axis\",\"unit\":\"\",\"dataType\":\"NUMBER\"}";

void xy_series(struct xy_out *o, int64_t id, const char *name,
	       const sht_time *x, const double *y, size_t n, const char *type)
{
	if (o->nseries++)
		srv_buf_put(&o->b, ",", 1);
	srv_buf_puts(&o->b, "{\"seriesId\":");
	srv_buf_i64(&o->b, id);
	srv_buf_puts(&o->b, ",\"seriesName\":");
	srv_buf_jstr(&o->b, name, strlen(name));
	srv_buf_puts(&o->b, ",\"xValues\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			srv_buf_put(&o->b, ",", 1);
		srv_buf_i64(&o->b, x[i]);
	}
	srv_buf_puts(&o->b, "],\"yValues\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			srv_buf_put(&o->b, ",", 1);
		srv_buf_double(&o->b, y[i]);
	}
	srv_buf_puts(&o->b, "],\"style\":{\"values\":{\"series-type\":\"");
	srv_buf_puts(&o->b, type);
	srv_buf_puts(&o->b, "\"}},\"xValuesDescription\":");
	srv_buf_puts(&o->b, axis);
	srv_buf_puts(&o->b, ",\"yValuesDescription\":{\"label\":\"Y Axis\","
		     "\"unit\":\"\",\"dataType\":\"NUMBER\"}}");
}

void xy_end(struct xy_out *o, struct srv_reply *rep, int status)
{
	srv_buf_puts(&o->b, "]},\"status\":\"");
	srv_buf_puts(&o->b, srv_status_name(status));
	srv_buf_puts(&o->b, "\",\"statusMessage\":\"");
	srv_buf_puts(&o->b, srv_status_message(status));
	srv_buf_puts(&o->b, "\"}");
	srv_reply_buf(rep, &o->b);
}

int xy_items(struct srv_out_ctx *c, int64_t **ids, size_t *n)
{
	return srv_req_ints(c->req, c->rep, "requested_items", 0,
			    INT64_C(1) << 53, SRV_ITEMS_MAX, 1, ids, n);
}

int xy_request_begin(struct srv_out_ctx *c, const char *title,
		     struct xy_request *x)
{
	x->status = SRV_COMPLETED;
	if (srv_req_times(c->req, c->rep, 1, &x->ts) != 0)
		return -1;
	if (xy_items(c, &x->ids, &x->n) != 0) {
		srv_times_free(&x->ts);
		return -1;
	}
	xy_begin(&x->o, title);
	return 0;
}

void xy_request_end(struct srv_out_ctx *c, struct xy_request *x)
{
	xy_end(&x->o, c->rep, x->status);
	free(x->ids);
	srv_times_free(&x->ts);
}
