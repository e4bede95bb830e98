/*
 * resume-file.c: resumable builds on disk (sht/resume.h): a checkpoint as
 * the bytes of its resume file, written durably, read back and checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sht/resume.h"
#include "util/buf.h"
#include "util/util.h"

#define MAGIC "SHTRESUM"
#define VERSION 1u
#define MAX_FILE (UINT64_C(1) << 40)

struct sht_resume {
	uint8_t *bytes;               /* the file, CRC included */
	size_t len;
	/* parsed (in bytes) */
	const void *ident, *prov, *state;
	size_t ident_len, prov_len, state_len;
	sht_resume_info info;
};

void sht_resume_destroy(sht_resume *r)
{
	if (!r)
		return;
	free(r->bytes);
	free(r);
}

/* Parse r->bytes (CRC checked before). */
static sht_err parse(sht_resume *r)
{
	struct sht__rbuf b = { r->bytes, r->len - 4, 0, 0 };
	const void *magic = sht__r_bytes(&b, 8);

	if (!magic || memcmp(magic, MAGIC, 8) != 0 || sht__r_u32(&b) != VERSION)
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume: not a resume file of this version");
	r->ident = sht__r_blob(&b, &r->ident_len);
	r->info.pos = sht__r_u64(&b);
	r->info.ts = (sht_time)sht__r_u64(&b);
	for (int i = 0; i < 8; i++)
		r->info.counters[i] = sht__r_u64(&b);
	r->prov = sht__r_blob(&b, &r->prov_len);
	r->state = sht__r_blob(&b, &r->state_len);
	if (b.bad || b.off != b.n)
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume: the resume file's layout is damaged");
	return SHT_OK;
}

sht_err sht_resume_capture(sht_state *ss, const sht_provider *p,
			   const void *ident, size_t ident_len,
			   const sht_resume_info *info, sht_resume **out)
{
	struct sht__wbuf w = { NULL, 0, 0, 0 };
	void *prov = NULL, *state = NULL;
	size_t prov_len = 0, state_len = 0;
	sht_resume *r = NULL;
	sht_err err = SHT_OK;

	if (p && p->save)
		err = p->save(p->ctx, &prov, &prov_len);
	if (err == SHT_OK)
		err = sht_state_checkpoint(ss, &state, &state_len);
	if (err == SHT_OK) {
		sht__w_bytes(&w, MAGIC, 8);
		sht__w_u32(&w, VERSION);
		sht__w_blob(&w, ident, ident_len);
		sht__w_u64(&w, info->pos);
		sht__w_u64(&w, (uint64_t)info->ts);
		for (int i = 0; i < 8; i++)
			sht__w_u64(&w, info->counters[i]);
		sht__w_blob(&w, prov, prov_len);
		sht__w_blob(&w, state, state_len);
		sht__w_u32(&w, sht__crc32c(0, w.p, w.n));
	}
	free(prov);
	free(state);
	if (err == SHT_OK && (w.bad || !(r = calloc(1, sizeof *r))))
		err = sht__error(SHT_ERR_NOMEM, "Cannot checkpoint: out of memory");
	if (err != SHT_OK || !r) {
		free(w.p);
		return err;
	}
	r->bytes = w.p;
	r->len = w.n;
	err = parse(r);
	if (err != SHT_OK) {
		sht_resume_destroy(r);
		return err;
	}
	*out = r;
	return SHT_OK;
}

/* ---- the file -------------------------------------------------------------- */

static sht_err io_error(const char *what, const char *path)
{
	int e = errno;

	return sht__error_sys(SHT_ERR_IO, e, "Cannot %s resume file: path=%s: %s",
			      what, path, strerror(e));
}

/* fsync the directory holding path (the rename's entry). */
static sht_err sync_dir(const char *path)
{
	char buf[PATH_MAX];
	int fd;

	snprintf(buf, sizeof buf, "%s", path);
	fd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return io_error("sync the directory of the", path);
	if (fsync(fd) != 0) {
		sht_err err = io_error("sync the directory of the", path);
		close(fd);
		return err;
	}
	close(fd);
	return SHT_OK;
}

static sht_err write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return SHT_ERR_IO;
		p += w;
		n -= (size_t)w;
	}
	return SHT_OK;
}

sht_err sht_resume_commit(const sht_resume *r, sht_state *ss, const char *path)
{
	char tmp[PATH_MAX];
	sht_err err = sht_state_sync(ss);
	int fd;

	if (err != SHT_OK)
		return err;
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return sht__error(SHT_ERR_INVALID, "Cannot write resume file: path too long: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return io_error("create", tmp);
	if (write_all(fd, r->bytes, r->len) != SHT_OK || fsync(fd) != 0) {
		err = io_error("write", tmp);
		close(fd);
		unlink(tmp);
		return err;
	}
	if (close(fd) != 0 || rename(tmp, path) != 0) {
		err = io_error("write", path);
		unlink(tmp);
		return err;
	}
	return sync_dir(path);
}

/* The whole file at path into r->bytes. */
static sht_err slurp(const char *path, sht_resume *r)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return errno == ENOENT ? SHT_NOT_FOUND : io_error("open", path);
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return io_error("read", path);
	}
	if ((uint64_t)n > MAX_FILE || n < 4 ||
	    !(r->bytes = malloc((size_t)n)) || fread(r->bytes, 1, (size_t)n, f) != (size_t)n) {
		sht_err err = n < 4 || (uint64_t)n > MAX_FILE
			      ? sht__error(SHT_ERR_CORRUPT, "Cannot resume: %s has %ld bytes", path, n)
			      : r->bytes ? io_error("read", path)
			      : sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
		fclose(f);
		return err;
	}
	fclose(f);
	r->len = (size_t)n;
	return SHT_OK;
}

sht_err sht_resume_open(const char *path, const void *ident, size_t ident_len,
			sht_resume **out)
{
	sht_resume *r = calloc(1, sizeof *r);
	sht_err err;

	if (!r)
		return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	err = slurp(path, r);
	if (err == SHT_OK &&
	    sht__crc32c(0, r->bytes, r->len - 4) != sht__get_u32(r->bytes + r->len - 4))
		err = sht__error(SHT_ERR_CORRUPT, "Cannot resume: %s is damaged (checksum)", path);
	if (err == SHT_OK)
		err = parse(r);
	if (err == SHT_OK && (r->ident_len != ident_len ||
			      (ident_len && memcmp(r->ident, ident, ident_len) != 0)))
		err = sht__error(SHT_ERR_INVALID, "Cannot resume: %s is the checkpoint "
				 "of another build (trace or options differ)", path);
	if (err != SHT_OK) {
		sht_resume_destroy(r);
		return err;
	}
	*out = r;
	return SHT_OK;
}

sht_err sht_resume_start(const sht_resume *r, const char *history,
			 const sht_state_opts *opts, const sht_provider *p,
			 sht_state **ss, sht_resume_info *info)
{
	sht_err err = SHT_OK;

	if (r->prov_len && (!p || !p->load))
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume: the checkpoint "
				  "holds a provider state this provider cannot load");
	if (r->prov_len)
		err = p->load(p->ctx, r->prov, r->prov_len);
	if (err == SHT_OK)
		err = sht_state_resume(history, r->state, r->state_len, opts, ss);
	if (err == SHT_OK)
		*info = r->info;
	return err;
}
