/*
 * ext.c: entry point of the SQLite extension.  Loaded with
 *
 *   sqlite> .load /usr/local/lib/sht/sht_sqlite
 *   SELECT load_extension('/usr/local/lib/sht/sht_sqlite');
 *
 * SQLite derives the entry point's name from the file name
 * (sqlite3_shtsqlite_init); sqlite3_extension_init is the same function
 * for loaders that ask for the default name.  It registers, on the
 * connection, the virtual tables sht_intervals and sht_attributes (sharing
 * one cache of opened histories), the functions sht_start(FILE) and
 * sht_end(FILE) (a history's bounds), sht_last_query() and sht_version().
 */
#define SHTSQL_MAIN 1
#include <string.h>

#include "shtsql.h"

SQLITE_EXTENSION_INIT1

#if defined(__GNUC__)
#define SHTSQL_EXPORT __attribute__((visibility("default")))
#else
#define SHTSQL_EXPORT
#endif

static void version_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_text(ctx, sht_version_string(), -1, SQLITE_STATIC);
}

/* sht_last_query(): the last query sht_intervals ran on this
 * connection ("single quark=Q t=T", "full t=T", "2d quarks=... t1= t2=
 * resolution=", "none"), with the intervals it fetched: what answered,
 * beside EXPLAIN QUERY PLAN's what will. */
static void last_query_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct shtsql_last *l = &((struct shtsql_cache *)sqlite3_user_data(ctx))->last;
	char *s;

	(void)argc;
	(void)argv;
	switch (l->kind) {
	case SHTSQL_Q_NONE: s = sqlite3_mprintf("%s", ""); break;
	case SHTSQL_Q_EMPTY: s = sqlite3_mprintf("none (no row can match) fetched=0"); break;
	case SHTSQL_Q_SINGLE:
		s = sqlite3_mprintf("single quark=%u t=%lld fetched=%llu", l->quark,
				    (long long)l->t1, (unsigned long long)l->fetched);
		break;
	case SHTSQL_Q_FULL:
		s = sqlite3_mprintf("full t=%lld fetched=%llu", (long long)l->t1,
				    (unsigned long long)l->fetched);
		break;
	default:
		/* SQLite's printf has no %zu. */
		s = l->nset ? sqlite3_mprintf("2d quarks=%llu", (unsigned long long)l->nset)
			    : sqlite3_mprintf("2d quarks=%u..%u", l->qlo, l->qhi);
		s = s ? sqlite3_mprintf("%z t1=%lld t2=%lld resolution=%lld fetched=%llu",
					s, (long long)l->t1, (long long)l->t2,
					(long long)l->resolution,
					(unsigned long long)l->fetched) : NULL;
		break;
	}
	if (!s) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, s, -1, sqlite3_free);
}

/* sht_start(FILE), sht_end(FILE): a history's bounds, in ns. */
static void bound_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv, int end)
{
	struct shtsql_cache *c = sqlite3_user_data(ctx);
	struct shtsql_hist *h;
	const char *who = end ? "sht_end" : "sht_start";
	char *err = NULL;

	(void)argc;
	if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
		err = sqlite3_mprintf("%s: the history file must be text (a path)", who);
	} else if (shtsql_hist_get(c, (const char *)sqlite3_value_text(argv[0]), who,
				   &h, &err) == SQLITE_OK) {
		sqlite3_result_int64(ctx, end ? h->end : h->start);
		shtsql_hist_put(h);
		return;
	}
	if (err) {
		sqlite3_result_error(ctx, err, -1);
		sqlite3_free(err);
	} else {
		sqlite3_result_error_nomem(ctx);
	}
}

static void start_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bound_fn(ctx, argc, argv, 0);
}

static void end_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	bound_fn(ctx, argc, argv, 1);
}

static void cache_unref(void *aux)
{
	shtsql_cache_release(aux);
}

SHTSQL_EXPORT int sqlite3_shtsqlite_init(sqlite3 *db, char **err,
					 const sqlite3_api_routines *api);

SHTSQL_EXPORT int sqlite3_shtsqlite_init(sqlite3 *db, char **err,
					 const sqlite3_api_routines *api)
{
	struct shtsql_cache *c;
	int rc;

	SQLITE_EXTENSION_INIT2(api);
	if (sqlite3_libversion_number() < 3038000) {
		*err = sqlite3_mprintf("sht_sqlite needs SQLite 3.38 or newer "
				       "(this is %s)", sqlite3_libversion());
		return SQLITE_ERROR;
	}
	c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	c->head = NULL;
	c->count = 0;
	c->users = 1;                 /* ours, until the others hold it */
	memset(&c->last, 0, sizeof c->last);
	rc = shtsql_register_intervals(db, c);
	if (rc == SQLITE_OK)
		rc = shtsql_register_attributes(db, c);
	if (rc == SQLITE_OK) {
		c->users++;               /* dropped by cache_unref */
		rc = sqlite3_create_function_v2(db, "sht_last_query", 0,
						SQLITE_UTF8 | SQLITE_DIRECTONLY,
						c, last_query_fn, NULL, NULL,
						cache_unref);
	}
	for (int i = 0; rc == SQLITE_OK && i < 2; i++) {
		c->users++;
		rc = sqlite3_create_function_v2(db, i ? "sht_end" : "sht_start", 1,
						SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
						i ? end_fn : start_fn, NULL, NULL,
						cache_unref);
	}
	shtsql_cache_release(c);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "sht_version", 0,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC |
					     SQLITE_INNOCUOUS, NULL, version_fn,
					     NULL, NULL);
	return rc;
}

SHTSQL_EXPORT int sqlite3_extension_init(sqlite3 *db, char **err,
					 const sqlite3_api_routines *api);

SHTSQL_EXPORT int sqlite3_extension_init(sqlite3 *db, char **err,
					 const sqlite3_api_routines *api)
{
	return sqlite3_shtsqlite_init(db, err, api);
}
