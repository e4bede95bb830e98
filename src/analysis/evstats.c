/*
 * evstats.c: the event statistics analysis as a provider (sht/analysis.h):
 * total, event_types/<name>, cpus/<cpu>/total, cpus/<cpu>/event_types/<name>,
 * int64 counters incremented at each event's timestamp.
 *
 * Event names are interned (an index per distinct text, kept for the life
 * of the analysis); a small direct-mapped cache maps an event's name
 * pointer to its index, checked against the text (a pointer may be reused
 * for another name).  Quarks are cached in "slots": per name, per CPU
 * (below CPU_CACHE_MAX) and per (CPU, name).  A slot is valid when its
 * generation is the current one; the generation changes when the state
 * system changes or its attribute count moved behind our back
 * (sht_state_cacheable_count), and slots are neither read nor written
 * while the count is -1 (partial-history replays, opened histories).  A
 * valid slot also says its counter already holds an int64, so a hit is
 * one sht_state_increment.
 */
#include <stdlib.h>
#include <string.h>

#include "sht/analysis.h"
#include "sht/state.h"
#include "util/util.h"

/* CPUs with cached quarks: 0 .. CPU_CACHE_MAX - 1 (others are looked up
 * on every event). */
#define CPU_CACHE_MAX 4096
/* Entries of the name-pointer cache (a power of 2). */
#define PTR_CACHE 256
/* Longest decimal CPU name ("-2147483648" and a NUL). */
#define CPU_NAME_MAX 12

struct slot {
	sht_quark q;
	uint32_t gen;               /* valid if == sht_evstats.gen */
};

struct name {
	char *text;
	size_t len;
	uint64_t hash;
	struct slot type;           /* event_types/<name> */
};

struct cpu {
	char name[CPU_NAME_MAX];    /* the decimal */
	struct slot total;          /* cpus/<cpu>/total */
	struct slot *by_name;       /* cpus/<cpu>/event_types/<name>, by index */
	size_t cap;
};

struct ptr_ent {
	const char *ptr;
	size_t idx;                 /* index + 1; 0: empty */
};

struct sht_evstats {
	sht_evstats_info info;
	/* Interned names and their hash table (indices + 1, open addressing,
	 * capacity a power of 2, at most half full). */
	struct name *names;
	size_t nnames, names_cap;
	uint32_t *table;
	size_t table_cap;
	struct ptr_ent ptrs[PTR_CACHE];
	/* Quark cache for state system ss while its attribute count is
	 * nattrs at the start of an event. */
	sht_state *ss;
	uint64_t nattrs;
	uint32_t gen;
	int cache_on;               /* for the current event */
	struct slot total;
	struct cpu **cpus;          /* CPU_CACHE_MAX entries, NULL until used */
};

/* ---- names --------------------------------------------------------------- */

static uint64_t hash_text(const char *s, size_t *len)
{
	uint64_t h = 0xCBF29CE484222325u; /* FNV-1a */
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3u;
	*len = (size_t)(p - s);
	return h;
}

static sht_err table_grow(sht_evstats *s)
{
	size_t cap = s->table_cap ? s->table_cap * 2 : 64;
	uint32_t *t = calloc(cap, sizeof *t);

	if (!t)
		return sht__error(SHT_ERR_NOMEM, "Cannot grow the event-name table");
	for (size_t i = 0; i < s->nnames; i++) {
		size_t h = (size_t)s->names[i].hash & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = (uint32_t)(i + 1);
	}
	free(s->table);
	s->table = t;
	s->table_cap = cap;
	return SHT_OK;
}

/* Index of the name text (interned on first sight). */
static sht_err intern(sht_evstats *s, const char *text, size_t *idx)
{
	size_t len, h;
	uint64_t hash = hash_text(text, &len);
	struct name *n;

	if (s->table_cap) {
		for (h = (size_t)hash & (s->table_cap - 1); s->table[h];
		     h = (h + 1) & (s->table_cap - 1)) {
			n = &s->names[s->table[h] - 1];
			if (n->hash == hash && n->len == len && memcmp(n->text, text, len) == 0) {
				*idx = s->table[h] - 1;
				return SHT_OK;
			}
		}
	}
	if (s->nnames >= UINT32_MAX - 1)
		return sht__error(SHT_ERR_NOMEM, "Too many event names");
	if ((s->nnames + 1) * 2 > s->table_cap) {
		sht_err err = table_grow(s);

		if (err != SHT_OK)
			return err;
	}
	if (s->nnames == s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 32;
		struct name *nn = realloc(s->names, cap * sizeof *nn);

		if (!nn)
			return sht__error(SHT_ERR_NOMEM, "Cannot grow the event-name list");
		s->names = nn;
		s->names_cap = cap;
	}
	n = &s->names[s->nnames];
	n->text = malloc(len + 1);
	if (!n->text)
		return sht__error(SHT_ERR_NOMEM, "Cannot copy an event name");
	memcpy(n->text, text, len + 1);
	n->len = len;
	n->hash = hash;
	n->type.q = SHT_QUARK_NONE;
	n->type.gen = 0;
	for (h = (size_t)hash & (s->table_cap - 1); s->table[h];
	     h = (h + 1) & (s->table_cap - 1))
		;
	s->table[h] = (uint32_t)(s->nnames + 1);
	*idx = s->nnames++;
	s->info.names = s->nnames;
	return SHT_OK;
}

/* Index of the event's name, through the pointer cache. */
static sht_err name_index(sht_evstats *s, const char *name, size_t *idx)
{
	uintptr_t p = (uintptr_t)name;
	struct ptr_ent *e = &s->ptrs[((p >> 3) * 0x9E3779B97F4A7C15u) >> 56 & (PTR_CACHE - 1)];
	sht_err err;

	if (SHT_LIKELY(e->ptr == name && e->idx &&
		       strcmp(s->names[e->idx - 1].text, name) == 0)) {
		*idx = e->idx - 1;
		return SHT_OK;
	}
	err = intern(s, name, idx);
	if (err == SHT_OK) {
		e->ptr = name;
		e->idx = *idx + 1;
	}
	return err;
}

/* ---- counters ------------------------------------------------------------ */

/* Bind / check the quark cache at the start of an event. */
static void cache_begin(sht_evstats *s, sht_state *ss)
{
	int64_t n = sht_state_cacheable_count(ss);

	s->cache_on = n >= 0;
	if (!s->cache_on)
		return;
	if (ss != s->ss || (uint64_t)n != s->nattrs) {
		if (++s->gen == 0) {
			/* Wrapped: forget every slot for real. */
			s->total.gen = 0;
			for (size_t i = 0; i < s->nnames; i++)
				s->names[i].type.gen = 0;
			if (s->cpus) {
				for (size_t c = 0; c < CPU_CACHE_MAX; c++) {
					struct cpu *cp = s->cpus[c];

					if (!cp)
						continue;
					cp->total.gen = 0;
					for (size_t i = 0; i < cp->cap; i++)
						cp->by_name[i].gen = 0;
				}
			}
			s->gen = 1;
		}
		s->ss = ss;
	}
	s->nattrs = (uint64_t)n;
}

static void cache_end(sht_evstats *s, sht_state *ss)
{
	if (s->cache_on)
		s->nattrs = (uint64_t)sht_state_cacheable_count(ss);
}

/*
 * Add 1 at t to the counter at path elems[0..n), get-or-created.  slot
 * (NULL: none) caches its quark once the counter holds an int64.  A
 * counter still null is set to int64 1 (an increment would make it an
 * int32).
 */
static sht_err bump(sht_evstats *s, sht_state *ss, sht_time t, struct slot *slot,
		    const char *const *elems, size_t n)
{
	sht_quark q;
	sht_value v;
	sht_time since;
	sht_err err;

	if (SHT_LIKELY(slot && s->cache_on && slot->gen == s->gen))
		return sht_state_increment(ss, t, slot->q, 1);
	err = sht_state_quark(ss, SHT_QUARK_ROOT, elems, n, &q);
	if (err != SHT_OK)
		return err;
	err = sht_state_ongoing(ss, q, &v, &since);
	if (err != SHT_OK)
		return err;
	if (v.type == SHT_TYPE_NULL) {
		v = sht_value_int64(1);
		err = sht_state_modify(ss, t, q, &v);
	} else {
		err = sht_state_increment(ss, t, q, 1);
	}
	if (err == SHT_OK && slot && s->cache_on) {
		slot->q = q;
		slot->gen = s->gen;
	}
	return err;
}

static void dec(int32_t x, char buf[CPU_NAME_MAX])
{
	char tmp[CPU_NAME_MAX];
	size_t n = 0, i = 0;
	uint32_t u = x < 0 ? 0u - (uint32_t)x : (uint32_t)x;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (x < 0)
		buf[i++] = '-';
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}

/* The cache entry of CPU c (NULL if not cached: too large, or no
 * memory, which only costs look-ups). */
static struct cpu *cpu_entry(sht_evstats *s, int32_t c)
{
	if (c >= CPU_CACHE_MAX)
		return NULL;
	if (SHT_UNLIKELY(!s->cpus)) {
		s->cpus = calloc(CPU_CACHE_MAX, sizeof *s->cpus);
		if (!s->cpus)
			return NULL;
	}
	if (SHT_UNLIKELY(!s->cpus[c])) {
		s->cpus[c] = calloc(1, sizeof **s->cpus);
		if (s->cpus[c])
			dec(c, s->cpus[c]->name);
	}
	return s->cpus[c];
}

/* The (cpu, name) slot, growing the CPU's array (NULL: no memory). */
static struct slot *cpu_name_slot(struct cpu *cp, size_t idx)
{
	if (SHT_UNLIKELY(idx >= cp->cap)) {
		size_t cap = cp->cap ? cp->cap : 32;
		struct slot *sl;

		while (cap <= idx)
			cap *= 2;
		sl = realloc(cp->by_name, cap * sizeof *sl);
		if (!sl)
			return NULL;
		memset(sl + cp->cap, 0, (cap - cp->cap) * sizeof *sl);
		cp->by_name = sl;
		cp->cap = cap;
	}
	return &cp->by_name[idx];
}

static sht_err handle(void *ctx, sht_state *ss, const sht_event *ev)
{
	sht_evstats *s = ctx;
	const sht_time t = ev->ts;
	const int32_t c = ev->cpu;
	struct name *nm = NULL;
	struct cpu *cp = NULL;
	char cname[CPU_NAME_MAX];
	const char *path[4];
	size_t idx = 0;
	sht_err err;

	s->info.events++;
	if (c < 0)
		s->info.unknown_cpu++;
	if (!ev->name) {
		s->info.unnamed++;
	} else {
		err = name_index(s, ev->name, &idx);
		if (err != SHT_OK)
			return err;
		nm = &s->names[idx];
	}
	cache_begin(s, ss);

	path[0] = "total";
	err = bump(s, ss, t, &s->total, path, 1);
	if (err == SHT_OK && nm) {
		path[0] = "event_types";
		path[1] = nm->text;
		err = bump(s, ss, t, &nm->type, path, 2);
	}
	if (err == SHT_OK && c >= 0) {
		cp = cpu_entry(s, c);
		if (!cp)
			dec(c, cname);
		path[0] = "cpus";
		path[1] = cp ? cp->name : cname;
		path[2] = "total";
		err = bump(s, ss, t, cp ? &cp->total : NULL, path, 3);
		if (err == SHT_OK && nm) {
			path[2] = "event_types";
			path[3] = nm->text;
			err = bump(s, ss, t, cp ? cpu_name_slot(cp, idx) : NULL, path, 4);
		}
	}
	cache_end(s, ss);
	return err;
}

/* ---- public API ------------------------------------------------------------ */

sht_err sht_evstats_create(sht_evstats **out)
{
	sht_evstats *s = calloc(1, sizeof *s);

	if (!s)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the statistics analysis");
	s->gen = 1;
	s->total.q = SHT_QUARK_NONE;
	*out = s;
	return SHT_OK;
}

void sht_evstats_destroy(sht_evstats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i].text);
	free(s->names);
	free(s->table);
	if (s->cpus) {
		for (size_t c = 0; c < CPU_CACHE_MAX; c++) {
			if (s->cpus[c])
				free(s->cpus[c]->by_name);
			free(s->cpus[c]);
		}
		free(s->cpus);
	}
	free(s);
}

/* Resumable builds: the counters and the names met (info.names counts
 * them); the quarks are caches. */
#define EVS_SAVE_MAGIC 0x53564531u    /* "EVS1" */

static sht_err evs_save(void *ctx, void **data, size_t *len)
{
	const sht_evstats *s = ctx;
	size_t n = 4 + 4 * 8 + 8;
	uint8_t *p, *q;

	for (size_t i = 0; i < s->nnames; i++)
		n += 8 + s->names[i].len;
	if (!(p = malloc(n)))
		return sht__error(SHT_ERR_NOMEM, "Cannot save the statistics analysis: out of memory");
	sht__put_u32(p, EVS_SAVE_MAGIC);
	sht__put_u64(p + 4, s->info.events);
	sht__put_u64(p + 12, s->info.unknown_cpu);
	sht__put_u64(p + 20, s->info.unnamed);
	sht__put_u64(p + 28, s->nnames);
	sht__put_u64(p + 36, 0);
	q = p + 44;
	for (size_t i = 0; i < s->nnames; i++) {
		sht__put_u64(q, s->names[i].len);
		memcpy(q + 8, s->names[i].text, s->names[i].len);
		q += 8 + s->names[i].len;
	}
	*data = p;
	*len = n;
	return SHT_OK;
}

static sht_err evs_load(void *ctx, const void *data, size_t len)
{
	sht_evstats *s = ctx;
	const uint8_t *p = data, *q = p + 44;
	uint64_t n;
	sht_err err = SHT_OK;

	if (len < 44 || sht__get_u32(p) != EVS_SAVE_MAGIC || s->nnames)
		return sht__error(SHT_ERR_CORRUPT, "Cannot resume the statistics analysis: "
				  "its saved state is not of this analysis");
	n = sht__get_u64(p + 28);
	for (uint64_t i = 0; err == SHT_OK && i < n; i++) {
		uint64_t l = (size_t)(p + len - q) >= 8 ? sht__get_u64(q) : UINT64_MAX;
		char *text;
		size_t idx;

		if (l > (size_t)(p + len - q) - 8 || memchr(q + 8, 0, (size_t)l))
			return sht__error(SHT_ERR_CORRUPT, "Cannot resume the statistics "
					  "analysis: a saved name is damaged");
		if (!(text = malloc((size_t)l + 1)))
			return sht__error(SHT_ERR_NOMEM, "Cannot resume: out of memory");
		memcpy(text, q + 8, (size_t)l);
		text[l] = '\0';
		err = intern(s, text, &idx);
		free(text);
		q += 8 + l;
	}
	s->info.events = sht__get_u64(p + 4);
	s->info.unknown_cpu = sht__get_u64(p + 12);
	s->info.unnamed = sht__get_u64(p + 20);
	return err;
}

void sht_evstats_provider(sht_evstats *s, sht_provider *out)
{
	out->id = SHT_EVSTATS_PROVIDER_ID;
	out->version = SHT_EVSTATS_PROVIDER_VERSION;
	out->handle = handle;
	out->ctx = s;
	out->model = sht_evstats_model();
	out->save = evs_save;
	out->load = evs_load;
}

void sht_evstats_info_get(const sht_evstats *s, sht_evstats_info *out)
{
	*out = s->info;
}
