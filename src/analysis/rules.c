/*
 * rules.c: a compiled rules program as a provider: construction helpers
 * for the front ends, event dispatch (the handlers of an event name are
 * found once per distinct name, by exact name or "*" pattern, and kept in
 * a hash table), and the quark-cache generation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules-int.h"
#include "util/util.h"

/* ---- construction ------------------------------------------------------- */

sht_err sht__rules_new(sht_rules **out)
{
	sht_rules *r = calloc(1, sizeof *r);

	if (!r)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate a rules program");
	*out = r;
	return SHT_OK;
}

sht_err sht__rules_add_handler(sht_rules *r, const char *pattern,
			       struct rl_handler **h)
{
	struct rl_handler *hs, *n;

	hs = realloc(r->handlers, (r->nhandlers + 1) * sizeof *hs);
	if (!hs)
		return sht__error(SHT_ERR_NOMEM, "Cannot add an event handler");
	r->handlers = hs;
	n = &hs[r->nhandlers];
	memset(n, 0, sizeof *n);
	n->pattern = strdup(pattern);
	if (!n->pattern)
		return sht__error(SHT_ERR_NOMEM, "Cannot add an event handler");
	n->glob = strchr(pattern, '*') != NULL;
	r->nhandlers++;
	*h = n;
	return SHT_OK;
}

void sht__rl_path_free(struct rl_path *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->elems[i].text);
		if (p->elems[i].sub) {
			sht__rl_path_free(p->elems[i].sub);
			free(p->elems[i].sub);
		}
	}
	free(p->elems);
	free(p->psig);
	memset(p, 0, sizeof *p);
}

void sht__rl_value_free(struct rl_value *v)
{
	if (!v)
		return;
	if (v->constant.type == SHT_TYPE_STRING)
		free((char *)(uintptr_t)v->constant.u.str);
	free(v->field);
	free(v->strip);
	free(v->defname);
	if (v->query) {
		sht__rl_path_free(v->query);
		free(v->query);
	}
	memset(v, 0, sizeof *v);
}

void sht__rl_cond_free(struct rl_cond *c)
{
	if (!c)
		return;
	if (c->path) {
		sht__rl_path_free(c->path);
		free(c->path);
	}
	free(c->field);
	if (c->lvalue) {
		sht__rl_value_free(c->lvalue);
		free(c->lvalue);
	}
	sht__rl_value_free(&c->rvalue);
	for (size_t i = 0; i < c->nkids; i++)
		sht__rl_cond_free(&c->kids[i]);
	free(c->kids);
	memset(c, 0, sizeof *c);
}

void sht__rl_change_free(struct rl_change *c)
{
	if (!c)
		return;
	if (c->cond) {
		sht__rl_cond_free(c->cond);
		free(c->cond);
	}
	sht__rl_path_free(&c->path);
	sht__rl_value_free(&c->value);
	if (c->then) {
		sht__rl_change_free(c->then);
		free(c->then);
	}
	if (c->els) {
		sht__rl_change_free(c->els);
		free(c->els);
	}
	for (size_t i = 0; i < c->nseq; i++)
		sht__rl_change_free(&c->seq[i]);
	free(c->seq);
	memset(c, 0, sizeof *c);
}

uint64_t sht__rl_hash(const char *s, size_t *len)
{
	uint64_t h = 0xCBF29CE484222325u;  /* FNV-1a */
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3u;
	*len = (size_t)(p - s);
	return h;
}

void sht__rules_identity(sht_rules *r, const char *buf, size_t len)
{
	r->version = r->declared_version << 24 | (sht__crc32c(0, buf, len) & 0xFFFFFFu);
}

int sht__rl_glob(const char *pat, const char *s)
{
	const char *star = NULL, *back = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			back = s;
		} else if (*pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++back;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

void sht_rules_destroy(sht_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nhandlers; i++) {
		struct rl_handler *h = &r->handlers[i];

		for (size_t j = 0; j < h->nchanges; j++)
			sht__rl_change_free(&h->changes[j]);
		free(h->changes);
		free(h->pattern);
	}
	free(r->handlers);
	for (size_t i = 0; i < r->disp_cap; i++) {
		free(r->disp[i].name);
		free(r->disp[i].handlers);
	}
	free(r->disp);
	free(r->memo);
	for (size_t i = 0; i < r->nsigs; i++)
		free(r->sigs[i]);
	free(r->sigs);
	free(r->sig_tab);
	free(r->ev_memo);
	free(r->dep);
	sht__rules_model_free(r);
	free(r->id);
	free(r);
}

/* ---- dispatch ------------------------------------------------------------ */

static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xCBF29CE484222325u;  /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001B3u;
	return h | 1u;                      /* 0 marks an empty slot */
}

static sht_err disp_grow(sht_rules *r)
{
	size_t cap = r->disp_cap ? r->disp_cap * 2 : 64;
	struct rl_dispatch *t = calloc(cap, sizeof *t);

	if (!t)
		return sht__error(SHT_ERR_NOMEM, "Cannot grow the event-name table");
	for (size_t i = 0; i < r->disp_cap; i++) {
		size_t h;

		if (!r->disp[i].hash)
			continue;
		for (h = r->disp[i].hash & (cap - 1); t[h].hash; h = (h + 1) & (cap - 1))
			;
		t[h] = r->disp[i];
	}
	free(r->disp);
	r->disp = t;
	r->disp_cap = cap;
	memset(r->ptrs, 0, sizeof r->ptrs);   /* slots moved */
	return SHT_OK;
}

/* The handlers matching name, in file order, into the empty slot d. */
static sht_err disp_fill(sht_rules *r, struct rl_dispatch *d, const char *name,
			 uint64_t hash)
{
	d->name = strdup(name);
	if (!d->name)
		return sht__error(SHT_ERR_NOMEM, "Cannot copy an event name");
	d->hash = hash;
	for (size_t i = 0; i < r->nhandlers; i++) {
		const struct rl_handler *h = &r->handlers[i];
		uint32_t *nh;

		if (h->glob ? !sht__rl_glob(h->pattern, name)
			    : strcmp(h->pattern, name) != 0)
			continue;
		nh = realloc(d->handlers, (d->n + 1) * sizeof *nh);
		if (!nh)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow a dispatch list");
		d->handlers = nh;
		d->handlers[d->n++] = (uint32_t)i;
	}
	r->ndisp++;
	return SHT_OK;
}

static sht_err dispatch(sht_rules *r, const char *name, struct rl_dispatch **out)
{
	uintptr_t p = (uintptr_t)name;
	size_t slot = (size_t)(((p >> 3) * 0x9E3779B97F4A7C15u) >> 58) & (RL_PTR_CACHE - 1);
	uint64_t hash;
	size_t h;
	sht_err err;

	if (SHT_LIKELY(r->ptrs[slot].ptr == name && r->ptrs[slot].idx &&
		       strcmp(r->disp[r->ptrs[slot].idx - 1].name, name) == 0)) {
		*out = &r->disp[r->ptrs[slot].idx - 1];
		return SHT_OK;
	}
	if ((r->ndisp + 1) * 2 > r->disp_cap && (err = disp_grow(r)) != SHT_OK)
		return err;
	hash = hash_name(name);
	for (h = hash & (r->disp_cap - 1); r->disp[h].hash; h = (h + 1) & (r->disp_cap - 1)) {
		if (r->disp[h].hash == hash && strcmp(r->disp[h].name, name) == 0)
			break;
	}
	if (!r->disp[h].hash && (err = disp_fill(r, &r->disp[h], name, hash)) != SHT_OK)
		return err;
	r->ptrs[slot].ptr = name;
	r->ptrs[slot].idx = h + 1;
	*out = &r->disp[h];
	return SHT_OK;
}

/* Check the quark cache against the state system at an event's start. */
static void cache_begin(sht_rules *r, sht_state *ss)
{
	int64_t n = sht_state_cacheable_count(ss);

	r->cache_on = n >= 0;
	if (r->cache_on && !r->memo)
		r->memo = calloc(RL_MEMO, sizeof *r->memo);   /* NULL: no memo */
	if (r->cache_on && !r->ev_memo && r->nsigs)
		r->ev_memo = calloc(r->nsigs, sizeof *r->ev_memo);
	if (r->cache_on && ss == r->ss && (uint64_t)n == r->nattrs)
		return;
	if (ss != r->ss && r->dep)
		memset(r->dep, 0, r->ndep * sizeof *r->dep);
	r->ss = ss;
	r->nattrs = r->cache_on ? (uint64_t)n : 0;
	if (++r->gen == 0)
		r->gen = 1;   /* a path's prefix_gen 0 is never valid */
}

static sht_err rules_handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	sht_rules *r = ctx;
	struct rl_dispatch *d;
	sht_err err;

	r->stats.events++;
	if (!ev->name)
		return SHT_OK;
	err = dispatch(r, ev->name, &d);
	if (err != SHT_OK || d->n == 0)
		return err;
	r->stats.handled++;
	r->serial++;
	cache_begin(r, ss);
	for (size_t i = 0; i < d->n; i++) {
		err = sht__rl_run(r, ss, ev, &r->handlers[d->handlers[i]]);
		if (err < 0)
			break;
	}
	/* Attributes created by this event are ours: the cache stays valid. */
	if (r->cache_on)
		r->nattrs = sht_state_attr_count(ss);
	return err < 0 ? err : SHT_OK;
}

/* ---- files ---------------------------------------------------------------- */

sht_err sht__rules_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n;
	sht_err err = SHT_OK;

	*buf = NULL;
	*len = 0;
	if (!f)
		return sht__error(SHT_ERR_IO, "Cannot open %s: %s", path, strerror(errno));
	do {
		if (*len + 1 >= cap) {
			char *nb = realloc(*buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				err = sht__error(SHT_ERR_NOMEM, "Cannot read %s", path);
				break;
			}
			*buf = nb;
		}
		n = fread(*buf + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	if (err == SHT_OK && ferror(f))
		err = sht__error(SHT_ERR_IO, "Cannot read %s", path);
	fclose(f);
	if (err == SHT_OK)
		(*buf)[*len] = '\0';
	return err;
}

sht_err sht_rules_load(const char *path, const char *provider_id, sht_rules **out)
{
	size_t n = strlen(path);
	char *buf;
	size_t len;
	sht_err err;

	if (n > 4 && strcmp(path + n - 4, ".xml") == 0)
		return sht_rules_load_xml(path, provider_id, out);
	err = sht__rules_read_file(path, &buf, &len);
	if (err == SHT_OK)
		err = sht_rules_parse_native(buf, len, path, out);
	free(buf);
	if (err == SHT_OK && provider_id && strcmp(provider_id, (*out)->id) != 0) {
		err = sht__error(SHT_ERR_INVALID, "%s: its provider is '%s', not '%s'", path, (*out)->id, provider_id);
		sht_rules_destroy(*out);
	}
	return err;
}

/* Resumable builds: the counters; the memos and quarks are caches (a
 * rules program keeps its state in the state system). */
#define RULES_SAVE_MAGIC 0x4c555231u  /* "RUL1" */

static sht_err rules_save(void *ctx, void **data, size_t *len)
{
	const sht_rules *r = ctx;
	uint8_t *p = malloc(28);

	if (!p)
		return sht__error(SHT_ERR_NOMEM, "Cannot save the rules analysis: out of memory");
	sht__put_u32(p, RULES_SAVE_MAGIC);
	sht__put_u64(p + 4, r->stats.events);
	sht__put_u64(p + 12, r->stats.handled);
	sht__put_u64(p + 20, r->stats.skipped);
	*data = p;
	*len = 28;
	return SHT_OK;
}

static sht_err rules_load(void *ctx, const void *data, size_t len)
{
	sht_rules *r = ctx;
	const uint8_t *p = data;

	if (len != 28 || sht__get_u32(p) != RULES_SAVE_MAGIC)
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume the rules analysis: "
				  "its saved state is not of this analysis");
	r->stats.events = sht__get_u64(p + 4);
	r->stats.handled = sht__get_u64(p + 12);
	r->stats.skipped = sht__get_u64(p + 20);
	return SHT_OK;
}

void sht_rules_provider(sht_rules *r, sht_provider *out)
{
	out->id = r->id;
	out->version = r->version;
	out->handle = rules_handle;
	out->ctx = r;
	out->model = r->nlabels ? &r->model : NULL;
	out->save = rules_save;
	out->load = rules_load;
}

void sht_rules_stats_get(const sht_rules *r, sht_rules_stats *out)
{
	*out = r->stats;
}

uint32_t sht_rules_declared_version(const sht_rules *r)
{
	return r->declared_version;
}
