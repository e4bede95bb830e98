/*
 * ctf-env.c: the trace object of a CTF source (ctf-int.h, invariant 5)
 * and its environment, the CTF metadata "env" block (sht_ctf_env,
 * sht_ctf_env_entry in sht/trace.h).
 */
#include "ctf-par.h"

#include <string.h>
#include "util/util.h"

/* The stream a message belongs to, or NULL (message iterator inactivity). */
static const bt_stream *ctf_msg_stream(const bt_message *m)
{
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(m));
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(
			bt_message_event_borrow_event_const(m));
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(m);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(m);
	default:
		return NULL;
	}
}

void sht__ctf_note_trace(struct sht_ctf *c, const bt_message *m)
{
	const bt_stream *stream;

	if (c->trace || !m || !(stream = ctf_msg_stream(m)))
		return;
	c->trace = bt_stream_borrow_trace_const(stream);
	bt_trace_get_ref(c->trace);
}

void sht__ctf_note_trace_batch(struct sht_ctf *c)
{
	for (uint64_t k = c->i_msg; !c->trace && k < c->n_msgs; k++)
		sht__ctf_note_trace(c, c->msgs[k]);
}

/* An environment value as a field: integers INT / UINT, strings STRING,
 * reals DOUBLE, booleans UINT, anything else OTHER. */
static void ctf_env_value(const bt_value *v, sht_field *out)
{
	bt_value_type t = bt_value_get_type(v);

	out->v.u = 0;
	out->type = t == BT_VALUE_TYPE_SIGNED_INTEGER ? SHT_FIELD_INT :
		    t == BT_VALUE_TYPE_UNSIGNED_INTEGER || t == BT_VALUE_TYPE_BOOL ? SHT_FIELD_UINT :
		    t == BT_VALUE_TYPE_STRING ? SHT_FIELD_STRING :
		    t == BT_VALUE_TYPE_REAL ? SHT_FIELD_DOUBLE : SHT_FIELD_OTHER;
	if (t == BT_VALUE_TYPE_SIGNED_INTEGER)
		out->v.i = bt_value_integer_signed_get(v);
	else if (t == BT_VALUE_TYPE_UNSIGNED_INTEGER)
		out->v.u = bt_value_integer_unsigned_get(v);
	else if (t == BT_VALUE_TYPE_BOOL)
		out->v.u = bt_value_bool_get(v) ? 1u : 0u;
	else if (t == BT_VALUE_TYPE_STRING)
		out->v.s = bt_value_string_get(v);
	else if (t == BT_VALUE_TYPE_REAL)
		out->v.d = bt_value_real_get(v);
}

/* The source's trace object (invariant 5): from open's first batch, else
 * (never seen with src.ctf.fs, whose first message is a stream beginning)
 * from the first message next() met that names a stream.  NULL if none. */
static const bt_trace *ctf_trace(const sht_source *src)
{
	const struct sht_ctf *c = sht__ctf_of(src);

	return c ? c->trace : NULL;
}

/* Clear *out (if any) and check the arguments: 1 and *trace the source's
 * trace object (NULL if none yet), or 0 (not a CTF source, NULL name or
 * out). */
static int env_args(const sht_source *src, const void *name, sht_field *out,
		    const bt_trace **trace)
{
	if (out) {
		out->type = SHT_FIELD_NONE;
		out->v.u = 0;
	}
	if (!sht__ctf_of(src) || !name || !out)
		return 0;
	*trace = ctf_trace(src);
	return 1;
}

/* The stream reader's copy of the environment (1), or 0: the graph's. */
static int env_copy(const sht_source *src, const struct ctf_env **e)
{
	const struct sht_ctf *c = sht__ctf_of(src);

	if (!c->par)
		return 0;
	*e = sht__ctfp_env(c);
	return 1;
}

static sht_err env_copy_get(const struct ctf_env *e, const char *name,
			    sht_field *out)
{
	for (uint64_t i = 0; e && i < e->n; i++)
		if (strcmp(e->name[i], name) == 0) {
			*out = e->val[i];
			return SHT_OK;
		}
	return SHT_NOT_FOUND;
}

sht_err sht_ctf_env(const sht_source *src, const char *name, sht_field *out)
{
	const struct ctf_env *e;
	const bt_trace *trace;
	const bt_value *v;

	if (!env_args(src, name, out, &trace))
		return sht__error(SHT_ERR_INVALID, "Cannot read CTF environment: "
				  "not a CTF source, or NULL name / out");
	if (env_copy(src, &e))
		return env_copy_get(e, name, out);
	if (!trace)
		return SHT_NOT_FOUND;
	v = bt_trace_borrow_environment_entry_value_by_name_const(trace, name);
	if (!v)
		return SHT_NOT_FOUND;
	ctf_env_value(v, out);
	return SHT_OK;
}

sht_err sht_ctf_env_entry(const sht_source *src, uint64_t index,
			  const char **name, sht_field *out)
{
	const struct ctf_env *e;
	const bt_trace *trace;
	const bt_value *v = NULL;
	const char *n = NULL;

	if (name)
		*name = NULL;
	if (!env_args(src, name, out, &trace))
		return sht__error(SHT_ERR_INVALID, "Cannot read CTF environment: "
				  "not a CTF source, or NULL name / out");
	if (env_copy(src, &e)) {
		if (!e || index >= e->n)
			return SHT_NOT_FOUND;
		*name = e->name[index];
		*out = e->val[index];
		return SHT_OK;
	}
	if (!trace || index >= bt_trace_get_environment_entry_count(trace))
		return SHT_NOT_FOUND;
	bt_trace_borrow_environment_entry_by_index_const(trace, index, &n, &v);
	*name = n;
	ctf_env_value(v, out);
	return SHT_OK;
}
