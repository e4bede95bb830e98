/*
 * event-harness.h: for the unit tests that run a provider over synthetic
 * events: an in-memory event source (struct tev tables with named integer
 * and string fields, I() and S() to write them) behind TOPS, seekable.
 */
#ifndef SHT_EVENT_HARNESS_H
#define SHT_EVENT_HARNESS_H

#include <string.h>

#include "sht/sht.h"

struct tfield {
	const char *name;         /* NULL ends the table */
	sht_field_type type;
	int64_t i;
	const char *s;
};

struct tev {
	const char *name;
	sht_time ts;
	int32_t cpu;
	struct tfield f[10];
};

#define I(n, v) { n, SHT_FIELD_INT, v, NULL }
#define S(n, v) { n, SHT_FIELD_STRING, 0, v }

struct tsrc {
	const struct tev *ev;
	size_t n, pos;
};

static sht_field_type tfield(const sht_event *ev, const char *name, sht_field *out)
{
	const struct tev *te = ev->data;

	for (const struct tfield *f = te->f; f->name; f++) {
		if (strcmp(f->name, name) != 0)
			continue;
		out->type = f->type;
		if (f->type == SHT_FIELD_STRING)
			out->v.s = f->s;
		else
			out->v.i = f->i;
		return f->type;
	}
	out->type = SHT_FIELD_NONE;
	return SHT_FIELD_NONE;
}

static sht_err tnext(void *src, sht_event *ev)
{
	struct tsrc *s = src;
	const struct tev *te;

	if (s->pos >= s->n)
		return SHT_END;
	te = &s->ev[s->pos];
	ev->ts = te->ts;
	ev->pos = s->pos++;
	ev->name = te->name;
	ev->cpu = te->cpu;
	ev->data = te;
	ev->field = tfield;
	return SHT_OK;
}

static sht_err tseek(void *src, uint64_t pos)
{
	((struct tsrc *)src)->pos = (size_t)pos;
	return SHT_OK;
}

static const sht_source_ops TOPS = { tnext, tseek, NULL, NULL };

#endif /* SHT_EVENT_HARNESS_H */
