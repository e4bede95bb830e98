/*
 * cmd-info.c: `sht info FILE [--json]`: a history file's header, the
 * statistics of its tree (nodes per level, fill, bytes per interval), its
 * attribute count and provider identity.
 */
#include <string.h>

#include "cli.h"

static const char info_usage[] =
"Usage: sht info FILE [OPTION]...\n"
"\n"
"Print the header of the history file FILE and statistics of its tree:\n"
"variant, block size, nodes, depth, intervals, quarks, the number of\n"
"attributes (named in its attribute tree), the provider that built it and\n"
"its version, and per level (0 = leaves) the nodes, intervals and fill.\n"
"\n"
"Options:\n"
"  --json       print one JSON object\n"
"  -h, --help   show this help\n";

enum { OPT_JSON = 1 };

static const cli_opt info_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ NULL, 0, 0, 0 }
};

/* The command line. */
struct info_cmd {
	const char *file;
	int json;
};

static int info_opt(void *ctx, int id, const char *val)
{
	struct info_cmd *c = ctx;

	if (id == OPT_JSON) {
		c->json = 1;
		return 0;
	}
	return cli_take_file("info", &c->file, val);
}

/* Returns CLI_OK, CLI_USAGE, or -1 after --help. */
static int info_parse(int argc, char **argv, const char **file, int *json)
{
	struct info_cmd c = { NULL, 0 };
	int rc = cli_parse_options(argc, argv, 1, "info", info_opts,
				   info_usage, info_opt, &c);

	if (rc != CLI_OK)
		return rc;
	*file = c.file;
	*json = c.json;
	if (!*file)
		return cli_usage_error("info", "missing FILE");
	return CLI_OK;
}

int cmd_info(int argc, char **argv)
{
	const char *file = NULL;
	sht_reader *r;
	sht_state *ss;
	int json = 0;
	int status = info_parse(argc, argv, &file, &json);

	if (status < 0)
		return cli_finish_output(CLI_OK);
	if (status != CLI_OK)
		return status;
	if (cli_open_reader(file, &r) != CLI_OK)
		return CLI_FAIL;
	/* A second handle on the file for the names: the state system keeps
	 * its reader to itself. */
	if (cli_open_state(file, &ss) != CLI_OK) {
		sht_reader_close(r);
		return CLI_FAIL;
	}
	status = cli_print_info(file, r, ss, json);
	sht_state_close(ss);
	sht_reader_close(r);
	return cli_finish_output(status);
}
