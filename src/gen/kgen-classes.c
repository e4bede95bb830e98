/*
 * kgen-classes.c: the event classes of the synthetic kernel trace
 * generator, with the payloads lttng-modules 2.12 gives them (a subset of
 * each syscall's arguments), and the trace environment it writes.
 */
#include "gen/kgen-int.h"

#define S32 SHTGEN_CTFW_S32
#define S64 SHTGEN_CTFW_S64
#define U32 SHTGEN_CTFW_U32
#define U64 SHTGEN_CTFW_U64
#define STR SHTGEN_CTFW_STRING
#define T16 SHTGEN_CTFW_TEXT16

/* Name, field count, fields. */
#define CLASS0(n) { n, 0, { { 0 } } }
#define CLASS(n, k, ...) { n, k, { __VA_ARGS__ } }
#define F(n, t) { n, t }

static const shtgen_kgen_class classes[KGEN_CLASS_COUNT] = {
	CLASS0("lttng_statedump_start"),
	CLASS("lttng_statedump_process_state", 12,
	      F("tid", S32), F("vtid", S32), F("pid", S32), F("vpid", S32),
	      F("ppid", S32), F("vppid", S32), F("name", T16),
	      F("type", S32), F("mode", S32), F("submode", S32),
	      F("status", S32), F("cpu", S32)),
	CLASS0("lttng_statedump_end"),
	CLASS("sched_switch", 7,
	      F("prev_comm", T16), F("prev_tid", S32), F("prev_prio", S32),
	      F("prev_state", S64), F("next_comm", T16), F("next_tid", S32),
	      F("next_prio", S32)),
	CLASS("sched_waking", 4, F("comm", T16), F("tid", S32),
	      F("prio", S32), F("target_cpu", S32)),
	CLASS("sched_wakeup", 4, F("comm", T16), F("tid", S32),
	      F("prio", S32), F("target_cpu", S32)),
	CLASS("sched_wakeup_new", 4, F("comm", T16), F("tid", S32),
	      F("prio", S32), F("target_cpu", S32)),
	CLASS("sched_process_fork", 6,
	      F("parent_comm", T16), F("parent_tid", S32),
	      F("parent_pid", S32), F("child_comm", T16),
	      F("child_tid", S32), F("child_pid", S32)),
	CLASS("sched_process_exec", 3, F("filename", STR), F("tid", S32),
	      F("old_tid", S32)),
	CLASS("sched_process_exit", 3, F("comm", T16), F("tid", S32),
	      F("prio", S32)),
	CLASS("sched_process_free", 3, F("comm", T16), F("tid", S32),
	      F("prio", S32)),
	CLASS("sched_migrate_task", 5, F("comm", T16), F("tid", S32),
	      F("prio", S32), F("orig_cpu", S32), F("dest_cpu", S32)),
	CLASS("sched_pi_setprio", 4, F("comm", T16), F("tid", S32),
	      F("oldprio", S32), F("newprio", S32)),
	CLASS("irq_handler_entry", 2, F("irq", S32), F("name", STR)),
	CLASS("irq_handler_exit", 2, F("irq", S32), F("ret", S32)),
	CLASS("irq_softirq_raise", 1, F("vec", U32)),
	CLASS("irq_softirq_entry", 1, F("vec", U32)),
	CLASS("irq_softirq_exit", 1, F("vec", U32)),
	CLASS("x86_irq_vectors_local_timer_entry", 1, F("vector", S32)),
	CLASS("x86_irq_vectors_local_timer_exit", 1, F("vector", S32)),
	CLASS("power_cpu_frequency", 2, F("state", U32), F("cpu_id", U32)),
	/* System calls: entry, exit, in enum kgen_syscall order. */
	CLASS("syscall_entry_read", 2, F("fd", U32), F("count", U64)),
	CLASS("syscall_exit_read", 2, F("ret", S64), F("buf", U64)),
	CLASS("syscall_entry_write", 3, F("fd", U32), F("buf", U64),
	      F("count", U64)),
	CLASS("syscall_exit_write", 1, F("ret", S64)),
	CLASS("syscall_entry_openat", 4, F("dfd", S32), F("filename", STR),
	      F("flags", S32), F("mode", U32)),
	CLASS("syscall_exit_openat", 1, F("ret", S64)),
	CLASS("syscall_entry_close", 1, F("fd", U32)),
	CLASS("syscall_exit_close", 1, F("ret", S64)),
	CLASS("syscall_entry_futex", 4, F("uaddr", U64), F("op", S32),
	      F("val", U32), F("utime", U64)),
	CLASS("syscall_exit_futex", 2, F("ret", S64), F("uaddr", U64)),
	CLASS("syscall_entry_poll", 3, F("ufds", U64), F("nfds", U32),
	      F("timeout_msecs", S32)),
	CLASS("syscall_exit_poll", 1, F("ret", S64)),
	CLASS("syscall_entry_mmap", 6, F("addr", U64), F("len", U64),
	      F("prot", S32), F("flags", S32), F("fd", S32),
	      F("offset", S64)),
	CLASS("syscall_exit_mmap", 1, F("ret", S64)),
	CLASS("syscall_entry_munmap", 2, F("addr", U64), F("len", U64)),
	CLASS("syscall_exit_munmap", 1, F("ret", S64)),
	CLASS("syscall_entry_nanosleep", 1, F("rqtp", U64)),
	CLASS("syscall_exit_nanosleep", 2, F("ret", S64), F("rmtp", U64)),
	CLASS0("syscall_entry_getpid"),
	CLASS("syscall_exit_getpid", 1, F("ret", S64)),
	CLASS("syscall_entry_clone", 4, F("clone_flags", U64),
	      F("newsp", U64), F("parent_tid", U64), F("child_tid", U64)),
	CLASS("syscall_exit_clone", 1, F("ret", S64)),
	CLASS("syscall_entry_execve", 3, F("filename", STR), F("argv", U64),
	      F("envp", U64)),
	CLASS("syscall_exit_execve", 1, F("ret", S64)),
	CLASS("syscall_entry_exit_group", 1, F("error_code", S32)),
	/* exit_group never returns, but its class pair keeps ids regular. */
	CLASS("syscall_exit_exit_group", 1, F("ret", S64)),
};

const shtgen_kgen_class *shtgen_kgen_classes(uint32_t *count)
{
	*count = KGEN_CLASS_COUNT;
	return classes;
}

int shtgen_kgen_sys_blocks(enum kgen_syscall s)
{
	return s == KS_READ || s == KS_FUTEX || s == KS_POLL ||
	       s == KS_NANOSLEEP;
}

static const shtgen_kgen_env environment[] = {
	{ "hostname", "sht-synthetic", 0 },
	{ "domain", "kernel", 0 },
	{ "sysname", "Linux", 0 },
	{ "kernel_release", "6.1.0-synthetic", 0 },
	{ "kernel_version", "#1 SMP PREEMPT_DYNAMIC", 0 },
	{ "tracer_name", "lttng-modules", 0 },
	{ "tracer_major", NULL, 2 },
	{ "tracer_minor", NULL, 12 },
	{ "tracer_patchlevel", NULL, 0 },
	{ "trace_buffering_scheme", "global", 0 },
	{ "trace_name", "sht-kgen", 0 },
	{ "trace_creation_datetime", "20260101T000000+0000", 0 },
	{ "generator", "sht gen kernel", 0 },
};

const shtgen_kgen_env *shtgen_kgen_environment(uint32_t *count)
{
	*count = (uint32_t)(sizeof(environment) / sizeof(environment[0]));
	return environment;
}
