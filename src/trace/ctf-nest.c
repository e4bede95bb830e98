/*
 * ctf-nest.c: fields below the top level in the stream reader's records
 * (ctf-par.h), for dotted paths ("network_header.*.transport_header.tcp.seq",
 * sht/trace.h).  The babeltrace2 path (ctf-path.c) walks the live event;
 * a record outlives it, so the decoder copies every node below each
 * structure or variant member of the event, in pre-order, into a blob at
 * the record's end, and the consumer matches a path against the nodes.
 *
 * A node: struct nest_node, then its path's elements (a kind byte, 1 a
 * structure member or 2 a variant's selected option, then the name and a
 * NUL), then a string value and its NUL; padded to 8 bytes.  A node of
 * length 0 ends the blob.  The values are those ctf-path.c gives:
 * sht__ctf_field_value of the node's field (compound: OTHER).
 */
#include <string.h>

#include "ctf-par.h"
#include "util/util.h"

enum { NEST_MEMBER = 1, NEST_OPTION = 2, NEST_MAX_DEPTH = 127 };

struct nest_node {
	uint32_t len;                 /* bytes, a multiple of 8; 0: the end */
	uint16_t top;                 /* the class's field index */
	uint8_t type;                 /* sht_field_type */
	uint8_t nseg;                 /* path elements below the top */
	sht_field val;                /* a string's v.s: unset (see above) */
};

struct nest_walk {
	struct sht__wbuf *w;
	uint16_t top;
	uint8_t kind[NEST_MAX_DEPTH];
	const char *name[NEST_MAX_DEPTH];
};

int sht__ctfr_compound(const bt_field_class *fc)
{
	bt_field_class_type t = fc ? bt_field_class_get_type(fc) : 0;

	return fc && (t == BT_FIELD_CLASS_TYPE_STRUCTURE ||
		      bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT));
}

static void put_node(struct nest_walk *nw, int depth, const bt_field *f)
{
	static const uint8_t zero[8];
	struct nest_node n;
	size_t start = nw->w->n, len;
	const char *str;

	memset(&n, 0, sizeof n);
	n.top = nw->top;
	n.nseg = (uint8_t)depth;

	n.type = (uint8_t)sht__ctf_field_value(f, &n.val);
	str = n.type == SHT_FIELD_STRING ? n.val.v.s : NULL;
	if (str)
		n.val.v.u = 0;
	sht__w_bytes(nw->w, &n, sizeof n);
	for (int i = 0; i < depth; i++) {
		sht__w_u8(nw->w, nw->kind[i]);
		sht__w_bytes(nw->w, nw->name[i], strlen(nw->name[i]) + 1);
	}
	if (str)
		sht__w_bytes(nw->w, str, strlen(str) + 1);
	len = nw->w->n - start;
	sht__w_bytes(nw->w, zero, (8 - len % 8) % 8);
	if (!nw->w->bad) {
		n.len = (uint32_t)(nw->w->n - start);
		memcpy(nw->w->p + start, &n.len, sizeof n.len);
	}
}

/* The nodes below f (a structure or variant at depth), pre-order. */
static void walk(struct nest_walk *nw, int depth, const bt_field *f)
{
	bt_field_class_type t = bt_field_get_class_type(f);
	const bt_field_class *fc = bt_field_borrow_class_const(f);
	const bt_field_class_variant_option *opt;
	const bt_field *sub;
	uint64_t n;

	if (depth >= NEST_MAX_DEPTH)
		return;                   /* past the longest path */
	if (t == BT_FIELD_CLASS_TYPE_STRUCTURE) {
		n = bt_field_class_structure_get_member_count(fc);
		for (uint64_t i = 0; i < n; i++) {
			nw->kind[depth] = NEST_MEMBER;
			nw->name[depth] = bt_field_class_structure_member_get_name(
				bt_field_class_structure_borrow_member_by_index_const(fc, i));
			sub = bt_field_structure_borrow_member_field_by_index_const(f, i);
			put_node(nw, depth + 1, sub);
			walk(nw, depth + 1, sub);
		}
	} else if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_VARIANT)) {
		opt = bt_field_variant_borrow_selected_option_class_const(f);
		sub = bt_field_variant_borrow_selected_option_field_const(f);
		if (!opt || !sub)
			return;
		nw->kind[depth] = NEST_OPTION;
		nw->name[depth] = bt_field_class_variant_option_get_name(opt);
		if (!nw->name[depth])
			nw->name[depth] = "";  /* only "*" selects it */
		put_node(nw, depth + 1, sub);
		walk(nw, depth + 1, sub);
	}
}

sht_err sht__ctfr_nest_build(const struct ctf_class *cls, const bt_message *m,
			     struct sht__wbuf *w)
{
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	const bt_field *scope[3];
	struct nest_walk nw;
	struct nest_node end;

	w->n = 0;
	w->bad = 0;
	scope[0] = bt_event_borrow_payload_field_const(ev);
	scope[1] = bt_event_borrow_specific_context_field_const(ev);
	scope[2] = bt_event_borrow_common_context_field_const(ev);
	nw.w = w;
	for (uint32_t i = 0; i < cls->nf && i <= UINT16_MAX; i++) {
		const bt_field *s = scope[cls->scope[i]];
		const bt_field *f;

		if (!cls->compound[i] || !s)
			continue;
		f = bt_field_structure_borrow_member_field_by_index_const(s, cls->midx[i]);
		nw.top = (uint16_t)i;
		if (f)
			walk(&nw, 0, f);
	}
	memset(&end, 0, sizeof end);
	sht__w_bytes(w, &end, sizeof end);
	return w->bad ? sht__error(SHT_ERR_NOMEM, "Cannot copy a CTF event's "
				   "fields: out of memory") : SHT_OK;
}

/* Element i of a node's path: its kind and name; *p moves past it. */
static const char *next_elem(const char **p, uint8_t *kind)
{
	const char *name = *p + 1;

	*kind = (uint8_t)**p;
	*p = name + strlen(name) + 1;
	return name;
}

/* 1 if the node's path is the path's elements after the first. */
static int node_matches(const struct nest_node *n, const char *const *el,
			const size_t *len, int count)
{
	const char *p = (const char *)(n + 1);
	uint8_t kind;

	if (n->nseg != count)
		return 0;
	for (int i = 0; i < count; i++) {
		const char *name = next_elem(&p, &kind);
		int star = kind == NEST_OPTION && len[i] == 1 && el[i][0] == '*';

		if (!star && (strlen(name) != len[i] || memcmp(name, el[i], len[i]) != 0))
			return 0;
	}
	return 1;
}

sht_field_type sht__ctfr_nest_field(const struct ctf_rec *r, uint32_t top,
				    const char *rest, sht_field *out)
{
	const char *el[NEST_MAX_DEPTH];
	size_t len[NEST_MAX_DEPTH];
	const unsigned char *b;
	const struct nest_node *n;
	const char *p = rest, *dot;
	int count = 0;

	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	do {
		dot = strchr(p, '.');
		if (count == NEST_MAX_DEPTH)
			return SHT_FIELD_NONE;  /* as ctf-path.c: 128 at most */
		el[count] = p;
		len[count] = dot ? (size_t)(dot - p) : strlen(p);
		if (len[count++] == 0)
			return SHT_FIELD_NONE;
		p = dot ? dot + 1 : NULL;
	} while (p);
	if (!r->pad)
		return SHT_FIELD_NONE;    /* the top field is no structure */
	b = (const unsigned char *)r + r->pad;
	for (n = (const void *)b; n->len; n = (const void *)((const unsigned char *)n + n->len)) {
		if (n->top != top || !node_matches(n, el, len, count))
			continue;
		*out = n->val;
		out->type = (sht_field_type)n->type;
		if (out->type == SHT_FIELD_STRING) {
			const char *s = (const char *)(n + 1);
			uint8_t kind;

			for (int i = 0; i < n->nseg; i++)
				next_elem(&s, &kind);
			out->v.s = s;
		}
		return out->type;
	}
	return SHT_FIELD_NONE;
}
