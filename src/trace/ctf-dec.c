/*
 * ctf-dec.c: a decoder of the stream reader (ctf-par.h): one babeltrace2
 * graph, src.ctf.fs for each trace directory and a sink component of our
 * own with one input port per stream this decoder owns (streams s with
 * s % ndec == k; the other ports of src.ctf.fs stay unconnected, and
 * babeltrace2 never decodes them).  Each bt_graph_run_once() reads one
 * batch of one stream (d->want) and turns its messages into records at
 * the end of that stream's queue.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf-dec.h"
#include "util/util.h"

static pthread_mutex_t plugin_mu = PTHREAD_MUTEX_INITIALIZER;

void sht__ctf_plugin_lock(void)
{
	pthread_mutex_lock(&plugin_mu);
}

void sht__ctf_plugin_unlock(void)
{
	pthread_mutex_unlock(&plugin_mu);
}

/* ---- classes: a local cache in front of the shared registry ------------ */

static const struct ctf_class *dec_class(struct ctf_dec *d, uint32_t dir,
					 const bt_event *ev)
{
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	uintptr_t h = ((uintptr_t)ec >> 4) * 0x9E3779B97F4A7C15u;
	uint32_t i = (uint32_t)(h >> 40) & (CTF_DEC_CLASSES - 1);
	const struct ctf_class *k;

	for (uint32_t n = 0; n < CTF_DEC_CLASSES; n++, i = (i + 1) & (CTF_DEC_CLASSES - 1)) {
		if (d->cc[i].ec == ec)
			return d->cc[i].cls;
		if (!d->cc[i].ec)
			break;
	}
	k = sht__ctfr_class(d->p, dir, ec, bt_event_class_borrow_stream_class_const(ec));
	if (k && !d->cc[i].ec) {
		d->cc[i].ec = ec;   /* the graph keeps ec alive: no reuse */
		d->cc[i].cls = k;
	}
	return k;
}

/* ---- chunks -------------------------------------------------------------- */

/* Hand q->fill to the consumer (d->mu held). */
static void publish_locked(struct ctf_dec *d, struct ctf_sq *q)
{
	struct ctf_chunk *ch = q->fill;

	if (!ch || !ch->used)
		return;
	q->fill = NULL;
	ch->next = NULL;
	if (q->ready_tail)
		q->ready_tail->next = ch;
	else
		q->ready = ch;
	q->ready_tail = ch;
	q->nready++;
	q->published += ch->events;
	q->pub_ts = q->fill_ts;
	pthread_cond_broadcast(&d->ready);
}

/* Room for need bytes in q->fill: a record pointer, or NULL (memory). */
static struct ctf_rec *room(struct ctf_dec *d, struct ctf_sq *q, size_t need)
{
	struct ctf_chunk *ch = q->fill;
	size_t cap = need > CTF_CHUNK_BYTES ? need : CTF_CHUNK_BYTES;

	if (ch && ch->cap - ch->used >= need)
		goto have;
	pthread_mutex_lock(&d->mu);
	publish_locked(d, q);
	ch = NULL;
	if (cap == CTF_CHUNK_BYTES && q->free) {
		ch = q->free;
		q->free = ch->next;
	}
	pthread_mutex_unlock(&d->mu);
	if (!ch) {
		ch = malloc(sizeof *ch + cap);
		if (!ch)
			return NULL;
		ch->cap = (uint32_t)cap;
		pthread_mutex_lock(&d->mu);
		q->nalloc++;
		pthread_mutex_unlock(&d->mu);
	}
	ch->used = 0;
	ch->events = 0;
	ch->next = NULL;
	q->fill = ch;
have:
	ch->used += (uint32_t)need;
	return (struct ctf_rec *)(void *)(ch->buf + ch->used - need);
}

/* ---- messages -> records ------------------------------------------------ */

static int32_t packet_cpu(const bt_message *m)
{
	const bt_packet *pkt = bt_message_packet_beginning_borrow_packet_const(m);
	const bt_field *s = bt_packet_borrow_context_field_const(pkt);
	const bt_field *f;
	bt_field_class_type t;

	if (!s || bt_field_get_class_type(s) != BT_FIELD_CLASS_TYPE_STRUCTURE ||
	    !(f = bt_field_structure_borrow_member_field_by_name_const(s, "cpu_id")))
		return -1;
	t = bt_field_get_class_type(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return (int32_t)(int64_t)bt_field_integer_unsigned_get_value(f);
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return (int32_t)bt_field_integer_signed_get_value(f);
	return -1;
}

/* The cpu of an event: its packet's, else its payload's cpu_id, else -1
 * (as ctf-read.c's ctf_cpu). */
static int32_t event_cpu(const struct ctf_class *k, const sht_field *v,
			 int32_t pkt_cpu)
{
	if (pkt_cpu >= 0)
		return pkt_cpu;
	if (k->cpu_f >= 0 && v[k->cpu_f].type == SHT_FIELD_INT)
		return (int32_t)v[k->cpu_f].v.i;
	if (k->cpu_f >= 0 && v[k->cpu_f].type == SHT_FIELD_UINT)
		return (int32_t)(int64_t)v[k->cpu_f].v.u;
	return -1;
}

static sht_err dec_event(struct ctf_dec *d, uint32_t in, const bt_message *m)
{
	struct ctf_pstream *ps = &d->p->st[d->sid[in]];
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	const struct ctf_class *k;
	int64_t ts = 0;
	int has_ts = 0;
	struct ctf_rec *r;
	size_t size;

	if (d->has_cc[in] < 0 ? bt_message_event_borrow_stream_class_default_clock_class_const(m) != NULL
			      : d->has_cc[in] > 0) {
		has_ts = bt_clock_snapshot_get_ns_from_origin(
				 bt_message_event_borrow_default_clock_snapshot_const(m), &ts) ==
			 BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK ? 1 : 2;
		if (has_ts == 2)
			bt_current_thread_clear_error();  /* the overflow's cause */
	}
	/* A seek's events before its time: the consumer drops them anyway,
	 * and no other event's order depends on them (nothing is read of
	 * them but their time, not even their class). */
	if (has_ts == 1 && ts < d->p->drop_t)
		return SHT_OK;
	if (!(k = dec_class(d, ps->dir, ev)))
		return sht__error(SHT_ERR_NOMEM, "Cannot describe a CTF event class: out of memory");
	if (k->nf > d->nvals) {
		sht_field *nv = realloc(d->vals, k->nf * sizeof *nv);
		uint32_t *nl = nv ? realloc(d->lens, k->nf * sizeof *nl) : NULL;
		if (nv)
			d->vals = nv;
		if (!nl)
			return sht__error(SHT_ERR_NOMEM, "Cannot read a CTF event: out of memory");
		d->lens = nl;
		d->nvals = k->nf;
	}
	if (sht__ctfr_event_read(k, m, d->vals, d->lens, &d->nest, &size) != SHT_OK)
		return SHT_ERR_NOMEM;
	if (!(r = room(d, &ps->q, size)))
		return sht__error(SHT_ERR_NOMEM, "Cannot queue a CTF event: out of memory");
	sht__ctfr_event_write(r, size, k, d->vals, d->lens, &d->nest,
			      event_cpu(k, d->vals, d->pkt_cpu[in]), ts, has_ts);
	ps->q.fill->events++;
	if (has_ts == 1)
		ps->q.fill_ts = ts;
	return SHT_OK;
}

/* A stream beginning: the stream's keys, its trace's environment and time
 * span, before its first record is published. */
static sht_err dec_begin(struct ctf_dec *d, uint32_t in, const bt_message *m)
{
	struct ctf_pstream *ps = &d->p->st[d->sid[in]];
	const bt_stream *s = bt_message_stream_beginning_borrow_stream_const(m);
	sht_err err = SHT_OK;

	/* An input carries one stream: its class's clock, once for all
	 * its events. */
	d->has_cc[in] = bt_stream_class_borrow_default_clock_class_const(
				bt_stream_borrow_class_const(s)) ? 1 : 0;
	if (!ps->keyed) {
		err = sht__ctfr_key(&ps->key, s);
		ps->keyed = err == SHT_OK;
	}
	if (err == SHT_OK)
		err = sht__ctfr_env(d->p, ps->dir, bt_stream_borrow_trace_const(s));
	if (err == SHT_OK)
		sht__ctfp_note_trace(d->p, ps->dir, bt_stream_borrow_trace_const(s));
	return err;
}

static sht_err dec_other(struct ctf_dec *d, uint32_t in, const bt_message *m)
{
	struct ctf_pstream *ps = &d->p->st[d->sid[in]];
	struct ctf_rec *r;
	sht_err err = SHT_OK;

	if (bt_message_get_type(m) == BT_MESSAGE_TYPE_STREAM_BEGINNING)
		err = dec_begin(d, in, m);
	else if (bt_message_get_type(m) == BT_MESSAGE_TYPE_PACKET_BEGINNING)
		d->pkt_cpu[in] = packet_cpu(m);
	if (err != SHT_OK)
		return err;
	if (!(r = room(d, &ps->q, sht__ctfr_other_size())))
		return sht__error(SHT_ERR_NOMEM, "Cannot queue a CTF message: out of memory");
	sht__ctfr_other(r, m);
	if (r->has_ts == 1)
		ps->q.fill_ts = r->ts;
	return SHT_OK;
}

/* Records of a batch of input in. */
static sht_err dec_batch(struct ctf_dec *d, uint32_t in,
			 bt_message_array_const msgs, uint64_t n)
{
	sht_err err = SHT_OK;

	for (uint64_t i = 0; i < n; i++) {
		if (err == SHT_OK)
			err = bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT
			      ? dec_event(d, in, msgs[i]) : dec_other(d, in, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return err;
}

/* ---- the sink ------------------------------------------------------------ */

static bt_component_class_sink_consume_method_status
sink_consume(bt_self_component_sink *self)
{
	struct ctf_dec *d = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	uint32_t in = d->want;
	bt_message_array_const msgs;
	uint64_t n = 0;

	switch (bt_message_iterator_next(d->it[in], &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		d->got = dec_batch(d, in, msgs, n);
		if (d->got != SHT_OK)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		d->at_end = 1;     /* not END to the graph: it stays usable */
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

static bt_component_class_initialize_method_status
sink_init(bt_self_component_sink *self, bt_self_component_sink_configuration *cfg,
	  const bt_value *params, void *data)
{
	struct ctf_dec *d = data;
	char name[32];

	(void)cfg;
	(void)params;
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), d);
	for (uint32_t i = 0; i < d->n; i++) {
		snprintf(name, sizeof name, "in%u", i);
		if (bt_self_component_sink_add_input_port(self, name, NULL, NULL) !=
		    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_sink_graph_is_configured_method_status
sink_configured(bt_self_component_sink *self)
{
	struct ctf_dec *d = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	for (uint32_t i = 0; i < d->n; i++) {
		bt_self_component_port_input *port =
			bt_self_component_sink_borrow_input_port_by_index(self, i);
		if (bt_message_iterator_create_from_sink_component(self, port, &d->it[i]) !=
		    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
			return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static void sink_finalize(bt_self_component_sink *self)
{
	struct ctf_dec *d = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));

	for (uint32_t i = 0; d && i < d->n; i++)
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(d->it[i]);
}

static sht_err make_sink_class(struct ctf_dec *d)
{
	d->cls = bt_component_class_sink_create("sht-stream-sink", sink_consume);
	if (!d->cls ||
	    bt_component_class_sink_set_initialize_method(d->cls, sink_init) ||
	    bt_component_class_sink_set_graph_is_configured_method(d->cls, sink_configured) ||
	    bt_component_class_sink_set_finalize_method(d->cls, sink_finalize))
		return sht__ctf_error(SHT_ERR_NOMEM, "open CTF trace", d->p->c->path);
	return SHT_OK;
}

/* ---- graph -------------------------------------------------------------- */

static sht_err add_fs(struct ctf_dec *d, const bt_component_class_source *fs,
		      uint32_t k, const bt_component_source **out)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = bt_value_array_create();
	char name[32];
	sht_err err = SHT_OK;

	snprintf(name, sizeof name, "src%u", k);
	if (!params || !inputs ||
	    bt_value_array_append_string_element(inputs, d->p->dirs[k]) ||
	    bt_value_map_insert_entry(params, "inputs", inputs))
		err = sht__ctf_error(SHT_ERR_NOMEM, "open CTF trace", d->p->c->path);
	else if (bt_graph_add_source_component(d->graph, fs, name, params,
					       BT_LOGGING_LEVEL_NONE, out))
		err = sht__ctf_error(SHT_ERR_CORRUPT, "open CTF trace", d->p->c->path);
	BT_VALUE_PUT_REF_AND_RESET(inputs);
	BT_VALUE_PUT_REF_AND_RESET(params);
	return err;
}

/* Add the sources; every port of every source, in order, is one stream:
 * p->st[s] says which directory and port.  The first decoder sizes
 * p->st; the others check they see as many streams. */
static sht_err add_sources(struct ctf_dec *d, const bt_component_source **srcs)
{
	const bt_component_class_source *fs =
		bt_plugin_borrow_source_component_class_by_name_const(d->plugin, "fs");
	uint32_t nd = (uint32_t)d->p->c->n_dirs;
	uint64_t total = 0;
	sht_err err = fs ? SHT_OK : sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: "
		"path=%s: babeltrace2 has no src.ctf.fs component class", d->p->c->path);

	for (uint32_t k = 0; err == SHT_OK && k < nd; k++) {
		err = add_fs(d, fs, k, &srcs[k]);
		if (err == SHT_OK)
			total += bt_component_source_get_output_port_count(srcs[k]);
	}
	if (err == SHT_OK && total == 0)
		err = sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: path=%s: no stream",
				 d->p->c->path);
	if (err == SHT_OK)
		err = sht__ctfp_streams(d->p, srcs, nd, total);
	return err;
}

/* This decoder's streams and their output ports. */
static sht_err pick_streams(struct ctf_dec *d)
{
	struct ctf_par *p = d->p;

	for (uint32_t s = d->k; s < p->nstreams; s += p->ndec)
		d->n++;
	/* read at every event: on lines of their own */
	d->sid = sht__ctfp_lines(d->n * sizeof *d->sid);
	d->it = sht__ctfp_lines(d->n * sizeof *d->it);
	d->pkt_cpu = sht__ctfp_lines(d->n * sizeof *d->pkt_cpu);
	d->has_cc = sht__ctfp_lines(d->n * sizeof *d->has_cc);
	if (!d->sid || !d->it || !d->pkt_cpu || !d->has_cc)
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
	for (uint32_t i = 0, s = d->k; s < p->nstreams; s += p->ndec, i++) {
		d->sid[i] = s;
		d->pkt_cpu[i] = -1;
		d->has_cc[i] = -1;
		p->st[s].dec = d;
		p->st[s].in = i;
	}
	return SHT_OK;
}

static sht_err connect_streams(struct ctf_dec *d, const bt_component_source **srcs)
{
	const bt_component_sink *sink = NULL;

	if (bt_graph_add_sink_component_with_initialize_method_data(
		    d->graph, d->cls, "sink", NULL, d, BT_LOGGING_LEVEL_NONE, &sink))
		return sht__ctf_error(SHT_ERR_NOMEM, "open CTF trace", d->p->c->path);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct ctf_pstream *ps = &d->p->st[d->sid[i]];
		const bt_port_output *out =
			bt_component_source_borrow_output_port_by_index_const(
				srcs[ps->dir], ps->port);
		if (bt_graph_connect_ports(d->graph, out,
				bt_component_sink_borrow_input_port_by_index_const(sink, i),
				NULL))
			return sht__ctf_error(SHT_ERR_CORRUPT, "open CTF trace", d->p->c->path);
	}
	return SHT_OK;
}

sht_err sht__ctfd_build(struct ctf_dec *d)
{
	const bt_component_source **srcs;
	sht_err err;

	sht__ctf_plugin_lock();
	err = bt_plugin_find("ctf", BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE,
			     &d->plugin) == BT_PLUGIN_FIND_STATUS_OK ? SHT_OK
		: sht__ctf_error(SHT_ERR_INVALID, "find babeltrace2 plugin \"ctf\"",
				 d->p->c->path);
	sht__ctf_plugin_unlock();
	if (err == SHT_OK)
		err = make_sink_class(d);
	if (err == SHT_OK && !(d->graph = bt_graph_create(0)))
		err = sht__ctf_error(SHT_ERR_NOMEM, "open CTF trace", d->p->c->path);
	srcs = calloc(d->p->c->n_dirs, sizeof *srcs);
	if (err == SHT_OK && !srcs)
		err = sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
	if (err == SHT_OK)
		err = add_sources(d, srcs);
	if (err == SHT_OK)
		err = pick_streams(d);
	if (err == SHT_OK)
		err = connect_streams(d, srcs);
	free(srcs);
	return err;
}

/* ---- running ------------------------------------------------------------ */

/* Read one batch of input in into its queue: SHT_OK (the stream may have
 * ended: its queue says so), or the stream's error. */
sht_err sht__ctfd_run(struct ctf_dec *d, uint32_t in)
{
	struct ctf_sq *q = &d->p->st[d->sid[in]].q;
	sht_err err = SHT_OK;

	d->want = in;
	d->at_end = 0;
	d->got = SHT_OK;
	for (;;) {
		bt_graph_run_once_status st = bt_graph_run_once(d->graph);
		if (st == BT_GRAPH_RUN_ONCE_STATUS_AGAIN)
			continue;      /* src.ctf.fs never asks to wait */
		if (st == BT_GRAPH_RUN_ONCE_STATUS_END)
			d->at_end = 1;
		else if (st == BT_GRAPH_RUN_ONCE_STATUS_MEMORY_ERROR)
			err = sht__ctf_error(SHT_ERR_NOMEM, "read CTF trace", d->p->c->path);
		else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK && d->got != SHT_OK) {
			err = d->got;  /* ours: the graph's causes add nothing */
			bt_current_thread_clear_error();
		} else if (st != BT_GRAPH_RUN_ONCE_STATUS_OK) {
			err = sht__ctf_error(SHT_ERR_CORRUPT, "read CTF trace", d->p->c->path);
		}
		break;
	}
	/* A starving consumer gets the chunk once it holds a good share of
	 * records: handing over a batch at a time (about 15 messages) costs
	 * a wake-up per batch when the decoder is the slower side.  A record
	 * at or after the consumer's bound is handed over at once: the
	 * stream is decoded no further (ctf-deq.c, pick). */
	if (err == SHT_OK && !d->at_end &&
	    (!q->fill || q->fill_ts < d->run_until) &&
	    (!q->starving || !q->fill || q->fill->used < CTF_PUBLISH_MIN))
		return SHT_OK;
	pthread_mutex_lock(&d->mu);
	publish_locked(d, q);
	if (err != SHT_OK || d->at_end) {
		q->ended = 1;
		q->err = err;
		if (err != SHT_OK)
			snprintf(d->msg, sizeof d->msg, "%s", sht_errmsg());
		pthread_cond_broadcast(&d->ready);
	}
	pthread_mutex_unlock(&d->mu);
	return err;
}
