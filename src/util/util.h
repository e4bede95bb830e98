/*
 * util.h: internal helpers shared by every layer: error recording,
 * little-endian integer access, CRC-32C, bit widths.
 */
#ifndef SHT_UTIL_H
#define SHT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sht/error.h"

#if defined(__GNUC__)
#define SHT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define SHT_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SHT_PRINTF(a, b)
#define SHT_LIKELY(x) (x)
#define SHT_UNLIKELY(x) (x)
#endif

/* Record a message for the calling thread and return err (sht_errno()
 * becomes 0). */
sht_err sht__error(sht_err err, const char *fmt, ...) SHT_PRINTF(2, 3);

/* The same for a failed system call: errnum (a positive errno) is what
 * sht_errno() gives until the next failure. */
sht_err sht__error_sys(sht_err err, int errnum, const char *fmt, ...)
	SHT_PRINTF(3, 4);

/* CRC-32C (Castagnoli) of n bytes, continuing from crc (0 to start). */
uint32_t sht__crc32c(uint32_t crc, const void *buf, size_t n);

static inline uint32_t sht__get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t sht__get_u64(const uint8_t *p)
{
	return (uint64_t)sht__get_u32(p) | (uint64_t)sht__get_u32(p + 4) << 32;
}

static inline void sht__put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void sht__put_u64(uint8_t *p, uint64_t v)
{
	sht__put_u32(p, (uint32_t)v);
	sht__put_u32(p + 4, (uint32_t)(v >> 32));
}

/* Unaligned little-endian 64-bit load; compiles to one mov on x86. */
static inline uint64_t sht__load_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* Bits needed to hold x: 0 for 0, 64 for values >= 2^63. */
static inline unsigned sht__bits(uint64_t x)
{
	return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

#endif /* SHT_UTIL_H */
