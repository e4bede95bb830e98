/*
 * error.c: the status codes' names and texts (one table), and the
 * per-thread record of the last failure: its message and its errno.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sht/version.h"
#include "util/util.h"

static _Thread_local char errbuf[512];
static _Thread_local int last_errno;

static const struct {
	sht_err err;
	const char *name;
	const char *text;
} codes[] = {
	{ SHT_OK, "SHT_OK", "success" },
	{ SHT_END, "SHT_END", "end of iteration" },
	{ SHT_NOT_FOUND, "SHT_NOT_FOUND", "not found" },
	{ SHT_ERR_NOMEM, "SHT_ERR_NOMEM", "out of memory" },
	{ SHT_ERR_IO, "SHT_ERR_IO", "input/output error" },
	{ SHT_ERR_CORRUPT, "SHT_ERR_CORRUPT", "file is corrupt" },
	{ SHT_ERR_VERSION, "SHT_ERR_VERSION",
	  "file format version not supported" },
	{ SHT_ERR_STATE, "SHT_ERR_STATE", "handle is failed or closed" },
	{ SHT_ERR_INVALID, "SHT_ERR_INVALID", "invalid argument" },
	{ SHT_ERR_ORDER, "SHT_ERR_ORDER", "interval out of end-time order" },
	{ SHT_ERR_RANGE, "SHT_ERR_RANGE", "out of range" },
	{ SHT_ERR_INCOMPLETE, "SHT_ERR_INCOMPLETE", "file is incomplete" },
	{ SHT_ERR_TOOBIG, "SHT_ERR_TOOBIG", "past a size limit" },
	{ SHT_ERR_TYPE, "SHT_ERR_TYPE", "state value type mismatch" },
	{ SHT_ERR_NOATTR, "SHT_ERR_NOATTR", "attribute not found" },
	{ SHT_ERR_BUFFER, "SHT_ERR_BUFFER", "buffer too small" },
};

static int code_index(sht_err err)
{
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		if (codes[i].err == err)
			return (int)i;
	return -1;
}

const char *sht_strerror(sht_err err)
{
	int i = code_index(err);

	return i < 0 ? "unknown error" : codes[i].text;
}

const char *sht_err_name(sht_err err)
{
	int i = code_index(err);

	return i < 0 ? "SHT_ERR_UNKNOWN" : codes[i].name;
}

const char *sht_errmsg(void)
{
	return errbuf;
}

int sht_errno(void)
{
	return last_errno;
}

static sht_err record(sht_err err, int errnum, const char *fmt, va_list ap)
	SHT_PRINTF(3, 0);

static sht_err record(sht_err err, int errnum, const char *fmt, va_list ap)
{
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	last_errno = errnum;
	return err;
}

sht_err sht__error(sht_err err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(err, 0, fmt, ap);
	va_end(ap);
	return err;
}

sht_err sht_error_set(sht_err err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(err, 0, fmt, ap);
	va_end(ap);
	return err;
}

sht_err sht__error_sys(sht_err err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(err, errnum, fmt, ap);
	va_end(ap);
	return err;
}

const char *sht_version_string(void)
{
	return SHT_VERSION_STRING;
}
