/*
 * graph.c: from the pairs of hosts to one transform per host, as Trace
 * Compass's SyncSpanningTree does: every pair whose quality is accurate,
 * approximate or fail is an edge from its reference to its other host
 * labelled with the other's transform, and an edge back labelled with
 * its inverse, in the pairs' creation order; the root is the smallest
 * host id that has an edge; a host's transform is the composition of the
 * edges of its breadth-first path from the root (the first edge that
 * reaches a host is kept).
 */
#include <stdlib.h>

#include "sync/sync-int.h"
#include "util/util.h"

struct edge {
	uint32_t from, to;
	sht_transform *t;
	sht_sync_quality q;
};

static int usable(sht_sync_quality q)
{
	return q == SHT_SYNC_ACCURATE || q == SHT_SYNC_APPROXIMATE ||
	       q == SHT_SYNC_FAIL;
}

static void free_edges(struct edge *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sht_transform_free(e[i].t);
	free(e);
}

/* The edges of the usable hulls: reference -> other, other -> reference. */
static sht_err make_edges(struct sht__hull *const *hulls, size_t nh,
			  struct edge **out, size_t *n)
{
	struct edge *e = calloc(2 * nh + 1, sizeof(*e));
	size_t k = 0;
	sht_err err = SHT_OK;

	if (!e)
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	for (size_t i = 0; i < nh && err == SHT_OK; i++) {
		sht_sync_quality q = sht__hull_quality(hulls[i]);

		if (!usable(q))
			continue;
		e[k].from = sht__hull_ref(hulls[i]);
		e[k].to = sht__hull_other(hulls[i]);
		e[k].q = q;
		err = sht__hull_transform(hulls[i], &e[k].t);
		if (err < 0)
			break;
		e[k + 1].from = e[k].to;
		e[k + 1].to = e[k].from;
		e[k + 1].q = q;
		err = sht__transform_inverse(e[k].t, &e[k + 1].t);
		k += 2;
	}
	if (err < 0) {
		free_edges(e, 2 * nh + 1);
		return err;
	}
	*out = e;
	*n = k;
	return SHT_OK;
}

/* Breadth-first from root: via[h] = the edge that first reached h, or -1.
 * Trace Compass marks a node visited when it leaves the queue, so a node
 * may be queued twice; its later turns find every neighbour visited or
 * already reached, so they are skipped here (same result). */
static int bfs(const struct edge *e, size_t ne, uint32_t nh, uint32_t root,
	       long *via)
{
	uint32_t *queue = malloc((ne + 1) * sizeof(*queue));
	char *visited = calloc(nh, 1);
	size_t qh = 0, qt = 0;

	if (!queue || !visited) {
		free(queue);
		free(visited);
		return -1;
	}
	for (uint32_t h = 0; h < nh; h++)
		via[h] = -1;
	queue[qt++] = root;
	while (qh < qt) {
		uint32_t node = queue[qh++];

		if (visited[node])
			continue;
		visited[node] = 1;
		for (size_t i = 0; i < ne; i++) {
			if (e[i].from != node || visited[e[i].to])
				continue;
			queue[qt++] = e[i].to;
			if (via[e[i].to] < 0)
				via[e[i].to] = (long)i;
		}
	}
	free(queue);
	free(visited);
	return 0;
}

/* Host h's transform: the edges of its path composed from the root on,
 * acc = acc o edge, as Trace Compass does (the rounding depends on the
 * order); *q the worst quality on the way. */
static sht_err path_transform(const struct edge *e, const long *via,
			      uint32_t nh, uint32_t root, uint32_t h,
			      sht_transform **out, sht_sync_quality *q)
{
	long *path = malloc((nh + 1) * sizeof(*path));
	size_t n = 0;
	sht_transform *acc = NULL, *next;
	sht_err err;

	if (!path)
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	while (h != root && via[h] >= 0 && n < nh) {
		path[n++] = via[h];
		h = e[via[h]].from;
	}
	*q = SHT_SYNC_ACCURATE;
	err = sht_transform_identity(&acc);
	while (err == SHT_OK && n > 0) {
		const struct edge *x = &e[path[--n]];

		err = sht__transform_compose(acc, x->t, &next);
		if (err == SHT_OK) {
			sht_transform_free(acc);
			acc = next;
		}
		if (x->q < *q)
			*q = x->q;
	}
	free(path);
	if (err < 0) {
		sht_transform_free(acc);
		return err;
	}
	*out = acc;
	return SHT_OK;
}

sht_err sht__graph_transforms(struct sht__hull *const *hulls, size_t nhulls,
			      uint32_t nh, sht_transform **out,
			      int *reached, sht_sync_quality *path_quality,
			      uint32_t *root)
{
	struct edge *e = NULL;
	size_t ne = 0;
	long *via;
	sht_err err = make_edges(hulls, nhulls, &e, &ne);

	if (err < 0)
		return err;
	*root = UINT32_MAX;
	for (size_t i = 0; i < ne; i++)
		if (e[i].from < *root)
			*root = e[i].from;
	via = malloc((nh + 1) * sizeof(*via));
	if (!via || (ne && bfs(e, ne, nh, *root, via) != 0)) {
		free(via);
		free_edges(e, ne);
		return sht__error(SHT_ERR_NOMEM, "Cannot synchronize: out of "
				  "memory");
	}
	for (uint32_t h = 0; h < nh && err == SHT_OK; h++) {
		reached[h] = ne && (h == *root || via[h] >= 0);
		path_quality[h] = SHT_SYNC_ABSENT;
		if (reached[h])
			err = path_transform(e, via, nh, *root, h,
					     &out[h], &path_quality[h]);
		else
			err = sht_transform_identity(&out[h]);
	}
	free(via);
	free_edges(e, ne);
	return err;
}
