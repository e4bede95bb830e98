/*
 * vstf.c: the VSTF reader (sht/vstf.h; layout and checks in
 * docs/VSTF.md).  The file is mapped; open checks the trailer, the header
 * and the tables; each index block's checksum is verified when the reader
 * enters it; every length, id and varint is bounds-checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/vstf.h"
#include "util/util.h"
#include "vstf-int.h"

struct vfield {
	uint64_t key;             /* field name id */
	sht_field v;
	size_t soff;              /* string: offset in the scratch buffer */
};

struct ventry {
	uint64_t offset;
	int64_t base;
	uint32_t crc;
};

struct env_entry {
	char *name;
	sht_field v;              /* strings owned */
};

struct sht_vstf {
	char *path;
	const uint8_t *map;
	uint64_t size;
	uint64_t count, events_off, tables_off;
	uint64_t every, n_index;
	struct ventry *index;
	uint8_t *verified;        /* per block */
	char **evnames, **fnames;
	uint64_t n_evnames, n_fnames;
	char *names_arena;
	struct env_entry *env;
	uint64_t n_env;
	uint32_t version;

	/* cursor */
	uint64_t released;        /* mapped pages before it were dropped */
	uint64_t block_start;     /* offset of the current index block */
	uint64_t p;               /* offset of the next event */
	uint64_t ordinal;         /* of the next event */
	uint64_t block_end;
	sht_time prev_ts;
	uint64_t delivered;
	sht_err failed;

	/* the current event's fields */
	struct vfield *fields;
	uint64_t n_fields, cap_fields;
	char *scratch;
	size_t scratch_n, scratch_cap;
};

static sht_err vstf_next(void *src, sht_event *ev);
static sht_err vstf_seek(void *src, uint64_t pos);
static void vstf_stats(void *src, sht_source_stats *out);

static const sht_source_ops vstf_ops = { vstf_next, vstf_seek, vstf_stats,
					   NULL, NULL };

/* ---- decoding ------------------------------------------------------------ */

struct cur {
	const uint8_t *p, *end;
};

static int get_varint(struct cur *c, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10; i++) {
		uint8_t b;

		if (c->p >= c->end)
			return -1;
		b = *c->p++;
		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int get_bytes(struct cur *c, uint64_t n, const uint8_t **out)
{
	if (n > (uint64_t)(c->end - c->p))
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

/* A string's bytes, up to their first NUL (len is the kept length). */
static int get_string(struct cur *c, const uint8_t **s, size_t *len)
{
	uint64_t n;
	const uint8_t *nul;

	if (get_varint(c, &n) || get_bytes(c, n, s))
		return -1;
	nul = n ? memchr(*s, 0, (size_t)n) : NULL;
	*len = nul ? (size_t)(nul - *s) : (size_t)n;
	return 0;
}

static char *dup_bytes(const uint8_t *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* A value; strings as (s, len) in *s / *slen, v->v.s left NULL. */
static int get_value(struct cur *c, sht_field *v, const uint8_t **s,
		     size_t *slen)
{
	uint8_t t;
	uint64_t u;
	const uint8_t *b;

	if (c->p >= c->end)
		return -1;
	t = *c->p++;
	v->v.u = 0;
	switch (t) {
	case SHT_FIELD_INT:
		if (get_varint(c, &u))
			return -1;
		v->type = SHT_FIELD_INT;
		v->v.i = vstf_unzigzag(u);
		return 0;
	case SHT_FIELD_UINT:
		v->type = SHT_FIELD_UINT;
		return get_varint(c, &v->v.u);
	case SHT_FIELD_DOUBLE:
		if (get_bytes(c, 8, &b))
			return -1;
		u = sht__get_u64(b);
		v->type = SHT_FIELD_DOUBLE;
		memcpy(&v->v.d, &u, 8);
		return 0;
	case SHT_FIELD_STRING:
		v->type = SHT_FIELD_STRING;
		v->v.s = NULL;
		return get_string(c, s, slen);
	case SHT_FIELD_OTHER:
		v->type = SHT_FIELD_OTHER;
		return 0;
	default:
		return -1;
	}
}

/* ---- open ------------------------------------------------------------------ */

static sht_err bad(const char *path, sht_err err, const char *what)
{
	return sht__error(err, "Cannot read VSTF file: path=%s: %s", path,
			  what);
}

static void vstf_free(struct sht_vstf *r)
{
	if (!r)
		return;
	if (r->map)
		munmap((void *)(uintptr_t)r->map, (size_t)r->size);
	for (uint64_t i = 0; i < r->n_env; i++) {
		free(r->env[i].name);
		if (r->env[i].v.type == SHT_FIELD_STRING)
			free((char *)(uintptr_t)r->env[i].v.v.s);
	}
	free(r->env);
	free(r->index);
	free(r->verified);
	free(r->evnames);
	free(r->fnames);
	free(r->names_arena);
	free(r->fields);
	free(r->scratch);
	free(r->path);
	free(r);
}

/* Read a name table into names (pointers into the arena at *arena_off). */
static int read_names(struct cur *c, uint64_t *n_out, char ***out,
		      char *arena, size_t *arena_off)
{
	uint64_t n;
	char **names;

	if (get_varint(c, &n) || n > (uint64_t)(c->end - c->p))
		return -1;          /* each name takes at least one byte */
	names = calloc(n ? n : 1, sizeof *names);
	if (!names)
		return -2;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *s;
		size_t len;

		if (get_string(c, &s, &len)) {
			free(names);
			return -1;
		}
		memcpy(arena + *arena_off, s, len);
		arena[*arena_off + len] = '\0';
		names[i] = arena + *arena_off;
		*arena_off += len + 1;
	}
	*n_out = n;
	*out = names;
	return 0;
}

static sht_err parse(struct sht_vstf *r)
{
	const uint8_t *m = r->map, *tr;
	struct cur c;
	uint64_t n;
	size_t arena_off = 0;
	int rc;

	if (r->size < VSTF_HEADER_FIXED + 1 + VSTF_TRAILER) {
		if (r->size >= 4 && sht__get_u32(m) != VSTF_MAGIC)
			return bad(r->path, SHT_ERR_CORRUPT,
				   "not a VSTF file (bad magic)");
		return bad(r->path, SHT_ERR_INCOMPLETE,
			   "file too short: truncated or never finished");
	}
	if (sht__get_u32(m) != VSTF_MAGIC)
		return bad(r->path, SHT_ERR_CORRUPT,
			   "not a VSTF file (bad magic)");
	r->version = sht__get_u32(m + 4);
	if (r->version > SHT_VSTF_VERSION)
		return bad(r->path, SHT_ERR_VERSION,
			   "VSTF version newer than this library's (2)");
	if (r->version != SHT_VSTF_VERSION)
		return bad(r->path, SHT_ERR_CORRUPT,
			   "VSTF version 1 (the thesis's, without names) "
			   "is not supported");
	if (m[8] != 0)
		return bad(r->path, SHT_ERR_CORRUPT, "header: no zero byte");
	tr = m + r->size - VSTF_TRAILER;
	if (sht__get_u32(tr + 36) != VSTF_END_MAGIC)
		return bad(r->path, SHT_ERR_INCOMPLETE,
			   "no trailer: truncated or never finished");
	if (sht__crc32c(0, tr, 32) != sht__get_u32(tr + 32))
		return bad(r->path, SHT_ERR_CORRUPT, "trailer checksum mismatch");
	r->count = sht__get_u64(tr);
	r->events_off = sht__get_u64(tr + 8);
	r->tables_off = sht__get_u64(tr + 16);
	if (r->events_off < VSTF_HEADER_FIXED + 1 ||
	    r->events_off > r->tables_off ||
	    r->tables_off > r->size - VSTF_TRAILER ||
	    r->count > r->tables_off - r->events_off)
		return bad(r->path, SHT_ERR_CORRUPT,
			   "trailer offsets outside the file");
	if (sht__crc32c(0, m, (size_t)r->events_off) != sht__get_u32(tr + 24))
		return bad(r->path, SHT_ERR_CORRUPT, "header checksum mismatch");
	if (sht__crc32c(0, m + r->tables_off,
			(size_t)(r->size - VSTF_TRAILER - r->tables_off)) !=
	    sht__get_u32(tr + 28))
		return bad(r->path, SHT_ERR_CORRUPT, "tables checksum mismatch");

	/* Header: environment. */
	c.p = m + VSTF_HEADER_FIXED;
	c.end = m + r->events_off;
	if (get_varint(&c, &n) || n > (uint64_t)(c.end - c.p) / 2)
		return bad(r->path, SHT_ERR_CORRUPT, "header: bad entry count");
	r->env = calloc(n ? n : 1, sizeof *r->env);
	if (!r->env)
		return bad(r->path, SHT_ERR_NOMEM, "out of memory");
	for (uint64_t i = 0; i < n; i++) {
		struct env_entry *e = &r->env[i];
		const uint8_t *s, *vs = NULL;
		size_t len, vlen = 0;

		if (get_string(&c, &s, &len) || get_value(&c, &e->v, &vs, &vlen))
			return bad(r->path, SHT_ERR_CORRUPT,
				   "header: bad environment entry");
		r->n_env = i + 1;
		if (!(e->name = dup_bytes(s, len)) ||
		    (e->v.type == SHT_FIELD_STRING &&
		     !(e->v.v.s = dup_bytes(vs, vlen))))
			return bad(r->path, SHT_ERR_NOMEM, "out of memory");
	}
	if (c.p != c.end)
		return bad(r->path, SHT_ERR_CORRUPT,
			   "header: bytes after the environment");

	/* Tables. */
	c.p = m + r->tables_off;
	c.end = m + r->size - VSTF_TRAILER;
	r->names_arena = malloc((size_t)(c.end - c.p) + 1);
	if (!r->names_arena)
		return bad(r->path, SHT_ERR_NOMEM, "out of memory");
	rc = read_names(&c, &r->n_evnames, &r->evnames, r->names_arena,
			&arena_off);
	if (rc == 0)
		rc = read_names(&c, &r->n_fnames, &r->fnames, r->names_arena,
				&arena_off);
	if (rc == -2)
		return bad(r->path, SHT_ERR_NOMEM, "out of memory");
	if (rc)
		return bad(r->path, SHT_ERR_CORRUPT, "tables: bad name table");
	if (get_varint(&c, &r->every) || r->every == 0 ||
	    get_varint(&c, &r->n_index) ||
	    r->n_index != r->count / r->every + (r->count % r->every != 0) ||
	    r->n_index != (uint64_t)(c.end - c.p) / VSTF_INDEX_ENTRY ||
	    (uint64_t)(c.end - c.p) % VSTF_INDEX_ENTRY)
		return bad(r->path, SHT_ERR_CORRUPT, "tables: bad index");
	r->index = calloc(r->n_index ? r->n_index : 1, sizeof *r->index);
	r->verified = calloc(r->n_index ? r->n_index : 1, 1);
	if (!r->index || !r->verified)
		return bad(r->path, SHT_ERR_NOMEM, "out of memory");
	for (uint64_t i = 0; i < r->n_index; i++) {
		const uint8_t *e = c.p + i * VSTF_INDEX_ENTRY;
		uint64_t off = sht__get_u64(e);
		uint64_t prev = i ? r->index[i - 1].offset : r->events_off;

		if ((i == 0 && off != r->events_off) ||
		    (i > 0 && off <= prev) || off >= r->tables_off ||
		    sht__get_u64(e + 20) != i * r->every)
			return bad(r->path, SHT_ERR_CORRUPT,
				   "tables: bad index entry");
		r->index[i].offset = off;
		r->index[i].base = (int64_t)sht__get_u64(e + 8);
		r->index[i].crc = sht__get_u32(e + 16);
	}
	if (r->count == 0 && r->tables_off != r->events_off)
		return bad(r->path, SHT_ERR_CORRUPT, "events without a count");
	return SHT_OK;
}

sht_err sht_vstf_open(const char *path, sht_source *out)
{
	struct sht_vstf *r;
	struct stat st;
	sht_err err;
	void *map;
	int fd;

	if (!path || !out)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot open VSTF file: no path");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sht__error(SHT_ERR_IO, "Cannot open VSTF file: path=%s: "
				  "%s", path, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		err = sht__error(SHT_ERR_IO, "Cannot open VSTF file: path=%s: "
				 "%s", path, S_ISDIR(st.st_mode) ?
				 "is a directory" : strerror(errno));
		close(fd);
		return err;
	}
	r = calloc(1, sizeof *r);
	if (!r || !(r->path = strdup(path))) {
		free(r);
		close(fd);
		return sht__error(SHT_ERR_NOMEM,
				  "Cannot open VSTF file: out of memory");
	}
	r->size = (uint64_t)st.st_size;
	if (r->size == 0) {
		close(fd);
		vstf_free(r);
		return bad(path, SHT_ERR_INCOMPLETE, "empty file");
	}
	map = mmap(NULL, (size_t)r->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		err = bad(path, SHT_ERR_IO, strerror(errno));
		r->map = NULL;
		vstf_free(r);
		return err;
	}
	r->map = map;
	(void)madvise(map, (size_t)r->size, MADV_SEQUENTIAL);
	err = parse(r);
	if (err != SHT_OK) {
		vstf_free(r);
		return err;
	}
	/* parse checked the tables and copied what it keeps of them (names,
	 * index, environment): their pages leave the RSS (~1.7 MB on a 2 GB
	 * file, per open source). */
	{
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t lo = (r->tables_off + page - 1) / page * page;

		if (lo < r->size)
			(void)madvise((void *)(uintptr_t)(r->map + lo),
				      (size_t)(r->size - lo), MADV_DONTNEED);
	}
	r->p = r->events_off;
	out->ops = &vstf_ops;
	out->src = r;
	return SHT_OK;
}

void sht_vstf_close(sht_source *src)
{
	if (!src || src->ops != &vstf_ops)
		return;
	vstf_free(src->src);
	src->ops = NULL;
	src->src = NULL;
}

/* ---- events ---------------------------------------------------------------- */

static sht_err r_corrupt(struct sht_vstf *r, const char *what)
{
	r->failed = SHT_ERR_CORRUPT;
	return sht__error(SHT_ERR_CORRUPT, "Cannot read VSTF file: path=%s: "
			  "event %llu: %s", r->path,
			  (unsigned long long)r->ordinal, what);
}

static sht_err r_failed(const struct sht_vstf *r)
{
	return sht__error(SHT_ERR_STATE, "Cannot use VSTF source: path=%s: "
			  "it failed earlier (%s)", r->path,
			  sht_strerror(r->failed));
}

/* Pages dropped at a time behind a sequential read. */
#define VSTF_RELEASE_STEP ((uint64_t)16 << 20)

/*
 * A sequential read drops the mapped pages it has passed, a few MiB at a
 * time, so that reading a file of any size keeps a few MiB of it
 * resident instead of all of it (the page cache keeps what it wants;
 * a seek back reads the pages again).
 */
static void release_before(struct sht_vstf *r, uint64_t offset)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t end = offset / page * page;

	if (end < r->released) {          /* a seek back */
		r->released = end;
		return;
	}
	if (end - r->released < VSTF_RELEASE_STEP)
		return;
	(void)madvise((void *)(uintptr_t)(r->map + r->released),
		      (size_t)(end - r->released), MADV_DONTNEED);
	r->released = end;
}

/*
 * A seek to another index block drops the mapped pages of the block it
 * leaves (its first entry checksummed all of them): random seeks, such as
 * the pages of a server's events table at random places, then keep one
 * block mapped, not every block they visited (~300 KiB each with the
 * default index).  A seek back to that block maps it again.  The range
 * given back is rounded out to the 64 KiB windows the kernel maps around
 * a fault ("fault-around"), which hold pages of the neighbouring blocks.
 */
#define VSTF_FAULT_WINDOW ((uintptr_t)64 << 10)

static void release_block(struct sht_vstf *r)
{
	uintptr_t base = (uintptr_t)r->map, end = base + (uintptr_t)r->size;
	uintptr_t lo = (base + (uintptr_t)r->block_start) & ~(VSTF_FAULT_WINDOW - 1);
	uintptr_t hi = (base + (uintptr_t)r->block_end + VSTF_FAULT_WINDOW - 1) &
		       ~(VSTF_FAULT_WINDOW - 1);

	if (r->block_end <= r->block_start)
		return;
	if (lo < base)                    /* windows of the map's own pages */
		lo = base;
	if (hi > end)
		hi = end;
	if (hi > lo)
		(void)madvise((void *)lo, (size_t)(hi - lo), MADV_DONTNEED);
}

/* Position on index block b (verifying its checksum once). */
static sht_err enter_block(struct sht_vstf *r, uint64_t b)
{
	const struct ventry *e = &r->index[b];

	release_before(r, e->offset);
	r->block_start = e->offset;
	r->block_end = b + 1 < r->n_index ? r->index[b + 1].offset
					  : r->tables_off;
	if (!r->verified[b]) {
		if (sht__crc32c(0, r->map + e->offset,
				(size_t)(r->block_end - e->offset)) != e->crc)
			return r_corrupt(r, "index block checksum mismatch");
		r->verified[b] = 1;
	}
	r->p = e->offset;
	r->ordinal = b * r->every;
	r->prev_ts = e->base;
	return SHT_OK;
}

static sht_field_type vstf_field(const sht_event *ev, const char *name,
				 sht_field *out);

/* Decode the event at r->p (fill ev if non-NULL). */
static sht_err decode(struct sht_vstf *r, sht_event *ev)
{
	struct cur c;
	uint64_t d, cpu, name, nf;
	sht_err err;

	if (r->ordinal % r->every == 0 &&
	    (err = enter_block(r, r->ordinal / r->every)) != SHT_OK)
		return err;
	c.p = r->map + r->p;
	c.end = r->map + r->block_end;
	if (get_varint(&c, &d) || get_varint(&c, &cpu) ||
	    get_varint(&c, &name) || get_varint(&c, &nf))
		return r_corrupt(r, "truncated event header");
	if (name >= r->n_evnames)
		return r_corrupt(r, "event name id out of range");
	if (cpu > (uint64_t)INT32_MAX + 1)
		return r_corrupt(r, "CPU out of range");
	if (nf > (uint64_t)(c.end - c.p) / 2)
		return r_corrupt(r, "field count larger than the event");
	if (nf > r->cap_fields) {
		uint64_t cap = r->cap_fields ? r->cap_fields : 16;
		struct vfield *nfs;

		while (cap < nf)
			cap *= 2;
		nfs = realloc(r->fields, (size_t)cap * sizeof *nfs);
		if (!nfs) {
			r->failed = SHT_ERR_NOMEM;
			return sht__error(SHT_ERR_NOMEM, "Cannot read VSTF "
					  "file: out of memory");
		}
		r->fields = nfs;
		r->cap_fields = cap;
	}
	r->scratch_n = 0;
	for (uint64_t i = 0; i < nf; i++) {
		struct vfield *f = &r->fields[i];
		const uint8_t *s = NULL;
		size_t len = 0;

		if (get_varint(&c, &f->key) || f->key >= r->n_fnames ||
		    get_value(&c, &f->v, &s, &len))
			return r_corrupt(r, "bad field");
		if (f->v.type == SHT_FIELD_STRING && ev) {
			if (r->scratch_cap - r->scratch_n < len + 1) {
				size_t cap = r->scratch_cap ? r->scratch_cap
							    : 256;
				char *ns;

				while (cap - r->scratch_n < len + 1)
					cap *= 2;
				ns = realloc(r->scratch, cap);
				if (!ns) {
					r->failed = SHT_ERR_NOMEM;
					return sht__error(SHT_ERR_NOMEM,
						"Cannot read VSTF file: out "
						"of memory");
				}
				r->scratch = ns;
				r->scratch_cap = cap;
			}
			if (len)
				memcpy(r->scratch + r->scratch_n, s, len);
			r->scratch[r->scratch_n + len] = '\0';
			f->soff = r->scratch_n;
			r->scratch_n += len + 1;
		}
	}
	if (c.p >= c.end || *c.p != 0)
		return r_corrupt(r, "no zero byte at the end of the event");
	c.p++;
	if ((r->ordinal + 1 == r->count || (r->ordinal + 1) % r->every == 0) &&
	    c.p != c.end)
		return r_corrupt(r, "index block does not end after its "
				 "last event");
	r->prev_ts = (sht_time)((uint64_t)r->prev_ts +
				(uint64_t)vstf_unzigzag(d));
	r->p = (uint64_t)(c.p - r->map);
	r->n_fields = nf;
	if (ev) {
		for (uint64_t i = 0; i < nf; i++)
			if (r->fields[i].v.type == SHT_FIELD_STRING)
				r->fields[i].v.v.s =
					r->scratch + r->fields[i].soff;
		ev->ts = r->prev_ts;
		ev->pos = r->ordinal;
		ev->name = r->evnames[name];
		ev->cpu = (int32_t)((int64_t)cpu - 1);
		ev->data = r;
		ev->field = vstf_field;
	} else {
		r->n_fields = 0;
	}
	r->ordinal++;
	return SHT_OK;
}

static sht_err vstf_next(void *src, sht_event *ev)
{
	struct sht_vstf *r = src;
	sht_err err;

	if (r->failed)
		return r_failed(r);
	if (r->ordinal >= r->count)
		return SHT_END;
	err = decode(r, ev);
	if (err == SHT_OK)
		r->delivered++;
	return err;
}

static sht_err vstf_seek(void *src, uint64_t pos)
{
	struct sht_vstf *r = src;
	sht_err err;

	if (r->failed)
		return r_failed(r);
	if (pos > r->count)
		return sht__error(SHT_ERR_RANGE, "Cannot seek VSTF file: "
				  "path=%s: position %llu past the end (%llu "
				  "events)", r->path, (unsigned long long)pos,
				  (unsigned long long)r->count);
	r->n_fields = 0;
	if (pos == r->count) {
		r->ordinal = r->count;
		r->p = r->tables_off;
		return SHT_OK;
	}
	/* Forward within the current block: read on. */
	if (!(pos >= r->ordinal && pos / r->every == r->ordinal / r->every &&
	      r->ordinal % r->every != 0)) {
		if (r->index[pos / r->every].offset != r->block_start)
			release_block(r);
		if ((err = enter_block(r, pos / r->every)) != SHT_OK)
			return err;
	}
	while (r->ordinal < pos)
		if ((err = decode(r, NULL)) != SHT_OK)
			return err;
	return SHT_OK;
}

static void vstf_stats(void *src, sht_source_stats *out)
{
	const struct sht_vstf *r = src;

	memset(out, 0, sizeof *out);
	out->events = r->delivered;
}

static sht_field_type vstf_field(const sht_event *ev, const char *name,
				 sht_field *out)
{
	const struct sht_vstf *r = ev->data;

	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	if (!r || !name || ev->pos + 1 != r->ordinal)
		return SHT_FIELD_NONE;
	for (uint64_t i = 0; i < r->n_fields; i++) {
		const struct vfield *f = &r->fields[i];

		if (strcmp(r->fnames[f->key], name) == 0) {
			*out = f->v;
			return out->type;
		}
	}
	return SHT_FIELD_NONE;
}

sht_err sht_vstf_event_fields(const sht_event *ev, sht_field_fn fn, void *ctx)
{
	const struct sht_vstf *r;

	if (!ev || !fn || ev->field != vstf_field || !ev->data)
		return sht__error(SHT_ERR_INVALID, "Cannot enumerate fields: "
				  "not a VSTF event");
	r = ev->data;
	if (ev->pos + 1 != r->ordinal)
		return sht__error(SHT_ERR_INVALID, "Cannot enumerate fields: "
				  "not the VSTF source's current event");
	for (uint64_t i = 0; i < r->n_fields; i++) {
		sht_err err = fn(ctx, r->fnames[r->fields[i].key],
				 &r->fields[i].v);

		if (err < 0)
			return err;
	}
	return SHT_OK;
}

/* ---- environment and info --------------------------------------------------- */

static struct sht_vstf *as_vstf(const sht_source *src)
{
	return src && src->ops == &vstf_ops ? src->src : NULL;
}

sht_err sht_vstf_env_entry(const sht_source *src, uint64_t index,
			   const char **name, sht_field *out)
{
	struct sht_vstf *r = as_vstf(src);

	if (!r || !name || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot read VSTF "
				  "environment: not a VSTF source");
	if (index >= r->n_env) {
		*name = NULL;
		out->type = SHT_FIELD_NONE;
		out->v.u = 0;
		return SHT_NOT_FOUND;
	}
	*name = r->env[index].name;
	*out = r->env[index].v;
	return SHT_OK;
}

sht_err sht_vstf_env(const sht_source *src, const char *name, sht_field *out)
{
	struct sht_vstf *r = as_vstf(src);

	if (!r || !name || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot read VSTF "
				  "environment: not a VSTF source");
	for (uint64_t i = 0; i < r->n_env; i++)
		if (strcmp(r->env[i].name, name) == 0) {
			*out = r->env[i].v;
			return SHT_OK;
		}
	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	return SHT_NOT_FOUND;
}

sht_err sht_vstf_info_get(const sht_source *src, sht_vstf_info *out)
{
	struct sht_vstf *r = as_vstf(src);

	if (!r || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot describe a VSTF "
				  "source: not a VSTF source");
	memset(out, 0, sizeof *out);
	out->events = r->count;
	out->bytes = r->size;
	out->version = r->version;
	out->index_every = r->every;
	out->index_entries = r->n_index;
	out->event_names = r->n_evnames;
	out->field_names = r->n_fnames;
	out->env_entries = r->n_env;
	return SHT_OK;
}
