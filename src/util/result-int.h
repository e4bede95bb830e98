/*
 * result-int.h: the inside of sht_result, for the query code that fills
 * result sets directly.
 */
#ifndef SHT_RESULT_INT_H
#define SHT_RESULT_INT_H

#include "sht/tree.h"
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

/* ---- 2D query helpers shared by every backend (query2d.c) ---- */

/* Does [s, e] hold a sample of the query over [t1, t2] at resolution r:
 * a time t1 + k r <= t2, or t2 itself; any point of [t1, t2] if r = 0. */
int sht__q2d_hits(sht_time t1, sht_time t2, sht_time r, sht_time s, sht_time e);
/* SHT_ERR_INVALID for t1 > t2, r < 0, an empty range or a NULL list. */
sht_err sht__q2d_validate(const sht_query2d *q);
/* Sorted distinct copy of q->quarks (malloc'd) and its length. */
sht_err sht__q2d_selection(const sht_query2d *q, sht_quark **out, size_t *n);
/* Binary search in a sorted selection. */
int sht__quark_in(const sht_quark *sel, size_t n, sht_quark q);
/* Order a 2D answer as q asks: by (start, quark) or (quark, start)
 * (sort-time.c); a full query's answer by quark alone. */
void sht__q2d_sort(const sht_query2d *q, sht_result *res);
void sht__result_sort_quark(sht_result *res);

/* ---- cursors (cursor.c) ---- */

/* A cursor over an implementation: next fills res (cleared, empty on
 * entry) and returns SHT_OK, SHT_END or an error; destroy frees impl.
 * On failure impl is not taken. */
sht_err sht__cursor_new(sht_err (*next)(void *impl, sht_result *res),
			void (*destroy)(void *impl), void *impl, sht_cursor **out);
/* A cursor handing out a whole answer (taken, even on failure) as one
 * piece. */
sht_err sht__cursor_whole(sht_result *whole, sht_cursor **out);

#endif /* SHT_RESULT_INT_H */
