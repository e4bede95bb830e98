/*
 * version.h: library and file-format versions.
 *
 * The library version follows semantic versioning: the same major number
 * means a stable ABI.  The file-format version is independent of it (see
 * docs/FORMAT.md): a reader refuses files of any other format version
 * than SHT_FORMAT_VERSION (SHT_ERR_VERSION; an older file is rebuilt).
 */
#ifndef SHT_VERSION_H
#define SHT_VERSION_H

#include "sht/export.h"

#define SHT_VERSION_MAJOR 0
#define SHT_VERSION_MINOR 1
#define SHT_VERSION_PATCH 0
#define SHT_VERSION_STRING "0.1.0"

/* Version of the on-disk history file this library writes and reads. */
#define SHT_FORMAT_VERSION 2

#ifdef __cplusplus
extern "C" {
#endif

/* Runtime version of the library actually linked, as "major.minor.patch". */
SHT_API const char *sht_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* SHT_VERSION_H */
