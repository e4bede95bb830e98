/*
 * reuse.c: the reuse rule of history files (reuse.h), from `sht build`.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reuse.h"

/* Section kind of a partial history's checkpoints (docs/FORMAT.md): u64
 * count, u64 events between checkpoints, u64 events, entries. */
#define FE_SECTION_CHECKPOINTS 3u

/* The events between checkpoints (0: a full history) and the block size
 * of file; -1 if it cannot be read. */
static int file_shape(const char *file, int64_t *every_out,
		      uint32_t *block_size)
{
	sht_reader *r;
	sht_tree_info in;
	void *data = NULL;
	size_t len = 0;
	uint64_t every = 0;
	sht_err err;

	if (sht_reader_open(file, NULL, &r) != SHT_OK)
		return -1;
	sht_reader_info_get(r, &in);
	*block_size = in.block_size;
	err = sht_reader_section(r, FE_SECTION_CHECKPOINTS, NULL, &data, &len);
	if (err == SHT_OK && len >= 16) {
		const uint8_t *b = data;

		for (int i = 0; i < 8; i++)   /* little-endian u64 at 8 */
			every |= (uint64_t)b[8 + i] << (8 * i);
	}
	free(data);
	sht_reader_close(r);
	if (err == SHT_NOT_FOUND)
		every = 0;
	else if (err != SHT_OK || len < 16 || every == 0 || every > INT64_MAX)
		return -1;
	*every_out = (int64_t)every;
	return 0;
}

int64_t fe_partial_every(const char *file)
{
	int64_t every;
	uint32_t block_size;

	return file_shape(file, &every, &block_size) == 0 ? every : -1;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* The latest modification time of the regular files below dir (depth
 * limited; a file: its own), into *newest; 0 if it could be read. */
static int newest_mtime(const char *dir, int depth, struct timespec *newest)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char *path;
	size_t len;
	int status = 0;

	if (depth > 8)
		return 0;
	if (depth == 0 && stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
		*newest = st.st_mtim;
		return 0;
	}
	d = opendir(dir);
	if (!d)
		return -1;
	while (status == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		len = strlen(dir) + strlen(de->d_name) + 2;
		path = malloc(len);
		if (!path) {
			status = -1;
			break;
		}
		snprintf(path, len, "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0)
			status = -1;
		else if (S_ISDIR(st.st_mode))
			status = newest_mtime(path, depth + 1, newest);
		else if (S_ISREG(st.st_mode) && newer(&st.st_mtim, newest))
			*newest = st.st_mtim;
		free(path);
	}
	closedir(d);
	return status;
}

int fe_newer(const char *file, const char *trace_path)
{
	struct stat st;
	struct timespec newest = { 0, 0 };

	if (stat(file, &st) != 0 || newest_mtime(trace_path, 0, &newest) != 0)
		return 0;
	return !newer(&newest, &st.st_mtim);
}

static int check(const char *file, const char *trace_path, const char *id,
		 uint32_t version, sht_time first_ts, uint64_t partial,
		 uint32_t block_size, sht_state *ss)
{
	struct stat st;
	const char *have;
	uint32_t have_version, have_block;
	int64_t every;

	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (sht_state_provider(ss, &have, &have_version) != SHT_OK ||
	    strcmp(have, id) != 0 || have_version != version)
		return 0;
	if (sht_state_start(ss) != first_ts)
		return 0;
	if (file_shape(file, &every, &have_block) != 0 ||
	    (uint64_t)every != partial || have_block != block_size)
		return 0;
	return fe_newer(file, trace_path);
}

int fe_reusable(const char *file, const char *trace_path, const char *id,
		uint32_t version, sht_time first_ts, uint64_t partial,
		uint32_t block_size, sht_state **ss)
{
	sht_state *s = NULL;
	int ok;

	if (ss)
		*ss = NULL;
	if (sht_state_open(file, NULL, &s) != SHT_OK)
		return 0;                 /* absent, incomplete, damaged */
	ok = check(file, trace_path, id, version, first_ts, partial,
		   block_size, s);
	if (ok && ss)
		*ss = s;
	else
		sht_state_close(s);
	return ok;
}
