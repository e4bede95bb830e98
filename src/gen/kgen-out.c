/*
 * kgen-out.c: the synthetic kernel trace generator's outputs (kgen.h): a
 * source with named fields, a CTF trace directory (shtgen/ctfw.h), and a
 * VSTF file (sht/vstf.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen/gen-int.h"
#include "gen/kgen-int.h"

enum { KGEN_SIZE_SAMPLE = 200000 };  /* events written to size a trace */

/* ---- the source ------------------------------------------------------------ */

struct kgen_src {
	shtgen_kgen_params p;
	shtgen_kgen *g;
	shtgen_kgen_event cur;
	const shtgen_kgen_class *classes;
};

static sht_field_type src_field(const sht_event *ev, const char *name,
				sht_field *out)
{
	const struct kgen_src *s = ev->data;
	const shtgen_kgen_class *k = &s->classes[s->cur.cls];
	uint32_t i;

	for (i = 0; i < k->nfields; i++) {
		if (strcmp(k->fields[i].name, name) == 0) {
			*out = s->cur.values[i];
			return out->type;
		}
	}
	out->type = SHT_FIELD_NONE;
	return SHT_FIELD_NONE;
}

static sht_err src_next(void *p, sht_event *ev)
{
	struct kgen_src *s = p;
	sht_err err = shtgen_kgen_next(s->g, &s->cur);

	if (err != SHT_OK)
		return err;
	ev->ts = s->cur.ts;
	ev->pos = s->cur.index;
	ev->name = s->classes[s->cur.cls].name;
	ev->cpu = (int32_t)s->cur.cpu;
	ev->data = s;
	ev->field = src_field;
	return SHT_OK;
}

/* Restart and skip pos events: the generator has no other way back. */
static sht_err src_seek(void *p, uint64_t pos)
{
	struct kgen_src *s = p;
	shtgen_kgen *g;
	sht_err err = shtgen_kgen_create(&s->p, &g);
	uint64_t i;

	if (err < 0)
		return err;
	shtgen_kgen_destroy(s->g);
	s->g = g;
	for (i = 0; i < pos && err == SHT_OK; i++)
		err = shtgen_kgen_next(g, &s->cur);
	if (err == SHT_END)
		return SHT_ERR_RANGE;
	return err < 0 ? err : SHT_OK;
}

static void src_stats(void *p, sht_source_stats *out)
{
	const struct kgen_src *s = p;

	memset(out, 0, sizeof(*out));
	out->events = s->cur.index + (s->g->emitted > 0);
}

static const sht_source_ops kgen_src_ops = {
	src_next, src_seek, src_stats, NULL, NULL
};

sht_err shtgen_kgen_source(const shtgen_kgen_params *p, sht_source *out)
{
	struct kgen_src *s = calloc(1, sizeof(*s));
	uint32_t n;
	sht_err err;

	if (!s)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot generate a kernel "
				  "trace: out of memory");
	err = shtgen_kgen_create(p, &s->g);
	if (err < 0) {
		free(s);
		return err;
	}
	s->p = *p;
	s->classes = shtgen_kgen_classes(&n);
	out->ops = &kgen_src_ops;
	out->src = s;
	return SHT_OK;
}

void shtgen_kgen_source_free(sht_source *src)
{
	struct kgen_src *s;

	if (!src || !src->src)
		return;
	s = src->src;
	shtgen_kgen_destroy(s->g);
	free(s);
	src->src = NULL;
	src->ops = NULL;
}

/* The environment entry of the given index, as a field. */
static sht_err env_field(uint64_t index, const char **name, sht_field *out)
{
	uint32_t n;
	const shtgen_kgen_env *env = shtgen_kgen_environment(&n);

	if (index >= n) {
		out->type = SHT_FIELD_NONE;
		return SHT_NOT_FOUND;
	}
	*name = env[index].name;
	if (env[index].str) {
		out->type = SHT_FIELD_STRING;
		out->v.s = env[index].str;
	} else {
		out->type = SHT_FIELD_INT;
		out->v.i = env[index].num;
	}
	return SHT_OK;
}

/* ---- writing traces -------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One output format: declare the env and classes, write an event, finish. */
struct kgen_sink {
	sht_err (*begin)(void *w, uint32_t *ids);
	sht_err (*event)(void *w, const uint32_t *ids,
			 const shtgen_kgen_event *ev);
	sht_err (*finish)(void *w, uint64_t *bytes);
	void *w;
};

/* Run the generator into a sink. */
static sht_err kgen_pump(const shtgen_kgen_params *p, struct kgen_sink *k,
			 shtgen_kgen_progress_fn progress, void *pctx,
			 shtgen_kgen_write_stats *stats)
{
	uint32_t ids[KGEN_CLASS_COUNT];
	shtgen_kgen *g;
	shtgen_kgen_event ev;
	double t0 = now_s();
	sht_err err = shtgen_kgen_create(p, &g);

	if (err < 0)
		return err;
	err = k->begin(k->w, ids);
	while (err == SHT_OK && (err = shtgen_kgen_next(g, &ev)) == SHT_OK) {
		err = k->event(k->w, ids, &ev);
		if (progress && (ev.index & 0xffffu) == 0xffffu)
			progress(pctx, ev.index + 1);
	}
	if (err == SHT_END)
		err = k->finish(k->w, stats ? &stats->bytes : NULL);
	if (err == SHT_OK && stats) {
		shtgen_kgen_stats_get(g, &stats->gen);
		stats->seconds = now_s() - t0;
	}
	shtgen_kgen_destroy(g);
	return err;
}

/* CTF */

static sht_err ctf_begin(void *w, uint32_t *ids)
{
	uint32_t n, i;
	const shtgen_kgen_env *env = shtgen_kgen_environment(&n);
	const shtgen_kgen_class *k;
	sht_err err = SHT_OK;

	for (i = 0; i < n && err == SHT_OK; i++)
		err = env[i].str ? shtgen_ctfw_env_str(w, env[i].name,
						     env[i].str)
				 : shtgen_ctfw_env_int(w, env[i].name,
						     env[i].num);
	k = shtgen_kgen_classes(&n);
	for (i = 0; i < n && err == SHT_OK; i++)
		err = shtgen_ctfw_event_class(w, k[i].name, k[i].fields,
					    k[i].nfields, &ids[i]);
	return err;
}

static sht_err ctf_event(void *w, const uint32_t *ids,
			 const shtgen_kgen_event *ev)
{
	return shtgen_ctfw_event(w, ids[ev->cls], ev->ts, ev->cpu, ev->values);
}

static sht_err ctf_finish(void *w, uint64_t *bytes)
{
	shtgen_ctfw_stats st;
	sht_err err = shtgen_ctfw_finish(w, &st);

	if (err == SHT_OK && bytes)
		*bytes = st.bytes;
	return err;
}

sht_err shtgen_kgen_write_ctf(const shtgen_kgen_params *p, const char *dir,
			    shtgen_kgen_progress_fn progress, void *pctx,
			    shtgen_kgen_write_stats *stats)
{
	shtgen_ctfw_opts o;
	shtgen_ctfw *w;
	struct kgen_sink k = { ctf_begin, ctf_event, ctf_finish, NULL };
	sht_err err = shtgen_kgen_params_check(p);

	if (err < 0)
		return err;
	memset(&o, 0, sizeof(o));
	o.cpus = p->cpus;
	o.clock_offset = p->start;
	err = shtgen_ctfw_create(dir, &o, &w);
	if (err < 0)
		return err;
	k.w = w;
	err = kgen_pump(p, &k, progress, pctx, stats);
	shtgen_ctfw_destroy(w);
	return err;
}

/* VSTF */

static sht_err vstf_begin(void *w, uint32_t *ids)
{
	uint32_t i;
	const char *name;
	sht_field f;
	sht_err err = SHT_OK;

	for (i = 0; err == SHT_OK && env_field(i, &name, &f) == SHT_OK; i++)
		err = sht_vstf_writer_env(w, name, &f);
	for (i = 0; i < KGEN_CLASS_COUNT; i++)
		ids[i] = i;
	return err;
}

static sht_err vstf_event(void *w, const uint32_t *ids,
			  const shtgen_kgen_event *ev)
{
	uint32_t n, i;
	const shtgen_kgen_class *k = &shtgen_kgen_classes(&n)[ids[ev->cls]];
	sht_err err = sht_vstf_writer_begin(w, ev->ts, (int32_t)ev->cpu,
					    k->name);

	for (i = 0; i < k->nfields && err == SHT_OK; i++)
		err = sht_vstf_writer_field(w, k->fields[i].name,
					    &ev->values[i]);
	return err == SHT_OK ? sht_vstf_writer_end(w) : err;
}

static sht_err vstf_finish(void *w, uint64_t *bytes)
{
	sht_vstf_write_stats st;
	sht_err err = sht_vstf_writer_finish(w, &st);

	if (err == SHT_OK && bytes)
		*bytes = st.bytes;
	return err;
}

sht_err shtgen_kgen_write_vstf(const shtgen_kgen_params *p, const char *path,
			     shtgen_kgen_progress_fn progress, void *pctx,
			     shtgen_kgen_write_stats *stats)
{
	sht_vstf_writer *w;
	struct kgen_sink k = { vstf_begin, vstf_event, vstf_finish, NULL };
	sht_err err = shtgen_kgen_params_check(p);

	if (err < 0)
		return err;
	err = sht_vstf_writer_create(path, 0, &w);
	if (err < 0)
		return err;
	k.w = w;
	err = kgen_pump(p, &k, progress, pctx, stats);
	sht_vstf_writer_close(w);
	return err;
}

/* ---- sizing ------------------------------------------------------------------ */

uint64_t shtgen_kgen_events_for_size(const shtgen_kgen_params *p, uint64_t bytes,
				   int vstf)
{
	shtgen_kgen_params s = *p;
	shtgen_kgen_write_stats st;
	const char *tmpdir = getenv("TMPDIR");
	char path[4096];
	double per_event;
	sht_err err;

	s.events = KGEN_SIZE_SAMPLE;
	snprintf(path, sizeof(path), "%s/sht-kgen-size-%ld%s",
		 tmpdir && *tmpdir ? tmpdir : "/tmp", (long)getpid(),
		 vstf ? ".vstf" : "");
	memset(&st, 0, sizeof(st));
	err = vstf ? shtgen_kgen_write_vstf(&s, path, NULL, NULL, &st)
		   : shtgen_kgen_write_ctf(&s, path, NULL, NULL, &st);
	shtgen_rm_tree(path);
	/* Without a sample (no space in TMPDIR, ...): LTTng's usual mean. */
	per_event = err == SHT_OK && st.bytes > 0
			    ? (double)st.bytes / (double)st.gen.events
			    : 32.0;
	return (uint64_t)((double)bytes / per_event) + 1;
}
