/*
 * shtsql.h: internal header of the SQLite extension (the .c files of sqlite/).
 *
 * The extension is a front end like the CLI: it sees libsht only through
 * <sht/sht.h> and links the shared library.  It registers two eponymous
 * virtual tables per connection, sht_intervals and sht_attributes
 * (docs/SQL.md), which share one cache of opened histories.
 *
 * Every file but ext.c declares the API table with SQLITE_EXTENSION_INIT3
 * (ext.c defines it), so the same code runs as a loadable extension and
 * when linked into a program (sqlite3_auto_extension).
 */
#ifndef SHTSQL_H
#define SHTSQL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <sqlite3ext.h>

#include <sht/sht.h>

#ifndef SHTSQL_MAIN
SQLITE_EXTENSION_INIT3
#endif

/* ---- histories (hist.c) ------------------------------------------------- */

/*
 * An opened history.  The cache owns it; a cursor that uses it holds a
 * reference (refs) so that eviction or a newer file of the same name
 * never frees it under the cursor.
 */
struct shtsql_hist {
	char *name;              /* the path as the SQL gave it */
	dev_t dev;               /* identity of the file when opened: a */
	ino_t ino;               /* rebuilt or replaced file (another */
	struct timespec mtime;   /* inode, time or size) is opened again */
	off_t size;
	int64_t checked;         /* CLOCK_MONOTONIC ns of the last stat */
	sht_state *ss;
	sht_time start, end;     /* history bounds */
	uint64_t nattrs;         /* attributes (quarks 0 .. nattrs-1) */
	char **paths;            /* path per quark, built on demand */
	uint32_t *plen;          /* their lengths */
	int slashes;             /* some name holds a "/" (-1: not known) */
	uint32_t *pindex;        /* then: quark + 1 by path hash (open
	                            addressing, 0 empty), built on demand */
	size_t pindex_cap;       /* a power of two */
	int refs;                /* the cache's own + one per user */
	int stale;               /* dropped from the cache, freed at refs 0 */
	struct shtsql_hist *next;/* cache list, most recent first */
};

/* The last query sht_intervals ran, for sht_last_query() (formatted
 * only when asked: a point query costs about a microsecond). */
struct shtsql_last {
	enum { SHTSQL_Q_NONE, SHTSQL_Q_EMPTY, SHTSQL_Q_SINGLE, SHTSQL_Q_FULL,
	       SHTSQL_Q_2D } kind;
	sht_quark quark, qlo, qhi; /* single: quark; 2D: range if nset 0 */
	size_t nset;               /* 2D: size of the quark set */
	sht_time t1, t2, resolution;
	size_t fetched;            /* intervals the history returned */
};

/* The cache of one connection: a few recently used histories. */
struct shtsql_cache {
	struct shtsql_hist *head;
	int count;
	int users;               /* modules and functions sharing it */
	struct shtsql_last last;
};

#define SHTSQL_CACHE_MAX 8

/* A cached history is used without looking at the file again for this
 * long after the last look (a stat costs about a third of a point
 * query): a file rebuilt under the same name is seen by the statements
 * that start 1 ms or more after the previous look. */
#define SHTSQL_RECHECK_NS 1000000

/*
 * The history at name, opened or found in the cache (same file, same
 * inode, modification time and size), with a reference for the caller.
 * On failure returns an SQLite code and sets *err (sqlite3_malloc'd)
 * to a message naming the table function (who).
 */
int shtsql_hist_get(struct shtsql_cache *c, const char *name, const char *who,
		    struct shtsql_hist **out, char **err);
void shtsql_hist_put(struct shtsql_hist *h);
void shtsql_cache_release(struct shtsql_cache *c);

/* The full path of q ("/"-joined names), built once; NULL if q is not an
 * attribute or memory ran out (*len its length). */
const char *shtsql_path(struct shtsql_hist *h, sht_quark q, uint32_t *len);

/* The attributes whose path is exactly text[0..len) (usually one; more
 * only if names hold "/"), sorted, in *out (sqlite3_malloc'd). */
int shtsql_path_quarks(struct shtsql_hist *h, const char *text, size_t len,
		       sht_quark **out, size_t *n);

/*
 * The quarks whose path matches an SQL GLOB (sqlite3_strglob, character
 * based: "*" also crosses "/") or, with like set, an SQL LIKE pattern
 * (sqlite3_strlike, ASCII case-insensitive): sorted, in *out
 * (sqlite3_malloc'd, may be NULL when *n is 0).  Only the subtree named
 * by the pattern's literal prefix up to its last "/" is walked.
 * Returns SQLITE_OK or SQLITE_NOMEM / SQLITE_ERROR (*err set).
 */
int shtsql_match(struct shtsql_hist *h, const char *pattern, int like,
		 sht_quark **out, size_t *n, char **err);

/* An SQLite error message "WHO: what: sht's message" (sqlite3_malloc'd). */
char *shtsql_errmsg(const char *who, const char *what);

/* ---- modules ----------------------------------------------------------- */

int shtsql_register_intervals(sqlite3 *db, struct shtsql_cache *c);
int shtsql_register_attributes(sqlite3 *db, struct shtsql_cache *c);

#endif /* SHTSQL_H */
