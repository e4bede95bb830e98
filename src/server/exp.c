/*
 * exp.c: experiments: one or more traces viewed together, merged in time
 * (each trace's times through its transform, srv_xform), with the entry
 * ids each output hands out (ids.c) and the merged event order of the
 * events table (evmerge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "srv.h"

void srv_exp_ref(struct srv_exp *e)
{
	atomic_fetch_add(&e->refs, 1);
}

void srv_exp_unref(struct srv_exp *e)
{
	if (!e || atomic_fetch_sub(&e->refs, 1) != 1)
		return;
	srv_merge_free(e->merge);
	for (size_t i = 0; i < sizeof e->ids / sizeof e->ids[0]; i++) {
		srv_ids_free(e->ids[i]);
		free(e->tree[i]);
	}
	for (size_t i = 0; i < e->ntraces; i++)
		srv_trace_unref(e->traces[i]);
	free(e->traces);
	free(e->name);
	pthread_mutex_destroy(&e->lock);
	free(e);
}

struct srv_exp *srv_exp_new(const char *name, struct srv_trace **traces,
			    size_t n)
{
	struct srv_exp *e = calloc(1, sizeof *e);

	if (!e)
		return NULL;
	atomic_init(&e->refs, 1);
	pthread_mutex_init(&e->lock, NULL);
	e->name = strdup(name);
	e->traces = malloc(n * sizeof *e->traces);
	if (!e->name || !e->traces) {
		srv_exp_unref(e);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		srv_trace_ref(traces[i]);
		e->traces[e->ntraces++] = traces[i];
	}
	/* Trace Compass: a name-based UUID of the name. */
	srv_uuid(e->uuid, name, strlen(name));
	return e;
}

int srv_exp_progress(struct srv_exp *e, sht_time *start, sht_time *end,
		     uint64_t *events)
{
	int done = 1;

	*start = SHT_TIME_MAX;
	*end = SHT_TIME_MIN;
	*events = 0;
	for (size_t i = 0; i < e->ntraces; i++) {
		struct srv_trace *t = e->traces[i];
		sht_time last, first = srv_to_exp(&t->xf, t->first_ts);

		*events += srv_trace_events(t, &last);
		last = srv_to_exp(&t->xf, last);
		if (first < *start)
			*start = first;
		if (last > *end)
			*end = last;
		if (atomic_load(&t->pass_status) == SRV_RUNNING)
			done = 0;
	}
	if (e->ntraces > 1 && !srv_merge_ready(e))
		done = 0;
	if (*start > *end)
		*start = *end = 0;
	return done;
}

json_t *srv_exp_json(struct srv_exp *e)
{
	json_t *j = json_object(), *tr = json_array();
	sht_time start, end;
	uint64_t n;
	int done = srv_exp_progress(e, &start, &end, &n);

	json_object_set_new(j, "UUID", json_string(e->uuid));
	json_object_set_new(j, "name", srv_jstr(e->name));
	json_object_set_new(j, "nbEvents", json_integer((json_int_t)n));
	json_object_set_new(j, "start", json_integer(start));
	json_object_set_new(j, "end", json_integer(end));
	json_object_set_new(j, "indexingStatus",
			    json_string(done ? "COMPLETED" : "RUNNING"));
	for (size_t i = 0; i < e->ntraces; i++)
		json_array_append_new(tr, srv_trace_json(e->traces[i]));
	json_object_set_new(j, "traces", tr);
	return j;
}
