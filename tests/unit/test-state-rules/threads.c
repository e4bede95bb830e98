/*
 * threads.c: test-state-rules, rule 20: queries from reader threads while one thread
 * builds, then on the opened file.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "state-rules.h"

/* ---- 20. queries from other threads -------------------------------------- */

/*
 * One thread builds: at t = 10 k (k = 1 .. K) it sets "n" to long k, and
 * touches x/<k % 50> now and then.  Reader threads meanwhile query at
 * random t <= sht_state_end(): "n" at t must be [10 k, ...] = k (null
 * before 10), the full query must hold one interval per quark containing
 * t, and a range query of "n" must step k by k.  Then the same on the
 * opened file from several threads.
 */

#define TH_K 20000
#define TH_READERS 3
#define TH_X 50

typedef struct th_ctx {
	sht_state *ss;
	sht_quark n;
	atomic_int done;
	uint64_t nattrs;             /* fixed before the readers start */
	int finished;                /* 1: history finished, end fixed */
} th_ctx;

typedef struct th_reader {
	th_ctx *c;
	pthread_t tid;
	uint64_t seed;
	long queries, errors;
	char first[256];
} th_reader;

static void th_err(th_reader *r, const char *fmt, ...) TAP_PRINTF(2, 3);
static void th_err(th_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->errors++ == 0) {
		va_start(ap, fmt);
		vsnprintf(r->first, sizeof r->first, fmt, ap);
		va_end(ap);
	}
}

/* "n" at t: the interval starts at 10 floor(t / 10) (0 before 10). */
static void th_check_n(th_reader *r, const sht_interval *iv, sht_time t)
{
	sht_time k = t / 10, s0 = k ? 10 * k : 0;

	if (iv->quark != r->c->n || iv->start != s0 || iv->end < t ||
	    iv->end > (k ? s0 + 9 : 9) ||
	    (k == 0 ? iv->value.type != SHT_TYPE_NULL
		    : (iv->value.type != SHT_TYPE_INT64 ||
		       iv->value.u.i64 != k)))
		th_err(r, "n at %" PRId64 ": q%" PRIu32 " [%" PRId64 ", %"
		       PRId64 "] type %d", t, iv->quark, iv->start, iv->end,
		       (int)iv->value.type);
}

static void *th_read(void *arg)
{
	th_reader *r = arg;
	th_ctx *c = r->c;
	sht_result *res = sht_result_create();
	struct rng rng;
	int last = 0;

	rng_seed(&rng, r->seed);
	while (!last) {
		sht_time e, t, t2;
		sht_err rc;
		size_t i, cnt;

		last = c->finished ? r->queries >= 3000
				   : atomic_load(&c->done);
		e = sht_state_end(c->ss);
		t = rng_range(&rng, 0, e);
		r->queries++;
		switch (rng_below(&rng, 3)) {
		case 0:
			rc = sht_state_query(c->ss, c->n, t, res);
			if (rc != SHT_OK || sht_result_count(res) != 1)
				th_err(r, "single at %" PRId64 ": %s", t,
				       sht_err_name(rc));
			else
				th_check_n(r, sht_result_at(res, 0), t);
			break;
		case 1:
			rc = sht_state_query_full(c->ss, t, res);
			cnt = sht_result_count(res);
			if (rc != SHT_OK || cnt != c->nattrs) {
				th_err(r, "full at %" PRId64 ": %s, %zu items",
				       t, sht_err_name(rc), cnt);
				break;
			}
			for (i = 0; i < cnt; i++) {
				const sht_interval *iv = sht_result_at(res, i);

				if (iv->quark != i || iv->start > t ||
				    iv->end < t) {
					th_err(r, "full at %" PRId64 ": item %zu"
					       " q%" PRIu32 " [%" PRId64 ", %"
					       PRId64 "]", t, i, iv->quark,
					       iv->start, iv->end);
					break;
				}
			}
			th_check_n(r, sht_result_at(res, c->n), t);
			break;
		default:
			t2 = rng_range(&rng, t, t + 500 < e ? t + 500 : e);
			rc = sht_state_query_range(c->ss, c->n, t, t2,
						   rng_below(&rng, 2) ? 0 : 7,
						   res);
			cnt = sht_result_count(res);
			if (rc != SHT_OK || cnt == 0) {
				th_err(r, "range [%" PRId64 ", %" PRId64
				       "]: %s", t, t2, sht_err_name(rc));
				break;
			}
			th_check_n(r, sht_result_at(res, 0), t);
			for (i = 1; i < cnt; i++) {
				const sht_interval *a = sht_result_at(res, i - 1);
				const sht_interval *b = sht_result_at(res, i);

				if (b->start <= a->end || b->start > t2 ||
				    b->value.type != SHT_TYPE_INT64 ||
				    b->value.u.i64 != b->start / 10) {
					th_err(r, "range [%" PRId64 ", %" PRId64
					       "]: item %zu [%" PRId64 ", %"
					       PRId64 "]", t, t2, i, b->start,
					       b->end);
					break;
				}
			}
		}
	}
	sht_result_destroy(res);
	return NULL;
}

static void th_run_readers(th_ctx *c, th_reader *rd, int n, uint64_t seed)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&rd[i], 0, sizeof rd[i]);
		rd[i].c = c;
		rd[i].seed = seed + (uint64_t)i;
		if (pthread_create(&rd[i].tid, NULL, th_read, &rd[i]) != 0)
			bail_out("pthread_create failed");
	}
}

static void th_join(fx *f, th_reader *rd, int n, const char *phase)
{
	int i;

	for (i = 0; i < n; i++) {
		pthread_join(rd[i].tid, NULL);
		if (!ok(rd[i].errors == 0, "%s: %s reader %d: %ld queries, "
			"all consistent", f->bname, phase, i, rd[i].queries))
			diag("  %ld errors, first: %s", rd[i].errors,
			     rd[i].first);
	}
}

void sc_threads(sht_backend b)
{
	fx f;
	th_ctx c;
	th_reader rd[4];
	sht_quark x[TH_X];
	int k, i, bad = 0;

	fx_create_opts(&f, b, 0, NULL, 0, 4096);
	memset(&c, 0, sizeof c);
	c.ss = f.ss;
	c.n = Q(&f, "n");
	for (i = 0; i < TH_X; i++) {
		char p[16];

		snprintf(p, sizeof p, "x/%d", i);
		x[i] = Q(&f, p);
	}
	c.nattrs = sht_state_attr_count(f.ss);
	atomic_store(&c.done, 0);
	th_run_readers(&c, rd, TH_READERS, 77);
	for (k = 1; k <= TH_K; k++) {
		sht_value v = I64(k);
		sht_err rc = sht_state_modify(f.ss, 10 * k, c.n, &v);

		if (rc == SHT_OK && k % 3 == 0) {
			v = I32(k);
			rc = sht_state_modify(f.ss, 10 * k, x[k % TH_X], &v);
		}
		if (rc == SHT_OK && k % 101 == 0)
			rc = sht_state_clear(f.ss, 10 * k, x[0] - 1);
		if (rc != SHT_OK && bad++ == 0)
			diag("  change at %d: %s", 10 * k, sht_err_name(rc));
	}
	atomic_store(&c.done, 1);
	th_join(&f, rd, TH_READERS, "while building");
	ok(bad == 0, "%s: %d changes while readers query", f.bname, TH_K);
	finish(&f, 10 * TH_K + 5);
	if (fx_reopen(&f)) {
		c.ss = f.ss;
		c.finished = 1;
		th_run_readers(&c, rd, 4, 99);
		th_join(&f, rd, 4, "opened");
	}
	fx_done(&f);
}
