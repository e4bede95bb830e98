/*
 * reader.c: opening a finished history file and the public query entry
 * points (for readers and for builders still building).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string.h>

#include "store/builder-int.h"
#include "store/reader-int.h"

#define DEFAULT_CACHE (256u * 1024u * 1024u)

static sht_err read_header(struct sht_reader *r, uint64_t size)
{
	uint8_t h[SHT__HEADER_REGION];
	sht_err err;
	int rc;

	if (size < SHT__HEADER_REGION)
		return sht__error(SHT_ERR_CORRUPT, "Cannot open history: path=%s is %llu bytes, too short to be a history file",
				  r->st.path, (unsigned long long)size);
	rc = sht__pread_full(r->st.fd, h, sizeof h, 0);
	if (rc)
		return sht__error_sys(SHT_ERR_IO, -rc, "Cannot read header: path=%s errno=%d (%s)",
				      r->st.path, -rc, strerror(-rc));
	err = sht__header_parse(h, &r->hd);
	if (err != SHT_OK) {
		char why[256];
		snprintf(why, sizeof why, "%s", sht_errmsg());
		return sht__error(err, "%s: path=%s", why, r->st.path);
	}
	if (!(r->hd.flags & SHT__FLAG_COMPLETE))
		return sht__error(SHT_ERR_INCOMPLETE, "Cannot open history: path=%s was never completed (the build was interrupted)",
				  r->st.path);
	if (r->hd.block_count > (size - SHT__HEADER_REGION) / r->hd.block_size ||
	    size != SHT__HEADER_REGION + r->hd.block_count * r->hd.block_size)
		return sht__error(SHT_ERR_CORRUPT, "Cannot open history: path=%s is %llu bytes, the header says %llu (truncated or extended)",
				  r->st.path, (unsigned long long)size,
				  (unsigned long long)(SHT__HEADER_REGION +
						       r->hd.block_count * r->hd.block_size));
	return SHT_OK;
}

/* Fetch the root once: a file whose root does not decode is refused now. */
static sht_err check_root(struct sht_reader *r)
{
	struct sht__centry *e;
	sht_err err = sht__fetch(&r->st, r->hd.root, &e);

	if (err != SHT_OK)
		return err;
	if (e->node.level + 1u != r->hd.depth)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot open history: root block=%llu is at level %u, depth is %u",
				 (unsigned long long)r->hd.root, e->node.level, r->hd.depth);
	sht__release(e);
	return err;
}

/*
 * The address at which to map a file of len bytes so that its blocks
 * (after the header region) start on multiples of align: a region of
 * len + align bytes is reserved (no access), the file is mapped over
 * part of it, and the rest is given back.  Why: on a fault in a file
 * mapping the kernel maps the cached pages of the whole aligned 64 KiB
 * window around the address ("fault-around"); a 64 KiB block starting
 * 4 KiB into a window spans two, so a query touching both ends of each
 * block it reads mapped twice its bytes (a whole-trace screen: 357 MB of
 * RssFile for 187 MB of blocks) at two faults a block.  NULL if the
 * reservation fails (the caller then maps anywhere).
 */
static void *aligned_spot(size_t len, size_t align)
{
	uintptr_t res, at;
	void *p = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	res = (uintptr_t)p;
	at = ((res + SHT__HEADER_REGION + align - 1) & ~(uintptr_t)(align - 1)) -
	     SHT__HEADER_REGION;          /* in [res, res + align) */
	if (at > res)
		munmap(p, at - res);
	if (res + len + align > at + len)
		munmap((void *)(at + len), res + len + align - (at + len));
	return (void *)at;
}

/* Map the whole file read-only (after read_header: complete, and exactly
 * the size its header says), for blocks used in place, each block on a
 * boundary of its size (of 64 KiB if smaller: see aligned_spot); budget:
 * opts.map_budget (mapbudget.c). */
static sht_err map_file(struct sht_reader *r, size_t budget)
{
	size_t len, align = r->hd.block_size > 65536 ? r->hd.block_size : 65536;
	void *p, *at;

	if (r->size > SIZE_MAX - 2 * (uint64_t)align)
		return sht__error(SHT_ERR_NOMEM, "Cannot map history: path=%s is too big for the address space",
				  r->st.path);
	len = (size_t)r->size;
	at = aligned_spot(len, align);
	p = mmap(at, len, PROT_READ, MAP_SHARED | (at ? MAP_FIXED : 0), r->st.fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		if (at)
			munmap(at, len);
		return sht__error_sys(e == ENOMEM ? SHT_ERR_NOMEM : SHT_ERR_IO, e,
				      "Cannot map history: path=%s: %s",
				      r->st.path, strerror(e));
	}
	r->st.map = p;
	r->st.map_len = (size_t)r->size;
	if (budget) {
		sht_err err = sht__map_budget_init(&r->st, budget, (uint32_t)align);

		if (err != SHT_OK)
			return err;
	}
	return sht__cache_create_mapped(r->hd.block_count, &r->st.cache);
}

static sht_err open_file(struct sht_reader *r, const char *path,
			 const sht_reader_opts *opts)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	sht_err err;

	if (fd < 0)
		return sht__error_sys(SHT_ERR_IO, errno, "Cannot open history: path=%s: %s",
				      path, strerror(errno));
	r->st.fd = fd;
	if (fstat(fd, &sb) != 0)
		return sht__error_sys(SHT_ERR_IO, errno, "Cannot stat history: path=%s: %s",
				      path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return sht__error(SHT_ERR_IO, "Cannot open history: path=%s is not a regular file",
				  path);
	r->size = (uint64_t)sb.st_size;
	err = read_header(r, r->size);
	if (err != SHT_OK)
		return err;
	r->st.geom.block_size = r->hd.block_size;
	r->st.geom.max_children = r->hd.max_children;
	r->st.geom.variant = r->hd.variant;
	atomic_store(&r->st.block_count, r->hd.block_count);
	r->st.verified = calloc(r->hd.block_count / 64 + 1, sizeof *r->st.verified);
	if (!r->st.verified)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate reader");
	if (opts && opts->mapped)
		err = map_file(r, opts->map_budget);
	else
		err = sht__cache_create(opts && opts->cache_bytes ? opts->cache_bytes
								  : DEFAULT_CACHE,
					r->hd.block_size, &r->st.cache);
	return err == SHT_OK ? check_root(r) : err;
}

void sht_reader_opts_init(sht_reader_opts *opts)
{
	opts->cache_bytes = DEFAULT_CACHE;
	opts->mapped = false;
	opts->map_budget = 0;
}

sht_err sht_reader_open(const char *path, const sht_reader_opts *opts,
			sht_reader **out)
{
	struct sht_reader *r = calloc(1, sizeof *r);
	sht_err err;

	if (!r)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate reader");
	r->st.fd = -1;
	snprintf(r->st.path, sizeof r->st.path, "%s", path);
	err = open_file(r, path, opts);
	if (err != SHT_OK) {
		sht_reader_close(r);
		return err;
	}
	*out = r;
	return SHT_OK;
}

void sht_reader_close(sht_reader *r)
{
	if (!r)
		return;
	if (r->st.fd >= 0)
		close(r->st.fd);
	sht__cache_destroy(r->st.cache);
	if (r->st.map)
		munmap((void *)(uintptr_t)r->st.map, r->st.map_len);
	sht__map_budget_free(&r->st);
	free((void *)(uintptr_t)r->st.verified);
	free(r);
}

void sht_reader_info_get(const sht_reader *r, sht_tree_info *out)
{
	out->variant = r->hd.variant;
	out->format_version = r->hd.version;
	out->block_size = r->hd.block_size;
	out->max_children = r->hd.max_children;
	out->depth = r->hd.depth;
	out->nodes = r->hd.nodes;
	out->blocks = r->hd.block_count;
	out->intervals = r->hd.intervals;
	out->quark_count = r->hd.quark_count;
	out->start = r->hd.start;
	out->end = r->hd.end;
	out->file_bytes = r->size;
}

void sht_reader_counters_get(const sht_reader *r, sht_reader_counters *out)
{
	out->node_visits = atomic_load(&r->st.visits);
	out->cache_misses = atomic_load(&r->st.misses);
	out->bytes_read = atomic_load(&r->st.bytes_read);
}

void sht_reader_drop_caches(sht_reader *r)
{
	sht__cache_drop(r->st.cache);
	for (uint64_t i = 0; i <= r->hd.block_count / 64; i++)   /* checksums too */
		atomic_store_explicit(&r->st.verified[i], 0, memory_order_relaxed);
	sht_reader_release_pages(r);   /* mapped pages first: then they can go */
#ifdef POSIX_FADV_DONTNEED
	posix_fadvise(r->st.fd, 0, 0, POSIX_FADV_DONTNEED);
#endif
}

void sht_reader_release_pages(sht_reader *r)
{
	/* Clean shared file pages: the process's mappings go, the page cache
	 * keeps them; the next touch maps them again (a minor fault).  The
	 * budget's counts first (mapbudget.c: they may err high, not low). */
	if (r->st.touched)
		sht__map_forget(&r->st);
	if (r->st.map)
		madvise((void *)(uintptr_t)r->st.map, r->st.map_len, MADV_DONTNEED);
}

bool sht_reader_mapped(const sht_reader *r)
{
	return r->st.map != NULL;
}

sht_err sht_reader_section(sht_reader *r, uint32_t kind, uint32_t *version,
			   void **data, size_t *len)
{
	for (uint32_t i = 0; i < r->hd.nsections; i++) {
		const struct sht__section *s = &r->hd.sections[i];
		uint8_t *buf;
		sht_err err;

		if (s->kind != kind)
			continue;
		err = sht__blob_load(&r->st, SHT__KIND_SECTION, s->first, s->length, &buf);
		if (err != SHT_OK)
			return err;
		if (sht__crc32c(0, buf + SHT__BLOB_HDR, s->length) != s->crc) {
			free(buf);
			return sht__error(SHT_ERR_CORRUPT, "Cannot read section: kind=%u checksum differs from the header",
					  kind);
		}
		memmove(buf, buf + SHT__BLOB_HDR, s->length);
		*data = buf;
		if (len)
			*len = s->length;
		if (version)
			*version = s->version;
		return SHT_OK;
	}
	return SHT_NOT_FOUND;
}

/* ---- query entry points ------------------------------------------------- */

void sht__reader_root(sht_reader *r, struct sht__root *rt)
{
	rt->st = &r->st;
	rt->disk_root = r->hd.root;
	rt->branch = NULL;
	rt->depth = r->hd.depth;
	rt->quark_count = r->hd.quark_count;
	rt->intervals = r->hd.intervals;
}

/* With the builder's lock held. */
static void builder_root(sht_builder *b, struct sht__root *rt)
{
	rt->st = &b->st;
	rt->disk_root = b->root_entry.block;
	rt->branch = b->finished ? NULL : b->branch;
	rt->depth = b->depth;
	rt->quark_count = b->any ? (uint64_t)b->quark_max + 1 : 0;
	rt->intervals = b->intervals;
}

sht_err sht_reader_query(sht_reader *r, sht_quark q, sht_time t, sht_result *res)
{
	struct sht__root rt;

	sht__reader_root(r, &rt);
	return sht__q_single(&rt, q, t, res);
}

sht_err sht_reader_query_full(sht_reader *r, sht_time t, sht_result *res)
{
	struct sht__root rt;

	sht__reader_root(r, &rt);
	return sht__q_full(&rt, t, res);
}

sht_err sht_reader_query_2d(sht_reader *r, const sht_query2d *q, sht_result *res)
{
	struct sht__root rt;

	sht__reader_root(r, &rt);
	return sht__q_2d(&rt, q, res);
}

sht_err sht_reader_cursor_create(sht_reader *r, const sht_query2d *q, sht_cursor **out)
{
	struct sht__root rt;

	sht__reader_root(r, &rt);
	return sht__cursor_open(&rt, q, out);
}

/* With the lock held: the builder can answer (threaded: everything
 * accepted so far is placed and on disk first). */
static sht_err builder_state(sht_builder *b)
{
	sht_err err = SHT_OK;

	if (!b->failed && b->pipe && !b->finished)
		err = sht__pipe_drain(b);
	if (b->failed)
		return sht__error(SHT_ERR_STATE, "Cannot query: builder failed");
	return err;
}

sht_err sht_builder_query(sht_builder *b, sht_quark q, sht_time t, sht_result *res)
{
	struct sht__root rt;
	sht_err err;

	pthread_mutex_lock(&b->lock);
	err = builder_state(b);
	builder_root(b, &rt);
	if (err == SHT_OK)
		err = sht__q_single(&rt, q, t, res);
	pthread_mutex_unlock(&b->lock);
	return err;
}

sht_err sht_builder_query_full(sht_builder *b, sht_time t, sht_result *res)
{
	struct sht__root rt;
	sht_err err;

	pthread_mutex_lock(&b->lock);
	err = builder_state(b);
	builder_root(b, &rt);
	if (err == SHT_OK)
		err = sht__q_full(&rt, t, res);
	pthread_mutex_unlock(&b->lock);
	return err;
}

sht_err sht_builder_query_2d(sht_builder *b, const sht_query2d *q, sht_result *res)
{
	struct sht__root rt;
	sht_err err;

	pthread_mutex_lock(&b->lock);
	err = builder_state(b);
	builder_root(b, &rt);
	if (err == SHT_OK)
		err = sht__q_2d(&rt, q, res);
	pthread_mutex_unlock(&b->lock);
	return err;
}
