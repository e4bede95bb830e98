/*
 * rules-native-int.h: the native rules syntax's parser (docs/RULES.md,
 * "Native syntax"), shared by rules-native-lex.c (lexing, paths, values),
 * rules-native-stmt.c (conditions, statements) and rules-native.c (the
 * top level).  A hand-written recursive-descent parser over the bytes,
 * one statement per line; locations are kept as text and parsed where
 * used.
 */
#ifndef SHT_RULES_NATIVE_INT_H
#define SHT_RULES_NATIVE_INT_H

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

/* Record "FILE:LINE: what" and return SHT_ERR_INVALID. */
sht_err sht__np_error(struct np *n, const char *fmt, ...) SHT_PRINTF(2, 3);
/* Skip blanks and a comment (not the newline). */
void sht__np_blanks(struct np *n);
/* 1 at the end of a line (after blanks and a comment) or of the text. */
int sht__np_eol(struct np *n);
/* Expect and pass the end of the line. */
sht_err sht__np_end_line(struct np *n);
int sht__np_name_char(char c, int glob);
/* A name into buf (NP_WORD bytes); "" if none; glob: "*" allowed. */
void sht__np_word(struct np *n, char *buf, int glob);
/* The keyword kw (a whole word) at the cursor: consumed, 1; else 0. */
int sht__np_keyword(struct np *n, const char *kw);
/* A "quoted" string at the cursor into a new buffer. */
sht_err sht__np_quoted(struct np *n, char **out);
/* A path at the cursor, appended to out. */
sht_err sht__np_path(struct np *n, struct rl_path *out);
/* A value at the cursor, with its "as TYPE" and "& MASK". */
sht_err sht__np_value(struct np *n, struct rl_value *v);
/* Statements up to "end" (or "else" if in_if) into the block change out. */
sht_err sht__np_block(struct np *n, struct rl_change *out, int in_if);

#endif /* SHT_RULES_NATIVE_INT_H */
