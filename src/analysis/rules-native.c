/*
 * rules-native.c: the native rules syntax's top level (provider, define,
 * location, on ... end) and sht_rules_parse_native; the rest of the
 * parser is in rules-native-lex.c and rules-native-stmt.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-native-int.h"

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

	sht__np_blanks(n);
	sht__np_word(n, name, 0);
	sht__np_blanks(n);
	at = n->p;
	while (n->p < n->end && *n->p != '\n' && *n->p != '#')
		n->p++;
	while (n->p > at && (n->p[-1] == ' ' || n->p[-1] == '\t' || n->p[-1] == '\r'))
		n->p--;
	if (!name[0] || n->p == at)
		return sht__np_error(n, "expected 'define NAME VALUE'");
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

	sht__np_blanks(n);
	sht__np_word(n, name, 0);
	sht__np_blanks(n);
	if (!name[0] || n->p >= n->end || *n->p != '=')
		return sht__np_error(n, "expected 'location NAME = PATH'");
	n->p++;
	sht__np_blanks(n);
	at = n->p;
	err = sht__np_path(n, &check);           /* checked now, compiled where used */
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

	sht__np_blanks(n);
	sht__np_word(n, pat, 1);
	if (!pat[0])
		return sht__np_error(n, "expected 'on EVENT-NAME'");
	err = sht__rules_add_handler(n->r, pat, &h);
	if (err == SHT_OK && !(h->changes = calloc(1, sizeof *h->changes)))
		err = sht__error(SHT_ERR_NOMEM, "Cannot allocate a handler");
	if (err != SHT_OK)
		return err;
	h->nchanges = 1;
	err = sht__np_end_line(n);
	if (err == SHT_OK)
		err = sht__np_block(n, h->changes, 0);
	if (err == SHT_OK && !sht__np_keyword(n, "end"))
		err = sht__np_error(n, "expected 'end' of the handler");
	return err;
}

static sht_err top_provider(struct np *n)
{
	char id[NP_WORD], ver[NP_WORD];
	char *end;
	unsigned long v;

	if (n->r->id)
		return sht__np_error(n, "a second 'provider' line");
	sht__np_blanks(n);
	sht__np_word(n, id, 0);
	sht__np_blanks(n);
	sht__np_word(n, ver, 0);
	v = strtoul(ver, &end, 10);
	if (!id[0] || !ver[0] || *end || v > 255)
		return sht__np_error(n, "expected 'provider ID VERSION' (VERSION 0 to 255)");
	n->r->declared_version = (uint32_t)v;
	return (n->r->id = strdup(id)) ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy the id");
}

static sht_err top(struct np *n)
{
	sht_err err = SHT_OK;

	while (err == SHT_OK && n->p < n->end) {
		if (sht__np_eol(n)) {
			err = sht__np_end_line(n);
			continue;
		}
		if (sht__np_keyword(n, "provider"))
			err = top_provider(n);
		else if (sht__np_keyword(n, "define"))
			err = top_define(n);
		else if (sht__np_keyword(n, "location"))
			err = top_location(n);
		else if (sht__np_keyword(n, "on"))
			err = top_handler(n);
		else
			err = sht__np_error(n, "expected provider, define, location or on");
		if (err == SHT_OK && n->p < n->end)
			err = sht__np_end_line(n);
	}
	if (err == SHT_OK && !n->r->id)
		err = sht__np_error(n, "no 'provider ID VERSION' line");
	if (err == SHT_OK && n->r->nhandlers == 0)
		err = sht__np_error(n, "no 'on EVENT' handler");
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
		return sht__np_error(&n, "a NUL byte in a rules file");
	err = sht__rules_new(&n.r);
	if (err == SHT_OK)
		err = top(&n);
	if (err == SHT_OK) {
		sht__rules_identity(n.r, buf, len);
		err = sht__rules_model(n.r);
	}
	if (err == SHT_OK) {
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

