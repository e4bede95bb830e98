/*
 * kernel-syscall.c: system call entry / exit (docs/KERNEL-MODEL.md §6.7, §6.8)
 * and CPU frequency (§6.13).
 */
#include "analysis/kernel-int.h"

sht_err sht__kern_syscall_entry(struct kev *e, const char *name)
{
	sht_quark thread, q;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = sht__kern_childk(e, thread, KC_SYSTEM_CALL, 1, &q);
	if (err == SHT_OK)
		err = sht__kern_set_str(e, q, name);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, thread, 3);
	if (err == SHT_OK)
		err = sht__kern_cpu(e, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, 4);
	return err;
}

sht_err sht__kern_syscall_exit(struct kev *e)
{
	sht_quark thread, q;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = sht__kern_childk(e, thread, KC_SYSTEM_CALL, 1, &q);
	if (err == SHT_OK)
		err = sht__kern_set_null(e, q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, thread, 2);
	if (err == SHT_OK)
		err = sht__kern_cpu(e, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, 2);
	return err;
}

/* Min / Max frequency: update-ongoing to the min or max of the current
 * value and hz (hz if the current value is not a long). */
static sht_err freq_bound(struct kev *e, sht_quark cpu, kc name, int64_t hz, int max)
{
	sht_quark q;
	sht_value v;
	sht_err err = sht__kern_childk(e, cpu, name, 1, &q);

	if (err == SHT_OK)
		err = sht__kern_get(e, q, &v);
	if (err != SHT_OK)
		return err;
	if (v.type != SHT_TYPE_INT64 || (max ? hz > v.u.i64 : hz < v.u.i64))
		v = sht_value_int64(hz);
	return sht_state_update_ongoing(e->ss, q, &v);
}

sht_err sht__kern_cpu_frequency(struct kev *e)
{
	int64_t cpu_id, state, hz;
	int has_cpu, has_state;
	sht_quark cpu, q;
	sht_err err = sht__kern_opt_int(e, "cpu_id", &cpu_id, &has_cpu);

	if (err == SHT_OK)
		err = sht__kern_opt_int(e, "state", &state, &has_state);
	if (err != SHT_OK)
		return err;
	if (!has_cpu || !has_state)
		return sht__kern_stop(e);
	hz = (int64_t)((uint64_t)state * 1000u);        /* kHz -> Hz */
	err = sht__kern_childk(e, SHT_QUARK_ROOT, KC_CPUS, 1, &cpu);
	if (err == SHT_OK)
		err = sht__kern_childn(e, cpu, (int32_t)cpu_id, 1, &cpu);
	if (err == SHT_OK)
		err = sht__kern_childk(e, cpu, KC_FREQUENCY, 1, &q);
	if (err == SHT_OK)
		err = sht__kern_set(e, q, sht_value_int64(hz));
	if (err == SHT_OK)
		err = freq_bound(e, cpu, KC_MIN_FREQUENCY, hz, 0);
	if (err == SHT_OK)
		err = freq_bound(e, cpu, KC_MAX_FREQUENCY, hz, 1);
	return err;
}
