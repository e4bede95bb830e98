/*
 * insert.c: placing one interval in the latest branch (DESIGN.md §4).
 *
 * The interval goes into the deepest node of the latest branch whose start
 * is <= the interval's start and which has room.  When that node is full a
 * new branch is started there (sht__b_add_sibling): for the classic SHT at
 * the current end of the tree + 1, for the eSHT at the interval's start
 * (never before the closed sibling, whose start is <= it).  Strings longer
 * than block_size/16 are written first as blobs; shorter ones go to the
 * node's heap, once per distinct string.
 */
#include <stdlib.h>

#include "store/builder-int.h"

/* A string value prepared for a node heap. */
struct pstr {
	uint8_t entry[10 + 8];       /* varint + blob block, or varint only */
	uint32_t entry_len;          /* bytes of entry[] */
	const char *bytes;           /* inline: bytes after the varint */
	uint32_t len;                /* inline: length of bytes */
	uint64_t hash;
	int inline_str;
};

static uint32_t put_varint(uint8_t *p, uint64_t x)
{
	uint32_t n = 0;

	while (x >= 0x80) {
		p[n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	p[n++] = (uint8_t)x;
	return n;
}

static uint64_t hash_bytes(const char *s, uint32_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325) ^ len;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * UINT64_C(0x100000001b3);
	return h ^ (h >> 29);
}

static sht_err prepare_string(struct sht_builder *b, const sht_value *v,
			      struct pstr *ps)
{
	uint64_t blob = 0;
	sht_err err;

	ps->inline_str = v->len <= b->st.geom.block_size / 16;
	if (ps->inline_str) {
		ps->entry_len = put_varint(ps->entry, (uint64_t)v->len << 1);
		ps->bytes = v->u.str;
		ps->len = v->len;
		ps->hash = hash_bytes(v->u.str, v->len);
		return SHT_OK;
	}
	err = sht__b_write_blob(b, SHT__KIND_BLOB, v->u.str, v->len, &blob);
	if (err != SHT_OK)
		return err;
	ps->entry_len = put_varint(ps->entry, ((uint64_t)v->len << 1) | 1);
	sht__put_u64(ps->entry + ps->entry_len, blob);
	ps->entry_len += 8;
	ps->bytes = NULL;
	ps->len = 0;
	return SHT_OK;
}

/* ---- node heap with de-duplication -------------------------------------- */

static int same_entry(const struct sht__open *o, uint32_t off,
		      const struct pstr *ps)
{
	if (o->heap_len - off < ps->entry_len + ps->len)
		return 0;
	return memcmp(o->heap + off, ps->entry, ps->entry_len) == 0 &&
	       (ps->len == 0 ||
		memcmp(o->heap + off + ps->entry_len, ps->bytes, ps->len) == 0);
}

/* Heap offset of an equal inline string already in o, or -1. */
static int64_t dedup_find(const struct sht__open *o, const struct pstr *ps)
{
	if (!ps->inline_str || !o->dedup)
		return -1;
	for (uint32_t i = (uint32_t)ps->hash & o->dedup_mask; o->dedup[i];
	     i = (i + 1) & o->dedup_mask)
		if (same_entry(o, o->dedup[i] - 1, ps))
			return o->dedup[i] - 1;
	return -1;
}

static void dedup_put(struct sht__open *o, uint64_t hash, uint32_t off)
{
	uint32_t i = (uint32_t)hash & o->dedup_mask;

	while (o->dedup[i])
		i = (i + 1) & o->dedup_mask;
	o->dedup[i] = off + 1;
	o->dedup_count++;
}

static uint64_t entry_hash(const struct sht__open *o, uint32_t off)
{
	const uint8_t *p = o->heap + off;
	uint64_t x = 0;
	unsigned sh = 0;

	do {
		x |= (uint64_t)(*p & 0x7f) << sh;
		sh += 7;
	} while (*p++ & 0x80);
	return hash_bytes((const char *)p, (uint32_t)(x >> 1));
}

static sht_err dedup_grow(struct sht__open *o)
{
	uint32_t size = o->dedup ? (o->dedup_mask + 1) * 2 : 64;
	uint32_t *old = o->dedup, old_size = o->dedup ? o->dedup_mask + 1 : 0;

	o->dedup = calloc(size, sizeof *o->dedup);
	if (!o->dedup) {
		o->dedup = old;
		return SHT_ERR_NOMEM;
	}
	o->dedup_mask = size - 1;
	o->dedup_count = 0;
	for (uint32_t i = 0; i < old_size; i++)
		if (old[i])
			dedup_put(o, entry_hash(o, old[i] - 1), old[i] - 1);
	free(old);
	return SHT_OK;
}

static sht_err heap_append(struct sht__open *o, const struct pstr *ps)
{
	uint32_t need = o->heap_len + ps->entry_len + ps->len;

	if (need > o->heap_cap) {
		uint32_t cap = o->heap_cap ? o->heap_cap : 256;
		uint8_t *h;
		while (cap < need)
			cap *= 2;
		h = realloc(o->heap, cap);
		if (!h)
			return SHT_ERR_NOMEM;
		o->heap = h;
		o->heap_cap = cap;
	}
	if (ps->inline_str && 2 * (o->dedup_count + 1) > (o->dedup ? o->dedup_mask + 1 : 0) &&
	    dedup_grow(o) != SHT_OK)
		return SHT_ERR_NOMEM;
	if (ps->inline_str)
		dedup_put(o, ps->hash, o->heap_len);
	memcpy(o->heap + o->heap_len, ps->entry, ps->entry_len);
	if (ps->len)
		memcpy(o->heap + o->heap_len + ps->entry_len, ps->bytes, ps->len);
	o->heap_len = need;
	return SHT_OK;
}

/* ---- placement ---------------------------------------------------------- */

/* Try to add r to o; 1 if done, 0 if o has no room, <0 on error.  The
 * size with r is exact (track.c), so o is full exactly when r does not
 * fit. */
static int try_node(struct sht_builder *b, struct sht__open *o,
		    struct sht__oiv *r, const struct pstr *ps)
{
	uint32_t add = 0;
	int rc;

	if (ps) {
		int64_t off = dedup_find(o, ps);
		add = off < 0 ? ps->entry_len + ps->len : 0;
		r->payload = off < 0 ? o->heap_len : (uint64_t)off;
	}
	rc = sht__open_add(o, r, add, b->st.geom.max_children,
			   b->st.geom.block_size);
	if (rc != 1)
		return rc;
	if (add && heap_append(o, ps) != SHT_OK)
		return SHT_ERR_NOMEM;
	if (r->quark < o->sub_qmin)
		o->sub_qmin = r->quark;
	if (r->quark > o->sub_qmax)
		o->sub_qmax = r->quark;
	return 1;
}

static uint8_t tag_of(sht_type t)
{
	static const uint8_t tags[] = { SHT__TAG_NULL, SHT__TAG_INT32,
					SHT__TAG_INT64, SHT__TAG_DOUBLE,
					SHT__TAG_STRING };
	return tags[t];
}

static uint64_t payload_of(const sht_value *v)
{
	uint64_t bits;

	switch (v->type) {
	case SHT_TYPE_INT32: return (uint64_t)(int64_t)v->u.i32;
	case SHT_TYPE_INT64: return (uint64_t)v->u.i64;
	case SHT_TYPE_DOUBLE:
		memcpy(&bits, &v->u.d, sizeof bits);
		return bits;
	default: return 0;
	}
}

static uint32_t deepest_fit(const struct sht_builder *b, sht_time start)
{
	uint32_t level = b->depth - 1;

	while (level > 0 && b->branch[level]->start > start)
		level--;
	return level;
}

static sht_time new_branch_start(const struct sht_builder *b,
				 const struct sht__open *o, sht_time start)
{
	if (b->st.geom.variant == SHT_VARIANT_SHT)
		return b->tree_end == SHT_TIME_MAX ? b->tree_end : b->tree_end + 1;
	return start > o->start ? start : o->start;
}

sht_err sht__b_place(struct sht_builder *b, const sht_interval *iv)
{
	struct sht__oiv r = { iv->start, iv->end, payload_of(&iv->value),
			      iv->quark, tag_of(iv->value.type) };
	struct pstr ps;
	sht_err err;

	if (iv->value.type == SHT_TYPE_STRING &&
	    (err = prepare_string(b, &iv->value, &ps)) != SHT_OK)
		return err;
	for (;;) {
		uint32_t level = deepest_fit(b, iv->start);
		struct sht__open *o = b->branch[level];
		int rc = try_node(b, o, &r, iv->value.type == SHT_TYPE_STRING ? &ps : NULL);

		if (rc == 1)
			break;
		if (rc < 0 || o->trk.n == 0) {
			b->failed = 1;
			return rc < 0 ? sht__error(SHT_ERR_NOMEM, "Cannot grow a node")
				      : sht__error(SHT_ERR_TOOBIG, "Cannot fit an interval in an empty node");
		}
		err = sht__b_add_sibling(b, level, new_branch_start(b, o, iv->start));
		if (err != SHT_OK)
			return err;
	}
	if (iv->end > b->tree_end)
		b->tree_end = iv->end;
	if (iv->quark > b->quark_max || !b->any)
		b->quark_max = iv->quark;
	b->any = 1;
	b->intervals++;
	if (!b->pipe)        /* threaded: the caller side publishes it */
		atomic_store_explicit(&b->pub_end, b->tree_end, memory_order_release);
	return SHT_OK;
}

/* Checks that need no tree state (the threaded path runs them unlocked). */
static sht_err validate_value(const struct sht_builder *b, const sht_interval *iv)
{
	const sht_value *v = &iv->value;

	if (b->finished)
		return sht__error(SHT_ERR_STATE, "Cannot insert: builder is finished");
	if (iv->quark > SHT_QUARK_MAX || iv->start > iv->end ||
	    iv->start < b->start_time || (unsigned)v->type > SHT_TYPE_STRING ||
	    (v->type == SHT_TYPE_STRING && v->len && !v->u.str))
		return sht__error(SHT_ERR_INVALID, "Cannot insert interval: quark=%u [%lld, %lld] type=%d (history starts at %lld)",
				  iv->quark, (long long)iv->start, (long long)iv->end,
				  (int)v->type, (long long)b->start_time);
	if (v->type == SHT_TYPE_STRING && v->len > SHT_STRING_MAX)
		return sht__error(SHT_ERR_TOOBIG, "Cannot insert string: quark=%u len=%u > %u",
				  iv->quark, v->len, SHT_STRING_MAX);
	return SHT_OK;
}

static sht_err validate(const struct sht_builder *b, const sht_interval *iv)
{
	sht_err err;

	if (b->failed)
		return sht__error(SHT_ERR_STATE, "Cannot insert: builder is failed");
	err = validate_value(b, iv);
	if (err == SHT_OK && iv->end < b->tree_end)
		return sht__error(SHT_ERR_ORDER, "Cannot insert interval: quark=%u end=%lld before the previous end=%lld",
				  iv->quark, (long long)iv->end, (long long)b->tree_end);
	return err;
}

static sht_err insert_locked(sht_builder *b, const sht_interval *iv)
{
	sht_err err = validate(b, iv);

	return err == SHT_OK ? sht__b_place(b, iv) : err;
}

sht_err sht_builder_insert(sht_builder *b, const sht_interval *iv)
{
	sht_err err;

	if (b->pipe) {
		err = validate_value(b, iv);
		return err == SHT_OK ? sht__pipe_insert(b, iv) : err;
	}
	if (b->serialised)           /* the caller holds its own lock */
		return insert_locked(b, iv);
	pthread_mutex_lock(&b->lock);
	err = insert_locked(b, iv);
	pthread_mutex_unlock(&b->lock);
	return err;
}

void sht_builder_set_serialised(sht_builder *b)
{
	b->serialised = 1;
}

/* ---- resumed builds (resume.c) ------------------------------------------- */

/* The heap entry at heap[off] (len bytes in all) as the pstr that added
 * it: 1, or 0 if it does not fit in len. */
static int entry_at(const uint8_t *heap, uint32_t len, uint32_t off, struct pstr *ps)
{
	uint64_t x = 0;
	uint32_t n = 0, total;

	do {
		if (off + n >= len || n >= 10)
			return 0;
		x |= (uint64_t)(heap[off + n] & 0x7f) << (7 * n);
	} while (heap[off + n++] & 0x80);
	ps->inline_str = !(x & 1);
	ps->len = ps->inline_str ? (uint32_t)(x >> 1) : 0;
	total = n + (ps->inline_str ? ps->len : 8);
	if (x >> 1 > UINT32_MAX || total > len - off)
		return 0;
	ps->entry_len = ps->inline_str ? n : n + 8;
	memcpy(ps->entry, heap + off, ps->entry_len);
	ps->bytes = (const char *)heap + off + n;
	ps->hash = ps->inline_str ? hash_bytes(ps->bytes, ps->len) : 0;
	return 1;
}

sht_err sht__open_restore(struct sht_builder *b, struct sht__open *o,
			  const struct sht__oiv *recs, uint32_t n,
			  const uint8_t *heap, uint32_t heap_len)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sht__oiv r = recs[i];
		struct pstr ps;
		int fresh = r.tag == SHT__TAG_STRING && r.payload == o->heap_len;
		uint32_t add = 0;

		if (r.tag == SHT__TAG_STRING && r.payload > o->heap_len)
			return sht__error(SHT_ERR_CORRUPT, "Cannot resume: record %u of a node refers past its strings", i);
		if (fresh && !entry_at(heap, heap_len, o->heap_len, &ps))
			return sht__error(SHT_ERR_CORRUPT, "Cannot resume: a node's string %u is damaged", i);
		if (fresh)
			add = ps.entry_len + ps.len;
		if (sht__open_add(o, &r, add, b->st.geom.max_children,
				  b->st.geom.block_size) != 1)
			return sht__error(SHT_ERR_CORRUPT, "Cannot resume: record %u does not fit its node again", i);
		if (fresh && heap_append(o, &ps) != SHT_OK)
			return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	}
	if (o->heap_len != heap_len || (heap_len && memcmp(o->heap, heap, heap_len) != 0))
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume: a node's strings differ from its records'");
	return SHT_OK;
}
