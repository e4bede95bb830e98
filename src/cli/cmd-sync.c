/*
 * cmd-sync.c: `sht sync TRACE...`: synchronize the clocks of traces of
 * several hosts from the TCP packets they exchanged (sht/sync.h) and
 * print each trace's transform onto the reference host's clock.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char sync_usage[] =
"Usage: sht sync TRACE... [--json] [--no-progress]\n"
"\n"
"Synchronize the clocks of traces recorded on several hosts (CTF trace\n"
"directories or VSTF files) from the TCP packets they exchanged: a\n"
"packet's send (inet_sock_local_out, net_dev_queue) on one host is\n"
"matched with its receive (inet_sock_local_in, netif_receive_skb /\n"
"net_if_receive_skb) on another by its sequence number, acknowledgement\n"
"number and flags, and the fully incremental convex hull algorithm\n"
"bounds each pair of hosts' clock relation, as Trace Compass does.\n"
"Prints, per trace, its host id (its clock's UUID), and the transform\n"
"t' = slope * t + offset that puts it on the reference host's clock\n"
"(the reference keeps slope 1, offset 0), then the number of matched\n"
"packet pairs and the quality: accurate, approximate, fail (the bounds\n"
"crossed), incomplete (packets one way only) or absent (none).\n"
"Slopes and offsets have all their digits (34 significant).\n"
"\n"
"One trace, traces of a single host, or traces without network events\n"
"are not errors: every transform is then the identity, the quality is\n"
"absent, and a warning says why.\n"
"\n"
"Options:\n"
"  --json      one JSON object: {\"traces\": [{\"path\", \"host\", \"slope\",\n"
"              \"offset\", \"reference\", \"synced\"}], \"matches\",\n"
"              \"quality\", \"pairs\": [...], ...}; slope and offset are\n"
"              JSON numbers with all their digits\n"
"  --no-progress  no progress line (shown only when stderr is a\n"
"              terminal)\n"
"  -h, --help  show this help\n";

enum { OPT_JSON = 1, OPT_NO_PROGRESS };

static const cli_opt sync_opts[] = {
	{ "json", 0, 0, OPT_JSON },
	{ "no-progress", 0, 0, OPT_NO_PROGRESS },
	{ NULL, 0, 0, 0 }
};

struct sync_opts {
	char **traces;
	size_t n;
	int json;
	int no_progress;
};

static int sync_opt(void *ctx, int id, const char *val)
{
	struct sync_opts *o = ctx;

	if (id == OPT_JSON) {
		o->json = 1;
		return 0;
	}
	if (id == OPT_NO_PROGRESS) {
		o->no_progress = 1;
		return 0;
	}
	o->traces[o->n++] = (char *)(uintptr_t)val;   /* CLI_ARG_POS */
	return 0;
}

static void print_text(const struct cli_exp *e, const sht_sync *s,
		       double seconds)
{
	sht_sync_trace_info ti;
	sht_sync_pair_info pi;
	sht_sync_stats st;

	for (size_t i = 0; i < sht_sync_count(s); i++) {
		sht_sync_trace(s, i, &ti);
		printf("trace %s\n  host    %s%s\n  slope   %s\n  offset  %s\n",
		       e->paths[i], ti.host, ti.reference ? " (reference)"
				       : ti.synced ? "" : " (not synchronized)",
		       sht_transform_slope(ti.transform),
		       sht_transform_offset(ti.transform));
	}
	sht_sync_stats_get(s, &st);
	printf("matches %" PRIu64 ", quality %s\n", st.matches,
	       sht_sync_quality_name(sht_sync_quality_get(s)));
	for (size_t k = 0; k < sht_sync_pair_count(s); k++) {
		sht_sync_pair(s, k, &pi);
		printf("pair %s / %s: %" PRIu64 " matches (%" PRIu64
		       " moved a bound), %s, accuracy %s\n", pi.reference,
		       pi.other, pi.matches, pi.accurate,
		       sht_sync_quality_name(pi.quality), pi.accuracy);
	}
	printf("read %" PRIu64 " events (%" PRIu64 " TCP send/receive, %"
	       PRIu64 " left unmatched, at most %" PRIu64 " waiting) in "
	       "%.3f s\n", st.events, st.packets, st.pending, st.peak_pending,
	       seconds);
}

static int print_json(const struct cli_exp *e, const sht_sync *s,
		      double seconds)
{
	sht_sync_pair_info pi;
	sht_sync_stats st;
	json_t *o = json_object(), *pairs = json_array(), *p;

	sht_sync_stats_get(s, &st);
	cli_jset(o, "traces", cli_sync_json_traces(s, e->paths));
	cli_jset(o, "matches", cli_juint(st.matches));
	cli_jset(o, "quality",
		 cli_jcstr(sht_sync_quality_name(sht_sync_quality_get(s))));
	for (size_t k = 0; k < sht_sync_pair_count(s); k++) {
		sht_sync_pair(s, k, &pi);
		p = json_object();
		cli_jset(p, "reference", cli_jcstr(pi.reference));
		cli_jset(p, "other", cli_jcstr(pi.other));
		cli_jset(p, "matches", cli_juint(pi.matches));
		cli_jset(p, "accurate", cli_juint(pi.accurate));
		cli_jset(p, "quality",
			 cli_jcstr(sht_sync_quality_name(pi.quality)));
		cli_jset(p, "slope", cli_jdecimal(pi.slope));
		cli_jset(p, "offset", cli_jdecimal(pi.offset));
		cli_jset(p, "accuracy", cli_jdecimal(pi.accuracy));
		cli_jappend(pairs, p);
	}
	cli_jset(o, "pairs", pairs);
	cli_jset(o, "events", cli_juint(st.events));
	cli_jset(o, "packets", cli_juint(st.packets));
	cli_jset(o, "pending", cli_juint(st.pending));
	cli_jset(o, "peak_pending", cli_juint(st.peak_pending));
	cli_jset(o, "hull_points", cli_juint(st.hull_points));
	cli_jset(o, "seconds", cli_jreal(seconds));
	return cli_json_print(o);
}

int cmd_sync(int argc, char **argv)
{
	struct sync_opts o;
	struct cli_exp e;
	sht_sync *s = NULL;
	double t0;
	int status;

	memset(&o, 0, sizeof(o));
	o.traces = calloc((size_t)argc + 1, sizeof(*o.traces));
	if (!o.traces)
		return cli_error("cannot synchronize: out of memory");
	status = cli_parse_options(argc, argv, 1, "sync", sync_opts,
				   sync_usage, sync_opt, &o);
	if (status < 0) {
		free(o.traces);
		return cli_finish_output(CLI_OK);   /* --help */
	}
	if (status == CLI_OK && o.n == 0)
		status = cli_usage_error("sync", "missing TRACE");
	if (status == CLI_OK)
		status = cli_exp_open(&e, o.traces, o.n);
	if (status == CLI_OK) {
		e.show_progress = !o.no_progress && isatty(STDERR_FILENO);
		t0 = cli_now();
		status = cli_exp_sync(&e, &s);
		if (status == CLI_OK) {
			cli_sync_warn(&e, s);
			if (o.json) {
				status = print_json(&e, s, cli_now() - t0);
			} else {
				print_text(&e, s, cli_now() - t0);
				status = CLI_OK;
			}
			status = cli_finish_output(status);
		}
		sht_sync_free(s);
		cli_exp_close(&e);
	}
	free(o.traces);
	return status;
}
