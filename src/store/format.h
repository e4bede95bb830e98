/*
 * format.h: constants and offsets of the history file format, repeating
 * the tables of docs/FORMAT.md (the authority).  Changing anything here
 * changes the file format: bump SHT_FORMAT_VERSION and document it.
 */
#ifndef SHT_FORMAT_H
#define SHT_FORMAT_H

#include <stdint.h>

#define SHT__MAGIC "\x89SHT\r\n\x1a\n"
#define SHT__MAGIC_LEN 8
#define SHT__HEADER_REGION 4096u

/* Header field offsets. */
enum {
	SHT__H_MAGIC = 0,
	SHT__H_VERSION = 8,
	SHT__H_HEADER_LEN = 12,
	SHT__H_FLAGS = 16,
	SHT__H_VARIANT = 20,
	SHT__H_BLOCK_SIZE = 24,
	SHT__H_MAX_CHILDREN = 28,
	SHT__H_BLOCK_COUNT = 32,
	SHT__H_ROOT = 40,
	SHT__H_DEPTH = 48,
	SHT__H_QUARK_COUNT = 56,
	SHT__H_START = 64,
	SHT__H_END = 72,
	SHT__H_INTERVALS = 80,
	SHT__H_NODES = 88,
	SHT__H_SECTIONS = 96,
	SHT__H_CRC = 380,
	SHT__HEADER_LEN_V1 = 384,
};

#define SHT__SECTION_SLOTS 8u
#define SHT__SECTION_ENTRY 32u
#define SHT__FLAG_COMPLETE 1u

/* Block kinds (byte 0 of every block). */
enum {
	SHT__KIND_LEAF = 1,
	SHT__KIND_CORE = 2,
	SHT__KIND_BLOB = 3,
	SHT__KIND_SECTION = 4,
};

/* Node header field offsets (docs/FORMAT.md §3). */
enum {
	SHT__N_KIND = 0,
	SHT__N_OBITS = 1,
	SHT__N_FLAGS = 2,
	SHT__N_CTAG = 3,
	SHT__N_COUNT = 4,
	SHT__N_SELF = 8,
	SHT__N_SEQ = 16,
	SHT__N_START = 24,
	SHT__N_END = 32,
	SHT__N_QMIN = 40,
	SHT__N_QMAX = 44,
	SHT__N_NCHILD = 48,
	SHT__N_HEAP = 52,
	SHT__N_QBITS = 56,
	SHT__N_SBITS = 57,
	SHT__N_EBITS = 58,
	SHT__N_TBITS = 59,
	SHT__N_VBITS = 60,
	SHT__N_IBITS = 61,
	SHT__N_XBITS = 62,
	SHT__N_DBITS = 63,
	SHT__N_SBASE = 64,
	SHT__N_EBASE = 72,
	SHT__N_VBASE = 80,
	SHT__N_USED = 88,
	SHT__N_LEVEL = 92,
	SHT__N_NRUNS = 96,
	SHT__N_NEXC = 100,
	SHT__N_NENDS = 104,
	SHT__N_NVALUES = 108,
	SHT__NODE_HDR = 112,
	/* The geometry rule of the header (max_children): 96 + 32 per child
	 * in half a block.  96 was format 1's node header; with format 2's
	 * 112 a full core node still leaves B/2 - 16 bytes for records. */
	SHT__GEOM_HDR = 96,
	SHT__CHILD_ENTRY = 32,
	/* End table: entries in blocks of this many, a base per block. */
	SHT__ETAB_BLOCK = 32,
	SHT__ETAB_SHIFT = 5,
	/* Value dictionary: one 16-byte entry per type tag, then the values. */
	SHT__DICT_TAG = 16,
	SHT__DICT_HDR = 5 * SHT__DICT_TAG,
	/* Bytes after the records that must stay inside the block, so that a
	 * field is read with one unaligned 8-byte load plus one byte. */
	SHT__SLACK = 12,
};

/* Node flags (byte 2). */
#define SHT__NFLAG_DURATION 1u  /* flat records: end stored as end - start */
#define SHT__NFLAG_RUNS 2u      /* run directory; records hold no quark */
#define SHT__NFLAG_DICT 4u      /* values through the value dictionary */
#define SHT__NFLAG_ETAB 8u      /* ends through the end table */
#define SHT__NFLAGS_ALL 15u
/* Deepest tree a file may hold (levels 0 .. SHT__MAX_LEVEL).  Queries
 * recurse once per level: this bounds their stack to a few hundred KiB. */
#define SHT__MAX_LEVEL 4095u

/* Blob block field offsets. */
enum {
	SHT__B_NBLOCKS = 4,
	SHT__B_SELF = 8,
	SHT__B_LENGTH = 16,
	SHT__BLOB_HDR = 24,
};

/* On-disk type tags: never renumbered (files live forever). */
enum {
	SHT__TAG_NULL = 0,
	SHT__TAG_INT32 = 1,
	SHT__TAG_INT64 = 2,
	SHT__TAG_DOUBLE = 3,
	SHT__TAG_STRING = 4,
	SHT__TAG_COUNT = 5,
};

#define SHT__TBITS 3u

_Static_assert(SHT__H_CRC == SHT__HEADER_LEN_V1 - 4, "header crc moved");
_Static_assert(SHT__H_SECTIONS + SHT__SECTION_SLOTS * SHT__SECTION_ENTRY <= SHT__H_CRC,
	       "section table overlaps the crc");

#endif /* SHT_FORMAT_H */

_Static_assert(SHT__ETAB_BLOCK == 1 << SHT__ETAB_SHIFT, "end table block");
