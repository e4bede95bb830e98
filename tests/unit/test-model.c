/*
 * test-model.c: what a history means (include/sht/model.h): a model and
 * build notes stored in the history and read back equal; per-attribute
 * labels and docs against a brute-force oracle (the first pattern that
 * matches the path, by plain string splitting) on random trees; the
 * kernel model's table; a rules file's defined values as labels; the
 * about section refused cleanly when damaged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "state/model.h"
#include "tap.h"

static char path[512];

/* ---- a model with overlapping patterns --------------------------------- */

static const sht_attr_doc docs[] = {
	{ "A", SHT_TYPE_NULL, "top" },
	{ "A/x", SHT_TYPE_INT64, "the x of A" },
	{ "A/*", SHT_TYPE_INT32, "any child of A" },
	{ "*/*/s", SHT_TYPE_STRING, "a string two levels down" },
	{ "B/*/*", SHT_TYPE_DOUBLE, "grandchildren of B" },
};

/* Not grouped by pattern on purpose: the copy regroups them. */
static const sht_value_label labels[] = {
	{ "A/*", 1, "one" },
	{ "B/*/*", 1, "b-one" },
	{ "A/*", 2, "two" },
	{ "A/x", 7, "seven" },
	{ "A/*", -5, "minus five" },
	{ "*/*/s", 3, "three" },
};

static const sht_model model = { docs, 5, labels, 6 };

static const sht_build_note notes[] = {
	{ "tool", "test-model" }, { "trace", "/a/b c" }, { "empty", "" },
};

/* Oracle: does pattern match the "/"-path p (names without "/")? */
static int oracle_match(const char *pattern, const char *p)
{
	char a[256], b[256], *sa, *sb, *ta, *tb;

	snprintf(a, sizeof a, "%s", pattern);
	snprintf(b, sizeof b, "%s", p);
	ta = strtok_r(a, "/", &sa);
	tb = strtok_r(b, "/", &sb);
	while (ta && tb) {
		if (strcmp(ta, "*") != 0 && strcmp(ta, tb) != 0)
			return 0;
		ta = strtok_r(NULL, "/", &sa);
		tb = strtok_r(NULL, "/", &sb);
	}
	return !ta && !tb;
}

static const char *oracle_doc(const char *p)
{
	for (size_t i = 0; i < model.n_attrs; i++)
		if (oracle_match(docs[i].pattern, p))
			return docs[i].text;
	return NULL;
}

static const char *oracle_label(const char *p, int64_t v)
{
	const char *owner = NULL;

	for (size_t i = 0; i < model.n_labels; i++)
		if (oracle_match(labels[i].pattern, p)) {
			owner = labels[i].pattern;
			break;
		}
	for (size_t i = 0; owner && i < model.n_labels; i++)
		if (strcmp(labels[i].pattern, owner) == 0 && labels[i].value == v)
			return labels[i].label;
	return NULL;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A history of random attributes under A, B, C (depth 1 to 3, names
 * from a small set so that patterns hit), one value each. */
static void build_random(void)
{
	static const char *const names[] = { "A", "B", "C", "x", "s", "y" };
	sht_state_opts o;
	sht_state *ss;

	sht_state_opts_init(&o);
	o.tree.block_size = 4096;
	o.tree.no_sync = true;
	o.provider = "test-model";
	o.provider_version = 3;
	o.model = &model;
	o.notes = notes;
	o.n_notes = 3;
	ok(sht_state_create(path, 0, &o, &ss) == SHT_OK, "create");
	for (int i = 0; i < 400; i++) {
		const char *e[3];
		size_t n = 1 + next() % 3;
		sht_quark q;
		sht_value v = sht_value_int32((int32_t)(next() % 4));

		for (size_t k = 0; k < n; k++)
			e[k] = names[next() % 6];
		if (sht_state_quark(ss, SHT_QUARK_ROOT, e, n, &q) == SHT_OK)
			sht_state_modify(ss, i, q, &v);
	}
	ok(sht_state_finish(ss, 1000) == SHT_OK, "finish");
	sht_state_close(ss);
}

static void test_stored(void)
{
	const sht_model *m;
	const sht_build_note *nt;
	size_t n;
	sht_state *ss;
	int same = 1;

	ok(sht_state_open(path, NULL, &ss) == SHT_OK, "open");
	ok(sht_state_model(ss, &m) == SHT_OK, "model read back");
	is_u64(m->n_attrs, 5, "five docs");
	is_u64(m->n_labels, 6, "six labels");
	for (size_t i = 0; i < 5; i++)
		same &= strcmp(m->attrs[i].pattern, docs[i].pattern) == 0 &&
			strcmp(m->attrs[i].text, docs[i].text) == 0 &&
			m->attrs[i].type == docs[i].type;
	ok(same, "docs equal, in order");
	/* Grouped by pattern, first appearance first. */
	is_str(m->labels[0].pattern, "A/*", "first group A/*");
	is_str(m->labels[1].label, "two", "A/* 2 second");
	is_str(m->labels[2].label, "minus five", "A/* -5 third");
	is_str(m->labels[3].pattern, "B/*/*", "then B/*/*");
	is_str(m->labels[4].label, "seven", "then A/x");
	is_str(m->labels[5].label, "three", "then */*/s");
	ok(sht_state_notes(ss, &nt, &n) == SHT_OK && n == 3, "three notes");
	is_str(nt[1].value, "/a/b c", "note value read back");
	is_str(nt[2].value, "", "an empty value is kept");
	sht_state_close(ss);
}

static void test_oracle(void)
{
	sht_state *ss;
	const sht_model *m;
	uint64_t n;
	int bad_doc = 0, bad_label = 0, bad_model = 0;

	ok(sht_state_open(path, NULL, &ss) == SHT_OK, "open for the oracle");
	sht_state_model(ss, &m);
	n = sht_state_attr_count(ss);
	ok(n > 20, "a tree of %llu attributes", (unsigned long long)n);
	for (uint64_t q = 0; q < n; q++) {
		char p[256], tmp[256];
		const char *elems[8];
		size_t ne = 0;
		const sht_attr_doc *d;
		sht_err err;

		sht_state_attr_path(ss, (sht_quark)q, p, sizeof p, NULL);
		err = sht_state_attr_doc(ss, (sht_quark)q, &d);
		if ((oracle_doc(p) == NULL) != (err == SHT_NOT_FOUND) ||
		    (err == SHT_OK && strcmp(d->text, oracle_doc(p)) != 0))
			bad_doc++;
		snprintf(tmp, sizeof tmp, "%s", p);
		for (char *s, *t = strtok_r(tmp, "/", &s); t && ne < 8;
		     t = strtok_r(NULL, "/", &s))
			elems[ne++] = t;
		for (int64_t v = -6; v <= 8; v++) {
			sht_value iv = sht_value_int32((int32_t)v);
			sht_value lv = sht_value_int64(v);
			const char *want = oracle_label(p, v);
			const char *got = sht_state_value_label(ss, (sht_quark)q, &iv);
			const char *got64 = sht_state_value_label(ss, (sht_quark)q, &lv);
			const char *alone = sht_model_label(m, elems, ne, &iv);

			if ((want == NULL) != (got == NULL) ||
			    (want && strcmp(want, got) != 0) ||
			    (want == NULL) != (got64 == NULL))
				bad_label++;
			if ((want == NULL) != (alone == NULL) ||
			    (want && strcmp(want, alone) != 0))
				bad_model++;
		}
	}
	is_int(bad_doc, 0, "every attribute's doc is the first matching pattern's");
	is_int(bad_label, 0, "every label (int32 and int64) is the oracle's");
	is_int(bad_model, 0, "sht_model_label agrees with the oracle");
	{
		sht_value d = sht_value_double(1.0);
		sht_value s = sht_value_string("1", 1);

		ok(sht_state_value_label(ss, 0, &d) == NULL &&
		   sht_state_value_label(ss, 0, &s) == NULL,
		   "doubles and strings have no label");
	}
	{
		const sht_attr_doc *d;

		is_int(sht_state_attr_doc(ss, (sht_quark)n, &d), SHT_ERR_RANGE,
		       "an unknown quark is a range error");
	}
	sht_state_close(ss);
}

/* A history without a model: empty model, no notes, no labels. */
static void test_without(void)
{
	sht_state_opts o;
	sht_state *ss;
	sht_quark q;
	sht_value v = sht_value_int32(1);
	const sht_model *m;
	const sht_build_note *nt;
	size_t n = 9;

	sht_state_opts_init(&o);
	o.tree.no_sync = true;
	sht_state_create(path, 0, &o, &ss);
	sht_state_quark_path(ss, "A/x", true, &q);
	sht_state_modify(ss, 5, q, &v);
	sht_state_finish(ss, 10);
	sht_state_close(ss);
	ok(sht_state_open(path, NULL, &ss) == SHT_OK, "open a history without a model");
	ok(sht_state_model(ss, &m) == SHT_OK && m->n_attrs == 0 && m->n_labels == 0,
	   "its model is empty");
	ok(sht_state_notes(ss, &nt, &n) == SHT_OK && n == 0, "and it has no notes");
	ok(sht_state_value_label(ss, q, &v) == NULL, "no label");
	sht_state_close(ss);
}

/* A provider's model is adopted by sht_state_run. */
static sht_err one_event(void *ctx, sht_state *ss, const sht_event *ev)
{
	sht_quark q;
	sht_value v = sht_value_int32(1);

	(void)ctx;
	if (sht_state_quark_path(ss, "Threads/7", true, &q) != SHT_OK)
		return SHT_ERR_NOMEM;
	return sht_state_modify(ss, ev->ts, q, &v);
}

struct one_src {
	int left;
};

static sht_err src_next(void *s, sht_event *ev)
{
	struct one_src *o = s;

	if (o->left == 0)
		return SHT_END;
	memset(ev, 0, sizeof *ev);
	ev->ts = 10 * o->left--;
	ev->ts = 100 - ev->ts;
	ev->cpu = -1;
	return SHT_OK;
}

static void test_adopt(void)
{
	static const sht_source_ops ops = { src_next, NULL, NULL, NULL, NULL };
	struct one_src os = { 3 };
	sht_source src = { &ops, &os };
	sht_provider p = { "adopt", 1, one_event, NULL, sht_kernel_model(), NULL, NULL };
	sht_state *ss;
	sht_quark q;
	sht_value v = sht_value_int32(1);

	sht_state_create(path, 0, NULL, &ss);
	ok(sht_state_run(ss, &src, &p, NULL, NULL) == SHT_OK, "run");
	sht_state_finish(ss, 100);
	sht_state_close(ss);
	sht_state_open(path, NULL, &ss);
	sht_state_quark_path(ss, "Threads/7", false, &q);
	is_str(sht_state_value_label(ss, q, &v), "Wait blocked",
	       "the provider's model was stored");
	sht_state_close(ss);
}

/* The kernel model: Trace Compass's names. */
static void test_kernel(void)
{
	const sht_model *m = sht_kernel_model();
	const char *thr[] = { "Threads", "1432" }, *cpu[] = { "CPUs", "3" };
	const char *sirq[] = { "CPUs", "0", "Soft_IRQs", "1" };
	sht_value v;

	v = sht_value_int32(1);
	is_str(sht_model_label(m, thr, 2, &v), "Wait blocked", "thread 1");
	v = sht_value_int32(3);
	is_str(sht_model_label(m, thr, 2, &v), "System call", "thread 3");
	v = sht_value_int32(2);
	is_str(sht_model_label(m, cpu, 2, &v), "Usermode", "CPU 2");
	v = sht_value_int32(16);
	is_str(sht_model_label(m, cpu, 2, &v), "Interrupt", "CPU 16");
	v = sht_value_int32(9);
	is_str(sht_model_label(m, sirq, 4, &v), "Soft Irq raised again", "soft IRQ 9");
	v = sht_value_int32(3);
	ok(sht_model_label(m, cpu, 2, &v) == NULL, "CPU 3 has no name");
	ok(sht_model_label(m, thr, 1, &v) == NULL, "Threads itself has no labels");
}

/* A rules file's defined values. */
static void test_rules(void)
{
	static const char text[] =
		"provider test.labels 1\n"
		"define RUN 2\n"
		"define BLOCKED 1\n"
		"define ALSO_RUN 2\n"
		"define BIG 5L\n"
		"define NAME \"text\"\n"
		"location cur = Threads/$tid\n"
		"on a\n"
		"\t@cur = RUN\n"
		"\t@cur = ALSO_RUN\n"
		"\tCPUs/$cpu/Mode = BIG\n"
		"\t@cur/Name = NAME\n"
		"\tStack push RUN\n"
		"\tCount += BLOCKED\n"
		"\tif [Threads/$tid/Other] == BLOCKED\n"
		"\t\tFixed = 3\n"
		"\tend\n"
		"end\n";
	sht_rules *r;
	const sht_model *m;

	ok(sht_rules_parse_native(text, sizeof text - 1, "t.rules", &r) == SHT_OK,
	   "rules parsed: %s", sht_errmsg());
	m = sht_rules_model(r);
	is_u64(m->n_labels, 3, "three labels");
	if (m->n_labels == 3) {
		is_str(m->labels[0].pattern, "Threads/*", "assignment: field -> *");
		is_str(m->labels[0].label, "RUN", "the first name of 2 wins");
		is_str(m->labels[1].pattern, "CPUs/*/Mode", "a long defined value");
		is_i64(m->labels[1].value, 5, "its value");
		is_str(m->labels[2].pattern, "Threads/*/Other", "a comparison labels too");
	}
	{
		sht_provider p;

		sht_rules_provider(r, &p);
		ok(p.model == m, "the provider carries the model");
	}
	sht_rules_destroy(r);
}

/* Damaged about sections: truncations and byte flips are refused with
 * SHT_ERR_CORRUPT (or read as another valid section), never a crash. */
static void test_damaged(void)
{
	struct sht__model *md, *back;
	uint8_t *buf, *mut;
	size_t len;
	int bad = 0, corrupt = 0;

	sht__model_copy(&model, notes, 3, &md);
	ok(sht__model_serialize(md, &buf, &len) == SHT_OK, "serialized");
	ok(sht__model_load(buf, len, &back) == SHT_OK, "loads back");
	{
		uint8_t *again;
		size_t alen;

		sht__model_serialize(back, &again, &alen);
		ok(alen == len && memcmp(again, buf, len) == 0,
		   "re-serializes to the same bytes");
		free(again);
	}
	sht__model_free(back);
	for (size_t cut = 0; cut < len; cut++) {
		sht_err err = sht__model_load(buf, cut, &back);

		if (err == SHT_OK)
			sht__model_free(back);
		bad += err != SHT_ERR_CORRUPT;
	}
	is_int(bad, 0, "every truncation is corrupt");
	mut = malloc(len);
	for (int i = 0; i < 3000; i++) {
		sht_err err;

		memcpy(mut, buf, len);
		mut[next() % len] ^= (uint8_t)(1 + next() % 255);
		err = sht__model_load(mut, len, &back);
		if (err == SHT_OK)
			sht__model_free(back);
		else
			corrupt += err == SHT_ERR_CORRUPT;
		bad += err != SHT_OK && err != SHT_ERR_CORRUPT;
	}
	is_int(bad, 0, "3000 byte flips: valid or corrupt, nothing else");
	ok(corrupt > 0, "some flips are refused (%d)", corrupt);
	free(mut);
	free(buf);
	sht__model_free(md);
	{
		static const sht_attr_doc bad_docs[] = {
			{ "A//x", SHT_TYPE_INT32, "t" },
		};
		static const sht_model badm = { bad_docs, 1, NULL, 0 };
		sht_state_opts o;
		sht_state *ss;

		sht_state_opts_init(&o);
		o.model = &badm;
		is_int(sht_state_create(path, 0, &o, &ss), SHT_ERR_INVALID,
		       "an empty pattern name is refused at create");
	}
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");

	snprintf(path, sizeof path, "%s/test-model-%d.sht", tmp ? tmp : "/tmp",
		 (int)getpid());
	build_random();
	test_stored();
	test_oracle();
	test_without();
	test_adopt();
	test_kernel();
	test_rules();
	test_damaged();
	unlink(path);
	return done_testing();
}
