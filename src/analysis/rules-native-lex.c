/*
 * rules-native-lex.c: the native syntax's lexing, paths and values
 * (rules-native-int.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-native-int.h"

sht_err sht__np_error(struct np *n, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sht__error(SHT_ERR_INVALID, "%s:%d: %s", n->file, n->line, msg);
}

/* ---- lexing -------------------------------------------------------------- */

void sht__np_blanks(struct np *n)
{
	while (n->p < n->end && (*n->p == ' ' || *n->p == '\t' || *n->p == '\r'))
		n->p++;
	if (n->p < n->end && *n->p == '#')
		while (n->p < n->end && *n->p != '\n')
			n->p++;
}

int sht__np_eol(struct np *n)
{
	sht__np_blanks(n);
	return n->p >= n->end || *n->p == '\n';
}

sht_err sht__np_end_line(struct np *n)
{
	if (!sht__np_eol(n))
		return sht__np_error(n, "unexpected '%c'", *n->p);
	if (n->p < n->end) {
		n->p++;
		n->line++;
	}
	return SHT_OK;
}

int sht__np_name_char(char c, int glob)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '-' || (glob && c == '*');
}

/* A name into buf (NP_WORD bytes); "" if none. */
void sht__np_word(struct np *n, char *buf, int glob)
{
	size_t k = 0;

	while (n->p < n->end && sht__np_name_char(*n->p, glob) && k + 1 < NP_WORD)
		buf[k++] = *n->p++;
	buf[k] = '\0';
}

/* A keyword (a whole word) at the cursor: consumed if there. */
int sht__np_keyword(struct np *n, const char *kw)
{
	size_t k = strlen(kw);

	sht__np_blanks(n);
	if ((size_t)(n->end - n->p) < k || memcmp(n->p, kw, k) != 0 ||
	    (n->p + k < n->end && sht__np_name_char(n->p[k], 0)))
		return 0;
	n->p += k;
	return 1;
}

/* A "quoted" string (escapes: \" and \\ only) into a new buffer. */
sht_err sht__np_quoted(struct np *n, char **out)
{
	const char *q = n->p + 1;
	size_t k = 0;
	char *s;

	while (q < n->end && *q != '"' && *q != '\n')
		q += *q == '\\' && q + 1 < n->end && (q[1] == '"' || q[1] == '\\') ? 2 : 1;
	if (q >= n->end || *q != '"')
		return sht__np_error(n, "unterminated string");
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
		return sht__np_error(n, "nested deeper than %d", NP_DEPTH);
	err = sht__np_path(n, &sub);
	n->depth--;
	if (err == SHT_OK && (n->p >= n->end || *n->p != ']'))
		err = sht__np_error(n, "expected ']'");
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
		err = sht__np_quoted(n, &t);
		return err ? err : add(parts, RL_E_CONST, t, NULL);
	}
	if (*n->p == '$' || *n->p == '%') {
		int field = *n->p++ == '$';

		sht__np_word(n, buf, 0);
		if (!buf[0] || (!field && strcmp(buf, "event") != 0))
			return sht__np_error(n, field ? "expected a field name after '$'" : "expected %%event");
		if (!field)
			return add(parts, RL_E_EVNAME, NULL, NULL);
		return (t = strdup(buf)) ? add(parts, RL_E_FIELD, t, NULL)
					 : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
	}
	sht__np_word(n, buf, 0);
	if (!buf[0])
		return sht__np_error(n, "unexpected '%c' in a path", *n->p);
	return (t = strdup(buf)) ? add(parts, RL_E_CONST, t, NULL)
				 : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
}

/* "@name": the location's elements, parsed from its text. */
static sht_err location(struct np *n, struct rl_path *out)
{
	char buf[NP_WORD];
	struct np sub;

	n->p++;
	sht__np_word(n, buf, 0);
	for (size_t i = n->nlocs; i-- > 0;) {
		if (strcmp(n->locs[i].name, buf) != 0)
			continue;
		if (n->depth >= NP_DEPTH)
			return sht__np_error(n, "locations nested deeper than %d", NP_DEPTH);
		sub = *n;
		sub.p = n->locs[i].at;
		sub.end = n->locs[i].end;
		sub.depth++;
		return sht__np_path(&sub, out);
	}
	return sht__np_error(n, "no location named '%s' (defined before)", buf);
}

static int path_end(const struct np *n)
{
	return n->p >= n->end || strchr(" \t\r\n#])/", *n->p) != NULL;
}

static sht_err element(struct np *n, struct rl_path *out)
{
	struct rl_path parts = { 0 }, *sub = NULL;
	sht_err err = SHT_OK;

	if (n->p < n->end && *n->p == '@')
		return location(n, out);
	while (err == SHT_OK && !path_end(n))
		err = piece(n, &parts);
	if (err == SHT_OK && parts.n == 0)
		err = sht__np_error(n, "empty path element");
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

sht_err sht__np_path(struct np *n, struct rl_path *out)
{
	sht_err err;

	sht__np_blanks(n);
	do {
		err = element(n, out);
	} while (err == SHT_OK && n->p < n->end && *n->p == '/' && ++n->p);
	if (err == SHT_OK && (out->n == 0 || out->n > RL_PATH_MAX))
		err = sht__np_error(n, "a path has 1 to %d elements", RL_PATH_MAX);
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
		return sht__np_error(n, "'%s' is not a value (an int, a long 5L, a \"string\" or null)", s);
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
		if (!sht__np_keyword(n, "without"))
			return SHT_OK;
		sht__np_blanks(n);
		return n->p < n->end && *n->p == '"' ? sht__np_quoted(n, &v->strip)
						     : sht__np_error(n, "expected a \"prefix\" after 'without'");
	}
	for (size_t i = n->ndefs; i-- > 0;) {
		const char *d = n->defs[i].value;
		char *copy;

		if (strcmp(n->defs[i].name, name) != 0)
			continue;
		if (d[0] != '"') {
			sht_err err = literal(n, d, v);

			if (err == SHT_OK && !(v->defname = strdup(name)))
				err = sht__error(SHT_ERR_NOMEM, "Cannot copy a define's name");
			return err;
		}
		if (strlen(d) < 2 || d[strlen(d) - 1] != '"' || !(copy = strndup(d + 1, strlen(d) - 2)))
			return sht__np_error(n, "define %s: a string is written \"text\"", name);
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

	if (sht__np_eol(n))
		return sht__np_error(n, "expected a value");
	if (*n->p == '"') {
		err = sht__np_quoted(n, &s);
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
		sht__np_word(n, buf, 0);
		if (!buf[0])
			return sht__np_error(n, "expected a field name after '$'");
		v->kind = RL_V_FIELD;
		return (v->field = strdup(buf)) ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy a name");
	}
	if (*n->p == '-' || sht__np_name_char(*n->p, 0)) {
		sht__np_word(n, buf, 0);
		return named(n, buf, v);
	}
	return sht__np_error(n, "unexpected '%c' where a value was expected", *n->p);
}

/* A value, then "as TYPE" and "& MASK". */
sht_err sht__np_value(struct np *n, struct rl_value *v)
{
	static const char *const types[] = { "", "int", "long", "string", "double" };
	char buf[NP_WORD];
	sht_err err = value_core(n, v);

	if (err == SHT_OK && sht__np_keyword(n, "as")) {
		sht__np_blanks(n);
		sht__np_word(n, buf, 0);
		for (int i = 1; i < 5 && !v->forced; i++)
			v->forced = strcmp(buf, types[i]) == 0 ? (enum rl_forced)i : RL_F_NONE;
		if (!v->forced)
			return sht__np_error(n, "'as %s': expected int, long, string or double", buf);
	}
	sht__np_blanks(n);
	if (err == SHT_OK && n->p < n->end && *n->p == '&') {
		char num[NP_WORD], *end;

		n->p++;
		sht__np_blanks(n);
		sht__np_word(n, num, 0);       /* bounded: the text has no NUL */
		errno = 0;
		v->mask = strtoll(num, &end, 0);
		if (end == num || *end || errno || v->mask <= 0 ||
		    (v->kind != RL_V_FIELD && v->kind != RL_V_QUERY))
			return sht__np_error(n, "'& N' needs N > 0 after a field or an attribute value");
	}
	return err;
}

