/*
 * kernel-helpers.c: field readers, attribute look-ups and the helper
 * operations of docs/KERNEL-MODEL.md §4.3, shared by the kernel handlers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kernel-int.h"
#include "util/util.h"

const char *const sht__kern_cname[KC_COUNT] = {
	"Threads", "CPUs", "IRQs", "Soft_IRQs", "Current_thread", "System_call",
	"Current_cpu_rq", "Exec_name", "Prio", "PPID", "PID", "Frequency",
	"Min frequency", "Max frequency",
};

/* ---- quark cache ------------------------------------------------------------ */

/* Attribute count of a state system the cache may serve, else -1: a
 * replay (quarks appear as the replay goes) or an opened history is
 * looked up every time. */
static int64_t cacheable_count(sht_state *ss)
{
	return ss ? sht_state_cacheable_count(ss) : -1;
}

void sht__kern_cache_begin(sht_kernel *k, sht_state *ss)
{
	int64_t n = cacheable_count(ss);

	k->cache_on = n >= 0;
	k->created = 0;
	if (!k->cache_on)
		return;
	if (ss != k->ss || (uint64_t)n != k->nattrs) {
		/* Another state system (or one changed behind our back). */
		if (k->qc)
			memset(k->qc, 0, k->nqc_cap * sizeof *k->qc);
		k->nqc = 0;
		for (size_t i = 0; i < k->nkcp; i++) {
			free(k->kcp[i].mem);
			k->kcp[i] = (struct kcp_page){ NULL, NULL };
		}
		k->kcp_root = (struct kcp_line){ { 0 } };
		for (size_t i = 0; i < KD_COUNT; i++) {
			free(k->dense[i].q1);
			k->dense[i] = (struct kdense){ NULL, 0 };
		}
		k->ss = ss;
	}
	k->nattrs = (uint64_t)n;
}

void sht__kern_cache_end(sht_kernel *k, sht_state *ss)
{
	/* Only this event's own creations change the count (begin checks
	 * for any other change). */
	if (k->cache_on && k->created)
		k->nattrs = (uint64_t)cacheable_count(ss);
}

void sht__kern_cache_free(sht_kernel *k)
{
	free(k->qc);
	for (size_t i = 0; i < k->nkcp; i++)
		free(k->kcp[i].mem);
	free(k->kcp);
	for (size_t i = 0; i < KD_COUNT; i++)
		free(k->dense[i].q1);
	for (size_t i = 0; i < KERN_NAME_CACHE; i++)
		free(k->names[i].copy);
}

static size_t kq_hash(sht_quark parent, uint32_t kind, int64_t key)
{
	uint64_t h = ((uint64_t)parent << 2 | kind) * 0x9E3779B97F4A7C15u;

	h ^= (uint64_t)key;
	h *= 0xC2B2AE3D27D4EB4Fu;
	h ^= h >> 32;              /* the table uses the low bits */
	return (size_t)h;
}

static struct kq_ent *kq_find(sht_kernel *k, sht_quark parent, uint32_t kind, int64_t key)
{
	size_t mask = k->nqc_cap - 1;

	if (!k->nqc)
		return NULL;
	for (size_t i = kq_hash(parent, kind, key) & mask;; i = (i + 1) & mask) {
		struct kq_ent *x = &k->qc[i];
		if (x->kind == KK_EMPTY)
			return NULL;
		if (x->parent == parent && x->kind == kind && x->key == key)
			return x;
	}
}

/* Remember a look-up: q, or KQ_ABSENT with the attribute count (no
 * memory: not cached).  x: the entry of the same name, which kq_find
 * found (replaced), or NULL. */
static void kq_put(sht_kernel *k, struct kq_ent *x, sht_quark parent, uint32_t kind,
		   int64_t key, sht_quark q, uint64_t count)
{
	size_t mask;

	if (x) {
		x->q = q;
		x->count = count;
		return;
	}
	if ((k->nqc + 1) * 2 > k->nqc_cap) {
		size_t cap = k->nqc_cap ? k->nqc_cap * 2 : 1024;
		struct kq_ent *old = k->qc, *nq = calloc(cap, sizeof *nq);

		if (!nq)
			return;
		k->qc = nq;
		k->nqc_cap = cap;
		for (size_t i = 0; old && i < cap / 2; i++) {
			if (old[i].kind == KK_EMPTY)
				continue;
			for (size_t j = kq_hash(old[i].parent, old[i].kind, old[i].key) & (cap - 1);;
			     j = (j + 1) & (cap - 1))
				if (nq[j].kind == KK_EMPTY) {
					nq[j] = old[i];
					break;
				}
		}
		free(old);
	}
	mask = k->nqc_cap - 1;
	for (size_t i = kq_hash(parent, kind, key) & mask;; i = (i + 1) & mask)
		if (k->qc[i].kind == KK_EMPTY) {
			k->qc[i] = (struct kq_ent){ .key = key, .parent = parent, .q = q,
						    .kind = kind, .count = count };
			k->nqc++;
			return;
		}
}

/* Remember d[key] = q (no memory: not cached).  The table grows by
 * calloc and copy, so that the part beyond the numbers seen stays
 * untouched zero pages. */
static void kdense_put(struct kdense *d, int64_t key, sht_quark q)
{
	if ((size_t)key >= d->cap) {
		size_t cap = d->cap ? d->cap : 1024;
		uint32_t *p;
		while (cap <= (size_t)key)
			cap *= 2;
		if (!(p = calloc(cap, sizeof *p)))
			return;
		if (d->cap)
			memcpy(p, d->q1, d->cap * sizeof *p);
		free(d->q1);
		d->q1 = p;
		d->cap = cap;
	}
	d->q1[key] = q + 1;
}

/* The attribute count now, for absent entries (cache on: not -1). */
static uint64_t kq_count(struct kev *e)
{
	return (uint64_t)sht_state_cacheable_count(e->ss);
}

static sht_err kq_get(struct kev *e, sht_quark parent, uint32_t kind, int64_t key, int create,
		      sht_quark *out)
{
	char buf[KERN_NAME_MAX];
	const char *name = buf;
	struct kdense *d = NULL;
	struct kq_ent *x = NULL;
	sht_err err;

	if (e->k->cache_on) {
		d = kind == KK_NUM ? sht__kern_dense_of(e->k, parent, key) : NULL;
		if (d && (size_t)key < d->cap && d->q1[key]) {
			*out = d->q1[key] - 1;
			return SHT_OK;
		}
		if (!d && (x = kq_find(e->k, parent, kind, key)) && x->q != KQ_ABSENT) {
			*out = x->q;
			return SHT_OK;
		}
		/* Probed before and not created since: still absent. */
		if (x && !create && x->count == kq_count(e))
			return SHT_NOT_FOUND;
	}
	if (kind == KK_NUM)
		snprintf(buf, sizeof buf, "%" PRId64, key);
	else
		snprintf(buf, sizeof buf, "0_%" PRId64, key);
	e->k->created |= create;
	err = create ? sht_state_quark(e->ss, parent, &name, 1, out)
		     : sht_state_quark_find(e->ss, parent, &name, 1, out);
	if (!e->k->cache_on)
		return err;
	if (err == SHT_OK && d)
		kdense_put(d, key, *out);
	else if (err == SHT_OK)
		kq_put(e->k, x, parent, kind, key, *out, 0);
	else if (err == SHT_NOT_FOUND && !d)
		kq_put(e->k, x, parent, kind, key, KQ_ABSENT, kq_count(e));
	return err;
}

/* The line of parent's well-known children, made if needed; NULL if
 * there is no memory for it (not cached then). */
static struct kcp_line *kcp_line(sht_kernel *k, sht_quark parent)
{
	size_t pg = parent >> KCP_SHIFT;
	struct kcp_page *p;

	if (parent == SHT_QUARK_ROOT)
		return &k->kcp_root;
	if (pg >= k->nkcp) {
		size_t n = k->nkcp ? k->nkcp : 4;
		while (n <= pg)
			n *= 2;
		p = realloc(k->kcp, n * sizeof *p);
		if (!p)
			return NULL;
		memset(p + k->nkcp, 0, (n - k->nkcp) * sizeof *p);
		k->kcp = p;
		k->nkcp = n;
	}
	p = &k->kcp[pg];
	if (!p->lines) {
		/* calloc: a large block comes zeroed from mmap, its pages
		 * touched only where lines are used. */
		if (!(p->mem = calloc(1, (KCP_PAGE + 1) * sizeof *p->lines)))
			return NULL;
		p->lines = (struct kcp_line *)(((uintptr_t)p->mem + 63) & ~(uintptr_t)63);
	}
	return &p->lines[parent & (KCP_PAGE - 1)];
}

/* Well-known children go through kcp lines, not the hash table (the
 * hit: sht__kern_childk). */
sht_err sht__kern_childk_miss(struct kev *e, sht_quark parent, kc name, int create,
			      sht_quark *out)
{
	const char *s = sht__kern_cname[name];
	struct kcp_line *l;
	sht_err err;

	e->k->created |= create;
	err = create ? sht_state_quark(e->ss, parent, &s, 1, out)
		     : sht_state_quark_find(e->ss, parent, &s, 1, out);
	if (err == SHT_OK && e->k->cache_on && (l = kcp_line(e->k, parent)))
		l->q1[name] = *out + 1;
	return err;
}

sht_err sht__kern_childn_miss(struct kev *e, sht_quark parent, int64_t num, int create,
			      sht_quark *out)
{
	return kq_get(e, parent, KK_NUM, num, create, out);
}

sht_err sht__kern_thread0_miss(struct kev *e, sht_quark threads, sht_quark *out)
{
	return kq_get(e, threads, KK_ZERO, e->cpu, 1, out);
}

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

sht_err sht__kern_child(struct kev *e, sht_quark parent, const char *name, sht_quark *out)
{
	e->k->created = 1;
	return sht_state_quark(e->ss, parent, &name, 1, out);
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

sht_err sht__kern_current_thread(struct kev *e, sht_quark *thread)
{
	sht_quark cpu, cur;
	int32_t tid = -1;
	sht_err err = sht__kern_cpu(e, &cpu);

	if (err == SHT_OK)
		err = sht__kern_childk(e, cpu, KC_CURRENT_THREAD, 1, &cur);
	if (err != SHT_OK)
		return err;
	sht__kern_get_int(e, cur, &tid);             /* null: -1 (Threads/-1) */
	return sht__kern_thread(e, tid, thread);     /* defined: the CPU is known */
}

sht_err sht__kern_set_running(struct kev *e, sht_quark thread)
{
	sht_quark sc;
	sht_value v;
	sht_err err = sht__kern_childk(e, thread, KC_SYSTEM_CALL, 1, &sc);

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
	sht_quark q;
	sht_value v = sht_value_null();
	int found = 0;
	sht_err err = sht__kern_childk(e, cpu, KC_IRQS, 1, &q);

	if (err == SHT_OK)
		err = any_child(e, q, 0, &found);
	if (err != SHT_OK || found) {
		*out = sht_value_int32(16);
		return err;
	}
	err = sht__kern_childk(e, cpu, KC_SOFT_IRQS, 1, &q);
	if (err == SHT_OK)
		err = any_child(e, q, 8, &found);
	if (err != SHT_OK || found) {
		*out = sht_value_int32(8);
		return err;
	}
	err = sht__kern_childk(e, cpu, KC_CURRENT_THREAD, 1, &q);
	if (err == SHT_OK)
		err = sht__kern_get(e, q, &v);
	if (err != SHT_OK || v.type != SHT_TYPE_INT32 || v.u.i32 == 0) {
		*out = v.type == SHT_TYPE_INT32 ? sht_value_int32(0) : sht_value_null();
		return err;
	}
	err = sht__kern_thread_dec(e, v.u.i32, &q);  /* never 0_<c> here */
	if (err == SHT_OK)
		err = sht__kern_childk(e, q, KC_SYSTEM_CALL, 1, &q);
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
	sht_quark q;
	sht_err err = sht__kern_childk(e, SHT_QUARK_ROOT, KC_CPUS, 0, &q);

	*n = 0;
	if (err == SHT_OK)
		err = sht_state_attr_children(e->ss, q, kids, n);
	return err == SHT_NOT_FOUND ? SHT_OK : err;
}

/* Ongoing value of CPUs/<cpu>/<dir>/<name> (probe): null if absent. */
static sht_err probe_value(struct kev *e, sht_quark cpu, kc dir, int32_t name, sht_value *out)
{
	sht_quark q;
	sht_err err = sht__kern_childk(e, cpu, dir, 0, &q);

	if (err == SHT_OK)
		err = sht__kern_childn(e, q, name, 0, &q);

	*out = sht_value_null();
	if (err == SHT_OK)
		return sht__kern_get(e, q, out);
	return err == SHT_NOT_FOUND ? SHT_OK : err;
}

sht_err sht__kern_aggregate_softirq(struct kev *e, int32_t vec, sht_value *out)
{
	const sht_quark *kids = NULL;
	size_t n;
	sht_value v;
	int32_t best = -1;          /* null counts as -1 */
	sht_err err = cpus(e, &kids, &n);

	*out = sht_value_null();
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		err = probe_value(e, kids[i], KC_SOFT_IRQS, vec, &v);
		if (err == SHT_OK && v.type == SHT_TYPE_INT32 && v.u.i32 > best) {
			best = v.u.i32;
			*out = v;
		}
	}
	return err;
}

sht_err sht__kern_cpu_for_irq(struct kev *e, int32_t n_name, sht_value *out)
{
	const sht_quark *kids = NULL;
	size_t n;
	sht_value v;
	sht_err err = cpus(e, &kids, &n);

	*out = sht_value_null();
	for (size_t i = 0; err == SHT_OK && i < n; i++) {
		err = probe_value(e, kids[i], KC_IRQS, n_name, &v);
		if (err == SHT_OK && v.type != SHT_TYPE_NULL) {
			*out = v;       /* the value is the CPU number (set to c) */
			break;
		}
	}
	return err;
}
