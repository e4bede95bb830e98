/*
 * static.c: the viewer's files (src/web/, installed in share/sht/web),
 * served at "/" by GET and HEAD.  Only plain names under the web
 * directory are served: the path is checked character by character
 * (letters, digits, "-", "_", ".", "/"; no "..", no hidden file), then
 * resolved and compared with the directory, and only the types the page
 * is made of are known.  Files are read on each request (they are small)
 * so an edited page shows on reload.  The answers carry a strict
 * Content-Security-Policy: the page loads nothing from anywhere else.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "srv.h"

#define STATIC_MAX (8u << 20)     /* the largest file served */

static const struct { const char *ext, *type; } types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".json", "application/json" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *type_of(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return NULL;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return NULL;
}

/* A path the page may ask for: "/" then names of [A-Za-z0-9_.-] joined
 * by "/", none starting with ".". */
static int plain_path(const char *p)
{
	if (p[0] != '/')
		return 0;
	for (const char *c = p + 1; *c; c++) {
		if ((c[-1] == '/' && (*c == '.' || *c == '/')))
			return 0;
		if (!(*c == '/' || *c == '.' || *c == '-' || *c == '_' ||
		      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			return 0;
	}
	return 1;
}

static int has_index(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof p, "%s/index.html", dir) >= (int)sizeof p)
		return 0;
	return access(p, R_OK) == 0;
}

/* dir, resolved, if it holds the viewer (malloc'd), else NULL. */
static char *try_dir(const char *dir)
{
	char *real;

	if (!dir || !*dir || !has_index(dir))
		return NULL;
	real = realpath(dir, NULL);
	return real;
}

static char *beside_exe(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	snprintf(dir, sizeof dir, "%s/../share/sht/web", exe);
	return try_dir(dir);
}

void srv_web_find(struct srv *s)
{
	if (s->cfg.web) {
		s->web = try_dir(s->cfg.web);
		if (!s->web)
			srv_log(s, "--web %s: no index.html there; the viewer "
				"is not served", s->cfg.web);
		return;
	}
	s->web = beside_exe();
#ifdef SHT_WEB_SOURCE_DIR
	if (!s->web)
		s->web = try_dir(SHT_WEB_SOURCE_DIR);
#endif
#ifdef SHT_WEB_INSTALL_DIR
	if (!s->web)
		s->web = try_dir(SHT_WEB_INSTALL_DIR);
#endif
	if (!s->web)
		srv_log(s, "the viewer's files were not found (--web DIR); "
			"only the protocol is served");
}

static int not_found(struct srv_reply *rep, const char *path)
{
	return srv_reply_error(rep, 404, "Not found", "no file %s", path);
}

/* Read the file at real (already checked) into rep. */
static int send_file(struct srv_reply *rep, const char *real, const char *type)
{
	FILE *f = fopen(real, "rb");
	struct stat st;
	char *buf;

	if (!f)
		return srv_reply_error(rep, 404, "Not found", "%s",
				       strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > STATIC_MAX) {
		fclose(f);
		return srv_reply_error(rep, 404, "Not found", "not a file");
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return srv_reply_error(rep, 500, "Internal error",
				       "cannot read the file");
	}
	fclose(f);
	srv_reply_free(rep);
	rep->status = 200;
	rep->body = buf;
	rep->len = (size_t)st.st_size;
	rep->ctype = type;
	return 0;
}

int srv_static(struct srv_req *req, struct srv_reply *rep)
{
	struct srv *s = req->srv;
	const char *path = req->path, *type;
	char full[PATH_MAX], *real;
	size_t n;
	int rc;

	if (req->method != SRV_GET && req->method != SRV_HEAD)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	if (strcmp(path, "/") == 0)
		path = "/index.html";
	if (!s->web)
		return srv_reply_error(rep, 404, "Not found", "the viewer's "
				       "files are not installed (sht serve "
				       "--web DIR)");
	type = type_of(path);
	if (!plain_path(path) || !type || strlen(path) > 256)
		return not_found(rep, req->path);
	if (snprintf(full, sizeof full, "%s%s", s->web, path) >= (int)sizeof full)
		return not_found(rep, req->path);
	real = realpath(full, NULL);
	n = strlen(s->web);
	if (!real || strncmp(real, s->web, n) != 0 || real[n] != '/') {
		free(real);
		return not_found(rep, req->path);
	}
	rc = send_file(rep, real, type);
	free(real);
	return rc;
}
