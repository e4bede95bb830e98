/*
 * field-text.c: a trace field (or environment entry) as text, for the
 * places that read a trace's environment as strings (the CLI, tests,
 * benchmarks).
 */
#include <inttypes.h>
#include <stdio.h>

#include "util/util.h"

int sht__field_text(const sht_field *f, char *buf, size_t size)
{
	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (f->type == SHT_FIELD_STRING)
		snprintf(buf, size, "%s", f->v.s);
	else if (f->type == SHT_FIELD_INT)
		snprintf(buf, size, "%" PRId64, f->v.i);
	else if (f->type == SHT_FIELD_UINT)
		snprintf(buf, size, "%" PRIu64, f->v.u);
	else
		return 0;
	return 1;
}
