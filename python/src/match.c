/*
 * match.c: attribute patterns of the Python API.  A pattern is a path
 * whose elements are matched one by one as fnmatch(3) does: "*" is any
 * one name (the threads are "Threads/" then "*", not their children), "?" one
 * character, "[0-3]" a class.  Elements without those characters are
 * looked up directly in the attribute tree, so an exact path costs a few
 * hash look-ups.  Results come in depth-first creation order, as
 * sht_state_attr_match gives them.  (A name holding "/" cannot be named
 * by a path string: give its quark.)
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

struct qvec {
	sht_quark *q;
	size_t n, cap;
};

static int qvec_add(struct qvec *v, sht_quark q)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		sht_quark *g = PyMem_Realloc(v->q, cap * sizeof *g);

		if (!g) {
			PyErr_NoMemory();
			return -1;
		}
		v->q = g;
		v->cap = cap;
	}
	v->q[v->n++] = q;
	return 0;
}

static int has_magic(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return 1;
	return 0;
}

/* The children of each quark of from matching elem, in order, into to. */
static int step(sht_state *ss, const struct qvec *from, const char *elem,
		size_t len, struct qvec *to)
{
	char *pat = PyMem_Malloc(len + 1);
	const sht_quark *kids;
	const char *name;
	size_t nk, nlen;
	char buf[256];
	int rc = 0;

	if (!pat) {
		PyErr_NoMemory();
		return -1;
	}
	memcpy(pat, elem, len);
	pat[len] = '\0';
	for (size_t i = 0; rc == 0 && i < from->n; i++) {
		sht_quark q;

		if (!has_magic(elem, len)) {
			const char *one[1] = { pat };

			if (sht_state_quark_find(ss, from->q[i], one, 1, &q) == SHT_OK)
				rc = qvec_add(to, q);
			continue;
		}
		if (sht_state_attr_children(ss, from->q[i], &kids, &nk) != SHT_OK) {
			shtpy_raise(SHT_ERR_CORRUPT);
			rc = -1;
			break;
		}
		for (size_t k = 0; rc == 0 && k < nk; k++) {
			if (sht_state_attr_name(ss, kids[k], &name, &nlen) != SHT_OK ||
			    nlen >= sizeof buf || memchr(name, '\0', nlen))
				continue;    /* such names cannot match a pattern */
			memcpy(buf, name, nlen);
			buf[nlen] = '\0';
			if (fnmatch(pat, buf, 0) == 0)
				rc = qvec_add(to, kids[k]);
		}
	}
	PyMem_Free(pat);
	return rc;
}

static int match_pattern(sht_state *ss, const char *pattern, size_t len,
			 struct qvec *out)
{
	struct qvec a = { NULL, 0, 0 }, b = { NULL, 0, 0 }, t;
	size_t at = 0;
	int rc = qvec_add(&a, SHT_QUARK_ROOT);

	if (len == 0) {
		PyMem_Free(a.q);
		return rc;
	}
	while (rc == 0 && a.n > 0) {
		size_t e = at;

		while (e < len && pattern[e] != '/')
			e++;
		b.n = 0;
		rc = step(ss, &a, pattern + at, e - at, &b);
		t = a;
		a = b;
		b = t;
		if (e >= len)
			break;
		at = e + 1;
	}
	for (size_t i = 0; rc == 0 && i < a.n; i++)
		rc = qvec_add(out, a.q[i]);
	PyMem_Free(a.q);
	PyMem_Free(b.q);
	return rc;
}

static int add_quark(sht_state *ss, PyObject *o, struct qvec *out)
{
	unsigned long long x = PyLong_AsUnsignedLongLong(o);

	if (x == (unsigned long long)-1 && PyErr_Occurred()) {
		PyErr_Clear();
		PyErr_Format(PyExc_ValueError, "sht: no attribute has quark %R", o);
		return -1;
	}
	if (x >= sht_state_attr_count(ss)) {
		PyErr_Format(PyExc_ValueError, "sht: no attribute has quark %llu "
			     "(the history has %llu)", x,
			     (unsigned long long)sht_state_attr_count(ss));
		return -1;
	}
	return qvec_add(out, (sht_quark)x);
}

static int add_spec(sht_state *ss, PyObject *o, struct qvec *out, int depth)
{
	const char *s;
	Py_ssize_t len;

	if (PyUnicode_Check(o)) {
		s = PyUnicode_AsUTF8AndSize(o, &len);
		return s ? match_pattern(ss, s, (size_t)len, out) : -1;
	}
	if (PyLong_Check(o))
		return add_quark(ss, o, out);
	if (depth == 0 && (PyList_Check(o) || PyTuple_Check(o))) {
		PyObject *seq = PySequence_Fast(o, "attributes");

		for (Py_ssize_t i = 0; seq && i < PySequence_Fast_GET_SIZE(seq); i++) {
			if (add_spec(ss, PySequence_Fast_GET_ITEM(seq, i), out, 1) < 0) {
				Py_DECREF(seq);
				return -1;
			}
		}
		Py_XDECREF(seq);
		return seq ? 0 : -1;
	}
	PyErr_Format(PyExc_TypeError, "sht: attributes are given as a path or "
		     "pattern (str), a quark (int) or a list of those, not %.80s",
		     Py_TYPE(o)->tp_name);
	return -1;
}

static int cmp_quark(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;

	return x < y ? -1 : x > y;
}

int shtpy_match(sht_state *ss, PyObject *spec, int sorted, sht_quark **out,
		size_t *n)
{
	struct qvec v = { NULL, 0, 0 };
	size_t k = 0;

	if (add_spec(ss, spec, &v, 0) < 0) {
		PyMem_Free(v.q);
		return -1;
	}
	if (sorted && v.n > 1) {
		qsort(v.q, v.n, sizeof *v.q, cmp_quark);
		for (size_t i = 0; i < v.n; i++)
			if (k == 0 || v.q[k - 1] != v.q[i])
				v.q[k++] = v.q[i];
		v.n = k;
	}
	*out = v.q;
	*n = v.n;
	return 0;
}

int shtpy_quark_of(sht_state *ss, PyObject *o, sht_quark *q)
{
	struct qvec v = { NULL, 0, 0 };
	const char *s;

	if (PyLong_Check(o)) {
		if (add_quark(ss, o, &v) < 0)
			return -1;
		*q = v.q[0];
		PyMem_Free(v.q);
		return 0;
	}
	if (!PyUnicode_Check(o)) {
		PyErr_Format(PyExc_TypeError, "sht: an attribute is a path (str) or "
			     "a quark (int), not %.80s", Py_TYPE(o)->tp_name);
		return -1;
	}
	s = PyUnicode_AsUTF8(o);
	if (!s)
		return -1;
	if (sht_state_quark_path(ss, s, false, q) != SHT_OK) {
		sht_error_set(SHT_ERR_NOATTR, "Cannot find the attribute %s", s);
		shtpy_raise(SHT_ERR_NOATTR);
		return -1;
	}
	return 0;
}
