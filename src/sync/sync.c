/*
 * sync.c: sht_sync_compute (read the traces merged in time, match their
 * packets, run the hulls, compose the transforms) and the result's
 * accessors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"
#include "util/util.h"

const char *sht_sync_quality_name(sht_sync_quality q)
{
	switch (q) {
	case SHT_SYNC_ABSENT: return "absent";
	case SHT_SYNC_INCOMPLETE: return "incomplete";
	case SHT_SYNC_FAIL: return "fail";
	case SHT_SYNC_APPROXIMATE: return "approximate";
	case SHT_SYNC_ACCURATE: return "accurate";
	}
	return "unknown";
}

sht_sync *sht__sync_alloc(size_t n, size_t npairs)
{
	sht_sync *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tr = calloc(n + 1, sizeof(*s->tr));
	s->pairs = calloc(npairs + 1, sizeof(*s->pairs));
	if (!s->tr || !s->pairs) {
		free(s->tr);
		free(s->pairs);
		free(s);
		return NULL;
	}
	s->n = n;
	s->npairs = npairs;
	return s;
}

void sht_sync_free(sht_sync *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->tr[i].name);
		free(s->tr[i].host);
		sht_transform_free(s->tr[i].t);
	}
	for (size_t k = 0; k < s->npairs; k++) {
		free(s->pairs[k].reference);
		free(s->pairs[k].other);
		free(s->pairs[k].slope);
		free(s->pairs[k].offset);
		free(s->pairs[k].accuracy);
	}
	free(s->tr);
	free(s->pairs);
	free(s);
}

/* ---- hosts ------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct host ids in byte order (*hosts: borrowed pointers), and
 * each input's index among them. */
static sht_err index_hosts(const sht_sync_input *in, size_t n,
			   const char ***hosts, uint32_t *nh, uint32_t *idx)
{
	const char **h = malloc(n * sizeof(*h));
	size_t k = 0;

	if (!h)
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	for (size_t i = 0; i < n; i++)
		h[i] = in[i].host;
	qsort(h, n, sizeof(*h), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(h[i], h[k - 1]) != 0)
			h[k++] = h[i];
	for (size_t i = 0; i < n; i++) {
		const char **f = bsearch(&in[i].host, h, k, sizeof(*h),
					 cmp_str);
		idx[i] = (uint32_t)(f - h);
	}
	*hosts = h;
	*nh = (uint32_t)k;
	return SHT_OK;
}

/* ---- reading ------------------------------------------------------------ */

/* Source i failed with err: the message names its trace. */
static sht_err source_error(const sht_sync_input *in, size_t i, sht_err err)
{
	char why[512];

	snprintf(why, sizeof why, "%s", sht_errmsg());
	return sht__error(err, "Cannot synchronize: reading %s: %s",
			  in[i].name ? in[i].name : "a trace",
			  why[0] ? why : sht_strerror(err));
}

struct head {
	sht_event ev;
	int live;
	int64_t last;
};

static sht_err advance(const sht_sync_input *in, size_t i, struct head *h)
{
	sht_err err = in[i].src->ops->next(in[i].src->src, &h->ev);

	if (err == SHT_END) {
		h->live = 0;
		return SHT_OK;
	}
	if (err < 0)
		return source_error(in, i, err);
	if (h->live && h->ev.ts < h->last)
		return sht__error(SHT_ERR_ORDER, "Cannot synchronize: %s goes "
				  "back in time (t=%lld after t=%lld)",
				  in[i].name ? in[i].name : "a trace",
				  (long long)h->ev.ts, (long long)h->last);
	h->live = 1;
	h->last = h->ev.ts;
	return SHT_OK;
}

/* Every event of every source, merged in time (ties: lower input first),
 * through the matcher. */
static sht_err read_all(const sht_sync_input *in, size_t n,
			struct sht__matcher *m)
{
	struct head *h = calloc(n, sizeof(*h));
	sht_err err = SHT_OK;
	size_t i, best;

	if (!h)
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	for (i = 0; i < n && err == SHT_OK; i++)
		err = advance(in, i, &h[i]);
	while (err == SHT_OK) {
		best = n;
		for (i = 0; i < n; i++)
			if (h[i].live && (best == n || h[i].ev.ts < h[best].ev.ts))
				best = i;
		if (best == n)
			break;
		err = sht__matcher_event(m, best, &h[best].ev);
		if (err == SHT_OK)
			err = advance(in, best, &h[best]);
	}
	free(h);
	return err;
}

/* ---- the result ----------------------------------------------------------- */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

static sht_err fill_pair(struct sht__sync_pair *p, struct sht__hull *h,
			 const char *const *hosts)
{
	sht_transform *t;
	sht__dec acc;
	uint64_t pts;
	sht_err err = sht__hull_transform(h, &t);

	if (err < 0)
		return err;
	p->reference = dup_str(hosts[sht__hull_ref(h)]);
	p->other = dup_str(hosts[sht__hull_other(h)]);
	sht__hull_counts(h, &p->matches, &p->accurate, &pts);
	p->quality = sht__hull_quality(h);
	p->slope = dup_str(sht_transform_slope(t));
	p->offset = dup_str(sht_transform_offset(t));
	sht__dec_init(&acc);
	sht__hull_accuracy(h, &acc);
	p->accuracy = sht__dec_str(&acc);
	sht__dec_clear(&acc);
	sht_transform_free(t);
	if (!p->reference || !p->other || !p->slope || !p->offset ||
	    !p->accuracy)
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	return SHT_OK;
}

/* Overall quality (sht_sync_quality_get). */
static sht_sync_quality overall(struct sht__hull *const *hulls, size_t nhl,
				uint32_t nh, uint32_t root, const int *reached,
				const sht_sync_quality *pq)
{
	sht_sync_quality worst = SHT_SYNC_ACCURATE, q;

	if (nh < 2)
		return SHT_SYNC_ABSENT;
	for (uint32_t h = 0; h < nh; h++) {
		if (h == root)
			continue;
		if (reached[h]) {
			q = pq[h];
		} else {
			q = SHT_SYNC_ABSENT;
			for (size_t k = 0; k < nhl; k++)
				if ((sht__hull_ref(hulls[k]) == h ||
				     sht__hull_other(hulls[k]) == h) &&
				    sht__hull_quality(hulls[k]) > q)
					q = sht__hull_quality(hulls[k]);
		}
		if (q < worst)
			worst = q;
	}
	return worst;
}

static sht_err build_result(const sht_sync_input *in, size_t n,
			    const char *const *hosts, uint32_t nh,
			    const uint32_t *idx, struct sht__matcher *m,
			    sht_sync **out)
{
	size_t nhl;
	struct sht__hull *const *hulls = sht__matcher_hulls(m, &nhl);
	sht_transform **ht = calloc(nh, sizeof(*ht));
	int *reached = calloc(nh, sizeof(*reached));
	sht_sync_quality *pq = calloc(nh, sizeof(*pq));
	sht_sync *s = sht__sync_alloc(n, nhl);
	uint32_t root = UINT32_MAX;
	sht_err err = SHT_OK;

	if (!ht || !reached || !pq || !s)
		err = sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				 "memory");
	if (err == SHT_OK)
		err = sht__graph_transforms(hulls, nhl, nh, ht, reached, pq,
					    &root);
	for (size_t i = 0; i < n && err == SHT_OK; i++) {
		struct sht__sync_trace *t = &s->tr[i];

		t->name = dup_str(in[i].name ? in[i].name : "");
		t->host = dup_str(in[i].host);
		t->reference = idx[i] == root;
		t->synced = reached[idx[i]];
		err = sht_transform_copy(ht[idx[i]], &t->t);
		if (err == SHT_OK && (!t->name || !t->host))
			err = sht__error(SHT_ERR_NOMEM, "Cannot synchronize: "
					 "out of memory");
	}
	for (size_t k = 0; k < nhl && err == SHT_OK; k++)
		err = fill_pair(&s->pairs[k], hulls[k], hosts);
	if (err == SHT_OK) {
		sht__matcher_stats(m, &s->st);
		s->quality = overall(hulls, nhl, nh, root, reached, pq);
		*out = s;
		s = NULL;
	}
	for (uint32_t h = 0; ht && h < nh; h++)
		sht_transform_free(ht[h]);
	free(ht);
	free(reached);
	free(pq);
	sht_sync_free(s);
	return err;
}

sht_err sht_sync_compute(const sht_sync_input *in, size_t n, sht_sync **out)
{
	const char **hosts = NULL;
	uint32_t *idx, nh = 0;
	sht_net_layout *lay;
	struct sht__matcher *m = NULL;
	sht_err err = SHT_OK;

	if (!in || n == 0 || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot synchronize: no "
				  "trace given");
	for (size_t i = 0; i < n; i++)
		if (!in[i].src || !in[i].src->ops || !in[i].host)
			return sht__error(SHT_ERR_INVALID, "Cannot synchronize: "
					  "trace %zu has no source or no host "
					  "id", i);
	idx = malloc(n * sizeof(*idx));
	lay = malloc(n * sizeof(*lay));
	if (!idx || !lay)
		err = sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				 "memory");
	if (err == SHT_OK)
		err = index_hosts(in, n, &hosts, &nh, idx);
	for (size_t i = 0; i < n && err == SHT_OK; i++)
		lay[i] = in[i].layout;
	if (err == SHT_OK)
		err = sht__matcher_new(n, idx, nh, lay, &m);
	if (err == SHT_OK)
		err = read_all(in, n, m);
	if (err == SHT_OK)
		err = build_result(in, n, hosts, nh, idx, m, out);
	sht__matcher_free(m);
	free((void *)hosts);
	free(idx);
	free(lay);
	return err;
}

size_t sht_sync_count(const sht_sync *s)
{
	return s ? s->n : 0;
}

sht_err sht_sync_trace(const sht_sync *s, size_t i, sht_sync_trace_info *out)
{
	if (!s || i >= s->n)
		return SHT_ERR_RANGE;
	out->name = s->tr[i].name;
	out->host = s->tr[i].host;
	out->reference = s->tr[i].reference;
	out->synced = s->tr[i].synced;
	out->transform = s->tr[i].t;
	return SHT_OK;
}

size_t sht_sync_pair_count(const sht_sync *s)
{
	return s ? s->npairs : 0;
}

sht_err sht_sync_pair(const sht_sync *s, size_t k, sht_sync_pair_info *out)
{
	const struct sht__sync_pair *p;

	if (!s || k >= s->npairs)
		return SHT_ERR_RANGE;
	p = &s->pairs[k];
	out->reference = p->reference;
	out->other = p->other;
	out->matches = p->matches;
	out->accurate = p->accurate;
	out->quality = p->quality;
	out->slope = p->slope;
	out->offset = p->offset;
	out->accuracy = p->accuracy;
	return SHT_OK;
}

void sht_sync_stats_get(const sht_sync *s, sht_sync_stats *out)
{
	*out = s->st;
}

sht_sync_quality sht_sync_quality_get(const sht_sync *s)
{
	return s->quality;
}

/* ---- layouts -------------------------------------------------------------- */

/* v without surrounding double quotes, into buf. */
static const char *unquote(const char *v, char *buf, size_t size)
{
	size_t n;

	if (!v)
		return NULL;
	n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		snprintf(buf, size, "%.*s", (int)(n - 2), v + 1);
		return buf;
	}
	return v;
}

/* A non-negative decimal integer, or -1. */
static long parse_num(const char *v)
{
	char *end;
	long x;

	if (!v || !*v)
		return -1;
	x = strtol(v, &end, 10);
	return *end || x < 0 ? -1 : x;
}

sht_net_layout sht_net_layout_from_env(const char *domain,
				       const char *tracer_name,
				       const char *tracer_major,
				       const char *tracer_minor)
{
	char b1[64], b2[64], b3[32], b4[32];
	long major, minor;

	domain = unquote(domain, b1, sizeof b1);
	tracer_name = unquote(tracer_name, b2, sizeof b2);
	if (!domain || strcmp(domain, "kernel") != 0 ||
	    (tracer_name && strcmp(tracer_name, "perf") == 0))
		return SHT_NET_LAYOUT_NONE;
	major = parse_num(unquote(tracer_major, b3, sizeof b3));
	minor = parse_num(unquote(tracer_minor, b4, sizeof b4));
	if (tracer_name && strcmp(tracer_name, "lttng-modules") == 0 &&
	    major >= 2) {
		if (minor >= 9)
			return SHT_NET_LAYOUT_LTTNG_2_9;
		if (minor >= 7)
			return SHT_NET_LAYOUT_LTTNG_2_7;
	}
	return SHT_NET_LAYOUT_LTTNG_2_0;
}
