/*
 * lives.c: the thread lifetimes of a kernel history, the rows of the
 * Control Flow view: each maximal run of non-null Threads/<x>/Exec_name
 * (a reused tid is a new lifetime, a rename is not), with the latest name
 * (the Control Flow row's label), the names it had over time (a
 * Resources CPU's thread label: the name at the sample time), and the
 * PID and PPID at its end, sorted by (tid, start).
 *
 * Computing them reads every Exec_name, PID and PPID interval (two 2D
 * queries over the whole history: the whole file is visited).  Once a
 * history is complete they never change, so they are kept with it: in
 * memory (srv_hist_lives), and in the cache beside the history
 * (<history>.lives, tied to the history file by its size, modification
 * time and inode), so the first screen of an already-analysed trace does
 * not read the whole history again.
 *
 * File: "SHTLIVE2", u64 history size, i64 mtime s, i64 mtime ns, u64
 * inode, u64 n, u64 name bytes, u64 name changes, n records {i64 tid,
 * pid, ppid, start, end; u32 thread quark, name offset, name length,
 * first change, changes, 0}, the changes {i64 start; u32 name offset,
 * name length}, the names, u64 FNV-1a of everything before.  A file of
 * another version (SHTLIVE1 had no changes) is computed again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lives.h"
#include "tg.h"

#define NONE SHT_QUARK_NONE

/* The threads of a history: Threads/<x> with their attribute quarks. */
struct thr {
	sht_quark thread, exec, pid, ppid;
	int64_t tid;
};

/* A name change met while computing: its thread's tid, then as kept. */
struct chg {
	int64_t tid;
	struct srv_life_name c;
};

struct lctx {
	struct srv_hq *q;
	struct thr *thr;
	size_t nthr;
	struct srv_lives *out;
	size_t cap;
	struct srv_buf names;
	sht_result *res;
	struct chg *chg;
	size_t nchg, chg_cap;
};

static int thread_tid(const char *name, int64_t *tid)
{
	char *end;
	long long v;

	if (strncmp(name, "0_", 2) == 0) {  /* 0_<cpu>: the idle thread */
		*tid = 0;
		return 1;
	}
	v = strtoll(name, &end, 10);
	if (*end || end == name || v < 0)
		return 0;                   /* "-1" and others: not a thread */
	*tid = v;
	return 1;
}

/* Threads/<x> of the history (attribute read lock held). */
static int list_threads(struct lctx *x)
{
	const struct srv_attrs *a = &x->q->h->attrs;
	sht_quark threads = srv_attrs_child(a, NONE, "Threads");
	size_t cap = 0;

	if (threads == NONE)
		return 0;
	for (sht_quark k = srv_attrs_first(a, threads); k != NONE;
	     k = srv_attrs_next(a, k)) {
		struct thr th;

		if (!thread_tid(a->name[k], &th.tid))
			continue;
		th.thread = k;
		th.exec = srv_attrs_child(a, k, "Exec_name");
		th.pid = srv_attrs_child(a, k, "PID");
		th.ppid = srv_attrs_child(a, k, "PPID");
		if (th.exec == NONE)
			continue;
		if (x->nthr == cap) {
			void *p = realloc(x->thr, (cap = cap ? cap * 2 : 256) * sizeof *x->thr);

			if (!p)
				return -1;
			x->thr = p;
		}
		x->thr[x->nthr++] = th;
	}
	return 0;
}

static struct srv_life *new_life(struct lctx *x)
{
	struct srv_lives *o = x->out;

	if (o->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		void *p = realloc(o->v, cap * sizeof *o->v);

		if (!p)
			return NULL;
		o->v = p;
		x->cap = cap;
	}
	memset(&o->v[o->n], 0, sizeof o->v[0]);
	return &o->v[o->n++];
}

/* Lifetime l's name from iv on: kept as a change if it differs from
 * the name l has so far (a new lifetime has none: ch_n 0). */
static int set_name(struct lctx *x, struct srv_life *l, const sht_interval *iv)
{
	uint32_t len = iv->value.len > 4096 ? 4096 : iv->value.len;

	if (l->ch_n > 0 && len == l->name_len &&
	    memcmp(x->names.p + l->name_off, iv->value.u.str, len) == 0)
		return 0;
	if (x->nchg == x->chg_cap) {
		size_t cap = x->chg_cap ? 2 * x->chg_cap : 256;
		void *p = realloc(x->chg, cap * sizeof *x->chg);

		if (!p)
			return -1;
		x->chg = p;
		x->chg_cap = cap;
	}
	l->name_off = (uint32_t)x->names.len;
	l->name_len = len;
	l->ch_n++;                      /* a count here; placed by lives_changes */
	x->chg[x->nchg++] = (struct chg){ l->tid, { iv->start, l->name_off, len } };
	srv_buf_put(&x->names, iv->value.u.str, len);
	return x->names.oom ? -1 : 0;
}

/* The lifetimes: runs of non-null Exec_name, from one 2D query.
 * of_quark maps Exec_name and Threads/<x> quarks to thr indices. */
static int find_lives(struct lctx *x, int32_t *of_quark)
{
	sht_quark *qs = malloc((x->nthr ? x->nthr : 1) * sizeof *qs);
	int64_t *open = malloc((x->nthr ? x->nthr : 1) * sizeof *open);
	const sht_interval *iv;
	size_t n = 0;
	int rc = 0;

	if (!qs || !open) {
		free(qs);
		free(open);
		return -1;
	}
	for (size_t i = 0; i < x->nthr; i++) {
		qs[i] = x->thr[i].exec;
		of_quark[x->thr[i].exec] = (int32_t)i;
		of_quark[x->thr[i].thread] = (int32_t)i;
		open[i] = -1;
	}
	if (srv_hq_2d(x->q, qs, x->nthr, x->q->start, x->q->end, 0, x->res) == SHT_OK)
		n = sht_result_count(x->res);
	iv = sht_result_items(x->res);
	for (size_t k = 0; k < n && rc == 0; k++) {   /* in start order */
		int32_t i = of_quark[iv[k].quark];
		struct srv_life *l;

		if (iv[k].value.type != SHT_TYPE_STRING) {
			open[i] = -1;
			continue;
		}
		if (open[i] >= 0 && x->out->v[open[i]].end + 1 == iv[k].start) {
			l = &x->out->v[open[i]];
		} else if ((l = new_life(x)) != NULL) {
			open[i] = (int64_t)(l - x->out->v);
			l->tid = x->thr[i].tid;
			l->thread = x->thr[i].thread;
			l->start = iv[k].start;
		} else {
			rc = -1;
			break;
		}
		l->end = iv[k].end;
		rc = set_name(x, l, &iv[k]);
	}
	free(qs);
	free(open);
	return rc || x->names.oom || x->names.len > UINT32_MAX ? -1 : 0;
}

/* The int value of quark q at t in the PID/PPID result (0 if none). */
static int64_t value_at(const struct tg_group *g, sht_quark q, sht_time t)
{
	const sht_interval *iv = q == NONE ? NULL : tg_group_at(g, q, t);

	return iv && iv->value.type == SHT_TYPE_INT32 ? iv->value.u.i32 : 0;
}

static int read_pids(struct lctx *x, const int32_t *of_thread)
{
	sht_quark *qs = malloc((2 * x->nthr + 1) * sizeof *qs);
	struct tg_group g;
	size_t n = 0;

	if (!qs)
		return -1;
	for (size_t i = 0; i < x->nthr; i++) {
		if (x->thr[i].pid != NONE)
			qs[n++] = x->thr[i].pid;
		if (x->thr[i].ppid != NONE)
			qs[n++] = x->thr[i].ppid;
	}
	if (srv_hq_rows(x->q, qs, n, x->q->start, x->q->end, 0, x->res) != SHT_OK ||
	    tg_group(&g, x->res) != 0) {
		free(qs);
		return -1;
	}
	for (size_t k = 0; k < x->out->n; k++) {
		struct srv_life *l = &x->out->v[k];
		const struct thr *th = &x->thr[of_thread[l->thread]];

		l->pid = value_at(&g, th->pid, l->end);
		l->ppid = value_at(&g, th->ppid, l->end);
	}
	tg_group_free(&g);
	free(qs);
	return 0;
}

static int cmp_life(const void *a, const void *b)
{
	const struct srv_life *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_chg(const void *a, const void *b)
{
	const struct chg *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->c.start > y->c.start) - (x->c.start < y->c.start);
}

/* The name changes in lifetime order: sorted by (tid, start) as the
 * lifetimes are, a lifetime's changes are the next ch_n of them. */
static int lives_changes(struct lctx *x, struct srv_lives *out)
{
	size_t k = 0;

	if (x->nchg > 1)
		qsort(x->chg, x->nchg, sizeof *x->chg, cmp_chg);
	out->ch = malloc((x->nchg ? x->nchg : 1) * sizeof *out->ch);
	if (!out->ch)
		return -1;
	for (size_t i = 0; i < x->nchg; i++)
		out->ch[i] = x->chg[i].c;
	out->nch = x->nchg;
	for (size_t i = 0; i < out->n; i++) {
		out->v[i].ch_lo = (uint32_t)k;
		k += out->v[i].ch_n;
	}
	return k == x->nchg ? 0 : -1;
}

const char *srv_life_name_at(const struct srv_lives *ls, const struct srv_life *l,
			     sht_time t, size_t *len)
{
	size_t lo = l->ch_lo, hi = (size_t)l->ch_lo + l->ch_n;

	if (l->ch_n == 0) {
		*len = l->name_len;
		return ls->names + l->name_off;
	}
	while (lo < hi) {               /* the last change at or before t */
		size_t mid = lo + (hi - lo) / 2;

		if (ls->ch[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == l->ch_lo)             /* before the first: the first name */
		lo++;
	*len = ls->ch[lo - 1].len;
	return ls->names + ls->ch[lo - 1].off;
}

int srv_lives_compute(struct srv_hq *q, struct srv_lives *out)
{
	struct lctx x;
	int32_t *of_quark;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&x, 0, sizeof x);
	x.q = q;
	x.out = out;
	if (!q->valid)
		return 0;
	x.res = sht_result_create();
	pthread_rwlock_rdlock(&q->h->attrs.lock);
	of_quark = malloc((q->h->attrs.n + 1) * sizeof *of_quark);
	if (x.res && of_quark && list_threads(&x) == 0 &&
	    find_lives(&x, of_quark) == 0 && read_pids(&x, of_quark) == 0)
		rc = 0;
	pthread_rwlock_unlock(&q->h->attrs.lock);
	free(of_quark);
	free(x.thr);
	sht_result_destroy(x.res);
	if (rc == 0) {
		if (out->n > 1)         /* v is NULL when there is none */
			qsort(out->v, out->n, sizeof *out->v, cmp_life);
		out->names = x.names.p;
		x.names.p = NULL;
		rc = lives_changes(&x, out);
	}
	free(x.chg);
	srv_buf_free(&x.names);
	if (rc != 0)
		srv_lives_free(out);
	return rc;
}

void srv_lives_free(struct srv_lives *l)
{
	free(l->v);
	free(l->names);
	free(l->ch);
	memset(l, 0, sizeof *l);
}

/* ---- the file beside the history ------------------------------------------------ */

static const char MAGIC[8] = "SHTLIVE2";

struct lv_head {
	char magic[8];
	uint64_t size;
	int64_t mtime_s, mtime_ns;
	uint64_t inode, n, name_bytes, nch;
};

struct lv_rec {
	int64_t tid, pid, ppid, start, end;
	uint32_t thread, name_off, name_len, ch_lo, ch_n, zero;
};

struct lv_ch {
	int64_t start;
	uint32_t off, len;
};

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

static int head_of(const char *hist, struct lv_head *h)
{
	struct stat st;

	memset(h, 0, sizeof *h);
	if (stat(hist, &st) != 0)
		return -1;
	memcpy(h->magic, MAGIC, 8);
	h->size = (uint64_t)st.st_size;
	h->mtime_s = st.st_mtim.tv_sec;
	h->mtime_ns = st.st_mtim.tv_nsec;
	h->inode = (uint64_t)st.st_ino;
	return 0;
}

static size_t name_bytes(const struct srv_lives *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].name_off + (size_t)l->v[i].name_len > n)
			n = l->v[i].name_off + (size_t)l->v[i].name_len;
	for (size_t i = 0; i < l->nch; i++)
		if (l->ch[i].off + (size_t)l->ch[i].len > n)
			n = l->ch[i].off + (size_t)l->ch[i].len;
	return n;
}

int srv_lives_save(const struct srv_lives *l, const char *hist)
{
	char path[4096], tmp[4200];
	struct lv_head h;
	uint64_t sum;
	FILE *f;
	int ok;

	if (head_of(hist, &h) != 0)
		return -1;
	h.n = l->n;
	h.name_bytes = name_bytes(l);
	h.nch = l->nch;
	snprintf(path, sizeof path, "%s.lives", hist);
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld-%u", path, (long)getpid(),
		 srv_serial());
	if (!(f = fopen(tmp, "wb")))
		return -1;
	sum = fnv(UINT64_C(0xcbf29ce484222325), &h, sizeof h);
	ok = fwrite(&h, sizeof h, 1, f) == 1;
	for (size_t i = 0; ok && i < l->n; i++) {
		struct lv_rec r = { l->v[i].tid, l->v[i].pid, l->v[i].ppid,
				    l->v[i].start, l->v[i].end, l->v[i].thread,
				    l->v[i].name_off, l->v[i].name_len,
				    l->v[i].ch_lo, l->v[i].ch_n, 0 };

		sum = fnv(sum, &r, sizeof r);
		ok = fwrite(&r, sizeof r, 1, f) == 1;
	}
	for (size_t i = 0; ok && i < l->nch; i++) {
		struct lv_ch c = { l->ch[i].start, l->ch[i].off, l->ch[i].len };

		sum = fnv(sum, &c, sizeof c);
		ok = fwrite(&c, sizeof c, 1, f) == 1;
	}
	if (ok && h.name_bytes) {
		sum = fnv(sum, l->names, h.name_bytes);
		ok = fwrite(l->names, 1, h.name_bytes, f) == h.name_bytes;
	}
	ok = ok && fwrite(&sum, sizeof sum, 1, f) == 1;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		remove(tmp);
		return -1;
	}
	return 0;
}

int srv_lives_load(struct srv_lives *l, const char *hist)
{
	char path[4096];
	struct lv_head want, h;
	struct lv_rec r;
	struct lv_ch c;
	uint64_t sum, stored;
	FILE *f;
	int ok;

	memset(l, 0, sizeof *l);
	snprintf(path, sizeof path, "%s.lives", hist);
	if (head_of(hist, &want) != 0 || !(f = fopen(path, "rb")))
		return -1;
	ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(&h, &want, offsetof(struct lv_head, n)) == 0 &&
	     h.n < (UINT64_C(1) << 32) && h.name_bytes < (UINT64_C(1) << 32) &&
	     h.nch < (UINT64_C(1) << 32) &&
	     (l->v = malloc((h.n ? h.n : 1) * sizeof *l->v)) != NULL &&
	     (l->names = malloc(h.name_bytes ? h.name_bytes : 1)) != NULL &&
	     (l->ch = malloc((h.nch ? h.nch : 1) * sizeof *l->ch)) != NULL;
	sum = fnv(UINT64_C(0xcbf29ce484222325), &h, sizeof h);
	for (uint64_t i = 0; ok && i < h.n; i++) {
		ok = fread(&r, sizeof r, 1, f) == 1 &&
		     (uint64_t)r.name_off + r.name_len <= h.name_bytes &&
		     (uint64_t)r.ch_lo + r.ch_n <= h.nch;
		sum = fnv(sum, &r, sizeof r);
		l->v[i] = (struct srv_life){ r.tid, r.pid, r.ppid, r.thread, r.start,
					     r.end, r.name_off, r.name_len,
					     r.ch_lo, r.ch_n };
	}
	for (uint64_t i = 0; ok && i < h.nch; i++) {
		ok = fread(&c, sizeof c, 1, f) == 1 &&
		     (uint64_t)c.off + c.len <= h.name_bytes;
		sum = fnv(sum, &c, sizeof c);
		l->ch[i] = (struct srv_life_name){ c.start, c.off, c.len };
	}
	ok = ok && fread(l->names, 1, h.name_bytes, f) == h.name_bytes &&
	     fread(&stored, sizeof stored, 1, f) == 1 &&
	     fnv(sum, l->names, h.name_bytes) == stored;
	fclose(f);
	if (!ok) {
		srv_lives_free(l);
		return -1;
	}
	l->n = h.n;
	l->nch = h.nch;
	return 0;
}

const struct srv_lives *srv_hist_lives(struct srv_hq *q)
{
	struct srv_hist *h = q->h;
	struct srv_lives *l;

	if (q->status != SRV_COMPLETED)
		return NULL;
	pthread_mutex_lock(&h->lives_lock);
	if (!h->lives && (l = calloc(1, sizeof *l)) != NULL) {
		if (srv_lives_load(l, h->file) == 0 ||
		    (srv_lives_compute(q, l) == 0 && (srv_lives_save(l, h->file), 1)))
			h->lives = l;
		else
			free(l);
	}
	l = h->lives;
	pthread_mutex_unlock(&h->lives_lock);
	return l;
}
