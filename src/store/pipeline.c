/*
 * pipeline.c: the threaded builder (sht_builder_opts.threaded).  Three
 * stages, each on its own thread, joined by bounded queues:
 *
 *   caller --batches of intervals--> placer --closed nodes--> writer
 *   (sht_builder_insert: checks,    (sht__b_place under    (sort, encode,
 *    copies into a batch)             b->lock; assigns      checksum, pwrite)
 *                                     block numbers)
 *
 * The file is identical to the single-threaded one: placement runs the
 * same code in the same order, block numbers are given at close time in
 * that order, and encoding is a pure function of the closed node.
 *
 * Locks: b->lock (tree shape) is taken before p->mu (queues), never the
 * other way.  A batch is taken off the queue only with b->lock held, so
 * batches are placed in order whoever places them (the placer, or a query
 * or finish draining the queue itself).  Queries and finish drain: they
 * place what is queued, wait for the writer to go idle, then read.
 *
 * The batch being filled belongs to the inserting thread, which fills it
 * without a lock and hands it over when full; sht_builder_current_end()
 * covers the handed-over batches only.  sht_builder_flush (the inserting
 * thread, or anyone while it is known to be idle) hands a partial batch
 * over; finish does it too.
 */
#include <stdio.h>
#include <stdlib.h>

#include <string.h>

#include "store/builder-int.h"

#define BATCH 4096               /* intervals per batch */
#define BATCHES 8                /* batches in flight */
#define JOBS 8                   /* closed nodes waiting for the writer */

struct batch {
	struct batch *next;          /* queue or free list */
	sht_interval iv[BATCH];
	size_t stroff[BATCH];        /* string bytes in arena, by offset */
	uint32_t n;
	char *arena;
	size_t arena_len, arena_cap;
};

struct job {
	struct sht__open *o;
	uint64_t block;
	sht_time end;
};

struct sht__pipe {
	pthread_mutex_t mu;
	pthread_cond_t batch_ready;  /* a full batch is queued (placer) */
	pthread_cond_t batch_free;   /* a batch came back (caller) */
	pthread_cond_t job_ready;    /* a closed node is queued (writer) */
	pthread_cond_t job_done;     /* the writer took or finished one */
	struct batch *filling;       /* the inserting thread's, no lock */
	struct batch *head, *tail;   /* full batches, FIFO */
	struct batch *free_batches;
	uint32_t nbatches;           /* allocated */
	struct job jobs[JOBS];       /* ring */
	uint32_t job_head, njobs;
	int writing;                 /* the writer holds a job */
	struct sht__open **pool;     /* spare open nodes */
	uint32_t npool, pool_cap;
	int stop;
	_Atomic int failed;
	sht_err err;                 /* first error of a thread */
	int told;                    /* an insert returned it */
	char msg[256];               /* and its message */
	sht_time enq_end;            /* largest end accepted */
	uint8_t *wblk;               /* writer's encode buffer */
	struct sht__scratch scratch; /* and working memory */
	pthread_t placer, writer;
	int started;
};

static void wake_all(struct sht__pipe *p)
{
	pthread_cond_broadcast(&p->batch_ready);
	pthread_cond_broadcast(&p->batch_free);
	pthread_cond_broadcast(&p->job_ready);
	pthread_cond_broadcast(&p->job_done);
}

static void set_failed(struct sht_builder *b, sht_err err)
{
	struct sht__pipe *p = b->pipe;

	pthread_mutex_lock(&p->mu);
	if (p->err == SHT_OK) {
		p->err = err;
		snprintf(p->msg, sizeof p->msg, "%s", sht_errmsg());
	}
	atomic_store(&p->failed, 1);
	wake_all(p);
	pthread_mutex_unlock(&p->mu);
}

/* The error of a failed pipeline, its message re-raised in this thread. */
static sht_err pipe_error(struct sht__pipe *p)
{
	return sht__error(p->err ? p->err : SHT_ERR_STATE, "%s", p->msg);
}

/* ---- batches ---------------------------------------------------------- */

static struct batch *batch_get(struct sht__pipe *p)
{
	struct batch *bt;

	while (!p->free_batches && p->nbatches >= BATCHES && !p->stop)
		pthread_cond_wait(&p->batch_free, &p->mu);
	if (p->free_batches) {
		bt = p->free_batches;
		p->free_batches = bt->next;
	} else {
		bt = calloc(1, sizeof *bt);
		if (!bt)
			return NULL;
		p->nbatches++;
	}
	bt->next = NULL;
	bt->n = 0;
	bt->arena_len = 0;
	return bt;
}

static void batch_free(struct batch *bt)
{
	if (bt) {
		free(bt->arena);
		free(bt);
	}
}

static int batch_add_string(struct batch *bt, const sht_value *v, size_t *off)
{
	size_t need = bt->arena_len + v->len + 1;

	if (need > bt->arena_cap) {
		size_t cap = bt->arena_cap ? bt->arena_cap : 4096;
		char *a;
		while (cap < need)
			cap *= 2;
		a = realloc(bt->arena, cap);
		if (!a)
			return 0;
		bt->arena = a;
		bt->arena_cap = cap;
	}
	*off = bt->arena_len;
	if (v->len)
		memcpy(bt->arena + bt->arena_len, v->u.str, v->len);
	bt->arena[bt->arena_len + v->len] = '\0';
	bt->arena_len = need;
	return 1;
}

static void enqueue_batch(struct sht__pipe *p, struct batch *bt)
{
	if (p->tail)
		p->tail->next = bt;
	else
		p->head = bt;
	p->tail = bt;
	pthread_cond_signal(&p->batch_ready);
}

static struct batch *dequeue_batch(struct sht__pipe *p)
{
	struct batch *bt = p->head;

	if (bt) {
		p->head = bt->next;
		if (!p->head)
			p->tail = NULL;
		bt->next = NULL;
	}
	return bt;
}

/* With b->lock held: place every interval of bt, in order. */
static void place_batch(struct sht_builder *b, struct batch *bt)
{
	for (uint32_t i = 0; i < bt->n && !b->failed; i++) {
		sht_interval *iv = &bt->iv[i];
		sht_err err;
		if (iv->value.type == SHT_TYPE_STRING)
			iv->value.u.str = bt->arena + bt->stroff[i];
		err = sht__b_place(b, iv);
		if (err < 0) {
			b->failed = 1;
			set_failed(b, err);
		}
	}
}

static void recycle_batch(struct sht__pipe *p, struct batch *bt)
{
	pthread_mutex_lock(&p->mu);
	bt->next = p->free_batches;
	p->free_batches = bt;
	pthread_cond_signal(&p->batch_free);
	pthread_mutex_unlock(&p->mu);
}

static void *placer_main(void *arg)
{
	struct sht_builder *b = arg;
	struct sht__pipe *p = b->pipe;

	for (;;) {
		struct batch *bt;

		pthread_mutex_lock(&p->mu);
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->batch_ready, &p->mu);
		if (!p->head && p->stop) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		pthread_mutex_unlock(&p->mu);
		pthread_mutex_lock(&b->lock);
		pthread_mutex_lock(&p->mu);
		bt = dequeue_batch(p);       /* a drain may have taken it */
		pthread_mutex_unlock(&p->mu);
		if (bt)
			place_batch(b, bt);
		pthread_mutex_unlock(&b->lock);
		if (bt)
			recycle_batch(p, bt);
	}
}

/* ---- closed nodes ------------------------------------------------------- */

struct sht__open *sht__pipe_spare(struct sht_builder *b)
{
	struct sht__pipe *p = b->pipe;
	struct sht__open *o = NULL;

	pthread_mutex_lock(&p->mu);
	if (p->npool)
		o = p->pool[--p->npool];
	pthread_mutex_unlock(&p->mu);
	return o ? o : sht__open_new(b->st.geom.max_children);
}

sht_err sht__pipe_close(struct sht_builder *b, struct sht__open *o,
			uint64_t block, sht_time end)
{
	struct sht__pipe *p = b->pipe;
	sht_err err;

	pthread_mutex_lock(&p->mu);
	while (p->njobs == JOBS && !p->failed)
		pthread_cond_wait(&p->job_done, &p->mu);
	err = p->failed ? pipe_error(p) : SHT_OK;
	if (err == SHT_OK) {
		p->jobs[(p->job_head + p->njobs++) % JOBS] = (struct job){ o, block, end };
		pthread_cond_signal(&p->job_ready);
	}
	pthread_mutex_unlock(&p->mu);
	if (err != SHT_OK)
		sht__open_free(o);
	return err;
}

static void give_back(struct sht__pipe *p, struct sht__open *o)
{
	if (p->npool == p->pool_cap) {
		uint32_t cap = p->pool_cap ? 2 * p->pool_cap : 16;
		struct sht__open **n = realloc(p->pool, cap * sizeof *n);
		if (!n) {
			sht__open_free(o);
			return;
		}
		p->pool = n;
		p->pool_cap = cap;
	}
	p->pool[p->npool++] = o;
}

/* Encode and write one closed node (writer thread: no b->lock). */
static sht_err write_job(struct sht_builder *b, const struct job *j)
{
	struct sht__pipe *p = b->pipe;
	uint32_t bs = b->st.geom.block_size;
	sht_err err = sht__open_encode(j->o, j->block, j->end, &b->st.geom,
				       &p->scratch, p->wblk);
	int rc;

	if (err != SHT_OK)
		return err;
	rc = sht__pwrite_full(b->st.fd, p->wblk, bs, SHT__HEADER_REGION + j->block * bs);
	if (rc)
		return sht__error_sys(SHT_ERR_IO, -rc, "Cannot write block: block=%llu path=%s errno=%d (%s)",
				      (unsigned long long)j->block, b->st.path, -rc, strerror(-rc));
	return SHT_OK;
}

static void *writer_main(void *arg)
{
	struct sht_builder *b = arg;
	struct sht__pipe *p = b->pipe;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct job j;
		sht_err err;

		while (!p->njobs && !p->stop)
			pthread_cond_wait(&p->job_ready, &p->mu);
		if (!p->njobs)
			break;
		j = p->jobs[p->job_head];
		p->job_head = (p->job_head + 1) % JOBS;
		p->njobs--;
		p->writing = 1;
		pthread_mutex_unlock(&p->mu);
		err = p->failed ? SHT_ERR_STATE : write_job(b, &j);
		pthread_mutex_lock(&p->mu);
		if (err != SHT_OK && p->err == SHT_OK) {
			p->err = err;
			snprintf(p->msg, sizeof p->msg, "%s", sht_errmsg());
			atomic_store(&p->failed, 1);
		}
		give_back(p, j.o);
		p->writing = 0;
		pthread_cond_broadcast(&p->job_done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- caller side -------------------------------------------------------- */

/* Hand the caller's batch over (mu held); publishes its last end. */
static void submit_filling(struct sht_builder *b, struct sht__pipe *p)
{
	struct batch *bt = p->filling;

	if (!bt || !bt->n)
		return;
	atomic_store_explicit(&b->pub_end, bt->iv[bt->n - 1].end, memory_order_release);
	enqueue_batch(p, bt);
	p->filling = NULL;
}

static sht_err get_filling(struct sht__pipe *p)
{
	pthread_mutex_lock(&p->mu);
	p->filling = batch_get(p);
	pthread_mutex_unlock(&p->mu);
	return p->filling ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot allocate an interval batch");
}

sht_err sht__pipe_failed(struct sht_builder *b, const char *what)
{
	struct sht__pipe *p = b->pipe;
	sht_err err;

	pthread_mutex_lock(&p->mu);
	err = p->told || p->err == SHT_OK ? SHT_ERR_STATE : p->err;
	p->told = 1;
	sht__error(err, "Cannot %s: builder failed: %s", what, p->msg);
	pthread_mutex_unlock(&p->mu);
	return err;
}

/* The inserting thread only: no lock while the batch fills. */
sht_err sht__pipe_insert(struct sht_builder *b, const sht_interval *iv)
{
	struct sht__pipe *p = b->pipe;
	struct batch *bt;

	if (atomic_load_explicit(&p->failed, memory_order_acquire)) {
		/* The first insert told of a thread's failure gets its error
		 * (I/O, memory), as a single-threaded insert would; later
		 * ones SHT_ERR_STATE (tree.h). */
		sht_err err;
		pthread_mutex_lock(&p->mu);
		err = p->told || p->err == SHT_OK ? SHT_ERR_STATE : p->err;
		p->told = 1;
		sht__error(err, "Cannot insert: builder failed: %s", p->msg);
		pthread_mutex_unlock(&p->mu);
		return err;
	}
	if (iv->end < p->enq_end)
		return sht__error(SHT_ERR_ORDER, "Cannot insert interval: quark=%u end=%lld before the previous end=%lld",
				  iv->quark, (long long)iv->end, (long long)p->enq_end);
	if (!p->filling && get_filling(p) != SHT_OK)
		return SHT_ERR_NOMEM;
	bt = p->filling;
	bt->iv[bt->n] = *iv;
	if (iv->value.type == SHT_TYPE_STRING &&
	    !batch_add_string(bt, &iv->value, &bt->stroff[bt->n]))
		return sht__error(SHT_ERR_NOMEM, "Cannot copy a string of %u bytes", iv->value.len);
	bt->n++;
	p->enq_end = iv->end;
	if (bt->n == BATCH) {
		pthread_mutex_lock(&p->mu);
		submit_filling(b, p);
		pthread_mutex_unlock(&p->mu);
	}
	return SHT_OK;
}

void sht__pipe_flush(struct sht_builder *b)
{
	struct sht__pipe *p = b->pipe;

	pthread_mutex_lock(&p->mu);
	submit_filling(b, p);
	pthread_mutex_unlock(&p->mu);
}

/*
 * With b->lock held: place everything accepted so far and wait until the
 * writer has written every closed node; then the file holds the tree that
 * the branch in memory continues.
 */
sht_err sht__pipe_drain(struct sht_builder *b)
{
	struct sht__pipe *p = b->pipe;
	struct batch *bt;
	sht_err err;

	pthread_mutex_lock(&p->mu);
	while ((bt = dequeue_batch(p))) {
		pthread_mutex_unlock(&p->mu);
		place_batch(b, bt);
		recycle_batch(p, bt);
		pthread_mutex_lock(&p->mu);
	}
	while ((p->njobs || p->writing) && !p->failed)
		pthread_cond_wait(&p->job_done, &p->mu);
	err = p->failed ? pipe_error(p) : SHT_OK;
	if (err != SHT_OK)
		b->failed = 1;
	pthread_mutex_unlock(&p->mu);
	if (err == SHT_OK)
		atomic_store(&b->st.block_count, b->next_block);
	return err;
}

sht_err sht__pipe_start(struct sht_builder *b)
{
	struct sht__pipe *p = calloc(1, sizeof *p);

	if (!p || !(p->wblk = malloc(b->st.geom.block_size))) {
		free(p);
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the build pipeline");
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->batch_ready, NULL);
	pthread_cond_init(&p->batch_free, NULL);
	pthread_cond_init(&p->job_ready, NULL);
	pthread_cond_init(&p->job_done, NULL);
	p->enq_end = b->start_time;
	b->pipe = p;
	if (pthread_create(&p->placer, NULL, placer_main, b) != 0)
		return sht__error(SHT_ERR_NOMEM, "Cannot start the placement thread");
	if (pthread_create(&p->writer, NULL, writer_main, b) != 0) {
		p->stop = 1;
		wake_all(p);
		pthread_join(p->placer, NULL);
		return sht__error(SHT_ERR_NOMEM, "Cannot start the writer thread");
	}
	pthread_setname_np(p->placer, "sht-place");   /* top -H, benches */
	pthread_setname_np(p->writer, "sht-write");
	p->started = 1;
	return SHT_OK;
}

/* Stop the threads (whatever is queued is dropped) and free everything. */
void sht__pipe_stop(struct sht_builder *b)
{
	struct sht__pipe *p = b->pipe;
	struct batch *bt;

	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		atomic_store(&p->failed, 1);    /* the writer skips what is left */
		wake_all(p);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->placer, NULL);
		pthread_join(p->writer, NULL);
	}
	while ((bt = dequeue_batch(p)))
		batch_free(bt);
	while ((bt = p->free_batches)) {
		p->free_batches = bt->next;
		batch_free(bt);
	}
	batch_free(p->filling);
	for (uint32_t i = 0; i < p->njobs; i++)
		sht__open_free(p->jobs[(p->job_head + i) % JOBS].o);
	for (uint32_t i = 0; i < p->npool; i++)
		sht__open_free(p->pool[i]);
	free(p->pool);
	free(p->wblk);
	free(p->scratch.p);
	pthread_cond_destroy(&p->batch_ready);
	pthread_cond_destroy(&p->batch_free);
	pthread_cond_destroy(&p->job_ready);
	pthread_cond_destroy(&p->job_done);
	pthread_mutex_destroy(&p->mu);
	free(p);
	b->pipe = NULL;
}
