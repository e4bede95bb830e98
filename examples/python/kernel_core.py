"""The core of the Linux kernel analysis as a Python provider: each CPU's
current thread (CPUs/<cpu>/Current_thread), each thread's status
(Threads/<tid>) and system call (Threads/<tid>/System_call), with the
same intervals as sht's built-in kernel analysis (and as
examples/rules/kernel-core.rules, which it follows handler for handler).

    import sht
    from kernel_core import KernelCore
    sht.build("many-threads", analysis=KernelCore(), output="core.sht")

Idle threads are Threads/0_<cpu>; before a CPU's first sched_switch its
current thread is "-1", as in Trace Compass.
"""

import sht

UNKNOWN, WAIT_BLOCKED, RUN_USERMODE, RUN_SYSCALL = 0, 1, 2, 3
INTERRUPTED, WAIT_FOR_CPU, WAIT_UNKNOWN, WAIT_FORK = 4, 5, 6, 7

# lttng_statedump_process_state's status -> the thread's (7: none).
STATEDUMP = {1: WAIT_FORK, 2: WAIT_FOR_CPU, 5: WAIT_UNKNOWN, 6: RUN_USERMODE, 7: None}

X86_VECTORS = ("local_timer", "reschedule", "spurious_apic", "error_apic", "ipi",
               "irq_work", "call_function", "call_function_single",
               "threshold_apic", "deferred_error_apic", "thermal_apic")


class KernelCore(sht.Provider):
    id = "org.sht.examples.kernel.core.python"
    version = 1

    on = {
        "sched_switch": "switch",
        "irq_handler_entry": "irq_entry",
        "irq_handler_exit": "irq_exit",
        "softirq_raise": "soft_raise",
        "irq_softirq_raise": "soft_raise",
        "*softirq_entry": "soft_entry",
        "*softirq_exit": "soft_exit",
        "exit_syscall*": "syscall_exit",
        "*syscall_exit_*": "syscall_exit",
        "compat_sys_*": "syscall_entry",
        "sys_*": "syscall_entry",
        "syscall_entry_*": "syscall_entry",
        "compat_syscall_entry_*": "syscall_entry",
        "sched_process_fork": "fork",
        "sched_process_free": "free",
        "sched_waking": "wakeup",
        "sched_wakeup": "wakeup",
        "sched_wakeup_new": "wakeup",
        "sched_migrate_task": "migrate",
        "lttng_statedump_process_state": "statedump",
    }
    on.update({"x86_irq_vectors_%s_entry" % v: "vector_entry" for v in X86_VECTORS})
    on.update({"x86_irq_vectors_%s_exit" % v: "vector_exit" for v in X86_VECTORS})

    # Entry events' prefixes, longest first: the system call's name is
    # the event's name without it.
    PREFIXES = ("compat_syscall_entry_", "syscall_entry_", "compat_sys_", "sys_")

    def setup(self, state):
        self.st = state
        self.threads = state.quark("Threads")
        self.thread_q = {}      # thread name -> quark of Threads/<name>
        self.syscall_q = {}     # thread name -> quark of Threads/<name>/System_call
        self.cpu_q = {}         # cpu -> quark of CPUs/<cpu>/Current_thread
        self.cur = {}           # cpu -> name of its current thread
        self.irqs = {}          # (cpu, irq): a hard IRQ runs
        self.soft = {}          # (cpu, vec): 1 raised, 8 running, 9 both
        self.soft_active = {}   # cpu -> soft IRQs not null

    # ---- helpers

    @staticmethod
    def name(tid, cpu):
        return "0_%d" % cpu if tid == 0 else str(tid)

    def thread(self, name):
        q = self.thread_q.get(name)
        if q is None:
            q = self.thread_q[name] = self.st.child(self.threads, name)
        return q

    def syscall(self, name):
        q = self.syscall_q.get(name)
        if q is None:
            q = self.syscall_q[name] = self.st.child(self.thread(name), "System_call")
        return q

    def current(self, cpu):
        """The current thread's name; "-1" before the CPU's first switch."""
        return self.cur.setdefault(cpu, "-1")

    def running(self, ts, name):
        """The thread resumes: in a system call or in user mode."""
        busy = self.st.ongoing(self.syscall(name)) is not None
        self.st.modify(ts, self.thread(name), RUN_SYSCALL if busy else RUN_USERMODE)

    # ---- scheduling

    def switch(self, ev, st):
        cpu, ts = ev.cpu, ev.ts
        prev = self.name(ev["prev_tid"], cpu)
        nxt = self.name(ev["next_tid"], cpu)
        state = ev["prev_state"]
        if state & 1023 == 0:
            st.modify(ts, self.thread(prev), WAIT_FOR_CPU)
        elif state & 3:
            st.modify(ts, self.thread(prev), WAIT_BLOCKED)
        elif state & 64:
            st.modify(ts, self.thread(prev), None)
        else:
            st.modify(ts, self.thread(prev), WAIT_UNKNOWN)
        self.running(ts, nxt)
        q = self.cpu_q.get(cpu)
        if q is None:
            q = self.cpu_q[cpu] = st.quark(("CPUs", str(cpu), "Current_thread"))
        st.modify(ts, q, ev["next_tid"])
        self.cur[cpu] = nxt

    def fork(self, ev, st):
        parent = self.name(ev["parent_tid"], ev.cpu)
        child = str(ev["child_tid"])
        st.modify(ev.ts, self.thread(child), WAIT_FOR_CPU)
        call = st.ongoing(self.syscall(parent))
        if call is not None:
            st.modify(ev.ts, self.syscall(child), call)

    def free(self, ev, st):
        st.clear(ev.ts, self.thread(str(ev["tid"])))

    def wakeup(self, ev, st):
        if ev.get("target_cpu") is None:
            return
        q = self.thread(str(ev["tid"]))
        if st.ongoing(q) not in (RUN_USERMODE, RUN_SYSCALL):
            st.modify(ev.ts, q, WAIT_FOR_CPU)

    def migrate(self, ev, st):
        tid = ev["tid"]
        if tid != 0 and ev.get("dest_cpu") is not None:
            st.modify(ev.ts, self.thread(str(tid)), WAIT_FOR_CPU)

    def statedump(self, ev, st):
        q = self.thread(self.name(ev["tid"], ev.cpu))
        if st.ongoing(q) is None:
            status = STATEDUMP.get(ev["status"], UNKNOWN)
            if status is not None:
                st.modify(ev.ts, q, status)

    # ---- interrupts

    def irq_entry(self, ev, st):
        cur = self.current(ev.cpu)
        self.irqs[(ev.cpu, ev["irq"])] = True
        st.modify(ev.ts, self.thread(cur), INTERRUPTED)

    def irq_exit(self, ev, st):
        cur = self.current(ev.cpu)
        if self.irqs.pop((ev.cpu, ev["irq"]), None):
            self.running(ev.ts, cur)

    def soft_raise(self, ev, st):
        key = (ev.cpu, ev["vec"])
        s = self.soft.get(key)
        if s is None:
            self.soft_active[ev.cpu] = self.soft_active.get(ev.cpu, 0) + 1
        self.soft[key] = 9 if s in (8, 9) else 1

    def soft_entry(self, ev, st):
        cur = self.current(ev.cpu)
        key = (ev.cpu, ev["vec"])
        if self.soft.get(key) is None:
            self.soft_active[ev.cpu] = self.soft_active.get(ev.cpu, 0) + 1
        self.soft[key] = 8
        st.modify(ev.ts, self.thread(cur), INTERRUPTED)

    def soft_exit(self, ev, st):
        cur = self.current(ev.cpu)
        key = (ev.cpu, ev["vec"])
        s = self.soft.get(key)
        if s == 8:
            self.soft_active[ev.cpu] = self.soft_active.get(ev.cpu, 0) - 1
        self.soft[key] = 1 if s in (1, 9) else None
        if not self.soft_active.get(ev.cpu):
            self.running(ev.ts, cur)

    def vector_entry(self, ev, st):
        st.modify(ev.ts, self.thread(self.current(ev.cpu)), INTERRUPTED)

    def vector_exit(self, ev, st):
        self.running(ev.ts, self.current(ev.cpu))

    # ---- system calls

    def syscall_entry(self, ev, st):
        cur = self.current(ev.cpu)
        name = ev.name
        for p in self.PREFIXES:
            if name.startswith(p):
                name = name[len(p):]
                break
        st.modify(ev.ts, self.syscall(cur), name)
        st.modify(ev.ts, self.thread(cur), RUN_SYSCALL)

    def syscall_exit(self, ev, st):
        cur = self.current(ev.cpu)
        st.modify(ev.ts, self.syscall(cur), None)
        st.modify(ev.ts, self.thread(cur), RUN_USERMODE)
