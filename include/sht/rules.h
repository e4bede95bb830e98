/*
 * rules.h: user-defined state providers read from a rules file, without
 * recompiling: Trace Compass's XML "data-driven" state providers
 * (docs/RULES.md lists the elements and attributes supported), or the
 * same programs in a shorter native syntax.
 *
 * A rules file is compiled once into a program (per event name, a list of
 * state changes with their constant path prefixes and field names
 * resolved), which the provider runs on each event.
 *
 *   sht_rules *r;
 *   sht_provider p;
 *   if (sht_rules_load_xml("my.xml", NULL, &r) < 0)
 *           fprintf(stderr, "%s\n", sht_errmsg());  // "my.xml:12: <stateValue>: ..."
 *   sht_rules_provider(r, &p);
 *   sht_state_run(ss, &src, &p, NULL, NULL);
 *   sht_rules_destroy(r);
 *
 * The provider's id is the stateProvider's id; its version combines the
 * file's version attribute with a hash of the file's bytes, so a history
 * built from an older copy of the file is rebuilt (RULES.md, "Identity").
 * One sht_rules serves one history at a time (it may serve the replays of
 * a partial history built with it); not thread-safe.
 */
#ifndef SHT_RULES_H
#define SHT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/model.h"
#include "sht/source.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sht_rules sht_rules;

/* 1 if libsht was built with XML support (libxml2), else 0. */
SHT_API bool sht_rules_have_xml(void);

/*
 * Compile the state provider of the XML file at path: the one whose id is
 * provider_id, or, for NULL, the file's first one.  Errors set a message
 * "PATH:LINE: <element>: what" (sht_errmsg): SHT_ERR_IO (unreadable),
 * SHT_ERR_INVALID (not well-formed, unsupported or invalid content, no
 * XML support built in), SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_rules_load_xml(const char *path, const char *provider_id,
				   sht_rules **out);

/* The same from len bytes in memory; name stands for the file in messages. */
SHT_API sht_err sht_rules_parse_xml(const char *buf, size_t len,
				    const char *name, const char *provider_id,
				    sht_rules **out);

/*
 * Compile a rules file in the native syntax (docs/RULES.md, "Native
 * syntax") from len bytes; name stands for the file in messages
 * ("NAME:LINE: what").  Needs no libxml2.  Errors as sht_rules_load_xml.
 */
SHT_API sht_err sht_rules_parse_native(const char *buf, size_t len,
				       const char *name, sht_rules **out);

/* The rules file at path: XML if its name ends in ".xml" (provider_id as
 * for sht_rules_load_xml), else the native syntax (provider_id must then
 * be NULL or the file's id). */
SHT_API sht_err sht_rules_load(const char *path, const char *provider_id,
			       sht_rules **out);

/* NULL is a no-op.  Providers filled from r become invalid. */
SHT_API void sht_rules_destroy(sht_rules *r);

/* Fill *out with the provider (id, version, handler) running r. */
SHT_API void sht_rules_provider(sht_rules *r, sht_provider *out);

/* What the provider did so far. */
typedef struct sht_rules_stats {
	uint64_t events;     /* events given to the handler */
	uint64_t handled;    /* of those, events with at least one handler */
	uint64_t skipped;    /* state changes skipped: a path element whose
	                        field or queried attribute was missing */
} sht_rules_stats;

SHT_API void sht_rules_stats_get(const sht_rules *r, sht_rules_stats *out);

/* The file's model (model.h): each defined value (definedValue, define)
 * with an integer value labels that value on the attributes the file
 * writes it to or compares it with (docs/RULES.md, "Value names").
 * Borrowed: valid while r lives; never NULL (maybe empty). */
SHT_API const sht_model *sht_rules_model(const sht_rules *r);

/* The XML version attribute of the provider (before the hash). */
SHT_API uint32_t sht_rules_declared_version(const sht_rules *r);

#ifdef __cplusplus
}
#endif

#endif /* SHT_RULES_H */
