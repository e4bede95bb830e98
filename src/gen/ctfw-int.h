/*
 * ctfw-int.h: the CTF writer's state, shared by ctfw.c (streams, packets,
 * index, directory) and ctfw-meta.c (the TSDL metadata text).  Private to
 * src/trace/.
 *
 * Packet layout (little-endian, every field byte-aligned, no padding):
 *
 *   OFF SIZE FIELD                       (packet.header)
 *     0   4  magic 0xC1FC1FC1
 *     4  16  uuid                        the trace's
 *    20   4  stream_id                   0 (the only stream class)
 *    24   8  stream_instance_id          the CPU (babeltrace2 groups
 *                                        files by it: it must differ)
 *                                        (stream packet.context)
 *    32   8  timestamp_begin             cycles of the first event
 *    40   8  timestamp_end               cycles of the last event
 *    48   8  content_size                bits used, headers included
 *    56   8  packet_size                 bits, zero padding included
 *    64   8  packet_seq_num              0, 1, ... per stream
 *    72   8  events_discarded            0
 *    80   4  cpu_id
 *    84      events: uint32 id, uint64 timestamp (cycles), fields
 */
#ifndef SHT_CTFW_INT_H
#define SHT_CTFW_INT_H

#include <stddef.h>
#include <stdint.h>

#include <shtgen/ctfw.h>
#include "gen/gen-int.h"

#define CTFW_MAGIC 0xC1FC1FC1u
#define CTFW_PKT_HEADER 84u             /* packet header + context */
#define CTFW_EV_HEADER 12u              /* id + timestamp */
#define CTFW_PAGE 4096u
#define CTFW_PACKET_DEFAULT (256u * 1024u)
#define CTFW_MAX_CPUS 65536u
#define CTFW_TEXT16 16u

/* LTTng packet index (lttng-tools ctf-index.h), all big-endian: a header
 * (magic, major, minor, entry length) then one entry per packet: offset
 * (bytes), packet_size, content_size (bits), timestamp_begin,
 * timestamp_end (cycles), events_discarded, stream_id, and in 1.1
 * stream_instance_id, packet_seq_num; 9 x uint64. */
#define CTFW_INDEX_MAGIC 0xC1F1DCC1u
#define CTFW_INDEX_MAJOR 1u
#define CTFW_INDEX_MINOR 1u
#define CTFW_INDEX_HEADER 16u
#define CTFW_INDEX_ENTRY 72u

struct ctfw_env {
	char *name;
	char *str;                /* NULL: an integer, in i */
	int64_t i;
};

struct ctfw_cfield {
	char *name;               /* without the leading "_" */
	shtgen_ctfw_type type;
};

struct ctfw_class {
	char *name;
	struct ctfw_cfield *fields;
	size_t nfields;
	size_t fixed;             /* bytes of the event without its strings:
	                             header, integers, text arrays */
};

/* What the index says of one written packet. */
struct ctfw_packet {
	uint64_t offset;          /* bytes from the start of the file */
	uint64_t size;            /* bytes */
	uint64_t content;         /* bits */
	uint64_t begin, end;      /* cycles */
};

struct ctfw_stream {
	int fd;                   /* -1 until the first packet goes out */
	int created;              /* the stream file exists */
	int idx_created;          /* its index file exists */
	uint8_t *buf;             /* packet_size bytes; NULL before the
	                             stream's first event */
	size_t used;              /* bytes of the open packet, header
	                             included */
	uint64_t begin, end;      /* cycles of the open packet's first and
	                             last events */
	uint64_t events;          /* written to this stream */
	uint64_t last;            /* cycles of its last event */
	uint64_t off;             /* bytes in the file */
	struct ctfw_packet *pk;   /* written packets, in order */
	size_t npk, cap_pk;
};

struct shtgen_ctfw {
	char *dir;                /* final path, no trailing '/' */
	char *tmp;                /* dir ".tmp-" pid, where files go */
	uint32_t cpus;
	uint32_t packet_size;
	sht_time clock_offset;
	uint8_t uuid[16];         /* trace (and packet headers) */
	uint8_t clock_uuid[16];

	struct ctfw_env *env;
	size_t nenv, cap_env;
	struct ctfw_class *cls;
	size_t ncls, cap_cls;
	struct ctfw_stream *st;   /* cpus of them */

	sht_err failed;           /* sticky: first error, 0 if none */
	int finished;             /* finish succeeded */
	int renamed;              /* tmp is now dir: destroy keeps it */
	int index_dir;            /* tmp/index exists */
	int meta_created;         /* tmp/metadata exists */

	uint64_t events, packets, bytes;
	uint64_t first, last;     /* cycles of the trace's first and last
	                             events (valid if events) */
};

/* ---- ctfw.c ---- */

/* Record "Cannot write CTF trace: dir=...: <fmt>", make w failed (the
 * first error stays) and return err. */
sht_err shtgen_ctfw_fail(shtgen_ctfw *w, sht_err err, const char *fmt, ...)
	SHTGEN_PRINTF(3, 4);

/* SHT_ERR_IO naming path and strerror(errnum) ("short write" if 0). */
sht_err shtgen_ctfw_io(shtgen_ctfw *w, const char *path, int errnum);

/* SHT_OK, or the error for a missing, failed or finished writer. */
sht_err shtgen_ctfw_check(const shtgen_ctfw *w);

/* ---- ctfw-stream.c ---- */

/* The path of cpu's stream file (idx 0) or index file (idx 1) in tmp. */
void shtgen_ctfw_path(const shtgen_ctfw *w, uint32_t cpu, int idx, char *buf,
		    size_t n);

/* write() all n bytes to fd (counted in w->bytes); SHT_ERR_IO naming
 * path on an error or a write of 0 bytes. */
sht_err shtgen_ctfw_write_all(shtgen_ctfw *w, int fd, const void *p, size_t n,
			    const char *path);

/* Write cpu's open packet (its buffer must exist): packet_size bytes, or
 * if last its content rounded up to CTFW_PAGE; index entry recorded. */
sht_err shtgen_ctfw_flush(shtgen_ctfw *w, uint32_t cpu, int last);

/* ---- ctfw-meta.c ---- */

/* The TSDL metadata text of w (NUL-terminated, length in *len), or NULL
 * if out of memory.  Free it with free(). */
char *shtgen_ctfw_metadata(const struct shtgen_ctfw *w, size_t *len);

#endif /* SHT_CTFW_INT_H */
