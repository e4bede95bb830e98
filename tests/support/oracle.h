/*
 * oracle.h: brute-force oracle and random history generator shared by the
 * tests of the store (test-tree-*, test-faults-*, test-load, test-crash,
 * test-pipeline); oracle.c, in the test-support library.
 *
 * The oracle is an array of every interval given to the builder, in
 * insertion order (non-decreasing end time), plus an index by
 * (quark, start) for point lookups.  Every query result of the tree is
 * checked against it:
 *
 *   single (q, t)   the oracle's interval of q containing t, or none;
 *   full t          for every quark, the same, in quark order;
 *   2D              every selected interval intersecting [t1, t2]
 *                   (resolution 0) or containing a sample time, sorted
 *                   by (start, quark).
 *
 * Queries on a builder that is still inserting see a prefix of the
 * insertion order.  The checks therefore take a visibility window
 * [lo, hi): intervals with insertion index < lo must be visible, those
 * with index >= hi must not be, those in between may be (an insert that
 * ran concurrently with the query).  A finished tree uses lo = hi = n.
 */
#ifndef SHT_TEST_ORACLE_H
#define SHT_TEST_ORACLE_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "now.h"
#include "rng.h"
#include "scratch.h"

/* ---- interval formatting and comparison -------------------------------- */

int orc_iv_equal(const sht_interval *a, const sht_interval *b);

/* Human-readable interval for diagnostics (strings shortened). */
const char *orc_iv_str(const sht_interval *iv, char *buf, size_t n);

/* ---- diagnostics with a budget ------------------------------------------ */

/*
 * Mismatch reports are printed as TAP comments ("# ...") on stdout, at
 * most ORC_DIAG_MAX per orc_diag_reset(), so that a broken tree does not
 * flood the log.  Thread-safe enough for the tests: worker threads use
 * their own orc_errlog instead.
 */
#define ORC_DIAG_MAX 8

void orc_diag_reset(void);

typedef struct orc_errlog {
	unsigned left;       /* messages still to keep */
	size_t errors;       /* all mismatches seen */
	char buf[4096];      /* kept messages, one per line */
	size_t len;
} orc_errlog;

void orc_errlog_init(orc_errlog *l);

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void orc_fail(orc_errlog *l, const char *fmt, ...);

/* Print a worker's kept messages as TAP comments. */
void orc_errlog_print(const orc_errlog *l);

/* ---- the oracle --------------------------------------------------------- */

#define ORC_NONE SIZE_MAX

typedef struct orc {
	sht_time start, end;    /* history bounds (create / finish) */
	sht_interval *ivs;      /* insertion order; strings owned */
	size_t n, cap;
	size_t *byq;            /* indices sorted by (quark, start) */
	sht_quark *qs;          /* distinct quarks, ascending */
	size_t *qlo;            /* qs[i]'s intervals: byq[qlo[i] .. qlo[i+1]) */
	size_t nq;
	int64_t *prefmax;       /* prefmax[i]: largest quark of ivs[0..i), -1 */
	size_t n_strings, string_bytes;
} orc;

void orc_init(orc *o, sht_time start, sht_time end);

void orc_free(orc *o);

void *orc_xmalloc(size_t n);

/* Append a copy of iv (string copied, NUL-terminated). */
void orc_add(orc *o, const sht_interval *iv);

/* Build the lookup index; call after the order is final. */
void orc_index(orc *o);

size_t orc_lookup(const orc *o, sht_quark q, sht_time t);

/* ---- checks ------------------------------------------------------------ */

/* Visibility window, see the file comment. */
typedef struct orc_vis {
	size_t lo, hi;
	int builder;            /* 1: a builder in progress (for RANGE rules) */
	uint64_t quark_count;   /* reader: info.quark_count */
	sht_time tmin, tmax;    /* reader: info.start, info.end */
} orc_vis;

orc_vis orc_vis_all(const orc *o, uint64_t quark_count);

/* Builder in progress: the first lo intervals must be visible, none from
 * index hi on. */
orc_vis orc_vis_prefix(const orc *o, size_t lo, size_t hi);

/*
 * Check a single query's answer.  Returns 1 if right, 0 (and reports) if
 * wrong.  With allow_err, any negative code other than a crash-like
 * inconsistency is accepted (used on corrupted files: an error is fine, a
 * wrong answer is not).
 */
int orc_check_single(const orc *o, const orc_vis *v,
		     sht_quark q, sht_time t, sht_err rc,
		     const sht_result *res, int allow_err,
		     orc_errlog *log, const char *what);

/* Check a full query's answer at t. */
int orc_check_full(const orc *o, const orc_vis *v, sht_time t,
		   sht_err rc, const sht_result *res,
		   int allow_err, orc_errlog *log,
		   const char *what);

/* ---- 2D queries ---------------------------------------------------------- */

/* Check a 2D answer; the result must be exactly the selected intervals
 * (within the visibility window), sorted by (start, quark), or by
 * (quark, start) if q->order is SHT_ORDER_QUARK. */
int orc_check_2d(const orc *o, const orc_vis *v,
		 const sht_query2d *q, sht_err rc,
		 const sht_result *res, int allow_err,
		 orc_errlog *log, const char *what);

/* ---- random histories --------------------------------------------------- */

/* Value-type mix, in percent (the remainder is null). */
typedef struct orc_vmix {
	unsigned i32, i64, dbl, str;
	unsigned big_strings;   /* 64 KiB / 100 KiB strings still allowed */
	uint32_t block_size;    /* strings near this size are also made */
} orc_vmix;

orc_vmix orc_vmix_default(uint32_t block_size, unsigned big_strings);

/* Scratch for generated strings (largest: 100 KiB or a block + 1). */
typedef struct orc_gen {
	struct rng *rng;
	orc_vmix mix;
	char *buf;
	size_t buf_cap;
} orc_gen;

void orc_gen_init(orc_gen *g, struct rng *rng, orc_vmix mix);

void orc_gen_free(orc_gen *g);

double orc_double_from_bits(uint64_t b);

sht_value orc_gen_value(orc_gen *g);

/*
 * Tile [s, e] for quark q with about m intervals: cut points are
 * multiples of grid after s (so many intervals share end times), and
 * with probability short_pct a cut is followed by a run of length-1
 * intervals.  Values from g.  Appends to o (unordered).
 */
void orc_gen_tiling(orc *o, orc_gen *g, sht_quark q, sht_time s,
		    sht_time e, size_t m, sht_time grid,
		    unsigned short_pct);

/* Builder order (end, ties shuffled) and the lookup index. */
void orc_seal(orc *o, struct rng *r);

/*
 * Distinct quarks, ascending: 0 .. n_dense-1 plus n_sparse random ones
 * over the whole quark space (with n_sparse >= 4: always SHT_QUARK_MAX,
 * SHT_QUARK_MAX - 1, 2^31 and 2^31 - 1).  out holds n_dense + n_sparse.
 * Returns the count.
 */
size_t orc_make_quarks(struct rng *r, sht_quark *out,
		       size_t n_dense, size_t n_sparse);

/*
 * A mixed history on [start, start + span]: n_dense + n_sparse quarks,
 * each tiling the whole range with 1 .. max_m intervals (cuts anywhere,
 * some runs of length-1 intervals), values of every type.  Sealed.
 */
void orc_wl_mixed(orc *o, struct rng *r, uint32_t block_size,
		  sht_time start, sht_time span, size_t n_dense,
		  size_t n_sparse, size_t max_m,
		  unsigned big_strings);

#endif /* SHT_TEST_ORACLE_H */
