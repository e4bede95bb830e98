/*
 * rules-model.c: the model of a rules file (include/sht/model.h): each
 * defined value (XML definedValue, native define) with an integer value
 * names that value on the attributes the file writes it to or compares
 * it with: "Threads/$tid = RUNNING", RUNNING defined as 2, gives the
 * label ("Threads/\*", 2, "RUNNING").  A path element that is not a
 * constant (a field, a query, the event name, a concatenation) becomes
 * "*"; a constant that holds "/" or is "*" cannot be said in a pattern,
 * and such a path gives no label.  The first name found for a (pattern,
 * value) pair wins.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* The pattern of path p (malloc'd), or NULL (*bad set if it cannot be
 * said, else out of memory). */
static char *path_pattern(const struct rl_path *p, int *bad)
{
	size_t len = 0;
	char *s, *at;

	*bad = p->n == 0;
	for (size_t i = 0; i < p->n && !*bad; i++) {
		const struct rl_elem *e = &p->elems[i];

		if (e->kind != RL_E_CONST) {
			len += 2;
			continue;
		}
		if (!*e->text || strchr(e->text, '/') || strcmp(e->text, "*") == 0)
			*bad = 1;
		len += strlen(e->text) + 1;
	}
	if (*bad || !(s = malloc(len)))
		return NULL;
	at = s;
	for (size_t i = 0; i < p->n; i++) {
		const struct rl_elem *e = &p->elems[i];
		const char *name = e->kind == RL_E_CONST ? e->text : "*";
		size_t n = strlen(name);

		if (i > 0)
			*at++ = '/';
		memcpy(at, name, n);
		at += n;
	}
	*at = '\0';
	return s;
}

static int value_int(const struct rl_value *v, int64_t *x)
{
	if (!v->defname)
		return 0;
	if (v->kind == RL_V_INT)
		*x = v->constant.u.i32;
	else if (v->kind == RL_V_LONG)
		*x = v->constant.u.i64;
	else
		return 0;
	return 1;
}

/* Add (pattern of p, v's value, v's defined name) unless that pair has a
 * name already. */
static sht_err add_label(sht_rules *r, const struct rl_path *p,
			 const struct rl_value *v)
{
	sht_value_label *l;
	int64_t x;
	int bad;
	char *pat, *name;

	if (!p || !value_int(v, &x))
		return SHT_OK;
	pat = path_pattern(p, &bad);
	if (!pat)
		return bad ? SHT_OK : SHT_ERR_NOMEM;
	for (size_t i = 0; i < r->nlabels; i++) {
		if (r->labels[i].value == x &&
		    strcmp(r->labels[i].pattern, pat) == 0) {
			free(pat);
			return SHT_OK;
		}
	}
	l = realloc(r->labels, (r->nlabels + 1) * sizeof(*l));
	name = strdup(v->defname);
	if (l)
		r->labels = l;
	if (!l || !name) {
		free(pat);
		free(name);
		return SHT_ERR_NOMEM;
	}
	l[r->nlabels].pattern = pat;
	l[r->nlabels].value = x;
	l[r->nlabels++].label = name;
	return SHT_OK;
}

static sht_err from_cond(sht_rules *r, const struct rl_cond *c)
{
	sht_err err = SHT_OK;

	if (!c)
		return SHT_OK;
	if (c->kind == RL_C_CMP) {
		/* The attribute compared: the condition's path (XML), or a
		 * queried value on either side (native syntax). */
		if (c->path)
			return add_label(r, c->path, &c->rvalue);
		if (c->lvalue && c->lvalue->kind == RL_V_QUERY &&
		    c->lvalue->stack == RL_S_NONE)
			err = add_label(r, c->lvalue->query, &c->rvalue);
		if (err == SHT_OK && c->lvalue &&
		    c->rvalue.kind == RL_V_QUERY && c->rvalue.stack == RL_S_NONE)
			err = add_label(r, c->rvalue.query, c->lvalue);
		return err;
	}
	for (size_t i = 0; err == SHT_OK && i < c->nkids; i++)
		err = from_cond(r, &c->kids[i]);
	return err;
}

static sht_err from_change(sht_rules *r, const struct rl_change *c)
{
	sht_err err = SHT_OK;

	if (!c)
		return SHT_OK;
	if (c->block) {
		for (size_t i = 0; err == SHT_OK && i < c->nseq; i++)
			err = from_change(r, &c->seq[i]);
		return err;
	}
	if (c->cond) {
		err = from_cond(r, c->cond);
		if (err == SHT_OK)
			err = from_change(r, c->then);
		return err == SHT_OK ? from_change(r, c->els) : err;
	}
	if (c->value.stack != RL_S_NONE || c->value.increment)
		return SHT_OK;
	return add_label(r, &c->path, &c->value);
}

/* Group the labels by pattern, first appearance first (model.h wants a
 * pattern's labels consecutive). */
static void group_labels(sht_rules *r)
{
	size_t out = 0;

	while (out < r->nlabels) {
		const char *pat = r->labels[out].pattern;

		out++;
		for (size_t j = out; j < r->nlabels; j++) {
			if (strcmp(r->labels[j].pattern, pat) != 0)
				continue;
			sht_value_label t = r->labels[j];

			memmove(&r->labels[out + 1], &r->labels[out],
				(j - out) * sizeof(t));
			r->labels[out++] = t;
		}
	}
}

sht_err sht__rules_model(sht_rules *r)
{
	sht_err err = SHT_OK;

	for (size_t i = 0; err == SHT_OK && i < r->nhandlers; i++)
		for (size_t j = 0; err == SHT_OK && j < r->handlers[i].nchanges; j++)
			err = from_change(r, &r->handlers[i].changes[j]);
	if (err != SHT_OK)
		return sht__error(err, "Cannot list the defined values of %s", r->id);
	group_labels(r);
	r->model.labels = r->labels;
	r->model.n_labels = r->nlabels;
	return SHT_OK;
}

void sht__rules_model_free(sht_rules *r)
{
	for (size_t i = 0; i < r->nlabels; i++) {
		free((char *)(uintptr_t)r->labels[i].pattern);
		free((char *)(uintptr_t)r->labels[i].label);
	}
	free(r->labels);
}

const sht_model *sht_rules_model(const sht_rules *r)
{
	return &r->model;
}
