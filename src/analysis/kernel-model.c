/*
 * kernel-model.c: the model of the Linux kernel analysis and of the event
 * statistics (include/sht/model.h): what each attribute holds and the
 * names of the status values, with the labels Trace Compass's views show.
 * docs/KERNEL-MODEL.md gives the same tables; tests/cli/test-describe.sh
 * checks that they agree.
 */
#include "sht/analysis.h"
#include "sht/model.h"

#define SOFTIRQ_VECTORS "vectors: 0 high priority tasklet, 1 timer, " \
	"2 network transmit, 3 network receive, 4 block device, " \
	"5 block device I/O poll, 6 tasklet, 7 scheduler, " \
	"8 high resolution timer, 9 RCU"

static const sht_attr_doc kernel_attrs[] = {
	{ "CPUs", SHT_TYPE_NULL, "The CPUs, one attribute per CPU number." },
	{ "CPUs/*", SHT_TYPE_INT32,
	  "What the CPU is doing: idle, user mode, system call, soft IRQ or "
	  "interrupt; null until a thread is known on it." },
	{ "CPUs/*/Current_thread", SHT_TYPE_INT32,
	  "Thread id of the thread running on the CPU (0: its idle thread)." },
	{ "CPUs/*/IRQs", SHT_TYPE_NULL,
	  "The hard interrupts handled on this CPU." },
	{ "CPUs/*/IRQs/*", SHT_TYPE_INT32,
	  "The CPU's number while the interrupt handler runs on it, else "
	  "null; named \"IRQ/handler\" (one name) for a device interrupt, by "
	  "its number for an x86 IPI or APIC vector." },
	{ "CPUs/*/Soft_IRQs", SHT_TYPE_NULL,
	  "The soft IRQ vectors raised or run on this CPU." },
	{ "CPUs/*/Soft_IRQs/*", SHT_TYPE_INT32,
	  "The soft IRQ vector on this CPU: raised, running, or both; null "
	  "when inactive (" SOFTIRQ_VECTORS ")." },
	{ "CPUs/*/Frequency", SHT_TYPE_INT64, "The CPU's frequency, in Hz." },
	{ "CPUs/*/Min frequency", SHT_TYPE_INT64,
	  "The lowest frequency of the CPU in the trace, in Hz (one interval "
	  "over the whole history)." },
	{ "CPUs/*/Max frequency", SHT_TYPE_INT64,
	  "The highest frequency of the CPU in the trace, in Hz (one interval "
	  "over the whole history)." },
	{ "Threads", SHT_TYPE_NULL,
	  "The threads, one attribute per thread id; the idle thread of CPU "
	  "c is 0_c, and -1 stands for the thread of a CPU before its first "
	  "context switch." },
	{ "Threads/*", SHT_TYPE_INT32,
	  "The thread's status; null while the thread is not alive or not "
	  "known." },
	{ "Threads/*/PPID", SHT_TYPE_INT32, "The parent's thread id." },
	{ "Threads/*/PID", SHT_TYPE_INT32,
	  "The process id, for a thread that is not its process's first "
	  "thread (absent for that one)." },
	{ "Threads/*/Exec_name", SHT_TYPE_STRING,
	  "The command name of the thread." },
	{ "Threads/*/Prio", SHT_TYPE_INT32,
	  "The priority as traced (kernel priority - 100: 20 for nice 0, "
	  "negative for real-time threads)." },
	{ "Threads/*/System_call", SHT_TYPE_STRING,
	  "The system call in progress (openat, read, ...), null outside "
	  "system calls." },
	{ "Threads/*/Current_cpu_rq", SHT_TYPE_INT32,
	  "The CPU whose run queue holds the thread, null when none." },
	{ "IRQs", SHT_TYPE_NULL,
	  "The hard interrupts, over all CPUs." },
	{ "IRQs/*", SHT_TYPE_INT32,
	  "The CPU that entered the interrupt handler, while it runs (for a "
	  "device interrupt: null once it exits); named as under "
	  "CPUs/*/IRQs." },
	{ "Soft_IRQs", SHT_TYPE_NULL, "The soft IRQ vectors, over all CPUs." },
	{ "Soft_IRQs/*", SHT_TYPE_INT32,
	  "The highest state of the vector over the CPUs (" SOFTIRQ_VECTORS
	  ")." },
};

static const sht_value_label kernel_labels[] = {
	{ "Threads/*", 0, "Unknown" },
	{ "Threads/*", 1, "Wait blocked" },
	{ "Threads/*", 2, "Usermode" },
	{ "Threads/*", 3, "System call" },
	{ "Threads/*", 4, "Interrupt" },
	{ "Threads/*", 5, "Wait for CPU" },
	{ "Threads/*", 6, "Wait" },
	{ "Threads/*", 7, "Wait for fork" },
	{ "CPUs/*", 0, "Idle" },
	{ "CPUs/*", 1, "Soft Irq raised" },
	{ "CPUs/*", 2, "Usermode" },
	{ "CPUs/*", 4, "System call" },
	{ "CPUs/*", 8, "Soft Irq" },
	{ "CPUs/*", 16, "Interrupt" },
	{ "CPUs/*/Soft_IRQs/*", 1, "Soft Irq raised" },
	{ "CPUs/*/Soft_IRQs/*", 8, "Soft Irq" },
	{ "CPUs/*/Soft_IRQs/*", 9, "Soft Irq raised again" },
	{ "Soft_IRQs/*", 1, "Soft Irq raised" },
	{ "Soft_IRQs/*", 8, "Soft Irq" },
	{ "Soft_IRQs/*", 9, "Soft Irq raised again" },
};

static const sht_model kernel_model = {
	kernel_attrs, sizeof(kernel_attrs) / sizeof(kernel_attrs[0]),
	kernel_labels, sizeof(kernel_labels) / sizeof(kernel_labels[0]),
};

const sht_model *sht_kernel_model(void)
{
	return &kernel_model;
}

static const sht_attr_doc evstats_attrs[] = {
	{ "total", SHT_TYPE_INT64,
	  "Events so far (null before the first: read it as 0)." },
	{ "event_types", SHT_TYPE_NULL, "One counter per event name." },
	{ "event_types/*", SHT_TYPE_INT64, "Events of this name so far." },
	{ "cpus", SHT_TYPE_NULL, "One set of counters per CPU number." },
	{ "cpus/*/total", SHT_TYPE_INT64, "Events on this CPU so far." },
	{ "cpus/*/event_types", SHT_TYPE_NULL,
	  "One counter per event name, on this CPU." },
	{ "cpus/*/event_types/*", SHT_TYPE_INT64,
	  "Events of this name on this CPU so far." },
	{ "cpus/*", SHT_TYPE_NULL, "The counters of one CPU." },
};

static const sht_model evstats_model = {
	evstats_attrs, sizeof(evstats_attrs) / sizeof(evstats_attrs[0]),
	NULL, 0,
};

const sht_model *sht_evstats_model(void)
{
	return &evstats_model;
}
