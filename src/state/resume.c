/*
 * resume.c: resumable builds of a state system (state.h): everything that
 * decides the rest of the history, between two events.
 *
 *   the attribute tree      as its file section (quarks in creation order)
 *   the transient state     per quark: ongoing value, its start, the type
 *                           lock and when it was fixed
 *   the clock               start, latest time
 *   the partial backend     its checkpoints so far and counters
 *   the history tree        the builder's checkpoint (src/store/resume.c)
 *
 * Snapshot layout (little-endian): "SHTS", version 1, backend, provider id
 * and version, start, now; the attribute tree (length, bytes); the
 * ongoing states (count, then per quark a value, start, lock, lock time);
 * for a partial history its backend's fields; the builder's checkpoint
 * (length, bytes).  Values: a type byte, then int32 / int64 / double bits
 * as u64, or a string's length and bytes.
 */
#include <stdlib.h>

#include "state/state-int.h"
#include "util/buf.h"

#define SNAP_MAGIC 0x53544853u   /* "SHTS" */
#define SNAP_VERSION 1u

/* The builder of a tree or partial backend, or NULL. */
static sht_builder *builder_of(const sht_state *ss)
{
	if (ss->ops == &sht__backend_tree)
		return ss->be;
	if (ss->ops == &sht__backend_partial)
		return sht__partial_builder(ss->be);
	return NULL;
}

/* ---- checkpoint ---------------------------------------------------------- */

static void w_value(struct sht__wbuf *w, const sht_value *v)
{
	uint64_t bits = 0;

	sht__w_u8(w, (uint8_t)v->type);
	switch (v->type) {
	case SHT_TYPE_INT32:
		sht__w_u64(w, (uint64_t)(int64_t)v->u.i32);
		break;
	case SHT_TYPE_INT64:
		sht__w_u64(w, (uint64_t)v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		memcpy(&bits, &v->u.d, sizeof bits);
		sht__w_u64(w, bits);
		break;
	case SHT_TYPE_STRING:
		sht__w_blob(w, v->u.str, v->len);
		break;
	default:
		break;
	}
}

static sht_err w_state(struct sht__wbuf *w, sht_state *ss)
{
	uint8_t *attrs = NULL;
	size_t alen = 0;
	void *bdata = NULL;
	size_t blen = 0;
	sht_err err = sht__attrs_serialize(ss->attrs, &attrs, &alen);

	if (err == SHT_OK)
		err = sht_builder_checkpoint(builder_of(ss), &bdata, &blen);
	if (err != SHT_OK) {
		free(attrs);
		return err;
	}
	sht__w_u32(w, SNAP_MAGIC);
	sht__w_u32(w, SNAP_VERSION);
	sht__w_u8(w, ss->ops == &sht__backend_partial ? SHT_BACKEND_PARTIAL : SHT_BACKEND_TREE);
	sht__w_blob(w, ss->provider, strlen(ss->provider));
	sht__w_u32(w, ss->provider_version);
	sht__w_u64(w, (uint64_t)ss->start);
	sht__w_u64(w, (uint64_t)ss->now);
	sht__w_blob(w, attrs, alen);
	sht__w_u64(w, ss->ncur);
	for (size_t q = 0; q < ss->ncur; q++) {
		w_value(w, &ss->cur[q].v);
		sht__w_u64(w, (uint64_t)ss->cur[q].start);
		sht__w_u8(w, ss->cur[q].locked);
		sht__w_u64(w, (uint64_t)ss->locked_at[q]);
	}
	if (ss->ops == &sht__backend_partial)
		sht__partial_save(ss->be, w);
	sht__w_blob(w, bdata, blen);
	free(attrs);
	free(bdata);
	return SHT_OK;
}

sht_err sht_state_checkpoint(sht_state *ss, void **data, size_t *len)
{
	struct sht__wbuf w = { NULL, 0, 0, 0 };
	sht_err err = SHT_OK;

	if (!data || !len)
		return sht__error(SHT_ERR_INVALID, "Cannot checkpoint: NULL data or len");
	sht__lock(ss);
	if (ss->readonly || ss->finished || ss->failed || !builder_of(ss))
		err = sht__error(SHT_ERR_STATE, "Cannot checkpoint: not a history "
				 "file being built (tree or partial backend)");
	if (err == SHT_OK)
		err = w_state(&w, ss);
	sht__unlock(ss);
	if (err == SHT_OK && w.bad)
		err = sht__error(SHT_ERR_NOMEM, "Cannot checkpoint: out of memory");
	if (err != SHT_OK) {
		free(w.p);
		return err;
	}
	*data = w.p;
	*len = w.n;
	return SHT_OK;
}

sht_err sht_state_sync(sht_state *ss)
{
	sht_builder *b = builder_of(ss);

	if (!b)
		return sht__error(SHT_ERR_STATE, "Cannot sync: not a history file being built");
	return sht_builder_sync(b);
}

/* ---- resume -------------------------------------------------------------- */

static sht_err bad(const char *what)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot resume the build: its checkpoint "
			  "is damaged (%s)", what);
}

static sht_err r_value(struct sht__rbuf *r, sht_value *v)
{
	uint8_t type = sht__r_u8(r);
	uint64_t x = 0;
	size_t n = 0;
	const char *s;

	*v = sht_value_null();
	switch (type) {
	case SHT_TYPE_NULL:
		return SHT_OK;
	case SHT_TYPE_INT32:
		*v = sht_value_int32((int32_t)(int64_t)sht__r_u64(r));
		return SHT_OK;
	case SHT_TYPE_INT64:
		*v = sht_value_int64((int64_t)sht__r_u64(r));
		return SHT_OK;
	case SHT_TYPE_DOUBLE:
		x = sht__r_u64(r);
		v->type = SHT_TYPE_DOUBLE;
		memcpy(&v->u.d, &x, sizeof x);
		return SHT_OK;
	case SHT_TYPE_STRING:
		s = sht__r_blob(r, &n);
		if (!s || n > SHT_STRING_MAX)
			return bad("string");
		*v = sht_value_string(s, (uint32_t)n);
		return SHT_OK;
	default:
		return bad("value type");
	}
}

/* The transient state: ncur ongoing states. */
static sht_err r_ongoing(sht_state *ss, struct sht__rbuf *r)
{
	uint64_t n = sht__r_u64(r);
	sht_err err;

	if (r->bad || n != sht__attrs_count(ss->attrs))
		return bad("ongoing state count");
	err = sht__ongoing_grow(ss, n);
	for (size_t q = 0; err == SHT_OK && q < n; q++) {
		sht_value v;
		sht_time start;

		err = r_value(r, &v);
		start = (sht_time)sht__r_u64(r);
		if (err == SHT_OK)
			err = sht__ongoing_set(ss, (sht_quark)q, &v, start);
		ss->cur[q].locked = sht__r_u8(r);
		ss->locked_at[q] = (sht_time)sht__r_u64(r);
		if (err == SHT_OK && (r->bad || ss->cur[q].locked > SHT_TYPE_STRING))
			err = bad("ongoing state");
	}
	return err;
}

/* Header, identity and clock: checked against opts. */
static sht_err r_head(sht_state *ss, struct sht__rbuf *r, const sht_state_opts *o)
{
	size_t n = 0;
	const char *id;
	uint8_t backend;

	if (sht__r_u32(r) != SNAP_MAGIC || sht__r_u32(r) != SNAP_VERSION)
		return bad("not a state checkpoint of this version");
	backend = sht__r_u8(r);
	id = sht__r_blob(r, &n);
	ss->provider_version = sht__r_u32(r);
	ss->start = (sht_time)sht__r_u64(r);
	ss->now = (sht_time)sht__r_u64(r);
	if (r->bad)
		return bad("header");
	if (backend != (uint8_t)o->backend || strlen(o->provider ? o->provider : "") != n ||
	    memcmp(o->provider ? o->provider : "", id, n) != 0 ||
	    o->provider_version != ss->provider_version)
		return sht__error(SHT_ERR_INVALID, "Cannot resume the build: its "
				  "checkpoint has another backend or provider");
	if (!(ss->provider = malloc(n + 1)))
		return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	memcpy(ss->provider, id, n);
	ss->provider[n] = '\0';
	ss->end = ss->start;
	return SHT_OK;
}

/* The backend: the partial fields, and the builder resumed on path. */
static sht_err r_backend(sht_state *ss, struct sht__rbuf *r, const char *path,
			 const sht_state_opts *o)
{
	void *pbe = NULL;
	const void *bdata;
	size_t blen = 0;
	sht_builder *b;
	sht_err err = SHT_OK;

	if (o->backend == SHT_BACKEND_PARTIAL)
		err = sht__partial_resume(ss, o, r, &pbe);
	bdata = sht__r_blob(r, &blen);
	if (err == SHT_OK && (r->bad || r->off != r->n))
		err = bad("history tree");
	if (err == SHT_OK)
		err = sht_builder_resume(path, bdata, blen, &o->tree, &b);
	if (err != SHT_OK) {
		if (pbe)
			sht__backend_partial.destroy(pbe);
		return err;
	}
	sht_builder_set_serialised(b);
	if (pbe) {
		sht__partial_set_builder(pbe, b);
		ss->ops = &sht__backend_partial;
		ss->be = pbe;
	} else {
		ss->ops = &sht__backend_tree;
		ss->be = b;
	}
	return SHT_OK;
}

sht_err sht_state_resume(const char *path, const void *data, size_t len,
			 const sht_state_opts *opts, sht_state **out)
{
	struct sht__rbuf r = { data, len, 0, 0 };
	const void *attrs;
	size_t alen = 0;
	sht_state *ss;
	sht_err err;

	if (!path || !data || !opts || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot resume the build: NULL argument");
	if (opts->backend != SHT_BACKEND_TREE && opts->backend != SHT_BACKEND_PARTIAL)
		return sht__error(SHT_ERR_INVALID, "Cannot resume the build: only a "
				  "tree or partial history is resumable");
	if (!(ss = sht__state_new()))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a state system");
	err = r_head(ss, &r, opts);
	if (err == SHT_OK)
		err = sht__about_init(ss, opts);   /* the notes, as at create */
	attrs = sht__r_blob(&r, &alen);
	if (err == SHT_OK && r.bad)
		err = bad("attribute tree");
	if (err == SHT_OK)
		err = sht__attrs_load(attrs, alen, &ss->attrs);
	if (err == SHT_OK)
		err = r_ongoing(ss, &r);
	if (err == SHT_OK)
		err = r_backend(ss, &r, path, opts);
	if (err != SHT_OK) {
		sht_state_close(ss);
		return err;
	}
	*out = ss;
	return SHT_OK;
}
