/*
 * ctf-dec.h: a decoder of the stream reader (ctf-par.h): its graph
 * (ctf-dec.c) and its thread and queues (ctf-deq.c).
 */
#ifndef SHT_TRACE_CTF_DEC_H
#define SHT_TRACE_CTF_DEC_H

#include "ctf-par.h"

#define CTF_DEC_CLASSES 1024u    /* event classes cached per decoder */

struct ctf_dec {
	struct ctf_par *p;
	uint32_t k;                  /* decoder k of p->ndec */
	uint32_t n;                  /* its streams (input ports) */
	uint32_t *sid;               /* global stream of input i */
	int32_t *pkt_cpu;            /* cpu_id of input i's packet, or -1 */
	int8_t *has_cc;              /* input i's stream class has a default
					clock class: 1, 0, -1 not known yet */
	bt_message_iterator **it;    /* of input i (the sink's) */
	const bt_plugin *plugin;     /* own reference (see ctf-par.h) */
	bt_component_class_sink *cls;
	bt_graph *graph;
	uint32_t want;               /* input the next run reads */
	int at_end;                  /* it ended (sink_consume) */
	sht_err got;                 /* sink_consume's own error */
	sht_field *vals;             /* an event's values, before copying */
	uint32_t *lens;              /* their strings' lengths (with NUL) */
	uint32_t nvals;
	struct sht__wbuf nest;       /* its nested fields (ctf-nest.c) */
	struct {
		const bt_event_class *ec;
		const struct ctf_class *cls;
	} cc[CTF_DEC_CLASSES];
	/* the thread (jobs > 0) */
	pthread_mutex_t mu;          /* the queues of its streams */
	pthread_cond_t ready;        /* a chunk was published, or an end */
	pthread_cond_t room;         /* a chunk came back, a need, or stop */
	pthread_t thr;
	int started, stop;
	int64_t until;               /* the consumer's bound (INT64_MAX:
	                                none), under mu */
	int64_t run_until;           /* its copy for the thread's next run
	                                (taken under mu; INT64_MAX inline) */
	int built;                   /* 1 built, -1 failed */
	sht_err err;                 /* the build's error */
	char msg[CTF_ERRMSG];        /* its message, or a stream's */
};

/* ctf-dec.c */

/* Read one batch of input in into its stream's queue (publishing it if
 * the stream ended or its consumer starves): SHT_OK, or the stream's
 * error (its queue ends with it). */
sht_err sht__ctfd_run(struct ctf_dec *d, uint32_t in);

#endif /* SHT_TRACE_CTF_DEC_H */
