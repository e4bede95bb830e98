/*
 * kernel-statedump.c: lttng_statedump_process_state (docs/KERNEL-MODEL.md
 * §6.16).  Every write fills a value that is still null: the first
 * knowledge wins, later real events override it.
 */
#include <string.h>

#include "analysis/kernel-int.h"

/* Thread status of a statedump status code (§4.2). */
static sht_value statedump_status(int64_t status)
{
	switch (status) {
	case 1:
		return sht_value_int32(7);      /* wait fork */
	case 2:
		return sht_value_int32(5);      /* wait cpu */
	case 5:
		return sht_value_int32(6);      /* wait */
	case 6:
		return sht_value_int32(2);      /* run */
	case 7:
		return sht_value_null();        /* dead */
	default:
		return sht_value_int32(0);      /* unnamed, exit, zombie, other */
	}
}

/* Get-or-create parent/<child>; if its value is null, set it to v. */
static sht_err fill(struct kev *e, sht_quark parent, kc child, sht_value v)
{
	sht_quark q;
	sht_value cur;
	sht_err err = sht__kern_childk(e, parent, child, 1, &q);

	if (err == SHT_OK)
		err = sht__kern_get(e, q, &cur);
	if (err == SHT_OK && cur.type == SHT_TYPE_NULL)
		err = sht__kern_set(e, q, v);
	return err;
}

/* The fields of one statedump entry. */
struct dump {
	int64_t tid, pid, ppid, status, cpu;
	const char *name;
	int has_cpu;
};

static sht_err dump_read(struct kev *e, struct dump *d)
{
	sht_err err = sht__kern_int(e, "tid", &d->tid);

	if (err == SHT_OK)
		err = sht__kern_int(e, "pid", &d->pid);
	if (err == SHT_OK)
		err = sht__kern_int(e, "ppid", &d->ppid);
	if (err == SHT_OK)
		err = sht__kern_int(e, "status", &d->status);
	if (err == SHT_OK)
		err = sht__kern_str(e, "name", &d->name);
	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "cpu", &d->cpu, &d->has_cpu);
	return err;
}

/* Step 5: the status, if still unknown, and the run queue of a thread
 * waiting for a CPU. */
static sht_err dump_status(struct kev *e, sht_quark thread, const struct dump *d)
{
	sht_value cur;
	sht_quark q;
	sht_err err = sht__kern_get(e, thread, &cur);

	if (err != SHT_OK || cur.type != SHT_TYPE_NULL)
		return err;
	err = sht__kern_set(e, thread, statedump_status(d->status));
	if (err != SHT_OK || d->status != 2 || !d->has_cpu)
		return err;
	err = sht__kern_childk(e, thread, KC_CURRENT_CPU_RQ, 1, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, (int32_t)d->cpu);
	return err;
}

sht_err sht__kern_statedump_process(struct kev *e)
{
	struct dump d;
	sht_quark t;
	sht_value comm;
	sht_err err = dump_read(e, &d);

	if (err != SHT_OK)
		return err;
	if (!sht__kern_thread_ok(e, (int32_t)d.tid))
		return sht__kern_stop(e);
	err = sht__kern_thread(e, (int32_t)d.tid, &t);
	if (err == SHT_OK) {
		comm = sht_value_string(d.name, (uint32_t)strnlen(d.name, SHT_STRING_MAX));
		err = fill(e, t, KC_EXEC_NAME, comm);
	}
	if (err == SHT_OK)
		err = fill(e, t, KC_PPID, sht_value_int32((int32_t)d.ppid));
	if (err == SHT_OK && (int32_t)d.tid != (int32_t)d.pid)
		err = fill(e, t, KC_PID, sht_value_int32((int32_t)d.pid));
	if (err == SHT_OK)
		err = dump_status(e, t, &d);
	return err;
}
