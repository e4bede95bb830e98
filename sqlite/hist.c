/*
 * hist.c: the histories the SQL functions read: opened once per
 * connection and kept in a small cache (a statement usually names the
 * same file as the previous one), attribute paths built on demand, and
 * path patterns matched against the attribute tree.
 *
 * A cached history is reused only while the file on disk is the one that
 * was opened (same device, inode, modification time and size): a history
 * rebuilt under the same name (sht build writes a new file and renames
 * it) is opened again.  Partial histories are refused: their tree holds
 * only the intervals that cross a checkpoint, and answering from it alone
 * would be wrong.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "shtsql.h"

/* Section kind of a partial history's checkpoints (docs/FORMAT.md §10). */
#define SHTSQL_SECTION_CHECKPOINTS 3u

char *shtsql_errmsg(const char *who, const char *what)
{
	const char *m = sht_errmsg();

	return sqlite3_mprintf("%s: %s%s%s", who, what, *m ? ": " : "", m);
}

static void hist_free(struct shtsql_hist *h)
{
	if (!h)
		return;
	if (h->paths)
		for (uint64_t q = 0; q < h->nattrs; q++)
			sqlite3_free(h->paths[q]);
	sqlite3_free(h->paths);
	sqlite3_free(h->plen);
	sqlite3_free(h->pindex);
	sht_state_close(h->ss);
	sqlite3_free(h->name);
	sqlite3_free(h);
}

void shtsql_hist_put(struct shtsql_hist *h)
{
	if (h && --h->refs == 0)
		hist_free(h);
}

/* Drop h from the cache list (its reference goes with it). */
static void cache_unlink(struct shtsql_cache *c, struct shtsql_hist *h)
{
	for (struct shtsql_hist **p = &c->head; *p; p = &(*p)->next) {
		if (*p == h) {
			*p = h->next;
			c->count--;
			h->next = NULL;
			h->stale = 1;
			shtsql_hist_put(h);
			return;
		}
	}
}

void shtsql_cache_release(struct shtsql_cache *c)
{
	if (!c || --c->users > 0)
		return;
	while (c->head)
		cache_unlink(c, c->head);
	sqlite3_free(c);
}

/* 1 if the history is partial (its checkpoint section exists), 0 if not,
 * -1 on a read error (sht's message set). */
static int is_partial(const char *name)
{
	sht_reader *r;
	void *data = NULL;
	size_t len = 0;
	sht_err err;

	if (sht_reader_open(name, NULL, &r) != SHT_OK)
		return -1;
	err = sht_reader_section(r, SHTSQL_SECTION_CHECKPOINTS, NULL, &data,
				 &len);
	free(data);
	sht_reader_close(r);
	if (err == SHT_NOT_FOUND)
		return 0;
	return err == SHT_OK ? 1 : -1;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int same_file(const struct shtsql_hist *h, const struct stat *st)
{
	return h->dev == st->st_dev && h->ino == st->st_ino &&
	       h->size == st->st_size &&
	       h->mtime.tv_sec == st->st_mtim.tv_sec &&
	       h->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static int open_hist(const char *name, const struct stat *st, const char *who,
		     struct shtsql_hist **out, char **err)
{
	struct shtsql_hist *h = sqlite3_malloc(sizeof *h);
	int partial;

	if (!h)
		return SQLITE_NOMEM;
	memset(h, 0, sizeof *h);
	h->name = sqlite3_mprintf("%s", name);
	if (!h->name) {
		sqlite3_free(h);
		return SQLITE_NOMEM;
	}
	h->dev = st->st_dev;
	h->ino = st->st_ino;
	h->mtime = st->st_mtim;
	h->size = st->st_size;
	h->refs = 1;
	h->slashes = -1;
	if (sht_state_open(name, NULL, &h->ss) != SHT_OK) {
		char *what = sqlite3_mprintf("cannot open the history %s", name);

		*err = what ? shtsql_errmsg(who, what) : NULL;
		sqlite3_free(what);
		hist_free(h);
		return SQLITE_ERROR;
	}
	partial = is_partial(name);
	if (partial != 0) {
		*err = partial > 0
		       ? sqlite3_mprintf("%s: %s is a partial history (sht build "
					 "--partial): its queries replay the trace, "
					 "which SQL cannot do; build a full history",
					 who, name)
		       : shtsql_errmsg(who, "cannot read the sections");
		hist_free(h);
		return SQLITE_ERROR;
	}
	h->start = sht_state_start(h->ss);
	h->end = sht_state_end(h->ss);
	h->nattrs = sht_state_attr_count(h->ss);
	*out = h;
	return SQLITE_OK;
}

int shtsql_hist_get(struct shtsql_cache *c, const char *name, const char *who,
		    struct shtsql_hist **out, char **err)
{
	struct shtsql_hist *h, *last = NULL;
	struct stat st;
	int64_t now = mono_ns();
	int rc;

	*err = NULL;
	/* The most recent history, looked at less than a moment ago. */
	h = c->head;
	if (h && now - h->checked < SHTSQL_RECHECK_NS && strcmp(h->name, name) == 0) {
		h->refs++;
		*out = h;
		return SQLITE_OK;
	}
	if (stat(name, &st) != 0) {
		*err = sqlite3_mprintf("%s: cannot open the history %s: %s", who,
				       name, strerror(errno));
		return SQLITE_ERROR;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = sqlite3_mprintf("%s: cannot open the history %s: not a "
				       "regular file", who, name);
		return SQLITE_ERROR;
	}
	for (h = c->head; h; last = h, h = h->next) {
		if (strcmp(h->name, name) != 0)
			continue;
		if (!same_file(h, &st)) {
			cache_unlink(c, h);
			break;
		}
		if (last) {              /* move to the front */
			last->next = h->next;
			h->next = c->head;
			c->head = h;
		}
		h->checked = now;
		h->refs++;
		*out = h;
		return SQLITE_OK;
	}
	rc = open_hist(name, &st, who, &h, err);
	if (rc != SQLITE_OK)
		return rc;
	h->checked = now;
	h->next = c->head;
	c->head = h;
	c->count++;
	while (c->count > SHTSQL_CACHE_MAX) {
		for (last = c->head; last->next; last = last->next)
			;
		cache_unlink(c, last);
	}
	h->refs++;
	*out = h;
	return SQLITE_OK;
}

/* ---- paths -------------------------------------------------------------- */

/* The path of q from its parent's (built) and its name. */
static char *join_path(struct shtsql_hist *h, sht_quark q, uint32_t *len)
{
	const char *name;
	size_t nlen;
	sht_quark parent;
	uint32_t plen = 0;
	char *p;

	if (sht_state_attr_name(h->ss, q, &name, &nlen) != SHT_OK ||
	    sht_state_attr_parent(h->ss, q, &parent) != SHT_OK)
		return NULL;
	if (parent != SHT_QUARK_ROOT)
		plen = h->plen[parent] + 1;
	if (nlen > SHT_STRING_MAX || plen + nlen > UINT32_MAX - 1)
		return NULL;
	p = sqlite3_malloc64(plen + nlen + 1);
	if (!p)
		return NULL;
	if (plen) {
		memcpy(p, h->paths[parent], plen - 1);
		p[plen - 1] = '/';
	}
	memcpy(p + plen, name, nlen);
	p[plen + nlen] = '\0';
	*len = (uint32_t)(plen + nlen);
	return p;
}

/* Allocate the path table on first use. */
static int paths_init(struct shtsql_hist *h)
{
	if (h->paths)
		return 1;
	h->paths = sqlite3_malloc64(h->nattrs * sizeof *h->paths);
	h->plen = sqlite3_malloc64(h->nattrs * sizeof *h->plen);
	if (!h->paths || !h->plen) {
		sqlite3_free(h->paths);
		sqlite3_free(h->plen);
		h->paths = NULL;
		h->plen = NULL;
		return 0;
	}
	memset(h->paths, 0, h->nattrs * sizeof *h->paths);
	return 1;
}

const char *shtsql_path(struct shtsql_hist *h, sht_quark q, uint32_t *len)
{
	sht_quark *chain = NULL, *grown, at = q, parent;
	size_t n = 0, cap = 0;

	if (q >= h->nattrs || !paths_init(h))
		return NULL;
	/* The ancestors without a path yet, q first (a loop, not recursion:
	 * the tree may be deep), then built from the farthest one down. */
	while (!h->paths[at]) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = sqlite3_realloc64(chain, cap * sizeof *chain);
			if (!grown)
				goto fail;
			chain = grown;
		}
		chain[n++] = at;
		if (sht_state_attr_parent(h->ss, at, &parent) != SHT_OK ||
		    (parent != SHT_QUARK_ROOT && parent >= h->nattrs) ||
		    n > h->nattrs)
			goto fail;
		if (parent == SHT_QUARK_ROOT)
			break;
		at = parent;
	}
	while (n > 0) {
		at = chain[--n];
		h->paths[at] = join_path(h, at, &h->plen[at]);
		if (!h->paths[at])
			goto fail;
	}
	sqlite3_free(chain);
	*len = h->plen[q];
	return h->paths[q];
fail:
	sqlite3_free(chain);
	return NULL;
}

static int cmp_quark(const void *a, const void *b);

/* 1 if some attribute name holds a "/" (then a path string can name
 * several attributes, or one that the "/"-split look-up misses). */
static int names_with_slash(struct shtsql_hist *h)
{
	const char *name;
	size_t len;

	for (uint64_t q = 0; q < h->nattrs; q++)
		if (sht_state_attr_name(h->ss, (sht_quark)q, &name, &len) == SHT_OK &&
		    memchr(name, '/', len))
			return 1;
	return 0;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = UINT64_C(1469598103934665603);

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
	return h;
}

/* The path index: every attribute by the hash of its path, so that an
 * exact path costs one probe even when names hold "/" (then the
 * "/"-split look-up of the attribute tree cannot find them). */
static int build_pindex(struct shtsql_hist *h)
{
	size_t cap = 16;
	uint32_t len;
	const char *p;

	while (cap < 2 * h->nattrs + 2)
		cap *= 2;
	h->pindex = sqlite3_malloc64(cap * sizeof *h->pindex);
	if (!h->pindex)
		return SQLITE_NOMEM;
	memset(h->pindex, 0, cap * sizeof *h->pindex);
	h->pindex_cap = cap;
	for (uint64_t q = 0; q < h->nattrs; q++) {
		size_t k;

		if (!(p = shtsql_path(h, (sht_quark)q, &len)))
			return SQLITE_NOMEM;
		k = hash_bytes(p, len) & (cap - 1);
		while (h->pindex[k])
			k = (k + 1) & (cap - 1);
		h->pindex[k] = (uint32_t)q + 1;
	}
	return SQLITE_OK;
}

int shtsql_path_quarks(struct shtsql_hist *h, const char *text, size_t len,
		       sht_quark **out, size_t *n)
{
	sht_quark q, *all = NULL, *grown;
	size_t k = 0, cap = 0, at;
	uint32_t plen;
	const char *p;
	int rc;

	*out = NULL;
	*n = 0;
	if (h->slashes < 0)
		h->slashes = names_with_slash(h);
	if (!h->slashes) {
		if (memchr(text, '\0', len) ||
		    sht_state_quark_path(h->ss, text, false, &q) != SHT_OK)
			return SQLITE_OK;
		if (!(*out = sqlite3_malloc(sizeof q)))
			return SQLITE_NOMEM;
		**out = q;
		*n = 1;
		return SQLITE_OK;
	}
	if (!h->pindex && (rc = build_pindex(h)) != SQLITE_OK) {
		sqlite3_free(h->pindex);
		h->pindex = NULL;
		return rc;
	}
	for (at = hash_bytes(text, len) & (h->pindex_cap - 1); h->pindex[at];
	     at = (at + 1) & (h->pindex_cap - 1)) {
		q = h->pindex[at] - 1;
		p = shtsql_path(h, q, &plen);
		if (!p)
			goto nomem;
		if (plen != len || memcmp(p, text, len) != 0)
			continue;
		if (k == cap) {
			cap = cap ? 2 * cap : 4;
			if (!(grown = sqlite3_realloc64(all, cap * sizeof *all)))
				goto nomem;
			all = grown;
		}
		all[k++] = q;
	}
	if (k > 1)
		qsort(all, k, sizeof *all, cmp_quark);
	*out = all;
	*n = k;
	return SQLITE_OK;
nomem:
	sqlite3_free(all);
	return SQLITE_NOMEM;
}

/* ---- pattern matching --------------------------------------------------- */

struct qlist {
	sht_quark *q;
	size_t n, cap;
};

static int qlist_add(struct qlist *l, sht_quark q)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		sht_quark *p = sqlite3_realloc64(l->q, cap * sizeof *p);

		if (!p)
			return SQLITE_NOMEM;
		l->q = p;
		l->cap = cap;
	}
	l->q[l->n++] = q;
	return SQLITE_OK;
}

static int cmp_quark(const void *a, const void *b)
{
	sht_quark x = *(const sht_quark *)a, y = *(const sht_quark *)b;

	return x < y ? -1 : x > y;
}

/* The attribute the literal prefix of a GLOB names up to its last "/"
 * before a wildcard, or SHT_QUARK_ROOT (walk everything). */
static sht_quark glob_base(struct shtsql_hist *h, const char *glob)
{
	size_t lit = strcspn(glob, "*?[");
	sht_quark q;
	char *prefix;

	while (lit > 0 && glob[lit - 1] != '/')
		lit--;
	if (lit <= 1)
		return SHT_QUARK_ROOT;
	prefix = sqlite3_mprintf("%.*s", (int)(lit - 1), glob);
	if (!prefix)
		return SHT_QUARK_ROOT;
	/* Not found (or an element holding "/"): walk everything. */
	if (sht_state_quark_path(h->ss, prefix, false, &q) != SHT_OK)
		q = SHT_QUARK_ROOT;
	sqlite3_free(prefix);
	return q;
}

static int test_path(struct shtsql_hist *h, sht_quark q, const char *pattern,
		     int like, struct qlist *l)
{
	uint32_t len;
	const char *p = shtsql_path(h, q, &len);

	if (!p)
		return SQLITE_NOMEM;
	if ((like ? sqlite3_strlike(pattern, p, 0) : sqlite3_strglob(pattern, p)) == 0)
		return qlist_add(l, q);
	return SQLITE_OK;
}

/* Every descendant of base (not base itself). */
static int walk_subtree(struct shtsql_hist *h, sht_quark base,
			const char *pattern, struct qlist *l)
{
	struct qlist todo = { NULL, 0, 0 };
	const sht_quark *kids;
	size_t nk;
	int rc = qlist_add(&todo, base);

	while (rc == SQLITE_OK && todo.n > 0) {
		sht_quark q = todo.q[--todo.n];

		if (q != base)
			rc = test_path(h, q, pattern, 0, l);
		if (rc == SQLITE_OK &&
		    sht_state_attr_children(h->ss, q, &kids, &nk) != SHT_OK)
			rc = SQLITE_ERROR;
		for (size_t i = 0; rc == SQLITE_OK && i < nk; i++)
			rc = qlist_add(&todo, kids[i]);
	}
	sqlite3_free(todo.q);
	return rc;
}

int shtsql_match(struct shtsql_hist *h, const char *pattern, int like,
		 sht_quark **out, size_t *n, char **err)
{
	struct qlist l = { NULL, 0, 0 };
	sht_quark base = like ? SHT_QUARK_ROOT : glob_base(h, pattern);
	int rc = SQLITE_OK;

	if (base == SHT_QUARK_ROOT) {
		for (uint64_t q = 0; rc == SQLITE_OK && q < h->nattrs; q++)
			rc = test_path(h, (sht_quark)q, pattern, like, &l);
	} else {
		rc = walk_subtree(h, base, pattern, &l);
		if (l.n > 1)
			qsort(l.q, l.n, sizeof *l.q, cmp_quark);
	}
	if (rc != SQLITE_OK) {
		sqlite3_free(l.q);
		*err = rc == SQLITE_NOMEM ? NULL
		       : shtsql_errmsg("sht_intervals", "cannot read the attribute tree");
		return rc;
	}
	*out = l.q;
	*n = l.n;
	return SQLITE_OK;
}
