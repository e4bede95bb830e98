/*
 * scratch.c: the scratch directory of scratch.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scratch.h"

static char dir[PATH_MAX];
static int dir_made;    /* 1: made here (removed by scratch_done) */
static int files;

int scratch_init(const char *tag)
{
	const char *t = getenv("SHT_TMP");

	if (t && *t) {
		snprintf(dir, sizeof dir, "%s", t);
		return 0;
	}
	snprintf(dir, sizeof dir, "/tmp/sht-%s-XXXXXX", tag);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "Cannot create a scratch directory: %s\n",
			strerror(errno));
		return -1;
	}
	dir_made = 1;
	return 0;
}

const char *scratch_dir(void)
{
	return dir;
}

void scratch_path(char *buf, size_t n, const char *name)
{
	int k = snprintf(buf, n, "%s/%s-%d.sht", dir, name, files++);

	if (k < 0 || (size_t)k >= n) {
		fprintf(stderr, "scratch path too long: %s\n", dir);
		abort();
	}
}

void scratch_done(void)
{
	if (dir_made)
		rmdir(dir);
}
