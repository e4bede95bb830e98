/*
 * error.c: status strings and the per-thread error message.
 */
#include <stdarg.h>
#include <stdio.h>

#include "util/util.h"

static _Thread_local char errbuf[512];

const char *sht_strerror(sht_err err)
{
	switch (err) {
	case SHT_OK: return "success";
	case SHT_END: return "end of iteration";
	case SHT_NOT_FOUND: return "not found";
	case SHT_ERR_NOMEM: return "out of memory";
	case SHT_ERR_IO: return "input/output error";
	case SHT_ERR_CORRUPT: return "file is corrupt";
	case SHT_ERR_VERSION: return "file format is newer than this library";
	case SHT_ERR_STATE: return "handle is failed or closed";
	case SHT_ERR_INVALID: return "invalid argument";
	case SHT_ERR_ORDER: return "interval out of end-time order";
	case SHT_ERR_RANGE: return "out of range";
	case SHT_ERR_INCOMPLETE: return "file is incomplete";
	case SHT_ERR_TOOBIG: return "value too large";
	case SHT_ERR_TYPE: return "state value type mismatch";
	case SHT_ERR_NOATTR: return "attribute not found";
	}
	return "unknown error";
}

const char *sht_errmsg(void)
{
	return errbuf;
}

sht_err sht__error(sht_err err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof errbuf, fmt, ap);
	va_end(ap);
	return err;
}

const char *sht_version_string(void)
{
	return SHT_VERSION_STRING;
}
