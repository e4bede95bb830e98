/*
 * ctf-meta.c: what the stream reader's decoders copy out of babeltrace2's
 * metadata objects for the consumer (ctf-par.h): event classes (name,
 * muxer keys, fields in lookup order), registered once for all decoders so
 * that an event name has one pointer whatever thread decoded it; the keys
 * flt.utils.muxer compares a stream by; the trace environment.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-par.h"
#include "util/util.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* ---- event classes ------------------------------------------------------ */

static void class_free(struct ctf_class *k)
{
	if (!k)
		return;
	for (uint32_t i = 0; i < k->nf; i++)
		free(k->fname[i]);
	free(k->fname);
	free(k->scope);
	free(k->midx);
	free(k->compound);
	free(k->kind);
	free(k->name);
	free(k->emf);
	free(k);
}

void sht__ctfr_classes_free(struct ctf_par *p)
{
	while (p->classes) {
		struct ctf_class *n = p->classes->next;
		class_free(p->classes);
		p->classes = n;
	}
}

static int class_has(const struct ctf_class *k, const char *name)
{
	for (uint32_t i = 0; i < k->nf; i++)
		if (strcmp(k->fname[i], name) == 0)
			return 1;
	return 0;
}

/* Add the members of structure class fc (scope) not named before. */
static int class_scope(struct ctf_class *k, const bt_field_class *fc,
		       uint8_t scope, uint32_t *cap)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return 1;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		const char *name = bt_field_class_structure_member_get_name(m);

		if (!name || class_has(k, name))
			continue;
		if (k->nf == *cap) {
			uint32_t nc = *cap ? 2 * *cap : 16;
			char **fn = realloc(k->fname, nc * sizeof *fn);
			uint8_t *sc = fn ? realloc(k->scope, nc) : NULL;
			uint32_t *mi = sc ? realloc(k->midx, nc * sizeof *mi) : NULL;
			uint8_t *cp = mi ? realloc(k->compound, nc) : NULL;
			uint8_t *kd = cp ? realloc(k->kind, nc) : NULL;
			if (fn)
				k->fname = fn;
			if (sc)
				k->scope = sc;
			if (mi)
				k->midx = mi;
			if (cp)
				k->compound = cp;
			if (!kd)
				return 0;
			k->kind = kd;
			*cap = nc;
		}
		if (!(k->fname[k->nf] = strdup(name)))
			return 0;
		k->scope[k->nf] = scope;
		k->midx[k->nf] = (uint32_t)i;
		k->compound[k->nf] = (uint8_t)sht__ctfr_compound(
			bt_field_class_structure_member_borrow_field_class_const(m));
		k->nested |= k->compound[k->nf];
		k->kind[k->nf] = sht__ctfr_kind(
			bt_field_class_structure_member_borrow_field_class_const(m));
		if (scope == 0 && strcmp(name, "cpu_id") == 0 &&
		    bt_field_class_type_is(bt_field_class_get_type(
			    bt_field_class_structure_member_borrow_field_class_const(m)),
			    BT_FIELD_CLASS_TYPE_INTEGER))
			k->cpu_f = (int32_t)k->nf;
		k->nf++;
	}
	return 1;
}

static struct ctf_class *class_make(uint32_t dir, const bt_event_class *ec,
				    const bt_stream_class *sc)
{
	struct ctf_class *k = calloc(1, sizeof *k);
	bt_event_class_log_level ll;
	uint32_t cap = 0;
	int ok;

	if (!k)
		return NULL;
	k->dir = dir;
	k->sc_id = bt_stream_class_get_id(sc);
	k->id = bt_event_class_get_id(ec);
	k->cpu_f = -1;
	k->name = dup_or_null(bt_event_class_get_name(ec));
	k->emf = dup_or_null(bt_event_class_get_emf_uri(ec));
	if (bt_event_class_get_log_level(ec, &ll) ==
	    BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		k->has_ll = 1;
		k->ll = (int)ll;
	}
	ok = (k->name || !bt_event_class_get_name(ec)) &&
	     (k->emf || !bt_event_class_get_emf_uri(ec)) &&
	     class_scope(k, bt_event_class_borrow_payload_field_class_const(ec), 0, &cap) &&
	     class_scope(k, bt_event_class_borrow_specific_context_field_class_const(ec), 1, &cap) &&
	     class_scope(k, bt_stream_class_borrow_event_common_context_field_class_const(sc), 2, &cap);
	if (!ok) {
		class_free(k);
		return NULL;
	}
	return k;
}

const struct ctf_class *sht__ctfr_class(struct ctf_par *p, uint32_t dir,
					const bt_event_class *ec,
					const bt_stream_class *sc)
{
	uint64_t sc_id = bt_stream_class_get_id(sc);
	uint64_t id = bt_event_class_get_id(ec);
	struct ctf_class *k;

	pthread_mutex_lock(&p->reg_mu);
	for (k = p->classes; k; k = k->next)
		if (k->dir == dir && k->sc_id == sc_id && k->id == id)
			break;
	if (!k && (k = class_make(dir, ec, sc)) != NULL) {
		k->next = p->classes;
		p->classes = k;
	}
	pthread_mutex_unlock(&p->reg_mu);
	return k;
}

/* ---- stream keys -------------------------------------------------------- */

void sht__ctfr_key_free(struct ctf_skey *k)
{
	free(k->trace_name);
	free(k->name);
	free(k->sc_name);
	free(k->cc_name);
	memset(k, 0, sizeof *k);
}

static void key_flags(struct ctf_skey *k, const bt_stream_class *sc)
{
	k->flags[0] = bt_stream_class_assigns_automatic_event_class_id(sc);
	k->flags[1] = bt_stream_class_assigns_automatic_stream_id(sc);
	k->flags[2] = bt_stream_class_supports_discarded_events(sc);
	k->flags[3] = bt_stream_class_discarded_events_have_default_clock_snapshots(sc);
	k->flags[4] = bt_stream_class_supports_packets(sc);
	k->flags[5] = bt_stream_class_packets_have_beginning_default_clock_snapshot(sc);
	k->flags[6] = bt_stream_class_packets_have_end_default_clock_snapshot(sc);
	k->flags[7] = bt_stream_class_supports_discarded_packets(sc);
	k->flags[8] = bt_stream_class_discarded_packets_have_default_clock_snapshots(sc);
}

static int key_clock(struct ctf_skey *k, const bt_stream_class *sc)
{
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(sc);
	bt_uuid u;

	if (!cc)
		return 1;
	k->has_cc = 1;
	k->cc_abs = bt_clock_class_origin_is_unix_epoch(cc);
	if ((u = bt_clock_class_get_uuid(cc)) != NULL) {
		k->cc_uuid_set = 1;
		memcpy(k->cc_uuid, u, 16);
	}
	k->cc_freq = bt_clock_class_get_frequency(cc);
	k->cc_prec = bt_clock_class_get_precision(cc);
	k->cc_name = dup_or_null(bt_clock_class_get_name(cc));
	return k->cc_name || !bt_clock_class_get_name(cc);
}

sht_err sht__ctfr_key(struct ctf_skey *k, const bt_stream *s)
{
	const bt_trace *t = bt_stream_borrow_trace_const(s);
	const bt_stream_class *sc = bt_stream_borrow_class_const(s);
	bt_uuid u = bt_trace_get_uuid(t);
	int ok;

	memset(k, 0, sizeof *k);
	if (u) {
		k->trace_uuid_set = 1;
		memcpy(k->trace_uuid, u, 16);
	}
	k->sc_id = bt_stream_class_get_id(sc);
	k->id = bt_stream_get_id(s);
	k->trace_name = dup_or_null(bt_trace_get_name(t));
	k->name = dup_or_null(bt_stream_get_name(s));
	k->sc_name = dup_or_null(bt_stream_class_get_name(sc));
	key_flags(k, sc);
	ok = (k->trace_name || !bt_trace_get_name(t)) &&
	     (k->name || !bt_stream_get_name(s)) &&
	     (k->sc_name || !bt_stream_class_get_name(sc)) && key_clock(k, sc);
	if (!ok) {
		sht__ctfr_key_free(k);
		return sht__error(SHT_ERR_NOMEM, "Cannot describe a CTF stream: out of memory");
	}
	return SHT_OK;
}

/* ---- environment -------------------------------------------------------- */

void sht__ctfr_env_free(struct ctf_env *e)
{
	for (uint64_t i = 0; i < e->n; i++) {
		free(e->name[i]);
		if (e->val[i].type == SHT_FIELD_STRING)
			free((char *)(uintptr_t)e->val[i].v.s);
	}
	free(e->name);
	free(e->val);
	memset(e, 0, sizeof *e);
}

/* Value v as sht_ctf_env gives it (strings copied): 1, or 0 (memory). */
static int env_value(const bt_value *v, sht_field *out)
{
	bt_value_type t = bt_value_get_type(v);

	out->v.u = 0;
	out->type = SHT_FIELD_OTHER;
	if (t == BT_VALUE_TYPE_SIGNED_INTEGER) {
		out->type = SHT_FIELD_INT;
		out->v.i = bt_value_integer_signed_get(v);
	} else if (t == BT_VALUE_TYPE_UNSIGNED_INTEGER || t == BT_VALUE_TYPE_BOOL) {
		out->type = SHT_FIELD_UINT;
		out->v.u = t == BT_VALUE_TYPE_BOOL ? (bt_value_bool_get(v) ? 1u : 0u)
						   : bt_value_integer_unsigned_get(v);
	} else if (t == BT_VALUE_TYPE_REAL) {
		out->type = SHT_FIELD_DOUBLE;
		out->v.d = bt_value_real_get(v);
	} else if (t == BT_VALUE_TYPE_STRING) {
		out->type = SHT_FIELD_STRING;
		out->v.s = strdup(bt_value_string_get(v));
		return out->v.s != NULL;
	}
	return 1;
}

static int env_copy(struct ctf_env *e, const bt_trace *t)
{
	uint64_t n = bt_trace_get_environment_entry_count(t);

	e->has_host = sht__ctf_trace_host(t, e->host);
	e->name = calloc(n ? n : 1, sizeof *e->name);
	e->val = calloc(n ? n : 1, sizeof *e->val);
	if (!e->name || !e->val)
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		const char *name = NULL;
		const bt_value *v = NULL;

		bt_trace_borrow_environment_entry_by_index_const(t, i, &name, &v);
		e->n = i + 1;
		if (!(e->name[i] = strdup(name ? name : "")) || !env_value(v, &e->val[i]))
			return 0;
	}
	e->set = 1;
	return 1;
}

sht_err sht__ctfr_env(struct ctf_par *p, uint32_t dir, const bt_trace *t)
{
	struct ctf_env *e = &p->env[dir];
	int ok = 1;

	pthread_mutex_lock(&p->reg_mu);
	if (!e->set && !(ok = env_copy(e, t)))
		sht__ctfr_env_free(e);
	pthread_mutex_unlock(&p->reg_mu);
	return ok ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy the CTF environment: out of memory");
}
