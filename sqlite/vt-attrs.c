/*
 * vt-attrs.c: the sht_attributes virtual table, the attribute tree of a
 * history file as rows (quark, parent, name, path):
 *
 *   SELECT * FROM sht_attributes('mt.sht') WHERE path GLOB 'Threads/[0-9]*';
 *   SELECT name FROM sht_attributes('mt.sht') WHERE parent IS NULL;
 *
 * parent is NULL for the top-level attributes.  quark =, parent =,
 * parent IS NULL, path =, GLOB and LIKE are answered from the tree
 * (children lists, path look-ups) instead of a walk over every attribute.
 */
#include <stdlib.h>
#include <string.h>

#include "shtsql.h"

enum { COL_QUARK, COL_PARENT, COL_NAME, COL_PATH, COL_FILE };

#define MAX_ARGS 16

struct at_vtab {
	sqlite3_vtab base;
	struct shtsql_cache *cache;
};

struct at_cursor {
	sqlite3_vtab_cursor base;
	struct shtsql_hist *h;
	int have_set;            /* rows are set[0 .. n), else quarks 0 .. n */
	sht_quark *set;
	size_t at, n;
};

static void set_error(sqlite3_vtab *vt, char *msg)
{
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = msg;
}

static int at_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		      sqlite3_vtab **out, char **err)
{
	struct at_vtab *vt;
	int rc;

	(void)argv;
	if (argc > 3) {
		*err = sqlite3_mprintf("sht_attributes: use it as a table "
				       "function, sht_attributes('FILE.sht')");
		return SQLITE_ERROR;
	}
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(quark INTEGER, parent "
				  "INTEGER, name TEXT, path TEXT, file TEXT HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	vt = sqlite3_malloc(sizeof *vt);
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof *vt);
	vt->cache = aux;
	vt->cache->users++;
	*out = &vt->base;
	return SQLITE_OK;
}

static int at_disconnect(sqlite3_vtab *base)
{
	struct at_vtab *vt = (struct at_vtab *)base;

	shtsql_cache_release(vt->cache);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The constraint's code in idxStr: column then operator, or 0. */
static int code_of(const struct sqlite3_index_constraint *c, char code[2])
{
	switch (c->iColumn) {
	case COL_QUARK:
		code[0] = 'q';
		break;
	case COL_PARENT:
		code[0] = 'P';
		if (c->op == SQLITE_INDEX_CONSTRAINT_ISNULL) {
			code[1] = 'n';
			return 1;
		}
		break;
	case COL_PATH:
		code[0] = 'p';
		if (c->op == SQLITE_INDEX_CONSTRAINT_GLOB ||
		    c->op == SQLITE_INDEX_CONSTRAINT_LIKE) {
			code[1] = c->op == SQLITE_INDEX_CONSTRAINT_GLOB ? 'G' : 'L';
			return 1;
		}
		break;
	default:
		return 0;
	}
	code[1] = '=';
	return c->op == SQLITE_INDEX_CONSTRAINT_EQ;
}

static int at_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	char codes[2 * MAX_ARGS + 1], code[2];
	int file = -1, unusable = 0, nargs = 0, narrowed = 0;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->iColumn == COL_FILE && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			if (c->usable)
				file = i;
			else
				unusable = 1;
		}
	}
	if (file < 0 && unusable)
		return SQLITE_CONSTRAINT;
	if (file < 0) {
		set_error(base, sqlite3_mprintf("sht_attributes: no history "
						"file: write sht_attributes('FILE.sht')"));
		return SQLITE_ERROR;
	}
	info->aConstraintUsage[file].argvIndex = ++nargs;
	info->aConstraintUsage[file].omit = 1;
	codes[0] = 'f';
	codes[1] = '=';
	for (int i = 0; i < info->nConstraint && nargs < MAX_ARGS; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable || !code_of(c, code))
			continue;
		codes[2 * nargs] = code[0];
		codes[2 * nargs + 1] = code[1];
		info->aConstraintUsage[i].argvIndex = ++nargs;
		info->aConstraintUsage[i].omit = code[1] != 'L';
		narrowed = 1;
	}
	codes[2 * nargs] = '\0';
	info->idxStr = sqlite3_mprintf("%s", codes);
	if (!info->idxStr)
		return SQLITE_NOMEM;
	info->needToFreeIdxStr = 1;
	info->estimatedRows = narrowed ? 10 : 100000;
	info->estimatedCost = (double)info->estimatedRows;
	return SQLITE_OK;
}

static int at_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct at_cursor *c = sqlite3_malloc(sizeof *c);

	(void)base;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static void reset(struct at_cursor *c)
{
	shtsql_hist_put(c->h);
	c->h = NULL;
	sqlite3_free(c->set);
	c->set = NULL;
	c->have_set = 0;
	c->at = c->n = 0;
}

static int at_close(sqlite3_vtab_cursor *cur)
{
	reset((struct at_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* c's rows become their intersection with s[0..n) (sorted, distinct;
 * taken over). */
static void narrow_to(struct at_cursor *c, sht_quark *s, size_t n)
{
	size_t i = 0, j = 0, k = 0;

	if (!c->have_set) {
		c->have_set = 1;
		c->set = s;
		c->n = n;
		return;
	}
	while (i < c->n && j < n) {
		if (c->set[i] < s[j])
			i++;
		else if (c->set[i] > s[j])
			j++;
		else {
			c->set[k++] = c->set[i];
			i++;
			j++;
		}
	}
	c->n = k;
	sqlite3_free(s);
}

static int cmp_quark(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;

	return x < y ? -1 : x > y;
}

/* The children of parent (SHT_QUARK_ROOT: the top level), sorted. */
static int children(struct shtsql_hist *h, sht_quark parent, sht_quark **out,
		    size_t *n)
{
	const sht_quark *kids;

	*out = NULL;
	if (sht_state_attr_children(h->ss, parent, &kids, n) != SHT_OK)
		return SQLITE_ERROR;
	if (*n == 0)
		return SQLITE_OK;
	*out = sqlite3_malloc64(*n * sizeof **out);
	if (!*out)
		return SQLITE_NOMEM;
	memcpy(*out, kids, *n * sizeof **out);
	qsort(*out, *n, sizeof **out, cmp_quark);
	return SQLITE_OK;
}

/* A quark value: 1 and *q if it names an attribute, 0 if it names none,
 * -1 for a value of the wrong type. */
static int quark_arg(struct shtsql_hist *h, sqlite3_value *v, sht_quark *q)
{
	sqlite3_int64 x;
	double d;

	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		x = sqlite3_value_int64(v);
		break;
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		if (!(d >= 0 && d < (double)h->nattrs) || d != (double)(sqlite3_int64)d)
			return 0;
		x = (sqlite3_int64)d;
		break;
	case SQLITE_NULL:
		return 0;
	default:
		return -1;
	}
	if (x < 0 || (uint64_t)x >= h->nattrs)
		return 0;
	*q = (sht_quark)x;
	return 1;
}

/* One constraint's rows, in *s / *n. */
static int bind_one(struct shtsql_hist *h, const char *code, sqlite3_value *v,
		    sht_quark **s, size_t *n, char **err)
{
	sht_quark q;
	int r;

	*s = NULL;
	*n = 0;
	if (code[1] == 'n')                    /* parent IS NULL */
		return children(h, SHT_QUARK_ROOT, s, n);
	if (code[0] == 'p') {
		if (sqlite3_value_type(v) == SQLITE_NULL)
			return SQLITE_OK;
		if (sqlite3_value_type(v) != SQLITE_TEXT) {
			*err = sqlite3_mprintf("sht_attributes: path must be "
					       "compared with text");
			return SQLITE_ERROR;
		}
		if (code[1] == '=')
			return shtsql_path_quarks(h, (const char *)sqlite3_value_text(v),
						  (size_t)sqlite3_value_bytes(v), s, n);
		return shtsql_match(h, (const char *)sqlite3_value_text(v),
				    code[1] == 'L', s, n, err);
	}
	r = quark_arg(h, v, &q);
	if (r < 0) {
		*err = sqlite3_mprintf("sht_attributes: %s must be compared with "
				       "an integer", code[0] == 'q' ? "quark" : "parent");
		return SQLITE_ERROR;
	}
	if (r == 0)
		return SQLITE_OK;
	if (code[0] == 'P')
		return children(h, q, s, n);
	if (!(*s = sqlite3_malloc(sizeof q)))
		return SQLITE_NOMEM;
	**s = q;
	*n = 1;
	return SQLITE_OK;
}

static int at_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str,
		     int argc, sqlite3_value **argv)
{
	struct at_cursor *c = (struct at_cursor *)cur;
	struct at_vtab *vt = (struct at_vtab *)cur->pVtab;
	char *err = NULL;
	sht_quark *s;
	size_t n;
	int rc;

	(void)idx_num;
	reset(c);
	if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
		set_error(cur->pVtab, sqlite3_mprintf("sht_attributes: the "
						      "history file must be text (a path)"));
		return SQLITE_ERROR;
	}
	rc = shtsql_hist_get(vt->cache, (const char *)sqlite3_value_text(argv[0]),
			     "sht_attributes", &c->h, &err);
	for (int i = 1; rc == SQLITE_OK && i < argc && idx_str[2 * i]; i++) {
		rc = bind_one(c->h, idx_str + 2 * i, argv[i], &s, &n, &err);
		if (rc == SQLITE_OK)
			narrow_to(c, s, n);
	}
	if (rc == SQLITE_ERROR && !err)
		err = shtsql_errmsg("sht_attributes", "cannot read the attribute tree");
	if (rc != SQLITE_OK) {
		set_error(cur->pVtab, err);
		return rc;
	}
	if (!c->have_set)
		c->n = c->h->nattrs;
	return SQLITE_OK;
}

static int at_next(sqlite3_vtab_cursor *cur)
{
	((struct at_cursor *)cur)->at++;
	return SQLITE_OK;
}

static int at_eof(sqlite3_vtab_cursor *cur)
{
	struct at_cursor *c = (struct at_cursor *)cur;

	return c->at >= c->n;
}

static sht_quark row_quark(const struct at_cursor *c)
{
	return c->have_set ? c->set[c->at] : (sht_quark)c->at;
}

static int at_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct at_cursor *c = (struct at_cursor *)cur;
	sht_quark q = row_quark(c), parent;
	const char *s;
	size_t len;
	uint32_t plen;

	switch (col) {
	case COL_QUARK:
		sqlite3_result_int64(ctx, q);
		return SQLITE_OK;
	case COL_PARENT:
		if (sht_state_attr_parent(c->h->ss, q, &parent) != SHT_OK)
			break;
		if (parent == SHT_QUARK_ROOT)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, parent);
		return SQLITE_OK;
	case COL_NAME:
		if (sht_state_attr_name(c->h->ss, q, &s, &len) != SHT_OK)
			break;
		sqlite3_result_text64(ctx, s, len, SQLITE_TRANSIENT, SQLITE_UTF8);
		return SQLITE_OK;
	case COL_PATH:
		if (!(s = shtsql_path(c->h, q, &plen)))
			break;
		sqlite3_result_text(ctx, s, (int)plen, SQLITE_TRANSIENT);
		return SQLITE_OK;
	default:
		sqlite3_result_text(ctx, c->h->name, -1, SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	sqlite3_result_error(ctx, "sht_attributes: cannot read the attribute "
			     "tree (out of memory, or a damaged file)", -1);
	return SQLITE_ERROR;
}

static int at_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = row_quark((struct at_cursor *)cur);
	return SQLITE_OK;
}

static const sqlite3_module at_module = {
	.iVersion = 0,
	.xCreate = NULL,              /* eponymous only */
	.xConnect = at_connect,
	.xBestIndex = at_best_index,
	.xDisconnect = at_disconnect,
	.xDestroy = at_disconnect,
	.xOpen = at_open,
	.xClose = at_close,
	.xFilter = at_filter,
	.xNext = at_next,
	.xEof = at_eof,
	.xColumn = at_column,
	.xRowid = at_rowid,
};

static void cache_unref(void *aux)
{
	shtsql_cache_release(aux);
}

int shtsql_register_attributes(sqlite3 *db, struct shtsql_cache *c)
{
	c->users++;
	return sqlite3_create_module_v2(db, "sht_attributes", &at_module, c,
					cache_unref);
}
