/*
 * kgen-int.h: the event class ids and syscall table of the synthetic
 * kernel trace generator (kgen.h), shared by its files.  Private to
 * src/gen/.
 */
#ifndef SHT_KGEN_INT_H
#define SHT_KGEN_INT_H

#include <string.h>

#include <shtgen/kgen.h>

/* Class ids: indexes in shtgen_kgen_classes() (kgen-classes.c keeps the
 * table in this order). */
enum kgen_class_id {
	KC_STATEDUMP_START,
	KC_STATEDUMP_PROCESS,
	KC_STATEDUMP_END,
	KC_SCHED_SWITCH,
	KC_SCHED_WAKING,
	KC_SCHED_WAKEUP,
	KC_SCHED_WAKEUP_NEW,
	KC_SCHED_FORK,
	KC_SCHED_EXEC,
	KC_SCHED_EXIT,
	KC_SCHED_FREE,
	KC_SCHED_MIGRATE,
	KC_SCHED_PI_SETPRIO,
	KC_IRQ_ENTRY,
	KC_IRQ_EXIT,
	KC_SOFTIRQ_RAISE,
	KC_SOFTIRQ_ENTRY,
	KC_SOFTIRQ_EXIT,
	KC_TIMER_ENTRY,
	KC_TIMER_EXIT,
	KC_CPU_FREQUENCY,
	KC_SYSCALLS              /* then entry, exit per kgen_syscall */
};

/* System calls, in the order of their class pairs after KC_SYSCALLS:
 * entry class = KC_SYSCALLS + 2 * s, exit class = entry + 1. */
enum kgen_syscall {
	KS_READ,
	KS_WRITE,
	KS_OPENAT,
	KS_CLOSE,
	KS_FUTEX,
	KS_POLL,
	KS_MMAP,
	KS_MUNMAP,
	KS_NANOSLEEP,
	KS_GETPID,
	KS_CLONE,
	KS_EXECVE,
	KS_EXIT_GROUP,           /* has an entry, never an exit */
	KS_COUNT
};

#define KGEN_CLASS_COUNT (KC_SYSCALLS + 2 * KS_COUNT)

static inline uint32_t kgen_sys_entry(enum kgen_syscall s)
{
	return KC_SYSCALLS + 2u * (uint32_t)s;
}

static inline uint32_t kgen_sys_exit(enum kgen_syscall s)
{
	return KC_SYSCALLS + 2u * (uint32_t)s + 1u;
}

/* 1 if a thread may block inside the syscall (read, futex, poll,
 * nanosleep). */
int shtgen_kgen_sys_blocks(enum kgen_syscall s);

/* ---- the generator's state (kgen.c), shared with its steps (kgen-sim.c) */

enum { KT_FREE, KT_RUNNING, KT_RUNNABLE, KT_BLOCKED, KT_DEAD };

enum {
	KGEN_QCAP = 16,           /* events one step can emit, with margin */
	KGEN_IDLE_PRIO = 20,
};

struct kgen_thread {
	int32_t tid, pid, ppid, prio;
	char comm[16];
	uint8_t state;            /* KT_* */
	uint8_t fresh;            /* forked, not yet run: returns from clone */
	uint8_t woken;            /* woken inside its syscall: returns next */
	int8_t sys;               /* syscall in progress, -1 none */
	int32_t cpu;              /* running on, queued on, or last ran on */
};

/* A FIFO of thread slots (a CPU's run queue). */
struct kgen_deque {
	uint32_t *v;
	uint32_t head, len, cap;  /* cap: a power of two */
};

struct kgen_cpu {
	int32_t cur;              /* running slot, -1 idle */
	int32_t irq;              /* index of the hard IRQ in progress, -1 */
	int8_t timer;             /* in the local timer interrupt */
	int8_t softirq;           /* soft IRQ running, -1 none */
	uint16_t raised;          /* soft IRQs raised, bit per vector */
	struct kgen_deque rq;
};

/* A slot list with O(1) removal of any element (order not kept). */
struct kgen_slots {
	uint32_t *v;
	uint32_t len, cap;
};

struct kgen_qev {
	uint32_t cls, cpu;
	sht_time ts;
	sht_field v[SHTGEN_KGEN_MAX_FIELDS];
	char s[2][16];
};

struct shtgen_kgen {
	shtgen_kgen_params p;
	uint64_t rng;
	sht_time now;
	uint64_t emitted;         /* events handed out */
	struct kgen_thread *th;
	uint32_t nth, cap_th;
	struct kgen_slots free_slots, blocked, dead;
	uint32_t live;            /* running + runnable + blocked */
	int32_t next_tid;
	struct kgen_cpu *cpu;
	uint32_t dump_next;       /* statedump: next event (0 = start) */
	int failed;               /* out of memory: the generator stops */
	struct kgen_qev q[KGEN_QCAP];
	uint32_t qhead, qlen;
	shtgen_kgen_stats st;
};

static inline uint64_t kgen_rnd(shtgen_kgen *g)
{
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint32_t kgen_below(shtgen_kgen *g, uint32_t n)
{
	return (uint32_t)(((kgen_rnd(g) >> 32) * (uint64_t)n) >> 32);
}

/* Queue an event of class cls on cpu, stamped a random gap after the
 * previous one; the caller fills its values. */
static inline struct kgen_qev *kgen_emit(shtgen_kgen *g, uint32_t cls,
					 uint32_t cpu)
{
	struct kgen_qev *e = &g->q[(g->qhead + g->qlen++) % KGEN_QCAP];

	g->now += 1 + kgen_below(g, 2 * g->p.mean_gap - 1);
	e->cls = cls;
	e->cpu = cpu;
	e->ts = g->now;
	return e;
}

static inline void kgen_int(struct kgen_qev *e, uint32_t i, int64_t x)
{
	e->v[i].type = SHT_FIELD_INT;
	e->v[i].v.i = x;
}

static inline void kgen_uint(struct kgen_qev *e, uint32_t i, uint64_t x)
{
	e->v[i].type = SHT_FIELD_UINT;
	e->v[i].v.u = x;
}

static inline void kgen_str(struct kgen_qev *e, uint32_t i, const char *s)
{
	e->v[i].type = SHT_FIELD_STRING;
	e->v[i].v.s = s;
}

/* A comm, copied into the event's own buffer k (the thread may change). */
static inline void kgen_comm(struct kgen_qev *e, uint32_t i, uint32_t k,
			     const char *s)
{
	size_t n = strnlen(s, 15);

	memcpy(e->s[k], s, n);
	e->s[k][n] = '\0';
	kgen_str(e, i, e->s[k]);
}

/* Containers and threads (kgen.c); -1 when out of memory. */
int shtgen_kgen_slots_add(struct kgen_slots *s, uint32_t slot);
uint32_t shtgen_kgen_slots_take(struct kgen_slots *s, uint32_t i);
int shtgen_kgen_dq_push(struct kgen_deque *d, uint32_t slot);
uint32_t shtgen_kgen_dq_pop_head(struct kgen_deque *d);
uint32_t shtgen_kgen_dq_pop_tail(struct kgen_deque *d);
/* A new thread slot with the next tid, zeroed but for sys = -1. */
int shtgen_kgen_thread_new(shtgen_kgen *g, uint32_t *slot);
/* Queue slot on CPU c's run queue, as RUNNABLE. */
int shtgen_kgen_make_runnable(shtgen_kgen *g, uint32_t slot, uint32_t c);
void shtgen_kgen_comm_set(struct kgen_thread *t, const char *name);
/* A plausible comm / program name for the n-th initial process. */
const char *shtgen_kgen_comm_name(uint32_t n);

/* One simulation step (kgen-sim.c): queues at least one event.  -1 when
 * out of memory. */
int shtgen_kgen_step(shtgen_kgen *g);

#endif /* SHT_KGEN_INT_H */
