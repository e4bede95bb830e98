/*
 * pending.c: the events of one trace and one direction that wait for
 * their match (Trace Compass's unmatched tables), keyed by packet.
 *
 * Entries live in a FIFO ring in arrival order, which is time order (a
 * trace's events come in time order), so "drop everything older than t"
 * pops a prefix.  A hash of sequence numbers (linear probing, deletion by
 * backward shift) finds an entry by key.  A removed entry stays in the
 * ring, dead, until the head passes it; when the ring is full it is
 * compacted if at least half of it is dead, else doubled.  Memory is
 * therefore within a factor of two of the waiting entries plus the dead
 * ones between the oldest live entry and the newest.
 */
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"

void sht__pending_init(struct sht__pending *p)
{
	memset(p, 0, sizeof(*p));
}

void sht__pending_free(struct sht__pending *p)
{
	free(p->ring);
	free(p->slots);
	memset(p, 0, sizeof(*p));
}

static uint64_t hash_key(const struct sht__pkey *k)
{
	uint64_t h = k->seq * 0x9E3779B97F4A7C15ull;

	h ^= (k->ack + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
	h ^= (k->flags + 0x8CB92BA72F3D8DD7ull) * 0x165667B19E3779F9ull;
	return h ^ (h >> 29);
}

static int key_eq(const struct sht__pkey *a, const struct sht__pkey *b)
{
	return a->seq == b->seq && a->ack == b->ack && a->flags == b->flags;
}

static struct sht__pentry *entry(const struct sht__pending *p, uint64_t seqno)
{
	return &p->ring[seqno & (p->cap - 1)];
}

/* Slot of key, or the empty slot where it would go. */
static size_t find_slot(const struct sht__pending *p,
			const struct sht__pkey *k)
{
	size_t mask = p->nslots - 1, i = hash_key(k) & mask;

	while (p->slots[i] && !key_eq(&entry(p, p->slots[i] - 1)->key, k))
		i = (i + 1) & mask;
	return i;
}

int sht__pending_find(const struct sht__pending *p, const struct sht__pkey *k,
		      int64_t *ts)
{
	size_t i;

	if (!p->live)
		return 0;
	i = find_slot(p, k);
	if (!p->slots[i])
		return 0;
	*ts = entry(p, p->slots[i] - 1)->ts;
	return 1;
}

/* Empty slot i, shifting back the entries that probed past it. */
static void slot_delete(struct sht__pending *p, size_t i)
{
	size_t mask = p->nslots - 1, j = i, home;

	for (;;) {
		p->slots[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!p->slots[j])
				return;
			home = hash_key(&entry(p, p->slots[j] - 1)->key) & mask;
			/* j's entry may fill i if its home is not in (i, j]. */
			if (i <= j ? (home <= i || home > j)
				   : (home <= i && home > j))
				break;
		}
		p->slots[i] = p->slots[j];
		i = j;
	}
}

void sht__pending_remove(struct sht__pending *p, const struct sht__pkey *k)
{
	size_t i = find_slot(p, k);

	if (!p->slots[i])
		return;
	entry(p, p->slots[i] - 1)->alive = 0;
	slot_delete(p, i);
	p->live--;
}

/* Rebuild the hash for the live entries of the ring (nslots >= 2 live). */
static int rehash(struct sht__pending *p, size_t nslots)
{
	uint64_t *s = calloc(nslots, sizeof(*s)), q;
	size_t i;

	if (!s)
		return -1;
	free(p->slots);
	p->slots = s;
	p->nslots = nslots;
	for (q = p->head; q < p->tail; q++) {
		if (!entry(p, q)->alive)
			continue;
		i = find_slot(p, &entry(p, q)->key);
		p->slots[i] = q + 1;
	}
	return 0;
}

/* Room for one more entry in the ring: compact or grow. */
static int make_room(struct sht__pending *p)
{
	size_t ncap = p->cap ? p->cap : 64, n = (size_t)(p->tail - p->head);
	struct sht__pentry *r;
	uint64_t q, w = 0;

	if (n < p->cap)
		return 0;
	if (p->live * 2 > n || !p->cap)
		ncap = p->cap ? p->cap * 2 : 64;
	r = malloc(ncap * sizeof(*r));
	if (!r)
		return -1;
	for (q = p->head; q < p->tail; q++)
		if (entry(p, q)->alive)
			r[w++] = *entry(p, q);
	free(p->ring);
	p->ring = r;
	p->cap = ncap;
	p->head = 0;
	p->tail = w;
	return rehash(p, ncap * 2);
}

int sht__pending_add(struct sht__pending *p, const struct sht__pkey *k,
		     int64_t ts)
{
	struct sht__pentry *e;

	if (make_room(p) != 0)
		return -1;
	e = entry(p, p->tail);
	e->key = *k;
	e->ts = ts;
	e->alive = 1;
	p->slots[find_slot(p, k)] = ++p->tail;
	p->live++;
	return 0;
}

void sht__pending_drop_before(struct sht__pending *p, int64_t before)
{
	struct sht__pentry *e;

	while (p->head < p->tail) {
		e = entry(p, p->head);
		if (e->alive) {
			if (e->ts >= before)
				return;
			sht__pending_remove(p, &e->key);
		}
		p->head++;
	}
}
