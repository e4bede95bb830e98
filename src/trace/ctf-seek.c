/*
 * ctf-seek.c: seek() of a CTF source and its sparse index (ctf-int.h,
 * invariants 2 and 3).  Positions are event ordinals: a seek forward reads
 * on, a seek backward rebuilds the graph and skips; every index mark met
 * again is checked against the first read.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "ctf-par.h"
#include "util/util.h"

#define CTF_READ_ON_EVERY 4u    /* index spacings read on rather than seek */
#define CTF_EVENTS_PER_MS 2000u  /* about what babeltrace2 decodes in 1 ms */

/* ---- the sparse index --------------------------------------------------- */

/* Room for one more mark. */
static sht_err ctf_marks_grow(struct sht_ctf *c)
{
	size_t cap = c->cap_marks ? 2 * c->cap_marks : 64;
	struct ctf_mark *nm = realloc(c->marks, cap * sizeof *nm);

	if (!nm) {
		c->failed = SHT_ERR_NOMEM;
		return sht__error(SHT_ERR_NOMEM, "Cannot index CTF trace: "
				  "path=%s: out of memory", c->path);
	}
	c->marks = nm;
	c->cap_marks = cap;
	return SHT_OK;
}

sht_err sht__ctf_mark(struct sht_ctf *c, uint64_t o, int64_t ts,
		      uint64_t before, int *mismatch)
{
	size_t k = (size_t)(o / c->every);

	if (k < c->n_marks) {
		if (c->marks[k].ts != ts || c->marks[k].before != before)
			*mismatch = 1;
	} else if (k == c->n_marks) {
		if (c->n_marks == c->cap_marks) {
			sht_err err = ctf_marks_grow(c);
			if (err != SHT_OK)
				return err;
		}
		c->marks[k].ts = ts;
		c->marks[k].before = before;
		c->n_marks++;
	}
	return SHT_OK;
}

sht_err sht__ctf_mismatch(struct sht_ctf *c)
{
	c->failed = SHT_ERR_CORRUPT;
	return sht__error(SHT_ERR_CORRUPT, "Cannot read CTF trace: path=%s "
			  "ordinal=%" PRIu64 ": events come in another order "
			  "than on the first read, positions are unreliable",
			  c->path, c->ordinal - 1);
}

/* ---- seek --------------------------------------------------------------- */

/* The stream reader from the beginning of the trace. */
static sht_err ctf_restart(struct sht_ctf *c)
{
	sht_err err;

	c->cur_rec = NULL;
	c->look = NULL;
	c->at_end = 0;
	c->dropping = 0;
	c->info.rebuilds++;
	err = sht__ctfp_restart(c->par, (const char *const *)c->dirs, INT64_MIN);
	sht__ctf_view_free(&c->par->view);
	if (err != SHT_OK)
		c->failed = err;
	c->ordinal = 0;
	return err;
}

/* Reposition babeltrace2 at the beginning (seek, else a new graph);
 * ordinal becomes 0. */
static sht_err ctf_reposition(struct sht_ctf *c)
{
	sht_err err;

	c->have_last = 0;
	c->run = 0;
	c->info.seeks++;
	if (c->par)
		return ctf_restart(c);
	sht__ctf_drop_messages(c);
	err = sht__ctf_run(c, CTF_REQ_SEEK_BEGIN);
	if (err != SHT_OK)
		return err;
	if (c->seeked == CTF_SEEKED_BEGIN) {
		c->ordinal = 0;
		return SHT_OK;
	}
	sht__ctf_graph_destroy(c);
	c->info.rebuilds++;
	err = sht__ctf_graph_build(c);
	if (err != SHT_OK)
		c->failed = err;
	return err;
}

/* Read and drop events until ordinal is pos (stops early on a mark
 * mismatch, setting *mismatch). */
static sht_err ctf_skip_to(struct sht_ctf *c, uint64_t pos, int *mismatch)
{
	while (c->ordinal < pos) {
		int64_t ts;
		uint64_t ord;
		sht_err err = sht__ctf_advance(c, &ts, &ord, mismatch);

		if (err == SHT_END)
			return sht__error(SHT_ERR_RANGE, "Cannot seek CTF trace: "
					  "path=%s pos=%" PRIu64 ": the trace "
					  "has %" PRIu64 " events", c->path, pos,
					  c->ordinal);
		if (err != SHT_OK)
			return err;
		if (*mismatch)
			return SHT_OK;
		c->info.seek_skipped++;
	}
	return SHT_OK;
}

/* ---- the stream reader: seeks through the packet index ----------------- */

/* The first event of the time of pos's mark (or of the last mark): its
 * time and ordinal, 1; or 0 without a mark. */
static int ctf_anchor(const struct sht_ctf *c, uint64_t pos, int64_t *ts,
		      uint64_t *ord)
{
	size_t k = (size_t)(pos / c->every);

	if (!c->n_marks)
		return 0;
	if (k >= c->n_marks)
		k = c->n_marks - 1;
	*ts = c->marks[k].ts;
	*ord = (uint64_t)k * c->every - c->marks[k].before;
	return 1;
}

/* The stream reader before the first event at or after ts, whose ordinal
 * is ord: a view seek, else (no packet table) from the beginning. */
static sht_err par_goto(struct sht_ctf *c, int64_t ts, uint64_t ord)
{
	sht_err err = sht__ctfp_seek_view(c, ts);

	if (err == SHT_NOT_FOUND)
		return ctf_reposition(c);
	if (err != SHT_OK) {
		c->failed = err;
		return err;
	}
	c->ordinal = ord;
	c->have_last = 0;
	c->run = 0;
	c->info.seeks++;
	c->info.packet_seeks++;
	return SHT_OK;
}

/* Events worth reading on rather than seeking: four index spacings, and
 * what decodes in the time a view seek spends building its graphs (the
 * metadata is parsed again: from 1 ms for a small one to 100 ms for a
 * real kernel trace's). */
static uint64_t ctf_read_on(const struct sht_ctf *c)
{
	return (uint64_t)CTF_READ_ON_EVERY * c->every +
	       (uint64_t)(c->par->build_ms * CTF_EVENTS_PER_MS);
}

/* Where a seek to pos starts reading (have_ts: pos is the first event at
 * or after ts): on from here if pos is near or the best anchor is behind
 * us, else a view seek. */
static sht_err par_start(struct sht_ctf *c, uint64_t pos, int have_ts, int64_t ts)
{
	int64_t ats;
	uint64_t aord;

	if (pos > c->ordinal && pos - c->ordinal <= ctf_read_on(c))
		return SHT_OK;
	if (have_ts)
		return par_goto(c, ts, pos);
	if (ctf_anchor(c, pos, &ats, &aord) && (pos < c->ordinal || aord > c->ordinal))
		return aord ? par_goto(c, ats, aord) : ctf_reposition(c);
	return pos < c->ordinal ? ctf_reposition(c) : SHT_OK;
}

/* The stream reader's current record becomes the next one again. */
static void par_unread(struct sht_ctf *c)
{
	c->look = c->cur_rec;
	c->look_s = c->cur_s;
	c->cur_rec = NULL;
	c->ordinal--;
	c->have_last = c->prev_have_last;
	c->last_ts = c->prev_last_ts;
	c->run = c->prev_run;
}

static sht_err ctf_seek_to(struct sht_ctf *c, uint64_t pos, int have_ts, int64_t ts)
{
	int mismatch = 0;
	sht_err err;

	if (c->failed != SHT_OK)
		return sht__ctf_failed(c);
	if (pos == c->ordinal)
		return SHT_OK;
	if (c->par && c->cur_rec && !c->look && pos + 1 == c->ordinal) {
		par_unread(c);           /* one back: it is still here */
		return SHT_OK;
	}
	if (c->par)
		err = par_start(c, pos, have_ts, ts);
	else
		err = pos < c->ordinal ? ctf_reposition(c) : SHT_OK;
	if (err != SHT_OK)
		return err;
	err = ctf_skip_to(c, pos, &mismatch);
	if (err == SHT_OK && mismatch)
		return sht__ctf_mismatch(c);
	return err;
}

sht_err sht__ctf_seek(void *src, uint64_t pos)
{
	return ctf_seek_to(src, pos, 0, 0);
}

sht_err sht__ctf_seek_at(void *src, uint64_t pos, sht_time ts)
{
	return ctf_seek_to(src, pos, 1, ts);
}

/* ---- seeks by time ------------------------------------------------------- */

/* The first event of the last mark before t: its time and ordinal, 1; or
 * 0 (none). */
static int ctf_anchor_before(const struct sht_ctf *c, int64_t t, int64_t *ts,
			     uint64_t *ord)
{
	size_t lo = 0, hi = c->n_marks;

	while (lo < hi) {                /* first mark at or after t */
		size_t mid = lo + (hi - lo) / 2;
		if (c->marks[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	*ts = c->marks[lo - 1].ts;
	*ord = (uint64_t)(lo - 1) * c->every - c->marks[lo - 1].before;
	return 1;
}

/* Read on to the first event at or after t, leaving it to be delivered
 * next (the stream reader keeps its record; the babeltrace2 graph seeks to
 * its ordinal again). */
static sht_err ctf_read_to_time(struct sht_ctf *c, int64_t t)
{
	for (;;) {
		uint64_t high = c->high, ord;
		int mismatch = 0;
		int64_t ts;
		sht_err err = sht__ctf_advance(c, &ts, &ord, &mismatch);

		if (err == SHT_END)
			return SHT_OK;   /* at the end: past the last event */
		if (err != SHT_OK)
			return err;
		if (mismatch)
			return sht__ctf_mismatch(c);
		if (ts < t) {
			c->info.seek_skipped++;
			continue;
		}
		if (!c->par)
			return sht__ctf_seek(c, ord);
		par_unread(c);           /* delivered again by next() */
		c->high = high;
		return SHT_OK;
	}
}

sht_err sht_ctf_seek_time(const sht_source *src, sht_time t, uint64_t *pos)
{
	struct sht_ctf *c = sht__ctf_of(src);
	int64_t ats = 0;
	uint64_t aord = 0;
	sht_err err;

	if (!c)
		return sht__error(SHT_ERR_INVALID, "Cannot seek by time: not a CTF source");
	if (c->failed != SHT_OK)
		return sht__ctf_failed(c);
	int anchored = ctf_anchor_before(c, t, &ats, &aord);
	/* The first event at or after t is ahead of us unless we passed t. */
	int ahead = !c->have_last || c->last_ts < t;

	if (ahead && (!anchored || c->ordinal >= aord))
		err = SHT_OK;                      /* read on from here */
	else if (anchored && c->par)
		err = par_goto(c, ats, aord);
	else if (anchored)
		err = ctf_seek_to(c, aord, 0, 0);
	else
		err = ctf_reposition(c);
	if (err == SHT_OK)
		err = ctf_read_to_time(c, t);
	if (err == SHT_OK && pos)
		*pos = c->ordinal;
	return err;
}

sht_err sht_ctf_index(const sht_source *src, uint64_t *events)
{
	struct sht_ctf *c = sht__ctf_of(src);
	uint64_t back;
	int mismatch = 0;
	sht_err err;

	if (!c)
		return sht__error(SHT_ERR_INVALID, "Cannot index: not a CTF source");
	if (c->failed != SHT_OK)
		return sht__ctf_failed(c);
	back = c->ordinal;
	for (;;) {
		int64_t ts;
		uint64_t ord;

		err = sht__ctf_advance(c, &ts, &ord, &mismatch);
		if (err != SHT_OK || mismatch)
			break;
	}
	if (mismatch)
		return sht__ctf_mismatch(c);
	if (err != SHT_END)
		return err;
	if (events)
		*events = c->ordinal;
	return ctf_seek_to(c, back, 0, 0);
}
