/*
 * field-text.c: a trace field (or environment entry) as text
 * (sht_field_text, source.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "sht/source.h"

bool sht_field_text(const sht_field *f, char *buf, size_t size)
{
	if (size == 0)
		return false;
	buf[0] = '\0';
	switch (f->type) {
	case SHT_FIELD_STRING:
		snprintf(buf, size, "%s", f->v.s);
		return true;
	case SHT_FIELD_INT:
		snprintf(buf, size, "%" PRId64, f->v.i);
		return true;
	case SHT_FIELD_UINT:
		snprintf(buf, size, "%" PRIu64, f->v.u);
		return true;
	case SHT_FIELD_DOUBLE:
		snprintf(buf, size, "%.17g", f->v.d);
		return true;
	case SHT_FIELD_NONE:
	case SHT_FIELD_OTHER:
		break;
	}
	return false;
}
