/*
 * reader-int.h: the reader's state (reader.c, check.c).
 */
#ifndef SHT_READER_INT_H
#define SHT_READER_INT_H

#include "store/store-int.h"

struct sht_reader {
	struct sht__store st;        /* fd, geometry, cache */
	struct sht__header hd;       /* validated, COMPLETE */
	uint64_t size;               /* file bytes at open */
};

/* Where the reader's queries start. */
void sht__reader_root(sht_reader *r, struct sht__root *rt);

#endif /* SHT_READER_INT_H */
