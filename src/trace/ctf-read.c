/*
 * ctf-read.c: message iteration and event delivery of a CTF source
 * (ctf-int.h): next() takes the messages of the current batch one by one,
 * counts discarded events and packets, and makes each event message the
 * current event (timestamp, ordinal, cpu, fields).
 */
#include <stdio.h>
#include <string.h>

#include "ctf-par.h"
#include "sht/trace.h"
#include "util/util.h"

/* ---- events ------------------------------------------------------------- */

/* Unsigned or signed integer member name of structure s into *out. */
static int ctf_struct_int(const bt_field *s, const char *name, int64_t *out)
{
	const bt_field *f;
	bt_field_class_type t;

	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return 0;
	f = bt_field_structure_borrow_member_field_by_name_const(s, name);
	if (!f)
		return 0;
	t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER)) {
		*out = (int64_t)bt_field_integer_unsigned_get_value(f);
		return 1;
	}
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)) {
		*out = bt_field_integer_signed_get_value(f);
		return 1;
	}
	return 0;
}

/* CPU of ev: the packet context's cpu_id (cached per packet), else the
 * payload's cpu_id, else -1. */
static int32_t ctf_cpu(struct sht_ctf *c, const bt_event *ev,
		       const bt_field *payload)
{
	const bt_packet *pkt = bt_event_borrow_packet_const(ev);
	int64_t v;

	if (pkt) {
		for (unsigned k = 0; k < CTF_CPU_CACHE; k++)
			if (c->cpus[k].pkt == pkt)
				return c->cpus[k].cpu;
		int32_t cpu = -1;
		if (ctf_struct_int(bt_packet_borrow_context_field_const(pkt),
				   "cpu_id", &v))
			cpu = (int32_t)v;
		if (cpu >= 0) {
			/* The reference keeps the packet alive, so its
			 * address cannot be reused by another packet. */
			struct ctf_pkt_cpu *slot = &c->cpus[c->cpu_next];
			c->cpu_next = (c->cpu_next + 1) % CTF_CPU_CACHE;
			bt_packet_put_ref(slot->pkt);
			bt_packet_get_ref(pkt);
			slot->pkt = pkt;
			slot->cpu = cpu;
			return cpu;
		}
	}
	if (ctf_struct_int(payload, "cpu_id", &v))
		return (int32_t)v;
	return -1;
}

/* Timestamp of an event message (0 if its stream has no clock). */
static sht_err ctf_msg_ts(struct sht_ctf *c, const bt_message *m, int64_t *ts)
{
	*ts = 0;
	if (!bt_message_event_borrow_stream_class_default_clock_class_const(m))
		return SHT_OK;
	const bt_clock_snapshot *cs =
		bt_message_event_borrow_default_clock_snapshot_const(m);
	if (bt_clock_snapshot_get_ns_from_origin(cs, ts) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return sht__ctf_fail(c, SHT_ERR_CORRUPT,
				"convert CTF timestamp (overflow)");
	return SHT_OK;
}

/* Count a discarded events / packets message (only the first time its
 * place in the trace is read: re-reads after seeks count nothing). */
static void ctf_count_discarded(struct sht_ctf *c, const bt_message *m)
{
	uint64_t count = 0;

	if (c->ordinal < c->high)
		return;
	if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
		if (bt_message_discarded_events_get_count(m, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			c->st.discarded_events += count;
		} else {
			c->st.discarded_events++;
			c->info.discarded_unknown++;
		}
	} else {
		if (bt_message_discarded_packets_get_count(m, &count) ==
		    BT_PROPERTY_AVAILABILITY_AVAILABLE)
			c->st.discarded_packets += count;
		else
			c->st.discarded_packets++;
	}
}

sht_err sht__ctf_position(struct sht_ctf *c, int64_t ts, uint64_t *ord,
			  int *mismatch)
{
	uint64_t o = c->ordinal++;
	uint64_t before = 0;

	if (c->have_last && ts == c->last_ts)
		before = c->run;
	else if (c->have_last && ts < c->last_ts && o >= c->high)
		c->info.backward++;   /* first read only */
	c->have_last = 1;
	c->last_ts = ts;
	c->run = before + 1;
	if (o % c->every == 0) {
		sht_err err = sht__ctf_mark(c, o, ts, before, mismatch);
		if (err != SHT_OK)
			return err;
	}
	if (c->ordinal > c->high)
		c->high = c->ordinal;
	*ord = o;
	return SHT_OK;
}

/* Make event message m (whose reference we hold) the current event, with
 * timestamp *ts and ordinal *ord; ordinal, marks and the equal-timestamp
 * run advance. */
static sht_err ctf_take_event(struct sht_ctf *c, const bt_message *m,
			      int64_t *ts, uint64_t *ord, int *mismatch)
{
	sht_err err = ctf_msg_ts(c, m, ts);

	if (err != SHT_OK) {
		bt_message_put_ref(m);
		return err;
	}
	c->cur_msg = m;
	c->cur_ev = bt_message_event_borrow_event_const(m);
	c->cur_payload = bt_event_borrow_payload_field_const(c->cur_ev);
	return sht__ctf_position(c, *ts, ord, mismatch);
}

sht_err sht__ctf_advance(struct sht_ctf *c, int64_t *ts, uint64_t *ord,
			 int *mismatch)
{
	if (c->par)
		return sht__ctfp_advance(c, ts, ord, mismatch);
	bt_message_put_ref(c->cur_msg);
	c->cur_msg = NULL;
	c->cur_ev = NULL;
	c->cur_payload = NULL;
	for (;;) {
		if (c->i_msg == c->n_msgs) {
			if (c->at_end)
				return SHT_END;
			sht_err err = sht__ctf_run(c, CTF_REQ_NEXT);
			if (err != SHT_OK)
				return err;
			continue;
		}
		const bt_message *m = c->msgs[c->i_msg];
		c->msgs[c->i_msg++] = NULL;
		if (!c->trace)
			sht__ctf_note_trace(c, m);
		switch (bt_message_get_type(m)) {
		case BT_MESSAGE_TYPE_EVENT:
			return ctf_take_event(c, m, ts, ord, mismatch);
		case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
			ctf_count_discarded(c, m);
			break;
		default:
			break;
		}
		bt_message_put_ref(m);
	}
}

/* ---- fields ------------------------------------------------------------- */

sht_field_type sht__ctf_field_value(const bt_field *f, sht_field *out)
{
	sht__ctf_kind_value(sht__ctf_kind_of(bt_field_get_class_type(f)), f, out);
	return out->type;
}

/* Payload member `name` of the current event, or NULL.  A look-up by
 * name hashes the name in babeltrace2 every time; the member's index is
 * remembered per (payload class, name pointer) instead and checked
 * against the member's name, so a stale hint (another class at the same
 * address, another text at the same pointer) costs a look-up, never a
 * wrong field. */
static const bt_field *ctf_payload_member(struct sht_ctf *c, const char *name)
{
	const bt_field_class *fc = bt_field_borrow_class_const(c->cur_payload);
	uintptr_t h = ((uintptr_t)fc >> 4) * 31u + ((uintptr_t)name >> 2);
	struct ctf_fhint *x = &c->fhint[(h ^ (h >> 7)) % CTF_FHINTS];
	const bt_field_class_structure_member *m;
	const bt_field *f;
	uint64_t n;

	if (x->fc == fc && x->name == name &&
	    x->idx < bt_field_class_structure_get_member_count(fc)) {
		m = bt_field_class_structure_borrow_member_by_index_const(fc, x->idx);
		if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0)
			return bt_field_structure_borrow_member_field_by_index_const(
				c->cur_payload, x->idx);
	}
	f = bt_field_structure_borrow_member_field_by_name_const(c->cur_payload, name);
	if (!f)
		return NULL;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		m = bt_field_class_structure_borrow_member_by_index_const(fc, i);
		if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0) {
			*x = (struct ctf_fhint){ fc, name, i };
			break;
		}
	}
	return f;
}

static sht_field_type ctf_field(const sht_event *ev, const char *name,
				sht_field *out)
{
	/* The hints change; the event's data is the source itself. */
	struct sht_ctf *c = (struct sht_ctf *)(uintptr_t)ev->data;
	const bt_field *s, *f = NULL;

	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	/* Only the current event has live fields. */
	if (!c || !c->cur_ev || !name || ev->pos + 1 != c->ordinal)
		return SHT_FIELD_NONE;
	if (strchr(name, '.'))
		return sht__ctf_field_path(c->cur_ev, c->cur_payload, name, out);
	if (c->cur_payload)
		f = ctf_payload_member(c, name);
	if (!f && (s = bt_event_borrow_specific_context_field_const(c->cur_ev)))
		f = bt_field_structure_borrow_member_field_by_name_const(s, name);
	if (!f && (s = bt_event_borrow_common_context_field_const(c->cur_ev)))
		f = bt_field_structure_borrow_member_field_by_name_const(s, name);
	if (!f)
		return SHT_FIELD_NONE;
	return sht__ctf_field_value(f, out);
}

/* ---- source operations -------------------------------------------------- */

sht_err sht__ctf_next(void *src, sht_event *ev)
{
	struct sht_ctf *c = src;
	int64_t ts;
	uint64_t ord;
	int mismatch = 0;
	sht_err err;

	if (c->failed != SHT_OK)
		return sht__ctf_failed(c);
	if (c->par)
		return sht__ctfp_next(c, ev);
	err = sht__ctf_advance(c, &ts, &ord, &mismatch);
	if (err != SHT_OK)
		return err;
	if (mismatch)
		return sht__ctf_mismatch(c);
	ev->ts = ts;
	ev->pos = ord;
	ev->name = bt_event_class_get_name(bt_event_borrow_class_const(c->cur_ev));
	ev->cpu = ctf_cpu(c, c->cur_ev, c->cur_payload);
	ev->data = c;
	ev->field = ctf_field;
	c->st.events++;
	return SHT_OK;
}

const void *sht_ctf_event_bt(const sht_event *ev)
{
	if (!ev || ev->field != ctf_field || !ev->data)
		return NULL;
	const struct sht_ctf *c = ev->data;
	return ev->pos + 1 == c->ordinal ? c->cur_ev : NULL;
}

size_t sht_ctf_where(const sht_source *src, char *buf, size_t size)
{
	const struct sht_ctf *c = sht__ctf_of(src);
	const bt_stream *st;
	const char *name;
	int n;

	if (!size)
		return 0;
	buf[0] = '\0';
	if (c && c->par) {
		name = sht__ctfp_stream_name(c);
		if (!name)
			return 0;
		n = snprintf(buf, size, "stream file %s", name);
		if (n < 0)
			n = 0;
		return (size_t)n < size ? (size_t)n : size - 1;
	}
	if (!c || !c->cur_ev || !(st = bt_event_borrow_stream_const(c->cur_ev)))
		return 0;
	/* src.ctf.fs names a stream after its file. */
	name = bt_stream_get_name(st);
	if (name)
		n = snprintf(buf, size, "stream file %s", name);
	else
		n = snprintf(buf, size, "stream %llu",
			     (unsigned long long)bt_stream_get_id(st));
	if (n < 0)
		n = 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}
