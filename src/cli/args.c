/*
 * args.c: the CLI's error reporting, option parser and strict number
 * parsing (see cli.h).
 */
#include <ctype.h>
#include <errno.h>
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

void cli_args_init(cli_args *a, int argc, char **argv, int first,
		   const char *cmd, const cli_opt *opts)
{
	a->argc = argc;
	a->argv = argv;
	a->next = first;
	a->no_more_opts = 0;
	a->cmd = cmd;
	a->opts = opts;
}

static const cli_opt *find_long(const cli_opt *opts, const char *name,
				size_t len)
{
	for (; opts->name; opts++)
		if (strlen(opts->name) == len &&
		    strncmp(opts->name, name, len) == 0)
			return opts;
	return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c)
{
	for (; opts->name; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* "--name" or "--name=value". */
static int next_long(cli_args *a, const char *arg, const char **val)
{
	const char *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const cli_opt *o;

	if (len == 4 && strncmp(name, "help", 4) == 0 && !eq)
		return CLI_OPT_HELP;
	o = find_long(a->opts, name, len);
	if (!o) {
		cli_usage_error(a->cmd, "unknown option '--%.*s'", (int)len,
				name);
		return CLI_ARG_BAD;
	}
	if (!o->has_arg) {
		if (eq) {
			cli_usage_error(a->cmd, "option '--%s' takes no value",
					o->name);
			return CLI_ARG_BAD;
		}
		return o->id;
	}
	if (eq) {
		*val = eq + 1;
	} else if (a->next < a->argc) {
		*val = a->argv[a->next++];
	} else {
		cli_usage_error(a->cmd, "option '--%s' needs a value", o->name);
		return CLI_ARG_BAD;
	}
	return o->id;
}

/* "-x", "-x value" or "-xvalue". */
static int next_short(cli_args *a, const char *arg, const char **val)
{
	const cli_opt *o;

	if (arg[1] == 'h' && arg[2] == '\0')
		return CLI_OPT_HELP;
	o = find_short(a->opts, arg[1]);
	if (!o || (!o->has_arg && arg[2] != '\0')) {
		cli_usage_error(a->cmd, "unknown option '%s'", arg);
		return CLI_ARG_BAD;
	}
	if (!o->has_arg)
		return o->id;
	if (arg[2] != '\0') {
		*val = arg + 2;
	} else if (a->next < a->argc) {
		*val = a->argv[a->next++];
	} else {
		cli_usage_error(a->cmd, "option '-%c' needs a value",
				o->short_name);
		return CLI_ARG_BAD;
	}
	return o->id;
}

int cli_next(cli_args *a, const char **val)
{
	const char *arg;

	*val = NULL;
	if (a->next >= a->argc)
		return CLI_ARG_END;
	arg = a->argv[a->next++];
	if (a->no_more_opts || arg[0] != '-' || arg[1] == '\0') {
		*val = arg;     /* "-" alone is a positional argument */
		return CLI_ARG_POS;
	}
	if (strcmp(arg, "--") == 0) {
		a->no_more_opts = 1;
		return cli_next(a, val);
	}
	if (arg[1] == '-')
		return next_long(a, arg, val);
	return next_short(a, arg, val);
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

int cli_parse_options(int argc, char **argv, int first, const char *cmd,
		      const cli_opt *opts, const char *usage, cli_opt_fn fn,
		      void *ctx)
{
	cli_args a;
	const char *val;
	int id;

	cli_args_init(&a, argc, argv, first, cmd, opts);
	while ((id = cli_next(&a, &val)) != CLI_ARG_END) {
		if (id == CLI_ARG_BAD)
			return CLI_USAGE;
		if (id == CLI_OPT_HELP) {
			fputs(usage, stdout);
			return -1;
		}
		if (fn(ctx, id, val) < 0)
			return CLI_USAGE;
	}
	return CLI_OK;
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
