/*
 * print.c: printers shared by the CLI's commands: intervals and values in
 * the human and JSON forms, attribute paths, a file's header and
 * statistics (sht info), and a build summary (sht gen, sht demo).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- values and intervals ---------------------------------------------- */

/* The names of --json output; fixed here, not borrowed from the library,
 * because scripts depend on them. */
const char *cli_type_name(sht_type t)
{
	switch (t) {
	case SHT_TYPE_NULL:   return "null";
	case SHT_TYPE_INT32:  return "int";
	case SHT_TYPE_INT64:  return "long";
	case SHT_TYPE_DOUBLE: return "double";
	case SHT_TYPE_STRING: return "string";
	}
	return "unknown";
}

/* Shortest of %.15g / %.17g that reads back exactly. */
static void print_double(FILE *f, double x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.15g", x);
	if (!isnan(x) && strtod(buf, NULL) != x)
		snprintf(buf, sizeof(buf), "%.17g", x);
	fputs(buf, f);
}

void cli_print_value(FILE *f, const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_NULL:
		fputs("null", f);
		break;
	case SHT_TYPE_INT32:
		fprintf(f, "%ld", (long)v->u.i32);
		break;
	case SHT_TYPE_INT64:
		fprintf(f, "%lld", (long long)v->u.i64);
		break;
	case SHT_TYPE_DOUBLE:
		print_double(f, v->u.d);
		break;
	case SHT_TYPE_STRING:
		cli_json_fquote(f, v->u.str, v->len);
		break;
	default:
		fputs("?", f);
		break;
	}
}

void cli_print_labeled(FILE *f, const sht_value *v, const char *label)
{
	cli_print_value(f, v);
	if (label)
		fprintf(f, " (%s)", label);
}

/* "[start, end]  type  value[ (label)]\n", times in tc's format (NULL:
 * nanoseconds). */
static void print_interval_rest(FILE *f, const sht_interval *iv,
				const cli_timectx *tc, const char *label)
{
	char a[CLI_TIME_BUF], b[CLI_TIME_BUF];

	if (tc)
		fprintf(f, "[%s, %s]  %s  ", cli_time_str(tc, iv->start, a, sizeof(a)),
			cli_time_str(tc, iv->end, b, sizeof(b)),
			cli_type_name(iv->value.type));
	else
		fprintf(f, "[%lld, %lld]  %s  ", (long long)iv->start,
			(long long)iv->end, cli_type_name(iv->value.type));
	cli_print_labeled(f, &iv->value, label);
	fputc('\n', f);
}

void cli_print_interval(FILE *f, const sht_interval *iv)
{
	fprintf(f, "%lu  ", (unsigned long)iv->quark);
	print_interval_rest(f, iv, NULL, NULL);
}

static int name_is_plain(const char *s, size_t len)
{
	if (len == 0)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == 0x7f || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

void cli_print_name(FILE *f, const char *s, size_t len)
{
	if (name_is_plain(s, len))
		fwrite(s, 1, len, f);
	else
		cli_json_fquote(f, s, len);
}

void cli_print_interval_path(FILE *f, const sht_interval *iv,
			     const char *path)
{
	cli_print_interval_as(f, iv, path, NULL, NULL);
}

void cli_print_interval_as(FILE *f, const sht_interval *iv, const char *path,
			   const cli_timectx *tc, const char *label)
{
	fprintf(f, "%lu  ", (unsigned long)iv->quark);
	cli_print_name(f, path, strlen(path));
	fputs("  ", f);
	print_interval_rest(f, iv, tc, label);
}

json_t *cli_json_value(const sht_value *v)
{
	switch (v->type) {
	case SHT_TYPE_INT32:
		return cli_jint(v->u.i32);
	case SHT_TYPE_INT64:
		return cli_jint(v->u.i64);
	case SHT_TYPE_DOUBLE:
		return cli_jreal(v->u.d);
	case SHT_TYPE_STRING:
		return cli_jstr(v->u.str, v->len);
	default:
		return cli_jcstr(NULL);
	}
}

/* ---- attribute paths and query output ---------------------------------- */

#define PATH_INITIAL 64u

/* Room for size bytes; 0, or -1 if memory ran out. */
static int path_reserve(cli_path *p, size_t size)
{
	char *b;

	if (size <= p->cap)
		return 0;
	b = realloc(p->buf, size);
	if (!b)
		return -1;
	p->buf = b;
	p->cap = size;
	return 0;
}

const char *cli_attr_path(sht_state *ss, sht_quark q, cli_path *p)
{
	size_t need = 0;
	sht_err err;

	if (path_reserve(p, PATH_INITIAL) < 0)
		return "";
	err = sht_state_attr_path(ss, q, p->buf, p->cap, &need);
	if (err == SHT_ERR_BUFFER && path_reserve(p, need + 1u) == 0)
		err = sht_state_attr_path(ss, q, p->buf, p->cap, &need);
	if (err < 0)
		p->buf[0] = '\0';   /* no such attribute: a file without names */
	return p->buf;
}

void cli_path_free(cli_path *p)
{
	free(p->buf);
	p->buf = NULL;
	p->cap = 0;
}

void cli_ivout_begin(cli_ivout *o, sht_state *ss, int json,
		     const cli_timectx *tc)
{
	char legend[256];

	memset(o, 0, sizeof(*o));
	o->json = json;
	o->ss = ss;
	o->tc = tc;
	if (json) {
		cli_jlist_begin(&o->list, stdout);
		return;
	}
	cli_time_legend(tc, legend, sizeof(legend));
	if (legend[0])
		puts(legend);
}

/* The JSON element of the list, made once with every member and updated
 * in place for each interval: a list of a million intervals allocates
 * only their values (a number or a string each). */
static int row_make(cli_ivout *o)
{
	json_t *r = json_object();

	o->row_q = cli_jint(0);
	o->row_path = cli_jcstr("");
	o->row_start = cli_jint(0);
	o->row_end = cli_jint(0);
	o->row_type = cli_jcstr("");
	cli_jset(r, "quark", o->row_q);
	cli_jset(r, "path", o->row_path);
	cli_jset(r, "start", o->row_start);
	cli_jset(r, "end", o->row_end);
	cli_jset(r, "type", o->row_type);
	cli_jset(r, "value", cli_jcstr(NULL));
	o->row = r;
	return r ? 0 : -1;
}

static void row_set(cli_ivout *o, const sht_interval *iv, const char *path,
		    const char *label)
{
	json_integer_set(o->row_q, (json_int_t)iv->quark);
	cli_jstr_set(o->row_path, path, strlen(path));
	json_integer_set(o->row_start, iv->start);
	json_integer_set(o->row_end, iv->end);
	json_string_set(o->row_type, cli_type_name(iv->value.type));
	cli_jset(o->row, "value", cli_json_value(&iv->value));
	if (label)
		cli_jset(o->row, "label", cli_jcstr(label));
	else
		json_object_del(o->row, "label");
}

void cli_ivout_interval(cli_ivout *o, const sht_interval *iv)
{
	const char *path = cli_attr_path(o->ss, iv->quark, &o->path);
	const char *label = sht_state_value_label(o->ss, iv->quark, &iv->value);

	if (!o->json) {
		cli_print_interval_as(stdout, iv, path, o->tc, label);
		return;
	}
	if (!o->row && row_make(o) < 0) {
		cli_jlist_put(&o->list, NULL);   /* lost: the list fails */
		return;
	}
	row_set(o, iv, path, label);
	cli_jlist_put(&o->list, o->row);
}

void cli_ivout_result(cli_ivout *o, const sht_result *res)
{
	size_t n = sht_result_count(res);

	for (size_t i = 0; i < n; i++)
		cli_ivout_interval(o, sht_result_at(res, i));
}

int cli_ivout_end(cli_ivout *o)
{
	int status = CLI_OK;

	if (o->json)
		status = cli_jlist_end(&o->list);
	json_decref(o->row);
	o->row = NULL;
	cli_path_free(&o->path);
	return status;
}

/* ---- sht info ---------------------------------------------------------- */

/* What sht info reports beyond the reader's header and statistics. */
struct info_names {
	uint64_t attributes;
	const char *provider;
	uint32_t provider_version;
	sht_sync *sync;           /* stored synchronization (build --sync) */
};

/* The synchronization a history was built with, as JSON (or null). */
static json_t *sync_json(const sht_sync *s)
{
	sht_sync_stats st;
	json_t *o;

	if (!s)
		return json_null();
	sht_sync_stats_get(s, &st);
	o = json_object();
	cli_jset(o, "quality",
		 cli_jcstr(sht_sync_quality_name(sht_sync_quality_get(s))));
	cli_jset(o, "matches", cli_juint(st.matches));
	cli_jset(o, "traces", cli_sync_json_traces(s, NULL));
	return o;
}

static void sync_human(const sht_sync *s)
{
	sht_sync_trace_info ti;
	sht_sync_stats st;

	if (!s)
		return;
	sht_sync_stats_get(s, &st);
	printf("%-20s%s, %llu matches, %zu traces:\n", "synchronization:",
	       sht_sync_quality_name(sht_sync_quality_get(s)),
	       (unsigned long long)st.matches, sht_sync_count(s));
	for (size_t i = 0; i < sht_sync_count(s); i++) {
		sht_sync_trace(s, i, &ti);
		printf("  %s: host %s, slope %s, offset %s%s\n", ti.name,
		       ti.host, sht_transform_slope(ti.transform),
		       sht_transform_offset(ti.transform),
		       ti.reference ? " (reference)" : "");
	}
}

static double level_fill(const sht_tree_level_stats *l, uint32_t block_size)
{
	if (l->nodes == 0)
		return 0.0;
	return (double)l->used_bytes / ((double)l->nodes * block_size);
}

static json_t *info_levels(const sht_tree_info *in, const sht_tree_stats *st)
{
	json_t *levels = json_array();

	for (uint32_t i = 0; i < st->levels && i < SHT_TREE_STATS_MAX_LEVELS; i++) {
		json_t *l = json_object();

		cli_jset(l, "level", cli_juint(i));
		cli_jset(l, "nodes", cli_juint(st->level[i].nodes));
		cli_jset(l, "intervals", cli_juint(st->level[i].intervals));
		cli_jset(l, "fill", cli_jreal(level_fill(&st->level[i],
							  in->block_size)));
		cli_jappend(levels, l);
	}
	return levels;
}

static int info_json(const char *path, const sht_tree_info *in,
		     const sht_tree_stats *st, const struct info_names *nm)
{
	json_t *o = json_object();

	cli_jset(o, "file", cli_jcstr(path));
	cli_jset(o, "variant", cli_jcstr(cli_variant_name(in->variant)));
	cli_jset(o, "format_version", cli_juint(in->format_version));
	cli_jset(o, "block_size", cli_juint(in->block_size));
	cli_jset(o, "max_children", cli_juint(in->max_children));
	cli_jset(o, "nodes", cli_juint(in->nodes));
	cli_jset(o, "leaf_nodes", cli_juint(st->leaf_nodes));
	cli_jset(o, "core_nodes", cli_juint(st->core_nodes));
	cli_jset(o, "blob_blocks", cli_juint(st->blob_blocks));
	cli_jset(o, "section_blocks", cli_juint(st->section_blocks));
	cli_jset(o, "blocks", cli_juint(in->blocks));
	cli_jset(o, "depth", cli_juint(in->depth));
	cli_jset(o, "intervals", cli_juint(in->intervals));
	cli_jset(o, "quarks", cli_juint(in->quark_count));
	cli_jset(o, "attributes", cli_juint(nm->attributes));
	cli_jset(o, "provider", cli_jcstr(nm->provider));
	cli_jset(o, "provider_version", cli_juint(nm->provider_version));
	cli_jset(o, "sync", sync_json(nm->sync));
	cli_jset(o, "start", cli_jint(in->start));
	cli_jset(o, "end", cli_jint(in->end));
	cli_jset(o, "file_bytes", cli_juint(in->file_bytes));
	cli_jset(o, "bytes_per_interval", cli_jreal(st->bytes_per_interval));
	cli_jset(o, "fill_leaf", cli_jreal(st->fill_leaf));
	cli_jset(o, "fill_core", cli_jreal(st->fill_core));
	cli_jset(o, "levels", info_levels(in, st));
	return cli_json_print(o);
}

#define KEY_FMT "%-20s"

static void kv_u(const char *key, uint64_t x)
{
	printf(KEY_FMT "%llu\n", key, (unsigned long long)x);
}

static void kv_i(const char *key, int64_t x)
{
	printf(KEY_FMT "%lld\n", key, (long long)x);
}

static void kv_s(const char *key, const char *s)
{
	printf(KEY_FMT "%s\n", key, s);
}

static void kv_f(const char *key, double x, const char *unit)
{
	printf(KEY_FMT "%.4f%s\n", key, x, unit);
}

static void info_human(const char *path, const sht_tree_info *in,
		       const sht_tree_stats *st, const struct info_names *nm)
{
	kv_s("file:", path);
	kv_s("variant:", cli_variant_name(in->variant));
	kv_u("format_version:", in->format_version);
	kv_u("block_size:", in->block_size);
	kv_u("max_children:", in->max_children);
	kv_u("nodes:", in->nodes);
	kv_u("leaf_nodes:", st->leaf_nodes);
	kv_u("core_nodes:", st->core_nodes);
	kv_u("blob_blocks:", st->blob_blocks);
	kv_u("section_blocks:", st->section_blocks);
	kv_u("blocks:", in->blocks);
	kv_u("depth:", in->depth);
	kv_u("intervals:", in->intervals);
	kv_u("quarks:", in->quark_count);
	kv_u("attributes:", nm->attributes);
	printf(KEY_FMT, "provider:");
	cli_print_name(stdout, nm->provider, strlen(nm->provider));
	putchar('\n');
	kv_u("provider_version:", nm->provider_version);
	sync_human(nm->sync);
	kv_i("start:", in->start);
	kv_i("end:", in->end);
	kv_u("file_bytes:", in->file_bytes);
	kv_f("bytes_per_interval:", st->bytes_per_interval, "");
	kv_f("fill_leaf:", st->fill_leaf, "");
	kv_f("fill_core:", st->fill_core, "");
	printf("levels:\n");
	for (uint32_t i = 0; i < st->levels && i < SHT_TREE_STATS_MAX_LEVELS; i++)
		printf("  level %lu: %llu nodes, %llu intervals, fill %.4f\n",
		       (unsigned long)i,
		       (unsigned long long)st->level[i].nodes,
		       (unsigned long long)st->level[i].intervals,
		       level_fill(&st->level[i], in->block_size));
}

int cli_print_info(const char *path, sht_reader *r, sht_state *ss, int json)
{
	int status;
	struct info_names nm;
	sht_tree_info in;
	sht_tree_stats st;
	sht_err err;

	sht_reader_info_get(r, &in);
	err = sht_reader_stats_get(r, &st);
	if (err < 0)
		return cli_fail(err, "read the statistics of %s", path);
	if (cli_load_attrs(path, ss) != CLI_OK)
		return CLI_FAIL;
	nm.attributes = sht_state_attr_count(ss);
	sht_state_provider(ss, &nm.provider, &nm.provider_version);
	nm.sync = NULL;
	err = sht_sync_stored(ss, &nm.sync);
	if (err < 0)
		return cli_fail(err, "read the synchronization stored in %s",
				path);
	status = CLI_OK;
	if (json)
		status = info_json(path, &in, &st, &nm);
	else
		info_human(path, &in, &st, &nm);
	sht_sync_free(nm.sync);
	return status;
}

/* ---- build summary ----------------------------------------------------- */

const char *cli_backend_name(sht_backend b)
{
	switch (b) {
	case SHT_BACKEND_TREE:   return "tree";
	case SHT_BACKEND_MEMORY: return "memory";
	case SHT_BACKEND_NULL:   return "null";
	case SHT_BACKEND_PARTIAL: return "partial";
	}
	return "unknown";
}

static void summary_human(const cli_build_summary *s, double rate)
{
	printf("%s: %llu intervals in %.3f s (%.0f intervals/s), "
	       "%llu attributes, ", s->workload,
	       (unsigned long long)s->intervals, s->seconds, rate,
	       (unsigned long long)s->attributes);
	if (s->path)
		printf("%llu bytes, %s (%s)\n",
		       (unsigned long long)s->file_bytes, s->path,
		       cli_variant_name(s->variant));
	else
		printf("%s backend (no file)\n", cli_backend_name(s->backend));
}

int cli_print_build_summary(const cli_build_summary *s, int json)
{
	double rate = s->seconds > 0 ? (double)s->intervals / s->seconds : 0;
	json_t *o;

	if (!json) {
		summary_human(s, rate);
		return CLI_OK;
	}
	o = json_object();
	cli_jset(o, "workload", cli_jcstr(s->workload));
	cli_jset(o, "file", cli_jcstr(s->path));
	cli_jset(o, "backend", cli_jcstr(cli_backend_name(s->backend)));
	cli_jset(o, "variant", cli_jcstr(cli_variant_name(s->variant)));
	cli_jset(o, "intervals", cli_juint(s->intervals));
	cli_jset(o, "attributes", cli_juint(s->attributes));
	cli_jset(o, "seconds", cli_jreal(s->seconds));
	cli_jset(o, "intervals_per_second", cli_jreal(rate));
	cli_jset(o, "file_bytes", cli_juint(s->file_bytes));
	cli_jset(o, "bytes_per_interval", cli_jreal(s->intervals ?
		 (double)s->file_bytes / (double)s->intervals : 0.0));
	return cli_json_print(o);
}
