/*
 * cmd-tree.c: `sht tree FILE [--json] [--depth N] [--pattern GLOB]`: the
 * attribute tree of a history file, depth first in creation order, one
 * line (or JSON object) per attribute, written as it is walked: a tree of
 * millions of attributes streams out in time linear in its size.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char tree_usage[] =
"Usage: sht tree FILE [OPTION]...\n"
"\n"
"List the attributes of the history file FILE, depth first, children in\n"
"creation order (= quark order), one per line: its name and quark as\n"
"\"name (quark)\", indented by two spaces per level.  A name that is empty\n"
"or holds spaces, quotes or control characters is printed as a quoted\n"
"string.\n"
"\n"
"Options:\n"
"  --depth N        list N levels only (1: the top-level attributes; with\n"
"                   --pattern, the levels below each match, 0: the matches\n"
"                   alone)\n"
"  --pattern GLOB   list the attributes matching GLOB, \"/\"-separated\n"
"                   names where \"*\" matches any one name (e.g.\n"
"                   Threads/*/Status), each by its full path, with the\n"
"                   attributes below it; none matching is an error\n"
"  --values         after each attribute, the type of its values and the\n"
"                   names of its values, from the analysis's model:\n"
"                   \"Status (7)  int: 0 Unknown, 1 Wait blocked, ...\"\n"
"                   (node: an attribute that holds no value; nothing for\n"
"                   an attribute the model does not describe)\n"
"  --json           print a JSON array of {quark, path, parent}, one per\n"
"                   line; parent is null for a top-level attribute; with\n"
"                   --values also type and labels: [{value, label}]\n"
"  -h, --help       show this help\n";

enum { OPT_JSON = 1, OPT_DEPTH, OPT_PATTERN, OPT_VALUES };

static const cli_opt tree_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ "depth", 0, 1, OPT_DEPTH },
	{ "pattern", 0, 1, OPT_PATTERN },
	{ "values", 0, 0, OPT_VALUES },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct tree_opts {
	const char *file;
	uint64_t depth;           /* levels listed below each start */
	const char *pattern;
	int json;
	int values;               /* --values */
};

/* One level of the walk: the children of parent, the next one at i. */
struct frame {
	sht_quark parent;
	const sht_quark *kids;    /* borrowed from the state system */
	size_t n, i;
	size_t prefix;            /* length of parent's path in the buffer,
				   * NO_PREFIX for the root */
};

#define NO_PREFIX SIZE_MAX

/* The walk's state. */
struct walk {
	const struct tree_opts *o;
	sht_state *ss;
	cli_jlist list;           /* --json */
	struct frame *stack;
	size_t depth, cap;        /* frames in use, allocated */
	char *path;               /* path of the current attribute */
	size_t path_cap;
	int indent_base;          /* level printed without indent */
};

static int walk_reserve_path(struct walk *k, size_t size)
{
	char *p;
	size_t cap = k->path_cap ? k->path_cap : 64u;

	if (size <= k->path_cap)
		return CLI_OK;
	while (cap < size)
		cap *= 2;
	p = realloc(k->path, cap);
	if (!p)
		return cli_fail(SHT_ERR_NOMEM, "allocate a path of %zu bytes",
				size);
	k->path = p;
	k->path_cap = cap;
	return CLI_OK;
}

/* path = path[0, prefix) + "/" + name, or name alone below the root;
 * *plen gets its length. */
static int walk_set_path(struct walk *k, size_t prefix, const char *name,
			 size_t len, size_t *plen)
{
	size_t at = prefix == NO_PREFIX ? 0 : prefix + 1;

	if (walk_reserve_path(k, at + len + 1) != CLI_OK)
		return CLI_FAIL;
	if (prefix != NO_PREFIX)
		k->path[prefix] = '/';
	memcpy(k->path + at, name, len);
	k->path[at + len] = '\0';
	*plen = at + len;
	return CLI_OK;
}

/* The model's type word of q ("node" for an attribute without values),
 * or NULL; its labels into *l, *n. */
static const char *attr_values(struct walk *k, sht_quark q,
			       const sht_value_label **l, size_t *n)
{
	const sht_attr_doc *doc = NULL;

	*l = NULL;
	*n = 0;
	sht_state_attr_labels(k->ss, q, l, n);
	if (sht_state_attr_doc(k->ss, q, &doc) != SHT_OK || !doc)
		return NULL;
	return doc->type == SHT_TYPE_NULL ? "node" : cli_type_name(doc->type);
}

static void json_values(struct walk *k, sht_quark q, json_t *o)
{
	const sht_value_label *l;
	size_t n;
	const char *type = attr_values(k, q, &l, &n);
	json_t *labels;

	cli_jset(o, "type", cli_jcstr(type));
	if (n == 0)
		return;
	labels = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_object();

		cli_jset(e, "value", cli_jint(l[i].value));
		cli_jset(e, "label", cli_jcstr(l[i].label));
		cli_jappend(labels, e);
	}
	cli_jset(o, "labels", labels);
}

static void print_values(struct walk *k, sht_quark q)
{
	const sht_value_label *l;
	size_t n;
	const char *type = attr_values(k, q, &l, &n);

	if (!type && n == 0)
		return;
	printf("  %s%s", type ? type : "", n ? ":" : "");
	for (size_t i = 0; i < n; i++)
		printf("%s %lld %s", i ? "," : "", (long long)l[i].value,
		       l[i].label);
}

/* Print q, whose path is in k->path, at level (its depth below the
 * start); label: its name (len bytes). */
static void walk_print(struct walk *k, sht_quark q, sht_quark parent,
		       size_t level, const char *label, size_t len)
{
	if (k->o->json) {
		json_t *o = json_object();

		cli_jset(o, "quark", cli_juint(q));
		cli_jset(o, "path", cli_jcstr(k->path));
		cli_jset(o, "parent", parent == SHT_QUARK_ROOT ?
			 cli_jcstr(NULL) : cli_juint(parent));
		if (k->o->values)
			json_values(k, q, o);
		cli_jlist_add(&k->list, o);
		return;
	}
	for (size_t i = (size_t)k->indent_base; i < level; i++)
		fputs("  ", stdout);
	cli_print_name(stdout, label, len);
	printf(" (%lu)", (unsigned long)q);
	if (k->o->values)
		print_values(k, q);
	putchar('\n');
}

/* Push the children of q (path length prefix). */
static int walk_push(struct walk *k, sht_quark q, size_t prefix)
{
	struct frame *f;
	sht_err err;

	if (k->depth == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 16u;

		f = realloc(k->stack, cap * sizeof(*f));
		if (!f)
			return cli_fail(SHT_ERR_NOMEM, "allocate the walk");
		k->stack = f;
		k->cap = cap;
	}
	f = &k->stack[k->depth];
	err = sht_state_attr_children(k->ss, q, &f->kids, &f->n);
	if (err < 0)
		return cli_fail(err, "read the children of quark %lu",
				(unsigned long)q);
	f->parent = q;
	f->i = 0;
	f->prefix = prefix;
	k->depth++;
	return CLI_OK;
}

/* List everything below start (SHT_QUARK_ROOT or a match whose path is
 * in k->path) down to the depth limit. */
static int walk_below(struct walk *k, sht_quark start)
{
	size_t prefix = start == SHT_QUARK_ROOT ? NO_PREFIX : strlen(k->path);

	k->depth = 0;
	if (k->o->depth == 0)
		return CLI_OK;
	if (walk_push(k, start, prefix) != CLI_OK)
		return CLI_FAIL;
	while (k->depth > 0 && !ferror(stdout) && !k->list.failed) {
		struct frame *f = &k->stack[k->depth - 1];
		size_t level = k->depth;  /* of f's children */
		const char *name;
		size_t len, plen;
		sht_quark q;
		sht_err err;

		if (f->i == f->n) {
			k->depth--;
			continue;
		}
		q = f->kids[f->i++];
		err = sht_state_attr_name(k->ss, q, &name, &len);
		if (err < 0)
			return cli_fail(err, "read the name of quark %lu",
					(unsigned long)q);
		if (walk_set_path(k, f->prefix, name, len, &plen) != CLI_OK)
			return CLI_FAIL;
		walk_print(k, q, f->parent, level, name, len);
		if (level < k->o->depth && walk_push(k, q, plen) != CLI_OK)
			return CLI_FAIL;
	}
	return CLI_OK;
}

/* Each match by its full path, then what lies below it. */
static int walk_matches(struct walk *k)
{
	sht_quark *m = NULL;
	size_t n = 0;
	sht_err err = sht_state_attr_match(k->ss, k->o->pattern, &m, &n);
	cli_path p = { NULL, 0 };
	int status = CLI_OK;

	if (err < 0)
		return cli_fail(err, "match '%s' in %s", k->o->pattern,
				k->o->file);
	k->indent_base = 0;
	for (size_t i = 0; i < n && status == CLI_OK && !ferror(stdout); i++) {
		const char *path = cli_attr_path(k->ss, m[i], &p);
		sht_quark parent = SHT_QUARK_ROOT;
		size_t len = strlen(path);

		sht_state_attr_parent(k->ss, m[i], &parent);
		status = walk_reserve_path(k, len + 1);
		if (status != CLI_OK)
			break;
		memcpy(k->path, path, len + 1);
		walk_print(k, m[i], parent, 0, path, len);
		status = walk_below(k, m[i]);
	}
	free(m);
	cli_path_free(&p);
	if (status == CLI_OK && n == 0)
		status = cli_error("%s: no attribute matches '%s'",
				   k->o->file, k->o->pattern);
	return status;
}

static int tree_walk(const struct tree_opts *o, sht_state *ss)
{
	struct walk k;
	int status;

	memset(&k, 0, sizeof(k));
	k.o = o;
	k.ss = ss;
	k.indent_base = 1;
	if (o->json)
		cli_jlist_begin(&k.list, stdout);
	status = o->pattern ? walk_matches(&k) : walk_below(&k, SHT_QUARK_ROOT);
	if (o->json && cli_jlist_end(&k.list) != CLI_OK)
		status = CLI_FAIL;
	free(k.stack);
	free(k.path);
	return status;
}

static int tree_opt(struct tree_opts *o, int id, const char *val)
{
	switch (id) {
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_DEPTH:
		return cli_parse_u64("tree", "--depth", val, 0, UINT32_MAX,
				     &o->depth);
	case OPT_PATTERN:
		o->pattern = val;
		return 0;
	case OPT_VALUES:
		o->values = 1;
		return 0;
	default:                  /* positional */
		return cli_take_file("tree", &o->file, val);
	}
}

static int tree_opt_cb(void *ctx, int id, const char *val)
{
	return tree_opt(ctx, id, val);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int tree_parse(struct tree_opts *o, int argc, char **argv)
{
	int rc = cli_parse_options(argc, argv, 1, "tree", tree_opts,
				   tree_usage, tree_opt_cb, o);

	if (rc != CLI_OK)
		return rc;
	if (!o->file)
		return cli_usage_error("tree", "missing FILE");
	if (o->pattern && !*o->pattern)
		return cli_usage_error("tree", "empty --pattern");
	return CLI_OK;
}

int cmd_tree(int argc, char **argv)
{
	struct tree_opts o = { 0 };
	sht_state *ss;
	int status;

	o.depth = UINT64_MAX;
	status = tree_parse(&o, argc, argv);
	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (cli_open_state(o.file, &ss) != CLI_OK)
		return CLI_FAIL;
	status = cli_load_attrs(o.file, ss);
	if (status == CLI_OK && o.values)
		status = cli_load_model(o.file, ss);
	if (status == CLI_OK)
		status = tree_walk(&o, ss);
	sht_state_close(ss);
	return cli_finish_output(status);
}
