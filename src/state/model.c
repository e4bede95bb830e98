/*
 * model.c: a history's model and build notes (see model.h): the owned
 * copy, its section bytes, and the per-attribute look-up.
 */
#include <stdlib.h>
#include <string.h>

#include "state/model.h"
#include "util/util.h"

/* The labels of one pattern: labels[first .. first + n). */
struct label_group {
	size_t first, n;
};

struct sht__model {
	sht_model view;
	sht_attr_doc *attrs;
	sht_value_label *labels;
	sht_build_note *notes;
	size_t n_notes;
	struct label_group *groups;
	size_t n_groups;
	char *strings;               /* every string, NUL-terminated */
	/* Per quark: index + 1 of its doc / label group, 0 if none; the
	 * first n_known quarks are known. */
	uint32_t *doc_of, *group_of;
	size_t n_known, cap_known;
};

/* ---- copying ----------------------------------------------------------- */

/* A pattern: non-empty "/"-separated elements, none empty. */
static int pattern_ok(const char *p)
{
	size_t len = strlen(p);

	return len > 0 && p[0] != '/' && p[len - 1] != '/' && !strstr(p, "//");
}

/* Bytes the strings of the tables take, or SIZE_MAX if one is NULL or a
 * pattern is malformed. */
static size_t strings_size(const sht_model *m, const sht_build_note *notes,
			   size_t n)
{
	size_t total = 0;

	for (size_t i = 0; i < n; i++) {
		if (!notes[i].key || !notes[i].value)
			return SIZE_MAX;
		total += strlen(notes[i].key) + strlen(notes[i].value) + 2;
	}
	for (size_t i = 0; i < m->n_attrs; i++) {
		const sht_attr_doc *d = &m->attrs[i];

		if (!d->pattern || !d->text || !pattern_ok(d->pattern))
			return SIZE_MAX;
		total += strlen(d->pattern) + strlen(d->text) + 2;
	}
	for (size_t i = 0; i < m->n_labels; i++) {
		const sht_value_label *l = &m->labels[i];

		if (!l->pattern || !l->label || !pattern_ok(l->pattern))
			return SIZE_MAX;
		total += strlen(l->pattern) + strlen(l->label) + 2;
	}
	return total;
}

/* Copy s to *at (advanced); the copy. */
static const char *put_str(char **at, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = *at;

	memcpy(p, s, len);
	*at += len;
	return p;
}

/* The labels grouped by pattern, each group in first-appearance order. */
static sht_err group_labels(struct sht__model *md, const sht_model *m,
			    char **at)
{
	size_t out = 0;
	char *done = calloc(m->n_labels ? m->n_labels : 1, 1);

	if (!done)
		return SHT_ERR_NOMEM;
	for (size_t i = 0; i < m->n_labels; i++) {
		struct label_group *g;
		const char *pat;

		if (done[i])
			continue;
		g = &md->groups[md->n_groups++];
		g->first = out;
		pat = put_str(at, m->labels[i].pattern);
		for (size_t j = i; j < m->n_labels; j++) {
			if (done[j] || strcmp(m->labels[j].pattern, pat) != 0)
				continue;
			done[j] = 1;
			md->labels[out].pattern = pat;
			md->labels[out].value = m->labels[j].value;
			md->labels[out].label = put_str(at, m->labels[j].label);
			out++;
		}
		g->n = out - g->first;
	}
	free(done);
	return SHT_OK;
}

static sht_err alloc_tables(struct sht__model *md, const sht_model *m,
			    size_t n_notes, size_t strings)
{
	md->strings = malloc(strings ? strings : 1);
	md->notes = calloc(n_notes ? n_notes : 1, sizeof(*md->notes));
	md->attrs = calloc(m->n_attrs ? m->n_attrs : 1, sizeof(*md->attrs));
	md->labels = calloc(m->n_labels ? m->n_labels : 1, sizeof(*md->labels));
	md->groups = calloc(m->n_labels ? m->n_labels : 1, sizeof(*md->groups));
	if (!md->strings || !md->notes || !md->attrs || !md->labels ||
	    !md->groups)
		return SHT_ERR_NOMEM;
	return SHT_OK;
}

sht_err sht__model_copy(const sht_model *m, const sht_build_note *notes,
			size_t n, struct sht__model **out)
{
	static const sht_model empty = { NULL, 0, NULL, 0 };
	struct sht__model *md;
	size_t size;
	char *at;
	sht_err err;

	if (!m)
		m = &empty;
	size = strings_size(m, notes, n);
	if (size == SIZE_MAX)
		return sht__error(SHT_ERR_INVALID, "Cannot store the model: a NULL string or a malformed pattern");
	md = calloc(1, sizeof(*md));
	if (!md)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the model");
	err = alloc_tables(md, m, n, size);
	at = md->strings;
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		md->notes[i].key = put_str(&at, notes[i].key);
		md->notes[i].value = put_str(&at, notes[i].value);
	}
	md->n_notes = n;
	for (size_t i = 0; err == SHT_OK && i < m->n_attrs; i++) {
		md->attrs[i].pattern = put_str(&at, m->attrs[i].pattern);
		md->attrs[i].type = m->attrs[i].type;
		md->attrs[i].text = put_str(&at, m->attrs[i].text);
	}
	if (err == SHT_OK)
		err = group_labels(md, m, &at);
	if (err != SHT_OK) {
		sht__model_free(md);
		return sht__error(err, "Cannot copy the model");
	}
	md->view.attrs = md->attrs;
	md->view.n_attrs = m->n_attrs;
	md->view.labels = md->labels;
	md->view.n_labels = m->n_labels;
	*out = md;
	return SHT_OK;
}

void sht__model_free(struct sht__model *md)
{
	if (!md)
		return;
	free(md->strings);
	free(md->notes);
	free(md->attrs);
	free(md->labels);
	free(md->groups);
	free(md->doc_of);
	free(md->group_of);
	free(md);
}

const sht_model *sht__model_view(const struct sht__model *md)
{
	return &md->view;
}

const sht_build_note *sht__model_notes(const struct sht__model *md,
				       size_t *n)
{
	*n = md->n_notes;
	return md->notes;
}

int sht__model_has_entries(const struct sht__model *md)
{
	return md->view.n_attrs > 0 || md->view.n_labels > 0;
}

/* ---- section bytes ----------------------------------------------------- */
/*
 * Version 1: u32 count of notes, each key and value; u32 count of docs,
 * each pattern, u8 type, text; u32 count of labels, each pattern, i64
 * value, label.  A string is a u32 length then its bytes (no NUL).
 */

struct wbuf {
	uint8_t *p;
	size_t len, cap;
};

static int wb_room(struct wbuf *w, size_t n)
{
	uint8_t *p;
	size_t cap = w->cap ? w->cap : 256u;

	if (w->len + n <= w->cap)
		return 0;
	while (cap < w->len + n)
		cap *= 2;
	p = realloc(w->p, cap);
	if (!p)
		return -1;
	w->p = p;
	w->cap = cap;
	return 0;
}

static int wb_u32(struct wbuf *w, uint32_t x)
{
	if (wb_room(w, 4) < 0)
		return -1;
	sht__put_u32(w->p + w->len, x);
	w->len += 4;
	return 0;
}

static int wb_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);

	if (n > UINT32_MAX || wb_u32(w, (uint32_t)n) < 0 || wb_room(w, n) < 0)
		return -1;
	memcpy(w->p + w->len, s, n);
	w->len += n;
	return 0;
}

static int wb_tables(struct wbuf *w, const struct sht__model *md)
{
	int bad = wb_u32(w, (uint32_t)md->n_notes);

	for (size_t i = 0; !bad && i < md->n_notes; i++)
		bad = wb_str(w, md->notes[i].key) || wb_str(w, md->notes[i].value);
	bad = bad || wb_u32(w, (uint32_t)md->view.n_attrs);
	for (size_t i = 0; !bad && i < md->view.n_attrs; i++) {
		bad = wb_str(w, md->attrs[i].pattern) || wb_room(w, 1);
		if (!bad)
			w->p[w->len++] = (uint8_t)md->attrs[i].type;
		bad = bad || wb_str(w, md->attrs[i].text);
	}
	bad = bad || wb_u32(w, (uint32_t)md->view.n_labels);
	for (size_t i = 0; !bad && i < md->view.n_labels; i++) {
		bad = wb_str(w, md->labels[i].pattern) || wb_room(w, 8);
		if (!bad) {
			sht__put_u64(w->p + w->len, (uint64_t)md->labels[i].value);
			w->len += 8;
		}
		bad = bad || wb_str(w, md->labels[i].label);
	}
	return bad ? -1 : 0;
}

sht_err sht__model_serialize(const struct sht__model *md, uint8_t **buf,
			     size_t *len)
{
	struct wbuf w = { NULL, 0, 0 };

	if (wb_tables(&w, md) < 0) {
		free(w.p);
		return sht__error(SHT_ERR_NOMEM, "Cannot encode the model section");
	}
	*buf = w.p;
	*len = w.len;
	return SHT_OK;
}

/* Reading: a cursor over untrusted bytes; each step fails once the bytes
 * run out.  Strings are NUL-terminated copies in one allocation. */
struct rbuf {
	const uint8_t *p;
	size_t len, at;
	int bad;
};

static uint32_t rb_u32(struct rbuf *r)
{
	uint32_t x;

	if (r->bad || r->len - r->at < 4) {
		r->bad = 1;
		return 0;
	}
	x = sht__get_u32(r->p + r->at);
	r->at += 4;
	return x;
}

/* A string's bytes (borrowed; *n its length): NULL if out of bytes or
 * holding a NUL. */
static const uint8_t *rb_str(struct rbuf *r, size_t *n)
{
	uint32_t len = rb_u32(r);
	const uint8_t *s = r->p + r->at;

	if (r->bad || r->len - r->at < len || memchr(s, 0, len)) {
		r->bad = 1;
		return NULL;
	}
	r->at += len;
	*n = len;
	return s;
}

/* Counts, and the bytes the strings take with a NUL each: one pass. */
struct counts {
	uint32_t notes, attrs, labels;
	size_t strings;
};

static void rb_skip_strs(struct rbuf *r, int k, size_t extra,
			 struct counts *c)
{
	size_t n = 0;

	for (int i = 0; i < k && !r->bad; i++) {
		if (rb_str(r, &n))
			c->strings += n + 1;
		if (i == 0 && extra) {
			if (r->len - r->at < extra)
				r->bad = 1;
			else
				r->at += extra;
		}
	}
}

static void rb_count(struct rbuf *r, struct counts *c)
{
	c->notes = rb_u32(r);
	for (uint32_t i = 0; i < c->notes && !r->bad; i++)
		rb_skip_strs(r, 2, 0, c);
	c->attrs = rb_u32(r);
	for (uint32_t i = 0; i < c->attrs && !r->bad; i++)
		rb_skip_strs(r, 2, 1, c);
	c->labels = rb_u32(r);
	for (uint32_t i = 0; i < c->labels && !r->bad; i++)
		rb_skip_strs(r, 2, 8, c);
	if (r->at != r->len)
		r->bad = 1;
}

/* Copy the next string into *at (advanced). */
static const char *rb_take(struct rbuf *r, char **at)
{
	size_t n = 0;
	const uint8_t *s = rb_str(r, &n);
	char *p = *at;

	memcpy(p, s, n);
	p[n] = '\0';
	*at += n + 1;
	return p;
}

/* Decoded tables, as a public model (strings in *arena). */
struct decoded {
	sht_build_note *notes;
	sht_attr_doc *attrs;
	sht_value_label *labels;
	char *arena;
};

static void decoded_free(struct decoded *d)
{
	free(d->notes);
	free(d->attrs);
	free(d->labels);
	free(d->arena);
}

static sht_err rb_decode(struct rbuf *r, const struct counts *c,
			 struct decoded *d)
{
	char *at;

	d->notes = calloc(c->notes + 1u, sizeof(*d->notes));
	d->attrs = calloc(c->attrs + 1u, sizeof(*d->attrs));
	d->labels = calloc(c->labels + 1u, sizeof(*d->labels));
	d->arena = malloc(c->strings + 1u);
	if (!d->notes || !d->attrs || !d->labels || !d->arena)
		return SHT_ERR_NOMEM;
	at = d->arena;
	r->at = 4;
	for (uint32_t i = 0; i < c->notes; i++) {
		d->notes[i].key = rb_take(r, &at);
		d->notes[i].value = rb_take(r, &at);
	}
	r->at += 4;
	for (uint32_t i = 0; i < c->attrs; i++) {
		d->attrs[i].pattern = rb_take(r, &at);
		d->attrs[i].type = (sht_type)r->p[r->at++];
		d->attrs[i].text = rb_take(r, &at);
	}
	r->at += 4;
	for (uint32_t i = 0; i < c->labels; i++) {
		d->labels[i].pattern = rb_take(r, &at);
		d->labels[i].value = (int64_t)sht__get_u64(r->p + r->at);
		r->at += 8;
		d->labels[i].label = rb_take(r, &at);
	}
	return SHT_OK;
}

static int types_ok(const sht_attr_doc *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned)a[i].type > SHT_TYPE_STRING)
			return 0;
	return 1;
}

sht_err sht__model_load(const uint8_t *buf, size_t len,
			struct sht__model **out)
{
	struct rbuf r = { buf, len, 0, 0 };
	struct counts c = { 0, 0, 0, 0 };
	struct decoded d = { NULL, NULL, NULL, NULL };
	sht_model m;
	sht_err err;

	rb_count(&r, &c);
	if (r.bad)
		return sht__error(SHT_ERR_CORRUPT, "Cannot read the model section: bad layout at byte %zu of %zu", r.at, len);
	err = rb_decode(&r, &c, &d);
	if (err != SHT_OK) {
		decoded_free(&d);
		return sht__error(err, "Cannot read the model section");
	}
	m.attrs = d.attrs;
	m.n_attrs = c.attrs;
	m.labels = d.labels;
	m.n_labels = c.labels;
	if (!types_ok(d.attrs, c.attrs))
		err = sht__error(SHT_ERR_CORRUPT, "Cannot read the model section: bad value type");
	else
		err = sht__model_copy(&m, d.notes, c.notes, out);
	if (err == SHT_ERR_INVALID)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot read the model section: malformed pattern");
	decoded_free(&d);
	return err;
}

/* ---- matching ---------------------------------------------------------- */

/* Does the pattern match the attribute whose path is names[0..depth)? */
static int pattern_matches(const char *pat, const char *const *names,
			   const size_t *lens, size_t depth)
{
	size_t i = 0;

	while (i < depth) {
		const char *slash = strchr(pat, '/');
		size_t n = slash ? (size_t)(slash - pat) : strlen(pat);

		if (!(n == 1 && pat[0] == '*') &&
		    (n != lens[i] || memcmp(pat, names[i], n) != 0))
			return 0;
		i++;
		if (!slash)
			return i == depth;
		pat = slash + 1;
	}
	return 0;
}

/* The path of q, top first, into names/lens (malloc'd, *depth). */
static sht_err quark_path(const struct sht__attrs *a, sht_quark q,
			  const char ***names, size_t **lens, size_t *depth)
{
	size_t d = 0, cap = 8;
	const char **nm = malloc(cap * sizeof(*nm));
	size_t *ln = malloc(cap * sizeof(*ln));
	sht_err err = nm && ln ? SHT_OK : SHT_ERR_NOMEM;

	while (err == SHT_OK && q != SHT_QUARK_ROOT) {
		if (d == cap) {
			const char **n2 = realloc(nm, 2 * cap * sizeof(*nm));
			size_t *l2 = n2 ? realloc(ln, 2 * cap * sizeof(*ln)) : NULL;

			nm = n2 ? n2 : nm;
			ln = l2 ? l2 : ln;
			if (!n2 || !l2) {
				err = SHT_ERR_NOMEM;
				break;
			}
			cap *= 2;
		}
		err = sht__attrs_name(a, q, &nm[d], &ln[d]);
		if (err == SHT_OK)
			err = sht__attrs_parent(a, q, &q);
		d++;
	}
	for (size_t i = 0; err == SHT_OK && i < d / 2; i++) {
		const char *t = nm[i];
		size_t tl = ln[i];

		nm[i] = nm[d - 1 - i];
		ln[i] = ln[d - 1 - i];
		nm[d - 1 - i] = t;
		ln[d - 1 - i] = tl;
	}
	if (err != SHT_OK) {
		free(nm);
		free(ln);
		return err;
	}
	*names = nm;
	*lens = ln;
	*depth = d;
	return SHT_OK;
}

/* Find the doc and label group of q (index + 1, 0 if none). */
static sht_err classify(const struct sht__model *md,
			const struct sht__attrs *a, sht_quark q,
			uint32_t *doc, uint32_t *group)
{
	const char **names = NULL;
	size_t *lens = NULL, depth = 0;
	sht_err err = quark_path(a, q, &names, &lens, &depth);

	*doc = *group = 0;
	if (err != SHT_OK)
		return err;
	for (size_t i = 0; i < md->view.n_attrs && !*doc; i++)
		if (pattern_matches(md->attrs[i].pattern, names, lens, depth))
			*doc = (uint32_t)i + 1;
	for (size_t i = 0; i < md->n_groups && !*group; i++)
		if (pattern_matches(md->labels[md->groups[i].first].pattern,
				    names, lens, depth))
			*group = (uint32_t)i + 1;
	free(names);
	free(lens);
	return SHT_OK;
}

/* Classify the quarks up to q (cached). */
static sht_err known_up_to(struct sht__model *md, const struct sht__attrs *a,
			   sht_quark q)
{
	if (q >= sht__attrs_count(a))
		return sht__error(SHT_ERR_RANGE, "Cannot describe quark %lu: no such attribute", (unsigned long)q);
	if (q >= md->cap_known) {
		size_t cap = md->cap_known ? md->cap_known : 64u;
		uint32_t *d, *g;

		while (cap <= q)
			cap *= 2;
		d = realloc(md->doc_of, cap * sizeof(*d));
		if (d)
			md->doc_of = d;
		g = d ? realloc(md->group_of, cap * sizeof(*g)) : NULL;
		if (!g)
			return sht__error(SHT_ERR_NOMEM, "Cannot describe quark %lu", (unsigned long)q);
		md->group_of = g;
		md->cap_known = cap;
	}
	while (md->n_known <= q) {
		sht_err err = classify(md, a, (sht_quark)md->n_known,
				       &md->doc_of[md->n_known],
				       &md->group_of[md->n_known]);

		if (err != SHT_OK)
			return sht__error(err, "Cannot describe quark %lu", (unsigned long)q);
		md->n_known++;
	}
	return SHT_OK;
}

sht_err sht__model_doc(struct sht__model *md, const struct sht__attrs *a,
		       sht_quark q, const sht_attr_doc **out)
{
	sht_err err = known_up_to(md, a, q);

	*out = NULL;
	if (err == SHT_OK && md->doc_of[q])
		*out = &md->attrs[md->doc_of[q] - 1];
	return err;
}

sht_err sht__model_labels(struct sht__model *md, const struct sht__attrs *a,
			  sht_quark q, const sht_value_label **out,
			  size_t *n)
{
	sht_err err = known_up_to(md, a, q);

	*out = NULL;
	*n = 0;
	if (err == SHT_OK && md->group_of[q]) {
		const struct label_group *g = &md->groups[md->group_of[q] - 1];

		*out = &md->labels[g->first];
		*n = g->n;
	}
	return err;
}
