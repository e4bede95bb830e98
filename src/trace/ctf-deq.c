/*
 * ctf-deq.c: a decoder's thread and the hand-over of its streams' chunks
 * (ctf-par.h).  The thread decodes, batch by batch, the stream of its own
 * that the consumer starves for, else the one with the fewest chunks
 * ready, and waits when every stream has CTF_QUEUE_CHUNKS ready (or has
 * ended).  Without a thread (jobs = 0) the consumer decodes a stream
 * itself when it needs its next chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf-dec.h"
#include "util/util.h"

sht_err sht__ctfd_create(struct ctf_par *p, uint32_t k, struct ctf_dec **out)
{
	struct ctf_dec *d = sht__ctfp_lines(sizeof *d);

	if (!d)
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
	d->p = p;
	d->k = k;
	d->until = INT64_MAX;
	d->run_until = INT64_MAX;
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->ready, NULL);
	pthread_cond_init(&d->room, NULL);
	*out = d;
	return SHT_OK;
}

void sht__ctfd_destroy(struct ctf_dec *d)
{
	if (!d)
		return;
	sht__ctfd_stop(d);
	BT_GRAPH_PUT_REF_AND_RESET(d->graph);
	BT_COMPONENT_CLASS_SINK_PUT_REF_AND_RESET(d->cls);
	sht__ctf_plugin_lock();
	BT_PLUGIN_PUT_REF_AND_RESET(d->plugin);
	sht__ctf_plugin_unlock();
	free(d->vals);
	free(d->lens);
	free(d->nest.p);
	free(d->sid);
	free(d->it);
	free(d->pkt_cpu);
	free(d->has_cc);
	pthread_cond_destroy(&d->room);
	pthread_cond_destroy(&d->ready);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

/* ---- the thread ---------------------------------------------------------- */

/* How many chunks stream q may hold ready (d->mu held).  A seek's reader
 * is often stopped soon after (a replay of a partial history's segment,
 * a page of events): what its decoders read ahead of the consumer is
 * decoded for nothing, so after a seek a stream gets CTF_SEEK_CHUNKS, and
 * one more for every CTF_SEEK_GROW chunks the consumer has taken, up to
 * the reader's CTF_QUEUE_CHUNKS. */
static uint32_t queue_cap(const struct ctf_par *p, const struct ctf_sq *q)
{
	uint32_t cap;

	if (p->drop_t == INT64_MIN)
		return CTF_QUEUE_CHUNKS;
	cap = CTF_SEEK_CHUNKS + q->taken / CTF_SEEK_GROW;
	return cap < CTF_QUEUE_CHUNKS ? cap : CTF_QUEUE_CHUNKS;
}

/* The input to decode next (d->mu held), or -1: none may. */
static int pick(struct ctf_dec *d)
{
	int best = -1;
	uint32_t best_ready = UINT32_MAX;

	for (uint32_t i = 0; i < d->n; i++) {
		const struct ctf_sq *q = &d->p->st[d->sid[i]].q;

		if (q->ended || q->nready >= queue_cap(d->p, q))
			continue;
		if (q->starving)
			return (int)i;
		if (q->pub_ts >= d->until)
			continue;    /* the consumer stops before its next records */
		if (q->nready < best_ready) {
			best = (int)i;
			best_ready = q->nready;
		}
	}
	return best;
}

/* A failed graph: every stream of d not ended yet ends with err. */
static void fail_all(struct ctf_dec *d, sht_err err)
{
	pthread_mutex_lock(&d->mu);
	for (uint32_t i = 0; i < d->n; i++) {
		struct ctf_sq *q = &d->p->st[d->sid[i]].q;
		if (!q->ended) {
			q->ended = 1;
			q->err = err;
		}
	}
	pthread_cond_broadcast(&d->ready);
	pthread_mutex_unlock(&d->mu);
}

static void *dec_main(void *arg)
{
	struct ctf_dec *d = arg;
	sht_err err;

	pthread_setname_np(pthread_self(), "sht-decode");  /* top -H, benches */
	err = sht__ctfd_build(d);

	sht__ctfp_built(d->p, d, err);
	if (err != SHT_OK)
		return NULL;
	pthread_mutex_lock(&d->mu);
	while (!d->stop) {
		int i = pick(d);

		if (i < 0) {
			pthread_cond_wait(&d->room, &d->mu);
			continue;
		}
		d->run_until = d->until;
		pthread_mutex_unlock(&d->mu);
		err = sht__ctfd_run(d, (uint32_t)i);
		if (err != SHT_OK)
			fail_all(d, err);
		pthread_mutex_lock(&d->mu);
		if (err != SHT_OK)
			break;
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

sht_err sht__ctfd_start(struct ctf_dec *d)
{
	if (pthread_create(&d->thr, NULL, dec_main, d) != 0)
		return sht__error(SHT_ERR_NOMEM, "Cannot start a CTF decoding thread");
	d->started = 1;
	return SHT_OK;
}

void sht__ctfd_stop(struct ctf_dec *d)
{
	if (!d->started)
		return;
	pthread_mutex_lock(&d->mu);
	d->stop = 1;
	pthread_cond_broadcast(&d->room);
	pthread_mutex_unlock(&d->mu);
	pthread_join(d->thr, NULL);
	d->started = 0;
}

/* ---- the consumer's side ---------------------------------------------- */

void sht__ctfd_until(struct ctf_dec *d, int64_t ts)
{
	pthread_mutex_lock(&d->mu);
	d->until = ts;
	pthread_cond_signal(&d->room);
	pthread_mutex_unlock(&d->mu);
}

/* Decode stream s on this thread until it has a chunk ready or ends. */
static sht_err need_inline(struct ctf_dec *d, struct ctf_sq *q, uint32_t in)
{
	q->starving = 1;
	while (!q->ready && !q->ended) {
		sht_err err = sht__ctfd_run(d, in);
		if (err != SHT_OK) {
			fail_all(d, err);
			break;
		}
	}
	q->starving = 0;
	return SHT_OK;
}

sht_err sht__ctfd_take(struct ctf_dec *d, uint32_t s, struct ctf_chunk **out)
{
	struct ctf_sq *q = &d->p->st[s].q;
	sht_err err = SHT_OK;

	*out = NULL;
	if (!d->started && !q->ready && !q->ended)
		need_inline(d, q, d->p->st[s].in);
	pthread_mutex_lock(&d->mu);
	if (!q->ready && !q->ended) {
		q->starving = 1;
		pthread_cond_signal(&d->room);
		while (!q->ready && !q->ended)
			pthread_cond_wait(&d->ready, &d->mu);
		q->starving = 0;
	}
	if (q->ready) {
		*out = q->ready;
		q->ready = q->ready->next;
		if (!q->ready)
			q->ready_tail = NULL;
		q->nready--;
		q->taken++;
		pthread_cond_signal(&d->room);
	} else {
		err = q->err < 0 ? q->err : SHT_END;
	}
	pthread_mutex_unlock(&d->mu);
	if (err < 0)
		return sht__error(err, "%s", d->msg[0] ? d->msg : "Cannot read CTF trace");
	return err;
}

void sht__ctfd_release(struct ctf_dec *d, uint32_t s, struct ctf_chunk *ch)
{
	struct ctf_sq *q = &d->p->st[s].q;

	if (!ch)
		return;
	pthread_mutex_lock(&d->mu);
	if (ch->cap == CTF_CHUNK_BYTES) {
		ch->next = q->free;
		q->free = ch;
	} else {
		q->nalloc--;
		free(ch);
	}
	pthread_mutex_unlock(&d->mu);
}

uint64_t sht__ctfd_published(struct ctf_dec *d)
{
	uint64_t n = 0;

	pthread_mutex_lock(&d->mu);
	for (uint32_t i = 0; i < d->n; i++)
		n += d->p->st[d->sid[i]].q.published;
	pthread_mutex_unlock(&d->mu);
	return n;
}
