/*
 * knet-int.h: the state of one host of the packet-exchanging traces
 * (knet.h), shared by knet.c (schedule, stream) and knet-out.c (source,
 * CTF and VSTF output).  Private to src/workload/.
 */
#ifndef SHTGEN_KNET_INT_H
#define SHTGEN_KNET_INT_H

#include <shtgen/knet.h>

/* A packet event of this host. */
struct knet_pev {
	sht_time ts;              /* on this host's clock */
	uint64_t order;           /* creation order (ties) */
	int out;                  /* 1: send (inet_sock_local_out) */
	uint32_t cpu;
	uint64_t sk;
	uint32_t seq, ack;
};

struct knet_host {
	shtgen_knet_params p;
	uint32_t h;
	shtgen_kgen *g;             /* the host's kernel */
	shtgen_kgen_event kev;      /* next kernel event, if have_k */
	int have_k, k_done;
	/* the schedule (the same on every host) */
	uint64_t rng;
	sht_time next_t;          /* true time of the next packet */
	uint64_t npackets;
	uint32_t seq[SHTGEN_KNET_MAX_HOSTS][2];   /* per link and direction */
	/* this host's packet events not delivered yet */
	struct knet_pev *heap;
	size_t nheap, capheap;
	uint64_t order;
	/* the current event: kev, or pev if cur_packet */
	int cur_packet;
	struct knet_pev pev;
	uint64_t index;           /* events delivered */
	uint64_t packets;         /* of those, packet events */
};

sht_err shtgen_knet_host_init(struct knet_host *s, const shtgen_knet_params *p,
			    uint32_t h);
void shtgen_knet_host_free(struct knet_host *s);
/* The next event becomes current: SHT_OK, SHT_END, or an error. */
sht_err shtgen_knet_host_next(struct knet_host *s);

/* A packet event's payload, in shtgen_knet_packet_fields order. */
extern const char *const shtgen_knet_packet_fields[6];
void shtgen_knet_packet_values(const struct knet_pev *e, sht_field v[6]);

#endif /* SHTGEN_KNET_INT_H */
