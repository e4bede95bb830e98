/*
 * analysis.h: the analyses of the Python package (analysis.c): what
 * sht.build runs over a trace and what a partial history replays.
 */
#ifndef SHTPY_ANALYSIS_H
#define SHTPY_ANALYSIS_H

#include "trace.h"

struct shtpy_analysis {
	char name[64];           /* "kernel", "stats", "rules", "python" */
	char *rules_path;        /* a rules file: its real path (notes) */
	sht_kernel *kernel;
	sht_evstats *stats;
	sht_rules *rules;
	shtpy_provider *py;
	sht_provider prov;
};

/* 1 if s names a rules file (*.xml, *.rules). */
int shtpy_is_rules(const char *s);

/* an from spec: "kernel" (its layout from t's environment), "stats", a
 * rules file, or a Python provider object.  0, or -1 with an exception
 * set (who starts the message of a bad spec). */
int shtpy_analysis_create(struct shtpy_analysis *an, PyObject *spec,
			  const struct shtpy_trace *t, const char *who);

/* The analysis name of a provider id ("kernel", "stats"), or NULL. */
const char *shtpy_analysis_of(const char *provider_id);

void shtpy_analysis_destroy(struct shtpy_analysis *an);

#endif /* SHTPY_ANALYSIS_H */
