/*
 * value.c: value comparison and type names.
 */
#include "sht/value.h"
#include "util/util.h"

bool sht_value_equal(const sht_value *a, const sht_value *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case SHT_TYPE_NULL: return 1;
	case SHT_TYPE_INT32: return a->u.i32 == b->u.i32;
	case SHT_TYPE_INT64: return a->u.i64 == b->u.i64;
	case SHT_TYPE_DOUBLE: return memcmp(&a->u.d, &b->u.d, sizeof(double)) == 0;
	case SHT_TYPE_STRING:
		return a->len == b->len &&
		       (a->len == 0 || memcmp(a->u.str, b->u.str, a->len) == 0);
	}
	return 0;
}

const char *sht_type_name(sht_type t)
{
	switch (t) {
	case SHT_TYPE_NULL: return "null";
	case SHT_TYPE_INT32: return "int";
	case SHT_TYPE_INT64: return "long";
	case SHT_TYPE_DOUBLE: return "double";
	case SHT_TYPE_STRING: return "string";
	}
	return "unknown";
}
