/*
 * paths.c: where traces may be opened from.  A client's path is resolved
 * (realpath: symbolic links and ".." followed) before it is compared with
 * the --root directories, themselves resolved at start-up, so no name
 * reaches outside them.  A path that does not exist is answered 404 only
 * if the part of it that exists lies under a root (else 403), so that the
 * answers say nothing of what lies outside the roots.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"

int srv_path_allowed(const struct srv *s, const char *real)
{
	for (size_t i = 0; i < s->nroots; i++) {
		const char *r = s->roots[i];
		size_t n = strlen(r);

		if (strcmp(r, "/") == 0)
			return 1;
		if (strncmp(real, r, n) == 0 && (real[n] == '\0' || real[n] == '/'))
			return 1;
	}
	return 0;
}

/* Whether the longest existing prefix of path resolves under a root. */
static int prefix_allowed(const struct srv *s, const char *path)
{
	char buf[PATH_MAX], *slash, *real;
	int ok = 0;

	if (strlen(path) >= sizeof buf)
		return 0;
	strcpy(buf, path);
	while ((slash = strrchr(buf, '/')) != NULL) {
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		real = realpath(buf, NULL);
		if (real) {
			ok = srv_path_allowed(s, real);
			free(real);
			return ok;
		}
		if (slash == buf)
			break;
	}
	real = realpath(".", NULL);
	ok = real && path[0] != '/' && srv_path_allowed(s, real);
	free(real);
	return ok;
}

char *srv_path_check(const struct srv *s, const char *path, const char *param,
		     struct srv_reply *rep)
{
	char *real;

	if (strncmp(path, "file://", 7) == 0)
		path += 7;
	if (!*path || strlen(path) >= PATH_MAX) {
		srv_reply_error(rep, 400, "Invalid query parameters",
				"%s: empty or too long", param);
		return NULL;
	}
	real = realpath(path, NULL);
	if (!real) {
		int e = errno;

		if (prefix_allowed(s, path))
			srv_reply_error(rep, 404, "No such file", "%s: %s",
					path, strerror(e));
		else
			srv_reply_error(rep, 403, "Forbidden", "%s is outside "
					"the directories this server may read "
					"(--root)", path);
		return NULL;
	}
	if (!srv_path_allowed(s, real)) {
		srv_reply_error(rep, 403, "Forbidden", "%s is outside the "
				"directories this server may read (--root)", path);
		free(real);
		return NULL;
	}
	return real;
}
