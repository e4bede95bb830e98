/*
 * kernel-helpers.c: field readers, attribute look-ups and the helper
 * operations of KERNEL_MODEL.md §4.3, shared by the kernel handlers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/kernel-int.h"
#include "util/util.h"

/* ---- fields -------------------------------------------------------------- */

static sht_err malformed(struct kev *e, sht_err err, const char *field, const char *what)
{
	e->k->stats.malformed++;
	return sht__error(err, "Cannot handle event %s at t=%" PRId64 ": field %s %s",
			  e->ev->name ? e->ev->name : "(null)", (int64_t)e->t, field, what);
}

sht_err sht__kern_opt_int(struct kev *e, const char *name, int64_t *out, int *present)
{
	sht_field f;

	*present = 0;
	switch (sht_event_field(e->ev, name, &f)) {
	case SHT_FIELD_NONE:
		return SHT_OK;
	case SHT_FIELD_INT:
		*out = f.v.i;
		break;
	case SHT_FIELD_UINT:
		*out = (int64_t)f.v.u;   /* read as 64-bit, §3 */
		break;
	default:
		return malformed(e, SHT_ERR_TYPE, name, "is not an integer");
	}
	*present = 1;
	return SHT_OK;
}

sht_err sht__kern_int(struct kev *e, const char *name, int64_t *out)
{
	int present;
	sht_err err = sht__kern_opt_int(e, name, out, &present);

	if (err == SHT_OK && !present)
		err = malformed(e, SHT_ERR_NOATTR, name, "is missing");
	return err;
}

sht_err sht__kern_opt_str(struct kev *e, const char *name, const char **out, int *present)
{
	sht_field f;

	*present = 0;
	switch (sht_event_field(e->ev, name, &f)) {
	case SHT_FIELD_NONE:
		return SHT_OK;
	case SHT_FIELD_STRING:
		if (!f.v.s)
			return malformed(e, SHT_ERR_TYPE, name, "has no text");
		*out = f.v.s;
		break;
	default:
		return malformed(e, SHT_ERR_TYPE, name, "is not text");
	}
	*present = 1;
	return SHT_OK;
}

sht_err sht__kern_str(struct kev *e, const char *name, const char **out)
{
	int present;
	sht_err err = sht__kern_opt_str(e, name, out, &present);

	if (err == SHT_OK && !present)
		err = malformed(e, SHT_ERR_NOATTR, name, "is missing");
	return err;
}

sht_err sht__kern_stop(struct kev *e)
{
	e->k->stats.stopped++;
	return SHT_OK;
}

/* ---- names and values ------------------------------------------------------ */

void sht__kern_dec(int64_t x, char buf[KERN_NAME_MAX])
{
	snprintf(buf, KERN_NAME_MAX, "%" PRId64, x);
}

int sht__kern_thread_name(const struct kev *e, int32_t tid, char buf[KERN_NAME_MAX])
{
	if (tid != 0) {
		sht__kern_dec(tid, buf);
		return 1;
	}
	if (e->cpu < 0)
		return 0;
	snprintf(buf, KERN_NAME_MAX, "0_%" PRId32, e->cpu);
	return 1;
}

sht_err sht__kern_child(struct kev *e, sht_quark parent, const char *name, sht_quark *out)
{
	return sht_state_quark(e->ss, parent, &name, 1, out);
}

sht_err sht__kern_probe(struct kev *e, sht_quark parent, const char *name, sht_quark *out)
{
	return sht_state_quark_find(e->ss, parent, &name, 1, out);
}

sht_err sht__kern_path(struct kev *e, const char *const *elems, size_t n, sht_quark *out)
{
	return sht_state_quark(e->ss, SHT_QUARK_ROOT, elems, n, out);
}

sht_err sht__kern_get(struct kev *e, sht_quark q, sht_value *out)
{
	return sht_state_ongoing(e->ss, q, out, NULL);
}

int sht__kern_get_int(struct kev *e, sht_quark q, int32_t *out)
{
	sht_value v;

	if (sht__kern_get(e, q, &v) != SHT_OK || v.type != SHT_TYPE_INT32)
		return 0;
	*out = v.u.i32;
	return 1;
}

sht_err sht__kern_set(struct kev *e, sht_quark q, sht_value v)
{
	return sht_state_modify(e->ss, e->t, q, &v);
}

sht_err sht__kern_set_int(struct kev *e, sht_quark q, int32_t x)
{
	return sht__kern_set(e, q, sht_value_int32(x));
}

sht_err sht__kern_set_null(struct kev *e, sht_quark q)
{
	return sht__kern_set(e, q, sht_value_null());
}

sht_err sht__kern_set_str(struct kev *e, sht_quark q, const char *s)
{
	size_t len = strlen(s);

	if (len > SHT_STRING_MAX)
		return sht__error(SHT_ERR_TOOBIG, "Cannot store a %zu-byte name", len);
	return sht__kern_set(e, q, sht_value_string(s, (uint32_t)len));
}

/* ---- helper operations (§4.3) --------------------------------------------- */

sht_err sht__kern_cpu(struct kev *e, sht_quark *out)
{
	const char *path[] = { "CPUs", e->cpu_name };

	return sht__kern_path(e, path, 2, out);
}

sht_err sht__kern_current_thread(struct kev *e, sht_quark *thread)
{
	const char *path[] = { "CPUs", e->cpu_name, "Current_thread" };
	char name[KERN_NAME_MAX];
	const char *tpath[] = { "Threads", name };
	sht_quark cur;
	int32_t tid = -1;
	sht_err err = sht__kern_path(e, path, 3, &cur);

	if (err != SHT_OK)
		return err;
	sht__kern_get_int(e, cur, &tid);             /* null: -1 (Threads/-1) */
	sht__kern_thread_name(e, tid, name);         /* defined: the CPU is known */
	return sht__kern_path(e, tpath, 2, thread);
}

sht_err sht__kern_set_running(struct kev *e, sht_quark thread)
{
	sht_quark sc;
	sht_value v;
	sht_err err = sht__kern_child(e, thread, "System_call", &sc);

	if (err == SHT_OK)
		err = sht__kern_get(e, sc, &v);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, thread, v.type == SHT_TYPE_NULL ? 2 : 3);
	return err;
}

/* Is any child of parent non-null with all bits of mask set (mask 0: any
 * non-null)? */
static sht_err any_child(struct kev *e, sht_quark parent, int32_t mask, int *found)
{
	const sht_quark *kids;
	size_t n;
	sht_value v;
	sht_err err = sht_state_attr_children(e->ss, parent, &kids, &n);

	*found = 0;
	for (size_t i = 0; err == SHT_OK && i < n && !*found; i++) {
		err = sht__kern_get(e, kids[i], &v);
		if (err != SHT_OK || v.type == SHT_TYPE_NULL)
			continue;
		*found = !mask || (v.type == SHT_TYPE_INT32 && (v.u.i32 & mask) == mask);
	}
	return err;
}

/* cpu-status(c) of §4.3 into *out; cpu is CPUs/<c>. */
static sht_err cpu_status(struct kev *e, sht_quark cpu, sht_value *out)
{
	char name[KERN_NAME_MAX];
	const char *tpath[] = { "Threads", name, "System_call" };
	sht_quark q;
	sht_value v = sht_value_null();
	int found = 0;
	sht_err err = sht__kern_child(e, cpu, "IRQs", &q);

	if (err == SHT_OK)
		err = any_child(e, q, 0, &found);
	if (err != SHT_OK || found) {
		*out = sht_value_int32(16);
		return err;
	}
	err = sht__kern_child(e, cpu, "Soft_IRQs", &q);
	if (err == SHT_OK)
		err = any_child(e, q, 8, &found);
	if (err != SHT_OK || found) {
		*out = sht_value_int32(8);
		return err;
	}
	err = sht__kern_child(e, cpu, "Current_thread", &q);
	if (err == SHT_OK)
		err = sht__kern_get(e, q, &v);
	if (err != SHT_OK || v.type != SHT_TYPE_INT32 || v.u.i32 == 0) {
		*out = v.type == SHT_TYPE_INT32 ? sht_value_int32(0) : sht_value_null();
		return err;
	}
	sht__kern_dec(v.u.i32, name);                /* never 0_<c> here */
	err = sht__kern_path(e, tpath, 3, &q);
	if (err == SHT_OK)
		err = sht__kern_get(e, q, &v);
	*out = sht_value_int32(v.type == SHT_TYPE_NULL ? 2 : 4);
	return err;
}

sht_err sht__kern_update_cpu(struct kev *e)
{
	sht_quark cpu;
	sht_value v;
	sht_err err = sht__kern_cpu(e, &cpu);

	if (err == SHT_OK)
		err = cpu_status(e, cpu, &v);
	if (err == SHT_OK)
		err = sht__kern_set(e, cpu, v);
	return err;
}

/* For each CPUs/<cpu> in creation order, probe CPUs/<cpu>/<dir>/<name>;
 * *kids / *n: the CPUs (SHT_NOT_FOUND if CPUs does not exist). */
static sht_err cpus(struct kev *e, const sht_quark **kids, size_t *n)
{
	const char *name = "CPUs";
	sht_quark q;
	sht_err err = sht_state_quark_find(e->ss, SHT_QUARK_ROOT, &name, 1, &q);

	*n = 0;
	if (err == SHT_OK)
		err = sht_state_attr_children(e->ss, q, kids, n);
	return err == SHT_NOT_FOUND ? SHT_OK : err;
}

/* Ongoing value of CPUs/<cpu>/<dir>/<name> (probe): null if absent. */
static sht_err probe_value(struct kev *e, sht_quark cpu, const char *dir, const char *name,
			   sht_value *out)
{
	const char *path[] = { dir, name };
	sht_quark q;
	sht_err err = sht_state_quark_find(e->ss, cpu, path, 2, &q);

	*out = sht_value_null();
	if (err == SHT_OK)
		return sht__kern_get(e, q, out);
	return err == SHT_NOT_FOUND ? SHT_OK : err;
}

sht_err sht__kern_aggregate_softirq(struct kev *e, const char *vec, sht_value *out)
{
	const sht_quark *kids = NULL;
	size_t n;
	sht_value v;
	int32_t best = -1;          /* null counts as -1 */
	sht_err err = cpus(e, &kids, &n);

	*out = sht_value_null();
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		err = probe_value(e, kids[i], "Soft_IRQs", vec, &v);
		if (err == SHT_OK && v.type == SHT_TYPE_INT32 && v.u.i32 > best) {
			best = v.u.i32;
			*out = v;
		}
	}
	return err;
}

sht_err sht__kern_cpu_for_irq(struct kev *e, const char *n_name, sht_value *out)
{
	const sht_quark *kids = NULL;
	size_t n;
	sht_value v;
	sht_err err = cpus(e, &kids, &n);

	*out = sht_value_null();
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		err = probe_value(e, kids[i], "IRQs", n_name, &v);
		if (err == SHT_OK && v.type != SHT_TYPE_NULL) {
			*out = v;       /* the value is the CPU number (set to c) */
			break;
		}
	}
	return err;
}
