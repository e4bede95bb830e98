/*
 * ctf-mux.c: the merge of the stream reader (ctf-par.h): the order of
 * babeltrace2 2.0.4's flt.utils.muxer, reproduced message by message so
 * that events come exactly as through the muxer, ties included.  Its
 * rule, in our words:
 *
 *  - The streams form an array, first in port order.  Before each choice
 *    every stream must show its next message; a stream that has none
 *    left is taken out of the array by moving the array's last stream
 *    into its place (so the array's order changes at each end).
 *  - Each head message has a time: its clock snapshot (events; packet
 *    beginnings / ends, discarded events / packets when the stream class
 *    has those snapshots; stream beginnings / ends when known), else the
 *    time of the last message chosen.  With no clock class anywhere every
 *    time is that last time.
 *  - Scanning the array in order, a head replaces the chosen one if its
 *    time is smaller, or equal and it compares before it (below); so of
 *    heads that compare equal the earliest in the array wins.
 *  - Comparing two heads of the same time: trace UUID (a trace with one
 *    goes first), trace name, stream class id, stream id; then the type
 *    (stream beginning, packet beginning, event, discarded events,
 *    inactivity, packet end, discarded packets, stream end); then, for
 *    the same type, the event classes (id, name, log level, EMF URI),
 *    the streams (name, class name, the class's properties), and for
 *    discarded messages their clock values and counts.  Differences of
 *    unsigned values are taken as babeltrace2 does, truncated to int.
 *  - A time earlier than the last one chosen is an error, and so is a
 *    stream whose clock class does not match the first one seen
 *    (absolute, or of the same UUID, or none).
 *
 * A trace of one stream is read without the muxer (ctf-graph.c does the
 * same): no time check then.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-dec.h"
#include "util/util.h"

enum { EXP_ANY, EXP_NONE, EXP_ABS, EXP_SPEC_UUID, EXP_NO_UUID };

void sht__ctfm_init(struct ctf_par *p)
{
	for (uint32_t i = 0; i < p->nstreams; i++) {
		p->active[i] = i;
		p->hd[i] = NULL;
	}
	p->nactive = p->nstreams;
	p->last_ts = INT64_MIN;
	p->expect = EXP_ANY;
}

/* ---- heads -------------------------------------------------------------- */

/* The next record of stream s (it stays valid until the next call of
 * sht__ctfm_next): SHT_OK, SHT_END, or the stream's error. */
static sht_err head(struct ctf_par *p, uint32_t s, const struct ctf_rec **r)
{
	struct ctf_pstream *ps = &p->st[s];
	struct ctf_sq *q = &ps->q;

	for (;;) {
		struct ctf_chunk *ch;
		sht_err err;

		if (q->cur && q->off < q->cur->used) {
			*r = (const struct ctf_rec *)(const void *)(q->cur->buf + q->off);
			return SHT_OK;
		}
		sht__ctfd_release(ps->dec, s, q->cur);
		q->cur = NULL;
		err = sht__ctfd_take(ps->dec, s, &ch);
		if (err != SHT_OK)
			return err;
		q->cur = ch;
		q->off = 0;
	}
}

/* ---- comparisons (common_muxing_compare_messages) ------------------------ */

/* Optional strings: both compared, else the one that has a value first. */
static int cmp_opt_str(const char *a, const char *b)
{
	if (a && b)
		return strcmp(a, b);
	return a ? -1 : b ? 1 : 0;
}

/* Boolean properties: the one that has it goes after. */
static int cmp_flag(uint8_t a, uint8_t b)
{
	return a && !b ? 1 : !a && b ? -1 : 0;
}

static int cmp_streams(const struct ctf_skey *a, const struct ctf_skey *b)
{
	int ret = cmp_opt_str(a->name, b->name);

	if (!ret)
		ret = cmp_opt_str(a->sc_name, b->sc_name);
	for (int i = 0; !ret && i < 5; i++)
		ret = cmp_flag(a->flags[i], b->flags[i]);
	if (ret || !a->flags[4])      /* no packets: no packet properties */
		return ret;
	for (int i = 5; !ret && i < 9; i++)
		ret = cmp_flag(a->flags[i], b->flags[i]);
	return ret;
}

static int cmp_events(const struct ctf_class *a, const struct ctf_class *b)
{
	int ret;

	if (a->id != b->id)
		return a->id > b->id ? 1 : -1;
	if ((ret = cmp_opt_str(a->name, b->name)) != 0)
		return ret;
	if (a->has_ll && b->has_ll)
		ret = a->ll - b->ll;
	else if (a->has_ll != b->has_ll)
		ret = a->has_ll ? -1 : 1;
	if (ret)
		return ret;
	return cmp_opt_str(a->emf, b->emf);
}

static int cmp_clocks(uint64_t va, const struct ctf_skey *a, uint64_t vb,
		      const struct ctf_skey *b)
{
	int ret = (int)(va - vb);

	if (ret)
		return ret;
	if (a->cc_uuid_set && b->cc_uuid_set)
		ret = memcmp(a->cc_uuid, b->cc_uuid, 16);
	else if (a->cc_uuid_set != b->cc_uuid_set)
		ret = a->cc_uuid_set ? -1 : 1;
	if (!ret)
		ret = cmp_opt_str(a->cc_name, b->cc_name);
	if (!ret)
		ret = (int)(b->cc_freq - a->cc_freq);
	if (!ret)
		ret = (int)(b->cc_prec - a->cc_prec);
	return ret;
}

static const struct ctf_disc *disc_of(const struct ctf_rec *r)
{
	return (const struct ctf_disc *)(const void *)r->val;
}

static int cmp_discarded(const struct ctf_rec *ra, const struct ctf_skey *a,
			 const struct ctf_rec *rb, const struct ctf_skey *b)
{
	const struct ctf_disc *da = disc_of(ra), *db = disc_of(rb);
	int ret = cmp_streams(a, b);

	if (!ret && da->has_cs)
		ret = cmp_clocks(da->cs_begin, a, db->cs_begin, b);
	if (!ret && da->has_cs)
		ret = cmp_clocks(da->cs_end, a, db->cs_end, b);
	if (ret)
		return ret;
	if (da->count_avail && db->count_avail)
		return (int)(da->count - db->count);
	return da->count_avail == db->count_avail ? 0 : da->count_avail ? -1 : 1;
}

static int type_weight(uint8_t t)
{
	switch (t) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING: return 7;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING: return 6;
	case BT_MESSAGE_TYPE_EVENT: return 5;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS: return 4;
	case BT_MESSAGE_TYPE_PACKET_END: return 3;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY: return 2;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS: return 1;
	default: return 0;
	}
}

/* Same type: its own keys. */
static int cmp_same_type(const struct ctf_rec *ra, const struct ctf_skey *a,
			 const struct ctf_rec *rb, const struct ctf_skey *b)
{
	int ret;

	switch (ra->type) {
	case BT_MESSAGE_TYPE_EVENT:
		ret = cmp_events(ra->cls, rb->cls);
		return ret ? ret : cmp_streams(a, b);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return cmp_discarded(ra, a, rb, b);
	default:
		return cmp_streams(a, b);
	}
}

/* < 0 if ra (stream key a) goes before rb (key b). */
static int cmp_messages(const struct ctf_rec *ra, const struct ctf_skey *a,
			const struct ctf_rec *rb, const struct ctf_skey *b)
{
	int ret = 0;

	if (a->trace_uuid_set && b->trace_uuid_set)
		ret = memcmp(a->trace_uuid, b->trace_uuid, 16);
	else if (a->trace_uuid_set != b->trace_uuid_set)
		ret = a->trace_uuid_set ? -1 : 1;
	if (!ret)
		ret = cmp_opt_str(a->trace_name, b->trace_name);
	if (!ret && a->sc_id != b->sc_id)
		ret = a->sc_id < b->sc_id ? -1 : 1;
	if (!ret && a->id != b->id)
		ret = a->id < b->id ? -1 : 1;
	if (ret)
		return ret;
	if (ra->type != rb->type)
		return type_weight(rb->type) - type_weight(ra->type);
	return cmp_same_type(ra, a, rb, b);
}

/* ---- clock classes and times ------------------------------------------- */

static sht_err mux_error(struct ctf_par *p, const char *what)
{
	return sht__error(SHT_ERR_CORRUPT, "Cannot read CTF trace: path=%s: %s "
			  "(babeltrace2's flt.utils.muxer refuses it too)",
			  p->c->path, what);
}

/* A stream beginning of stream key k: the clock class rule. */
static sht_err check_clock(struct ctf_par *p, const struct ctf_skey *k)
{
	if (!k->has_cc) {
		if (p->expect == EXP_ANY)
			p->expect = EXP_NONE;
		else if (p->expect != EXP_NONE)
			return mux_error(p, "a stream has no clock class, the others have one");
		return SHT_OK;
	}
	if (p->expect == EXP_ANY) {
		p->expect = k->cc_abs ? EXP_ABS : k->cc_uuid_set ? EXP_SPEC_UUID : EXP_NO_UUID;
		if (k->cc_uuid_set)
			memcpy(p->expect_uuid, k->cc_uuid, 16);
	}
	switch (p->expect) {
	case EXP_ABS:
		return k->cc_abs ? SHT_OK : mux_error(p, "a clock class is not absolute, the first one is");
	case EXP_NO_UUID:
		return !k->cc_abs && !k->cc_uuid_set ? SHT_OK
		       : mux_error(p, "clock classes differ (absolute or UUID)");
	case EXP_SPEC_UUID:
		return !k->cc_abs && k->cc_uuid_set && !memcmp(k->cc_uuid, p->expect_uuid, 16)
		       ? SHT_OK : mux_error(p, "clock classes have different UUIDs");
	default:
		return mux_error(p, "a stream has a clock class, the first one has none");
	}
}

static sht_err head_time(struct ctf_par *p, const struct ctf_rec *r, int64_t *ts)
{
	if (p->expect == EXP_NONE || !r->has_ts) {
		*ts = p->last_ts;
		return SHT_OK;
	}
	if (r->has_ts == 2)
		return mux_error(p, "an event's time overflows");
	*ts = r->ts;
	return SHT_OK;
}

/* ---- the choice --------------------------------------------------------- */

/* Every active stream shows its head; ended ones leave the array.  Only
 * a stream whose head was taken has to fetch one (the muxer asks the
 * others too, but their queues are not empty). */
static sht_err validate(struct ctf_par *p)
{
	for (uint32_t i = 0; i < p->nactive; i++) {
		sht_err err;

		if (p->hd[i])
			continue;
		err = head(p, p->active[i], &p->hd[i]);
		if (err == SHT_END) {
			p->nactive--;
			p->active[i] = p->active[p->nactive];
			p->hd[i] = p->hd[p->nactive];
			p->hts[i] = p->hts[p->nactive];
			i--;
		} else if (err != SHT_OK) {
			return err;
		} else {
			const struct ctf_rec *r = p->hd[i];
			p->hts[i] = r->has_ts == 1 && r->type != BT_MESSAGE_TYPE_STREAM_BEGINNING
				    ? r->ts : CTF_TS_SLOW;
		}
	}
	return SHT_OK;
}

/* The common case of the choice: every head has a time of its own and
 * one of them is the smallest, so no rule but the time decides.  1 and
 * *sel, *ts_out if so; 0: a tie, a head without a time of its own or no
 * clock class (youngest() decides). */
static int youngest_fast(const struct ctf_par *p, uint32_t *sel, int64_t *ts_out)
{
	const int64_t *hts = p->hts;
	uint32_t n = p->nactive, best = 0;
	int64_t m;
	int tie = 0;

	if (n == 0 || p->expect == EXP_NONE)
		return 0;
	m = hts[0];
	for (uint32_t i = 1; i < n; i++) {
		if (hts[i] < m) {
			m = hts[i];
			best = i;
			tie = 0;
		} else if (hts[i] == m) {
			tie = 1;
		}
	}
	if (tie || m == CTF_TS_SLOW)
		return 0;
	*sel = best;
	*ts_out = m;
	return 1;
}

static sht_err youngest(struct ctf_par *p, uint32_t *sel, int64_t *ts_out)
{
	const struct ctf_rec *best = NULL;
	int64_t best_ts = INT64_MAX;

	for (uint32_t i = 0; i < p->nactive; i++) {
		const struct ctf_rec *r = p->hd[i];
		int64_t ts = p->hts[i];
		sht_err err = SHT_OK;

		if (SHT_UNLIKELY(ts == CTF_TS_SLOW || p->expect == EXP_NONE)) {
			if (r->type == BT_MESSAGE_TYPE_STREAM_BEGINNING)
				err = check_clock(p, &p->st[p->active[i]].key);
			if (err != SHT_OK || (err = head_time(p, r, &ts)) != SHT_OK)
				return err;
		} else if (best && ts > best_ts) {
			continue;         /* the common case: one compare */
		}
		if (!best || ts < best_ts ||
		    (ts == best_ts && cmp_messages(r, &p->st[p->active[i]].key, best,
						   &p->st[p->active[*sel]].key) < 0)) {
			best = r;
			best_ts = ts;
			*sel = i;
		}
	}
	*ts_out = best_ts;
	return best ? SHT_OK : SHT_END;
}

/* One stream: its records in order, no muxer. */
static sht_err next_single(struct ctf_par *p, const struct ctf_rec **r, uint32_t *s)
{
	sht_err err = head(p, 0, r);

	if (err == SHT_OK) {
		p->st[0].q.off += (*r)->size;
		*s = 0;
	}
	return err;
}

sht_err sht__ctfm_next(struct ctf_par *p, const struct ctf_rec **r, uint32_t *s)
{
	uint32_t sel = 0;
	int64_t ts = INT64_MIN;
	struct ctf_sq *q;
	sht_err err;

	if (p->nstreams == 1)
		return next_single(p, r, s);
	err = validate(p);
	if (err == SHT_OK && !youngest_fast(p, &sel, &ts))
		err = youngest(p, &sel, &ts);
	if (err != SHT_OK)
		return err;
	if (ts < p->last_ts)
		return mux_error(p, "a message is earlier than the last one the "
				 "muxer returned (streams overlap in time)");
	*s = p->active[sel];
	*r = p->hd[sel];
	p->hd[sel] = NULL;
	q = &p->st[*s].q;
	q->off += (*r)->size;
	if (q->off < q->cur->used)       /* the stream's next head, written by
					    another core: on its way */
		__builtin_prefetch(q->cur->buf + q->off);
	p->last_ts = ts;
	return SHT_OK;
}
