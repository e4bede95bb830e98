/*
 * cpucum.h: CPU Usage answered from the cumulative CPU time history
 * (cpuacc.c builds it; cpu-cum.c queries it; out-cpu.c writes the
 * answers and keeps the sum of the running-thread intervals for when
 * that history is not there).
 */
#ifndef SHT_SERVER_CPUCUM_H
#define SHT_SERVER_CPUCUM_H

#include "srv.h"

/* CPU time of one thread. */
struct cpu_usage {
	int64_t tid;
	int64_t ns;
};

/* The Current_thread quarks of the kernel history's CPUs (*n, malloc'd;
 * NULL with *n = 0 if none or out of memory). */
sht_quark *srv_cpu_running_quarks(struct srv_hist *h, size_t *n);

/* Both histories complete, over the same range: 1 (the cumulative one
 * answers), else 0. */
int srv_cpucum_ready(const struct srv_hq *kq, const struct srv_hq *cq);

/* CPU time per thread (tid > 0, ns > 0, by tid) over [t1, t2] (trace
 * times); *total their sum.  NULL on failure (then sum the intervals). */
struct cpu_usage *srv_cpucum_tree(struct srv_hq *kq, struct srv_hq *cq,
				  sht_time t1, sht_time t2, size_t *n,
				  int64_t *total);

/* For each thread tids[s] (< 0: every thread, the Total), the CPU time
 * in (T[i], T[i + 1]] into out[s * (nt - 1) + i]; T (trace times)
 * sorted, evenly spaced by step > 0 but for the last and maybe the first
 * (INT64_MIN, before the history), else step 0.
 * 0, or -1 on failure (then sum the intervals). */
int srv_cpucum_series(struct srv_hq *kq, struct srv_hq *cq, const int64_t *tids,
		      size_t ns, const sht_time *T, size_t nt, sht_time step,
		      int64_t *out);

#endif /* SHT_SERVER_CPUCUM_H */
