/*
 * cache.c: the node cache, a bounded map from block number to a validated
 * block and its decoded header, shared by every thread querying a tree.
 *
 * Invariants:
 *  (1) An entry is in its shard's hash chain and ring exactly once.
 *  (2) An entry with refs > 0 is never evicted or freed; fetch pins,
 *      release unpins (release needs no lock: refs is atomic and only a
 *      locked lookup can raise it from 0).
 *  (3) A block is validated (checksum and structure) before it enters the
 *      cache; entries are immutable afterwards.  A reader checks a block's
 *      checksum on its first read only (st->verified): the file of a
 *      complete history does not change under it, so a block evicted and
 *      read again has its structure checked, not its checksum.
 * Eviction is CLOCK over the shard's ring.  If every entry of a shard is
 * pinned the shard grows past its bound rather than fail.
 *
 * A mapped reader (st->map) has no shards: one slot per block, set once by
 * the first fetch (compare-and-swap; a thread that loses frees its copy),
 * never evicted.  Its entries hold the decoded header only; node.blk
 * points into the map.  Only sht__cache_drop empties slots, and it must not
 * run concurrently with fetches (sht_reader_drop_caches says so).
 */
#include <stdlib.h>

#include <string.h>

#include "store/store-int.h"

struct shard {
	pthread_mutex_t mu;
	struct sht__centry **buckets;
	uint32_t mask;               /* buckets - 1 */
	struct sht__centry **ring;
	uint32_t ring_cap, count, hand, bound;
};

struct sht__cache {
	uint32_t block_size;
	uint32_t nshards;            /* 0: mapped (slots) */
	uint64_t nslots;
	_Atomic(struct sht__centry *) *slots;
	struct shard shards[];
};

static uint32_t pow2_at_least(uint32_t x)
{
	uint32_t p = 1;
	while (p < x)
		p <<= 1;
	return p;
}

static sht_err shard_init(struct shard *s, uint32_t bound)
{
	uint32_t nb = pow2_at_least(bound * 2);

	s->buckets = calloc(nb, sizeof *s->buckets);
	s->ring = calloc(bound, sizeof *s->ring);
	if (!s->buckets || !s->ring)
		return SHT_ERR_NOMEM;
	s->mask = nb - 1;
	s->ring_cap = bound;
	s->bound = bound;
	pthread_mutex_init(&s->mu, NULL);
	return SHT_OK;
}

sht_err sht__cache_create(size_t bytes, uint32_t block_size,
			  struct sht__cache **out)
{
	uint64_t nodes = bytes / block_size;
	uint32_t nshards = nodes >= 256 ? 16 : 1;
	struct sht__cache *c;

	if (nodes < 4)
		nodes = 4;
	if (nodes > (1u << 24))
		nodes = 1u << 24;
	c = calloc(1, sizeof *c + nshards * sizeof(struct shard));
	if (!c)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate node cache");
	c->block_size = block_size;
	c->nshards = nshards;
	for (uint32_t i = 0; i < nshards; i++) {
		if (shard_init(&c->shards[i], (uint32_t)(nodes / nshards)) != SHT_OK) {
			c->nshards = i + 1;
			sht__cache_destroy(c);
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate node cache");
		}
	}
	*out = c;
	return SHT_OK;
}

sht_err sht__cache_create_mapped(uint64_t blocks, struct sht__cache **out)
{
	struct sht__cache *c = calloc(1, sizeof *c);

	if (c)
		c->slots = calloc(blocks ? blocks : 1, sizeof *c->slots);
	if (!c || !c->slots) {
		free(c);
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate node table of %llu blocks",
				  (unsigned long long)blocks);
	}
	c->nslots = blocks;
	*out = c;
	return SHT_OK;
}

/* Free the unpinned entries of a mapped cache's slots. */
static void slots_drop(struct sht__cache *c)
{
	for (uint64_t i = 0; i < c->nslots; i++) {
		struct sht__centry *e = atomic_load(&c->slots[i]);

		if (e && !atomic_load(&e->refs)) {
			atomic_store(&c->slots[i], NULL);
			free(e);
		}
	}
}

void sht__cache_destroy(struct sht__cache *c)
{
	if (!c)
		return;
	if (c->slots) {
		slots_drop(c);
		free(c->slots);
	}
	for (uint32_t i = 0; i < c->nshards; i++) {
		struct shard *s = &c->shards[i];
		for (uint32_t k = 0; k < s->count; k++)
			free(s->ring[k]);
		free(s->ring);
		free(s->buckets);
		pthread_mutex_destroy(&s->mu);
	}
	free(c);
}

static uint32_t hash_block(uint64_t b)
{
	b *= UINT64_C(0x9E3779B97F4A7C15);
	return (uint32_t)(b >> 32);
}

static struct sht__centry **chain_slot(struct shard *s, uint64_t blk)
{
	struct sht__centry **p = &s->buckets[hash_block(blk) & s->mask];

	while (*p && (*p)->block != blk)
		p = &(*p)->hnext;
	return p;
}

static void unlink_entry(struct shard *s, struct sht__centry *e)
{
	struct sht__centry **p = chain_slot(s, e->block);
	*p = e->hnext;
}

/* Index of a ring slot to reuse, after evicting its entry; or ring_cap if
 * nothing can be evicted. */
static uint32_t find_victim(struct shard *s)
{
	for (uint32_t step = 0; step < 2 * s->count; step++) {
		uint32_t i = s->hand;
		struct sht__centry *e = s->ring[i];

		s->hand = (s->hand + 1) % s->count;
		if (atomic_load_explicit(&e->refs, memory_order_acquire))
			continue;
		if (e->ref_bit) {
			e->ref_bit = 0;
			continue;
		}
		unlink_entry(s, e);
		free(e);
		return i;
	}
	return s->ring_cap;
}

static sht_err shard_insert(struct shard *s, struct sht__centry *e)
{
	uint32_t slot;

	if (s->count < s->bound) {
		slot = s->count++;
	} else if ((slot = find_victim(s)) == s->ring_cap) {
		if (s->count == s->ring_cap) {
			struct sht__centry **r =
				realloc(s->ring, 2 * (size_t)s->ring_cap * sizeof *r);
			if (!r)
				return SHT_ERR_NOMEM;
			s->ring = r;
			s->ring_cap *= 2;
		}
		slot = s->count++;
	}
	s->ring[slot] = e;
	e->hnext = s->buckets[hash_block(e->block) & s->mask];
	s->buckets[hash_block(e->block) & s->mask] = e;
	return SHT_OK;
}

static struct sht__centry *lookup_pin(struct shard *s, uint64_t blk)
{
	struct sht__centry *e = *chain_slot(s, blk);

	if (e) {
		atomic_fetch_add_explicit(&e->refs, 1, memory_order_acquire);
		e->ref_bit = 1;
	}
	return e;
}

/* Has this reader already checked block blk's checksum?  (The bits of a
 * complete history, which never changes under its reader: a block read
 * again after eviction is only decoded.) */
static int verified(struct sht__store *st, uint64_t blk)
{
	return (atomic_load_explicit(&st->verified[blk >> 6], memory_order_relaxed) >>
		(blk & 63)) & 1;
}

static sht_err beyond(struct sht__store *st, uint64_t blk, uint64_t count)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot read node: block=%llu beyond the %llu blocks of %s",
			  (unsigned long long)blk, (unsigned long long)count,
			  st->path);
}

/* Validate block blk (its bytes at data) and decode its header into e. */
static sht_err check_block(struct sht__store *st, uint64_t blk, uint64_t count,
			   const uint8_t *data, struct sht__centry *e)
{
	sht_err err;

	if (!st->verified)
		return sht__node_parse(data, blk, count, &st->geom, &e->node);
	if (verified(st, blk))
		return sht__node_decode(data, blk, count, &st->geom, &e->node);
	err = sht__node_parse(data, blk, count, &st->geom, &e->node);
	if (err == SHT_OK)
		atomic_fetch_or_explicit(&st->verified[blk >> 6],
					 UINT64_C(1) << (blk & 63),
					 memory_order_relaxed);
	return err;
}

static sht_err read_block(struct sht__store *st, uint64_t blk,
			  struct sht__centry **out)
{
	uint32_t bs = st->geom.block_size;
	uint64_t count = atomic_load(&st->block_count);
	struct sht__centry *e;
	int rc;
	sht_err err;

	if (blk >= count)
		return beyond(st, blk, count);
	e = malloc(sizeof *e + bs);
	if (!e)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a block of %u bytes", bs);
	rc = sht__pread_full(st->fd, e->data, bs, SHT__HEADER_REGION + blk * bs);
	if (rc) {
		free(e);
		return sht__error_sys(SHT_ERR_IO, -rc, "Cannot read block: block=%llu path=%s errno=%d (%s)",
				      (unsigned long long)blk, st->path, -rc, strerror(-rc));
	}
	err = check_block(st, blk, count, e->data, e);
	if (err != SHT_OK) {
		free(e);
		return err;
	}
	e->block = blk;
	e->ref_bit = 1;
	e->copy = 0;
	atomic_init(&e->refs, 1);
	atomic_fetch_add_explicit(&st->misses, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->bytes_read, bs, memory_order_relaxed);
	*out = e;
	return SHT_OK;
}

/* A mapped reader past its budget: block blk read into an entry of the
 * caller's own (mapbudget.c), which sht__release frees. */
static sht_err fetch_copy(struct sht__store *st, uint64_t blk,
			  struct sht__centry **out)
{
	sht_err err = read_block(st, blk, out);

	if (err != SHT_OK)
		return err;
	(*out)->copy = 1;
	sht__map_copied(st, blk, *out);
	return SHT_OK;
}

/* A mapped reader's fetch: the slot's entry, made on first use.  The
 * block count is the one validated at open (the map covers it). */
static sht_err fetch_mapped(struct sht__store *st, uint64_t blk,
			    struct sht__centry **out)
{
	struct sht__cache *c = st->cache;
	struct sht__centry *e, *none = NULL;
	uint32_t bs = st->geom.block_size;
	sht_err err;

	if (blk >= c->nslots)
		return beyond(st, blk, c->nslots);
	e = atomic_load_explicit(&c->slots[blk], memory_order_acquire);
	if (st->touched && !sht__map_keep(st, blk, e))
		return fetch_copy(st, blk, out);
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e)
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate a node entry");
		err = check_block(st, blk, c->nslots,
				  st->map + SHT__HEADER_REGION + blk * bs, e);
		if (err != SHT_OK) {
			free(e);
			return err;
		}
		e->block = blk;
		if (atomic_compare_exchange_strong_explicit(&c->slots[blk], &none, e,
							    memory_order_acq_rel,
							    memory_order_acquire)) {
			atomic_fetch_add_explicit(&st->misses, 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&st->bytes_read, bs, memory_order_relaxed);
		} else {
			free(e);
			e = none;
		}
	}
	atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
	*out = e;
	return SHT_OK;
}

sht_err sht__fetch(struct sht__store *st, uint64_t blk, struct sht__centry **out)
{
	struct sht__cache *c = st->cache;
	struct shard *s;
	struct sht__centry *e, *mine = NULL;
	sht_err err;

	atomic_fetch_add_explicit(&st->visits, 1, memory_order_relaxed);
	if (!c->nshards)
		return fetch_mapped(st, blk, out);
	s = &c->shards[hash_block(blk) % c->nshards];
	pthread_mutex_lock(&s->mu);
	e = lookup_pin(s, blk);
	pthread_mutex_unlock(&s->mu);
	if (e) {
		*out = e;
		return SHT_OK;
	}
	err = read_block(st, blk, &mine);
	if (err != SHT_OK)
		return err;
	pthread_mutex_lock(&s->mu);
	e = lookup_pin(s, blk);       /* another thread may have won */
	if (!e && shard_insert(s, mine) == SHT_OK)
		e = mine;
	pthread_mutex_unlock(&s->mu);
	if (e != mine)
		free(mine);
	if (!e)
		return sht__error(SHT_ERR_NOMEM, "Cannot grow node cache");
	*out = e;
	return SHT_OK;
}

void sht__release(struct sht__centry *e)
{
	if (e->copy) {                  /* the caller's own (fetch_copy) */
		free(e);
		return;
	}
	atomic_fetch_sub_explicit(&e->refs, 1, memory_order_release);
}

void sht__cache_drop(struct sht__cache *c)
{
	if (c->slots)
		slots_drop(c);
	for (uint32_t i = 0; i < c->nshards; i++) {
		struct shard *s = &c->shards[i];
		uint32_t keep = 0;

		pthread_mutex_lock(&s->mu);
		for (uint32_t k = 0; k < s->count; k++) {
			struct sht__centry *e = s->ring[k];
			if (atomic_load(&e->refs)) {
				s->ring[keep++] = e;
				continue;
			}
			unlink_entry(s, e);
			free(e);
		}
		s->count = keep;
		s->hand = 0;
		pthread_mutex_unlock(&s->mu);
	}
}
