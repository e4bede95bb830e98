/*
 * codec.c: decoding and validation of header and node blocks (the
 * encoder is in encode.c).  No I/O, no allocation: every input is an
 * untrusted buffer, every count is checked against the bytes it claims.
 */
#include "store/store-int.h"

#define CORRUPT(blk, ...) sht__error(SHT_ERR_CORRUPT, __VA_ARGS__)

sht_err sht__geom_check(uint32_t block_size, uint32_t max_children)
{
	if (block_size < SHT_BLOCK_SIZE_MIN || block_size > SHT_BLOCK_SIZE_MAX ||
	    (block_size & (block_size - 1)))
		return sht__error(SHT_ERR_INVALID,
				  "Cannot use block size: block_size=%u (power of two, %u .. %u)",
				  block_size, SHT_BLOCK_SIZE_MIN, SHT_BLOCK_SIZE_MAX);
	if (max_children < 2 ||
	    SHT__NODE_HDR + (uint64_t)SHT__CHILD_ENTRY * max_children > block_size / 2)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot use max children: max_children=%u block_size=%u (2 .. %u)",
				  max_children, block_size,
				  (block_size / 2 - SHT__NODE_HDR) / SHT__CHILD_ENTRY);
	return SHT_OK;
}

uint64_t sht__blob_blocks(uint64_t len, uint32_t block_size)
{
	return (SHT__BLOB_HDR + len + 4 + block_size - 1) / block_size;
}

static int zero_bytes(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static sht_err parse_bits(const uint8_t *blk, uint64_t no, struct sht__node *n)
{
	n->qbits = blk[SHT__N_QBITS];
	n->sbits = blk[SHT__N_SBITS];
	n->ebits = blk[SHT__N_EBITS];
	n->tbits = blk[SHT__N_TBITS];
	n->vbits = blk[SHT__N_VBITS];
	if (n->qbits > 32 || n->sbits > 64 || n->ebits > 64 || n->vbits > 64 ||
	    (n->tbits != 0 && n->tbits != SHT__TBITS))
		return CORRUPT(no, "Cannot decode node: block=%llu field widths q=%u s=%u e=%u t=%u v=%u",
			       (unsigned long long)no, n->qbits, n->sbits,
			       n->ebits, n->tbits, n->vbits);
	if (n->tbits == 0 && n->ctag >= SHT__TAG_COUNT)
		return CORRUPT(no, "Cannot decode node: block=%llu type tag=%u",
			       (unsigned long long)no, n->ctag);
	if (n->n && n->qbits != sht__bits((uint64_t)n->qmax - n->qmin))
		return CORRUPT(no, "Cannot decode node: block=%llu quark range %u..%u vs %u bits",
			       (unsigned long long)no, n->qmin, n->qmax, n->qbits);
	n->w = (uint32_t)n->qbits + n->sbits + n->ebits + n->tbits + n->vbits;
	return SHT_OK;
}

static sht_err parse_layout(const uint8_t *blk, uint64_t no,
			    const struct sht__geom *g, struct sht__node *n)
{
	uint64_t recbytes = ((uint64_t)n->n * n->w + 7) / 8;
	uint64_t r = SHT__NODE_HDR + (uint64_t)SHT__CHILD_ENTRY * n->nc;

	if (r + recbytes + n->heap_bytes != n->used ||
	    (uint64_t)n->used + SHT__SLACK > g->block_size)
		return CORRUPT(no, "Cannot decode node: block=%llu sizes used=%u records=%llu heap=%u",
			       (unsigned long long)no, n->used,
			       (unsigned long long)recbytes, n->heap_bytes);
	n->children = blk + SHT__NODE_HDR;
	n->records = blk + r;
	n->heap = blk + r + recbytes;
	return SHT_OK;
}

static sht_err parse_children(uint64_t no, uint64_t block_count,
			      struct sht__node *n)
{
	for (uint32_t i = 0; i < n->nc; i++) {
		struct sht__child c;

		sht__child_get(n, i, &c);
		if (c.block >= block_count || c.block == no || c.start > c.end ||
		    c.start < n->start || c.end > n->end)
			return CORRUPT(no, "Cannot decode node: block=%llu child %u (block=%llu [%lld, %lld]) outside node [%lld, %lld]",
				       (unsigned long long)no, i,
				       (unsigned long long)c.block,
				       (long long)c.start, (long long)c.end,
				       (long long)n->start, (long long)n->end);
	}
	return SHT_OK;
}

static sht_err parse_fixed(const uint8_t *blk, uint64_t no,
			   const struct sht__geom *g, struct sht__node *n)
{
	n->blk = blk;
	n->kind = blk[SHT__N_KIND];
	n->level = sht__get_u32(blk + SHT__N_LEVEL);
	n->flags = blk[SHT__N_FLAGS];
	n->ctag = blk[SHT__N_CTAG];
	n->n = sht__get_u32(blk + SHT__N_COUNT);
	n->self = sht__get_u64(blk + SHT__N_SELF);
	n->seq = sht__get_u64(blk + SHT__N_SEQ);
	n->start = (sht_time)sht__get_u64(blk + SHT__N_START);
	n->end = (sht_time)sht__get_u64(blk + SHT__N_END);
	n->qmin = sht__get_u32(blk + SHT__N_QMIN);
	n->qmax = sht__get_u32(blk + SHT__N_QMAX);
	n->nc = sht__get_u32(blk + SHT__N_NCHILD);
	n->heap_bytes = sht__get_u32(blk + SHT__N_HEAP);
	n->sbase = sht__get_u64(blk + SHT__N_SBASE);
	n->ebase = sht__get_u64(blk + SHT__N_EBASE);
	n->vbase = sht__get_u64(blk + SHT__N_VBASE);
	n->used = sht__get_u32(blk + SHT__N_USED);

	if ((n->kind != SHT__KIND_LEAF && n->kind != SHT__KIND_CORE) ||
	    (n->kind == SHT__KIND_LEAF) != (n->level == 0) ||
	    (n->flags & ~SHT__NFLAG_DURATION) || n->self != no ||
	    n->level > SHT__MAX_LEVEL || blk[SHT__N_ZERO1] ||
	    !zero_bytes(blk + 61, 3))
		return CORRUPT(no, "Cannot decode node: block=%llu bad kind/level/flags/self (kind=%u level=%u self=%llu)",
			       (unsigned long long)no, n->kind, n->level,
			       (unsigned long long)n->self);
	if (n->n > g->block_size / 2 || n->start > n->end ||
	    (n->n && n->qmin > n->qmax) ||
	    (n->kind == SHT__KIND_LEAF ? n->nc != 0
				       : n->nc < 1 || n->nc > g->max_children))
		return CORRUPT(no, "Cannot decode node: block=%llu counts n=%u children=%u range [%lld, %lld]",
			       (unsigned long long)no, n->n, n->nc,
			       (long long)n->start, (long long)n->end);
	return SHT_OK;
}

sht_err sht__node_parse(const uint8_t *blk, uint64_t no, uint64_t block_count,
			const struct sht__geom *g, struct sht__node *n)
{
	uint32_t crc = sht__crc32c(0, blk, g->block_size - 4);
	sht_err err;

	if (crc != sht__get_u32(blk + g->block_size - 4))
		return CORRUPT(no, "Cannot read node: block=%llu checksum mismatch",
			       (unsigned long long)no);
	err = parse_fixed(blk, no, g, n);
	if (err == SHT_OK)
		err = parse_bits(blk, no, n);
	if (err == SHT_OK)
		err = parse_layout(blk, no, g, n);
	if (err == SHT_OK)
		err = parse_children(no, block_count, n);
	return err;
}

uint32_t sht__rec_lower_bound(const struct sht__node *n, uint32_t q)
{
	uint32_t lo = 0, hi = n->n;

	if (q <= n->qmin)
		return 0;
	if (q > n->qmax)
		return n->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sht__rec_quark(n, mid) < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

sht_err sht__heap_get(const struct sht__node *n, uint64_t off,
		      struct sht__str *out)
{
	const uint8_t *p = n->heap + off, *end = n->heap + n->heap_bytes;
	uint64_t x = 0;
	unsigned shift = 0;

	if (off >= n->heap_bytes)
		goto bad;
	for (;;) {
		if (p >= end || shift > 63)
			goto bad;
		x |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
		if (!(*p++ & 0x80))
			break;
	}
	out->len = x >> 1;
	if (out->len > SHT_STRING_MAX)
		goto bad;
	if (x & 1) {
		if ((uint64_t)(end - p) < 8)
			goto bad;
		out->bytes = NULL;
		out->blob = sht__get_u64(p);
		return SHT_OK;
	}
	if ((uint64_t)(end - p) < out->len)
		goto bad;
	out->bytes = p;
	out->blob = 0;
	return SHT_OK;
bad:
	return sht__error(SHT_ERR_CORRUPT,
			  "Cannot read string: block=%llu heap offset=%llu",
			  (unsigned long long)n->self, (unsigned long long)off);
}

/* ---- header ------------------------------------------------------------- */

void sht__header_encode(const struct sht__header *hd, uint8_t *h)
{
	memset(h, 0, SHT__HEADER_REGION);
	memcpy(h + SHT__H_MAGIC, SHT__MAGIC, SHT__MAGIC_LEN);
	sht__put_u32(h + SHT__H_VERSION, SHT_FORMAT_VERSION);
	sht__put_u32(h + SHT__H_HEADER_LEN, SHT__HEADER_LEN_V1);
	sht__put_u32(h + SHT__H_FLAGS, hd->flags);
	h[SHT__H_VARIANT] = (uint8_t)hd->variant;
	sht__put_u32(h + SHT__H_BLOCK_SIZE, hd->block_size);
	sht__put_u32(h + SHT__H_MAX_CHILDREN, hd->max_children);
	sht__put_u64(h + SHT__H_BLOCK_COUNT, hd->block_count);
	sht__put_u64(h + SHT__H_ROOT, hd->root);
	sht__put_u32(h + SHT__H_DEPTH, hd->depth);
	sht__put_u64(h + SHT__H_QUARK_COUNT, hd->quark_count);
	sht__put_u64(h + SHT__H_START, (uint64_t)hd->start);
	sht__put_u64(h + SHT__H_END, (uint64_t)hd->end);
	sht__put_u64(h + SHT__H_INTERVALS, hd->intervals);
	sht__put_u64(h + SHT__H_NODES, hd->nodes);
	for (uint32_t i = 0; i < hd->nsections; i++) {
		uint8_t *e = h + SHT__H_SECTIONS + i * SHT__SECTION_ENTRY;
		sht__put_u32(e, hd->sections[i].kind);
		sht__put_u32(e + 4, hd->sections[i].version);
		sht__put_u64(e + 8, hd->sections[i].first);
		sht__put_u64(e + 16, hd->sections[i].length);
		sht__put_u32(e + 24, hd->sections[i].crc);
	}
	sht__put_u32(h + SHT__H_CRC, sht__crc32c(0, h, SHT__H_CRC));
}

/* Used entries first, then all-zero ones; each section inside the file. */
static sht_err header_sections(const uint8_t *h, struct sht__header *hd)
{
	hd->nsections = 0;
	for (uint32_t i = 0; i < SHT__SECTION_SLOTS; i++) {
		const uint8_t *e = h + SHT__H_SECTIONS + i * SHT__SECTION_ENTRY;
		struct sht__section *s = &hd->sections[hd->nsections];

		s->kind = sht__get_u32(e);
		if (s->kind == 0)
			continue;
		s->version = sht__get_u32(e + 4);
		s->first = sht__get_u64(e + 8);
		s->length = sht__get_u64(e + 16);
		s->crc = sht__get_u32(e + 24);
		if (i != hd->nsections || s->length > SHT_SECTION_MAX ||
		    s->first >= hd->block_count ||
		    sht__blob_blocks(s->length, hd->block_size) > hd->block_count - s->first)
			return sht__error(SHT_ERR_CORRUPT, "Cannot read header: section entry %u (kind=%u) is invalid",
					  i, s->kind);
		hd->nsections++;
	}
	return SHT_OK;
}

static sht_err header_fields(const uint8_t *h, struct sht__header *hd)
{
	hd->flags = sht__get_u32(h + SHT__H_FLAGS);
	hd->variant = (sht_variant)h[SHT__H_VARIANT];
	hd->block_size = sht__get_u32(h + SHT__H_BLOCK_SIZE);
	hd->max_children = sht__get_u32(h + SHT__H_MAX_CHILDREN);
	hd->block_count = sht__get_u64(h + SHT__H_BLOCK_COUNT);
	hd->root = sht__get_u64(h + SHT__H_ROOT);
	hd->depth = sht__get_u32(h + SHT__H_DEPTH);
	hd->quark_count = sht__get_u64(h + SHT__H_QUARK_COUNT);
	hd->start = (sht_time)sht__get_u64(h + SHT__H_START);
	hd->end = (sht_time)sht__get_u64(h + SHT__H_END);
	hd->intervals = sht__get_u64(h + SHT__H_INTERVALS);
	hd->nodes = sht__get_u64(h + SHT__H_NODES);
	if (sht__geom_check(hd->block_size, hd->max_children) != SHT_OK)
		return sht__error(SHT_ERR_CORRUPT, "Cannot read header: bad geometry block_size=%u max_children=%u",
				  hd->block_size, hd->max_children);
	if ((hd->flags & ~SHT__FLAG_COMPLETE) || hd->variant > SHT_VARIANT_ESHT ||
	    hd->depth > SHT__MAX_LEVEL + 1 || hd->start > hd->end ||
	    hd->quark_count > (uint64_t)SHT_QUARK_MAX + 1 ||
	    hd->nodes > hd->block_count ||
	    ((hd->flags & SHT__FLAG_COMPLETE) &&
	     (hd->depth < 1 || hd->root >= hd->block_count)))
		return sht__error(SHT_ERR_CORRUPT, "Cannot read header: inconsistent fields (flags=%u variant=%u depth=%u root=%llu blocks=%llu)",
				  hd->flags, (unsigned)hd->variant, hd->depth,
				  (unsigned long long)hd->root,
				  (unsigned long long)hd->block_count);
	return header_sections(h, hd);
}

sht_err sht__header_parse(const uint8_t *h, struct sht__header *hd)
{
	if (memcmp(h, SHT__MAGIC, SHT__MAGIC_LEN) != 0)
		return sht__error(SHT_ERR_CORRUPT, "Cannot read header: not a history file (bad magic)");
	hd->version = sht__get_u32(h + SHT__H_VERSION);
	hd->header_len = sht__get_u32(h + SHT__H_HEADER_LEN);
	if (hd->version > SHT_FORMAT_VERSION)
		return sht__error(SHT_ERR_VERSION, "Cannot read header: format version %u is newer than %u",
				  hd->version, SHT_FORMAT_VERSION);
	if (hd->version == 0 || hd->header_len < SHT__HEADER_LEN_V1 ||
	    hd->header_len > SHT__HEADER_REGION || (hd->header_len & 3))
		return sht__error(SHT_ERR_CORRUPT, "Cannot read header: version=%u header_len=%u",
				  hd->version, hd->header_len);
	if (sht__crc32c(0, h, hd->header_len - 4) !=
	    sht__get_u32(h + hd->header_len - 4))
		return sht__error(SHT_ERR_CORRUPT, "Cannot read header: checksum mismatch");
	return header_fields(h, hd);
}
