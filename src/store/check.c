/*
 * check.c: the integrity walk (sht check) and tree statistics.
 *
 * Both walk the tree from the root, each node once.  The check also
 * verifies every record, every blob, the padding, the child summaries
 * against the children, and that every block is reached exactly once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "store/reader-int.h"

struct walk {
	sht_reader *r;
	int full;                    /* check records, blobs, padding */
	uint8_t *seen;               /* bitmap over blocks */
	sht_tree_stats *stats;
	sht_report_fn report;
	void *ctx;
	unsigned max_reports, reports;
	uint64_t intervals, nodes;
	uint32_t quark_max;
	int any_quark;
	int bad;
	sht_err io_err;              /* first I/O or memory error */
};

static void problem(struct walk *w, const char *fmt, ...) SHT_PRINTF(2, 3);

static void problem(struct walk *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	w->bad = 1;
	if (!w->report || w->reports >= w->max_reports)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	w->reports++;
	w->report(w->ctx, msg);
}

static int mark(struct walk *w, uint64_t blk)
{
	if (w->seen[blk >> 3] & (1u << (blk & 7))) {
		problem(w, "block %llu is reached twice", (unsigned long long)blk);
		return 0;
	}
	w->seen[blk >> 3] |= (uint8_t)(1u << (blk & 7));
	return 1;
}

static int zero_tail(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Mark a run of blocks and verify the padding after its data. */
static void mark_run(struct walk *w, uint8_t kind, uint64_t first, uint64_t len)
{
	uint32_t bs = w->r->hd.block_size;
	uint64_t n = sht__blob_blocks(len, bs);
	uint8_t *buf = NULL;

	if (sht__blob_load(&w->r->st, kind, first, len, &buf) != SHT_OK) {
		problem(w, "%s", sht_errmsg());
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		if (!mark(w, first + i))
			break;
	if (!zero_tail(buf + SHT__BLOB_HDR + len, n * bs - 4 - SHT__BLOB_HDR - len))
		problem(w, "%s at block %llu: padding is not zero",
			kind == SHT__KIND_BLOB ? "blob" : "section", (unsigned long long)first);
	if (kind == SHT__KIND_SECTION) {
		for (uint32_t i = 0; i < w->r->hd.nsections; i++)
			if (w->r->hd.sections[i].first == first &&
			    sht__crc32c(0, buf + SHT__BLOB_HDR, len) != w->r->hd.sections[i].crc)
				problem(w, "section at block %llu: checksum differs from the header",
					(unsigned long long)first);
	}
	free(buf);
}

static void check_blob(struct walk *w, uint64_t first, uint64_t len)
{
	mark_run(w, SHT__KIND_BLOB, first, len);
}

static void blob_ref(void *ctx, uint64_t first, uint64_t len)
{
	check_blob(ctx, first, len);
}

static void add_stats(struct walk *w, const struct sht__node *n)
{
	sht_tree_stats *s = w->stats;

	if (!s)
		return;
	if (n->level + 1u > s->levels)
		s->levels = n->level + 1u;
	if (n->level < SHT_TREE_STATS_MAX_LEVELS) {
		s->level[n->level].nodes++;
		s->level[n->level].intervals += n->n;
		s->level[n->level].used_bytes += n->used;
	}
	if (n->kind == SHT__KIND_LEAF) {
		s->leaf_nodes++;
		s->leaf_used_bytes += n->used;
	} else {
		s->core_nodes++;
		s->core_used_bytes += n->used;
	}
}

static void walk_node(struct walk *w, uint64_t blk, uint32_t level,
		      uint32_t *qlo, uint32_t *qhi);

static void check_child(struct walk *w, const struct sht__node *n, uint32_t i,
			struct sht__child *prev, uint32_t *qlo, uint32_t *qhi)
{
	struct sht__child c;
	uint32_t clo = UINT32_MAX, chi = 0;
	struct sht__centry *e;

	sht__child_get(n, i, &c);
	walk_node(w, c.block, n->level - 1, &clo, &chi);
	if (w->full && (clo != c.qmin || chi != c.qmax) &&
	    !(clo > chi && c.qmin > c.qmax))
		problem(w, "block %llu: child %u quark range %u..%u, subtree has %u..%u",
			(unsigned long long)n->self, i, c.qmin, c.qmax, clo, chi);
	if (w->full && sht__fetch(&w->r->st, c.block, &e) == SHT_OK) {
		if (e->node.start != c.start || e->node.end != c.end)
			problem(w, "block %llu: child %u time range differs from block %llu",
				(unsigned long long)n->self, i, (unsigned long long)c.block);
		sht__release(e);
	}
	if (w->full && i && c.qmin <= c.qmax && prev->qmin <= prev->qmax &&
	    (w->r->hd.variant == SHT_VARIANT_SHT
	     /* disjoint, except both pinned at the last representable time */
	     ? prev->end >= c.start && c.start != SHT_TIME_MAX
	     : prev->start > c.start))
		problem(w, "block %llu: children %u and %u out of order", (unsigned long long)n->self, i - 1, i);
	if (c.qmin <= c.qmax || i == 0)
		*prev = c;
	if (clo <= chi) {
		if (clo < *qlo)
			*qlo = clo;
		if (chi > *qhi)
			*qhi = chi;
	}
}

static void walk_node(struct walk *w, uint64_t blk, uint32_t level,
		      uint32_t *qlo, uint32_t *qhi)
{
	struct sht__centry *e;
	const struct sht__node *n;
	struct sht__child prev = { 0, 0, 0, 1, 0 };
	sht_err err;

	if (blk >= w->r->hd.block_count || !mark(w, blk))
		return;
	err = sht__fetch(&w->r->st, blk, &e);
	if (err != SHT_OK) {
		if (err == SHT_ERR_IO || err == SHT_ERR_NOMEM)
			w->io_err = err;
		problem(w, "%s", sht_errmsg());
		return;
	}
	n = &e->node;
	w->nodes++;
	w->intervals += n->n;
	add_stats(w, n);
	if (n->level != level)
		problem(w, "block %llu: level %u, expected %u", (unsigned long long)blk, n->level, level);
	else if (w->full) {
		if (!zero_tail(n->blk + n->used, w->r->hd.block_size - 4 - n->used))
			problem(w, "block %llu: padding is not zero", (unsigned long long)blk);
		err = sht__node_verify(n, blob_ref, w);
		if (err == SHT_ERR_NOMEM)
			w->io_err = err;
		if (err != SHT_OK)
			problem(w, "%s", sht_errmsg());
	}
	if (n->n) {
		if (n->qmin < *qlo)
			*qlo = n->qmin;
		if (n->qmax > *qhi)
			*qhi = n->qmax;
	}
	for (uint32_t i = 0; n->level == level && i < n->nc; i++)
		check_child(w, n, i, &prev, qlo, qhi);
	sht__release(e);
}

static void check_totals(struct walk *w, uint32_t qlo, uint32_t qhi)
{
	const struct sht__header *hd = &w->r->hd;
	uint64_t qc = qlo <= qhi ? (uint64_t)qhi + 1 : 0;

	for (uint64_t b = 0; b < hd->block_count; b++)
		if (!(w->seen[b >> 3] & (1u << (b & 7)))) {
			problem(w, "block %llu is not reachable from the root", (unsigned long long)b);
			break;
		}
	if (w->intervals != hd->intervals || w->nodes != hd->nodes || qc != hd->quark_count)
		problem(w, "header counts (intervals %llu, nodes %llu, quarks %llu) differ from the tree (%llu, %llu, %llu)",
			(unsigned long long)hd->intervals, (unsigned long long)hd->nodes,
			(unsigned long long)hd->quark_count, (unsigned long long)w->intervals,
			(unsigned long long)w->nodes, (unsigned long long)qc);
}

/* Reserved header bytes, unused section entries, the reserved word of
 * each entry and the padding after header_len must be zero. */
static void check_header(struct walk *w)
{
	static const struct { unsigned off, len; } zero[] = {
		{ 21, 3 }, { 52, 4 }, { 352, 28 },
	};
	uint8_t h[SHT__HEADER_REGION];
	int rc = sht__pread_full(w->r->st.fd, h, sizeof h, 0);

	if (rc) {
		w->io_err = sht__error_sys(SHT_ERR_IO, -rc, "Cannot read header: path=%s errno=%d (%s)",
					   w->r->st.path, -rc, strerror(-rc));
		return;
	}
	for (size_t i = 0; i < sizeof zero / sizeof *zero; i++)
		if (!zero_tail(h + zero[i].off, zero[i].len))
			problem(w, "header: reserved bytes %u..%u are not zero",
				zero[i].off, zero[i].off + zero[i].len - 1);
	for (uint32_t i = 0; i < SHT__SECTION_SLOTS; i++) {
		const uint8_t *e = h + SHT__H_SECTIONS + i * SHT__SECTION_ENTRY;
		if (i < w->r->hd.nsections ? !zero_tail(e + 28, 4) : !zero_tail(e, SHT__SECTION_ENTRY))
			problem(w, "header: section entry %u has non-zero reserved bytes", i);
		if (i < w->r->hd.nsections)
			mark_run(w, SHT__KIND_SECTION, w->r->hd.sections[i].first,
				 w->r->hd.sections[i].length);
	}
	if (!zero_tail(h + w->r->hd.header_len, sizeof h - w->r->hd.header_len))
		problem(w, "header: padding after byte %u is not zero", w->r->hd.header_len);
}

static sht_err run_walk(struct walk *w)
{
	uint32_t qlo = UINT32_MAX, qhi = 0;

	w->seen = calloc(w->r->hd.block_count / 8 + 1, 1);
	if (!w->seen)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the check bitmap");
	walk_node(w, w->r->hd.root, w->r->hd.depth - 1, &qlo, &qhi);
	if (w->full) {
		check_header(w);
		check_totals(w, qlo, qhi);
	}
	free(w->seen);
	if (w->io_err)
		return w->io_err;
	return w->bad ? SHT_ERR_CORRUPT : SHT_OK;
}

sht_err sht_reader_check(sht_reader *r, sht_report_fn report, void *ctx,
			 unsigned max_reports)
{
	struct walk w;

	memset(&w, 0, sizeof w);
	w.r = r;
	w.full = 1;
	w.report = report;
	w.ctx = ctx;
	w.max_reports = max_reports;
	return run_walk(&w);
}

sht_err sht_reader_stats_get(sht_reader *r, sht_tree_stats *out)
{
	struct walk w;
	sht_err err;

	memset(&w, 0, sizeof w);
	memset(out, 0, sizeof *out);
	w.r = r;
	w.stats = out;
	err = run_walk(&w);
	if (err == SHT_ERR_CORRUPT)
		return sht__error(err, "Cannot compute statistics: the tree is corrupt (run sht check)");
	out->fill_leaf = out->leaf_nodes
			 ? (double)out->leaf_used_bytes / ((double)out->leaf_nodes * r->hd.block_size) : 0;
	out->fill_core = out->core_nodes
			 ? (double)out->core_used_bytes / ((double)out->core_nodes * r->hd.block_size) : 0;
	out->bytes_per_interval = r->hd.intervals ? (double)r->size / (double)r->hd.intervals : 0;
	for (uint32_t i = 0; i < r->hd.nsections; i++)
		out->section_blocks += sht__blob_blocks(r->hd.sections[i].length, r->hd.block_size);
	out->blob_blocks = r->hd.block_count - r->hd.nodes - out->section_blocks;
	return err;
}
