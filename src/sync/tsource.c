/*
 * tsource.c: a source that applies a clock transform to the timestamps of
 * another (sht_transform_source).
 */
#include <stdlib.h>

#include "sync/sync-int.h"
#include "util/util.h"

struct tsrc {
	sht_source in;
	sht_transform *t;         /* our own copy: it caches its block */
};

static sht_err ts_next(void *p, sht_event *ev)
{
	struct tsrc *s = p;
	sht_err err = s->in.ops->next(s->in.src, ev);

	if (err == SHT_OK)
		ev->ts = sht_transform_apply(s->t, ev->ts);
	return err;
}

static sht_err ts_seek(void *p, uint64_t pos)
{
	struct tsrc *s = p;

	return s->in.ops->seek(s->in.src, pos);
}

static void ts_stats(void *p, sht_source_stats *out)
{
	struct tsrc *s = p;

	if (s->in.ops->stats) {
		s->in.ops->stats(s->in.src, out);
	} else {
		out->events = 0;
		out->discarded_events = 0;
		out->discarded_packets = 0;
	}
}

static const sht_source_ops ts_ops = { ts_next, ts_seek, ts_stats, NULL, NULL };

sht_err sht_transform_source(const sht_source *in, const sht_transform *t,
			     sht_source *out)
{
	struct tsrc *s;
	sht_err err;

	if (!in || !in->ops || !t || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot wrap a source in a "
				  "clock transform: NULL argument");
	s = calloc(1, sizeof(*s));
	if (!s)
		return sht__error(SHT_ERR_NOMEM, "Cannot wrap a source in a "
				  "clock transform: out of memory");
	err = sht_transform_copy(t, &s->t);
	if (err < 0) {
		free(s);
		return err;
	}
	s->in = *in;
	out->ops = &ts_ops;
	out->src = s;
	return SHT_OK;
}

void sht_transform_source_free(sht_source *src)
{
	struct tsrc *s;

	if (!src || src->ops != &ts_ops)
		return;
	s = src->src;
	sht_transform_free(s->t);
	free(s);
	src->ops = NULL;
	src->src = NULL;
}
