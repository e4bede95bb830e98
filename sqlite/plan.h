/*
 * plan.h: how sht_intervals turns SQL constraints into history queries
 * (plan.c), separate from the virtual table's plumbing (vt-intervals.c).
 *
 * xBestIndex (shtsql_plan_index) chooses which constraints the history
 * tree answers and writes them, in argument order, into idxStr: two
 * characters per argument, the column then the operator.  xFilter gives
 * the same string and the values to shtsql_plan_bind, which folds them
 * into a plan: bounds on start and end, a set or range of quarks, the
 * resolution.  shtsql_plan_rows then says which query runs.
 */
#ifndef SHTSQL_PLAN_H
#define SHTSQL_PLAN_H

#include "shtsql.h"

/* Columns of sht_intervals, in declaration order. */
enum {
	SHTSQL_COL_QUARK, SHTSQL_COL_PATH, SHTSQL_COL_START, SHTSQL_COL_END,
	SHTSQL_COL_TYPE, SHTSQL_COL_VALUE, SHTSQL_COL_FILE,
	SHTSQL_COL_RESOLUTION,
};

#define SHTSQL_INTERVALS_SCHEMA                                              \
	"CREATE TABLE x(quark INTEGER, path TEXT, start INTEGER, "           \
	"\"end\" INTEGER, type TEXT, value ANY, file TEXT HIDDEN, "          \
	"resolution INTEGER HIDDEN)"

/* What a bound plan asks of the history. */
struct shtsql_plan {
	const char *file;        /* the file argument (NULL: fixed table) */
	sht_time smin, smax;     /* start in [smin, smax] */
	sht_time emin, emax;     /* end in [emin, emax] */
	sht_time resolution;     /* 0: every interval */
	int empty;               /* a constraint no row can meet */
	int have_set;            /* quarks limited to set[0 .. nset) */
	sht_quark *set;          /* sorted, distinct (sqlite3_malloc'd) */
	size_t nset;
	sht_quark qlo, qhi;      /* quark range (always applied) */
};

/* xBestIndex: fill info (argument order, costs) and *idx_str.  fixed:
 * the table was created over one file (no file argument needed).
 * Returns SQLITE_OK, SQLITE_CONSTRAINT (the file argument is not usable
 * in this plan) or SQLITE_ERROR with *err set. */
int shtsql_plan_index(sqlite3_index_info *info, int fixed, char **err);

/* xFilter: bind the values; h may be NULL until the file is known, and
 * the file is bound first.  Returns SQLITE_OK or an error with *err. */
int shtsql_plan_file(const char *idx_str, int argc, sqlite3_value **argv,
		     const char **file, char **err);
int shtsql_plan_bind(struct shtsql_plan *p, struct shtsql_hist *h,
		     const char *idx_str, int argc, sqlite3_value **argv,
		     char **err);
void shtsql_plan_free(struct shtsql_plan *p);

/* 1 if iv meets every bound of p (the row filter after the query). */
static inline int shtsql_plan_keeps(const struct shtsql_plan *p,
				    const sht_interval *iv)
{
	return iv->start >= p->smin && iv->start <= p->smax &&
	       iv->end >= p->emin && iv->end <= p->emax &&
	       iv->quark >= p->qlo && iv->quark <= p->qhi;
}

#endif /* SHTSQL_PLAN_H */
