/*
 * result.c: result sets.  Intervals live in a growable array; string
 * bytes in a list of chunks that never move, so the pointers handed out
 * stay valid while the array grows.
 */
#include <stdlib.h>

#include "util/result-int.h"

#define CHUNK_MIN (64u * 1024u)

sht_result *sht_result_create(void)
{
	return calloc(1, sizeof(sht_result));
}

static void free_chunks(struct sht__chunk *c)
{
	while (c) {
		struct sht__chunk *next = c->next;
		free(c);
		c = next;
	}
}

void sht_result_destroy(sht_result *res)
{
	if (!res)
		return;
	free_chunks(res->chunks);
	free(res->items);
	free(res);
}

void sht_result_clear(sht_result *res)
{
	res->count = 0;
	/* Keep the first (largest recent) chunk, drop the others. */
	if (res->chunks) {
		free_chunks(res->chunks->next);
		res->chunks->next = NULL;
		res->chunks->used = 0;
	}
}

size_t sht_result_count(const sht_result *res)
{
	return res->count;
}

const sht_interval *sht_result_items(const sht_result *res)
{
	return res->items;
}

const sht_interval *sht_result_at(const sht_result *res, size_t i)
{
	return i < res->count ? &res->items[i] : NULL;
}

sht_err sht__result_reserve(sht_result *res, size_t n)
{
	size_t cap;
	sht_interval *p;

	if (n <= res->cap)
		return SHT_OK;
	cap = res->cap ? res->cap : 16;
	while (cap < n)
		cap *= 2;
	p = realloc(res->items, cap * sizeof *p);
	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot grow result: count=%zu", n);
	res->items = p;
	res->cap = cap;
	return SHT_OK;
}

char *sht__result_strdup(sht_result *res, const char *s, size_t len)
{
	struct sht__chunk *c = res->chunks;
	char *dst;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_MIN ? len + 1 : CHUNK_MIN;
		struct sht__chunk *n = malloc(sizeof *n + size);
		if (!n)
			return NULL;
		n->size = size;
		n->used = 0;
		/* The new chunk goes first: it is the one with room. */
		n->next = c;
		res->chunks = n;
		c = n;
	}
	dst = c->data + c->used;
	if (len)
		memcpy(dst, s, len);
	dst[len] = '\0';
	c->used += len + 1;
	return dst;
}

sht_err sht_result_append(sht_result *res, const sht_interval *iv)
{
	sht_interval *dst;

	if (sht__result_reserve(res, res->count + 1) != SHT_OK)
		return SHT_ERR_NOMEM;
	dst = &res->items[res->count];
	*dst = *iv;
	if (iv->value.type == SHT_TYPE_STRING) {
		char *s = sht__result_strdup(res, iv->value.u.str, iv->value.len);
		if (!s)
			return sht__error(SHT_ERR_NOMEM, "Cannot copy string: len=%u",
					  iv->value.len);
		dst->value.u.str = s;
	}
	res->count++;
	return SHT_OK;
}
