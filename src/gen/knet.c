/*
 * knet.c: hosts exchanging TCP packets (knet.h): parameters, the clocks,
 * the packet schedule, and each host's event stream (its kernel events
 * merged with its packet events), delivered as a source.
 *
 * Every host replays the whole packet schedule from the same seed and
 * keeps the packets it sends or receives: the schedule is a pure
 * function of the parameters, so the hosts agree on every packet without
 * sharing state.  A host's packet events wait in a small min-heap (by
 * time, then creation) until its kernel stream reaches their time; the
 * heap holds the packets in flight, at most lat_max / packet_gap * 2 or
 * so.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/gen-int.h"
#include "gen/knet-int.h"

enum {
	DEF_OFFSET = 3000000,     /* 3 ms */
	DEF_DRIFT = 50000,        /* 50 ppm */
	DEF_GAP = 100000,         /* 100 us */
	DEF_LAT_MIN = 20000,
	DEF_LAT_MAX = 200000,
	SEGMENT = 1448,           /* bytes per packet (a TCP segment) */
};

void shtgen_knet_params_init(shtgen_knet_params *p)
{
	memset(p, 0, sizeof(*p));
	shtgen_kgen_params_init(&p->k);
	p->hosts = 2;
	p->offset = DEF_OFFSET;
	p->drift_ppb = DEF_DRIFT;
	p->packet_gap = DEF_GAP;
	p->lat_min = DEF_LAT_MIN;
	p->lat_max = DEF_LAT_MAX;
}

static sht_err bad(const char *what)
{
	return sht_error_set(SHT_ERR_INVALID, "Cannot generate the traces of "
			  "several hosts: %s", what);
}

sht_err shtgen_knet_params_check(const shtgen_knet_params *p)
{
	__int128 span = (__int128)p->k.events * 2 * p->k.mean_gap;
	__int128 far = (__int128)p->k.start + span +
		       (__int128)p->hosts * (p->offset < 0 ? -p->offset
							: p->offset) +
		       span * p->hosts / 1000 + p->lat_max;

	if (p->hosts < 2 || p->hosts > SHTGEN_KNET_MAX_HOSTS)
		return bad("hosts must be 2 .. 64");
	if (p->drift_ppb <= -1000000000 / (int64_t)p->hosts ||
	    p->drift_ppb >= 1000000000 / (int64_t)p->hosts)
		return bad("drift_ppb * hosts must be within (-10^9, 10^9)");
	if (p->drift_ppb < -1000000 || p->drift_ppb > 1000000)
		return bad("drift_ppb must be within +-10^6 (0.1 %)");
	if (p->packet_gap < 1 || p->packet_gap > 1000000000u)
		return bad("packet_gap must be 1 .. 10^9 ns");
	if (p->lat_min > p->lat_max || p->lat_max > 1000000000u)
		return bad("latencies must be lat_min <= lat_max <= 10^9 ns");
	if (p->offset < -((int64_t)1 << 50) || p->offset > ((int64_t)1 << 50))
		return bad("offset must be within +-2^50 ns");
	if (far > INT64_MAX / 2 ||
	    p->k.start - (__int128)p->hosts * (p->offset < 0 ? -p->offset : 0)
		    < 0)
		return bad("start, offset and events leave the time range");
	return shtgen_kgen_params_check(&p->k);
}

/* floor(a / b), b > 0. */
static __int128 floor_div(__int128 a, __int128 b)
{
	__int128 q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

sht_time shtgen_knet_clock(const shtgen_knet_params *p, uint32_t h, sht_time t)
{
	__int128 d = (__int128)(t - p->k.start) * h * p->drift_ppb;

	return (sht_time)(t + (__int128)h * p->offset +
			  floor_div(d, 1000000000));
}

sht_time shtgen_knet_true_time(const shtgen_knet_params *p, uint32_t h,
			     sht_time c)
{
	__int128 rate = 1000000000 + (__int128)h * p->drift_ppb;
	sht_time t = (sht_time)(p->k.start +
		floor_div(((__int128)c - p->k.start - (__int128)h * p->offset) *
			  1000000000, rate));

	while (shtgen_knet_clock(p, h, t) > c)
		t--;
	while (shtgen_knet_clock(p, h, t + 1) <= c)
		t++;
	return t;
}

/* ---- the schedule ----------------------------------------------------------- */

static uint64_t rnd(struct knet_host *s)
{
	uint64_t z = (s->rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t below(struct knet_host *s, uint32_t n)
{
	return (uint32_t)(((rnd(s) >> 32) * (uint64_t)n) >> 32);
}

/* Heap order: time, then creation. */
static int pev_less(const struct knet_pev *a, const struct knet_pev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->order < b->order);
}

static int heap_push(struct knet_host *s, const struct knet_pev *e)
{
	struct knet_pev *v, t;
	size_t i, cap;

	if (s->nheap == s->capheap) {
		cap = s->capheap ? s->capheap * 2 : 64;
		v = realloc(s->heap, cap * sizeof(*v));
		if (!v)
			return -1;
		s->heap = v;
		s->capheap = cap;
	}
	i = s->nheap++;
	s->heap[i] = *e;
	while (i > 0 && pev_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
		t = s->heap[i];
		s->heap[i] = s->heap[(i - 1) / 2];
		s->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct knet_host *s, struct knet_pev *out)
{
	size_t i = 0, c;
	struct knet_pev t;

	*out = s->heap[0];
	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && pev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!pev_less(&s->heap[c], &s->heap[i]))
			break;
		t = s->heap[i];
		s->heap[i] = s->heap[c];
		s->heap[c] = t;
		i = c;
	}
}

/* The next packet of the schedule; its events on this host into the
 * heap.  -1 when out of memory. */
static int next_packet(struct knet_host *s)
{
	const shtgen_knet_params *p = &s->p;
	uint32_t link = below(s, p->hosts - 1), dir = below(s, 2);
	uint32_t lat = p->lat_min + below(s, p->lat_max - p->lat_min + 1);
	uint32_t len = 1 + below(s, SEGMENT);
	uint32_t src = link + dir, dst = link + 1 - dir;
	struct knet_pev e;
	sht_time t = s->next_t;

	memset(&e, 0, sizeof(e));
	e.sk = 0xffff880000000000ull + ((uint64_t)link << 8) + (dir << 4);
	e.seq = s->seq[link][dir];
	e.ack = s->seq[link][1 - dir];
	e.cpu = (uint32_t)(s->npackets % p->k.cpus);
	s->seq[link][dir] += len;
	if (src == s->h) {
		e.out = 1;
		e.ts = shtgen_knet_clock(p, s->h, t);
		e.order = s->order++;
		if (heap_push(s, &e) != 0)
			return -1;
	}
	if (dst == s->h) {
		e.out = 0;
		e.ts = shtgen_knet_clock(p, s->h, t + lat);
		e.order = s->order++;
		if (heap_push(s, &e) != 0)
			return -1;
	}
	s->npackets++;
	s->next_t = t + 1 + below(s, 2 * p->packet_gap - 1);
	return 0;
}

/* ---- a host's stream ------------------------------------------------------- */

sht_err shtgen_knet_host_init(struct knet_host *s, const shtgen_knet_params *p,
			    uint32_t h)
{
	shtgen_kgen_params k = p->k;
	sht_err err = shtgen_knet_params_check(p);

	memset(s, 0, sizeof(*s));
	if (err < 0)
		return err;
	if (h >= p->hosts)
		return bad("no such host");
	s->p = *p;
	s->h = h;
	k.seed = p->k.seed + h;
	k.start = shtgen_knet_clock(p, h, p->k.start);
	err = shtgen_kgen_create(&k, &s->g);
	if (err < 0)
		return err;
	/* The schedule's own seed: the same on every host. */
	s->rng = p->k.seed ^ 0x6E65747061636B74ull;
	for (uint32_t l = 0; l + 1 < p->hosts; l++) {
		s->seq[l][0] = (uint32_t)rnd(s);
		s->seq[l][1] = (uint32_t)rnd(s);
	}
	s->next_t = p->k.start + 1 + below(s, 2 * p->packet_gap - 1);
	return SHT_OK;
}

void shtgen_knet_host_free(struct knet_host *s)
{
	shtgen_kgen_destroy(s->g);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}

sht_err shtgen_knet_host_next(struct knet_host *s)
{
	sht_err err;

	if (!s->have_k && !s->k_done) {
		err = shtgen_kgen_next(s->g, &s->kev);
		if (err < 0)
			return err;
		s->have_k = err == SHT_OK;
		s->k_done = err == SHT_END;
	}
	if (s->have_k) {
		while (shtgen_knet_clock(&s->p, s->h, s->next_t) <= s->kev.ts)
			if (next_packet(s) != 0)
				return sht_error_set(SHT_ERR_NOMEM, "Cannot "
						  "generate packets: out of "
						  "memory");
		if (s->nheap && s->heap[0].ts <= s->kev.ts) {
			heap_pop(s, &s->pev);
			s->cur_packet = 1;
		} else {
			s->have_k = 0;
			s->cur_packet = 0;
		}
	} else if (s->nheap) {
		heap_pop(s, &s->pev);
		s->cur_packet = 1;
	} else {
		return SHT_END;
	}
	if (s->cur_packet)
		s->packets++;
	s->index++;
	return SHT_OK;
}

void shtgen_knet_packet_values(const struct knet_pev *e, sht_field v[6])
{
	const uint64_t u[6] = { e->sk, e->seq, e->ack, 0, 0x1000, 0x5018 };

	for (int i = 0; i < 6; i++) {
		v[i].type = SHT_FIELD_UINT;
		v[i].v.u = u[i];
	}
}

const char *const shtgen_knet_packet_fields[6] = {
	"sk", "seq", "ack_seq", "check", "window", "flags",
};
