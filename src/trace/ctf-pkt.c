/*
 * ctf-pkt.c: the packets of a CTF trace directory, from its LTTng packet
 * index, for the time span (ctf-span.c) and for seeks (ctf-view.c).
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
 * file, each with content_size <= packet_size and begin <= end.
 *
 * A data file without a usable index is read by its packets' own headers
 * instead: the layouts of the packet header and of each stream class's
 * packet context come from the TSDL metadata (ctf-tsdl.c; a packetized
 * metadata file is unwrapped first), and the packets are walked from
 * offset 0 by their packet_size, with the same checks (and the magic
 * number, if the header has one).  A file whose packets cannot be known
 * either way makes the table not usable (ctf_ptab.usable): no seek by
 * packets then.  Only a table read entirely from index files gives the
 * time span (ctf_ptab.from_index), as before.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf-int.h"
#include "ctf-tsdl.h"
#include "util/util.h"

#define IDX_MAGIC 0xC1F1DCC1u
#define IDX_MAJOR 1u
#define IDX_HEADER_LEN 16u
#define IDX_ENTRY_1_0 56u        /* offset .. stream_id: 7 x u64 */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

uint64_t sht__ctf_be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
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

int sht__ctf_cycles_ns(const bt_trace_class *tc, uint64_t stream_id,
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

/* ---- one index file ------------------------------------------------------ */

static int pfile_push(struct ctf_pfile *f, size_t *cap, const struct ctf_pkt *k)
{
	if (f->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct ctf_pkt *n = realloc(f->pk, nc * sizeof *n);
		if (!n)
			return 0;
		f->pk = n;
		*cap = nc;
	}
	f->pk[f->n++] = *k;
	return 1;
}

/* Entry e as packet k if it starts where the last one ended and fits in
 * the data file: 1, or 0 (unusable). */
static int idx_entry(const bt_trace_class *tc, const unsigned char *e,
		     const struct ctf_pfile *f, struct ctf_pkt *k)
{
	uint64_t next = f->n ? f->pk[f->n - 1].off + f->pk[f->n - 1].size : 0;

	k->off = sht__ctf_be64(e);
	k->content = sht__ctf_be64(e + 16);
	k->cyc_begin = sht__ctf_be64(e + 24);
	k->cyc_end = sht__ctf_be64(e + 32);
	k->disc = sht__ctf_be64(e + 40);
	k->sc_id = sht__ctf_be64(e + 48);
	k->size = sht__ctf_be64(e + 8);
	if (k->off != next || k->size == 0 || k->size % 8 != 0 ||
	    k->size / 8 > f->size - k->off || k->content > k->size ||
	    k->cyc_begin > k->cyc_end)
		return 0;
	k->size /= 8;
	return sht__ctf_cycles_ns(tc, k->sc_id, k->cyc_begin, &k->begin) &&
	       sht__ctf_cycles_ns(tc, k->sc_id, k->cyc_end, &k->end);
}

/* The packets of index file idx into f (its data file's size set): 1, or
 * 0 if idx is not an index of exactly that file. */
static int idx_read(const bt_trace_class *tc, FILE *idx, struct ctf_pfile *f)
{
	unsigned char e[SHT__CTF_IDX_ENTRY_MAX];
	uint32_t major, len;
	size_t got, cap = 0;
	struct ctf_pkt k;

	if (!sht__ctf_idx_header(idx, &major, &len) || major != IDX_MAJOR ||
	    len < IDX_ENTRY_1_0)
		return 0;
	while ((got = fread(e, 1, len, idx)) == len)
		if (!idx_entry(tc, e, f, &k) || !pfile_push(f, &cap, &k))
			return 0;
	return got == 0 && !ferror(idx) &&
	       (f->n ? f->pk[f->n - 1].off + f->pk[f->n - 1].size : 0) == f->size;
}

/* Data file name (size bytes) of dir into f, from dir/index/name.idx:
 * 1, or 0 (no usable index; an empty file needs none). */
static int idx_file(const bt_trace_class *tc, const char *dir, struct ctf_pfile *f)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof path, "%s/index/%s.idx", dir, f->name);
	FILE *idx;
	int ok;

	if (n < 0 || (size_t)n >= sizeof path)
		return 0;
	idx = fopen(path, "rb");
	if (!idx)
		return f->size == 0;
	ok = idx_read(tc, idx, f);
	fclose(idx);
	if (!ok) {
		free(f->pk);
		f->pk = NULL;
		f->n = 0;
	}
	return ok;
}

/* ---- packet headers -------------------------------------------------------- */

#define META_MAGIC 0x75D11D57u
#define META_HEADER 37u          /* a metadata packet's header, bytes */
#define CTF_MAGIC 0xC1FC1FC1u

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The text of a metadata file of n bytes in buf, unwrapped in place if
 * packetized: its length, or 0 (a bad packet). */
static size_t meta_text(unsigned char *buf, size_t n)
{
	size_t in = 0, out = 0;
	int be;

	if (n < 4 || (le32(buf) != META_MAGIC && be32(buf) != META_MAGIC))
		return n;                 /* plain text */
	be = be32(buf) == META_MAGIC;
	while (in + META_HEADER <= n) {
		const unsigned char *h = buf + in;
		uint32_t content = (be ? be32(h + 24) : le32(h + 24)) / 8;
		uint32_t size = (be ? be32(h + 28) : le32(h + 28)) / 8;

		if ((be ? be32(h) : le32(h)) != META_MAGIC || content < META_HEADER ||
		    content > size || size > n - in)
			return 0;
		memmove(buf + out, h + META_HEADER, content - META_HEADER);
		out += content - META_HEADER;
		in += size;
	}
	return out;
}

int sht__ctf_layouts(const char *dir, struct tsdl_packets *tp)
{
	char path[PATH_MAX];
	FILE *f;
	unsigned char *buf = NULL;
	long n;
	int ok = 0;

	if (snprintf(path, sizeof path, "%s/metadata", dir) >= (int)sizeof path ||
	    !(f = fopen(path, "rb")))
		return 0;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && n < (64L << 20) &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		size_t len = meta_text(buf, (size_t)n);
		ok = len && sht__tsdl_packets((const char *)buf, len, tp);
	}
	free(buf);
	fclose(f);
	return ok;
}

static const struct tsdl_layout *scan_ctx(const struct tsdl_packets *tp, uint64_t sc)
{
	for (size_t k = 0; k < tp->nstreams; k++)
		if (tp->sc_id[k] == sc)
			return &tp->ctx[k];
	return NULL;
}

/* The packet at k->off of file f read from its header and context in buf
 * (len bytes): 1, or 0. */
static int scan_packet(const bt_trace_class *tc, const struct tsdl_packets *tp,
		       const unsigned char *buf, size_t len, const struct ctf_pfile *f,
		       struct ctf_pkt *k)
{
	const struct tsdl_layout *l;
	uint64_t magic, bits;

	k->sc_id = 0;
	if (tp->header.bits > len * 8 ||
	    (sht__tsdl_get(&tp->header, buf, "magic", &magic) && magic != CTF_MAGIC))
		return 0;
	sht__tsdl_get(&tp->header, buf, "stream_id", &k->sc_id);
	if (!(l = scan_ctx(tp, k->sc_id)) || l->bits > len * 8 ||
	    !sht__tsdl_get(l, buf, "timestamp_begin", &k->cyc_begin) ||
	    !sht__tsdl_get(l, buf, "timestamp_end", &k->cyc_end))
		return 0;
	if (!sht__tsdl_get(l, buf, "packet_size", &bits))
		bits = (f->size - k->off) * 8;
	if (!sht__tsdl_get(l, buf, "content_size", &k->content))
		k->content = bits;
	if (!sht__tsdl_get(l, buf, "events_discarded", &k->disc))
		k->disc = 0;
	if (bits == 0 || bits % 8 || bits / 8 > f->size - k->off ||
	    k->content > bits || k->cyc_begin > k->cyc_end)
		return 0;
	k->size = bits / 8;
	return sht__ctf_cycles_ns(tc, k->sc_id, k->cyc_begin, &k->begin) &&
	       sht__ctf_cycles_ns(tc, k->sc_id, k->cyc_end, &k->end);
}

/* The packets of data file f of dir, walked by their headers: 1, or 0. */
static int scan_file(const char *dir, const bt_trace_class *tc,
		     const struct tsdl_packets *tp, struct ctf_pfile *f)
{
	unsigned char buf[4096];
	char path[PATH_MAX];
	struct ctf_pkt k;
	size_t cap = 0;
	FILE *in;
	int ok = 1;

	if (snprintf(path, sizeof path, "%s/%s", dir, f->name) >= (int)sizeof path ||
	    !(in = fopen(path, "rb")))
		return 0;
	for (k.off = 0; ok && k.off < f->size; k.off += k.size) {
		size_t got = fseeko(in, (off_t)k.off, SEEK_SET) == 0
			     ? fread(buf, 1, sizeof buf, in) : 0;
		ok = got > 0 && scan_packet(tc, tp, buf, got, f, &k) && pfile_push(f, &cap, &k);
	}
	fclose(in);
	if (!ok) {
		free(f->pk);
		f->pk = NULL;
		f->n = 0;
	}
	return ok;
}

/* ---- a directory ---------------------------------------------------------- */

void sht__ctf_ptab_free(struct ctf_ptab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->f[i].name);
		free(t->f[i].pk);
	}
	free(t->f);
	free(t->tp);
	memset(t, 0, sizeof *t);
}

static int ptab_add(struct ctf_ptab *t, size_t *cap, const char *name,
		    uint64_t size)
{
	if (t->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct ctf_pfile *n = realloc(t->f, nc * sizeof *n);
		if (!n)
			return 0;
		t->f = n;
		*cap = nc;
	}
	memset(&t->f[t->n], 0, sizeof t->f[t->n]);
	t->f[t->n].size = size;
	if (!(t->f[t->n].name = strdup(name)))
		return 0;
	t->n++;
	return 1;
}

/* File f has no usable index: walk its packets (the layouts parsed once). */
static void ptab_scan(struct ctf_ptab *t, const char *dir, const bt_trace_class *tc,
		      struct ctf_pfile *f)
{
	t->from_index = 0;
	if (!t->layouts) {
		t->tp = calloc(1, sizeof *t->tp);
		t->layouts = t->tp && sht__ctf_layouts(dir, t->tp) ? 2 : 1;
	}
	if (t->layouts != 2 || !scan_file(dir, tc, t->tp, f))
		t->usable = 0;
}

sht_err sht__ctf_ptab_build(const char *dir, const bt_trace_class *tc,
			    struct ctf_ptab *t)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	uint64_t size;
	sht_err err = SHT_OK;

	memset(t, 0, sizeof *t);
	t->usable = 1;
	t->from_index = 1;
	if (!d)
		return sht__error(SHT_ERR_IO, "Cannot list CTF trace: path=%s", dir);
	while (err == SHT_OK && (de = readdir(d)) != NULL) {
		if (!sht__ctf_is_data(dir, de->d_name, &size))
			continue;
		if (!ptab_add(t, &cap, de->d_name, size))
			err = sht__error(SHT_ERR_NOMEM, "Cannot index CTF trace: out of memory");
	}
	closedir(d);
	for (size_t i = 0; err == SHT_OK && i < t->n; i++)
		if (!idx_file(tc, dir, &t->f[i]))
			ptab_scan(t, dir, tc, &t->f[i]);
	if (err != SHT_OK)
		sht__ctf_ptab_free(t);
	return err;
}
