/*
 * describe.c: what a history means (include/sht/model.h): the model and
 * build notes a history keeps, stored in the "about" section (docs/FORMAT.md
 * §12) at finish and read back on first use from an opened history.
 */
#include <stdlib.h>
#include <string.h>

#include "state/state-int.h"

/* ---- building ---------------------------------------------------------- */

sht_err sht__about_init(sht_state *ss, const sht_state_opts *o)
{
	if (!o->model && o->n_notes == 0)
		return SHT_OK;
	if (o->n_notes > 0 && !o->notes)
		return sht__error(SHT_ERR_INVALID, "Cannot create history: %zu notes and no array", o->n_notes);
	ss->about_loaded = 1;
	return sht__model_copy(o->model, o->notes, o->n_notes, &ss->about);
}

sht_err sht__about_adopt(sht_state *ss, const sht_model *m)
{
	struct sht__model *md;
	const sht_build_note *notes = NULL;
	size_t n = 0;
	sht_err err;

	if (!m || ss->attrs_borrowed || ss->readonly || ss->finished ||
	    (ss->about && sht__model_has_entries(ss->about)))
		return SHT_OK;
	if (ss->about)
		notes = sht__model_notes(ss->about, &n);
	err = sht__model_copy(m, notes, n, &md);
	if (err != SHT_OK)
		return err;
	sht__model_free(ss->about);
	ss->about = md;
	ss->about_loaded = 1;
	return SHT_OK;
}

sht_err sht__about_write(sht_state *ss)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	sht_err err;

	if (!ss->about || !ss->ops->add_section)
		return SHT_OK;
	err = sht__model_serialize(ss->about, &buf, &len);
	if (err == SHT_OK)
		err = ss->ops->add_section(ss->be, SHT__SECTION_ABOUT, 1, buf, len);
	free(buf);
	return err;
}

/* ---- reading ----------------------------------------------------------- */

/* The model of ss (loaded from the file on first use); *out NULL if the
 * history has none.  Lock held. */
static sht_err about_get(sht_state *ss, struct sht__model **out)
{
	void *data = NULL;
	size_t len = 0;
	sht_err err;

	if (!ss->about_loaded && ss->reader) {
		err = sht_reader_section(ss->reader, SHT__SECTION_ABOUT, NULL,
					 &data, &len);
		if (err == SHT_OK) {
			err = sht__model_load(data, len, &ss->about);
			free(data);
		}
		if (err != SHT_OK && err != SHT_NOT_FOUND)
			return err;
		ss->about_loaded = 1;
	}
	*out = ss->about;
	return SHT_OK;
}

sht_err sht_state_model(sht_state *ss, const sht_model **out)
{
	static const sht_model empty = { NULL, 0, NULL, 0 };
	struct sht__model *md = NULL;
	sht_err err;

	sht__lock(ss);
	err = about_get(ss, &md);
	*out = md ? sht__model_view(md) : &empty;
	sht__unlock(ss);
	return err;
}

sht_err sht_state_notes(sht_state *ss, const sht_build_note **out,
			size_t *n)
{
	struct sht__model *md = NULL;
	sht_err err;

	sht__lock(ss);
	err = about_get(ss, &md);
	*out = NULL;
	*n = 0;
	if (md)
		*out = sht__model_notes(md, n);
	sht__unlock(ss);
	return err;
}

/* The model and the attribute tree, for a look-up of q.  Lock held. */
static sht_err lookup_ready(sht_state *ss, struct sht__model **md,
			    struct sht__attrs **a)
{
	sht_err err = about_get(ss, md);

	if (err == SHT_OK && *md)
		err = sht__state_attrs(ss, a);
	return err;
}

sht_err sht_state_attr_doc(sht_state *ss, sht_quark q,
			   const sht_attr_doc **out)
{
	struct sht__model *md = NULL;
	struct sht__attrs *a = NULL;
	sht_err err;

	sht__lock(ss);
	*out = NULL;
	err = lookup_ready(ss, &md, &a);
	if (err == SHT_OK && md)
		err = sht__model_doc(md, a, q, out);
	if (err == SHT_OK && !*out)
		err = SHT_NOT_FOUND;
	sht__unlock(ss);
	return err;
}

sht_err sht_state_attr_labels(sht_state *ss, sht_quark q,
			      const sht_value_label **out, size_t *n)
{
	struct sht__model *md = NULL;
	struct sht__attrs *a = NULL;
	sht_err err;

	sht__lock(ss);
	*out = NULL;
	*n = 0;
	err = lookup_ready(ss, &md, &a);
	if (err == SHT_OK && md)
		err = sht__model_labels(md, a, q, out, n);
	sht__unlock(ss);
	return err;
}

/* The integer of v, or 0 if v is not an integer. */
static int value_int(const sht_value *v, int64_t *x)
{
	if (v->type == SHT_TYPE_INT32)
		*x = v->u.i32;
	else if (v->type == SHT_TYPE_INT64)
		*x = v->u.i64;
	else
		return 0;
	return 1;
}

const char *sht_state_value_label(sht_state *ss, sht_quark q,
				  const sht_value *v)
{
	const sht_value_label *l;
	size_t n;
	int64_t x;

	if (!value_int(v, &x) || sht_state_attr_labels(ss, q, &l, &n) != SHT_OK)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (l[i].value == x)
			return l[i].label;
	return NULL;
}

/* ---- a model alone ----------------------------------------------------- */

/* Does pattern match elems[0..n)? */
static int elems_match(const char *pat, const char *const *elems, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *slash = strchr(pat, '/');
		size_t len = slash ? (size_t)(slash - pat) : strlen(pat);

		if (!(len == 1 && pat[0] == '*') &&
		    (strlen(elems[i]) != len || memcmp(pat, elems[i], len) != 0))
			return 0;
		if (!slash)
			return i + 1 == n;
		pat = slash + 1;
	}
	return 0;
}

const char *sht_model_label(const sht_model *m, const char *const *elems,
			    size_t n, const sht_value *v)
{
	const char *pat = NULL;
	int64_t x;

	if (!m || !value_int(v, &x))
		return NULL;
	for (size_t i = 0; i < m->n_labels; i++) {
		const sht_value_label *l = &m->labels[i];

		/* The first pattern that matches owns the attribute. */
		if (!pat) {
			if (!elems_match(l->pattern, elems, n))
				continue;
			pat = l->pattern;
		} else if (strcmp(l->pattern, pat) != 0) {
			continue;
		}
		if (l->value == x)
			return l->label;
	}
	return NULL;
}
