/*
 * state.c: the state system's life cycle (create, open, finish, close),
 * its attribute-tree calls, and the checks in front of every change.
 *
 *   BUILDING --[sht_state_finish]--> FINISHED (queries only)
 *      +---- backend error ----> FAILED (queries only)
 *   OPENED (sht_state_open): queries only, attribute tree loaded on use.
 */
#include <stdio.h>
#include <stdlib.h>

#include "state/state-int.h"

void sht_state_opts_init(sht_state_opts *opts)
{
	memset(opts, 0, sizeof *opts);
	opts->backend = SHT_BACKEND_TREE;
	sht_builder_opts_init(&opts->tree);
	opts->provider = "";
}

sht_state *sht__state_new(void)
{
	sht_state *ss = calloc(1, sizeof *ss);

	if (!ss)
		return NULL;
	pthread_mutex_init(&ss->lock, NULL);
	ss->popped = sht_value_null();
	return ss;
}

static sht_err make_backend(sht_state *ss, const char *path,
			    const sht_state_opts *o)
{
	switch (o->backend) {
	case SHT_BACKEND_TREE:
		ss->ops = &sht__backend_tree;
		return sht__backend_tree_create(path, ss->start, &o->tree, &ss->be);
	case SHT_BACKEND_MEMORY:
		ss->ops = &sht__backend_mem;
		return sht__backend_mem_create(&ss->be);
	case SHT_BACKEND_NULL:
		ss->ops = &sht__backend_null;
		return SHT_OK;
	case SHT_BACKEND_PARTIAL:
		ss->ops = &sht__backend_partial;
		return sht__backend_partial_create(ss, path, o, &ss->be);
	}
	return sht__error(SHT_ERR_INVALID, "Cannot create history: backend=%d", (int)o->backend);
}

sht_err sht_state_create(const char *path, sht_time start_time,
			 const sht_state_opts *opts, sht_state **out)
{
	sht_state_opts def;
	sht_state *ss = sht__state_new();
	sht_err err;

	if (!opts) {
		sht_state_opts_init(&def);
		opts = &def;
	}
	if (!ss)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a state system");
	ss->start = ss->now = ss->end = start_time;
	ss->provider = strdup(opts->provider ? opts->provider : "");
	ss->provider_version = opts->provider_version;
	err = ss->provider ? sht__attrs_create(&ss->attrs)
			   : sht__error(SHT_ERR_NOMEM, "Cannot copy the provider name");
	if (err == SHT_OK)
		err = sht__about_init(ss, opts);
	if (err == SHT_OK)
		err = make_backend(ss, path, opts);
	if (err != SHT_OK) {
		sht_state_close(ss);
		return err;
	}
	*out = ss;
	return SHT_OK;
}

/* Provider section: u32 version, then the identity's bytes. */
static sht_err load_provider(sht_state *ss)
{
	void *data = NULL;
	size_t len = 0;
	sht_err err = sht_reader_section(ss->reader, SHT__SECTION_PROVIDER, NULL, &data, &len);

	if (err == SHT_NOT_FOUND) {
		ss->provider = strdup("");
		return ss->provider ? SHT_OK : SHT_ERR_NOMEM;
	}
	if (err != SHT_OK)
		return err;
	if (len < 4 || memchr((char *)data + 4, 0, len - 4)) {
		free(data);
		return sht__error(SHT_ERR_CORRUPT, "Cannot read the provider section: %zu bytes", len);
	}
	ss->provider_version = sht__get_u32(data);
	ss->provider = malloc(len - 3);
	if (ss->provider) {
		memcpy(ss->provider, (char *)data + 4, len - 4);
		ss->provider[len - 4] = '\0';
	}
	free(data);
	return ss->provider ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy the provider name");
}

sht_err sht_state_open(const char *path, const sht_reader_opts *opts, sht_state **out)
{
	sht_state *ss = sht__state_new();
	sht_tree_info info;
	sht_err err;

	if (!ss)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a state system");
	ss->readonly = 1;
	ss->finished = 1;
	err = sht_reader_open(path, opts, &ss->reader);
	if (err == SHT_OK) {
		sht_reader_info_get(ss->reader, &info);
		ss->start = info.start;
		ss->now = ss->end = info.end;
		ss->ops = &sht__backend_file;
		err = sht__backend_file_create(ss->reader, &ss->be);
	}
	if (err == SHT_OK)
		err = load_provider(ss);
	if (err != SHT_OK) {
		sht_state_close(ss);
		return err;
	}
	*out = ss;
	return SHT_OK;
}

sht_err sht_state_open_partial(const char *path, const sht_reader_opts *opts,
			       const sht_source *src, const sht_provider *p,
			       sht_state **out)
{
	sht_state *ss;
	sht_err err = sht_state_open(path, opts, &ss);

	if (err != SHT_OK)
		return err;
	err = sht__partial_open(ss, src, p);
	if (err != SHT_OK) {
		sht_state_close(ss);
		return err;
	}
	*out = ss;
	return SHT_OK;
}

void sht_state_close(sht_state *ss)
{
	if (!ss)
		return;
	if (ss->ops && ss->be)
		ss->ops->destroy(ss->be);
	sht__partial_free(ss->partial);
	sht_reader_close(ss->reader);
	if (!ss->attrs_borrowed)
		sht__attrs_destroy(ss->attrs);
	sht__ongoing_free(ss);
	free(ss->provider);
	sht__model_free(ss->about);
	pthread_mutex_destroy(&ss->lock);
	free(ss);
}

sht_err sht__state_attrs(sht_state *ss, struct sht__attrs **out)
{
	void *data;
	size_t len;
	sht_err err;

	if (!ss->attrs) {
		err = sht_reader_section(ss->reader, SHT__SECTION_ATTRS, NULL, &data, &len);
		if (err == SHT_NOT_FOUND)
			err = sht__attrs_create(&ss->attrs);
		else if (err == SHT_OK) {
			err = sht__attrs_load(data, len, &ss->attrs);
			free(data);
		}
		if (err != SHT_OK)
			return err;
	}
	*out = ss->attrs;
	return SHT_OK;
}

/* ---- attribute tree ----------------------------------------------------- */

sht_err sht__attr_get(sht_state *ss, sht_quark parent, const char *name,
		      size_t len, int create, sht_quark *out)
{
	sht_quark q;
	sht_err err;

	if (!ss->attrs_borrowed)
		return sht__attrs_get(ss->attrs, parent, name, len, create, out);
	if (parent != SHT_QUARK_ROOT && parent >= ss->visible)
		return sht__error(SHT_ERR_RANGE, "Cannot look up: quark=%u does not exist yet", parent);
	err = sht__attrs_get(ss->attrs, parent, name, len, 0, &q);
	if (err == SHT_OK && q >= ss->visible)
		err = SHT_NOT_FOUND;         /* created later in the trace */
	if (err == SHT_NOT_FOUND && create) {
		if (sht__attrs_get(ss->attrs, parent, name, len, 0, &q) != SHT_OK || q != ss->visible)
			return sht__error(SHT_ERR_STATE, "Cannot replay: the provider creates %.*s where the first run did not",
					  (int)len, name);
		ss->visible++;
		err = SHT_OK;
	}
	if (err == SHT_OK)
		*out = q;
	return err;
}


static sht_err lookup(sht_state *ss, sht_quark parent, const char *const *elems,
		      size_t n, int create, sht_quark *out)
{
	struct sht__attrs *a;
	sht_quark q = parent;
	sht_err err = sht__state_attrs(ss, &a);

	if (err == SHT_OK && create && ss->readonly)
		err = sht__error(SHT_ERR_STATE, "Cannot create attributes in an opened history");
	for (size_t i = 0; err == SHT_OK && i < n; i++)
		err = sht__attr_get(ss, q, elems[i], strlen(elems[i]), create, &q);
	if (err == SHT_OK && create)
		err = sht__ongoing_grow(ss, sht__attrs_count(a));
	if (err == SHT_OK)
		*out = q;
	return err;
}

sht_err sht_state_quark(sht_state *ss, sht_quark parent, const char *const *elems,
			size_t n, sht_quark *out)
{
	sht_err err;

	sht__lock(ss);
	err = lookup(ss, parent, elems, n, 1, out);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_quark_find(sht_state *ss, sht_quark parent,
			     const char *const *elems, size_t n, sht_quark *out)
{
	sht_err err;

	sht__lock(ss);
	err = lookup(ss, parent, elems, n, 0, out);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_quark_path(sht_state *ss, const char *path, bool create,
			     sht_quark *out)
{
	struct sht__attrs *a;
	sht_quark q = SHT_QUARK_ROOT;
	sht_err err;

	sht__lock(ss);
	err = sht__state_attrs(ss, &a);
	if (err == SHT_OK && create && ss->readonly)
		err = sht__error(SHT_ERR_STATE, "Cannot create attributes in an opened history");
	while (err == SHT_OK) {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		err = sht__attr_get(ss, q, path, len, create, &q);
		if (!slash)
			break;
		path = slash + 1;
	}
	if (err == SHT_OK && create)
		err = sht__ongoing_grow(ss, sht__attrs_count(a));
	if (err == SHT_OK)
		*out = q;
	sht__unlock(ss);
	return err;
}

uint64_t sht_state_attr_count(sht_state *ss)
{
	struct sht__attrs *a;
	uint64_t n = 0;

	sht__lock(ss);
	if (sht__state_attrs(ss, &a) == SHT_OK)
		n = sht__attrs_count(a);
	if (ss->attrs_borrowed && n > ss->visible)
		n = ss->visible;
	sht__unlock(ss);
	return n;
}

/* A replay (a segment of a partial history) borrows the file's whole
 * attribute tree, but its provider must see only the attributes that
 * exist at this point of the trace, as the first run did: a quark at or
 * past `visible` is not there yet (SHT_ERR_RANGE, as for any unknown
 * quark), and lists lose their later members. */
static sht_err replay_quark(const sht_state *ss, sht_quark q)
{
	if (ss->attrs_borrowed && q != SHT_QUARK_ROOT && q >= ss->visible)
		return sht__error(SHT_ERR_RANGE, "Cannot look up: quark=%u does not exist yet", q);
	return SHT_OK;
}

static sht_err replay_children(const sht_state *ss, sht_err err,
			       const sht_quark *const *kids, size_t *n)
{
	/* Children are in creation order: the later ones are a suffix. */
	while (err == SHT_OK && ss->attrs_borrowed && *n && (*kids)[*n - 1] >= ss->visible)
		(*n)--;
	return err;
}

void sht__attr_children(sht_state *ss, sht_quark q, const sht_quark **kids,
			size_t *n)
{
	if (replay_children(ss, sht__attrs_children(ss->attrs, q, kids, n), kids, n) != SHT_OK)
		*n = 0;
}

static sht_err replay_matches(const sht_state *ss, sht_err err, sht_quark *const *qs,
			      size_t *n)
{
	size_t k = 0;

	if (err != SHT_OK || !ss->attrs_borrowed)
		return err;
	for (size_t i = 0; i < *n; i++)
		if ((*qs)[i] < ss->visible)
			(*qs)[k++] = (*qs)[i];
	*n = k;
	return err;
}

#define ATTR_CALL(ss, call)                                     \
	do {                                                    \
		struct sht__attrs *a;                           \
		sht_err err;                                    \
		sht__lock(ss);                                  \
		err = sht__state_attrs((ss), &a);               \
		if (err == SHT_OK)                              \
			err = (call);                           \
		sht__unlock(ss);                                \
		return err;                                     \
	} while (0)

sht_err sht_state_attr_name(sht_state *ss, sht_quark q, const char **name, size_t *len)
{
	ATTR_CALL(ss, replay_quark(ss, q) ? SHT_ERR_RANGE : sht__attrs_name(a, q, name, len));
}

sht_err sht_state_attr_parent(sht_state *ss, sht_quark q, sht_quark *parent)
{
	ATTR_CALL(ss, replay_quark(ss, q) ? SHT_ERR_RANGE : sht__attrs_parent(a, q, parent));
}

sht_err sht_state_attr_children(sht_state *ss, sht_quark q, const sht_quark **out, size_t *n)
{
	ATTR_CALL(ss, replay_quark(ss, q) ? SHT_ERR_RANGE
		      : replay_children(ss, sht__attrs_children(a, q, out, n), out, n));
}

sht_err sht_state_attr_path(sht_state *ss, sht_quark q, char *buf, size_t size, size_t *need)
{
	ATTR_CALL(ss, replay_quark(ss, q) ? SHT_ERR_RANGE
		      : sht__attrs_path(a, q, buf, size, need));
}

sht_err sht_state_attr_match(sht_state *ss, const char *pattern, sht_quark **out, size_t *n)
{
	ATTR_CALL(ss, replay_matches(ss, sht__attrs_match(a, pattern, out, n), out, n));
}

int64_t sht_state_cacheable_count(sht_state *ss)
{
	int64_t n = -1;

	sht__lock(ss);
	if (!ss->attrs_borrowed && ss->attrs && !ss->readonly)
		n = (int64_t)sht__attrs_count(ss->attrs);
	sht__unlock(ss);
	return n;
}

sht_err sht_state_add_section(sht_state *ss, uint32_t kind,
			      uint32_t version, const void *data, size_t len)
{
	sht_err err = SHT_OK;

	if (kind < SHT__SECTION_APP_FIRST)
		return sht__error(SHT_ERR_INVALID, "Cannot add section kind=%u: "
				  "kinds below %u are the state system's",
				  kind, (unsigned)SHT__SECTION_APP_FIRST);
	sht__lock(ss);
	if (ss->readonly || ss->finished || ss->failed)
		err = sht__error(SHT_ERR_STATE, "Cannot add section kind=%u: "
				 "the history is %s", kind,
				 ss->readonly ? "opened read-only"
				 : ss->finished ? "finished" : "failed");
	else if (!ss->ops->add_section)
		err = sht__error(SHT_ERR_INVALID, "Cannot add section kind=%u: "
				 "the %s backend has no file", kind,
				 ss->ops->name);
	else
		err = ss->ops->add_section(ss->be, kind, version, data, len);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_section(sht_state *ss, uint32_t kind, uint32_t *version,
			  void **data, size_t *len)
{
	if (!ss->reader)
		return sht__error(SHT_ERR_STATE, "Cannot read section kind=%u: "
				  "the history is not an opened file", kind);
	return sht_reader_section(ss->reader, kind, version, data, len);
}

sht_err sht_state_provider(sht_state *ss, const char **id, uint32_t *version)
{
	*id = ss->provider;
	if (version)
		*version = ss->provider_version;
	return SHT_OK;
}

sht_time sht_state_start(sht_state *ss)
{
	return ss->start;
}

sht_time sht_state_end(sht_state *ss)
{
	sht_time t;

	sht__lock(ss);
	t = ss->finished ? ss->end : ss->now;
	sht__unlock(ss);
	return t;
}
