/*
 * res.h: the Resources output's states (out-resources.c) and the look-ups
 * of the threads its CPUs run (res-threads.c).
 */
#ifndef SHT_SERVER_RES_H
#define SHT_SERVER_RES_H

#include "lives.h"
#include "tg.h"

#define NONE SHT_QUARK_NONE

/* Row kinds (the key's c; VARIANT marks an aggregate row's CPU child). */
enum { K_TRACE, K_CPU, K_THREAD, K_FREQ, K_IRQ, K_SOFT };
#define VARIANT 0x100

/* A thread met on a CPU: the quarks of its name and system call; the
 * last System_call interval looked up (sys_lo > sys_hi: none yet), its
 * name at sys_off in rstates.sysnames (sys_len -1: not a string). */
struct tid_q {
	int64_t tid;
	sht_quark thread, exec, sys; /* thread: Threads/<tid> (NONE: unknown) */
	sht_time sys_lo, sys_hi;
	size_t sys_off;
	int64_t sys_len;
	char values[64];          /* its states' style values ("": not yet) */
	size_t life_lo, life_hi;  /* its lifetimes (life_ranges) */
};

struct rstates {
	struct srv_out_ctx *c;
	struct srv_trace *t;
	const struct srv_times *ts;
	struct srv_hq q;
	struct tg_group g1, g2;   /* rows' quarks; threads' names */
	sht_result *r1, *r2, *one; /* one: a point query's */
	struct srv_buf sysnames;  /* system calls' names looked up */
	struct tid_q *tids;
	int64_t *tidv;            /* the tids of tids, to search (shared) */
	size_t ntids;
	sht_quark *ct, *maxf;     /* per row: current thread / max frequency */
	const struct srv_lives *lives; /* the history's thread lifetimes */
	const struct tg_row *rows;
	int64_t ti;               /* the trace's index */
	sht_quark threads;        /* Threads */
	struct {                  /* the last frequency state's style */
		int valid;
		int64_t hz;
		double max;
		char label[64], values[64];
	} freq;
};

#define LAZY (NONE - 1)         /* a quark not looked up yet */

/* Whether [a, b] (trace times) holds a requested time; *at = the first. */
static inline int res_hit(const struct rstates *s, sht_time a, sht_time b, sht_time *at)
{
	const struct srv_xform *xf = &s->t->xf;
	size_t i = srv_times_lower(s->ts, srv_to_exp(xf, a));

	if (i >= s->ts->n || s->ts->t[i] > srv_to_exp(xf, b))
		return 0;
	if (at)
		*at = srv_from_exp(xf, s->ts->t[i]);
	return 1;
}

/* The running threads of the first result (s->g1) and their look-ups:
 * s->tids, s->tidv, s->lives; then, without lifetimes, the second query
 * (their Exec_name, s->g2).  -1: out of memory or a failed query. */
int res_thread_names(struct rstates *s);
/* Thread tid's look-ups, or NULL if tid is not among them. */
struct tid_q *res_find_tid(const struct rstates *s, int64_t tid);
/* The system call of thread tq at t (a requested time), or NULL. */
const char *res_sys_at(struct rstates *s, struct tid_q *tq, sht_time t,
		       size_t *len);
/* The name of thread tq at t, or NULL. */
const char *res_exec_at(const struct rstates *s, const struct tid_q *tq,
			sht_time t, size_t *len);

#endif /* SHT_SERVER_RES_H */
