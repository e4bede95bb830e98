/*
 * state.h: the state system: attribute tree, transient state, backends.
 *
 * Providers describe state changes ("thread 1432 is now blocked", "push
 * this function on the call stack"); the state system turns them into
 * intervals with the rules of docs/STATE.md §2 (those of Trace
 * Compass), keeps the attribute names, and answers queries by quark or by
 * name.  Attributes form a tree of names; each has an integer quark, given
 * in creation order (0, 1, 2, ...), never reused.  The root is implicit
 * (SHT_QUARK_ROOT) and holds no value.
 *
 * Rules, in short: intervals are closed [start, end]; a change at t ends
 * the ongoing interval at t - 1; a new attribute is null from the history
 * start; writing the same value extends the interval; several changes at
 * one timestamp keep the last; the first non-null value fixes an
 * attribute's type (a different type is SHT_ERR_TYPE); clear nulls an
 * attribute and its descendants; finishing ends every ongoing state.
 * Changes arrive in non-decreasing time: a change call earlier than the
 * latest accepted one (one that passed the time checks, even if it changed
 * nothing or failed on its type) is SHT_ERR_ORDER.  With time-ordered
 * input this gives the same history as Trace Compass, whose clock moves
 * only on effective changes.
 */
#ifndef SHT_STATE_H
#define SHT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sht/error.h"
#include "sht/export.h"
#include "sht/model.h"
#include "sht/source.h"
#include "sht/tree.h"
#include "sht/value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The implicit root of the attribute tree (parent of top-level names). */
#define SHT_QUARK_ROOT SHT_QUARK_NONE

/* Largest stack a push may build (Trace Compass's limit). */
#define SHT_STACK_MAX 100000

typedef enum sht_backend {
	SHT_BACKEND_TREE = 0,     /* history tree file (default) */
	SHT_BACKEND_MEMORY = 1,   /* intervals kept in memory, no file */
	SHT_BACKEND_NULL = 2,     /* intervals dropped: measures providers */
	SHT_BACKEND_PARTIAL = 3,  /* only the intervals crossing checkpoints,
	                             and the checkpoints: queries replay the
	                             trace (sht_state_open_partial) */
} sht_backend;

typedef struct sht_state_opts {
	sht_backend backend;
	sht_builder_opts tree;      /* SHT_BACKEND_TREE: file options */
	const char *provider;     /* provider identity stored in the file */
	uint32_t provider_version;
	uint64_t checkpoint_events; /* partial: events between checkpoints;
	                               0: 50 000 */
	/* What the history means and how it was built (model.h), stored in
	 * the file (tree and partial backends).  model NULL: the model of
	 * the first provider sht_state_run runs, if it has one.  Copied. */
	const sht_model *model;
	const sht_build_note *notes;
	size_t n_notes;
} sht_state_opts;

/* Fill opts with the defaults (tree backend, default tree options). */
SHT_API void sht_state_opts_init(sht_state_opts *opts);

typedef struct sht_state sht_state;

/*
 * Start a history at start_time.  path names the file for the tree
 * backend (NULL otherwise).  @return SHT_OK, SHT_ERR_INVALID, SHT_ERR_IO,
 * SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_state_create(const char *path, sht_time start_time,
				 const sht_state_opts *opts, sht_state **out);

/*
 * Open a finished history file for queries (attribute names included).
 * Fast: the attribute tree is read on first use.  Errors as
 * sht_reader_open.
 */
SHT_API sht_err sht_state_open(const char *path, const sht_reader_opts *opts,
			       sht_state **out);

/* Free everything.  An unfinished tree-backed history stays incomplete
 * on disk (readers refuse it).  NULL is a no-op. */
SHT_API void sht_state_close(sht_state *ss);

/* ---- attribute tree ---------------------------------------------------- */

/*
 * Quark of the path elems[0..n) below parent (SHT_QUARK_ROOT for an
 * absolute path), creating the missing elements, parent before child.
 * Elements are arbitrary strings ("/" inside one is not a separator).
 * @return SHT_OK; SHT_ERR_STATE on an opened (read-only) history.
 */
SHT_API sht_err sht_state_quark(sht_state *ss, sht_quark parent,
				const char *const *elems, size_t n,
				sht_quark *out);

/* The same look-up without creating anything: SHT_NOT_FOUND if absent. */
SHT_API sht_err sht_state_quark_find(sht_state *ss, sht_quark parent,
				     const char *const *elems, size_t n,
				     sht_quark *out);

/* Path given as one string split at every "/" (convenience: elements
 * holding "/" need the array forms).  create: 1 get-or-create, 0 find. */
SHT_API sht_err sht_state_quark_path(sht_state *ss, const char *path,
				     bool create, sht_quark *out);

/* Number of attributes (= the next quark). */
SHT_API uint64_t sht_state_attr_count(sht_state *ss);

/*
 * For providers that keep quarks between events: the number of attributes
 * now, or -1 when quarks must be looked up every time (a partial history's
 * replay, whose attributes appear as the replay goes, or an opened
 * history).  A cache stays valid while the same state system reports the
 * count it had when the cache was last used.
 */
SHT_API int64_t sht_state_cacheable_count(sht_state *ss);

/* Name of q (borrowed: valid until the state system is closed), its
 * parent (SHT_QUARK_ROOT for a top-level attribute), its children in
 * creation order (*out borrowed, valid until the next attribute is
 * created).  SHT_ERR_RANGE for an unknown quark. */
SHT_API sht_err sht_state_attr_name(sht_state *ss, sht_quark q,
				    const char **name, size_t *len);
SHT_API sht_err sht_state_attr_parent(sht_state *ss, sht_quark q,
				      sht_quark *parent);
SHT_API sht_err sht_state_attr_children(sht_state *ss, sht_quark q,
					const sht_quark **out, size_t *n);

/* Full path of q, elements joined with "/", into buf (always
 * NUL-terminated); *need gets the length it takes.  SHT_ERR_BUFFER if
 * buf was too small (then call again with need + 1 bytes). */
SHT_API sht_err sht_state_attr_path(sht_state *ss, sht_quark q, char *buf,
				    size_t size, size_t *need);

/*
 * Quarks matching a pattern of "/"-separated elements, where an element
 * "*" matches any one name, in depth-first creation order.  *out is
 * malloc'd (free it).  A pattern with no match gives n = 0.
 */
SHT_API sht_err sht_state_attr_match(sht_state *ss, const char *pattern,
				     sht_quark **out, size_t *n);

/* ---- state changes (building) ------------------------------------------- */

/* Set q to v at t (v copied).  SHT_ERR_TYPE on a type change,
 * SHT_ERR_ORDER if t is before the previous change, SHT_ERR_RANGE if t is
 * before the start, SHT_ERR_STATE after finish or on a failed history. */
SHT_API sht_err sht_state_modify(sht_state *ss, sht_time t, sht_quark q,
				 const sht_value *v);

/* Null q and all its descendants at t (children first, creation order). */
SHT_API sht_err sht_state_clear(sht_state *ss, sht_time t, sht_quark q);

/* Stack attributes: q holds the depth (int32, null when empty) and its
 * children "1", "2", ... the elements.  push: SHT_ERR_TYPE if q holds a
 * non-int, SHT_ERR_TOOBIG past SHT_STACK_MAX.  pop: the popped value into
 * *popped (may be NULL; its string borrowed until the next change), or
 * SHT_NOT_FOUND, without change, if the stack is empty. */
SHT_API sht_err sht_state_push(sht_state *ss, sht_time t, sht_quark q,
			       const sht_value *v);
SHT_API sht_err sht_state_pop(sht_state *ss, sht_time t, sht_quark q,
			      sht_value *popped);

/* q += delta (int32 or int64 kept; null counts as 0 and becomes int32
 * unless the attribute is locked to int64).  SHT_ERR_TYPE otherwise. */
SHT_API sht_err sht_state_increment(sht_state *ss, sht_time t, sht_quark q,
				    int64_t delta);

/* Replace the ongoing value of q in place: no interval boundary and no
 * type check; it covers the whole ongoing interval. */
SHT_API sht_err sht_state_update_ongoing(sht_state *ss, sht_quark q,
					 const sht_value *v);

/* The ongoing value of q (string borrowed until the next change). */
SHT_API sht_err sht_state_ongoing(sht_state *ss, sht_quark q,
				  sht_value *out, sht_time *since);

/* End every ongoing state at end_time and complete the history (write the
 * attribute tree and provider identity, mark the file complete). */
SHT_API sht_err sht_state_finish(sht_state *ss, sht_time end_time);

/* History bounds: start; end = the finish time, or, while building, the
 * latest change time. */
SHT_API sht_time sht_state_start(sht_state *ss);
SHT_API sht_time sht_state_end(sht_state *ss);

/* ---- queries (by quark; names through the look-ups above) ------------- */
/*
 * While building, queries see every state up to sht_state_end(), ongoing
 * states included (their end is then the current end).  t outside
 * [start, end] is SHT_ERR_RANGE.  Safe from other threads while one
 * thread builds, and from many threads on an opened history.
 */
SHT_API sht_err sht_state_query(sht_state *ss, sht_quark q, sht_time t,
				sht_result *res);
SHT_API sht_err sht_state_query_full(sht_state *ss, sht_time t,
				     sht_result *res);

/* The intervals of q over [t1, t2] in time order; with r > 0 sampled as
 * docs/STATE.md §3 describes (one per sample step, plus the one at t2). */
SHT_API sht_err sht_state_query_range(sht_state *ss, sht_quark q, sht_time t1,
				      sht_time t2, sht_time r, sht_result *res);
SHT_API sht_err sht_state_query_2d(sht_state *ss, const sht_query2d *q,
				   sht_result *res);

/*
 * The same 2D query as a cursor (tree.h): on an opened full history it
 * streams from the file, a node at a time, in no particular order; on a
 * history being built, in memory or partial, the whole answer is
 * computed here and handed out as one piece (sorted).  The cursor must
 * not outlive ss.  Errors as sht_state_query_2d.
 */
SHT_API sht_err sht_state_cursor_create(sht_state *ss, const sht_query2d *q,
					sht_cursor **out);

/* ---- running a provider over a trace ----------------------------------- */

/* Mark the start of one event, before its changes (sht_state_run does it;
 * a hand-written loop must too for partial histories, which place their
 * checkpoints at event boundaries).  The history's current time moves to
 * the event's, handled or not, so sht_state_end() is the last event's
 * time, where Trace Compass ends a history.  SHT_ERR_ORDER for an earlier
 * event. */
SHT_API sht_err sht_state_event(sht_state *ss, const sht_event *ev);

/*
 * Run p over the events of src, from where it stands to its end: for each,
 * sht_state_event then p->handle.  As Trace Compass does, a handler's
 * SHT_ERR_TYPE, SHT_ERR_RANGE, SHT_ERR_NOATTR or SHT_NOT_FOUND skips the rest of that
 * event only (counted in *skipped, which may be NULL); any other error
 * stops the run.  *events counts the events (may be NULL).
 */
SHT_API sht_err sht_state_run(sht_state *ss, const sht_source *src,
			      const sht_provider *p, uint64_t *events,
			      uint64_t *skipped);

/*
 * sht_state_run, calling hook(ctx, ev) before each event whose time is
 * later than the previous event's (and before the first): the points
 * where a resumable build can stop and start again (sht_state_checkpoint
 * there, and the source resumed with seek_at(ev->pos, ev->ts): no event
 * of an earlier time is left).  SHT_OK from the hook goes on; anything
 * else stops the run before ev is handled and is returned (SHT_END: a
 * clean stop).  The hook gets the events handled and skipped so far in
 * this run; *events and *skipped count them as sht_state_run does.
 */
typedef sht_err (*sht_run_hook)(void *ctx, const sht_event *next,
				uint64_t events, uint64_t skipped);
SHT_API sht_err sht_state_run_hook(sht_state *ss, const sht_source *src,
				   const sht_provider *p, sht_run_hook hook,
				   void *ctx, uint64_t *events, uint64_t *skipped);

/*
 * Open a partial history: queries rebuild the states between checkpoints
 * by seeking src to the checkpoint before them and replaying p, which must
 * be the provider (same identity and version) that built the file.  src
 * and p stay the caller's and must outlive the state system.  Answers are
 * those of the full history.
 */
SHT_API sht_err sht_state_open_partial(const char *path,
				       const sht_reader_opts *opts,
				       const sht_source *src,
				       const sht_provider *p, sht_state **out);

/*
 * Sections of the application's own (docs/FORMAT.md §6): bytes stored
 * with the history, e.g. the clock transforms of a synchronized trace
 * (sht/sync.h, kind 16).  Kinds 1 .. 15 are the state system's (it uses
 * 1 .. 5); the application uses SHT_STATE_SECTION_FIRST (16) and up, each
 * kind once; a file holds 8 sections in all (a partial history uses up to
 * 5, a full one up to 3).
 * sht_state_add_section writes the bytes now, while building into a file
 * (tree or partial backend): SHT_ERR_INVALID for a kind below
 * SHT_STATE_SECTION_FIRST, one already stored, no free slot, or a
 * backend without a file; SHT_ERR_STATE after finish or failure.
 * sht_state_section reads one back from an opened history (*data
 * malloc'd; version and len may be NULL): SHT_NOT_FOUND if absent.
 */
#define SHT_STATE_SECTION_FIRST 16u
SHT_API sht_err sht_state_add_section(sht_state *ss, uint32_t kind,
				      uint32_t version, const void *data,
				      size_t len);
SHT_API sht_err sht_state_section(sht_state *ss, uint32_t kind,
				  uint32_t *version, void **data, size_t *len);

/* ---- resumable builds ------------------------------------------------- */

/*
 * Between two events of a build into a file (tree or partial backend):
 * everything that decides the rest of the history into *data (malloc'd,
 * *len bytes): the attribute tree, every ongoing state and type lock, the
 * clock, a partial history's checkpoints, and the history tree's open
 * branch (sht_builder_checkpoint).  sht_state_resume continues from it to
 * the same file byte for byte, given the same events from the next one
 * on and the provider in the state it had (sht_provider.save).  The file's
 * blocks may not be on the disk yet: sht_state_sync (fsync; from any
 * thread, while the build goes on) before keeping data as durable.
 * @return SHT_OK; SHT_ERR_STATE (not building a file, finished, failed);
 *         SHT_ERR_NOMEM; a threaded builder's I/O error.
 */
SHT_API sht_err sht_state_checkpoint(sht_state *ss, void **data, size_t *len);
SHT_API sht_err sht_state_sync(sht_state *ss);

/*
 * Continue the build of the history file at path from data
 * (sht_state_checkpoint of a build of that file): opts must give the same
 * backend, provider id and version, checkpoint spacing and tree geometry
 * (threaded and no_sync may differ).  The file is cut after the blocks
 * the checkpoint counts.
 * @return SHT_OK (*out set, building); SHT_ERR_INVALID (other options);
 *         SHT_ERR_CORRUPT (data damaged, or the file lost blocks it
 *         counts); SHT_ERR_IO; SHT_ERR_NOMEM.
 */
SHT_API sht_err sht_state_resume(const char *path, const void *data, size_t len,
				 const sht_state_opts *opts, sht_state **out);

/* Provider identity stored with the history ("" and 0 if none). */
SHT_API sht_err sht_state_provider(sht_state *ss, const char **id,
				   uint32_t *version);

/* ---- what the history means (model.h) --------------------------------- */
/*
 * The model and build notes stored with the history (an opened history
 * reads them on first use; one built before they existed, or without
 * them, has an empty model and no notes).  Results are borrowed until the
 * state system is closed.  Errors: SHT_ERR_CORRUPT, SHT_ERR_IO,
 * SHT_ERR_NOMEM (reading the section).
 */
SHT_API sht_err sht_state_model(sht_state *ss, const sht_model **out);
SHT_API sht_err sht_state_notes(sht_state *ss, const sht_build_note **out,
				size_t *n);

/* The model's description of attribute q (the first pattern that
 * matches its path): SHT_NOT_FOUND if none, SHT_ERR_RANGE for an unknown
 * quark.  Found once per attribute, then a table look-up. */
SHT_API sht_err sht_state_attr_doc(sht_state *ss, sht_quark q,
				   const sht_attr_doc **out);
/* The labels of q's values (*n = 0 if none), consecutive in the model. */
SHT_API sht_err sht_state_attr_labels(sht_state *ss, sht_quark q,
				      const sht_value_label **out, size_t *n);
/* The label of value v of attribute q ("Wait blocked"), or NULL: not an
 * integer, no label, or an error (sht_state_model reports those). */
SHT_API const char *sht_state_value_label(sht_state *ss, sht_quark q,
					  const sht_value *v);

#ifdef __cplusplus
}
#endif

#endif /* SHT_STATE_H */
