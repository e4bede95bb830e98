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
	c->info.rebuilds++;
	err = sht__ctfp_restart(c->par, (const char *const *)c->dirs);
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

sht_err sht__ctf_seek(void *src, uint64_t pos)
{
	struct sht_ctf *c = src;
	int mismatch = 0;
	sht_err err;

	if (c->failed != SHT_OK)
		return sht__ctf_failed(c);
	if (pos == c->ordinal)
		return SHT_OK;
	if (pos < c->ordinal) {
		err = ctf_reposition(c);
		if (err != SHT_OK)
			return err;
	}
	err = ctf_skip_to(c, pos, &mismatch);
	if (err == SHT_OK && mismatch)
		return sht__ctf_mismatch(c);
	return err;
}
