/*
 * trace.c: a trace the server opened: a CTF trace directory (read through
 * libsht's babeltrace2 source) or a VSTF file; its identity, environment
 * (the Trace model's properties), kind (a Linux kernel trace gets the
 * kernel analysis) and first event, and the histories its pass builds
 * (pass.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "srv.h"

sht_err srv_trace_source(const struct srv_trace *t, uint32_t jobs,
			 sht_source *out)
{
	sht_ctf_opts co;

	if (t->vstf)
		return sht_vstf_open(t->path, out);
	sht_ctf_opts_init(&co);
	co.jobs = jobs;
	return sht_ctf_open(t->path, &co, out);
}

void srv_trace_source_close(const struct srv_trace *t, sht_source *src)
{
	if (t->vstf)
		sht_vstf_close(src);
	else
		sht_ctf_close(src);
}

sht_err srv_trace_fields(const struct srv_trace *t, const sht_event *ev,
			 sht_field_fn fn, void *ctx)
{
	return t->vstf ? sht_vstf_event_fields(ev, fn, ctx)
		       : sht_ctf_event_fields(ev, fn, ctx);
}

/* The environment as properties; the tracer's name and version, for the
 * kernel analysis's layout. */
static void read_env(struct srv_trace *t, const sht_source *src)
{
	char tname[128] = "", major[32] = "", minor[32] = "", domain[64] = "";
	char val[1024];
	const char *name;
	sht_field f;

	t->properties = json_object();
	for (uint64_t i = 0; i < 4096; i++) {
		sht_err err = t->vstf ? sht_vstf_env_entry(src, i, &name, &f)
				      : sht_ctf_env_entry(src, i, &name, &f);
		if (err != SHT_OK)
			break;
		if (!sht_field_text(&f, val, sizeof val))
			val[0] = '\0';
		json_object_set_new(t->properties, name, srv_jstr(val));
		if (strcmp(name, "tracer_name") == 0)
			snprintf(tname, sizeof tname, "%.127s", val);
		else if (strcmp(name, "tracer_major") == 0)
			snprintf(major, sizeof major, "%.31s", val);
		else if (strcmp(name, "tracer_minor") == 0)
			snprintf(minor, sizeof minor, "%.31s", val);
		else if (strcmp(name, "domain") == 0)
			snprintf(domain, sizeof domain, "%.63s", val);
	}
	t->kernel = strcmp(domain, "kernel") == 0 ||
		    strcmp(tname, "lttng-modules") == 0;
	t->layout = sht_kernel_layout_from_env(tname, major, minor);
}

/* The trace's directory in the cache: <name>-<hash of the path>. */
static char *cache_dir(struct srv *s, const struct srv_trace *t)
{
	char id[37], *dir;
	const char *base = strrchr(t->path, '/');
	size_t len;

	srv_uuid(id, t->path, strlen(t->path));
	base = base && base[1] ? base + 1 : "trace";
	len = strlen(s->cache) + strlen(base) + 48;
	dir = malloc(len);
	if (dir)
		snprintf(dir, len, "%s/%.64s-%.8s%.4s", s->cache, base, id, id + 9);
	return dir;
}

/* The first event's time; 406 if the trace cannot be read or is empty. */
static int first_event(struct srv_trace *t, sht_source *src,
		       struct srv_reply *rep)
{
	sht_event ev;
	sht_err err = src->ops->next(src->src, &ev);

	if (err == SHT_END)
		return srv_reply_error(rep, 406, "Trace has no events",
				       "%s holds no event", t->path);
	if (err < 0)
		return srv_reply_error(rep, 406, "Cannot read the trace", "%s",
				       sht_errmsg());
	t->first_ts = ev.ts;
	return 0;
}

static struct srv_trace *trace_new(const char *path, const char *name)
{
	struct srv_trace *t = calloc(1, sizeof *t);
	struct srv_buf id = { 0 };

	if (!t)
		return NULL;
	atomic_init(&t->refs, 1);
	atomic_init(&t->pass_status, SRV_COMPLETED);
	srv_evindex_init(&t->index);
	t->path = strdup(path);
	t->name = strdup(name);
	srv_buf_puts(&id, path);
	srv_buf_put(&id, "\n", 1);
	srv_buf_puts(&id, name);
	if (!t->path || !t->name || id.oom) {
		srv_buf_free(&id);
		srv_trace_unref(t);
		return NULL;
	}
	srv_uuid(t->uuid, id.p, id.len);
	srv_buf_free(&id);
	return t;
}

struct srv_trace *srv_trace_open(struct srv *s, const char *path,
				 const char *name, struct srv_reply *rep)
{
	struct srv_trace *t;
	struct stat st;
	sht_source src;
	sht_err err;

	if (stat(path, &st) != 0) {
		srv_reply_error(rep, 404, "No such file", "%s: %s", path,
				strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		srv_reply_error(rep, 501, "Trace type not supported",
				"%s is neither a CTF directory nor a VSTF file", path);
		return NULL;
	}
	t = trace_new(path, name);
	if (!t) {
		srv_reply_error(rep, 500, "Out of memory", NULL);
		return NULL;
	}
	t->vstf = S_ISREG(st.st_mode);
	err = srv_trace_source(t, 0, &src);
	if (err < 0) {
		srv_reply_error(rep, err == SHT_ERR_INVALID ? 501 : 406,
				t->vstf ? "Cannot open the VSTF file"
					: "Cannot open the CTF trace", "%s",
				sht_errmsg());
		srv_trace_unref(t);
		return NULL;
	}
	read_env(t, &src);
	if (first_event(t, &src, rep) != 0) {
		srv_trace_source_close(t, &src);
		srv_trace_unref(t);
		return NULL;
	}
	srv_trace_source_close(t, &src);
	t->cachedir = cache_dir(s, t);
	if (!t->cachedir || !t->properties) {
		srv_reply_error(rep, 500, "Out of memory", NULL);
		srv_trace_unref(t);
		return NULL;
	}
	return t;
}

void srv_trace_ref(struct srv_trace *t)
{
	atomic_fetch_add(&t->refs, 1);
}

void srv_trace_unref(struct srv_trace *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	srv_trace_stop(t);
	srv_cursors_free(t->cursors);
	for (size_t i = 0; i < t->nhists; i++)
		srv_hist_free(&t->hists[i]);
	free(t->hists);
	srv_evindex_free(&t->index);
	json_decref(t->properties);
	free(t->pass_message);
	free(t->cachedir);
	free(t->path);
	free(t->name);
	free(t);
}

uint64_t srv_trace_events(struct srv_trace *t, sht_time *last)
{
	uint64_t n;

	pthread_mutex_lock(&t->index.lock);
	n = t->index.events;
	*last = n ? t->index.last : t->first_ts;
	pthread_mutex_unlock(&t->index.lock);
	return n;
}

struct srv_hist *srv_trace_hist(struct srv_trace *t, enum srv_hist_kind k)
{
	for (size_t i = 0; i < t->nhists; i++)
		if (t->hists[i].kind == k)
			return &t->hists[i];
	return NULL;
}

json_t *srv_trace_json(struct srv_trace *t)
{
	json_t *j = json_object();
	sht_time last;
	uint64_t n = srv_trace_events(t, &last);

	json_object_set_new(j, "UUID", json_string(t->uuid));
	json_object_set_new(j, "name", srv_jstr(t->name));
	json_object_set_new(j, "path", srv_jstr(t->path));
	json_object_set_new(j, "nbEvents", json_integer((json_int_t)n));
	json_object_set_new(j, "start", json_integer(srv_to_exp(&t->xf, t->first_ts)));
	json_object_set_new(j, "end", json_integer(srv_to_exp(&t->xf, last)));
	json_object_set_new(j, "properties", json_deep_copy(t->properties));
	json_object_set_new(j, "indexingStatus", json_string(
		atomic_load(&t->pass_status) == SRV_RUNNING ? "RUNNING" : "COMPLETED"));
	return j;
}
