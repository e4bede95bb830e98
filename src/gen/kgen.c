/*
 * kgen.c: the synthetic kernel trace generator (kgen.h): parameters, the
 * initial threads and their statedump, and handing out events one at a
 * time.  The simulation steps are in kgen-sim.c.
 *
 * State: threads in a slot table (RUNNING on a CPU, RUNNABLE in a CPU's
 * FIFO run queue, BLOCKED inside a system call, DEAD until freed; a freed
 * slot is reused, its tid never), and per CPU its current thread (-1: the
 * idle swapper), the interrupt in progress, the soft IRQs raised and the
 * one running.  Memory is bounded by the most threads alive at once.
 *
 * Start: `threads` threads in processes of one to four threads; CPU c
 * runs thread c, the next 2 * cpus threads wait in the run queues, the
 * rest are blocked in a system call whose entry the trace never shows
 * (as in a real trace that starts while they sleep).  The statedump
 * (start, one process_state per thread, end) comes first, on CPU 0.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/gen-int.h"
#include "gen/kgen-int.h"

enum {
	DEFAULT_EVENTS = 1000000,
	DEFAULT_CPUS = 4,
	DEFAULT_THREADS = 200,
	DEFAULT_GAP = 400,
	MAX_CPUS = 1024,
	MAX_THREADS = 1000000,
	FIRST_TID = 1,
	/* statedump status codes (LTTng's enum) */
	SD_WAIT_CPU = 2,
	SD_WAIT = 5,
	SD_RUN = 6,
};

/* 2026-01-01T00:00:00Z in ns since the Unix epoch. */
#define DEFAULT_START ((sht_time)1767225600 * 1000000000)

static const char *const comms[] = {
	"systemd", "sshd", "bash", "postgres", "nginx", "java", "python3",
	"chrome", "make", "cc1", "kworker/u8:2", "rcu_sched", "ksoftirqd/0",
	"containerd", "node", "redis-server",
};

void shtgen_kgen_params_init(shtgen_kgen_params *p)
{
	memset(p, 0, sizeof(*p));
	p->events = DEFAULT_EVENTS;
	p->cpus = DEFAULT_CPUS;
	p->threads = DEFAULT_THREADS;
	p->seed = 1;
	p->start = DEFAULT_START;
	p->mean_gap = DEFAULT_GAP;
}

sht_err shtgen_kgen_params_check(const shtgen_kgen_params *p)
{
	if (p->cpus < 1 || p->cpus > MAX_CPUS)
		return sht_error_set(SHT_ERR_INVALID, "Cannot generate a kernel "
				 "trace: cpus=%u (1 .. %u)", p->cpus, MAX_CPUS);
	if (p->threads < 1 || p->threads > MAX_THREADS)
		return sht_error_set(SHT_ERR_INVALID, "Cannot generate a kernel "
				 "trace: threads=%u (1 .. %u)", p->threads,
				 MAX_THREADS);
	if (p->mean_gap < 1 || p->mean_gap > 1000000000u)
		return sht_error_set(SHT_ERR_INVALID, "Cannot generate a kernel "
				 "trace: mean_gap=%u ns (1 .. 10^9)",
				 p->mean_gap);
	if (p->start < 0 ||
	    (uint64_t)p->start + p->events * 2 * (uint64_t)p->mean_gap >
		    (uint64_t)INT64_MAX)
		return sht_error_set(SHT_ERR_INVALID, "Cannot generate a kernel "
				 "trace: start=%lld and %llu events overflow "
				 "the time range", (long long)p->start,
				 (unsigned long long)p->events);
	return SHT_OK;
}

const char *shtgen_kgen_comm_name(uint32_t n)
{
	return comms[n % (sizeof(comms) / sizeof(comms[0]))];
}

/* ---- containers ------------------------------------------------------------ */

static int grow(void **v, uint32_t *cap, size_t elem, uint32_t need)
{
	uint32_t n = *cap ? *cap : 16;
	void *nv;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	nv = realloc(*v, (size_t)n * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = n;
	return 0;
}

int shtgen_kgen_slots_add(struct kgen_slots *s, uint32_t slot)
{
	if (grow((void **)&s->v, &s->cap, sizeof(*s->v), s->len + 1) != 0)
		return -1;
	s->v[s->len++] = slot;
	return 0;
}

uint32_t shtgen_kgen_slots_take(struct kgen_slots *s, uint32_t i)
{
	uint32_t slot = s->v[i];

	s->v[i] = s->v[--s->len];
	return slot;
}

int shtgen_kgen_dq_push(struct kgen_deque *d, uint32_t slot)
{
	uint32_t ncap, i, *nv;

	if (d->len == d->cap) {
		ncap = d->cap ? d->cap * 2 : 16;
		nv = malloc((size_t)ncap * sizeof(*nv));
		if (!nv)
			return -1;
		for (i = 0; i < d->len; i++)
			nv[i] = d->v[(d->head + i) & (d->cap - 1)];
		free(d->v);
		d->v = nv;
		d->cap = ncap;
		d->head = 0;
	}
	d->v[(d->head + d->len++) & (d->cap - 1)] = slot;
	return 0;
}

uint32_t shtgen_kgen_dq_pop_head(struct kgen_deque *d)
{
	uint32_t slot = d->v[d->head];

	d->head = (d->head + 1) & (d->cap - 1);
	d->len--;
	return slot;
}

uint32_t shtgen_kgen_dq_pop_tail(struct kgen_deque *d)
{
	d->len--;
	return d->v[(d->head + d->len) & (d->cap - 1)];
}

/* ---- threads --------------------------------------------------------------- */

int shtgen_kgen_thread_new(shtgen_kgen *g, uint32_t *slot)
{
	if (g->free_slots.len) {
		*slot = shtgen_kgen_slots_take(&g->free_slots,
					     g->free_slots.len - 1);
	} else {
		if (grow((void **)&g->th, &g->cap_th, sizeof(*g->th),
			 g->nth + 1) != 0)
			return -1;
		*slot = g->nth++;
	}
	memset(&g->th[*slot], 0, sizeof(g->th[*slot]));
	g->th[*slot].sys = -1;
	g->th[*slot].tid = g->next_tid++;
	g->st.threads_created++;
	return 0;
}

int shtgen_kgen_make_runnable(shtgen_kgen *g, uint32_t slot, uint32_t c)
{
	g->th[slot].state = KT_RUNNABLE;
	g->th[slot].cpu = (int32_t)c;
	return shtgen_kgen_dq_push(&g->cpu[c].rq, slot);
}

void shtgen_kgen_comm_set(struct kgen_thread *t, const char *name)
{
	strncpy(t->comm, name, sizeof(t->comm) - 1);
	t->comm[sizeof(t->comm) - 1] = '\0';
}

/* Initial thread i: processes of 1 .. 4 threads, named after comms[]. */
static int initial_thread(shtgen_kgen *g, uint32_t i, uint32_t *leader,
			  uint32_t *left)
{
	uint32_t slot;
	struct kgen_thread *t;
	const struct kgen_thread *l;

	if (shtgen_kgen_thread_new(g, &slot) != 0)
		return -1;
	t = &g->th[slot];
	if (*left == 0) {                 /* a new process */
		*left = 1 + kgen_below(g, 4);
		*leader = slot;
		t->pid = t->tid;
		t->ppid = t->tid == FIRST_TID ? 0 : FIRST_TID;
		shtgen_kgen_comm_set(t, shtgen_kgen_comm_name(i));
		t->prio = 20 - (int32_t)kgen_below(g, 2) * 10;
	} else {                          /* another thread of it */
		l = &g->th[*leader];
		t->pid = l->pid;
		t->ppid = l->ppid;
		memcpy(t->comm, l->comm, sizeof(t->comm));
		t->prio = l->prio;
	}
	(*left)--;
	return 0;
}

/* The initial threads and where they are. */
static int initial_state(shtgen_kgen *g)
{
	uint32_t i, c, leader = 0, left = 0;
	struct kgen_thread *t;

	for (i = 0; i < g->p.threads; i++) {
		if (initial_thread(g, i, &leader, &left) != 0)
			return -1;
		t = &g->th[i];
		c = i % g->p.cpus;
		if (i < g->p.cpus) {
			t->state = KT_RUNNING;
			t->cpu = (int32_t)c;
			g->cpu[c].cur = (int32_t)i;
		} else if (i < 3 * g->p.cpus) {
			if (shtgen_kgen_make_runnable(g, i, c) != 0)
				return -1;
		} else {
			t->state = KT_BLOCKED;
			t->cpu = (int32_t)c;
			t->sys = (int8_t)(kgen_below(g, 2) ? KS_POLL
							   : KS_FUTEX);
			if (shtgen_kgen_slots_add(&g->blocked, i) != 0)
				return -1;
		}
	}
	g->live = g->p.threads;
	g->st.max_live = g->live;
	return 0;
}

sht_err shtgen_kgen_create(const shtgen_kgen_params *p, shtgen_kgen **out)
{
	shtgen_kgen *g;
	uint32_t c;
	sht_err err = shtgen_kgen_params_check(p);

	if (err < 0)
		return err;
	g = calloc(1, sizeof(*g));
	if (g)
		g->cpu = calloc(p->cpus, sizeof(*g->cpu));
	if (!g || !g->cpu) {
		free(g);
		return sht_error_set(SHT_ERR_NOMEM, "Cannot generate a kernel "
				 "trace: out of memory");
	}
	g->p = *p;
	g->rng = p->seed;
	g->now = p->start - 1;
	g->next_tid = FIRST_TID;
	for (c = 0; c < p->cpus; c++) {
		g->cpu[c].cur = -1;
		g->cpu[c].irq = -1;
		g->cpu[c].softirq = -1;
	}
	if (initial_state(g) != 0) {
		shtgen_kgen_destroy(g);
		return sht_error_set(SHT_ERR_NOMEM, "Cannot generate a kernel "
				 "trace: out of memory for %u threads",
				 p->threads);
	}
	*out = g;
	return SHT_OK;
}

void shtgen_kgen_destroy(shtgen_kgen *g)
{
	uint32_t c;

	if (!g)
		return;
	for (c = 0; c < g->p.cpus; c++)
		free(g->cpu[c].rq.v);
	free(g->cpu);
	free(g->th);
	free(g->free_slots.v);
	free(g->blocked.v);
	free(g->dead.v);
	free(g);
}

/* ---- statedump and delivery ---------------------------------------------- */

static int statedump_code(uint8_t state)
{
	switch (state) {
	case KT_RUNNING: return SD_RUN;
	case KT_RUNNABLE: return SD_WAIT_CPU;
	default: return SD_WAIT;
	}
}

/* Queue the next statedump event: start, one per initial thread, end. */
static void statedump_step(shtgen_kgen *g)
{
	uint32_t i = g->dump_next++;
	const struct kgen_thread *t;
	struct kgen_qev *e;

	if (i == 0) {
		kgen_emit(g, KC_STATEDUMP_START, 0);
		return;
	}
	if (i > g->p.threads) {
		kgen_emit(g, KC_STATEDUMP_END, 0);
		return;
	}
	t = &g->th[i - 1];
	e = kgen_emit(g, KC_STATEDUMP_PROCESS, 0);
	kgen_int(e, 0, t->tid);
	kgen_int(e, 1, t->tid);
	kgen_int(e, 2, t->pid);
	kgen_int(e, 3, t->pid);
	kgen_int(e, 4, t->ppid);
	kgen_int(e, 5, t->ppid);
	kgen_comm(e, 6, 0, t->comm);
	kgen_int(e, 7, 0);                /* type: user thread */
	kgen_int(e, 8, 5);                /* mode: unknown */
	kgen_int(e, 9, 0);                /* submode: none */
	kgen_int(e, 10, statedump_code(t->state));
	kgen_int(e, 11, t->cpu);
}

sht_err shtgen_kgen_next(shtgen_kgen *g, shtgen_kgen_event *ev)
{
	struct kgen_qev *e;

	if (g->failed)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot generate a kernel "
				 "trace: out of memory");
	if (g->emitted >= g->p.events)
		return SHT_END;
	while (g->qlen == 0) {
		g->qhead = 0;
		if (g->dump_next <= g->p.threads + 1) {
			statedump_step(g);
		} else if (shtgen_kgen_step(g) != 0) {
			g->failed = 1;
			return sht_error_set(SHT_ERR_NOMEM, "Cannot generate a "
					 "kernel trace: out of memory after "
					 "%llu events",
					 (unsigned long long)g->emitted);
		}
	}
	e = &g->q[g->qhead];
	g->qhead = (g->qhead + 1) % KGEN_QCAP;
	g->qlen--;
	ev->cls = e->cls;
	ev->cpu = e->cpu;
	ev->ts = e->ts;
	ev->index = g->emitted++;
	ev->values = e->v;
	g->st.events = g->emitted;
	return SHT_OK;
}

void shtgen_kgen_stats_get(const shtgen_kgen *g, shtgen_kgen_stats *out)
{
	*out = g->st;
}
