/*
 * rules-native-stmt.c: the native syntax's conditions (not, and, or,
 * comparisons) and statements (assignments, if/else/end blocks).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-native-int.h"

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
	err = sht__np_value(n, c->lvalue);
	if (err != SHT_OK)
		return err;
	sht__np_blanks(n);
	for (i = 0; i < 6; i++) {
		if ((size_t)(n->end - n->p) >= strlen(ops[i]) && memcmp(n->p, ops[i], strlen(ops[i])) == 0)
			break;
	}
	if (i == 6)
		return sht__np_error(n, "expected ==, !=, <, <=, > or >=");
	n->p += strlen(ops[i]);
	c->op = (enum rl_op)i;             /* the table follows enum rl_op */
	return sht__np_value(n, &c->rvalue);
}

static sht_err cond_not(struct np *n, struct rl_cond *c)
{
	sht_err err;

	if (++n->depth > NP_DEPTH)
		return sht__np_error(n, "nested deeper than %d", NP_DEPTH);
	if (sht__np_keyword(n, "not")) {
		c->kind = RL_C_NOT;
		c->nkids = 1;
		err = (c->kids = calloc(1, sizeof *c->kids)) ? cond_not(n, c->kids)
			: sht__error(SHT_ERR_NOMEM, "Cannot allocate a condition");
	} else if (sht__np_blanks(n), n->p < n->end && *n->p == '(') {
		n->p++;
		err = cond_or(n, c);
		sht__np_blanks(n);
		if (err == SHT_OK && (n->p >= n->end || *n->p++ != ')'))
			err = sht__np_error(n, "expected ')'");
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
	} while (err == SHT_OK && sht__np_keyword(n, is_and ? "and" : "or"));
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

static sht_err if_stmt(struct np *n, struct rl_change *c)
{
	sht_err err;

	if (!(c->cond = calloc(1, sizeof *c->cond)) || !(c->then = calloc(1, sizeof *c->then)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a condition");
	err = cond_or(n, c->cond);
	if (err == SHT_OK)
		err = sht__np_end_line(n);
	if (err == SHT_OK && ++n->depth > NP_DEPTH)
		err = sht__np_error(n, "blocks nested deeper than %d", NP_DEPTH);
	if (err == SHT_OK)
		err = sht__np_block(n, c->then, 1);
	if (err == SHT_OK && sht__np_keyword(n, "else")) {
		if (!(c->els = calloc(1, sizeof *c->els)))
			return sht__error(SHT_ERR_NOMEM, "Cannot allocate a block");
		err = sht__np_end_line(n);
		if (err == SHT_OK)
			err = sht__np_block(n, c->els, 0);
	}
	n->depth--;
	if (err == SHT_OK && !sht__np_keyword(n, "end"))
		err = sht__np_error(n, "expected 'end' of the 'if'");
	return err;
}

/* PATH op [VALUE] */
static sht_err assignment(struct np *n, struct rl_change *c)
{
	sht_err err = sht__np_path(n, &c->path);

	if (err == SHT_OK)
		err = sht__rl_path_seal(n->r, &c->path);
	if (err != SHT_OK)
		return err;
	sht__np_blanks(n);
	if (n->p + 1 < n->end && n->p[0] == '+' && n->p[1] == '=') {
		n->p += 2;
		c->value.increment = 1;
	} else if (n->p < n->end && n->p[0] == '=') {
		n->p++;
	} else if (sht__np_keyword(n, "push")) {
		c->value.stack = RL_S_PUSH;
	} else if (sht__np_keyword(n, "update")) {
		c->value.update = 1;
	} else {
		c->value.kind = RL_V_NULL;
		if (sht__np_keyword(n, "pop"))
			c->value.stack = RL_S_POP;
		else if (sht__np_keyword(n, "popall"))
			c->value.stack = RL_S_POPALL;
		else if (sht__np_keyword(n, "delete"))
			c->value.kind = RL_V_DELETE;
		else
			return sht__np_error(n, "expected =, +=, push, pop, popall, delete or update after the path");
		return SHT_OK;
	}
	return sht__np_value(n, &c->value);
}

static sht_err statement(struct np *n, struct rl_change *c)
{
	c->line = n->line;
	if (sht__np_keyword(n, "if"))
		return if_stmt(n, c);
	return assignment(n, c);
}

/* Statements up to "end" (or "else" if in_if), into a block change. */
sht_err sht__np_block(struct np *n, struct rl_change *out, int in_if)
{
	sht_err err = SHT_OK;

	out->block = 1;
	out->line = n->line;
	while (err == SHT_OK) {
		const char *save = n->p;
		struct rl_change *s;

		if (sht__np_eol(n)) {
			if (n->p >= n->end)
				return sht__np_error(n, "expected 'end'");
			err = sht__np_end_line(n);
			continue;
		}
		if (sht__np_keyword(n, "end") || (in_if && sht__np_keyword(n, "else"))) {
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
			err = sht__np_end_line(n);
	}
	return err;
}

