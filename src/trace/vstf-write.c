/*
 * vstf-write.c: the VSTF writer (sht/vstf.h; layout in docs/VSTF.md).
 *
 * Events are encoded into a buffer and written through stdio; the
 * running offset and the CRC-32C of the current index block are kept as
 * bytes go out.  Names go into two hash tables (name -> id) and are
 * written once, in the tables after the events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/vstf.h"
#include "util/util.h"
#include "vstf-int.h"

/* ---- growable byte buffer ---------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static int buf_reserve(struct buf *b, size_t more)
{
	size_t cap;
	uint8_t *np;

	if (b->cap - b->n >= more)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap - b->n < more)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np)
		return -1;
	b->p = np;
	b->cap = cap;
	return 0;
}

static int buf_put(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return -1;
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int buf_varint(struct buf *b, uint64_t v)
{
	if (buf_reserve(b, 10))
		return -1;
	while (v >= 0x80) {
		b->p[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (uint8_t)v;
	return 0;
}

static int buf_svarint(struct buf *b, int64_t v)
{
	return buf_varint(b, vstf_zigzag(v));
}

static int buf_string(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (buf_varint(b, n))
		return -1;
	return buf_put(b, s, n);
}

/* Type byte and value (docs/VSTF.md "Values"). */
static int buf_value(struct buf *b, const sht_field *v)
{
	uint8_t t = (uint8_t)v->type;
	uint64_t bits;
	uint8_t d[8];

	if (v->type < SHT_FIELD_INT || v->type > SHT_FIELD_OTHER)
		t = SHT_FIELD_OTHER;
	if (buf_put(b, &t, 1))
		return -1;
	switch (t) {
	case SHT_FIELD_INT:
		return buf_svarint(b, v->v.i);
	case SHT_FIELD_UINT:
		return buf_varint(b, v->v.u);
	case SHT_FIELD_DOUBLE:
		memcpy(&bits, &v->v.d, 8);
		sht__put_u64(d, bits);
		return buf_put(b, d, 8);
	case SHT_FIELD_STRING:
		return buf_string(b, v->v.s);
	default:
		return 0;
	}
}

/* ---- name table --------------------------------------------------------- */

struct names {
	char **byid;              /* id -> name */
	uint64_t n, cap_byid;
	uint64_t *slots;          /* open addressing: id + 1, 0 empty */
	uint64_t nslots;          /* power of two */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211u;
	return h;
}

static int names_grow(struct names *t)
{
	uint64_t ns = t->nslots ? t->nslots * 2 : 64;
	uint64_t *slots = calloc(ns, sizeof *slots);

	if (!slots)
		return -1;
	for (uint64_t i = 0; i < t->n; i++) {
		uint64_t h = name_hash(t->byid[i]) & (ns - 1);

		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

/* Id of name, added if new; -1 if out of memory. */
static int64_t names_id(struct names *t, const char *name)
{
	uint64_t h;
	char *copy;

	if ((t->n + 1) * 2 > t->nslots && names_grow(t))
		return -1;
	h = name_hash(name) & (t->nslots - 1);
	while (t->slots[h]) {
		uint64_t id = t->slots[h] - 1;

		if (strcmp(t->byid[id], name) == 0)
			return (int64_t)id;
		h = (h + 1) & (t->nslots - 1);
	}
	if (t->n == t->cap_byid) {
		uint64_t cap = t->cap_byid ? t->cap_byid * 2 : 64;
		char **nb = realloc(t->byid, cap * sizeof *nb);

		if (!nb)
			return -1;
		t->byid = nb;
		t->cap_byid = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -1;
	t->byid[t->n] = copy;
	t->slots[h] = t->n + 1;
	return (int64_t)t->n++;
}

static void names_free(struct names *t)
{
	for (uint64_t i = 0; i < t->n; i++)
		free(t->byid[i]);
	free(t->byid);
	free(t->slots);
}

/* ---- writer ------------------------------------------------------------- */

struct index_entry {
	uint64_t offset;
	int64_t base;
	uint32_t crc;
};

struct sht_vstf_writer {
	char *path;
	FILE *f;
	sht_err failed;
	int finished;
	int header_done;
	int in_event;
	uint64_t index_every;

	uint64_t off;             /* bytes written */
	uint32_t header_crc;
	uint32_t block_crc;       /* of the current index block */

	struct buf env;           /* entries, until the header is written */
	uint64_t env_count;
	struct buf ev;            /* the event being built: its fields */
	uint64_t ev_fields;
	sht_time ev_ts;
	int32_t ev_cpu;
	uint64_t ev_name;
	struct buf out;           /* one encoded event */

	sht_time prev_ts;
	uint64_t events, fields;
	struct names evnames, fnames;
	struct index_entry *index;
	uint64_t n_index, cap_index;
};

static sht_err w_fail(sht_vstf_writer *w, sht_err err, const char *what)
{
	if (!w->failed)
		w->failed = err;
	return sht__error(err, "Cannot write VSTF file: path=%s: %s", w->path,
			  what);
}

static sht_err w_check(sht_vstf_writer *w)
{
	if (!w)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot write VSTF file: no writer");
	if (w->failed)
		return sht__error(SHT_ERR_STATE, "Cannot write VSTF file: "
				  "path=%s: the writer failed earlier (%s)",
				  w->path, sht_strerror(w->failed));
	if (w->finished)
		return sht__error(SHT_ERR_STATE, "Cannot write VSTF file: "
				  "path=%s: already finished", w->path);
	return SHT_OK;
}

static sht_err w_write(sht_vstf_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return w_fail(w, SHT_ERR_IO, strerror(errno));
	w->off += n;
	return SHT_OK;
}

static sht_err w_header(sht_vstf_writer *w)
{
	struct buf h = { 0 };
	uint8_t fixed[9];
	sht_err err;

	sht__put_u32(fixed, VSTF_MAGIC);
	sht__put_u32(fixed + 4, SHT_VSTF_VERSION);
	fixed[8] = 0;
	if (buf_put(&h, fixed, 9) || buf_varint(&h, w->env_count) ||
	    buf_put(&h, w->env.p, w->env.n)) {
		free(h.p);
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	}
	w->header_crc = sht__crc32c(0, h.p, h.n);
	err = w_write(w, h.p, h.n);
	free(h.p);
	w->header_done = 1;
	return err;
}

sht_err sht_vstf_writer_create(const char *path, uint32_t index_every,
			       sht_vstf_writer **out)
{
	sht_vstf_writer *w;

	if (!path || !out)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot create VSTF file: no path");
	*out = NULL;
	w = calloc(1, sizeof *w);
	if (!w || !(w->path = strdup(path))) {
		free(w);
		return sht__error(SHT_ERR_NOMEM,
				  "Cannot create VSTF file: out of memory");
	}
	w->index_every = index_every ? index_every : VSTF_INDEX_DEFAULT;
	w->f = fopen(path, "wb");
	if (!w->f) {
		sht_err err = sht__error(SHT_ERR_IO, "Cannot create VSTF file: "
					 "path=%s: %s", path, strerror(errno));
		free(w->path);
		free(w);
		return err;
	}
	setvbuf(w->f, NULL, _IOFBF, 1 << 20);
	*out = w;
	return SHT_OK;
}

sht_err sht_vstf_writer_env(sht_vstf_writer *w, const char *name,
			    const sht_field *value)
{
	sht_err err = w_check(w);

	if (err)
		return err;
	if (!name || !value)
		return sht__error(SHT_ERR_INVALID, "Cannot write VSTF "
				  "environment: no name or value");
	if (w->header_done)
		return sht__error(SHT_ERR_INVALID, "Cannot write VSTF "
				  "environment: path=%s: events already "
				  "written", w->path);
	if (buf_string(&w->env, name) || buf_value(&w->env, value))
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	w->env_count++;
	return SHT_OK;
}

sht_err sht_vstf_writer_begin(sht_vstf_writer *w, sht_time ts, int32_t cpu,
			      const char *name)
{
	sht_err err = w_check(w);
	int64_t id;

	if (err)
		return err;
	if (w->in_event)
		return sht__error(SHT_ERR_INVALID, "Cannot write VSTF event: "
				  "path=%s: the previous event is not ended",
				  w->path);
	if (!w->header_done && (err = w_header(w)) != SHT_OK)
		return err;
	id = names_id(&w->evnames, name ? name : "");
	if (id < 0)
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	w->ev_ts = ts;
	w->ev_cpu = cpu < 0 ? -1 : cpu;
	w->ev_name = (uint64_t)id;
	w->ev.n = 0;
	w->ev_fields = 0;
	w->in_event = 1;
	return SHT_OK;
}

sht_err sht_vstf_writer_field(void *wp, const char *name,
			      const sht_field *value)
{
	sht_vstf_writer *w = wp;
	sht_err err = w_check(w);
	int64_t id;

	if (err)
		return err;
	if (!w->in_event || !name || !value)
		return sht__error(SHT_ERR_INVALID, "Cannot write VSTF field: "
				  "path=%s: no event begun, or no name/value",
				  w->path);
	id = names_id(&w->fnames, name);
	if (id < 0 || buf_varint(&w->ev, (uint64_t)id) ||
	    buf_value(&w->ev, value))
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	w->ev_fields++;
	return SHT_OK;
}

/* Close the current index block (its CRC). */
static void w_close_block(sht_vstf_writer *w)
{
	if (w->n_index)
		w->index[w->n_index - 1].crc = w->block_crc;
}

sht_err sht_vstf_writer_end(sht_vstf_writer *w)
{
	sht_err err = w_check(w);
	uint8_t zero = 0;

	if (err)
		return err;
	if (!w->in_event)
		return sht__error(SHT_ERR_INVALID, "Cannot write VSTF event: "
				  "path=%s: no event begun", w->path);
	w->in_event = 0;
	if (w->events % w->index_every == 0) {
		if (w->n_index == w->cap_index) {
			uint64_t cap = w->cap_index ? w->cap_index * 2 : 64;
			struct index_entry *ni =
				realloc(w->index, cap * sizeof *ni);

			if (!ni)
				return w_fail(w, SHT_ERR_NOMEM, "out of memory");
			w->index = ni;
			w->cap_index = cap;
		}
		w_close_block(w);
		w->index[w->n_index].offset = w->off;
		w->index[w->n_index].base = w->prev_ts;
		w->index[w->n_index].crc = 0;
		w->n_index++;
		w->block_crc = 0;
	}
	w->out.n = 0;
	if (buf_svarint(&w->out, (int64_t)((uint64_t)w->ev_ts -
					   (uint64_t)w->prev_ts)) ||
	    buf_varint(&w->out, (uint64_t)((int64_t)w->ev_cpu + 1)) ||
	    buf_varint(&w->out, w->ev_name) ||
	    buf_varint(&w->out, w->ev_fields) ||
	    buf_put(&w->out, w->ev.p, w->ev.n) || buf_put(&w->out, &zero, 1))
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	w->block_crc = sht__crc32c(w->block_crc, w->out.p, w->out.n);
	if ((err = w_write(w, w->out.p, w->out.n)) != SHT_OK)
		return err;
	w->prev_ts = w->ev_ts;
	w->events++;
	w->fields += w->ev_fields;
	return SHT_OK;
}

sht_err sht_vstf_writer_finish(sht_vstf_writer *w,
			       sht_vstf_write_stats *stats)
{
	sht_err err = w_check(w);
	struct buf t = { 0 };
	uint8_t tr[VSTF_TRAILER], e[VSTF_INDEX_ENTRY];
	uint64_t events_off, tables_off;
	int bad = 0;

	if (err)
		return err;
	if (w->in_event)
		return sht__error(SHT_ERR_INVALID, "Cannot finish VSTF file: "
				  "path=%s: an event is not ended", w->path);
	if (!w->header_done && (err = w_header(w)) != SHT_OK)
		return err;
	w_close_block(w);
	events_off = w->n_index ? w->index[0].offset : w->off;
	tables_off = w->off;
	bad |= buf_varint(&t, w->evnames.n);
	for (uint64_t i = 0; i < w->evnames.n; i++)
		bad |= buf_string(&t, w->evnames.byid[i]);
	bad |= buf_varint(&t, w->fnames.n);
	for (uint64_t i = 0; i < w->fnames.n; i++)
		bad |= buf_string(&t, w->fnames.byid[i]);
	bad |= buf_varint(&t, w->index_every);
	bad |= buf_varint(&t, w->n_index);
	for (uint64_t i = 0; i < w->n_index; i++) {
		sht__put_u64(e, w->index[i].offset);
		sht__put_u64(e + 8, (uint64_t)w->index[i].base);
		sht__put_u32(e + 16, w->index[i].crc);
		sht__put_u64(e + 20, i * w->index_every);
		bad |= buf_put(&t, e, sizeof e);
	}
	if (bad) {
		free(t.p);
		return w_fail(w, SHT_ERR_NOMEM, "out of memory");
	}
	sht__put_u64(tr, w->events);
	sht__put_u64(tr + 8, events_off);
	sht__put_u64(tr + 16, tables_off);
	sht__put_u32(tr + 24, w->header_crc);
	sht__put_u32(tr + 28, sht__crc32c(0, t.p, t.n));
	sht__put_u32(tr + 32, sht__crc32c(0, tr, 32));
	sht__put_u32(tr + 36, VSTF_END_MAGIC);
	err = w_write(w, t.p, t.n);
	free(t.p);
	if (err == SHT_OK)
		err = w_write(w, tr, sizeof tr);
	if (err != SHT_OK)
		return err;
	if (fflush(w->f) != 0 || ferror(w->f))
		return w_fail(w, SHT_ERR_IO, strerror(errno));
	if (fclose(w->f) != 0) {
		w->f = NULL;
		return w_fail(w, SHT_ERR_IO, strerror(errno));
	}
	w->f = NULL;
	w->finished = 1;
	if (stats) {
		stats->events = w->events;
		stats->fields = w->fields;
		stats->bytes = w->off;
		stats->event_names = w->evnames.n;
		stats->field_names = w->fnames.n;
	}
	return SHT_OK;
}

void sht_vstf_writer_close(sht_vstf_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	if (!w->finished)
		unlink(w->path);
	names_free(&w->evnames);
	names_free(&w->fnames);
	free(w->env.p);
	free(w->ev.p);
	free(w->out.p);
	free(w->index);
	free(w->path);
	free(w);
}

void sht_vstf_write_opts_init(sht_vstf_write_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->index_every = VSTF_INDEX_DEFAULT;
}

sht_err sht_vstf_write(const sht_source *src, const char *path,
		       const sht_vstf_write_opts *opts,
		       sht_vstf_write_stats *stats)
{
	sht_vstf_write_opts def;
	sht_vstf_writer *w;
	sht_event ev;
	sht_err err;

	if (!src || !src->ops || !path)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot write VSTF file: no source or path");
	if (!opts) {
		sht_vstf_write_opts_init(&def);
		opts = &def;
	}
	err = sht_vstf_writer_create(path, opts->index_every, &w);
	if (err)
		return err;
	if (opts->env_entry) {
		for (uint64_t i = 0;; i++) {
			const char *name;
			sht_field v;

			err = opts->env_entry(src, i, &name, &v);
			if (err == SHT_NOT_FOUND) {
				err = SHT_OK;
				break;
			}
			if (err != SHT_OK) {
				if (err > 0)
					err = sht__error(SHT_ERR_INVALID,
						"Cannot write VSTF file: "
						"path=%s: bad environment "
						"status %d", path, (int)err);
				goto out;
			}
			if ((err = sht_vstf_writer_env(w, name, &v)) != SHT_OK)
				goto out;
		}
	}
	while ((err = src->ops->next(src->src, &ev)) == SHT_OK) {
		if ((err = sht_vstf_writer_begin(w, ev.ts, ev.cpu, ev.name)))
			goto out;
		if (opts->event_fields &&
		    (err = opts->event_fields(&ev, sht_vstf_writer_field, w)) < 0)
			goto out;
		if ((err = sht_vstf_writer_end(w)) != SHT_OK)
			goto out;
	}
	if (err != SHT_END)
		goto out;
	err = sht_vstf_writer_finish(w, stats);
out:
	sht_vstf_writer_close(w);
	return err < 0 ? err : SHT_OK;
}
