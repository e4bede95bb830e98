/*
 * knet-out.c: the outputs of the packet-exchanging hosts (knet.h): a
 * source per host, and one CTF directory or VSTF file per host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gen/gen-int.h"
#include "gen/knet-int.h"

/* ---- the source ------------------------------------------------------------ */

struct knet_src {
	struct knet_host s;
	shtgen_knet_params p;
	uint32_t h;
	const shtgen_kgen_class *classes;
	sht_field pv[6];
};

static sht_field_type ks_field(const sht_event *ev, const char *name,
			       sht_field *out)
{
	const struct knet_src *k = ev->data;
	const shtgen_kgen_class *c;

	out->type = SHT_FIELD_NONE;
	if (k->s.cur_packet) {
		for (int i = 0; i < 6; i++)
			if (strcmp(shtgen_knet_packet_fields[i], name) == 0)
				return (*out = k->pv[i]).type;
		return SHT_FIELD_NONE;
	}
	c = &k->classes[k->s.kev.cls];
	for (uint32_t i = 0; i < c->nfields; i++)
		if (strcmp(c->fields[i].name, name) == 0)
			return (*out = k->s.kev.values[i]).type;
	return SHT_FIELD_NONE;
}

static sht_err ks_next(void *p, sht_event *ev)
{
	struct knet_src *k = p;
	sht_err err = shtgen_knet_host_next(&k->s);

	if (err != SHT_OK)
		return err;
	ev->pos = k->s.index - 1;
	ev->data = k;
	ev->field = ks_field;
	if (k->s.cur_packet) {
		ev->ts = k->s.pev.ts;
		ev->cpu = (int32_t)k->s.pev.cpu;
		ev->name = k->s.pev.out ? "inet_sock_local_out"
					: "inet_sock_local_in";
		shtgen_knet_packet_values(&k->s.pev, k->pv);
	} else {
		ev->ts = k->s.kev.ts;
		ev->cpu = (int32_t)k->s.kev.cpu;
		ev->name = k->classes[k->s.kev.cls].name;
	}
	return SHT_OK;
}

static sht_err ks_seek(void *p, uint64_t pos)
{
	struct knet_src *k = p;
	struct knet_host fresh;
	sht_err err = shtgen_knet_host_init(&fresh, &k->p, k->h);

	if (err < 0)
		return err;
	shtgen_knet_host_free(&k->s);
	k->s = fresh;
	for (uint64_t i = 0; i < pos && err == SHT_OK; i++)
		err = shtgen_knet_host_next(&k->s);
	if (err == SHT_END)
		return SHT_ERR_RANGE;
	return err < 0 ? err : SHT_OK;
}

static void ks_stats(void *p, sht_source_stats *out)
{
	const struct knet_src *k = p;

	memset(out, 0, sizeof(*out));
	out->events = k->s.index;
}

static const sht_source_ops knet_src_ops = { ks_next, ks_seek, ks_stats, NULL, NULL };

sht_err shtgen_knet_source(const shtgen_knet_params *p, uint32_t h,
			 sht_source *out)
{
	struct knet_src *k = calloc(1, sizeof(*k));
	uint32_t n;
	sht_err err;

	if (!k)
		return sht_error_set(SHT_ERR_NOMEM, "Cannot generate host %u: out "
				  "of memory", h);
	err = shtgen_knet_host_init(&k->s, p, h);
	if (err < 0) {
		free(k);
		return err;
	}
	k->p = *p;
	k->h = h;
	k->classes = shtgen_kgen_classes(&n);
	out->ops = &knet_src_ops;
	out->src = k;
	return SHT_OK;
}

void shtgen_knet_source_free(sht_source *src)
{
	struct knet_src *k;

	if (!src || src->ops != &knet_src_ops)
		return;
	k = src->src;
	shtgen_knet_host_free(&k->s);
	free(k);
	src->ops = NULL;
	src->src = NULL;
}

/* ---- writing ------------------------------------------------------------------ */

static const shtgen_ctfw_field packet_class[6] = {
	{ "sk", SHTGEN_CTFW_U64 }, { "seq", SHTGEN_CTFW_U32 },
	{ "ack_seq", SHTGEN_CTFW_U32 }, { "check", SHTGEN_CTFW_U32 },
	{ "window", SHTGEN_CTFW_U32 }, { "flags", SHTGEN_CTFW_U32 },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Host h's clock UUID: a version-4 UUID drawn from the seed and h. */
static void host_uuid(const shtgen_knet_params *p, uint32_t h, uint8_t u[16])
{
	uint64_t x = p->k.seed * 0x9E3779B97F4A7C15ull + h + 1;

	for (int i = 0; i < 16; i++) {
		x += 0x9E3779B97F4A7C15ull;
		u[i] = (uint8_t)(((x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull) >> 56);
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}

/* Host h's environment entry i as the generator's, with its own
 * hostname: SHT_OK, or SHT_NOT_FOUND past the last. */
static sht_err host_env(uint32_t h, uint32_t i, const char **name,
			sht_field *f, char *buf, size_t size)
{
	uint32_t n;
	const shtgen_kgen_env *env = shtgen_kgen_environment(&n);

	if (i >= n)
		return SHT_NOT_FOUND;
	*name = env[i].name;
	if (strcmp(env[i].name, "hostname") == 0) {
		snprintf(buf, size, "sht-synthetic-%u", h);
		f->type = SHT_FIELD_STRING;
		f->v.s = buf;
	} else if (env[i].str) {
		f->type = SHT_FIELD_STRING;
		f->v.s = env[i].str;
	} else {
		f->type = SHT_FIELD_INT;
		f->v.i = env[i].num;
	}
	return SHT_OK;
}

/* Event classes of an output: the generator's, then the two packet
 * classes. */
enum { KNET_CLASSES_MAX = 128 };

static sht_err bad_dir(const char *dir, const char *why)
{
	return sht_error_set(SHT_ERR_INVALID, "Cannot create %.64s...: %s", dir,
			  why);
}

/* One output: declare, write an event, finish. */
struct knet_sink {
	void *w;
	int vstf;
	uint32_t ids[KNET_CLASSES_MAX];
	uint64_t bytes;
};

static sht_err ctf_open(struct knet_sink *k, const shtgen_knet_params *p,
			uint32_t h, const char *path)
{
	shtgen_ctfw_opts o;
	uint8_t uuid[16];
	uint32_t n, i;
	const shtgen_kgen_class *c = shtgen_kgen_classes(&n);
	const char *name;
	sht_field f;
	char buf[64];
	sht_err err;

	if (n + 2 > KNET_CLASSES_MAX)
		return bad_dir(path, "too many event classes");
	memset(&o, 0, sizeof(o));
	host_uuid(p, h, uuid);
	o.cpus = p->k.cpus;
	o.clock_offset = shtgen_knet_clock(p, h, p->k.start);
	o.clock_uuid = uuid;
	err = shtgen_ctfw_create(path, &o, (shtgen_ctfw **)&k->w);
	for (i = 0; err == SHT_OK && host_env(h, i, &name, &f, buf,
					       sizeof buf) == SHT_OK; i++)
		err = f.type == SHT_FIELD_STRING
			      ? shtgen_ctfw_env_str(k->w, name, f.v.s)
			      : shtgen_ctfw_env_int(k->w, name, f.v.i);
	for (i = 0; err == SHT_OK && i < n; i++)
		err = shtgen_ctfw_event_class(k->w, c[i].name, c[i].fields,
					    c[i].nfields, &k->ids[i]);
	if (err == SHT_OK)
		err = shtgen_ctfw_event_class(k->w, "inet_sock_local_out",
					    packet_class, 6, &k->ids[n]);
	if (err == SHT_OK)
		err = shtgen_ctfw_event_class(k->w, "inet_sock_local_in",
					    packet_class, 6, &k->ids[n + 1]);
	return err;
}

static sht_err vstf_open(struct knet_sink *k, uint32_t h, const char *path)
{
	const char *name;
	sht_field f;
	char buf[64];
	sht_err err = sht_vstf_writer_create(path, 0,
					     (sht_vstf_writer **)&k->w);

	for (uint32_t i = 0; err == SHT_OK && host_env(h, i, &name, &f, buf,
						       sizeof buf) == SHT_OK;
	     i++)
		err = sht_vstf_writer_env(k->w, name, &f);
	return err;
}

/* The current event of s into the sink. */
static sht_err sink_event(struct knet_sink *k, const struct knet_host *s)
{
	uint32_t n, i, id, nf;
	const shtgen_kgen_class *c = shtgen_kgen_classes(&n);
	const char *const *names;
	const char *evname;
	sht_field pv[6];
	const sht_field *v;
	sht_time ts;
	uint32_t cpu;
	sht_err err;

	if (s->cur_packet) {
		shtgen_knet_packet_values(&s->pev, pv);
		v = pv;
		nf = 6;
		id = n + (s->pev.out ? 0 : 1);
		evname = s->pev.out ? "inet_sock_local_out"
				    : "inet_sock_local_in";
		names = shtgen_knet_packet_fields;
		ts = s->pev.ts;
		cpu = s->pev.cpu;
	} else {
		v = s->kev.values;
		nf = c[s->kev.cls].nfields;
		id = s->kev.cls;
		evname = c[s->kev.cls].name;
		names = NULL;
		ts = s->kev.ts;
		cpu = s->kev.cpu;
	}
	if (!k->vstf)
		return shtgen_ctfw_event(k->w, k->ids[id], ts, cpu, v);
	err = sht_vstf_writer_begin(k->w, ts, (int32_t)cpu, evname);
	for (i = 0; i < nf && err == SHT_OK; i++)
		err = sht_vstf_writer_field(k->w, names ? names[i]
						: c[s->kev.cls].fields[i].name,
					    &v[i]);
	return err == SHT_OK ? sht_vstf_writer_end(k->w) : err;
}

static sht_err sink_finish(struct knet_sink *k)
{
	shtgen_ctfw_stats cs;
	sht_vstf_write_stats vs;
	sht_err err;

	if (k->vstf) {
		err = sht_vstf_writer_finish(k->w, &vs);
		k->bytes = vs.bytes;
	} else {
		err = shtgen_ctfw_finish(k->w, &cs);
		k->bytes = cs.bytes;
	}
	return err;
}

static void sink_destroy(struct knet_sink *k)
{
	if (k->vstf)
		sht_vstf_writer_close(k->w);
	else
		shtgen_ctfw_destroy(k->w);
	k->w = NULL;
}

/* Write host h's trace to path. */
static sht_err write_host(const shtgen_knet_params *p, uint32_t h,
			  const char *path, int vstf,
			  shtgen_kgen_progress_fn progress, void *pctx,
			  shtgen_knet_write_stats *st)
{
	struct knet_sink k;
	struct knet_host s;
	sht_err err;

	memset(&k, 0, sizeof(k));
	k.vstf = vstf;
	err = shtgen_knet_host_init(&s, p, h);
	if (err < 0)
		return err;
	err = vstf ? vstf_open(&k, h, path) : ctf_open(&k, p, h, path);
	while (err == SHT_OK && (err = shtgen_knet_host_next(&s)) == SHT_OK) {
		err = sink_event(&k, &s);
		if (progress && (st->events + s.index) % 65536 == 0)
			progress(pctx, st->events + s.index);
	}
	if (err == SHT_END)
		err = sink_finish(&k);
	if (err == SHT_OK) {
		st->events += s.index;
		st->packet_events += s.packets;
		st->bytes += k.bytes;
	}
	sink_destroy(&k);
	shtgen_knet_host_free(&s);
	return err;
}

sht_err shtgen_knet_write(const shtgen_knet_params *p, const char *dir, int vstf,
			shtgen_kgen_progress_fn progress, void *pctx,
			shtgen_knet_write_stats *stats)
{
	shtgen_knet_write_stats st;
	char path[4200];
	double t0 = now_s();
	sht_err err = shtgen_knet_params_check(p);

	memset(&st, 0, sizeof(st));
	if (err < 0)
		return err;
	if (strlen(dir) > 4000)
		return bad_dir(dir, "name too long");
	if (mkdir(dir, 0777) != 0)
		return sht_error_set(errno == EEXIST ? SHT_ERR_INVALID : SHT_ERR_IO,
				  "Cannot create %s: %s", dir, strerror(errno));
	for (uint32_t h = 0; h < p->hosts && err == SHT_OK; h++) {
		snprintf(path, sizeof path, "%s/host%u%s", dir, h,
			 vstf ? ".vstf" : "");
		err = write_host(p, h, path, vstf, progress, pctx, &st);
	}
	if (err < 0) {
		shtgen_rm_tree(dir);
		return err;
	}
	st.seconds = now_s() - t0;
	if (stats)
		*stats = st;
	return SHT_OK;
}
