/*
 * kernel.c: the Linux kernel analysis as a provider (sht/analysis.h):
 * layouts (docs/KERNEL-MODEL.md §5), dispatch of an event by its name to one
 * handler of §6, statistics.
 *
 * Layouts are a bit set: an explicit layout is one bit; AUTO starts with
 * all three and shrinks to the layouts that know each layout-specific
 * name seen (the "family" of a name says which layouts know it).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/kernel-int.h"
#include "util/util.h"

enum {
	L20 = 1u << 0,              /* base: LTTng 2.0 - 2.5, unknown tracers */
	L26 = 1u << 1,
	L27 = 1u << 2,              /* 2.7 - 2.9 */
	LALL = L20 | L26 | L27,
};

/* Handlers selected by exact name. */
typedef enum kh {
	KH_SWITCH, KH_PI_SETPRIO, KH_FORK, KH_EXIT, KH_FREE, KH_WAKEUP, KH_MIGRATE,
	KH_IRQ_ENTRY, KH_IRQ_EXIT, KH_SOFT_ENTRY, KH_SOFT_EXIT, KH_SOFT_RAISE,
	KH_VEC_ENTRY, KH_VEC_EXIT, KH_FREQ, KH_STATEDUMP,
} kh;

struct kname {
	const char *name;
	kh handler;
	unsigned layouts;           /* layouts that know this name */
};

/* Sorted by name (strcmp: "_" sorts before letters) for bsearch. */
static const struct kname NAMES[] = {
	{ "irq_handler_entry", KH_IRQ_ENTRY, LALL },
	{ "irq_handler_exit", KH_IRQ_EXIT, LALL },
	{ "irq_softirq_entry", KH_SOFT_ENTRY, L27 },
	{ "irq_softirq_exit", KH_SOFT_EXIT, L27 },
	{ "irq_softirq_raise", KH_SOFT_RAISE, L27 },
	{ "lttng_statedump_process_state", KH_STATEDUMP, LALL },
	{ "power_cpu_frequency", KH_FREQ, LALL },
	{ "sched_migrate_task", KH_MIGRATE, LALL },
	{ "sched_pi_setprio", KH_PI_SETPRIO, LALL },
	{ "sched_process_exit", KH_EXIT, LALL },
	{ "sched_process_fork", KH_FORK, LALL },
	{ "sched_process_free", KH_FREE, LALL },
	{ "sched_switch", KH_SWITCH, LALL },
	{ "sched_wakeup", KH_WAKEUP, LALL },
	{ "sched_wakeup_new", KH_WAKEUP, LALL },
	{ "sched_waking", KH_WAKEUP, LALL },
	{ "softirq_entry", KH_SOFT_ENTRY, L20 | L26 },
	{ "softirq_exit", KH_SOFT_EXIT, L20 | L26 },
	{ "softirq_raise", KH_SOFT_RAISE, L20 | L26 },
	{ "x86_irq_vectors_call_function_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_call_function_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_call_function_single_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_call_function_single_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_deferred_error_apic_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_deferred_error_apic_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_error_apic_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_error_apic_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_ipi_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_ipi_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_irq_work_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_irq_work_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_local_timer_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_local_timer_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_reschedule_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_reschedule_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_spurious_apic_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_spurious_apic_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_thermal_apic_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_thermal_apic_exit", KH_VEC_EXIT, L27 },
	{ "x86_irq_vectors_threshold_apic_entry", KH_VEC_ENTRY, L27 },
	{ "x86_irq_vectors_threshold_apic_exit", KH_VEC_EXIT, L27 },
};

/* System call prefixes, in the order they are tested (§5, §6.7): exits
 * first, then entries, compat before normal. */
struct kprefix {
	const char *prefix;
	size_t len;
	int exit;
	unsigned layouts;
};

#define PFX(s, x, l) { s, sizeof s - 1, x, l }
static const struct kprefix PREFIXES[] = {
	PFX("exit_syscall", 1, L20),
	PFX("compat_syscall_exit_", 1, L26 | L27),
	PFX("syscall_exit_", 1, L26 | L27),
	PFX("compat_sys_", 0, L20),
	PFX("sys_", 0, L20),
	PFX("compat_syscall_entry_", 0, L26 | L27),
	PFX("syscall_entry_", 0, L26 | L27),
};
#undef PFX

static unsigned layout_bits(sht_kernel_layout l)
{
	switch (l) {
	case SHT_KERNEL_LAYOUT_AUTO:
		return LALL;
	case SHT_KERNEL_LAYOUT_LTTNG_2_0:
		return L20;
	case SHT_KERNEL_LAYOUT_LTTNG_2_6:
		return L26;
	case SHT_KERNEL_LAYOUT_LTTNG_2_7:
		return L27;
	}
	return 0;
}

/* Is a name of these layouts handled?  If so, narrow the set (AUTO). */
static int accept(sht_kernel *k, unsigned layouts)
{
	if (!(k->layouts & layouts))
		return 0;
	k->layouts &= layouts;
	return 1;
}

static int kname_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct kname *)elem)->name);
}

static sht_err run_handler(struct kev *e, kh h)
{
	switch (h) {
	case KH_SWITCH: return sht__kern_sched_switch(e);
	case KH_PI_SETPRIO: return sht__kern_sched_pi_setprio(e);
	case KH_FORK: return sht__kern_sched_fork(e);
	case KH_EXIT: return sht__kern_sched_exit(e);
	case KH_FREE: return sht__kern_sched_free(e);
	case KH_WAKEUP: return sht__kern_sched_wakeup(e);
	case KH_MIGRATE: return sht__kern_sched_migrate(e);
	case KH_IRQ_ENTRY: return sht__kern_irq_entry(e);
	case KH_IRQ_EXIT: return sht__kern_irq_exit(e);
	case KH_SOFT_ENTRY: return sht__kern_softirq_entry(e);
	case KH_SOFT_EXIT: return sht__kern_softirq_exit(e);
	case KH_SOFT_RAISE: return sht__kern_softirq_raise(e);
	case KH_VEC_ENTRY: return sht__kern_vector_entry(e);
	case KH_VEC_EXIT: return sht__kern_vector_exit(e);
	case KH_FREQ: return sht__kern_cpu_frequency(e);
	case KH_STATEDUMP: return sht__kern_statedump_process(e);
	}
	return SHT_OK;
}

#define NPREFIXES (sizeof PREFIXES / sizeof *PREFIXES)

/* The prefixes name starts with: bit i for PREFIXES[i]. */
static unsigned prefixes_of(const char *name)
{
	unsigned bits = 0;

	for (size_t i = 0; i < NPREFIXES; i++)
		if (strncmp(name, PREFIXES[i].prefix, PREFIXES[i].len) == 0)
			bits |= 1u << i;
	return bits;
}

/* System calls (§5 dispatch, after the exact names); pfx: prefixes_of(name). */
static sht_err syscall(struct kev *e, const char *name, unsigned pfx)
{
	const struct kprefix *p;

	for (p = PREFIXES; p < PREFIXES + NPREFIXES; p++) {
		if (!(pfx & 1u << (p - PREFIXES)) || !accept(e->k, p->layouts))
			continue;
		e->k->stats.handled++;
		return p->exit ? sht__kern_syscall_exit(e) : sht__kern_syscall_entry(e, name + p->len);
	}
	return SHT_OK;                  /* not a kernel-analysis event */
}


/* The slot of name in the dispatch cache: its entry, else an empty slot
 * or the one to reuse (linear probing over a few slots; a trace has a
 * few hundred event names, e.g. one pair per system call). */
static struct kname_ent *kname_slot(sht_kernel *k, const char *name)
{
	uintptr_t h = (uintptr_t)name;
	size_t home, i;

	h ^= h >> 7;
	h ^= h >> 13;
	home = i = h % KERN_NAME_CACHE;
	for (unsigned n = 0; n < KERN_NAME_PROBES; n++, i = (i + 1) % KERN_NAME_CACHE)
		if (k->names[i].ptr == name || !k->names[i].ptr)
			return &k->names[i];
	return &k->names[home];
}

/* The dispatch of an event name (its entry in NAMES, its syscall
 * prefixes), remembered per name pointer and checked against the text. */
static const struct kname_ent *classify(sht_kernel *k, const char *name)
{
	struct kname_ent *x = kname_slot(k, name);
	size_t len;
	char *copy;

	if (x->ptr == name && strcmp(x->copy, name) == 0)
		return x;
	len = strlen(name);
	copy = x->copy && strlen(x->copy) >= len ? x->copy : realloc(x->copy, len + 1);
	if (!copy) {
		free(x->copy);
		*x = (struct kname_ent){ 0 };
		x = &k->names[KERN_NAME_CACHE];   /* the scratch entry */
		x->copy = NULL;
	} else {
		memcpy(copy, name, len + 1);
		x->copy = copy;
	}
	x->ptr = copy ? name : NULL;
	x->kn = bsearch(name, NAMES, sizeof NAMES / sizeof *NAMES, sizeof *NAMES, kname_cmp);
	x->prefixes = x->kn ? 0 : prefixes_of(name);
	return x;
}

static sht_err handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	sht_kernel *k = ctx;
	const struct kname_ent *x;
	const struct kname *kn;
	struct kev e;
	sht_err err;

	k->stats.events++;
	if (!ev->name)
		return SHT_OK;
	x = classify(k, ev->name);
	kn = x->kn;
	if (!kn && !x->prefixes)
		return SHT_OK;          /* not a kernel-analysis event */
	if (kn && !accept(k, kn->layouts))
		return SHT_OK;
	if (kn && kn->handler == KH_EXIT) {
		k->stats.handled++;
		return SHT_OK;          /* does nothing (§6.10) */
	}
	e.k = k;
	e.ss = ss;
	e.ev = ev;
	e.t = ev->ts;
	e.cpu = sht_event_cpu(ev);
	sht__kern_cache_begin(k, ss);
	if (!kn) {
		err = syscall(&e, ev->name, x->prefixes);
	} else {
		k->stats.handled++;
		err = run_handler(&e, kn->handler);
	}
	sht__kern_cache_end(k, ss);
	return err;
}

/* ---- public API ------------------------------------------------------------ */

sht_err sht_kernel_create(sht_kernel_layout layout, sht_kernel **out)
{
	sht_kernel *k;

	if (!layout_bits(layout))
		return sht__error(SHT_ERR_INVALID, "Cannot create the kernel analysis: layout=%d",
				  (int)layout);
	k = calloc(1, sizeof *k);
	if (!k)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the kernel analysis");
	k->layout = layout;
	k->layouts = layout_bits(layout);
	*out = k;
	return SHT_OK;
}

void sht_kernel_destroy(sht_kernel *k)
{
	if (!k)
		return;
	sht__kern_cache_free(k);
	free(k);
}

/* Resumable builds: the layouts still possible (an AUTO layout decides
 * by the names it meets) and the counters; the rest are caches. */
#define KERN_SAVE_MAGIC 0x4b524e31u   /* "KRN1" */
#define KERN_SAVE_LEN 44u

static sht_err kern_save(void *ctx, void **data, size_t *len)
{
	const sht_kernel *k = ctx;
	uint8_t *p = malloc(KERN_SAVE_LEN);

	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot save the kernel analysis: out of memory");
	sht__put_u32(p, KERN_SAVE_MAGIC);
	sht__put_u32(p + 4, k->layouts);
	sht__put_u32(p + 8, (uint32_t)k->layout);
	sht__put_u64(p + 12, k->stats.events);
	sht__put_u64(p + 20, k->stats.handled);
	sht__put_u64(p + 28, k->stats.stopped);
	sht__put_u64(p + 36, k->stats.malformed);
	*data = p;
	*len = KERN_SAVE_LEN;
	return SHT_OK;
}

static sht_err kern_load(void *ctx, const void *data, size_t len)
{
	sht_kernel *k = ctx;
	const uint8_t *p = data;

	if (len != KERN_SAVE_LEN || sht__get_u32(p) != KERN_SAVE_MAGIC ||
	    sht__get_u32(p + 8) != (uint32_t)k->layout ||
	    (sht__get_u32(p + 4) & ~layout_bits(k->layout)))
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume the kernel analysis: "
				  "its saved state is not of this analysis and layout");
	k->layouts = sht__get_u32(p + 4);
	k->stats.events = sht__get_u64(p + 12);
	k->stats.handled = sht__get_u64(p + 20);
	k->stats.stopped = sht__get_u64(p + 28);
	k->stats.malformed = sht__get_u64(p + 36);
	return SHT_OK;
}

void sht_kernel_provider(sht_kernel *k, sht_provider *out)
{
	out->id = SHT_KERNEL_PROVIDER_ID;
	out->version = SHT_KERNEL_PROVIDER_VERSION;
	out->handle = handle;
	out->ctx = k;
	out->model = sht_kernel_model();
	out->save = kern_save;
	out->load = kern_load;
}

sht_kernel_layout sht_kernel_layout_in_use(const sht_kernel *k)
{
	switch (k->layouts) {
	case L20:
		return SHT_KERNEL_LAYOUT_LTTNG_2_0;
	case L26:
		return SHT_KERNEL_LAYOUT_LTTNG_2_6;
	case L27:
		return SHT_KERNEL_LAYOUT_LTTNG_2_7;
	default:
		return SHT_KERNEL_LAYOUT_AUTO;
	}
}

void sht_kernel_stats_get(const sht_kernel *k, sht_kernel_stats *out)
{
	*out = k->stats;
}

/* An env value without surrounding double quotes: [*s, *s + *len). */
static void unquote(const char **s, size_t *len)
{
	*len = strlen(*s);
	if (*len >= 2 && (*s)[0] == '"' && (*s)[*len - 1] == '"') {
		(*s)++;
		*len -= 2;
	}
}

/* A decimal env value, -1 if absent or not a number. */
static long env_number(const char *s)
{
	size_t len;
	long x = 0;

	if (!s)
		return -1;
	unquote(&s, &len);
	if (len == 0 || len > 9)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	return x;
}

sht_kernel_layout sht_kernel_layout_from_env(const char *tracer_name, const char *tracer_major,
					     const char *tracer_minor)
{
	long major = env_number(tracer_major), minor = env_number(tracer_minor);
	size_t len;

	if (!tracer_name)
		return SHT_KERNEL_LAYOUT_LTTNG_2_0;
	unquote(&tracer_name, &len);
	if (len != 13 || strncmp(tracer_name, "lttng-modules", 13) != 0 || major < 2)
		return SHT_KERNEL_LAYOUT_LTTNG_2_0;
	if (minor >= 7)
		return SHT_KERNEL_LAYOUT_LTTNG_2_7;
	if (minor == 6)
		return SHT_KERNEL_LAYOUT_LTTNG_2_6;
	return SHT_KERNEL_LAYOUT_LTTNG_2_0;
}
