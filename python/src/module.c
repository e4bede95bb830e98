/*
 * module.c: the extension module sht._core.  The package sht
 * (python/sht/__init__.py) is its public face.
 */
#include "core.h"

PyObject *shtpy_create(PyObject *mod, PyObject *args, PyObject *kw);

/* _set_long_type(cls): the int subclass whose values are written as
 * int64 (sht.Long, defined in Python). */
static PyObject *set_long_type(PyObject *mod, PyObject *cls)
{
	(void)mod;
	if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type)) {
		PyErr_SetString(PyExc_TypeError, "an int subclass");
		return NULL;
	}
	Py_INCREF(cls);
	Py_XSETREF(shtpy_long_type, cls);
	Py_RETURN_NONE;
}

static PyObject *err_name(PyObject *mod, PyObject *arg)
{
	long code = PyLong_AsLong(arg);

	(void)mod;
	if (code == -1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(sht_err_name((sht_err)code));
}

static PyMethodDef module_methods[] = {
	{ "build", (PyCFunction)(void (*)(void))shtpy_build, METH_VARARGS | METH_KEYWORDS,
	  "build(trace, analysis='kernel', output=None, progress=None, force=False, "
	  "merge=False, threaded=True, progress_every=65536): a history from a trace." },
	{ "create", (PyCFunction)(void (*)(void))shtpy_create, METH_VARARGS | METH_KEYWORDS,
	  "create(path, start, provider='python', version=1, block_size=0, threaded=False): "
	  "a new history written through a State." },
	{ "_set_long_type", set_long_type, METH_O, NULL },
	{ "err_name", err_name, METH_O, "err_name(code): sht_err_name." },
	{ NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "sht._core",
	"libsht from Python: histories, queries, builds, providers.", -1,
	module_methods, NULL, NULL, NULL, NULL
};

static int add_type(PyObject *m, const char *name, PyTypeObject *t)
{
	if (PyType_Ready(t) < 0)
		return -1;
	Py_INCREF(t);
	return PyModule_AddObject(m, name, (PyObject *)t);
}

PyMODINIT_FUNC PyInit__core(void);

PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m = PyModule_Create(&module_def);

	if (!m)
		return NULL;
	if (shtpy_errors_init(m) < 0 || shtpy_values_init(m) < 0 ||
	    add_type(m, "History", &shtpy_history_type) < 0 ||
	    add_type(m, "State", &shtpy_state_type) < 0 ||
	    shtpy_provider_init(m) < 0 || shtpy_build_init(m) < 0 ||
	    PyModule_AddStringConstant(m, "version", sht_version_string()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
