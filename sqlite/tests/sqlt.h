/*
 * sqlt.h: helpers of the SQLite extension's test (test-sqlite.c):
 * random histories and their brute-force copy in a plain SQLite table
 * (sqlt-gen.c), and running one SQL text against both (sqlt-run.c).
 */
#ifndef SQLT_H
#define SQLT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "sht/sht.h"

/* A history the checks query, and what they draw values from. */
struct sqlt_hist {
	char path[4096];
	sht_time start, end;
	uint64_t nattrs;
	uint64_t intervals;
	char **paths;            /* per quark */
	uint64_t seed;           /* the draws */
};

/*
 * Write a random history to path: attributes nested up to 4 deep with
 * names that stress paths and patterns ("*", "?", "[", "%", "_", a "/"
 * inside a name, non-ASCII), values of every type, nulls, clears,
 * several changes at one timestamp.  block_size 0: the default.
 */
void sqlt_gen(const char *path, uint64_t seed, unsigned attrs,
	      unsigned changes, uint32_t block_size);

/*
 * Open a history and copy it, by single queries walked from the start
 * to the end of every attribute (the brute-force oracle, independent of
 * the 2D query), into the tables iv(quark, path, start, "end", type,
 * value) and attrs(quark, parent, name, path) of db.  Fills h.
 */
void sqlt_load(sqlite3 *db, const char *path, struct sqlt_hist *h);
void sqlt_hist_free(struct sqlt_hist *h);

/* Open an in-memory database with the extension at module loaded. */
sqlite3 *sqlt_open(const char *module);

/* Draws of the tests' generator (rng.h), state in *s. */
uint64_t sqlt_rand(uint64_t *s);
int64_t sqlt_between(uint64_t *s, int64_t lo, int64_t hi);

/* Parameters of one check, bound by name where the SQL has them. */
struct sqlt_params {
	const char *file;
	sht_time t, t1, t2, r;
	int64_t q, q2;
	const char *p, *p2, *g, *l;
};

/* The rows of sql (each a line "type:value|..."), sorted, in *rows;
 * returns the row count, or -1 with the error message in *err
 * (sqlite3_malloc'd). */
long sqlt_rows(sqlite3 *db, const char *sql, const struct sqlt_params *pa,
	       char ***rows, char **err);
void sqlt_rows_free(char **rows, long n);

/* sql with every "{T}" replaced by table (malloc'd). */
char *sqlt_subst(const char *sql, const char *table);

/* The first text column of the first row of sql, or "" (static buffer). */
const char *sqlt_text(sqlite3 *db, const char *sql, const struct sqlt_params *pa);

#endif /* SQLT_H */
