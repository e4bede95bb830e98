/*
 * where.h: where the event a trace source delivered last comes from, for
 * the messages of commands that stop on it (src/cli/cmd-build.c): a CTF
 * source gives "stream file F" (babeltrace2 has no packet number to give:
 * src.ctf.fs takes packet_seq_num out of the packet context); any other
 * source, or a CTF source with no current event, gives "".  Private to
 * libsht and the CLI.
 */
#ifndef SHT_TRACE_WHERE_H
#define SHT_TRACE_WHERE_H

#include <stddef.h>

#include "sht/source.h"

/* Write the description into buf (size bytes, NUL-terminated; "" if
 * none) and return its length. */
size_t sht__trace_where(const sht_source *src, char *buf, size_t size);

#endif /* SHT_TRACE_WHERE_H */
