/*
 * fuzz-source.h: what the trace fuzz targets (fuzz-vstf, fuzz-ctf) do
 * with a source once it opened: read every event (name, cpu and a few
 * fields by name), seek back and forth, then run the Linux kernel
 * analysis over it into an in-memory history and query that at its end.
 * Bounded: at most FUZZ_MAX_EVENTS events per pass.
 */
#ifndef SHT_FUZZ_SOURCE_H
#define SHT_FUZZ_SOURCE_H

#include <string.h>

#include "sht/sht.h"

#define FUZZ_MAX_EVENTS 20000

static const char *const fuzz_field_names[] = {
	"tid", "prev_tid", "next_tid", "cpu_id", "filename", "comm", "ret", "irq",
};

/* Every event, its fields; the count into *n.  Fails on a source error. */
static sht_err fuzz_drain(const sht_source *src, uint64_t *n)
{
	sht_event ev;
	sht_field f;
	sht_err err = SHT_OK;

	*n = 0;
	while (*n < FUZZ_MAX_EVENTS && (err = src->ops->next(src->src, &ev)) == SHT_OK) {
		volatile size_t sink = ev.name ? strlen(ev.name) : 0;

		(void)sink;
		for (size_t k = 0; k < sizeof fuzz_field_names / sizeof *fuzz_field_names; k++)
			if (sht_event_field(&ev, fuzz_field_names[k], &f) == SHT_FIELD_STRING)
				sink = strlen(f.v.s);
		(*n)++;
	}
	return *n == FUZZ_MAX_EVENTS ? SHT_OK : err;
}

/* The kernel analysis over src from its start, in memory. */
static void fuzz_kernel(const sht_source *src)
{
	sht_kernel *k = NULL;
	sht_state *ss = NULL;
	sht_state_opts so;
	sht_provider p;
	sht_result *res;
	sht_event ev;
	sht_err err;

	if (src->ops->seek(src->src, 0) != SHT_OK)
		return;
	err = src->ops->next(src->src, &ev);
	if (err != SHT_OK || src->ops->seek(src->src, 0) != SHT_OK)
		return;
	sht_state_opts_init(&so);
	so.backend = SHT_BACKEND_MEMORY;
	if (sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k) != SHT_OK)
		return;
	if (sht_state_create(NULL, ev.ts, &so, &ss) == SHT_OK) {
		sht_kernel_provider(k, &p);
		if (sht_state_run(ss, src, &p, NULL, NULL) == SHT_OK &&
		    sht_state_finish(ss, sht_state_end(ss)) == SHT_OK &&
		    (res = sht_result_create()) != NULL) {
			sht_state_query_full(ss, sht_state_end(ss), res);
			sht_result_destroy(res);
		}
	}
	sht_state_close(ss);
	sht_kernel_destroy(k);
}

/* Read, seek about, analyse. */
static void fuzz_source(const sht_source *src)
{
	uint64_t n = 0, m;
	sht_event ev;

	if (fuzz_drain(src, &n) != SHT_OK)
		return;
	if (n >= FUZZ_MAX_EVENTS)
		return;
	uint64_t at[4] = { n / 2, 0, n, n + 1 };
	for (int i = 0; i < 4; i++)
		if (src->ops->seek(src->src, at[i]) == SHT_OK &&
		    src->ops->next(src->src, &ev) != SHT_OK && i < 2 && n > 0)
			return;   /* a re-read failed: the source is now failed */
	if (src->ops->seek(src->src, 0) == SHT_OK && fuzz_drain(src, &m) == SHT_OK &&
	    m != n) {
		fprintf(stderr, "fuzz: %llu events on the first read, %llu on the second\n",
			(unsigned long long)n, (unsigned long long)m);
		abort();
	}
	fuzz_kernel(src);
}

#endif /* SHT_FUZZ_SOURCE_H */
