/*
 * ctf-view.c: seeking a CTF trace by its packet index.  babeltrace2
 * 2.0.4's src.ctf.fs cannot start a stream anywhere but at its beginning
 * (its time seek reads from the start, and can abort), but it reads the
 * packets its index lists, in that order, from their offsets.  A view of
 * the trace for time t is a temporary directory per trace directory with
 *
 *   metadata           a link to the trace's
 *   <data file>        a link to each data file of the trace
 *   index/<file>.idx   an LTTng index (1.0) listing the file's packets
 *                      from the first one that can hold an event at or
 *                      after t, to the end of the file
 *
 * so that src.ctf.fs, opened on the view, decodes each stream from that
 * packet on.  babeltrace2 uses an index only if its packets add up to the
 * file's size; the first packet listed is therefore given the size of
 * everything before it as well (babeltrace2 reads a packet from its
 * offset and takes its size from the packet itself; the index's sizes
 * only validate the index).
 *
 * Packet k of a file can hold an event at or after t if its end, or the
 * next packet's beginning (babeltrace2 corrects the ends of some LTTng
 * versions' packets to that), is at or after t; the file's last packet
 * always can.  Every file keeps at least its last packet: the streams
 * stay the same, in the same order, as on the whole trace.  The events
 * before t of those first packets are read and dropped by the caller.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf-int.h"
#include "util/util.h"

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void put_be64(unsigned char *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

size_t sht__ctf_view_first(const struct ctf_pfile *f, int64_t t)
{
	for (size_t k = 0; k + 1 < f->n; k++)
		if (f->pk[k].end >= t || f->pk[k + 1].begin >= t)
			return k;
	return f->n ? f->n - 1 : 0;
}

/* index/<name>.idx of view directory vd: the packets of f from first on. */
static sht_err write_index(const char *vd, const struct ctf_pfile *f, size_t first)
{
	char path[PATH_MAX];
	unsigned char e[56];
	FILE *out;
	int ok;

	if (snprintf(path, sizeof path, "%s/index/%s.idx", vd, f->name) >= (int)sizeof path)
		return sht__error(SHT_ERR_INVALID, "Cannot seek CTF trace: path too long: %s", vd);
	if (!(out = fopen(path, "wb")))
		return sht__error(SHT_ERR_IO, "Cannot seek CTF trace: cannot write %s: %s",
				  path, strerror(errno));
	put_be32(e, 0xC1F1DCC1u);
	put_be32(e + 4, 1);
	put_be32(e + 8, 0);
	put_be32(e + 12, sizeof e);
	ok = fwrite(e, 1, 16, out) == 16;
	for (size_t k = first; ok && k < f->n; k++) {
		const struct ctf_pkt *p = &f->pk[k];
		uint64_t size = k == first ? p->off + p->size : p->size;

		put_be64(e, p->off);
		put_be64(e + 8, size * 8);
		put_be64(e + 16, p->content);
		put_be64(e + 24, p->cyc_begin);
		put_be64(e + 32, p->cyc_end);
		put_be64(e + 40, p->disc);
		put_be64(e + 48, p->sc_id);
		ok = fwrite(e, 1, sizeof e, out) == sizeof e;
	}
	if (fclose(out) != 0)
		ok = 0;
	return ok ? SHT_OK : sht__error(SHT_ERR_IO, "Cannot seek CTF trace: cannot write %s",
					path);
}

static sht_err link_to(const char *target_dir, const char *name, const char *vd)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (snprintf(from, sizeof from, "%s/%s", target_dir, name) >= (int)sizeof from ||
	    snprintf(to, sizeof to, "%s/%s", vd, name) >= (int)sizeof to)
		return sht__error(SHT_ERR_INVALID, "Cannot seek CTF trace: path too long: %s",
				  target_dir);
	if (symlink(from, to) != 0)
		return sht__error(SHT_ERR_IO, "Cannot seek CTF trace: cannot link %s: %s",
				  to, strerror(errno));
	return SHT_OK;
}

/* The view of trace directory dir (table t) for time ts, in vd. */
static sht_err view_dir(const char *dir, const struct ctf_ptab *t, int64_t ts,
			const char *vd)
{
	char abs[PATH_MAX], idx[PATH_MAX];
	sht_err err = SHT_OK;

	if (!realpath(dir, abs))
		return sht__error(SHT_ERR_IO, "Cannot seek CTF trace: path=%s: %s", dir,
				  strerror(errno));
	if (snprintf(idx, sizeof idx, "%s/index", vd) >= (int)sizeof idx)
		return sht__error(SHT_ERR_INVALID, "Cannot seek CTF trace: path too long: %s", vd);
	if (mkdir(vd, 0700) != 0 || mkdir(idx, 0700) != 0)
		return sht__error(SHT_ERR_IO, "Cannot seek CTF trace: cannot make %s: %s",
				  vd, strerror(errno));
	err = link_to(abs, "metadata", vd);
	for (size_t i = 0; err == SHT_OK && i < t->n; i++) {
		err = link_to(abs, t->f[i].name, vd);
		if (err == SHT_OK && t->f[i].n)
			err = write_index(vd, &t->f[i], sht__ctf_view_first(&t->f[i], ts));
	}
	return err;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void sht__ctf_view_free(struct ctf_view *v)
{
	if (v->root)             /* links are removed, not followed */
		nftw(v->root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	for (size_t k = 0; k < v->n; k++)
		free(v->dirs[k]);
	free(v->dirs);
	free(v->root);
	memset(v, 0, sizeof *v);
}

sht_err sht__ctf_view_make(char *const *dirs, size_t n, const struct ctf_ptab *tabs,
			   int64_t ts, struct ctf_view *v)
{
	const char *tmp = getenv("TMPDIR");
	char root[PATH_MAX];
	sht_err err = SHT_OK;

	memset(v, 0, sizeof *v);
	snprintf(root, sizeof root, "%s/sht-seek-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		return sht__error(SHT_ERR_IO, "Cannot seek CTF trace: cannot make a "
				  "directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
				  strerror(errno));
	if (!(v->root = strdup(root)) || !(v->dirs = calloc(n, sizeof *v->dirs))) {
		if (!v->root)
			rmdir(root);
		sht__ctf_view_free(v);
		return sht__error(SHT_ERR_NOMEM, "Cannot seek CTF trace: out of memory");
	}
	for (size_t k = 0; err == SHT_OK && k < n; k++) {
		char vd[PATH_MAX];

		if (snprintf(vd, sizeof vd, "%.*s/t%zu", PATH_MAX - 32, root, k) >= (int)sizeof vd)
			vd[0] = '\0';
		if (!(v->dirs[k] = strdup(vd)))
			err = sht__error(SHT_ERR_NOMEM, "Cannot seek CTF trace: out of memory");
		else
			err = view_dir(dirs[k], &tabs[k], ts, vd);
		v->n = k + 1;
	}
	if (err != SHT_OK)
		sht__ctf_view_free(v);
	return err;
}
