/*
 * exp.c: experiments, several traces read as one (sht sync, sht build
 * --sync): opening them with their host ids and network layouts, and
 * synchronizing their clocks (sht/sync.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stall.h"

static char *copy_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

char *cli_base_name(const char *path)
{
	char *abs = realpath(path, NULL);
	char *full = copy_str(abs ? abs : path), *slash, *out;
	size_t n;

	free(abs);
	if (!full)
		return NULL;
	n = strlen(full);
	while (n > 1 && full[n - 1] == '/')
		full[--n] = '\0';
	slash = strrchr(full, '/');
	out = copy_str(slash && slash[1] ? slash + 1 : *full && !slash ? full
								: "trace");
	free(full);
	return out;
}

/* An environment entry as text ("" if absent or not a scalar). */
static const char *env_text(const cli_trace *t, const char *name, char *buf,
			    size_t size)
{
	sht_field f;

	buf[0] = '\0';
	if (cli_trace_env(t, name, &f) == SHT_OK)
		sht_field_text(&f, buf, size);
	return buf[0] ? buf : NULL;
}

/* Host id and layout of trace i. */
static int exp_identify(struct cli_exp *e, size_t i)
{
	char uuid[40], d[64], n[64], ma[32], mi[32];
	const cli_trace *t = &e->tr[i];

	if (!t->vstf && sht_ctf_host_id(&t->src, uuid, sizeof uuid) == SHT_OK) {
		e->host[i] = copy_str(uuid);
	} else {
		e->host[i] = cli_base_name(e->paths[i]);
	}
	e->names[i] = realpath(e->paths[i], NULL);
	if (!e->names[i])
		e->names[i] = copy_str(e->paths[i]);
	if (!e->host[i] || !e->names[i])
		return cli_error("cannot open %s: out of memory", e->paths[i]);
	e->layout[i] = sht_net_layout_from_env(
		env_text(t, "domain", d, sizeof d),
		env_text(t, "tracer_name", n, sizeof n),
		env_text(t, "tracer_major", ma, sizeof ma),
		env_text(t, "tracer_minor", mi, sizeof mi));
	return CLI_OK;
}

int cli_exp_open(struct cli_exp *e, char **paths, size_t n)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	e->paths = paths;
	e->tr = calloc(n, sizeof(*e->tr));
	e->host = calloc(n, sizeof(*e->host));
	e->layout = calloc(n, sizeof(*e->layout));
	e->names = calloc(n, sizeof(*e->names));
	if (!e->tr || !e->host || !e->layout || !e->names) {
		cli_exp_close(e);
		return cli_error("cannot open the traces: out of memory");
	}
	for (i = 0; i < n; i++) {
		if (cli_trace_open(paths[i], 0, cli_default_jobs(), &e->tr[i]) != CLI_OK)
			break;
		e->n = i + 1;
		if (exp_identify(e, i) != CLI_OK)
			break;
	}
	if (i < n) {
		cli_exp_close(e);
		return CLI_FAIL;
	}
	return CLI_OK;
}

void cli_exp_close(struct cli_exp *e)
{
	for (size_t i = 0; i < e->n; i++) {
		cli_trace_close(&e->tr[i]);
		free(e->host[i]);
		free(e->names[i]);
	}
	free(e->names);
	free(e->tr);
	free(e->host);
	free(e->layout);
	memset(e, 0, sizeof(*e));
}

int cli_exp_sync(struct cli_exp *e, sht_sync **out)
{
	sht_sync_input *in = calloc(e->n, sizeof(*in));
	struct cli_progress *pg = calloc(e->n, sizeof(*pg));
	sht_source *src = calloc(e->n, sizeof(*src));
	sht_err err;
	size_t i;

	if (!in || !pg || !src) {
		free(in);
		free(pg);
		free(src);
		return cli_error("cannot synchronize: out of memory");
	}
	for (i = 0; i < e->n; i++) {
		/* Progress sources feed the watchdog; the first trace's line
		 * shows how far the merged reading is (they go together in
		 * time). */
		cli_progress_init(&pg[i], &e->tr[i], "synchronizing",
				  i == 0 && e->show_progress);
		cli_progress_start(&pg[i]);
		cli_progress_source(&pg[i], &src[i]);
		in[i].src = &src[i];
		in[i].name = e->names[i];
		in[i].host = e->host[i];
		in[i].layout = e->layout[i];
	}
	cli_stall_arm(e->n == 1 ? e->paths[0] : "the traces", NULL);
	err = sht_sync_compute(in, e->n, out);
	cli_stall_disarm();
	cli_progress_clear(&pg[0]);
	free(in);
	free(pg);
	free(src);
	if (err < 0)
		return cli_fail(err, "synchronize the traces");
	for (i = 0; i < e->n; i++) {
		err = e->tr[i].src.ops->seek(e->tr[i].src.src, 0);
		if (err < 0) {
			sht_sync_free(*out);
			*out = NULL;
			return cli_fail(err, "read %s again", e->paths[i]);
		}
	}
	return CLI_OK;
}

/* 1 if every trace has the same host id. */
static int one_host(const struct cli_exp *e)
{
	for (size_t i = 1; i < e->n; i++)
		if (strcmp(e->host[i], e->host[0]) != 0)
			return 0;
	return 1;
}

void cli_sync_warn(const struct cli_exp *e, const sht_sync *s)
{
	sht_sync_trace_info ti;
	sht_sync_stats st;

	sht_sync_stats_get(s, &st);
	if (e->n == 1) {
		fprintf(stderr, "sht: warning: one trace only: nothing to "
			"synchronize, its clock is kept as it is\n");
		return;
	}
	if (one_host(e)) {
		fprintf(stderr, "sht: warning: all the traces come from one "
			"host (clock %s): they share its clock, nothing to "
			"synchronize\n", e->host[0]);
		return;
	}
	if (sht_sync_pair_count(s) == 0) {
		fprintf(stderr, "sht: warning: no TCP packet was matched "
			"between different hosts (%llu send/receive events "
			"seen: inet_sock_local_out/_in, net_dev_queue, "
			"netif_receive_skb / net_if_receive_skb): quality "
			"absent, every trace keeps its own clock\n",
			(unsigned long long)st.packets);
		return;
	}
	for (size_t i = 0; i < e->n; i++) {
		sht_sync_trace(s, i, &ti);
		if (!ti.synced)
			fprintf(stderr, "sht: warning: %s (host %s) has no "
				"usable packet exchange with the reference "
				"host (packets in one direction only, or "
				"none): it keeps its own clock\n",
				e->paths[i], ti.host);
	}
}

json_t *cli_sync_json_traces(const sht_sync *s, char **paths)
{
	sht_sync_trace_info ti;
	json_t *arr = json_array(), *o;

	for (size_t i = 0; i < sht_sync_count(s); i++) {
		sht_sync_trace(s, i, &ti);
		o = json_object();
		cli_jset(o, "path", cli_jcstr(paths ? paths[i] : ti.name));
		cli_jset(o, "host", cli_jcstr(ti.host));
		cli_jset(o, "slope",
			 cli_jdecimal(sht_transform_slope(ti.transform)));
		cli_jset(o, "offset",
			 cli_jdecimal(sht_transform_offset(ti.transform)));
		cli_jset(o, "reference", cli_jbool(ti.reference));
		cli_jset(o, "synced", cli_jbool(ti.synced));
		cli_jappend(arr, o);
	}
	return arr;
}
