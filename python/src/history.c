/*
 * history.c: sht._core.History, an opened history file.
 *
 * Queries: query (the state at t: everything, or the attributes given,
 * as Interval objects), history (one attribute over a range, optionally
 * sampled: sht history --resolution), columns (a 2D query as column
 * buffers, which the Python layer turns into numpy arrays and pandas
 * frames without copying each interval through Python objects).
 *
 * The GIL is released around 2D queries, which may be long; each uses
 * its own result set, and a History being queried cannot be closed
 * (busy).  Short queries keep the GIL and reuse one result set.
 *
 * A partial history (sht build --partial) answers by replaying its trace
 * through the analysis that built it, opened here with the history
 * (trace=, analysis=): a replay moves the trace, so its queries keep the
 * GIL, which serialises them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"

struct shtpy_history {
	PyObject_HEAD
	sht_state *ss;
	PyObject *name;          /* the path given to open (str) */
	PyObject *fspath;        /* the same as bytes, for libsht */
	uint64_t nattrs;
	PyObject **paths;        /* str per quark, made on demand */
	sht_result *res;         /* short queries, under the GIL */
	int busy;                /* queries running without the GIL */
	int partial;             /* replays: queries keep the GIL */
	struct shtpy_trace trace;        /* partial: what it replays */
	struct shtpy_analysis an;
	sht_source fixed;                /* partial, synchronized: the trace
	                                    on the experiment's clock */
	int have_fixed;
};

/* stmt without the GIL, but for a partial history (see above). */
#define UNLOCKED(h, stmt)                                                  \
	do {                                                               \
		if ((h)->partial) {                                        \
			stmt;                                              \
		} else {                                                   \
			Py_BEGIN_ALLOW_THREADS                             \
			stmt;                                              \
			Py_END_ALLOW_THREADS                               \
		}                                                          \
	} while (0)

#define H(o) ((struct shtpy_history *)(o))

static int check_open(struct shtpy_history *h)
{
	if (h->ss)
		return 0;
	sht_error_set(SHT_ERR_STATE, "Cannot query: the history %s is closed",
		      h->fspath ? PyBytes_AS_STRING(h->fspath) : "");
	shtpy_raise(SHT_ERR_STATE);
	return -1;
}

/* ---- open and close ----------------------------------------------------- */

/* ---- partial histories ------------------------------------------------------ */

/* 1 if path is a partial history (docs/FORMAT.md §10: it has the
 * checkpoints section, kind 3). */
static int is_partial(const char *path)
{
	sht_reader *r;
	void *data = NULL;
	size_t len;
	sht_err err;

	if (sht_reader_open(path, NULL, &r) != SHT_OK)
		return 0;                /* sht_state_open said it was fine */
	err = sht_reader_section(r, 3, NULL, &data, &len);
	free(data);
	sht_reader_close(r);
	return err == SHT_OK;
}

static int partial_error(const char *path, const char *what)
{
	sht_error_set(SHT_ERR_INVALID, "Cannot open the partial history %s: %s",
		      path, what);
	shtpy_raise(SHT_ERR_INVALID);
	return -1;
}

/* The analysis that built h (its provider id and version), from spec
 * (None: by the provider's id). */
static int replay_analysis(struct shtpy_history *h, const char *path, PyObject *spec)
{
	const char *id = "", *name;
	uint32_t version = 0;
	PyObject *own = NULL;
	char what[512];
	int rc;

	sht_state_provider(h->ss, &id, &version);
	if (spec == Py_None) {
		if (!(name = shtpy_analysis_of(id))) {
			snprintf(what, sizeof what, "its provider '%s' is not an "
				 "analysis of sht; give the rules file it was built "
				 "with as analysis=", id);
			return partial_error(path, what);
		}
		spec = own = PyUnicode_FromString(name);
		if (!own)
			return -1;
	} else if (!PyUnicode_Check(spec)) {
		return partial_error(path, "analysis is \"kernel\", \"stats\" or a "
				     "rules file (a Python provider cannot replay a "
				     "partial history)");
	}
	rc = shtpy_analysis_create(&h->an, spec, &h->trace, "sht.open");
	Py_XDECREF(own);
	if (rc < 0)
		return -1;
	if (strcmp(h->an.prov.id, id) != 0) {
		snprintf(what, sizeof what, "it was built by provider '%s', the "
			 "analysis given is '%s'", id, h->an.prov.id);
		return partial_error(path, what);
	}
	if (h->an.prov.version != version) {
		snprintf(what, sizeof what, "it was built by version %u of '%s', "
			 "this is version %u (rebuild it, or give the rules file "
			 "it was built with)", version, id, h->an.prov.version);
		return partial_error(path, what);
	}
	return 0;
}

/* A history built on an experiment's synchronized clock (sht build
 * --sync) replays its trace through the trace's transform. */
static int replay_source(struct shtpy_history *h, const char *path,
			 const char *trace, const sht_source **src)
{
	bool transformed;
	sht_err err = sht_sync_replay_source(h->ss, trace, &h->trace.src, &h->fixed,
					     &transformed);

	*src = &h->trace.src;
	if (err < 0) {
		shtpy_raise_ctx(err, "cannot replay the partial history %s", path);
		return -1;
	}
	h->have_fixed = transformed;
	*src = transformed ? &h->fixed : &h->trace.src;
	return 0;
}

/* h->ss is path opened plainly: reopen it as a partial history that
 * replays trace through the analysis that built it. */
static int open_partial(struct shtpy_history *h, const char *path, PyObject *trace,
			PyObject *spec, const sht_reader_opts *o)
{
	const sht_source *src;
	PyObject *tb = NULL;
	sht_state *ss = NULL;
	sht_err err;
	int rc = -1;

	if (trace == Py_None)
		return partial_error(path, "its queries replay the trace it was "
				     "built from: give it, sht.open(path, trace=TRACE"
				     "[, analysis=RULES])");
	if (!PyUnicode_FSConverter(trace, &tb))
		return -1;
	if (shtpy_trace_open(PyBytes_AS_STRING(tb), 1, shtpy_default_jobs(),
			     &h->trace) < 0 ||
	    replay_analysis(h, path, spec) < 0 ||
	    replay_source(h, path, PyBytes_AS_STRING(tb), &src) < 0)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	err = sht_state_open_partial(path, o, src, &h->an.prov, &ss);
	Py_END_ALLOW_THREADS
	if (err != SHT_OK) {
		shtpy_raise_ctx(err, "cannot open the partial history %s", path);
		goto out;
	}
	sht_state_close(h->ss);
	h->ss = ss;
	h->partial = 1;
	rc = 0;
out:
	Py_DECREF(tb);
	return rc;
}

static void close_replay(struct shtpy_history *h)
{
	if (h->have_fixed)
		sht_transform_source_free(&h->fixed);
	h->have_fixed = 0;
	shtpy_analysis_destroy(&h->an);
	shtpy_trace_close(&h->trace);
	h->partial = 0;
}

static int history_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "cache_bytes", "trace", "analysis", NULL };
	struct shtpy_history *h = H(self);
	PyObject *path, *trace = Py_None, *spec = Py_None;
	Py_ssize_t cache = 0;
	sht_reader_opts o;
	sht_err err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|nOO", kwlist,
					 PyUnicode_FSConverter, &path, &cache,
					 &trace, &spec))
		return -1;
	if (h->ss) {
		Py_DECREF(path);
		PyErr_SetString(PyExc_RuntimeError, "sht: History is already open");
		return -1;
	}
	sht_reader_opts_init(&o);
	o.cache_bytes = cache > 0 ? (size_t)cache : 0;
	Py_BEGIN_ALLOW_THREADS
	err = sht_state_open(PyBytes_AS_STRING(path), &o, &h->ss);
	Py_END_ALLOW_THREADS
	if (err != SHT_OK) {
		h->ss = NULL;
		shtpy_raise_ctx(err, "cannot open the history %s", PyBytes_AS_STRING(path));
		Py_DECREF(path);
		return -1;
	}
	if (is_partial(PyBytes_AS_STRING(path)) &&
	    open_partial(h, PyBytes_AS_STRING(path), trace, spec, &o) < 0) {
		sht_state_close(h->ss);
		h->ss = NULL;
		close_replay(h);
		Py_DECREF(path);
		return -1;
	}
	h->name = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(path));
	h->fspath = path;
	h->nattrs = sht_state_attr_count(h->ss);
	h->res = sht_result_create();
	if (!h->name || !h->res)
		return h->name ? (PyErr_NoMemory(), -1) : -1;
	return 0;
}

static void drop(struct shtpy_history *h)
{
	if (h->paths) {
		for (uint64_t q = 0; q < h->nattrs; q++)
			Py_XDECREF(h->paths[q]);
		PyMem_Free(h->paths);
		h->paths = NULL;
	}
	sht_result_destroy(h->res);
	h->res = NULL;
	sht_state_close(h->ss);
	h->ss = NULL;
	close_replay(h);
}

static PyObject *history_close(PyObject *self, PyObject *unused)
{
	struct shtpy_history *h = H(self);

	(void)unused;
	if (h->busy) {
		sht_error_set(SHT_ERR_STATE, "Cannot close the history: queries "
			      "are running in other threads");
		return shtpy_raise(SHT_ERR_STATE);
	}
	drop(h);
	Py_RETURN_NONE;
}

static void history_dealloc(PyObject *self)
{
	struct shtpy_history *h = H(self);

	drop(h);
	Py_XDECREF(h->name);
	Py_XDECREF(h->fspath);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *history_enter(PyObject *self, PyObject *unused)
{
	(void)unused;
	Py_INCREF(self);
	return self;
}

static PyObject *history_exit(PyObject *self, PyObject *args)
{
	(void)args;
	return history_close(self, NULL);
}

/* ---- names ---------------------------------------------------------------- */

PyObject *shtpy_history_path(shtpy_history *h, sht_quark q)
{
	char small[256], *buf = small;
	size_t need = 0;
	sht_err err;

	if (q >= h->nattrs) {
		sht_error_set(SHT_ERR_RANGE, "Cannot name quark %u: the history has %llu",
			      q, (unsigned long long)h->nattrs);
		return shtpy_raise(SHT_ERR_RANGE);
	}
	if (!h->paths) {
		h->paths = PyMem_Calloc(h->nattrs ? h->nattrs : 1, sizeof *h->paths);
		if (!h->paths)
			return PyErr_NoMemory();
	}
	if (h->paths[q])
		return h->paths[q];
	err = sht_state_attr_path(h->ss, q, buf, sizeof small, &need);
	if (err == SHT_ERR_BUFFER) {
		if (!(buf = PyMem_Malloc(need + 1)))
			return PyErr_NoMemory();
		err = sht_state_attr_path(h->ss, q, buf, need + 1, &need);
	}
	if (err == SHT_OK)
		h->paths[q] = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)need, "surrogateescape");
	else
		shtpy_raise(err);
	if (buf != small)
		PyMem_Free(buf);
	return h->paths[q];
}

/* The label the history's model gives iv's value (a new reference to a
 * str, or to None). */
static PyObject *shtpy_label(shtpy_history *h, const sht_interval *iv)
{
	const char *label = sht_state_value_label(h->ss, iv->quark, &iv->value);

	if (!label)
		Py_RETURN_NONE;
	return PyUnicode_InternFromString(label);
}

PyObject *shtpy_interval(shtpy_history *h, const sht_interval *iv)
{
	PyObject *o = PyStructSequence_New(shtpy_interval_type), *path, *v;

	if (!o)
		return NULL;
	path = shtpy_history_path(h, iv->quark);
	v = shtpy_value(&iv->value);
	if (!path || !v) {
		Py_XDECREF(v);
		Py_DECREF(o);
		return NULL;
	}
	Py_INCREF(path);
	PyStructSequence_SET_ITEM(o, 0, path);
	PyStructSequence_SET_ITEM(o, 1, PyLong_FromUnsignedLong(iv->quark));
	PyStructSequence_SET_ITEM(o, 2, PyLong_FromLongLong(iv->start));
	PyStructSequence_SET_ITEM(o, 3, PyLong_FromLongLong(iv->end));
	PyStructSequence_SET_ITEM(o, 4, v);
	PyStructSequence_SET_ITEM(o, 5, PyUnicode_InternFromString(sht_type_name(iv->value.type)));
	PyStructSequence_SET_ITEM(o, 6, shtpy_label(h, iv));
	for (int i = 1; i < 7; i++)
		if (!PyStructSequence_GET_ITEM(o, i)) {
			Py_DECREF(o);
			return NULL;
		}
	return o;
}

/* Every interval of res as a list of Interval. */
static PyObject *interval_list(struct shtpy_history *h, const sht_result *res)
{
	size_t n = sht_result_count(res);
	PyObject *list = PyList_New((Py_ssize_t)n);

	for (size_t i = 0; list && i < n; i++) {
		PyObject *iv = shtpy_interval(h, sht_result_at(res, i));

		if (!iv) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, iv);
	}
	return list;
}

static PyObject *history_quark(PyObject *self, PyObject *arg)
{
	sht_quark q;

	if (check_open(H(self)) < 0 || shtpy_quark_of(H(self)->ss, arg, &q) < 0)
		return NULL;
	return PyLong_FromUnsignedLong(q);
}

static PyObject *history_path(PyObject *self, PyObject *arg)
{
	unsigned long q;
	PyObject *p;

	if (check_open(H(self)) < 0)
		return NULL;
	q = PyLong_AsUnsignedLong(arg);
	if (q == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	if (q > SHT_QUARK_MAX)
		q = SHT_QUARK_MAX;
	p = shtpy_history_path(H(self), (sht_quark)q);
	Py_XINCREF(p);
	return p;
}

/* label(quark, value): the name the history's model gives value on the
 * attribute (str), or None. */
static PyObject *history_label(PyObject *self, PyObject *args)
{
	unsigned long q;
	PyObject *vo;
	sht_value v;
	sht_interval iv;

	if (!PyArg_ParseTuple(args, "kO", &q, &vo) || check_open(H(self)) < 0)
		return NULL;
	if (q > SHT_QUARK_MAX)
		Py_RETURN_NONE;
	if (shtpy_to_value(vo, &v) < 0)
		return NULL;
	iv.quark = (sht_quark)q;
	iv.start = iv.end = 0;
	iv.value = v;
	return shtpy_label(H(self), &iv);
}

/* quarks(pattern=None): the quarks matching (all if None), in
 * depth-first creation order. */
static PyObject *history_quarks(PyObject *self, PyObject *args)
{
	PyObject *spec = Py_None, *list;
	sht_quark *q = NULL;
	size_t n;

	if (!PyArg_ParseTuple(args, "|O", &spec) || check_open(H(self)) < 0)
		return NULL;
	if (spec == Py_None) {
		list = PyList_New((Py_ssize_t)H(self)->nattrs);
		for (uint64_t i = 0; list && i < H(self)->nattrs; i++)
			PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromUnsignedLongLong(i));
		return list;
	}
	if (shtpy_match(H(self)->ss, spec, 0, &q, &n) < 0)
		return NULL;
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++)
		PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromUnsignedLong(q[i]));
	PyMem_Free(q);
	return list;
}

/* parent(q): the parent's quark, None at the top level. */
static PyObject *history_parent(PyObject *self, PyObject *arg)
{
	sht_quark q, parent;

	if (check_open(H(self)) < 0 || shtpy_quark_of(H(self)->ss, arg, &q) < 0)
		return NULL;
	if (sht_state_attr_parent(H(self)->ss, q, &parent) != SHT_OK)
		return shtpy_raise(SHT_ERR_RANGE);
	if (parent == SHT_QUARK_ROOT)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(parent);
}

/* children(attr=None): the children's quarks in creation order (None:
 * the top level). */
static PyObject *history_children(PyObject *self, PyObject *args)
{
	PyObject *spec = Py_None, *list;
	const sht_quark *kids;
	sht_quark q = SHT_QUARK_ROOT;
	size_t n;

	if (!PyArg_ParseTuple(args, "|O", &spec) || check_open(H(self)) < 0)
		return NULL;
	if (spec != Py_None && shtpy_quark_of(H(self)->ss, spec, &q) < 0)
		return NULL;
	if (sht_state_attr_children(H(self)->ss, q, &kids, &n) != SHT_OK)
		return shtpy_raise(SHT_ERR_RANGE);
	list = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; list && i < n; i++)
		PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromUnsignedLong(kids[i]));
	return list;
}

/* name(q): the attribute's own name (its last path element). */
static PyObject *history_name(PyObject *self, PyObject *arg)
{
	sht_quark q;
	const char *name;
	size_t len;

	if (check_open(H(self)) < 0 || shtpy_quark_of(H(self)->ss, arg, &q) < 0)
		return NULL;
	if (sht_state_attr_name(H(self)->ss, q, &name, &len) != SHT_OK)
		return shtpy_raise(SHT_ERR_RANGE);
	return PyUnicode_DecodeUTF8(name, (Py_ssize_t)len, "surrogateescape");
}

/* ---- queries ----------------------------------------------------------------- */

/* The interval of q at t as an Interval, or None. */
static PyObject *single(struct shtpy_history *h, sht_quark q, sht_time t)
{
	sht_err err = sht_state_query(h->ss, q, t, h->res);

	if (err == SHT_NOT_FOUND)
		Py_RETURN_NONE;
	if (err != SHT_OK)
		return shtpy_raise(err);
	return shtpy_interval(h, sht_result_at(h->res, 0));
}

/* query(t, attrs=None): the state at t.  None: every attribute (a full
 * query, in quark order); a path or quark: its Interval; a list: one
 * Interval per attribute named, patterns expanded, in the order given. */
static PyObject *history_query(PyObject *self, PyObject *args)
{
	struct shtpy_history *h = H(self);
	PyObject *tobj, *spec = Py_None, *list;
	sht_quark *q = NULL, one;
	size_t n;
	sht_time t;
	sht_err err;

	if (!PyArg_ParseTuple(args, "O|O", &tobj, &spec) || check_open(h) < 0 ||
	    shtpy_time(tobj, &t) < 0)
		return NULL;
	if (spec == Py_None) {
		err = sht_state_query_full(h->ss, t, h->res);
		return err == SHT_OK ? interval_list(h, h->res) : shtpy_raise(err);
	}
	if (PyUnicode_Check(spec) || PyLong_Check(spec))
		return shtpy_quark_of(h->ss, spec, &one) < 0 ? NULL : single(h, one, t);
	if (shtpy_match(h->ss, spec, 0, &q, &n) < 0)
		return NULL;
	list = PyList_New(0);
	for (size_t i = 0; list && i < n; i++) {
		PyObject *iv = single(h, q[i], t);

		if (!iv || (iv != Py_None && PyList_Append(list, iv) < 0)) {
			Py_XDECREF(iv);
			Py_CLEAR(list);
			break;
		}
		Py_DECREF(iv);
	}
	PyMem_Free(q);
	return list;
}

/* Optional time and resolution arguments (None: the default). */
static int opt_time(PyObject *o, sht_time def, sht_time *t)
{
	if (!o || o == Py_None) {
		*t = def;
		return 0;
	}
	return shtpy_time(o, t);
}

/* history(attr, t1=None, t2=None, resolution=None): the intervals of one
 * attribute from the one at t1 to min(t2, end), sampled at the
 * resolution: what sht history prints. */
static PyObject *history_history(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", "t1", "t2", "resolution", NULL };
	struct shtpy_history *h = H(self);
	PyObject *spec, *a = NULL, *b = NULL, *r = NULL, *out;
	sht_time t1, t2, res;
	sht_result *rs;
	sht_quark q;
	sht_err err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO", kwlist, &spec, &a, &b, &r) ||
	    check_open(h) < 0 || shtpy_quark_of(h->ss, spec, &q) < 0 ||
	    opt_time(a, sht_state_start(h->ss), &t1) < 0 ||
	    opt_time(b, sht_state_end(h->ss), &t2) < 0 || opt_time(r, 0, &res) < 0)
		return NULL;
	if (res < 0) {
		PyErr_SetString(PyExc_ValueError, "sht: the resolution is >= 0 (ns)");
		return NULL;
	}
	rs = sht_result_create();
	if (!rs)
		return PyErr_NoMemory();
	h->busy++;
	UNLOCKED(h, err = sht_state_query_range(h->ss, q, t1, t2, res, rs));
	h->busy--;
	out = err == SHT_OK ? interval_list(h, rs) : shtpy_raise(err);
	sht_result_destroy(rs);
	return out;
}

/* ---- 2D queries as columns ------------------------------------------------------ */

/* The 2D query of (spec | all) over [t1, t2] at a resolution into rs,
 * without the GIL.  SHT_OK, or raised. */
static int run_2d(struct shtpy_history *h, PyObject *spec, sht_time t1, sht_time t2,
		  sht_time r, sht_result *rs)
{
	sht_query2d q;
	sht_quark *sel = NULL, none = 0;
	size_t n = 0;
	sht_err err;

	memset(&q, 0, sizeof q);
	if (spec != Py_None) {
		if (shtpy_match(h->ss, spec, 1, &sel, &n) < 0)
			return -1;
		q.quarks = sel ? sel : &none;   /* n 0: nothing selected */
		q.n_quarks = n;
	} else if (h->nattrs) {
		q.qmin = 0;
		q.qmax = (sht_quark)(h->nattrs - 1);
	} else {
		q.quarks = &none;
	}
	q.t1 = t1;
	q.t2 = t2;
	q.resolution = r;
	h->busy++;
	UNLOCKED(h, err = sht_state_query_2d(h->ss, &q, rs));
	h->busy--;
	PyMem_Free(sel);
	if (err != SHT_OK) {
		shtpy_raise(err);
		return -1;
	}
	return 0;
}

static PyObject *bytearray(size_t n)
{
	return PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
}

/* The columns of rs: (quark u32, start i64, end i64, type u8, int i64,
 * double f64 as bytearrays, the string values in row order as a list). */
static PyObject *columns(const sht_result *rs)
{
	size_t n = sht_result_count(rs), ns = 0;
	const sht_interval *items = sht_result_items(rs);
	PyObject *c[6], *strs = NULL, *out = NULL;
	uint32_t *qc;
	int64_t *sc, *ec, *ic;
	uint8_t *tc;
	double *dc;

	c[0] = bytearray(4 * n);
	c[1] = bytearray(8 * n);
	c[2] = bytearray(8 * n);
	c[3] = bytearray(n);
	c[4] = bytearray(8 * n);
	c[5] = bytearray(8 * n);
	for (int i = 0; i < 6; i++)
		if (!c[i])
			goto done;
	qc = (uint32_t *)PyByteArray_AS_STRING(c[0]);
	sc = (int64_t *)PyByteArray_AS_STRING(c[1]);
	ec = (int64_t *)PyByteArray_AS_STRING(c[2]);
	tc = (uint8_t *)PyByteArray_AS_STRING(c[3]);
	ic = (int64_t *)PyByteArray_AS_STRING(c[4]);
	dc = (double *)PyByteArray_AS_STRING(c[5]);
	for (size_t i = 0; i < n; i++) {
		const sht_value *v = &items[i].value;

		qc[i] = items[i].quark;
		sc[i] = items[i].start;
		ec[i] = items[i].end;
		tc[i] = (uint8_t)v->type;
		ic[i] = v->type == SHT_TYPE_INT32 ? v->u.i32
			: v->type == SHT_TYPE_INT64 ? v->u.i64 : 0;
		dc[i] = v->type == SHT_TYPE_DOUBLE ? v->u.d
			: v->type == SHT_TYPE_INT32 ? (double)v->u.i32
			: v->type == SHT_TYPE_INT64 ? (double)v->u.i64 : 0.0;
		ns += v->type == SHT_TYPE_STRING;
	}
	strs = PyList_New((Py_ssize_t)ns);
	for (size_t i = 0, k = 0; strs && i < n; i++) {
		if (items[i].value.type != SHT_TYPE_STRING)
			continue;
		PyObject *s = shtpy_value(&items[i].value);

		if (!s)
			goto done;
		PyList_SET_ITEM(strs, (Py_ssize_t)k++, s);
	}
	if (strs)
		out = Py_BuildValue("(OOOOOOO)", c[0], c[1], c[2], c[3], c[4], c[5], strs);
done:
	for (int i = 0; i < 6; i++)
		Py_XDECREF(c[i]);
	Py_XDECREF(strs);
	return out;
}

/* columns(attrs, t1=None, t2=None, resolution=None): the 2D query as
 * columns (see columns() above); attrs None: every attribute. */
static PyObject *history_columns(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attrs", "t1", "t2", "resolution", NULL };
	struct shtpy_history *h = H(self);
	PyObject *spec = Py_None, *a = NULL, *b = NULL, *r = NULL, *out;
	sht_time t1, t2, res;
	sht_result *rs;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &spec, &a, &b, &r) ||
	    check_open(h) < 0 || opt_time(a, sht_state_start(h->ss), &t1) < 0 ||
	    opt_time(b, sht_state_end(h->ss), &t2) < 0 || opt_time(r, 0, &res) < 0)
		return NULL;
	rs = sht_result_create();
	if (!rs)
		return PyErr_NoMemory();
	out = run_2d(h, spec, t1, t2, res, rs) == 0 ? columns(rs) : NULL;
	sht_result_destroy(rs);
	return out;
}

/* _c_query_2d_ns(attrs, t1, t2, resolution, repeat): the C call alone,
 * timed: each run's nanoseconds (for the benchmark that compares the
 * Python API with it; the quarks are resolved once, outside the timing). */
static PyObject *history_c_2d_ns(PyObject *self, PyObject *args)
{
	struct shtpy_history *h = H(self);
	PyObject *spec, *list;
	long long t1, t2, r;
	int repeat;
	sht_query2d q;
	sht_quark *sel;
	size_t n;
	sht_result *rs;

	if (!PyArg_ParseTuple(args, "OLLLi", &spec, &t1, &t2, &r, &repeat) ||
	    check_open(h) < 0 || shtpy_match(h->ss, spec, 1, &sel, &n) < 0)
		return NULL;
	memset(&q, 0, sizeof q);
	q.quarks = sel;
	q.n_quarks = n;
	q.t1 = t1;
	q.t2 = t2;
	q.resolution = r;
	rs = sht_result_create();
	list = rs ? PyList_New(0) : PyErr_NoMemory();
	for (int i = 0; list && i < repeat; i++) {
		struct timespec a, b;
		sht_err err;
		PyObject *ns;

		clock_gettime(CLOCK_MONOTONIC, &a);
		err = sht_state_query_2d(h->ss, &q, rs);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (err != SHT_OK) {
			Py_CLEAR(list);
			shtpy_raise(err);
			break;
		}
		ns = PyLong_FromLongLong((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
		if (!ns || PyList_Append(list, ns) < 0)
			Py_CLEAR(list);
		Py_XDECREF(ns);
	}
	sht_result_destroy(rs);
	PyMem_Free(sel);
	return list;
}

/* ---- properties --------------------------------------------------------------- */

static PyObject *get_start(PyObject *self, void *c)
{
	(void)c;
	return check_open(H(self)) < 0 ? NULL : PyLong_FromLongLong(sht_state_start(H(self)->ss));
}

static PyObject *get_end(PyObject *self, void *c)
{
	(void)c;
	return check_open(H(self)) < 0 ? NULL : PyLong_FromLongLong(sht_state_end(H(self)->ss));
}

static PyObject *get_count(PyObject *self, void *c)
{
	(void)c;
	return check_open(H(self)) < 0 ? NULL : PyLong_FromUnsignedLongLong(H(self)->nattrs);
}

static PyObject *get_provider(PyObject *self, void *c)
{
	const char *id = "";
	uint32_t version = 0;

	(void)c;
	if (check_open(H(self)) < 0)
		return NULL;
	sht_state_provider(H(self)->ss, &id, &version);
	return Py_BuildValue("(sk)", id, (unsigned long)version);
}

static PyObject *get_name(PyObject *self, void *c)
{
	(void)c;
	if (!H(self)->name)
		Py_RETURN_NONE;
	Py_INCREF(H(self)->name);
	return H(self)->name;
}

static PyObject *get_closed(PyObject *self, void *c)
{
	(void)c;
	return PyBool_FromLong(H(self)->ss == NULL);
}

static PyObject *get_info(PyObject *self, void *c)
{
	sht_tree_info i;
	sht_reader *r;
	sht_err err;

	(void)c;
	if (check_open(H(self)) < 0)
		return NULL;
	err = sht_reader_open(PyBytes_AS_STRING(H(self)->fspath), NULL, &r);
	if (err != SHT_OK)
		return shtpy_raise(err);
	sht_reader_info_get(r, &i);
	sht_reader_close(r);
	return Py_BuildValue("{s:s,s:k,s:k,s:k,s:k,s:K,s:K,s:K,s:L,s:L,s:K}",
			     "variant", i.variant == SHT_VARIANT_SHT ? "sht" : "esht",
			     "format_version", (unsigned long)i.format_version,
			     "block_size", (unsigned long)i.block_size,
			     "max_children", (unsigned long)i.max_children,
			     "depth", (unsigned long)i.depth,
			     "nodes", (unsigned long long)i.nodes,
			     "intervals", (unsigned long long)i.intervals,
			     "quark_count", (unsigned long long)i.quark_count,
			     "start", (long long)i.start, "end", (long long)i.end,
			     "file_bytes", (unsigned long long)i.file_bytes);
}

static PyGetSetDef history_getset[] = {
	{ "start", get_start, NULL, "first ns of the history", NULL },
	{ "end", get_end, NULL, "last ns of the history", NULL },
	{ "attribute_count", get_count, NULL, "number of attributes (quarks 0 .. n-1)", NULL },
	{ "provider", get_provider, NULL, "(id, version) of the analysis that built it", NULL },
	{ "file", get_name, NULL, "the history file opened", NULL },
	{ "closed", get_closed, NULL, "True after close()", NULL },
	{ "info", get_info, NULL, "the file's header and tree shape (sht info)", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

static PyMethodDef history_methods[] = {
	{ "close", history_close, METH_NOARGS, "Close the file (queries then fail)." },
	{ "__enter__", history_enter, METH_NOARGS, NULL },
	{ "__exit__", history_exit, METH_VARARGS, NULL },
	{ "quark", history_quark, METH_O, "quark(path): the quark of an exact path." },
	{ "path", history_path, METH_O, "path(quark): the attribute's path." },
	{ "label", history_label, METH_VARARGS,
	  "label(quark, value): the value's name in the history's model, or None." },
	{ "name", history_name, METH_O, "name(attr): the attribute's own name." },
	{ "parent", history_parent, METH_O, "parent(attr): the parent's quark, None at the top." },
	{ "children", history_children, METH_VARARGS, "children(attr=None): the children's quarks." },
	{ "quarks", history_quarks, METH_VARARGS, "quarks(pattern=None): matching quarks." },
	{ "query", history_query, METH_VARARGS, "query(t, attrs=None): the state at t." },
	{ "history", (PyCFunction)(void (*)(void))history_history, METH_VARARGS | METH_KEYWORDS,
	  "history(attr, t1=None, t2=None, resolution=None): one attribute over a range." },
	{ "columns", (PyCFunction)(void (*)(void))history_columns, METH_VARARGS | METH_KEYWORDS,
	  "columns(attrs=None, t1=None, t2=None, resolution=None): a 2D query as buffers." },
	{ "_c_query_2d_ns", history_c_2d_ns, METH_VARARGS, "benchmark: the C 2D query alone, timed." },
	{ NULL, NULL, 0, NULL }
};

PyTypeObject shtpy_history_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sht._core.History",
	.tp_basicsize = sizeof(struct shtpy_history),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "History(path, cache_bytes=0): an opened history file.",
	.tp_new = PyType_GenericNew,
	.tp_init = history_init,
	.tp_dealloc = history_dealloc,
	.tp_methods = history_methods,
	.tp_getset = history_getset,
};
