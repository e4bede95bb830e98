/*
 * event-harness.h: for the unit tests that run a provider over synthetic
 * events: an in-memory event source (struct tev tables with named integer
 * and string fields, I() and S() to write them) behind TOPS, seekable;
 * event-harness.c, in the test-support library.
 */
#ifndef SHT_EVENT_HARNESS_H
#define SHT_EVENT_HARNESS_H

#include <string.h>

#include "sht/sht.h"

struct tfield {
	const char *name;         /* NULL ends the table */
	sht_field_type type;
	int64_t i;
	const char *s;
};

struct tev {
	const char *name;
	sht_time ts;
	int32_t cpu;
	struct tfield f[10];
};

#define I(n, v) { n, SHT_FIELD_INT, v, NULL }
#define S(n, v) { n, SHT_FIELD_STRING, 0, v }

struct tsrc {
	const struct tev *ev;
	size_t n, pos;
};

/* The source's operations: sht_source src = { &TOPS, &tsrc }. */
extern const sht_source_ops TOPS;

/* A value as text for comparisons: "null", "i:5", "l:5", "d:0.5",
 * "s:text"; valid for four calls. */
const char *tev_show(const sht_value *v);

#endif /* SHT_EVENT_HARNESS_H */
