/*
 * model.h: a history's model and build notes as the state system keeps
 * them (internal to src/state): an owned copy of the caller's tables, the
 * "about" section's bytes (docs/FORMAT.md §12), and per attribute the
 * model entries that apply to it, found once.
 */
#ifndef SHT_STATE_MODEL_H
#define SHT_STATE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "sht/model.h"
#include "state/attrs.h"

struct sht__model;

/* A copy of m (NULL: an empty model) and of notes[0..n).  The labels are
 * regrouped so that each pattern's are consecutive (first appearance
 * order).  SHT_ERR_INVALID for a NULL string or an empty pattern
 * element; SHT_ERR_NOMEM. */
sht_err sht__model_copy(const sht_model *m, const sht_build_note *notes,
			size_t n, struct sht__model **out);
/* The same from section bytes (untrusted): SHT_ERR_CORRUPT on any
 * inconsistency. */
sht_err sht__model_load(const uint8_t *buf, size_t len,
			struct sht__model **out);
/* Section bytes (*buf malloc'd). */
sht_err sht__model_serialize(const struct sht__model *md, uint8_t **buf,
			     size_t *len);
void sht__model_free(struct sht__model *md);     /* NULL is a no-op */

/* Borrowed views. */
const sht_model *sht__model_view(const struct sht__model *md);
const sht_build_note *sht__model_notes(const struct sht__model *md,
				       size_t *n);
/* True if the model has entries (not only notes). */
int sht__model_has_entries(const struct sht__model *md);

/* The doc (NULL if none) and the labels (*n = 0 if none) that apply to q
 * in the attribute tree a; found once per quark, then cached. */
sht_err sht__model_doc(struct sht__model *md, const struct sht__attrs *a,
		       sht_quark q, const sht_attr_doc **out);
sht_err sht__model_labels(struct sht__model *md, const struct sht__attrs *a,
			  sht_quark q, const sht_value_label **out,
			  size_t *n);

#endif /* SHT_STATE_MODEL_H */
