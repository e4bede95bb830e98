/*
 * tree-oracle.h: shared by the files of test-tree-oracle (random
 * histories through the builder, every query checked against the
 * oracle; the plan is main.c's).
 */
#ifndef SHT_TEST_TREE_ORACLE_H
#define SHT_TEST_TREE_ORACLE_H

#include "sht/sht.h"
#include "tap.h"
#include "oracle.h"

/* SHT_TEST_SCALE: multiplies the query counts (main.c sets it). */
extern double g_scale;

/* ---- configurations and efforts ---------------------------------------- */

typedef struct config {
	sht_variant variant;
	uint32_t block_size;
	uint32_t max_children;
} config;

typedef struct effort {
	size_t singles;      /* random single queries */
	size_t boundaries;   /* intervals whose 4 boundaries are queried */
	size_t fulls;        /* full queries */
	size_t twods;        /* 2D queries */
} effort;

/* ---- building and verification (verify.c) ----------------------------- */

const char *variant_name(sht_variant v);

sht_err build(const char *path, const orc *o, const config *c,
	      const char *name);

/* cache: the node cache's bytes (0: the default); VERIFY_MAPPED: the
 * reader maps the file (sht_reader_opts.mapped). */
#define VERIFY_MAPPED SIZE_MAX
void verify(const char *path, const orc *o, const config *c,
	    struct rng *r, const effort *e, size_t cache,
	    const char *name);

/* ---- workloads (workloads.c) ------------------------------------------- */

/* The value kind of wl_values, on tilings of nq quarks: distinct int64s
 * over the whole range, a few doubles (NaN payloads, -0.0, inf), or a
 * few strings from empty to blobs (longer than B/16). */
enum { V_DISTINCT, V_DOUBLES, V_STRINGS };

void wl_random(orc *o, struct rng *r, const config *c);

void wl_small(orc *o, struct rng *r, const config *c);

void wl_extreme(orc *o, struct rng *r, const config *c, sht_time start,
		sht_time end);

void wl_full_at_max(orc *o, struct rng *r, const config *c, size_t n);

void wl_all_at_start(orc *o, struct rng *r, const config *c, size_t n);

void wl_equal_ends(orc *o, struct rng *r, const config *c, size_t nq);

void wl_long_short(orc *o, struct rng *r, const config *c,
		   size_t n_short);

void wl_one_quark(orc *o, struct rng *r, const config *c, size_t n);

void wl_many_quarks(orc *o, struct rng *r, const config *c, size_t n,
		    int spread);

void wl_huge_quarks(orc *o, struct rng *r, const config *c, size_t n);

void wl_kernel_like(orc *o, struct rng *r, size_t n, size_t nq,
		    sht_time gap, sht_time start);

void wl_values(orc *o, struct rng *r, const config *c, size_t nq,
	       size_t per_quark, int kind);

void wl_tiny(orc *o, struct rng *r, const config *c, size_t n);

/* ---- sampled 2D queries (sampled.c) ----------------------------------- */

/* Histories with many records per quark in a node, in every layout, and
 * sampled 2D queries on them (grids aligned on interval bounds, tiny and
 * huge resolutions), against the oracle and through cursors. */
void sampled_2d(struct rng *r);

#endif /* SHT_TEST_TREE_ORACLE_H */
