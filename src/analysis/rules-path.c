/*
 * rules-path.c: sealing a compiled path: its leading constants, the
 * numbers of its constant elements, of its elements made of queries and
 * of its prefixes (equal texts, equal numbers, across the program: the
 * keys of the memos of rules-quark.c).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* A growable text. */
struct rl_text {
	char *s;
	size_t len, cap;
	int failed;
};

static void text_add(struct rl_text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *ns = realloc(t->s, cap);

		if (!ns) {
			t->failed = 1;
			return;
		}
		t->s = ns;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n);
	t->len += n;
	t->s[t->len] = '\0';
}

/* The text of element e for comparing paths: its kind, its name or its
 * sub-path in brackets, a separator. */
static void elem_text(struct rl_text *t, const struct rl_elem *e)
{
	char kind = (char)('0' + (int)e->kind);

	text_add(t, &kind, 1);
	if (e->sub) {
		text_add(t, "[", 1);
		for (size_t i = 0; i < e->sub->n; i++)
			elem_text(t, &e->sub->elems[i]);
		text_add(t, "]", 1);
	} else if (e->text) {
		text_add(t, e->text, strlen(e->text));
	}
	text_add(t, "\x1f", 1);
}

/* The number of text t (owned, taken) among the program's texts. */
static sht_err text_sig(sht_rules *r, char *t, uint32_t *out)
{
	size_t len, h;
	uint64_t hash = sht__rl_hash(t, &len);

	if ((r->nsigs + 1) * 2 > r->sig_cap) {
		size_t cap = r->sig_cap ? r->sig_cap * 2 : 64;
		uint32_t *tab = calloc(cap, sizeof *tab);
		char **ns = realloc(r->sigs, cap / 2 * sizeof *ns);

		if (ns)
			r->sigs = ns;
		if (!tab || !ns) {
			free(tab);
			free(t);
			return sht__error(SHT_ERR_NOMEM, "Cannot number a path");
		}
		for (size_t i = 0; i < r->nsigs; i++) {
			size_t l;

			for (h = sht__rl_hash(r->sigs[i], &l) & (cap - 1); tab[h]; h = (h + 1) & (cap - 1))
				;
			tab[h] = (uint32_t)i + 1;
		}
		free(r->sig_tab);
		r->sig_tab = tab;
		r->sig_cap = cap;
	}
	for (h = hash & (r->sig_cap - 1); r->sig_tab[h]; h = (h + 1) & (r->sig_cap - 1)) {
		if (strcmp(r->sigs[r->sig_tab[h] - 1], t) == 0) {
			free(t);
			*out = r->sig_tab[h] - 1;
			return SHT_OK;
		}
	}
	r->sigs[r->nsigs] = t;
	r->sig_tab[h] = (uint32_t)r->nsigs + 1;
	*out = (uint32_t)r->nsigs++;
	return SHT_OK;
}

/* Number p's constant elements and the prefixes of each length > nconst. */
static sht_err path_sigs(sht_rules *r, struct rl_path *p)
{
	struct rl_text t = { 0 };
	sht_err err = SHT_OK;

	for (size_t i = 0; err == SHT_OK && i < p->n; i++) {
		struct rl_elem *e = &p->elems[i];
		struct rl_text c = { 0 };

		elem_text(&t, e);
		if (e->kind == RL_E_CONST || e->dkey) {
			uint32_t n = 0;

			elem_text(&c, e);
			if (c.failed)
				free(c.s);
			err = c.failed ? SHT_ERR_NOMEM : text_sig(r, c.s, &n);
			if (e->kind == RL_E_CONST)
				e->cid = n;
			else
				e->dkey = n + 1;
		}
		if (err == SHT_OK && i >= p->nconst) {
			char *dup = t.failed ? NULL : strdup(t.s);

			err = dup ? text_sig(r, dup, &p->psig[i - p->nconst]) : SHT_ERR_NOMEM;
		}
	}
	free(t.s);
	return err == SHT_ERR_NOMEM ? sht__error(err, "Cannot number a path") : err;
}

/* 1 if e's name is a function of the attributes it reads: a query, or a
 * concat of constants and at most RL_MEMO_DEPS queries. */
static int elem_depkeyed(const struct rl_elem *e)
{
	size_t nq = 0;

	if (e->kind == RL_E_QUERY)
		return 1;
	if (e->kind != RL_E_CONCAT)
		return 0;
	for (size_t i = 0; i < e->sub->n; i++) {
		if (e->sub->elems[i].kind == RL_E_QUERY)
			nq++;
		else if (e->sub->elems[i].kind != RL_E_CONST)
			return 0;
	}
	return nq >= 1 && nq <= RL_MEMO_DEPS;
}

/* 1 if element e reads an attribute's value. */
static int elem_dyn(const struct rl_elem *e)
{
	return e->kind == RL_E_QUERY || (e->kind == RL_E_CONCAT && e->sub->ndyn < e->sub->n);
}

sht_err sht__rl_path_seal(sht_rules *r, struct rl_path *p)
{
	size_t k = 0;

	while (k < p->n && p->elems[k].kind == RL_E_CONST)
		k++;
	p->nconst = k;
	p->prefix_gen = 0;
	for (p->ndyn = 0; p->ndyn < p->n && !elem_dyn(&p->elems[p->ndyn]); p->ndyn++)
		;
	for (size_t i = 0; i < p->n; i++) {
		struct rl_elem *e = &p->elems[i];

		e->is_cpu = e->kind == RL_E_FIELD && strcmp(e->text, "cpu") == 0;
		e->dkey = (uint32_t)elem_depkeyed(e);   /* numbered below */
	}
	free(p->psig);
	p->psig = p->n > k ? calloc(p->n - k, sizeof *p->psig) : NULL;
	if (p->n > k && !p->psig)
		return sht__error(SHT_ERR_NOMEM, "Cannot number a path");
	return path_sigs(r, p);
}
