/*
 * ctfw.c: the CTF 1.8 trace writer (ctfw.h): its life (create, the
 * environment and event classes, finish, destroy), the LTTng index and
 * the directory.  Events and packets are in ctfw-stream.c, the metadata
 * text in ctfw-meta.c, the packet layout in ctfw-int.h.
 *
 *   create --> WRITING --[event, env, event_class]--> WRITING
 *                 |--[finish]--> FINISHED (DIR in place)
 *                 +--any error--> FAILED (sticky: SHT_ERR_STATE after)
 *   destroy: frees; unless DIR was renamed into place, removes the files
 *   it created under DIR.tmp-PID and that directory.
 *
 * Invariants:
 *  (1) Each CPU has one packet buffer of packet_size bytes, allocated at
 *      its first event; an event is encoded straight into it, and a full
 *      packet goes out with one write() (a loop only for partial writes).
 *  (2) A packet holds at least one event, so timestamp_begin and
 *      timestamp_end are its first and last events' cycles, and the
 *      packets of a stream never overlap in time.  The only exception:
 *      a CPU without any event gets one empty packet (so every CPU has
 *      its stream, as in LTTng traces), spanning the trace's first to
 *      last event (0 to 0 in a trace without events).
 *  (3) Every packet is packet_size bytes but the last of each stream,
 *      which is cut to its content rounded up to 4 KiB, as LTTng cuts
 *      the packets it flushes at stop.  The index entries cover the
 *      stream file exactly (babeltrace2 checks the sum).
 *  (4) Nothing under DIR.tmp-PID is trusted to be complete until finish
 *      has written and synced every file; DIR appears by one rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gen/ctfw-int.h"
#include "gen/gen-int.h"

/* ---- errors ------------------------------------------------------------- */

sht_err shtgen_ctfw_fail(shtgen_ctfw *w, sht_err err, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!w->failed)
		w->failed = err;
	return sht_error_set(err, "Cannot write CTF trace: dir=%s: %s", w->dir,
			  msg);
}

sht_err shtgen_ctfw_io(shtgen_ctfw *w, const char *path, int errnum)
{
	return shtgen_ctfw_fail(w, SHT_ERR_IO, "path=%s: %s", path,
			      errnum ? strerror(errnum) : "short write");
}

sht_err shtgen_ctfw_check(const shtgen_ctfw *w)
{
	if (!w)
		return sht_error_set(SHT_ERR_INVALID,
				  "Cannot write CTF trace: no writer");
	if (w->failed)
		return sht_error_set(SHT_ERR_STATE, "Cannot write CTF trace: "
				  "dir=%s: the writer failed earlier (%s)",
				  w->dir, sht_strerror(w->failed));
	if (w->finished)
		return sht_error_set(SHT_ERR_STATE, "Cannot write CTF trace: "
				  "dir=%s: already finished", w->dir);
	return SHT_OK;
}

/* ---- files -------------------------------------------------------------- */

static sht_err sync_close(shtgen_ctfw *w, int *fd, const char *path)
{
	int e = 0;

	if (fsync(*fd) != 0)
		e = errno;
	if (close(*fd) != 0 && !e)
		e = errno;
	*fd = -1;
	return e ? shtgen_ctfw_io(w, path, e) : SHT_OK;
}

/* Write a whole new file in tmp (metadata, an index) and sync it. */
static sht_err write_file(shtgen_ctfw *w, const char *path, const void *p,
			  size_t n, int *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	sht_err err;

	if (fd < 0)
		return shtgen_ctfw_io(w, path, errno);
	*created = 1;
	err = shtgen_ctfw_write_all(w, fd, p, n, path);
	if (err) {
		close(fd);
		return err;
	}
	return sync_close(w, &fd, path);
}

static sht_err sync_dir(shtgen_ctfw *w, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return shtgen_ctfw_io(w, path, errno);
	return sync_close(w, &fd, path);
}

/* ---- public: create ------------------------------------------------------ */

/* A random (version 4) UUID; if getrandom fails, one mixed from the
 * clock, the pid and the address of u. */
static void make_uuid(uint8_t u[16])
{
	if (getrandom(u, 16, 0) != 16) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
		    ((uint64_t)getpid() << 40) + (uint64_t)(uintptr_t)u;
		for (int i = 0; i < 16; i++) {
			x += 0x9e3779b97f4a7c15u;
			u[i] = (uint8_t)(((x ^ (x >> 29)) *
					  0xbf58476d1ce4e5b9u) >> 56);
		}
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

static sht_err opts_check(const char *dir, const shtgen_ctfw_opts *o)
{
	uint32_t ps = o->packet_size ? o->packet_size : CTFW_PACKET_DEFAULT;

	if (o->cpus < 1 || o->cpus > CTFW_MAX_CPUS)
		return sht_error_set(SHT_ERR_INVALID, "Cannot create CTF trace: "
				  "dir=%s: cpus=%u (1 to %u)", dir, o->cpus,
				  CTFW_MAX_CPUS);
	if (ps % CTFW_PAGE)
		return sht_error_set(SHT_ERR_INVALID, "Cannot create CTF trace: "
				  "dir=%s: packet_size=%u is not a multiple "
				  "of %u", dir, ps, CTFW_PAGE);
	if (o->clock_offset < 0)
		return sht_error_set(SHT_ERR_INVALID, "Cannot create CTF trace: "
				  "dir=%s: negative clock_offset %lld", dir,
				  (long long)o->clock_offset);
	return SHT_OK;
}

/* dir without trailing slashes, and dir ".tmp-" pid, into w. */
static sht_err make_paths(shtgen_ctfw *w, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	w->dir = strndup(dir, n);
	w->tmp = malloc(n + 32);
	if (!w->dir || !w->tmp)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot create CTF trace: "
				  "dir=%s: out of memory", dir);
	snprintf(w->tmp, n + 32, "%s.tmp-%ld", w->dir, (long)getpid());
	return SHT_OK;
}

static sht_err make_dirs(shtgen_ctfw *w)
{
	struct stat st;

	if (lstat(w->dir, &st) == 0)
		return sht_error_set(SHT_ERR_INVALID, "Cannot create CTF trace: "
				  "dir=%s: it exists", w->dir);
	if (errno != ENOENT)
		return sht_error_set(SHT_ERR_IO, "Cannot create CTF trace: "
				  "dir=%s: %s", w->dir, strerror(errno));
	if (mkdir(w->tmp, 0755) != 0)
		return sht_error_set(SHT_ERR_IO, "Cannot create CTF trace: "
				  "path=%s: %s", w->tmp, strerror(errno));
	return SHT_OK;
}

sht_err shtgen_ctfw_create(const char *dir, const shtgen_ctfw_opts *opts,
			 shtgen_ctfw **out)
{
	shtgen_ctfw *w;
	sht_err err;

	if (!dir || !*dir || !opts || !out)
		return sht_error_set(SHT_ERR_INVALID, "Cannot create CTF trace: "
				  "no directory, options or output");
	*out = NULL;
	if ((err = opts_check(dir, opts)) != SHT_OK)
		return err;
	w = calloc(1, sizeof *w);
	if (!w)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot create CTF trace: "
				  "dir=%s: out of memory", dir);
	w->cpus = opts->cpus;
	w->packet_size = opts->packet_size ? opts->packet_size :
			 CTFW_PACKET_DEFAULT;
	w->clock_offset = opts->clock_offset;
	w->st = calloc(w->cpus, sizeof *w->st);
	if (!w->st)
		err = sht_error_set(SHT_ERR_NOMEM, "Cannot create CTF trace: "
				 "dir=%s: out of memory", dir);
	if (!err)
		err = make_paths(w, dir);
	for (uint32_t i = 0; !err && i < w->cpus; i++)
		w->st[i].fd = -1;
	if (!err)
		err = make_dirs(w);
	if (err) {
		free(w->st);
		free(w->dir);
		free(w->tmp);
		free(w);
		return err;
	}
	make_uuid(w->uuid);
	if (opts->clock_uuid)
		memcpy(w->clock_uuid, opts->clock_uuid, 16);
	else
		make_uuid(w->clock_uuid);
	*out = w;
	return SHT_OK;
}

/* ---- public: finish ------------------------------------------------------ */

/* Close cpu's stream: its last packet, or an empty one if it had no
 * event (invariant 2), then sync the file. */
static sht_err finish_stream(shtgen_ctfw *w, uint32_t cpu)
{
	struct ctfw_stream *s = &w->st[cpu];
	char path[4200];
	sht_err err;

	if (!s->events) {
		s->buf = malloc(CTFW_PAGE);
		if (!s->buf)
			return shtgen_ctfw_fail(w, SHT_ERR_NOMEM,
					      "out of memory");
		s->used = CTFW_PKT_HEADER;
		s->begin = w->events ? w->first : 0;
		s->end = w->events ? w->last : 0;
	}
	if ((err = shtgen_ctfw_flush(w, cpu, 1)) != SHT_OK)
		return err;
	free(s->buf);
	s->buf = NULL;
	shtgen_ctfw_path(w, cpu, 0, path, sizeof path);
	return sync_close(w, &s->fd, path);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static sht_err write_index(shtgen_ctfw *w, uint32_t cpu)
{
	struct ctfw_stream *s = &w->st[cpu];
	size_t n = CTFW_INDEX_HEADER + s->npk * CTFW_INDEX_ENTRY;
	uint8_t *b = malloc(n), *p;
	char path[4200];
	sht_err err;

	if (!b)
		return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory");
	put_be32(b, CTFW_INDEX_MAGIC);
	put_be32(b + 4, CTFW_INDEX_MAJOR);
	put_be32(b + 8, CTFW_INDEX_MINOR);
	put_be32(b + 12, CTFW_INDEX_ENTRY);
	p = b + CTFW_INDEX_HEADER;
	for (size_t i = 0; i < s->npk; i++, p += CTFW_INDEX_ENTRY) {
		const struct ctfw_packet *pk = &s->pk[i];

		put_be64(p, pk->offset);
		put_be64(p + 8, pk->size * 8);
		put_be64(p + 16, pk->content);
		put_be64(p + 24, pk->begin);
		put_be64(p + 32, pk->end);
		put_be64(p + 40, 0);            /* events_discarded */
		put_be64(p + 48, 0);            /* stream_id */
		put_be64(p + 56, cpu);          /* stream_instance_id */
		put_be64(p + 64, i);            /* packet_seq_num */
	}
	shtgen_ctfw_path(w, cpu, 1, path, sizeof path);
	err = write_file(w, path, b, n, &s->idx_created);
	free(b);
	return err;
}

static sht_err write_metadata(shtgen_ctfw *w)
{
	char path[4200];
	size_t n;
	char *text = shtgen_ctfw_metadata(w, &n);
	sht_err err;

	if (!text)
		return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory");
	snprintf(path, sizeof path, "%s/metadata", w->tmp);
	err = write_file(w, path, text, n, &w->meta_created);
	free(text);
	return err;
}

/* rename(from, to) that fails with EEXIST if to exists (even empty). */
static int rename_noreplace(const char *from, const char *to)
{
	struct stat st;

#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
#endif
	if (lstat(to, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

/* Move tmp to dir, then sync dir's parent so the rename is durable. */
static sht_err publish(shtgen_ctfw *w)
{
	char *parent, *slash;
	sht_err err;

	if (rename_noreplace(w->tmp, w->dir) != 0) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			return shtgen_ctfw_fail(w, SHT_ERR_INVALID, "it exists "
					      "(the trace stays in %s until "
					      "destroy)", w->tmp);
		return shtgen_ctfw_io(w, w->dir, errno);
	}
	w->renamed = 1;
	parent = strdup(w->dir);
	if (!parent)
		return shtgen_ctfw_fail(w, SHT_ERR_NOMEM, "out of memory");
	slash = strrchr(parent, '/');
	if (slash)
		slash[slash == parent] = '\0';
	err = sync_dir(w, slash ? parent : ".");
	free(parent);
	return err;
}

sht_err shtgen_ctfw_finish(shtgen_ctfw *w, shtgen_ctfw_stats *stats)
{
	sht_err err = shtgen_ctfw_check(w);
	char path[4200];

	if (err)
		return err;
	for (uint32_t i = 0; !err && i < w->cpus; i++)
		err = finish_stream(w, i);
	snprintf(path, sizeof path, "%s/index", w->tmp);
	if (!err && mkdir(path, 0755) != 0)
		err = shtgen_ctfw_io(w, path, errno);
	if (!err)
		w->index_dir = 1;
	for (uint32_t i = 0; !err && i < w->cpus; i++)
		err = write_index(w, i);
	if (!err)
		err = write_metadata(w);
	if (!err)
		err = sync_dir(w, path);
	if (!err)
		err = sync_dir(w, w->tmp);
	if (!err)
		err = publish(w);
	if (err)
		return err;
	w->finished = 1;
	if (stats) {
		stats->events = w->events;
		stats->packets = w->packets;
		stats->bytes = w->bytes;
	}
	return SHT_OK;
}

/* ---- public: destroy ----------------------------------------------------- */

/* Remove what this writer created under tmp, and tmp itself. */
static void remove_tmp(const shtgen_ctfw *w)
{
	char path[4200];

	for (uint32_t i = 0; i < w->cpus; i++) {
		if (w->st[i].created) {
			shtgen_ctfw_path(w, i, 0, path, sizeof path);
			unlink(path);
		}
		if (w->st[i].idx_created) {
			shtgen_ctfw_path(w, i, 1, path, sizeof path);
			unlink(path);
		}
	}
	snprintf(path, sizeof path, "%s/metadata", w->tmp);
	if (w->meta_created)
		unlink(path);
	snprintf(path, sizeof path, "%s/index", w->tmp);
	if (w->index_dir)
		rmdir(path);
	rmdir(w->tmp);
}

void shtgen_ctfw_destroy(shtgen_ctfw *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->cpus; i++) {
		if (w->st[i].fd >= 0)
			close(w->st[i].fd);
		free(w->st[i].buf);
		free(w->st[i].pk);
	}
	if (!w->renamed)
		remove_tmp(w);
	for (size_t i = 0; i < w->nenv; i++) {
		free(w->env[i].name);
		free(w->env[i].str);
	}
	for (size_t i = 0; i < w->ncls; i++) {
		for (size_t j = 0; j < w->cls[i].nfields; j++)
			free(w->cls[i].fields[j].name);
		free(w->cls[i].fields);
		free(w->cls[i].name);
	}
	free(w->env);
	free(w->cls);
	free(w->st);
	free(w->dir);
	free(w->tmp);
	free(w);
}
