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
#include <string.h>
#include <sys/stat.h>

#include "ctf-int.h"
#include "util/util.h"

#define TRUNC_MAGIC 0xC1F1DCC1u
#define TRUNC_HEADER 16u
#define TRUNC_ENTRY_MIN 16u       /* offset, packet_size */
#define TRUNC_ENTRY_MAX 1024u

static uint64_t trunc_be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The first packet of index f that does not fit in size bytes: 1 with
 * its number, offset and end, 0 if all fit (or f is not an index). */
static int trunc_missing(FILE *f, uint64_t size, uint64_t *pkt,
			 uint64_t *off, uint64_t *end, uint64_t *count)
{
	unsigned char h[TRUNC_HEADER], e[TRUNC_ENTRY_MAX];
	uint64_t len, k = 0;
	int found = 0;

	if (fread(h, 1, sizeof h, f) != sizeof h ||
	    trunc_be(h, 4) != TRUNC_MAGIC)
		return 0;
	len = trunc_be(h + 12, 4);
	if (len < TRUNC_ENTRY_MIN || len > TRUNC_ENTRY_MAX)
		return 0;
	for (; fread(e, 1, len, f) == len; k++) {
		uint64_t o = trunc_be(e, 8), bits = trunc_be(e + 8, 8);
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
	char path[PATH_MAX], idx[PATH_MAX];
	struct stat sb;
	uint64_t pkt = 0, off = 0, end = 0, count = 0;
	FILE *f;
	int bad;

	if (name[0] == '.' || strcmp(name, "metadata") == 0)
		return SHT_OK;
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
	    snprintf(idx, sizeof idx, "%s/index/%s.idx", dir, name) >= (int)sizeof idx ||
	    stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return SHT_OK;
	f = fopen(idx, "rb");
	if (!f)
		return SHT_OK;
	bad = trunc_missing(f, (uint64_t)sb.st_size, &pkt, &off, &end, &count);
	fclose(f);
	if (!bad)
		return SHT_OK;
	return sht__error(SHT_ERR_CORRUPT, "Cannot open CTF trace: stream file %s "
			  "is truncated: it has %llu bytes, but its index %s "
			  "describes %llu packets, and packet %llu (bytes %llu to "
			  "%llu) is missing", path, (unsigned long long)sb.st_size,
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
