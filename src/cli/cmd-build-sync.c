/*
 * cmd-build-sync.c: `sht build TRACE... --sync`: the histories of an
 * experiment on one time axis.  The traces' clocks are synchronized
 * (sht/sync.h), then each trace's history is built as `sht build` builds
 * one, from its events with their timestamps transformed onto the
 * reference host's clock, as Trace Compass builds the analyses of a
 * synchronized experiment's traces; every history stores the whole
 * synchronization (section kind SHT_SYNC_SECTION).  A later build of the
 * same traces finds it there instead of synchronizing again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "stall.h"

/* DIR/<name>.sht for each trace; a name taken twice gets -2, -3, ... */
static char **output_names(const struct build_opts *o, const struct cli_exp *e)
{
	const char *dir = o->output ? o->output : ".";
	char **files = calloc(e->n, sizeof(*files));
	size_t len;

	for (size_t i = 0; files && i < e->n; i++) {
		char *base = cli_base_name(e->paths[i]);
		unsigned k = 1;

		len = strlen(dir) + (base ? strlen(base) : 0) + 32;
		files[i] = base ? malloc(len) : NULL;
		if (!files[i]) {
			free(base);
			for (size_t j = 0; j < i; j++)
				free(files[j]);
			free(files);
			return NULL;
		}
		for (;;) {
			size_t j;

			if (k == 1)
				snprintf(files[i], len, "%s/%s.sht", dir, base);
			else
				snprintf(files[i], len, "%s/%s-%u.sht", dir,
					 base, k);
			for (j = 0; j < i && strcmp(files[j], files[i]); j++)
				;
			if (j == i)
				break;
			k++;
		}
		free(base);
	}
	return files;
}

static void free_names(char **files, size_t n)
{
	for (size_t i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
}

/* s is a synchronization of exactly e's traces (names and hosts). */
static int sync_of(const sht_sync *s, const struct cli_exp *e)
{
	sht_sync_trace_info ti;

	if (sht_sync_count(s) != e->n)
		return 0;
	for (size_t i = 0; i < e->n; i++)
		if (sht_sync_trace(s, i, &ti) != SHT_OK ||
		    strcmp(ti.name, e->names[i]) != 0 ||
		    strcmp(ti.host, e->host[i]) != 0)
			return 0;
	return 1;
}

int cli_build_same_sync(sht_state *ss, const sht_sync *s)
{
	sht_sync *r = NULL;
	sht_sync_trace_info a, b;
	int same;

	if (sht_sync_stored(ss, &r) != SHT_OK)
		return 0;
	same = sht_sync_count(r) == sht_sync_count(s);
	for (size_t i = 0; same && i < sht_sync_count(s); i++) {
		sht_sync_trace(s, i, &a);
		sht_sync_trace(r, i, &b);
		same = !strcmp(a.name, b.name) && !strcmp(a.host, b.host) &&
		       !strcmp(sht_transform_slope(a.transform),
			       sht_transform_slope(b.transform)) &&
		       !strcmp(sht_transform_offset(a.transform),
			       sht_transform_offset(b.transform));
	}
	sht_sync_free(r);
	return same;
}

/* A synchronization of these traces stored with one of the histories,
 * not older than any trace: *from names that history.  NULL if none. */
static sht_sync *stored_sync(const struct cli_exp *e, char **files,
			     const char **from)
{
	sht_state *ss;
	sht_sync *s;
	size_t i, k;

	for (k = 0; k < e->n; k++) {
		if (sht_state_open(files[k], NULL, &ss) != SHT_OK)
			continue;
		s = NULL;
		if (sht_sync_stored(ss, &s) != SHT_OK || !sync_of(s, e)) {
			sht_sync_free(s);
			s = NULL;
		}
		sht_state_close(ss);
		for (i = 0; s && i < e->n; i++)
			if (!cli_build_newer(files[k], e->paths[i])) {
				sht_sync_free(s);
				s = NULL;
			}
		if (s) {
			*from = files[k];
			return s;
		}
	}
	return NULL;
}

static int print_sync(const struct cli_exp *e, const sht_sync *s,
		      const char *from, int json)
{
	sht_sync_trace_info ti;
	sht_sync_stats st;
	json_t *o;

	sht_sync_stats_get(s, &st);
	if (!json) {
		printf("synchronization: %llu matches, quality %s (%s)\n",
		       (unsigned long long)st.matches,
		       sht_sync_quality_name(sht_sync_quality_get(s)),
		       from ? "stored with the histories" : "computed");
		for (size_t i = 0; i < e->n; i++) {
			sht_sync_trace(s, i, &ti);
			printf("  %s: host %s, slope %s, offset %s%s\n",
			       e->paths[i], ti.host,
			       sht_transform_slope(ti.transform),
			       sht_transform_offset(ti.transform),
			       ti.reference ? " (reference)" : "");
		}
		return CLI_OK;
	}
	o = json_object();
	cli_jset(o, "quality",
		 cli_jcstr(sht_sync_quality_name(sht_sync_quality_get(s))));
	cli_jset(o, "matches", cli_juint(st.matches));
	cli_jset(o, "stored", cli_jbool(from != NULL));
	cli_jset(o, "traces", cli_sync_json_traces(s, e->paths));
	return cli_json_print(o);
}

/* Build every trace's history in turn. */
static int build_all(const struct build_opts *o, struct cli_exp *e,
		     char **files, const sht_sync *s)
{
	struct cli_progress pg;
	sht_sync_trace_info ti;
	int status = CLI_OK;

	for (size_t i = 0; i < e->n && status == CLI_OK; i++) {
		struct build_opts oi = *o;

		sht_sync_trace(s, i, &ti);
		oi.trace = e->paths[i];
		oi.output = files[i];
		oi.transform = ti.transform;
		oi.sync = s;
		if (o->json && i > 0)
			fputs(",\n", stdout);
		cli_stall_arm(oi.trace, NULL);
		cli_progress_init(&pg, &e->tr[i], "building",
				  !o->no_progress && isatty(STDERR_FILENO));
		status = cli_build_run(&oi, files[i], &pg);
		cli_stall_disarm();
	}
	return status;
}

int cli_build_sync(const struct build_opts *o)
{
	struct cli_exp e;
	char **files;
	sht_sync *s = NULL;
	const char *from = NULL;
	int status;

	if (o->output && mkdir(o->output, 0777) != 0 && errno != EEXIST)
		return cli_error("cannot create the directory %s: %s",
				 o->output, strerror(errno));
	status = cli_exp_open(&e, o->traces, o->ntraces);
	if (status != CLI_OK)
		return status;
	e.show_progress = !o->no_progress && isatty(STDERR_FILENO);
	files = output_names(o, &e);
	if (!files) {
		cli_exp_close(&e);
		return cli_error("cannot build: out of memory");
	}
	if (!o->force)
		s = stored_sync(&e, files, &from);
	if (!s && (status = cli_exp_sync(&e, &s)) == CLI_OK)
		cli_sync_warn(&e, s);
	if (status == CLI_OK) {
		if (o->json)
			fputs("{\"sync\":", stdout);
		status = print_sync(&e, s, from, o->json);
		if (o->json)
			fputs(",\"histories\":[\n", stdout);
		if (status == CLI_OK)
			status = build_all(o, &e, files, s);
		if (o->json)
			fputs("]}\n", stdout);
		status = cli_finish_output(status);
	}
	sht_sync_free(s);
	free_names(files, e.n);
	cli_exp_close(&e);
	return status;
}
