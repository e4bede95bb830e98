/*
 * tg.c: helpers of the time-graph outputs (tg.h).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg.h"

int tg_rows(struct srv_out_ctx *c, struct tg_row **rows, size_t *n)
{
	int64_t *ids;
	size_t k;
	struct tg_row *r;

	if (srv_req_ints(c->req, c->rep, "requested_items", 0, INT64_C(1) << 53,
			 SRV_ITEMS_MAX, 1, &ids, &k) != 0)
		return -1;
	r = calloc(k ? k : 1, sizeof *r);
	if (!r) {
		free(ids);
		return srv_reply_error(c->rep, 500, "Out of memory", NULL);
	}
	for (size_t i = 0; i < k; i++) {
		r[i].id = ids[i];
		r[i].known = srv_ids_key(c->ids, ids[i], &r[i].k, r[i].aux) == 0;
	}
	free(ids);
	*rows = r;
	*n = k;
	return 0;
}

/* ---- grouping ------------------------------------------------------------- */

/* One pass over the items: the runs of each quark, and the order checked
 * (a result in another order would give wrong rows, not a crash: refused). */
int tg_group(struct tg_group *g, const sht_result *res)
{
	size_t n = sht_result_count(res), cap = 64;
	const sht_interval *it = sht_result_items(res);

	memset(g, 0, sizeof *g);
	if (n > UINT32_MAX || !(g->runs = malloc(cap * sizeof *g->runs)))
		return -1;
	g->items = it;
	g->n = n;
	for (size_t k = 0; k < n; k++) {
		if (k > 0 && it[k].quark == it[k - 1].quark) {
			if (it[k].start <= it[k - 1].start)
				goto bad;
			continue;
		}
		if (k > 0 && it[k].quark < it[k - 1].quark)
			goto bad;
		if (g->nruns == cap) {
			struct tg_run *r = realloc(g->runs, 2 * cap * sizeof *r);

			if (!r)
				goto bad;
			g->runs = r;
			cap *= 2;
		}
		g->runs[g->nruns].q = it[k].quark;
		g->runs[g->nruns++].lo = (uint32_t)k;
	}
	return 0;
bad:
	tg_group_free(g);
	return -1;
}

void tg_group_free(struct tg_group *g)
{
	free(g->runs);
	memset(g, 0, sizeof *g);
}

void tg_group_range(const struct tg_group *g, sht_quark q, size_t *lo,
		    size_t *hi)
{
	size_t a = 0, b = g->nruns;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (g->runs[m].q < q)
			a = m + 1;
		else
			b = m;
	}
	if (a == g->nruns || g->runs[a].q != q) {
		*lo = *hi = 0;
		return;
	}
	*lo = g->runs[a].lo;
	*hi = a + 1 < g->nruns ? g->runs[a + 1].lo : g->n;
}

size_t tg_group_first_at(const struct tg_group *g, size_t lo, size_t hi,
			 sht_time t)
{
	size_t r = lo;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (g->items[m].start <= t)
			r = m, lo = m + 1;
		else
			hi = m;
	}
	return r;
}

const sht_interval *tg_group_at(const struct tg_group *g, sht_quark q,
				sht_time t)
{
	size_t lo, hi, k;
	const sht_interval *iv;

	tg_group_range(g, q, &lo, &hi);
	if (lo == hi)
		return NULL;
	k = tg_group_first_at(g, lo, hi, t);
	iv = &g->items[k];
	return iv->start <= t && t <= iv->end ? iv : NULL;
}

/* ---- writing -------------------------------------------------------------- */

void tg_begin(struct tg_out *o)
{
	memset(o, 0, sizeof *o);
	srv_buf_puts(&o->b, "{\"model\":{\"rows\":[");
}

void tg_row_begin(struct tg_out *o, int64_t id)
{
	if (o->nrows++)
		srv_buf_put(&o->b, ",", 1);
	srv_buf_puts(&o->b, "{\"entryId\":");
	srv_buf_i64(&o->b, id);
	srv_buf_puts(&o->b, ",\"states\":[");
	o->nstates = 0;
}

void tg_state(struct tg_out *o, sht_time start, sht_time end, const char *key,
	      const char *label, size_t label_len)
{
	tg_state_v(o, start, end, key, label, label_len, NULL);
}

#define LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* A screen writes hundreds of thousands of states: each is written in
 * place (one room check for its fixed part, times by srv_put_time). */
void tg_state_v(struct tg_out *o, sht_time start, sht_time end,
		const char *key, const char *label, size_t label_len,
		const char *values)
{
	size_t klen = key ? strlen(key) : 0, vlen = values ? strlen(values) : 2;
	char *p = srv_buf_room(&o->b, 128 + klen + vlen);   /* >= 57 + 36 */

	if (!p)
		return;
	if (o->nstates++)
		*p++ = ',';
	p = LIT(p, "{\"start\":");
	p = srv_put_time(p, start, &o->tc);
	p = LIT(p, ",\"end\":");
	p = srv_put_time(p, end, &o->tc);
	if (label) {
		p = LIT(p, ",\"label\":");
		srv_buf_commit(&o->b, p);
		srv_buf_jstr(&o->b, label, label_len);
		if (!(p = srv_buf_room(&o->b, 64 + klen + vlen)))
			return;
	}
	if (key) {                  /* style keys are plain constants */
		p = LIT(p, ",\"style\":{\"parentKey\":\"");
		memcpy(p, key, klen);
		p = LIT(p + klen, "\",\"values\":");
		memcpy(p, values ? values : "{}", vlen);
		p += vlen;
		*p++ = '}';
	}
	*p++ = '}';
	srv_buf_commit(&o->b, p);
}

void tg_row_end(struct tg_out *o)
{
	srv_buf_puts(&o->b, "]}");
}

size_t tg_row_items(const struct tg_group *g, const struct tg_row *r, int64_t ti)
{
	size_t lo = 0, hi = 0;

	if (r->known && r->k.a == ti && r->k.b >= 0)
		tg_group_range(g, (sht_quark)r->k.b, &lo, &hi);
	return hi - lo;
}

/* ---- rows on two threads --------------------------------------------------- */

struct part {
	tg_write_fn write;
	void *ctx;
	struct tg_out o;
	size_t from, to;
};

static void *part_main(void *arg)
{
	struct part *p = arg;

	p->write(p->ctx, &p->o, p->from, p->to);
	return NULL;
}

/* The first row after which at least half of the weight is written;
 * *before: the weight of the rows before it. */
static size_t half(size_t n, uint64_t total, tg_weight_fn weight, void *ctx,
		   uint64_t *before)
{
	uint64_t sum = 0;
	size_t i = 0;

	while (i < n && 2 * sum < total)
		sum += weight(ctx, i++);
	*before = sum;
	return i;
}

/* Add p's rows after o's: o's buffer becomes the answer's first part
 * and p's its buffer, or, if o has a first part already, p's are copied
 * in (a comma between two non-empty parts). */
static void join(struct tg_out *o, struct part *p)
{
	if (p->o.nrows > 0) {
		if (o->nrows > 0)
			srv_buf_put(&o->b, ",", 1);
		o->nrows += p->o.nrows;
		if (!o->head.p) {
			o->head = o->b;
			o->b = p->o.b;
			memset(&p->o.b, 0, sizeof p->o.b);
		} else {
			srv_buf_put(&o->b, p->o.b.p, p->o.b.len);
		}
	}
	if (p->o.b.oom)
		o->b.oom = 1;
	srv_buf_free(&p->o.b);
}

static uint64_t split_env = UINT64_MAX;     /* none */
static pthread_once_t split_once = PTHREAD_ONCE_INIT;

static void split_read(void)
{
	const char *v = getenv("SHT_SERVE_SPLIT_ROWS");
	char *end;
	unsigned long long u;

	if (!v || !*v)
		return;
	u = strtoull(v, &end, 10);
	if (!*end)
		split_env = u;
}

void tg_write_rows(struct tg_out *o, size_t n, unsigned threads,
		   uint64_t min_weight, tg_weight_fn weight, tg_write_fn write,
		   void *const ctx[2])
{
	struct part p;
	uint64_t total = 0, before;
	pthread_t th;

	memset(&p, 0, sizeof p);
	p.write = write;
	p.ctx = ctx[1];
	p.to = n;

	pthread_once(&split_once, split_read);
	if (split_env != UINT64_MAX)
		min_weight = split_env;
	if (threads >= 2)
		for (size_t i = 0; i < n; i++)
			total += weight(ctx[0], i);
	if (threads < 2 || total < min_weight || n < 2 ||
	    (p.from = half(n, total, weight, ctx[0], &before)) >= n) {
		write(ctx[0], o, 0, n);
		return;
	}
	/* the second part's share of o's room */
	srv_buf_reserve(&p.o.b, (size_t)((double)(o->b.cap - o->b.len) *
					 (double)(total - before) / (double)total));
	if (pthread_create(&th, NULL, part_main, &p) != 0) {
		srv_buf_free(&p.o.b);
		write(ctx[0], o, 0, n);
		return;
	}
	write(ctx[0], o, 0, p.from);
	pthread_join(th, NULL);
	join(o, &p);
}

void tg_end(struct tg_out *o, struct srv_reply *rep, int status)
{
	srv_buf_puts(&o->b, "]},\"status\":\"");
	srv_buf_puts(&o->b, srv_status_name(status));
	srv_buf_puts(&o->b, "\",\"statusMessage\":\"");
	srv_buf_puts(&o->b, srv_status_message(status));
	srv_buf_puts(&o->b, "\"}");
	if (o->head.p)
		srv_reply_buf2(rep, &o->head, &o->b);
	else
		srv_reply_buf(rep, &o->b);
}

int tg_states_begin(struct srv_out_ctx *c, struct tg_states *s)
{
	s->rows = NULL;
	s->n = 0;
	s->status = SRV_COMPLETED;
	if (srv_req_times(c->req, c->rep, 1, &s->ts) != 0)
		return -1;
	if (tg_rows(c, &s->rows, &s->n) != 0) {
		srv_times_free(&s->ts);
		return -1;
	}
	tg_begin(&s->o);
	return 0;
}

void tg_states_end(struct srv_out_ctx *c, struct tg_states *s)
{
	tg_end(&s->o, c->rep, s->status);
	free(s->rows);
	srv_times_free(&s->ts);
}

const char *tg_value_label(const sht_value *v, char *buf, size_t size,
			   size_t *len)
{
	switch (v->type) {
	case SHT_TYPE_INT32:
		snprintf(buf, size, "%" PRId32, v->u.i32);
		break;
	case SHT_TYPE_INT64:
		snprintf(buf, size, "0x%" PRIx64, (uint64_t)v->u.i64);
		break;
	case SHT_TYPE_STRING:
		*len = v->len;
		return v->u.str;
	default:
		return NULL;
	}
	*len = strlen(buf);
	return buf;
}
