/*
 * cmd-check.c: `sht check FILE`: verify every block and every invariant of
 * a history file (sht_reader_check), reporting each problem on stderr.
 */
#include "cli.h"

static const char check_usage[] =
"Usage: sht check FILE\n"
"\n"
"Verify the history file FILE: every block's checksum and structure, every\n"
"interval inside its node, every node inside its parent, the summaries of\n"
"the children, the counts of the header.  Problems go to standard error;\n"
"prints \"FILE: ok (N nodes, M intervals)\" and exits with status 0 only if\n"
"the file is sound, else exits with status 1.\n"
"\n"
"Options:\n"
"  -h, --help   show this help\n";

#define CHECK_MAX_REPORTS 100u

static const cli_opt check_opts[] = {
	{ NULL, 0, 0, 0 }
};

/* What check_report needs. */
struct check_ctx {
	const char *file;
	unsigned reports;         /* problems reported */
};

static void check_report(void *ctx, const char *msg)
{
	struct check_ctx *c = ctx;

	c->reports++;
	fprintf(stderr, "%s: %s\n", c->file, msg);
}

static int check_opt(void *ctx, int id, const char *val)
{
	(void)id;                 /* positional: the table has no option */
	return cli_take_file("check", ctx, val);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int check_parse(int argc, char **argv, const char **file)
{
	int rc = cli_parse_options(argc, argv, 1, "check", check_opts,
				   check_usage, check_opt, (void *)file);

	if (rc != CLI_OK)
		return rc;
	if (!*file)
		return cli_usage_error("check", "missing FILE");
	return CLI_OK;
}

int cli_check_reader(const char *file, sht_reader *r)
{
	struct check_ctx c = { file, 0 };
	sht_tree_info in;
	sht_err err;

	err = sht_reader_check(r, check_report, &c, CHECK_MAX_REPORTS);
	if (err == SHT_ERR_CORRUPT) {
		fprintf(stderr, "sht: %s: corrupt (%u problem%s reported)\n",
			file, c.reports, c.reports == 1 ? "" : "s");
		return CLI_FAIL;
	}
	if (err < 0)
		return cli_fail(err, "check %s", file);
	sht_reader_info_get(r, &in);
	printf("%s: ok (%llu nodes, %llu intervals)\n", file,
	       (unsigned long long)in.nodes, (unsigned long long)in.intervals);
	return CLI_OK;
}

int cmd_check(int argc, char **argv)
{
	const char *file = NULL;
	sht_reader *r;
	int status = check_parse(argc, argv, &file);

	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (cli_open_reader(file, &r) != CLI_OK)
		return CLI_FAIL;
	status = cli_check_reader(file, r);
	sht_reader_close(r);
	return cli_finish_output(status);
}
