/*
 * trace-in.c: the traces the CLI reads (sht build): a CTF trace directory
 * through libbabeltrace2, or a VSTF file, behind one source, with their
 * environment and how far a build has gone through them.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

uint32_t cli_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > 256 ? 256u : (uint32_t)n;
}

int cli_trace_open(const char *path, int merge, uint32_t jobs, cli_trace *t)
{
	struct stat sb;
	sht_vstf_info vi;
	sht_ctf_opts co;
	sht_err err;

	memset(t, 0, sizeof(*t));
	if (stat(path, &sb) != 0)
		return cli_error("cannot open the trace %s: %s", path,
				 strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		sht_ctf_opts_init(&co);
		co.merge = merge;
		co.jobs = jobs;
		err = sht_ctf_open(path, &co, &t->src);
		if (err < 0)
			return cli_fail(err, "open the CTF trace %s", path);
		if (sht_ctf_time_span(&t->src, &t->span_begin,
				      &t->span_end) != SHT_OK)
			t->span_begin = t->span_end = 0;
		return CLI_OK;
	}
	err = sht_vstf_open(path, &t->src);
	if (err < 0)
		return cli_fail(err, "open %s (a file: read as VSTF; a CTF "
				"trace is a directory)", path);
	t->vstf = 1;
	if (sht_vstf_info_get(&t->src, &vi) == SHT_OK)
		t->events = vi.events;
	return CLI_OK;
}

void cli_trace_close(cli_trace *t)
{
	if (t->vstf)
		sht_vstf_close(&t->src);
	else
		sht_ctf_close(&t->src);
	memset(t, 0, sizeof(*t));
}

sht_err cli_trace_env(const cli_trace *t, const char *name, sht_field *out)
{
	return t->vstf ? sht_vstf_env(&t->src, name, out)
		       : sht_ctf_env(&t->src, name, out);
}

double cli_trace_fraction(const cli_trace *t, uint64_t events, sht_time ts)
{
	double f;

	if (t->events > 0)
		f = (double)events / (double)t->events;
	else if (t->span_end > t->span_begin && ts >= t->span_begin)
		f = (double)(ts - t->span_begin) /
		    (double)(t->span_end - t->span_begin);
	else
		return -1.0;
	return f > 1.0 ? 1.0 : f;
}
