/*
 * ctf-par.c: the stream reader of a CTF source (ctf-par.h): starting and
 * stopping its decoders, the source's next() over the merged records, and
 * what the rest of the source asks of it (environment, stream names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctf-dec.h"
#include "util/util.h"

void *sht__ctfp_lines(size_t n)
{
	size_t size = (n + CTF_CACHE_LINE - 1) / CTF_CACHE_LINE * CTF_CACHE_LINE;
	void *m = aligned_alloc(CTF_CACHE_LINE, size ? size : CTF_CACHE_LINE);

	if (m)
		memset(m, 0, size ? size : CTF_CACHE_LINE);
	return m;
}

/* ---- called by the decoders --------------------------------------------- */

sht_err sht__ctfp_streams(struct ctf_par *p, const bt_component_source **srcs,
			  uint32_t ndirs, uint64_t total)
{
	sht_err err = SHT_OK;

	pthread_mutex_lock(&p->reg_mu);
	if (!p->st && total <= UINT32_MAX) {
		/* the consumer's arrays: allocated on a decoder's thread,
		 * next to that decoder's own */
		p->st = sht__ctfp_lines(total * sizeof *p->st);
		p->active = sht__ctfp_lines(total * sizeof *p->active);
		p->hd = sht__ctfp_lines(total * sizeof *p->hd);
		p->hts = sht__ctfp_lines(total * sizeof *p->hts);
		if (!p->st || !p->active || !p->hd || !p->hts) {
			free(p->st);
			p->st = NULL;
			err = sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
		}
		for (uint32_t k = 0, s = 0; err == SHT_OK && k < ndirs; k++) {
			uint64_t np = bt_component_source_get_output_port_count(srcs[k]);
			for (uint64_t i = 0; i < np; i++, s++) {
				p->st[s].dir = k;
				p->st[s].port = (uint32_t)i;
				p->st[s].q.pub_ts = INT64_MIN;
				p->st[s].q.fill_ts = INT64_MIN;
			}
		}
		if (err == SHT_OK)
			p->nstreams = (uint32_t)total;
	} else if (p->nstreams != total) {
		err = sht__error(SHT_ERR_CORRUPT, "Cannot open CTF trace: path=%s: "
				 "babeltrace2 gives %llu streams, then %u", p->c->path,
				 (unsigned long long)total, p->nstreams);
	}
	pthread_mutex_unlock(&p->reg_mu);
	return err;
}

void sht__ctfp_built(struct ctf_par *p, struct ctf_dec *d, sht_err err)
{
	pthread_mutex_lock(&p->reg_mu);
	d->built = err == SHT_OK ? 1 : -1;
	d->err = err;
	if (err != SHT_OK)
		snprintf(d->msg, sizeof d->msg, "%s", sht_errmsg());
	p->nbuilt++;
	pthread_cond_broadcast(&p->built_cv);
	pthread_mutex_unlock(&p->reg_mu);
}

/* The span of the single directory's packets, all from LTTng's index. */
static void span_of(struct ctf_par *p)
{
	const struct ctf_ptab *t = &p->ptab[0];
	int have = 0;

	p->span_done = 1;
	p->span_err = SHT_NOT_FOUND;
	for (size_t i = 0; t->usable && t->from_index && i < t->n; i++)
		for (size_t k = 0; k < t->f[i].n; k++) {
			const struct ctf_pkt *pk = &t->f[i].pk[k];
			if (!have || pk->begin < p->span_begin)
				p->span_begin = pk->begin;
			if (!have || pk->end > p->span_end)
				p->span_end = pk->end;
			have = 1;
		}
	if (have)
		p->span_err = SHT_OK;
}

void sht__ctfp_note_trace(struct ctf_par *p, uint32_t dir, const bt_trace *t)
{
	pthread_mutex_lock(&p->reg_mu);
	if (!p->ptab_done[dir]) {
		if (sht__ctf_ptab_build(p->c->dirs[dir], bt_trace_borrow_class_const(t),
					&p->ptab[dir]) != SHT_OK)
			p->ptab[dir].usable = 0;
		p->ptab_done[dir] = 1;
		if (p->c->n_dirs == 1)
			span_of(p);
	}
	pthread_mutex_unlock(&p->reg_mu);
}

/* ---- decoders ---------------------------------------------------------- */

static void free_chunks(struct ctf_chunk *ch)
{
	while (ch) {
		struct ctf_chunk *n = ch->next;
		free(ch);
		ch = n;
	}
}

/* Stop and free the decoders and every queued record. */
static void stop_decoders(struct ctf_par *p)
{
	for (uint32_t k = 0; k < p->ndec; k++)
		sht__ctfd_stop(p->dec[k]);
	for (uint32_t k = 0; k < p->ndec; k++)
		p->decoded_before += sht__ctfd_published(p->dec[k]);
	for (uint32_t k = 0; k < p->ndec; k++)
		sht__ctfd_destroy(p->dec[k]);
	free(p->dec);
	p->dec = NULL;
	p->ndec = 0;
	for (uint32_t s = 0; p->st && s < p->nstreams; s++) {
		struct ctf_sq *q = &p->st[s].q;
		free_chunks(q->ready);
		free_chunks(q->free);
		free(q->fill);
		free(q->cur);
		memset(q, 0, sizeof *q);
		q->pub_ts = INT64_MIN;
		q->fill_ts = INT64_MIN;
		p->st[s].dec = NULL;
	}
}

/* The first error of a decoder that could not build its graph. */
static sht_err build_error(struct ctf_par *p)
{
	for (uint32_t k = 0; k < p->ndec; k++)
		if (p->dec[k]->built < 0)
			return sht__error(p->dec[k]->err, "%s", p->dec[k]->msg);
	return SHT_OK;
}

/* Build the decoders over dirs: on this thread (jobs = 0), else each on
 * its own thread, and wait until every graph is built. */
static sht_err start_decoders(struct ctf_par *p, const char *const *dirs)
{
	sht_err err = SHT_OK;
	uint32_t n = p->jobs ? p->jobs : 1;

	p->dirs = dirs;
	p->nbuilt = 0;
	if (!(p->dec = calloc(n, sizeof *p->dec)))
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
	for (uint32_t k = 0; err == SHT_OK && k < n; k++) {
		err = sht__ctfd_create(p, k, &p->dec[k]);
		if (err == SHT_OK)
			p->ndec = k + 1;
	}
	if (err == SHT_OK && !p->jobs) {
		err = sht__ctfd_build(p->dec[0]);
		sht__ctfp_built(p, p->dec[0], err);
		return err;
	}
	for (uint32_t k = 0; err == SHT_OK && k < n; k++)
		err = sht__ctfd_start(p->dec[k]);
	pthread_mutex_lock(&p->reg_mu);
	while (p->nbuilt < p->ndec && err == SHT_OK)
		pthread_cond_wait(&p->built_cv, &p->reg_mu);
	pthread_mutex_unlock(&p->reg_mu);
	return err == SHT_OK ? build_error(p) : err;
}

/* (Re)start reading from the beginning of dirs. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

sht_err sht__ctfp_restart(struct ctf_par *p, const char *const *dirs, int64_t drop_t)
{
	double t0 = now_ms();
	sht_err err;

	stop_decoders(p);
	p->drop_t = drop_t;        /* no decoder runs: set before they start */
	err = start_decoders(p, dirs);
	if (p->build_ms == 0)
		p->build_ms = now_ms() - t0;
	if (err == SHT_OK)
		sht__ctfm_init(p);
	return err;
}

void sht__ctfp_until(struct ctf_par *p, int64_t ts)
{
	for (uint32_t k = 0; k < p->ndec; k++)
		sht__ctfd_until(p->dec[k], ts);
}

/* ---- seeks ----------------------------------------------------------------- */

sht_err sht__ctfp_seek_view(struct sht_ctf *c, int64_t t)
{
	struct ctf_par *p = c->par;
	struct ctf_view v, old;
	int usable = 1;
	sht_err err;

	pthread_mutex_lock(&p->reg_mu);     /* decoders fill the tables */
	for (size_t k = 0; k < c->n_dirs; k++)
		usable &= p->ptab_done[k] && p->ptab[k].usable;
	pthread_mutex_unlock(&p->reg_mu);
	if (!usable)
		return SHT_NOT_FOUND;
	err = sht__ctf_view_make(c->dirs, c->n_dirs, p->ptab, t, &v);
	if (err != SHT_OK)
		return err;
	old = p->view;
	p->view = v;
	err = sht__ctfp_restart(p, (const char *const *)p->view.dirs, t);
	sht__ctf_view_free(&old);      /* its decoders are gone */
	c->cur_rec = NULL;
	c->look = NULL;
	c->at_end = 0;
	c->dropping = 1;
	c->drop_t = t;
	return err;
}

/* ---- open, close --------------------------------------------------------- */

static void par_free(struct ctf_par *p)
{
	if (!p)
		return;
	stop_decoders(p);
	for (uint32_t s = 0; p->st && s < p->nstreams; s++)
		sht__ctfr_key_free(&p->st[s].key);
	for (size_t k = 0; p->env && k < p->c->n_dirs; k++)
		sht__ctfr_env_free(&p->env[k]);
	for (size_t k = 0; p->ptab && k < p->c->n_dirs; k++)
		sht__ctf_ptab_free(&p->ptab[k]);
	sht__ctf_view_free(&p->view);
	free(p->ptab);
	free(p->ptab_done);
	sht__ctfr_classes_free(p);
	free(p->env);
	free(p->st);
	free(p->active);
	free(p->hd);
	free(p->hts);
	pthread_cond_destroy(&p->built_cv);
	pthread_mutex_destroy(&p->reg_mu);
	free(p);
}

/* Take the first record (a stream beginning): its stream's trace gives
 * the environment, and the streams' first packets are decoded. */
static sht_err first_record(struct sht_ctf *c)
{
	const struct ctf_rec *r;
	uint32_t s;
	sht_err err = sht__ctfm_next(c->par, &r, &s);

	if (err == SHT_END) {
		c->at_end = 1;
		return SHT_OK;
	}
	if (err != SHT_OK)
		return err;
	c->env_dir = c->par->st[s].dir;
	c->env_known = 1;
	if (r->type != BT_MESSAGE_TYPE_STREAM_BEGINNING)
		c->look = r, c->look_s = s;   /* never seen with src.ctf.fs */
	return SHT_OK;
}

sht_err sht__ctfp_open(struct sht_ctf *c, uint32_t jobs)
{
	struct ctf_par *p = sht__ctfp_lines(sizeof *p);
	sht_err err;

	if (!p || !(p->env = calloc(c->n_dirs, sizeof *p->env)) ||
	    !(p->ptab = calloc(c->n_dirs, sizeof *p->ptab)) ||
	    !(p->ptab_done = calloc(c->n_dirs, 1))) {
		if (p) {
			free(p->env);
			free(p->ptab);
		}
		free(p);
		return sht__error(SHT_ERR_NOMEM, "Cannot open CTF trace: out of memory");
	}
	p->c = c;
	p->jobs = jobs;
	p->span_err = SHT_NOT_FOUND;
	p->drop_t = INT64_MIN;
	pthread_mutex_init(&p->reg_mu, NULL);
	pthread_cond_init(&p->built_cv, NULL);
	c->par = p;
	err = sht__ctfp_restart(p, (const char *const *)c->dirs, INT64_MIN);
	if (err == SHT_OK)
		err = first_record(c);
	if (err != SHT_OK) {
		par_free(p);
		c->par = NULL;
	}
	c->info.streams = p && c->par ? p->nstreams : 0;
	c->info.muxed = c->info.streams > 1;
	return err;
}

void sht__ctfp_close(struct sht_ctf *c)
{
	par_free(c->par);
	c->par = NULL;
}

/* ---- next ---------------------------------------------------------------- */

static sht_field_type par_field(const sht_event *ev, const char *name,
				sht_field *out)
{
	struct sht_ctf *c = (struct sht_ctf *)(uintptr_t)ev->data;

	out->type = SHT_FIELD_NONE;
	out->v.u = 0;
	if (!c || !c->cur_rec || !name || ev->pos + 1 != c->ordinal)
		return SHT_FIELD_NONE;
	return sht__ctfr_field(c, c->cur_rec, name, out);
}

int sht__ctfp_is_event(const sht_event *ev)
{
	return ev && ev->field == par_field;
}

/* Count a discarded events / packets record, the first time only (and
 * not before the event a seek looks for: it was met with the events
 * before). */
static void count_discarded(struct sht_ctf *c, const struct ctf_rec *r)
{
	const struct ctf_disc *d = (const struct ctf_disc *)(const void *)r->val;

	if (c->ordinal < c->high || c->dropping)
		return;
	if (r->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS) {
		c->st.discarded_events += d->count_avail ? d->count : 1;
		c->info.discarded_unknown += !d->count_avail;
	} else {
		c->st.discarded_packets += d->count_avail ? d->count : 1;
	}
}

/* The next event record. */
static sht_err next_record(struct sht_ctf *c, const struct ctf_rec **r, uint32_t *s)
{
	for (;;) {
		sht_err err;

		if (c->look) {
			*r = c->look;
			*s = c->look_s;
			c->look = NULL;
		} else if ((err = sht__ctfm_next(c->par, r, s)) != SHT_OK) {
			if (err < 0)
				c->failed = err;
			else
				c->at_end = 1;
			return err;
		}
		if ((*r)->type == BT_MESSAGE_TYPE_EVENT)
			return SHT_OK;
		if ((*r)->type == BT_MESSAGE_TYPE_DISCARDED_EVENTS ||
		    (*r)->type == BT_MESSAGE_TYPE_DISCARDED_PACKETS)
			count_discarded(c, *r);
	}
}

sht_err sht__ctfp_advance(struct sht_ctf *c, int64_t *ts, uint64_t *ord,
			  int *mismatch)
{
	const struct ctf_rec *r;
	uint32_t s;
	sht_err err;

	c->cur_rec = NULL;
	if (c->at_end)
		return SHT_END;
	for (;;) {
		err = next_record(c, &r, &s);
		if (err != SHT_OK)
			return err;
		if (!c->dropping || r->has_ts != 1 || r->ts >= c->drop_t)
			break;
		c->info.seek_skipped++;    /* before the time sought */
	}
	c->dropping = 0;
	if (r->has_ts == 2)
		return sht__ctf_fail(c, SHT_ERR_CORRUPT, "convert CTF timestamp (overflow)");
	c->cur_rec = r;
	c->cur_s = s;
	c->prev_have_last = c->have_last;
	c->prev_last_ts = c->last_ts;
	c->prev_run = c->run;
	*ts = r->ts;
	return sht__ctf_position(c, *ts, ord, mismatch);
}

sht_err sht__ctfp_next(struct sht_ctf *c, sht_event *ev)
{
	int64_t ts;
	uint64_t ord;
	int mismatch = 0;
	sht_err err = sht__ctfp_advance(c, &ts, &ord, &mismatch);

	if (err != SHT_OK)
		return err;
	if (mismatch)
		return sht__ctf_mismatch(c);
	ev->ts = ts;
	ev->pos = ord;
	ev->name = c->cur_rec->cls->name;
	ev->cpu = c->cur_rec->cpu;
	ev->data = c;
	ev->field = par_field;
	c->st.events++;
	return SHT_OK;
}

/* ---- what the rest of the source asks ------------------------------------ */

uint64_t sht__ctfp_decoded(const struct sht_ctf *c)
{
	struct ctf_par *p = c->par;
	uint64_t n;

	if (!p)
		return 0;
	n = p->decoded_before;
	for (uint32_t k = 0; k < p->ndec; k++)
		n += sht__ctfd_published(p->dec[k]);
	return n;
}

const struct ctf_env *sht__ctfp_env(const struct sht_ctf *c)
{
	if (!c->par || !c->env_known || !c->par->env[c->env_dir].set)
		return NULL;
	return &c->par->env[c->env_dir];
}

const char *sht__ctfp_stream_name(const struct sht_ctf *c)
{
	if (!c->par || !c->cur_rec)
		return NULL;
	return c->par->st[c->cur_s].key.name;
}

sht_err sht__ctfp_span(const struct sht_ctf *c, int64_t *begin, int64_t *end)
{
	const struct ctf_par *p = c->par;

	if (!p->span_done || p->span_err != SHT_OK)
		return SHT_NOT_FOUND;
	*begin = p->span_begin;
	*end = p->span_end;
	return SHT_OK;
}
