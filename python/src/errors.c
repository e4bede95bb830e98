/*
 * errors.c: sht's errors as Python exceptions.
 *
 * sht.Error is the base; each error code gets its own subclass, made
 * mechanically from sht_err_name(): "SHT_ERR_CORRUPT" is
 * sht.CorruptError, "SHT_ERR_NOATTR" sht.NoattrError.  Some also derive
 * from the built-in exception a Python programmer would catch (an I/O
 * failure is an OSError, a bad argument a ValueError, a missing
 * attribute a KeyError, a type change a TypeError).  Every instance
 * carries code (the sht_err), name ("SHT_ERR_IO"), errno (sht_errno(),
 * 0 if no system call failed) and sht's message as its text.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

#define MAX_CODES 64

static PyObject *base_error;
static PyObject *classes[MAX_CODES + 1];   /* by -code */

/* Python built-ins an error also derives from, by symbolic name. */
static PyObject *builtin_base(const char *name)
{
	static const struct { const char *name; PyObject **base; } extra[] = {
		{ "SHT_ERR_NOMEM", &PyExc_MemoryError },
		{ "SHT_ERR_IO", &PyExc_OSError },
		{ "SHT_ERR_INVALID", &PyExc_ValueError },
		{ "SHT_ERR_ORDER", &PyExc_ValueError },
		{ "SHT_ERR_RANGE", &PyExc_ValueError },
		{ "SHT_ERR_TOOBIG", &PyExc_ValueError },
		{ "SHT_ERR_TYPE", &PyExc_TypeError },
		{ "SHT_ERR_NOATTR", &PyExc_KeyError },
	};

	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
		if (strcmp(extra[i].name, name) == 0)
			return *extra[i].base;
	return NULL;
}

/* obj.name = v, v's reference taken (NULL: the error that made it). */
static int set_attr(PyObject *obj, const char *name, PyObject *v)
{
	int rc;

	if (!v)
		return -1;
	rc = PyObject_SetAttrString(obj, name, v);
	Py_DECREF(v);
	return rc;
}

/* "SHT_ERR_NOATTR" -> "NoattrError". */
static void class_name(const char *sym, char *buf, size_t size)
{
	const char *p = sym + strlen("SHT_ERR_");
	size_t n = 0;

	for (; *p && n + 6 < size; p++, n++)
		buf[n] = n == 0 ? (char)toupper((unsigned char)*p)
				: (char)tolower((unsigned char)*p);
	snprintf(buf + n, size - n, "Error");
}

static int add_class(PyObject *module, int code)
{
	const char *sym = sht_err_name((sht_err)code);
	char name[64], qual[80];
	PyObject *bases, *cls, *extra = builtin_base(sym);

	class_name(sym, name, sizeof name);
	snprintf(qual, sizeof qual, "sht.%s", name);
	bases = extra ? PyTuple_Pack(2, base_error, extra) : PyTuple_Pack(1, base_error);
	if (!bases)
		return -1;
	cls = PyErr_NewExceptionWithDoc(qual, sht_strerror((sht_err)code), bases, NULL);
	Py_DECREF(bases);
	if (!cls)
		return -1;
	/* str(e) is the message, also for the KeyError ones (whose own
	 * __str__ would quote it). */
	if (set_attr(cls, "code", PyLong_FromLong(code)) < 0 ||
	    set_attr(cls, "name", PyUnicode_FromString(sym)) < 0 ||
	    set_attr(cls, "__str__", PyObject_GetAttrString(PyExc_Exception, "__str__")) < 0) {
		Py_DECREF(cls);
		return -1;
	}
	classes[-code] = cls;
	Py_INCREF(cls);
	return PyModule_AddObject(module, name, cls) < 0 ? -1 : 0;
}

int shtpy_errors_init(PyObject *module)
{
	base_error = PyErr_NewExceptionWithDoc("sht.Error",
		"An error reported by libsht: code (sht_err), name "
		"(\"SHT_ERR_...\"), errno (0 if no system call failed) and "
		"sht's message.", NULL, NULL);
	if (!base_error)
		return -1;
	Py_INCREF(base_error);
	if (PyModule_AddObject(module, "Error", base_error) < 0)
		return -1;
	for (int code = -1; code >= -MAX_CODES; code--) {
		if (strcmp(sht_err_name((sht_err)code), "SHT_ERR_UNKNOWN") == 0)
			break;
		if (add_class(module, code) < 0)
			return -1;
	}
	return 0;
}

static PyObject *class_of(sht_err err)
{
	if (err < 0 && -err <= MAX_CODES && classes[-err])
		return classes[-err];
	return base_error;
}

static PyObject *raise_text(sht_err err, const char *text, int e)
{
	PyObject *cls = class_of(err), *exc;

	exc = PyObject_CallFunction(cls, "s", text);
	if (!exc)
		return NULL;
	/* Instance attributes: code, name (the classes have them too, but
	 * sht.Error's own instances need them), errno. */
	if (set_attr(exc, "code", PyLong_FromLong(err)) == 0 &&
	    set_attr(exc, "name", PyUnicode_FromString(sht_err_name(err))) == 0 &&
	    set_attr(exc, "errno", PyLong_FromLong(e)) == 0)
		PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *shtpy_raise(sht_err err)
{
	const char *m = sht_errmsg();

	return raise_text(err, *m ? m : sht_strerror(err), sht_errno());
}

PyObject *shtpy_raise_os(int e, const char *fmt, ...)
{
	char what[1024], text[1400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(text, sizeof text, "%s: %s", what, strerror(e));
	return raise_text(SHT_ERR_IO, text, e);
}

PyObject *shtpy_raise_ctx(sht_err err, const char *fmt, ...)
{
	char what[1024], text[2048];
	const char *m = sht_errmsg();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(text, sizeof text, "%s: %s", what, *m ? m : sht_strerror(err));
	return raise_text(err, text, sht_errno());
}

sht_err shtpy_error_code(PyObject *type)
{
	if (!type || !PyType_Check(type))
		return SHT_OK;
	for (int code = 1; code <= MAX_CODES; code++)
		if (classes[code] && PyType_IsSubtype((PyTypeObject *)type,
						      (PyTypeObject *)classes[code]))
			return (sht_err)-code;
	return SHT_OK;
}
