/*
 * buf.h: a growing byte buffer to write, and a bounded reader, for the
 * snapshots of resumable builds (src/store/resume.c, src/state/resume.c):
 * little-endian integers, byte strings, and a sticky failure flag so that
 * callers check once at the end.  Internal to libsht.
 */
#ifndef SHT_UTIL_BUF_H
#define SHT_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>

struct sht__wbuf {
	uint8_t *p;
	size_t n, cap;
	int bad;                      /* an allocation failed */
};

struct sht__rbuf {
	const uint8_t *p;
	size_t n, off;
	int bad;                      /* read past the end */
};

void sht__w_u8(struct sht__wbuf *w, uint8_t v);
void sht__w_u32(struct sht__wbuf *w, uint32_t v);
void sht__w_u64(struct sht__wbuf *w, uint64_t v);
void sht__w_bytes(struct sht__wbuf *w, const void *p, size_t n);
/* A length (u64) then the bytes. */
void sht__w_blob(struct sht__wbuf *w, const void *p, size_t n);

uint8_t sht__r_u8(struct sht__rbuf *r);
uint32_t sht__r_u32(struct sht__rbuf *r);
uint64_t sht__r_u64(struct sht__rbuf *r);
/* n bytes in place (NULL and bad if fewer are left). */
const void *sht__r_bytes(struct sht__rbuf *r, size_t n);
/* A length then the bytes, in place: *n set. */
const void *sht__r_blob(struct sht__rbuf *r, size_t *n);

#endif /* SHT_UTIL_BUF_H */
