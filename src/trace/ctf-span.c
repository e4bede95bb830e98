/*
 * sht_ctf_time_span(): the time span of a CTF trace read from its LTTng
 * packet index (sht/trace.h), a hint for progress displays that costs a
 * few small reads instead of a pass over the trace.  The index is read by
 * ctf-pkt.c; the span is that of every packet of every data file, known
 * only if every non-empty data file has an index that describes it exactly
 * (else SHT_NOT_FOUND rather than a wrong span).
 */
#include "ctf-par.h"
#include "util/util.h"

sht_err sht__ctf_span_dir(const char *dir, const bt_trace_class *tc,
			  int64_t *begin, int64_t *end)
{
	struct ctf_ptab t;
	int have = 0;

	if (sht__ctf_ptab_build(dir, tc, &t) != SHT_OK)
		return SHT_NOT_FOUND;
	for (size_t i = 0; t.usable && t.from_index && i < t.n; i++)
		for (size_t k = 0; k < t.f[i].n; k++) {
			const struct ctf_pkt *p = &t.f[i].pk[k];
			if (!have || p->begin < *begin)
				*begin = p->begin;
			if (!have || p->end > *end)
				*end = p->end;
			have = 1;
		}
	sht__ctf_ptab_free(&t);
	return have ? SHT_OK : SHT_NOT_FOUND;
}

/* Compute c's span once the trace object is known.  Only for a single
 * trace: with several, only the first one's trace object (clocks) is held
 * (ctf-int.h, invariant 5). */
static void span_compute(struct sht_ctf *c)
{
	c->span_known = 1;
	c->span_err = SHT_NOT_FOUND;
	if (c->n_dirs != 1)
		return;
	c->span_err = sht__ctf_span_dir(c->dirs[0], bt_trace_borrow_class_const(c->trace),
					&c->span_begin, &c->span_end);
}

sht_err sht_ctf_time_span(const sht_source *src, sht_time *begin,
			  sht_time *end)
{
	struct sht_ctf *c = sht__ctf_of(src);

	if (!c || !begin || !end)
		return sht__error(SHT_ERR_INVALID, "Cannot get CTF time span: "
				  "not a CTF source, or NULL begin / end");
	if (c->par)
		return sht__ctfp_span(c, begin, end);
	if (!c->trace)
		return SHT_NOT_FOUND;   /* no stream met yet: ask again later */
	if (!c->span_known)
		span_compute(c);
	if (c->span_err == SHT_OK) {
		*begin = c->span_begin;
		*end = c->span_end;
	}
	return c->span_err;
}
