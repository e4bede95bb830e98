/*
 * attrs.c: the attribute tree of the state system (src/state/attrs.h):
 * (parent, name) <-> quark, children in creation order, paths and
 * wildcard matches, and the attribute tree section (docs/FORMAT.md §8).
 * One file: a split needs a private header for the structs below.
 *
 * Layout, for n attributes:
 *   at[n]    per quark: parent, name (arena offset and length), children
 *   arena    the names, each followed by a NUL, in 64 KiB blocks that
 *            never move (names are handed out as borrowed pointers).  An
 *            offset is virtual: blk[off >> 16].p + (off & 0xffff); a name
 *            never straddles two allocations, so its bytes are contiguous.
 *   kv[]     children lists, one per attribute that has children
 *   table    open addressing with linear probing, (parent, name) -> quark,
 *            hashed with a per-tree seed; beside each slot a one-byte tag
 *            (0 = empty slot, else 8 bits of the hash) rejects most
 *            mismatches without touching at[] or the arena.  Rehashing
 *            and loading hash INDEX_AHEAD attributes in advance and
 *            prefetch their slots (index_all).
 * Invariants:
 *  (1) at[q].parent < q, or SHT_QUARK_ROOT; attributes are never removed.
 *  (2) Every quark is in exactly one table slot and in its parent's
 *      children list, which is in increasing (= creation) order.
 *  (3) No two attributes share (parent, name); names hold no NUL.
 *  (4) The table is at most 3/4 full, so every probe ends.
 *  (5) A failed creation changes nothing visible: every buffer is grown
 *      first, then the attribute is published, which cannot fail.
 * A children list of a loaded tree borrows a shared pool (cap 0) until it
 * has to grow; it is then copied into its own allocation.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state/attrs.h"
#include "util/util.h"

#define ARENA_SHIFT 16                           /* 64 KiB arena blocks */
#define ARENA_BLOCK ((size_t)1 << ARENA_SHIFT)
#define ARENA_MAX ((uint64_t)1 << 32)            /* offsets are 32-bit */
#define NO_KIDS UINT32_MAX                       /* attr.kids: no list */

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* One attribute (16 bytes: the tree's main per-quark cost). */
struct attr {
	sht_quark parent;       /* parent quark, SHT_QUARK_ROOT at top level */
	uint32_t name_off;      /* arena offset of the name (NUL follows it) */
	uint32_t name_len;      /* name length in bytes, NUL excluded */
	uint32_t kids;          /* index of its children list in kv, or NO_KIDS
				 * (while loading: the number of children) */
};

/* Children of one attribute, in creation order. */
struct kids {
	sht_quark *q;           /* the children */
	uint32_t n;             /* number of children */
	uint32_t cap;           /* capacity of q; 0: q is in the pool (or NULL) */
};

/* One 64 KiB block of arena offsets. */
struct block {
	char *p;                /* address of the block's first offset */
	int own;                /* 1 if p starts an allocation (freed at the end) */
};

struct sht__attrs {
	struct attr *at;        /* attributes, indexed by quark */
	size_t n;               /* number of attributes (= the next quark) */
	size_t cap;             /* capacity of at */
	struct block *blk;      /* arena blocks, indexed by offset >> 16 */
	size_t nblk;            /* arena blocks allocated */
	size_t blkcap;          /* capacity of blk */
	uint64_t top;           /* next free arena offset, <= nblk << 16; the
				 * bytes [top, nblk << 16) are in one allocation */
	sht_quark *slot;        /* table: quark per slot (where tag != 0); the
				 * tags share its allocation */
	uint8_t *tag;           /* table: per slot 0 (empty) or a hash tag */
	size_t mask;            /* table size - 1 (a power of two; 0: none) */
	struct kids *kv;        /* children lists (attr.kids indexes them) */
	size_t nkv;             /* lists in use */
	size_t kvcap;           /* capacity of kv */
	struct kids root;       /* children of the root */
	sht_quark *pool;        /* loaded trees: where the lists with cap 0 live */
	uint64_t seed;          /* hash seed, per tree (see tree_seed) */
};

#ifdef SHT_DEV_CHECKS
/* Test hook (dev builds only): while > 0 it counts allocations down, and
 * the one that brings it to 0 fails.  Set by tests/unit/test-attrs.c. */
long sht__attrs_fail_countdown;
#endif

/* Every allocation of the attribute tree goes through here. */
static void *mem_realloc(void *p, size_t n)
{
#ifdef SHT_DEV_CHECKS
	if (sht__attrs_fail_countdown > 0 && --sht__attrs_fail_countdown == 0)
		return NULL;
#endif
	return realloc(p, n);
}

static sht_err nomem(size_t bytes)
{
	return sht__error(SHT_ERR_NOMEM,
			  "Cannot allocate attribute tree memory: bytes=%zu", bytes);
}

/* Grow the array p of size-byte items (capacity *cap) to hold need items,
 * doubling from min.  NULL on failure, with p and *cap unchanged. */
static void *reserve(void *p, size_t *cap, size_t need, size_t size,
		     size_t min)
{
	size_t c = *cap ? *cap : min;
	void *np;

	if (need <= *cap)
		return p;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			return NULL;
		c *= 2;
	}
	np = mem_realloc(p, c * size);
	if (np)
		*cap = c;
	return np;
}

/* 1 if s[0 .. len) holds a NUL (names are short: no call for those). */
static int has_nul(const char *s, size_t len)
{
	size_t i;

	if (len > 32)
		return memchr(s, '\0', len) != NULL;
	for (i = 0; i < len; i++)
		if (!s[i])
			return 1;
	return 0;
}

/* Address of arena offset off (inside a name, or its NUL). */
static char *arena_at(const struct sht__attrs *a, uint32_t off)
{
	return a->blk[off >> ARENA_SHIFT].p + (off & (ARENA_BLOCK - 1));
}

/* ---- hash table --------------------------------------------------------- */

/* The last 1 .. 8 bytes of a key as one word, without a byte-by-byte
 * copy (which would stall the load that follows it). */
static uint64_t tail_word(const char *s, size_t len)
{
	uint32_t lo, hi;
	uint64_t w;

	if (len >= 8) {
		memcpy(&w, s + len - 8, 8);
		return w;
	}
	if (len >= 4) {
		memcpy(&lo, s, 4);
		memcpy(&hi, s + len - 4, 4);
		return (uint64_t)lo << 32 | hi;
	}
	if (len)
		return (uint64_t)(uint8_t)s[0] << 16 |
		       (uint64_t)(uint8_t)s[len / 2] << 8 | (uint8_t)s[len - 1];
	return 0;
}

static uint64_t hash_name(const struct sht__attrs *a, sht_quark parent,
			  const char *s, size_t len)
{
	const uint64_t m = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t h = (a->seed ^ (uint64_t)parent << 32 ^ (uint64_t)len) * m, w;
	size_t n = len;

	for (; n > 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * m;
		h ^= h >> 29;
	}
	h = (h ^ tail_word(s, n)) * m;
	h ^= h >> 33;                        /* murmur3 fmix64 */
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 33);
}

static uint8_t hash_tag(uint64_t h)
{
	uint8_t t = (uint8_t)(h >> 56);

	return t ? t : 1;
}

static int same_attr(const struct sht__attrs *a, sht_quark q,
		     sht_quark parent, const char *name, size_t len)
{
	const struct attr *at = &a->at[q];

	return at->parent == parent && at->name_len == len &&
	       memcmp(arena_at(a, at->name_off), name, len) == 0;
}

static size_t probe(const struct sht__attrs *a, uint64_t h,
			sht_quark parent, const char *name, size_t len)
{
	uint8_t t = hash_tag(h);
	size_t i = (size_t)h & a->mask;

	while (a->tag[i]) {
		if (a->tag[i] == t && same_attr(a, a->slot[i], parent, name, len))
			return i;
		i = (i + 1) & a->mask;
	}
	return i;
}

static void slot_set(struct sht__attrs *a, size_t i, uint64_t h,
			 sht_quark q)
{
	a->tag[i] = hash_tag(h);
	a->slot[i] = q;
}

/* The first empty slot of h's chain (for a key known to be absent). */
static size_t free_slot(const struct sht__attrs *a, uint64_t h)
{
	size_t i = (size_t)h & a->mask;

	while (a->tag[i])
		i = (i + 1) & a->mask;
	return i;
}

/* Smallest table size (a power of two, >= 16) that holds n at 3/4. */
static size_t table_size(size_t n)
{
	size_t size = 16;

	while (size / 4 * 3 < n && size <= SIZE_MAX / 10)
		size *= 2;
	return size;
}

/* Replace the table by an empty one of `size` slots (the attributes are
 * not in it: see index_all).  On failure the old table stays. */
static sht_err table_alloc(struct sht__attrs *a, size_t size)
{
	sht_quark *slot = size <= SIZE_MAX / 5 ?
			  mem_realloc(NULL, size * 5) : NULL;

	if (!slot)
		return nomem(size * 5);
	free(a->slot);
	a->slot = slot;
	a->tag = (uint8_t *)(slot + size);
	a->mask = size - 1;
	memset(a->tag, 0, size);
	return SHT_OK;
}

/* Hash of quark q's key, its slot prefetched: a cache miss costs more
 * than hashing, so index_all works INDEX_AHEAD quarks in advance. */
#define INDEX_AHEAD 16
static uint64_t hash_ahead(const struct sht__attrs *a, size_t q)
{
	const struct attr *at = &a->at[q];
	uint64_t h = hash_name(a, at->parent, arena_at(a, at->name_off),
			       at->name_len);

	PREFETCH(&a->tag[(size_t)h & a->mask]);
	PREFETCH(&a->slot[(size_t)h & a->mask]);
	return h;
}

/* Put every attribute in the empty table, in quark order.  With check,
 * stop at the first whose (parent, name) is already there and return it;
 * else (or if there is none) return SHT_QUARK_NONE. */
static sht_quark index_all(struct sht__attrs *a, int check)
{
	uint64_t ring[INDEX_AHEAD];
	size_t q, i;

	for (q = 0; q < a->n && q < INDEX_AHEAD; q++)
		ring[q] = hash_ahead(a, q);
	for (q = 0; q < a->n; q++) {
		const struct attr *at = &a->at[q];
		uint64_t h = ring[q % INDEX_AHEAD];

		if (q + INDEX_AHEAD < a->n)
			ring[q % INDEX_AHEAD] = hash_ahead(a, q + INDEX_AHEAD);
		i = check ? probe(a, h, at->parent, arena_at(a, at->name_off),
				  at->name_len)
			  : free_slot(a, h);
		if (a->tag[i])
			return (sht_quark)q;
		slot_set(a, i, h, (sht_quark)q);
	}
	return SHT_QUARK_NONE;
}

static sht_err table_reserve(struct sht__attrs *a, size_t n)
{
	size_t size = a->tag ? a->mask + 1 : 0;
	sht_err err;

	if (n <= size / 4 * 3)
		return SHT_OK;
	err = table_alloc(a, table_size(n));
	if (err == SHT_OK)
		index_all(a, 0);
	return err;
}

/* Quark of (parent, name), or SHT_QUARK_NONE. */
static sht_quark find(const struct sht__attrs *a, sht_quark parent,
		      const char *name, size_t len, uint64_t h)
{
	size_t i;

	if (!a->tag)
		return SHT_QUARK_NONE;
	i = probe(a, h, parent, name, len);
	return a->tag[i] ? a->slot[i] : SHT_QUARK_NONE;
}

/* ---- arena and children lists ----------------------------------------- */

/* Make room for s bytes of names; *off gets where they go.  A new block,
 * if one is needed, is added empty: nothing visible changes. */
static sht_err arena_reserve(struct sht__attrs *a, size_t s, uint32_t *off)
{
	uint64_t end = (uint64_t)a->nblk << ARENA_SHIFT;
	size_t k = (s + ARENA_BLOCK - 1) >> ARENA_SHIFT, i;
	struct block *b;
	char *p;

	if (end - a->top >= s) {
		*off = (uint32_t)a->top;
		return SHT_OK;
	}
	if (k > (ARENA_MAX >> ARENA_SHIFT) - a->nblk)
		return sht__error(SHT_ERR_TOOBIG,
				  "Cannot store an attribute name: name_len=%zu names_total=%llu limit=4GiB",
				  s - 1, (unsigned long long)a->top);
	b = reserve(a->blk, &a->blkcap, a->nblk + k, sizeof *b, 16);
	if (!b)
		return nomem((a->nblk + k) * sizeof *b);
	a->blk = b;
	p = mem_realloc(NULL, k << ARENA_SHIFT);
	if (!p)
		return nomem(k << ARENA_SHIFT);
	for (i = 0; i < k; i++)
		b[a->nblk + i] = (struct block){ p + (i << ARENA_SHIFT), i == 0 };
	a->nblk += k;
	a->top = end;
	*off = (uint32_t)end;
	return SHT_OK;
}

static struct kids *kids_mut(struct sht__attrs *a, sht_quark q)
{
	return q == SHT_QUARK_ROOT ? &a->root : &a->kv[a->at[q].kids];
}

/* Children list of q (SHT_QUARK_ROOT or a quark), or NULL if none. */
static const struct kids *kids_get(const struct sht__attrs *a, sht_quark q)
{
	if (q == SHT_QUARK_ROOT)
		return &a->root;
	return a->at[q].kids == NO_KIDS ? NULL : &a->kv[a->at[q].kids];
}

/* Room for one more child of p (p gets a list if it has none). */
static sht_err kids_reserve(struct sht__attrs *a, sht_quark p)
{
	struct kids *k;
	sht_quark *q;
	size_t c;

	if (p != SHT_QUARK_ROOT && a->at[p].kids == NO_KIDS) {
		k = reserve(a->kv, &a->kvcap, a->nkv + 1, sizeof *k, 16);
		if (!k)
			return nomem((a->nkv + 1) * sizeof *k);
		a->kv = k;
		a->kv[a->nkv] = (struct kids){ NULL, 0, 0 };
		a->at[p].kids = (uint32_t)a->nkv++;
	}
	k = kids_mut(a, p);
	if (k->n < k->cap)
		return SHT_OK;
	c = k->n < 4 ? 4 : (size_t)k->n * 2;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	q = mem_realloc(k->cap ? k->q : NULL, c * sizeof *q);
	if (!q)
		return nomem(c * sizeof *q);
	if (!k->cap && k->n)            /* leave the shared pool */
		memcpy(q, k->q, k->n * sizeof *q);
	k->q = q;
	k->cap = (uint32_t)c;
	return SHT_OK;
}

/* ---- creation ----------------------------------------------------------- */

/* Why a seed: the names of a loaded tree come from a file; with a fixed
 * hash a forged file could put them all in one probe cluster and make
 * loading quadratic.  The order of the table is never visible. */
static uint64_t tree_seed(const struct sht__attrs *a)
{
	static _Atomic uint64_t counter;
	struct timespec ts;
	uint64_t s = (uint64_t)(uintptr_t)a ^ ++counter * UINT64_C(0x9e3779b97f4a7c15);

	clock_gettime(CLOCK_MONOTONIC, &ts);
	s ^= (uint64_t)ts.tv_nsec << 20 ^ (uint64_t)ts.tv_sec;
	s ^= s >> 31;
	return s * UINT64_C(0xd6e8feb86659fd93);
}

sht_err sht__attrs_create(struct sht__attrs **out)
{
	struct sht__attrs *a = mem_realloc(NULL, sizeof *a);

	if (!a)
		return nomem(sizeof *a);
	memset(a, 0, sizeof *a);
	a->seed = tree_seed(a);
	*out = a;
	return SHT_OK;
}

void sht__attrs_destroy(struct sht__attrs *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nkv; i++)
		if (a->kv[i].cap)
			free(a->kv[i].q);
	if (a->root.cap)
		free(a->root.q);
	for (i = 0; i < a->nblk; i++)
		if (a->blk[i].own)
			free(a->blk[i].p);
	free(a->kv);
	free(a->pool);
	free(a->blk);
	free(a->at);
	free(a->slot);
	free(a);
}

/* Publish a new attribute; cannot fail once everything is reserved. */
static sht_quark publish(struct sht__attrs *a, sht_quark parent,
			 const char *name, size_t len, uint32_t off, uint64_t h)
{
	sht_quark q = (sht_quark)a->n;
	char *dst = arena_at(a, off);
	struct kids *k;

	if (len)
		memcpy(dst, name, len);
	dst[len] = '\0';
	a->top = (uint64_t)off + len + 1;
	a->at[q] = (struct attr){ parent, off, (uint32_t)len,
				       NO_KIDS };
	slot_set(a, free_slot(a, h), h, q);
	k = kids_mut(a, parent);
	k->q[k->n++] = q;
	a->n++;
	return q;
}

static sht_err attr_add(struct sht__attrs *a, sht_quark parent,
			const char *name, size_t len, uint64_t h,
			sht_quark *out)
{
	struct attr *at;
	uint32_t off = 0;
	sht_err err;

	if (a->n > SHT_QUARK_MAX)
		return sht__error(SHT_ERR_TOOBIG,
				  "Cannot create an attribute: count=%zu is the most quarks",
				  a->n);
	if (len >= ARENA_MAX)
		return sht__error(SHT_ERR_TOOBIG,
				  "Cannot create an attribute: name_len=%zu limit=4GiB", len);
	at = reserve(a->at, &a->cap, a->n + 1, sizeof *at, 64);
	if (!at)
		return nomem((a->n + 1) * sizeof *at);
	a->at = at;
	err = arena_reserve(a, len + 1, &off);
	if (err == SHT_OK)
		err = table_reserve(a, a->n + 1);
	if (err == SHT_OK)
		err = kids_reserve(a, parent);
	if (err == SHT_OK)
		*out = publish(a, parent, name, len, off, h);
	return err;
}

sht_err sht__attrs_get(struct sht__attrs *a, sht_quark parent,
		       const char *name, size_t len, int create,
		       sht_quark *out)
{
	sht_quark q;
	uint64_t h;

	if (parent != SHT_QUARK_ROOT && parent >= a->n)
		return sht__error(SHT_ERR_RANGE,
				  "Cannot look up an attribute: parent=%u count=%zu is no quark",
				  parent, a->n);
	if (!name && len)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot look up an attribute: name=NULL len=%zu", len);
	if (len && has_nul(name, len))
		return sht__error(SHT_ERR_INVALID,
				  "Cannot look up an attribute: parent=%u name_len=%zu name holds a NUL byte",
				  parent, len);
	if (!name)
		name = "";
	h = hash_name(a, parent, name, len);
	q = find(a, parent, name, len, h);
	if (q != SHT_QUARK_NONE) {
		*out = q;
		return SHT_OK;
	}
	if (!create)
		return SHT_NOT_FOUND;
	return attr_add(a, parent, name, len, h, out);
}

/* ---- read access -------------------------------------------------------- */

uint64_t sht__attrs_count(const struct sht__attrs *a)
{
	return a->n;
}

static sht_err no_quark(const struct sht__attrs *a, const char *what,
			sht_quark q)
{
	return sht__error(SHT_ERR_RANGE,
			  "Cannot get the %s of an attribute: quark=%u count=%zu is no quark",
			  what, q, a->n);
}

sht_err sht__attrs_name(const struct sht__attrs *a, sht_quark q,
			const char **name, size_t *len)
{
	if (q >= a->n)
		return no_quark(a, "name", q);
	*name = arena_at(a, a->at[q].name_off);
	*len = a->at[q].name_len;
	return SHT_OK;
}

sht_err sht__attrs_parent(const struct sht__attrs *a, sht_quark q,
			  sht_quark *parent)
{
	if (q >= a->n)
		return no_quark(a, "parent", q);
	*parent = a->at[q].parent;
	return SHT_OK;
}

sht_err sht__attrs_children(const struct sht__attrs *a, sht_quark q,
			    const sht_quark **out, size_t *n)
{
	static const sht_quark none[1] = { SHT_QUARK_NONE };
	const struct kids *k;

	if (q != SHT_QUARK_ROOT && q >= a->n)
		return no_quark(a, "children", q);
	k = kids_get(a, q);
	*out = k && k->n ? k->q : none;
	*n = k ? k->n : 0;
	return SHT_OK;
}

/* Copy the part of [start, start + len) that lies below lim into buf. */
static void put_clipped(char *buf, size_t lim, size_t start, const char *s,
			size_t len)
{
	if (start < lim)
		memcpy(buf + start, s, len < lim - start ? len : lim - start);
}

sht_err sht__attrs_path(const struct sht__attrs *a, sht_quark q, char *buf,
			size_t size, size_t *need)
{
	size_t total = 0, lim, end;
	sht_quark x;

	if (q >= a->n)
		return no_quark(a, "path", q);
	for (x = q; x != SHT_QUARK_ROOT; x = a->at[x].parent)
		total += (size_t)a->at[x].name_len + 1;
	total--;
	if (need)
		*need = total;
	if (size == 0)
		return sht__error(SHT_ERR_BUFFER,
				  "Cannot write the path of an attribute: quark=%u size=0 need=%zu",
				  q, total);
	lim = size - 1 < total ? size - 1 : total;
	for (x = q, end = total; x != SHT_QUARK_ROOT; x = a->at[x].parent) {
		const struct attr *at = &a->at[x];
		size_t start = end - at->name_len;

		put_clipped(buf, lim, start, arena_at(a, at->name_off),
			    at->name_len);
		if (at->parent != SHT_QUARK_ROOT) {
			put_clipped(buf, lim, start - 1, "/", 1);
			end = start - 1;
		}
	}
	buf[lim] = '\0';
	if (lim < total)
		return sht__error(SHT_ERR_BUFFER,
				  "Cannot write the path of an attribute: quark=%u size=%zu need=%zu",
				  q, size, total);
	return SHT_OK;
}

/* ---- wildcard match ----------------------------------------------------- */

/* A growable list of quarks. */
struct qvec {
	sht_quark *q;           /* items */
	size_t n;               /* items in use */
	size_t cap;             /* capacity of q */
};

static sht_err qvec_add(struct qvec *v, const sht_quark *q, size_t n)
{
	sht_quark *p;

	if (!n)
		return SHT_OK;
	p = reserve(v->q, &v->cap, v->n + n, sizeof *p, 16);
	if (!p)
		return nomem((v->n + n) * sizeof *p);
	v->q = p;
	memcpy(p + v->n, q, n * sizeof *p);
	v->n += n;
	return SHT_OK;
}

/* next = the children of every quark of cur that match element e, in
 * order: expanding a depth-first-ordered list keeps it so. */
static sht_err match_step(const struct sht__attrs *a, const struct qvec *cur,
			  const char *e, size_t len, struct qvec *next)
{
	int star = len == 1 && e[0] == '*';
	sht_err err = SHT_OK;
	size_t i;

	next->n = 0;
	for (i = 0; i < cur->n && err == SHT_OK; i++) {
		const struct kids *k;
		sht_quark q;

		if (star) {
			k = kids_get(a, cur->q[i]);
			err = k ? qvec_add(next, k->q, k->n) : SHT_OK;
			continue;
		}
		q = find(a, cur->q[i], e, len, hash_name(a, cur->q[i], e, len));
		if (q != SHT_QUARK_NONE)
			err = qvec_add(next, &q, 1);
	}
	return err;
}

sht_err sht__attrs_match(const struct sht__attrs *a, const char *pattern,
			 sht_quark **out, size_t *n)
{
	struct qvec v[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	sht_quark root = SHT_QUARK_ROOT;
	const char *e;
	size_t len;
	sht_err err;
	int c = 0;

	*out = NULL;
	*n = 0;
	if (!pattern)
		return sht__error(SHT_ERR_INVALID, "Cannot match attributes: pattern=NULL");
	e = pattern[0] == '/' ? pattern + 1 : pattern;
	if (!*e)
		return SHT_OK;
	err = qvec_add(&v[0], &root, 1);
	while (err == SHT_OK) {
		len = strcspn(e, "/");
		err = match_step(a, &v[c], e, len, &v[c ^ 1]);
		c ^= 1;
		if (!e[len] || !v[c].n)
			break;
		e += len + 1;
	}
	free(v[c ^ 1].q);
	if (err != SHT_OK || !v[c].n) {
		free(v[c].q);
		return err;
	}
	*out = v[c].q;
	*n = v[c].n;
	return SHT_OK;
}

/* ---- attribute tree section (docs/FORMAT.md §8) ------------------------ */

#define LOAD_ERR "Cannot load the attribute tree: "

static size_t varint_len(uint32_t v)
{
	size_t n = 1;

	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

static uint8_t *put_varint(uint8_t *p, uint32_t v)
{
	for (; v >= 0x80; v >>= 7)
		*p++ = (uint8_t)(v | 0x80);
	*p++ = (uint8_t)v;
	return p;
}

/* A canonical (shortest) LEB128 varint below end holding a value <=
 * UINT32_MAX: 0, with *pp moved past it and the value in *out; else -1
 * and *pp unchanged. */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint32_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; shift < 35 && p < end; shift += 7) {
		uint8_t b = *p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (b & 0x80)
			continue;
		if ((b == 0 && shift) || v > UINT32_MAX)
			return -1;
		*pp = p;
		*out = (uint32_t)v;
		return 0;
	}
	return -1;
}

sht_err sht__attrs_serialize(const struct sht__attrs *a, uint8_t **buf,
			     size_t *len)
{
	size_t size = 8, q;
	uint8_t *p, *w;

	for (q = 0; q < a->n; q++)
		size += varint_len((uint32_t)(a->at[q].parent + 1u)) +
			varint_len(a->at[q].name_len) + a->at[q].name_len;
	p = mem_realloc(NULL, size);
	if (!p)
		return nomem(size);
	sht__put_u64(p, a->n);
	for (q = 0, w = p + 8; q < a->n; q++) {
		const struct attr *at = &a->at[q];

		w = put_varint(w, (uint32_t)(at->parent + 1u));
		w = put_varint(w, at->name_len);
		memcpy(w, arena_at(a, at->name_off), at->name_len);
		w += at->name_len;
	}
	*buf = p;
	*len = size;
	return SHT_OK;
}

/* State of one sht__attrs_load. */
struct loader {
	const uint8_t *buf;     /* the section (for offsets in messages) */
	const uint8_t *p;       /* next unread byte */
	const uint8_t *end;     /* end of the section */
	struct sht__attrs *a;   /* the tree being built */
	char *names;            /* the arena: one allocation, the worst case */
	size_t size;            /* its size in bytes */
	size_t used;            /* bytes of it in use */
	size_t root_kids;       /* top-level attributes seen */
};

/* Map the allocation p of size bytes as arena blocks 0, 1, ...; the
 * next name created goes into a new block. */
static void arena_map(struct sht__attrs *a, char *p, size_t size)
{
	size_t i;

	a->nblk = (size + ARENA_BLOCK - 1) >> ARENA_SHIFT;
	for (i = 0; i < a->nblk; i++)
		a->blk[i] = (struct block){ p + (i << ARENA_SHIFT), i == 0 };
	a->top = (uint64_t)a->nblk << ARENA_SHIFT;
}

/* Size everything for count attributes at once: no growth while loading. */
static sht_err load_alloc(struct loader *ld, size_t count)
{
	struct sht__attrs *a = ld->a;
	size_t left = (size_t)(ld->end - ld->p), nblk;
	sht_err err;

	if (count > SIZE_MAX / sizeof *a->at)
		return nomem(SIZE_MAX);
	a->at = mem_realloc(NULL, count * sizeof *a->at);
	if (!a->at)
		return nomem(count * sizeof *a->at);
	a->cap = count;
	err = table_alloc(a, table_size(count));
	if (err != SHT_OK)
		return err;
	/* Names and their NULs take fewer bytes than the records. */
	ld->size = left < ARENA_MAX ? left : (size_t)ARENA_MAX;
	nblk = (ld->size + ARENA_BLOCK - 1) >> ARENA_SHIFT;
	a->blk = mem_realloc(NULL, nblk * sizeof *a->blk);
	if (!a->blk)
		return nomem(nblk * sizeof *a->blk);
	a->blkcap = nblk;
	ld->names = mem_realloc(NULL, ld->size);
	if (!ld->names)
		return nomem(ld->size);
	arena_map(a, ld->names, ld->size);
	return SHT_OK;
}

/* Read and check the record of quark q up to its name (not yet added). */
static sht_err load_record(struct loader *ld, size_t q, sht_quark *parent,
			   const char **name, uint32_t *len)
{
	const uint8_t *at = ld->p;
	uint32_t pv;

	if (get_varint(&ld->p, ld->end, &pv))
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%zu offset=%td bad parent varint",
				  q, at - ld->buf);
	if (pv > q)
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%zu offset=%td parent=%u is not an earlier quark",
				  q, at - ld->buf, pv - 1);
	if (get_varint(&ld->p, ld->end, len))
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%zu offset=%td bad name length varint",
				  q, ld->p - ld->buf);
	if (*len > (size_t)(ld->end - ld->p) || *len >= ld->size - ld->used)
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%zu offset=%td name_len=%u bytes_left=%td",
				  q, ld->p - ld->buf, *len, ld->end - ld->p);
	*name = (const char *)ld->p;
	if (has_nul(*name, *len))
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%zu offset=%td name holds a NUL byte",
				  q, ld->p - ld->buf);
	*parent = (sht_quark)(pv - 1u);         /* 0 (the root) wraps to ROOT */
	return SHT_OK;
}

/* Pass 1 for quark q: check its record, copy its name, count it as a
 * child (a sequential pass: duplicates are found by load_index). */
static sht_err load_one(struct loader *ld, size_t q)
{
	struct sht__attrs *a = ld->a;
	sht_quark parent = SHT_QUARK_ROOT;
	const char *name = "";
	uint32_t len = 0;
	sht_err err = load_record(ld, q, &parent, &name, &len);

	if (err != SHT_OK)
		return err;
	memcpy(ld->names + ld->used, name, len);
	ld->names[ld->used + len] = '\0';
	a->at[q] = (struct attr){ parent, (uint32_t)ld->used, len, 0 };
	a->n = q + 1;
	if (parent == SHT_QUARK_ROOT)
		ld->root_kids++;
	else
		a->at[parent].kids++;           /* a count until load_kids */
	ld->used += (size_t)len + 1;
	ld->p += len;
	return SHT_OK;
}

/* Pass 2: the table, which catches a (parent, name) seen twice. */
static sht_err load_index(struct loader *ld)
{
	struct sht__attrs *a = ld->a;
	sht_quark q = index_all(a, 1), first;

	if (q == SHT_QUARK_NONE)
		return SHT_OK;
	first = a->slot[probe(a, hash_name(a, a->at[q].parent,
					   arena_at(a, a->at[q].name_off),
					   a->at[q].name_len),
			      a->at[q].parent, arena_at(a, a->at[q].name_off),
			      a->at[q].name_len)];
	if (a->at[q].parent == SHT_QUARK_ROOT)
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%u has the parent=root and name of quark=%u",
				  q, first);
	return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "quark=%u has the parent=%u and name of quark=%u",
			  q, a->at[q].parent, first);
}

/* Give each attribute with children a slice of one pool, then fill the
 * slices in quark order.  at[].kids holds the counts on entry. */
static sht_err load_kids(struct loader *ld)
{
	struct sht__attrs *a = ld->a;
	size_t q, nk = 0, off = 0;

	for (q = 0; q < a->n; q++)
		nk += a->at[q].kids != 0;
	a->pool = mem_realloc(NULL, a->n * sizeof *a->pool);
	if (!a->pool)
		return nomem(a->n * sizeof *a->pool);
	a->kv = nk ? mem_realloc(NULL, nk * sizeof *a->kv) : NULL;
	if (nk && !a->kv)
		return nomem(nk * sizeof *a->kv);
	a->kvcap = nk;
	for (q = 0; q < a->n; q++) {
		uint32_t c = a->at[q].kids;

		a->at[q].kids = c ? (uint32_t)a->nkv : NO_KIDS;
		if (c)
			a->kv[a->nkv++] = (struct kids){ a->pool + off, 0, 0 };
		off += c;
	}
	a->root = (struct kids){ a->pool + off, 0, 0 };
	for (q = 0; q < a->n; q++) {
		struct kids *k = kids_mut(a, a->at[q].parent);

		k->q[k->n++] = (sht_quark)q;
	}
	return SHT_OK;
}

/* Shrink the arena to the bytes the names use (keep it if that fails). */
static void load_fit_arena(struct loader *ld)
{
	char *p = mem_realloc(ld->names, ld->used);

	if (p) {
		ld->names = p;
		ld->size = ld->used;
	}
	arena_map(ld->a, ld->names, ld->size);
}

sht_err sht__attrs_load(const uint8_t *buf, size_t len,
			struct sht__attrs **out)
{
	struct loader ld = { buf, NULL, NULL, NULL, NULL, 0, 0, 0 };
	uint64_t count;
	sht_err err;
	size_t q;

	if (!buf || len < 8)
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "len=%zu is shorter than its 8-byte count", len);
	count = sht__get_u64(buf);
	if (count > (len - 8) / 2 || count > (uint64_t)SHT_QUARK_MAX + 1)
		return sht__error(SHT_ERR_CORRUPT, LOAD_ERR "count=%llu does not fit in len=%zu bytes",
				  (unsigned long long)count, len);
	ld.p = buf + 8;
	ld.end = buf + len;
	err = sht__attrs_create(&ld.a);
	if (err == SHT_OK && count)
		err = load_alloc(&ld, (size_t)count);
	for (q = 0; err == SHT_OK && q < count; q++)
		err = load_one(&ld, q);
	if (err == SHT_OK && ld.p != ld.end)
		err = sht__error(SHT_ERR_CORRUPT, LOAD_ERR "offset=%td trailing_bytes=%td after count=%llu attributes",
				 ld.p - buf, ld.end - ld.p, (unsigned long long)count);
	if (err == SHT_OK && count) {
		load_fit_arena(&ld);
		err = load_index(&ld);
	}
	if (err == SHT_OK && count)
		err = load_kids(&ld);
	if (err != SHT_OK) {
		sht__attrs_destroy(ld.a);
		return err;
	}
	*out = ld.a;
	return SHT_OK;
}
