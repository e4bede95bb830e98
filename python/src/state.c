/*
 * state.c: sht._core.State, a state system being written.
 *
 * Two uses: sht.create(path, start) makes one over a new history file
 * (owned: finish() completes the file, close() or the garbage collector
 * frees it); during sht.build the State a Python provider's handlers
 * receive wraps the run's state system (borrowed: it stops working when
 * the build ends).  The operations are the state system's: quark look-up
 * (get-or-create), modify, clear, push, pop, increment, update_ongoing,
 * ongoing.  They take quarks, which a provider looks up once and keeps.
 *
 * The change methods are METH_FASTCALL and parse their arguments by
 * hand: a provider calls them for every event it handles.
 */
#include <string.h>

#include "core.h"

struct shtpy_state {
	PyObject_HEAD
	sht_state *ss;
	int owned;               /* sht.create: this object closes it */
	int finished;
};

#define S(o) ((struct shtpy_state *)(o))

static int usable(struct shtpy_state *s)
{
	if (s->ss && !s->finished)
		return 0;
	sht_error_set(SHT_ERR_STATE, "Cannot change the state: %s",
		      s->ss ? "the history is finished" : "the state is closed (its "
		      "build or its file is done)");
	shtpy_raise(SHT_ERR_STATE);
	return -1;
}

/* The error of a closed state (usable() always raises then). */
static PyObject *closed(struct shtpy_state *s)
{
	usable(s);
	return NULL;
}

PyObject *shtpy_state_borrow(sht_state *ss)
{
	PyObject *o = PyType_GenericAlloc(&shtpy_state_type, 0);

	if (o)
		S(o)->ss = ss;
	return o;
}

void shtpy_state_detach(PyObject *state)
{
	if (state)
		S(state)->ss = NULL;
}

static void state_dealloc(PyObject *self)
{
	if (S(self)->owned)
		sht_state_close(S(self)->ss);
	Py_TYPE(self)->tp_free(self);
}

/* ---- arguments ----------------------------------------------------------- */

static int arg_quark(PyObject *o, sht_quark *q)
{
	unsigned long x;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "sht: a quark is an int (from "
			     "State.quark), not %.80s", Py_TYPE(o)->tp_name);
		return -1;
	}
	x = PyLong_AsUnsignedLong(o);
	if (x == (unsigned long)-1 && PyErr_Occurred())
		return -1;
	if (x > SHT_QUARK_MAX) {
		PyErr_SetString(PyExc_ValueError, "sht: quark out of range");
		return -1;
	}
	*q = (sht_quark)x;
	return 0;
}

static int nargs_ok(const char *fn, Py_ssize_t n, Py_ssize_t lo, Py_ssize_t hi)
{
	if (n >= lo && n <= hi)
		return 0;
	PyErr_Format(PyExc_TypeError, "State.%s takes %zd to %zd arguments (%zd given)",
		     fn, lo, hi, n);
	return -1;
}

/* Arguments (t, q[, value]) of a change. */
static int change_args(struct shtpy_state *s, const char *fn, PyObject *const *args,
		       Py_ssize_t n, int with_value, sht_time *t, sht_quark *q,
		       sht_value *v)
{
	if (usable(s) < 0 || nargs_ok(fn, n, 2 + with_value, 2 + with_value) < 0 ||
	    shtpy_time(args[0], t) < 0 || arg_quark(args[1], q) < 0)
		return -1;
	return with_value ? shtpy_to_value(args[2], v) : 0;
}

static PyObject *done(sht_err err)
{
	if (err < 0)
		return shtpy_raise(err);
	Py_RETURN_NONE;
}

/* ---- attributes --------------------------------------------------------- */

/* The elements of a path: a str split at "/", or a tuple or list of str
 * (names that may hold "/").  *elems points into the objects kept in
 * *keep (a new reference). */
static int path_elems(PyObject *path, const char ***elems, size_t *n, PyObject **keep)
{
	PyObject *seq;
	Py_ssize_t k;

	if (PyUnicode_Check(path)) {
		PyObject *sep = PyUnicode_FromString("/");

		seq = sep ? PyUnicode_Split(path, sep, -1) : NULL;
		Py_XDECREF(sep);
	} else if (PyTuple_Check(path) || PyList_Check(path)) {
		seq = PySequence_List(path);
	} else {
		PyErr_Format(PyExc_TypeError, "sht: a path is a str (\"a/b\") or a "
			     "tuple of names, not %.80s", Py_TYPE(path)->tp_name);
		return -1;
	}
	if (!seq)
		return -1;
	k = PyList_GET_SIZE(seq);
	*elems = PyMem_Calloc(k ? (size_t)k : 1, sizeof **elems);
	if (!*elems) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t i = 0; i < k; i++) {
		PyObject *e = PyList_GET_ITEM(seq, i);

		if (!PyUnicode_Check(e) || !((*elems)[i] = PyUnicode_AsUTF8(e))) {
			if (!PyErr_Occurred())
				PyErr_SetString(PyExc_TypeError, "sht: path names are str");
			PyMem_Free(*elems);
			Py_DECREF(seq);
			return -1;
		}
	}
	*n = (size_t)k;
	*keep = seq;
	return 0;
}

/* quark(path, parent=None, create=True): the attribute's quark, created
 * (parents first) unless create is False (then None if absent). */
static PyObject *state_quark(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "parent", "create", NULL };
	struct shtpy_state *s = S(self);
	PyObject *path, *parent = Py_None, *keep = NULL;
	int create = 1;
	const char **elems = NULL;
	size_t n = 0;
	sht_quark p = SHT_QUARK_ROOT, q;
	sht_err err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Op", kwlist, &path, &parent, &create))
		return NULL;
	if (!s->ss)
		return closed(s);
	if ((parent != Py_None && arg_quark(parent, &p) < 0) ||
	    path_elems(path, &elems, &n, &keep) < 0)
		return NULL;
	err = create ? sht_state_quark(s->ss, p, elems, n, &q)
		     : sht_state_quark_find(s->ss, p, elems, n, &q);
	PyMem_Free(elems);
	Py_DECREF(keep);
	if (err == SHT_NOT_FOUND || (!create && err == SHT_ERR_NOATTR))
		Py_RETURN_NONE;
	if (err != SHT_OK)
		return shtpy_raise(err);
	return PyLong_FromUnsignedLong(q);
}

/* child(parent, name): the quark of one name below parent (created if
 * need be): the quick form of quark() for providers. */
static PyObject *state_child(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	struct shtpy_state *s = S(self);
	const char *name[1];
	sht_quark p, q;
	sht_err err;

	if (!s->ss && usable(s) < 0)
		return NULL;
	if (nargs_ok("child", n, 2, 2) < 0)
		return NULL;
	if (args[0] == Py_None)
		p = SHT_QUARK_ROOT;
	else if (arg_quark(args[0], &p) < 0)
		return NULL;
	if (!PyUnicode_Check(args[1])) {
		PyErr_SetString(PyExc_TypeError, "sht: State.child(parent, name): name is a str");
		return NULL;
	}
	if (!(name[0] = PyUnicode_AsUTF8(args[1])))
		return NULL;
	err = sht_state_quark(s->ss, p, name, 1, &q);
	return err == SHT_OK ? PyLong_FromUnsignedLong(q) : shtpy_raise(err);
}

static PyObject *state_path(PyObject *self, PyObject *arg)
{
	struct shtpy_state *s = S(self);
	char small[256], *buf = small;
	size_t need;
	sht_quark q;
	sht_err err;
	PyObject *out;

	if ((!s->ss && usable(s) < 0) || arg_quark(arg, &q) < 0)
		return NULL;
	err = sht_state_attr_path(s->ss, q, buf, sizeof small, &need);
	if (err == SHT_ERR_BUFFER) {
		if (!(buf = PyMem_Malloc(need + 1)))
			return PyErr_NoMemory();
		err = sht_state_attr_path(s->ss, q, buf, need + 1, &need);
	}
	out = err == SHT_OK ? PyUnicode_DecodeUTF8(buf, (Py_ssize_t)need, "surrogateescape")
			    : shtpy_raise(err);
	if (buf != small)
		PyMem_Free(buf);
	return out;
}

/* ---- changes -------------------------------------------------------------- */

static PyObject *state_modify(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	sht_time t;
	sht_quark q;
	sht_value v;

	if (change_args(S(self), "modify", args, n, 1, &t, &q, &v) < 0)
		return NULL;
	return done(sht_state_modify(S(self)->ss, t, q, &v));
}

static PyObject *state_clear(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	sht_time t;
	sht_quark q;

	if (change_args(S(self), "clear", args, n, 0, &t, &q, NULL) < 0)
		return NULL;
	return done(sht_state_clear(S(self)->ss, t, q));
}

static PyObject *state_push(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	sht_time t;
	sht_quark q;
	sht_value v;

	if (change_args(S(self), "push", args, n, 1, &t, &q, &v) < 0)
		return NULL;
	return done(sht_state_push(S(self)->ss, t, q, &v));
}

/* pop(t, q): the popped value, None if the stack was empty. */
static PyObject *state_pop(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	sht_time t;
	sht_quark q;
	sht_value v;
	sht_err err;

	if (change_args(S(self), "pop", args, n, 0, &t, &q, NULL) < 0)
		return NULL;
	err = sht_state_pop(S(self)->ss, t, q, &v);
	if (err == SHT_NOT_FOUND)
		Py_RETURN_NONE;
	return err < 0 ? shtpy_raise(err) : shtpy_value(&v);
}

/* increment(t, q, delta=1) */
static PyObject *state_increment(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	struct shtpy_state *s = S(self);
	long long delta = 1;
	sht_time t;
	sht_quark q;

	if (usable(s) < 0 || nargs_ok("increment", n, 2, 3) < 0 ||
	    shtpy_time(args[0], &t) < 0 || arg_quark(args[1], &q) < 0)
		return NULL;
	if (n == 3 && ((delta = PyLong_AsLongLong(args[2])) == -1 && PyErr_Occurred()))
		return NULL;
	return done(sht_state_increment(s->ss, t, q, delta));
}

/* update_ongoing(q, value) */
static PyObject *state_update_ongoing(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	struct shtpy_state *s = S(self);
	sht_quark q;
	sht_value v;

	if (usable(s) < 0 || nargs_ok("update_ongoing", n, 2, 2) < 0 ||
	    arg_quark(args[0], &q) < 0 || shtpy_to_value(args[1], &v) < 0)
		return NULL;
	return done(sht_state_update_ongoing(s->ss, q, &v));
}

/* ongoing(q): the attribute's current value. */
static PyObject *state_ongoing(PyObject *self, PyObject *arg)
{
	struct shtpy_state *s = S(self);
	sht_quark q;
	sht_value v;
	sht_time since;
	sht_err err;

	if ((!s->ss && usable(s) < 0) || arg_quark(arg, &q) < 0)
		return NULL;
	err = sht_state_ongoing(s->ss, q, &v, &since);
	return err < 0 ? shtpy_raise(err) : shtpy_value(&v);
}

/* ---- the file (sht.create) ------------------------------------------------- */

/* finish(end=None): end every ongoing state at end (default: the last
 * change) and complete the file. */
static PyObject *state_finish(PyObject *self, PyObject *args)
{
	struct shtpy_state *s = S(self);
	PyObject *e = Py_None;
	sht_time end;
	sht_err err;

	if (!PyArg_ParseTuple(args, "|O", &e) || usable(s) < 0)
		return NULL;
	if (!s->owned) {
		PyErr_SetString(PyExc_RuntimeError, "sht: the build finishes this state");
		return NULL;
	}
	end = sht_state_end(s->ss);
	if (e != Py_None && shtpy_time(e, &end) < 0)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	err = sht_state_finish(s->ss, end);
	Py_END_ALLOW_THREADS
	if (err < 0)
		return shtpy_raise(err);
	s->finished = 1;
	Py_RETURN_NONE;
}

static PyObject *state_close(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (S(self)->owned) {
		sht_state_close(S(self)->ss);
		S(self)->ss = NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *state_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

static PyObject *state_exit(PyObject *self, PyObject *args)
{
	(void)args;
	return state_close(self, NULL);
}

/* create(path, start, provider="python", version=1, block_size=0,
 * threaded=False): a new history file written through a State. */
PyObject *shtpy_create(PyObject *mod, PyObject *args, PyObject *kw);
PyObject *shtpy_create(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "start", "provider", "version",
				  "block_size", "threaded", NULL };
	PyObject *path, *o;
	long long start;
	const char *prov = "python";
	unsigned long version = 1, block = 0;
	int threaded = 0;
	sht_state_opts so;
	sht_err err;

	(void)mod;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&L|skkp", kwlist, PyUnicode_FSConverter,
					 &path, &start, &prov, &version, &block, &threaded))
		return NULL;
	o = PyType_GenericAlloc(&shtpy_state_type, 0);
	if (!o) {
		Py_DECREF(path);
		return NULL;
	}
	sht_state_opts_init(&so);
	so.provider = prov;
	so.provider_version = (uint32_t)version;
	so.tree.block_size = (uint32_t)block;
	so.tree.threaded = threaded;
	err = sht_state_create(PyBytes_AS_STRING(path), start, &so, &S(o)->ss);
	if (err != SHT_OK) {
		S(o)->ss = NULL;
		shtpy_raise_ctx(err, "cannot create %s", PyBytes_AS_STRING(path));
		Py_DECREF(path);
		Py_DECREF(o);
		return NULL;
	}
	Py_DECREF(path);
	S(o)->owned = 1;
	return o;
}

/* ---- properties ---------------------------------------------------------- */

static PyObject *get_start(PyObject *self, void *c)
{
	(void)c;
	if (!S(self)->ss)
		return closed(S(self));
	return PyLong_FromLongLong(sht_state_start(S(self)->ss));
}

static PyObject *get_end(PyObject *self, void *c)
{
	(void)c;
	if (!S(self)->ss)
		return closed(S(self));
	return PyLong_FromLongLong(sht_state_end(S(self)->ss));
}

static PyObject *get_count(PyObject *self, void *c)
{
	(void)c;
	if (!S(self)->ss)
		return closed(S(self));
	return PyLong_FromUnsignedLongLong(sht_state_attr_count(S(self)->ss));
}

static PyGetSetDef state_getset[] = {
	{ "start", get_start, NULL, "first ns of the history", NULL },
	{ "end", get_end, NULL, "the latest change (the end once finished)", NULL },
	{ "attribute_count", get_count, NULL, "attributes so far", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

#define FAST(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL

static PyMethodDef state_methods[] = {
	{ "quark", (PyCFunction)(void (*)(void))state_quark, METH_VARARGS | METH_KEYWORDS,
	  "quark(path, parent=None, create=True): an attribute's quark." },
	{ "child", FAST(state_child), "child(parent, name): one name below parent." },
	{ "path", state_path, METH_O, "path(q): the attribute's path." },
	{ "modify", FAST(state_modify), "modify(t, q, value)" },
	{ "clear", FAST(state_clear), "clear(t, q): null q and its descendants." },
	{ "push", FAST(state_push), "push(t, q, value)" },
	{ "pop", FAST(state_pop), "pop(t, q): the popped value, None if empty." },
	{ "increment", FAST(state_increment), "increment(t, q, delta=1)" },
	{ "update_ongoing", FAST(state_update_ongoing), "update_ongoing(q, value)" },
	{ "ongoing", state_ongoing, METH_O, "ongoing(q): the current value." },
	{ "finish", state_finish, METH_VARARGS, "finish(end=None): complete the file." },
	{ "close", state_close, METH_NOARGS, "close(): free it (an unfinished file stays incomplete)." },
	{ "__enter__", state_enter, METH_NOARGS, NULL },
	{ "__exit__", state_exit, METH_VARARGS, NULL },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject shtpy_state_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sht._core.State",
	.tp_basicsize = sizeof(struct shtpy_state),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The state system being written: sht.create(), or a provider's state.",
	.tp_dealloc = state_dealloc,
	.tp_methods = state_methods,
	.tp_getset = state_getset,
};
