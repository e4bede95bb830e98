/*
 * verify.c: the contents of a parsed node, checked in full (sht check;
 * docs/FORMAT.md §3 and §5).  sht__node_parse checks the header and the
 * sizes of the areas; this checks what is inside them:
 *
 *   records   every record decodes (indices inside their tables), lies
 *             inside the node, records are sorted by (quark, start) with
 *             no overlap within a quark, values are valid (tag, int32
 *             range, heap entry);
 *   runs      quarks strictly increasing, first records strictly
 *             increasing from 0; every start exception used, in order, on
 *             a record that is not the first of its run, and never equal
 *             to the start it replaces;
 *   tables    end table and dictionary values strictly increasing (per
 *             type), every entry used by some record, the first offset of
 *             each block of the end table 0;
 *   direct    a null value's payload field is zero;
 *   padding   the bits after the last entry of each area are zero.
 *
 * No I/O: blob references are handed to a callback.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "store/store-int.h"

struct vctx {
	const struct sht__node *n;
	sht_err err;
	void (*blob)(void *ctx, uint64_t first, uint64_t len);
	void *ctx;
};

static void bad(struct vctx *v, const char *fmt, ...) SHT_PRINTF(2, 3);

static void bad(struct vctx *v, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (v->err != SHT_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	v->err = sht__error(SHT_ERR_CORRUPT, "block %llu: %s",
			    (unsigned long long)v->n->self, msg);
}

static void check_value(struct vctx *v, uint32_t i, const struct sht__rec *rc)
{
	const struct sht__node *n = v->n;
	struct sht__str s;
	int64_t x = (int64_t)rc->payload;

	if (rc->tag >= SHT__TAG_COUNT) {
		bad(v, "record %u (quark %u) has type tag %u", i, rc->quark, rc->tag);
	} else if (rc->tag == SHT__TAG_INT32 && (x < INT32_MIN || x > INT32_MAX)) {
		bad(v, "record %u (quark %u): int32 out of range", i, rc->quark);
	} else if (rc->tag == SHT__TAG_NULL && !(n->flags & SHT__NFLAG_DICT) &&
		   sht__getbits(n->records, (uint64_t)i * n->w + n->voff + n->tbits,
				n->vbits)) {
		bad(v, "record %u (quark %u): null value with a payload", i, rc->quark);
	} else if (rc->tag == SHT__TAG_STRING) {
		if (sht__heap_get(n, rc->payload, &s) != SHT_OK)
			bad(v, "record %u (quark %u): bad string at heap offset %llu",
			    i, rc->quark, (unsigned long long)rc->payload);
		else if (!s.bytes && v->blob)
			v->blob(v->ctx, s.blob, s.len);
	}
}

static void check_records(struct vctx *v)
{
	const struct sht__node *n = v->n;
	struct sht__rec prev, rc;
	struct sht__cur c;
	uint32_t i = 0;
	int k;

	sht__cur_all(&c, n);
	for (; v->err == SHT_OK && (k = sht__cur_next(&c, &rc)) == 1; i++) {
		if (rc.quark < n->qmin || rc.quark > n->qmax || rc.start > rc.end ||
		    rc.start < n->start || rc.end > n->end)
			bad(v, "record %u (quark %u [%lld, %lld]) outside node [%lld, %lld] quarks %u..%u",
			    i, rc.quark, (long long)rc.start, (long long)rc.end,
			    (long long)n->start, (long long)n->end, n->qmin, n->qmax);
		if (i && (prev.quark > rc.quark ||
			  (prev.quark == rc.quark && prev.end >= rc.start)))
			bad(v, "records %u and %u out of order or overlapping", i - 1, i);
		if (c.from_exc && i && prev.quark == rc.quark &&
		    (uint64_t)rc.start == (uint64_t)prev.end + 1)
			bad(v, "record %u has a start exception equal to its implied start", i);
		check_value(v, i, &rc);
		prev = rc;
	}
	if (v->err != SHT_OK)
		return;
	if (k < 0)
		v->err = (sht_err)k;
	else if (i != n->n || c.used_exc != n->nexc)
		bad(v, "%u records and %u start exceptions reached, header says %u and %u",
		    i, c.used_exc, n->n, n->nexc);
}

static void check_runs(struct vctx *v)
{
	const struct sht__node *n = v->n;
	uint64_t pq = 0, pi = 0;

	for (uint32_t k = 0; k < n->nruns; k++) {
		uint64_t pos = (uint64_t)k * n->dirw;
		uint64_t q = sht__getbits(n->dir, pos, n->qbits);
		uint64_t i = sht__getbits(n->dir, pos + n->qbits, n->ibits);

		if (k ? q <= pq || i <= pi || i >= n->n : i != 0) {
			bad(v, "run %u (quark %llu, record %llu) out of order", k,
			    (unsigned long long)(n->qmin + q), (unsigned long long)i);
			return;
		}
		pq = q;
		pi = i;
	}
}

/* Every entry of a table of count entries is used by the index field
 * (bit offset off, width) of some record. */
static void check_used(struct vctx *v, const char *what, uint32_t count,
		       uint32_t off, uint32_t width)
{
	const struct sht__node *n = v->n;
	uint8_t *seen = calloc(count / 8 + 1, 1);
	uint32_t used = 0;

	if (!seen) {
		v->err = sht__error(SHT_ERR_NOMEM, "Cannot check block %llu",
				    (unsigned long long)n->self);
		return;
	}
	for (uint32_t i = 0; i < n->n; i++) {
		uint64_t x = sht__getbits(n->records, (uint64_t)i * n->w + off, width);
		if (x < count && !(seen[x >> 3] & (1u << (x & 7)))) {
			seen[x >> 3] |= (uint8_t)(1u << (x & 7));
			used++;
		}
	}
	free(seen);
	if (used != count)
		bad(v, "%u of the %u entries of the %s are used", used, count, what);
}

static void check_tables(struct vctx *v)
{
	const struct sht__node *n = v->n;
	uint64_t prev = 0;

	if (n->flags & SHT__NFLAG_ETAB) {
		for (uint32_t i = 0; i < n->nends; i++) {
			uint64_t e = sht__etab_get(n, i);
			if (i % SHT__ETAB_BLOCK == 0 &&
			    sht__getbits(n->eoffs, (uint64_t)i * n->obits, n->obits))
				bad(v, "end table entry %u: a block's first offset is not 0", i);
			if (i && e <= prev)
				bad(v, "end table entry %u out of order", i);
			prev = e;
		}
		check_used(v, "end table", n->nends, n->eoff, n->xbits);
	}
	if (!(n->flags & SHT__NFLAG_DICT))
		return;
	for (unsigned t = 0; t < SHT__TAG_COUNT; t++) {
		for (uint32_t d = n->dfirst[t]; d < n->dfirst[t + 1]; d++) {
			uint64_t x = sht__getbits(n->dict, n->doff[t] +
						  (uint64_t)(d - n->dfirst[t]) * n->dw[t],
						  n->dw[t]);
			if (d > n->dfirst[t] && x <= prev)
				bad(v, "dictionary value %u out of order", d);
			prev = x;
		}
	}
	check_used(v, "value dictionary", n->nvals, n->voff, n->dbits);
}

/* The bits of an area after its last entry (count entries of w bits)
 * are zero, up to the end of its last byte. */
static void check_tail(struct vctx *v, const char *what, const uint8_t *area,
		       uint64_t count, uint64_t w)
{
	uint64_t bits = count * w;

	if ((bits & 7) && (area[bits >> 3] >> (bits & 7)))
		bad(v, "%s: bits after the last entry are not zero", what);
}

static void check_tails(struct vctx *v)
{
	const struct sht__node *n = v->n;
	uint64_t dbits = 0;

	if (n->flags & SHT__NFLAG_DICT) {
		for (unsigned t = 0; t < SHT__TAG_COUNT; t++)
			dbits += (uint64_t)(n->dfirst[t + 1] - n->dfirst[t]) * n->dw[t];
		check_tail(v, "value dictionary", n->dict, dbits, 1);
	}
	check_tail(v, "end table", n->etab,
		   (n->nends + SHT__ETAB_BLOCK - 1) / SHT__ETAB_BLOCK, n->ebits);
	check_tail(v, "end table offsets", n->eoffs, n->nends, n->obits);
	check_tail(v, "run directory", n->dir, n->nruns, n->dirw);
	check_tail(v, "exceptions", n->exc, n->nexc, n->excw);
	check_tail(v, "records", n->records, n->n, n->w);
}

sht_err sht__node_verify(const struct sht__node *n,
			 void (*blob)(void *ctx, uint64_t first, uint64_t len),
			 void *ctx)
{
	struct vctx v = { n, SHT_OK, blob, ctx };

	check_tails(&v);
	if (v.err == SHT_OK && (n->flags & SHT__NFLAG_RUNS))
		check_runs(&v);
	if (v.err == SHT_OK)
		check_tables(&v);
	if (v.err == SHT_OK)
		check_records(&v);
	return v.err;
}
