/*
 * cursor.c: sht_cursor, a query's answer handed out a piece at a time
 * (tree.h).  The store's cursor walks a finished tree a node at a time
 * (store/query.c); the state system hands out the answers of its other
 * backends, computed at once, as one piece (sht__cursor_whole).
 */
#include <stdlib.h>

#include "util/result-int.h"

struct sht_cursor {
	sht_err (*next)(void *impl, sht_result *res);
	void (*destroy)(void *impl);
	void *impl;
	int done;                   /* ended (SHT_END or an error) */
};

sht_err sht__cursor_new(sht_err (*next)(void *impl, sht_result *res),
			void (*destroy)(void *impl), void *impl, sht_cursor **out)
{
	sht_cursor *c = calloc(1, sizeof *c);

	if (!c)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a cursor");
	c->next = next;
	c->destroy = destroy;
	c->impl = impl;
	*out = c;
	return SHT_OK;
}

sht_err sht_cursor_next(sht_cursor *c, sht_result *res)
{
	sht_err err;

	sht_result_clear(res);
	if (c->done)
		return SHT_END;
	err = c->next(c->impl, res);
	if (err != SHT_OK) {
		sht_result_clear(res);
		c->done = 1;
	}
	return err;
}

void sht_cursor_destroy(sht_cursor *c)
{
	if (!c)
		return;
	if (c->destroy)
		c->destroy(c->impl);
	free(c);
}

/* The whole answer: swapped into the caller's result on the first call. */
static sht_err whole_next(void *impl, sht_result *res)
{
	sht_result *whole = impl, tmp;

	if (whole->count == 0)
		return SHT_END;
	tmp = *res;
	*res = *whole;
	*whole = tmp;
	sht_result_clear(whole);
	return SHT_OK;
}

static void whole_free(void *impl)
{
	sht_result_destroy(impl);
}

sht_err sht__cursor_whole(sht_result *whole, sht_cursor **out)
{
	sht_err err = sht__cursor_new(whole_next, whole_free, whole, out);

	if (err != SHT_OK)
		sht_result_destroy(whole);
	return err;
}
