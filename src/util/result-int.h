/*
 * result-int.h: the inside of sht_result, for the query code that fills
 * result sets directly.
 */
#ifndef SHT_RESULT_INT_H
#define SHT_RESULT_INT_H

#include "util/util.h"

struct sht__chunk {
	struct sht__chunk *next;
	size_t size;            /* bytes in data */
	size_t used;            /* bytes handed out */
	char data[];
};

struct sht_result {
	sht_interval *items;    /* count valid entries, cap allocated */
	size_t count;
	size_t cap;
	struct sht__chunk *chunks; /* string bytes; first chunk has room */
};

/* Make room for n items in total. */
sht_err sht__result_reserve(sht_result *res, size_t n);
/* Copy len bytes plus a NUL into the result's arena; NULL on ENOMEM. */
char *sht__result_strdup(sht_result *res, const char *s, size_t len);

#endif /* SHT_RESULT_INT_H */
