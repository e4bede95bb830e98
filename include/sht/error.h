/*
 * error.h: status codes and error messages.
 *
 * Every fallible function returns an sht_err.  Values >= 0 are not errors
 * (SHT_OK, or an informative status such as SHT_NOT_FOUND); negative
 * values are errors.  When a function fails it also records a message for
 * the calling thread, readable with sht_errmsg() until the next failing
 * call in that thread ("Cannot ..." followed by key=value details).
 */
#ifndef SHT_ERROR_H
#define SHT_ERROR_H

#include "sht/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sht_err {
	SHT_OK = 0,
	SHT_END = 1,            /* iteration finished */
	SHT_NOT_FOUND = 2,      /* no interval matches the query */
	SHT_ERR_NOMEM = -1,     /* allocation failed */
	SHT_ERR_IO = -2,        /* read, write, sync or open failed */
	SHT_ERR_CORRUPT = -3,   /* file content failed validation */
	SHT_ERR_VERSION = -4,   /* file format newer than this library */
	SHT_ERR_STATE = -5,     /* handle failed earlier or is closed */
	SHT_ERR_INVALID = -6,   /* invalid argument (bad option, bad value) */
	SHT_ERR_ORDER = -7,     /* interval out of end-time order */
	SHT_ERR_RANGE = -8,     /* time or quark outside the history */
	SHT_ERR_INCOMPLETE = -9,/* file was never completed (crash, kill) */
	SHT_ERR_TOOBIG = -10,   /* value larger than the format allows */
	SHT_ERR_TYPE = -11,     /* value type differs from the attribute's */
	SHT_ERR_NOATTR = -12,   /* an attribute the change needs is absent */
} sht_err;

/* Static description of a status code, e.g. "file is corrupt". */
SHT_API const char *sht_strerror(sht_err err);

/*
 * Message of the last failure in the calling thread, with details
 * (path, block number, ...).  Never NULL; "" if nothing failed yet.
 * Borrowed: valid until the next failing call in this thread.
 */
SHT_API const char *sht_errmsg(void);

#ifdef __cplusplus
}
#endif

#endif /* SHT_ERROR_H */
