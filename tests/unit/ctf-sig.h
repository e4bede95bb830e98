/*
 * ctf-sig.h: what the CTF tests compare of an event (test-ctf-par,
 * test-ctf-seek): its time, ordinal, cpu and a hash of its name, stream
 * file and every field (sht_ctf_event_fields), and a whole trace read into
 * an array of them with its counts, environment and time span; copies of
 * a trace made of links.
 */
#ifndef SHT_TEST_CTF_SIG_H
#define SHT_TEST_CTF_SIG_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sht/sht.h"

struct evsig {
	int64_t ts;
	uint64_t pos;
	int32_t cpu;
	int32_t pad;              /* 0: the struct compares with memcmp */
	uint64_t hash;            /* name, stream file and every field */
};

struct run {
	struct evsig *ev;
	size_t n, cap;
	sht_err end;              /* SHT_END or the error */
	char msg[256];
	sht_source_stats st;
	uint64_t env_hash;
	sht_err span_err;
	sht_time span_b, span_e;
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return h;
}

static uint64_t mix_field(uint64_t h, const char *name, const sht_field *v)
{
	h = mix(h, name, strlen(name) + 1);
	h = mix(h, &v->type, sizeof v->type);
	if (v->type == SHT_FIELD_STRING)
		return mix(h, v->v.s, strlen(v->v.s) + 1);
	return mix(h, &v->v.u, sizeof v->v.u);
}

static sht_err field_fn(void *ctx, const char *name, const sht_field *v)
{
	uint64_t *h = ctx;

	*h = mix_field(*h, name, v);
	return SHT_OK;
}

/* The signature of ev, just delivered by src: 1, or 0 (its fields could
 * not be listed). */
static int ev_sig(const sht_source *src, const sht_event *ev, struct evsig *e)
{
	char where[512];
	size_t wn = sht_ctf_where(src, where, sizeof where);

	e->ts = ev->ts;
	e->pos = ev->pos;
	e->cpu = ev->cpu;
	e->pad = 0;
	e->hash = mix(1469598103934665603ull, ev->name ? ev->name : "",
		      ev->name ? strlen(ev->name) + 1 : 0);
	e->hash = mix(e->hash, where, wn);
	return sht_ctf_event_fields(ev, field_fn, &e->hash) == SHT_OK;
}

static uint64_t env_hash(const sht_source *src)
{
	uint64_t h = 1469598103934665603ull;
	const char *name;
	sht_field v;

	for (uint64_t i = 0; sht_ctf_env_entry(src, i, &name, &v) == SHT_OK; i++)
		h = mix_field(h, name, &v);
	return h;
}

static int push(struct run *r, const struct evsig *e)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4096;
		struct evsig *n = realloc(r->ev, cap * sizeof *n);
		if (!n)
			return 0;
		r->ev = n;
		r->cap = cap;
	}
	r->ev[r->n++] = *e;
	return 1;
}

/* Read path with (muxer, jobs) into r: 1, or 0 if it would not open. */
static int read_trace(const char *path, int muxer, uint32_t jobs, struct run *r)
{
	sht_ctf_opts o;
	sht_source src;
	sht_event ev;
	sht_err err;

	memset(r, 0, sizeof *r);
	sht_ctf_opts_init(&o);
	o.merge = 1;
	o.muxer = muxer;
	o.jobs = jobs;
	if ((err = sht_ctf_open(path, &o, &src)) != SHT_OK) {
		r->end = err;
		snprintf(r->msg, sizeof r->msg, "%s", sht_errmsg());
		return 0;
	}
	r->env_hash = env_hash(&src);
	r->span_err = sht_ctf_time_span(&src, &r->span_b, &r->span_e);
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		struct evsig e;

		if (!ev_sig(&src, &ev, &e) || !push(r, &e)) {
			err = SHT_ERR_NOMEM;
			break;
		}
	}
	r->end = err;
	if (err < 0)
		snprintf(r->msg, sizeof r->msg, "%s", sht_errmsg());
	src.ops->stats(src.src, &r->st);
	sht_ctf_close(&src);
	return 1;
}

/* Copy file from to to: 1, or 0. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	int okay = in && out;

	while (okay && (n = fread(buf, 1, sizeof buf, in)) > 0)
		okay = fwrite(buf, 1, n, out) == n;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		okay = 0;
	return okay;
}

/* Directory dst made of links to the files of trace directory src but
 * metadata, copied (the source finds traces by their metadata file and
 * follows no link), and without its index directory unless with_index:
 * 1, or 0. */
static int link_trace(const char *src, const char *dst, int with_index)
{
	char from[8192], to[8192];
	struct dirent **names;
	int n, okay = 1;

	if (mkdir(dst, 0755) != 0 || (n = scandir(src, &names, NULL, alphasort)) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		struct stat sb;

		snprintf(from, sizeof from, "%s/%s", src, e);
		snprintf(to, sizeof to, "%s/%s", dst, e);
		if (e[0] == '.' || stat(from, &sb) != 0)
			;
		else if (S_ISDIR(sb.st_mode) && (with_index || strcmp(e, "index")))
			okay &= link_trace(from, to, 1);
		else if (strcmp(e, "metadata") == 0)
			okay &= copy_file(from, to);
		else
			okay &= symlink(from, to) == 0;
		free(names[i]);
	}
	free(names);
	return okay;
}

#endif /* SHT_TEST_CTF_SIG_H */
