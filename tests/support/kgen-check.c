/*
 * kgen-check.c: the checks of kgen-check.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kgen-check.h"
#include "tap.h"

static int fields_equal(const sht_event *a, const sht_event *b,
			const shtgen_kgen_class *k)
{
	sht_field fa, fb;
	uint32_t i;

	for (i = 0; i < k->nfields; i++) {
		sht_event_field(a, k->fields[i].name, &fa);
		sht_event_field(b, k->fields[i].name, &fb);
		if (fa.type == SHT_FIELD_STRING && fb.type == SHT_FIELD_STRING) {
			if (strcmp(fa.v.s, fb.v.s) != 0)
				return 0;
		} else if (fa.type == SHT_FIELD_NONE ||
			   fb.type == SHT_FIELD_NONE ||
			   (fa.type == SHT_FIELD_STRING) !=
				   (fb.type == SHT_FIELD_STRING) ||
			   fa.v.i != fb.v.i) {
			return 0;
		}
	}
	return 1;
}

void compare_to_source(const char *what, sht_source *file,
			      const shtgen_kgen_params *p)
{
	sht_source src;
	sht_event a, b;
	uint32_t n;
	const shtgen_kgen_class *classes = shtgen_kgen_classes(&n);
	uint64_t count = 0, bad = 0;
	sht_err ea, eb;

	if (shtgen_kgen_source(p, &src) != SHT_OK)
		return;
	for (;;) {
		ea = src.ops->next(src.src, &a);
		eb = file->ops->next(file->src, &b);
		if (ea != SHT_OK || eb != SHT_OK)
			break;
		uint32_t cls = 0;
		while (cls < n && strcmp(classes[cls].name, a.name) != 0)
			cls++;
		if (strcmp(a.name, b.name) != 0 || a.ts != b.ts ||
		    a.cpu != b.cpu || cls == n ||
		    !fields_equal(&a, &b, &classes[cls])) {
			if (bad++ < 3)
				diag("%s: event %" PRIu64 " differs: %s@%" PRId64
				     " vs %s@%" PRId64, what, count, a.name,
				     a.ts, b.name, b.ts);
		}
		count++;
	}
	is_int(ea, SHT_END, "%s: the generator ends", what);
	is_int(eb, SHT_END, "%s: the file ends with it", what);
	is_u64(count, p->events, "%s: %" PRIu64 " events compared", what,
	       count);
	is_u64(bad, 0, "%s: every event equal (name, time, CPU, fields)",
	       what);
	shtgen_kgen_source_free(&src);
}

int analyse(sht_source *src, const char *file, uint64_t *attrs)
{
	sht_event ev;
	sht_state_opts so;
	sht_state *ss = NULL;
	sht_kernel *k = NULL;
	sht_provider prov;
	uint64_t events = 0, skipped = 0;
	sht_err err;

	if ((err = src->ops->next(src->src, &ev)) != SHT_OK ||
	    (err = src->ops->seek(src->src, 0)) != SHT_OK)
		return err;
	sht_state_opts_init(&so);
	so.provider = SHT_KERNEL_PROVIDER_ID;
	so.provider_version = SHT_KERNEL_PROVIDER_VERSION;
	unlink(file);
	if ((err = sht_state_create(file, ev.ts, &so, &ss)) == SHT_OK &&
	    (err = sht_kernel_create(sht_kernel_layout_from_env(
			"lttng-modules", "2", "12"), &k)) == SHT_OK) {
		sht_kernel_provider(k, &prov);
		err = sht_state_run(ss, src, &prov, &events, &skipped);
		if (err == SHT_OK)
			err = sht_state_finish(ss, sht_state_end(ss));
		*attrs = sht_state_attr_count(ss);
	}
	sht_state_close(ss);
	sht_kernel_destroy(k);
	return err;
}

int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa && fb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = 0;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}
