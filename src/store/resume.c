/*
 * resume.c: resumable builds of the history tree (tree.h).
 *
 * What a builder holds that the file does not: every block it wrote is in
 * the file, never rewritten (builder.c, invariant 1); what is not are the
 * counters, the sections' table and the open branch, at most one node per
 * level.  A checkpoint is those, with each open node as its records in
 * insertion order, its heap of strings (as on disk) and its closed
 * children: re-inserting the records into fresh nodes gives back the same
 * nodes (the size accounting and the heap depend on the records and their
 * order alone, track.c, insert.c), so the build goes on to the same file
 * byte for byte.  A threaded builder is drained first: every interval
 * accepted is placed, every closed node written.
 *
 * Snapshot layout (little-endian): "SHTB", version 1; geometry (variant,
 * block size, children); start, tree end, next block, next sequence,
 * nodes, intervals, largest quark, any, depth; the root entry; the
 * sections; per level from the root: kind, level, sequence, start, quark
 * range, children, records (start, end, payload, quark, tag) and heap.
 * Its integrity is the caller's to keep (the CLI adds a CRC-32C).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/builder-int.h"
#include "util/buf.h"

#define SNAP_MAGIC 0x42544853u   /* "SHTB" */
#define SNAP_VERSION 1u

/* ---- checkpoint ---------------------------------------------------------- */

static void w_child(struct sht__wbuf *w, const struct sht__child *c)
{
	sht__w_u64(w, c->block);
	sht__w_u64(w, (uint64_t)c->start);
	sht__w_u64(w, (uint64_t)c->end);
	sht__w_u32(w, c->qmin);
	sht__w_u32(w, c->qmax);
}

static void w_node(struct sht__wbuf *w, const struct sht__open *o)
{
	sht__w_u8(w, o->kind);
	sht__w_u32(w, o->level);
	sht__w_u64(w, o->seq);
	sht__w_u64(w, (uint64_t)o->start);
	sht__w_u32(w, o->sub_qmin);
	sht__w_u32(w, o->sub_qmax);
	sht__w_u32(w, o->nc);
	for (uint32_t i = 0; i < o->nc; i++)
		w_child(w, &o->ch[i]);
	sht__w_u32(w, o->trk.n);
	for (uint32_t i = 0; i < o->trk.n; i++) {
		const struct sht__oiv *r = &o->iv[i];
		sht__w_u64(w, (uint64_t)r->start);
		sht__w_u64(w, (uint64_t)r->end);
		sht__w_u64(w, r->payload);
		sht__w_u32(w, r->quark);
		sht__w_u8(w, r->tag);
	}
	sht__w_u32(w, o->heap_len);
	sht__w_bytes(w, o->heap, o->heap_len);
}

static void w_builder(struct sht__wbuf *w, const struct sht_builder *b)
{
	sht__w_u32(w, SNAP_MAGIC);
	sht__w_u32(w, SNAP_VERSION);
	sht__w_u32(w, (uint32_t)b->st.geom.variant);
	sht__w_u32(w, b->st.geom.block_size);
	sht__w_u32(w, b->st.geom.max_children);
	sht__w_u64(w, (uint64_t)b->start_time);
	sht__w_u64(w, (uint64_t)b->tree_end);
	sht__w_u64(w, b->next_block);
	sht__w_u64(w, b->next_seq);
	sht__w_u64(w, b->nodes);
	sht__w_u64(w, b->intervals);
	sht__w_u32(w, b->quark_max);
	sht__w_u8(w, (uint8_t)b->any);
	sht__w_u32(w, b->depth);
	w_child(w, &b->root_entry);
	sht__w_u32(w, b->nsections);
	for (uint32_t i = 0; i < b->nsections; i++) {
		const struct sht__section *s = &b->sections[i];
		sht__w_u32(w, s->kind);
		sht__w_u32(w, s->version);
		sht__w_u64(w, s->first);
		sht__w_u64(w, s->length);
		sht__w_u32(w, s->crc);
	}
	for (uint32_t i = 0; i < b->depth; i++)
		w_node(w, b->branch[i]);
}

sht_err sht_builder_checkpoint(sht_builder *b, void **data, size_t *len)
{
	struct sht__wbuf w = { NULL, 0, 0, 0 };
	sht_err err = SHT_OK;

	if (!data || !len)
		return sht__error(SHT_ERR_INVALID, "Cannot checkpoint: NULL data or len");
	pthread_mutex_lock(&b->lock);
	if (b->failed && b->pipe)      /* a thread's error: its cause, and its
					  code if no call was told of it yet */
		err = sht__pipe_failed(b, "checkpoint");
	else if (b->failed || b->finished)
		err = sht__error(SHT_ERR_STATE, "Cannot checkpoint: builder is %s",
				 b->failed ? "failed" : "finished");
	if (err == SHT_OK && b->pipe) {
		sht__pipe_flush(b);
		err = sht__pipe_drain(b);
	}
	if (err == SHT_OK)
		w_builder(&w, b);
	pthread_mutex_unlock(&b->lock);
	if (err == SHT_OK && w.bad)
		err = sht__error(SHT_ERR_NOMEM, "Cannot checkpoint: out of memory");
	if (err != SHT_OK) {
		free(w.p);
		return err;
	}
	*data = w.p;
	*len = w.n;
	return SHT_OK;
}

sht_err sht_builder_sync(sht_builder *b)
{
	int rc = sht__fsync(b->st.fd);

	if (rc)
		return sht__error_sys(SHT_ERR_IO, -rc, "Cannot sync history file: path=%s errno=%d (%s)",
				      b->st.path, -rc, strerror(-rc));
	return SHT_OK;
}

/* ---- resume -------------------------------------------------------------- */

static void r_child(struct sht__rbuf *r, struct sht__child *c)
{
	c->block = sht__r_u64(r);
	c->start = (sht_time)sht__r_u64(r);
	c->end = (sht_time)sht__r_u64(r);
	c->qmin = sht__r_u32(r);
	c->qmax = sht__r_u32(r);
}

static sht_err bad_snapshot(const char *what)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot resume the build: its checkpoint "
			  "is damaged (%s)", what);
}

/* The records of a node into a new array (*out), n of them. */
static sht_err r_records(struct sht__rbuf *r, uint32_t n, struct sht__oiv **out)
{
	struct sht__oiv *v;

	if (n > (r->n - r->off) / 29)       /* 29 bytes each */
		return bad_snapshot("record count");
	if (!(v = malloc((n ? n : 1) * sizeof *v)))
		return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		v[i].start = (sht_time)sht__r_u64(r);
		v[i].end = (sht_time)sht__r_u64(r);
		v[i].payload = sht__r_u64(r);
		v[i].quark = sht__r_u32(r);
		v[i].tag = sht__r_u8(r);
	}
	*out = v;
	return SHT_OK;
}

static sht_err r_node(struct sht_builder *b, struct sht__rbuf *r, struct sht__open *o)
{
	uint8_t kind = sht__r_u8(r);
	uint32_t level = sht__r_u32(r), nc, n, heap_len, qmin, qmax;
	uint64_t seq = sht__r_u64(r);
	sht_time start = (sht_time)sht__r_u64(r);
	struct sht__oiv *recs = NULL;
	const uint8_t *heap;
	sht_err err;

	qmin = sht__r_u32(r);
	qmax = sht__r_u32(r);
	nc = sht__r_u32(r);
	if (r->bad || nc > b->st.geom.max_children ||
	    (kind != SHT__KIND_LEAF && kind != SHT__KIND_CORE))
		return bad_snapshot("node");
	sht__open_reset(o, kind, level, seq, start);
	for (uint32_t i = 0; i < nc; i++)
		r_child(r, &o->ch[i]);
	o->nc = nc;
	n = sht__r_u32(r);
	err = r->bad ? bad_snapshot("children") : r_records(r, n, &recs);
	heap_len = sht__r_u32(r);
	heap = sht__r_bytes(r, heap_len);
	if (err == SHT_OK && r->bad)
		err = bad_snapshot("records");
	if (err == SHT_OK)
		err = sht__open_restore(b, o, recs, n, heap, heap_len);
	o->sub_qmin = qmin;
	o->sub_qmax = qmax;
	free(recs);
	return err;
}

/* The builder's counters, sections and branch from r into b (made by
 * sht__b_init: one empty leaf), checked against b's geometry. */
static sht_err r_builder(struct sht_builder *b, struct sht__rbuf *r)
{
	uint32_t depth;
	sht_err err = SHT_OK;

	if (sht__r_u32(r) != SNAP_MAGIC || sht__r_u32(r) != SNAP_VERSION)
		return bad_snapshot("not a builder checkpoint of this version");
	if (sht__r_u32(r) != (uint32_t)b->st.geom.variant ||
	    sht__r_u32(r) != b->st.geom.block_size ||
	    sht__r_u32(r) != b->st.geom.max_children)
		return sht__error(SHT_ERR_INVALID, "Cannot resume the build: the "
				  "checkpoint has another tree variant, block size "
				  "or child count than the options");
	b->start_time = (sht_time)sht__r_u64(r);
	b->tree_end = (sht_time)sht__r_u64(r);
	b->next_block = sht__r_u64(r);
	b->next_seq = sht__r_u64(r);
	b->nodes = sht__r_u64(r);
	b->intervals = sht__r_u64(r);
	b->quark_max = sht__r_u32(r);
	b->any = sht__r_u8(r);
	depth = sht__r_u32(r);
	r_child(r, &b->root_entry);
	b->nsections = sht__r_u32(r);
	if (r->bad || depth == 0 || depth > SHT__MAX_LEVEL + 1 ||
	    b->nsections > SHT__SECTION_SLOTS)
		return bad_snapshot("counters");
	for (uint32_t i = 0; i < b->nsections; i++) {
		struct sht__section *s = &b->sections[i];
		s->kind = sht__r_u32(r);
		s->version = sht__r_u32(r);
		s->first = sht__r_u64(r);
		s->length = sht__r_u64(r);
		s->crc = sht__r_u32(r);
	}
	if (depth > b->branch_cap) {
		struct sht__open **br = realloc(b->branch, depth * sizeof *br);
		if (!br)
			return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
		b->branch = br;
		b->branch_cap = depth;
	}
	for (uint32_t i = 1; i < depth; i++) {
		if (!(b->branch[i] = sht__open_new(b->st.geom.max_children)))
			return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
		b->depth = i + 1;
	}
	for (uint32_t i = 0; err == SHT_OK && i < depth; i++)
		err = r_node(b, r, b->branch[i]);
	if (err == SHT_OK && r->off != r->n)
		err = bad_snapshot("trailing bytes");
	return err;
}

/* Open path for b, cut after the blocks the checkpoint counts. */
static sht_err open_cut(struct sht_builder *b, const char *path)
{
	uint64_t size = SHT__HEADER_REGION + b->next_block * b->st.geom.block_size;
	struct stat sb;

	if (fstat(b->st.fd, &sb) != 0)
		return sht__error_sys(SHT_ERR_IO, errno, "Cannot resume the build: "
				      "path=%s: %s", path, strerror(errno));
	if ((uint64_t)sb.st_size < size)
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume the build: %s has "
				  "%llu bytes, its checkpoint needs %llu (blocks "
				  "written before it were lost)", path,
				  (unsigned long long)sb.st_size, (unsigned long long)size);
	if (ftruncate(b->st.fd, (off_t)size) != 0)
		return sht__error_sys(SHT_ERR_IO, errno, "Cannot resume the build: "
				      "path=%s: %s", path, strerror(errno));
	atomic_store(&b->st.block_count, b->next_block);
	atomic_store(&b->pub_end, b->tree_end);
	return SHT_OK;
}

sht_err sht_builder_resume(const char *path, const void *data, size_t len,
			   const sht_builder_opts *opts, sht_builder **out)
{
	struct sht__rbuf r = { data, len, 0, 0 };
	sht_builder_opts def, o;
	struct sht_builder *b;
	sht_err err;

	if (!path || !data || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot resume the build: NULL argument");
	if (!opts) {
		sht_builder_opts_init(&def);
		opts = &def;
	}
	o = sht__b_resolve_opts(opts);
	err = sht__b_check_opts(&o);
	if (err != SHT_OK)
		return err;
	if (!(b = calloc(1, sizeof *b)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate builder");
	b->st.fd = open(path, O_RDWR | O_CLOEXEC);
	if (b->st.fd < 0) {
		int e = errno;
		free(b);
		return sht__error_sys(SHT_ERR_IO, e, "Cannot resume the build: path=%s: %s",
				      path, strerror(e));
	}
	snprintf(b->st.path, sizeof b->st.path, "%s", path);
	err = sht__b_init(b, &o);
	if (err == SHT_OK)
		err = r_builder(b, &r);
	if (err == SHT_OK)
		err = open_cut(b, path);
	if (err == SHT_OK)
		err = sht__b_write_header(b, 0, b->start_time);
	if (err == SHT_OK && o.threaded)
		err = sht__pipe_start(b);
	if (err != SHT_OK) {
		sht_builder_close(b);
		return err;
	}
	*out = b;
	return SHT_OK;
}
