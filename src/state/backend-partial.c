/*
 * backend-partial.c: building a partial history (thesis §3.3, §4.5).
 *
 * Every N events a checkpoint is placed at the next event that starts a
 * new timestamp; only the intervals that hold some checkpoint's time - 1
 * go to the history tree.  With them, the full state at any checkpoint is
 * known; any other state is rebuilt by replaying the trace from the
 * checkpoint before it (partial.c).  The file also keeps the checkpoints
 * (section 3) and the time each attribute's type was fixed (section 4),
 * so that a replay refuses exactly the changes the first run refused.
 */
#include <stdlib.h>

#include "state/state-int.h"
#include "util/buf.h"

#define DEFAULT_EVERY 50000u

struct pbuild {
	sht_state *ss;               /* for the type locks at finish */
	sht_builder *b;
	struct sht__ckpt *cp;
	size_t n, cap;
	uint64_t every;              /* events between checkpoints */
	uint64_t events;             /* seen so far */
	uint64_t next_at;            /* next checkpoint at this index or later */
	sht_time last_ts;
	uint64_t kept, dropped;      /* intervals */
};

int sht__crosses(const struct sht__ckpt *cp, size_t n, sht_time s, sht_time e)
{
	size_t lo = 1, hi = n;

	/* first checkpoint k >= 1 with ts - 1 >= s */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp[mid].ts - 1 < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && cp[lo].ts - 1 <= e;
}

sht_err sht__backend_partial_create(sht_state *ss, const char *path,
				    const sht_state_opts *opts, void **out)
{
	struct pbuild *p = calloc(1, sizeof *p);
	sht_err err;

	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the partial backend");
	p->ss = ss;
	p->every = opts->checkpoint_events ? opts->checkpoint_events : DEFAULT_EVERY;
	err = sht__backend_tree_create(path, ss->start, &opts->tree, (void **)&p->b);
	if (err != SHT_OK) {
		free(p);
		return err;
	}
	*out = p;
	return SHT_OK;
}

static sht_err add_checkpoint(struct pbuild *p, const sht_event *ev)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct sht__ckpt *c = realloc(p->cp, cap * sizeof *c);
		if (!c)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow the checkpoint list");
		p->cp = c;
		p->cap = cap;
	}
	p->cp[p->n].attrs = p->ss->ncur;
	p->cp[p->n].index = p->events;
	p->cp[p->n].pos = ev->pos;
	p->cp[p->n].ts = ev->ts;
	p->n++;
	p->next_at = p->events + p->every;
	return SHT_OK;
}

sht_err sht__partial_event(void *be, const sht_event *ev)
{
	struct pbuild *p = be;
	sht_err err = SHT_OK;

	if (p->events && ev->ts < p->last_ts)
		return sht__error(SHT_ERR_ORDER, "Cannot run event: index=%llu t=%lld before the previous event at %lld",
				  (unsigned long long)p->events, (long long)ev->ts, (long long)p->last_ts);
	if (p->events == 0 || (p->events >= p->next_at && ev->ts > p->last_ts))
		err = add_checkpoint(p, ev);
	if (err == SHT_OK) {
		p->last_ts = ev->ts;
		p->events++;
	}
	return err;
}

static sht_err partial_insert(void *be, const sht_interval *iv)
{
	struct pbuild *p = be;

	if (!sht__crosses(p->cp, p->n, iv->start, iv->end)) {
		p->dropped++;
		return SHT_OK;
	}
	p->kept++;
	return sht_builder_insert(p->b, iv);
}

/* Section 3: u64 count, u64 every, u64 events, then per checkpoint u64
 * index, u64 pos, i64 ts, u64 attributes. */
static sht_err write_checkpoints(struct pbuild *p)
{
	size_t len = 24 + 32 * p->n;
	uint8_t *buf = malloc(len);
	sht_err err;

	if (!buf)
		return sht__error(SHT_ERR_NOMEM, "Cannot encode %zu checkpoints", p->n);
	sht__put_u64(buf, p->n);
	sht__put_u64(buf + 8, p->every);
	sht__put_u64(buf + 16, p->events);
	for (size_t i = 0; i < p->n; i++) {
		uint8_t *e = buf + 24 + 32 * i;
		sht__put_u64(e, p->cp[i].index);
		sht__put_u64(e + 8, p->cp[i].pos);
		sht__put_u64(e + 16, (uint64_t)p->cp[i].ts);
		sht__put_u64(e + 24, p->cp[i].attrs);
	}
	err = sht_builder_add_section(p->b, SHT__SECTION_CHECKPOINTS, 1, buf, len);
	free(buf);
	return err;
}

/* Section 4: u64 count, then per quark u8 type (0: none), and i64 time
 * when the type is not 0. */
static sht_err write_types(struct pbuild *p)
{
	const sht_state *ss = p->ss;
	uint8_t *buf = malloc(8 + 9 * (ss->ncur ? ss->ncur : 1));
	size_t len = 8;
	sht_err err;

	if (!buf)
		return sht__error(SHT_ERR_NOMEM, "Cannot encode the type locks");
	sht__put_u64(buf, ss->ncur);
	for (size_t q = 0; q < ss->ncur; q++) {
		buf[len++] = ss->cur[q].locked;
		if (ss->cur[q].locked) {
			sht__put_u64(buf + len, (uint64_t)ss->locked_at[q]);
			len += 8;
		}
	}
	err = sht_builder_add_section(p->b, SHT__SECTION_TYPES, 1, buf, len);
	free(buf);
	return err;
}

static sht_err partial_finish(void *be, sht_time end, const void *attrs,
			      size_t attrs_len, const void *prov, size_t prov_len)
{
	struct pbuild *p = be;
	sht_err err = write_checkpoints(p);

	if (err == SHT_OK)
		err = write_types(p);
	if (err == SHT_OK)
		err = sht__backend_tree.finish(p->b, end, attrs, attrs_len, prov, prov_len);
	return err;
}

static sht_err partial_no_query(void)
{
	return sht__error(SHT_ERR_STATE, "Cannot query a partial history before it is finished and opened with its trace");
}

static sht_err partial_query(void *be, sht_quark q, sht_time t, sht_result *res)
{
	(void)be; (void)q; (void)t;
	sht_result_clear(res);
	return partial_no_query();
}

static sht_err partial_query_full(void *be, sht_time t, sht_result *res)
{
	return partial_query(be, 0, t, res);
}

static sht_err partial_query_2d(void *be, const sht_query2d *q, sht_result *res)
{
	return partial_query(be, 0, q->t1, res);
}

static void partial_destroy(void *be)
{
	struct pbuild *p = be;

	if (!p)
		return;
	sht_builder_close(p->b);
	free(p->cp);
	free(p);
}

static sht_err partial_add_section(void *be, uint32_t kind, uint32_t version,
				   const void *data, size_t len)
{
	struct pbuild *p = be;

	return sht_builder_add_section(p->b, kind, version, data, len);
}

const struct sht__backend_ops sht__backend_partial = {
	"partial", partial_insert, partial_finish, partial_query,
	partial_query_full, partial_query_2d, partial_destroy,
	partial_add_section,
};

/* ---- resumable builds (resume.c) ----------------------------------------- */

sht_builder *sht__partial_builder(void *be)
{
	return ((struct pbuild *)be)->b;
}

void sht__partial_save(void *be, struct sht__wbuf *w)
{
	const struct pbuild *p = be;

	sht__w_u64(w, p->every);
	sht__w_u64(w, p->events);
	sht__w_u64(w, p->next_at);
	sht__w_u64(w, (uint64_t)p->last_ts);
	sht__w_u64(w, p->kept);
	sht__w_u64(w, p->dropped);
	sht__w_u64(w, p->n);
	for (size_t i = 0; i < p->n; i++) {
		sht__w_u64(w, p->cp[i].attrs);
		sht__w_u64(w, p->cp[i].index);
		sht__w_u64(w, p->cp[i].pos);
		sht__w_u64(w, (uint64_t)p->cp[i].ts);
	}
}

void sht__partial_set_builder(void *be, sht_builder *b)
{
	((struct pbuild *)be)->b = b;
}

sht_err sht__partial_resume(sht_state *ss, const sht_state_opts *opts,
			    struct sht__rbuf *r, void **out)
{
	struct pbuild *p = calloc(1, sizeof *p);
	uint64_t n;

	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	p->ss = ss;
	p->every = sht__r_u64(r);
	p->events = sht__r_u64(r);
	p->next_at = sht__r_u64(r);
	p->last_ts = (sht_time)sht__r_u64(r);
	p->kept = sht__r_u64(r);
	p->dropped = sht__r_u64(r);
	n = sht__r_u64(r);
	if (r->bad || n > (r->n - r->off) / 32 ||
	    p->every != (opts->checkpoint_events ? opts->checkpoint_events : DEFAULT_EVERY)) {
		uint64_t every = p->every;
		free(p);
		return sht__error(r->bad || every == 0 ? SHT_ERR_CORRUPT : SHT_ERR_INVALID,
				  "Cannot resume the build: its checkpoints are damaged, or "
				  "were placed every %llu events", (unsigned long long)every);
	}
	if (n && !(p->cp = malloc(n * sizeof *p->cp))) {
		free(p);
		return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		p->cp[i].attrs = sht__r_u64(r);
		p->cp[i].index = sht__r_u64(r);
		p->cp[i].pos = sht__r_u64(r);
		p->cp[i].ts = (sht_time)sht__r_u64(r);
	}
	p->n = p->cap = (size_t)n;
	*out = p;
	return SHT_OK;
}
