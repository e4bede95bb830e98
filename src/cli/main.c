/*
 * main.c: entry point of `sht`, the command-line tool of libsht: the
 * global options and the dispatch to the commands (cmd-*.c).
 */
#include <string.h>

#include "cli.h"

static const char main_usage[] =
"Usage: sht COMMAND [OPTION]... [ARG]...\n"
"  or:  sht --help | --version\n"
"\n"
"Build and query state history files (.sht): the intervals of a state\n"
"system, on disk, with the names of its attributes, for trace analysis.\n"
"\n"
"Commands:\n"
"  build     run an analysis (kernel, stats) over a CTF trace into a file\n"
"  convert   copy a CTF trace into a VSTF file (thesis Annex B)\n"
"  gen       build a synthetic workload (staircase, churn) into a file,\n"
"            or write a synthetic kernel trace (gen kernel)\n"
"  info      print a file's header, tree statistics and provider\n"
"  query     the state at one time (full, or per quark or attribute path)\n"
"  history   the intervals of one attribute over a time range\n"
"  tree      list the attribute tree (names and quarks; --values: value\n"
"            types and names)\n"
"  describe  say which analysis built a file, from which trace, with which\n"
"            options, and what its attributes and values mean\n"
"  check     verify a file's checksums and structure\n"
"  sync      synchronize the clocks of traces of several hosts\n"
"  demo      generate a kernel trace, build, query and check its history\n"
"  serve     serve traces over the Trace Server Protocol (HTTP + JSON)\n"
"  view      look at traces in a browser (sht's viewer on sht serve)\n"
"  help      show the help of a command\n"
"\n"
"Run 'sht COMMAND --help' (or 'man sht-COMMAND') for the options of a\n"
"command.  Times may be written in several forms (nanoseconds,\n"
"HH:MM:SS.F, +1.5s, start, end; see TIMES in sht(1)).\n"
"\n"
"Exit status: 0 success, 1 failure, 2 usage error.\n";

/* One command. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "build", cmd_build },
	{ "convert", cmd_convert },
	{ "gen", cmd_gen },
	{ "info", cmd_info },
	{ "query", cmd_query },
	{ "history", cmd_history },
	{ "tree", cmd_tree },
	{ "describe", cmd_describe },
	{ "check", cmd_check },
	{ "sync", cmd_sync },
	{ "demo", cmd_demo },
	{ "serve", cmd_serve },
	{ "view", cmd_view },
	{ NULL, NULL }
};

static const struct command *find_command(const char *name)
{
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static int print_version(void)
{
	printf("sht %s (libsht %s, file format %d)\n", SHT_VERSION_STRING,
	       sht_version_string(), SHT_FORMAT_VERSION);
	return cli_finish_output(CLI_OK);
}

/* `sht help [COMMAND]`: run the command with --help. */
static int help_command(int argc, char **argv)
{
	const struct command *c;
	char help[] = "--help";
	char *args[3];

	if (argc < 2) {
		fputs(main_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	c = find_command(argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	args[0] = argv[1];
	args[1] = help;
	args[2] = NULL;
	return c->run(2, args);
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *name;

	if (argc < 2)
		return cli_usage_error(NULL, "missing command");
	name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		fputs(main_usage, stdout);
		return cli_finish_output(CLI_OK);
	}
	if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
		return print_version();
	if (strcmp(name, "help") == 0)
		return help_command(argc - 1, argv + 1);
	c = find_command(name);
	if (!c) {
		if (name[0] == '-')
			return cli_usage_error(NULL, "unknown option '%s'",
					       name);
		return cli_usage_error(NULL, "unknown command '%s'", name);
	}
	return c->run(argc - 1, argv + 1);
}
