/*
 * knet.h: synthetic kernel traces of several hosts that exchange TCP
 * packets, each host with its own clock: the input of trace
 * synchronization's tests and benchmark (sht/sync.h, docs/SYNC.md).
 * Internal to the project (CLI `sht gen kernel --hosts N`, tests,
 * benchmarks).
 *
 * Time: a true time T runs from params.k.start.  Host h's clock reads
 *
 *   C_h(T) = T + h * offset + floor((T - start) * h * drift_ppb / 10^9)
 *
 * so host 0's clock is the true time and host h's is ahead by h * offset
 * ns at the start and gains h * drift_ppb ns per second.  Each host runs
 * its own kernel simulation (kgen.h, seed k.seed + h, k.events events,
 * from C_h(start)), and the hosts of each link h <-> h + 1 exchange
 * packets: one every packet_gap ns on average (1 .. 2 * packet_gap - 1
 * apart, over all links), on a random link and in a random direction,
 * travelling lat_min .. lat_max ns (uniform).  A packet is an
 * inet_sock_local_out event on the sender's clock at its send time and an
 * inet_sock_local_in event on the receiver's clock at its arrival, with
 * the fields of lttng-modules' network add-ons (sk, seq, ack_seq, check,
 * window, flags; seq and ack_seq follow each connection's byte counts, so
 * keys do not repeat before 2^32 bytes).  A host emits the packets sent
 * or received up to its last kernel event, and the arrivals of packets
 * it sent or was sent before that; a packet whose other end falls outside
 * the other host's trace appears in one trace only.
 *
 * Outputs: a source per host (events merged in its clock's time), or DIR
 * holding one trace per host, DIR/host0, DIR/host1, ... as CTF (clock
 * UUID derived from the seed and the host: traces of one run are
 * different hosts, two runs of the same options the same hosts) or
 * DIR/host0.vstf, ... as VSTF.  The same parameters give the same
 * events; with hosts = 1 ... there is nothing to synchronize (2 at least).
 */
#ifndef SHTGEN_KNET_H
#define SHTGEN_KNET_H

#include <stdint.h>

#include <shtgen/kgen.h>

#define SHTGEN_KNET_MAX_HOSTS 64u

typedef struct shtgen_knet_params {
	shtgen_kgen_params k;       /* every host's kernel (seed + h) */
	uint32_t hosts;           /* 2 .. SHTGEN_KNET_MAX_HOSTS */
	int64_t offset;           /* ns; default 3 ms */
	int64_t drift_ppb;        /* default 50 000 (50 ppm) */
	uint32_t packet_gap;      /* ns; default 100 000 */
	uint32_t lat_min, lat_max;/* ns; default 20 000 .. 200 000 */
} shtgen_knet_params;

void shtgen_knet_params_init(shtgen_knet_params *p);
/* SHT_OK or SHT_ERR_INVALID with a message naming the bad parameter. */
sht_err shtgen_knet_params_check(const shtgen_knet_params *p);

/* Host h's clock at true time t (exact). */
sht_time shtgen_knet_clock(const shtgen_knet_params *p, uint32_t h, sht_time t);
/* The true time at which host h's clock read c (the largest t with
 * C_h(t) <= c). */
sht_time shtgen_knet_true_time(const shtgen_knet_params *p, uint32_t h,
			     sht_time c);

/* Host h's events as a source: kernel events and packet events, in time
 * order (pos = ordinal; seek restarts and skips).  Free with
 * shtgen_knet_source_free. */
sht_err shtgen_knet_source(const shtgen_knet_params *p, uint32_t h,
			 sht_source *out);
void shtgen_knet_source_free(sht_source *src);

typedef struct shtgen_knet_write_stats {
	uint64_t events;          /* all hosts */
	uint64_t packet_events;   /* of those, sends and receives */
	uint64_t bytes;
	double seconds;
} shtgen_knet_write_stats;

/* Write every host's trace below dir (created; must not exist): CTF
 * directories, or VSTF files if vstf.  On failure nothing is left. */
sht_err shtgen_knet_write(const shtgen_knet_params *p, const char *dir, int vstf,
			shtgen_kgen_progress_fn progress, void *pctx,
			shtgen_knet_write_stats *stats);

#endif /* SHTGEN_KNET_H */
