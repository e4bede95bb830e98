/*
 * ctf-path.c: fields below the top level of a CTF event, by dotted path
 * (sht/trace.h: "network_header.*.transport_header.tcp.seq"), and the
 * host id of a CTF trace (its clock's UUID, sht_ctf_host_id).
 */
#include <stdio.h>
#include <string.h>

#include "ctf-par.h"
#include "util/util.h"

enum { PATH_MAX_ELEM = 128 };

/* Member or option elem (len bytes) of f, or NULL. */
static const bt_field *path_step(const bt_field *f, const char *elem,
				 size_t len)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	const bt_field_class *fc = bt_field_borrow_class_const(f);
	const bt_field_class_variant_option *opt;
	const char *name;
	uint64_t n;

	if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		n = bt_field_class_structure_get_member_count(fc);
		for (uint64_t i = 0; i < n; i++) {
			name = bt_field_class_structure_member_get_name(
				bt_field_class_structure_borrow_member_by_index_const(fc, i));
			if (strlen(name) == len && memcmp(name, elem, len) == 0)
				return bt_field_structure_borrow_member_field_by_index_const(f, i);
		}
		return NULL;
	}
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
		opt = bt_field_variant_borrow_selected_option_class_const(f);
		name = opt ? bt_field_class_variant_option_get_name(opt) : NULL;
		if ((len == 1 && elem[0] == '*') ||
		    (name && strlen(name) == len && memcmp(name, elem, len) == 0))
			return bt_field_variant_borrow_selected_option_field_const(f);
	}
	return NULL;
}

/* Top-level field name (len bytes): payload, specific, common context. */
static const bt_field *path_first(const bt_event *ev, const bt_field *payload,
				  const char *name, size_t len)
{
	const bt_field *s[3] = {
		payload,
		bt_event_borrow_specific_context_field_const(ev),
		bt_event_borrow_common_context_field_const(ev),
	};
	const bt_field *f;

	for (int i = 0; i < 3; i++)
		if (s[i] && (f = path_step(s[i], name, len)) != NULL)
			return f;
	return NULL;
}

sht_field_type sht__ctf_field_path(const bt_event *ev, const bt_field *payload,
				   const char *path, sht_field *out)
{
	const char *p = path, *dot;
	const bt_field *f = NULL;
	int depth = 0;

	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	do {
		dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (len == 0 || ++depth > PATH_MAX_ELEM)
			return SHT_FIELD_NONE;
		f = f ? path_step(f, p, len) : path_first(ev, payload, p, len);
		if (!f)
			return SHT_FIELD_NONE;
		p = dot ? dot + 1 : NULL;
	} while (p);
	return sht__ctf_field_value(f, out);
}

/* ---- host id ------------------------------------------------------------- */

int sht__ctf_trace_host(const bt_trace *t, char buf[37])
{
	const bt_trace_class *tc = bt_trace_borrow_class_const(t);
	uint64_t n = bt_trace_class_get_stream_class_count(tc);
	const bt_clock_class *cc;
	bt_uuid u;

	for (uint64_t i = 0; i < n; i++) {
		cc = bt_stream_class_borrow_default_clock_class_const(
			bt_trace_class_borrow_stream_class_by_index_const(tc, i));
		u = cc ? bt_clock_class_get_uuid(cc) : NULL;
		if (!u)
			continue;
		snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-"
			 "%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2],
			 u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
			 u[11], u[12], u[13], u[14], u[15]);
		return 1;
	}
	return 0;
}

sht_err sht_ctf_host_id(const sht_source *src, char *buf, size_t size)
{
	const struct sht_ctf *c = sht__ctf_of(src);
	const struct ctf_env *e;
	char host[37];

	if (buf && size)
		buf[0] = '\0';
	if (!c || !buf || size < 37)
		return sht__error(SHT_ERR_INVALID, "Cannot read the CTF host "
				  "id: not a CTF source, or a buffer under 37 "
				  "bytes");
	if (c->par) {
		/* The stream reader's copy, made with the environment's. */
		e = sht__ctfp_env(c);
		if (!e || !e->has_host)
			return SHT_NOT_FOUND;
		memcpy(buf, e->host, 37);
		return SHT_OK;
	}
	if (!c->trace || !sht__ctf_trace_host(c->trace, host))
		return SHT_NOT_FOUND;
	memcpy(buf, host, 37);
	return SHT_OK;
}
