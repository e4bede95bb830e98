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

#endif /* SHT_SERVER_XY_H */
