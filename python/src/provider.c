/*
 * provider.c: state providers written in Python.
 *
 * A provider object (sht.Provider in python/sht/provider.py) has an id,
 * a version, and a method _handler_for(name) that gives the callable
 * handling events of that name, or None.  The C handler asks it once
 * per distinct event name and keeps the answer in a hash table, so an
 * event nobody handles costs one look-up and no Python at all.  A
 * handled event calls handler(event, state): event is an sht.Event
 * (name, ts, cpu, fields by event["name"] or event.get()), state the
 * run's sht._core.State.
 *
 * The Event object is reused from one event to the next unless a handler
 * kept a reference to it; a kept one keeps its name, ts and cpu, but its
 * fields (which live in the trace reader's buffers) are gone: asking for
 * one raises sht.StateError.
 *
 * A handler's exception: an sht.TypeError, sht.RangeError or
 * sht.NoattrError (a state change the model refuses) skips the rest of
 * that event, as sht_state_run does for the C providers (Trace Compass's
 * rule); any other stops the build, recorded with sht_error_set, and the
 * build raises it again.
 */
#include <stddef.h>
#include <string.h>

#include "core.h"
#include "structmember.h"

/* ---- events ------------------------------------------------------------- */

struct shtpy_event {
	PyObject_HEAD
	const sht_event *ev;     /* the live event, during its handler only */
	PyObject *name;
	long long ts;
	int cpu;
	sht_err (*fields)(const sht_event *, sht_field_fn, void *);
};

#define E(o) ((struct shtpy_event *)(o))

static void event_dealloc(PyObject *self)
{
	Py_XDECREF(E(self)->name);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *field_value(const sht_field *f)
{
	switch (f->type) {
	case SHT_FIELD_INT: return PyLong_FromLongLong(f->v.i);
	case SHT_FIELD_UINT: return PyLong_FromUnsignedLongLong(f->v.u);
	case SHT_FIELD_DOUBLE: return PyFloat_FromDouble(f->v.d);
	case SHT_FIELD_STRING:
		return PyUnicode_DecodeUTF8(f->v.s, (Py_ssize_t)strlen(f->v.s), "surrogateescape");
	default: Py_RETURN_NONE;     /* a structure, a sequence, ... */
	}
}

static int live(struct shtpy_event *e)
{
	if (e->ev)
		return 0;
	sht_error_set(SHT_ERR_STATE, "Cannot read a field: the event was kept "
		      "after its handler returned (its fields are gone)");
	shtpy_raise(SHT_ERR_STATE);
	return -1;
}

/* The field name's value into *out: 1 if the event has it, 0 if not. */
static int lookup(struct shtpy_event *e, PyObject *key, sht_field *out)
{
	const char *name;

	if (!PyUnicode_Check(key)) {
		PyErr_SetString(PyExc_TypeError, "sht: a field name is a str");
		return -1;
	}
	if (live(e) < 0 || !(name = PyUnicode_AsUTF8(key)))
		return -1;
	return sht_event_field(e->ev, name, out) != SHT_FIELD_NONE;
}

static PyObject *event_getitem(PyObject *self, PyObject *key)
{
	sht_field f;
	int r = lookup(E(self), key, &f);

	if (r < 0)
		return NULL;
	if (r == 0) {
		PyErr_SetObject(PyExc_KeyError, key);
		return NULL;
	}
	return field_value(&f);
}

/* get(name, default=None) */
static PyObject *event_get(PyObject *self, PyObject *const *args, Py_ssize_t n)
{
	sht_field f;
	int r;

	if (n < 1 || n > 2) {
		PyErr_SetString(PyExc_TypeError, "Event.get(name, default=None)");
		return NULL;
	}
	r = lookup(E(self), args[0], &f);
	if (r < 0)
		return NULL;
	if (r == 0) {
		PyObject *d = n == 2 ? args[1] : Py_None;

		Py_INCREF(d);
		return d;
	}
	return field_value(&f);
}

static sht_err add_field(void *ctx, const char *name, const sht_field *value)
{
	PyObject *v = field_value(value);
	int rc = v ? PyDict_SetItemString(ctx, name, v) : -1;

	Py_XDECREF(v);
	return rc < 0 ? SHT_ERR_NOMEM : SHT_OK;
}

/* fields(): every field as a dict (payload, then contexts). */
static PyObject *event_fields(PyObject *self, PyObject *unused)
{
	struct shtpy_event *e = E(self);
	PyObject *d;
	sht_err err;

	(void)unused;
	if (live(e) < 0)
		return NULL;
	if (!e->fields) {
		PyErr_SetString(PyExc_NotImplementedError, "sht: this source cannot list fields");
		return NULL;
	}
	d = PyDict_New();
	if (!d)
		return NULL;
	err = e->fields(e->ev, add_field, d);
	if (err != SHT_OK) {
		Py_DECREF(d);
		return PyErr_Occurred() ? NULL : shtpy_raise(err);
	}
	return d;
}

static PyObject *event_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<sht.Event %S ts=%lld cpu=%d>", E(self)->name,
				    E(self)->ts, E(self)->cpu);
}

static PyMemberDef event_members[] = {
	{ "name", T_OBJECT, offsetof(struct shtpy_event, name), READONLY, "event name" },
	{ "ts", T_LONGLONG, offsetof(struct shtpy_event, ts), READONLY, "timestamp, ns" },
	{ "cpu", T_INT, offsetof(struct shtpy_event, cpu), READONLY, "CPU, -1 if unknown" },
	{ NULL, 0, 0, 0, NULL }
};

static PyMethodDef event_methods[] = {
	{ "get", (PyCFunction)(void (*)(void))event_get, METH_FASTCALL,
	  "get(name, default=None): a field's value." },
	{ "fields", event_fields, METH_NOARGS, "fields(): every field as a dict." },
	{ NULL, NULL, 0, NULL }
};

static PyMappingMethods event_mapping = { .mp_subscript = event_getitem };

PyTypeObject shtpy_event_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "sht.Event",
	.tp_basicsize = sizeof(struct shtpy_event),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An event of a trace, as a provider's handler sees it.",
	.tp_dealloc = event_dealloc,
	.tp_repr = event_repr,
	.tp_as_mapping = &event_mapping,
	.tp_members = event_members,
	.tp_methods = event_methods,
};

/* ---- event names -------------------------------------------------------------- */

struct name_entry {
	char *name;              /* NULL: an empty slot */
	PyObject *pyname;
	PyObject *handler;       /* NULL: nobody handles it */
};

struct shtpy_provider {
	sht_provider prov;
	PyObject *obj;           /* the Python provider */
	PyObject *id;            /* its id, as bytes (prov.id points in) */
	PyObject *state;         /* the State handlers receive */
	PyObject *event;         /* the reusable Event */
	struct name_entry *tab;  /* open addressing, a power of 2 */
	size_t cap, used;
	struct name_entry *last; /* the previous event's entry */
	const char *last_ptr;
	PyObject *exc_type, *exc_value, *exc_tb;   /* what stopped the run */
	uint64_t calls;
	sht_err (*fields)(const sht_event *, sht_field_fn, void *);
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603);

	while (*s)
		h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
	return h;
}

static int grow(struct shtpy_provider *p)
{
	size_t cap = p->cap ? 2 * p->cap : 64;
	struct name_entry *t = PyMem_Calloc(cap, sizeof *t);

	if (!t) {
		PyErr_NoMemory();
		return -1;
	}
	for (size_t i = 0; i < p->cap; i++) {
		if (!p->tab[i].name)
			continue;
		size_t k = hash_name(p->tab[i].name) & (cap - 1);

		while (t[k].name)
			k = (k + 1) & (cap - 1);
		t[k] = p->tab[i];
	}
	PyMem_Free(p->tab);
	p->tab = t;
	p->cap = cap;
	p->last = NULL;
	p->last_ptr = NULL;
	return 0;
}

/* Ask the provider for the handler of a new name. */
static int resolve(struct shtpy_provider *p, struct name_entry *e, const char *name)
{
	PyObject *h;

	e->name = PyMem_Malloc(strlen(name) + 1);
	if (!e->name) {
		PyErr_NoMemory();
		return -1;
	}
	strcpy(e->name, name);
	e->pyname = PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "surrogateescape");
	if (!e->pyname)
		return -1;
	PyUnicode_InternInPlace(&e->pyname);
	h = PyObject_CallMethod(p->obj, "_handler_for", "O", e->pyname);
	if (!h)
		return -1;
	if (h == Py_None)
		Py_DECREF(h);
	else
		e->handler = h;
	p->used++;
	return 0;
}

static struct name_entry *entry_of(struct shtpy_provider *p, const char *name)
{
	size_t k;

	if (!name)
		name = "";
	if (p->last && p->last_ptr == name && strcmp(p->last->name, name) == 0)
		return p->last;
	if ((p->used + 1) * 2 > p->cap && grow(p) < 0)
		return NULL;
	k = hash_name(name) & (p->cap - 1);
	while (p->tab[k].name && strcmp(p->tab[k].name, name) != 0)
		k = (k + 1) & (p->cap - 1);
	if (!p->tab[k].name && resolve(p, &p->tab[k], name) < 0)
		return NULL;
	p->last = &p->tab[k];
	p->last_ptr = name;
	return p->last;
}

/* ---- the handler ------------------------------------------------------------- */

static PyObject *event_for(struct shtpy_provider *p)
{
	if (p->event && Py_REFCNT(p->event) == 1)
		return p->event;
	if (p->event) {                      /* kept by a handler */
		E(p->event)->ev = NULL;
		Py_CLEAR(p->event);
	}
	p->event = PyType_GenericAlloc(&shtpy_event_type, 0);
	if (p->event)
		E(p->event)->fields = p->fields;
	return p->event;
}

/* A handler raised: skip the event (a refused state change) or stop. */
static sht_err failed(struct shtpy_provider *p, const char *name)
{
	PyObject *type, *value, *tb, *text;
	sht_err code;

	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	code = shtpy_error_code(type);
	if (code == SHT_ERR_TYPE || code == SHT_ERR_RANGE || code == SHT_ERR_NOATTR) {
		Py_XDECREF(type);
		Py_XDECREF(value);
		Py_XDECREF(tb);
		return code;
	}
	text = value ? PyObject_Str(value) : NULL;
	sht_error_set(SHT_ERR_INVALID, "Cannot run the Python provider: its handler of "
		      "%s raised %s: %s", name, ((PyTypeObject *)type)->tp_name,
		      text && PyUnicode_AsUTF8(text) ? PyUnicode_AsUTF8(text) : "?");
	PyErr_Clear();
	Py_XDECREF(text);
	Py_XDECREF(p->exc_type);
	Py_XDECREF(p->exc_value);
	Py_XDECREF(p->exc_tb);
	p->exc_type = type;
	p->exc_value = value;
	p->exc_tb = tb;
	return SHT_ERR_INVALID;
}

static sht_err handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	struct shtpy_provider *p = ctx;
	struct name_entry *e = entry_of(p, ev->name);
	PyObject *event, *r, *argv[2];

	(void)ss;
	if (!e)
		return failed(p, ev->name ? ev->name : "");
	if (!e->handler)
		return SHT_OK;
	if (!(event = event_for(p)))
		return failed(p, e->name);
	E(event)->ev = ev;
	E(event)->ts = ev->ts;
	E(event)->cpu = ev->cpu;
	Py_INCREF(e->pyname);
	Py_XSETREF(E(event)->name, e->pyname);
	argv[0] = event;
	argv[1] = p->state;
	p->calls++;
	r = PyObject_Vectorcall(e->handler, argv, 2, NULL);
	E(event)->ev = NULL;                        /* its fields are gone */
	if (Py_REFCNT(event) > 1)                   /* kept: use a new one */
		Py_CLEAR(p->event);
	if (!r)
		return failed(p, e->name);
	Py_DECREF(r);
	return SHT_OK;
}

/* ---- lifetime ------------------------------------------------------------------ */

static void clear_exc(struct shtpy_provider *p)
{
	Py_CLEAR(p->exc_type);
	Py_CLEAR(p->exc_value);
	Py_CLEAR(p->exc_tb);
}

shtpy_provider *shtpy_provider_create(PyObject *obj)
{
	struct shtpy_provider *p = PyMem_Calloc(1, sizeof *p);
	PyObject *id = NULL, *version = NULL;
	unsigned long v;

	if (!p)
		return (shtpy_provider *)PyErr_NoMemory();
	Py_INCREF(obj);
	p->obj = obj;
	id = PyObject_GetAttrString(obj, "id");
	version = id ? PyObject_GetAttrString(obj, "version") : NULL;
	if (!version || !PyUnicode_Check(id) || !PyLong_Check(version)) {
		if (version)
			PyErr_SetString(PyExc_TypeError, "sht: a provider has an id (str) "
					"and a version (int)");
		goto fail;
	}
	v = PyLong_AsUnsignedLong(version);
	if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > UINT32_MAX) {
		PyErr_Clear();
		PyErr_SetString(PyExc_ValueError, "sht: a provider's version is 0 .. 2**32-1");
		goto fail;
	}
	p->id = PyUnicode_AsUTF8String(id);
	if (!p->id || grow(p) < 0)
		goto fail;
	p->prov.id = PyBytes_AS_STRING(p->id);
	p->prov.version = (uint32_t)v;
	p->prov.handle = handle;
	p->prov.ctx = p;
	Py_DECREF(id);
	Py_DECREF(version);
	return p;
fail:
	Py_XDECREF(id);
	Py_XDECREF(version);
	shtpy_provider_destroy(p);
	return NULL;
}

void shtpy_provider_destroy(shtpy_provider *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++) {
		PyMem_Free(p->tab[i].name);
		Py_XDECREF(p->tab[i].pyname);
		Py_XDECREF(p->tab[i].handler);
	}
	PyMem_Free(p->tab);
	if (p->event)
		E(p->event)->ev = NULL;
	Py_XDECREF(p->event);
	shtpy_state_detach(p->state);
	Py_XDECREF(p->state);
	Py_XDECREF(p->id);
	Py_XDECREF(p->obj);
	clear_exc(p);
	PyMem_Free(p);
}

int shtpy_provider_bind(shtpy_provider *p, sht_state *ss,
			sht_err (*fields)(const sht_event *, sht_field_fn, void *))
{
	PyObject *r;

	shtpy_state_detach(p->state);
	Py_CLEAR(p->state);
	p->state = shtpy_state_borrow(ss);
	p->fields = fields;
	if (!p->state)
		return -1;
	if (!PyObject_HasAttrString(p->obj, "setup"))
		return 0;
	r = PyObject_CallMethod(p->obj, "setup", "O", p->state);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

void shtpy_provider_unbind(shtpy_provider *p)
{
	shtpy_state_detach(p->state);
	Py_CLEAR(p->state);
}

const sht_provider *shtpy_provider_get(shtpy_provider *p)
{
	return &p->prov;
}

int shtpy_provider_reraise(shtpy_provider *p)
{
	if (!p->exc_type)
		return 0;
	PyErr_Restore(p->exc_type, p->exc_value, p->exc_tb);
	p->exc_type = p->exc_value = p->exc_tb = NULL;
	return 1;
}

uint64_t shtpy_provider_calls(const shtpy_provider *p)
{
	return p->calls;
}

int shtpy_provider_init(PyObject *module)
{
	if (PyType_Ready(&shtpy_event_type) < 0)
		return -1;
	Py_INCREF(&shtpy_event_type);
	return PyModule_AddObject(module, "Event", (PyObject *)&shtpy_event_type);
}
