/*
 * values.c: sht values and intervals as Python objects, and back.
 *
 * Values: null is None, int32 and int64 are int, double is float,
 * string is str (bytes that are not UTF-8 survive as surrogates,
 * "surrogateescape", so nothing is lost).  An int written to a state
 * becomes an int32 if it fits, else an int64; sht.Long(x) asks for an
 * int64 whatever the size.  Timestamps are Python ints (64 bits, no
 * loss).
 */
#include "core.h"

PyTypeObject *shtpy_interval_type;
PyObject *shtpy_long_type;

static PyStructSequence_Field interval_fields[] = {
	{ "path", "the attribute's path, its names joined with \"/\"" },
	{ "quark", "the attribute's number" },
	{ "start", "first ns of the interval (inclusive)" },
	{ "end", "last ns of the interval (inclusive)" },
	{ "value", "None, int, float or str" },
	{ "type", "the value's type: \"null\", \"int\", \"long\", \"double\" or \"string\"" },
	{ "label", "the value's name in the analysis's model (\"Usermode\"), or None" },
	{ NULL, NULL }
};

static PyStructSequence_Desc interval_desc = {
	"sht.Interval",
	"The value of one attribute over [start, end] (ns, both inclusive).",
	interval_fields, 7
};

int shtpy_values_init(PyObject *module)
{
	shtpy_interval_type = PyStructSequence_NewType(&interval_desc);
	if (!shtpy_interval_type)
		return -1;
	Py_INCREF(shtpy_interval_type);
	return PyModule_AddObject(module, "Interval", (PyObject *)shtpy_interval_type);
}

PyObject *shtpy_value(const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_INT32: return PyLong_FromLong(v->u.i32);
	case SHT_TYPE_INT64: return PyLong_FromLongLong(v->u.i64);
	case SHT_TYPE_DOUBLE: return PyFloat_FromDouble(v->u.d);
	case SHT_TYPE_STRING:
		return PyUnicode_DecodeUTF8(v->u.str, (Py_ssize_t)v->len, "surrogateescape");
	default: Py_RETURN_NONE;
	}
}

int shtpy_to_value(PyObject *o, sht_value *v)
{
	long long x;
	int overflow;
	const char *s;
	Py_ssize_t len;

	if (o == Py_None) {
		*v = sht_value_null();
		return 0;
	}
	if (PyLong_Check(o)) {
		x = PyLong_AsLongLongAndOverflow(o, &overflow);
		if (overflow) {
			PyErr_SetString(PyExc_OverflowError, "sht: an integer value must fit in 64 bits");
			return -1;
		}
		if (x == -1 && PyErr_Occurred())
			return -1;
		if (x >= INT32_MIN && x <= INT32_MAX &&
		    !(shtpy_long_type && PyObject_TypeCheck(o, (PyTypeObject *)shtpy_long_type)))
			*v = sht_value_int32((int32_t)x);
		else
			*v = sht_value_int64(x);
		return 0;
	}
	if (PyFloat_Check(o)) {
		*v = sht_value_double(PyFloat_AS_DOUBLE(o));
		return 0;
	}
	if (PyUnicode_Check(o)) {
		/* surrogateescape would need a new object; strict UTF-8 here
		 * (a str from a trace's field is valid UTF-8). */
		s = PyUnicode_AsUTF8AndSize(o, &len);
		if (!s)
			return -1;
		if ((size_t)len > SHT_STRING_MAX) {
			PyErr_Format(PyExc_ValueError, "sht: a string value is limited to %u bytes",
				     (unsigned)SHT_STRING_MAX);
			return -1;
		}
		*v = sht_value_string(s, (uint32_t)len);
		return 0;
	}
	PyErr_Format(PyExc_TypeError, "sht: a state value is None, int, float or str, not %.80s",
		     Py_TYPE(o)->tp_name);
	return -1;
}

int shtpy_time(PyObject *o, sht_time *t)
{
	long long x;
	int overflow;

	if (!PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "sht: a time is an int (ns), not %.80s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	x = PyLong_AsLongLongAndOverflow(o, &overflow);
	if (overflow) {
		PyErr_SetString(PyExc_OverflowError, "sht: a time must fit in 64 bits (ns)");
		return -1;
	}
	if (x == -1 && PyErr_Occurred())
		return -1;
	*t = x;
	return 0;
}
