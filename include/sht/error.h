/*
 * error.h: status codes and error messages.
 *
 * Every fallible function returns an sht_err.  Values >= 0 are not errors
 * (SHT_OK, or an informative status such as SHT_NOT_FOUND); negative
 * values are errors.  When a function fails it also records a message for
 * the calling thread, readable with sht_errmsg() until the next failing
 * call in that thread ("Cannot ..." followed by key=value details), and,
 * when a system call failed, its errno, readable with sht_errno().
 *
 * Each code has one meaning.  sht_err_name() gives its stable symbolic
 * name ("SHT_ERR_IO"), for machine-readable reports (JSON error bodies,
 * exception classes); sht_strerror() a short text for people.
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
	SHT_ERR_VERSION = -4,   /* file format version this library does not
	                           read (an older or a newer one) */
	SHT_ERR_STATE = -5,     /* handle failed earlier or is closed */
	SHT_ERR_INVALID = -6,   /* invalid argument (bad option, bad value) */
	SHT_ERR_ORDER = -7,     /* interval out of end-time order */
	SHT_ERR_RANGE = -8,     /* time or quark outside the history */
	SHT_ERR_INCOMPLETE = -9,/* file was never completed (crash, kill) */
	SHT_ERR_TOOBIG = -10,   /* a size or count past a limit of the format
	                           or the library (string length, stack
	                           depth, quarks, tree levels) */
	SHT_ERR_TYPE = -11,     /* value type differs from the attribute's */
	SHT_ERR_NOATTR = -12,   /* an attribute the change needs is absent */
	SHT_ERR_BUFFER = -13,   /* the caller's buffer is too small (the
	                           function says how much it needs) */
} sht_err;

/* Static description of a status code, e.g. "file is corrupt";
 * "unknown error" for a value that is not a code. */
SHT_API const char *sht_strerror(sht_err err);

/* Stable symbolic name of a status code, the enumerator's own name
 * ("SHT_OK", "SHT_ERR_CORRUPT"); "SHT_ERR_UNKNOWN" for a value that is
 * not a code.  Names never change meaning once released. */
SHT_API const char *sht_err_name(sht_err err);

/*
 * The errno of the system call behind the last failure in the calling
 * thread (ENOSPC, EIO, EACCES, ...), or 0 if that failure was not a
 * system call's (a corrupt block, a bad argument).  Lets a caller tell a
 * full disk from a failing one without parsing the message.
 */
SHT_API int sht_errno(void);

/*
 * Record err with a message for the calling thread, as the library does
 * for its own failures, and return err: for providers, sources and
 * front ends outside libsht whose failures travel through sht_state_run
 * and friends.  The message is formatted as printf does (truncated to
 * 511 bytes); sht_errno() becomes 0.
 */
SHT_API sht_err sht_error_set(sht_err err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

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
