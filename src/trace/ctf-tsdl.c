/*
 * ctf-tsdl.c: the packet header and context layouts of a CTF 1.8 trace,
 * from its TSDL metadata text (ctf-tsdl.h).  A small recursive reader of
 * the subset packet headers and contexts use; every other declaration
 * (env, clock, event, callsite, ...) is skipped by its braces.  What it
 * does not understand inside a header or context makes the layout not
 * fixed, never a wrong one.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-tsdl.h"

enum { T_END, T_ID, T_NUM, T_STR, T_PUNCT };
enum { TY_INT, TY_STRUCT, TY_OTHER };
enum { BO_NATIVE, BO_LE, BO_BE };

struct tok {
	int kind;
	const char *s;
	size_t len;
	uint64_t num;
};

struct ty {
	int kind;
	uint32_t size, align;         /* bits (integers) */
	int bo;
	size_t st;                    /* struct index (TY_STRUCT) */
};

struct memb {
	char name[TSDL_NAME];
	struct ty ty;
	uint64_t count;               /* array length, 1 for a scalar */
};

struct tstruct {
	struct memb *m;
	size_t n, cap;
	uint32_t min_align;
};

struct alias {
	char name[TSDL_NAME];
	struct ty ty;
};

struct parser {
	const char *p, *end;
	struct tok t;
	int bad;
	int depth;                    /* of nested structures */
	int le;                       /* the trace's byte order */
	struct tstruct *st;
	size_t nst;
	struct alias *al;
	size_t nal;
	struct alias *named;          /* named structs: name -> type */
	size_t nnamed;
	struct ty header;
	int have_header;
	struct { uint64_t id; struct ty ctx; int have; } streams[TSDL_STREAMS];
	size_t nstreams;
};

/* ---- tokens -------------------------------------------------------------- */

static void skip_space(struct parser *P)
{
	for (;;) {
		while (P->p < P->end && isspace((unsigned char)*P->p))
			P->p++;
		if (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '*') {
			const char *e = P->p + 2;
			while (e + 1 < P->end && !(e[0] == '*' && e[1] == '/'))
				e++;
			P->p = e + 1 < P->end ? e + 2 : P->end;
		} else if (P->end - P->p >= 2 && P->p[0] == '/' && P->p[1] == '/') {
			while (P->p < P->end && *P->p != '\n')
				P->p++;
		} else {
			return;
		}
	}
}

static void lex(struct parser *P)
{
	struct tok *t = &P->t;

	skip_space(P);
	t->s = P->p;
	t->len = 0;
	if (P->p >= P->end) {
		t->kind = T_END;
	} else if (isalpha((unsigned char)*P->p) || *P->p == '_') {
		while (P->p < P->end && (isalnum((unsigned char)*P->p) || *P->p == '_'))
			P->p++;
		t->kind = T_ID;
	} else if (isdigit((unsigned char)*P->p)) {
		char *e;
		t->num = strtoull(P->p, &e, 0);
		P->p = e > P->end ? P->end : e;
		while (P->p < P->end && isalnum((unsigned char)*P->p))
			P->p++;               /* suffixes: 8U, 1UL */
		t->kind = T_NUM;
	} else if (*P->p == '"') {
		P->p++;
		while (P->p < P->end && *P->p != '"')
			P->p += *P->p == '\\' && P->p + 1 < P->end ? 2 : 1;
		P->p = P->p < P->end ? P->p + 1 : P->end;
		t->kind = T_STR;
	} else {
		P->p += P->end - P->p >= 2 && P->p[0] == ':' && P->p[1] == '=' ? 2 : 1;
		t->kind = T_PUNCT;
	}
	t->len = (size_t)(P->p - t->s);
}

static int is_p(const struct parser *P, const char *s)
{
	return P->t.kind == T_PUNCT && P->t.len == strlen(s) && !memcmp(P->t.s, s, P->t.len);
}

static int is_id(const struct parser *P, const char *s)
{
	return P->t.kind == T_ID && P->t.len == strlen(s) && !memcmp(P->t.s, s, P->t.len);
}

static void expect(struct parser *P, const char *s)
{
	if (!is_p(P, s))
		P->bad = 1;
	else
		lex(P);
}

/* Skip to the end of a balanced ( { [ < group that starts at the token. */
static void skip_group(struct parser *P)
{
	int depth = 0;

	do {
		if (is_p(P, "{") || is_p(P, "(") || is_p(P, "[") || is_p(P, "<"))
			depth++;
		else if (is_p(P, "}") || is_p(P, ")") || is_p(P, "]") || is_p(P, ">"))
			depth--;
		lex(P);
	} while (depth > 0 && P->t.kind != T_END);
}

/* Skip a statement: up to its ';' at depth 0 (consumed). */
static void skip_statement(struct parser *P)
{
	while (P->t.kind != T_END && !is_p(P, ";")) {
		if (is_p(P, "{") || is_p(P, "(") || is_p(P, "["))
			skip_group(P);
		else
			lex(P);
	}
	lex(P);
}

/* Identifiers up to a non-identifier, joined by single spaces. */
static void words(struct parser *P, char *out, size_t size)
{
	size_t n = 0;

	out[0] = '\0';
	while (P->t.kind == T_ID) {
		if (n && n + 1 < size)
			out[n++] = ' ';
		for (size_t i = 0; i < P->t.len && n + 1 < size; i++)
			out[n++] = P->t.s[i];
		out[n] = '\0';
		lex(P);
	}
}

/* ---- types --------------------------------------------------------------- */

static int lookup(const struct alias *a, size_t n, const char *name, struct ty *out)
{
	for (size_t i = n; i-- > 0;)
		if (strcmp(a[i].name, name) == 0) {
			*out = a[i].ty;
			return 1;
		}
	return 0;
}

static void add_alias(struct alias **a, size_t *n, const char *name, const struct ty *ty)
{
	struct alias *na = realloc(*a, (*n + 1) * sizeof *na);

	if (!na)
		return;
	*a = na;
	snprintf(na[*n].name, sizeof na[*n].name, "%.*s", TSDL_NAME - 1, name);
	na[*n].ty = *ty;
	(*n)++;
}

static void parse_type(struct parser *P, struct ty *out);

/* integer { size = 32; align = 8; signed = false; byte_order = le; ... } */
static void parse_integer(struct parser *P, struct ty *out)
{
	memset(out, 0, sizeof *out);
	out->kind = TY_INT;
	expect(P, "{");
	while (!P->bad && P->t.kind == T_ID) {
		int size = is_id(P, "size"), align = is_id(P, "align"), bo = is_id(P, "byte_order");

		lex(P);
		expect(P, "=");
		if (size && P->t.kind == T_NUM)
			out->size = (uint32_t)P->t.num;
		else if (align && P->t.kind == T_NUM)
			out->align = (uint32_t)P->t.num;
		else if (bo)
			out->bo = is_id(P, "le") ? BO_LE : is_id(P, "be") || is_id(P, "network")
				  ? BO_BE : BO_NATIVE;
		skip_statement(P);
	}
	expect(P, "}");
	if (!out->align)
		out->align = out->size % 8 ? 1 : 8;
	if (out->size == 0 || out->size > 64)
		out->kind = TY_OTHER;
}

static struct tstruct *new_struct(struct parser *P, size_t *idx)
{
	struct tstruct *ns = realloc(P->st, (P->nst + 1) * sizeof *ns);

	if (!ns) {
		P->bad = 1;
		return NULL;
	}
	P->st = ns;
	memset(&ns[P->nst], 0, sizeof ns[P->nst]);
	*idx = P->nst++;
	return &ns[*idx];
}

static void add_member(struct parser *P, size_t st, const char *name,
		       const struct ty *ty, uint64_t count)
{
	struct tstruct *s = &P->st[st];

	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 8;
		struct memb *m = realloc(s->m, nc * sizeof *m);
		if (!m) {
			P->bad = 1;
			return;
		}
		s->m = m;
		s->cap = nc;
	}
	snprintf(s->m[s->n].name, sizeof s->m[s->n].name, "%.*s", TSDL_NAME - 1, name);
	s->m[s->n].ty = *ty;
	s->m[s->n].count = count;
	s->n++;
}

static void parse_typealias(struct parser *P);
static void parse_typedef(struct parser *P);

/* One member: "type name[N]...;" (type a keyword type or alias words). */
static void parse_member(struct parser *P, size_t st)
{
	char w[256], *name;
	struct ty ty = { TY_OTHER, 0, 0, 0, 0 };
	uint64_t count = 1;

	if (is_id(P, "integer") || is_id(P, "struct") || is_id(P, "enum") ||
	    is_id(P, "variant") || is_id(P, "string") || is_id(P, "floating_point")) {
		parse_type(P, &ty);
		words(P, w, sizeof w);
		name = w;
	} else {
		words(P, w, sizeof w);
		name = strrchr(w, ' ');
		if (!name) {
			P->bad = 1;
			return;
		}
		*name++ = '\0';
		if (!lookup(P->al, P->nal, w, &ty))
			ty.kind = TY_OTHER;
	}
	while (!P->bad && is_p(P, "[")) {
		lex(P);
		if (P->t.kind == T_NUM)
			count *= P->t.num;
		else
			ty.kind = TY_OTHER;   /* a sequence: no fixed size */
		while (P->t.kind != T_END && !is_p(P, "]"))
			lex(P);
		expect(P, "]");
	}
	if (!P->bad)
		add_member(P, st, name, &ty, count);
	skip_statement(P);
}

/* struct [NAME] [{ members }] [align(N)] */
static void parse_struct(struct parser *P, struct ty *out)
{
	char name[TSDL_NAME] = "";
	size_t idx;

	memset(out, 0, sizeof *out);
	out->kind = TY_STRUCT;
	if (++P->depth > 32) {             /* a crafted file: no deeper */
		P->bad = 1;
		return;
	}
	if (P->t.kind == T_ID)
		words(P, name, sizeof name);
	if (!is_p(P, "{")) {
		if (!lookup(P->named, P->nnamed, name, out))
			out->kind = TY_OTHER;
	} else {
		if (!new_struct(P, &idx))
			return;
		out->st = idx;
		lex(P);
		while (!P->bad && P->t.kind != T_END && !is_p(P, "}")) {
			if (is_id(P, "typealias"))
				parse_typealias(P);
			else if (is_id(P, "typedef"))
				parse_typedef(P);
			else
				parse_member(P, idx);
		}
		expect(P, "}");
		if (name[0])
			add_alias(&P->named, &P->nnamed, name, out);
	}
	if (is_id(P, "align")) {
		lex(P);
		expect(P, "(");
		if (P->t.kind == T_NUM && out->kind == TY_STRUCT)
			P->st[out->st].min_align = (uint32_t)P->t.num;
		while (P->t.kind != T_END && !is_p(P, ")"))
			lex(P);
		expect(P, ")");
	}
	P->depth--;
}

/* enum [NAME] [: int-type] { ... }: its integer. */
static void parse_enum(struct parser *P, struct ty *out)
{
	char w[256];

	if (P->t.kind == T_ID)
		lex(P);
	out->kind = TY_OTHER;
	if (is_p(P, ":")) {
		lex(P);
		if (is_id(P, "integer")) {
			parse_integer(P, out);
		} else {
			words(P, w, sizeof w);
			if (!lookup(P->al, P->nal, w, out))
				out->kind = TY_OTHER;
		}
	} else if (!lookup(P->al, P->nal, "int", out)) {
		out->kind = TY_OTHER;
	}
	if (is_p(P, "{"))
		skip_group(P);
}

static void parse_type(struct parser *P, struct ty *out)
{
	char w[256];

	memset(out, 0, sizeof *out);
	out->kind = TY_OTHER;
	if (is_id(P, "integer")) {
		lex(P);
		parse_integer(P, out);
	} else if (is_id(P, "struct")) {
		lex(P);
		parse_struct(P, out);
	} else if (is_id(P, "enum")) {
		lex(P);
		parse_enum(P, out);
	} else if (is_id(P, "variant") || is_id(P, "string") ||
		   is_id(P, "floating_point")) {
		lex(P);
		while (P->t.kind == T_ID)
			lex(P);
		if (is_p(P, "<"))
			skip_group(P);
		if (is_p(P, "{"))
			skip_group(P);
	} else if (P->t.kind == T_ID) {
		words(P, w, sizeof w);
		if (!lookup(P->al, P->nal, w, out))
			out->kind = TY_OTHER;
	} else {
		P->bad = 1;
	}
}

/* typealias TYPE := NAME ; */
static void parse_typealias(struct parser *P)
{
	char w[256];
	struct ty ty;

	lex(P);
	parse_type(P, &ty);
	expect(P, ":=");
	words(P, w, sizeof w);
	if (!P->bad && w[0])
		add_alias(&P->al, &P->nal, w, &ty);
	skip_statement(P);
}

/* typedef TYPE NAME ; */
static void parse_typedef(struct parser *P)
{
	char w[256];
	struct ty ty;

	lex(P);
	parse_type(P, &ty);
	words(P, w, sizeof w);
	if (!P->bad && w[0] && !is_p(P, "["))
		add_alias(&P->al, &P->nal, w, &ty);
	skip_statement(P);
}

/* ---- trace and stream blocks -------------------------------------------- */

/* Body of trace { } or stream { }: key = value; and key := type;. */
static void parse_block(struct parser *P, int is_trace)
{
	char key[TSDL_NAME * 2];
	uint64_t id = 0;
	struct ty ctx;
	int have_ctx = 0;

	expect(P, "{");
	while (!P->bad && P->t.kind != T_END && !is_p(P, "}")) {
		size_t n = 0;

		if (is_id(P, "typealias") || is_id(P, "typedef")) {
			if (is_id(P, "typealias"))
				parse_typealias(P);
			else
				parse_typedef(P);
			continue;
		}
		key[0] = '\0';
		while (P->t.kind == T_ID || is_p(P, ".")) {
			if (n + P->t.len < sizeof key) {
				memcpy(key + n, P->t.s, P->t.len);
				n += P->t.len;
				key[n] = '\0';
			}
			lex(P);
		}
		if (is_p(P, ":=")) {
			struct ty ty;
			lex(P);
			parse_type(P, &ty);
			if (is_trace && strcmp(key, "packet.header") == 0) {
				P->header = ty;
				P->have_header = 1;
			} else if (!is_trace && strcmp(key, "packet.context") == 0) {
				ctx = ty;
				have_ctx = 1;
			}
		} else if (is_p(P, "=")) {
			lex(P);
			if (is_trace && strcmp(key, "byte_order") == 0)
				P->le = !is_id(P, "be") && !is_id(P, "network");
			else if (!is_trace && strcmp(key, "id") == 0 && P->t.kind == T_NUM)
				id = P->t.num;
		}
		skip_statement(P);
	}
	expect(P, "}");
	if (!is_trace && P->nstreams < TSDL_STREAMS) {
		P->streams[P->nstreams].id = id;
		P->streams[P->nstreams].ctx = ctx;
		P->streams[P->nstreams].have = have_ctx;
		P->nstreams++;
	}
}

static void parse_top(struct parser *P)
{
	struct ty ty;

	lex(P);
	while (!P->bad && P->t.kind != T_END) {
		if (is_id(P, "typealias")) {
			parse_typealias(P);
		} else if (is_id(P, "typedef")) {
			parse_typedef(P);
		} else if (is_id(P, "trace") || is_id(P, "stream")) {
			int tr = is_id(P, "trace");
			lex(P);
			parse_block(P, tr);
			skip_statement(P);
		} else if (is_id(P, "struct") || is_id(P, "enum") || is_id(P, "variant")) {
			parse_type(P, &ty);
			skip_statement(P);
		} else {
			skip_statement(P);        /* env, clock, event, ... */
		}
	}
}

/* ---- layouts ------------------------------------------------------------- */

static uint64_t round_up(uint64_t v, uint32_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Alignment and size in bits of ty: 1, or 0 if not fixed. */
static int ty_size(const struct parser *P, const struct ty *ty, uint32_t *align,
		   uint64_t *bits, int depth)
{
	if (ty->kind == TY_INT) {
		*align = ty->align;
		*bits = ty->size;
		return 1;
	}
	if (ty->kind != TY_STRUCT || depth > 8)
		return 0;
	const struct tstruct *s = &P->st[ty->st];
	uint64_t cur = 0;

	*align = s->min_align ? s->min_align : 1;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t a;
		uint64_t b;
		if (!ty_size(P, &s->m[i].ty, &a, &b, depth + 1))
			return 0;
		if (a > *align)
			*align = a;
		if (a > 4096 || b > (UINT64_C(1) << 32) || s->m[i].count > (UINT64_C(1) << 24))
			return 0;             /* nothing a packet header holds */
		cur = round_up(cur, a) + b * s->m[i].count;
		if (cur > (UINT64_C(1) << 40))
			return 0;
	}
	*bits = cur;
	return 1;
}

/* Place struct ty at bit `at` (already aligned) into l: its top-level
 * integers by name.  1, or 0 if not fixed. */
static int place(const struct parser *P, const struct ty *ty, uint64_t at,
		 struct tsdl_layout *l)
{
	const struct tstruct *s;
	uint64_t cur = at;

	if (ty->kind != TY_STRUCT)
		return 0;
	s = &P->st[ty->st];
	for (size_t i = 0; i < s->n; i++) {
		const struct memb *m = &s->m[i];
		uint32_t a;
		uint64_t b;

		if (!ty_size(P, &m->ty, &a, &b, 0))
			return 0;
		cur = round_up(cur, a);
		if (m->ty.kind == TY_INT && m->count == 1 && l->n < TSDL_FIELDS) {
			struct tsdl_int *f = &l->f[l->n++];
			snprintf(f->name, sizeof f->name, "%.*s", TSDL_NAME - 1, m->name);
			f->bit = cur;
			f->size = m->ty.size;
			f->le = m->ty.bo == BO_NATIVE ? P->le : m->ty.bo == BO_LE;
		}
		cur += b * m->count;
	}
	l->bits = cur;
	l->ok = 1;
	return 1;
}

static void build(const struct parser *P, struct tsdl_packets *out)
{
	uint32_t a;
	uint64_t b;

	memset(out, 0, sizeof *out);
	if (!P->have_header || !place(P, &P->header, 0, &out->header))
		return;
	out->ok = 1;
	for (size_t k = 0; k < P->nstreams; k++) {
		struct tsdl_layout *l = &out->ctx[k];

		out->sc_id[k] = P->streams[k].id;
		*l = out->header;
		if (P->streams[k].have &&
		    (!ty_size(P, &P->streams[k].ctx, &a, &b, 0) ||
		     !place(P, &P->streams[k].ctx, round_up(out->header.bits, a), l)))
			out->ok = 0;
	}
	out->nstreams = P->nstreams;
	if (!P->nstreams)
		out->ok = 0;
}

int sht__tsdl_packets(const char *text, size_t len, struct tsdl_packets *out)
{
	struct parser P;

	memset(&P, 0, sizeof P);
	P.p = text;
	P.end = text + len;
	P.le = 1;
	parse_top(&P);
	if (P.bad)
		memset(out, 0, sizeof *out);
	else
		build(&P, out);
	for (size_t i = 0; i < P.nst; i++)
		free(P.st[i].m);
	free(P.st);
	free(P.al);
	free(P.named);
	return out->ok;
}

int sht__tsdl_get(const struct tsdl_layout *l, const unsigned char *buf,
		  const char *name, uint64_t *out)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct tsdl_int *f = &l->f[i];
		uint64_t v = 0;

		if (strcmp(f->name, name) != 0)
			continue;
		if (f->bit + f->size > l->bits)
			return 0;
		for (uint32_t k = 0; k < f->size; k++) {
			uint64_t bit = f->le ? f->bit + k : f->bit + f->size - 1 - k;
			unsigned byte = buf[bit / 8];
			unsigned b = f->le ? (byte >> (bit % 8)) & 1u
					   : (byte >> (7 - bit % 8)) & 1u;
			v |= (uint64_t)b << k;
		}
		*out = v;
		return 1;
	}
	return 0;
}
