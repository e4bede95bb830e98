/*
 * lives.h: the thread lifetimes of a kernel history (lives.c), the rows of
 * the Control Flow view.
 */
#ifndef SHT_SERVER_LIVES_H
#define SHT_SERVER_LIVES_H

#include "srv.h"

/* One lifetime of a thread. */
struct srv_life {
	int64_t tid, pid, ppid;   /* pid, ppid at the end; 0 if unknown */
	sht_quark thread;         /* Threads/<x> */
	sht_time start, end;      /* first and last instants of its name */
	uint32_t name_off, name_len; /* its latest name in names */
	uint32_t ch_lo, ch_n;     /* its names over time: ch[ch_lo, + ch_n) */
};

/* A lifetime's name from start on (until the next change). */
struct srv_life_name {
	sht_time start;
	uint32_t off, len;        /* in names */
};

struct srv_lives {
	struct srv_life *v;       /* sorted by (tid, start) */
	size_t n;
	char *names;
	struct srv_life_name *ch; /* by lifetime, then start */
	size_t nch;
};

/* Lifetime l's name at t (l->start <= t <= l->end); *len its length. */
const char *srv_life_name_at(const struct srv_lives *ls, const struct srv_life *l,
			     sht_time t, size_t *len);

/* The lifetimes of the history q holds (empty if it has nothing yet). */
int srv_lives_compute(struct srv_hq *q, struct srv_lives *out);
void srv_lives_free(struct srv_lives *l);
/* Kept beside the history file hist (hist + ".lives"); load checks that
 * it belongs to that very file. */
int srv_lives_save(const struct srv_lives *l, const char *hist);
int srv_lives_load(struct srv_lives *l, const char *hist);
/* The lifetimes of a complete history, computed (or loaded) once and
 * kept with it; NULL while it is being built (compute them then). */
const struct srv_lives *srv_hist_lives(struct srv_hq *q);

#endif /* SHT_SERVER_LIVES_H */
