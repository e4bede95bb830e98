/*
 * ctf-span.c: sht_ctf_time_span(), the time span of a CTF trace read from
 * its LTTng packet index (sht/trace.h), a hint for progress displays that
 * costs a few small reads instead of a pass over the trace.
 *
 * LTTng writes one index file per data stream file, <trace>/index/<file>.idx
 * (format of lttng-tools' src/common/index/ctf-index.h, which babeltrace2's
 * src.ctf.fs also reads), every integer big-endian:
 *
 *   header   magic 0xC1F1DCC1 (u32), major 1 (u32), minor 0 or 1 (u32),
 *            packet_index_len (u32): the size of one entry in bytes
 *   entries  one per packet, packet_index_len bytes, of which we read
 *            the CTF index 1.0 part (7 x u64):
 *              offset           of the packet in the data file, bytes
 *              packet_size      bits
 *              content_size     bits
 *              timestamp_begin  cycles of the stream class's clock
 *              timestamp_end    cycles
 *              events_discarded
 *              stream_id        the stream class
 *            (1.1 adds stream_instance_id and packet_seq_num)
 *
 * The cycles become ns from the origin through babeltrace2's clock class
 * of that stream class (bt_clock_class_cycles_to_ns_from_origin), as the
 * events' own timestamps do.  An index is used only if it describes its
 * data file exactly: packets back to back from offset 0 to the end of the
 * file, each with content_size <= packet_size and begin <= end.  Every
 * non-empty data file needs its index; anything else (no index directory,
 * a missing, truncated or inconsistent file, an unknown stream class, an
 * overflow) makes the span unknown (SHT_NOT_FOUND) rather than wrong.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf-par.h"
#include "util/util.h"

#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_MAJOR 1u
#define IDX_HEADER_LEN 16u
#define IDX_ENTRY_1_0 56u        /* offset .. stream_id: 7 x u64 */

/* The span found so far. */
struct span {
	const bt_trace_class *tc; /* stream classes by id (borrowed) */
	int have;                 /* 1 once a packet was seen */
	int64_t begin, end;       /* ns from origin */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

uint64_t sht__ctf_be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* cycles of stream class stream_id's default clock as ns from origin in
 * *ns: 1, or 0 (no such stream class, no clock, overflow). */
static int span_ns(const bt_trace_class *tc, uint64_t stream_id,
		   uint64_t cycles, int64_t *ns)
{
	const bt_stream_class *sc =
		bt_trace_class_borrow_stream_class_by_id_const(tc, stream_id);
	const bt_clock_class *cc =
		sc ? bt_stream_class_borrow_default_clock_class_const(sc) : NULL;

	if (!cc)
		return 0;
	if (bt_clock_class_cycles_to_ns_from_origin(cc, cycles, ns) !=
	    BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK) {
		bt_current_thread_clear_error();   /* the overflow's cause */
		return 0;
	}
	return 1;
}

/* Add the packet of entry e to sp if it starts at *next and fits in a
 * data file of size bytes; *next moves past it.  1, or 0 if the entry is
 * unusable. */
static int span_entry(struct span *sp, const unsigned char *e,
		      uint64_t size, uint64_t *next)
{
	uint64_t offset = sht__ctf_be64(e);
	uint64_t packet_size = sht__ctf_be64(e + 8);
	uint64_t content_size = sht__ctf_be64(e + 16);
	uint64_t ts_begin = sht__ctf_be64(e + 24);
	uint64_t ts_end = sht__ctf_be64(e + 32);
	uint64_t stream_id = sht__ctf_be64(e + 48);
	int64_t begin, end;

	if (offset != *next || packet_size == 0 || packet_size % 8 != 0 ||
	    packet_size / 8 > size - offset || content_size > packet_size ||
	    ts_begin > ts_end)
		return 0;
	if (!span_ns(sp->tc, stream_id, ts_begin, &begin) ||
	    !span_ns(sp->tc, stream_id, ts_end, &end))
		return 0;
	*next = offset + packet_size / 8;
	if (!sp->have || begin < sp->begin)
		sp->begin = begin;
	if (!sp->have || end > sp->end)
		sp->end = end;
	sp->have = 1;
	return 1;
}

int sht__ctf_idx_header(FILE *f, uint32_t *major, uint32_t *len)
{
	unsigned char h[IDX_HEADER_LEN];

	if (fread(h, 1, sizeof h, f) != sizeof h || be32(h) != IDX_MAGIC)
		return 0;
	*major = be32(h + 4);
	*len = be32(h + 12);
	return *len <= SHT__CTF_IDX_ENTRY_MAX;
}

/* The header of index f, of version 1.x: 1 and the entry size in *len,
 * or 0. */
static int span_header(FILE *f, uint32_t *len)
{
	uint32_t major;

	return sht__ctf_idx_header(f, &major, len) && major == IDX_MAJOR &&
	       *len >= IDX_ENTRY_1_0;
}

/* Add the packets of index f, of a data file of size bytes, to sp: 1, or
 * 0 if f is not an index of exactly that file. */
static int span_index(struct span *sp, FILE *f, uint64_t size)
{
	unsigned char e[SHT__CTF_IDX_ENTRY_MAX];
	uint64_t next = 0;
	uint32_t len;
	size_t got;

	if (!span_header(f, &len))
		return 0;
	while ((got = fread(e, 1, len, f)) == len)
		if (!span_entry(sp, e, size, &next))
			return 0;
	return got == 0 && !ferror(f) && next == size;
}

/* Add the packets of data file name (size bytes) of trace directory dir,
 * from dir/index/name.idx, to sp: 1, or 0 if the index is unusable.  An
 * empty data file (no packet) needs no index. */
static int span_file(struct span *sp, const char *dir, const char *name,
		     uint64_t size)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof path, "%s/index/%s.idx", dir, name);
	FILE *f;
	int ok;

	if (n < 0 || (size_t)n >= sizeof path)
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return size == 0;
	ok = span_index(sp, f, size);
	fclose(f);
	return ok;
}

int sht__ctf_is_data(const char *dir, const char *name, uint64_t *size)
{
	char path[PATH_MAX];
	struct stat sb;
	int n;

	if (name[0] == '.' || strcmp(name, "metadata") == 0)
		return 0;
	n = snprintf(path, sizeof path, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof path || stat(path, &sb) != 0 ||
	    !S_ISREG(sb.st_mode))
		return 0;
	*size = (uint64_t)sb.st_size;
	return 1;
}

/* The span of the packets of every data file of dir: SHT_OK, or
 * SHT_NOT_FOUND if one of them has no usable index, or none has packets. */
static sht_err span_dir(struct span *sp, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ok = d != NULL;
	uint64_t size;

	while (ok && (de = readdir(d)) != NULL)
		if (sht__ctf_is_data(dir, de->d_name, &size))
			ok = span_file(sp, dir, de->d_name, size);
	if (d)
		closedir(d);
	return ok && sp->have ? SHT_OK : SHT_NOT_FOUND;
}

sht_err sht__ctf_span_dir(const char *dir, const bt_trace_class *tc,
			  int64_t *begin, int64_t *end)
{
	struct span sp = { tc, 0, 0, 0 };

	if (span_dir(&sp, dir) != SHT_OK)
		return SHT_NOT_FOUND;
	*begin = sp.begin;
	*end = sp.end;
	return SHT_OK;
}

/* Compute c's span once the trace object is known.  Only for a single
 * trace: with several, only the first one's trace object (clocks) is held
 * (ctf-int.h, invariant 5). */
static void span_compute(struct sht_ctf *c)
{
	c->span_known = 1;
	c->span_err = SHT_NOT_FOUND;
	if (c->n_dirs != 1)
		return;
	c->span_err = sht__ctf_span_dir(c->dirs[0], bt_trace_borrow_class_const(c->trace),
					&c->span_begin, &c->span_end);
}

sht_err sht_ctf_time_span(const sht_source *src, sht_time *begin,
			  sht_time *end)
{
	struct sht_ctf *c = sht__ctf_of(src);

	if (!c || !begin || !end)
		return sht__error(SHT_ERR_INVALID, "Cannot get CTF time span: "
				  "not a CTF source, or NULL begin / end");
	if (c->par)
		return sht__ctfp_span(c, begin, end);
	if (!c->trace)
		return SHT_NOT_FOUND;   /* no stream met yet: ask again later */
	if (!c->span_known)
		span_compute(c);
	if (c->span_err == SHT_OK) {
		*begin = c->span_begin;
		*end = c->span_end;
	}
	return c->span_err;
}
