/*
 * value.h: state values, intervals, and result sets.
 *
 * A value is null, a 32-bit int, a 64-bit int, a double or a string.  The
 * types are distinct: int32 5 is not int64 5.  An interval is a value of
 * one attribute (quark) over the closed time range [start, end], in
 * integer nanoseconds.
 */
#ifndef SHT_VALUE_H
#define SHT_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t sht_time;    /* nanoseconds */
typedef uint32_t sht_quark;  /* attribute number, 0 .. SHT_QUARK_MAX */

#define SHT_QUARK_MAX (UINT32_MAX - 1u)
#define SHT_QUARK_NONE UINT32_MAX
#define SHT_TIME_MIN INT64_MIN
#define SHT_TIME_MAX INT64_MAX

/* Longest string value, in bytes.  Longer strings are refused with
 * SHT_ERR_TOOBIG, never truncated. */
#define SHT_STRING_MAX (64u * 1024u * 1024u)

/* Value types.  These numbers are API, not file format (docs/FORMAT.md
 * has its own type tags). */
typedef enum sht_type {
	SHT_TYPE_NULL = 0,
	SHT_TYPE_INT32 = 1,
	SHT_TYPE_INT64 = 2,
	SHT_TYPE_DOUBLE = 3,
	SHT_TYPE_STRING = 4,
} sht_type;

typedef struct sht_value {
	sht_type type;
	uint32_t len;          /* SHT_TYPE_STRING: length in bytes */
	union {
		int32_t i32;
		int64_t i64;
		double d;
		const char *str; /* len bytes, then a NUL; may hold NULs */
	} u;
} sht_value;

typedef struct sht_interval {
	sht_quark quark;
	sht_time start;        /* inclusive */
	sht_time end;          /* inclusive, >= start */
	sht_value value;
} sht_interval;

/* Constructors, for readability at call sites. */
static inline sht_value sht_value_null(void)
{
	sht_value v;
	v.type = SHT_TYPE_NULL;
	v.len = 0;
	v.u.i64 = 0;
	return v;
}

static inline sht_value sht_value_int32(int32_t x)
{
	sht_value v = sht_value_null();
	v.type = SHT_TYPE_INT32;
	v.u.i32 = x;
	return v;
}

static inline sht_value sht_value_int64(int64_t x)
{
	sht_value v = sht_value_null();
	v.type = SHT_TYPE_INT64;
	v.u.i64 = x;
	return v;
}

static inline sht_value sht_value_double(double x)
{
	sht_value v = sht_value_null();
	v.type = SHT_TYPE_DOUBLE;
	v.u.d = x;
	return v;
}

/* The string is borrowed: the caller keeps it alive for the call. */
static inline sht_value sht_value_string(const char *s, uint32_t len)
{
	sht_value v = sht_value_null();
	v.type = SHT_TYPE_STRING;
	v.len = len;
	v.u.str = s;
	return v;
}

/* 1 if a and b have the same type and the same value (strings by bytes,
 * doubles by bit pattern), else 0. */
SHT_API bool sht_value_equal(const sht_value *a, const sht_value *b);

/* Name of a type: "null", "int", "long", "double", "string". */
SHT_API const char *sht_type_name(sht_type t);

/*
 * A result set: a growable array of intervals that owns the bytes of their
 * string values.  Queries fill one; reuse it across queries to avoid
 * allocation.  Not thread-safe: use one per thread.
 */
typedef struct sht_result sht_result;

SHT_API sht_result *sht_result_create(void);          /* NULL on ENOMEM */
SHT_API void sht_result_destroy(sht_result *res);     /* NULL is a no-op */
SHT_API void sht_result_clear(sht_result *res);       /* keeps capacity */
SHT_API size_t sht_result_count(const sht_result *res);
/* Borrowed: valid until the result is next modified, cleared or destroyed. */
SHT_API const sht_interval *sht_result_items(const sht_result *res);
SHT_API const sht_interval *sht_result_at(const sht_result *res, size_t i);
/* Append a copy of iv (its string is copied).  SHT_OK or SHT_ERR_NOMEM. */
SHT_API sht_err sht_result_append(sht_result *res, const sht_interval *iv);

#ifdef __cplusplus
}
#endif

#endif /* SHT_VALUE_H */
