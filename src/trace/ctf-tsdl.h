/*
 * ctf-tsdl.h: the packet layouts of a CTF 1.8 trace, read from its TSDL
 * metadata text (ctf-tsdl.c), so that a trace without an LTTng index can
 * be seeked by its packets' own headers (ctf-pkt.c).  Only what packet
 * headers and contexts use is understood: integers (with their size,
 * alignment, byte order, signedness), structures (named or not, with
 * align()), constant-length arrays, enumerations (their integer), and
 * the type names typealias / typedef give them.  A header or context
 * holding anything else (a string, a sequence, a variant, a real) has no
 * fixed layout: the trace is then not seekable this way.
 */
#ifndef SHT_TRACE_CTF_TSDL_H
#define SHT_TRACE_CTF_TSDL_H

#include <stddef.h>
#include <stdint.h>

#define TSDL_NAME 64
#define TSDL_FIELDS 32            /* top-level fields kept per struct */
#define TSDL_STREAMS 16           /* stream classes kept */

/* A top-level integer field of a packet header or context. */
struct tsdl_int {
	char name[TSDL_NAME];
	uint64_t bit;                 /* offset from the packet start */
	uint32_t size;                /* bits, 1 .. 64 */
	int le;                       /* little-endian */
};

/* The fixed layout of a packet header followed by its context. */
struct tsdl_layout {
	int ok;                       /* 1: fixed, known */
	uint64_t bits;                /* header + context */
	struct tsdl_int f[TSDL_FIELDS];
	size_t n;
};

struct tsdl_packets {
	int ok;                       /* the header parsed */
	struct tsdl_layout header;    /* alone: magic, stream_id */
	uint64_t sc_id[TSDL_STREAMS];
	struct tsdl_layout ctx[TSDL_STREAMS]; /* header then stream's context */
	size_t nstreams;
};

/* Parse the metadata text (len bytes) into *out.  1 if the packet header
 * and every stream's context have fixed layouts, else 0. */
int sht__tsdl_packets(const char *text, size_t len, struct tsdl_packets *out);

/* The field name of layout l: 1 and its value read from buf (at least
 * l->bits bits long), or 0 if l has no such field. */
int sht__tsdl_get(const struct tsdl_layout *l, const unsigned char *buf,
		  const char *name, uint64_t *out);

#endif /* SHT_TRACE_CTF_TSDL_H */
