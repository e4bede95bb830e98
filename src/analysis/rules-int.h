/*
 * rules-int.h: the compiled form of a rules file (docs/RULES.md).
 *
 * A front end (rules-xml*.c for Trace Compass XML, rules-native.c for the
 * native syntax) builds a program (struct sht_rules);
 * rules.c dispatches events to its handlers and rules-eval.c runs them.
 * Locations and defined values are expanded at compile time: the program
 * holds only paths, values, conditions and changes.
 *
 * Paths: a list of elements; the leading run of constant elements is
 * resolved once into a quark (cached while the state system's attribute
 * count says quarks are stable, sht_state_cacheable_count) and the rest
 * is looked up per event.
 */
#ifndef SHT_RULES_INT_H
#define SHT_RULES_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sht/rules.h"
#include "sht/state.h"

/* Longest path (elements) and longest element name built per event. */
#define RL_PATH_MAX 64
#define RL_NAME_MAX 256
/* Entries of the event-name pointer cache (a power of 2). */
#define RL_PTR_CACHE 64

struct rl_path;

enum rl_elem_kind {
	RL_E_CONST = 0,     /* text */
	RL_E_FIELD = 1,     /* the value of field text, as a name */
	RL_E_QUERY = 2,     /* the ongoing value of the attribute at sub */
	RL_E_EVNAME = 3,    /* the event's name */
	RL_E_CONCAT = 4,    /* sht extension: the names of parts[], joined */
};

/* Entries of the program's quark memo (a power of 2), and the longest
 * name it remembers + 1. */
#define RL_MEMO 8192
#define RL_MEMO_NAME 24

/* One remembered look-up: the child of parent named name (or, if is_int,
 * by the decimal text of key) is q, in generation gen. */
struct rl_memo {
	uint32_t gen;
	sht_quark parent, q;
	uint32_t is_int;
	int64_t key;
	char name[RL_MEMO_NAME];
};

struct rl_elem {
	enum rl_elem_kind kind;
	char *text;               /* CONST: the name; FIELD: the field name */
	struct rl_path *sub;      /* QUERY: the queried path; CONCAT: parts */
	uint64_t hash;            /* CONST: FNV-1a of text */
	size_t len;               /* CONST: strlen(text) */
};

struct rl_path {
	struct rl_elem *elems;
	size_t n;
	size_t nconst;            /* leading constant elements */
	/* Quark of the constant prefix (root if nconst == 0), valid while
	 * gen equals the program's generation. */
	sht_quark prefix_q;
	uint32_t prefix_gen;
	/* A path without queries names the same attribute for the whole
	 * event: its quark is kept for the event once resolved, in
	 * program.ev_memo[sig], shared by every equal path of the program. */
	int event_static;
	uint32_t sig;
};

struct rl_ev_memo {
	uint64_t serial;          /* the event it holds the quark for */
	sht_quark q;
};

enum rl_value_kind {
	RL_V_NULL = 0, RL_V_INT = 1, RL_V_LONG = 2, RL_V_DOUBLE = 3,
	RL_V_STRING = 4, RL_V_FIELD = 5, RL_V_EVNAME = 6, RL_V_QUERY = 7,
	RL_V_DELETE = 8,
};

enum rl_stack { RL_S_NONE = 0, RL_S_PUSH, RL_S_POP, RL_S_POPALL, RL_S_PEEK };

/* forcedType; RL_F_NONE keeps the value's own type. */
enum rl_forced { RL_F_NONE = 0, RL_F_INT, RL_F_LONG, RL_F_STRING, RL_F_DOUBLE };

struct rl_value {
	enum rl_value_kind kind;
	sht_value constant;       /* INT, LONG, DOUBLE, STRING (owned text) */
	char *field;              /* FIELD: its name */
	char *strip;              /* EVNAME, sht extension: prefix removed */
	int64_t mask;             /* sht extension: integers ANDed with it
	                             (0: none) */
	struct rl_path *query;    /* QUERY */
	enum rl_stack stack;
	enum rl_forced forced;
	int increment, update;
};

enum rl_op { RL_OP_EQ = 0, RL_OP_NE, RL_OP_GE, RL_OP_GT, RL_OP_LE, RL_OP_LT };
enum rl_cond_kind { RL_C_CMP = 0, RL_C_NOT, RL_C_AND, RL_C_OR };

struct rl_cond {
	enum rl_cond_kind kind;
	enum rl_op op;
	/* CMP: left is the attribute at path, the field named field, or the
	 * value lvalue; right is rvalue. */
	struct rl_path *path;
	char *field;
	struct rl_value *lvalue;
	struct rl_value rvalue;
	struct rl_cond *kids;     /* NOT (1), AND, OR */
	size_t nkids;
};

struct rl_change {
	int line;                 /* in the rules file */
	struct rl_cond *cond;     /* NULL: an assignment */
	/* Assignment: path = value. */
	struct rl_path path;
	struct rl_value value;
	/* Conditional: then, optional else. */
	struct rl_change *then, *els;
	/* A block (native syntax): these changes in order, if block. */
	struct rl_change *seq;
	size_t nseq;
	int block;
};

struct rl_handler {
	char *pattern;            /* event name; "*" matches any run */
	int glob;                 /* pattern holds a "*" */
	struct rl_change *changes;
	size_t nchanges;
};

/* The handlers of one event name, found on first sight of the name. */
struct rl_dispatch {
	char *name;
	uint64_t hash;
	uint32_t *handlers;       /* indices into program.handlers */
	size_t n;
};

struct sht_rules {
	char *id;
	uint32_t declared_version, version;
	struct rl_handler *handlers;
	size_t nhandlers;
	/* Dispatch table, open addressing, capacity a power of 2. */
	struct rl_dispatch *disp;
	size_t ndisp, disp_cap;
	/* Event-name pointers seen, direct-mapped, to their dispatch slot
	 * index + 1 (a source usually keeps one pointer per event class);
	 * a hit is checked against the text. */
	struct { const char *ptr; size_t idx; } ptrs[RL_PTR_CACHE];
	/* Quark cache generation: bumped when the state system or its
	 * attribute count changes behind the program's back. */
	sht_state *ss;
	uint64_t nattrs;
	uint32_t gen;
	int cache_on;
	uint64_t serial;          /* events handled, + 1 */
	/* Distinct event-static paths (their text), and the quark of each
	 * in the current event. */
	char **sigs;
	size_t nsigs;
	struct rl_ev_memo *ev_memo;
	/* Look-ups below the constant prefixes, direct-mapped by (parent,
	 * name); allocated at the first event (NULL: no memo). */
	struct rl_memo *memo;
	sht_rules_stats stats;
};

/* ---- construction (rules.c) ---------------------------------------- */

sht_err sht__rules_new(sht_rules **out);
/* Append a handler for pattern; *h points into the program (valid until
 * the next add). */
sht_err sht__rules_add_handler(sht_rules *r, const char *pattern,
			       struct rl_handler **h);
void sht__rl_change_free(struct rl_change *c);
void sht__rl_path_free(struct rl_path *p);
void sht__rl_value_free(struct rl_value *v);
void sht__rl_cond_free(struct rl_cond *c);
/* FNV-1a hash of s, its length into *len. */
uint64_t sht__rl_hash(const char *s, size_t *len);
/* Count the leading constants of p and hash its constant elements (after
 * its elements are final). */
sht_err sht__rl_path_seal(sht_rules *r, struct rl_path *p);
/* Set the provider's version from its declared version and the file's
 * bytes (docs/RULES.md, "Identity and rebuilds"). */
void sht__rules_identity(sht_rules *r, const char *buf, size_t len);
/* The bytes of the file at path into a malloc'd *buf (NUL-terminated). */
sht_err sht__rules_read_file(const char *path, char **buf, size_t *len);
/* 1 if the event name matches the pattern (a "*" matches any run). */
int sht__rl_glob(const char *pattern, const char *name);

/* ---- evaluation (rules-eval.c, rules-value.c) ------------------------- */

/* Run the changes of one handler on ev. */
sht_err sht__rl_run(sht_rules *r, sht_state *ss, const sht_event *ev,
		    const struct rl_handler *h);
/* The value v gives on ev (strings point into buf or the event; buf holds
 * RL_NAME_MAX bytes).  SHT_OK, or SHT_NOT_FOUND for "no value" (null). */
sht_err sht__rl_value(sht_rules *r, sht_state *ss, const sht_event *ev,
		      const struct rl_value *v, sht_value *out, char *buf);
/* Quark of path p; create: get-or-create, else find (SHT_NOT_FOUND).
 * SHT_NOT_FOUND too if a field or queried value is missing. */
sht_err sht__rl_quark(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_path *p, int create, sht_quark *out);
/* Evaluate a condition: 1 true, 0 false, or a negative error. */
int sht__rl_cond(sht_rules *r, sht_state *ss, const sht_event *ev,
		 const struct rl_cond *c);
/* The value of field name of ev, typed as Trace Compass reads it (integers
 * as long, "cpu" as the event's CPU when known).  SHT_NOT_FOUND if none. */
sht_err sht__rl_field(const sht_event *ev, const char *name, sht_value *out);

#endif /* SHT_RULES_INT_H */
