/*
 * kgen-model.h: an independent model of what a kernel trace may say, to
 * check the synthetic generator's events (test-kgen.c).  It knows the
 * event names and fields, not the generator's code: every rule below is
 * a fact about Linux scheduling as LTTng records it.
 */
#ifndef SHT_KGEN_MODEL_H
#define SHT_KGEN_MODEL_H

enum { M_NONE, M_NEW, M_RUN, M_READY, M_BLOCKED, M_EXITING, M_DEAD,
       M_FREED };

#define M_SYS_NONE (-1)
#define M_SYS_ANY (-2)           /* blocked since before the trace */

struct mthread {
	uint8_t st;
	int32_t sys;             /* entry class id in progress */
};

struct mcpu {
	int64_t cur;             /* tid running (0: idle), -1 unknown */
	int irq, timer, softirq; /* active (softirq: the vector, -1) */
	uint32_t raised;
};

struct model {
	const shtgen_kgen_class *classes;
	uint32_t nclasses, ncpus;
	struct mthread *th;
	size_t cap;
	struct mcpu *cpu;
	sht_time last_ts;
	int in_dump;             /* 1 before statedump_end */
	int64_t pending_wakeup;  /* tid a sched_waking announced, -1 none */
	int32_t pending_target;
	uint64_t events, errors;
	uint64_t switches, wakeups, syscalls, irqs, softirqs, forks, frees;
};

static void model_init(struct model *m, const shtgen_kgen_params *p)
{
	uint32_t c;

	memset(m, 0, sizeof *m);
	m->classes = shtgen_kgen_classes(&m->nclasses);
	m->ncpus = p->cpus;
	m->cpu = calloc(p->cpus, sizeof *m->cpu);
	for (c = 0; c < p->cpus; c++) {
		m->cpu[c].cur = -1;
		m->cpu[c].softirq = -1;
	}
	m->last_ts = INT64_MIN;
	m->in_dump = 1;
	m->pending_wakeup = -1;
}

static void model_free(struct model *m)
{
	free(m->th);
	free(m->cpu);
}

static void model_err(struct model *m, const shtgen_kgen_event *ev,
		      const char *why)
{
	if (m->errors++ < 5)
		diag("event %" PRIu64 " (%s on CPU %u): %s", ev->index,
		     m->classes[ev->cls].name, ev->cpu, why);
}

/* The thread of tid (grown as needed); NULL for a bad tid. */
static struct mthread *mthr(struct model *m, int64_t tid)
{
	size_t n;

	if (tid <= 0 || tid > 100000000)
		return NULL;
	if ((size_t)tid >= m->cap) {
		n = m->cap ? m->cap : 1024;
		while (n <= (size_t)tid)
			n *= 2;
		m->th = realloc(m->th, n * sizeof *m->th);
		memset(m->th + m->cap, 0, (n - m->cap) * sizeof *m->th);
		m->cap = n;
	}
	return &m->th[tid];
}

static int64_t fv(const struct model *m, const shtgen_kgen_event *ev,
		  const char *name)
{
	const shtgen_kgen_class *k = &m->classes[ev->cls];
	uint32_t i;

	for (i = 0; i < k->nfields; i++)
		if (strcmp(k->fields[i].name, name) == 0)
			return ev->values[i].v.i;
	return INT64_MIN;
}

static int is(const struct model *m, const shtgen_kgen_event *ev,
	      const char *name)
{
	return strcmp(m->classes[ev->cls].name, name) == 0;
}

/* The thread running on the event's CPU, or NULL (idle, unknown). */
static struct mthread *running(struct model *m, const shtgen_kgen_event *ev)
{
	int64_t tid = m->cpu[ev->cpu].cur;
	struct mthread *t = tid > 0 ? mthr(m, tid) : NULL;

	return t && t->st == M_RUN ? t : NULL;
}

static void model_dump(struct model *m, const shtgen_kgen_event *ev)
{
	struct mthread *t;
	int64_t st, cpu;

	if (is(m, ev, "lttng_statedump_end")) {
		m->in_dump = 0;
		return;
	}
	if (!is(m, ev, "lttng_statedump_process_state"))
		return;
	t = mthr(m, fv(m, ev, "tid"));
	st = fv(m, ev, "status");
	cpu = fv(m, ev, "cpu");
	if (!t || t->st != M_NONE || cpu < 0 || cpu >= m->ncpus) {
		model_err(m, ev, "statedump of a bad or repeated thread");
		return;
	}
	t->sys = M_SYS_NONE;
	if (st == 6) {
		t->st = M_RUN;
		m->cpu[cpu].cur = fv(m, ev, "tid");
	} else if (st == 2) {
		t->st = M_READY;
	} else {
		t->st = M_BLOCKED;
		t->sys = M_SYS_ANY;
	}
}

static void model_switch(struct model *m, const shtgen_kgen_event *ev)
{
	struct mcpu *c = &m->cpu[ev->cpu];
	int64_t prev = fv(m, ev, "prev_tid"), next = fv(m, ev, "next_tid");
	int64_t state = fv(m, ev, "prev_state");
	struct mthread *p = mthr(m, prev), *n = mthr(m, next);

	m->switches++;
	if (c->cur >= 0 && prev != c->cur)
		model_err(m, ev, "prev_tid is not the thread the CPU ran");
	if (p) {
		if (state == 0 && p->st == M_RUN)
			p->st = M_READY;
		else if (state == 1 && p->st == M_RUN && p->sys >= 0)
			p->st = M_BLOCKED;
		else if (state == 64 && p->st == M_EXITING)
			p->st = M_DEAD;
		else
			model_err(m, ev, "prev_state does not fit the thread");
	}
	if (n) {
		if (n->st != M_READY)
			model_err(m, ev, "switched in a thread not runnable");
		n->st = M_RUN;
	} else if (next != 0) {
		model_err(m, ev, "bad next_tid");
	}
	c->cur = next;
}

static void model_sched(struct model *m, const shtgen_kgen_event *ev)
{
	struct mthread *t = mthr(m, fv(m, ev, "tid"));
	struct mthread *cur = running(m, ev);

	if (is(m, ev, "sched_waking")) {
		if (!t || t->st != M_BLOCKED)
			model_err(m, ev, "woke a thread not blocked");
		m->pending_wakeup = fv(m, ev, "tid");
		m->pending_target = (int32_t)fv(m, ev, "target_cpu");
		m->wakeups++;
	} else if (is(m, ev, "sched_process_fork")) {
		struct mthread *ch = mthr(m, fv(m, ev, "child_tid"));
		if (!cur || m->cpu[ev->cpu].cur != fv(m, ev, "parent_tid") ||
		    !ch || ch->st != M_NONE)
			model_err(m, ev, "bad fork");
		else
			ch->st = M_NEW, ch->sys = -3;
		m->forks++;
	} else if (is(m, ev, "sched_wakeup_new")) {
		if (!t || t->st != M_NEW)
			model_err(m, ev, "wakeup_new of a thread not new");
		else
			t->st = M_READY;
	} else if (is(m, ev, "sched_wakeup")) {
		model_err(m, ev, "sched_wakeup without sched_waking");
	} else if (is(m, ev, "sched_process_exit")) {
		if (!t || t != cur)
			model_err(m, ev, "exit of a thread not running");
		else
			t->st = M_EXITING;
	} else if (is(m, ev, "sched_process_free")) {
		if (!t || t->st != M_DEAD)
			model_err(m, ev, "free of a thread not dead");
		else
			t->st = M_FREED;
		m->frees++;
	} else if (is(m, ev, "sched_migrate_task")) {
		if (!t || t->st != M_READY || fv(m, ev, "dest_cpu") != ev->cpu)
			model_err(m, ev, "migrated a thread not runnable");
	} else if (is(m, ev, "sched_pi_setprio") ||
		   is(m, ev, "sched_process_exec")) {
		if (!t || t != cur)
			model_err(m, ev, "not the running thread");
	}
}

static void model_syscall(struct model *m, const shtgen_kgen_event *ev,
			  int entry)
{
	struct mthread *t = running(m, ev);
	const char *name = m->classes[ev->cls].name;

	if (!t) {
		model_err(m, ev, "syscall without a running thread");
		return;
	}
	if (entry) {
		if (t->sys != M_SYS_NONE)
			model_err(m, ev, "syscall entered twice");
		t->sys = (int32_t)ev->cls;
		m->syscalls++;
		return;
	}
	/* A new child returns from clone; others from what they entered. */
	if (t->sys == -3 ? strcmp(name, "syscall_exit_clone") != 0
			 : t->sys != M_SYS_ANY &&
				   (t->sys < 0 ||
				    (uint32_t)t->sys + 1 != ev->cls))
		model_err(m, ev, "syscall exit does not match the entry");
	t->sys = M_SYS_NONE;
}

static void model_irq(struct model *m, const shtgen_kgen_event *ev)
{
	struct mcpu *c = &m->cpu[ev->cpu];
	const char *n = m->classes[ev->cls].name;
	int64_t vec = fv(m, ev, "vec");

	if (strcmp(n, "irq_handler_entry") == 0 ||
	    strstr(n, "local_timer_entry")) {
		if (c->irq || c->timer || c->softirq >= 0)
			model_err(m, ev, "nested interrupt");
		*(strstr(n, "timer") ? &c->timer : &c->irq) = 1;
		m->irqs++;
	} else if (strcmp(n, "irq_handler_exit") == 0) {
		if (!c->irq)
			model_err(m, ev, "irq exit without entry");
		c->irq = 0;
	} else if (strstr(n, "local_timer_exit")) {
		if (!c->timer)
			model_err(m, ev, "timer exit without entry");
		c->timer = 0;
	} else if (strcmp(n, "irq_softirq_raise") == 0) {
		c->raised |= 1u << vec;
	} else if (strcmp(n, "irq_softirq_entry") == 0) {
		if (!(c->raised & (1u << vec)) || c->softirq >= 0 || c->irq ||
		    c->timer)
			model_err(m, ev, "softirq entry not raised or nested");
		c->raised &= ~(1u << vec);
		c->softirq = (int)vec;
		m->softirqs++;
	} else if (strcmp(n, "irq_softirq_exit") == 0) {
		if (c->softirq != vec)
			model_err(m, ev, "softirq exit without entry");
		c->softirq = -1;
	}
}

static void wake_ready(struct model *m, int64_t tid)
{
	struct mthread *t = mthr(m, tid);

	if (t)
		t->st = M_READY;
}

static void model_event(struct model *m, const shtgen_kgen_event *ev)
{
	const char *n = m->classes[ev->cls].name;

	m->events++;
	if (ev->ts <= m->last_ts)
		model_err(m, ev, "time does not increase");
	m->last_ts = ev->ts;
	if (ev->cpu >= m->ncpus) {
		model_err(m, ev, "bad CPU");
		return;
	}
	if (m->pending_wakeup >= 0) {
		if (!is(m, ev, "sched_wakeup") ||
		    fv(m, ev, "tid") != m->pending_wakeup ||
		    ev->cpu != (uint32_t)m->pending_target)
			model_err(m, ev, "sched_waking not followed by its "
				  "wakeup on the target CPU");
		else
			wake_ready(m, m->pending_wakeup);
		m->pending_wakeup = -1;
		return;
	}
	if (m->in_dump != (strncmp(n, "lttng_statedump", 15) == 0)) {
		model_err(m, ev, "statedump out of place");
		return;
	}
	if (m->in_dump)
		model_dump(m, ev);
	else if (strcmp(n, "sched_switch") == 0)
		model_switch(m, ev);
	else if (strncmp(n, "sched_", 6) == 0)
		model_sched(m, ev);
	else if (strncmp(n, "syscall_entry_", 14) == 0)
		model_syscall(m, ev, 1);
	else if (strncmp(n, "syscall_exit_", 13) == 0)
		model_syscall(m, ev, 0);
	else if (strcmp(n, "power_cpu_frequency") == 0) {
		if (fv(m, ev, "cpu_id") != ev->cpu)
			model_err(m, ev, "frequency of another CPU");
	} else
		model_irq(m, ev);
}

#endif /* SHT_KGEN_MODEL_H */
