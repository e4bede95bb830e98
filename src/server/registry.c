/*
 * registry.c: the traces and experiments the server has open, by UUID.
 *
 * Objects are reference counted: the registry holds one reference, every
 * request that uses one holds another (srv_registry_trace/_exp), so a
 * DELETE never frees what a request in flight still reads; the last
 * reference stops the trace's pass and frees it.
 */
#include <stdlib.h>
#include <string.h>

#include "srv.h"

void srv_registry_init(struct srv_registry *r)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->lock, NULL);
}

void srv_registry_free(struct srv_registry *r)
{
	for (size_t i = 0; i < r->nexps; i++)
		srv_exp_unref(r->exps[i]);
	for (size_t i = 0; i < r->ntraces; i++)
		srv_trace_unref(r->traces[i]);
	free(r->exps);
	free(r->traces);
	pthread_mutex_destroy(&r->lock);
}

struct srv_trace *srv_registry_trace(struct srv_registry *r, const char *uuid)
{
	struct srv_trace *t = NULL;

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->ntraces && !t; i++)
		if (strcmp(r->traces[i]->uuid, uuid) == 0)
			t = r->traces[i];
	if (t)
		srv_trace_ref(t);
	pthread_mutex_unlock(&r->lock);
	return t;
}

struct srv_exp *srv_registry_exp(struct srv_registry *r, const char *uuid)
{
	struct srv_exp *e = NULL;

	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->nexps && !e; i++)
		if (strcmp(r->exps[i]->uuid, uuid) == 0)
			e = r->exps[i];
	if (e)
		srv_exp_ref(e);
	pthread_mutex_unlock(&r->lock);
	return e;
}

/* Append p to a growing array of pointers (under the lock). */
static int push(void ***arr, size_t *n, size_t *cap, void *p)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void **a = realloc(*arr, c * sizeof *a);

		if (!a)
			return -1;
		*arr = a;
		*cap = c;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

int srv_registry_add_trace(struct srv_registry *r, struct srv_trace *t)
{
	return push((void ***)&r->traces, &r->ntraces, &r->captraces, t);
}

int srv_registry_add_exp(struct srv_registry *r, struct srv_exp *e)
{
	return push((void ***)&r->exps, &r->nexps, &r->capexps, e);
}

/* Remove the i-th pointer, keeping the order. */
static void remove_at(void **arr, size_t *n, size_t i)
{
	memmove(arr + i, arr + i + 1, (*n - i - 1) * sizeof *arr);
	(*n)--;
}

int srv_registry_trace_used(struct srv_registry *r, const struct srv_trace *t)
{
	for (size_t i = 0; i < r->nexps; i++)
		for (size_t k = 0; k < r->exps[i]->ntraces; k++)
			if (r->exps[i]->traces[k] == t)
				return 1;
	return 0;
}

int srv_registry_drop_trace(struct srv_registry *r, struct srv_trace *t)
{
	for (size_t i = 0; i < r->ntraces; i++)
		if (r->traces[i] == t) {
			remove_at((void **)r->traces, &r->ntraces, i);
			return 1;
		}
	return 0;
}

int srv_registry_drop_exp(struct srv_registry *r, struct srv_exp *e)
{
	for (size_t i = 0; i < r->nexps; i++)
		if (r->exps[i] == e) {
			remove_at((void **)r->exps, &r->nexps, i);
			return 1;
		}
	return 0;
}
