/*
 * sqlt-run.c: run one SQL text with named parameters and collect its
 * rows as sorted lines, for comparing the extension with the oracle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlt.h"
#include "tap.h"

sqlite3 *sqlt_open(const char *module)
{
	sqlite3 *db;
	char *err = NULL;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		bail_out("open a database: %s", sqlite3_errmsg(db));
	sqlite3_enable_load_extension(db, 1);
	if (sqlite3_load_extension(db, module, NULL, &err) != SQLITE_OK)
		bail_out("load %s: %s", module, err);
	return db;
}

static void bind_time(sqlite3_stmt *st, const char *name, int64_t v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0)
		sqlite3_bind_int64(st, i, v);
}

static void bind_text(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0 && v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else if (i > 0)
		sqlite3_bind_null(st, i);
}

static void bind_all(sqlite3_stmt *st, const struct sqlt_params *pa)
{
	bind_text(st, ":file", pa->file);
	bind_time(st, ":t", pa->t);
	bind_time(st, ":t1", pa->t1);
	bind_time(st, ":t2", pa->t2);
	bind_time(st, ":r", pa->r);
	bind_time(st, ":q", pa->q);
	bind_time(st, ":q2", pa->q2);
	bind_text(st, ":p", pa->p);
	bind_text(st, ":p2", pa->p2);
	bind_text(st, ":g", pa->g);
	bind_text(st, ":l", pa->l);
}

/* One row as "type:value|type:value|...". */
static char *row_text(sqlite3_stmt *st)
{
	size_t cap = 256, len = 0;
	char *s = malloc(cap);

	for (int c = 0; s && c < sqlite3_column_count(st); c++) {
		char cell[64];
		const char *txt = cell;
		size_t n;

		switch (sqlite3_column_type(st, c)) {
		case SQLITE_INTEGER:
			snprintf(cell, sizeof cell, "i:%lld", (long long)sqlite3_column_int64(st, c));
			break;
		case SQLITE_FLOAT:
			snprintf(cell, sizeof cell, "r:%.17g", sqlite3_column_double(st, c));
			break;
		case SQLITE_NULL:
			snprintf(cell, sizeof cell, "n:");
			break;
		default:
			snprintf(cell, sizeof cell, "t:");
			txt = (const char *)sqlite3_column_text(st, c);
			break;
		}
		n = strlen(cell) + (txt == cell ? 0 : strlen(txt)) + 2;
		while (len + n + 1 > cap)
			s = realloc(s, cap *= 2);
		if (!s)
			break;
		len += (size_t)sprintf(s + len, "%s%s|", cell, txt == cell ? "" : txt);
	}
	if (!s)
		bail_out("out of memory");
	return s;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

long sqlt_rows(sqlite3 *db, const char *sql, const struct sqlt_params *pa,
	       char ***rows, char **err)
{
	sqlite3_stmt *st;
	long n = 0, cap = 64;
	char **r = malloc((size_t)cap * sizeof *r);
	int rc;

	*rows = NULL;
	*err = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
		free(r);
		return -1;
	}
	bind_all(st, pa);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap)
			r = realloc(r, (size_t)(cap *= 2) * sizeof *r);
		if (!r)
			bail_out("out of memory");
		r[n++] = row_text(st);
	}
	if (rc != SQLITE_DONE) {
		*err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		sqlt_rows_free(r, n);
		return -1;
	}
	sqlite3_finalize(st);
	qsort(r, (size_t)n, sizeof *r, cmp_line);
	*rows = r;
	return n;
}

void sqlt_rows_free(char **rows, long n)
{
	for (long i = 0; i < n; i++)
		free(rows[i]);
	free(rows);
}

char *sqlt_subst(const char *sql, const char *table)
{
	size_t cap = strlen(sql) * 2 + strlen(table) * 8 + 16, len = 0;
	char *out = malloc(cap);

	for (const char *p = sql; out && *p;) {
		if (strncmp(p, "{T}", 3) == 0) {
			size_t n = strlen(table);

			while (len + n + 1 > cap)
				out = realloc(out, cap *= 2);
			if (!out)
				break;
			memcpy(out + len, table, n);
			len += n;
			p += 3;
		} else {
			if (len + 2 > cap)
				out = realloc(out, cap *= 2);
			if (!out)
				break;
			out[len++] = *p++;
		}
	}
	if (!out)
		bail_out("out of memory");
	out[len] = '\0';
	return out;
}

const char *sqlt_text(sqlite3 *db, const char *sql, const struct sqlt_params *pa)
{
	static char buf[1024];
	sqlite3_stmt *st;

	buf[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return buf;
	if (pa)
		bind_all(st, pa);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, sizeof buf, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}
