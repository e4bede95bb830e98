/*
 * plan.c: the constraints of a query on sht_intervals, from xBestIndex
 * (which ones the history tree answers, at what estimated cost) to
 * xFilter (their values folded into bounds and quark sets).
 *
 * Time constraints become bounds on start and end.  An interval is in the
 * answer if start <= smax and end >= emin (it meets [emin, smax]); start >=
 * smin implies end >= smin, and end <= emax implies start <= emax, so the
 * history is asked for the intervals meeting
 *
 *     [lo, hi] = [max(emin, smin), min(smax, emax)]   (clipped to the history)
 *
 * which is one state query when lo == hi ("start <= T AND end >= T"), a
 * 2D query otherwise; the rows are then filtered on the exact bounds.
 * Quark and path constraints become a quark set (=, IN, GLOB, LIKE) and a
 * quark range (<, <=, >, >=), intersected.
 *
 * Values: times and quarks are compared with integers; a real is rounded
 * the way the comparison would be, NULL matches nothing, text or a blob
 * is an error (a timestamp written as a string is a mistake worth
 * reporting, not a silent empty answer).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* Operator codes in idxStr. */
#define OP_EQ '='
#define OP_IN 'i'
#define OP_GT '>'
#define OP_GE 'g'
#define OP_LT '<'
#define OP_LE 'l'
#define OP_GLOB 'G'
#define OP_LIKE 'L'

/* Column codes in idxStr. */
static const char col_code[] = { 'q', 'p', 's', 'e', 't', 'v', 'f', 'r' };

#define MAX_ARGS 60

static char op_code(const sqlite3_index_info *info, int i, int col)
{
	switch (info->aConstraint[i].op) {
	case SQLITE_INDEX_CONSTRAINT_EQ: return OP_EQ;
	case SQLITE_INDEX_CONSTRAINT_GT: return OP_GT;
	case SQLITE_INDEX_CONSTRAINT_GE: return OP_GE;
	case SQLITE_INDEX_CONSTRAINT_LT: return OP_LT;
	case SQLITE_INDEX_CONSTRAINT_LE: return OP_LE;
	case SQLITE_INDEX_CONSTRAINT_GLOB:
		return col == SHTSQL_COL_PATH ? OP_GLOB : 0;
	case SQLITE_INDEX_CONSTRAINT_LIKE:
		return col == SHTSQL_COL_PATH ? OP_LIKE : 0;
	default: return 0;
	}
}

/* The operator sht_intervals takes for this constraint, or 0. */
static char usable_op(sqlite3_index_info *info, int i)
{
	int col = info->aConstraint[i].iColumn;
	char op = op_code(info, i, col);

	switch (col) {
	case SHTSQL_COL_QUARK:
	case SHTSQL_COL_START:
	case SHTSQL_COL_END:
		return op == OP_GLOB || op == OP_LIKE ? 0 : op;
	case SHTSQL_COL_PATH:
		return op == OP_EQ || op == OP_GLOB || op == OP_LIKE ? op : 0;
	case SHTSQL_COL_RESOLUTION:
		return op == OP_EQ ? op : 0;
	default:
		return 0;
	}
}

/* What the chosen constraints pin, for the cost estimate. */
struct pins {
	int s_lo, s_hi, e_lo, e_hi;    /* bounds on start / end */
	int q_one, q_few, q_glob, q_range;
	int s_hi_at, e_lo_at;          /* the constraint giving each bound
	                                  (-1: none or several) */
};

/* Bounds that make [lo, hi] one instant: the state at T. */
static int is_point(const struct pins *p)
{
	return (p->s_hi && p->e_lo) || (p->s_lo && p->s_hi) ||
	       (p->e_lo && p->e_hi);
}

static int is_window(const struct pins *p)
{
	return p->s_lo || p->s_hi || p->e_lo || p->e_hi;
}

static void pin(struct pins *p, int col, char op, int at)
{
	int lo = op == OP_EQ || op == OP_GT || op == OP_GE;
	int hi = op == OP_EQ || op == OP_LT || op == OP_LE;

	switch (col) {
	case SHTSQL_COL_START:
		if (hi)
			p->s_hi_at = p->s_hi ? -1 : at;
		p->s_lo |= lo;
		p->s_hi |= hi;
		break;
	case SHTSQL_COL_END:
		if (lo)
			p->e_lo_at = p->e_lo ? -1 : at;
		p->e_lo |= lo;
		p->e_hi |= hi;
		break;
	case SHTSQL_COL_QUARK:
		if (op == OP_EQ)
			p->q_one = 1;
		else if (op == OP_IN)
			p->q_few = 1;
		else
			p->q_range = 1;
		break;
	case SHTSQL_COL_PATH:
		if (op == OP_EQ)
			p->q_one = 1;
		else if (op == OP_IN)
			p->q_few = 1;
		else
			p->q_glob = 1;
		break;
	default: break;
	}
}

/* Rows and cost: a state query of one attribute costs about one node
 * per tree level; a full query the whole state; a 2D query what the
 * window holds.  Only the ratios matter to the planner. */
static void estimate(sqlite3_index_info *info, const struct pins *p)
{
	double attrs = p->q_one ? 1 : p->q_few ? 10 : p->q_glob ? 200
		       : p->q_range ? 2000 : 100000;
	double rows = attrs * (is_point(p) ? 1 : is_window(p) ? 100 : 10000);

	info->estimatedRows = (sqlite3_int64)rows;
	info->estimatedCost = 10.0 + rows;
	if (is_point(p) && p->q_one)
		info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
}

/* What EXPLAIN QUERY PLAN shows after the codes: the query the history
 * tree will run and what selects its attributes. */
static char *describe(sqlite3_index_info *info, const char *codes,
		      const struct pins *p, int res)
{
	const char *time = is_point(p) ? "state at T"
			   : is_window(p) ? "2D query over [T1, T2]"
			   : "2D query over the whole history";
	sqlite3_value *a = NULL, *b = NULL;

	/* "start <= A AND end >= B" is the state at T when A = B: say
	 * which when both are constants, else that it depends. */
	if (!(p->s_lo && p->s_hi) && !(p->e_lo && p->e_hi) &&
	    p->s_hi && p->e_lo) {
		time = "state at T if T1 = T2, else 2D query over [T1, T2]";
		if (p->s_hi_at >= 0 && p->e_lo_at >= 0 &&
		    sqlite3_vtab_rhs_value(info, p->s_hi_at, &a) == SQLITE_OK &&
		    sqlite3_vtab_rhs_value(info, p->e_lo_at, &b) == SQLITE_OK &&
		    a && b)
			time = sqlite3_value_type(a) == SQLITE_INTEGER &&
			       sqlite3_value_type(b) == SQLITE_INTEGER &&
			       sqlite3_value_int64(a) == sqlite3_value_int64(b)
			       ? "state at T" : "2D query over [T1, T2]";
	}

	return sqlite3_mprintf("%s %s%s%s%s%s%s%s%s", codes, time,
			       p->q_one ? ", one attribute (=)" : "",
			       p->q_few ? ", attributes IN (...)" : "",
			       p->q_glob ? ", attributes by pattern" : "",
			       p->q_range ? ", quark range" : "",
			       res ? ", at a resolution" : "",
			       p->s_lo || p->s_hi ? "; start bounded" : "",
			       p->e_lo || p->e_hi ? "; end bounded" : "");
}

static int take(sqlite3_index_info *info, int i, char col, char op,
		char *codes, int *nargs)
{
	if (*nargs >= MAX_ARGS)
		return 0;
	codes[2 * *nargs] = col;
	codes[2 * *nargs + 1] = op;
	info->aConstraintUsage[i].argvIndex = ++*nargs;
	/* LIKE is matched ASCII case-insensitively here; SQLite checks it
	 * again (PRAGMA case_sensitive_like may make it stricter). */
	info->aConstraintUsage[i].omit = op != OP_LIKE;
	return 1;
}

int shtsql_plan_index(sqlite3_index_info *info, int fixed, char **err)
{
	char codes[2 * MAX_ARGS + 1];
	struct pins p;
	int nargs = 0, file = -1, file_unusable = 0, res = 0;

	memset(&p, 0, sizeof p);
	p.s_hi_at = p.e_lo_at = -1;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->iColumn != SHTSQL_COL_FILE ||
		    c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (c->usable)
			file = i;
		else
			file_unusable = 1;
	}
	if (!fixed) {
		if (file < 0 && file_unusable)
			return SQLITE_CONSTRAINT;
		if (file < 0) {
			*err = sqlite3_mprintf("sht_intervals: no history file: "
					       "write sht_intervals('FILE.sht')");
			return SQLITE_ERROR;
		}
		take(info, file, 'f', OP_EQ, codes, &nargs);
	}
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];
		char op;

		if (!c->usable || !(op = usable_op(info, i)) || nargs >= MAX_ARGS)
			continue;
		if (op == OP_EQ && (c->iColumn == SHTSQL_COL_QUARK ||
				    c->iColumn == SHTSQL_COL_PATH) &&
		    sqlite3_vtab_in(info, i, -1)) {
			sqlite3_vtab_in(info, i, 1);
			op = OP_IN;
		}
		if (take(info, i, col_code[c->iColumn], op, codes, &nargs)) {
			pin(&p, c->iColumn, op, i);
			res |= c->iColumn == SHTSQL_COL_RESOLUTION;
		}
	}
	codes[2 * nargs] = '\0';
	info->idxStr = describe(info, codes, &p, res);
	if (!info->idxStr)
		return SQLITE_NOMEM;
	info->needToFreeIdxStr = 1;
	estimate(info, &p);
	return SQLITE_OK;
}

/* ---- binding values ------------------------------------------------------ */

static char *type_error(const char *col, sqlite3_value *v)
{
	return sqlite3_mprintf("sht_intervals: %s must be compared with %s, "
			       "not %s", col,
			       strcmp(col, "path") == 0 ? "text" : "an integer",
			       sqlite3_value_type(v) == SQLITE_TEXT ? "text"
			       : sqlite3_value_type(v) == SQLITE_BLOB ? "a blob"
			       : sqlite3_value_type(v) == SQLITE_FLOAT ? "a real"
			       : "an integer");
}

/* Narrow [*lo, *hi] by "column OP v".  Returns 1, 0 if no row can match
 * (NULL, NaN, out of range), -1 for a value of the wrong type. */
static int narrow(sqlite3_value *v, char op, int64_t *lo, int64_t *hi)
{
	int64_t x;
	double d, r;

	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		x = sqlite3_value_int64(v);
		switch (op) {
		case OP_GT:
			if (x == INT64_MAX)
				return 0;
			x++;
			/* fall through */
		case OP_GE:
			*lo = x > *lo ? x : *lo;
			return 1;
		case OP_LT:
			if (x == INT64_MIN)
				return 0;
			x--;
			/* fall through */
		case OP_LE:
			*hi = x < *hi ? x : *hi;
			return 1;
		default:          /* EQ */
			*lo = x > *lo ? x : *lo;
			*hi = x < *hi ? x : *hi;
			return 1;
		}
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		if (isnan(d))
			return 0;
		/* The integers the comparison accepts, as a closed range. */
		switch (op) {
		case OP_GT: r = floor(d) + 1; break;
		case OP_GE: r = ceil(d); break;
		case OP_LT: r = ceil(d) - 1; break;
		case OP_LE: r = floor(d); break;
		default:
			if (d != floor(d))
				return 0;
			r = d;
			break;
		}
		if (op == OP_GT || op == OP_GE || op == OP_EQ) {
			if (r >= 9223372036854775808.0)
				return 0;
			if (r > -9223372036854775808.0) {
				x = (int64_t)r;
				*lo = x > *lo ? x : *lo;
			}
		}
		if (op == OP_LT || op == OP_LE || op == OP_EQ) {
			if (r < -9223372036854775808.0)
				return 0;
			if (r < 9223372036854775808.0) {
				x = (int64_t)r;
				*hi = x < *hi ? x : *hi;
			}
		}
		return 1;
	case SQLITE_NULL:
		return 0;
	default:
		return -1;
	}
}

int shtsql_plan_file(const char *idx_str, int argc, sqlite3_value **argv,
		     const char **file, char **err)
{
	*file = NULL;
	if (!idx_str || idx_str[0] != 'f')
		return SQLITE_OK;          /* a table created over one file */
	if (argc < 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
		*err = sqlite3_mprintf("sht_intervals: the history file must be "
				       "text (a path), not %s",
				       argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL
				       ? "NULL" : "a number or a blob");
		return SQLITE_ERROR;
	}
	*file = (const char *)sqlite3_value_text(argv[0]);
	if (!*file)
		return SQLITE_NOMEM;
	return SQLITE_OK;
}

/* ---- quark sets ------------------------------------------------------------ */

static int cmp_quark(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;

	return x < y ? -1 : x > y;
}

/* Sort and drop duplicates. */
static size_t uniq(sht_quark *q, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(q, n, sizeof *q, cmp_quark);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || q[k - 1] != q[i])
			q[k++] = q[i];
	return k;
}

/* p's set becomes its intersection with s[0..n) (sorted, distinct);
 * s is taken over. */
static void intersect(struct shtsql_plan *p, sht_quark *s, size_t n)
{
	size_t i = 0, j = 0, k = 0;

	if (!p->have_set) {
		p->have_set = 1;
		p->set = s;
		p->nset = n;
		return;
	}
	while (i < p->nset && j < n) {
		if (p->set[i] < s[j])
			i++;
		else if (p->set[i] > s[j])
			j++;
		else {
			p->set[k++] = p->set[i];
			i++;
			j++;
		}
	}
	p->nset = k;
	sqlite3_free(s);
}

struct qbuf {
	sht_quark *q;
	size_t n, cap;
};

static int qbuf_add(struct qbuf *b, sht_quark q)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		sht_quark *g = sqlite3_realloc64(b->q, cap * sizeof *g);

		if (!g)
			return SQLITE_NOMEM;
		b->q = g;
		b->cap = cap;
	}
	b->q[b->n++] = q;
	return SQLITE_OK;
}

/* Quark of an integer value, or -1 if it names no attribute. */
static int64_t quark_of(sqlite3_value *v, uint64_t nattrs)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	if (narrow(v, OP_EQ, &lo, &hi) != 1 || lo != hi || lo < 0 ||
	    (uint64_t)lo >= nattrs)
		return -1;
	return lo;
}

/* One value of a quark or path (=, IN) constraint into b. */
static int set_value(struct shtsql_hist *h, char col, sqlite3_value *v,
		     struct qbuf *b, char **err)
{
	sht_quark *found = NULL;
	size_t n = 0;
	int64_t q;
	int rc;

	if (sqlite3_value_type(v) == SQLITE_NULL)
		return SQLITE_OK;              /* = NULL: no match */
	if (col == 'q') {
		if (sqlite3_value_type(v) != SQLITE_INTEGER &&
		    sqlite3_value_type(v) != SQLITE_FLOAT) {
			*err = type_error("quark", v);
			return SQLITE_ERROR;
		}
		q = quark_of(v, h->nattrs);
		return q < 0 ? SQLITE_OK : qbuf_add(b, (sht_quark)q);
	}
	if (sqlite3_value_type(v) != SQLITE_TEXT) {
		*err = type_error("path", v);
		return SQLITE_ERROR;
	}
	rc = shtsql_path_quarks(h, (const char *)sqlite3_value_text(v),
				(size_t)sqlite3_value_bytes(v), &found, &n);
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++)
		rc = qbuf_add(b, found[i]);
	sqlite3_free(found);
	return rc;
}

static int bind_set(struct shtsql_plan *p, struct shtsql_hist *h, char col,
		    char op, sqlite3_value *v, char **err)
{
	struct qbuf b = { NULL, 0, 0 };
	sqlite3_value *x;
	int rc;

	if (op == OP_IN) {
		rc = sqlite3_vtab_in_first(v, &x);
		while (rc == SQLITE_OK && x) {
			rc = set_value(h, col, x, &b, err);
			if (rc == SQLITE_OK)
				rc = sqlite3_vtab_in_next(v, &x);
		}
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	} else {
		rc = set_value(h, col, v, &b, err);
	}
	if (rc != SQLITE_OK) {
		sqlite3_free(b.q);
		return rc;
	}
	intersect(p, b.q, uniq(b.q, b.n));
	return SQLITE_OK;
}

static int bind_match(struct shtsql_plan *p, struct shtsql_hist *h, char op,
		      sqlite3_value *v, char **err)
{
	sht_quark *q = NULL;
	size_t n = 0;
	int rc;

	if (sqlite3_value_type(v) == SQLITE_NULL) {
		p->empty = 1;
		return SQLITE_OK;
	}
	if (sqlite3_value_type(v) != SQLITE_TEXT) {
		*err = type_error("path", v);
		return SQLITE_ERROR;
	}
	rc = shtsql_match(h, (const char *)sqlite3_value_text(v), op == OP_LIKE,
			  &q, &n, err);
	if (rc == SQLITE_OK)
		intersect(p, q, n);
	return rc;
}

/* ---- the plan ---------------------------------------------------------------- */

static int bind_time(struct shtsql_plan *p, char col, char op,
		     sqlite3_value *v, char **err)
{
	int r = col == 's' ? narrow(v, op, &p->smin, &p->smax)
			   : narrow(v, op, &p->emin, &p->emax);

	if (r < 0) {
		*err = type_error(col == 's' ? "start" : "end", v);
		return SQLITE_ERROR;
	}
	if (r == 0)
		p->empty = 1;
	return SQLITE_OK;
}

static int bind_quark_range(struct shtsql_plan *p, char op, sqlite3_value *v,
			    char **err)
{
	int64_t lo = 0, hi = INT64_MAX;
	int r = narrow(v, op, &lo, &hi);

	if (r < 0) {
		*err = type_error("quark", v);
		return SQLITE_ERROR;
	}
	if (r == 0 || hi < 0 || lo > (int64_t)SHT_QUARK_MAX) {
		p->empty = 1;
		return SQLITE_OK;
	}
	if (lo > (int64_t)p->qlo)
		p->qlo = (sht_quark)lo;
	if (hi < (int64_t)p->qhi)
		p->qhi = (sht_quark)hi;
	return SQLITE_OK;
}

static int bind_resolution(struct shtsql_plan *p, sqlite3_value *v, char **err)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;

	if (sqlite3_value_type(v) == SQLITE_NULL)
		return SQLITE_OK;
	if ((sqlite3_value_type(v) != SQLITE_INTEGER &&
	     sqlite3_value_type(v) != SQLITE_FLOAT) ||
	    narrow(v, OP_EQ, &lo, &hi) != 1 || lo != hi || lo < 0) {
		*err = sqlite3_mprintf("sht_intervals: the resolution must be a "
				       "whole number of ns >= 0 (0: every "
				       "interval)");
		return SQLITE_ERROR;
	}
	p->resolution = lo;
	return SQLITE_OK;
}

int shtsql_plan_bind(struct shtsql_plan *p, struct shtsql_hist *h,
		     const char *idx_str, int argc, sqlite3_value **argv,
		     char **err)
{
	int rc = SQLITE_OK;

	memset(p, 0, sizeof *p);
	p->smin = p->emin = SHT_TIME_MIN;
	p->smax = p->emax = SHT_TIME_MAX;
	p->qlo = 0;
	p->qhi = h->nattrs ? (sht_quark)(h->nattrs - 1) : 0;
	if (!h->nattrs)
		p->empty = 1;
	for (int i = 0; rc == SQLITE_OK && idx_str && idx_str[2 * i] &&
			idx_str[2 * i] != ' '; i++) {
		char col = idx_str[2 * i], op = idx_str[2 * i + 1];

		if (i >= argc)
			return SQLITE_INTERNAL;
		switch (col) {
		case 'f':
			break;
		case 's':
		case 'e':
			rc = bind_time(p, col, op, argv[i], err);
			break;
		case 'r':
			rc = bind_resolution(p, argv[i], err);
			break;
		case 'q':
			if (op == OP_EQ || op == OP_IN)
				rc = bind_set(p, h, col, op, argv[i], err);
			else
				rc = bind_quark_range(p, op, argv[i], err);
			break;
		default:          /* 'p' */
			if (op == OP_EQ || op == OP_IN)
				rc = bind_set(p, h, col, op, argv[i], err);
			else
				rc = bind_match(p, h, op, argv[i], err);
			break;
		}
	}
	if (rc == SQLITE_OK && p->have_set && p->nset == 0)
		p->empty = 1;
	return rc;
}

void shtsql_plan_free(struct shtsql_plan *p)
{
	sqlite3_free(p->set);
	p->set = NULL;
	p->nset = 0;
}
