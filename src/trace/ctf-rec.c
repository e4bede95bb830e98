/*
 * ctf-rec.c: the flat records of the stream reader (ctf-par.h): a
 * decoder writes each babeltrace2 message as one record (an event with
 * every field value the source's field() can give, strings copied), the
 * consumer reads fields back by name.  Values are exactly those of the
 * babeltrace2 path (ctf-read.c): same types, same empty-string rule.
 */
#include <string.h>

#include "ctf-par.h"
#include "util/util.h"

#define REC_ALIGN(n) (((n) + 7u) & ~(size_t)7u)

uint8_t sht__ctfr_kind(const bt_field_class *fc)
{
	return sht__ctf_kind_of(bt_field_class_get_type(fc));
}

sht_err sht__ctfr_event_read(const struct ctf_class *cls, const bt_message *m,
			     sht_field *vals, uint32_t *lens,
			     struct sht__wbuf *nest, size_t *out)
{
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	const bt_field *scope[3];
	size_t size = sizeof(struct ctf_rec) + cls->nf * sizeof(sht_field);
	sht_err err;

	scope[0] = bt_event_borrow_payload_field_const(ev);
	scope[1] = bt_event_borrow_specific_context_field_const(ev);
	scope[2] = bt_event_borrow_common_context_field_const(ev);
	for (uint32_t i = 0; i < cls->nf; i++) {
		const bt_field *s = scope[cls->scope[i]];
		const bt_field *f = s ? bt_field_structure_borrow_member_field_by_index_const(
						s, cls->midx[i]) : NULL;

		if (!f) {
			vals[i].type = SHT_FIELD_NONE;
			vals[i].v.u = 0;
			continue;
		}
		sht__ctf_kind_value(cls->kind[i], f, &vals[i]);
		if (vals[i].type == SHT_FIELD_STRING) {
			size_t n = strlen(vals[i].v.s) + 1;
			lens[i] = (uint32_t)n;
			size += n;
		}
	}
	*out = REC_ALIGN(size);
	if (!cls->nested)
		return SHT_OK;
	err = sht__ctfr_nest_build(cls, m, nest);
	*out += nest->n;              /* a multiple of 8 */
	return err;
}

void sht__ctfr_event_write(struct ctf_rec *r, size_t size,
			   const struct ctf_class *cls, const sht_field *vals,
			   const uint32_t *lens, const struct sht__wbuf *nest,
			   int32_t cpu, int64_t ts, int has_ts)
{
	char *str = (char *)&r->val[cls->nf];

	r->size = (uint32_t)size;
	r->type = BT_MESSAGE_TYPE_EVENT;
	r->has_ts = (uint8_t)has_ts;
	r->nval = (uint16_t)cls->nf;
	r->cpu = cpu;
	r->pad = 0;
	r->ts = ts;
	r->cls = cls;
	if (cls->nf)                  /* vals may be NULL without fields */
		memcpy(r->val, vals, cls->nf * sizeof *vals);
	for (uint32_t i = 0; i < cls->nf; i++) {
		if (vals[i].type == SHT_FIELD_STRING) {
			memcpy(str, vals[i].v.s, lens[i]);
			r->val[i].v.s = str;
			str += lens[i];
		}
	}
	if (cls->nested) {
		/* After the strings, at the record's end (8-aligned). */
		r->pad = (uint32_t)(size - nest->n);
		memcpy((unsigned char *)r + r->pad, nest->p, nest->n);
	}
}

/* ---- other messages ------------------------------------------------------ */

size_t sht__ctfr_other_size(void)
{
	return REC_ALIGN(sizeof(struct ctf_rec) + sizeof(struct ctf_disc));
}

/* The stream class of m, for the muxer's choice of clock snapshot. */
static const bt_stream_class *other_class(const bt_message *m)
{
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_stream_borrow_class_const(
			bt_message_stream_beginning_borrow_stream_const(m));
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_stream_borrow_class_const(
			bt_message_stream_end_borrow_stream_const(m));
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(m)));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(m)));
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_borrow_class_const(
			bt_message_discarded_events_borrow_stream_const(m));
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_borrow_class_const(
			bt_message_discarded_packets_borrow_stream_const(m));
	default:
		return NULL;
	}
}

/* The clock snapshot the muxer takes a message's time from (its rule:
 * flt.utils.muxer, get_msg_ts_ns), or NULL: the muxer's last time. */
static const bt_clock_snapshot *other_cs(const bt_message *m,
					 const bt_stream_class *sc)
{
	const bt_clock_snapshot *cs = NULL;

	if (!sc || !bt_stream_class_borrow_default_clock_class_const(sc))
		return NULL;
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_stream_class_packets_have_beginning_default_clock_snapshot(sc)
		       ? bt_message_packet_beginning_borrow_default_clock_snapshot_const(m) : NULL;
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_stream_class_packets_have_end_default_clock_snapshot(sc)
		       ? bt_message_packet_end_borrow_default_clock_snapshot_const(m) : NULL;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_default_clock_snapshot_const(m, &cs) ==
		       BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ? cs : NULL;
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_default_clock_snapshot_const(m, &cs) ==
		       BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN ? cs : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_stream_class_discarded_events_have_default_clock_snapshots(sc)
		       ? bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(m) : NULL;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)
		       ? bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(m) : NULL;
	default:
		return NULL;
	}
}

static void other_disc(struct ctf_disc *d, const bt_message *m,
		       const bt_stream_class *sc)
{
	memset(d, 0, sizeof *d);
	if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
		d->count_avail = bt_message_discarded_events_get_count(m, &d->count) ==
				 BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc)) {
			d->has_cs = 1;
			d->cs_begin = bt_clock_snapshot_get_value(
				bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(m));
			d->cs_end = bt_clock_snapshot_get_value(
				bt_message_discarded_events_borrow_end_default_clock_snapshot_const(m));
		}
	} else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_DISCARDED_PACKETS) {
		d->count_avail = bt_message_discarded_packets_get_count(m, &d->count) ==
				 BT_PROPERTY_AVAILABILITY_AVAILABLE;
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc)) {
			d->has_cs = 1;
			d->cs_begin = bt_clock_snapshot_get_value(
				bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(m));
			d->cs_end = bt_clock_snapshot_get_value(
				bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(m));
		}
	}
}

void sht__ctfr_other(struct ctf_rec *r, const bt_message *m)
{
	const bt_stream_class *sc = other_class(m);
	const bt_clock_snapshot *cs = other_cs(m, sc);

	memset(r, 0, sizeof *r);
	r->size = (uint32_t)sht__ctfr_other_size();
	r->type = (uint8_t)bt_message_get_type(m);
	r->cpu = -1;
	if (cs) {
		/* An overflow is the muxer's error (2), if there is one. */
		r->has_ts = 1;
		if (bt_clock_snapshot_get_ns_from_origin(cs, &r->ts) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
			bt_current_thread_clear_error();
			r->has_ts = 2;
		}
	}
	if (sc)
		other_disc((struct ctf_disc *)(void *)r->val, m, sc);
}

/* ---- fields (consumer) ------------------------------------------------- */

/* A dotted path: its first element is a field of the record's class. */
static sht_field_type nest_field(const struct ctf_rec *r, const char *name,
				 sht_field *out)
{
	const struct ctf_class *k = r->cls;
	const char *dot = strchr(name, '.');
	size_t len = (size_t)(dot - name);

	for (uint32_t i = 0; i < k->nf; i++)
		if (strlen(k->fname[i]) == len && memcmp(k->fname[i], name, len) == 0)
			return k->compound[i] ? sht__ctfr_nest_field(r, i, dot + 1, out)
					      : SHT_FIELD_NONE;
	return SHT_FIELD_NONE;
}

sht_field_type sht__ctfr_field(struct sht_ctf *c, const struct ctf_rec *r,
			       const char *name, sht_field *out)
{
	const struct ctf_class *k = r->cls;
	uintptr_t h = ((uintptr_t)k >> 4) * 31u + ((uintptr_t)name >> 2);
	struct ctf_rhint *x = &c->rhint[(h ^ (h >> 7)) % CTF_FHINTS];
	uint32_t i;

	if (x->cls == k && x->name == name && x->idx < k->nf &&
	    strcmp(k->fname[x->idx], name) == 0) {
		i = x->idx;
	} else {
		for (i = 0; i < k->nf; i++)
			if (strcmp(k->fname[i], name) == 0)
				break;
		if (i == k->nf) {
			out->type = SHT_FIELD_NONE;
			out->v.u = 0;
			return strchr(name, '.') ? nest_field(r, name, out)
						 : SHT_FIELD_NONE;
		}
		*x = (struct ctf_rhint){ k, name, i };
	}
	*out = r->val[i];
	return out->type;
}
