/*
 * ctf-check.c: the packets of every stream file of a CTF trace checked by
 * their own headers before babeltrace2 sees the trace.  babeltrace2 2.0.4
 * loops for ever (memory growing without bound) on a packet whose size is
 * 0, and fails an assertion of its own (abort) on a packet size of 2^63
 * bits or more, both inside the source component's creation, where no
 * caller can stop it: a server would hang or die with it.  So
 * sht_ctf_open walks each stream file from byte 0 by its packets'
 * packet_size (the layouts of the packet header and of each stream
 * class's packet context come from the TSDL metadata, ctf-tsdl.c) and
 * refuses the trace, naming the file, the packet's byte offset and what
 * is wrong, if a packet's size is 0, not a whole number of bytes, 2^63
 * bits or more, or smaller than its header and context, or if its
 * content size is larger than its packet size or smaller than its header
 * and context.  Each packet costs one read of its header (a few dozen
 * bytes), so every file is checked, with an LTTng index or not.
 *
 * What this walk cannot judge is left to babeltrace2, as before: a
 * trace whose packet layouts are unknown (a header or context without a
 * fixed layout, ctf-tsdl.h), a packet whose magic number is wrong or
 * whose stream class is not in the metadata (babeltrace2 says so), and a
 * packet running past the end of its file (the file cut inside a packet,
 * which babeltrace2 refuses when it gets there).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctf-int.h"
#include "ctf-tsdl.h"
#include "util/util.h"

#define CHECK_MAGIC 0xC1FC1FC1u
#define CHECK_HEAD 4096u          /* bytes read per packet, at most */

struct check_file {
	const char *dir, *name;
	uint64_t size;                /* bytes */
	const struct tsdl_packets *tp;
	size_t head;                  /* bytes to read per packet */
};

static const struct tsdl_layout *check_ctx(const struct tsdl_packets *tp,
					   uint64_t sc)
{
	for (size_t k = 0; k < tp->nstreams; k++)
		if (tp->sc_id[k] == sc)
			return &tp->ctx[k];
	return NULL;
}

/* What is wrong with a packet of bits bits (content bits of content)
 * whose header and context take hdr bits: a phrase, or NULL. */
static const char *check_sizes(uint64_t bits, uint64_t content, uint64_t hdr,
			       char *why, size_t n)
{
	unsigned long long b = bits, c = content, h = hdr;

	if (bits == 0)
		snprintf(why, n, "its packet size is 0");
	else if (bits >= (UINT64_C(1) << 63))
		snprintf(why, n, "its packet size, %llu bits, is 2^63 bits or more", b);
	else if (bits % 8)
		snprintf(why, n, "its packet size, %llu bits, is not a whole "
			 "number of bytes", b);
	else if (bits < hdr)
		snprintf(why, n, "its packet size, %llu bits, is smaller than its "
			 "header and context (%llu bits)", b, h);
	else if (content > bits)
		snprintf(why, n, "its content size, %llu bits, is greater than its "
			 "packet size, %llu bits", c, b);
	else if (content < hdr)
		snprintf(why, n, "its content size, %llu bits, is smaller than its "
			 "header and context (%llu bits)", c, h);
	else
		return NULL;
	return why;
}

/* The packet at off (got bytes of it in buf): 1 and its size in *bytes
 * if sound, 0 to stop the walk (left to babeltrace2), -1 with *why set
 * if corrupt. */
static int check_packet(const struct check_file *cf, const unsigned char *buf,
			size_t got, uint64_t off, uint64_t *bytes,
			char *why, size_t n)
{
	const struct tsdl_layout *l;
	uint64_t magic, sc = 0, bits, content;

	if (cf->tp->header.bits > got * 8 ||
	    (sht__tsdl_get(&cf->tp->header, buf, "magic", &magic) &&
	     magic != CHECK_MAGIC))
		return 0;
	sht__tsdl_get(&cf->tp->header, buf, "stream_id", &sc);
	if (!(l = check_ctx(cf->tp, sc)) || l->bits > got * 8)
		return 0;
	if (!sht__tsdl_get(l, buf, "packet_size", &bits))
		bits = (cf->size - off) * 8;      /* the rest of the file */
	if (!sht__tsdl_get(l, buf, "content_size", &content))
		content = bits;
	if (check_sizes(bits, content, l->bits, why, n))
		return -1;
	if (bits / 8 > cf->size - off)
		return 0;                         /* cut inside this packet */
	*bytes = bits / 8;
	return 1;
}

/* Walk the packets of the open file fd. */
static sht_err check_walk(const struct check_file *cf, int fd)
{
	unsigned char buf[CHECK_HEAD];
	char why[160];
	uint64_t off = 0, bytes = 0;
	int r = 1;

	while (r == 1 && off < cf->size) {
		uint64_t left = cf->size - off;
		size_t want = left < cf->head ? (size_t)left : cf->head;
		ssize_t got = pread(fd, buf, want, (off_t)off);

		if (got < 0)
			return sht__error(SHT_ERR_IO, "Cannot open CTF trace: "
					  "cannot read stream file %s/%s: %s",
					  cf->dir, cf->name, strerror(errno));
		r = got > 0 ? check_packet(cf, buf, (size_t)got, off, &bytes,
					   why, sizeof why) : 0;
		if (r < 0)
			return sht__error(SHT_ERR_CORRUPT, "Cannot open CTF trace: "
					  "stream file %s/%s: the packet at byte "
					  "%llu is corrupt: %s", cf->dir, cf->name,
					  (unsigned long long)off, why);
		off += r == 1 ? bytes : 0;
	}
	return SHT_OK;
}

static sht_err check_file(struct check_file *cf, const char *name)
{
	char path[PATH_MAX];
	sht_err err;
	int fd;

	if (!sht__ctf_is_data(cf->dir, name, &cf->size) ||
	    snprintf(path, sizeof path, "%s/%s", cf->dir, name) >= (int)sizeof path)
		return SHT_OK;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SHT_OK;                    /* babeltrace2 will say why */
	cf->name = name;
	err = check_walk(cf, fd);
	close(fd);
	return err;
}

/* Bytes of a packet to read: its header and the largest context. */
static size_t check_head(const struct tsdl_packets *tp)
{
	uint64_t bits = tp->header.bits;

	for (size_t k = 0; k < tp->nstreams; k++)
		if (tp->ctx[k].bits > bits)
			bits = tp->ctx[k].bits;
	bits = (bits + 7) / 8;
	return bits < CHECK_HEAD ? (size_t)bits : CHECK_HEAD;
}

sht_err sht__ctf_check_packets(const char *dir)
{
	struct tsdl_packets *tp = calloc(1, sizeof *tp);
	struct check_file cf = { .dir = dir, .tp = tp };
	struct dirent *de;
	sht_err err = SHT_OK;
	DIR *d;

	if (!tp)
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: "
				  "path=%s: out of memory", dir);
	if (!sht__ctf_layouts(dir, tp) || !(d = opendir(dir))) {
		free(tp);
		return SHT_OK;                    /* unknown: babeltrace2 judges */
	}
	cf.head = check_head(tp);
	while (err == SHT_OK && (de = readdir(d)) != NULL)
		err = check_file(&cf, de->d_name);
	closedir(d);
	free(tp);
	return err;
}
