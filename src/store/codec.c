/*
 * codec.c: decoding and validation of header and node blocks (the
 * encoder is in encode.c).  No I/O, no allocation: every input is an
 * untrusted buffer, every count is checked against the bytes it claims.
 */
#include "sht/version.h"
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
	    SHT__GEOM_HDR + (uint64_t)SHT__CHILD_ENTRY * max_children > block_size / 2)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot use max children: max_children=%u block_size=%u (2 .. %u)",
				  max_children, block_size,
				  (block_size / 2 - SHT__GEOM_HDR) / SHT__CHILD_ENTRY);
	return SHT_OK;
}

uint64_t sht__blob_blocks(uint64_t len, uint32_t block_size)
{
	return (SHT__BLOB_HDR + len + 4 + block_size - 1) / block_size;
}

static uint64_t area_bytes(uint64_t count, uint64_t width)
{
	return (count * width + 7) / 8;
}

/* Widths, and the consistency of flags, counts and widths. */
static sht_err parse_bits(const uint8_t *blk, uint64_t no, struct sht__node *n)
{
	unsigned f = n->flags;
	int runs = !!(f & SHT__NFLAG_RUNS), etab = !!(f & SHT__NFLAG_ETAB);
	int dict = !!(f & SHT__NFLAG_DICT);

	n->qbits = blk[SHT__N_QBITS];
	n->sbits = blk[SHT__N_SBITS];
	n->ebits = blk[SHT__N_EBITS];
	n->tbits = blk[SHT__N_TBITS];
	n->vbits = blk[SHT__N_VBITS];
	n->ibits = blk[SHT__N_IBITS];
	n->xbits = blk[SHT__N_XBITS];
	n->dbits = blk[SHT__N_DBITS];
	n->obits = blk[SHT__N_OBITS];
	if (n->qbits > 32 || n->sbits > 64 || n->ebits > 64 || n->vbits > 64 ||
	    n->obits > 64 ||
	    (n->tbits != 0 && n->tbits != SHT__TBITS) ||
	    (n->tbits == 0 && n->ctag >= SHT__TAG_COUNT) ||
	    (n->n && n->qbits != sht__bits((uint64_t)n->qmax - n->qmin)))
		return CORRUPT(no, "Cannot decode node: block=%llu field widths q=%u s=%u e=%u t=%u v=%u tag=%u",
			       (unsigned long long)no, n->qbits, n->sbits,
			       n->ebits, n->tbits, n->vbits, n->ctag);
	if (n->n == 0 ? f != 0 || n->qbits || n->sbits || n->ebits ||
			n->tbits || n->vbits || n->ctag || n->qmin ||
			n->qmax || n->sbase || n->ebase || n->vbase ||
			n->heap_bytes
		      : (f & SHT__NFLAG_DURATION) && (runs || etab))
		goto bad;
	if (runs ? n->nruns == 0 || n->nruns > n->n ||
		   n->nexc > n->n - n->nruns || n->ibits != sht__bits(n->n - 1)
		 : n->nruns || n->nexc || n->ibits)
		goto bad;
	if (etab ? n->nends == 0 || n->nends > n->n ||
		   n->xbits != sht__bits(n->nends - 1) || n->obits > n->ebits
		 : n->nends || n->xbits || n->obits)
		goto bad;
	if (dict ? n->nvals == 0 || n->nvals > n->n ||
		   n->dbits != sht__bits(n->nvals - 1) || n->tbits ||
		   n->vbits || n->vbase || n->ctag
		 : n->nvals || n->dbits)
		goto bad;
	n->eoff = runs ? 0 : (uint32_t)n->qbits + n->sbits;
	n->ew = etab ? n->xbits : n->ebits;
	n->voff = n->eoff + n->ew;
	n->w = n->voff + (dict ? n->dbits : (uint32_t)n->tbits + n->vbits);
	n->dirw = (uint32_t)n->qbits + n->ibits + n->sbits;
	n->excw = (uint32_t)n->ibits + n->sbits;
	return SHT_OK;
bad:
	return CORRUPT(no, "Cannot decode node: block=%llu layout flags=%#x n=%u runs=%u exceptions=%u ends=%u values=%u widths i=%u x=%u d=%u",
		       (unsigned long long)no, f, n->n, n->nruns, n->nexc,
		       n->nends, n->nvals, n->ibits, n->xbits, n->dbits);
}

/* The value dictionary's tag table: counts adding up to nvals, widths a
 * value of the tag can need, zero reserved bytes. */
static sht_err parse_dict(uint64_t no, const uint8_t *p, struct sht__node *n,
			  uint64_t *bytes)
{
	static const uint8_t maxw[SHT__TAG_COUNT] = { 0, 32, 64, 64, 64 };
	uint64_t bits = 0;
	uint32_t first = 0;

	for (unsigned t = 0; t < SHT__TAG_COUNT; t++, p += SHT__DICT_TAG) {
		uint32_t cnt = sht__get_u32(p);

		n->dw[t] = p[4];
		n->dbase[t] = sht__get_u64(p + 8);
		if (cnt > n->nvals - first || n->dw[t] > maxw[t] ||
		    p[5] || p[6] || p[7] ||
		    (t == SHT__TAG_NULL && (cnt > 1 || n->dbase[t])) ||
		    (cnt == 0 && (n->dw[t] || n->dbase[t])))
			return CORRUPT(no, "Cannot decode node: block=%llu value dictionary tag %u (count=%u width=%u)",
				       (unsigned long long)no, t, cnt, n->dw[t]);
		n->dfirst[t] = first;
		n->doff[t] = bits;
		first += cnt;
		bits += (uint64_t)cnt * n->dw[t];
	}
	n->dfirst[SHT__TAG_COUNT] = first;
	if (first != n->nvals)
		return CORRUPT(no, "Cannot decode node: block=%llu value dictionary holds %u values, header says %u",
			       (unsigned long long)no, first, n->nvals);
	*bytes = SHT__DICT_HDR + (bits + 7) / 8;
	return SHT_OK;
}

/* The areas, in order: children, dictionary, end table (bases, then
 * offsets), run directory, exceptions, records, heap; they must add up to
 * used. */
static sht_err parse_layout(const uint8_t *blk, uint64_t no,
			    const struct sht__geom *g, struct sht__node *n)
{
	uint64_t off = SHT__NODE_HDR + (uint64_t)SHT__CHILD_ENTRY * n->nc;
	uint64_t dict = 0, etab, eoffs, dir, exc, rec;
	sht_err err;

	if (n->flags & SHT__NFLAG_DICT) {
		if (off + SHT__DICT_HDR > n->used)
			goto bad;
		err = parse_dict(no, blk + off, n, &dict);
		if (err != SHT_OK)
			return err;
	}
	etab = area_bytes((n->nends + SHT__ETAB_BLOCK - 1) / SHT__ETAB_BLOCK, n->ebits);
	eoffs = area_bytes(n->nends, n->obits);
	dir = area_bytes(n->nruns, n->dirw);
	exc = area_bytes(n->nexc, n->excw);
	rec = area_bytes(n->n, n->w);
	n->children = blk + SHT__NODE_HDR;
	n->dict = blk + off + SHT__DICT_HDR;
	n->etab = blk + off + dict;
	n->eoffs = n->etab + etab;
	n->dir = n->eoffs + eoffs;
	n->exc = n->dir + dir;
	n->records = n->exc + exc;
	n->heap = n->records + rec;
	if (off + dict + etab + eoffs + dir + exc + rec + n->heap_bytes == n->used &&
	    (uint64_t)n->used + SHT__SLACK <= g->block_size)
		return SHT_OK;
bad:
	return CORRUPT(no, "Cannot decode node: block=%llu sizes used=%u records=%u heap=%u",
		       (unsigned long long)no, n->used, n->n, n->heap_bytes);
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
	n->nruns = sht__get_u32(blk + SHT__N_NRUNS);
	n->nexc = sht__get_u32(blk + SHT__N_NEXC);
	n->nends = sht__get_u32(blk + SHT__N_NENDS);
	n->nvals = sht__get_u32(blk + SHT__N_NVALUES);

	if ((n->kind != SHT__KIND_LEAF && n->kind != SHT__KIND_CORE) ||
	    (n->kind == SHT__KIND_LEAF) != (n->level == 0) ||
	    (n->flags & ~SHT__NFLAGS_ALL) || n->self != no ||
	    n->level > SHT__MAX_LEVEL)
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

	memset(n, 0, sizeof *n);
	if (crc != sht__get_u32(blk + g->block_size - 4))
		return CORRUPT(no, "Cannot read node: block=%llu checksum mismatch",
			       (unsigned long long)no);
	return sht__node_decode(blk, no, block_count, g, n);
}

sht_err sht__node_decode(const uint8_t *blk, uint64_t no, uint64_t block_count,
			 const struct sht__geom *g, struct sht__node *n)
{
	sht_err err;

	memset(n, 0, sizeof *n);
	err = parse_fixed(blk, no, g, n);
	if (err == SHT_OK)
		err = parse_bits(blk, no, n);
	if (err == SHT_OK)
		err = parse_layout(blk, no, g, n);
	if (err == SHT_OK)
		err = parse_children(no, block_count, n);
	return err;
}

sht_err sht__heap_get(const struct sht__node *n, uint64_t off,
		      struct sht__str *out)
{
	const uint8_t *p, *end = n->heap + n->heap_bytes;
	uint64_t x = 0;
	unsigned shift = 0;

	/* Checked before p is formed: heap + a bad offset is undefined even
	 * unread (found by fuzz-history). */
	if (off >= n->heap_bytes)
		goto bad;
	p = n->heap + off;
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
		return sht__error(SHT_ERR_VERSION, "Cannot read header: format version %u is newer than %u (use a newer sht)",
				  hd->version, SHT_FORMAT_VERSION);
	if (hd->version >= 1 && hd->version < SHT_FORMAT_VERSION)
		return sht__error(SHT_ERR_VERSION, "Cannot read header: format version %u is older than %u (rebuild the history with this sht)",
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
