/*
 * vstf-int.h: constants of the VSTF layout shared by the writer and the
 * reader (docs/VSTF.md).  Private to src/trace/.
 */
#ifndef SHT_VSTF_INT_H
#define SHT_VSTF_INT_H

#include <stdint.h>

#define VSTF_MAGIC 0x46545356u          /* "VSTF" */
#define VSTF_END_MAGIC 0x56535446u      /* "FTSV" */
#define VSTF_HEADER_FIXED 9u            /* magic, version, zero byte */
#define VSTF_TRAILER 40u
#define VSTF_INDEX_ENTRY 28u
#define VSTF_INDEX_DEFAULT 4096u

static inline uint64_t vstf_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t vstf_unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif /* SHT_VSTF_INT_H */
