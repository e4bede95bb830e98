/*
 * partial.c: answering queries from a partial history (thesis §3.3).
 *
 * The file holds the intervals that cross some checkpoint's time - 1
 * (exact, whole intervals) and the checkpoints.  An interval that crosses
 * none lies inside one segment [cp[k].ts, cp[k+1].ts - 1]: to find it,
 * the segment is replayed, from the state at cp[k].ts - 1 (a full query of
 * the stored intervals) through the provider, into an in-memory state
 * system that borrows the file's attribute tree (so quarks match).  The
 * intervals of that replay that cross no checkpoint are exactly the ones
 * the file lacks.  The last replayed segment is kept for the next query.
 */
#include <stdlib.h>

#include "state/state-int.h"

struct sht__partial {
	sht_source src;
	sht_provider prov;
	struct sht__ckpt *cp;
	size_t n;
	uint8_t *types;              /* per quark: locked type, 0 none */
	sht_time *type_at;           /* when it was locked */
	size_t ntypes;
	sht_state *seg;              /* the replayed segment, or NULL */
	size_t seg_k;
	sht_result *tmp;
};

void sht__partial_free(struct sht__partial *pq)
{
	if (!pq)
		return;
	sht_state_close(pq->seg);
	sht_result_destroy(pq->tmp);
	free(pq->cp);
	free(pq->types);
	free(pq->type_at);
	free(pq);
}

static sht_err load_checkpoints(sht_state *ss, struct sht__partial *pq)
{
	uint8_t *d = NULL;
	size_t len = 0, n;
	sht_err err = sht_reader_section(ss->reader, SHT__SECTION_CHECKPOINTS, NULL, (void **)&d, &len);

	if (err == SHT_NOT_FOUND)
		return sht__error(SHT_ERR_INVALID, "Cannot open as a partial history: %s has no checkpoints",
				  ss->reader ? "the file" : "it");
	if (err != SHT_OK)
		return err;
	n = len >= 24 ? (size_t)sht__get_u64(d) : 0;
	if (len < 24 || n == 0 || n > (len - 24) / 32 || 24 + 32 * n != len)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot read checkpoints: %zu bytes", len);
	if (err == SHT_OK && !(pq->cp = malloc(n * sizeof *pq->cp)))
		err = sht__error(SHT_ERR_NOMEM, "Cannot allocate %zu checkpoints", n);
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		const uint8_t *e = d + 24 + 32 * i;
		pq->cp[i].index = sht__get_u64(e);
		pq->cp[i].pos = sht__get_u64(e + 8);
		pq->cp[i].ts = (sht_time)sht__get_u64(e + 16);
		pq->cp[i].attrs = sht__get_u64(e + 24);
		if (i && (pq->cp[i].index <= pq->cp[i - 1].index || pq->cp[i].ts <= pq->cp[i - 1].ts ||
			  pq->cp[i].attrs < pq->cp[i - 1].attrs))
			err = sht__error(SHT_ERR_CORRUPT, "Cannot read checkpoints: entry %zu out of order", i);
	}
	pq->n = n;
	free(d);
	return err;
}

static sht_err load_types(sht_state *ss, struct sht__partial *pq)
{
	uint8_t *d = NULL;
	size_t len = 0, off = 8, n;
	sht_err err = sht_reader_section(ss->reader, SHT__SECTION_TYPES, NULL, (void **)&d, &len);

	if (err != SHT_OK)
		return err == SHT_NOT_FOUND ? sht__error(SHT_ERR_CORRUPT, "Cannot read the type locks: missing") : err;
	n = len >= 8 ? (size_t)sht__get_u64(d) : 0;
	if (len < 8 || n > len - 8)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot read the type locks: %zu bytes", len);
	if (err == SHT_OK && (!(pq->types = calloc(n + 1, 1)) ||
			      !(pq->type_at = calloc(n + 1, sizeof *pq->type_at))))
		err = sht__error(SHT_ERR_NOMEM, "Cannot allocate the type locks");
	for (size_t q = 0; err == SHT_OK && q < n; q++) {
		if (off >= len || d[off] > SHT_TYPE_STRING || (d[off] && len - off < 9)) {
			err = sht__error(SHT_ERR_CORRUPT, "Cannot read the type locks: quark %zu", q);
			break;
		}
		pq->types[q] = d[off++];
		if (pq->types[q]) {
			pq->type_at[q] = (sht_time)sht__get_u64(d + off);
			off += 8;
		}
	}
	if (err == SHT_OK && off != len)
		err = sht__error(SHT_ERR_CORRUPT, "Cannot read the type locks: %zu trailing bytes", len - off);
	pq->ntypes = n;
	free(d);
	return err;
}

sht_err sht__partial_open(sht_state *ss, const sht_source *src, const sht_provider *p)
{
	struct sht__partial *pq;
	sht_err err;

	if (strcmp(p->id ? p->id : "", ss->provider) != 0 || p->version != ss->provider_version)
		return sht__error(SHT_ERR_INVALID, "Cannot replay: the history was built by %s v%u, not %s v%u",
				  ss->provider, ss->provider_version, p->id ? p->id : "", p->version);
	pq = calloc(1, sizeof *pq);
	if (!pq || !(pq->tmp = sht_result_create())) {
		free(pq);
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the partial history");
	}
	pq->src = *src;
	pq->prov = *p;
	ss->partial = pq;
	err = load_checkpoints(ss, pq);
	if (err == SHT_OK)
		err = load_types(ss, pq);
	return err;
}

/* Segment holding t: the last checkpoint at or before t (0 if none). */
static size_t segment_of(const struct sht__partial *pq, sht_time t)
{
	size_t lo = 0, hi = pq->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (pq->cp[mid].ts <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static sht_time segment_end(const sht_state *ss, const struct sht__partial *pq, size_t k)
{
	return k + 1 < pq->n ? pq->cp[k + 1].ts - 1 : ss->end;
}

/* The state at cp[k].ts - 1: stored intervals, and the type locks. */
static sht_err seed_segment(sht_state *ss, struct sht__partial *pq, size_t k, sht_state *seg)
{
	sht_time t0 = pq->cp[k].ts - 1;
	sht_err err = SHT_OK;

	for (size_t q = 0; q < seg->ncur && q < pq->ntypes; q++)
		if (pq->types[q] && pq->type_at[q] < pq->cp[k].ts) {
			seg->cur[q].locked = pq->types[q];
			seg->locked_at[q] = pq->type_at[q];
		}
	if (k == 0)
		return SHT_OK;
	err = sht_reader_query_full(ss->reader, t0, pq->tmp);
	for (size_t i = 0; err == SHT_OK && i < sht_result_count(pq->tmp); i++) {
		const sht_interval *iv = sht_result_at(pq->tmp, i);
		if (iv->quark < seg->ncur)
			err = sht__ongoing_set(seg, iv->quark, &iv->value, iv->start);
	}
	seg->now = t0 > seg->start ? t0 : seg->start;
	return err;
}

static sht_err replay_held(struct sht__partial *pq, size_t k, sht_state *seg)
{
	sht_event ev;
	/* The checkpoint's event is the first at or after its time: a source
	 * that seeks by time (CTF, its packet index) goes straight there. */
	sht_err err = sht_source_seek_at(&pq->src, pq->cp[k].pos, pq->cp[k].ts);
	int first = 1;

	/* The replay stops at the next segment's first event: a source that
	 * decodes ahead need not go further. */
	if (err == SHT_OK && k + 1 < pq->n)
		sht_source_until(&pq->src, pq->cp[k + 1].ts);
	while (err == SHT_OK && (err = pq->src.ops->next(pq->src.src, &ev)) == SHT_OK) {
		/* The checkpoint's event is the first of its timestamp: a
		 * trace that says otherwise is not the one replayed here. */
		if (first && ev.ts != pq->cp[k].ts)
			return sht__error(SHT_ERR_CORRUPT, "Cannot replay the partial history: the trace does not match it (event %llu is at t=%lld, its checkpoint at t=%lld)",
					  (unsigned long long)pq->cp[k].pos, (long long)ev.ts, (long long)pq->cp[k].ts);
		first = 0;
		if (k + 1 < pq->n && ev.ts >= pq->cp[k + 1].ts)
			break;
		err = pq->prov.handle(pq->prov.ctx, seg, &ev);
		if (err == SHT_ERR_TYPE || err == SHT_ERR_RANGE || err == SHT_ERR_NOATTR ||
		    err == SHT_NOT_FOUND)
			err = SHT_OK;     /* skipped, as the first run did */
	}
	return err == SHT_END ? SHT_OK : err;
}

/* The segment's events through the provider.  seg is this thread's
 * alone until the replay ends: the handler's calls on it skip its lock,
 * as sht_state_run's do (once another thread exists, a decoding thread,
 * each lock is an atomic instruction: a dozen per event). */
static sht_err replay_events(struct sht__partial *pq, size_t k, sht_state *seg)
{
	sht_state *held = sht__held;
	sht_err err;

	sht__held = seg;
	err = replay_held(pq, k, seg);
	sht__held = held;
	return err;
}

/* End the replay at the segment's end: its ongoing states are not closed
 * into the backend (that would copy every attribute) but answered from the
 * transient state, as ending at `end`. */
static sht_err close_segment(sht_state *seg, sht_time end)
{
	seg->now = end;
	return SHT_OK;
}

static sht_err replay(sht_state *ss, struct sht__partial *pq, size_t k)
{
	struct sht__attrs *a;
	sht_state *seg;
	sht_err err;

	if (pq->seg && pq->seg_k == k)
		return SHT_OK;
	sht_state_close(pq->seg);
	pq->seg = NULL;
	err = sht__state_attrs(ss, &a);
	if (err != SHT_OK)
		return err;
	if (!(seg = sht__state_new()))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a replay");
	seg->attrs = a;
	seg->attrs_borrowed = 1;
	seg->visible = pq->cp[k].attrs;
	if (seg->visible > sht__attrs_count(a)) {
		sht_state_close(seg);
		return sht__error(SHT_ERR_CORRUPT, "Cannot replay: checkpoint %zu has more attributes than the file", k);
	}
	seg->start = seg->now = ss->start;
	seg->ops = &sht__backend_mem;
	seg->provider = strdup("");
	err = sht__backend_mem_create(&seg->be);
	if (err == SHT_OK)
		err = sht__ongoing_grow(seg, sht__attrs_count(a));
	if (err == SHT_OK)
		err = seed_segment(ss, pq, k, seg);
	if (err == SHT_OK)
		err = replay_events(pq, k, seg);
	if (err == SHT_OK)
		err = close_segment(seg, segment_end(ss, pq, k));
	if (err != SHT_OK) {
		sht_state_close(seg);
		return err;
	}
	pq->seg = seg;
	pq->seg_k = k;
	return SHT_OK;
}

sht_err sht__partial_single(sht_state *ss, sht_quark q, sht_time t, sht_result *res)
{
	struct sht__partial *pq = ss->partial;
	sht_err err = sht_reader_query(ss->reader, q, t, res);

	if (err != SHT_NOT_FOUND)
		return err;               /* a stored (crossing) interval: exact */
	err = replay(ss, pq, segment_of(pq, t));
	if (err != SHT_OK)
		return err;
	return sht__segment_single(pq->seg, q, t, res);
}

/* res (by quark) gains tmp's items for quarks it lacks; strings copied. */
static sht_err merge_by_quark(sht_result *res, const sht_result *tmp)
{
	size_t n = res->count, m = tmp->count, i = 0, j = 0, k = 0;
	sht_interval *out = malloc((n + m ? n + m : 1) * sizeof *out);

	if (!out)
		return sht__error(SHT_ERR_NOMEM, "Cannot merge a full query");
	while (i < n || j < m) {
		if (j == m || (i < n && res->items[i].quark <= tmp->items[j].quark)) {
			if (j < m && tmp->items[j].quark == res->items[i].quark)
				j++;
			out[k++] = res->items[i++];
			continue;
		}
		out[k] = tmp->items[j++];
		if (out[k].value.type == SHT_TYPE_STRING &&
		    !(out[k].value.u.str = sht__result_strdup(res, out[k].value.u.str, out[k].value.len))) {
			free(out);
			return sht__error(SHT_ERR_NOMEM, "Cannot copy a string");
		}
		k++;
	}
	free(res->items);
	res->items = out;
	res->count = k;
	res->cap = n + m ? n + m : 1;
	return SHT_OK;
}

sht_err sht__partial_full(sht_state *ss, sht_time t, sht_result *res)
{
	struct sht__partial *pq = ss->partial;
	sht_err err = sht_reader_query_full(ss->reader, t, res);

	if (err == SHT_OK)
		err = replay(ss, pq, segment_of(pq, t));
	if (err == SHT_OK)
		err = sht__segment_full(pq->seg, t, pq->tmp);
	if (err == SHT_OK)
		err = merge_by_quark(res, pq->tmp);
	return err;
}

sht_err sht__partial_2d(sht_state *ss, const sht_query2d *q, sht_result *res)
{
	struct sht__partial *pq = ss->partial;
	size_t k0 = segment_of(pq, q->t1), k1 = segment_of(pq, q->t2);
	sht_err err = sht_reader_query_2d(ss->reader, q, res);

	for (size_t k = k0; err == SHT_OK && k <= k1; k++) {
		err = replay(ss, pq, k);
		if (err == SHT_OK)
			err = sht__segment_2d(pq->seg, q, pq->tmp);
		for (size_t i = 0; err == SHT_OK && i < sht_result_count(pq->tmp); i++) {
			const sht_interval *iv = sht_result_at(pq->tmp, i);
			if (!sht__crosses(pq->cp, pq->n, iv->start, iv->end))
				err = sht_result_append(res, iv);
		}
	}
	if (err == SHT_OK)
		sht__q2d_sort(q, res);
	return err;
}
