/*
 * kernel-int.h: internals of the Linux kernel analysis (src/analysis/).
 *
 * kernel.c dispatches an event by name (§5) to one handler; the handlers
 * (kernel-sched.c, kernel-irq.c, kernel-syscall.c, kernel-statedump.c)
 * perform the look-ups of docs/KERNEL-MODEL.md §6 in the order
 * written there, since that order gives the quark numbers; kernel-helpers.c
 * holds the field readers and the helper operations of §4.3.
 *
 * Handler contract: return SHT_OK when done or when the model says "stop"
 * (counted through sht__kern_stop); a state-system error as is (the skippable
 * ones skip the rest of the event, §2.4); SHT_ERR_NOATTR / SHT_ERR_TYPE
 * for a missing or mistyped required field (counted through the field
 * readers).
 */
#ifndef SHT_KERNEL_INT_H
#define SHT_KERNEL_INT_H

#include <stdint.h>

#include "sht/analysis.h"
#include "sht/state.h"

/* Longest attribute name the handlers build ("0_-2147483648", "<irq>/"). */
#define KERN_NAME_MAX 24

/* Well-known attribute names, for the quark cache (KC_*: the index in
 * sht__kern_cname). */
typedef enum kc {
	KC_THREADS, KC_CPUS, KC_IRQS, KC_SOFT_IRQS, KC_CURRENT_THREAD, KC_SYSTEM_CALL,
	KC_CURRENT_CPU_RQ, KC_EXEC_NAME, KC_PRIO, KC_PPID, KC_PID, KC_FREQUENCY,
	KC_MIN_FREQUENCY, KC_MAX_FREQUENCY, KC_COUNT
} kc;
extern const char *const sht__kern_cname[KC_COUNT];

/* Kinds of cached names in the hash table: a decimal number (key: the
 * number), "0_<cpu>" (key: the cpu).  (Well-known names are cached in
 * struct kcp_line.) */
enum { KK_EMPTY = 0, KK_NUM = 2, KK_ZERO };

/* One cached look-up: parent/<name of (kind, key)> exists and is q.  An
 * attribute, once it exists, keeps its quark, so a hit is what the state
 * system would answer, and a get-or-create that hits would have created
 * nothing.  A probe that found nothing is cached too (q = KQ_ABSENT): it
 * holds while the state system has the `count` attributes it had then
 * (any attribute created since may be this one). */
#define KQ_ABSENT SHT_QUARK_NONE

struct kq_ent {
	int64_t key;
	sht_quark parent, q;
	uint32_t kind;
	uint64_t count;             /* absent: the attribute count then */
};

/* Cached dispatch of one event name. */
struct kname_ent {
	const char *ptr;            /* the event's name pointer last seen */
	char *copy;                 /* its text (the pointer alone may be reused) */
	const void *kn;             /* struct kname *, or NULL */
	unsigned prefixes;          /* bit i: PREFIXES[i] matches the name */
};

#define KERN_NAME_CACHE 512
#define KERN_NAME_PROBES 8

/* Children with well-known names, per parent: one 64-byte line of
 * quark + 1 (0: not cached) by kc, so that the look-ups of one thread's
 * or CPU's attributes share a cache line.  Lines come in pages of
 * KCP_PAGE parents, allocated when first used. */
#define KC_SLOTS 16
#define KCP_SHIFT 12
#define KCP_PAGE (1u << KCP_SHIFT)

struct kcp_line {
	uint32_t q1[KC_SLOTS];
};
_Static_assert(KC_COUNT <= KC_SLOTS, "a kcp_line holds every well-known name");
_Static_assert(sizeof(struct kcp_line) == 64, "a kcp_line is one cache line");

struct kcp_page {
	void *mem;                  /* the allocation (lines: 64-aligned in it) */
	struct kcp_line *lines;     /* KCP_PAGE lines */
};

/* Numbered children of one parent by number, for Threads/<tid> and
 * CPUs/<n>: quark + 1 (0: not cached), cap entries. */
#define KDENSE_MAX (1u << 22)       /* larger numbers: the hash table */

struct kdense {
	uint32_t *q1;
	size_t cap;
};

enum { KD_THREADS, KD_CPUS, KD_COUNT };

struct sht_kernel {
	sht_kernel_layout layout;   /* as given */
	unsigned layouts;           /* bit set of layouts still possible */
	sht_kernel_stats stats;
	/* Quark cache, valid for state system `ss` while its attribute
	 * count is `nattrs` at the start of an event (a change of either:
	 * another state system; replays are not cached). */
	sht_state *ss;
	uint64_t nattrs;
	struct kq_ent *qc;          /* numbered children (KK_NUM, KK_ZERO):
				     * open addressing, nqc_cap a power of 2 */
	size_t nqc, nqc_cap;
	struct kcp_page *kcp;       /* well-known children (KK_CONST) by
				     * parent >> KCP_SHIFT, nkcp pages */
	size_t nkcp;
	struct kcp_line kcp_root;   /* well-known children of the root */
	struct kdense dense[KD_COUNT]; /* Threads/<tid>, CPUs/<n> */
	int cache_on;               /* for the current event */
	int created;                /* it asked to create an attribute */
	struct kname_ent names[KERN_NAME_CACHE + 1]; /* + a scratch entry */
};

/* One event being handled. */
struct kev {
	sht_kernel *k;
	sht_state *ss;
	const sht_event *ev;
	sht_time t;                 /* event timestamp */
	int32_t cpu;                /* -1: unknown (its name: the decimal) */
};

/* ---- fields (kernel-helpers.c) ------------------------------------------ */

/* Required integer field: SHT_OK; else the event is malformed (counted,
 * message recorded): SHT_ERR_NOATTR if absent, SHT_ERR_TYPE if not an
 * integer. */
sht_err sht__kern_int(struct kev *e, const char *name, int64_t *out);
/* Optional integer field: *present 0 if absent; SHT_ERR_TYPE as above. */
sht_err sht__kern_opt_int(struct kev *e, const char *name, int64_t *out, int *present);
/* Required / optional text field (borrowed until the next event). */
sht_err sht__kern_str(struct kev *e, const char *name, const char **out);
sht_err sht__kern_opt_str(struct kev *e, const char *name, const char **out, int *present);

/* A model "stop": count it, return SHT_OK. */
sht_err sht__kern_stop(struct kev *e);

/* ---- names and values --------------------------------------------------- */

/* The decimal name of x (a thread's, a CPU's, an IRQ's attribute). */
void sht__kern_dec(int64_t x, char buf[KERN_NAME_MAX]);

/* Get-or-create the child `name` of parent. */
sht_err sht__kern_child(struct kev *e, sht_quark parent, const char *name, sht_quark *out);

/* Cached look-ups (same creations, in the same order, as the uncached
 * ones): get-or-create (create 1) or probe (create 0) of parent/<name>.
 * The hits are inline below; a miss looks up through the state system
 * and remembers what it found (kernel-helpers.c). */
sht_err sht__kern_childk_miss(struct kev *e, sht_quark parent, kc name, int create,
			      sht_quark *out);
sht_err sht__kern_childn_miss(struct kev *e, sht_quark parent, int64_t num, int create,
			      sht_quark *out);

/* parent's line of well-known children, if it has one. */
static inline const struct kcp_line *sht__kern_kcp_peek(const sht_kernel *k, sht_quark parent)
{
	size_t pg = parent >> KCP_SHIFT;

	if (parent == SHT_QUARK_ROOT)
		return &k->kcp_root;
	if (pg >= k->nkcp || !k->kcp[pg].lines)
		return NULL;
	return &k->kcp[pg].lines[parent & (KCP_PAGE - 1)];
}

/* The dense table of parent's numbered children: parent is Threads or
 * CPUs (as cached under the root) and 0 <= num < KDENSE_MAX; else NULL. */
static inline struct kdense *sht__kern_dense_of(sht_kernel *k, sht_quark parent, int64_t num)
{
	const uint32_t *root = k->kcp_root.q1;

	if (num < 0 || num >= KDENSE_MAX)
		return NULL;
	if (root[KC_THREADS] && parent == root[KC_THREADS] - 1)
		return &k->dense[KD_THREADS];
	if (root[KC_CPUS] && parent == root[KC_CPUS] - 1)
		return &k->dense[KD_CPUS];
	return NULL;
}

static inline sht_err sht__kern_childk(struct kev *e, sht_quark parent, kc name, int create,
				       sht_quark *out)
{
	const struct kcp_line *l;

	if (e->k->cache_on && (l = sht__kern_kcp_peek(e->k, parent)) && l->q1[name]) {
		*out = l->q1[name] - 1;
		return SHT_OK;
	}
	return sht__kern_childk_miss(e, parent, name, create, out);
}

static inline sht_err sht__kern_childn(struct kev *e, sht_quark parent, int64_t num, int create,
				       sht_quark *out)
{
	const struct kdense *d;

	if (e->k->cache_on && (d = sht__kern_dense_of(e->k, parent, num)) &&
	    (size_t)num < d->cap && d->q1[num]) {
		*out = d->q1[num] - 1;
		return SHT_OK;
	}
	return sht__kern_childn_miss(e, parent, num, create, out);
}
/* Get-or-create Threads/<decimal tid> (no 0_<cpu> naming). */
static inline sht_err sht__kern_thread_dec(struct kev *e, int32_t tid, sht_quark *out)
{
	sht_quark threads;
	sht_err err = sht__kern_childk(e, SHT_QUARK_ROOT, KC_THREADS, 1, &threads);

	return err == SHT_OK ? sht__kern_childn(e, threads, tid, 1, out) : err;
}

/* Get-or-create Threads/0_<cpu> (cached in the hash table). */
sht_err sht__kern_thread0_miss(struct kev *e, sht_quark threads, sht_quark *out);

/* Get-or-create Threads/<thread name of tid> (defined: see
 * sht__kern_thread_ok). */
static inline sht_err sht__kern_thread(struct kev *e, int32_t tid, sht_quark *out)
{
	sht_quark threads;
	sht_err err;

	if (tid != 0)
		return sht__kern_thread_dec(e, tid, out);
	err = sht__kern_childk(e, SHT_QUARK_ROOT, KC_THREADS, 1, &threads);
	return err == SHT_OK ? sht__kern_thread0_miss(e, threads, out) : err;
}
/* Is the thread name of tid defined (tid != 0 or the CPU known)? */
static inline int sht__kern_thread_ok(const struct kev *e, int32_t tid)
{
	return tid != 0 || e->cpu >= 0;
}
/* Bind / check the cache at the start of an event, update at its end. */
void sht__kern_cache_begin(sht_kernel *k, sht_state *ss);
void sht__kern_cache_end(sht_kernel *k, sht_state *ss);
void sht__kern_cache_free(sht_kernel *k);

/* Ongoing value (strings borrowed until the next change). */
sht_err sht__kern_get(struct kev *e, sht_quark q, sht_value *out);
/* Ongoing int value into *out: 1 if it is an int32, 0 if null or another
 * type. */
int sht__kern_get_int(struct kev *e, sht_quark q, int32_t *out);

sht_err sht__kern_set(struct kev *e, sht_quark q, sht_value v);
sht_err sht__kern_set_int(struct kev *e, sht_quark q, int32_t x);
sht_err sht__kern_set_null(struct kev *e, sht_quark q);
sht_err sht__kern_set_str(struct kev *e, sht_quark q, const char *s);

/* ---- helper operations (§4.3) ------------------------------------------- */

/* current-thread(c): Threads/<name> of the thread on the event's CPU. */
sht_err sht__kern_current_thread(struct kev *e, sht_quark *thread);
/* set-running(t, thread). */
sht_err sht__kern_set_running(struct kev *e, sht_quark thread);
/* update-cpu(t, c): CPUs/<c> = cpu-status(c). */
sht_err sht__kern_update_cpu(struct kev *e);
/* CPUs/<c> of the event's CPU (get-or-create CPUs, then CPUs/<c>). */
static inline sht_err sht__kern_cpu(struct kev *e, sht_quark *out)
{
	sht_quark cpus;
	sht_err err = sht__kern_childk(e, SHT_QUARK_ROOT, KC_CPUS, 1, &cpus);

	return err == SHT_OK ? sht__kern_childn(e, cpus, e->cpu, 1, out) : err;
}
/* aggregate-softirq(vec) into *out (null or an int). */
sht_err sht__kern_aggregate_softirq(struct kev *e, int32_t vec, sht_value *out);
/* cpu-for-irq(n) into *out (null or an int). */
sht_err sht__kern_cpu_for_irq(struct kev *e, int32_t n, sht_value *out);

/* ---- handlers ----------------------------------------------------------- */

sht_err sht__kern_sched_switch(struct kev *e);
sht_err sht__kern_sched_pi_setprio(struct kev *e);
sht_err sht__kern_sched_fork(struct kev *e);
sht_err sht__kern_sched_exit(struct kev *e);
sht_err sht__kern_sched_free(struct kev *e);
sht_err sht__kern_sched_wakeup(struct kev *e);
sht_err sht__kern_sched_migrate(struct kev *e);
sht_err sht__kern_irq_entry(struct kev *e);
sht_err sht__kern_irq_exit(struct kev *e);
sht_err sht__kern_softirq_entry(struct kev *e);
sht_err sht__kern_softirq_exit(struct kev *e);
sht_err sht__kern_softirq_raise(struct kev *e);
sht_err sht__kern_vector_entry(struct kev *e);
sht_err sht__kern_vector_exit(struct kev *e);
/* name: the syscall name (prefix removed). */
sht_err sht__kern_syscall_entry(struct kev *e, const char *name);
sht_err sht__kern_syscall_exit(struct kev *e);
sht_err sht__kern_cpu_frequency(struct kev *e);
sht_err sht__kern_statedump_process(struct kev *e);

#endif /* SHT_KERNEL_INT_H */
