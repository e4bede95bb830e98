/*
 * buf.c: the snapshot buffers of buf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/util.h"

static uint8_t *room(struct sht__wbuf *w, size_t n)
{
	if (w->bad)
		return NULL;
	if (n > w->cap - w->n) {
		size_t cap = w->cap ? w->cap : 256;
		uint8_t *p;
		while (cap - w->n < n) {
			if (cap > SIZE_MAX / 2) {
				w->bad = 1;
				return NULL;
			}
			cap *= 2;
		}
		if (!(p = realloc(w->p, cap))) {
			w->bad = 1;
			return NULL;
		}
		w->p = p;
		w->cap = cap;
	}
	w->n += n;
	return w->p + w->n - n;
}

void sht__w_u8(struct sht__wbuf *w, uint8_t v)
{
	uint8_t *p = room(w, 1);

	if (p)
		*p = v;
}

void sht__w_u32(struct sht__wbuf *w, uint32_t v)
{
	uint8_t *p = room(w, 4);

	if (p)
		sht__put_u32(p, v);
}

void sht__w_u64(struct sht__wbuf *w, uint64_t v)
{
	uint8_t *p = room(w, 8);

	if (p)
		sht__put_u64(p, v);
}

void sht__w_bytes(struct sht__wbuf *w, const void *src, size_t n)
{
	uint8_t *p = n ? room(w, n) : NULL;

	if (p)
		memcpy(p, src, n);
}

void sht__w_blob(struct sht__wbuf *w, const void *src, size_t n)
{
	sht__w_u64(w, n);
	sht__w_bytes(w, src, n);
}

const void *sht__r_bytes(struct sht__rbuf *r, size_t n)
{
	if (r->bad || n > r->n - r->off) {
		r->bad = 1;
		return NULL;
	}
	r->off += n;
	return r->p + r->off - n;
}

uint8_t sht__r_u8(struct sht__rbuf *r)
{
	const uint8_t *p = sht__r_bytes(r, 1);

	return p ? *p : 0;
}

uint32_t sht__r_u32(struct sht__rbuf *r)
{
	const uint8_t *p = sht__r_bytes(r, 4);

	return p ? sht__get_u32(p) : 0;
}

uint64_t sht__r_u64(struct sht__rbuf *r)
{
	const uint8_t *p = sht__r_bytes(r, 8);

	return p ? sht__get_u64(p) : 0;
}

const void *sht__r_blob(struct sht__rbuf *r, size_t *n)
{
	uint64_t len = sht__r_u64(r);

	if (r->bad || len > r->n - r->off) {
		r->bad = 1;
		*n = 0;
		return NULL;
	}
	*n = (size_t)len;
	return sht__r_bytes(r, (size_t)len);
}
