/*
 * squery.c: queries of the state system.  The backend holds the closed
 * intervals; while building, the ongoing state of each attribute is one
 * more interval [start, now] that only the transient state knows.  Every
 * query merges the two, under the state system's lock.
 */
#include <stdlib.h>

#include "state/state-int.h"

static int building(const sht_state *ss)
{
	return !ss->readonly && !ss->finished;
}

static sht_time end_now(const sht_state *ss)
{
	return ss->finished ? ss->end : ss->now;
}

static uint64_t quark_limit(sht_state *ss)
{
	struct sht__attrs *a;
	sht_tree_info info;

	if (!ss->readonly)
		return ss->ncur;
	/* A partial history stores only some attributes' intervals. */
	if (ss->partial)
		return sht__state_attrs(ss, &a) == SHT_OK ? sht__attrs_count(a) : 0;
	sht_reader_info_get(ss->reader, &info);
	return info.quark_count;
}

static sht_err check_time(const sht_state *ss, sht_time t)
{
	if (ss->ops == &sht__backend_null)
		return sht__error(SHT_ERR_STATE, "Cannot query: the null backend keeps no history");
	if (t < ss->start || t > end_now(ss))
		return sht__error(SHT_ERR_RANGE, "Cannot query: t=%lld outside the history [%lld, %lld]",
				  (long long)t, (long long)ss->start, (long long)end_now(ss));
	return SHT_OK;
}

/* The ongoing interval of q as an interval ending now. */
static void ongoing_iv(const sht_state *ss, sht_quark q, sht_interval *iv)
{
	iv->quark = q;
	iv->start = ss->cur[q].start;
	iv->end = ss->now;
	iv->value = ss->cur[q].v;
}

static sht_err single_locked(sht_state *ss, sht_quark q, sht_time t, sht_result *res)
{
	sht_interval iv;
	sht_err err = check_time(ss, t);

	sht_result_clear(res);
	if (err != SHT_OK)
		return err;
	if (q >= quark_limit(ss))
		return sht__error(SHT_ERR_RANGE, "Cannot query: quark=%u unknown", q);
	if (building(ss) && ss->cur[q].start <= t) {
		ongoing_iv(ss, q, &iv);
		return sht_result_append(res, &iv);
	}
	if (ss->partial)
		return sht__partial_single(ss, q, t, res);
	return ss->ops->query(ss->be, q, t, res);
}

sht_err sht_state_query(sht_state *ss, sht_quark q, sht_time t, sht_result *res)
{
	sht_err err;

	sht__lock(ss);
	err = single_locked(ss, q, t, res);
	sht__unlock(ss);
	return err;
}

/* Replace res (closed intervals at t, by quark) by one entry per quark:
 * the ongoing interval where it has started by t, else the closed one. */
static sht_err overlay_full(sht_state *ss, sht_time t, sht_result *res)
{
	sht_interval *items = malloc((ss->ncur ? ss->ncur : 1) * sizeof *items);
	size_t n = 0, k = 0;

	if (!items)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a full query of %zu attributes", ss->ncur);
	for (size_t q = 0; q < ss->ncur; q++) {
		while (k < res->count && res->items[k].quark < q)
			k++;
		if (ss->cur[q].start <= t) {
			ongoing_iv(ss, (sht_quark)q, &items[n]);
			if (items[n].value.type == SHT_TYPE_STRING &&
			    !(items[n].value.u.str = sht__result_strdup(res, ss->cur[q].v.u.str,
									ss->cur[q].v.len))) {
				free(items);
				return sht__error(SHT_ERR_NOMEM, "Cannot copy a string");
			}
			n++;
		} else if (k < res->count && res->items[k].quark == q) {
			items[n++] = res->items[k];
		}
	}
	free(res->items);
	res->items = items;
	res->count = n;
	res->cap = ss->ncur ? ss->ncur : 1;
	return SHT_OK;
}

sht_err sht_state_query_full(sht_state *ss, sht_time t, sht_result *res)
{
	sht_err err;

	sht__lock(ss);
	sht_result_clear(res);
	err = check_time(ss, t);
	if (err == SHT_OK)
		err = ss->partial ? sht__partial_full(ss, t, res)
				  : ss->ops->query_full(ss->be, t, res);
	if (err == SHT_OK && building(ss))
		err = overlay_full(ss, t, res);
	sht__unlock(ss);
	return err;
}

/* Add the ongoing interval of qq (< ncur) if the 2D query samples it. */
static sht_err overlay_one(sht_state *ss, const sht_query2d *q, sht_quark qq,
			   sht_result *res)
{
	sht_interval iv;

	ongoing_iv(ss, qq, &iv);
	if (!sht__q2d_hits(q->t1, q->t2, q->resolution, iv.start, iv.end))
		return SHT_OK;
	return sht_result_append(res, &iv);
}

/* Add the ongoing intervals the 2D query selects (its set's quarks, or
 * its range, not every attribute), then restore the order. */
static sht_err overlay_2d(sht_state *ss, const sht_query2d *q, sht_result *res)
{
	sht_quark *sel = NULL;
	size_t nsel = 0;
	sht_err err = SHT_OK;

	if (q->quarks) {
		err = sht__q2d_selection(q, &sel, &nsel);
		for (size_t k = 0; err == SHT_OK && k < nsel && sel[k] < ss->ncur; k++)
			err = overlay_one(ss, q, sel[k], res);
	} else {
		for (uint64_t qq = q->qmin; err == SHT_OK && qq <= q->qmax && qq < ss->ncur; qq++)
			err = overlay_one(ss, q, (sht_quark)qq, res);
	}
	free(sel);
	if (err == SHT_OK)
		sht__q2d_sort(q, res);
	return err;
}

static sht_err q2d_locked(sht_state *ss, const sht_query2d *q, sht_result *res)
{
	sht_err err = sht__q2d_validate(q);

	sht_result_clear(res);
	if (err == SHT_OK)
		err = check_time(ss, q->t1);
	if (err == SHT_OK)
		err = check_time(ss, q->t2);
	if (err == SHT_OK)
		err = ss->partial ? sht__partial_2d(ss, q, res)
				  : ss->ops->query_2d(ss->be, q, res);
	if (err == SHT_OK && building(ss))
		err = overlay_2d(ss, q, res);
	return err;
}

sht_err sht_state_query_2d(sht_state *ss, const sht_query2d *q, sht_result *res)
{
	sht_err err;

	sht__lock(ss);
	err = q2d_locked(ss, q, res);
	sht__unlock(ss);
	return err;
}

/* An opened full history streams from its file (the store's cursor);
 * the other backends, and partial histories, answer at once. */
sht_err sht_state_cursor_create(sht_state *ss, const sht_query2d *q, sht_cursor **out)
{
	sht_result *whole;
	sht_err err;

	sht__lock(ss);
	err = sht__q2d_validate(q);
	if (err == SHT_OK)
		err = check_time(ss, q->t1);
	if (err == SHT_OK)
		err = check_time(ss, q->t2);
	if (err == SHT_OK && ss->readonly && !ss->partial) {
		err = sht_reader_cursor_create(ss->reader, q, out);
		sht__unlock(ss);
		return err;
	}
	sht__unlock(ss);
	if (err != SHT_OK)
		return err;
	whole = sht_result_create();
	if (!whole)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a result set");
	err = sht_state_query_2d(ss, q, whole);
	if (err != SHT_OK) {
		sht_result_destroy(whole);
		return err;
	}
	return sht__cursor_whole(whole, out);
}

/*
 * docs/STATE.md §3: from the interval at t1, the next intervals up to
 * min(t2, end); with r > 0 only those holding a sample t1 + k r, plus the
 * one at that end.  This is exactly the 2D query of q over [t1, end].
 */
sht_err sht_state_query_range(sht_state *ss, sht_quark q, sht_time t1,
			      sht_time t2, sht_time r, sht_result *res)
{
	sht_query2d qq;
	sht_err err;

	memset(&qq, 0, sizeof qq);
	qq.quarks = &q;
	qq.n_quarks = 1;
	qq.t1 = t1;
	qq.resolution = r;
	sht__lock(ss);
	qq.t2 = t2 < end_now(ss) ? t2 : end_now(ss);
	err = check_time(ss, t1);
	if (err == SHT_OK && t2 < t1)
		err = sht__error(SHT_ERR_INVALID, "Cannot query range: t2=%lld before t1=%lld",
				 (long long)t2, (long long)t1);
	if (err == SHT_OK && q >= quark_limit(ss))
		err = sht__error(SHT_ERR_RANGE, "Cannot query: quark=%u unknown", q);
	if (err == SHT_OK)
		err = q2d_locked(ss, &qq, res);
	else
		sht_result_clear(res);
	sht__unlock(ss);
	return err;
}

/*
 * A replayed segment (partial.c) is a state system left unfinished: its
 * backend holds the intervals closed during the replay, its transient
 * state the ongoing ones, which end at its current time.  These answer
 * from both without the history-bounds checks (the caller knows t lies in
 * the segment; a 2D query may reach beyond it).
 */
sht_err sht__segment_single(sht_state *seg, sht_quark q, sht_time t, sht_result *res)
{
	sht_interval iv;

	sht_result_clear(res);
	if (q < seg->ncur && seg->cur[q].start <= t && t <= seg->now) {
		ongoing_iv(seg, q, &iv);
		return sht_result_append(res, &iv);
	}
	return seg->ops->query(seg->be, q, t, res);
}

sht_err sht__segment_full(sht_state *seg, sht_time t, sht_result *res)
{
	sht_err err = seg->ops->query_full(seg->be, t, res);

	return err == SHT_OK ? overlay_full(seg, t, res) : err;
}

sht_err sht__segment_2d(sht_state *seg, const sht_query2d *q, sht_result *res)
{
	sht_err err = seg->ops->query_2d(seg->be, q, res);

	return err == SHT_OK ? overlay_2d(seg, q, res) : err;
}
