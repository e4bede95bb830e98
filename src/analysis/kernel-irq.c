/*
 * kernel-irq.c: interrupts in docs/KERNEL-MODEL.md: hard IRQ entry / exit with
 * the v31 names "<irq>/<handler>" (§6.2, §6.3), x86 IPI / APIC vectors
 * (§6.17), soft IRQ entry / exit / raise (§6.4 - §6.6).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kernel-int.h"
#include "util/util.h"

/* An attribute name that may be long (IRQ handler names): inline up to
 * its buffer, else malloc'd. */
struct aname {
	char buf[128];
	char *s;                    /* buf or heap */
};

static sht_err aname_set(struct aname *a, const char *s, size_t len)
{
	a->s = a->buf;
	if (len >= sizeof a->buf && !(a->s = malloc(len + 1)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a %zu-byte IRQ name", len);
	memcpy(a->s, s, len);
	a->s[len] = '\0';
	return SHT_OK;
}

/* "<num>/<handler>", the v31 name of a hard IRQ (one element). */
static sht_err aname_irq(struct aname *a, const char *num, const char *handler)
{
	size_t nl = strlen(num), hl = strlen(handler);

	a->s = a->buf;
	if (nl + 1 + hl >= sizeof a->buf && !(a->s = malloc(nl + 1 + hl + 1)))
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a %zu-byte IRQ name", hl);
	memcpy(a->s, num, nl);
	a->s[nl] = '/';
	memcpy(a->s + nl + 1, handler, hl + 1);
	return SHT_OK;
}

static void aname_free(struct aname *a)
{
	if (a->s != a->buf)
		free(a->s);
}

/* Get-or-create CPUs/<c>/<dir>. */
static sht_err cpu_dir(struct kev *e, kc dir, sht_quark *out)
{
	sht_quark cpu;
	sht_err err = sht__kern_cpu(e, &cpu);

	return err == SHT_OK ? sht__kern_childk(e, cpu, dir, 1, out) : err;
}

/* Get-or-create CPUs/<c>/<dir>/<name> (name: text, or NULL and num). */
static sht_err cpu_attr(struct kev *e, kc dir, const char *name, int32_t num, sht_quark *out)
{
	sht_quark d;
	sht_err err = cpu_dir(e, dir, &d);

	if (err != SHT_OK)
		return err;
	return name ? sht__kern_child(e, d, name, out) : sht__kern_childn(e, d, num, 1, out);
}

/* Get-or-create <top>/<name> (name: text, or NULL and num), set it to v. */
static sht_err set_top(struct kev *e, kc top, const char *name, int32_t num, sht_value v)
{
	sht_quark q;
	sht_err err = sht__kern_childk(e, SHT_QUARK_ROOT, top, 1, &q);

	if (err == SHT_OK)
		err = name ? sht__kern_child(e, q, name, &q) : sht__kern_childn(e, q, num, 1, &q);
	return err == SHT_OK ? sht__kern_set(e, q, v) : err;
}

/* ---- hard IRQs and vectors ------------------------------------------------ */

/* Entry of the IRQ or vector attribute `name` (NULL: num) (§6.2, §6.17). */
static sht_err irq_enter(struct kev *e, const char *name, int32_t num)
{
	sht_quark q, cpu;
	sht_err err = cpu_attr(e, KC_IRQS, name, num, &q);

	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, e->cpu);
	if (err == SHT_OK)
		err = sht__kern_current_thread(e, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, 4);
	if (err == SHT_OK)
		err = sht__kern_cpu(e, &cpu);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, cpu, 16);
	if (err == SHT_OK)
		err = set_top(e, KC_IRQS, name, num, sht_value_int32(e->cpu));
	return err;
}

/* Steps after the per-CPU attribute q was set to null: set-running,
 * update-cpu, IRQs/<name> = cpu-for-irq(num). */
static sht_err irq_leave(struct kev *e, sht_quark thread, const char *name, int32_t num)
{
	sht_value v;
	sht_err err = sht__kern_set_running(e, thread);

	if (err == SHT_OK)
		err = sht__kern_update_cpu(e);
	if (err == SHT_OK)
		err = sht__kern_cpu_for_irq(e, num, &v);
	if (err == SHT_OK)
		err = set_top(e, KC_IRQS, name, num, v);
	return err;
}

sht_err sht__kern_irq_entry(struct kev *e)
{
	int64_t irq;
	const char *handler;
	struct aname a;
	char num[KERN_NAME_MAX];
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_int(e, "irq", &irq);
	if (err == SHT_OK)
		err = sht__kern_str(e, "name", &handler);
	if (err != SHT_OK)
		return err;
	sht__kern_dec((int32_t)irq, num);
	err = aname_irq(&a, num, handler);
	if (err == SHT_OK)
		err = irq_enter(e, a.s, 0);
	aname_free(&a);
	return err;
}

/* The first child of irqs named "<num>/..." with a non-null value (v31
 * step 2), its name into *a; SHT_NOT_FOUND if none. */
static sht_err active_irq(struct kev *e, sht_quark irqs, const char *num, sht_quark *out,
			  struct aname *a)
{
	const sht_quark *kids;
	size_t n, nl = strlen(num);
	sht_err err = sht_state_attr_children(e->ss, irqs, &kids, &n);

	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		const char *name;
		size_t len;
		sht_value v;

		err = sht_state_attr_name(e->ss, kids[i], &name, &len);
		if (err != SHT_OK || len <= nl || memcmp(name, num, nl) || name[nl] != '/')
			continue;
		err = sht__kern_get(e, kids[i], &v);
		if (err == SHT_OK && v.type != SHT_TYPE_NULL) {
			*out = kids[i];
			return aname_set(a, name, len);
		}
	}
	return err == SHT_OK ? SHT_NOT_FOUND : err;
}

sht_err sht__kern_irq_exit(struct kev *e)
{
	int64_t irq;
	char num[KERN_NAME_MAX];
	struct aname a;
	sht_quark thread, irqs, q;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_int(e, "irq", &irq);
	if (err != SHT_OK)
		return err;
	sht__kern_dec((int32_t)irq, num);
	err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = cpu_dir(e, KC_IRQS, &irqs);
	if (err == SHT_OK)
		err = active_irq(e, irqs, num, &q, &a);
	if (err == SHT_NOT_FOUND)
		return sht__kern_stop(e);    /* no active IRQ: ignored (2026-07 fix) */
	if (err != SHT_OK)
		return err;
	err = sht__kern_set_null(e, q);
	if (err == SHT_OK)
		err = irq_leave(e, thread, a.s, (int32_t)irq);
	aname_free(&a);
	return err;
}

sht_err sht__kern_vector_entry(struct kev *e)
{
	int64_t vector;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_int(e, "vector", &vector);
	if (err != SHT_OK)
		return err;
	return irq_enter(e, NULL, (int32_t)vector);
}

sht_err sht__kern_vector_exit(struct kev *e)
{
	int64_t vector;
	sht_quark thread, q;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = sht__kern_int(e, "vector", &vector);
	if (err != SHT_OK)
		return err;
	err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = cpu_attr(e, KC_IRQS, NULL, (int32_t)vector, &q);
	if (err == SHT_OK)
		err = sht__kern_set_null(e, q);
	if (err == SHT_OK)
		err = irq_leave(e, thread, NULL, (int32_t)vector);
	return err;
}

/* ---- soft IRQs ---------------------------------------------------------------- */

/* Soft_IRQs/<vec> = aggregate-softirq(vec). */
static sht_err softirq_aggregate(struct kev *e, int32_t vec)
{
	sht_value v;
	sht_err err = sht__kern_aggregate_softirq(e, vec, &v);

	return err == SHT_OK ? set_top(e, KC_SOFT_IRQS, NULL, vec, v) : err;
}

/* The event's vec (its name: the decimal int32); SHT_OK or a
 * malformed-field error. */
static sht_err read_vec(struct kev *e, int32_t *vec)
{
	int64_t x;
	sht_err err = sht__kern_int(e, "vec", &x);

	if (err == SHT_OK)
		*vec = (int32_t)x;
	return err;
}

sht_err sht__kern_softirq_entry(struct kev *e)
{
	int32_t vec;
	sht_quark thread, q;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = read_vec(e, &vec);
	if (err == SHT_OK)
		err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = cpu_attr(e, KC_SOFT_IRQS, NULL, vec, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, 8);
	if (err == SHT_OK)
		err = softirq_aggregate(e, vec);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, thread, 4);
	if (err == SHT_OK)
		err = sht__kern_update_cpu(e);
	return err;
}

/* Are all the children of CPUs/<c>/Soft_IRQs null? */
static sht_err softirqs_idle(struct kev *e, int *idle)
{
	const sht_quark *kids;
	size_t n;
	sht_quark dir;
	sht_value v = sht_value_null();
	sht_err err = cpu_dir(e, KC_SOFT_IRQS, &dir);

	*idle = 1;
	if (err == SHT_OK)
		err = sht_state_attr_children(e->ss, dir, &kids, &n);
	for (size_t i = 0; err == SHT_OK && i < n && *idle; i++) {
		err = sht__kern_get(e, kids[i], &v);
		*idle = v.type == SHT_TYPE_NULL;
	}
	return err;
}

sht_err sht__kern_softirq_exit(struct kev *e)
{
	int32_t vec;
	sht_quark thread, q;
	int32_t cur = 0;
	int idle = 0;
	sht_err err;

	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = read_vec(e, &vec);
	if (err == SHT_OK)
		err = sht__kern_current_thread(e, &thread);
	if (err == SHT_OK)
		err = cpu_attr(e, KC_SOFT_IRQS, NULL, vec, &q);
	if (err == SHT_OK)
		err = sht__kern_get_int(e, q, &cur) && (cur & 1) ? sht__kern_set_int(e, q, 1)
							      : sht__kern_set_null(e, q);
	if (err == SHT_OK)
		err = softirq_aggregate(e, vec);
	if (err == SHT_OK)
		err = sht__kern_update_cpu(e);
	if (err == SHT_OK)
		err = softirqs_idle(e, &idle);
	if (err == SHT_OK && idle)
		err = sht__kern_set_running(e, thread);
	return err;
}

sht_err sht__kern_softirq_raise(struct kev *e)
{
	int32_t vec;
	sht_quark q;
	int32_t cur = 0;
	sht_err err = read_vec(e, &vec);

	if (err != SHT_OK)
		return err;
	if (e->cpu < 0)
		return sht__kern_stop(e);
	err = cpu_attr(e, KC_SOFT_IRQS, NULL, vec, &q);
	if (err == SHT_OK)
		err = sht__kern_set_int(e, q, sht__kern_get_int(e, q, &cur) && (cur & 8) ? 9 : 1);
	if (err == SHT_OK)
		err = softirq_aggregate(e, vec);
	return err;
}
