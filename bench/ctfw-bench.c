/*
 * ctfw-bench.c: write speed of the CTF writer (src/gen/include/shtgen/ctfw.h).
 *
 *   ctfw-bench [--events N] [--cpus C] [--packet-size B] [--dir D] [--keep]
 *
 * Writes N events (default 10 M) of a sched_switch-like class (two
 * 16-byte comm arrays, four 32-bit and one 64-bit integer: 68 bytes with
 * the event header) round-robin over C CPUs (default 4) with increasing
 * timestamps, into D/ctfw-bench-PID (D: $TMPDIR or /tmp), finish
 * included (fsync of every file, rename), then removes the trace unless
 * --keep.  One JSON line: events, bytes (every file), seconds for the
 * events and for finish, events/s and MB/s (10^6 bytes) over the total.
 */
#include <ftw.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include <shtgen/ctfw.h>
#include "bench-json.h"
#include "bench-util.h"

static const shtgen_ctfw_field switch_fields[] = {
	{ "prev_comm", SHTGEN_CTFW_TEXT16 },
	{ "prev_tid", SHTGEN_CTFW_S32 },
	{ "prev_prio", SHTGEN_CTFW_S32 },
	{ "prev_state", SHTGEN_CTFW_S64 },
	{ "next_comm", SHTGEN_CTFW_TEXT16 },
	{ "next_tid", SHTGEN_CTFW_S32 },
	{ "next_prio", SHTGEN_CTFW_S32 },
};

static const char *const comms[] = {
	"swapper/0", "kworker/u16:2", "bash", "sshd", "systemd-journal",
	"firefox", "Web Content", "rcu_sched",
};

struct args {
	uint64_t events;
	uint32_t cpus, packet_size;
	const char *dir;
	int keep;
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: ctfw-bench [--events N] [--cpus C] "
		"[--packet-size B] [--dir D] [--keep]\n");
	exit(status);
}

static const struct option options[] = {
	{ "events", required_argument, NULL, 'e' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "packet-size", required_argument, NULL, 'p' },
	{ "dir", required_argument, NULL, 'd' },
	{ "keep", no_argument, NULL, 'k' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void parse(int argc, char **argv, struct args *a)
{
	int k;

	a->events = 10000000;
	a->cpus = 4;
	a->packet_size = 0;
	a->dir = tmp_dir();
	a->keep = 0;
	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'e': a->events = parse_count("--events", optarg); break;
		case 'c':
			a->cpus = (uint32_t)parse_count_in("--cpus", optarg, 1,
							   UINT32_MAX);
			break;
		case 'p':
			a->packet_size = (uint32_t)parse_bytes("--packet-size",
							       optarg);
			break;
		case 'd': a->dir = optarg; break;
		case 'k': a->keep = 1; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind < argc)
		usage(stderr, 2);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Write the trace: 0, or -1 with the message printed. */
static int run(const struct args *a, const char *out, double *t_ev,
	       double *t_fin, shtgen_ctfw_stats *st)
{
	shtgen_ctfw_opts o = { a->cpus, a->packet_size, 1000000000, NULL };
	shtgen_ctfw *w = NULL;
	sht_field v[7];
	uint32_t id;
	double t0;
	sht_err err;

	if ((err = shtgen_ctfw_create(out, &o, &w)) != SHT_OK)
		goto fail;
	if ((err = shtgen_ctfw_env_str(w, "tracer_name", "lttng-modules")) ||
	    (err = shtgen_ctfw_env_int(w, "tracer_major", 2)) ||
	    (err = shtgen_ctfw_event_class(w, "sched_switch", switch_fields, 7,
					 &id)))
		goto fail;
	t0 = now_s();
	for (uint64_t i = 0; i < a->events; i++) {
		v[0].type = v[4].type = SHT_FIELD_STRING;
		v[0].v.s = comms[i % 8];
		v[4].v.s = comms[(i + 3) % 8];
		for (int k = 1; k <= 6; k++) {
			if (k == 4)
				continue;
			v[k].type = SHT_FIELD_INT;
			v[k].v.i = (int64_t)((i * 7 + (uint64_t)k) % 40000);
		}
		err = shtgen_ctfw_event(w, id, 1000000000 + (sht_time)i * 100,
				      (uint32_t)(i % a->cpus), v);
		if (err)
			goto fail;
	}
	*t_ev = now_s() - t0;
	t0 = now_s();
	if ((err = shtgen_ctfw_finish(w, st)) != SHT_OK)
		goto fail;
	*t_fin = now_s() - t0;
	shtgen_ctfw_destroy(w);
	return 0;
fail:
	fprintf(stderr, "ctfw-bench: %s\n", sht_errmsg());
	shtgen_ctfw_destroy(w);
	return -1;
}

int main(int argc, char **argv)
{
	struct args a;
	char out[4096];
	shtgen_ctfw_stats st;
	double t_ev = 0, t_fin = 0, total;
	json_t *o;

	parse(argc, argv, &a);
	snprintf(out, sizeof out, "%s/ctfw-bench-%ld", a.dir, (long)getpid());
	if (run(&a, out, &t_ev, &t_fin, &st) != 0)
		return 1;
	total = t_ev + t_fin;
	o = bj_object();
	bj_str(o, "bench", "ctfw");
	bj_int(o, "events", (int64_t)st.events);
	bj_int(o, "cpus", a.cpus);
	bj_int(o, "packets", (int64_t)st.packets);
	bj_int(o, "bytes", (int64_t)st.bytes);
	bj_num(o, "events_s", t_ev);
	bj_num(o, "finish_s", t_fin);
	bj_num(o, "events_per_s", (double)st.events / total);
	bj_num(o, "mb_per_s", (double)st.bytes / total / 1e6);
	bj_print(o);
	if (!a.keep && nftw(out, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "ctfw-bench: cannot remove %s\n", out);
	return 0;
}
