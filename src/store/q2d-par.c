/*
 * q2d-par.c: a sampled 2D query of a reader on several threads
 * (sht_reader_query_2d_threads).
 *
 * The samples t1, t1 + r, ... (and t2) are cut into runs of consecutive
 * samples, one per thread; piece i asks the same query over
 * [t1 + k_i r, last sample of the run], whose samples are exactly the
 * run's (the last piece ends at t2, as the query does).  The pieces read
 * mostly different nodes (those of their stretch of time) through the
 * reader's shared cache.  An interval holding samples of two pieces is
 * in both answers: piece i keeps only the intervals starting after the
 * last sample of piece i - 1 (one starting at or before it, and holding
 * a sample of piece i, holds that last sample too, so the earlier piece
 * has it).  Each piece's answer is sorted by (start, quark), and every
 * start kept by piece i is after every start of the earlier pieces
 * (which hold a sample at or before that last sample), so the pieces
 * joined in order are sorted: the very answer of sht_reader_query_2d.
 * Asked by (quark, start), the pieces come sorted so and are merged
 * quark by quark, each quark's intervals piece after piece (the same
 * argument on the starts of one quark).
 *
 * The calling thread answers piece 0 into res; the others run on threads
 * started here and answer into results of their own, whose intervals are
 * appended to res and whose string chunks res takes over (the strings do
 * not move).  The error of a failed piece (its message is per thread) is
 * raised again in the caller.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/reader-int.h"

#define MAX_PIECES 16
#define MIN_SAMPLES 64          /* per piece: below, one thread answers */

struct piece {
	const struct sht__root *rt;
	sht_query2d q;
	sht_result *res;
	sht_err err;
	char msg[512];
	pthread_t th;
	int started;
};

static void *piece_main(void *arg)
{
	struct piece *p = arg;

	p->err = sht__q_2d(p->rt, &p->q, p->res);
	if (p->err != SHT_OK)
		snprintf(p->msg, sizeof p->msg, "%s", sht_errmsg());
	return NULL;
}

/* Hand p's string chunks to res (the strings do not move). */
static void take_chunks(sht_result *res, sht_result *p)
{
	struct sht__chunk **tail;

	if (!res->chunks) {
		res->chunks = p->chunks;
	} else {        /* after res's first chunk, which keeps the room */
		for (tail = &p->chunks; *tail; tail = &(*tail)->next)
			;
		*tail = res->chunks->next;
		res->chunks->next = p->chunks;
	}
	p->chunks = NULL;
}

/* By time: append the intervals of piece p starting after `after` to
 * res, and hand p's string chunks to res. */
static sht_err join(sht_result *res, sht_result *p, sht_time after)
{
	size_t i = 0, n = p->count;
	sht_err err;

	while (i < n && p->items[i].start <= after)   /* sorted by start */
		i++;
	if (i < n) {                    /* (an empty piece has no items array) */
		err = sht__result_reserve(res, res->count + (n - i));
		if (err != SHT_OK)
			return err;
		memcpy(res->items + res->count, p->items + i,
		       (n - i) * sizeof *p->items);
		res->count += n - i;
	}
	take_chunks(res, p);
	return SHT_OK;
}

/* The smallest quark at the heads of the pieces' answers (at[i] is
 * piece i's head); 0 if every answer is used up. */
static int next_quark(sht_result *const *a, const size_t *at, unsigned np,
		      sht_quark *q)
{
	int any = 0;

	for (unsigned i = 0; i < np; i++)
		if (at[i] < a[i]->count && (!any || a[i]->items[at[i]].quark < *q)) {
			*q = a[i]->items[at[i]].quark;
			any = 1;
		}
	return any;
}

/* By quark: the answers a[0..np) (a[0] is res) merged quark by quark;
 * each quark's intervals from piece i > 0 keep those starting after the
 * last sample of piece i - 1, and come after those of the earlier
 * pieces, whose starts are all smaller: (quark, start) order. */
static sht_err join_by_quark(sht_result **a, const struct piece *pc,
			     unsigned np)
{
	size_t at[MAX_PIECES] = { 0 }, total = 0, k = 0;
	sht_interval *out;
	sht_quark q = 0;

	for (unsigned i = 0; i < np; i++)
		total += a[i]->count;
	out = malloc((total ? total : 1) * sizeof *out);
	if (!out)
		return sht__error(SHT_ERR_NOMEM, "Cannot join %zu intervals", total);
	while (next_quark(a, at, np, &q)) {
		for (unsigned i = 0; i < np; i++)
			for (; at[i] < a[i]->count && a[i]->items[at[i]].quark == q; at[i]++)
				if (i == 0 || a[i]->items[at[i]].start > pc[i - 1].q.t2)
					out[k++] = a[i]->items[at[i]];
	}
	free(a[0]->items);
	a[0]->items = out;
	a[0]->count = k;
	a[0]->cap = total ? total : 1;
	for (unsigned i = 1; i < np; i++)
		take_chunks(a[0], a[i]);
	return SHT_OK;
}

/* The number of samples of q: t1 + k r <= t2 (k >= 0), plus t2 if it is
 * not one of them. */
static uint64_t samples(const sht_query2d *q)
{
	uint64_t span = (uint64_t)q->t2 - (uint64_t)q->t1;

	return span / (uint64_t)q->resolution + 1 + (span % (uint64_t)q->resolution != 0);
}

sht_err sht__q_2d_threads(const struct sht__root *rt, const sht_query2d *q,
			  unsigned nthreads, sht_result *res)
{
	struct piece pc[MAX_PIECES];
	sht_result *all[MAX_PIECES];
	uint64_t ns, k0 = 0;
	unsigned np;
	sht_err err;

	if (sht__q2d_validate(q) != SHT_OK || q->resolution <= 0 || nthreads <= 1)
		return sht__q_2d(rt, q, res);
	ns = samples(q);
	np = nthreads < MAX_PIECES ? nthreads : MAX_PIECES;
	if (ns / MIN_SAMPLES < np)
		np = (unsigned)(ns / MIN_SAMPLES);
	if (np <= 1)
		return sht__q_2d(rt, q, res);
	memset(pc, 0, sizeof pc);
	for (unsigned i = 0; i < np; i++) {         /* samples [k0, k1) */
		uint64_t k1 = ns * (i + 1) / np;

		pc[i].rt = rt;
		pc[i].q = *q;
		pc[i].q.t1 = (sht_time)((uint64_t)q->t1 + k0 * (uint64_t)q->resolution);
		if (i + 1 < np)
			pc[i].q.t2 = (sht_time)((uint64_t)q->t1 +
						(k1 - 1) * (uint64_t)q->resolution);
		k0 = k1;
	}
	err = SHT_OK;
	for (unsigned i = 1; i < np && err == SHT_OK; i++) {
		if (!(pc[i].res = sht_result_create()))
			err = sht__error(SHT_ERR_NOMEM, "Cannot allocate a result");
		else if (pthread_create(&pc[i].th, NULL, piece_main, &pc[i]) != 0)
			err = sht__error(SHT_ERR_NOMEM, "Cannot start a query thread");
		else
			pc[i].started = 1;
	}
	if (err == SHT_OK)
		err = sht__q_2d(rt, &pc[0].q, res);
	all[0] = res;
	for (unsigned i = 1; i < np; i++) {
		if (pc[i].started)
			pthread_join(pc[i].th, NULL);
		if (err == SHT_OK && pc[i].started && pc[i].err != SHT_OK)
			err = sht__error(pc[i].err, "%s", pc[i].msg);
		if (err == SHT_OK && q->order != SHT_ORDER_QUARK)
			err = join(res, pc[i].res, pc[i - 1].q.t2);
		all[i] = pc[i].res;
	}
	if (err == SHT_OK && q->order == SHT_ORDER_QUARK)
		err = join_by_quark(all, pc, np);
	for (unsigned i = 1; i < np; i++)
		sht_result_destroy(pc[i].res);
	if (err != SHT_OK)
		sht_result_clear(res);
	return err;
}

sht_err sht_reader_query_2d_threads(sht_reader *r, const sht_query2d *q,
				    unsigned nthreads, sht_result *res)
{
	struct sht__root rt;

	sht__reader_root(r, &rt);
	return sht__q_2d_threads(&rt, q, nthreads, res);
}
