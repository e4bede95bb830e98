/*
 * rules-native.c: the native rules syntax (docs/RULES.md, "Native
 * syntax"), compiled into the same program as the XML: one statement per
 * line, blocks closed by "end".  A hand-written recursive-descent parser
 * over the bytes; locations are kept as text and parsed where used.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

#define NP_WORD 256
#define NP_DEPTH 32               /* nesting of blocks, brackets, locations */

struct np_text {
	char *name;
	const char *at, *end;         /* location: its path's text */
	char *value;                  /* define: its literal */
};

struct np {
	const char *p, *end, *file;
	int line, depth;
	sht_rules *r;
	struct np_text *defs, *locs;
	size_t ndefs, nlocs;
};

static sht_err np_error(struct np *n, const char *fmt, ...) SHT_PRINTF(2, 3);
static sht_err np_error(struct np *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sht__error(SHT_ERR_INVALID, "%s:%d: %s", n->file, n->line, msg);
}

/* ---- lexing -------------------------------------------------------------- */

static void blanks(struct np *n)
{
	while (n->p < n->end && (*n->p == ' ' || *n->p == '\t' || *n->p == '\r'))
		n->p++;
	if (n->p < n->end && *n->p == '#')
		while (n->p < n->end && *n->p != '\n')
			n->p++;
}

static int eol(struct np *n)
{
	blanks(n);
	return n->p >= n->end || *n->p == '\n';
}

static sht_err end_line(struct np *n)
{
	if (!eol(n))
		return np_error(n, "unexpected '%c'", *n->p);
	if (n->p < n->end) {
		n->p++;
		n->line++;
	}
	return SHT_OK;
}

static int name_char(char c, int glob)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '-' || (glob && c == '*');
}

/* A name into buf (NP_WORD bytes); "" if none. */
static void word(struct np *n, char *buf, int glob)
{
	size_t k = 0;

	while (n->p < n->end && name_char(*n->p, glob) && k + 1 < NP_WORD)
		buf[k++] = *n->p++;
	buf[k] = '\0';
}

/* A keyword (a whole word) at the cursor: consumed if there. */
static int keyword(struct np *n, const char *kw)
{
	size_t k = strlen(kw);

	blanks(n);
	if ((size_t)(n->end - n->p) < k || memcmp(n->p, kw, k) != 0 ||
	    (n->p + k < n->end && name_char(n->p[k], 0)))
		return 0;
	n->p += k;
	return 1;
}

/* A "quoted" string (escapes: \" and \\ only) into a new buffer. */
static sht_err quoted(struct np *n, char **out)
{
	const char *q = n->p + 1;
	size_t k = 0;
	char *s;

	while (q < n->end && *q != '"' && *q != '\n')
		q += *q == '\\' && q + 1 < n->end && (q[1] == '"' || q[1] == '\\') ? 2 : 1;
	if (q >= n->end || *q != '"')
		return np_error(n, "unterminated string");
	if (!(s = malloc((size_t)(q - n->p))))
		return sht__error(SHT_ERR_NOMEM, "Cannot copy a string");
	for (n->p++; n->p < q; n->p++) {
		if (*n->p == '\\' && (n->p[1] == '"' || n->p[1] == '\\'))
			n->p++;
		s[k++] = *n->p;
	}
	s[k] = '\0';
	n->p = q + 1;
	*out = s;
	return SHT_OK;
}

/* ---- paths ---------------------------------------------------------------- */

static sht_err path(struct np *n, struct rl_path *out);

static sht_err add(struct rl_path *p, enum rl_elem_kind kind, char *text, struct rl_path *sub)
{
	struct rl_elem *e = realloc(p->elems, (p->n + 1) * sizeof *e);

	if (!e) {
		free(text);
		if (sub) {
			sht__rl_path_free(sub);
			free(sub);
		}
		return sht__error(SHT_ERR_NOMEM, "Cannot grow a path");
	}
	p->elems = e;
	memset(&e[p->n], 0, sizeof *e);
	e[p->n].kind = kind;
	e[p->n].text = text;
	e[p->n++].sub = sub;
	return SHT_OK;
}

static sht_err sealed_sub(struct np *n, struct rl_path *sub, struct rl_path **out)
{
	sht_err err = sht__rl_path_seal(n->r, sub);
	struct rl_path *h = err == SHT_OK ? malloc(sizeof *h) : NULL;

	if (!h) {
		sht__rl_path_free(sub);
		return err != SHT_OK ? err : sht__error(SHT_ERR_NOMEM, "Cannot allocate a path");
	}
	*h = *sub;
	*out = h;
	return SHT_OK;
}

/* "[" path "]": a query's path. */
static sht_err bracket(struct np *n, struct rl_path **out)
{
	struct rl_path sub = { 0 };
	sht_err err;

	n->p++;
	if (++n->depth > NP_DEPTH)
		return np_error(n, "nested deeper than %d", NP_DEPTH);
	err = path(n, &sub);
	n->depth--;
	if (err == SHT_OK && (n->p >= n->end || *n->p != ']'))
		err = np_error(n, "expected ']'");
	if (err != SHT_OK) {
		sht__rl_path_free(&sub);
		return err;
	}
	n->p++;
	return sealed_sub(n, &sub, out);
}

/* One piece of an element, appended to parts. */
static sht_err piece(struct np *n, struct rl_path *parts)
{
	char buf[NP_WORD], *t;
	struct rl_path *sub = NULL;
	sht_err err;

	if (*n->p == '[') {
		err = bracket(n, &sub);
		return err ? err : add(parts, RL_E_QUERY, NULL, sub);
	}
	if (*n->p == '"') {
		err = quoted(n, &t);
		return err ? err : add(parts, RL_E_CONST, t, NULL);
	}
	if (*n->p == '$' || *n->p == '%') {
		int field = *n->p++ == '$';

		word(n, buf, 0);
		if (!buf[0] || (!field && strcmp(buf, "event") != 0))
			return np_error(n, field ? "expected a field name after '$'" : "expected %%event");
		if (!field)
			return add(parts, RL_E_EVNAME, NULL, NULL);
		return (t = strdup(buf)) ? add(parts, RL_E_FIELD, t, NULL)
					 : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
	}
	word(n, buf, 0);
	if (!buf[0])
		return np_error(n, "unexpected '%c' in a path", *n->p);
	return (t = strdup(buf)) ? add(parts, RL_E_CONST, t, NULL)
				 : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
}

/* "@name": the location's elements, parsed from its text. */
static sht_err location(struct np *n, struct rl_path *out)
{
	char buf[NP_WORD];
	struct np sub;

	n->p++;
	word(n, buf, 0);
	for (size_t i = n->nlocs; i-- > 0;) {
		if (strcmp(n->locs[i].name, buf) != 0)
			continue;
		if (n->depth >= NP_DEPTH)
			return np_error(n, "locations nested deeper than %d", NP_DEPTH);
		sub = *n;
		sub.p = n->locs[i].at;
		sub.end = n->locs[i].end;
		sub.depth++;
		return path(&sub, out);
	}
	return np_error(n, "no location named '%s' (defined before)", buf);
}

static int path_end(const struct np *n)
{
	return n->p >= n->end || strchr(" \t\r\n#])/", *n->p) != NULL;
}

static sht_err element(struct np *n, struct rl_path *out)
{
	struct rl_path parts = { 0 }, *sub = NULL;
	sht_err err = SHT_OK;

	if (*n->p == '@')
		return location(n, out);
	while (err == SHT_OK && !path_end(n))
		err = piece(n, &parts);
	if (err == SHT_OK && parts.n == 0)
		err = np_error(n, "empty path element");
	if (err != SHT_OK || parts.n == 1) {
		if (err == SHT_OK) {
			err = add(out, parts.elems[0].kind, parts.elems[0].text, parts.elems[0].sub);
			parts.elems[0].text = NULL;
			parts.elems[0].sub = NULL;
		}
		sht__rl_path_free(&parts);
		return err;
	}
	err = sealed_sub(n, &parts, &sub);
	return err ? err : add(out, RL_E_CONCAT, NULL, sub);
}

static sht_err path(struct np *n, struct rl_path *out)
{
	sht_err err;

	blanks(n);
	do {
		err = element(n, out);
	} while (err == SHT_OK && n->p < n->end && *n->p == '/' && ++n->p);
	if (err == SHT_OK && (out->n == 0 || out->n > RL_PATH_MAX))
		err = np_error(n, "a path has 1 to %d elements", RL_PATH_MAX);
	return err;
}

/* ---- values ---------------------------------------------------------------- */

static sht_err literal(struct np *n, const char *s, struct rl_value *v)
{
	char *end;
	long long x;
	size_t len = strlen(s);
	int is_long = len > 1 && s[len - 1] == 'L';

	errno = 0;
	x = strtoll(s, &end, 10);
	if (end == s || (*end && !(is_long && end == s + len - 1)) || errno ||
	    (!is_long && (x < INT32_MIN || x > INT32_MAX)))
		return np_error(n, "'%s' is not a value (an int, a long 5L, a \"string\" or null)", s);
	v->kind = is_long ? RL_V_LONG : RL_V_INT;
	v->constant = is_long ? sht_value_int64(x) : sht_value_int32((int32_t)x);
	return SHT_OK;
}

static sht_err named(struct np *n, const char *name, struct rl_value *v)
{
	if (strcmp(name, "null") == 0) {
		v->kind = RL_V_NULL;
		return SHT_OK;
	}
	if (strcmp(name, "event") == 0) {
		v->kind = RL_V_EVNAME;
		if (!keyword(n, "without"))
			return SHT_OK;
		blanks(n);
		return n->p < n->end && *n->p == '"' ? quoted(n, &v->strip)
						     : np_error(n, "expected a \"prefix\" after 'without'");
	}
	for (size_t i = n->ndefs; i-- > 0;) {
		const char *d = n->defs[i].value;
		char *copy;

		if (strcmp(n->defs[i].name, name) != 0)
			continue;
		if (d[0] != '"')
			return literal(n, d, v);
		if (strlen(d) < 2 || d[strlen(d) - 1] != '"' || !(copy = strndup(d + 1, strlen(d) - 2)))
			return np_error(n, "define %s: a string is written \"text\"", name);
		v->kind = RL_V_STRING;
		v->constant = sht_value_string(copy, (uint32_t)strlen(copy));
		return SHT_OK;
	}
	return literal(n, name, v);
}

static sht_err value_core(struct np *n, struct rl_value *v)
{
	char buf[NP_WORD], *s;
	sht_err err;

	if (eol(n))
		return np_error(n, "expected a value");
	if (*n->p == '"') {
		err = quoted(n, &s);
		if (err == SHT_OK) {
			v->kind = RL_V_STRING;
			v->constant = sht_value_string(s, (uint32_t)strlen(s));
		}
		return err;
	}
	if (*n->p == '[') {
		v->kind = RL_V_QUERY;
		err = bracket(n, &v->query);
		if (err == SHT_OK && n->end - n->p >= 4 && memcmp(n->p, ".top", 4) == 0) {
			n->p += 4;
			v->stack = RL_S_PEEK;
		}
		return err;
	}
	if (*n->p == '$') {
		n->p++;
		word(n, buf, 0);
		if (!buf[0])
			return np_error(n, "expected a field name after '$'");
		v->kind = RL_V_FIELD;
		return (v->field = strdup(buf)) ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
	}
	if (*n->p == '-' || name_char(*n->p, 0)) {
		word(n, buf, 0);
		return named(n, buf, v);
	}
	return np_error(n, "unexpected '%c' where a value was expected", *n->p);
}

/* A value, then "as TYPE" and "& MASK". */
static sht_err value(struct np *n, struct rl_value *v)
{
	static const char *const types[] = { "", "int", "long", "string", "double" };
	char buf[NP_WORD];
	sht_err err = value_core(n, v);

	if (err == SHT_OK && keyword(n, "as")) {
		blanks(n);
		word(n, buf, 0);
		for (int i = 1; i < 5 && !v->forced; i++)
			v->forced = strcmp(buf, types[i]) == 0 ? (enum rl_forced)i : RL_F_NONE;
		if (!v->forced)
			return np_error(n, "'as %s': expected int, long, string or double", buf);
	}
	blanks(n);
	if (err == SHT_OK && n->p < n->end && *n->p == '&') {
		char *end;

		n->p++;
		blanks(n);
		v->mask = strtoll(n->p, &end, 0);
		if (end == n->p || v->mask <= 0 || (v->kind != RL_V_FIELD && v->kind != RL_V_QUERY))
			return np_error(n, "'& N' needs N > 0 after a field or an attribute value");
		n->p = end;
	}
	return err;
}

/* ---- conditions -------------------------------------------------------------- */

static sht_err cond_or(struct np *n, struct rl_cond *c);

static sht_err comparison(struct np *n, struct rl_cond *c)
{
	static const char *const ops[] = { "==", "!=", ">=", ">", "<=", "<" };
	size_t i;
	sht_err err;

	c->kind = RL_C_CMP;
	if (!(c->lvalue = calloc(1, sizeof *c->lvalue)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a value");
	err = value(n, c->lvalue);
	if (err != SHT_OK)
		return err;
	blanks(n);
	for (i = 0; i < 6; i++) {
		if ((size_t)(n->end - n->p) >= strlen(ops[i]) && memcmp(n->p, ops[i], strlen(ops[i])) == 0)
			break;
	}
	if (i == 6)
		return np_error(n, "expected ==, !=, <, <=, > or >=");
	n->p += strlen(ops[i]);
	c->op = (enum rl_op)i;             /* the table follows enum rl_op */
	return value(n, &c->rvalue);
}

static sht_err cond_not(struct np *n, struct rl_cond *c)
{
	sht_err err;

	if (++n->depth > NP_DEPTH)
		return np_error(n, "nested deeper than %d", NP_DEPTH);
	if (keyword(n, "not")) {
		c->kind = RL_C_NOT;
		c->nkids = 1;
		err = (c->kids = calloc(1, sizeof *c->kids)) ? cond_not(n, c->kids)
			: sht__error(SHT_ERR_NOMEM, "Cannot allocate a condition");
	} else if (blanks(n), n->p < n->end && *n->p == '(') {
		n->p++;
		err = cond_or(n, c);
		blanks(n);
		if (err == SHT_OK && (n->p >= n->end || *n->p++ != ')'))
			err = np_error(n, "expected ')'");
	} else {
		err = comparison(n, c);
	}
	n->depth--;
	return err;
}

/* a (and|or) b (and|or) ...: "and" binds tighter than "or". */
static sht_err cond_list(struct np *n, struct rl_cond *c, int is_and)
{
	struct rl_cond *kids = NULL;
	size_t nk = 0;
	sht_err err;

	do {
		struct rl_cond *k = realloc(kids, (nk + 1) * sizeof *k);

		if (!k) {
			err = sht__error(SHT_ERR_NOMEM, "Cannot grow a condition");
			break;
		}
		kids = k;
		memset(&kids[nk], 0, sizeof *kids);
		err = is_and ? cond_not(n, &kids[nk]) : cond_list(n, &kids[nk], 1);
		nk++;
	} while (err == SHT_OK && keyword(n, is_and ? "and" : "or"));
	if (err == SHT_OK && nk == 1) {
		*c = kids[0];
		free(kids);
		return SHT_OK;
	}
	c->kind = is_and ? RL_C_AND : RL_C_OR;
	c->kids = kids;
	c->nkids = nk;
	return err;
}

static sht_err cond_or(struct np *n, struct rl_cond *c)
{
	return cond_list(n, c, 0);
}

/* ---- statements ------------------------------------------------------------ */

static sht_err block(struct np *n, struct rl_change *out, int in_if);

static sht_err if_stmt(struct np *n, struct rl_change *c)
{
	sht_err err;

	if (!(c->cond = calloc(1, sizeof *c->cond)) || !(c->then = calloc(1, sizeof *c->then)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a condition");
	err = cond_or(n, c->cond);
	if (err == SHT_OK)
		err = end_line(n);
	if (err == SHT_OK && ++n->depth > NP_DEPTH)
		err = np_error(n, "blocks nested deeper than %d", NP_DEPTH);
	if (err == SHT_OK)
		err = block(n, c->then, 1);
	if (err == SHT_OK && keyword(n, "else")) {
		if (!(c->els = calloc(1, sizeof *c->els)))
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate a block");
		err = end_line(n);
		if (err == SHT_OK)
			err = block(n, c->els, 0);
	}
	n->depth--;
	if (err == SHT_OK && !keyword(n, "end"))
		err = np_error(n, "expected 'end' of the 'if'");
	return err;
}

/* PATH op [VALUE] */
static sht_err assignment(struct np *n, struct rl_change *c)
{
	sht_err err = path(n, &c->path);

	if (err == SHT_OK)
		err = sht__rl_path_seal(n->r, &c->path);
	if (err != SHT_OK)
		return err;
	blanks(n);
	if (n->p + 1 < n->end && n->p[0] == '+' && n->p[1] == '=') {
		n->p += 2;
		c->value.increment = 1;
	} else if (n->p < n->end && n->p[0] == '=') {
		n->p++;
	} else if (keyword(n, "push")) {
		c->value.stack = RL_S_PUSH;
	} else if (keyword(n, "update")) {
		c->value.update = 1;
	} else {
		c->value.kind = RL_V_NULL;
		if (keyword(n, "pop"))
			c->value.stack = RL_S_POP;
		else if (keyword(n, "popall"))
			c->value.stack = RL_S_POPALL;
		else if (keyword(n, "delete"))
			c->value.kind = RL_V_DELETE;
		else
			return np_error(n, "expected =, +=, push, pop, popall, delete or update after the path");
		return SHT_OK;
	}
	return value(n, &c->value);
}

static sht_err statement(struct np *n, struct rl_change *c)
{
	c->line = n->line;
	if (keyword(n, "if"))
		return if_stmt(n, c);
	return assignment(n, c);
}

/* Statements up to "end" (or "else" if in_if), into a block change. */
static sht_err block(struct np *n, struct rl_change *out, int in_if)
{
	sht_err err = SHT_OK;

	out->block = 1;
	out->line = n->line;
	while (err == SHT_OK) {
		const char *save = n->p;
		struct rl_change *s;

		if (eol(n)) {
			if (n->p >= n->end)
				return np_error(n, "expected 'end'");
			err = end_line(n);
			continue;
		}
		if (keyword(n, "end") || (in_if && keyword(n, "else"))) {
			n->p = save;
			return SHT_OK;
		}
		s = realloc(out->seq, (out->nseq + 1) * sizeof *s);
		if (!s)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow a block");
		out->seq = s;
		memset(&s[out->nseq], 0, sizeof *s);
		err = statement(n, &s[out->nseq++]);
		if (err == SHT_OK)
			err = end_line(n);
	}
	return err;
}

/* ---- top level --------------------------------------------------------------- */

static sht_err text_entry(struct np *n, struct np_text **list, size_t *count,
			  const char *name, struct np_text **out)
{
	struct np_text *l = realloc(*list, (*count + 1) * sizeof *l);

	if (!l)
		return sht__error(SHT_ERR_NOMEM, "Cannot store a definition");
	*list = l;
	memset(&l[*count], 0, sizeof *l);
	if (!(l[*count].name = strdup(name)))
		return sht__error(SHT_ERR_NOMEM, "Cannot store a definition");
	*out = &l[(*count)++];
	(void)n;
	return SHT_OK;
}

static sht_err top_define(struct np *n)
{
	char name[NP_WORD];
	struct np_text *d;
	const char *at;
	sht_err err;

	blanks(n);
	word(n, name, 0);
	blanks(n);
	at = n->p;
	while (n->p < n->end && *n->p != '\n' && *n->p != '#')
		n->p++;
	while (n->p > at && (n->p[-1] == ' ' || n->p[-1] == '\t' || n->p[-1] == '\r'))
		n->p--;
	if (!name[0] || n->p == at)
		return np_error(n, "expected 'define NAME VALUE'");
	err = text_entry(n, &n->defs, &n->ndefs, name, &d);
	if (err == SHT_OK && !(d->value = strndup(at, (size_t)(n->p - at))))
		err = sht__error(SHT_ERR_NOMEM, "Cannot store a definition");
	return err;
}

static sht_err top_location(struct np *n)
{
	char name[NP_WORD];
	struct np_text *l;
	struct rl_path check = { 0 };
	const char *at;
	sht_err err;

	blanks(n);
	word(n, name, 0);
	blanks(n);
	if (!name[0] || n->p >= n->end || *n->p != '=')
		return np_error(n, "expected 'location NAME = PATH'");
	n->p++;
	blanks(n);
	at = n->p;
	err = path(n, &check);           /* checked now, compiled where used */
	sht__rl_path_free(&check);
	if (err == SHT_OK)
		err = text_entry(n, &n->locs, &n->nlocs, name, &l);
	if (err == SHT_OK) {
		l->at = at;
		l->end = n->p;
	}
	return err;
}

static sht_err top_handler(struct np *n)
{
	char pat[NP_WORD];
	struct rl_handler *h;
	sht_err err;

	blanks(n);
	word(n, pat, 1);
	if (!pat[0])
		return np_error(n, "expected 'on EVENT-NAME'");
	err = sht__rules_add_handler(n->r, pat, &h);
	if (err == SHT_OK && !(h->changes = calloc(1, sizeof *h->changes)))
		err = sht__error(SHT_ERR_NOMEM, "Cannot allocate a handler");
	if (err != SHT_OK)
		return err;
	h->nchanges = 1;
	err = end_line(n);
	if (err == SHT_OK)
		err = block(n, h->changes, 0);
	if (err == SHT_OK && !keyword(n, "end"))
		err = np_error(n, "expected 'end' of the handler");
	return err;
}

static sht_err top_provider(struct np *n)
{
	char id[NP_WORD], ver[NP_WORD];
	char *end;
	unsigned long v;

	if (n->r->id)
		return np_error(n, "a second 'provider' line");
	blanks(n);
	word(n, id, 0);
	blanks(n);
	word(n, ver, 0);
	v = strtoul(ver, &end, 10);
	if (!id[0] || !ver[0] || *end || v > 255)
		return np_error(n, "expected 'provider ID VERSION' (VERSION 0 to 255)");
	n->r->declared_version = (uint32_t)v;
	return (n->r->id = strdup(id)) ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy the id");
}

static sht_err top(struct np *n)
{
	sht_err err = SHT_OK;

	while (err == SHT_OK && n->p < n->end) {
		if (eol(n)) {
			err = end_line(n);
			continue;
		}
		if (keyword(n, "provider"))
			err = top_provider(n);
		else if (keyword(n, "define"))
			err = top_define(n);
		else if (keyword(n, "location"))
			err = top_location(n);
		else if (keyword(n, "on"))
			err = top_handler(n);
		else
			err = np_error(n, "expected provider, define, location or on");
		if (err == SHT_OK && n->p < n->end)
			err = end_line(n);
	}
	if (err == SHT_OK && !n->r->id)
		err = np_error(n, "no 'provider ID VERSION' line");
	if (err == SHT_OK && n->r->nhandlers == 0)
		err = np_error(n, "no 'on EVENT' handler");
	return err;
}

sht_err sht_rules_parse_native(const char *buf, size_t len, const char *name,
			       sht_rules **out)
{
	struct np n;
	sht_err err;

	memset(&n, 0, sizeof n);
	n.p = buf;
	n.end = buf + len;
	n.file = name ? name : "(memory)";
	n.line = 1;
	if (memchr(buf, '\0', len))
		return np_error(&n, "a NUL byte in a rules file");
	err = sht__rules_new(&n.r);
	if (err == SHT_OK)
		err = top(&n);
	if (err == SHT_OK) {
		sht__rules_identity(n.r, buf, len);
		*out = n.r;
	} else {
		sht_rules_destroy(n.r);
	}
	for (size_t i = 0; i < n.ndefs; i++) {
		free(n.defs[i].name);
		free(n.defs[i].value);
	}
	for (size_t i = 0; i < n.nlocs; i++)
		free(n.locs[i].name);
	free(n.defs);
	free(n.locs);
	return err;
}
