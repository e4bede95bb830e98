/*
 * gen-int.h: what the generator library's sources share (src/gen only).
 * The library sits on libsht's public API alone, like the CLI: failures
 * are recorded with sht_error_set, so sht_errmsg() reads them.
 */
#ifndef SHTGEN_GEN_INT_H
#define SHTGEN_GEN_INT_H

#include <stdint.h>

#include "sht/sht.h"

#if defined(__GNUC__)
#define SHTGEN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SHTGEN_PRINTF(a, b)
#endif

/* Little-endian stores (CTF packets of the generated traces). */
static inline void shtgen_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void shtgen_put_u64(uint8_t *p, uint64_t v)
{
	shtgen_put_u32(p, (uint32_t)v);
	shtgen_put_u32(p + 4, (uint32_t)(v >> 32));
}

#endif /* SHTGEN_GEN_INT_H */
