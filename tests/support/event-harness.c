/*
 * event-harness.c: the in-memory event source of event-harness.h.
 */
#include <stdio.h>

#include "event-harness.h"

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

const sht_source_ops TOPS = { tnext, tseek, NULL, NULL, NULL };

const char *tev_show(const sht_value *v)
{
	static char buf[4][128];
	static int k;
	char *b = buf[k++ % 4];

	switch (v->type) {
	case SHT_TYPE_NULL:
		return "null";
	case SHT_TYPE_INT32:
		snprintf(b, 128, "i:%d", (int)v->u.i32);
		break;
	case SHT_TYPE_INT64:
		snprintf(b, 128, "l:%lld", (long long)v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		snprintf(b, 128, "d:%g", v->u.d);
		break;
	default:
		snprintf(b, 128, "s:%.*s", (int)v->len, v->u.str);
		break;
	}
	return b;
}
