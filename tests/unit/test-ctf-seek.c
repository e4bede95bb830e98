/* sht-test-label: threads
 * test-ctf-seek.c: seeks of the CTF stream reader through the LTTng packet
 * index (sht/trace.h), against the events read once through babeltrace2's
 * muxer (the oracle): after every seek the next 40 events must be the
 * oracle's from the position sought.
 *
 *  - seek_at(pos, ts) (source.h) on a fresh source, to positions that
 *    are the first of their time (as a partial history's checkpoints are),
 *    in random order;
 *  - sht_ctf_index, then sht_ctf_seek_time(t) to random times (exact
 *    event times, between events, before the first, after the last): the
 *    ordinal returned is that of the first event at or after t;
 *  - then seeks to random ordinals (runs of equal times included);
 *  - the cost: with an index, seeks go through it (packet_seeks) and skip
 *    on average less than a quarter of what reading from the start would;
 *    without one, by the packets' headers, the same.
 *  - until(ts) after a seek_at (1 and 2 decoding threads): the decoders
 *    stop decoding ahead near ts (under a quarter of what they decode
 *    ahead without it), and the events past ts still come, in order.
 *
 * Traces: a synthetic kernel trace (8 CPUs), the same without its index
 * directory (seeks by the packets' headers, ctf-tsdl.c), a trace with
 * equal times on every CPU in 4 KiB packets, many-threads and bug446190
 * (LTTng indexes), synctraces/scp_src, xml-stub-kernel-analysis and
 * context-switches-ust (no index: packet headers; packetized and plain
 * metadata); 0 and 2 decoding threads, index every 1000 events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"
#include <shtgen/ctfw.h>
#include <shtgen/kgen.h>
#include "ctf-sig.h"

#define FOLLOW 40
#define EVERY 1000u

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

struct cost {
	uint64_t seeks, skipped, pos_sum;
};

/* The next FOLLOW events of src are ref's from pos: 1, or 0 (diag). */
static int follows(const sht_source *src, const struct run *ref, uint64_t pos)
{
	for (uint64_t i = pos; i < ref->n && i < pos + FOLLOW; i++) {
		sht_event ev;
		struct evsig e;

		if (src->ops->next(src->src, &ev) != SHT_OK || !ev_sig(src, &ev, &e)) {
			diag("event %" PRIu64 ": %s", i, sht_errmsg());
			return 0;
		}
		if (memcmp(&e, &ref->ev[i], sizeof e)) {
			diag("event %" PRIu64 ": t=%" PRId64 " pos %" PRIu64 ", expected "
			     "t=%" PRId64 " pos %" PRIu64, i, e.ts, e.pos, ref->ev[i].ts,
			     ref->ev[i].pos);
			return 0;
		}
	}
	return 1;
}

/* The first event at or after t in ref. */
static uint64_t first_at(const struct run *ref, int64_t t)
{
	size_t lo = 0, hi = ref->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ref->ev[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int open_src(const char *path, uint32_t jobs, sht_source *src)
{
	sht_ctf_opts o;

	sht_ctf_opts_init(&o);
	o.jobs = jobs;
	o.index_every = EVERY;
	return sht_ctf_open(path, &o, src) == SHT_OK;
}

static void note_cost(const sht_source *src, struct cost *c, uint64_t skipped0,
		      uint64_t pos)
{
	sht_ctf_info info;

	sht_ctf_info_get(src, &info);
	c->seeks++;
	c->skipped += info.seek_skipped - skipped0;
	c->pos_sum += pos;
}

static uint64_t skipped_now(const sht_source *src)
{
	sht_ctf_info info;

	sht_ctf_info_get(src, &info);
	return info.seek_skipped;
}

/* seek_at to positions that begin their time, on a fresh source. */
static int phase_at(const sht_source *src, const struct run *ref, struct cost *c)
{
	int good = 1;

	for (int k = 0; k < 20 && good; k++) {
		uint64_t pos = k == 0 ? ref->n - 1 : rnd(ref->n), s0 = skipped_now(src);

		while (pos > 0 && ref->ev[pos - 1].ts == ref->ev[pos].ts)
			pos--;
		good = src->ops->seek_at(src->src, pos, ref->ev[pos].ts) == SHT_OK &&
		       follows(src, ref, pos);
		note_cost(src, c, s0, pos);
	}
	return good;
}

static int64_t pick_time(const struct run *ref, int k)
{
	const struct evsig *e = &ref->ev[rnd(ref->n)];

	switch (k % 5) {
	case 0: return e->ts;
	case 1: return e->ts - 1;
	case 2: return e->ts + 1;
	case 3: return k < 5 ? ref->ev[0].ts - 1000 : e->ts;
	default: return k < 10 ? ref->ev[ref->n - 1].ts + 1 : e->ts;
	}
}

static int phase_time(const sht_source *src, const struct run *ref, struct cost *c)
{
	int good = 1;

	for (int k = 0; k < 25 && good; k++) {
		int64_t t = pick_time(ref, k);
		uint64_t want = first_at(ref, t), got = UINT64_MAX, s0 = skipped_now(src);
		sht_event ev;

		good = sht_ctf_seek_time(src, t, &got) == SHT_OK && got == want;
		if (!good)
			diag("time %" PRId64 ": ordinal %" PRIu64 ", expected %" PRIu64 " (%s)",
			     t, got, want, sht_errmsg());
		else if (want == ref->n)
			good = src->ops->next(src->src, &ev) == SHT_END;
		else
			good = follows(src, ref, want);
		note_cost(src, c, s0, want);
	}
	return good;
}

static int phase_ordinal(const sht_source *src, const struct run *ref, struct cost *c)
{
	int good = 1;

	for (int k = 0; k < 30 && good; k++) {
		uint64_t pos = rnd(ref->n), s0 = skipped_now(src);

		good = src->ops->seek(src->src, pos) == SHT_OK && follows(src, ref, pos);
		note_cost(src, c, s0, pos);
	}
	return good;
}

/* indexed: 2 asserts the cost too (traces of small metadata, many packets
 * per stream); 1 that seeks go by packets; 0 that they do not. */
static void readahead_case(const char *name, const char *path, const struct run *ref);
static void until_case(const char *name, const char *path, const struct run *ref,
		       uint32_t jobs);

static void seek_case(const char *name, const char *path, int indexed)
{
	struct run ref;

	if (!ok(read_trace(path, 1, 0, &ref) && ref.end == SHT_END && ref.n > 0,
		"%s: read through the muxer", name))
		return;
	for (uint32_t jobs = 0; jobs <= 2; jobs += 2) {
		struct cost c = { 0, 0, 0 };
		sht_source src;
		sht_ctf_info info;

		if (!ok(open_src(path, jobs, &src), "%s, %u threads: opens", name, jobs))
			continue;
		uint64_t events = 0;

		ok(phase_at(&src, &ref, &c), "%s, %u threads: seek_at to the first "
		   "events of 20 times", name, jobs);
		sht_err ierr = sht_ctf_index(&src, &events);
		ok(ierr == SHT_OK && events == ref.n,
		   "%s, %u threads: indexed (%" PRIu64 " events)", name, jobs, events);
		ok(phase_time(&src, &ref, &c), "%s, %u threads: 25 seeks by time", name, jobs);
		ok(phase_ordinal(&src, &ref, &c), "%s, %u threads: 30 seeks to "
		   "ordinals", name, jobs);
		sht_ctf_info_get(&src, &info);
		diag("%s, %u threads: %" PRIu64 " seeks, %" PRIu64 " through the packet "
		     "index, %.0f events skipped per seek (%.0f from the start)", name,
		     jobs, c.seeks, info.packet_seeks, (double)c.skipped / (double)c.seeks,
		     (double)c.pos_sum / (double)c.seeks);
		if (indexed)
			ok(info.packet_seeks > 0, "%s, %u threads: seeks through the "
			   "packet index", name, jobs);
		if (indexed == 2)
			ok(c.skipped * 4 < c.pos_sum, "%s, %u threads: skip less than "
			   "a quarter of reading from the start", name, jobs);
		if (!indexed)
			is_u64(info.packet_seeks, 0, "%s, %u threads: no index, no "
			       "packet seek", name, jobs);
		sht_ctf_close(&src);
	}
	if (indexed == 2 && ref.n >= 100000) {
		readahead_case(name, path, &ref);
		until_case(name, path, &ref, 1);
		until_case(name, path, &ref, 2);
	}
	free(ref.ev);
}

/* Events decoded ahead of the consumer once the decoders have nothing
 * left to do (their queues full): info.decoded, once it stops moving,
 * less the events read. */
static uint64_t settled_decoded(const sht_source *src)
{
	sht_ctf_info info;
	uint64_t last = UINT64_MAX;
	int still = 0;

	for (int k = 0; k < 500 && still < 5; k++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		sht_ctf_info_get(src, &info);
		still = info.decoded == last ? still + 1 : 0;
		last = info.decoded;
	}
	return last;
}

static int read_n(const sht_source *src, int n)
{
	sht_event ev;

	for (int k = 0; k < n; k++)
		if (src->ops->next(src->src, &ev) != SHT_OK)
			return 0;
	return 1;
}

/* After a seek, the decoding threads read less ahead than after the
 * open: a replay often stops soon after its seek (ctf-deq.c, queue_cap),
 * and what was read ahead would be decoded for nothing. */
static void readahead_case(const char *name, const char *path, const struct run *ref)
{
	const struct evsig *mid = &ref->ev[ref->n / 2];
	sht_source src;
	uint64_t d0, d1, d2;

	if (!ok(open_src(path, 1, &src), "%s, read-ahead: opens", name))
		return;
	if (ok(read_n(&src, 10), "%s: 10 events read", name)) {
		d0 = settled_decoded(&src);
		ok(sht_source_seek_at(&src, mid->pos, mid->ts) == SHT_OK &&
		   follows(&src, ref, mid->pos) && read_n(&src, 9),
		   "%s: seek_at to the middle (as a replay), 10 events read", name);
		d1 = settled_decoded(&src);
		d2 = d1 - d0 - (FOLLOW + 9);
		diag("%s: %" PRIu64 " events decoded ahead after the open, %" PRIu64
		     " after a seek", name, d0 - 10, d2);
		ok(d0 > 10 && d1 > d0 + FOLLOW + 9 && d2 * 3 < d0 - 10,
		   "%s: a seek's decoders read less than a third as far ahead as "
		   "the open's", name);
	}
	sht_ctf_close(&src);
}

/* Events the decoders hold ahead of the reader once settled, after a
 * seek_at to ref's event a (first of its time) and reading through the
 * first event at or after ref's event b's time, told with until() (bound)
 * or not. */
static int64_t ahead_after(const sht_source *src, const struct run *ref, uint64_t a,
			   uint64_t b, int bound)
{
	uint64_t d0 = settled_decoded(src), d1;

	if (sht_source_seek_at(src, a, ref->ev[a].ts) != SHT_OK)
		return -1;
	if (bound)
		sht_source_until(src, ref->ev[b].ts);
	for (uint64_t i = a; i <= b; i += FOLLOW)
		if (!follows(src, ref, i))
			return -1;
	d1 = settled_decoded(src);
	return (int64_t)(d1 - d0) - (int64_t)(((b - a) / FOLLOW + 1) * FOLLOW);
}

/* until(ts) (source.h): after a seek, the decoding threads stop decoding
 * ahead once every stream has handed over a record at or after ts (a
 * replay of a partial history's segment tells its end), and still
 * deliver every event past ts when asked. */
static void until_case(const char *name, const char *path, const struct run *ref,
		       uint32_t jobs)
{
	uint64_t a = ref->n / 3, b;
	int64_t free_ahead, bound_ahead;
	sht_source src;

	while (a > 0 && ref->ev[a - 1].ts == ref->ev[a].ts)
		a--;
	/* Far enough that each stream's first chunks, decoded before the
	 * hint comes, end before it: 25 000 events (ref->n >= 100 000). */
	b = a + 25000;                     /* the first event of its time */
	while (b > a && ref->ev[b - 1].ts == ref->ev[b].ts)
		b--;
	if (!ok(open_src(path, jobs, &src), "%s, until, %u threads: opens", name, jobs))
		return;
	free_ahead = ahead_after(&src, ref, a, b, 0);
	bound_ahead = ahead_after(&src, ref, a, b, 1);
	diag("%s, %u threads: %" PRId64 " events decoded ahead of a replay "
	     "without until(), %" PRId64 " with it", name, jobs, free_ahead,
	     bound_ahead);
	ok(free_ahead > 0 && bound_ahead >= 0 && bound_ahead * 4 < free_ahead,
	   "%s, %u threads: with until(), a seek's decoders stop near the "
	   "bound (under a quarter of the read-ahead without)", name, jobs);
	/* Past the bound: every event, in order, to 6000 events on. */
	uint64_t i = (b - a) / FOLLOW * FOLLOW + FOLLOW + a;
	int good = 1;

	for (; good && i < ref->n && i < b + 6000; i += FOLLOW)
		good = follows(&src, ref, i);
	ok(good, "%s, %u threads: the events past the bound are delivered "
	   "when asked", name, jobs);
	sht_ctf_close(&src);
}

/* Equal times on every CPU, 4 KiB packets (see test-ctf-par's ties). */
static int tie_trace(const char *dir)
{
	static const shtgen_ctfw_field f[] = { { "a", SHTGEN_CTFW_S64 } };
	shtgen_ctfw_opts o = { 4, 4096, 0, NULL };
	shtgen_ctfw *w = NULL;
	sht_err err = shtgen_ctfw_create(dir, &o, &w);

	if (err == SHT_OK)
		err = shtgen_ctfw_event_class(w, "tick", f, 1, NULL);
	for (int64_t t = 5000; err == SHT_OK && t < 25000; t++)
		for (uint32_t cpu = 0; err == SHT_OK && cpu < 4; cpu++)
			for (uint64_t k = rnd(3); err == SHT_OK && k > 0; k--) {
				sht_field v = { SHT_FIELD_INT, { .i = t * 4 + (int64_t)cpu } };
				err = shtgen_ctfw_event(w, 0, t, cpu, &v);
			}
	if (err == SHT_OK)
		err = shtgen_ctfw_finish(w, NULL);
	shtgen_ctfw_destroy(w);
	return err == SHT_OK;
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED");
	const char *tmp = getenv("SHT_TMP");
	char tmpl[] = "/tmp/test-ctf-seek-XXXXXX", dir[4096], cmd[4200];
	shtgen_kgen_params p;

	if (tmp) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", tmp, tmp);
		if (system(cmd) != 0)
			return 1;
	} else if (!(tmp = mkdtemp(tmpl))) {
		return 1;
	}
	shtgen_kgen_params_init(&p);
	p.events = 1000000;
	p.cpus = 8;
	snprintf(dir, sizeof dir, "%s/kgen", tmp);
	if (ok(shtgen_kgen_write_ctf(&p, dir, NULL, NULL, NULL) == SHT_OK, "synthetic trace written")) {
		char bare[4200];

		seek_case("synthetic, 8 CPUs", dir, 2);
		snprintf(bare, sizeof bare, "%s/kgen-no-index", tmp);
		if (ok(link_trace(dir, bare, 0), "synthetic trace without its index"))
			seek_case("synthetic, 8 CPUs, no index (packet headers)", bare, 2);
	}
	snprintf(dir, sizeof dir, "%s/ties", tmp);
	if (ok(tie_trace(dir), "tie trace written"))
		seek_case("ties, 4 KiB packets", dir, 2);
	if (!shared)
		shared = "../shared";
	static const struct { const char *t; int indexed; } real[] = {
		{ "many-threads", 1 }, { "bug446190", 1 },
		{ "synctraces/scp_src", 1 }, { "xml-stub-kernel-analysis", 1 },
		{ "context-switches/context-switches-ust", 1 },
	};
	for (size_t k = 0; k < sizeof real / sizeof real[0]; k++) {
		snprintf(dir, sizeof dir, "%s/traces/%s", shared, real[k].t);
		if (access(dir, F_OK) == 0)
			seek_case(real[k].t, dir, real[k].indexed);
		else
			diag("%s absent: not tested", dir);
	}
	return done_testing();
}
