/*
 * ids.c: entry ids of an output: small integers (1, 2, ...) given to keys
 * of three integers in the order they are first seen, so that an entry
 * keeps its id while a history grows and between requests, and ids stay
 * far below 2^53 (the client reads them as plain numbers).
 */
#include <stdlib.h>
#include <string.h>

#include "out.h"

struct id_entry {
	struct srv_idkey k;
	int64_t aux[2];
};

struct srv_ids {
	pthread_mutex_t lock;
	struct id_entry *e;       /* e[id - 1] */
	size_t n, cap;
	uint32_t *slot;           /* hash: index + 1, 0 = empty */
	size_t nslot;
};

struct srv_ids *srv_ids_new(void)
{
	struct srv_ids *ids = calloc(1, sizeof *ids);

	if (ids)
		pthread_mutex_init(&ids->lock, NULL);
	return ids;
}

void srv_ids_free(struct srv_ids *ids)
{
	if (!ids)
		return;
	free(ids->e);
	free(ids->slot);
	pthread_mutex_destroy(&ids->lock);
	free(ids);
}

static size_t key_hash(const struct srv_idkey *k)
{
	uint64_t h = (uint64_t)k->a * UINT64_C(0x9e3779b97f4a7c15);

	h ^= (uint64_t)k->b + UINT64_C(0x632be59bd9b4e019) + (h << 6) + (h >> 2);
	h ^= (uint64_t)k->c * UINT64_C(0xc2b2ae3d27d4eb4f) + (h << 6) + (h >> 2);
	return (size_t)(h ^ (h >> 31));
}

static int key_eq(const struct srv_idkey *x, const struct srv_idkey *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

static void slot_put(struct srv_ids *ids, size_t idx)
{
	size_t mask = ids->nslot - 1, i = key_hash(&ids->e[idx].k) & mask;

	while (ids->slot[i])
		i = (i + 1) & mask;
	ids->slot[i] = (uint32_t)(idx + 1);
}

static int grow(struct srv_ids *ids)
{
	size_t cap = ids->cap ? ids->cap * 2 : 256;
	struct id_entry *e;

	if (cap > UINT32_MAX / 2)
		return -1;
	e = realloc(ids->e, cap * sizeof *e);
	if (!e)
		return -1;
	ids->e = e;
	ids->cap = cap;
	free(ids->slot);
	ids->nslot = cap * 2;
	ids->slot = calloc(ids->nslot, sizeof *ids->slot);
	if (!ids->slot) {
		ids->nslot = 0;
		return -1;
	}
	for (size_t i = 0; i < ids->n; i++)
		slot_put(ids, i);
	return 0;
}

int64_t srv_ids_get(struct srv_ids *ids, struct srv_idkey k)
{
	int64_t id = -1;
	size_t mask, i;

	pthread_mutex_lock(&ids->lock);
	if (ids->nslot) {
		mask = ids->nslot - 1;
		for (i = key_hash(&k) & mask; ids->slot[i]; i = (i + 1) & mask)
			if (key_eq(&ids->e[ids->slot[i] - 1].k, &k)) {
				id = ids->slot[i];
				break;
			}
	}
	if (id < 0 && (ids->n < ids->cap || grow(ids) == 0)) {
		memset(&ids->e[ids->n], 0, sizeof ids->e[0]);
		ids->e[ids->n].k = k;
		slot_put(ids, ids->n);
		id = (int64_t)++ids->n;
	}
	pthread_mutex_unlock(&ids->lock);
	return id;
}

int srv_ids_key(struct srv_ids *ids, int64_t id, struct srv_idkey *k,
		int64_t aux[2])
{
	int ok = -1;

	pthread_mutex_lock(&ids->lock);
	if (id >= 1 && (uint64_t)id <= ids->n) {
		*k = ids->e[id - 1].k;
		if (aux)
			memcpy(aux, ids->e[id - 1].aux, sizeof ids->e[0].aux);
		ok = 0;
	}
	pthread_mutex_unlock(&ids->lock);
	return ok;
}

void srv_ids_set_aux(struct srv_ids *ids, int64_t id, int64_t a0, int64_t a1)
{
	pthread_mutex_lock(&ids->lock);
	if (id >= 1 && (uint64_t)id <= ids->n) {
		ids->e[id - 1].aux[0] = a0;
		ids->e[id - 1].aux[1] = a1;
	}
	pthread_mutex_unlock(&ids->lock);
}

struct srv_ids *srv_exp_ids(struct srv_exp *e, enum srv_out_index i)
{
	struct srv_ids *ids;

	pthread_mutex_lock(&e->lock);
	if (!e->ids[i])
		e->ids[i] = srv_ids_new();
	ids = e->ids[i];
	pthread_mutex_unlock(&e->lock);
	return ids;
}
