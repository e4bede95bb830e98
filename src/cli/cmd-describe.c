/*
 * cmd-describe.c: `sht describe FILE [--json]`: what a history is: which
 * analysis built it, from which trace, with which options (its build
 * notes), its time span, and what its attributes and values mean (the
 * analysis's model), with how many attributes each description covers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char describe_usage[] =
"Usage: sht describe FILE [OPTION]...\n"
"\n"
"Say what the history file FILE is: the analysis that built it (provider\n"
"id and version), the trace it was built from, the options that shaped\n"
"it and the tool that wrote it (the build notes), whether it is a full or\n"
"a partial history, its first and last time (as nanoseconds and as a\n"
"time of day, with the date and the time zone), its number of attributes\n"
"and intervals; then what its attributes mean, from the analysis's own\n"
"model: each attribute pattern (\"*\" stands for any one name) with the\n"
"type of its values, how many attributes of the file it covers, a\n"
"sentence, and the names of its values.\n"
"\n"
"Options:\n"
"  --time-format F   how the first and last times are shown besides\n"
"                    nanoseconds: clock (default) or relative\n"
"  --json            print one JSON object: {file, provider,\n"
"                    provider_version, notes: {key: value}, partial (the\n"
"                    events between checkpoints, 0 for a full history),\n"
"                    start, end (ns), zone, attributes, intervals, model:\n"
"                    [{pattern, type, text, attributes, labels: [{value,\n"
"                    label}]}]}\n"
"  -h, --help        show this help\n";

enum { OPT_JSON = 1, OPT_TIME_FORMAT };

static const cli_opt describe_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ "time-format", 0, 1, OPT_TIME_FORMAT },
	{ NULL, 0, 0, 0 }
};

struct describe_opts {
	const char *file;
	int json;
	cli_time_format format;
};

static int describe_opt(void *ctx, int id, const char *val)
{
	struct describe_opts *o = ctx;

	switch (id) {
	case OPT_JSON:
		o->json = 1;
		return 0;
	case OPT_TIME_FORMAT:
		return cli_time_format_parse("describe", "--time-format", val,
					     &o->format);
	default:
		return cli_take_file("describe", &o->file, val);
	}
}

/* One entry of the description: a pattern with its doc (or NULL) and its
 * labels. */
struct entry {
	const char *pattern;
	const sht_attr_doc *doc;
	const sht_value_label *labels;
	size_t n_labels;
	size_t matches;
};

/* What describe prints, gathered first. */
struct description {
	const char *file;
	const char *provider;
	uint32_t version;
	const sht_build_note *notes;
	size_t n_notes;
	int64_t partial;
	cli_timectx tc;
	uint64_t attributes, intervals;
	struct entry *e;
	size_t n;
};

/* The labels of pattern in m (consecutive), *n of them. */
static const sht_value_label *labels_of(const sht_model *m, const char *pat,
					size_t *n)
{
	*n = 0;
	for (size_t i = 0; i < m->n_labels; i++) {
		if (strcmp(m->labels[i].pattern, pat) != 0)
			continue;
		while (i + *n < m->n_labels &&
		       strcmp(m->labels[i + *n].pattern, pat) == 0)
			(*n)++;
		return &m->labels[i];
	}
	return NULL;
}

static int has_doc(const sht_model *m, const char *pat)
{
	for (size_t i = 0; i < m->n_attrs; i++)
		if (strcmp(m->attrs[i].pattern, pat) == 0)
			return 1;
	return 0;
}

/* The entries: each doc with its labels, then the label patterns that
 * have no doc.  Counts the attributes each pattern matches. */
static int gather_entries(sht_state *ss, const sht_model *m,
			  struct description *d)
{
	d->e = calloc(m->n_attrs + m->n_labels + 1, sizeof(*d->e));
	if (!d->e)
		return cli_fail(SHT_ERR_NOMEM, "describe %s", d->file);
	for (size_t i = 0; i < m->n_attrs; i++) {
		struct entry *e = &d->e[d->n++];

		e->pattern = m->attrs[i].pattern;
		e->doc = &m->attrs[i];
		e->labels = labels_of(m, e->pattern, &e->n_labels);
	}
	for (size_t i = 0; i < m->n_labels; i++) {
		const char *p = m->labels[i].pattern;
		struct entry *e;

		if (has_doc(m, p) || (i > 0 && strcmp(m->labels[i - 1].pattern, p) == 0))
			continue;
		e = &d->e[d->n++];
		e->pattern = p;
		e->labels = labels_of(m, p, &e->n_labels);
	}
	for (size_t i = 0; i < d->n; i++) {
		sht_quark *q = NULL;
		sht_err err = sht_state_attr_match(ss, d->e[i].pattern, &q,
						   &d->e[i].matches);

		free(q);
		if (err < 0)
			return cli_fail(err, "match '%s' in %s", d->e[i].pattern,
					d->file);
	}
	return CLI_OK;
}

static int gather(sht_state *ss, const struct describe_opts *o,
		  struct description *d)
{
	const sht_model *m;
	sht_reader *r;
	sht_tree_info in;
	sht_err err;

	memset(d, 0, sizeof(*d));
	d->file = o->file;
	if (cli_load_attrs(o->file, ss) != CLI_OK)
		return CLI_FAIL;
	sht_state_provider(ss, &d->provider, &d->version);
	err = sht_state_model(ss, &m);
	if (err == SHT_OK)
		err = sht_state_notes(ss, &d->notes, &d->n_notes);
	if (err < 0)
		return cli_fail(err, "read the model of %s", o->file);
	d->partial = cli_partial_every(o->file);
	cli_timectx_init(&d->tc, sht_state_start(ss), sht_state_end(ss),
			 o->format == CLI_TIME_NS ? CLI_TIME_CLOCK : o->format);
	d->attributes = sht_state_attr_count(ss);
	if (cli_open_reader(o->file, &r) != CLI_OK)
		return CLI_FAIL;
	sht_reader_info_get(r, &in);
	sht_reader_close(r);
	d->intervals = in.intervals;
	return gather_entries(ss, m, d);
}

/* ---- printing ---------------------------------------------------------- */

static const char *type_word(const sht_attr_doc *doc)
{
	if (!doc)
		return NULL;
	return doc->type == SHT_TYPE_NULL ? "node" : cli_type_name(doc->type);
}

static void human_entry(const struct entry *e)
{
	const char *type = type_word(e->doc);

	printf("  ");
	cli_print_name(stdout, e->pattern, strlen(e->pattern));
	printf("  (%s%s%zu attribute%s)\n", type ? type : "", type ? ", " : "",
	       e->matches, e->matches == 1 ? "" : "s");
	if (e->doc)
		printf("      %s\n", e->doc->text);
	if (e->n_labels == 0)
		return;
	printf("      values:");
	for (size_t j = 0; j < e->n_labels; j++)
		printf("%s %" PRId64 " %s", j ? "," : "", e->labels[j].value,
		       e->labels[j].label);
	putchar('\n');
}

static void human_time(const char *key, const struct description *d,
		       sht_time t)
{
	char a[CLI_TIME_BUF], b[CLI_TIME_BUF];

	printf("%-16s%" PRId64 "  (%s", key, t,
	       cli_time_str_as(&d->tc, CLI_TIME_CLOCK, t, a, sizeof(a)));
	if (d->tc.format == CLI_TIME_RELATIVE)
		printf(", %s", cli_time_str(&d->tc, t, b, sizeof(b)));
	printf(")\n");
}

static void human(const struct description *d)
{
	printf("%-16s%s\n", "file:", d->file);
	printf("%-16s%s, version %" PRIu32 "\n", "provider:",
	       d->provider[0] ? d->provider : "(none)", d->version);
	for (size_t i = 0; i < d->n_notes; i++) {
		char key[64];

		snprintf(key, sizeof(key), "%s:", d->notes[i].key);
		printf("%-16s%s\n", key, d->notes[i].value);
	}
	if (d->n_notes == 0)
		printf("%-16s%s\n", "notes:", "(none: not built by sht build, "
		       "or by an older one)");
	if (d->partial > 0)
		printf("%-16spartial, a checkpoint every %" PRId64 " events "
		       "(queries need the trace)\n", "history:", d->partial);
	else
		printf("%-16sfull\n", "history:");
	printf("%-16s%04d-%02d-%02d, %s\n", "day:", d->tc.year, d->tc.month,
	       d->tc.day, d->tc.zone);
	human_time("start:", d, d->tc.start);
	human_time("end:", d, d->tc.end);
	printf("%-16s%" PRIu64 "\n", "attributes:", d->attributes);
	printf("%-16s%" PRIu64 "\n", "intervals:", d->intervals);
	if (d->n == 0) {
		printf("\nThe analysis describes no attributes.\n");
		return;
	}
	printf("\nAttributes (\"*\" is any one name):\n");
	for (size_t i = 0; i < d->n; i++)
		human_entry(&d->e[i]);
}

static json_t *json_entry(const struct entry *e)
{
	json_t *o = json_object(), *labels = json_array();

	cli_jset(o, "pattern", cli_jcstr(e->pattern));
	cli_jset(o, "type", cli_jcstr(type_word(e->doc)));
	cli_jset(o, "text", cli_jcstr(e->doc ? e->doc->text : NULL));
	cli_jset(o, "attributes", cli_juint(e->matches));
	for (size_t j = 0; j < e->n_labels; j++) {
		json_t *l = json_object();

		cli_jset(l, "value", cli_jint(e->labels[j].value));
		cli_jset(l, "label", cli_jcstr(e->labels[j].label));
		cli_jappend(labels, l);
	}
	cli_jset(o, "labels", labels);
	return o;
}

static int json_out(const struct description *d)
{
	json_t *o = json_object(), *notes = json_object(), *model = json_array();

	cli_jset(o, "file", cli_jcstr(d->file));
	cli_jset(o, "provider", cli_jcstr(d->provider));
	cli_jset(o, "provider_version", cli_juint(d->version));
	for (size_t i = 0; i < d->n_notes; i++)
		cli_jset(notes, d->notes[i].key, cli_jcstr(d->notes[i].value));
	cli_jset(o, "notes", notes);
	cli_jset(o, "partial", cli_jint(d->partial > 0 ? d->partial : 0));
	cli_jset(o, "start", cli_jint(d->tc.start));
	cli_jset(o, "end", cli_jint(d->tc.end));
	cli_jset(o, "zone", cli_jcstr(d->tc.zone));
	cli_jset(o, "attributes", cli_juint(d->attributes));
	cli_jset(o, "intervals", cli_juint(d->intervals));
	for (size_t i = 0; i < d->n; i++)
		cli_jappend(model, json_entry(&d->e[i]));
	cli_jset(o, "model", model);
	return cli_json_print(o);
}

int cmd_describe(int argc, char **argv)
{
	struct describe_opts o = { NULL, 0, CLI_TIME_NS };
	struct description d;
	sht_state *ss;
	int status = cli_parse_options(argc, argv, 1, "describe",
				       describe_opts, describe_usage,
				       describe_opt, &o);

	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (!o.file)
		return cli_usage_error("describe", "missing FILE");
	if (cli_open_state(o.file, &ss) != CLI_OK)
		return CLI_FAIL;
	status = gather(ss, &o, &d);
	if (status == CLI_OK && o.json)
		status = json_out(&d);
	else if (status == CLI_OK)
		human(&d);
	free(d.e);
	sht_state_close(ss);
	return cli_finish_output(status);
}
