/*
 * model.h: what a history means: the analysis's description of its
 * attributes and the names of their values ("the model"), and how the
 * history was built (build notes).
 *
 * An analysis declares its model as static tables: per attribute pattern a
 * sentence and a value type, and per (attribute pattern, integer value) a
 * label, e.g. ("Threads/\*", 1, "Wait blocked"): the status 1 of every
 * thread is "Wait blocked".  (In this header's comments a pattern's "/"
 * followed by "*" is written "/\*", which C comments require.)  A provider carries its
 * model (sht_provider.model); the state system stores it, with the build
 * notes the caller gives (sht_state_opts.notes), in the history file, so
 * that any reader of the file (the sht tool, the TSP server, the Python
 * bindings) shows the same names without knowing the analysis:
 *
 *   const char *label = sht_state_value_label(ss, q, &iv->value);
 *   printf("%d (%s)\n", iv->value.u.i32, label ? label : "?");
 *
 * Patterns are attribute paths whose elements are separated by "/", where
 * an element "*" matches any one name (as sht_state_attr_match).  A
 * pattern element cannot contain "/" or be a literal "*".  Where several
 * patterns match an attribute, the first one in the table wins.
 *
 * Labels name integer values only (int32 and int64 values compare by
 * number: label value 2 names int32 2 and int64 2).  docs/KERNEL-MODEL.md
 * lists the kernel analysis's model.
 */
#ifndef SHT_MODEL_H
#define SHT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "sht/export.h"
#include "sht/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the attributes matching pattern hold. */
typedef struct sht_attr_doc {
	const char *pattern;      /* "Threads/\*" */
	sht_type type;            /* the type of their values; SHT_TYPE_NULL
	                             for a node that never holds a value */
	const char *text;         /* one or two sentences: "The thread's
	                             status." */
} sht_attr_doc;

/* The name of one value of the attributes matching pattern. */
typedef struct sht_value_label {
	const char *pattern;      /* "Threads/\*" */
	int64_t value;            /* 1 */
	const char *label;        /* "Wait blocked" */
} sht_value_label;

/* An analysis's model.  The labels of one pattern are consecutive. */
typedef struct sht_model {
	const sht_attr_doc *attrs;
	size_t n_attrs;
	const sht_value_label *labels;
	size_t n_labels;
} sht_model;

/* How a history was built: one fact as key and value, e.g. ("trace",
 * "/traces/many-threads"), ("options", "--partial 1000").  Keys are the
 * caller's; the sht tool's are listed in docs/STATE.md ("Build notes"). */
typedef struct sht_build_note {
	const char *key;
	const char *value;
} sht_build_note;

/* The model of the Linux kernel analysis (SHT_KERNEL_PROVIDER_ID,
 * version SHT_KERNEL_PROVIDER_VERSION): static, never NULL. */
SHT_API const sht_model *sht_kernel_model(void);

/* The model of the event statistics analysis: static, never NULL. */
SHT_API const sht_model *sht_evstats_model(void);

/* The label of value v in model m for the attribute whose path elements
 * are elems[0..n): NULL if none (not an integer, or no label). */
SHT_API const char *sht_model_label(const sht_model *m,
				    const char *const *elems, size_t n,
				    const sht_value *v);

#ifdef __cplusplus
}
#endif

#endif /* SHT_MODEL_H */
