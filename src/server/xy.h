/*
 * xy.h: writing XY answers (xy.c): series of (time, value) written
 * straight into a buffer, as the states are (tg.h), since a chart asks
 * for one value per pixel of every series ticked.
 */
#ifndef SHT_SERVER_XY_H
#define SHT_SERVER_XY_H

#include "out.h"

struct xy_out {
	struct srv_buf b;
	int nseries;
};

void xy_begin(struct xy_out *o, const char *title);
/* One series: n times (experiment times) and values; type "line",
 * "area", "bar" or "scatter". */
void xy_series(struct xy_out *o, int64_t id, const char *name,
	       const sht_time *x, const double *y, size_t n, const char *type);
void xy_end(struct xy_out *o, struct srv_reply *rep, int status);

/* The ids of requested_items (400 if absent or not ids). */
int xy_items(struct srv_out_ctx *c, int64_t **ids, size_t *n);

/* The frame of an XY request: its sample times and requested ids, the
 * answer begun with its title, the status so far (COMPLETED). */
struct xy_request {
	struct srv_times ts;
	int64_t *ids;
	size_t n;
	struct xy_out o;
	int status;
};

/* Parse the request into x and begin the answer; -1: an error reply is
 * set, nothing to free. */
int xy_request_begin(struct srv_out_ctx *c, const char *title,
		     struct xy_request *x);
/* Close the answer with x->status, reply, free x. */
void xy_request_end(struct srv_out_ctx *c, struct xy_request *x);

#endif /* SHT_SERVER_XY_H */
