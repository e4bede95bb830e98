/*
 * ctf-trunc.c: a stream file cut at a packet boundary is a well-formed
 * shorter stream, which babeltrace2 reads without complaint (a cut inside
 * a packet it refuses itself).  LTTng's packet index says how long each
 * stream file is: sht_ctf_open refuses a trace whose stream file is
 * shorter than the packets its index (<trace>/index/<file>.idx, format in
 * ctf-span.c) describes, naming the file and the first packet missing, so
 * a half-copied trace never gives a history that looks complete.
 *
 * Only that one disagreement is an error: a missing or unreadable index,
 * an index of another format, or a stream file longer than its index
 * (LTTng still writing) are left to babeltrace2 as before.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>

#include "ctf-int.h"
#include "util/util.h"

#define TRUNC_ENTRY_MIN 16u       /* offset, packet_size */

/* The first packet of index f that does not fit in size bytes: 1 with
 * its number, offset and end, 0 if all fit (or f is not an index). */
static int trunc_missing(FILE *f, uint64_t size, uint64_t *pkt,
			 uint64_t *off, uint64_t *end, uint64_t *count)
{
	unsigned char e[SHT__CTF_IDX_ENTRY_MAX];
	uint32_t major, len;
	uint64_t k = 0;
	int found = 0;

	if (!sht__ctf_idx_header(f, &major, &len) || len < TRUNC_ENTRY_MIN)
		return 0;
	for (; fread(e, 1, len, f) == len; k++) {
		uint64_t o = sht__ctf_be64(e), bits = sht__ctf_be64(e + 8);
		uint64_t bytes = bits / 8;

		if (!found && (o > size || bytes > size - o)) {
			found = 1;
			*pkt = k;
			*off = o;
			*end = o + bytes < o ? UINT64_MAX : o + bytes;
		}
	}
	*count = k;
	return found;
}

/* Check one stream file of dir. */
static sht_err trunc_file(const char *dir, const char *name)
{
	char idx[PATH_MAX];
	uint64_t size, pkt = 0, off = 0, end = 0, count = 0;
	FILE *f;
	int bad;

	if (!sht__ctf_is_data(dir, name, &size) ||
	    snprintf(idx, sizeof idx, "%s/index/%s.idx", dir, name) >= (int)sizeof idx)
		return SHT_OK;
	f = fopen(idx, "rb");
	if (!f)
		return SHT_OK;
	bad = trunc_missing(f, size, &pkt, &off, &end, &count);
	fclose(f);
	if (!bad)
		return SHT_OK;
	return sht__error(SHT_ERR_CORRUPT, "Cannot open CTF trace: stream file %s/%s "
			  "is truncated: it has %llu bytes, but its index %s "
			  "describes %llu packets, and packet %llu (bytes %llu to "
			  "%llu) is missing", dir, name, (unsigned long long)size,
			  idx, (unsigned long long)count, (unsigned long long)pkt,
			  (unsigned long long)off, (unsigned long long)end);
}

sht_err sht__ctf_check_truncation(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	sht_err err = SHT_OK;

	if (!d)
		return SHT_OK;        /* babeltrace2 will say why */
	while (err == SHT_OK && (de = readdir(d)) != NULL)
		err = trunc_file(dir, de->d_name);
	closedir(d);
	return err;
}
