/*
 * ctf-fields.c: sht_ctf_event_fields(), the enumeration of a CTF event's
 * fields (trace.h), for writers that copy every field (VSTF).  The names
 * come from babeltrace2's field classes; each value is looked up through
 * the event's own field() so that it is exactly what providers read.
 * Compiled only with libbabeltrace2 (ctf-none.c has the stub).
 */
#include <string.h>

#include "ctf-par.h"
#include "util/util.h"

/* Names already given (a member of a later scope with the same name is
 * shadowed in field() lookups, so it is not given again). */
#define SEEN_MAX 256

struct seen {
	const char *names[SEEN_MAX];
	size_t n;
};

static int seen_has(const struct seen *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return 1;
	return 0;
}

static sht_err scope_fields(const sht_event *ev, const bt_field *scope,
			    struct seen *seen, sht_field_fn fn, void *ctx)
{
	const bt_field_class *fc;
	uint64_t n;

	if (!scope)
		return SHT_OK;
	fc = bt_field_borrow_class_const(scope);
	if (bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return SHT_OK;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(
				fc, i);
		const char *name = bt_field_class_structure_member_get_name(m);
		sht_field v;
		sht_err err;

		if (!name || seen_has(seen, name))
			continue;
		if (seen->n == SEEN_MAX)
			return sht__error(SHT_ERR_TOOBIG,
					  "CTF event '%s' has more than %d fields",
					  ev->name ? ev->name : "?", SEEN_MAX);
		seen->names[seen->n++] = name;
		if (ev->field(ev, name, &v) == SHT_FIELD_NONE)
			continue;
		err = fn(ctx, name, &v);
		if (err < 0)
			return err;
	}
	return SHT_OK;
}

/* A stream reader's event: its class lists the fields in lookup order. */
static sht_err record_fields(const sht_event *ev, sht_field_fn fn, void *ctx)
{
	const struct sht_ctf *c = ev->data;
	const struct ctf_rec *r = c->cur_rec;

	if (!r || ev->pos + 1 != c->ordinal)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot enumerate fields: not the current CTF event");
	if (r->cls->nf > SEEN_MAX)
		return sht__error(SHT_ERR_TOOBIG, "CTF event '%s' has more than %d fields",
				  ev->name ? ev->name : "?", SEEN_MAX);
	for (uint32_t i = 0; i < r->cls->nf; i++) {
		sht_err err;

		if (r->val[i].type == SHT_FIELD_NONE)
			continue;
		err = fn(ctx, r->cls->fname[i], &r->val[i]);
		if (err < 0)
			return err;
	}
	return SHT_OK;
}

sht_err sht_ctf_event_fields(const sht_event *ev, sht_field_fn fn, void *ctx)
{
	const bt_event *bev;
	struct seen seen;
	sht_err err;

	if (!ev || !fn || !ev->field)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot enumerate fields: not a CTF event");
	if (sht__ctfp_is_event(ev))
		return record_fields(ev, fn, ctx);
	bev = sht_ctf_event_bt(ev);
	if (!bev)
		return sht__error(SHT_ERR_INVALID,
				  "Cannot enumerate fields: not a CTF event");
	seen.n = 0;
	err = scope_fields(ev, bt_event_borrow_payload_field_const(bev), &seen,
			   fn, ctx);
	if (err == SHT_OK)
		err = scope_fields(ev,
			bt_event_borrow_specific_context_field_const(bev),
			&seen, fn, ctx);
	if (err == SHT_OK)
		err = scope_fields(ev,
			bt_event_borrow_common_context_field_const(bev),
			&seen, fn, ctx);
	return err;
}
