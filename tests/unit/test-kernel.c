/*
 * test-kernel.c: the Linux kernel analysis (sht/analysis.h) against
 * ../shared/KERNEL_MODEL.md, on synthetic events run through
 * sht_state_run into an in-memory history.  Expected values come from the
 * model's text (section numbers in the messages).
 */
#include <stdio.h>
#include <string.h>

#include "sht/sht.h"
#include "event-harness.h"
#include "tap.h"

/* One run: the history (finished at the last event) and what it counted. */
struct run {
	sht_state *ss;
	sht_kernel *k;
	uint64_t events, skipped;
	sht_kernel_stats st;
};

static void run(struct run *r, const struct tev *ev, size_t n, sht_kernel_layout layout)
{
	struct tsrc s = { ev, n, 0 };
	sht_source src = { &TOPS, &s };
	sht_state_opts opts;
	sht_provider p;
	sht_err err;

	memset(r, 0, sizeof *r);
	sht_state_opts_init(&opts);
	opts.backend = SHT_BACKEND_MEMORY;
	if (sht_state_create(NULL, ev[0].ts, &opts, &r->ss) != SHT_OK ||
	    sht_kernel_create(layout, &r->k) != SHT_OK)
		bail_out("cannot create: %s", sht_errmsg());
	sht_kernel_provider(r->k, &p);
	err = sht_state_run(r->ss, &src, &p, &r->events, &r->skipped);
	if (err != SHT_OK || sht_state_finish(r->ss, ev[n - 1].ts) != SHT_OK)
		bail_out("run failed: %s", sht_errmsg());
	sht_kernel_stats_get(r->k, &r->st);
}

static void done(struct run *r)
{
	sht_state_close(r->ss);
	sht_kernel_destroy(r->k);
}

#define RUN(r, evs, layout) run(r, evs, sizeof evs / sizeof *evs, layout)

/* ---- checks by path --------------------------------------------------------- */

/* Quark of a "/"-separated path, with `last` (which may hold "/") appended
 * if not NULL; SHT_QUARK_NONE if absent. */
static sht_quark quark(struct run *r, const char *path, const char *last)
{
	sht_quark q;
	const char *el[] = { last };

	if (sht_state_quark_path(r->ss, path, false, &q) != SHT_OK)
		return SHT_QUARK_NONE;
	if (last && sht_state_quark_find(r->ss, q, el, 1, &q) != SHT_OK)
		return SHT_QUARK_NONE;
	return q;
}

/* The interval of q at t, or a null one at [-1, -1] if none. */
static sht_interval at(struct run *r, sht_quark q, sht_time t)
{
	static sht_result *res;
	sht_interval none = { q, -1, -1, { SHT_TYPE_NULL, 0, { 0 } } };

	if (!res)
		res = sht_result_create();
	if (q == SHT_QUARK_NONE || sht_state_query(r->ss, q, t, res) != SHT_OK ||
	    sht_result_count(res) != 1)
		return none;
	return *sht_result_at(res, 0);
}

/* The value of path(/last) at t, shown. */
static const char *val(struct run *r, const char *path, const char *last, sht_time t)
{
	sht_quark q = quark(r, path, last);
	sht_interval iv;

	if (q == SHT_QUARK_NONE)
		return "absent";
	iv = at(r, q, t);
	return tev_show(&iv.value);
}

/* "[start,end]=value" of the interval of path at t. */
static const char *ivs(struct run *r, const char *path, const char *last, sht_time t)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ % 4];
	sht_quark q = quark(r, path, last);
	sht_interval iv;

	if (q == SHT_QUARK_NONE)
		return "absent";
	iv = at(r, q, t);
	snprintf(b, 160, "[%lld,%lld]=%s", (long long)iv.start, (long long)iv.end, tev_show(&iv.value));
	return b;
}

#define VAL(r, path, t, want, ...) is_str(val(r, path, NULL, t), want, __VA_ARGS__)
#define IV(r, path, t, want, ...) is_str(ivs(r, path, NULL, t), want, __VA_ARGS__)

/* Every quark's path, in quark order, joined with ", ". */
static const char *all_paths(struct run *r)
{
	static char out[4096];
	char buf[256];
	size_t need, used = 0;
	uint64_t n = sht_state_attr_count(r->ss);

	out[0] = '\0';
	for (uint64_t q = 0; q < n; q++) {
		if (sht_state_attr_path(r->ss, (sht_quark)q, buf, sizeof buf, &need) != SHT_OK)
			return "error";
		used += (size_t)snprintf(out + used, sizeof out - used, "%s%s", q ? ", " : "", buf);
		if (used >= sizeof out)
			return "too long";
	}
	return out;
}

/* ---- §7: the worked example ----------------------------------------------- */

static const struct tev EX7[] = {
	{ "sched_switch", 1000, 0, { S("prev_comm", "lttng-sessiond"), I("prev_tid", 100),
	  I("prev_prio", 20), I("prev_state", 1), S("next_comm", "lttng-consumerd"),
	  I("next_tid", 200), I("next_prio", 20) } },
	{ "sched_process_exec", 2000, 0, { I("tid", 100) } },
};

static void test_worked_example(void)
{
	struct run r;

	RUN(&r, EX7, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	is_str(all_paths(&r),
	       "Threads, Threads/100, Threads/200, Threads/100/Current_cpu_rq, "
	       "Threads/200/System_call, Threads/200/Current_cpu_rq, Threads/100/Exec_name, "
	       "Threads/200/Exec_name, Threads/100/Prio, Threads/200/Prio, CPUs, CPUs/0, "
	       "CPUs/0/Current_thread", "§7: the 13 quarks in creation order");
	is_u64(sht_state_attr_count(r.ss), 13, "§7: 13 attributes, no CPUs/0/IRQs");
	IV(&r, "Threads/100", 1500, "[1000,2000]=i:1", "§6.1: prev_state 1 -> blocked");
	IV(&r, "Threads/200", 1500, "[1000,2000]=i:2", "§6.1: next runs (user mode)");
	IV(&r, "Threads/100", 999 + 1, "[1000,2000]=i:1", "intervals start at the event");
	VAL(&r, "Threads/100/Current_cpu_rq", 1000, "null", "§6.1: blocked: no run queue");
	VAL(&r, "Threads/200/Current_cpu_rq", 1000, "i:0", "§6.1: next on CPU 0's queue");
	VAL(&r, "Threads/100/Exec_name", 1000, "s:lttng-sessiond", "prev_comm");
	VAL(&r, "Threads/200/Exec_name", 1000, "s:lttng-consumerd", "next_comm");
	VAL(&r, "Threads/200/Prio", 1000, "i:20", "next_prio");
	VAL(&r, "CPUs/0/Current_thread", 1000, "i:200", "Current_thread holds the tid");
	VAL(&r, "CPUs/0", 1000, "i:2", "§6.1 step 11: CPU runs user mode");
	VAL(&r, "Threads/200/System_call", 1000, "null", "System_call created, null");
	is_u64(r.st.events, 2, "two events seen");
	is_u64(r.st.handled, 1, "sched_process_exec is not handled");
	done(&r);
}

static const struct tev EX7B[] = {
	{ "syscall_entry_openat", 1000, 1, { { NULL, 0, 0, NULL } } },
};

static void test_worked_example_syscall(void)
{
	struct run r;

	RUN(&r, EX7B, SHT_KERNEL_LAYOUT_LTTNG_2_6);
	is_str(all_paths(&r),
	       "CPUs, CPUs/1, CPUs/1/Current_thread, Threads, Threads/-1, Threads/-1/System_call",
	       "§7: syscall first: creation order");
	VAL(&r, "Threads/-1", 1000, "i:3", "§4.1: Threads/-1 before any sched_switch");
	VAL(&r, "Threads/-1/System_call", 1000, "s:openat", "§6.7: prefix removed");
	VAL(&r, "CPUs/1", 1000, "i:4", "§6.7: CPU in a system call");
	VAL(&r, "CPUs/1/Current_thread", 1000, "null", "Current_thread stays null");
	done(&r);
}

/* ---- §6.1: sched_switch and prev_state ------------------------------------ */

#define SW(t, cpu, prev, state, next) \
	{ "sched_switch", t, cpu, { I("prev_tid", prev), I("prev_state", state), I("next_tid", next) } }

static const struct tev SWITCHES[] = {
	SW(1000, 0, 0, 0, 10),
	SW(1100, 0, 10, 0, 11),        /* 10 preempted -> 5 */
	SW(1200, 0, 11, 1, 12),        /* interruptible -> 1 */
	SW(1300, 0, 12, 2, 13),        /* uninterruptible -> 1 */
	SW(1400, 0, 13, 64, 14),       /* dead -> null */
	SW(1500, 0, 14, 16, 15),       /* zombie -> 6 */
	SW(1600, 0, 15, 1024, 16),     /* noload only -> 5 */
	SW(1700, 0, 16, 65, 17),       /* 1 tested before 64 -> 1 */
	SW(1800, 0, 17, 4, 18),        /* stopped -> 6 */
	SW(1900, 0, 18, 1026, 19),     /* 2 | 1024 -> 1 */
	SW(2000, 0, 19, 128, 0),       /* -> 6; to idle */
	SW(2100, 1, 0, 0, 0),          /* idle to idle on CPU 1 */
};

static void test_sched_switch(void)
{
	static const char *const want[][2] = {
		{ "Threads/10", "i:5" }, { "Threads/11", "i:1" }, { "Threads/12", "i:1" },
		{ "Threads/13", "null" }, { "Threads/14", "i:6" }, { "Threads/15", "i:5" },
		{ "Threads/16", "i:1" }, { "Threads/17", "i:6" }, { "Threads/18", "i:1" },
		{ "Threads/19", "i:6" },
	};
	struct run r;

	RUN(&r, SWITCHES, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		VAL(&r, want[i][0], 2100, want[i][1], "§4.2 prev_state mapping: %s", want[i][0]);
	IV(&r, "Threads/10", 1050, "[1000,1099]=i:2", "10 ran from 1000 to 1099");
	VAL(&r, "Threads/10/Current_cpu_rq", 2100, "i:0", "preempted: still on CPU 0's queue");
	VAL(&r, "Threads/11/Current_cpu_rq", 2100, "null", "blocked: off the queues");
	VAL(&r, "Threads/15/Current_cpu_rq", 2100, "i:0", "1024 ignored: runnable");
	VAL(&r, "Threads/0_0", 1000, "i:5", "§4.1: the idle task of CPU 0 is 0_0");
	VAL(&r, "Threads/0_0", 2000, "i:2", "§6.1: the idle thread 'runs' (2)");
	VAL(&r, "CPUs/0/Current_thread", 2000, "i:0", "raw tid 0 for idle");
	VAL(&r, "CPUs/0", 2000, "i:0", "§6.1 step 11: update-cpu gives idle (0)");
	VAL(&r, "CPUs/0", 1900, "i:2", "running user mode before");
	ok(quark(&r, "CPUs/0/IRQs", NULL) != SHT_QUARK_NONE &&
	   quark(&r, "CPUs/0/Soft_IRQs", NULL) != SHT_QUARK_NONE,
	   "§4.3: update-cpu created CPUs/0/IRQs and Soft_IRQs");
	VAL(&r, "Threads/0_1", 2100, "i:2", "idle to idle: same attribute, ends running");
	VAL(&r, "Threads/0_1/Current_cpu_rq", 2100, "i:1", "and on CPU 1's queue");
	VAL(&r, "CPUs/1", 2100, "i:0", "CPU 1 idle");
	done(&r);
}

/* ---- §6.2 / §6.3 / §6.17: hard IRQs and vectors ---------------------------- */

static const struct tev IRQS[] = {
	SW(1000, 0, 0, 0, 10),
	{ "irq_handler_entry", 1100, 0, { I("irq", 1), S("name", "i8042") } },
	{ "irq_handler_exit", 1200, 0, { I("irq", 1), I("ret", 1) } },
	{ "irq_handler_exit", 1300, 0, { I("irq", 5) } },           /* never entered */
	{ "irq_handler_entry", 1400, 1, { I("irq", 9), S("name", "acpi") } },  /* no switch yet */
	{ "x86_irq_vectors_local_timer_entry", 1500, 0, { I("vector", 236) } },
	{ "x86_irq_vectors_local_timer_exit", 1600, 0, { I("vector", 236) } },
	{ "irq_handler_exit", 1700, 1, { I("irq", 9) } },
	{ "sched_process_exec", 1800, 0, { { NULL, 0, 0, NULL } } },
};

static void test_irqs(void)
{
	struct run r;

	RUN(&r, IRQS, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	is_str(ivs(&r, "CPUs/0/IRQs", "1/i8042", 1150), "[1100,1199]=i:0",
	       "§6.2 v31: CPUs/0/IRQs/\"1/i8042\" holds the CPU while active");
	is_str(val(&r, "CPUs/0/IRQs", "1/i8042", 1200), "null", "§6.3: null after exit");
	is_str(ivs(&r, "IRQs", "1/i8042", 1150), "[1100,1199]=i:0", "aggregate IRQs/1/i8042");
	is_str(val(&r, "IRQs", "1/i8042", 1250), "null", "cpu-for-irq finds nothing in v31");
	IV(&r, "Threads/10", 1150, "[1100,1199]=i:4", "§6.2: interrupted thread: 4");
	VAL(&r, "Threads/10", 1250, "i:2", "§6.3: set-running after exit");
	IV(&r, "CPUs/0", 1150, "[1100,1199]=i:16", "§6.2: CPU in hard IRQ: 16");
	VAL(&r, "CPUs/0", 1250, "i:2", "§6.3: update-cpu: user mode");
	ok(quark(&r, "CPUs/0/IRQs", "5") == SHT_QUARK_NONE, "§6.3: exit without entry creates no IRQ");
	is_u64(r.st.stopped, 1, "the exit without entry was stopped");
	VAL(&r, "Threads/-1", 1450, "i:4", "§4.1: IRQ before the first switch on CPU 1");
	is_str(val(&r, "CPUs/1/IRQs", "9/acpi", 1450), "i:1", "IRQ 9 on CPU 1");
	VAL(&r, "CPUs/1", 1450, "i:16", "CPU 1 in IRQ");
	VAL(&r, "Threads/-1", 1750, "i:2", "set-running of Threads/-1");
	VAL(&r, "CPUs/1", 1750, "null", "§4.3: no current thread -> null CPU status");
	IV(&r, "CPUs/0/IRQs/236", 1550, "[1500,1599]=i:0", "§6.17: vector by number");
	IV(&r, "IRQs/236", 1550, "[1500,1599]=i:0", "aggregate vector");
	VAL(&r, "IRQs/236", 1600, "null", "cpu-for-irq: no other CPU");
	IV(&r, "Threads/10", 1550, "[1500,1599]=i:4", "vector interrupts the thread");
	VAL(&r, "CPUs/0", 1600, "i:2", "back to user mode");
	done(&r);
}

/* cpu-for-irq probes CPUs/<c>/IRQs/<n> on every CPU; a probe that finds
 * nothing is remembered (kernel-helpers.c) and must not hide the
 * attribute once it is created: CPUs/1/IRQs/236 is probed absent at 1200,
 * created at 1300, and must be found by the probe at 1500. */
#define VEC(name, t, cpu, v) { "x86_irq_vectors_" name, t, cpu, { I("vector", v) } }

static const struct tev PROBES[] = {
	SW(1000, 0, 0, 0, 10),
	SW(1010, 1, 0, 0, 11),
	VEC("reschedule_entry", 1050, 1, 253),      /* makes CPUs/1/IRQs */
	VEC("reschedule_exit", 1060, 1, 253),
	VEC("local_timer_entry", 1100, 0, 236),
	VEC("local_timer_exit", 1200, 0, 236),      /* CPUs/1/IRQs/236: absent */
	VEC("local_timer_entry", 1300, 1, 236),     /* now created */
	VEC("local_timer_entry", 1400, 0, 236),
	VEC("local_timer_exit", 1500, 0, 236),      /* finds CPU 1's */
	VEC("local_timer_exit", 1600, 1, 236),
	VEC("local_timer_exit", 1700, 0, 236),      /* none active: probes */
};

static void test_probe_absent_then_created(void)
{
	struct run r;

	RUN(&r, PROBES, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	VAL(&r, "IRQs/236", 1250, "null", "cpu-for-irq at 1200: no CPU has vector 236");
	IV(&r, "CPUs/1/IRQs/236", 1350, "[1300,1599]=i:1", "created on CPU 1 at 1300");
	IV(&r, "IRQs/236", 1450, "[1400,1499]=i:0", "entry on CPU 0 sets the aggregate");
	IV(&r, "IRQs/236", 1550, "[1500,1599]=i:1",
	   "cpu-for-irq at 1500 finds CPUs/1/IRQs/236 (probed absent before it existed)");
	VAL(&r, "IRQs/236", 1650, "null", "no CPU active after 1600");
	done(&r);
}

/* ---- §6.4 - §6.6: soft IRQs ------------------------------------------------- */

#define SOFT(name, t, cpu, vec) { name, t, cpu, { I("vec", vec) } }

static const struct tev SOFTS[] = {
	SW(1000, 0, 0, 0, 10),
	SOFT("irq_softirq_raise", 1100, 0, 1),
	SOFT("irq_softirq_entry", 1200, 0, 1),
	SOFT("irq_softirq_raise", 1300, 0, 1),
	SOFT("irq_softirq_raise", 1350, 1, 1),
	SOFT("irq_softirq_exit", 1400, 0, 1),
	SOFT("irq_softirq_entry", 1500, 0, 1),
	SOFT("irq_softirq_exit", 1600, 0, 1),
	SOFT("softirq_entry", 1700, 0, 3),          /* 2.6 name: ignored in 2.7 */
	SOFT("irq_softirq_entry", 1800, 1, 1),
	SOFT("irq_softirq_exit", 1900, 1, 1),
};

static void test_softirqs(void)
{
	struct run r;

	RUN(&r, SOFTS, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	IV(&r, "CPUs/0/Soft_IRQs/1", 1150, "[1100,1199]=i:1", "§6.6: raised: 1");
	IV(&r, "CPUs/0/Soft_IRQs/1", 1250, "[1200,1299]=i:8", "§6.4: running: 8");
	IV(&r, "CPUs/0/Soft_IRQs/1", 1300, "[1300,1399]=i:9", "§6.6: raised while running: 9");
	IV(&r, "CPUs/0/Soft_IRQs/1", 1400, "[1400,1499]=i:1", "§6.5: exit with a pending raise: 1");
	VAL(&r, "CPUs/0/Soft_IRQs/1", 1600, "null", "§6.5: exit: null");
	IV(&r, "Soft_IRQs/1", 1150, "[1100,1199]=i:1", "aggregate: raised");
	IV(&r, "Soft_IRQs/1", 1320, "[1300,1399]=i:9", "aggregate: max over CPUs (9 > 1)");
	VAL(&r, "Soft_IRQs/1", 1450, "i:1", "aggregate after exit");
	VAL(&r, "Soft_IRQs/1", 1650, "i:1", "CPU 1 still has it raised");
	VAL(&r, "CPUs/1/Soft_IRQs/1", 1350, "i:1", "raise on CPU 1");
	IV(&r, "Threads/10", 1250, "[1200,1599]=i:4",
	   "§6.5: the thread stays interrupted while a soft IRQ is pending");
	IV(&r, "Threads/10", 1600, "[1600,1900]=i:2", "§6.5 step 5: all null: set-running");
	IV(&r, "CPUs/0", 1250, "[1200,1399]=i:8", "§6.4: CPU in soft IRQ: 8");
	IV(&r, "CPUs/0", 1400, "[1400,1499]=i:2", "§6.5: pending only: user mode");
	ok(quark(&r, "CPUs/0/Soft_IRQs/3", NULL) == SHT_QUARK_NONE, "§5: softirq_entry ignored in 2.7");
	VAL(&r, "Threads/-1", 1850, "i:4", "CPU 1 without switch: Threads/-1");
	VAL(&r, "Threads/-1", 1900, "i:2", "all null on CPU 1: set-running");
	VAL(&r, "Soft_IRQs/1", 1900, "null", "aggregate null when all are null");
	done(&r);
}

/* ---- §6.7 / §6.8: system calls, both name layouts -------------------------- */

static const struct tev SYS20[] = {
	SW(1000, 0, 0, 0, 10),
	{ "sys_open", 1100, 0, { { NULL, 0, 0, NULL } } },
	{ "exit_syscall", 1200, 0, { I("ret", 3) } },
	{ "compat_sys_read", 1300, 0, { { NULL, 0, 0, NULL } } },
	{ "exit_syscall", 1400, 0, { { NULL, 0, 0, NULL } } },
	{ "syscall_entry_close", 1500, 0, { { NULL, 0, 0, NULL } } },    /* ignored */
	SW(1600, 0, 10, 0, 0),
};

static const struct tev SYS26[] = {
	SW(1000, 0, 0, 0, 10),
	{ "syscall_entry_openat", 1100, 0, { { NULL, 0, 0, NULL } } },
	SW(1150, 0, 10, 1, 11),
	SW(1170, 0, 11, 1, 10),                      /* back inside the syscall */
	{ "syscall_exit_openat", 1200, 0, { { NULL, 0, 0, NULL } } },
	{ "compat_syscall_entry_read", 1300, 0, { { NULL, 0, 0, NULL } } },
	{ "compat_syscall_exit_read", 1400, 0, { { NULL, 0, 0, NULL } } },
	{ "sys_close", 1500, 0, { { NULL, 0, 0, NULL } } },              /* ignored */
	SW(1600, 0, 10, 0, 0),
};

static void test_syscalls(void)
{
	struct run r;

	RUN(&r, SYS20, SHT_KERNEL_LAYOUT_LTTNG_2_0);
	IV(&r, "Threads/10/System_call", 1150, "[1100,1199]=s:open", "2.0: sys_open -> open");
	IV(&r, "Threads/10", 1150, "[1100,1199]=i:3", "§6.7: thread in syscall: 3");
	IV(&r, "CPUs/0", 1150, "[1100,1199]=i:4", "§6.7: CPU in syscall: 4");
	VAL(&r, "Threads/10", 1200, "i:2", "§6.8: exit_syscall: 2");
	VAL(&r, "CPUs/0", 1200, "i:2", "§6.8: CPU 2");
	VAL(&r, "Threads/10/System_call", 1350, "s:read", "compat_sys_read -> read");
	VAL(&r, "Threads/10/System_call", 1550, "null", "2.0 ignores syscall_entry_close");
	done(&r);

	RUN(&r, SYS26, SHT_KERNEL_LAYOUT_LTTNG_2_6);
	VAL(&r, "Threads/10/System_call", 1100, "s:openat", "2.6: syscall_entry_openat");
	VAL(&r, "Threads/10", 1160, "i:1", "blocked inside the syscall");
	VAL(&r, "Threads/10", 1170, "i:3", "§4.2: switched in with System_call: 3");
	VAL(&r, "CPUs/0", 1170, "i:4", "§6.1 step 11: CPU 4");
	VAL(&r, "Threads/10/System_call", 1200, "null", "syscall_exit_openat");
	VAL(&r, "Threads/10/System_call", 1300, "s:read", "compat_syscall_entry_read -> read");
	VAL(&r, "Threads/10", 1400, "i:2", "compat_syscall_exit_read");
	VAL(&r, "Threads/10/System_call", 1550, "null", "2.6 ignores sys_close");
	done(&r);

	RUN(&r, SYS20, SHT_KERNEL_LAYOUT_AUTO);
	VAL(&r, "Threads/10/System_call", 1150, "s:open", "AUTO: sys_open");
	VAL(&r, "Threads/10/System_call", 1550, "null", "AUTO: then syscall_entry_close ignored");
	ok(sht_kernel_layout_in_use(r.k) == SHT_KERNEL_LAYOUT_LTTNG_2_0, "AUTO decided 2.0");
	done(&r);

	RUN(&r, SYS26, SHT_KERNEL_LAYOUT_AUTO);
	VAL(&r, "Threads/10/System_call", 1100, "s:openat", "AUTO: syscall_entry_openat");
	VAL(&r, "Threads/10/System_call", 1550, "null", "AUTO: then sys_close ignored");
	ok(sht_kernel_layout_in_use(r.k) == SHT_KERNEL_LAYOUT_AUTO, "AUTO: 2.6 or 2.7 still open");
	done(&r);
}

/* ---- §6.9 - §6.11: fork, exit, free ----------------------------------------- */

static const struct tev FORKS[] = {
	SW(1000, 0, 0, 0, 10),
	{ "syscall_entry_clone", 1100, 0, { { NULL, 0, 0, NULL } } },
	{ "sched_process_fork", 1200, 0, { S("parent_comm", "sh"), I("parent_tid", 10),
	  I("parent_pid", 10), S("child_comm", "worker"), I("child_tid", 11), I("child_pid", 10) } },
	{ "sched_process_fork", 1250, 0, { S("child_comm", "sh2"), I("parent_tid", 10),
	  I("child_tid", 12), I("child_pid", 12) } },
	{ "sched_process_fork", 1260, 0, { S("child_comm", "old"), I("parent_tid", 20),
	  I("child_tid", 13) } },
	{ "sched_process_exit", 1300, 0, { I("tid", 11) } },
	{ "sched_process_free", 1400, 0, { I("tid", 11) } },
	{ "sched_process_fork", 1500, 0, { S("child_comm", "x"), I("child_tid", 14) } },
	{ "sched_process_fork", 1600, 0, { S("child_comm", "x"), S("parent_tid", "10"),
	  I("child_tid", 14) } },
	{ "sched_process_exec", 1700, 0, { { NULL, 0, 0, NULL } } },
};

static void test_fork_free(void)
{
	struct run r;
	sht_quark q;
	const sht_quark *kids;
	size_t n;
	char path[64];
	size_t need;
	char names[256] = "";

	RUN(&r, FORKS, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	VAL(&r, "Threads/11/PPID", 1200, "i:10", "§6.9: PPID");
	VAL(&r, "Threads/11/PID", 1200, "i:10", "§6.9: PID when tid != pid");
	VAL(&r, "Threads/11/Exec_name", 1200, "s:worker", "§6.9: Exec_name = child_comm");
	IV(&r, "Threads/11", 1200, "[1200,1399]=i:5", "§6.9: child waits for CPU until freed");
	VAL(&r, "Threads/11/Current_cpu_rq", 1200, "i:0", "§6.9: parent's run queue");
	VAL(&r, "Threads/11/System_call", 1200, "s:clone", "§6.9: parent's syscall");
	q = quark(&r, "Threads/11", NULL);
	if (sht_state_attr_children(r.ss, q, &kids, &n) == SHT_OK) {
		for (size_t i = 0; i < n; i++) {
			sht_state_attr_path(r.ss, kids[i], path, sizeof path, &need);
			strcat(names, i ? ", " : "");
			strcat(names, path);
		}
	}
	is_str(names, "Threads/11/PPID, Threads/11/PID, Threads/11/Exec_name, "
		      "Threads/11/Current_cpu_rq, Threads/11/System_call", "§6.9 creation order");
	ok(quark(&r, "Threads/12/PID", NULL) == SHT_QUARK_NONE, "§6.9: no PID when tid == pid");
	ok(quark(&r, "Threads/13/PID", NULL) == SHT_QUARK_NONE, "§6.9: no PID without child_pid");
	ok(quark(&r, "Threads/13/Current_cpu_rq", NULL) == SHT_QUARK_NONE,
	   "§6.9 step 6: parent 20 has no Current_cpu_rq: none for the child");
	ok(quark(&r, "Threads/20/System_call", NULL) != SHT_QUARK_NONE,
	   "§6.9 step 7: System_call created on the parent");
	ok(quark(&r, "Threads/13/System_call", NULL) == SHT_QUARK_NONE, "and not on the child");
	VAL(&r, "Threads/11", 1300, "i:5", "§6.10: exit does nothing");
	VAL(&r, "Threads/11", 1400, "null", "§6.11: free: null");
	VAL(&r, "Threads/11/PPID", 1400, "null", "§6.11: sub-attributes null");
	VAL(&r, "Threads/11/Exec_name", 1400, "null", "§6.11: Exec_name null");
	IV(&r, "Threads/11/PPID", 1300, "[1200,1399]=i:10", "PPID until free");
	is_u64(r.st.malformed, 2, "§2.4: missing / mistyped parent_tid: malformed");
	is_u64(r.skipped, 2, "and skipped by sht_state_run");
	ok(quark(&r, "Threads/14", NULL) == SHT_QUARK_NONE, "malformed forks create nothing");
	done(&r);
}

/* ---- §6.12 wakeups, §6.14 pi_setprio, §6.15 migrate ------------------------ */

static const struct tev WAKES[] = {
	SW(1000, 0, 0, 0, 10),
	{ "sched_wakeup", 1100, 0, { S("comm", "a"), I("tid", 20), I("prio", 20), I("target_cpu", 1) } },
	{ "sched_waking", 1200, 0, { I("tid", 10), I("prio", 20), I("target_cpu", 2) } },
	{ "sched_wakeup_new", 1300, 0, { I("tid", 21), I("target_cpu", 3) } },
	{ "sched_wakeup", 1400, 0, { I("tid", 22), I("prio", 20) } },     /* no target_cpu */
	{ "sched_pi_setprio", 1500, 0, { I("tid", 10), I("oldprio", 20), I("newprio", -2) } },
	{ "sched_migrate_task", 1600, 3, { I("tid", 20), I("orig_cpu", 1), I("dest_cpu", 3) } },
	{ "sched_migrate_task", 1700, 0, { I("tid", 0), I("dest_cpu", 3) } },
	{ "sched_wakeup", 1800, -1, { I("tid", 0), I("target_cpu", 3) } },  /* unknown CPU */
	{ "irq_handler_entry", 1850, 0, { I("irq", 3), S("name", "eth0") } },
	{ "sched_waking", 1900, 0, { I("tid", 10), I("target_cpu", 0) } }, /* interrupted */
};

static void test_wakeups(void)
{
	struct run r;

	RUN(&r, WAKES, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	VAL(&r, "Threads/20", 1100, "i:5", "§6.12: woken thread waits for CPU");
	VAL(&r, "Threads/20/Current_cpu_rq", 1100, "i:1", "target_cpu");
	VAL(&r, "Threads/20/Prio", 1100, "i:20", "prio");
	IV(&r, "Threads/10", 1200, "[1000,1849]=i:2", "§6.12: a running thread stays 2");
	VAL(&r, "Threads/10/Current_cpu_rq", 1200, "i:2", "but its run queue changes");
	VAL(&r, "Threads/21", 1300, "i:5", "sched_wakeup_new");
	ok(quark(&r, "Threads/21/Prio", NULL) == SHT_QUARK_NONE, "no prio: no Prio");
	ok(quark(&r, "Threads/22", NULL) == SHT_QUARK_NONE, "§6.12: no target_cpu: nothing created");
	VAL(&r, "Threads/10/Prio", 1500, "i:-2", "§6.14: pi_setprio");
	VAL(&r, "Threads/20", 1600, "i:5", "§6.15: migrate: 5");
	VAL(&r, "Threads/20/Current_cpu_rq", 1600, "i:3", "§6.15: dest_cpu");
	IV(&r, "Threads/0_0/Current_cpu_rq", 1700, "[1000,1900]=i:0",
	   "§6.15: migrate of tid 0 changes nothing");
	ok(quark(&r, "Threads/0", NULL) == SHT_QUARK_NONE, "no Threads/0 ever");
	VAL(&r, "Threads/10", 1900, "i:5", "§6.12: an interrupted thread (4) becomes 5");
	is_u64(r.st.stopped, 3, "three stops: no target_cpu, migrate of 0, unknown CPU");
	done(&r);
}

/* ---- §6.13: CPU frequency --------------------------------------------------- */

static const struct tev FREQS[] = {
	{ "sched_process_exec", 900, 0, { { NULL, 0, 0, NULL } } },
	{ "power_cpu_frequency", 1000, 2, { I("state", 1000), I("cpu_id", 1) } },
	{ "power_cpu_frequency", 1100, 2, { I("state", 2000), I("cpu_id", 1) } },
	{ "power_cpu_frequency", 1200, 0, { I("state", 500), I("cpu_id", 1) } },
	{ "power_cpu_frequency", 1300, 0, { I("state", 800), I("cpu_id", 1) } },
	{ "power_cpu_frequency", 1400, 0, { I("state", 800) } },          /* no cpu_id */
};

static void test_frequency(void)
{
	struct run r;

	RUN(&r, FREQS, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	is_str(all_paths(&r), "CPUs, CPUs/1, CPUs/1/Frequency, CPUs/1/Min frequency, "
			      "CPUs/1/Max frequency", "§6.13: CPU from the payload cpu_id");
	IV(&r, "CPUs/1/Frequency", 1050, "[1000,1099]=l:1000000", "§6.13: kHz x 1000, long");
	IV(&r, "CPUs/1/Frequency", 1250, "[1200,1299]=l:500000", "third value");
	IV(&r, "CPUs/1/Frequency", 1400, "[1300,1400]=l:800000", "last value to the end");
	IV(&r, "CPUs/1/Min frequency", 1000, "[900,1400]=l:500000",
	   "§6.13: Min: one interval, trace start to end");
	IV(&r, "CPUs/1/Max frequency", 1000, "[900,1400]=l:2000000", "§6.13: Max likewise");
	VAL(&r, "CPUs/1/Frequency", 900, "null", "null before the first event");
	done(&r);
}

/* ---- §6.16: statedump ------------------------------------------------------- */

#define DUMP(t, cpu, tid, pid, ppid, status, name) \
	{ "lttng_statedump_process_state", t, cpu, { I("tid", tid), I("pid", pid), \
	  I("ppid", ppid), I("status", status), S("name", name), I("type", 0) } }

static const struct tev DUMPS[] = {
	SW(1000, 0, 0, 0, 10),
	DUMP(1100, 0, 30, 30, 1, 5, "bash"),
	{ "lttng_statedump_process_state", 1200, 0, { I("tid", 31), I("pid", 30), I("ppid", 1),
	  I("status", 2), S("name", "bash"), I("cpu", 1) } },
	DUMP(1300, 2, 0, 0, 0, 6, "swapper/2"),
	DUMP(1400, 0, 10, 10, 1, 5, "init"),         /* known thread: status kept */
	DUMP(1500, 0, 40, 40, 2, 7, "dead"),
	DUMP(1600, 0, 41, 41, 2, 1, "forking"),
	DUMP(1700, 0, 42, 42, 2, 4, "zombie"),
	DUMP(1800, 0, 30, 30, 2, 6, "other"),        /* second dump: first wins */
};

static void test_statedump(void)
{
	struct run r;

	RUN(&r, DUMPS, SHT_KERNEL_LAYOUT_LTTNG_2_7);
	IV(&r, "Threads/30", 1100, "[1100,1800]=i:6", "§6.16: WAIT -> 6 from the dump's time");
	VAL(&r, "Threads/30/Exec_name", 1800, "s:bash", "Exec_name: first knowledge wins");
	VAL(&r, "Threads/30/PPID", 1800, "i:1", "PPID: first knowledge wins");
	ok(quark(&r, "Threads/30/PID", NULL) == SHT_QUARK_NONE, "tid == pid: no PID");
	VAL(&r, "Threads/31", 1200, "i:5", "WAIT_CPU -> 5");
	VAL(&r, "Threads/31/PID", 1200, "i:30", "PID");
	VAL(&r, "Threads/31/Current_cpu_rq", 1200, "i:1", "WAIT_CPU with cpu: run queue");
	VAL(&r, "Threads/0_2", 1300, "i:2", "tid 0 -> 0_<event cpu>, RUN -> 2");
	VAL(&r, "Threads/0_2/Exec_name", 1300, "s:swapper/2", "swapper name");
	VAL(&r, "Threads/10", 1400, "i:2", "a known status is kept");
	VAL(&r, "Threads/10/Exec_name", 1400, "s:init", "a null Exec_name is filled");
	VAL(&r, "Threads/40", 1500, "null", "DEAD -> null");
	VAL(&r, "Threads/41", 1600, "i:7", "WAIT_FORK -> 7");
	VAL(&r, "Threads/42", 1700, "i:0", "ZOMBIE -> 0");
	done(&r);
}

/* ---- §5: layouts -------------------------------------------------------------- */

static void test_layouts(void)
{
	ok(sht_kernel_layout_from_env("lttng-modules", "2", "8") == SHT_KERNEL_LAYOUT_LTTNG_2_7,
	   "2.8 -> 2.7 layout");
	ok(sht_kernel_layout_from_env("\"lttng-modules\"", "\"2\"", "\"6\"") ==
	   SHT_KERNEL_LAYOUT_LTTNG_2_6, "quoted 2.6");
	ok(sht_kernel_layout_from_env("lttng-modules", "2", "9") == SHT_KERNEL_LAYOUT_LTTNG_2_7,
	   "2.9 -> 2.7 layout");
	ok(sht_kernel_layout_from_env("lttng-modules", "2", "5") == SHT_KERNEL_LAYOUT_LTTNG_2_0,
	   "2.5 -> base");
	ok(sht_kernel_layout_from_env("lttng-modules", "3", "0") == SHT_KERNEL_LAYOUT_LTTNG_2_0,
	   "3.0 -> base");
	ok(sht_kernel_layout_from_env("lttng-modules", "1", "9") == SHT_KERNEL_LAYOUT_LTTNG_2_0,
	   "1.9 -> base");
	ok(sht_kernel_layout_from_env("lttng-ust", "2", "8") == SHT_KERNEL_LAYOUT_LTTNG_2_0,
	   "other tracer -> base");
	ok(sht_kernel_layout_from_env(NULL, NULL, NULL) == SHT_KERNEL_LAYOUT_LTTNG_2_0,
	   "missing env -> base");
	{
		sht_kernel *k;
		sht_provider p;

		ok(sht_kernel_create((sht_kernel_layout)9, &k) == SHT_ERR_INVALID, "bad layout");
		ok(sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k) == SHT_OK, "create");
		sht_kernel_provider(k, &p);
		is_str(p.id, "org.eclipse.tracecompass.analysis.os.linux.kernel", "provider id");
		is_u64(p.version, 31, "provider version 31");
		sht_kernel_destroy(k);
		sht_kernel_destroy(NULL);
	}
}

int main(void)
{
	test_worked_example();
	test_worked_example_syscall();
	test_sched_switch();
	test_irqs();
	test_probe_absent_then_created();
	test_softirqs();
	test_syscalls();
	test_fork_free();
	test_wakeups();
	test_frequency();
	test_statedump();
	test_layouts();
	return done_testing();
}
