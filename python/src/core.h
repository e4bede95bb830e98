/*
 * core.h: the C extension module sht._core (the .c files of python/src/), shared
 * declarations.  A front end on the public API <sht/sht.h> and the
 * shared libsht only; the Python package sht (python/sht/) wraps it.
 *
 *   errors.c    the exception classes (one per sht_err, from
 *               sht_err_name) and raising them with sht's message
 *   values.c    values, intervals and columns between sht and Python
 *   history.c   History: an opened history file and its queries
 *   match.c     attribute patterns (a glob per path element)
 *   state.c     State: a state system being written (sht.create, and
 *               the state a provider changes during sht.build)
 *   build.c     sht.build: a trace through an analysis into a history
 *   provider.c  providers written in Python: events, dispatch by name
 *   module.c    the module
 *
 * Every function that returns a PyObject * returns a new reference, or
 * NULL with a Python exception set.
 */
#ifndef SHTPY_CORE_H
#define SHTPY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sht/sht.h>

/* ---- errors.c --------------------------------------------------------- */

int shtpy_errors_init(PyObject *module);
/* Raise the exception of err with sht's message (sht_errmsg(), or the
 * code's description when it is empty).  Returns NULL. */
PyObject *shtpy_raise(sht_err err);
/* sht.IoError for a failed system call of ours (errno e): "WHAT: strerror". */
PyObject *shtpy_raise_os(int e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, with what the caller was doing before sht's message. */
PyObject *shtpy_raise_ctx(sht_err err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The sht code of a Python exception type: its class's code if it is
 * one of ours, else 0. */
sht_err shtpy_error_code(PyObject *type);

/* ---- values.c ----------------------------------------------------------- */

/* The Interval struct sequence type (path, quark, start, end, value,
 * type). */
extern PyTypeObject *shtpy_interval_type;
int shtpy_values_init(PyObject *module);

/* A value as Python: None, int, float or str (undecodable bytes kept
 * with surrogateescape). */
PyObject *shtpy_value(const sht_value *v);

/*
 * A Python value as sht's: None, bool/int (int32 if it fits and it is
 * not a sht.Long, else int64), float, str.  Strings point into the str
 * object (valid while it lives).  Returns 0, or -1 with TypeError /
 * OverflowError set.
 */
int shtpy_to_value(PyObject *o, sht_value *v);

/* The registered int subclass sht.Long (int64 values), or NULL. */
extern PyObject *shtpy_long_type;

/* A time argument: an int in int64 range.  -1 with an error set. */
int shtpy_time(PyObject *o, sht_time *t);

/* ---- history.c ---------------------------------------------------------- */

extern PyTypeObject shtpy_history_type;

/* The Python path string of q, cached per history; borrowed. */
typedef struct shtpy_history shtpy_history;
PyObject *shtpy_history_path(shtpy_history *h, sht_quark q);

/* An Interval object for iv. */
PyObject *shtpy_interval(shtpy_history *h, const sht_interval *iv);

/* ---- match.c -------------------------------------------------------------- */

/*
 * The quarks of the attributes named by spec: a path or pattern (str:
 * elements split at "/", each matched as fnmatch does, so "*" is any one
 * name and "CPUs/[0-3]/Current_thread" works), a quark (int), or a list
 * or tuple of those.  Sorted, distinct when sorted is set, else in the
 * order given (patterns: depth-first creation order).  *out is
 * PyMem_Malloc'd.  0, or -1 with an exception set.
 */
int shtpy_match(sht_state *ss, PyObject *spec, int sorted, sht_quark **out,
		size_t *n);
/* The quark of one exact path (str) or quark (int); -1 with KeyError /
 * sht.NoattrError set if there is none. */
int shtpy_quark_of(sht_state *ss, PyObject *o, sht_quark *q);

/* ---- state.c ---------------------------------------------------------------- */

extern PyTypeObject shtpy_state_type;

/* A State object over ss, borrowed (not closed by the object): the
 * state a provider changes during a build.  shtpy_state_detach makes
 * it unusable once the build ends. */
PyObject *shtpy_state_borrow(sht_state *ss);
void shtpy_state_detach(PyObject *state);

/* ---- provider.c -------------------------------------------------------------- */

extern PyTypeObject shtpy_event_type;

/* A provider written in Python (sht.Provider): its sht_provider, whose
 * handler calls the Python handlers by event name. */
typedef struct shtpy_provider shtpy_provider;
shtpy_provider *shtpy_provider_create(PyObject *obj);
void shtpy_provider_destroy(shtpy_provider *p);
/* Bind to the state of a run (the State object handlers receive; its
 * setup(state) method runs now) and to the source's field lister. */
int shtpy_provider_bind(shtpy_provider *p, sht_state *ss,
			sht_err (*fields)(const sht_event *, sht_field_fn, void *));
/* The run is over: its State stops working. */
void shtpy_provider_unbind(shtpy_provider *p);
const sht_provider *shtpy_provider_get(shtpy_provider *p);
/* The Python exception a handler raised that stopped the run (restored
 * as the current exception), or 0 if none. */
int shtpy_provider_reraise(shtpy_provider *p);
/* Events given to Python handlers. */
uint64_t shtpy_provider_calls(const shtpy_provider *p);

int shtpy_provider_init(PyObject *module);

/* ---- build.c ------------------------------------------------------------------- */

PyObject *shtpy_build(PyObject *self, PyObject *args, PyObject *kw);
int shtpy_build_init(PyObject *module);

#endif /* SHTPY_CORE_H */
