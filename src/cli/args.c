/*
 * args.c: the CLI's error reporting, option parser and strict number
 * parsing (see cli.h).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- errors ------------------------------------------------------------ */

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("sht: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\nTry 'sht %s --help'.\n", cmd);
	else
		fputs("\nTry 'sht --help'.\n", stderr);
	return CLI_USAGE;
}

int cli_fail(sht_err err, const char *fmt, ...)
{
	const char *why = sht_errmsg();
	va_list ap;

	if (!why || !*why)
		why = sht_strerror(err);
	fputs("sht: cannot ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", why);
	return CLI_FAIL;
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sht: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_FAIL;
}

int cli_finish_output(int status)
{
	if (cli_json_check_lost() != CLI_OK && status == CLI_OK)
		status = CLI_FAIL;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sht: cannot write to standard output: %s\n",
			strerror(errno));
		return CLI_FAIL;
	}
	return status;
}

int cli_open_reader(const char *path, sht_reader **out)
{
	sht_err err = sht_reader_open(path, NULL, out);

	if (err < 0)
		return cli_fail(err, "open %s", path);
	return CLI_OK;
}

int cli_open_state(const char *path, sht_state **out)
{
	sht_err err = sht_state_open(path, NULL, out);

	if (err < 0)
		return cli_fail(err, "open %s", path);
	return CLI_OK;
}

int cli_load_attrs(const char *path, sht_state *ss)
{
	const sht_quark *kids;
	size_t n;
	/* Any attribute call loads the tree and says whether that worked
	 * (sht_state_attr_count cannot). */
	sht_err err = sht_state_attr_children(ss, SHT_QUARK_ROOT, &kids, &n);

	if (err < 0)
		return cli_fail(err, "read the attribute tree of %s", path);
	return CLI_OK;
}

int cli_load_model(const char *path, sht_state *ss)
{
	const sht_model *m;
	sht_err err = sht_state_model(ss, &m);

	if (err < 0)
		return cli_fail(err, "read the model of %s", path);
	return CLI_OK;
}

int cli_resolve_path(const char *file, sht_state *ss, const char *path,
		     sht_quark *out)
{
	sht_err err = sht_state_quark_path(ss, path, false, out);

	if (err == SHT_NOT_FOUND)
		return cli_error("%s has no attribute '%s'", file, path);
	if (err < 0)
		return cli_fail(err, "look up attribute '%s' in %s", path,
				file);
	return CLI_OK;
}

/* ---- option parser ----------------------------------------------------- */

/*
 * getopt_long in GNU's "return in order" mode (optstring "-"): options
 * may come anywhere among the positional arguments, which getopt_long
 * hands back as option 1 in their place (whatever POSIXLY_CORRECT says),
 * so fn sees everything in command-line order.  ":" makes getopt_long
 * silent: the messages are ours (cli.h's form).  Long options are
 * numbered LONG_BASE + their index in the table, above every char.
 */
#define LONG_BASE 256
#define OPT_POSITIONAL 1
#define ARG_UNKNOWN (-2)          /* not in the table (cannot happen) */

struct getopt_tables {
	struct option *longs;     /* the table's options, then "help" */
	char *shorts;             /* "-:h" and "x" or "x:" per short option */
	size_t n;                 /* options in the cli_opt table */
};

static void getopt_tables_free(struct getopt_tables *t)
{
	free(t->longs);
	free(t->shorts);
}

static int getopt_tables_make(const cli_opt *opts, struct getopt_tables *t)
{
	size_t n = 0, k = 0;

	while (opts[n].name)
		n++;
	t->n = n;
	t->longs = calloc(n + 2u, sizeof(*t->longs));
	t->shorts = malloc(3u + 1u + 2u * n + 1u);
	if (!t->longs || !t->shorts) {
		getopt_tables_free(t);
		return cli_error("cannot parse the options: out of memory");
	}
	memcpy(t->shorts, "-:h", 3);
	k = 3;
	for (size_t i = 0; i < n; i++) {
		t->longs[i].name = opts[i].name;
		t->longs[i].has_arg = opts[i].has_arg ? required_argument
						      : no_argument;
		t->longs[i].val = LONG_BASE + (int)i;
		if (opts[i].short_name) {
			t->shorts[k++] = opts[i].short_name;
			if (opts[i].has_arg)
				t->shorts[k++] = ':';
		}
	}
	t->longs[n].name = "help";
	t->longs[n].val = CLI_OPT_HELP;
	t->shorts[k] = '\0';
	return CLI_OK;
}

static const cli_opt *find_short(const cli_opt *opts, int c)
{
	for (; opts->name; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

/* How many options of the table (and "help") start with the len bytes of
 * name: to tell an ambiguous abbreviation from an unknown option. */
static int count_prefixed(const struct option *longs, const char *name,
			  size_t len)
{
	int n = 0;

	for (; longs->name; longs++)
		if (strncmp(longs->name, name, len) == 0)
			n++;
	return n;
}

/* getopt_long returned '?' or ':' for arg (the argument it was reading):
 * report the problem.  Returns CLI_USAGE. */
static int bad_option(const char *cmd, const cli_opt *opts,
		      const struct getopt_tables *t, int c, const char *arg)
{
	const char *name = arg + 2;
	size_t len;

	if (optopt == CLI_OPT_HELP)
		return cli_usage_error(cmd, "option '--help' takes no value");
	if (optopt >= LONG_BASE) {
		const char *o = opts[optopt - LONG_BASE].name;

		if (c == ':')
			return cli_usage_error(cmd, "option '--%s' needs a "
					       "value", o);
		return cli_usage_error(cmd, "option '--%s' takes no value", o);
	}
	if (optopt != 0) {
		if (c == ':')
			return cli_usage_error(cmd, "option '-%c' needs a value",
					       optopt);
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	}
	len = strcspn(name, "=");
	if (count_prefixed(t->longs, name, len) > 1)
		return cli_usage_error(cmd, "ambiguous option '--%.*s'",
				       (int)len, name);
	return cli_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
}

/* Map what getopt_long returned to an id for fn: CLI_ARG_POS, a table
 * id, or CLI_OPT_HELP. */
static int option_id(const cli_opt *opts, int c)
{
	const cli_opt *o;

	if (c == OPT_POSITIONAL)
		return CLI_ARG_POS;
	if (c == 'h' || c == CLI_OPT_HELP)
		return CLI_OPT_HELP;
	if (c >= LONG_BASE)
		return opts[c - LONG_BASE].id;
	o = find_short(opts, c);
	return o ? o->id : ARG_UNKNOWN;
}

/* The loop over argv[0..argc) (argv[0]: the command, not parsed). */
static int parse_loop(int argc, char **argv, const char *cmd,
		      const cli_opt *opts, const struct getopt_tables *t,
		      const char *usage, cli_opt_fn fn, void *ctx)
{
	int c;

	optind = 0;               /* glibc: start afresh */
	opterr = 0;
	while ((c = getopt_long(argc, argv, t->shorts, t->longs, NULL)) != -1) {
		int id;

		if (c == '?' || c == ':')
			return bad_option(cmd, opts, t, c,
					  argv[optind - 1]);
		id = option_id(opts, c);
		if (id == ARG_UNKNOWN)
			return cli_usage_error(cmd, "unknown option '-%c'", c);
		if (id == CLI_OPT_HELP) {
			fputs(usage, stdout);
			return -1;
		}
		if (fn(ctx, id, optarg) < 0)
			return CLI_USAGE;
	}
	/* After "--": the rest are positional. */
	for (; optind < argc; optind++)
		if (fn(ctx, CLI_ARG_POS, argv[optind]) < 0)
			return CLI_USAGE;
	return CLI_OK;
}

int cli_parse_options(int argc, char **argv, int first, const char *cmd,
		      const cli_opt *opts, const char *usage, cli_opt_fn fn,
		      void *ctx)
{
	struct getopt_tables t;
	int status;

	if (getopt_tables_make(opts, &t) != CLI_OK)
		return CLI_FAIL;
	/* getopt_long starts after argv[0]: the word before the first
	 * argument stands for it. */
	status = parse_loop(argc - (first - 1), argv + (first - 1), cmd, opts,
			    &t, usage, fn, ctx);
	getopt_tables_free(&t);
	return status;
}

int cli_take_file(const char *cmd, const char **file, const char *val)
{
	if (*file) {
		cli_usage_error(cmd, "unexpected argument '%s'", val);
		return -1;
	}
	*file = val;
	return 0;
}

/* ---- numbers ----------------------------------------------------------- */

static int bad_number(const char *cmd, const char *opt, const char *s,
		      const char *why)
{
	cli_usage_error(cmd, "invalid value '%s' for %s: %s", s, opt, why);
	return -1;
}

/* Digits only (after an optional sign); strto* would also accept
 * leading blanks. */
static int starts_like_number(const char *s, int allow_minus)
{
	if (*s == '+' || (allow_minus && *s == '-'))
		s++;
	return isdigit((unsigned char)*s);
}

int cli_parse_i64(const char *cmd, const char *opt, const char *s,
		  int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long x;

	if (!starts_like_number(s, 1))
		return bad_number(cmd, opt, s, "not an integer");
	errno = 0;
	x = strtoll(s, &end, 10);
	if (*end != '\0')
		return bad_number(cmd, opt, s, "not an integer");
	if (errno == ERANGE || x < min || x > max) {
		cli_usage_error(cmd, "invalid value '%s' for %s: out of range "
				"(%lld .. %lld)", s, opt, (long long)min,
				(long long)max);
		return -1;
	}
	*out = (int64_t)x;
	return 0;
}

/* Parse digits into *out; *end gets the first byte after them. */
static int parse_u64_prefix(const char *s, char **end, uint64_t *out)
{
	unsigned long long x;

	errno = 0;
	x = strtoull(s, end, 10);
	if (errno == ERANGE)
		return -1;
	*out = (uint64_t)x;
	return 0;
}

static int out_of_range_u64(const char *cmd, const char *opt, const char *s,
			    uint64_t min, uint64_t max)
{
	cli_usage_error(cmd, "invalid value '%s' for %s: out of range "
			"(%llu .. %llu)", s, opt, (unsigned long long)min,
			(unsigned long long)max);
	return -1;
}

static int check_u64_range(const char *cmd, const char *opt, const char *s,
			   uint64_t x, uint64_t min, uint64_t max)
{
	if (x >= min && x <= max)
		return 0;
	return out_of_range_u64(cmd, opt, s, min, max);
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t x;

	if (*s == '-' && starts_like_number(s + 1, 0))
		return bad_number(cmd, opt, s, "must not be negative");
	if (!starts_like_number(s, 0))
		return bad_number(cmd, opt, s, "not an integer");
	if (parse_u64_prefix(s, &end, &x) < 0)
		return out_of_range_u64(cmd, opt, s, min, max);
	if (*end != '\0')
		return bad_number(cmd, opt, s, "not an integer");
	if (check_u64_range(cmd, opt, s, x, min, max) < 0)
		return -1;
	*out = x;
	return 0;
}

int cli_parse_size(const char *cmd, const char *opt, const char *s,
		   uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t x, unit = 1;

	if (*s == '-' && starts_like_number(s + 1, 0))
		return bad_number(cmd, opt, s, "must not be negative");
	if (!starts_like_number(s, 0))
		return bad_number(cmd, opt, s, "not a size");
	if (parse_u64_prefix(s, &end, &x) < 0)
		return out_of_range_u64(cmd, opt, s, min, max);
	if (*end == 'k' || *end == 'K')
		unit = 1024u, end++;
	else if (*end == 'm' || *end == 'M')
		unit = 1024u * 1024u, end++;
	if (*end != '\0')
		return bad_number(cmd, opt, s,
				  "not a size (digits, then k, K, m or M)");
	if (x > UINT64_MAX / unit)
		return out_of_range_u64(cmd, opt, s, min, max);
	if (check_u64_range(cmd, opt, s, x * unit, min, max) < 0)
		return -1;
	*out = x * unit;
	return 0;
}

int cli_parse_block_size(const char *cmd, const char *s, uint32_t *out)
{
	uint64_t x;

	if (cli_parse_size(cmd, "--block-size", s, SHT_BLOCK_SIZE_MIN,
			   SHT_BLOCK_SIZE_MAX, &x) < 0)
		return -1;
	if (x & (x - 1u)) {
		cli_usage_error(cmd, "invalid value '%s' for --block-size: "
				"not a power of two", s);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

int cli_parse_variant(const char *cmd, const char *opt, const char *s,
		      sht_variant *out)
{
	if (strcmp(s, "esht") == 0) {
		*out = SHT_VARIANT_ESHT;
	} else if (strcmp(s, "sht") == 0) {
		*out = SHT_VARIANT_SHT;
	} else {
		cli_usage_error(cmd, "invalid value '%s' for %s: expected "
				"'esht' or 'sht'", s, opt);
		return -1;
	}
	return 0;
}

const char *cli_variant_name(sht_variant v)
{
	return v == SHT_VARIANT_SHT ? "sht" : "esht";
}
