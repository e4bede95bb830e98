/*
 * test-attrs.c: the attribute tree (src/state/attrs.c): quark numbering,
 * look-ups, children, parents, names, paths, wildcard matches, the
 * section round trip, corrupt sections (truncations, byte flips, forged
 * records), allocation failures (dev builds), a brute-force model, and
 * the memory taken by 1 000 000 attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/attrs.h"
#include "rng.h"
#include "tap.h"
#include "util/util.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif

#ifdef HAVE_ASAN
/* From <sanitizer/allocator_interface.h>, which gcc does not install. */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_bytes(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#else
#include <malloc.h>
static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}
#endif

#define ROOT SHT_QUARK_ROOT
#define NONE SHT_QUARK_NONE

static struct rng rng = RNG_INIT(0x2545f4914f6cdd1du);

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

/* Get-or-create (create = 1) or find the C string name below p; the
 * quark, or NONE if absent or on error. */
static sht_quark get(struct sht__attrs *a, sht_quark p, const char *name,
		     int create)
{
	sht_quark q = NONE;

	if (sht__attrs_get(a, p, name, strlen(name), create, &q) != SHT_OK)
		return NONE;
	return q;
}

/* The children of q as a string "1,2,3" (for is_str). */
static const char *kids_str(const struct sht__attrs *a, sht_quark q)
{
	static char buf[4096];
	const sht_quark *k;
	size_t n, i, off = 0;

	buf[0] = '\0';
	if (sht__attrs_children(a, q, &k, &n) != SHT_OK)
		return "(error)";
	for (i = 0; i < n && off < sizeof buf - 16; i++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%u",
					i ? "," : "", k[i]);
	return buf;
}

/* The matches of pattern as a string "1,2,3". */
static const char *match_str(const struct sht__attrs *a, const char *pattern)
{
	static char buf[4096];
	sht_quark *m;
	size_t n, i, off = 0;

	buf[0] = '\0';
	if (sht__attrs_match(a, pattern, &m, &n) != SHT_OK)
		return "(error)";
	for (i = 0; i < n && off < sizeof buf - 16; i++)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%u",
					i ? "," : "", m[i]);
	free(m);
	return buf;
}

static const char *path_str(const struct sht__attrs *a, sht_quark q)
{
	static char buf[4096];
	size_t need;

	if (sht__attrs_path(a, q, buf, sizeof buf, &need) != SHT_OK)
		return "(error)";
	return buf;
}

/* Invariants of a tree, through the API only; 1 if they all hold. */
static int tree_valid(struct sht__attrs *a)
{
	uint64_t n = sht__attrs_count(a), total = 0, q, p;
	const sht_quark *k;
	const char *name;
	sht_quark par, found;
	size_t len, nk, i;

	for (q = 0; q < n; q++) {
		if (sht__attrs_name(a, (sht_quark)q, &name, &len) != SHT_OK ||
		    sht__attrs_parent(a, (sht_quark)q, &par) != SHT_OK ||
		    (par != ROOT && par >= q) || memchr(name, 0, len) ||
		    name[len] != '\0' ||
		    sht__attrs_get(a, par, name, len, 0, &found) != SHT_OK ||
		    found != q)
			return diag("quark %llu is inconsistent",
				    (unsigned long long)q), 0;
	}
	for (p = 0; p <= n; p++) {
		sht_quark pq = p == n ? ROOT : (sht_quark)p;

		if (sht__attrs_children(a, pq, &k, &nk) != SHT_OK)
			return 0;
		for (i = 0; i < nk; i++)
			if ((i && k[i] <= k[i - 1]) || k[i] >= n ||
			    sht__attrs_parent(a, k[i], &par) || par != pq)
				return diag("children of %u are wrong", pq), 0;
		total += nk;
	}
	return total == n;
}

/* 1 if a and b hold the same attributes (names, parents, children). */
static int trees_equal(const struct sht__attrs *a, const struct sht__attrs *b)
{
	uint64_t n = sht__attrs_count(a), q;
	const char *na, *nb;
	size_t la, lb, ka, kb;
	sht_quark pa, pb;
	const sht_quark *ca, *cb;

	if (sht__attrs_count(b) != n)
		return 0;
	for (q = 0; q <= n; q++) {
		sht_quark x = q == n ? ROOT : (sht_quark)q;

		if (x != ROOT &&
		    (sht__attrs_name(a, x, &na, &la) || sht__attrs_name(b, x, &nb, &lb) ||
		     la != lb || memcmp(na, nb, la) ||
		     sht__attrs_parent(a, x, &pa) || sht__attrs_parent(b, x, &pb) ||
		     pa != pb))
			return diag("quark %u differs", x), 0;
		if (sht__attrs_children(a, x, &ca, &ka) ||
		    sht__attrs_children(b, x, &cb, &kb) || ka != kb ||
		    memcmp(ca, cb, ka * sizeof *ca))
			return diag("children of %u differ", x), 0;
	}
	return 1;
}

/* ---- look-ups, numbering, children, parents, names ---------------------- */

static void test_numbering(void)
{
	struct sht__attrs *a;
	const char *name;
	size_t len;
	sht_quark q, p;

	ok(sht__attrs_create(&a) == SHT_OK, "create an empty tree");
	is_u64(sht__attrs_count(a), 0, "empty tree has no attribute");
	is_str(kids_str(a, ROOT), "", "empty tree: root has no child");
	is_int(sht__attrs_get(a, ROOT, "a", 1, 0, &q), SHT_NOT_FOUND,
	       "find in an empty tree");
	is_int(get(a, ROOT, "a", 1), 0, "first attribute is quark 0");
	is_int(get(a, 0, "b", 1), 1, "its child is quark 1");
	is_int(get(a, ROOT, "a", 1), 0, "get-or-create of an existing one");
	is_int(sht__attrs_get(a, ROOT, "c", 1, 0, &q), SHT_NOT_FOUND,
	       "find without create: absent");
	is_int(sht__attrs_get(a, ROOT, "b", 1, 0, &q), SHT_NOT_FOUND,
	       "find looks only below the given parent");
	is_u64(sht__attrs_count(a), 2, "finds created nothing");
	is_int(get(a, 0, "b", 0), 1, "find an existing child");
	is_int(get(a, ROOT, "1/i8042", 1), 2, "\"/\" inside a name: one element");
	ok(sht__attrs_name(a, 2, &name, &len) == SHT_OK && len == 7 &&
	   strcmp(name, "1/i8042") == 0, "name with a slash kept whole");
	is_u64(sht__attrs_count(a), 3, "one attribute for it");
	is_int(get(a, 1, "", 1), 3, "empty name allowed");
	ok(sht__attrs_name(a, 3, &name, &len) == SHT_OK && len == 0 &&
	   name[0] == '\0', "empty name is \"\"");
	is_int(sht__attrs_get(a, ROOT, NULL, 0, 0, &q), SHT_NOT_FOUND,
	       "NULL name of length 0 is the empty name");
	is_int(get(a, 0, "z", 1), 4, "z");
	is_int(get(a, 0, "y", 1), 5, "y");
	is_int(get(a, 0, "x", 1), 6, "x");
	is_str(kids_str(a, 0), "1,4,5,6", "children in creation order, not by name");
	is_str(kids_str(a, ROOT), "0,2", "root's children");
	is_str(kids_str(a, 6), "", "leaf has no child");
	ok(sht__attrs_parent(a, 1, &p) == SHT_OK && p == 0, "parent of 1 is 0");
	ok(sht__attrs_parent(a, 0, &p) == SHT_OK && p == ROOT, "parent of 0 is the root");
	is_int(sht__attrs_get(a, 7, "a", 1, 1, &q), SHT_ERR_RANGE, "unknown parent");
	is_int(sht__attrs_get(a, 1000, "a", 1, 0, &q), SHT_ERR_RANGE, "unknown parent (find)");
	is_int(sht__attrs_get(a, ROOT, "x\0y", 3, 1, &q), SHT_ERR_INVALID,
	       "NUL inside a name refused");
	is_int(sht__attrs_get(a, ROOT, NULL, 2, 1, &q), SHT_ERR_INVALID, "NULL name");
	ok(strncmp(sht_errmsg(), "Cannot ", 7) == 0, "message: %s", sht_errmsg());
	is_u64(sht__attrs_count(a), 7, "failed calls created nothing");
	is_int(sht__attrs_name(a, 7, &name, &len), SHT_ERR_RANGE, "name of an unknown quark");
	is_int(sht__attrs_name(a, ROOT, &name, &len), SHT_ERR_RANGE, "the root has no name");
	is_int(sht__attrs_parent(a, 7, &p), SHT_ERR_RANGE, "parent of an unknown quark");
	is_int(sht__attrs_parent(a, ROOT, &p), SHT_ERR_RANGE, "the root has no parent");
	{
		const sht_quark *k;
		size_t n;

		is_int(sht__attrs_children(a, 7, &k, &n), SHT_ERR_RANGE,
		       "children of an unknown quark");
		ok(sht__attrs_children(a, 3, &k, &n) == SHT_OK && n == 0 && k,
		   "no children: n = 0 and a non-NULL pointer");
	}
	ok(tree_valid(a), "tree is valid");
	sht__attrs_destroy(a);
	sht__attrs_destroy(NULL);
}

/* ---- paths -------------------------------------------------------------- */

static void test_path(void)
{
	const char *full = "CPUs/0/IRQs/1/i8042";
	struct sht__attrs *a;
	char buf[64];
	size_t need, size;
	sht_quark q;
	int good = 1;

	sht__attrs_create(&a);
	q = get(a, get(a, get(a, get(a, ROOT, "CPUs", 1), "0", 1), "IRQs", 1),
		"1/i8042", 1);
	is_str(path_str(a, q), full, "path joins with \"/\", no escaping");
	is_str(path_str(a, 0), "CPUs", "top-level path");
	ok(sht__attrs_path(a, q, buf, strlen(full) + 1, &need) == SHT_OK &&
	   need == strlen(full), "exact size: need=%zu", need);
	is_int(sht__attrs_path(a, q, buf, strlen(full), &need), SHT_ERR_BUFFER,
	       "one byte short");
	is_u64(need, strlen(full), "need is the exact length");
	is_int(sht__attrs_path(a, q, NULL, 0, &need), SHT_ERR_BUFFER, "size 0");
	is_u64(need, 19, "size 0 still gives the need");
	for (size = 1; size <= strlen(full) + 1; size++) {
		sht_err want = size > strlen(full) ? SHT_OK : SHT_ERR_BUFFER;

		memset(buf, 'X', sizeof buf);
		if (sht__attrs_path(a, q, buf, size, &need) != want ||
		    strlen(buf) != size - 1 || strncmp(buf, full, size - 1))
			good = 0;
	}
	ok(good, "every buffer size: truncated prefix, NUL-terminated");
	q = get(a, get(a, get(a, ROOT, "a", 1), "", 1), "b", 1);
	is_str(path_str(a, q), "a//b", "empty element in a path");
	is_int(sht__attrs_path(a, ROOT, buf, sizeof buf, &need), SHT_ERR_RANGE,
	       "path of the root");
	is_int(sht__attrs_path(a, 100, buf, sizeof buf, &need), SHT_ERR_RANGE,
	       "path of an unknown quark");
	sht__attrs_destroy(a);
}

/* ---- wildcard match ----------------------------------------------------- */

static sht_quark mk(struct sht__attrs *a, const char *path)
{
	char tmp[256], *e, *save = NULL;
	sht_quark q = ROOT;

	snprintf(tmp, sizeof tmp, "%s", path);
	for (e = strtok_r(tmp, "/", &save); e; e = strtok_r(NULL, "/", &save))
		q = get(a, q, e, 1);
	return q;
}

static void test_match(void)
{
	struct sht__attrs *a;
	sht_quark dummy, *m = &dummy;
	size_t n = 99;

	sht__attrs_create(&a);
	mk(a, "CPUs");                         /* 0 */
	mk(a, "CPUs/1");                       /* 1 */
	mk(a, "Threads");                      /* 2 */
	mk(a, "CPUs/0");                       /* 3 */
	mk(a, "CPUs/0/IRQs");                  /* 4 */
	mk(a, "CPUs/1/IRQs/9");                /* 5, 6 */
	mk(a, "CPUs/0/IRQs/3");                /* 7 */
	get(a, 4, "1/i8042", 1);               /* 8 */
	mk(a, "Threads/100/Exec_name");        /* 9, 10 */
	mk(a, "CPUs/0/Current_thread");        /* 11 */
	mk(a, "CPUs/1/Current_thread");        /* 12 */
	is_str(match_str(a, "CPUs/*"), "1,3", "one wildcard, creation order");
	is_str(match_str(a, "/CPUs/*"), "1,3", "leading \"/\" ignored");
	is_str(match_str(a, "*"), "0,2", "top level");
	is_str(match_str(a, "*/*"), "1,3,9", "two wildcards");
	is_str(match_str(a, "CPUs/*/IRQs/*"), "6,7,8",
	       "depth-first: CPUs/1 (created first) before CPUs/0");
	is_str(match_str(a, "*/*/*/*"), "6,7,8", "four wildcards");
	is_str(match_str(a, "*/*/Current_thread"), "12,11", "wildcards then a name");
	is_str(match_str(a, "*/100/*"), "10", "wildcard, name, wildcard");
	is_str(match_str(a, "Threads/100/Exec_name"), "10", "no wildcard");
	is_str(match_str(a, "CPUs/0/IRQs/1/i8042"), "",
	       "a pattern splits at every \"/\"");
	is_str(match_str(a, "nope/*"), "", "no match at the first level");
	is_str(match_str(a, "CPUs/*/nope"), "", "no match at the last level");
	is_str(match_str(a, "CPUs/"), "", "trailing \"/\": an empty element");
	is_str(match_str(a, "*/*/*/*/*"), "", "deeper than the tree");
	ok(sht__attrs_match(a, "", &m, &n) == SHT_OK && n == 0 && !m,
	   "empty pattern: no match");
	is_str(match_str(a, "/"), "", "\"/\" alone: no match");
	is_int(sht__attrs_match(a, NULL, &m, &n), SHT_ERR_INVALID, "NULL pattern");
	sht__attrs_destroy(a);
}

/* ---- brute-force model -------------------------------------------------- */

#define MODEL_MAX 6000

struct model {
	sht_quark parent[MODEL_MAX];    /* parent of each quark */
	char name[MODEL_MAX][4];        /* name (NUL-terminated) */
	size_t n;                       /* attributes */
};

static sht_quark model_find(const struct model *m, sht_quark p, const char *s)
{
	size_t q;

	for (q = 0; q < m->n; q++)
		if (m->parent[q] == p && strcmp(m->name[q], s) == 0)
			return (sht_quark)q;
	return NONE;
}

static void model_path(const struct model *m, sht_quark q, char *buf)
{
	if (m->parent[q] != ROOT) {
		model_path(m, m->parent[q], buf);
		strcat(buf, "/");
	} else {
		buf[0] = '\0';
	}
	strcat(buf, m->name[q]);
}

static void model_match(const struct model *m, sht_quark p, char el[][8],
			size_t ne, size_t d, char *out)
{
	size_t q;

	for (q = 0; q < m->n; q++) {
		if (m->parent[q] != p ||
		    (strcmp(el[d], "*") && strcmp(el[d], m->name[q])))
			continue;
		if (d + 1 < ne)
			model_match(m, (sht_quark)q, el, ne, d + 1, out);
		else
			sprintf(out + strlen(out), "%s%zu", *out ? "," : "", q);
	}
}

static void random_name(char *s)
{
	static const char alpha[] = "ab/*";
	size_t len = rnd() % 4, i;

	for (i = 0; i < len; i++)
		s[i] = alpha[rnd() % 4];
	s[len] = '\0';
}

/* The model's matches of pattern, split as the specification says: one
 * leading "/" ignored, an empty pattern matches nothing. */
static void model_match_pattern(const struct model *m, const char *pat,
				char *expect)
{
	char el[8][8];
	size_t ne = 0, len;

	expect[0] = '\0';
	if (*pat == '/')
		pat++;
	if (!*pat)
		return;
	for (;; pat += len + 1) {
		len = strcspn(pat, "/");
		memcpy(el[ne], pat, len);
		el[ne++][len] = '\0';
		if (!pat[len])
			break;
	}
	model_match(m, ROOT, el, ne, 0, expect);
}

/* A random pattern of 1 to 3 elements ("*", "", or names of a and b). */
static void random_pattern(char *pat)
{
	size_t ne = 1 + rnd() % 3, i, j, len;

	pat[0] = '\0';
	if (rnd() % 4 == 0)
		strcat(pat, "/");
	for (i = 0; i < ne; i++) {
		if (i)
			strcat(pat, "/");
		if (rnd() % 3 == 0) {
			strcat(pat, "*");
			continue;
		}
		for (j = 0, len = rnd() % 3; j < len; j++)
			strcat(pat, rnd() % 2 ? "a" : "b");
	}
}

static int model_compare(struct sht__attrs *a, const struct model *m)
{
	char want[8192], pat[64], path[256];
	size_t q, c;

	if (sht__attrs_count(a) != m->n || !tree_valid(a))
		return 0;
	for (q = 0; q <= m->n; q++) {
		sht_quark p = q == m->n ? ROOT : (sht_quark)q;

		want[0] = '\0';
		for (c = 0; c < m->n && strlen(want) < sizeof want - 16; c++)
			if (m->parent[c] == p)
				sprintf(want + strlen(want), "%s%zu", *want ? "," : "", c);
		if (strcmp(kids_str(a, p), want))
			return diag("children of %u: %s, model %s", p, kids_str(a, p), want), 0;
		if (p != ROOT && (model_path(m, p, path), strcmp(path_str(a, p), path)))
			return diag("path of %u: %s, model %s", p, path_str(a, p), path), 0;
	}
	for (q = 0; q < 50; q++) {
		random_pattern(pat);
		model_match_pattern(m, pat, want);
		if (strlen(want) < 4000 && strcmp(match_str(a, pat), want))
			return diag("match %s: %s, model %s", pat, match_str(a, pat), want), 0;
	}
	return 1;
}

static void test_model(void)
{
	static struct model m;
	struct sht__attrs *a;
	int step, good = 1, checks = 0;

	sht__attrs_create(&a);
	for (step = 0; step < 8000 && m.n < MODEL_MAX && good; step++) {
		sht_quark p = m.n && rnd() % 3 ? (sht_quark)(rnd() % m.n) : ROOT;
		int create = rnd() % 3 != 0;
		sht_quark want, got = NONE;
		char name[4];
		sht_err err;

		random_name(name);
		want = model_find(&m, p, name);
		err = sht__attrs_get(a, p, name, strlen(name), create, &got);
		if (want == NONE && create) {
			want = (sht_quark)m.n;
			m.parent[m.n] = p;
			strcpy(m.name[m.n++], name);
		}
		if (want == NONE ? err != SHT_NOT_FOUND : err != SHT_OK || got != want) {
			diag("step %d: err %d got %u want %u", step, err, got, want);
			good = 0;
		}
		if (step % 500 == 499 && good) {
			good = model_compare(a, &m);
			checks++;
		}
	}
	ok(good && model_compare(a, &m), "%zu attributes, %d random look-ups and %d full "
	   "comparisons agree with a brute-force model", m.n, step, checks + 1);
	sht__attrs_destroy(a);
}

/* ---- serialization ------------------------------------------------------ */

static struct sht__attrs *random_tree(size_t count)
{
	struct sht__attrs *a;
	char name[16];
	sht_quark q;

	sht__attrs_create(&a);
	while (sht__attrs_count(a) < count) {
		uint64_t n = sht__attrs_count(a);
		sht_quark p = ROOT;
		size_t len = rnd() % 13, i;

		if (n && rnd() % 8)
			p = (sht_quark)(rnd() % 2 ? rnd() % n : n - 1 - rnd() % (n < 50 ? n : 50));
		for (i = 0; i < len; i++)
			name[i] = (char)(1 + rnd() % 255);
		if (sht__attrs_get(a, p, name, len, 1, &q) != SHT_OK)
			bail_out("random_tree: %s", sht_errmsg());
	}
	return a;
}

static void test_roundtrip(void)
{
	struct sht__attrs *a = random_tree(50000), *b = NULL;
	uint8_t *buf, *buf2;
	size_t len, len2, big = 100000;
	char *longname = malloc(big);
	sht_quark q, q2;
	int good = 1;

	memset(longname, 'L', big);
	is_int(sht__attrs_get(a, 7, longname, big, 1, &q), SHT_OK,
	       "a 100 kB name (spans arena blocks)");
	is_int(get(a, 7, "after-long", 1), 50001, "a name after it");
	ok(tree_valid(a), "random tree of %llu attributes is valid",
	   (unsigned long long)sht__attrs_count(a));
	is_int(sht__attrs_serialize(a, &buf, &len), SHT_OK, "serialize");
	diag("50 002 attributes: %zu section bytes", len);
	is_int(sht__attrs_load(buf, len, &b), SHT_OK, "load");
	ok(b && trees_equal(a, b), "loaded tree equals the original (names, parents, children)");
	ok(b && tree_valid(b), "loaded tree is valid");
	ok(sht__attrs_serialize(b, &buf2, &len2) == SHT_OK && len2 == len &&
	   memcmp(buf, buf2, len) == 0, "serializing it again gives the same bytes");
	free(buf2);
	/* A loaded tree grows: lists leave the shared pool. */
	for (q = 0; q < 2000 && good; q++) {
		sht_quark p = (sht_quark)(rnd() % sht__attrs_count(b));
		char name[32];

		snprintf(name, sizeof name, "new-%u", q);
		if (get(b, p, name, 1) != get(a, p, name, 1))
			good = 0;
	}
	ok(good && trees_equal(a, b), "2000 creations after loading match the original");
	q2 = get(b, ROOT, "top-after-load", 1);
	ok(q2 == get(a, ROOT, "top-after-load", 1) && trees_equal(a, b) && tree_valid(b),
	   "a top-level creation after loading");
	sht__attrs_destroy(b);
	free(buf);
	free(longname);
	sht__attrs_destroy(a);

	sht__attrs_create(&a);
	ok(sht__attrs_serialize(a, &buf, &len) == SHT_OK && len == 8,
	   "empty tree: 8 bytes");
	ok(sht__attrs_load(buf, len, &b) == SHT_OK && sht__attrs_count(b) == 0 &&
	   get(b, ROOT, "x", 1) == 0 && tree_valid(b), "empty tree loads and grows");
	free(buf);
	sht__attrs_destroy(a);
	sht__attrs_destroy(b);
}

/* The example of docs/FORMAT.md §8, byte for byte. */
static void test_format_example(void)
{
	static const uint8_t doc[] = {
		2, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x04, 'C', 'P', 'U', 's',
		0x01, 0x01, '0',
	};
	struct sht__attrs *a, *b = NULL;
	uint8_t *buf;
	size_t len;

	sht__attrs_create(&a);
	get(a, get(a, ROOT, "CPUs", 1), "0", 1);
	ok(sht__attrs_serialize(a, &buf, &len) == SHT_OK && len == sizeof doc &&
	   memcmp(buf, doc, len) == 0, "FORMAT.md example: the bytes written");
	ok(sht__attrs_load(doc, sizeof doc, &b) == SHT_OK && trees_equal(a, b),
	   "FORMAT.md example: loads back");
	free(buf);
	sht__attrs_destroy(a);
	sht__attrs_destroy(b);
}

/* Name lengths whose varints take 1 to 4 bytes (2 MiB: a name spanning
 * many arena blocks).  Parents take up to 3 bytes in test_roundtrip. */
static void test_varint_widths(void)
{
	static const size_t lens[] = { 0, 1, 127, 128, 16383, 16384, 1u << 21 };
	struct sht__attrs *a, *b = NULL;
	char *name = malloc(1u << 21);
	sht_quark q = ROOT;
	uint8_t *buf = NULL;
	size_t len = 0, i;
	int good = 1;

	sht__attrs_create(&a);
	memset(name, 'v', 1u << 21);
	for (i = 0; i < sizeof lens / sizeof lens[0]; i++)
		good &= sht__attrs_get(a, q, name, lens[i], 1, &q) == SHT_OK;
	ok(good && sht__attrs_serialize(a, &buf, &len) == SHT_OK &&
	   sht__attrs_load(buf, len, &b) == SHT_OK && trees_equal(a, b) &&
	   tree_valid(b), "name lengths of 1- to 4-byte varints round trip");
	ok(len > (1u << 21) + 4 && buf[len - (1u << 21) - 4] == 0x80 && buf[len - (1u << 21) - 1] == 0x01,
	   "2^21 is written as 80 80 80 01");
	free(buf);
	free(name);
	sht__attrs_destroy(a);
	sht__attrs_destroy(b);
}

/* ---- corrupt sections --------------------------------------------------- */

/* Load len bytes: SHT_ERR_CORRUPT, or SHT_OK with a valid tree that
 * serializes back to the same bytes (the encoding is canonical).  1 if
 * so; *loaded counts successes. */
static int load_sane(const uint8_t *buf, size_t len, int *loaded)
{
	struct sht__attrs *b = NULL;
	sht_err err = sht__attrs_load(buf, len, &b);
	uint8_t *again;
	size_t len2;
	int good;

	if (err != SHT_OK)
		return err == SHT_ERR_CORRUPT && !b &&
		       strncmp(sht_errmsg(), "Cannot ", 7) == 0;
	good = tree_valid(b) && sht__attrs_serialize(b, &again, &len2) == SHT_OK;
	good = good && len2 == len && memcmp(again, buf, len) == 0;
	if (good)
		free(again);
	(*loaded)++;
	sht__attrs_destroy(b);
	return good;
}

static void test_truncations_and_flips(void)
{
	struct sht__attrs *a, *b = NULL;
	uint8_t *buf, *mut;
	size_t len, cut, trial;
	char name[300];
	int good = 1, loaded = 0;

	a = random_tree(40);
	memset(name, 'n', sizeof name);
	sht__attrs_get(a, 3, name, sizeof name, 1, &(sht_quark){ 0 });
	sht__attrs_serialize(a, &buf, &len);
	for (cut = 0; cut < len; cut++)
		if (sht__attrs_load(buf, cut, &b) != SHT_ERR_CORRUPT || b)
			good = 0;
	ok(good, "every truncation (0 .. %zu of %zu bytes) is corrupt", len - 1, len);
	mut = malloc(len + 1);
	memcpy(mut, buf, len);
	mut[len] = 0;
	is_int(sht__attrs_load(mut, len + 1, &b), SHT_ERR_CORRUPT, "one trailing byte");
	for (trial = 0; trial < 30000; trial++) {
		size_t k, flips = 1 + rnd() % 3;

		memcpy(mut, buf, len);
		for (k = 0; k < flips; k++) {
			size_t at = rnd() % len;

			mut[at] = rnd() % 2 ? (uint8_t)(mut[at] ^ (1u << rnd() % 8))
					    : (uint8_t)rnd();
		}
		if (!load_sane(mut, len, &loaded))
			good = 0;
	}
	ok(good, "30000 random byte changes: corrupt, or a valid tree that "
	   "re-serializes to the same bytes (%d loaded)", loaded);
	free(mut);
	free(buf);
	sht__attrs_destroy(a);
}

static void test_flips_large(void)
{
	struct sht__attrs *a = random_tree(20000);
	uint8_t *buf, *mut;
	size_t len, trial;
	int good = 1, loaded = 0;

	sht__attrs_serialize(a, &buf, &len);
	mut = malloc(len);
	for (trial = 0; trial < 300; trial++) {
		size_t at = rnd() % len;

		memcpy(mut, buf, len);
		mut[at] = (uint8_t)rnd();
		good &= load_sane(mut, len, &loaded);
	}
	ok(good, "300 byte changes in a 20000-attribute section (%d loaded)", loaded);
	free(mut);
	free(buf);
	sht__attrs_destroy(a);
}

struct forged {
	const char *what;       /* test name */
	sht_err want;           /* expected result */
	size_t len;             /* bytes after the 8-byte count */
	uint64_t count;         /* the count field */
	uint8_t rec[16];        /* records */
};

static const struct forged forged[] = {
	{ "no attribute", SHT_OK, 0, 0, { 0 } },
	{ "one empty name", SHT_OK, 2, 1, { 0, 0 } },
	{ "same name below different parents", SHT_OK, 9, 3,
	  { 0, 1, 'a', 1, 1, 'a', 2, 1, 'a' } },
	{ "parent = own quark", SHT_ERR_CORRUPT, 3, 1, { 1, 1, 'a' } },
	{ "parent after own quark", SHT_ERR_CORRUPT, 6, 2, { 0, 1, 'a', 3, 1, 'b' } },
	{ "duplicate top-level name", SHT_ERR_CORRUPT, 6, 2, { 0, 1, 'a', 0, 1, 'a' } },
	{ "duplicate child name", SHT_ERR_CORRUPT, 9, 3,
	  { 0, 1, 'a', 1, 1, 'b', 1, 1, 'b' } },
	{ "duplicate empty name", SHT_ERR_CORRUPT, 4, 2, { 0, 0, 0, 0 } },
	{ "NUL inside a name", SHT_ERR_CORRUPT, 4, 1, { 0, 2, 'a', 0 } },
	{ "six-byte varint", SHT_ERR_CORRUPT, 8, 1,
	  { 0x80, 0x80, 0x80, 0x80, 0x80, 0, 1, 'a' } },
	{ "varint above 2^32 - 1", SHT_ERR_CORRUPT, 7, 1,
	  { 0, 0xff, 0xff, 0xff, 0xff, 0x1f, 'a' } },
	{ "huge name length", SHT_ERR_CORRUPT, 7, 1,
	  { 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a' } },
	{ "overlong varint for 0", SHT_ERR_CORRUPT, 4, 1, { 0x80, 0, 1, 'a' } },
	{ "varint cut by the end", SHT_ERR_CORRUPT, 2, 1, { 0, 0x81 } },
	{ "name longer than the bytes left", SHT_ERR_CORRUPT, 3, 1, { 0, 5, 'a' } },
	{ "trailing byte", SHT_ERR_CORRUPT, 4, 1, { 0, 1, 'a', 0 } },
	{ "a whole extra record", SHT_ERR_CORRUPT, 6, 1, { 0, 1, 'a', 0, 1, 'b' } },
	{ "count above the records", SHT_ERR_CORRUPT, 3, 2, { 0, 1, 'a' } },
	{ "count of 2^64 - 1", SHT_ERR_CORRUPT, 3, UINT64_MAX, { 0, 1, 'a' } },
	{ "count of 2^32", SHT_ERR_CORRUPT, 3, UINT64_C(1) << 32, { 0, 1, 'a' } },
};

static void test_forged(void)
{
	uint8_t buf[8 + 16];
	struct sht__attrs *b;
	size_t i;

	for (i = 0; i < sizeof forged / sizeof forged[0]; i++) {
		const struct forged *f = &forged[i];
		sht_err err;

		sht__put_u64(buf, f->count);
		memcpy(buf + 8, f->rec, f->len);
		b = NULL;
		err = sht__attrs_load(buf, 8 + f->len, &b);
		is_int(err, f->want, "forged: %s", f->what);
		if (err == SHT_OK)
			ok(tree_valid(b), "forged: %s: valid tree", f->what);
		else
			diag("  %s", sht_errmsg());
		sht__attrs_destroy(b);
	}
	is_int(sht__attrs_load(buf, 7, &b), SHT_ERR_CORRUPT, "7 bytes: no count");
	is_int(sht__attrs_load(NULL, 0, &b), SHT_ERR_CORRUPT, "NULL section");
}

/* ---- allocation failures (dev builds) ---------------------------------- */

#ifdef SHT_DEV_CHECKS
extern long sht__attrs_fail_countdown;

/* Operations that allocate, each allowed to fail with SHT_ERR_NOMEM and
 * nothing else; a failed creation must create nothing.  1 if so. */
static int oom_scenario(struct sht__attrs *a, const uint8_t *sec, size_t seclen,
			char *longname, size_t longlen)
{
	struct sht__attrs *b = NULL;
	uint64_t before;
	sht_quark q, *m;
	uint8_t *buf;
	size_t i, len, n;
	char name[16];
	sht_err err;

	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "o%zu", i);
		before = sht__attrs_count(a);
		err = sht__attrs_get(a, i % 7 ? (sht_quark)(i % before) : ROOT,
				     name, strlen(name), 1, &q);
		if (err == SHT_ERR_NOMEM ? sht__attrs_count(a) != before : err != SHT_OK)
			return 0;
	}
	err = sht__attrs_get(a, 1, longname, longlen, 1, &q);
	if (err != SHT_OK && err != SHT_ERR_NOMEM)
		return 0;
	err = sht__attrs_match(a, "*/*", &m, &n);
	if (err == SHT_OK)
		free(m);
	else if (err != SHT_ERR_NOMEM)
		return 0;
	err = sht__attrs_serialize(a, &buf, &len);
	if (err == SHT_OK)
		free(buf);
	else if (err != SHT_ERR_NOMEM)
		return 0;
	err = sht__attrs_load(sec, seclen, &b);
	sht__attrs_destroy(b);
	return err == SHT_OK || err == SHT_ERR_NOMEM;
}

static void test_oom(void)
{
	size_t longlen = 70000, seclen, k;
	char *longname = malloc(longlen);
	struct sht__attrs *a;
	uint8_t *sec;
	int good = 1;

	memset(longname, 'l', longlen);
	a = random_tree(200);
	sht__attrs_serialize(a, &sec, &seclen);
	sht__attrs_destroy(a);
	for (k = 1; good; k++) {
		a = random_tree(30);
		sht__attrs_fail_countdown = (long)k;
		good = oom_scenario(a, sec, seclen, longname, longlen);
		if (sht__attrs_fail_countdown > 0) {
			sht__attrs_fail_countdown = 0;
			sht__attrs_destroy(a);
			break;                  /* k is past the last allocation */
		}
		good = good && tree_valid(a) && oom_scenario(a, sec, seclen, longname, longlen);
		good = good && tree_valid(a);
		sht__attrs_destroy(a);
	}
	ok(good, "allocation failure at each of %zu points: SHT_ERR_NOMEM, tree "
	   "still valid and usable", k - 1);
	sht__attrs_fail_countdown = 1;
	is_int(sht__attrs_create(&a), SHT_ERR_NOMEM, "create fails cleanly");
	free(sec);
	free(longname);
}
#else
static void test_oom(void)
{
	diag("allocation failure tests need SHT_DEV_CHECKS");
}
#endif

/* ---- one million attributes -------------------------------------------- */

static void test_million(void)
{
	size_t base = heap_bytes(), used, i, len;
	struct sht__attrs *a, *b = NULL;
	char name[16];
	uint8_t *buf;
	sht_quark q;
	int good = 1;

	sht__attrs_create(&a);
	for (i = 0; i < 1000000; i++) {
		int n = snprintf(name, sizeof name, "%zu", i);

		if (sht__attrs_get(a, ROOT, name, (size_t)n, 1, &q) != SHT_OK || q != i)
			good = 0;
	}
	used = heap_bytes() - base;
	ok(good, "1 000 000 attributes \"0\" .. \"999999\" below the root");
	diag("1M attributes: %zu bytes (%.1f MB, %.1f bytes per attribute)",
	     used, used / 1e6, used / 1e6);
	ok(used < 40000000, "under 40 MB");
	is_int(get(a, ROOT, "123456", 0), 123456, "find one");
	ok(get(a, ROOT, "1000000", 0) == NONE, "absent one");
	is_int(sht__attrs_serialize(a, &buf, &len), SHT_OK, "serialize");
	diag("1M attributes: %zu section bytes", len);
	base = heap_bytes();
	ok(sht__attrs_load(buf, len, &b) == SHT_OK && trees_equal(a, b),
	   "load: same tree");
	diag("1M attributes loaded: %zu bytes", heap_bytes() - base);
	free(buf);
	sht__attrs_destroy(a);
	sht__attrs_destroy(b);
}

int main(void)
{
	test_numbering();
	test_path();
	test_match();
	test_model();
	test_roundtrip();
	test_format_example();
	test_varint_widths();
	test_truncations_and_flips();
	test_flips_large();
	test_forged();
	test_oom();
	test_million();
	return done_testing();
}
