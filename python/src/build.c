/*
 * build.c: sht._core.build, a trace through an analysis into a history
 * file, as `sht build` does:
 *
 *   build(trace, analysis="kernel", output=None, progress=None,
 *         force=False, merge=False, threaded=True, progress_every=65536,
 *         jobs=-1)
 *
 * trace: a CTF directory or a VSTF file.  analysis: "kernel", "stats",
 * a rules file (*.xml, *.rules), or a Python provider object (see
 * provider.c).  output: the history file (default: the trace's name +
 * ".sht" in the current directory).  An existing complete history of the
 * same analysis (id and version), starting at the trace's first event and
 * newer than every file of the trace, is reused unless force is set.
 * The file is written under a temporary name and renamed once complete;
 * a failed build leaves nothing.  progress(p) is called every
 * progress_every events and at the end with an sht.Progress (events,
 * time, fraction or None, seconds); an exception it raises stops the
 * build and is raised again, and so is Ctrl-C.  jobs: the threads that
 * decode a CTF trace's streams (-1: one per online CPU, as `sht build`;
 * 0: on the calling thread); the history is the same for any value.
 *
 * The GIL is released while a C analysis runs (and taken back for
 * progress); a Python provider runs with it.  Returns a dict summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"

static PyTypeObject *progress_type;

static PyStructSequence_Field progress_fields[] = {
	{ "events", "events read so far" },
	{ "time", "timestamp of the last one (ns)" },
	{ "fraction", "0 .. 1, or None when the trace does not tell its size" },
	{ "seconds", "since the build started" },
	{ NULL, NULL }
};

static PyStructSequence_Desc progress_desc = {
	"sht.Progress", "How far a build is.", progress_fields, 4
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- progress: a source around the trace's ----------------------------------- */

struct progress {
	const sht_source *inner;
	const struct shtpy_trace *trace;
	PyObject *cb;
	uint64_t every, n;
	sht_time ts;
	int have_gil;            /* the run holds the GIL (Python provider) */
	int final;               /* the last call: the trace is read */
	double t0;
	PyObject *exc_type, *exc_value, *exc_tb;   /* what stopped it */
};

static PyObject *progress_obj(struct progress *pg)
{
	PyObject *o = PyStructSequence_New(progress_type);
	double f = pg->final ? 1.0 : shtpy_trace_fraction(pg->trace, pg->n, pg->ts);

	if (!o)
		return NULL;
	PyStructSequence_SET_ITEM(o, 0, PyLong_FromUnsignedLongLong(pg->n));
	PyStructSequence_SET_ITEM(o, 1, PyLong_FromLongLong(pg->ts));
	if (f < 0) {
		Py_INCREF(Py_None);
		PyStructSequence_SET_ITEM(o, 2, Py_None);
	} else {
		PyStructSequence_SET_ITEM(o, 2, PyFloat_FromDouble(f > 1 ? 1 : f));
	}
	PyStructSequence_SET_ITEM(o, 3, PyFloat_FromDouble(now_s() - pg->t0));
	for (int i = 0; i < 4; i++)
		if (!PyStructSequence_GET_ITEM(o, i)) {
			Py_DECREF(o);
			return NULL;
		}
	return o;
}

/* Call the callback and look for Ctrl-C, with the GIL. */
static sht_err report(struct progress *pg)
{
	PyGILState_STATE g = PyGILState_UNLOCKED;
	sht_err err = SHT_OK;
	PyObject *o, *r = NULL;

	if (!pg->have_gil)
		g = PyGILState_Ensure();
	if (PyErr_CheckSignals() == 0 && pg->cb) {
		o = progress_obj(pg);
		r = o ? PyObject_CallOneArg(pg->cb, o) : NULL;
		Py_XDECREF(o);
		Py_XDECREF(r);
	}
	if (PyErr_Occurred()) {
		PyErr_Fetch(&pg->exc_type, &pg->exc_value, &pg->exc_tb);
		err = sht_error_set(SHT_ERR_INVALID, "Cannot build: stopped by %s",
				    ((PyTypeObject *)pg->exc_type)->tp_name);
	}
	if (!pg->have_gil)
		PyGILState_Release(g);
	return err;
}

static sht_err prog_next(void *src, sht_event *ev)
{
	struct progress *pg = src;
	sht_err err = pg->inner->ops->next(pg->inner->src, ev);

	if (err != SHT_OK)
		return err;
	pg->n++;
	pg->ts = ev->ts;
	return pg->n % pg->every == 0 ? report(pg) : SHT_OK;
}

static sht_err prog_seek(void *src, uint64_t pos)
{
	struct progress *pg = src;

	return pg->inner->ops->seek(pg->inner->src, pos);
}

/* A CTF trace seeks through its packet index when told the time. */
static sht_err prog_seek_at(void *src, uint64_t pos, sht_time ts)
{
	struct progress *pg = src;

	return sht_source_seek_at(pg->inner, pos, ts);
}

static void prog_stats(void *src, sht_source_stats *out)
{
	struct progress *pg = src;

	memset(out, 0, sizeof *out);
	if (pg->inner->ops->stats)
		pg->inner->ops->stats(pg->inner->src, out);
	else
		out->events = pg->n;
}

static const sht_source_ops prog_ops = { prog_next, prog_seek, prog_stats,
						 prog_seek_at, NULL };

/* ---- reuse ---------------------------------------------------------------------- */

/* 1 if file is a complete full history this build would make again. */
static int reusable(const char *file, const char *trace, const sht_provider *p,
		    sht_time first)
{
	struct stat st;
	struct timespec newest = { 0, 0 };
	sht_state *ss;
	sht_reader *r;
	const char *id;
	uint32_t version;
	void *data = NULL;
	size_t len;
	int ok;

	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    sht_state_open(file, NULL, &ss) != SHT_OK)
		return 0;
	ok = sht_state_provider(ss, &id, &version) == SHT_OK &&
	     strcmp(id, p->id) == 0 && version == p->version &&
	     sht_state_start(ss) == first;
	sht_state_close(ss);
	if (!ok || sht_reader_open(file, NULL, &r) != SHT_OK)
		return 0;
	ok = sht_reader_section(r, 3, NULL, &data, &len) == SHT_NOT_FOUND;
	free(data);
	sht_reader_close(r);
	if (!ok || shtpy_newest_mtime(trace, 0, &newest) != 0)
		return 0;
	return st.st_mtim.tv_sec > newest.tv_sec ||
	       (st.st_mtim.tv_sec == newest.tv_sec && st.st_mtim.tv_nsec >= newest.tv_nsec);
}

/* ---- building ---------------------------------------------------------------------- */

/* ---- build notes ------------------------------------------------------------- */

/*
 * The notes `sht build` stores (sht_state_opts.notes, shown by `sht
 * describe`), with the same keys and values, but for the tool, which says
 * the history came from this package, and the options, in Python's words.
 */
#define NOTES_MAX 10

struct notes {
	sht_build_note note[NOTES_MAX];
	size_t count;
	char tool[96], tracer[160], host[128], options[32];
	char *trace_abs;
};

static void note_add(struct notes *n, const char *key, const char *value)
{
	if (n->count < NOTES_MAX && value && *value) {
		n->note[n->count].key = key;
		n->note[n->count++].value = value;
	}
}

static const char *layout_name(sht_kernel_layout l)
{
	switch (l) {
	case SHT_KERNEL_LAYOUT_LTTNG_2_0: return "lttng-2.0";
	case SHT_KERNEL_LAYOUT_LTTNG_2_6: return "lttng-2.6";
	case SHT_KERNEL_LAYOUT_LTTNG_2_7: return "lttng-2.7";
	default: return "auto";
	}
}

static void notes_build(struct notes *n, const char *trace,
			const struct shtpy_trace *t, const struct shtpy_analysis *an,
			int merge)
{
	char name[64], major[16], minor[16], patch[16];

	free(n->trace_abs);
	memset(n, 0, sizeof *n);
	snprintf(n->tool, sizeof n->tool, "sht Python package %s (libsht %s)",
		 SHT_VERSION_STRING, sht_version_string());
	n->trace_abs = realpath(trace, NULL);
	shtpy_trace_env(t, "tracer_name", name, sizeof name);
	shtpy_trace_env(t, "tracer_major", major, sizeof major);
	shtpy_trace_env(t, "tracer_minor", minor, sizeof minor);
	shtpy_trace_env(t, "tracer_patchlevel", patch, sizeof patch);
	if (name[0])
		snprintf(n->tracer, sizeof n->tracer, "%s%s%s%s%s%s%s", name,
			 major[0] ? " " : "", major, minor[0] ? "." : "", minor,
			 patch[0] ? "." : "", patch);
	shtpy_trace_env(t, "hostname", n->host, sizeof n->host);
	snprintf(n->options, sizeof n->options, "%s", merge ? "merge=True" : "");
	note_add(n, "tool", n->tool);
	note_add(n, "trace", n->trace_abs ? n->trace_abs : trace);
	note_add(n, "trace format", t->vstf ? "VSTF" : "CTF");
	note_add(n, "tracer", n->tracer);
	note_add(n, "host", n->host);
	note_add(n, "analysis", an->rules_path ? an->rules_path : an->name);
	if (an->kernel)
		note_add(n, "kernel layout",
			 layout_name(sht_kernel_layout_in_use(an->kernel)));
	note_add(n, "options", n->options);
}

struct job {
	const char *trace, *file;
	struct notes notes;
	int merge;
	struct shtpy_trace t;
	struct shtpy_analysis an;
	struct progress pg;
	sht_time first, end;
	uint64_t events, skipped, attrs;
	sht_source_stats sst;
	int threaded, reused, force;
};

/* Run the analysis into tmp.  0, or -1 with an exception set. */
static int run(struct job *j, const char *tmp)
{
	sht_state_opts so;
	sht_source src = { &prog_ops, &j->pg };
	sht_state *ss;
	sht_err err;

	sht_state_opts_init(&so);
	so.provider = j->an.prov.id;
	so.provider_version = j->an.prov.version;
	so.tree.threaded = j->threaded;
	notes_build(&j->notes, j->trace, &j->t, &j->an, j->merge);
	so.notes = j->notes.note;
	so.n_notes = j->notes.count;
	err = sht_state_create(tmp, j->first, &so, &ss);
	if (err != SHT_OK) {
		shtpy_raise_ctx(err, "cannot create %s", tmp);
		return -1;
	}
	if (j->an.py && shtpy_provider_bind(j->an.py, ss, shtpy_trace_fields(&j->t)) < 0) {
		sht_state_close(ss);
		return -1;
	}
	j->pg.have_gil = j->an.py != NULL;
	if (j->pg.have_gil) {
		err = sht_state_run(ss, &src, &j->an.prov, &j->events, &j->skipped);
	} else {
		Py_BEGIN_ALLOW_THREADS
		err = sht_state_run(ss, &src, &j->an.prov, &j->events, &j->skipped);
		Py_END_ALLOW_THREADS
	}
	if (j->an.py)
		shtpy_provider_unbind(j->an.py);
	if (err >= 0) {
		j->end = sht_state_end(ss);
		j->pg.have_gil = 1;
		j->pg.final = 1;
		err = report(&j->pg);          /* the last progress call */
		if (err >= 0) {
			Py_BEGIN_ALLOW_THREADS
			err = sht_state_finish(ss, j->end);
			Py_END_ALLOW_THREADS
		}
	}
	j->attrs = sht_state_attr_count(ss);
	sht_state_close(ss);
	if (err >= 0) {
		prog_stats(&j->pg, &j->sst);
		return 0;
	}
	if (j->pg.exc_type) {
		PyErr_Restore(j->pg.exc_type, j->pg.exc_value, j->pg.exc_tb);
		j->pg.exc_type = j->pg.exc_value = j->pg.exc_tb = NULL;
	} else if (!(j->an.py && shtpy_provider_reraise(j->an.py))) {
		shtpy_raise_ctx(err, "cannot build the history of %s (after %llu events)",
				j->trace, (unsigned long long)j->events);
	}
	return -1;
}

static int first_event(struct job *j)
{
	sht_event ev;
	sht_err err = j->t.src.ops->next(j->t.src.src, &ev);

	if (err == SHT_END) {
		sht_error_set(SHT_ERR_INVALID, "Cannot build %s: the trace has no events", j->trace);
		shtpy_raise(SHT_ERR_INVALID);
		return -1;
	}
	if (err >= 0)
		err = j->t.src.ops->seek(j->t.src.src, 0);
	if (err < 0) {
		shtpy_raise_ctx(err, "cannot read the first event of %s", j->trace);
		return -1;
	}
	j->first = ev.ts;
	return 0;
}

static PyObject *summary(struct job *j, double seconds)
{
	sht_tree_info info;
	sht_ctf_info ci;
	sht_reader *r;
	sht_err err = sht_reader_open(j->file, NULL, &r);

	if (err != SHT_OK)
		return shtpy_raise_ctx(err, "cannot read back %s", j->file);
	sht_reader_info_get(r, &info);
	sht_reader_close(r);
	if (j->reused) {
		sht_state *ss;

		j->first = info.start;
		j->end = info.end;
		if (sht_state_open(j->file, NULL, &ss) == SHT_OK) {
			j->attrs = sht_state_attr_count(ss);
			sht_state_close(ss);
		}
	}
	/* The threads that decoded the trace (0: the calling thread; a
	 * VSTF trace or a reused history: 0). */
	if (j->t.vstf || j->reused || sht_ctf_info_get(&j->t.src, &ci) != SHT_OK)
		ci.jobs = 0;
	return Py_BuildValue("{s:s,s:s,s:s,s:s,s:k,s:O,s:K,s:K,s:K,s:K,s:L,s:L,s:K,"
			     "s:K,s:K,s:d,s:K,s:k}",
			     "path", j->file, "trace", j->trace, "analysis", j->an.name,
			     "provider", j->an.prov.id, "provider_version",
			     (unsigned long)j->an.prov.version, "reused",
			     j->reused ? Py_True : Py_False, "events", j->events,
			     "events_skipped", j->skipped, "discarded_events",
			     j->sst.discarded_events, "discarded_packets",
			     j->sst.discarded_packets, "start", (long long)j->first,
			     "end", (long long)j->end, "intervals",
			     (unsigned long long)info.intervals, "attributes",
			     (unsigned long long)j->attrs,
			     "file_bytes", (unsigned long long)info.file_bytes,
			     "seconds", seconds, "python_calls",
			     (unsigned long long)(j->an.py ? shtpy_provider_calls(j->an.py) : 0),
			     "decoding_threads", (unsigned long)ci.jobs);
}

/* The history file: output, or the trace's last name + ".sht". */
static PyObject *default_output(const char *trace)
{
	char *abs = realpath(trace, NULL);
	const char *base = abs ? abs : trace, *slash = strrchr(base, '/');
	PyObject *out;

	if (slash && slash[1])
		base = slash + 1;
	if (!*base || strcmp(base, "/") == 0)
		base = "trace";
	out = PyBytes_FromFormat("%s.sht", base);
	free(abs);
	return out;
}

static PyObject *build_job(struct job *j, PyObject *spec)
{
	double t0 = now_s();
	char tmp[4200];
	PyObject *out = NULL;

	j->pg.inner = &j->t.src;
	j->pg.trace = &j->t;
	j->pg.t0 = t0;
	if (first_event(j) < 0 || shtpy_analysis_create(&j->an, spec, &j->t, "sht.build") < 0)
		return NULL;
	if (!j->force && reusable(j->file, j->trace, &j->an.prov, j->first)) {
		j->reused = 1;
		return summary(j, now_s() - t0);
	}
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", j->file, (long)getpid());
	if (run(j, tmp) < 0) {
		remove(tmp);
		return NULL;
	}
	if (rename(tmp, j->file) != 0) {
		sht_error_set(SHT_ERR_IO, "Cannot rename %s to %s: %s", tmp, j->file,
			      strerror(errno));
		remove(tmp);
		return shtpy_raise(SHT_ERR_IO);
	}
	out = summary(j, now_s() - t0);
	return out;
}

PyObject *shtpy_build(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "trace", "analysis", "output", "progress", "force",
				  "merge", "threaded", "progress_every", "jobs", NULL };
	PyObject *trace, *spec = NULL, *output = Py_None, *cb = Py_None, *file = NULL;
	PyObject *out = NULL;
	int force = 0, merge = 0, threaded = 1;
	unsigned long long every = 65536;
	long long jobs = -1;
	struct job j;

	(void)self;
	memset(&j, 0, sizeof j);
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OOOpppKL", kwlist, PyUnicode_FSConverter,
					 &trace, &spec, &output, &cb, &force, &merge,
					 &threaded, &every, &jobs))
		return NULL;
	if (jobs < -1 || jobs > 256) {
		PyErr_SetString(PyExc_ValueError,
				"sht.build: jobs is -1 (one per CPU), 0 (the calling thread) or 1..256");
		goto done;
	}
	if (jobs < 0)
		jobs = shtpy_default_jobs();
	if (cb != Py_None && !PyCallable_Check(cb)) {
		PyErr_SetString(PyExc_TypeError, "sht.build: progress is a callable or None");
		goto done;
	}
	if (output == Py_None)
		file = default_output(PyBytes_AS_STRING(trace));
	else if (!PyUnicode_FSConverter(output, &file))
		file = NULL;
	if (!file)
		goto done;
	j.trace = PyBytes_AS_STRING(trace);
	j.file = PyBytes_AS_STRING(file);
	j.threaded = threaded && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	j.force = force;
	j.merge = merge;
	j.pg.cb = cb == Py_None ? NULL : cb;
	j.pg.every = every ? every : 65536;
	if (shtpy_trace_open(j.trace, merge, (uint32_t)jobs, &j.t) < 0)
		goto done;
	{
		PyObject *a = spec ? spec : PyUnicode_FromString("kernel");

		if (a)
			out = build_job(&j, a);
		if (!spec)
			Py_XDECREF(a);
	}
done:
	free(j.notes.trace_abs);
	shtpy_analysis_destroy(&j.an);
	shtpy_trace_close(&j.t);
	Py_XDECREF(j.pg.exc_type);
	Py_XDECREF(j.pg.exc_value);
	Py_XDECREF(j.pg.exc_tb);
	Py_XDECREF(file);
	Py_DECREF(trace);
	return out;
}

int shtpy_build_init(PyObject *module)
{
	progress_type = PyStructSequence_NewType(&progress_desc);
	if (!progress_type)
		return -1;
	Py_INCREF(progress_type);
	return PyModule_AddObject(module, "Progress", (PyObject *)progress_type);
}
