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
 * is looked up per event, through two memos: the program-wide one from
 * (parent quark, element) to quark, and the per-event one from a path
 * prefix (a number shared by all equal prefixes of the program) to its
 * quark, valid for the event, and for a prefix with queries only while
 * no attribute it read has been written (docs/RULES.md).
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

/* What a memo entry's key is. */
enum rl_memo_kind { RL_M_NAME = 0, RL_M_INT = 1, RL_M_CONST = 2, RL_M_DEP = 3 };
/* Queried attributes a RL_M_DEP entry can hold. */
#define RL_MEMO_DEPS 3

/* One remembered look-up: the child of parent named name (RL_M_NAME),
 * or named by the decimal text of key (RL_M_INT), or the constant
 * element numbered key (RL_M_CONST), is q, in generation gen.  RL_M_DEP
 * | dkey << 2: the element of that dkey when the attributes it reads are
 * those of name (quark, version pairs), in version epoch key. */
struct rl_memo {
	uint32_t gen;
	sht_quark parent, q;
	uint32_t kind;
	int64_t key;
	char name[RL_MEMO_NAME];
};
_Static_assert(RL_MEMO_NAME == 2 * RL_MEMO_DEPS * sizeof(uint32_t),
	       "a memo name holds the pairs of a RL_M_DEP entry");

struct rl_elem {
	enum rl_elem_kind kind;
	char *text;               /* CONST: the name; FIELD: the field name */
	struct rl_path *sub;      /* QUERY: the queried path; CONCAT: parts */
	uint32_t cid;             /* CONST: equal texts, equal numbers */
	uint32_t is_cpu;          /* FIELD: the field is "cpu" */
	/* QUERY, or CONCAT of constants and 1..RL_MEMO_DEPS queries: its
	 * number + 1 (the name it gives is a function of the attributes it
	 * reads and their versions); else 0. */
	uint32_t dkey;
};

struct rl_path {
	struct rl_elem *elems;
	size_t n;
	size_t nconst;            /* leading constant elements */
	/* Quark of the constant prefix (root if nconst == 0), valid while
	 * gen equals the program's generation. */
	sht_quark prefix_q;
	uint32_t prefix_gen;
	/* The prefix of i + 1 elements (i >= nconst) has the per-event memo
	 * program.ev_memo[psig[i - nconst]], shared by equal prefixes.  The
	 * prefixes of more than ndyn elements hold a query: they name
	 * another attribute once an attribute they read is written. */
	uint32_t *psig;
	size_t ndyn;
};

struct rl_ev_memo {
	uint64_t serial;          /* the event it holds the quark for */
	uint64_t wser;            /* program.wser when it was resolved */
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
	char *defname;            /* INT, LONG: the defined value it came
	                             from (its label, rules-model.c), or NULL */
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
	/* Distinct path prefixes and constant names (their text, in a hash
	 * table of indices + 1), and the quark of each prefix in the current
	 * event. */
	char **sigs;
	size_t nsigs;
	uint32_t *sig_tab;
	size_t sig_cap;
	struct rl_ev_memo *ev_memo;
	/* Quarks whose value a path's query read: dep[q] != 0, the version
	 * of q's value (1 + its writes since).  wser counts the writes to
	 * them and the pushes, pops and deletes, which change other
	 * attributes too: a per-event memo of a prefix with queries is valid
	 * while wser is.  vepoch counts the latter (and version wraps): a
	 * RL_M_DEP memo entry is valid while it is. */
	uint32_t *dep;
	size_t ndep;
	uint64_t wser;
	uint32_t vepoch;
	/* Look-ups below the constant prefixes, direct-mapped by (parent,
	 * name); allocated at the first event (NULL: no memo). */
	struct rl_memo *memo;
	sht_rules_stats stats;
	/* The file's model: its defined values as labels (rules-model.c). */
	sht_value_label *labels;
	size_t nlabels;
	sht_model model;
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
/* Count the leading constants of p and number its prefixes and constant
 * elements (after its elements, and those of its sub-paths, are final). */
sht_err sht__rl_path_seal(sht_rules *r, struct rl_path *p);
/* Set the provider's version from its declared version and the file's
 * bytes (docs/RULES.md, "Identity and rebuilds"). */
void sht__rules_identity(sht_rules *r, const char *buf, size_t len);
/* List the labels the defined values give (rules-model.c), once the
 * program is complete; free them. */
sht_err sht__rules_model(sht_rules *r);
void sht__rules_model_free(sht_rules *r);
/* The bytes of the file at path into a malloc'd *buf (NUL-terminated). */
sht_err sht__rules_read_file(const char *path, char **buf, size_t *len);
/* 1 if the event name matches the pattern (a "*" matches any run). */
int sht__rl_glob(const char *pattern, const char *name);

/* ---- evaluation (rules-eval.c, rules-value.c, rules-quark.c) ------------------------- */

/* Note a write to q (always: a push, pop or delete, which also change
 * other attributes): the per-event memos of prefixes that read q are no
 * longer valid. */
static inline void sht__rl_wrote(sht_rules *r, sht_quark q, int always)
{
	if (always) {
		r->wser++;
		r->vepoch++;
	} else if (q < r->ndep && r->dep[q]) {
		r->wser++;
		if (++r->dep[q] == 0) {
			r->dep[q] = 1;
			r->vepoch++;
		}
	}
}

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
/* The ongoing value of the attribute at p (null if p does not exist);
 * dep: a path's element reads it (sht__rl_mark_dep). */
sht_err sht__rl_query(sht_rules *r, sht_state *ss, const sht_event *ev,
		      struct rl_path *p, int dep, sht_value *out);
/* Remember that a path's element read the value of q (rules-quark.c). */
void sht__rl_mark_dep(sht_rules *r, sht_quark q);
/* Decimal text of x into buf (at least 21 bytes). */
void sht__rl_fmt_i64(char *buf, int64_t x);
/* A value as an attribute name, into buf (RL_NAME_MAX bytes); *name may
 * point to the value's own text.  SHT_NOT_FOUND for null. */
sht_err sht__rl_value_name(const sht_value *v, char *buf, const char **name);
/* The value of field name of ev, typed as Trace Compass reads it (integers
 * as long, "cpu" as the event's CPU when known).  SHT_NOT_FOUND if none. */
sht_err sht__rl_field(const sht_event *ev, const char *name, sht_value *out);

#endif /* SHT_RULES_INT_H */
