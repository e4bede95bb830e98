/*
 * builder.c: write path of the history tree: file lifecycle and the shape
 * of the tree (branches, siblings, new roots).  Interval placement is in
 * insert.c, node encoding in encode.c.
 *
 *   CREATED --[sht_builder_insert]*--> --[sht_builder_finish]--> FINISHED
 *      +------ any I/O or memory error ------> FAILED (sticky: SHT_ERR_STATE)
 *
 * Invariants:
 *  (1) branch[0..depth-1] is the latest branch, root first; every node left
 *      of it is closed and written, and never rewritten.
 *  (2) A node is written when it closes, after all its children, at the
 *      next free block: a parent knows its children's block numbers.
 *  (3) Every interval in a node lies within [node start, node end]; a child
 *      lies within its parent.  Node end = largest end inserted before the
 *      close (or the finish time); an empty node's start is clamped to it.
 *  (4) The header says COMPLETE only after everything else is synced.
 *  (5) eSHT: a node that fills is closed with the nodes above it that
 *      cannot take a sibling, and replaced by fresh ones; the open nodes
 *      below it stay open as the first children of its replacement (if it
 *      has a closed child: a core node needs one).  Classic SHT: all the
 *      nodes below close too (siblings are disjoint in time).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string.h>

#include "store/builder-int.h"

void sht_builder_opts_init(sht_builder_opts *opts)
{
	opts->variant = SHT_VARIANT_ESHT;
	opts->block_size = SHT_DEFAULT_BLOCK_SIZE;
	opts->max_children = 0;      /* resolved at create: see tree.h */
	opts->no_sync = false;
	opts->threaded = false;
}

struct sht__open *sht__open_new(uint32_t max_children)
{
	struct sht__open *o = calloc(1, sizeof *o);

	if (!o)
		return NULL;
	o->ch = calloc(max_children, sizeof *o->ch);
	if (!o->ch) {
		free(o);
		return NULL;
	}
	return o;
}

void sht__open_free(struct sht__open *o)
{
	if (!o)
		return;
	free(o->iv);
	free(o->heap);
	free(o->dedup);
	sht__open_track_free(o);
	free(o->ch);
	free(o);
}

void sht__open_reset(struct sht__open *o, uint8_t kind, uint32_t level,
		     uint64_t seq, sht_time start)
{
	o->kind = kind;
	o->level = level;
	o->seq = seq;
	o->start = start;
	o->heap_len = 0;
	o->nc = 0;
	o->sub_qmin = UINT32_MAX;
	o->sub_qmax = 0;
	sht__open_track_reset(o);
	if (o->dedup && o->dedup_count)
		memset(o->dedup, 0, ((size_t)o->dedup_mask + 1) * sizeof *o->dedup);
	o->dedup_count = 0;
}

static sht_err fail(struct sht_builder *b, sht_err err)
{
	b->failed = 1;
	return err;
}

sht_err sht__b_write(struct sht_builder *b, const void *buf, size_t len,
		     uint64_t blk)
{
	int rc = sht__pwrite_full(b->st.fd, buf, len,
				 SHT__HEADER_REGION + blk * b->st.geom.block_size);

	if (rc)
		return fail(b, sht__error_sys(SHT_ERR_IO, -rc, "Cannot write block: block=%llu path=%s errno=%d (%s)",
					      (unsigned long long)blk, b->st.path, -rc, strerror(-rc)));
	return SHT_OK;
}

static void link_child(struct sht__open *parent, const struct sht__child *c)
{
	parent->ch[parent->nc++] = *c;
	if (c->qmin <= c->qmax) {
		if (c->qmin < parent->sub_qmin)
			parent->sub_qmin = c->qmin;
		if (c->qmax > parent->sub_qmax)
			parent->sub_qmax = c->qmax;
	}
}

/* Threaded: the writer encodes and writes the node; the branch gets a
 * fresh node at this level (open_branch resets it). */
static sht_err hand_over(struct sht_builder *b, uint32_t level, sht_time end)
{
	struct sht__open *o = b->branch[level], *spare = sht__pipe_spare(b);

	if (!spare)
		return fail(b, sht__error(SHT_ERR_NOMEM, "Cannot allocate a node"));
	b->branch[level] = spare;
	return sht__pipe_close(b, o, b->next_block, end);
}

static sht_err close_node(struct sht_builder *b, uint32_t level, sht_time end)
{
	struct sht__open *o = b->branch[level];
	struct sht__child c;
	sht_err err;

	/* Only a node without records can start after the split time (a
	 * classic branch opened at end + 1 and never used): move its start
	 * back so that it stays inside its parent. */
	if (end < o->start)
		o->start = end;
	c.block = b->next_block;
	c.start = o->start;
	c.end = end;
	c.qmin = o->sub_qmin;
	c.qmax = o->sub_qmax;
	if (b->pipe) {
		err = hand_over(b, level, end);
	} else {
		err = sht__open_encode(o, c.block, end, &b->st.geom, &b->scratch,
				       b->blk);
		if (err != SHT_OK)
			return fail(b, err);
		err = sht__b_write(b, b->blk, b->st.geom.block_size, c.block);
	}
	if (err != SHT_OK)
		return err;
	b->next_block++;
	b->nodes++;
	if (!b->pipe)
		atomic_store(&b->st.block_count, b->next_block);
	if (level > 0)
		link_child(b->branch[level - 1], &c);
	else
		b->root_entry = c;
	return SHT_OK;
}

sht_err sht__b_close_from(struct sht_builder *b, uint32_t level, sht_time end)
{
	for (uint32_t i = b->depth; i-- > level;) {
		sht_err err = close_node(b, i, end);
		if (err != SHT_OK)
			return err;
	}
	return SHT_OK;
}

/* Fresh nodes for branch entries from..to-1 of the latest branch (0 is
 * the root), at start. */
static void open_branch(struct sht_builder *b, uint32_t from, uint32_t to,
			sht_time start)
{
	for (uint32_t i = from; i < to; i++) {
		uint32_t lvl = b->depth - 1 - i;
		sht__open_reset(b->branch[i], lvl ? SHT__KIND_CORE : SHT__KIND_LEAF,
				lvl, b->next_seq++, start);
	}
}

static sht_err add_new_root(struct sht_builder *b, sht_time start)
{
	struct sht__open *root;
	sht_err err;

	if (b->depth > SHT__MAX_LEVEL)
		return fail(b, sht__error(SHT_ERR_TOOBIG, "Cannot grow the tree past %u levels",
					  SHT__MAX_LEVEL + 1));
	if (b->depth == b->branch_cap) {
		struct sht__open **br = realloc(b->branch, 2 * (size_t)b->branch_cap * sizeof *br);
		if (!br)
			return fail(b, sht__error(SHT_ERR_NOMEM, "Cannot allocate a branch"));
		b->branch = br;
		b->branch_cap *= 2;
	}
	root = sht__open_new(b->st.geom.max_children);
	if (!root)
		return fail(b, sht__error(SHT_ERR_NOMEM, "Cannot allocate a node"));
	err = sht__b_close_from(b, 0, b->tree_end);
	if (err != SHT_OK) {
		sht__open_free(root);
		return err;
	}
	memmove(&b->branch[1], &b->branch[0], b->depth * sizeof *b->branch);
	b->branch[0] = root;
	sht__open_reset(root, SHT__KIND_CORE, b->depth, b->next_seq++,
			b->start_time);
	link_child(root, &b->root_entry);
	b->depth++;
	open_branch(b, 1, b->depth, start);
	return SHT_OK;
}

sht_err sht__b_add_sibling(struct sht_builder *b, uint32_t level, sht_time start)
{
	uint32_t full = level, keep;
	sht_err err = SHT_OK;

	for (;; level--) {
		struct sht__open *parent;

		if (level == 0)
			return add_new_root(b, start);
		parent = b->branch[level - 1];
		/* Room for the closed children, the closing one and a new one. */
		if (parent->nc + 2 <= b->st.geom.max_children &&
		    (b->st.geom.variant == SHT_VARIANT_SHT || parent->start <= start))
			break;
	}
	/* eSHT: the open nodes below the full one stay open, as the first
	 * children of the new nodes (they start at or after start: the
	 * interval that did not fit starts before them), instead of being
	 * closed however little they hold -- unless the full node has no
	 * closed child (a core node has at least one).  Classic SHT:
	 * siblings are disjoint in time, so everything below closes. */
	keep = b->st.geom.variant == SHT_VARIANT_ESHT && b->branch[full]->nc
	       ? full + 1 : b->depth;
	for (uint32_t i = keep; err == SHT_OK && i-- > level;)
		err = close_node(b, i, b->tree_end);
	if (err == SHT_OK)
		open_branch(b, level, keep, start);
	return err;
}

sht_err sht__b_write_blob(struct sht_builder *b, uint8_t kind, const void *s,
			 uint64_t len, uint64_t *first)
{
	uint32_t bs = b->st.geom.block_size;
	uint64_t n = sht__blob_blocks(len, bs);
	uint8_t *buf = calloc(n, bs);
	sht_err err;

	if (len && s == NULL)
		return sht__error(SHT_ERR_INVALID, "Cannot write a blob from NULL");
	if (!buf)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a blob of %llu bytes",
				  (unsigned long long)len);
	buf[0] = kind;
	sht__put_u32(buf + SHT__B_NBLOCKS, (uint32_t)n);
	sht__put_u64(buf + SHT__B_SELF, b->next_block);
	sht__put_u64(buf + SHT__B_LENGTH, len);
	if (len)
		memcpy(buf + SHT__BLOB_HDR, s, len);
	sht__put_u32(buf + n * bs - 4, sht__crc32c(0, buf, n * bs - 4));
	err = sht__b_write(b, buf, n * bs, b->next_block);
	free(buf);
	if (err != SHT_OK)
		return err;
	*first = b->next_block;
	b->next_block += n;
	atomic_store(&b->st.block_count, b->next_block);
	return SHT_OK;
}

/* ---- sections ------------------------------------------------------------ */

sht_err sht_builder_add_section(sht_builder *b, uint32_t kind, uint32_t version,
				const void *data, size_t len)
{
	sht_err err = SHT_OK;
	struct sht__section *sec;

	pthread_mutex_lock(&b->lock);
	if (b->failed && b->pipe)
		err = sht__pipe_failed(b, "add a section");
	else if (b->failed || b->finished)
		err = sht__error(SHT_ERR_STATE, "Cannot add a section: builder is %s",
				 b->failed ? "failed" : "finished");
	else if (kind == 0 || b->nsections == SHT__SECTION_SLOTS ||
		 (uint64_t)len > SHT_SECTION_MAX)
		err = sht__error(SHT_ERR_INVALID, "Cannot add a section: kind=%u len=%zu (%u slots, %u in use)",
				 kind, len, SHT__SECTION_SLOTS, b->nsections);
	for (uint32_t i = 0; err == SHT_OK && i < b->nsections; i++)
		if (b->sections[i].kind == kind)
			err = sht__error(SHT_ERR_INVALID, "Cannot add a section: kind=%u exists", kind);
	/* Threaded: place what was accepted first, so that the section's
	 * blocks come after the nodes closed so far whatever the threads'
	 * timing (the file is the same as a single-threaded build's). */
	if (err == SHT_OK && b->pipe) {
		sht__pipe_flush(b);
		err = sht__pipe_drain(b);
	}
	if (err == SHT_OK) {
		sec = &b->sections[b->nsections];
		err = sht__b_write_blob(b, SHT__KIND_SECTION, data, len, &sec->first);
		if (err == SHT_OK) {
			sec->kind = kind;
			sec->version = version;
			sec->length = len;
			sec->crc = sht__crc32c(0, data, len);
			b->nsections++;
		}
	}
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* ---- create, finish, destroy ------------------------------------------- */

static void encode_header(struct sht_builder *b, int complete, sht_time end)
{
	struct sht__header hd;

	memset(&hd, 0, sizeof hd);
	hd.flags = complete ? SHT__FLAG_COMPLETE : 0;
	hd.variant = b->st.geom.variant;
	hd.block_size = b->st.geom.block_size;
	hd.max_children = b->st.geom.max_children;
	hd.block_count = b->next_block;
	hd.root = complete ? b->root_entry.block : 0;
	hd.depth = complete ? b->depth : 0;
	hd.quark_count = b->any ? (uint64_t)b->quark_max + 1 : 0;
	hd.start = b->start_time;
	hd.end = end;
	hd.intervals = b->intervals;
	hd.nodes = b->nodes;
	hd.nsections = b->nsections;
	memcpy(hd.sections, b->sections, sizeof hd.sections);
	sht__header_encode(&hd, b->blk);
}

sht_err sht__b_write_header(struct sht_builder *b, int complete, sht_time end)
{
	int rc;

	encode_header(b, complete, end);
	rc = sht__pwrite_full(b->st.fd, b->blk, SHT__HEADER_REGION, 0);
	if (rc)
		return fail(b, sht__error_sys(SHT_ERR_IO, -rc, "Cannot write header: path=%s errno=%d (%s)",
					      b->st.path, -rc, strerror(-rc)));
	return SHT_OK;
}

/* Options with their zeros replaced by defaults: block size 64 KiB, and
 * 50 children or as many as half the block holds, if fewer. */
sht_builder_opts sht__b_resolve_opts(const sht_builder_opts *in)
{
	sht_builder_opts o = *in;

	if (o.block_size == 0)
		o.block_size = SHT_DEFAULT_BLOCK_SIZE;
	if (o.max_children == 0) {
		uint32_t fit = o.block_size >= 2 * SHT__GEOM_HDR
			       ? (o.block_size / 2 - SHT__GEOM_HDR) / SHT__CHILD_ENTRY : 0;
		o.max_children = fit < SHT_DEFAULT_MAX_CHILDREN ? fit : SHT_DEFAULT_MAX_CHILDREN;
	}
	return o;
}

sht_err sht__b_check_opts(const sht_builder_opts *o)
{
	if (o->variant != SHT_VARIANT_SHT && o->variant != SHT_VARIANT_ESHT)
		return sht__error(SHT_ERR_INVALID, "Cannot use variant: variant=%d",
				  (int)o->variant);
	return sht__geom_check(o->block_size, o->max_children);
}

sht_err sht__b_init(struct sht_builder *b, const sht_builder_opts *o)
{
	b->st.geom.block_size = o->block_size;
	b->st.geom.max_children = o->max_children;
	b->st.geom.variant = o->variant;
	pthread_mutex_init(&b->lock, NULL);
	b->no_sync = o->no_sync;
	b->blk = malloc(o->block_size > SHT__HEADER_REGION ? o->block_size
							    : SHT__HEADER_REGION);
	b->branch = calloc(8, sizeof *b->branch);
	b->branch_cap = 8;
	if (b->branch) {
		b->branch[0] = sht__open_new(o->max_children);
		b->depth = 1;   /* destroy frees branch[0] if blk failed */
	}
	if (!b->blk || !b->branch || !b->branch[0])
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate builder");
	b->tree_end = b->start_time;
	sht__open_reset(b->branch[0], SHT__KIND_LEAF, 0, b->next_seq++,
			b->start_time);
	atomic_store(&b->pub_end, b->start_time);
	return sht__cache_create(16u * o->block_size, o->block_size, &b->st.cache);
}

sht_err sht_builder_create(const char *path, sht_time start_time,
			   const sht_builder_opts *opts, sht_builder **out)
{
	sht_builder_opts def, o;
	struct sht_builder *b;
	sht_err err;
	int fd;

	if (!opts) {
		sht_builder_opts_init(&def);
		opts = &def;
	}
	o = sht__b_resolve_opts(opts);
	opts = &o;
	err = sht__b_check_opts(opts);
	if (err != SHT_OK)
		return err;
	b = calloc(1, sizeof *b);
	if (!b)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate builder");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(b);
		return sht__error_sys(SHT_ERR_IO, errno, "Cannot create history file: path=%s: %s",
				      path, strerror(errno));
	}
	b->st.fd = fd;
	snprintf(b->st.path, sizeof b->st.path, "%s", path);
	b->start_time = start_time;
	err = sht__b_init(b, opts);
	if (err == SHT_OK)
		err = sht__b_write_header(b, 0, start_time);
	if (err == SHT_OK && opts->threaded)
		err = sht__pipe_start(b);
	if (err != SHT_OK) {
		sht_builder_close(b);
		return err;
	}
	*out = b;
	return SHT_OK;
}

sht_err sht__b_sync(struct sht_builder *b)
{
	int rc = b->no_sync ? 0 : sht__fsync(b->st.fd);

	if (rc)
		return fail(b, sht__error_sys(SHT_ERR_IO, -rc, "Cannot sync history file: path=%s errno=%d (%s)",
					      b->st.path, -rc, strerror(-rc)));
	return SHT_OK;
}

/* The complete header's write or sync failed: the caller is told the
 * build failed, so the file must not open as complete (a short write may
 * have written the whole header; after a failed fsync the page cache still
 * holds it).  Best effort; the error and its message stand. */
static void unmark_complete(struct sht_builder *b, sht_time end_time)
{
	encode_header(b, 0, end_time);
	(void)sht__pwrite_full(b->st.fd, b->blk, SHT__HEADER_REGION, 0);
}

static sht_err finish_locked(struct sht_builder *b, sht_time end_time)
{
	sht_err err;

	if (b->failed && b->pipe)
		return sht__pipe_failed(b, "finish history");
	if (b->failed || b->finished)
		return sht__error(SHT_ERR_STATE, "Cannot finish history: builder is %s",
				  b->failed ? "failed" : "finished");
	/* Threaded: place everything accepted first, so tree_end is final. */
	if (b->pipe) {
		sht__pipe_flush(b);
		err = sht__pipe_drain(b);
		if (err != SHT_OK)
			return err;
	}
	if (end_time < b->tree_end || end_time < b->start_time)
		return sht__error(SHT_ERR_INVALID, "Cannot finish history: end=%lld before the last interval end=%lld",
				  (long long)end_time, (long long)b->tree_end);
	err = sht__b_close_from(b, 0, end_time);
	if (err == SHT_OK && b->pipe)
		err = sht__pipe_drain(b);
	if (err == SHT_OK)
		err = sht__b_sync(b);
	if (err == SHT_OK) {
		err = sht__b_write_header(b, 1, end_time);
		if (err == SHT_OK)
			err = sht__b_sync(b);
		if (err != SHT_OK)
			unmark_complete(b, end_time);
	}
	if (err == SHT_OK) {
		b->finished = 1;
		b->tree_end = end_time;
		atomic_store(&b->pub_end, end_time);
	}
	return err;
}

sht_err sht_builder_finish(sht_builder *b, sht_time end_time)
{
	sht_err err;

	pthread_mutex_lock(&b->lock);
	err = finish_locked(b, end_time);
	pthread_mutex_unlock(&b->lock);
	return err;
}

void sht_builder_close(sht_builder *b)
{
	if (!b)
		return;
	sht__pipe_stop(b);
	for (uint32_t i = 0; b->branch && i < b->depth; i++)
		sht__open_free(b->branch[i]);
	free(b->branch);
	if (b->st.fd >= 0)
		close(b->st.fd);
	sht__cache_destroy(b->st.cache);
	pthread_mutex_destroy(&b->lock);
	free(b->blk);
	free(b->scratch.p);
	free(b);
}

void sht_builder_flush(sht_builder *b)
{
	if (b->pipe && !b->finished)
		sht__pipe_flush(b);
}

sht_time sht_builder_current_end(const sht_builder *b)
{
	sht_time t;

	t = atomic_load(&b->pub_end);
	return t;
}
