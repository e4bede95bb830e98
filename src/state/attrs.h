/*
 * attrs.h: the attribute tree (internal to src/state): names <-> quarks.
 *
 * Quarks are given in creation order, 0, 1, 2, ...; the root is implicit
 * (SHT_QUARK_ROOT) and has no name.  Children stay in creation order.  A
 * name is an arbitrary byte string (may hold "/", not NUL).  Not
 * thread-safe by itself: the state system locks around it.
 */
#ifndef SHT_ATTRS_H
#define SHT_ATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "sht/state.h"

struct sht__attrs;

sht_err sht__attrs_create(struct sht__attrs **out);
void sht__attrs_destroy(struct sht__attrs *a);       /* NULL is a no-op */

/* Child `name` (len bytes) of parent: created when create is 1 (SHT_OK,
 * *out the new or existing quark), else SHT_NOT_FOUND if absent.
 * SHT_ERR_RANGE if parent is neither SHT_QUARK_ROOT nor a quark. */
sht_err sht__attrs_get(struct sht__attrs *a, sht_quark parent,
		       const char *name, size_t len, int create,
		       sht_quark *out);

uint64_t sht__attrs_count(const struct sht__attrs *a);

/* Borrowed results, valid until the tree is destroyed (children: until
 * the next creation).  SHT_ERR_RANGE for an unknown quark. */
sht_err sht__attrs_name(const struct sht__attrs *a, sht_quark q,
			const char **name, size_t *len);
sht_err sht__attrs_parent(const struct sht__attrs *a, sht_quark q,
			  sht_quark *parent);
/* q may be SHT_QUARK_ROOT (top-level attributes). */
sht_err sht__attrs_children(const struct sht__attrs *a, sht_quark q,
			    const sht_quark **out, size_t *n);

/* "a/b/c" into buf (NUL-terminated, truncated if small); *need = length.
 * SHT_ERR_BUFFER when size <= *need. */
sht_err sht__attrs_path(const struct sht__attrs *a, sht_quark q, char *buf,
			size_t size, size_t *need);

/* Pattern of "/"-separated elements, "*" = any one name; matches in
 * depth-first creation order; *out malloc'd. */
sht_err sht__attrs_match(const struct sht__attrs *a, const char *pattern,
			 sht_quark **out, size_t *n);

/* Section bytes (docs/FORMAT.md "attribute tree section"); *buf malloc'd. */
sht_err sht__attrs_serialize(const struct sht__attrs *a, uint8_t **buf,
			     size_t *len);
/* Rebuild from section bytes, which are untrusted: SHT_ERR_CORRUPT with a
 * message on any inconsistency (bad varint, parent >= own quark, duplicate
 * name under one parent, trailing bytes, count mismatch). */
sht_err sht__attrs_load(const uint8_t *buf, size_t len,
			struct sht__attrs **out);

#endif /* SHT_ATTRS_H */
