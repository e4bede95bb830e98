/*
 * h-sht.c: sht's own extension of the protocol, for what TSP lacks and
 * the viewer needs: which traces this server may open.  Two read-only
 * endpoints under /sht/api (docs/VIEWER.md "Protocol extension"):
 *
 *   GET /sht/api/roots            {"roots": ["/abs/dir", ...]}
 *   GET /sht/api/files?path=DIR   {"path": DIR, "kind": K, "entries":
 *                                  [{"name", "path", "kind"}, ...]}
 *
 * kind is "ctf" (a directory holding a CTF "metadata" file), "vstf" (a
 * file named *.vstf), or "dir" (any other directory); other files and
 * hidden names are not listed.  DIR is resolved and must lie under a
 * --root (403 otherwise, as for opening a trace), so the listing shows
 * nothing the server could not open anyway.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "srv.h"

#define LIST_MAX 4096

static const char *kind_of(const char *path, const struct stat *st)
{
	char meta[PATH_MAX];
	struct stat mst;
	size_t n = strlen(path);

	if (S_ISDIR(st->st_mode)) {
		if (snprintf(meta, sizeof meta, "%s/metadata", path) < (int)sizeof meta &&
		    stat(meta, &mst) == 0 && S_ISREG(mst.st_mode))
			return "ctf";
		return "dir";
	}
	if (S_ISREG(st->st_mode) && n > 5 && strcmp(path + n - 5, ".vstf") == 0)
		return "vstf";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a, "name"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b, "name"));

	return strcmp(x, y);
}

/* The listed entries of dir, sorted by name. */
static json_t *list_dir(const char *dir)
{
	json_t *arr = json_array(), *items[LIST_MAX];
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d || !arr) {
		if (d)
			closedir(d);
		return arr;
	}
	while ((de = readdir(d)) != NULL && n < LIST_MAX) {
		char p[PATH_MAX];
		struct stat st;
		const char *kind;
		json_t *e;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") ? dir : "",
			     de->d_name) >= (int)sizeof p || stat(p, &st) != 0)
			continue;
		kind = kind_of(p, &st);
		if (!kind)
			continue;
		e = json_object();
		json_object_set_new(e, "name", srv_jstr(de->d_name));
		json_object_set_new(e, "path", srv_jstr(p));
		json_object_set_new(e, "kind", json_string(kind));
		items[n++] = e;
	}
	closedir(d);
	qsort(items, n, sizeof items[0], by_name);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, items[i]);
	return arr;
}

static int roots(struct srv_req *req, struct srv_reply *rep)
{
	json_t *j = json_object(), *arr = json_array();

	for (size_t i = 0; i < req->srv->nroots; i++)
		json_array_append_new(arr, srv_jstr(req->srv->roots[i]));
	json_object_set_new(j, "roots", arr);
	srv_reply_json(rep, 200, j);
	return 0;
}

static int files(struct srv_req *req, struct srv_reply *rep)
{
	const char *path = req->arg ? req->arg(req->conn, "path") : NULL;
	char *real;
	struct stat st;
	const char *kind;
	json_t *j;

	if (!path)
		return srv_reply_error(rep, 400, "Missing query parameters",
				       "path");
	real = srv_path_check(req->srv, path, "path", rep);
	if (!real)
		return -1;
	if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(real);
		return srv_reply_error(rep, 400, "Invalid query parameters",
				       "path: not a directory");
	}
	kind = kind_of(real, &st);
	j = json_object();
	json_object_set_new(j, "path", srv_jstr(real));
	json_object_set_new(j, "kind", json_string(kind ? kind : "dir"));
	json_object_set_new(j, "entries", list_dir(real));
	free(real);
	srv_reply_json(rep, 200, j);
	return 0;
}

int srv_h_sht(struct srv_req *req, struct srv_reply *rep, char **seg,
	      size_t n)
{
	if (n != 1 || (strcmp(seg[0], "roots") != 0 && strcmp(seg[0], "files") != 0))
		return srv_reply_error(rep, 404, "Not found", "no endpoint %s",
				       req->path);
	if (req->method != SRV_GET)
		return srv_reply_error(rep, 405, "Method not allowed", NULL);
	return strcmp(seg[0], "roots") == 0 ? roots(req, rep) : files(req, rep);
}
