/*
 * rules-bench.c: cost of a rules-file provider against the built-in
 * kernel analysis, without the trace's decoding.
 *
 *   rules-bench TRACE RULES.xml [--repeat K]
 *
 * The CTF trace is first read into memory (every event with every field
 * its field() finds: payload and contexts), then replayed K times
 * (default 9) through each provider into a state system with the null
 * backend, interleaved (kernel, rules, kernel, rules, ...) so that a
 * change of load on a shared machine falls on both alike.  The replay
 * source finds a field by a linear scan of the event's fields, the same
 * for both providers.  One JSON line: the events, the medians of each
 * provider's wall and CPU seconds, ns per event, ratio (rules / kernel,
 * of the median CPU times) and ratio_paired (the median of each round's
 * own CPU-time ratio).  docs/RULES.md reports the numbers.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sht/sht.h"
#include "util/util.h"
#include "bench-json.h"
#include "bench-util.h"

#define MAX_REPS 101

struct mfield {
	const char *name;         /* interned */
	sht_field v;              /* strings copied */
};

struct mev {
	sht_time ts;
	int32_t cpu;
	const char *name;         /* interned */
	struct mfield *f;
	uint32_t nf;
};

struct mtrace {
	struct mev *ev;
	size_t n, cap;
	char **names;             /* interned texts */
	size_t nnames;
	char env[3][64];          /* tracer_name, tracer_major, tracer_minor */
};

static void *xalloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "rules-bench: out of memory\n");
		exit(1);
	}
	return p;
}

/* A linear intern table: few distinct names (event and field names). */
static const char *intern(struct mtrace *t, const char *s)
{
	for (size_t i = t->nnames; i-- > 0;) {
		if (strcmp(t->names[i], s) == 0)
			return t->names[i];
	}
	t->names = xalloc(t->names, (t->nnames + 1) * sizeof *t->names);
	t->names[t->nnames] = strdup(s);
	return t->names[t->nnames++];
}

static sht_err add_field(void *ctx, const char *name, const sht_field *value)
{
	struct mtrace *t = ctx;
	struct mev *e = &t->ev[t->n];
	struct mfield *f;

	e->f = xalloc(e->f, (e->nf + 1) * sizeof *e->f);
	f = &e->f[e->nf++];
	f->name = intern(t, name);
	f->v = *value;
	if (value->type == SHT_FIELD_STRING)
		f->v.v.s = strdup(value->v.s);
	return SHT_OK;
}

static void env_text(const sht_source *src, const char *name, char *buf, size_t size)
{
	sht_field f;

	buf[0] = '\0';
	if (sht_ctf_env(src, name, &f) == SHT_OK)
		sht_field_text(&f, buf, size);
}

static int load(const char *path, struct mtrace *t)
{
	sht_source src;
	sht_event ev;
	sht_err err;

	if (sht_ctf_open(path, NULL, &src) != SHT_OK) {
		fprintf(stderr, "rules-bench: %s\n", sht_errmsg());
		return -1;
	}
	env_text(&src, "tracer_name", t->env[0], sizeof t->env[0]);
	env_text(&src, "tracer_major", t->env[1], sizeof t->env[1]);
	env_text(&src, "tracer_minor", t->env[2], sizeof t->env[2]);
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 4096;
			t->ev = xalloc(t->ev, t->cap * sizeof *t->ev);
		}
		memset(&t->ev[t->n], 0, sizeof t->ev[t->n]);
		t->ev[t->n].ts = ev.ts;
		t->ev[t->n].cpu = ev.cpu;
		t->ev[t->n].name = intern(t, ev.name ? ev.name : "");
		if ((err = sht_ctf_event_fields(&ev, add_field, t)) != SHT_OK)
			break;
		t->n++;
	}
	sht_ctf_close(&src);
	if (err != SHT_END) {
		fprintf(stderr, "rules-bench: reading %s: %s\n", path, sht_errmsg());
		return -1;
	}
	return 0;
}

/* ---- the replay source -------------------------------------------------- */

struct replay {
	const struct mtrace *t;
	size_t pos;
};

static sht_field_type mfield(const sht_event *ev, const char *name, sht_field *out)
{
	const struct mev *e = ev->data;

	for (uint32_t i = 0; i < e->nf; i++) {
		if (strcmp(e->f[i].name, name) == 0) {
			*out = e->f[i].v;
			return out->type;
		}
	}
	out->type = SHT_FIELD_NONE;
	return SHT_FIELD_NONE;
}

static sht_err rnext(void *src, sht_event *ev)
{
	struct replay *r = src;
	const struct mev *e;

	if (r->pos >= r->t->n)
		return SHT_END;
	e = &r->t->ev[r->pos];
	ev->ts = e->ts;
	ev->pos = r->pos++;
	ev->name = e->name;
	ev->cpu = e->cpu;
	ev->data = e;
	ev->field = mfield;
	return SHT_OK;
}

static sht_err rseek(void *src, uint64_t pos)
{
	((struct replay *)src)->pos = (size_t)pos;
	return SHT_OK;
}

static const sht_source_ops ROPS = { rnext, rseek, NULL, NULL, NULL };

/* One run of p over t into a null-backend state system: wall seconds
 * (CPU seconds in *cpu), or -1. */
static double run(const struct mtrace *t, const sht_provider *p, double *cpu)
{
	struct replay r = { t, 0 };
	sht_source src = { &ROPS, &r };
	sht_state_opts so;
	sht_state *ss = NULL;
	uint64_t skipped = 0;
	double t0 = now_s(), c0 = cpu_s();
	sht_err err;

	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_NULL;
	err = sht_state_create(NULL, t->ev[0].ts, &so, &ss);
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, p, NULL, &skipped);
	if (err == SHT_OK)
		err = sht_state_finish(ss, sht_state_end(ss));
	sht_state_close(ss);
	*cpu = cpu_s() - c0;
	if (err != SHT_OK) {
		fprintf(stderr, "rules-bench: run %s: %s\n", p->id, sht_errmsg());
		return -1;
	}
	return now_s() - t0;
}

static const struct option options[] = {
	{ "repeat", required_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: rules-bench TRACE RULES.xml [--repeat K (1..%d)]\n",
		MAX_REPS);
	exit(status);
}

int main(int argc, char **argv)
{
	static struct mtrace t;
	double kw[MAX_REPS], kc[MAX_REPS], rw[MAX_REPS], rc[MAX_REPS], pr[MAX_REPS];
	sht_kernel *k = NULL;
	sht_rules *rules = NULL;
	sht_provider pk, pr_;
	long reps = 9;
	const char *trace, *rpath;
	json_t *o;
	int c;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'r':
			reps = (long)parse_count_in("--repeat", optarg, 1,
						    MAX_REPS);
			break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind + 2 != argc)
		usage(stderr, 2);
	trace = argv[optind];
	rpath = argv[optind + 1];
	if (load(trace, &t) != 0 || t.n == 0)
		return 1;
	if (sht_rules_load(rpath, NULL, &rules) != SHT_OK ||
	    sht_kernel_create(sht_kernel_layout_from_env(t.env[0], t.env[1], t.env[2]), &k) != SHT_OK) {
		fprintf(stderr, "rules-bench: %s\n", sht_errmsg());
		return 1;
	}
	sht_kernel_provider(k, &pk);
	sht_rules_provider(rules, &pr_);
	for (long i = 0; i < reps; i++) {
		kw[i] = run(&t, &pk, &kc[i]);
		rw[i] = run(&t, &pr_, &rc[i]);
		if (kw[i] < 0 || rw[i] < 0)
			return 1;
		pr[i] = rc[i] / kc[i];
	}
	double mk = median(kc, (size_t)reps), mr = median(rc, (size_t)reps);
	o = bj_object();
	bj_str(o, "trace", trace);
	bj_str(o, "rules", rpath);
	bj_int(o, "events", (int64_t)t.n);
	bj_int(o, "repeat", reps);
	bj_num(o, "kernel_seconds", median(kw, (size_t)reps));
	bj_num(o, "kernel_cpu_seconds", mk);
	bj_num(o, "kernel_ns_per_event", mk * 1e9 / (double)t.n);
	bj_num(o, "rules_seconds", median(rw, (size_t)reps));
	bj_num(o, "rules_cpu_seconds", mr);
	bj_num(o, "rules_ns_per_event", mr * 1e9 / (double)t.n);
	bj_num(o, "ratio", mr / mk);
	bj_num(o, "ratio_paired", median(pr, (size_t)reps));
	bj_print(o);
	sht_rules_destroy(rules);
	sht_kernel_destroy(k);
	return 0;
}
