/*
 * ctfw-stream.c: the CTF writer's streams (ctfw.h): event encoding into
 * the per-CPU packet buffer, and packets out to the stream files.  The
 * layout is in ctfw-int.h, the invariants in ctfw.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/ctfw-int.h"
#include "gen/gen-int.h"

/* ---- files -------------------------------------------------------------- */

void shtgen_ctfw_path(const shtgen_ctfw *w, uint32_t cpu, int idx, char *buf,
		    size_t n)
{
	if (idx)
		snprintf(buf, n, "%s/index/channel0_%u.idx", w->tmp, cpu);
	else
		snprintf(buf, n, "%s/channel0_%u", w->tmp, cpu);
}

sht_err shtgen_ctfw_write_all(shtgen_ctfw *w, int fd, const void *p, size_t n,
			    const char *path)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = write(fd, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return shtgen_ctfw_io(w, path, k < 0 ? errno : 0);
		b += k;
		n -= (size_t)k;
		w->bytes += (uint64_t)k;
	}
	return SHT_OK;
}

/* ---- packets ------------------------------------------------------------ */

static void put_packet_header(const shtgen_ctfw *w, struct ctfw_stream *s,
			      uint32_t cpu, uint64_t size)
{
	uint8_t *p = s->buf;

	shtgen_put_u32(p, CTFW_MAGIC);
	memcpy(p + 4, w->uuid, 16);
	shtgen_put_u32(p + 20, 0);
	shtgen_put_u64(p + 24, cpu);
	shtgen_put_u64(p + 32, s->begin);
	shtgen_put_u64(p + 40, s->end);
	shtgen_put_u64(p + 48, (uint64_t)s->used * 8);
	shtgen_put_u64(p + 56, size * 8);
	shtgen_put_u64(p + 64, s->npk);
	shtgen_put_u64(p + 72, 0);
	shtgen_put_u32(p + 80, cpu);
}

static sht_err add_index_entry(shtgen_ctfw *w, struct ctfw_stream *s,
			       uint64_t size)
{
	struct ctfw_packet *pk;

	if (s->npk == s->cap_pk) {
		size_t cap = s->cap_pk ? 2 * s->cap_pk : 16;
		struct ctfw_packet *np = realloc(s->pk, cap * sizeof *np);

		if (!np)
			return shtgen_ctfw_fail(w, SHT_ERR_NOMEM,
					      "out of memory");
		s->pk = np;
		s->cap_pk = cap;
	}
	pk = &s->pk[s->npk];
	pk->offset = s->off;
	pk->size = size;
	pk->content = (uint64_t)s->used * 8;
	pk->begin = s->begin;
	pk->end = s->end;
	return SHT_OK;
}

/* Write the open packet of cpu: packet_size bytes, or if last, its
 * content rounded up to a page.  The stream is then empty again. */
sht_err shtgen_ctfw_flush(shtgen_ctfw *w, uint32_t cpu, int last)
{
	struct ctfw_stream *s = &w->st[cpu];
	uint64_t size = w->packet_size;
	char path[4200];
	sht_err err;

	if (last)
		size = (s->used + CTFW_PAGE - 1) / CTFW_PAGE * CTFW_PAGE;
	if ((err = add_index_entry(w, s, size)) != SHT_OK)
		return err;
	put_packet_header(w, s, cpu, size);
	memset(s->buf + s->used, 0, size - s->used);
	shtgen_ctfw_path(w, cpu, 0, path, sizeof path);
	if (s->fd < 0) {
		s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0644);
		if (s->fd < 0)
			return shtgen_ctfw_io(w, path, errno);
		s->created = 1;
	}
	err = shtgen_ctfw_write_all(w, s->fd, s->buf, size, path);
	if (err)
		return err;
	s->off += size;
	s->npk++;
	s->used = CTFW_PKT_HEADER;
	w->packets++;
	return SHT_OK;
}

/* ---- event encoding ------------------------------------------------------ */

/* Nonzero if v is an integer that a field of type t holds exactly. */
static int int_fits(shtgen_ctfw_type t, const sht_field *v)
{
	if (v->type == SHT_FIELD_INT) {
		int64_t i = v->v.i;

		switch (t) {
		case SHTGEN_CTFW_S32: return i >= INT32_MIN && i <= INT32_MAX;
		case SHTGEN_CTFW_U32: return i >= 0 && i <= (int64_t)UINT32_MAX;
		case SHTGEN_CTFW_U64: return i >= 0;
		default: return 1;
		}
	}
	if (v->type == SHT_FIELD_UINT) {
		uint64_t u = v->v.u;

		switch (t) {
		case SHTGEN_CTFW_S32: return u <= INT32_MAX;
		case SHTGEN_CTFW_S64: return u <= INT64_MAX;
		case SHTGEN_CTFW_U32: return u <= UINT32_MAX;
		default: return 1;
		}
	}
	return 0;
}

static uint64_t int_bits(const sht_field *v)
{
	return v->type == SHT_FIELD_INT ? (uint64_t)v->v.i : v->v.u;
}

/* Check values against c's fields; the event's size in *size.  @return
 * the index of the first bad value, or c->nfields if all are good. */
static size_t event_size(const struct ctfw_class *c, const sht_field *vals,
			 size_t *size)
{
	size_t n = c->fixed;

	for (size_t i = 0; i < c->nfields; i++) {
		const sht_field *v = &vals[i];

		switch (c->fields[i].type) {
		case SHTGEN_CTFW_STRING:
			if (v->type != SHT_FIELD_STRING || !v->v.s)
				return i;
			n += strlen(v->v.s) + 1;
			break;
		case SHTGEN_CTFW_TEXT16:
			if (v->type != SHT_FIELD_STRING || !v->v.s)
				return i;
			break;
		default:
			if (!int_fits(c->fields[i].type, v))
				return i;
			break;
		}
	}
	*size = n;
	return c->nfields;
}

/* s cut to 15 bytes at a UTF-8 character boundary, NUL padded to 16. */
static void put_text16(uint8_t *p, const char *s)
{
	size_t n = strnlen(s, CTFW_TEXT16 - 1);

	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	memcpy(p, s, n);
	memset(p + n, 0, CTFW_TEXT16 - n);
}

static void encode_event(const struct ctfw_class *c, uint32_t id,
			 uint64_t cycles, const sht_field *vals, uint8_t *p)
{
	shtgen_put_u32(p, id);
	shtgen_put_u64(p + 4, cycles);
	p += CTFW_EV_HEADER;
	for (size_t i = 0; i < c->nfields; i++) {
		const sht_field *v = &vals[i];
		size_t n;

		switch (c->fields[i].type) {
		case SHTGEN_CTFW_S32:
		case SHTGEN_CTFW_U32:
			shtgen_put_u32(p, (uint32_t)int_bits(v));
			p += 4;
			break;
		case SHTGEN_CTFW_S64:
		case SHTGEN_CTFW_U64:
			shtgen_put_u64(p, int_bits(v));
			p += 8;
			break;
		case SHTGEN_CTFW_STRING:
			n = strlen(v->v.s) + 1;
			memcpy(p, v->v.s, n);
			p += n;
			break;
		case SHTGEN_CTFW_TEXT16:
			put_text16(p, v->v.s);
			p += CTFW_TEXT16;
			break;
		}
	}
}

/* ---- public: events ------------------------------------------------------ */

static sht_err event_args(shtgen_ctfw *w, uint32_t id, sht_time ts,
			  uint32_t cpu, const sht_field *values)
{
	if (id >= w->ncls)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "unknown event "
				      "class %u (%zu declared)", id, w->ncls);
	if (cpu >= w->cpus)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "cpu %u out of "
				      "range (cpus=%u)", cpu, w->cpus);
	if (!values && w->cls[id].nfields)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "event '%s': no "
				      "values", w->cls[id].name);
	if (ts < w->clock_offset)
		return shtgen_ctfw_fail(w, SHT_ERR_ORDER, "event '%s' at "
				      "ts=%lld is before the clock offset "
				      "%lld", w->cls[id].name, (long long)ts,
				      (long long)w->clock_offset);
	return SHT_OK;
}

static sht_err stream_open(shtgen_ctfw *w, struct ctfw_stream *s)
{
	s->buf = malloc(w->packet_size);
	if (!s->buf)
		return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory "
				      "(packet of %u bytes)", w->packet_size);
	s->used = CTFW_PKT_HEADER;
	return SHT_OK;
}

sht_err shtgen_ctfw_event(shtgen_ctfw *w, uint32_t id, sht_time ts, uint32_t cpu,
			const sht_field *values)
{
	sht_err err = shtgen_ctfw_check(w);
	const struct ctfw_class *c;
	struct ctfw_stream *s;
	uint64_t cycles;
	size_t size = 0, bad;

	if (err || (err = event_args(w, id, ts, cpu, values)) != SHT_OK)
		return err;
	c = &w->cls[id];
	s = &w->st[cpu];
	cycles = (uint64_t)ts - (uint64_t)w->clock_offset;
	if (s->events && cycles < s->last)
		return shtgen_ctfw_fail(w, SHT_ERR_ORDER, "event '%s' at "
				      "ts=%lld on cpu %u is before the "
				      "previous one of that cpu (ts=%lld)",
				      c->name, (long long)ts, cpu,
				      (long long)(s->last +
						  (uint64_t)w->clock_offset));
	bad = event_size(c, values, &size);
	if (bad < c->nfields)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "event '%s': bad "
				      "value for field '%s' (value type %d)",
				      c->name, c->fields[bad].name,
				      (int)values[bad].type);
	if (size > w->packet_size - CTFW_PKT_HEADER)
		return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "event '%s' of %zu "
				      "bytes does not fit in a packet of %u "
				      "bytes (%u after the packet header)",
				      c->name, size, w->packet_size,
				      w->packet_size - CTFW_PKT_HEADER);
	if (!s->buf && (err = stream_open(w, s)) != SHT_OK)
		return err;
	if (s->used + size > w->packet_size &&
	    (err = shtgen_ctfw_flush(w, cpu, 0)) != SHT_OK)
		return err;
	encode_event(c, id, cycles, values, s->buf + s->used);
	if (s->used == CTFW_PKT_HEADER)
		s->begin = cycles;
	s->end = cycles;
	s->used += size;
	s->last = cycles;
	s->events++;
	if (!w->events || cycles < w->first)
		w->first = cycles;
	if (!w->events || cycles > w->last)
		w->last = cycles;
	w->events++;
	return SHT_OK;
}

