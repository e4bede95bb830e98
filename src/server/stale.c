/*
 * stale.c: the partial files a killed server left in its cache (srv.h).
 *
 * A history, an events index or a lifetimes file is written under a
 * temporary name, "<file>.tmp-<pid>-<n>", and renamed once complete; a
 * stopped server removes its own.  One killed (SIGKILL, a crash, the
 * machine stopped) leaves them: they are never read (their names are no
 * cache file's) but they hold disk space, tens of MB per trace.  At
 * start-up, those of processes no longer alive are removed; those of a
 * live process (another server sharing the cache) are left.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv.h"

/* The pid of a temporary name ("...tmp-<pid>-<n>"), 0 if not one. */
static long tmp_pid(const char *name)
{
	const char *p = strstr(name, ".tmp-");
	char *end;
	long pid;

	if (!p)
		return 0;
	pid = strtol(p + 5, &end, 10);
	if (end == p + 5 || *end != '-' || pid <= 0)
		return 0;
	strtoul(end + 1, &end, 10);
	return *end ? 0 : pid;
}

static int dead(long pid)
{
	return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Remove the stale temporary files of directory dir; recurse depth more. */
static size_t clean_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;
		long pid;

		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
		    lstat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			n += clean_dir(path, depth - 1);
		else if (S_ISREG(st.st_mode) && (pid = tmp_pid(e->d_name)) > 0 &&
			 dead(pid) && unlink(path) == 0)
			n++;
	}
	closedir(d);
	return n;
}

size_t srv_clean_stale(const char *cache)
{
	return clean_dir(cache, 1);
}
