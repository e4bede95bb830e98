/*
 * match.c: TCP packet matching across traces, as Trace Compass's
 * TmfEventMatching does with its TcpEventMatching and
 * TcpLttngEventMatching definitions (see sht/sync.h for the events).
 *
 * A send ("cause") and a receive ("effect") match when their keys (seq,
 * ack_seq, flags) are equal.  An event that finds no partner waits in its
 * trace's table of that direction, unless an event with its key already
 * waits there (the first one is kept).  A receive takes the waiting send
 * of any trace (the same host included: a loopback pair is counted but
 * not used); a send takes a waiting receive only from another host (one of
 * its own host stays).  Every trace is searched, in input order, and each
 * partner found is taken; the last one found makes the pair.
 *
 * After a match between hosts S and D, the latest match of each ordered
 * pair of hosts is remembered; when S has a latest match with every other
 * host, the sends of S's trace older than the earliest of those matches
 * are dropped (their receive will not come), and likewise the receives of
 * D's trace older than the earliest latest match into D.  This bounds the
 * waiting events by those in flight, and changes which packets can still
 * match exactly as in Trace Compass.
 */
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"
#include "util/util.h"

enum dir { DIR_NONE = 0, DIR_SEND = 1, DIR_RECV = 2 };

struct last {
	int valid;
	int64_t src_ts, dst_ts;
};

struct sht__matcher {
	size_t n;
	uint32_t nh;
	uint32_t *host;
	sht_net_layout *layout;
	struct sht__pending *out, *in;   /* per trace: sends, receives */
	struct last *last;               /* nh * nh: [src * nh + dst] */
	struct sht__hull **hulls;        /* creation order */
	size_t nhulls;
	long *hull_of;                   /* nh * nh: index, or -1 */
	sht_sync_stats st;
	uint64_t pending_now;
};

static const char *const tcp_fields[3] = { "seq", "ack_seq", "flags" };
static const char *const fields_2_0[3] = {
	"transport_fields.thtype_tcp.seq",
	"transport_fields.thtype_tcp.ack_seq",
	"transport_fields.thtype_tcp.flags",
};
static const char *const fields_2_9[3] = {
	"network_header.*.transport_header.tcp.seq",
	"network_header.*.transport_header.tcp.ack_seq",
	"network_header.*.transport_header.tcp.flags",
};

/* The direction of an event of that layout, and where its key is. */
static enum dir classify(const char *name, sht_net_layout layout,
			 const char *const **fields)
{
	if (!name || (name[0] != 'i' && name[0] != 'n'))
		return DIR_NONE;
	*fields = tcp_fields;
	if (strcmp(name, "inet_sock_local_out") == 0)
		return DIR_SEND;
	if (strcmp(name, "inet_sock_local_in") == 0)
		return DIR_RECV;
	if (layout == SHT_NET_LAYOUT_NONE)
		return DIR_NONE;
	*fields = layout == SHT_NET_LAYOUT_LTTNG_2_9 ? fields_2_9 : fields_2_0;
	if (strcmp(name, "net_dev_queue") == 0)
		return DIR_SEND;
	if (layout == SHT_NET_LAYOUT_LTTNG_2_0
		    ? strcmp(name, "netif_receive_skb") == 0
		    : strcmp(name, "net_if_receive_skb") == 0)
		return DIR_RECV;
	return DIR_NONE;
}

/* The key in the event's fields: 0, or -1 if one is not an integer. */
static int get_key(const sht_event *ev, const char *const *fields,
		   struct sht__pkey *k)
{
	uint64_t v[3];
	sht_field f;

	for (int i = 0; i < 3; i++) {
		switch (sht_event_field(ev, fields[i], &f)) {
		case SHT_FIELD_INT:
			v[i] = (uint64_t)f.v.i;
			break;
		case SHT_FIELD_UINT:
			v[i] = f.v.u;
			break;
		default:
			return -1;
		}
	}
	k->seq = v[0];
	k->ack = v[1];
	k->flags = v[2];
	return 0;
}

sht_err sht__matcher_new(size_t n, const uint32_t *host, uint32_t nh,
			 const sht_net_layout *layout,
			 struct sht__matcher **out)
{
	struct sht__matcher *m = calloc(1, sizeof(*m));
	size_t i, nn = (size_t)nh * nh;

	if (m) {
		m->n = n;
		m->nh = nh;
		m->host = malloc(n * sizeof(*m->host));
		m->layout = malloc(n * sizeof(*m->layout));
		m->out = calloc(n, sizeof(*m->out));
		m->in = calloc(n, sizeof(*m->in));
		m->last = calloc(nn, sizeof(*m->last));
		m->hull_of = malloc(nn * sizeof(*m->hull_of));
		m->hulls = calloc(nn, sizeof(*m->hulls));
	}
	if (!m || !m->host || !m->layout || !m->out || !m->in || !m->last ||
	    !m->hull_of || !m->hulls) {
		sht__matcher_free(m);
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	}
	memcpy(m->host, host, n * sizeof(*host));
	memcpy(m->layout, layout, n * sizeof(*layout));
	for (i = 0; i < nn; i++)
		m->hull_of[i] = -1;
	*out = m;
	return SHT_OK;
}

void sht__matcher_free(struct sht__matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; m->out && m->in && i < m->n; i++) {
		sht__pending_free(&m->out[i]);
		sht__pending_free(&m->in[i]);
	}
	for (size_t i = 0; i < m->nhulls; i++)
		sht__hull_free(m->hulls[i]);
	free(m->host);
	free(m->layout);
	free(m->out);
	free(m->in);
	free(m->last);
	free(m->hull_of);
	free(m->hulls);
	free(m);
}

static sht_err oom(void)
{
	return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of memory "
			  "for the packets waiting for their match");
}

/* Drop p's entries older than t, keeping the count of waiting events. */
static void drop_before(struct sht__matcher *m, struct sht__pending *p,
			int64_t t)
{
	size_t before = p->live;

	sht__pending_drop_before(p, t);
	m->pending_now -= before - p->live;
}

/*
 * After a match from host s to host d: if host h (s for the sends, d for
 * the receives) has a latest match with every other host, drop h's
 * trace's waiting events older than the earliest of those matches.
 */
static void cleanup(struct sht__matcher *m, uint32_t h, int as_source,
		    struct sht__pending *p)
{
	uint32_t others = 0;
	int64_t earliest = INT64_MAX;
	int any = 0;

	for (uint32_t x = 0; x < m->nh; x++) {
		const struct last *l = as_source ? &m->last[h * m->nh + x]
						 : &m->last[x * m->nh + h];
		if (!l->valid)
			continue;
		others += x != h;
		any = 1;
		if ((as_source ? l->src_ts : l->dst_ts) < earliest)
			earliest = as_source ? l->src_ts : l->dst_ts;
	}
	if (any && others == m->nh - 1 && earliest > 0)
		drop_before(m, p, earliest);
}

/* The hull of a pair of hosts, created at its first match. */
static struct sht__hull *hull_for(struct sht__matcher *m, uint32_t a,
				  uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	long *slot = &m->hull_of[lo * m->nh + hi];

	if (*slot < 0) {
		struct sht__hull *h = sht__hull_new(lo, hi);

		if (!h)
			return NULL;
		m->hulls[m->nhulls] = h;
		*slot = (long)m->nhulls++;
	}
	return m->hulls[*slot];
}

/* A pair: sent by trace st at sts, received by trace dt at dts. */
static sht_err matched(struct sht__matcher *m, size_t st, int64_t sts,
		       size_t dt, int64_t dts)
{
	uint32_t sh = m->host[st], dh = m->host[dt];
	struct last *l = &m->last[sh * m->nh + dh];
	struct sht__hull *h;

	m->st.matches++;
	if (sh != dh) {
		h = hull_for(m, sh, dh);
		if (!h || sht__hull_add(h, sh, sts, dh, dts) != 0)
			return oom();
	}
	l->valid = 1;
	l->src_ts = sts;
	l->dst_ts = dts;
	cleanup(m, sh, 1, &m->out[st]);
	cleanup(m, dh, 0, &m->in[dt]);
	return SHT_OK;
}

sht_err sht__matcher_event(struct sht__matcher *m, size_t i,
			   const sht_event *ev)
{
	const char *const *fields = NULL;
	enum dir d = classify(ev->name, m->layout[i], &fields);
	struct sht__pending *mine, *theirs;
	struct sht__pkey k;
	int64_t cts = 0, found_ts = 0;
	size_t found = 0;
	int have = 0;

	m->st.events++;
	if (d == DIR_NONE || get_key(ev, fields, &k) != 0)
		return SHT_OK;
	m->st.packets++;
	for (size_t t = 0; t < m->n; t++) {
		theirs = d == DIR_RECV ? &m->out[t] : &m->in[t];
		if (!sht__pending_find(theirs, &k, &cts))
			continue;
		if (d == DIR_SEND && m->host[t] == m->host[i])
			continue;        /* stays for another sender */
		sht__pending_remove(theirs, &k);
		m->pending_now--;
		found = t;
		found_ts = cts;
		have = 1;
	}
	if (have)
		return d == DIR_RECV ? matched(m, found, found_ts, i, ev->ts)
				     : matched(m, i, ev->ts, found, found_ts);
	mine = d == DIR_RECV ? &m->in[i] : &m->out[i];
	if (sht__pending_find(mine, &k, &cts))
		return SHT_OK;           /* the first one waits */
	if (sht__pending_add(mine, &k, ev->ts) != 0)
		return oom();
	if (++m->pending_now > m->st.peak_pending)
		m->st.peak_pending = m->pending_now;
	return SHT_OK;
}

struct sht__hull *const *sht__matcher_hulls(const struct sht__matcher *m,
					    size_t *n)
{
	*n = m->nhulls;
	return m->hulls;
}

void sht__matcher_stats(const struct sht__matcher *m, sht_sync_stats *out)
{
	uint64_t mt, acc, pts;

	*out = m->st;
	out->pending = m->pending_now;
	out->hull_points = 0;
	for (size_t i = 0; i < m->nhulls; i++) {
		sht__hull_counts(m->hulls[i], &mt, &acc, &pts);
		out->hull_points += pts;
	}
}
