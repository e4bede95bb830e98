/*
 * kgen-sim.c: one step of the synthetic kernel (kgen.h, kgen.c).
 *
 * A step picks a CPU at random and lets it do the next plausible thing:
 *   - finish the hard IRQ or timer interrupt in progress (raising a soft
 *     IRQ first, sometimes), or the soft IRQ running, or run a raised one;
 *   - or take a hard IRQ (2.5 %), a timer interrupt (3 %), change its
 *     frequency (0.2 %);
 *   - or advance its thread.  Idle: switch to the head of its run queue,
 *     else wake a blocked thread, else steal a runnable thread from
 *     another CPU, else take a timer interrupt.  In a syscall: block
 *     (half the time in read, futex, poll and nanosleep, unless just
 *     woken) or return, sometimes waking a blocked thread first.  In user
 *     mode: be preempted (8 % if others wait), change priority (0.5 %),
 *     or enter a syscall; clone, execve and exit_group are drawn apart,
 *     fork and exit more often when the live count is 5 % off target.
 * A step also frees one dead thread, an eighth of the time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/kgen-int.h"

enum {
	TIMER_VECTOR = 236,
	PREV_RUNNING = 0,         /* sched_switch prev_state values */
	PREV_BLOCKED = 1,
	PREV_DEAD = 64,
	/* Per 2^20 syscall entries: forks (or exits) at the target size,
	 * and when the live count is 5 % off it. */
	CHURN_BASE = 100,
	CHURN_FIX = 50000,
	EXECVE_RATE = 200,        /* per 2^20 syscall entries */
};

static const struct {
	int32_t irq;
	const char *name;
	int8_t softirq;           /* raised before the exit, -1 none */
} irqs[] = {
	{ 1, "i8042", -1 },
	{ 16, "ahci[0000:00:17.0]", 4 },
	{ 24, "nvme0q1", 4 },
	{ 30, "eth0-rx-0", 3 },
	{ 31, "eth0-tx-0", 2 },
	{ 40, "i915", 6 },
};
#define NIRQS ((uint32_t)(sizeof(irqs) / sizeof(irqs[0])))

static const char *const files[] = {
	"/etc/ld.so.cache", "/lib/x86_64-linux-gnu/libc.so.6",
	"/proc/self/stat", "/var/lib/postgresql/15/main/base/16384/2619",
	"/usr/share/zoneinfo/UTC", "/tmp/build/obj/main.o",
};
#define NFILES ((uint32_t)(sizeof(files) / sizeof(files[0])))

static const char *const programs[] = {
	"/usr/bin/ls", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1",
	"/usr/bin/grep", "/usr/bin/python3.11", "/usr/sbin/nginx",
};
#define NPROGRAMS ((uint32_t)(sizeof(programs) / sizeof(programs[0])))

/* Weights of the ordinary syscalls, in enum kgen_syscall order (clone,
 * execve and exit_group are drawn apart). */
static const uint8_t sys_weight[KS_COUNT] = {
	20, 15, 6, 6, 15, 8, 5, 4, 5, 4, 0, 0, 0
};
enum { SYS_WEIGHT_SUM = 88 };

static const uint32_t freqs_khz[] = { 800000, 1600000, 2400000, 3300000 };

/* An arbitrary user-space address. */
static uint64_t uaddr(shtgen_kgen *g)
{
	return 0x7f0000000000ull | (kgen_rnd(g) & 0xfffffff000ull);
}

/* comm, tid, prio: the start of several classes' payloads. */
static struct kgen_qev *emit_task(shtgen_kgen *g, uint32_t cls, uint32_t cpu,
				  const struct kgen_thread *t)
{
	struct kgen_qev *e = kgen_emit(g, cls, cpu);

	kgen_comm(e, 0, 0, t->comm);
	kgen_int(e, 1, t->tid);
	kgen_int(e, 2, t->prio);
	return e;
}

/* ---- interrupts ------------------------------------------------------------ */

static void raise_softirq(shtgen_kgen *g, uint32_t c, int vec)
{
	kgen_uint(kgen_emit(g, KC_SOFTIRQ_RAISE, c), 0, (uint64_t)vec);
	g->cpu[c].raised |= (uint16_t)(1u << vec);
}

static void irq_entry(shtgen_kgen *g, uint32_t c)
{
	uint32_t i = kgen_below(g, NIRQS);
	struct kgen_qev *e = kgen_emit(g, KC_IRQ_ENTRY, c);

	kgen_int(e, 0, irqs[i].irq);
	kgen_str(e, 1, irqs[i].name);
	g->cpu[c].irq = (int32_t)i;
	g->st.irqs++;
}

static void irq_exit(shtgen_kgen *g, uint32_t c)
{
	uint32_t i = (uint32_t)g->cpu[c].irq;
	struct kgen_qev *e;

	if (irqs[i].softirq >= 0 && kgen_below(g, 2))
		raise_softirq(g, c, irqs[i].softirq);
	e = kgen_emit(g, KC_IRQ_EXIT, c);
	kgen_int(e, 0, irqs[i].irq);
	kgen_int(e, 1, 1);                /* IRQ_HANDLED */
	g->cpu[c].irq = -1;
}

static void timer_entry(shtgen_kgen *g, uint32_t c)
{
	kgen_int(kgen_emit(g, KC_TIMER_ENTRY, c), 0, TIMER_VECTOR);
	g->cpu[c].timer = 1;
}

static void timer_exit(shtgen_kgen *g, uint32_t c)
{
	if (kgen_below(g, 2))
		raise_softirq(g, c, 1);           /* TIMER */
	if (kgen_below(g, 8) == 0)
		raise_softirq(g, c, 9);           /* RCU */
	if (kgen_below(g, 8) == 0)
		raise_softirq(g, c, 7);           /* SCHED */
	kgen_int(kgen_emit(g, KC_TIMER_EXIT, c), 0, TIMER_VECTOR);
	g->cpu[c].timer = 0;
}

static void softirq_entry(shtgen_kgen *g, uint32_t c)
{
	struct kgen_cpu *cpu = &g->cpu[c];
	int vec = __builtin_ctz(cpu->raised);

	cpu->raised &= (uint16_t)~(1u << vec);
	cpu->softirq = (int8_t)vec;
	kgen_uint(kgen_emit(g, KC_SOFTIRQ_ENTRY, c), 0, (uint64_t)vec);
	g->st.softirqs++;
}

static void softirq_exit(shtgen_kgen *g, uint32_t c)
{
	kgen_uint(kgen_emit(g, KC_SOFTIRQ_EXIT, c), 0,
		  (uint64_t)g->cpu[c].softirq);
	g->cpu[c].softirq = -1;
}

static void frequency(shtgen_kgen *g, uint32_t c)
{
	struct kgen_qev *e = kgen_emit(g, KC_CPU_FREQUENCY, c);

	kgen_uint(e, 0, freqs_khz[kgen_below(g, 4)]);
	kgen_uint(e, 1, c);
}

/* ---- scheduling ------------------------------------------------------------ */

/* comm / tid / prio of the slot, or of CPU c's idle swapper (slot -1). */
static void task_fields(struct kgen_qev *e, uint32_t i, uint32_t k,
			const shtgen_kgen *g, int32_t slot, uint32_t c)
{
	char idle[32];

	if (slot < 0) {
		snprintf(idle, sizeof(idle), "swapper/%u", c);
		kgen_comm(e, i, k, idle);
		kgen_int(e, i + 1, 0);
		return;
	}
	kgen_comm(e, i, k, g->th[slot].comm);
	kgen_int(e, i + 1, g->th[slot].tid);
}

static int32_t task_prio(const shtgen_kgen *g, int32_t slot)
{
	return slot < 0 ? KGEN_IDLE_PRIO : g->th[slot].prio;
}

/*
 * Switch CPU c from its current thread to the head of its run queue (or
 * idle).  The outgoing thread becomes `state`: KT_RUNNABLE (queued again,
 * at the tail), KT_BLOCKED or KT_DEAD.  A forked child's first run
 * returns from clone.
 */
static int switch_out(shtgen_kgen *g, uint32_t c, int64_t prev_state,
		      uint8_t state)
{
	struct kgen_cpu *cpu = &g->cpu[c];
	int32_t prev = cpu->cur;
	int32_t next = cpu->rq.len ? (int32_t)shtgen_kgen_dq_pop_head(&cpu->rq)
				   : -1;
	struct kgen_qev *e = kgen_emit(g, KC_SCHED_SWITCH, c);

	task_fields(e, 0, 0, g, prev, c);
	kgen_int(e, 2, task_prio(g, prev));
	kgen_int(e, 3, prev_state);
	task_fields(e, 4, 1, g, next, c);
	kgen_int(e, 6, task_prio(g, next));
	g->st.switches++;
	cpu->cur = next;
	if (prev >= 0) {
		g->th[prev].state = state;
		if (state == KT_RUNNABLE &&
		    shtgen_kgen_dq_push(&cpu->rq, (uint32_t)prev) != 0)
			return -1;
		if (state == KT_BLOCKED &&
		    shtgen_kgen_slots_add(&g->blocked, (uint32_t)prev) != 0)
			return -1;
		if (state == KT_DEAD &&
		    shtgen_kgen_slots_add(&g->dead, (uint32_t)prev) != 0)
			return -1;
	}
	if (next < 0)
		return 0;
	g->th[next].state = KT_RUNNING;
	g->th[next].cpu = (int32_t)c;
	if (g->th[next].fresh) {
		g->th[next].fresh = 0;
		kgen_int(kgen_emit(g, kgen_sys_exit(KS_CLONE), c), 0, 0);
	}
	return 0;
}

/* Wake a random blocked thread from CPU c, onto its own CPU's run queue,
 * or onto c if that one is busy and c is idle. */
static int wake_one(shtgen_kgen *g, uint32_t c)
{
	uint32_t slot = shtgen_kgen_slots_take(&g->blocked,
					     kgen_below(g, g->blocked.len));
	struct kgen_thread *t = &g->th[slot];
	uint32_t target = (uint32_t)t->cpu;
	struct kgen_qev *e;

	if (g->cpu[target].cur >= 0 && g->cpu[c].cur < 0)
		target = c;
	e = emit_task(g, KC_SCHED_WAKING, c, t);
	kgen_int(e, 3, target);
	e = emit_task(g, KC_SCHED_WAKEUP, target, t);
	kgen_int(e, 3, target);
	t->woken = 1;
	return shtgen_kgen_make_runnable(g, slot, target);
}

/* Idle CPU c steals the last runnable thread of the longest other run
 * queue; 0 if there was none to steal, 1 if stolen, -1 out of memory. */
static int steal(shtgen_kgen *g, uint32_t c)
{
	uint32_t o, best = c, slot;
	struct kgen_qev *e;

	for (o = 0; o < g->p.cpus; o++)
		if (o != c && g->cpu[o].rq.len > 0 &&
		    (best == c || g->cpu[o].rq.len > g->cpu[best].rq.len))
			best = o;
	if (best == c)
		return 0;
	slot = shtgen_kgen_dq_pop_tail(&g->cpu[best].rq);
	e = emit_task(g, KC_SCHED_MIGRATE, c, &g->th[slot]);
	kgen_int(e, 3, best);
	kgen_int(e, 4, c);
	return shtgen_kgen_make_runnable(g, slot, c) == 0 ? 1 : -1;
}

/* Free a random dead thread (its parent reaped it), from CPU c. */
static int reap(shtgen_kgen *g, uint32_t c)
{
	uint32_t slot = shtgen_kgen_slots_take(&g->dead,
					     kgen_below(g, g->dead.len));

	emit_task(g, KC_SCHED_FREE, c, &g->th[slot]);
	g->th[slot].state = KT_FREE;
	return shtgen_kgen_slots_add(&g->free_slots, slot);
}

/* ---- system calls ---------------------------------------------------------- */

static void sys_entry_args(shtgen_kgen *g, struct kgen_qev *e,
			   enum kgen_syscall s)
{
	switch (s) {
	case KS_READ:
		kgen_uint(e, 0, 3 + kgen_below(g, 60));
		kgen_uint(e, 1, 1u << kgen_below(g, 17));
		break;
	case KS_WRITE:
		kgen_uint(e, 0, 1 + kgen_below(g, 60));
		kgen_uint(e, 1, uaddr(g));
		kgen_uint(e, 2, 1 + kgen_below(g, 8192));
		break;
	case KS_OPENAT:
		kgen_int(e, 0, -100);             /* AT_FDCWD */
		kgen_str(e, 1, files[kgen_below(g, NFILES)]);
		kgen_int(e, 2, 0x80000);          /* O_CLOEXEC */
		kgen_uint(e, 3, 0);
		break;
	case KS_CLOSE:
		kgen_uint(e, 0, 3 + kgen_below(g, 60));
		break;
	case KS_FUTEX:
		kgen_uint(e, 0, uaddr(g));
		kgen_int(e, 1, 128 + kgen_below(g, 2));  /* WAIT/WAKE_PRIVATE */
		kgen_uint(e, 2, 1);
		kgen_uint(e, 3, 0);
		break;
	case KS_POLL:
		kgen_uint(e, 0, uaddr(g));
		kgen_uint(e, 1, 1 + kgen_below(g, 16));
		kgen_int(e, 2, kgen_below(g, 2) ? -1 : 1000);
		break;
	case KS_MMAP:
		kgen_uint(e, 0, 0);
		kgen_uint(e, 1, (uint64_t)4096 << kgen_below(g, 10));
		kgen_int(e, 2, 3);                /* PROT_READ | PROT_WRITE */
		kgen_int(e, 3, 0x22);             /* MAP_PRIVATE | ANONYMOUS */
		kgen_int(e, 4, -1);
		kgen_int(e, 5, 0);
		break;
	case KS_MUNMAP:
		kgen_uint(e, 0, uaddr(g));
		kgen_uint(e, 1, (uint64_t)4096 << kgen_below(g, 10));
		break;
	case KS_NANOSLEEP:
		kgen_uint(e, 0, uaddr(g));
		break;
	default:                          /* getpid: no arguments */
		break;
	}
}

static void sys_exit_args(shtgen_kgen *g, struct kgen_qev *e,
			  enum kgen_syscall s, const struct kgen_thread *t)
{
	switch (s) {
	case KS_READ:
		kgen_int(e, 0, kgen_below(g, 4096));
		kgen_uint(e, 1, uaddr(g));
		break;
	case KS_WRITE:
		kgen_int(e, 0, 1 + kgen_below(g, 8192));
		break;
	case KS_OPENAT:
		kgen_int(e, 0, 3 + kgen_below(g, 60));
		break;
	case KS_FUTEX:
		kgen_int(e, 0, 0);
		kgen_uint(e, 1, uaddr(g));
		break;
	case KS_POLL:
		kgen_int(e, 0, kgen_below(g, 3));
		break;
	case KS_MMAP:
		kgen_int(e, 0, (int64_t)uaddr(g));
		break;
	case KS_NANOSLEEP:
		kgen_int(e, 0, 0);
		kgen_uint(e, 1, 0);
		break;
	case KS_GETPID:
		kgen_int(e, 0, t->pid);
		break;
	default:                          /* close, munmap */
		kgen_int(e, 0, 0);
		break;
	}
}

/* Thread slot, on CPU c, forks a thread (a third of the time) or a
 * process, which waits on a random CPU's run queue. */
static int do_clone(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	uint32_t child, target = kgen_below(g, g->p.cpus);
	int thread = kgen_below(g, 3) == 0;
	struct kgen_thread *t, *ch;
	struct kgen_qev *e = kgen_emit(g, kgen_sys_entry(KS_CLONE), c);

	kgen_uint(e, 0, thread ? 0x3d0f00u : 0x1200011u);
	kgen_uint(e, 1, thread ? uaddr(g) : 0);
	kgen_uint(e, 2, uaddr(g));
	kgen_uint(e, 3, uaddr(g));
	if (shtgen_kgen_thread_new(g, &child) != 0)
		return -1;
	t = &g->th[slot];                 /* the table may have moved */
	ch = &g->th[child];
	ch->pid = thread ? t->pid : ch->tid;
	ch->ppid = t->tid;
	ch->prio = t->prio;
	ch->fresh = 1;
	memcpy(ch->comm, t->comm, sizeof(ch->comm));
	e = kgen_emit(g, KC_SCHED_FORK, c);
	kgen_comm(e, 0, 0, t->comm);
	kgen_int(e, 1, t->tid);
	kgen_int(e, 2, t->pid);
	kgen_comm(e, 3, 1, ch->comm);
	kgen_int(e, 4, ch->tid);
	kgen_int(e, 5, ch->pid);
	kgen_int(emit_task(g, KC_SCHED_WAKEUP_NEW, c, ch), 3, target);
	kgen_int(kgen_emit(g, kgen_sys_exit(KS_CLONE), c), 0, ch->tid);
	g->live++;
	if (g->live > g->st.max_live)
		g->st.max_live = g->live;
	g->st.forks++;
	g->st.syscalls++;
	return shtgen_kgen_make_runnable(g, child, target);
}

/* The thread running on c exits and leaves the CPU for good. */
static int do_exit(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	kgen_int(kgen_emit(g, kgen_sys_entry(KS_EXIT_GROUP), c), 0, 0);
	emit_task(g, KC_SCHED_EXIT, c, &g->th[slot]);
	g->live--;
	g->st.exits++;
	g->st.syscalls++;
	return switch_out(g, c, PREV_DEAD, KT_DEAD);
}

/* The thread execs a program: its comm becomes the program's name. */
static void do_execve(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	const char *prog = programs[kgen_below(g, NPROGRAMS)];
	struct kgen_thread *t = &g->th[slot];
	struct kgen_qev *e = kgen_emit(g, kgen_sys_entry(KS_EXECVE), c);

	kgen_str(e, 0, prog);
	kgen_uint(e, 1, uaddr(g));
	kgen_uint(e, 2, uaddr(g));
	e = kgen_emit(g, KC_SCHED_EXEC, c);
	kgen_str(e, 0, prog);
	kgen_int(e, 1, t->tid);
	kgen_int(e, 2, t->tid);
	shtgen_kgen_comm_set(t, strrchr(prog, '/') + 1);
	kgen_int(kgen_emit(g, kgen_sys_exit(KS_EXECVE), c), 0, 0);
	g->st.syscalls++;
}

static enum kgen_syscall pick_syscall(shtgen_kgen *g)
{
	uint32_t x = kgen_below(g, SYS_WEIGHT_SUM), s;

	for (s = 0; x >= sys_weight[s]; s++)
		x -= sys_weight[s];
	return (enum kgen_syscall)s;
}

/* The thread on c, in user mode, enters a system call. */
static int sys_enter(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	uint64_t target = g->p.threads;
	uint32_t x = kgen_below(g, 1u << 20);
	uint32_t fork_rate = CHURN_BASE, exit_rate = CHURN_BASE;
	enum kgen_syscall s;

	if (g->live * 20 < target * 19)
		fork_rate += CHURN_FIX;
	if (g->live * 20 > target * 21)
		exit_rate += CHURN_FIX;
	if (x < fork_rate)
		return do_clone(g, c, slot);
	x -= fork_rate;
	if (x < exit_rate && g->live > 1)
		return do_exit(g, c, slot);
	if (x < exit_rate + EXECVE_RATE) {
		do_execve(g, c, slot);
		return 0;
	}
	s = pick_syscall(g);
	sys_entry_args(g, kgen_emit(g, kgen_sys_entry(s), c), s);
	g->th[slot].sys = (int8_t)s;
	g->st.syscalls++;
	return 0;
}

/* The thread on c, inside a syscall, blocks or returns. */
static int sys_step(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	struct kgen_thread *t = &g->th[slot];
	enum kgen_syscall s = (enum kgen_syscall)t->sys;

	if (shtgen_kgen_sys_blocks(s) && !t->woken && kgen_below(g, 2))
		return switch_out(g, c, PREV_BLOCKED, KT_BLOCKED);
	if (g->blocked.len && kgen_below(g, 4) == 0 && wake_one(g, c) != 0)
		return -1;
	t = &g->th[slot];
	sys_exit_args(g, kgen_emit(g, kgen_sys_exit(s), c), s, t);
	t->sys = -1;
	t->woken = 0;
	return 0;
}

/* The thread on c, in user mode: preempted, new priority, or a syscall. */
static int user_step(shtgen_kgen *g, uint32_t c, uint32_t slot)
{
	uint32_t r = kgen_below(g, 1000);
	struct kgen_thread *t = &g->th[slot];
	struct kgen_qev *e;

	if (r < 80 && g->cpu[c].rq.len)
		return switch_out(g, c, PREV_RUNNING, KT_RUNNABLE);
	if (r >= 80 && r < 85) {
		e = emit_task(g, KC_SCHED_PI_SETPRIO, c, t);
		t->prio = 10 + (int32_t)kgen_below(g, 20);
		kgen_int(e, 3, t->prio);
		return 0;
	}
	return sys_enter(g, c, slot);
}

static int idle_step(shtgen_kgen *g, uint32_t c)
{
	int stolen;

	if (g->cpu[c].rq.len)
		return switch_out(g, c, PREV_RUNNING, KT_RUNNABLE);
	if (g->blocked.len && kgen_below(g, 4))
		return wake_one(g, c);
	stolen = steal(g, c);
	if (stolen != 0)
		return stolen < 0 ? -1 : 0;
	timer_entry(g, c);
	return 0;
}

int shtgen_kgen_step(shtgen_kgen *g)
{
	uint32_t c = kgen_below(g, g->p.cpus), r;
	struct kgen_cpu *cpu = &g->cpu[c];

	if (g->dead.len && kgen_below(g, 8) == 0 && reap(g, c) != 0)
		return -1;
	if (cpu->irq >= 0)
		irq_exit(g, c);
	else if (cpu->timer)
		timer_exit(g, c);
	else if (cpu->softirq >= 0)
		softirq_exit(g, c);
	else if (cpu->raised)
		softirq_entry(g, c);
	else if ((r = kgen_below(g, 1000)) < 25)
		irq_entry(g, c);
	else if (r < 55)
		timer_entry(g, c);
	else if (r < 57)
		frequency(g, c);
	else if (cpu->cur < 0)
		return idle_step(g, c);
	else if (g->th[cpu->cur].sys >= 0)
		return sys_step(g, c, (uint32_t)cpu->cur);
	else
		return user_step(g, c, (uint32_t)cpu->cur);
	return 0;
}
