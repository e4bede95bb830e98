/*
 * test-sync.c: trace synchronization (sht/sync.h, src/sync/) without
 * real traces:
 *
 *  - the convex hull against Trace Compass's own unit test (SyncTest:
 *    the formula and quality after each match of three scenarios);
 *  - decimals: fixed cases of BigDecimal's DECIMAL128 rounding, and
 *    random operations checked by Python's decimal module (an
 *    independent implementation of the same arithmetic), when python3
 *    is there;
 *  - transforms: the fast application against the exact formula (within
 *    the 2 ns Trace Compass allows, monotonic), slope bounds, inverse,
 *    composition;
 *  - the pending table against a plain list;
 *  - synthetic hosts (workload/knet.h) with known clocks: two hosts and a
 *    chain of three, the recovered transform within the latency bound,
 *    no packet received before it was sent; the result stored with a
 *    history and read back;
 *  - bad input: one trace, one host, no packets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"
#include "tap.h"
#include <shtgen/knet.h>

/* ---- Trace Compass's SyncTest --------------------------------------------- */

/* t1 is host 0 (the reference: "t1" < "t2"), t2 host 1. */
static void match(struct sht__hull *h, int from, int64_t sts, int to,
		  int64_t rts)
{
	sht__hull_add(h, (uint32_t)from, sts, (uint32_t)to, rts);
}

static int formula_is(struct sht__hull *h, const char *alpha,
		      const char *beta, sht_sync_quality q, const char *what)
{
	sht__dec a, b;
	char *as, *bs;
	int pass;

	sht__dec_init(&a);
	sht__dec_init(&b);
	sht__hull_formula(h, &a, &b);
	as = sht__dec_str(&a);
	bs = sht__dec_str(&b);
	pass = strcmp(as, alpha) == 0 && strcmp(bs, beta) == 0 &&
	       sht__hull_quality(h) == q;
	ok(pass, "%s: alpha %s beta %s %s", what, alpha, beta,
	   sht_sync_quality_name(q));
	if (!pass)
		diag("got alpha %s beta %s %s", as, bs,
		     sht_sync_quality_name(sht__hull_quality(h)));
	free(as);
	free(bs);
	sht__dec_clear(&a);
	sht__dec_clear(&b);
	return pass;
}

static void test_tc_fully_incremental(void)
{
	struct sht__hull *h = sht__hull_new(0, 1);
	sht_transform *t;

	is_int(sht__hull_quality(h), SHT_SYNC_ABSENT, "no match: absent");
	match(h, 1, 1, 0, 1);
	formula_is(h, "1", "0", SHT_SYNC_INCOMPLETE, "t2 1 -> t1 1");
	match(h, 0, 1, 1, 3);
	formula_is(h, "1", "0", SHT_SYNC_INCOMPLETE, "t1 1 -> t2 3");
	match(h, 1, 2, 0, 3);
	formula_is(h, "1", "0.5", SHT_SYNC_APPROXIMATE, "t2 2 -> t1 3");
	match(h, 0, 3, 1, 5);
	formula_is(h, "0.75", "1.25", SHT_SYNC_ACCURATE, "t1 3 -> t2 5");
	match(h, 0, 4, 1, 8);
	formula_is(h, "0.75", "1.25", SHT_SYNC_ACCURATE, "t1 4 -> t2 8");
	match(h, 1, 4, 0, 5);
	formula_is(h, "1.125", "0.875", SHT_SYNC_ACCURATE, "t2 4 -> t1 5");
	match(h, 1, 4, 0, 6);
	formula_is(h, "1.125", "0.875", SHT_SYNC_ACCURATE, "t2 4 -> t1 6");
	match(h, 0, 6, 1, 7);
	formula_is(h, "0.725", "1.275", SHT_SYNC_ACCURATE, "t1 6 -> t2 7");
	ok(sht__hull_transform(h, &t) == SHT_OK && t->kind == SHT__T_LINEAR,
	   "t2's transform is linear");
	sht_transform_free(t);
	match(h, 0, 7, 1, 4);
	formula_is(h, "0.375", "1.625", SHT_SYNC_ACCURATE,
		   "t1 7 -> t2 4 (hulls meet)");
	match(h, 1, 7, 0, 3);
	formula_is(h, "0.375", "1.625", SHT_SYNC_FAIL,
		   "t2 7 -> t1 3: fail, the last good formula kept");
	ok(sht__hull_transform(h, &t) == SHT_OK && t->kind == SHT__T_LINEAR,
	   "a failed pair keeps its last transform");
	sht_transform_free(t);
	sht__hull_free(h);
}

static void test_tc_one_hull_and_disjoint(void)
{
	struct sht__hull *h = sht__hull_new(0, 1);
	sht_transform *t;

	match(h, 0, 1, 1, 3);
	formula_is(h, "1", "0", SHT_SYNC_INCOMPLETE, "one hull 1");
	match(h, 0, 2, 1, 5);
	match(h, 0, 3, 1, 5);
	formula_is(h, "1", "0", SHT_SYNC_INCOMPLETE, "one hull 3");
	match(h, 0, 4, 1, 7);
	formula_is(h, "1", "0", SHT_SYNC_INCOMPLETE, "one hull 4");
	ok(sht__hull_transform(h, &t) == SHT_OK && t->kind == SHT__T_IDENTITY,
	   "an incomplete pair gives the identity");
	sht_transform_free(t);
	/* testDisjoint goes on with the other direction. */
	match(h, 1, 7, 0, 6);
	is_int(sht__hull_quality(h), SHT_SYNC_APPROXIMATE, "disjoint 5");
	match(h, 1, 8, 0, 6);
	is_int(sht__hull_quality(h), SHT_SYNC_APPROXIMATE, "disjoint 6");
	match(h, 1, 10, 0, 8);
	formula_is(h, "1", "2.5", SHT_SYNC_APPROXIMATE, "disjoint 7");
	sht__hull_free(h);
}

/* ---- the hull against brute force ------------------------------------------------ */

struct bpt {
	int64_t x, y;
	int above;                /* sent by the reference: above the line */
};

/* Sign of (q - p) x (r - p), q.x > p.x: > 0 if r is above the line pq. */
static int side(const struct bpt *p, const struct bpt *q, const struct bpt *r)
{
	__int128 c = ((__int128)q->x - p->x) * ((__int128)r->y - p->y) -
		     ((__int128)q->y - p->y) * ((__int128)r->x - p->x);

	return (c > 0) - (c < 0);
}

static uint64_t rnd(void);

/*
 * Random exchanges around a random clock line: the exact largest and
 * smallest slopes of a line that separates the packets (through two of
 * them, found by trying every pair) must lie within the algorithm's two
 * bounds.  Trace Compass's incremental bounds are not always the exact
 * ones (they can be looser); they are never tighter.
 */
static void test_hull_brute_force(void)
{
	int trials = 0, exact = 0, looser_ok = 1;

	for (int t = 0; t < 1500; t++) {
		struct bpt pts[48];
		int n = 4 + (int)(rnd() % 44), have = 0;
		struct sht__hull *h = sht__hull_new(0, 1);
		int64_t x = 1000000, off = (int64_t)(rnd() % 1000000);
		int64_t drift = (int64_t)(rnd() % 2001) - 1000;   /* ppm */
		__int128 mxn = 0, mxd = 1, mnn = 0, mnd = 1;
		sht__dec amax, amin, e, a, b;

		for (int i = 0; i < n; i++) {
			int64_t lat = 1000 + (int64_t)(rnd() % 50000);
			int dir = (int)(rnd() % 2);
			int64_t tx, y;

			x += 1 + (int64_t)(rnd() % 100000);
			tx = dir ? x - lat : x + lat;
			y = tx + tx / 1000000 * drift + off;
			pts[i] = (struct bpt){ x, y, !dir };
			if (dir)
				sht__hull_add(h, 1, y, 0, x);
			else
				sht__hull_add(h, 0, x, 1, y);
		}
		for (int i = 0; i < n; i++) {
			for (int j = 0; j < n; j++) {
				int good = pts[i].x < pts[j].x;
				__int128 num, den;

				for (int k = 0; k < n && good; k++) {
					int sd = side(&pts[i], &pts[j], &pts[k]);

					good = pts[k].above ? sd >= 0 : sd <= 0;
				}
				if (!good)
					continue;
				num = pts[j].y - pts[i].y;
				den = pts[j].x - pts[i].x;
				if (!have || num * mxd > mxn * den)
					mxn = num, mxd = den;
				if (!have || num * mnd < mnn * den)
					mnn = num, mnd = den;
				have = 1;
			}
		}
		if (!have || sht__hull_quality(h) != SHT_SYNC_ACCURATE) {
			sht__hull_free(h);
			continue;
		}
		trials++;
		sht__dec_init(&amax);
		sht__dec_init(&amin);
		sht__dec_init(&e);
		sht__dec_init(&a);
		sht__dec_init(&b);
		sht__hull_slopes(h, &amax, &amin);
		sht__dec_set_i64(&a, (int64_t)mxn);
		sht__dec_set_i64(&b, (int64_t)mxd);
		sht__dec_div_mc(&e, &a, &b);
		if (sht__dec_cmp(&e, &amax) > 0)
			looser_ok = 0;
		exact += sht__dec_cmp(&e, &amax) == 0;
		sht__dec_set_i64(&a, (int64_t)mnn);
		sht__dec_set_i64(&b, (int64_t)mnd);
		sht__dec_div_mc(&a, &a, &b);
		if (sht__dec_cmp(&a, &amin) < 0)
			looser_ok = 0;
		sht__dec_clear(&amax);
		sht__dec_clear(&amin);
		sht__dec_clear(&e);
		sht__dec_clear(&a);
		sht__dec_clear(&b);
		sht__hull_free(h);
	}
	ok(trials > 500 && looser_ok, "%d random exchanges: the exact extreme "
	   "slopes always lie within the algorithm's bounds", trials);
	ok(exact > trials / 2, "and the upper bound is exact in %d of them",
	   exact);
}

/* ---- decimals ----------------------------------------------------------------- */

static char *dec_op(const char *a, const char *b, char op)
{
	sht__dec x, y, r;
	char *s;

	sht__dec_init(&x);
	sht__dec_init(&y);
	sht__dec_init(&r);
	sht__dec_parse(&x, a);
	sht__dec_parse(&y, b);
	switch (op) {
	case '+': sht__dec_add(&r, &x, &y); break;
	case '-': sht__dec_sub(&r, &x, &y); break;
	case '*': sht__dec_mul(&r, &x, &y); break;
	case 'a': sht__dec_add_mc(&r, &x, &y); break;
	case 'm': sht__dec_mul_mc(&r, &x, &y); break;
	default: sht__dec_div_mc(&r, &x, &y); break;
	}
	s = sht__dec_str(&r);
	sht__dec_clear(&x);
	sht__dec_clear(&y);
	sht__dec_clear(&r);
	return s;
}

static void dec_is(const char *a, char op, const char *b, const char *want)
{
	char *got = dec_op(a, b, op);

	is_str(got, want, "%s %c %s", a, op, b);
	free(got);
}

static void test_dec_fixed(void)
{
	sht__dec d;

	dec_is("1", '/', "3", "0.3333333333333333333333333333333333");
	dec_is("2", '/', "3", "0.6666666666666666666666666666666667");
	dec_is("-2", '/', "3", "-0.6666666666666666666666666666666667");
	dec_is("1", '/', "8", "0.125");
	dec_is("10", '/', "4", "2.5");
	dec_is("1000", '/', "10", "100");
	/* Ties to even at the 34th digit. */
	dec_is("1234567890123456789012345678901234", 'a', "0.5",
	       "1234567890123456789012345678901234");
	dec_is("1234567890123456789012345678901235", 'a', "0.5",
	       "1234567890123456789012345678901236");
	dec_is("1234567890123456789012345678901234", 'a', "0.50000001",
	       "1234567890123456789012345678901235");
	dec_is("-1234567890123456789012345678901235", 'a', "-0.5",
	       "-1234567890123456789012345678901236");
	dec_is("99999999999999999999999999999999999", 'a', "0",
	       "100000000000000000000000000000000000");
	dec_is("1361214076535112167", 'm', "0.9999413783703139011056845831168394",
	       "1361134279947594020.57623541824572");
	dec_is("0.1", '+', "0.2", "0.3");
	dec_is("1", '-', "0.0000000000000000000000000000000000000001",
	       "0.9999999999999999999999999999999999999999");
	dec_is("-3", '*', "0.5", "-1.5");
	dec_is("5", '/', "0", "0");
	sht__dec_init(&d);
	ok(sht__dec_parse(&d, "-79796507913179.33347") == 0 &&
	   sht__dec_trunc_i64(&d) == -79796507913179LL,
	   "trunc toward zero (negative)");
	ok(sht__dec_parse(&d, "18446744073709551621") == 0 &&
	   sht__dec_trunc_i64(&d) == 5, "trunc keeps the low 64 bits");
	ok(sht__dec_parse(&d, "1e5") != 0 && sht__dec_parse(&d, "") != 0 &&
	   sht__dec_parse(&d, "1.2.3") != 0 && sht__dec_parse(&d, "-") != 0,
	   "parse refuses what is not plain decimal");
	ok(sht__dec_parse(&d, "007.500") == 0 && sht__dec_is_integer(&d) == 0,
	   "7.5 is not an integer");
	sht__dec_clear(&d);
}

static uint64_t rng_state = 0x5eed5eed;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A random decimal of up to 40 digits with a random point. */
static void random_dec(char *buf, size_t size)
{
	int nd = 1 + (int)(rnd() % 40), point = (int)(rnd() % (nd + 1));
	size_t o = 0;

	if (rnd() % 2)
		buf[o++] = '-';
	for (int i = 0; i < nd && o + 3 < size; i++) {
		if (i == point && i > 0)
			buf[o++] = '.';
		buf[o++] = (char)('0' + (i == 0 ? 1 + rnd() % 9 : rnd() % 10));
	}
	buf[o] = '\0';
}

/* Transforms applied by sht: synctraces' own over its time range, and
 * random slopes and offsets, at random times (Python checks them against
 * its port of Trace Compass's fast transform). */
static int write_transform_cases(FILE *f)
{
	const char *slopes[] = { "0.9999413783703139011056845831168394",
				 "1.000058625066383030723307598788165",
				 "3.5", "0.25", "7.000000000000000000000000000000001" };
	const char *offsets[] = { "79796507913179.33347660124688298171",
				  "-79801185988752.877651439554251", "0", "-12.5",
				  "1000000.999" };
	int n = 0;

	for (int k = 0; k < 5; k++) {
		sht_transform *t;

		if (sht_transform_create(slopes[k], offsets[k], &t) != SHT_OK)
			continue;
		for (int i = 0; i < 2000; i++) {
			/* within synctraces' 23 s, then anywhere after 2000 */
			int64_t ts = 1361214076525090092LL +
				     (int64_t)(rnd() % 23004992763ull);

			if (k >= 2)
				ts = 946684800000000000LL +
				     (int64_t)(rnd() % 1000000000000000000ull);
			fprintf(f, "T %s %s %lld %lld\n", slopes[k], offsets[k],
				(long long)ts,
				(long long)sht_transform_apply(t, ts));
			n++;
		}
		sht_transform_free(t);
	}
	return n;
}

/* Random operations, checked by python3's decimal module (prec 34,
 * ROUND_HALF_EVEN for the rounded ones, exact for the others). */
static void test_dec_python(void)
{
	const char *tmp = getenv("SHT_TMP"), *src = getenv("SHT_SRCDIR");
	const char ops[] = "+-*amd";
	char path[4096], cmd[8300], a[64], b[64];
	FILE *f;
	int n = 0, rc;

	if (!tmp || !src || system("python3 -c 'import decimal' 2>/dev/null")) {
		ok(1, "# SKIP python3 or SHT_TMP/SHT_SRCDIR missing");
		return;
	}
	snprintf(path, sizeof path, "%s/dec-cases.txt", tmp);
	f = fopen(path, "w");
	if (!f) {
		ok(0, "write %s", path);
		return;
	}
	n += write_transform_cases(f);
	for (int i = 0; i < 20000; i++) {
		char op = ops[rnd() % 6], *r;

		random_dec(a, sizeof a);
		random_dec(b, sizeof b);
		if (op == 'd' && strspn(b, "-0.") == strlen(b))
			continue;
		r = dec_op(a, b, op);
		fprintf(f, "%s %c %s %s\n", a, op, b, r);
		free(r);
		n++;
	}
	fclose(f);
	snprintf(cmd, sizeof cmd, "python3 '%s/tests/unit/sync-dec-oracle.py' "
		 "'%s'", src, path);
	rc = system(cmd);
	ok(rc == 0, "%d random decimal operations and transformed times agree "
	   "with python3's decimal module", n);
}

/* ---- transforms --------------------------------------------------------------- */

/* Trace Compass's precise transform: trunc(round(t * slope) + offset). */
static int64_t precise(const char *slope, const char *offset, int64_t t)
{
	sht__dec a, b, x;
	int64_t r;

	sht__dec_init(&a);
	sht__dec_init(&b);
	sht__dec_init(&x);
	sht__dec_parse(&a, slope);
	sht__dec_parse(&b, offset);
	sht__dec_set_i64(&x, t);
	sht__dec_mul_mc(&x, &x, &a);
	sht__dec_add(&x, &x, &b);
	r = sht__dec_trunc_i64(&x);
	sht__dec_clear(&a);
	sht__dec_clear(&b);
	sht__dec_clear(&x);
	return r;
}

/* Fast against precise over n times from start by step: error < 3 ns and
 * monotonic, as Trace Compass's TsTransformFastTest asks. */
static int check_fast(const char *slope, const char *offset, int64_t start,
		      int64_t step, int n)
{
	sht_transform *t;
	int64_t prev = 0, got, want;
	int good = 1;

	if (sht_transform_create(slope, offset, &t) != SHT_OK)
		return 0;
	for (int i = 0; i < n && good; i++) {
		int64_t ts = start + (int64_t)i * step;

		got = sht_transform_apply(t, ts);
		want = precise(slope, offset, ts);
		if (got - want > 2 || want - got > 2)
			good = 0;
		if (i > 0 && ((step > 0 && got < prev) || (step < 0 && got > prev)))
			good = 0;
		if (!good)
			diag("slope %s offset %s t=%lld: fast %lld precise %lld",
			     slope, offset, (long long)ts, (long long)got,
			     (long long)want);
		prev = got;
	}
	sht_transform_free(t);
	return good;
}

static void test_transforms(void)
{
	sht_transform *t = NULL, *u = NULL, *v = NULL;
	const char *slopes[] = { "0.000000001", "0.001", "0.9999413783703139011056845831168394",
				 "1.000058625066383030723307598788165",
				 "3.141592653589793", "1000", "1000000000" };
	int good = 1;

	for (size_t i = 0; i < sizeof slopes / sizeof *slopes; i++) {
		good &= check_fast(slopes[i], "0", (int64_t)1 << 30, 1, 1000);
		good &= check_fast(slopes[i], "0", (int64_t)1 << 30, -1, 1000);
		good &= check_fast(slopes[i], "54321", 1361214076525090092LL,
				   997, 2000);
	}
	ok(good, "fast transform within 2 ns of the exact one, monotonic");
	ok(check_fast("0.9999413783703139011056845831168394",
		      "79796507913179.33347660124688298171",
		      1361214076525090092LL, 1000003, 30000),
	   "synctraces' transform over its 23 s, fast within 2 ns");
	ok(sht_transform_create("-1", "0", &t) == SHT_ERR_INVALID &&
	   sht_transform_create("0.0000000001", "0", &t) == SHT_ERR_INVALID &&
	   sht_transform_create("2147483648", "0", &t) == SHT_ERR_INVALID &&
	   sht_transform_create("1e3", "0", &t) == SHT_ERR_INVALID,
	   "slopes outside [1e-9, 1e9] and non-decimals are refused");
	ok(sht_transform_create("1", "0", &t) == SHT_OK &&
	   sht_transform_is_identity(t) && sht_transform_apply(t, 42) == 42,
	   "slope 1 offset 0 is the identity");
	sht_transform_free(t);
	ok(sht_transform_create("1", "-250", &t) == SHT_OK &&
	   t->kind == SHT__T_CONSTANT && sht_transform_apply(t, 1000) == 750,
	   "slope 1 with an integer offset is a constant offset");
	sht_transform_free(t);
	ok(sht_transform_create("0.5", "100", &t) == SHT_OK &&
	   sht__transform_inverse(t, &u) == SHT_OK &&
	   strcmp(sht_transform_slope(u), "2") == 0 &&
	   strcmp(sht_transform_offset(u), "-200") == 0,
	   "inverse of 0.5 t + 100 is 2 t - 200");
	ok(u && sht__transform_compose(u, t, &v) == SHT_OK &&
	   strcmp(sht_transform_slope(v), "1") == 0 &&
	   strcmp(sht_transform_offset(v), "0") == 0,
	   "a transform composed with its inverse is slope 1 offset 0");
	ok(v && sht_transform_apply(v, 123456789) == 123456789,
	   "and maps t to t");
	sht_transform_free(t);
	sht_transform_free(u);
	sht_transform_free(v);
}

/* ---- the pending table ------------------------------------------------------- */

struct naive {
	struct sht__pkey k;
	int64_t ts;
};

static void test_pending(void)
{
	struct sht__pending p;
	struct naive *v = calloc(100000, sizeof(*v));
	size_t n = 0, peak = 0;
	int64_t ts = 0, got;
	int good = 1;

	sht__pending_init(&p);
	for (int i = 0; i < 200000 && good; i++) {
		struct sht__pkey k = { rnd() % 512, rnd() % 4, 0x5018 };
		int op = (int)(rnd() % 10);
		size_t j;
		int found;

		ts += (int64_t)(rnd() % 3);
		for (j = 0; j < n; j++)
			if (!memcmp(&v[j].k, &k, sizeof k))
				break;
		found = sht__pending_find(&p, &k, &got);
		if (found != (j < n) || (found && got != v[j].ts))
			good = 0;
		if (op < 5 && j == n && n < 100000) {
			good &= sht__pending_add(&p, &k, ts) == 0;
			v[n++] = (struct naive){ k, ts };
		} else if (op < 9 && j < n) {
			sht__pending_remove(&p, &k);
			memmove(&v[j], &v[j + 1], (n - j - 1) * sizeof(*v));
			n--;
		} else if (op == 9) {
			int64_t before = ts - (int64_t)(rnd() % 200);
			size_t w = 0;

			sht__pending_drop_before(&p, before);
			for (j = 0; j < n; j++)
				if (v[j].ts >= before)
					v[w++] = v[j];
			n = w;
		}
		if (p.live != n)
			good = 0;
		if (n > peak)
			peak = n;
	}
	ok(good, "pending table agrees with a plain list over 200000 "
	   "operations (up to %zu waiting)", peak);
	ok((size_t)(p.tail - p.head) <= 2 * p.cap && p.cap <= 4096,
	   "its ring stays small (%zu slots)", p.cap);
	sht__pending_free(&p);
	free(v);
}

/* ---- synthetic hosts ----------------------------------------------------------- */

struct host_run {
	sht_source src;
	sht_transform *t;
};

/* Compute the synchronization of p's hosts; *s the result. */
static sht_err sync_hosts(const shtgen_knet_params *p, sht_sync **s)
{
	sht_source src[SHTGEN_KNET_MAX_HOSTS];
	sht_sync_input in[SHTGEN_KNET_MAX_HOSTS] = { { 0 } };
	char host[SHTGEN_KNET_MAX_HOSTS][16];
	sht_err err = SHT_OK;
	uint32_t h;

	for (h = 0; h < p->hosts && err == SHT_OK; h++) {
		err = shtgen_knet_source(p, h, &src[h]);
		snprintf(host[h], sizeof host[h], "host-%02u", h);
		in[h] = (sht_sync_input){ &src[h], host[h], host[h],
					  SHT_NET_LAYOUT_LTTNG_2_9 };
	}
	if (err == SHT_OK)
		err = sht_sync_compute(in, p->hosts, s);
	for (uint32_t i = 0; i < h; i++)
		shtgen_knet_source_free(&src[i]);
	return err;
}

struct pkt {
	uint64_t key;
	int64_t ts;               /* corrected */
};

static int cmp_pkt(const void *a, const void *b)
{
	const struct pkt *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Read every host through its transform (sht_transform_source): the
 * receive of a packet never comes before its send.  Returns the number
 * of packets received too early; *pairs the packets seen at both ends.
 */
static int check_hosts(const shtgen_knet_params *p, const sht_sync *s,
		       uint64_t *pairs)
{
	size_t cap = 1 << 16, ns = 0, nr = 0;
	struct pkt *snd = malloc(cap * sizeof(*snd)), *rcv = malloc(cap * sizeof(*rcv));
	int bad = 0;

	*pairs = 0;
	for (uint32_t h = 0; h < p->hosts; h++) {
		sht_sync_trace_info ti;
		sht_source raw, fixed;
		sht_event ev;
		sht_field f;

		sht_sync_trace(s, h, &ti);
		shtgen_knet_source(p, h, &raw);
		sht_transform_source(&raw, ti.transform, &fixed);
		while (fixed.ops->next(fixed.src, &ev) == SHT_OK) {
			int out = strcmp(ev.name, "inet_sock_local_out") == 0;
			struct pkt x;

			if (!out && strcmp(ev.name, "inet_sock_local_in") != 0)
				continue;
			sht_event_field(&ev, "seq", &f);
			x.key = f.v.u << 32;
			sht_event_field(&ev, "ack_seq", &f);
			x.key |= f.v.u;
			x.ts = ev.ts;
			if ((out ? ns : nr) == cap)
				continue;
			if (out)
				snd[ns++] = x;
			else
				rcv[nr++] = x;
		}
		sht_transform_source_free(&fixed);
		shtgen_knet_source_free(&raw);
	}
	qsort(snd, ns, sizeof(*snd), cmp_pkt);
	qsort(rcv, nr, sizeof(*rcv), cmp_pkt);
	for (size_t i = 0, j = 0; i < ns && j < nr;) {
		if (snd[i].key < rcv[j].key) {
			i++;
		} else if (snd[i].key > rcv[j].key) {
			j++;
		} else {
			(*pairs)++;
			if (rcv[j].ts < snd[i].ts)
				bad++;
			i++;
			j++;
		}
	}
	free(snd);
	free(rcv);
	return bad;
}

/* The corrected time of host h's clock reading c, against the truth:
 * how far host h's transform puts it from host 0's clock (= true time). */
static int64_t transform_error(const shtgen_knet_params *p, const sht_sync *s,
			       uint32_t h, sht_time c)
{
	sht_sync_trace_info ti;
	sht_transform *t;
	int64_t e;

	sht_sync_trace(s, h, &ti);
	sht_transform_copy(ti.transform, &t);
	e = sht_transform_apply(t, c) - shtgen_knet_true_time(p, h, c);
	sht_transform_free(t);
	return e;
}

static void test_hosts(uint32_t hosts, uint64_t events, int64_t drift)
{
	shtgen_knet_params p;
	sht_sync *s = NULL;
	sht_sync_stats st;
	sht_sync_trace_info ti;
	uint64_t pairs;
	int64_t worst = 0, e, span;
	int bad;

	shtgen_knet_params_init(&p);
	p.hosts = hosts;
	p.k.events = events;
	p.drift_ppb = drift;
	if (!ok(sync_hosts(&p, &s) == SHT_OK, "%u hosts, drift %lld ppb: "
		"synchronized", hosts, (long long)drift)) {
		diag("%s", sht_errmsg());
		return;
	}
	sht_sync_stats_get(s, &st);
	is_int(sht_sync_quality_get(s), SHT_SYNC_ACCURATE,
	       "%u hosts: quality accurate (%llu matches)", hosts,
	       (unsigned long long)st.matches);
	sht_sync_trace(s, 0, &ti);
	ok(ti.reference && sht_transform_is_identity(ti.transform),
	   "host 0 (first id) is the reference, identity");
	/* Within the packets' span, a bound of the hulls: the transform is
	 * off by at most the largest latency (plus rounding). */
	span = (int64_t)events * p.k.mean_gap;
	for (uint32_t h = 1; h < hosts; h++) {
		for (int k = 1; k < 20; k++) {
			sht_time c = shtgen_knet_clock(&p, h, p.k.start +
						     span / 20 * k);

			e = transform_error(&p, s, h, c);
			if (e < 0)
				e = -e;
			if (e > worst)
				worst = e;
		}
	}
	ok(worst <= (int64_t)p.lat_max * (hosts - 1) + 2,
	   "%u hosts: corrected clocks within %u ns per hop of the truth "
	   "(worst %lld ns)", hosts, p.lat_max, (long long)worst);
	bad = check_hosts(&p, s, &pairs);
	ok(bad == 0 && pairs > 100, "%u hosts: none of %llu packets is "
	   "received before it is sent on the corrected clocks", hosts,
	   (unsigned long long)pairs);
	ok(st.peak_pending < 200, "waiting packets stay few (%llu)",
	   (unsigned long long)st.peak_pending);
	sht_sync_free(s);
}

/* Drift estimates improve with the trace length: the slope error of a
 * long trace is well below the drift. */
static void test_slope(void)
{
	shtgen_knet_params p;
	sht_sync *s = NULL;
	sht_sync_trace_info ti;
	sht__dec got, want, one, diff, lim;

	shtgen_knet_params_init(&p);
	p.k.events = 2000000;
	p.drift_ppb = 200000;          /* 200 ppm */
	if (sync_hosts(&p, &s) != SHT_OK) {
		ok(0, "long run synchronized");
		return;
	}
	sht__dec_init(&got);
	sht__dec_init(&want);
	sht__dec_init(&one);
	sht__dec_init(&diff);
	sht__dec_init(&lim);
	sht_sync_trace(s, 1, &ti);
	sht__dec_parse(&got, sht_transform_slope(ti.transform));
	/* host 1 runs 1 + 200e-6 as fast: its slope is 1 / 1.0002 */
	sht__dec_set_i64(&one, 1);
	sht__dec_parse(&want, "1.0002");
	sht__dec_div_mc(&want, &one, &want);
	sht__dec_sub(&diff, &got, &want);
	if (sht__dec_sgn(&diff) < 0)
		sht__dec_neg(&diff, &diff);
	sht__dec_parse(&lim, "0.00002");
	ok(sht__dec_cmp(&diff, &lim) < 0, "0.8 s, 200 ppm: slope %s within "
	   "2e-5 of 1/1.0002", sht_transform_slope(ti.transform));
	sht__dec_clear(&got);
	sht__dec_clear(&want);
	sht__dec_clear(&one);
	sht__dec_clear(&diff);
	sht__dec_clear(&lim);
	sht_sync_free(s);
}

/* ---- the kernel network events of each layout ------------------------------------ */

/* A knet source whose packets look like another layout's events. */
struct relabel {
	sht_source in;
	const char *out_name, *in_name, *prefix;
	sht_field_type (*inner)(const sht_event *, const char *, sht_field *);
	const void *inner_data;
};

static struct relabel *cur_relabel;

static sht_field_type rl_field(const sht_event *ev, const char *name,
			       sht_field *out)
{
	const struct relabel *r = cur_relabel;
	sht_event e = *ev;
	size_t n = strlen(r->prefix);

	e.data = r->inner_data;
	e.field = r->inner;
	if (strncmp(name, r->prefix, n) != 0) {
		out->type = SHT_FIELD_NONE;
		return SHT_FIELD_NONE;      /* only the layout's paths */
	}
	return sht_event_field(&e, name + n, out);
}

static sht_err rl_next(void *p, sht_event *ev)
{
	struct relabel *r = p;
	sht_err err = r->in.ops->next(r->in.src, ev);

	if (err != SHT_OK)
		return err;
	cur_relabel = r;
	if (!strcmp(ev->name, "inet_sock_local_out") ||
	    !strcmp(ev->name, "inet_sock_local_in")) {
		ev->name = ev->name[16] == 'o' ? r->out_name : r->in_name;
		r->inner = ev->field;
		r->inner_data = ev->data;
		ev->field = rl_field;
	}
	return SHT_OK;
}

static sht_err rl_seek(void *p, uint64_t pos)
{
	struct relabel *r = p;

	return r->in.ops->seek(r->in.src, pos);
}

static const sht_source_ops rl_ops = { rl_next, rl_seek, NULL, NULL, NULL };

/* The 2-host exchange with its packets as in_name / out_name events whose
 * key is under prefix, read as layout: the quality and host 1's slope. */
static sht_sync_quality sync_as(const char *out_name, const char *in_name,
				const char *prefix, sht_net_layout layout,
				char *slope, size_t size)
{
	shtgen_knet_params p;
	struct relabel r[2];
	sht_source src[2];
	sht_sync_input in[2];
	sht_sync *s = NULL;
	sht_sync_trace_info ti;
	sht_sync_quality q = SHT_SYNC_ABSENT;

	shtgen_knet_params_init(&p);
	p.k.events = 100000;
	for (int h = 0; h < 2; h++) {
		r[h] = (struct relabel){ { 0 }, out_name, in_name, prefix,
					 NULL, NULL };
		shtgen_knet_source(&p, (uint32_t)h, &r[h].in);
		src[h] = (sht_source){ &rl_ops, &r[h] };
		in[h] = (sht_sync_input){ &src[h], NULL, h ? "b" : "a", layout };
	}
	slope[0] = '\0';
	if (sht_sync_compute(in, 2, &s) == SHT_OK) {
		q = sht_sync_quality_get(s);
		sht_sync_trace(s, 1, &ti);
		snprintf(slope, size, "%s", sht_transform_slope(ti.transform));
	}
	sht_sync_free(s);
	for (int h = 0; h < 2; h++)
		shtgen_knet_source_free(&r[h].in);
	return q;
}

static void test_layouts(void)
{
	char want[64], got[64];
	const char *p29 = "network_header.*.transport_header.tcp.";
	const char *p20 = "transport_fields.thtype_tcp.";

	ok(sync_as("inet_sock_local_out", "inet_sock_local_in", "",
		   SHT_NET_LAYOUT_NONE, want, sizeof want) == SHT_SYNC_ACCURATE,
	   "inet_sock events are matched in any trace (slope %s)", want);
	ok(sync_as("net_dev_queue", "net_if_receive_skb", p29,
		   SHT_NET_LAYOUT_LTTNG_2_9, got, sizeof got) ==
		   SHT_SYNC_ACCURATE && !strcmp(got, want),
	   "2.9: net_dev_queue / net_if_receive_skb with network_header "
	   "paths give the same transform");
	ok(sync_as("net_dev_queue", "net_if_receive_skb", p20,
		   SHT_NET_LAYOUT_LTTNG_2_7, got, sizeof got) ==
		   SHT_SYNC_ACCURATE && !strcmp(got, want),
	   "2.7: net_if_receive_skb with transport_fields paths");
	ok(sync_as("net_dev_queue", "netif_receive_skb", p20,
		   SHT_NET_LAYOUT_LTTNG_2_0, got, sizeof got) ==
		   SHT_SYNC_ACCURATE && !strcmp(got, want),
	   "2.0: netif_receive_skb with transport_fields paths");
	ok(sync_as("net_dev_queue", "netif_receive_skb", p20,
		   SHT_NET_LAYOUT_LTTNG_2_7, got, sizeof got) !=
		   SHT_SYNC_ACCURATE,
	   "2.7 does not take 2.0's receive event name");
	ok(sync_as("net_dev_queue", "net_if_receive_skb", p29,
		   SHT_NET_LAYOUT_NONE, got, sizeof got) == SHT_SYNC_ABSENT,
	   "a trace that is not an LTTng kernel trace ignores them");
	ok(sync_as("net_dev_queue", "net_if_receive_skb", p20,
		   SHT_NET_LAYOUT_LTTNG_2_9, got, sizeof got) == SHT_SYNC_ABSENT,
	   "2.9 does not read 2.0's field paths");
	is_int(sht_net_layout_from_env("kernel", "lttng-modules", "2", "12"),
	       SHT_NET_LAYOUT_LTTNG_2_9, "env: lttng-modules 2.12 is 2.9");
	is_int(sht_net_layout_from_env("\"kernel\"", "\"lttng-modules\"",
				       "2", "8"), SHT_NET_LAYOUT_LTTNG_2_7,
	       "env: 2.8 (quoted) is 2.7");
	is_int(sht_net_layout_from_env("kernel", "lttng-modules", "2", "1"),
	       SHT_NET_LAYOUT_LTTNG_2_0, "env: 2.1 is 2.0");
	is_int(sht_net_layout_from_env("ust", "lttng-ust", "2", "12"),
	       SHT_NET_LAYOUT_NONE, "env: a user-space trace: none");
	is_int(sht_net_layout_from_env("kernel", "perf", "1", "0"),
	       SHT_NET_LAYOUT_NONE, "env: perf: none");
}

/* ---- storing ---------------------------------------------------------------------- */

static void test_store(void)
{
	const char *tmp = getenv("SHT_TMP");
	char path[4096];
	shtgen_knet_params p;
	sht_state *ss = NULL;
	sht_state_opts so;
	sht_sync *s = NULL, *r = NULL;
	sht_sync_trace_info a, b;
	sht_sync_pair_info pa, pb;
	sht_err err;

	snprintf(path, sizeof path, "%s/stored.sht", tmp ? tmp : ".");
	shtgen_knet_params_init(&p);
	p.k.events = 100000;
	p.hosts = 3;
	if (sync_hosts(&p, &s) != SHT_OK) {
		ok(0, "3 hosts synchronized");
		return;
	}
	sht_state_opts_init(&so);
	so.provider = "test";
	err = sht_state_create(path, 0, &so, &ss);
	ok(err == SHT_OK && sht_sync_store(s, ss) == SHT_OK,
	   "a synchronization is stored with a history");
	ok(sht_sync_store(s, ss) == SHT_ERR_INVALID,
	   "a second one is refused");
	ok(sht_state_add_section(ss, 2, 1, "x", 1) == SHT_ERR_INVALID,
	   "the state system's section kinds are refused");
	ok(sht_state_finish(ss, 10) == SHT_OK, "history finished");
	sht_state_close(ss);
	ss = NULL;
	ok(sht_state_open(path, NULL, &ss) == SHT_OK &&
	   sht_sync_stored(ss, &r) == SHT_OK, "read back");
	ok(r && sht_sync_count(r) == 3 && sht_sync_pair_count(r) == 2 &&
	   sht_sync_quality_get(r) == sht_sync_quality_get(s),
	   "three traces, two pairs, the same quality");
	for (size_t i = 0; r && i < 3; i++) {
		sht_sync_trace(s, i, &a);
		sht_sync_trace(r, i, &b);
		ok(!strcmp(a.name, b.name) && !strcmp(a.host, b.host) &&
		   a.reference == b.reference && a.synced == b.synced &&
		   !strcmp(sht_transform_slope(a.transform),
			   sht_transform_slope(b.transform)) &&
		   !strcmp(sht_transform_offset(a.transform),
			   sht_transform_offset(b.transform)) &&
		   a.transform->kind == b.transform->kind,
		   "trace %zu: name, host, flags and transform kept", i);
	}
	ok(r && sht_sync_pair(s, 1, &pa) == SHT_OK &&
	   sht_sync_pair(r, 1, &pb) == SHT_OK && pa.matches == pb.matches &&
	   !strcmp(pa.accuracy, pb.accuracy) && !strcmp(pa.slope, pb.slope),
	   "pairs kept");
	sht_sync_free(r);
	sht_state_close(ss);
	ss = NULL;
	r = NULL;
	sht_state_opts_init(&so);
	ok(sht_state_create(path, 0, &so, &ss) == SHT_OK &&
	   sht_state_finish(ss, 1) == SHT_OK, "a history without it");
	sht_state_close(ss);
	ok(sht_state_open(path, NULL, &ss) == SHT_OK &&
	   sht_sync_stored(ss, &r) == SHT_NOT_FOUND, "has none stored");
	sht_state_close(ss);
	sht_sync_free(s);
}

/* ---- bad input --------------------------------------------------------------------- */

static void test_bad_input(void)
{
	shtgen_kgen_params k;
	sht_source a, b;
	sht_sync_input in[2];
	sht_sync *s = NULL;
	sht_sync_trace_info ti;
	sht_sync_stats st;

	shtgen_kgen_params_init(&k);
	k.events = 20000;
	shtgen_kgen_source(&k, &a);
	k.seed = 2;
	shtgen_kgen_source(&k, &b);
	in[0] = (sht_sync_input){ &a, "a", "host-a", SHT_NET_LAYOUT_LTTNG_2_9 };
	in[1] = (sht_sync_input){ &b, "b", "host-b", SHT_NET_LAYOUT_LTTNG_2_9 };
	ok(sht_sync_compute(in, 2, &s) == SHT_OK &&
	   sht_sync_quality_get(s) == SHT_SYNC_ABSENT &&
	   sht_sync_pair_count(s) == 0, "no network events: quality absent");
	sht_sync_trace(s, 1, &ti);
	sht_sync_stats_get(s, &st);
	ok(sht_transform_is_identity(ti.transform) && !ti.synced &&
	   !ti.reference && st.events == 40000 && st.packets == 0,
	   "identity transforms, every event read, no packet");
	sht_sync_free(s);
	s = NULL;
	ok(sht_sync_compute(in, 1, &s) == SHT_OK &&
	   sht_sync_quality_get(s) == SHT_SYNC_ABSENT &&
	   sht_sync_count(s) == 1, "one trace: absent");
	sht_sync_free(s);
	s = NULL;
	in[1].host = "host-a";
	a.ops->seek(a.src, 0);
	b.ops->seek(b.src, 0);
	ok(sht_sync_compute(in, 2, &s) == SHT_OK &&
	   sht_sync_quality_get(s) == SHT_SYNC_ABSENT, "one host: absent");
	sht_sync_free(s);
	s = NULL;
	ok(sht_sync_compute(in, 0, &s) == SHT_ERR_INVALID,
	   "no trace: invalid");
	in[0].host = NULL;
	ok(sht_sync_compute(in, 2, &s) == SHT_ERR_INVALID,
	   "no host id: invalid");
	shtgen_kgen_source_free(&a);
	shtgen_kgen_source_free(&b);
}

int main(void)
{
	test_tc_fully_incremental();
	test_tc_one_hull_and_disjoint();
	test_hull_brute_force();
	test_dec_fixed();
	test_dec_python();
	test_transforms();
	test_pending();
	test_hosts(2, 300000, 50000);
	test_hosts(2, 300000, -80000);
	test_hosts(3, 200000, 30000);
	test_slope();
	test_layouts();
	test_store();
	test_bad_input();
	return done_testing();
}
