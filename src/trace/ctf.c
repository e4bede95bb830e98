/*
 * ctf.c: a sht_source over a CTF trace directory, through libbabeltrace2
 * (see sht/trace.h for the contract, ctf-int.h for the design and the map
 * of the ctf*.c files): opening (finding the traces below the path, the
 * plugins, the graph), closing, the source's operations and info, and the
 * errors, which carry babeltrace2's causes.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctf-par.h"
#include "util/util.h"

#define CTF_WALK_DEPTH 32        /* directory levels searched for metadata */

static void ctf_stats(void *src, sht_source_stats *out)
{
	const struct sht_ctf *c = src;

	*out = c->st;
}

static void ctf_until(void *src, sht_time ts)
{
	struct sht_ctf *c = src;

	if (c->par)
		sht__ctfp_until(c->par, ts);
}

const sht_source_ops sht__ctf_ops = { sht__ctf_next, sht__ctf_seek,
				      ctf_stats, sht__ctf_seek_at, ctf_until };

struct sht_ctf *sht__ctf_of(const sht_source *src)
{
	if (!src || src->ops != &sht__ctf_ops)
		return NULL;
	return src->src;
}

/* ---- errors ------------------------------------------------------------- */

/* Append babeltrace2's error causes of this thread (and release them) to
 * buf, newlines turned into spaces. */
static void ctf_take_causes(char *buf, size_t size)
{
	const bt_error *error = bt_current_thread_take_error();
	size_t len = 0;

	buf[0] = '\0';
	if (!error)
		return;
	uint64_t n = bt_error_get_cause_count(error);
	/* Cause 0 is the root cause (the most telling: "Cannot read
	 * ..."); later ones are the layers that passed it on. */
	for (uint64_t k = 0; k < n && len + 1 < size; k++) {
		const bt_error_cause *cause =
			bt_error_borrow_cause_by_index(error, k);
		const char *msg = bt_error_cause_get_message(cause);
		int w = snprintf(buf + len, size - len, "%s%s",
				 len ? "; " : "", msg ? msg : "?");
		if (w < 0)
			break;
		len += (size_t)w;
		if (len >= size)
			len = size - 1;
	}
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	bt_error_release(error);
}

sht_err sht__ctf_error(sht_err err, const char *what, const char *path)
{
	char causes[384];

	ctf_take_causes(causes, sizeof causes);
	return sht__error(err, "Cannot %s: path=%s%s%s", what, path,
			  causes[0] ? ": " : "", causes);
}

/* Make c failed (sticky) with a message. */
sht_err sht__ctf_fail(struct sht_ctf *c, sht_err err, const char *what)
{
	c->failed = err;
	return sht__ctf_error(err, what, c->path);
}

sht_err sht__ctf_failed(const struct sht_ctf *c)
{
	return sht__error(SHT_ERR_STATE, "Cannot use CTF source: path=%s: it "
			  "failed earlier (%s)", c->path, sht_strerror(c->failed));
}

/* ---- finding the traces ------------------------------------------------- */

/* Add dir to c->dirs (the trace directories given to src.ctf.fs). */
static sht_err ctf_add_dir(struct sht_ctf *c, const char *dir)
{
	char **nd = realloc(c->dirs, (c->n_dirs + 1) * sizeof *nd);

	if (nd)
		c->dirs = nd;
	if (!nd || !(c->dirs[c->n_dirs] = strdup(dir)))
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: "
				  "path=%s: out of memory", dir);
	c->n_dirs++;
	return SHT_OK;
}

/* Find the regular files named "metadata" below dir (symbolic links to
 * directories are not followed) and add their directories to c->dirs:
 * src.ctf.fs does not search subdirectories itself. */
static sht_err ctf_find_traces(struct sht_ctf *c, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	sht_err err = SHT_OK;

	if (!d)
		return sht__error(SHT_ERR_IO, "Cannot open CTF trace: path=%s: %s",
				  dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		struct stat sb;
		char *sub;
		size_t len;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		len = strlen(dir) + strlen(de->d_name) + 2;
		sub = malloc(len);
		if (!sub) {
			err = sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: "
					 "path=%s: out of memory", dir);
			break;
		}
		snprintf(sub, len, "%s/%s", dir, de->d_name);
		if (lstat(sub, &sb) == 0) {
			if (S_ISDIR(sb.st_mode) && depth < CTF_WALK_DEPTH &&
			    strcmp(de->d_name, "index") != 0) {
				err = ctf_find_traces(c, sub, depth + 1);
			} else if (S_ISREG(sb.st_mode) &&
				   !strcmp(de->d_name, "metadata")) {
				err = ctf_add_dir(c, dir);
			}
		}
		free(sub);
		if (err != SHT_OK)
			break;
	}
	closedir(d);
	return err;
}

/* ---- public ------------------------------------------------------------- */

void sht_ctf_opts_init(sht_ctf_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->index_every = CTF_INDEX_EVERY;
}

static void ctf_free(struct sht_ctf *c)
{
	sht__ctfp_close(c);
	sht__ctf_graph_destroy(c);
	BT_TRACE_PUT_REF_AND_RESET(c->trace);
	BT_PLUGIN_PUT_REF_AND_RESET(c->plugin_ctf);
	BT_PLUGIN_PUT_REF_AND_RESET(c->plugin_utils);
	free(c->marks);
	for (size_t k = 0; k < c->n_dirs; k++)
		free(c->dirs[k]);
	free(c->dirs);
	free(c->path);
	free(c);
}

static sht_err ctf_find_plugin(const char *name, const char *path,
			       const bt_plugin **out)
{
	/* Standard environment variable, user and system directories and
	 * static plugins; a plugin that fails to load is skipped. */
	if (bt_plugin_find(name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			   out) == BT_PLUGIN_FIND_STATUS_OK)
		return SHT_OK;
	char what[64];
	snprintf(what, sizeof what, "find babeltrace2 plugin \"%s\"", name);
	return sht__ctf_error(SHT_ERR_INVALID, what, path);
}

/* The babeltrace2 path: plugins, graph, first batch. */
static sht_err ctf_open_muxer(struct sht_ctf *c, const char *path)
{
	sht_err err = ctf_find_plugin("ctf", path, &c->plugin_ctf);

	if (err == SHT_OK)
		err = ctf_find_plugin("utils", path, &c->plugin_utils);
	if (err == SHT_OK)
		err = sht__ctf_graph_build(c);
	return err;
}

sht_err sht_ctf_open(const char *path, const sht_ctf_opts *opts,
		     sht_source *out)
{
	sht_ctf_opts defaults;
	struct stat sb;
	struct sht_ctf *c;
	sht_err err;

	if (!path || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: "
				  "path and out must not be NULL");
	if (!opts) {
		sht_ctf_opts_init(&defaults);
		opts = &defaults;
	}
	if (stat(path, &sb) != 0)
		return sht__error(SHT_ERR_IO, "Cannot open CTF trace: path=%s: %s",
				  path, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: "
				  "path=%s: not a directory", path);
	c = calloc(1, sizeof *c);
	if (!c || !(c->path = strdup(path))) {
		free(c);
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: "
				  "path=%s: out of memory", path);
	}
	err = ctf_find_traces(c, path, 0);
	if (err == SHT_OK && c->n_dirs == 0)
		err = sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: "
				 "path=%s: no CTF trace there (no metadata "
				 "file below it)", path);
	if (err == SHT_OK && c->n_dirs > 1 && !opts->merge)
		err = sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: "
				 "path=%s: holds %zu traces (e.g. %s); open one "
				 "of them, or ask to merge them", path, c->n_dirs,
				 c->dirs[0]);
	for (size_t i = 0; err == SHT_OK && i < c->n_dirs; i++)
		err = sht__ctf_check_truncation(c->dirs[i]);
	for (size_t i = 0; err == SHT_OK && i < c->n_dirs; i++)
		err = sht__ctf_check_packets(c->dirs[i]);
	if (err != SHT_OK) {
		ctf_free(c);
		return err;
	}
	c->merge = opts->merge;
	c->every = opts->index_every ? opts->index_every : CTF_INDEX_EVERY;
	c->muxer = opts->muxer != 0;
	c->jobs = opts->jobs > CTF_JOBS_MAX ? CTF_JOBS_MAX : opts->jobs;
	c->info.traces = (uint32_t)c->n_dirs;
	c->info.jobs = c->muxer ? 0 : c->jobs;
	if (!c->muxer)
		err = sht__ctfp_open(c, c->jobs);
	else
		err = ctf_open_muxer(c, path);
	if (err != SHT_OK) {
		ctf_free(c);
		return err;
	}
	out->ops = &sht__ctf_ops;
	out->src = c;
	return SHT_OK;
}

void sht_ctf_close(sht_source *src)
{
	if (!sht__ctf_of(src))
		return;
	ctf_free(src->src);
	src->ops = NULL;
	src->src = NULL;
}

sht_err sht_ctf_info_get(const sht_source *src, sht_ctf_info *out)
{
	const struct sht_ctf *c = sht__ctf_of(src);

	if (!c || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot get CTF source info: "
				  "not a CTF source");
	*out = c->info;
	out->index_entries = c->n_marks;
	out->decoded = sht__ctfp_decoded(c);
	return SHT_OK;
}
