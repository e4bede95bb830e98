/*
 * test-sync-ctf.c: trace synchronization on CTF traces read through
 * libbabeltrace2:
 *
 *  - synctraces (scp between two virtual machines, lttng-modules 2.1 with
 *    the network add-ons): Trace Compass's MatchAndSyncTest finds 46
 *    matched packets and its ExperimentSyncTest asserts scp_src's
 *    transform, slope 0.9999413783703139011056845831168394 and offset
 *    79796507913179.33347660124688298171, scp_dest being the reference;
 *    then no packet is received before it is sent on the corrected
 *    clocks;
 *  - generated traces of two hosts written as CTF (sht gen kernel
 *    --hosts): their clock UUIDs are their host ids, and the result read
 *    through babeltrace2 equals the one from the generator's sources.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "tap.h"
#include <shtgen/knet.h>

#define TC_SLOPE "0.9999413783703139011056845831168394"
#define TC_OFFSET "79796507913179.33347660124688298171"

static sht_net_layout layout_of(const sht_source *src)
{
	char v[4][64];
	const char *names[4] = { "domain", "tracer_name", "tracer_major",
				 "tracer_minor" };
	sht_field f;

	for (int i = 0; i < 4; i++) {
		v[i][0] = '\0';
		if (sht_ctf_env(src, names[i], &f) != SHT_OK)
			continue;
		if (f.type == SHT_FIELD_STRING)
			snprintf(v[i], sizeof v[i], "%s", f.v.s);
		else if (f.type == SHT_FIELD_INT)
			snprintf(v[i], sizeof v[i], "%lld", (long long)f.v.i);
	}
	return sht_net_layout_from_env(v[0], v[1], v[2], v[3]);
}

struct pkt {
	uint64_t key;
	int64_t ts;
};

static int cmp_pkt(const void *a, const void *b)
{
	const struct pkt *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Read n sources through their transforms; count the packets matched by
 * key and those received before they were sent. */
static void corrected_order(sht_source *src, const sht_sync *s, size_t n,
			    uint64_t *pairs, uint64_t *early)
{
	struct pkt snd[4096], rcv[4096];
	size_t ns = 0, nr = 0;

	*pairs = *early = 0;
	for (size_t i = 0; i < n; i++) {
		sht_sync_trace_info ti;
		sht_source fixed;
		sht_event ev;
		sht_field f;

		sht_sync_trace(s, i, &ti);
		src[i].ops->seek(src[i].src, 0);
		sht_transform_source(&src[i], ti.transform, &fixed);
		while (fixed.ops->next(fixed.src, &ev) == SHT_OK) {
			int out = strcmp(ev.name, "inet_sock_local_out") == 0;
			uint64_t k;

			if (!out && strcmp(ev.name, "inet_sock_local_in"))
				continue;
			sht_event_field(&ev, "seq", &f);
			k = f.v.u << 32;
			sht_event_field(&ev, "ack_seq", &f);
			k |= f.v.u;
			sht_event_field(&ev, "flags", &f);
			k ^= f.v.u << 16;
			if (out && ns < 4096)
				snd[ns++] = (struct pkt){ k, ev.ts };
			else if (!out && nr < 4096)
				rcv[nr++] = (struct pkt){ k, ev.ts };
		}
		sht_transform_source_free(&fixed);
	}
	qsort(snd, ns, sizeof(*snd), cmp_pkt);
	qsort(rcv, nr, sizeof(*rcv), cmp_pkt);
	for (size_t i = 0, j = 0; i < ns && j < nr;) {
		if (snd[i].key != rcv[j].key) {
			snd[i].key < rcv[j].key ? i++ : j++;
			continue;
		}
		(*pairs)++;
		*early += rcv[j].ts < snd[i].ts;
		i++;
		j++;
	}
}

static void test_synctraces(const char *shared)
{
	char path[2][4096], host[2][40];
	const char *names[2] = { "scp_src", "scp_dest" };
	sht_source src[2];
	sht_sync_input in[2];
	sht_sync *s = NULL;
	sht_sync_trace_info a, b;
	sht_sync_pair_info pi;
	sht_sync_stats st;
	uint64_t pairs, early;

	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof path[i], "%s/traces/synctraces/%s",
			 shared, names[i]);
		if (sht_ctf_open(path[i], NULL, &src[i]) != SHT_OK)
			bail_out("cannot open %s: %s", path[i], sht_errmsg());
		ok(sht_ctf_host_id(&src[i], host[i], sizeof host[i]) == SHT_OK,
		   "%s has a clock UUID: %s", names[i], host[i]);
		in[i] = (sht_sync_input){ &src[i], names[i], host[i],
					  layout_of(&src[i]) };
		is_int(in[i].layout, SHT_NET_LAYOUT_LTTNG_2_0,
		       "%s: lttng-modules 2.1 kernel trace, layout 2.0",
		       names[i]);
	}
	is_str(host[0], "74715693-28c1-4d0d-bee9-24790a4942b0", "scp_src's host");
	is_str(host[1], "1a9a454c-b8e8-4c19-b95d-65840be0962f", "scp_dest's host");
	if (!ok(sht_sync_compute(in, 2, &s) == SHT_OK, "synchronized"))
		bail_out("%s", sht_errmsg());
	sht_sync_stats_get(s, &st);
	is_u64(st.matches, 46, "46 matched packets, as Trace Compass");
	is_u64(st.events, 110771 + 85729, "every event read");
	is_int(sht_sync_quality_get(s), SHT_SYNC_ACCURATE, "quality accurate");
	sht_sync_trace(s, 0, &a);
	sht_sync_trace(s, 1, &b);
	is_str(sht_transform_slope(a.transform), TC_SLOPE,
	       "scp_src's slope is Trace Compass's");
	is_str(sht_transform_offset(a.transform), TC_OFFSET,
	       "scp_src's offset is Trace Compass's");
	ok(!a.reference && a.synced, "scp_src is synchronized");
	ok(b.reference && sht_transform_is_identity(b.transform),
	   "scp_dest is the reference: identity");
	ok(sht_sync_pair_count(s) == 1 && sht_sync_pair(s, 0, &pi) == SHT_OK &&
	   pi.matches == 46 && pi.quality == SHT_SYNC_ACCURATE &&
	   !strcmp(pi.reference, host[1]), "one pair, 46 matches, accurate");
	corrected_order(src, s, 2, &pairs, &early);
	ok(pairs >= 46 && early == 0, "on the corrected clocks none of the "
	   "%llu packets seen at both ends arrives before it leaves",
	   (unsigned long long)pairs);
	/* Without the transform, packets arrive before they leave. */
	{
		sht_sync *none = NULL;
		sht_sync_input one[2] = { in[0], in[1] };

		one[1].host = host[0];        /* one host: identity */
		src[0].ops->seek(src[0].src, 0);
		src[1].ops->seek(src[1].src, 0);
		sht_sync_compute(one, 2, &none);
		corrected_order(src, none, 2, &pairs, &early);
		ok(early > 0, "on the raw clocks %llu of them arrive before "
		   "they leave", (unsigned long long)early);
		sht_sync_free(none);
	}
	sht_sync_free(s);
	sht_ctf_close(&src[0]);
	sht_ctf_close(&src[1]);
}

static void test_generated(const char *tmp)
{
	shtgen_knet_params p;
	char dir[4096], path[2][4200], host[2][40];
	sht_source ctf[2], gen[2];
	sht_sync_input in[2];
	sht_sync *a = NULL, *b = NULL;
	sht_sync_trace_info ta, tb;

	shtgen_knet_params_init(&p);
	p.k.events = 100000;
	snprintf(dir, sizeof dir, "%s/hosts", tmp);
	if (!ok(shtgen_knet_write(&p, dir, 0, NULL, NULL, NULL) == SHT_OK,
		"two hosts written as CTF"))
		bail_out("%s", sht_errmsg());
	for (int i = 0; i < 2; i++) {
		snprintf(path[i], sizeof path[i], "%s/host%d", dir, i);
		if (sht_ctf_open(path[i], NULL, &ctf[i]) != SHT_OK)
			bail_out("cannot open %s: %s", path[i], sht_errmsg());
		sht_ctf_host_id(&ctf[i], host[i], sizeof host[i]);
		in[i] = (sht_sync_input){ &ctf[i], path[i], host[i],
					  layout_of(&ctf[i]) };
	}
	ok(strcmp(host[0], host[1]) != 0, "the hosts' clocks differ: %s, %s",
	   host[0], host[1]);
	ok(sht_sync_compute(in, 2, &a) == SHT_OK &&
	   sht_sync_quality_get(a) == SHT_SYNC_ACCURATE,
	   "synchronized from CTF: accurate");
	for (int i = 0; i < 2; i++) {
		shtgen_knet_source(&p, (uint32_t)i, &gen[i]);
		in[i].src = &gen[i];
	}
	ok(sht_sync_compute(in, 2, &b) == SHT_OK, "and from the generator");
	for (size_t i = 0; a && b && i < 2; i++) {
		sht_sync_trace(a, i, &ta);
		sht_sync_trace(b, i, &tb);
		ok(!strcmp(sht_transform_slope(ta.transform),
			   sht_transform_slope(tb.transform)) &&
		   !strcmp(sht_transform_offset(ta.transform),
			   sht_transform_offset(tb.transform)),
		   "host %zu: the same transform both ways (slope %s)", i,
		   sht_transform_slope(ta.transform));
	}
	sht_sync_free(a);
	sht_sync_free(b);
	for (int i = 0; i < 2; i++) {
		sht_ctf_close(&ctf[i]);
		shtgen_knet_source_free(&gen[i]);
	}
}

int main(void)
{
	const char *shared = getenv("SHT_SHARED"), *tmp = getenv("SHT_TMP");

	if (!shared || !tmp)
		bail_out("SHT_SHARED and SHT_TMP must be set");
	test_synctraces(shared);
	test_generated(tmp);
	return done_testing();
}
