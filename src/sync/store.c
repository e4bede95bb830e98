/*
 * store.c: a synchronization result as a history section (kind
 * SHT_SYNC_SECTION, version 1; layout in docs/FORMAT.md §12), written by
 * sht_sync_store and read back by sht_sync_stored.
 *
 * Little-endian; a string is a u32 length and its bytes (no NUL):
 *
 *   u32 traces, u32 pairs, u32 quality, u32 zero
 *   u64 events, packets, matches, pending, peak_pending, hull_points
 *   per trace: u8 reference, u8 synced, u8 transform kind, u8 zero,
 *              str name, str host, str slope, str offset
 *   per pair:  u32 quality, u64 matches, u64 accurate, str reference,
 *              str other, str slope, str offset, str accuracy
 */
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"
#include "util/util.h"

enum { SECTION_VERSION = 1, MAX_STR = 1 << 20 };

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	int failed;
};

static uint8_t *wroom(struct wbuf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->failed)
		return NULL;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap * 2 : 256;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void w32(struct wbuf *b, uint32_t v)
{
	uint8_t *p = wroom(b, 4);

	if (p)
		sht__put_u32(p, v);
}

static void w64(struct wbuf *b, uint64_t v)
{
	uint8_t *p = wroom(b, 8);

	if (p)
		sht__put_u64(p, v);
}

static void w8(struct wbuf *b, uint8_t v)
{
	uint8_t *p = wroom(b, 1);

	if (p)
		*p = v;
}

static void wstr(struct wbuf *b, const char *s)
{
	size_t n = strlen(s);
	uint8_t *p;

	w32(b, (uint32_t)n);
	p = wroom(b, n);
	if (p)
		memcpy(p, s, n);
}

sht_err sht_sync_store(const sht_sync *s, sht_state *ss)
{
	struct wbuf b = { NULL, 0, 0, 0 };
	const sht_sync_stats *st = &s->st;
	sht_err err;

	w32(&b, (uint32_t)s->n);
	w32(&b, (uint32_t)s->npairs);
	w32(&b, (uint32_t)s->quality);
	w32(&b, 0);
	w64(&b, st->events);
	w64(&b, st->packets);
	w64(&b, st->matches);
	w64(&b, st->pending);
	w64(&b, st->peak_pending);
	w64(&b, st->hull_points);
	for (size_t i = 0; i < s->n; i++) {
		const struct sht__sync_trace *t = &s->tr[i];

		w8(&b, (uint8_t)t->reference);
		w8(&b, (uint8_t)t->synced);
		w8(&b, (uint8_t)t->t->kind);
		w8(&b, 0);
		wstr(&b, t->name);
		wstr(&b, t->host);
		wstr(&b, t->t->slope_s);
		wstr(&b, t->t->offset_s);
	}
	for (size_t k = 0; k < s->npairs; k++) {
		const struct sht__sync_pair *p = &s->pairs[k];

		w32(&b, (uint32_t)p->quality);
		w64(&b, p->matches);
		w64(&b, p->accurate);
		wstr(&b, p->reference);
		wstr(&b, p->other);
		wstr(&b, p->slope);
		wstr(&b, p->offset);
		wstr(&b, p->accuracy);
	}
	if (b.failed) {
		free(b.p);
		return sht__error(SHT_ERR_NOMEM, "Cannot store the "
				  "synchronization: out of memory");
	}
	err = sht_state_add_section(ss, SHT_SYNC_SECTION, SECTION_VERSION,
				    b.p, b.len);
	free(b.p);
	return err;
}

/* ---- reading back ------------------------------------------------------- */

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	int bad;
};

static const uint8_t *rtake(struct rbuf *b, size_t n)
{
	if (b->bad || n > b->len - b->off) {
		b->bad = 1;
		return NULL;
	}
	b->off += n;
	return b->p + b->off - n;
}

static uint32_t r32(struct rbuf *b)
{
	const uint8_t *p = rtake(b, 4);

	return p ? sht__get_u32(p) : 0;
}

static uint64_t r64(struct rbuf *b)
{
	const uint8_t *p = rtake(b, 8);

	return p ? sht__get_u64(p) : 0;
}

static uint8_t r8(struct rbuf *b)
{
	const uint8_t *p = rtake(b, 1);

	return p ? *p : 0;
}

/* A string (malloc'd; NULL if bad: too long, a NUL inside, cut). */
static char *rstr(struct rbuf *b)
{
	uint32_t n = r32(b);
	const uint8_t *p;
	char *s;

	if (n > MAX_STR)
		b->bad = 1;
	p = rtake(b, n);
	if (!p || memchr(p, 0, n))
		return b->bad = 1, NULL;
	s = malloc((size_t)n + 1);
	if (!s)
		return b->bad = 1, NULL;
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static int quality_ok(uint32_t q)
{
	return q <= SHT_SYNC_ACCURATE;
}

/* The transform of that kind from its texts, or NULL. */
static sht_transform *read_transform(uint8_t kind, const char *slope,
				     const char *offset)
{
	sht__dec a, o;
	sht_transform *t = NULL;

	if (kind > SHT__T_LINEAR || !slope || !offset)
		return NULL;
	sht__dec_init(&a);
	sht__dec_init(&o);
	if (sht__dec_parse(&a, slope) == 0 && sht__dec_parse(&o, offset) == 0 &&
	    sht__transform_make((enum sht__tkind)kind, &a, &o, &t) != SHT_OK)
		t = NULL;
	sht__dec_clear(&a);
	sht__dec_clear(&o);
	return t;
}

static int read_trace(struct rbuf *b, struct sht__sync_trace *t)
{
	uint8_t kind;
	char *slope, *offset;

	t->reference = r8(b) != 0;
	t->synced = r8(b) != 0;
	kind = r8(b);
	r8(b);
	t->name = rstr(b);
	t->host = rstr(b);
	slope = rstr(b);
	offset = rstr(b);
	if (!b->bad)
		t->t = read_transform(kind, slope, offset);
	free(slope);
	free(offset);
	return b->bad || !t->t ? -1 : 0;
}

static int read_pair(struct rbuf *b, struct sht__sync_pair *p)
{
	uint32_t q = r32(b);

	p->quality = (sht_sync_quality)q;
	p->matches = r64(b);
	p->accurate = r64(b);
	p->reference = rstr(b);
	p->other = rstr(b);
	p->slope = rstr(b);
	p->offset = rstr(b);
	p->accuracy = rstr(b);
	return b->bad || !quality_ok(q) ? -1 : 0;
}

static sht_err decode(const uint8_t *data, size_t len, sht_sync **out)
{
	struct rbuf b = { data, len, 0, 0 };
	uint32_t n = r32(&b), np = r32(&b), q = r32(&b);
	sht_sync *s;

	r32(&b);
	/* Every trace takes at least 20 bytes, every pair 40. */
	if (b.bad || n > len / 20 || np > len / 40 || !quality_ok(q))
		return SHT_ERR_CORRUPT;
	s = sht__sync_alloc(n, np);
	if (!s)
		return SHT_ERR_NOMEM;
	s->quality = (sht_sync_quality)q;
	s->st.events = r64(&b);
	s->st.packets = r64(&b);
	s->st.matches = r64(&b);
	s->st.pending = r64(&b);
	s->st.peak_pending = r64(&b);
	s->st.hull_points = r64(&b);
	for (uint32_t i = 0; i < n && !b.bad; i++)
		if (read_trace(&b, &s->tr[i]) != 0)
			b.bad = 1;
	for (uint32_t k = 0; k < np && !b.bad; k++)
		if (read_pair(&b, &s->pairs[k]) != 0)
			b.bad = 1;
	if (b.bad || b.off != len) {
		sht_sync_free(s);
		return SHT_ERR_CORRUPT;
	}
	*out = s;
	return SHT_OK;
}

sht_err sht_sync_stored(sht_state *ss, sht_sync **out)
{
	void *data = NULL;
	size_t len = 0;
	uint32_t version = 0;
	sht_err err = sht_state_section(ss, SHT_SYNC_SECTION, &version, &data,
					&len);

	if (err != SHT_OK)
		return err;
	if (version != SECTION_VERSION)
		err = sht__error(SHT_ERR_VERSION, "Cannot read the "
				 "synchronization section: version %u (this "
				 "library reads %u)", version,
				 (unsigned)SECTION_VERSION);
	else
		err = decode(data, len, out);
	free(data);
	if (err == SHT_ERR_CORRUPT)
		return sht__error(err, "Cannot read the synchronization "
				  "section: %zu bytes that do not decode", len);
	if (err == SHT_ERR_NOMEM)
		return sht__error(err, "Cannot read the synchronization "
				  "section: out of memory");
	return err;
}

sht_err sht_sync_replay_source(sht_state *ss, const char *trace,
			       const sht_source *in, sht_source *out,
			       bool *transformed)
{
	sht_sync *s = NULL;
	sht_sync_trace_info ti;
	char *real;
	size_t i, n;
	sht_err err = sht_sync_stored(ss, &s);

	*out = *in;
	*transformed = false;
	if (err == SHT_NOT_FOUND)
		return SHT_OK;
	if (err < 0)
		return err;
	real = realpath(trace, NULL);
	n = sht_sync_count(s);
	for (i = 0; i < n; i++)
		if (sht_sync_trace(s, i, &ti) == SHT_OK && real &&
		    strcmp(ti.name, real) == 0)
			break;
	free(real);
	if (i == n)
		err = sht__error(SHT_ERR_INVALID, "Cannot replay %s: the history was "
				 "built on the synchronized clock of an experiment of "
				 "%zu traces, and it is not one of them", trace, n);
	else
		err = sht_transform_source(in, ti.transform, out);
	sht_sync_free(s);
	if (err == SHT_OK)
		*transformed = true;
	else
		*out = *in;
	return err;
}
