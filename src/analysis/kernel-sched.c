/*
 * kernel-sched.c: the scheduler handlers of docs/KERNEL-MODEL.md: sched_switch
 * (§6.1), fork (§6.9), exit (§6.10), free (§6.11), wakeups (§6.12),
 * pi_setprio (§6.14) and migrate (§6.15).
 */
#include "analysis/kernel-int.h"

/* Thread status after a switch out with prev_state (§4.2). */
static sht_value switch_out_status(int64_t prev_state)
{
	int64_t s = prev_state & 1023;  /* TASK_NOLOAD and above ignored */

	if (s == 0)
		return sht_value_int32(5);
	if (s & 3)
		return sht_value_int32(1);
	if (s & 64)
		return sht_value_null();
	return sht_value_int32(6);
}

/* Get-or-create parent/<child> and set it to v. */
static sht_err set_child(struct kev *e, sht_quark parent, kc child, sht_value v)
{
	sht_quark q;
	sht_err err = sht__kern_childk(e, parent, child, 1, &q);

	return err == SHT_OK ? sht__kern_set(e, q, v) : err;
}

static sht_err set_child_str(struct kev *e, sht_quark parent, kc child, const char *s)
{
	sht_quark q;
	sht_err err = sht__kern_childk(e, parent, child, 1, &q);

	return err == SHT_OK ? sht__kern_set_str(e, q, s) : err;
}

/* The optional fields of a sched_switch. */
struct switch_opt {
	const char *prev_comm, *next_comm;
	int64_t prev_prio, next_prio;
	int has_prev_comm, has_next_comm, has_prev_prio, has_next_prio;
};

static sht_err switch_read_opt(struct kev *e, struct switch_opt *o)
{
	sht_err err = sht__kern_opt_str(e, "prev_comm", &o->prev_comm, &o->has_prev_comm);

	if (err == SHT_OK)
		err = sht__kern_opt_str(e, "next_comm", &o->next_comm, &o->has_next_comm);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "prev_prio", &o->prev_prio, &o->has_prev_prio);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "next_prio", &o->next_prio, &o->has_next_prio);
	return err;
}

/* Steps 6-9 of §6.1: names and priorities. */
static sht_err switch_names(struct kev *e, sht_quark p, sht_quark n, const struct switch_opt *o)
{
	sht_err err = SHT_OK;

	if (o->has_prev_comm)
		err = set_child_str(e, p, KC_EXEC_NAME, o->prev_comm);
	if (err == SHT_OK && o->has_next_comm)
		err = set_child_str(e, n, KC_EXEC_NAME, o->next_comm);
	if (err == SHT_OK && o->has_prev_prio)
		err = set_child(e, p, KC_PRIO, sht_value_int32((int32_t)o->prev_prio));
	if (err == SHT_OK && o->has_next_prio)
		err = set_child(e, n, KC_PRIO, sht_value_int32((int32_t)o->next_prio));
	return err;
}

/* Steps 10-11 of §6.1: the CPU's current thread and status. */
static sht_err switch_cpu(struct kev *e, sht_quark n, int32_t next_tid)
{
	sht_quark cpu, q;
	sht_value v;
	sht_err err = sht__kern_cpu(e, &cpu);

	if (err == SHT_OK)
		err = set_child(e, cpu, KC_CURRENT_THREAD, sht_value_int32(next_tid));
	if (err != SHT_OK)
		return err;
	if (next_tid <= 0)
		return sht__kern_update_cpu(e);
	err = sht__kern_childk(e, n, KC_SYSTEM_CALL, 1, &q);   /* exists (step 4) */
	if (err == SHT_OK)
		err = sht__kern_get(e, q, &v);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, cpu, v.type == SHT_TYPE_NULL ? 2 : 4);
	return err;
}

sht_err sht__kern_sched_switch(struct kev *e)
{
	int64_t prev_tid, prev_state, next_tid;
	int has_prev_tid, has_prev_state, has_next_tid;
	struct switch_opt o;
	sht_quark p, n;
	sht_value st;
	sht_err err = sht__kern_opt_int(e, "prev_tid", &prev_tid, &has_prev_tid);

	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "prev_state", &prev_state, &has_prev_state);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "next_tid", &next_tid, &has_next_tid);
	if (err == SHT_OK)
		err = switch_read_opt(e, &o);
	if (err != SHT_OK)
		return err;
	if (e->cpu < 0 || !has_prev_tid || !has_prev_state || !has_next_tid)
		return sht__kern_stop(e);
	st = switch_out_status(prev_state);
	err = sht__kern_thread(e, (int32_t)prev_tid, &p);     /* the CPU is known */
	if (err == SHT_OK)
		err = sht__kern_thread(e, (int32_t)next_tid, &n);
	if (err == SHT_OK)
		err = sht__kern_set(e, p, st);
	if (err == SHT_OK)
		err = set_child(e, p, KC_CURRENT_CPU_RQ,
				st.type == SHT_TYPE_INT32 && st.u.i32 == 5 ? sht_value_int32(e->cpu)
									   : sht_value_null());
	if (err == SHT_OK)
		err = sht__kern_set_running(e, n);
	if (err == SHT_OK)
		err = set_child(e, n, KC_CURRENT_CPU_RQ, sht_value_int32(e->cpu));
	if (err == SHT_OK)
		err = switch_names(e, p, n, &o);
	if (err == SHT_OK)
		err = switch_cpu(e, n, (int32_t)next_tid);
	return err;
}

/* Steps 6-7 of §6.9: what the child inherits from the parent. */
static sht_err fork_inherit(struct kev *e, sht_quark pt, sht_quark ct)
{
	sht_quark pq, cq;
	sht_value v;
	sht_err err = sht__kern_childk(e, pt, KC_CURRENT_CPU_RQ, 0, &pq);

	if (err == SHT_OK) {
		err = sht__kern_get(e, pq, &v);
		if (err == SHT_OK)
			err = set_child(e, ct, KC_CURRENT_CPU_RQ, v);
	} else if (err == SHT_NOT_FOUND) {
		err = SHT_OK;
	}
	if (err == SHT_OK)
		err = sht__kern_childk(e, pt, KC_SYSTEM_CALL, 1, &pq);
	if (err == SHT_OK)
		err = sht__kern_get(e, pq, &v);
	if (err != SHT_OK || v.type == SHT_TYPE_NULL)
		return err;
	err = sht__kern_childk(e, ct, KC_SYSTEM_CALL, 1, &cq);
	if (err == SHT_OK)   /* read again: the creation may move the value */
		err = sht__kern_get(e, pq, &v);
	if (err == SHT_OK)
		err = sht__kern_set(e, cq, v);
	return err;
}

sht_err sht__kern_sched_fork(struct kev *e)
{
	const char *comm;
	int64_t parent_tid, child_tid, child_pid;
	int has_pid;
	sht_quark pt, ct;
	sht_err err = sht__kern_str(e, "child_comm", &comm);

	if (err == SHT_OK)
		err = sht__kern_int(e, "parent_tid", &parent_tid);
	if (err == SHT_OK)
		err = sht__kern_int(e, "child_tid", &child_tid);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "child_pid", &child_pid, &has_pid);
	if (err != SHT_OK)
		return err;
	if (!sht__kern_thread_ok(e, (int32_t)parent_tid) ||
	    !sht__kern_thread_ok(e, (int32_t)child_tid))
		return sht__kern_stop(e);
	err = sht__kern_thread(e, (int32_t)parent_tid, &pt);
	if (err == SHT_OK)
		err = sht__kern_thread(e, (int32_t)child_tid, &ct);
	if (err == SHT_OK)
		err = set_child(e, ct, KC_PPID, sht_value_int32((int32_t)parent_tid));
	if (err == SHT_OK && has_pid && (int32_t)child_pid != (int32_t)child_tid)
		err = set_child(e, ct, KC_PID, sht_value_int32((int32_t)child_pid));
	if (err == SHT_OK)
		err = set_child_str(e, ct, KC_EXEC_NAME, comm);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, ct, 5);
	if (err == SHT_OK)
		err = fork_inherit(e, pt, ct);
	return err;
}

sht_err sht__kern_sched_exit(struct kev *e)
{
	(void)e;                /* handled, does nothing (§6.10) */
	return SHT_OK;
}

sht_err sht__kern_sched_free(struct kev *e)
{
	int64_t tid;
	sht_quark q;
	sht_err err = sht__kern_int(e, "tid", &tid);

	if (err != SHT_OK)
		return err;
	if (!sht__kern_thread_ok(e, (int32_t)tid))
		return sht__kern_stop(e);
	err = sht__kern_thread(e, (int32_t)tid, &q);
	if (err == SHT_OK)
		err = sht_state_clear(e->ss, e->t, q);
	return err;
}

sht_err sht__kern_sched_wakeup(struct kev *e)
{
	int64_t tid, prio, target;
	int has_tid, has_prio, has_target;
	sht_quark q;
	int32_t st = -1;
	sht_err err = sht__kern_opt_int(e, "tid", &tid, &has_tid);

	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "prio", &prio, &has_prio);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "target_cpu", &target, &has_target);
	if (err != SHT_OK)
		return err;
	if (!has_tid || e->cpu < 0 || !has_target || !sht__kern_thread_ok(e, (int32_t)tid))
		return sht__kern_stop(e);
	err = sht__kern_thread(e, (int32_t)tid, &q);
	if (err == SHT_OK && !(sht__kern_get_int(e, q, &st) && (st == 2 || st == 3)))
		err = sht__kern_set_int(e, q, 5);
	if (err == SHT_OK)
		err = set_child(e, q, KC_CURRENT_CPU_RQ, sht_value_int32((int32_t)target));
	if (err == SHT_OK && has_prio)
		err = set_child(e, q, KC_PRIO, sht_value_int32((int32_t)prio));
	return err;
}

sht_err sht__kern_sched_pi_setprio(struct kev *e)
{
	int64_t tid, prio;
	sht_quark q;
	sht_err err = sht__kern_int(e, "tid", &tid);

	if (err == SHT_OK)
		err = sht__kern_int(e, "newprio", &prio);
	if (err != SHT_OK)
		return err;
	if (!sht__kern_thread_ok(e, (int32_t)tid))
		return sht__kern_stop(e);
	err = sht__kern_thread(e, (int32_t)tid, &q);
	if (err == SHT_OK)
		err = set_child(e, q, KC_PRIO, sht_value_int32((int32_t)prio));
	return err;
}

sht_err sht__kern_sched_migrate(struct kev *e)
{
	int64_t tid, dest;
	int has_tid, has_dest;
	sht_quark q;
	sht_err err = sht__kern_opt_int(e, "tid", &tid, &has_tid);

	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "dest_cpu", &dest, &has_dest);
	if (err != SHT_OK)
		return err;
	/* The name is built without a CPU: the swapper (tid 0) stops. */
	if (!has_tid || !has_dest || (int32_t)tid == 0)
		return sht__kern_stop(e);
	err = sht__kern_thread_dec(e, (int32_t)tid, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, 5);
	if (err == SHT_OK)
		err = set_child(e, q, KC_CURRENT_CPU_RQ, sht_value_int32((int32_t)dest));
	return err;
}
