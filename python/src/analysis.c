/*
 * analysis.c: the analyses of the Python package, as the sht tool names
 * them: "kernel" (the Linux kernel analysis, its event layout from the
 * trace's environment), "stats" (event counts), a rules file (*.xml,
 * *.rules), or a provider written in Python (provider.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

int shtpy_is_rules(const char *s)
{
	size_t n = strlen(s);

	return (n > 4 && strcmp(s + n - 4, ".xml") == 0) ||
	       (n > 6 && strcmp(s + n - 6, ".rules") == 0);
}

static sht_err kernel_create(struct shtpy_analysis *an, const struct shtpy_trace *t)
{
	char tname[128], major[32], minor[32];
	sht_err err;

	shtpy_trace_env(t, "tracer_name", tname, sizeof tname);
	shtpy_trace_env(t, "tracer_major", major, sizeof major);
	shtpy_trace_env(t, "tracer_minor", minor, sizeof minor);
	err = sht_kernel_create(sht_kernel_layout_from_env(tname, major, minor),
				&an->kernel);
	if (err == SHT_OK)
		sht_kernel_provider(an->kernel, &an->prov);
	return err;
}

int shtpy_analysis_create(struct shtpy_analysis *an, PyObject *spec,
			  const struct shtpy_trace *t, const char *who)
{
	const char *s;
	sht_err err;

	memset(an, 0, sizeof *an);
	if (!PyUnicode_Check(spec)) {
		snprintf(an->name, sizeof an->name, "python");
		an->py = shtpy_provider_create(spec);
		if (!an->py)
			return -1;
		an->prov = *shtpy_provider_get(an->py);
		return 0;
	}
	if (!(s = PyUnicode_AsUTF8(spec)))
		return -1;
	snprintf(an->name, sizeof an->name, "%s", shtpy_is_rules(s) ? "rules" : s);
	if (shtpy_is_rules(s)) {
		an->rules_path = realpath(s, NULL);
		err = sht_rules_load(s, NULL, &an->rules);
		if (err == SHT_OK)
			sht_rules_provider(an->rules, &an->prov);
	} else if (strcmp(s, "stats") == 0) {
		err = sht_evstats_create(&an->stats);
		if (err == SHT_OK)
			sht_evstats_provider(an->stats, &an->prov);
	} else if (strcmp(s, "kernel") == 0) {
		err = kernel_create(an, t);
	} else {
		PyErr_Format(PyExc_ValueError, "%s: analysis is \"kernel\", "
			     "\"stats\", a rules file (*.xml, *.rules) or a provider "
			     "object, not %R", who, spec);
		return -1;
	}
	if (err != SHT_OK) {
		shtpy_raise(err);
		return -1;
	}
	return 0;
}

const char *shtpy_analysis_of(const char *provider_id)
{
	if (strcmp(provider_id, SHT_KERNEL_PROVIDER_ID) == 0)
		return "kernel";
	if (strcmp(provider_id, SHT_EVSTATS_PROVIDER_ID) == 0)
		return "stats";
	return NULL;
}

void shtpy_analysis_destroy(struct shtpy_analysis *an)
{
	sht_kernel_destroy(an->kernel);
	sht_evstats_destroy(an->stats);
	sht_rules_destroy(an->rules);
	shtpy_provider_destroy(an->py);
	free(an->rules_path);
	memset(an, 0, sizeof *an);
}
