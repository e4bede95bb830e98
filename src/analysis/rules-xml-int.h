/*
 * rules-xml-int.h: the Trace Compass XML front end's compiler state,
 * shared by rules-xml.c (document, provider, definitions, handlers) and
 * rules-xml-change.c (state changes, attributes, values, conditions).
 * Only compiled with libxml2 (SHT_WITH_LIBXML2).
 */
#ifndef SHT_RULES_XML_INT_H
#define SHT_RULES_XML_INT_H

#include <libxml/tree.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* Deepest nesting of locations inside locations. */
#define XC_LOCATION_DEPTH 16

struct xc_def {
	const char *name, *value;    /* borrowed from the document */
};

struct xc_loc {
	const char *id;
	xmlNode *node;
};

struct xc {
	const char *file;            /* for messages */
	sht_rules *r;
	struct xc_def *defs;
	size_t ndefs;
	struct xc_loc *locs;
	size_t nlocs;
	int loc_depth;
};

/* Record "FILE:LINE: <element>: what" and return SHT_ERR_INVALID. */
sht_err sht__xc_error(struct xc *x, xmlNode *n, const char *fmt, ...) SHT_PRINTF(3, 4);
/* Every attribute of n is in the NULL-ended list allowed, and n holds
 * no text but white space; else an error. */
sht_err sht__xc_check(struct xc *x, xmlNode *n, const char *const *allowed);
/* Attribute name of n (borrowed), NULL if absent. */
const char *sht__xc_prop(xmlNode *n, const char *name);
/* The next element sibling from n (n itself if it is one), or NULL. */
xmlNode *sht__xc_elem(xmlNode *n);
/* 1 if n is the element named name. */
int sht__xc_is(const xmlNode *n, const char *name);
/* A value attribute with "$name" replaced by its definedValue. */
sht_err sht__xc_value(struct xc *x, xmlNode *n, const char *v, const char **out);

/* The location named id (defined before), or NULL. */
xmlNode *sht__xc_location(struct xc *x, const char *id);

/* Compile the stateChange-shaped element n (stateChange, then, else). */
sht_err sht__xc_change(struct xc *x, xmlNode *n, struct rl_change *out);

#endif /* SHT_RULES_XML_INT_H */
