/*
 * vt-intervals.c: the sht_intervals virtual table, every interval of a
 * history file as a row (quark, path, start, end, type, value), with the
 * hidden columns file and resolution as its arguments:
 *
 *   SELECT * FROM sht_intervals('mt.sht') WHERE start <= T AND "end" >= T;
 *   SELECT * FROM sht_intervals('mt.sht', 1000000)
 *    WHERE path GLOB 'CPUs/?/Current_thread' AND "end" >= T1 AND start <= T2;
 *   CREATE VIRTUAL TABLE mt USING sht_intervals('mt.sht');
 *
 * plan.c chooses and binds the constraints; this file runs the query
 * (single, full or 2D, through the state system) and hands out the rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

struct iv_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	struct shtsql_cache *cache;
	struct shtsql_hist *fixed;   /* CREATE VIRTUAL TABLE ... (FILE) */
};

struct iv_cursor {
	sqlite3_vtab_cursor base;
	struct shtsql_hist *h;       /* referenced while the cursor uses it */
	struct shtsql_plan plan;
	sht_result *res;             /* the query's answer, or its piece */
	sht_cursor *cur;             /* 2D: the pieces still to come */
	struct shtsql_last *last;    /* what ran (fetched is counted here) */
	size_t at, count;            /* the current row in res */
	sqlite3_int64 rowid;
};

static void set_error(sqlite3_vtab *vt, char *msg)
{
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = msg;
}

/* The FILE of CREATE VIRTUAL TABLE t USING sht_intervals(FILE), without
 * its quotes (sqlite3_malloc'd). */
static char *unquote(const char *arg)
{
	size_t n = strlen(arg);

	if (n >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[n - 1] == arg[0])
		return sqlite3_mprintf("%.*s", (int)(n - 2), arg + 1);
	return sqlite3_mprintf("%s", arg);
}

static int iv_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct iv_vtab *vt;
	char *file;
	int rc = sqlite3_declare_vtab(db, SHTSQL_INTERVALS_SCHEMA);

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	if (argc > 4) {
		*err = sqlite3_mprintf("sht_intervals: one argument, the "
				       "history file, not %d", argc - 3);
		return SQLITE_ERROR;
	}
	vt = sqlite3_malloc(sizeof *vt);
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof *vt);
	vt->db = db;
	vt->cache = aux;
	vt->cache->users++;
	if (argc == 4) {
		file = unquote(argv[3]);
		rc = file ? shtsql_hist_get(vt->cache, file, "sht_intervals",
					    &vt->fixed, err)
			  : SQLITE_NOMEM;
		sqlite3_free(file);
		if (rc != SQLITE_OK) {
			shtsql_cache_release(vt->cache);
			sqlite3_free(vt);
			return rc;
		}
	}
	*out = &vt->base;
	return SQLITE_OK;
}

static int iv_disconnect(sqlite3_vtab *base)
{
	struct iv_vtab *vt = (struct iv_vtab *)base;

	shtsql_hist_put(vt->fixed);
	shtsql_cache_release(vt->cache);
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int iv_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	struct iv_vtab *vt = (struct iv_vtab *)base;
	char *err = NULL;
	int rc = shtsql_plan_index(info, vt->fixed != NULL, &err);

	if (err)
		set_error(base, err);
	return rc;
}

static int iv_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct iv_cursor *c = sqlite3_malloc(sizeof *c);

	(void)base;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	c->res = sht_result_create();
	if (!c->res) {
		sqlite3_free(c);
		return SQLITE_NOMEM;
	}
	*out = &c->base;
	return SQLITE_OK;
}

/* Forget the previous query (a cursor is filtered again for each row of
 * an outer loop). */
static void reset(struct iv_cursor *c)
{
	shtsql_plan_free(&c->plan);
	sht_cursor_destroy(c->cur);
	c->cur = NULL;
	shtsql_hist_put(c->h);
	c->h = NULL;
	sht_result_clear(c->res);
	c->at = c->count = 0;
	c->rowid = 0;
}

static int iv_close(sqlite3_vtab_cursor *cur)
{
	struct iv_cursor *c = (struct iv_cursor *)cur;

	reset(c);
	sht_result_destroy(c->res);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Keep only the set's quarks inside [qlo, qhi]. */
static void trim_set(struct shtsql_plan *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nset; i++)
		if (p->set[i] >= p->qlo && p->set[i] <= p->qhi)
			p->set[k++] = p->set[i];
	p->nset = k;
}

/* Run the query the plan describes into c->res; what ran goes to last. */
static sht_err run_query(struct iv_cursor *c, sht_time lo, sht_time hi,
			 struct shtsql_last *last)
{
	struct shtsql_plan *p = &c->plan;
	sht_state *ss = c->h->ss;
	sht_query2d q;
	sht_err err;

	if (lo == hi && p->have_set && p->nset == 1) {
		last->kind = SHTSQL_Q_SINGLE;
		last->quark = p->set[0];
		last->t1 = lo;
		err = sht_state_query(ss, p->set[0], lo, c->res);
		return err == SHT_NOT_FOUND ? SHT_OK : err;
	}
	if (lo == hi && !p->have_set && p->qlo == 0 &&
	    (uint64_t)p->qhi + 1 >= c->h->nattrs) {
		last->kind = SHTSQL_Q_FULL;
		last->t1 = lo;
		return sht_state_query_full(ss, lo, c->res);
	}
	memset(&q, 0, sizeof q);
	if (p->have_set) {
		q.quarks = p->set;
		q.n_quarks = p->nset;
	} else {
		q.qmin = p->qlo;
		q.qmax = p->qhi;
	}
	q.t1 = lo;
	q.t2 = hi;
	q.resolution = lo == hi ? 0 : p->resolution;
	last->kind = SHTSQL_Q_2D;
	last->nset = p->have_set ? p->nset : 0;
	last->qlo = p->qlo;
	last->qhi = p->qhi;
	last->t1 = lo;
	last->t2 = hi;
	last->resolution = q.resolution;
	/* Streamed: a scan of a big history holds one node's intervals at
	 * a time, and LIMIT stops it early. */
	return sht_state_cursor_create(ss, &q, &c->cur);
}

/*
 * The instants to ask the history for, from the bounds: a row has
 * start <= a = min(smax, emax) and end >= b = max(emin, smin) (start >=
 * smin implies end >= smin, end <= emax implies start <= emax).  If b <=
 * a, those are the intervals meeting [b, a]: a 2D query (one instant: a
 * state query).  If b > a, they contain all of [a, b], so the intervals
 * at a are the candidates.  0 if no interval of [hs, he] can match.
 */
static int window(const struct shtsql_plan *p, sht_time hs, sht_time he,
		  sht_time *lo, sht_time *hi)
{
	sht_time a = p->smax < p->emax ? p->smax : p->emax;
	sht_time b = p->emin > p->smin ? p->emin : p->smin;

	if (p->empty || a < hs || b > he)
		return 0;
	if (b > a) {
		*lo = *hi = a;
		return 1;
	}
	*lo = b > hs ? b : hs;
	*hi = a < he ? a : he;
	return 1;
}

/* Move to a row the exact bounds keep, fetching the next pieces of a
 * 2D query as needed; SQLITE_OK at a row or at the end. */
static int settle(struct iv_cursor *c)
{
	const sht_interval *items = sht_result_items(c->res);
	sht_err err;

	for (;;) {
		while (c->at < c->count && !shtsql_plan_keeps(&c->plan, &items[c->at]))
			c->at++;
		if (c->at < c->count || !c->cur)
			return SQLITE_OK;
		err = sht_cursor_next(c->cur, c->res);
		if (err == SHT_END) {
			sht_cursor_destroy(c->cur);
			c->cur = NULL;
			return SQLITE_OK;
		}
		if (err != SHT_OK) {
			set_error(c->base.pVtab, shtsql_errmsg("sht_intervals",
							       "cannot query the history"));
			return err == SHT_ERR_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
		}
		items = sht_result_items(c->res);
		c->at = 0;
		c->count = sht_result_count(c->res);
		c->last->fetched += c->count;
	}
}

static int iv_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str,
		     int argc, sqlite3_value **argv)
{
	struct iv_cursor *c = (struct iv_cursor *)cur;
	struct iv_vtab *vt = (struct iv_vtab *)cur->pVtab;
	struct shtsql_plan *p = &c->plan;
	const char *file;
	char *err = NULL;
	sht_time lo, hi;
	sht_err serr;
	int rc;

	(void)idx_num;
	reset(c);
	rc = shtsql_plan_file(idx_str, argc, argv, &file, &err);
	if (rc == SQLITE_OK && file)
		rc = shtsql_hist_get(vt->cache, file, "sht_intervals", &c->h, &err);
	else if (rc == SQLITE_OK)
		(c->h = vt->fixed)->refs++;
	if (rc == SQLITE_OK)
		rc = shtsql_plan_bind(p, c->h, idx_str, argc, argv, &err);
	if (rc != SQLITE_OK) {
		set_error(cur->pVtab, err);
		return rc;
	}
	if (p->have_set)
		trim_set(p);
	if (!window(p, c->h->start, c->h->end, &lo, &hi) || p->qlo > p->qhi ||
	    (p->have_set && p->nset == 0)) {
		vt->cache->last.kind = SHTSQL_Q_EMPTY;
		vt->cache->last.fetched = 0;
		return SQLITE_OK;
	}
	c->last = &vt->cache->last;
	c->last->fetched = 0;
	serr = run_query(c, lo, hi, c->last);
	if (serr < 0) {
		sht_result_clear(c->res);
		set_error(cur->pVtab, shtsql_errmsg("sht_intervals", "cannot query the history"));
		return serr == SHT_ERR_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
	}
	c->count = sht_result_count(c->res);
	c->last->fetched = c->count;
	return settle(c);
}

static int iv_next(sqlite3_vtab_cursor *cur)
{
	struct iv_cursor *c = (struct iv_cursor *)cur;

	c->at++;
	c->rowid++;
	return settle(c);
}

static int iv_eof(sqlite3_vtab_cursor *cur)
{
	struct iv_cursor *c = (struct iv_cursor *)cur;

	return c->at >= c->count;
}

static void result_value(sqlite3_context *ctx, const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_INT32: sqlite3_result_int64(ctx, v->u.i32); break;
	case SHT_TYPE_INT64: sqlite3_result_int64(ctx, v->u.i64); break;
	case SHT_TYPE_DOUBLE: sqlite3_result_double(ctx, v->u.d); break;
	case SHT_TYPE_STRING:
		sqlite3_result_text64(ctx, v->u.str, v->len, SQLITE_TRANSIENT,
				      SQLITE_UTF8);
		break;
	default: sqlite3_result_null(ctx); break;
	}
}

static int iv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct iv_cursor *c = (struct iv_cursor *)cur;
	const sht_interval *iv = sht_result_at(c->res, c->at);
	const char *path;
	uint32_t len;

	switch (col) {
	case SHTSQL_COL_QUARK: sqlite3_result_int64(ctx, iv->quark); break;
	case SHTSQL_COL_PATH:
		path = shtsql_path(c->h, iv->quark, &len);
		if (!path) {
			sqlite3_result_error(ctx, "sht_intervals: cannot name an "
					     "attribute (out of memory, or a "
					     "damaged attribute tree)", -1);
			return SQLITE_ERROR;
		}
		sqlite3_result_text(ctx, path, (int)len, SQLITE_TRANSIENT);
		break;
	case SHTSQL_COL_START: sqlite3_result_int64(ctx, iv->start); break;
	case SHTSQL_COL_END: sqlite3_result_int64(ctx, iv->end); break;
	case SHTSQL_COL_TYPE:
		sqlite3_result_text(ctx, sht_type_name(iv->value.type), -1,
				    SQLITE_STATIC);
		break;
	case SHTSQL_COL_VALUE: result_value(ctx, &iv->value); break;
	case SHTSQL_COL_FILE:
		sqlite3_result_text(ctx, c->h->name, -1, SQLITE_TRANSIENT);
		break;
	default:
		sqlite3_result_int64(ctx, c->plan.resolution);
		break;
	}
	return SQLITE_OK;
}

static int iv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct iv_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module iv_module = {
	.iVersion = 0,
	.xCreate = iv_connect,
	.xConnect = iv_connect,
	.xBestIndex = iv_best_index,
	.xDisconnect = iv_disconnect,
	.xDestroy = iv_disconnect,
	.xOpen = iv_open,
	.xClose = iv_close,
	.xFilter = iv_filter,
	.xNext = iv_next,
	.xEof = iv_eof,
	.xColumn = iv_column,
	.xRowid = iv_rowid,
};

static void cache_unref(void *aux)
{
	shtsql_cache_release(aux);
}

int shtsql_register_intervals(sqlite3 *db, struct shtsql_cache *c)
{
	/* The module's reference; SQLite drops it (cache_unref) when the
	 * connection closes, or at once if registering fails. */
	c->users++;
	return sqlite3_create_module_v2(db, "sht_intervals", &iv_module, c,
					cache_unref);
}
