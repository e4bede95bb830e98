/*
 * state-int.h: private structures of the state system (src/state only).
 * The state system never includes src/store's private headers: it uses
 * the store through its public API.
 *
 *   attrs      names <-> quarks (attrs.c)
 *   transient  ongoing state per quark and the change rules (transient.c)
 *   backends   where closed intervals go and come back from (backend-*.c)
 *   queries    backend answers merged with ongoing states (squery.c)
 */
#ifndef SHT_STATE_INT_H
#define SHT_STATE_INT_H

#include <pthread.h>

#include "sht/state.h"
#include "state/attrs.h"
#include "state/model.h"
#include "util/result-int.h"
#include "util/util.h"

/* Section kinds of a state-system history (docs/FORMAT.md §6). */
enum {
	SHT__SECTION_ATTRS = 1,
	SHT__SECTION_PROVIDER = 2,
	SHT__SECTION_CHECKPOINTS = 3,
	SHT__SECTION_TYPES = 4,
	SHT__SECTION_ABOUT = 5,      /* model and build notes (describe.c) */
	SHT__SECTION_APP_FIRST = 16, /* and up: sht_state_add_section; the
	                                state system keeps 1 .. 15 */
};

/* A partial history's checkpoint: the state just before the event at
 * index/pos, whose time is ts (the first event of its timestamp), is the
 * state at ts - 1, which the stored intervals give in full. */
struct sht__ckpt {
	uint64_t attrs;              /* attributes existing then */
	uint64_t index;              /* event number */
	uint64_t pos;                /* the source's position of that event */
	sht_time ts;
};

/* Does [s, e] hold a checkpoint's time - 1 (so a partial history keeps
 * it)?  cp sorted by ts; checkpoint 0 (the first event) never counts. */
int sht__crosses(const struct sht__ckpt *cp, size_t n, sht_time s, sht_time e);

/* Where closed intervals go.  Query functions see only closed intervals. */
struct sht__backend_ops {
	const char *name;
	sht_err (*insert)(void *be, const sht_interval *iv);
	/* Close the backend at end; sections: attribute tree and provider. */
	sht_err (*finish)(void *be, sht_time end, const void *attrs,
			  size_t attrs_len, const void *prov, size_t prov_len);
	sht_err (*query)(void *be, sht_quark q, sht_time t, sht_result *res);
	sht_err (*query_full)(void *be, sht_time t, sht_result *res);
	sht_err (*query_2d)(void *be, const sht_query2d *q, sht_result *res);
	void (*destroy)(void *be);
	/* Write a section now (file-backed builds; NULL: not stored). */
	sht_err (*add_section)(void *be, uint32_t kind, uint32_t version,
			       const void *data, size_t len);
};

extern const struct sht__backend_ops sht__backend_tree;
extern const struct sht__backend_ops sht__backend_mem;
extern const struct sht__backend_ops sht__backend_null;
extern const struct sht__backend_ops sht__backend_file;
extern const struct sht__backend_ops sht__backend_partial;

sht_err sht__backend_tree_create(const char *path, sht_time start,
				 const sht_builder_opts *opts, void **out);
sht_err sht__backend_mem_create(void **out);
sht_err sht__backend_partial_create(sht_state *ss, const char *path,
				    const sht_state_opts *opts, void **out);
/* Resumable builds (resume.c): a partial backend's builder; its fields
 * into a snapshot, and back (the builder set afterwards). */
struct sht__wbuf;
struct sht__rbuf;
sht_builder *sht__partial_builder(void *be);
void sht__partial_save(void *be, struct sht__wbuf *w);
sht_err sht__partial_resume(sht_state *ss, const sht_state_opts *opts,
			    struct sht__rbuf *r, void **out);
void sht__partial_set_builder(void *be, sht_builder *b);
/* Partial build: count an event, maybe place a checkpoint. */
sht_err sht__partial_event(void *be, const sht_event *ev);
/* The reader of an opened history (the state system keeps it too). */
sht_err sht__backend_file_create(sht_reader *r, void **out);

/* Ongoing state of one attribute: 32 bytes, so that an entry never
 * spans two cache lines (when its type was fixed, needed by partial
 * histories and resumable builds only, is kept apart: locked_at). */
struct sht__ongoing {
	sht_value v;                 /* string: malloc'd copy, owned */
	sht_time start;              /* start of the ongoing interval */
	uint8_t locked;              /* sht_type fixed by the first non-null */
};
_Static_assert(sizeof(void *) != 8 || sizeof(struct sht__ongoing) == 32,
	       "an ongoing entry never spans two cache lines");

struct sht_state {
	pthread_mutex_t lock;        /* every call; queries included
				      * (sht__lock: not retaken while
				      * sht_state_run runs a handler) */
	struct sht__attrs *attrs;    /* NULL until loaded (opened history) */
	struct sht__ongoing *cur;    /* ncur entries, one per quark */
	void *cur_mem;               /* its allocation (cur: 64-aligned in it) */
	sht_time *locked_at;         /* ncur: when cur[q].locked was fixed */
	size_t ncur, capcur;
	const struct sht__backend_ops *ops;
	void *be;
	sht_reader *reader;          /* opened history: its reader */
	int readonly;                /* opened: no changes */
	int finished;
	int failed;                  /* a backend error: only queries remain */
	sht_time start;              /* history start */
	sht_time now;                /* latest change time (building) */
	sht_time end;                /* finish time, once finished */
	int attrs_borrowed;          /* a replay's: attrs belongs to another */
	uint64_t visible;            /* borrowed: quarks < visible exist now */
	struct sht__partial *partial;/* opened partial history: the replayer */
	sht_value popped;            /* last popped value (owned copy) */
	char *provider;              /* identity, "" if none */
	uint32_t provider_version;
	struct sht__model *about;    /* model and build notes, or NULL */
	int about_loaded;            /* about is final (given, or read) */
};

/* Error paths of the per-change calls: kept out of line so that the
 * checks in front of every change stay small enough to inline. */
#if defined(__GNUC__)
#define SHT__COLD __attribute__((noinline, cold))
#else
#define SHT__COLD
#endif

/* An empty state system (no backend yet), or NULL. */
sht_state *sht__state_new(void);

/*
 * The lock.  sht_state_run holds ss->lock while a provider's handler runs
 * and sets sht__held to ss on its thread meanwhile: the handler's calls
 * on ss (a dozen per event) then skip the lock instead of taking it again,
 * and each event is applied as a whole before another thread sees it.
 * Every public call on a state system locks through these two.
 */
#if defined(__GNUC__)
extern _Thread_local sht_state *sht__held __attribute__((tls_model("initial-exec")));
#else
extern _Thread_local sht_state *sht__held;
#endif

static inline void sht__lock(sht_state *ss)
{
	if (sht__held != ss)
		pthread_mutex_lock(&ss->lock);
}

static inline void sht__unlock(sht_state *ss)
{
	if (sht__held != ss)
		pthread_mutex_unlock(&ss->lock);
}

/* Queries on a replayed segment (squery.c): closed intervals from its
 * backend, ongoing ones up to its current time; no bounds checks. */
sht_err sht__segment_single(sht_state *seg, sht_quark q, sht_time t, sht_result *res);
sht_err sht__segment_full(sht_state *seg, sht_time t, sht_result *res);
sht_err sht__segment_2d(sht_state *seg, const sht_query2d *q, sht_result *res);

/* Opened partial histories (partial.c). */
sht_err sht__partial_open(sht_state *ss, const sht_source *src,
			  const sht_provider *p);
void sht__partial_free(struct sht__partial *pq);
sht_err sht__partial_single(sht_state *ss, sht_quark q, sht_time t, sht_result *res);
sht_err sht__partial_full(sht_state *ss, sht_time t, sht_result *res);
sht_err sht__partial_2d(sht_state *ss, const sht_query2d *q, sht_result *res);

/* The attribute tree as this state system sees it: a replay borrows the
 * final tree but sees only the attributes that existed at its point in
 * the trace, and "creates" the next ones as the first run did. */
sht_err sht__attr_get(sht_state *ss, sht_quark parent, const char *name,
		      size_t len, int create, sht_quark *out);
void sht__attr_children(sht_state *ss, sht_quark q, const sht_quark **kids,
			size_t *n);

/* Attribute tree, loaded on first use for an opened history. */
sht_err sht__state_attrs(sht_state *ss, struct sht__attrs **out);

/* Make room for ongoing states up to quark q (new ones null at start). */
sht_err sht__ongoing_grow(sht_state *ss, uint64_t count);

/* Change rules, with the lock held and arguments checked. */
sht_err sht__modify(sht_state *ss, sht_time t, sht_quark q,
		    const sht_value *v);
sht_err sht__clear(sht_state *ss, sht_time t, sht_quark q);

sht_err sht__push(sht_state *ss, sht_time t, sht_quark q, const sht_value *v);
sht_err sht__pop(sht_state *ss, sht_time t, sht_quark q, sht_value *popped);
sht_err sht__increment(sht_state *ss, sht_time t, sht_quark q, int64_t delta);
sht_err sht__update_ongoing(sht_state *ss, sht_quark q, const sht_value *v);
/* Set q's ongoing interval (a replay's starting state). */
sht_err sht__ongoing_set(sht_state *ss, sht_quark q, const sht_value *v,
			sht_time start);

/* The model and notes (describe.c): copied from the options at create,
 * adopted from the first provider sht_state_run runs if none was given,
 * written as the about section before the backend finishes. */
sht_err sht__about_init(sht_state *ss, const sht_state_opts *o);
sht_err sht__about_adopt(sht_state *ss, const sht_model *m);
sht_err sht__about_write(sht_state *ss);

/* Close every ongoing state at end (finish). */
sht_err sht__close_all(sht_state *ss, sht_time end);
void sht__ongoing_free(sht_state *ss);

#endif /* SHT_STATE_INT_H */
