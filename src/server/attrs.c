/*
 * attrs.c: the server's copy of a history's attribute tree.
 *
 * A state system being built hands out children arrays that the next new
 * attribute may move, so the outputs never walk it directly: they walk
 * this mirror, grown under a write lock with the attributes created since
 * (names and parents only: quarks are never reused nor renamed), and read
 * under the read lock.  A hash of (parent, name) finds a child without
 * scanning thousands of siblings (Threads/<tid>).
 */
#include <stdlib.h>
#include <string.h>

#include "srv.h"

#define NONE SHT_QUARK_NONE

void srv_attrs_init(struct srv_attrs *a)
{
	memset(a, 0, sizeof *a);
	pthread_rwlock_init(&a->lock, NULL);
	a->root_first = a->root_last = NONE;
}

void srv_attrs_free(struct srv_attrs *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->name[i]);
	free(a->name);
	free(a->parent);
	free(a->first);
	free(a->last);
	free(a->next);
	free(a->hash);
	pthread_rwlock_destroy(&a->lock);
}

static uint64_t hash_of(sht_quark parent, const char *name)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ parent;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

static void hash_put(struct srv_attrs *a, sht_quark q)
{
	size_t mask = a->hcap - 1, i = hash_of(a->parent[q], a->name[q]) & mask;

	while (a->hash[i] != NONE)
		i = (i + 1) & mask;
	a->hash[i] = q;
}

static int hash_grow(struct srv_attrs *a, size_t n)
{
	size_t cap = a->hcap ? a->hcap : 256;

	if (n * 2 <= cap && a->hash)
		return 0;
	while (n * 2 > cap)
		cap *= 2;
	free(a->hash);
	a->hash = malloc(cap * sizeof *a->hash);
	if (!a->hash) {
		a->hcap = 0;
		return -1;
	}
	a->hcap = cap;
	memset(a->hash, 0xff, cap * sizeof *a->hash);
	for (size_t q = 0; q < a->n; q++)
		hash_put(a, (sht_quark)q);
	return 0;
}

static int grow(struct srv_attrs *a, size_t n)
{
	size_t cap = a->cap ? a->cap : 64;
	void *p;

	if (n <= a->cap)
		return 0;
	while (cap < n)
		cap *= 2;
#define GROW(field) do { \
		p = realloc(a->field, cap * sizeof *a->field); \
		if (!p) \
			return -1; \
		a->field = p; \
	} while (0)
	GROW(name);
	GROW(parent);
	GROW(first);
	GROW(last);
	GROW(next);
#undef GROW
	a->cap = cap;
	return 0;
}

/* Append quark q (== a->n) with its name and parent. */
static void link_child(struct srv_attrs *a, sht_quark q, sht_quark parent)
{
	sht_quark *first = parent == NONE ? &a->root_first : &a->first[parent];
	sht_quark *last = parent == NONE ? &a->root_last : &a->last[parent];

	a->parent[q] = parent;
	a->first[q] = a->last[q] = a->next[q] = NONE;
	if (*last == NONE)
		*first = q;
	else
		a->next[*last] = q;
	*last = q;
}

sht_err srv_attrs_sync(struct srv_attrs *a, sht_state *ss)
{
	uint64_t count = sht_state_attr_count(ss);
	sht_err err = SHT_OK;

	pthread_rwlock_rdlock(&a->lock);
	if (count <= a->n) {
		pthread_rwlock_unlock(&a->lock);
		return SHT_OK;
	}
	pthread_rwlock_unlock(&a->lock);
	pthread_rwlock_wrlock(&a->lock);
	if (grow(a, count) != 0 || hash_grow(a, count) != 0) {
		pthread_rwlock_unlock(&a->lock);
		return SHT_ERR_NOMEM;
	}
	while (a->n < count) {
		sht_quark q = (sht_quark)a->n, parent;
		const char *name;
		size_t len;

		err = sht_state_attr_name(ss, q, &name, &len);
		if (err == SHT_OK)
			err = sht_state_attr_parent(ss, q, &parent);
		if (err != SHT_OK)
			break;
		if (parent != NONE && parent >= q) {
			err = SHT_ERR_CORRUPT;
			break;
		}
		a->name[q] = strndup(name, len);
		if (!a->name[q]) {
			err = SHT_ERR_NOMEM;
			break;
		}
		link_child(a, q, parent);
		a->n++;
		hash_put(a, q);
	}
	pthread_rwlock_unlock(&a->lock);
	return err;
}

size_t srv_attrs_count(struct srv_attrs *a)
{
	size_t n;

	pthread_rwlock_rdlock(&a->lock);
	n = a->n;
	pthread_rwlock_unlock(&a->lock);
	return n;
}

sht_quark srv_attrs_child(const struct srv_attrs *a, sht_quark parent,
			  const char *name)
{
	size_t mask, i;

	if (!a->hcap)
		return NONE;
	mask = a->hcap - 1;
	for (i = hash_of(parent, name) & mask; a->hash[i] != NONE; i = (i + 1) & mask) {
		sht_quark q = a->hash[i];

		if (a->parent[q] == parent && strcmp(a->name[q], name) == 0)
			return q;
	}
	return NONE;
}

sht_quark srv_attrs_first(const struct srv_attrs *a, sht_quark q)
{
	return q == NONE ? a->root_first : a->first[q];
}

sht_quark srv_attrs_next(const struct srv_attrs *a, sht_quark q)
{
	return a->next[q];
}

const char *srv_attrs_fullpath(const struct srv_attrs *a, sht_quark q,
			       char *buf, size_t size)
{
	sht_quark chain[256];
	size_t depth = 0, len = 0;

	for (sht_quark p = q; p != NONE && depth < 256; p = a->parent[p])
		chain[depth++] = p;
	buf[0] = '\0';
	while (depth--) {
		const char *name = a->name[chain[depth]];
		size_t n = strlen(name), sep = len ? 1 : 0;

		if (len + sep + n + 1 > size)
			break;
		if (sep)
			buf[len++] = '/';
		memcpy(buf + len, name, n);
		len += n;
		buf[len] = '\0';
	}
	return buf;
}
