/*
 * bigtrace-bench.c: what decoding a CTF trace on several threads gives a
 * build, and where the CPU time goes (docs/PERFORMANCE.md, "Big traces").
 *
 *   bigtrace-bench TRACE [--mode decode|build] [--jobs N | --muxer]
 *                        [--repeat K] [--dir D] [--label L]
 *
 *   decode  sht_ctf_open (the stream reader on N decoding threads, or
 *           --muxer: babeltrace2's graph and muxer on the caller's
 *           thread, as sht read traces before), next over every event,
 *           one payload field read per event ("tid", as ctf-bench does);
 *   build   what `sht build` does: the same source, the Linux kernel
 *           analysis (layout AUTO), a state system with the tree backend
 *           and the threaded builder into D/bigtrace-bench.sht (synced,
 *           finished, removed afterwards).
 *
 * Each run is a child process (fork), so that its peak RSS is its own.
 * Before closing, the child reads the CPU time of each of its threads
 * (/proc/self/task/<tid>/stat; the library names them: sht-decode,
 * sht-place, sht-write; the rest is the caller's thread, "main"), so the
 * split says what would run in parallel on more cores.  One JSON line per
 * run: wall seconds, process CPU seconds, peak RSS, events, events/s and
 * the CPU seconds of main, decode (all its threads), place, write; then a
 * line "median" over the K runs (default 3).
 */
#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sht/sht.h"
#include "bench-util.h"

#define MAX_REPS 51

struct split {
	double main, decode, place, write;
};

struct result {
	double wall, cpu, rss_mib;
	uint64_t events;
	struct split s;
	int ok;
};

/* CPU seconds of each thread of this process, by its name. */
static void thread_split(struct split *s)
{
	long hz = sysconf(_SC_CLK_TCK);
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	memset(s, 0, sizeof *s);
	while (d && (de = readdir(d)) != NULL) {
		char path[300], comm[64] = "", stat[1024];
		unsigned long ut = 0, st = 0;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
		if ((f = fopen(path, "r"))) {
			if (!fgets(comm, sizeof comm, f))
				comm[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof path, "/proc/self/task/%s/stat", de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(stat, sizeof stat, f)) {
			const char *p = strrchr(stat, ')');
			/* fields after the name: state ppid ... utime(14) stime(15) */
			if (p)
				sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				       &ut, &st);
		}
		fclose(f);
		double sec = (double)(ut + st) / (double)hz;
		if (!strncmp(comm, "sht-decode", 10))
			s->decode += sec;
		else if (!strncmp(comm, "sht-place", 9))
			s->place += sec;
		else if (!strncmp(comm, "sht-write", 9))
			s->write += sec;
		else
			s->main += sec;
	}
	if (d)
		closedir(d);
}

static int open_trace(const char *trace, int muxer, uint32_t jobs, sht_source *src)
{
	sht_ctf_opts o;

	sht_ctf_opts_init(&o);
	o.muxer = muxer;
	o.jobs = jobs;
	if (sht_ctf_open(trace, &o, src) != SHT_OK) {
		fprintf(stderr, "bigtrace-bench: %s\n", sht_errmsg());
		return 0;
	}
	return 1;
}

static int do_decode(const char *trace, int muxer, uint32_t jobs, struct result *r)
{
	sht_source src;
	sht_event ev;
	sht_field f;
	uint64_t sum = 0;
	sht_err err;

	if (!open_trace(trace, muxer, jobs, &src))
		return 0;
	while ((err = src.ops->next(src.src, &ev)) == SHT_OK) {
		if (sht_event_field(&ev, "tid", &f) == SHT_FIELD_INT)
			sum += (uint64_t)f.v.i;
		r->events++;
	}
	thread_split(&r->s);
	sht_ctf_close(&src);
	if (sum == 1)
		fprintf(stderr, " ");        /* keeps the reads */
	return err == SHT_END;
}

static int do_build(const char *trace, int muxer, uint32_t jobs, const char *file,
		    struct result *r)
{
	sht_source src;
	sht_kernel *k = NULL;
	sht_provider p;
	sht_state_opts so;
	sht_state *ss = NULL;
	sht_event ev;
	int good;

	if (!open_trace(trace, muxer, jobs, &src))
		return 0;
	good = src.ops->next(src.src, &ev) == SHT_OK && src.ops->seek(src.src, 0) == SHT_OK &&
	       sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k) == SHT_OK;
	if (good) {
		sht_kernel_provider(k, &p);
		sht_state_opts_init(&so);
		so.provider = p.id;
		so.provider_version = p.version;
		so.tree.threaded = true;
		good = sht_state_create(file, ev.ts, &so, &ss) == SHT_OK &&
		       sht_state_run(ss, &src, &p, &r->events, NULL) == SHT_OK;
		thread_split(&r->s);
		good = good && sht_state_finish(ss, sht_state_end(ss)) == SHT_OK;
	}
	if (!good)
		fprintf(stderr, "bigtrace-bench: %s\n", sht_errmsg());
	sht_state_close(ss);
	sht_kernel_destroy(k);
	sht_ctf_close(&src);
	remove(file);
	return good;
}

/* One run in a child; its result through a pipe. */
static int run(const char *trace, int build, int muxer, uint32_t jobs,
	       const char *file, struct result *r)
{
	int fd[2];
	pid_t pid;
	struct rusage ru;
	int status;

	memset(r, 0, sizeof *r);
	if (pipe(fd) != 0)
		return 0;
	double t0 = now_s();
	if ((pid = fork()) == 0) {
		struct result c;
		double c0 = cpu_s(), w0 = now_s();

		memset(&c, 0, sizeof c);
		close(fd[0]);
		c.ok = build ? do_build(trace, muxer, jobs, file, &c)
			     : do_decode(trace, muxer, jobs, &c);
		c.wall = now_s() - w0;
		c.cpu = cpu_s() - c0;
		_exit(write(fd[1], &c, sizeof c) == sizeof c ? 0 : 1);
	}
	close(fd[1]);
	int got = pid > 0 && read(fd[0], r, sizeof *r) == sizeof *r;
	close(fd[0]);
	if (pid <= 0 || wait4(pid, &status, 0, &ru) != pid)
		return 0;
	(void)t0;
	r->rss_mib = (double)ru.ru_maxrss / 1024.0;
	return got && r->ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void print(const char *label, const char *what, const char *mode, int muxer,
		  uint32_t jobs, const struct result *r)
{
	printf("{\"label\":\"%s\",\"run\":\"%s\",\"mode\":\"%s\",\"reader\":\"%s\","
	       "\"jobs\":%u,\"wall_s\":%.3f,\"cpu_s\":%.3f,\"rss_mib\":%.1f,"
	       "\"events\":%" PRIu64 ",\"events_per_s\":%.0f,\"cpu_main_s\":%.3f,"
	       "\"cpu_decode_s\":%.3f,\"cpu_place_s\":%.3f,\"cpu_write_s\":%.3f}\n",
	       label, what, mode, muxer ? "muxer" : "streams", muxer ? 0 : jobs,
	       r->wall, r->cpu, r->rss_mib, r->events,
	       r->wall > 0 ? (double)r->events / r->wall : 0.0, r->s.main,
	       r->s.decode, r->s.place, r->s.write);
	fflush(stdout);
}

#define MED(field) do {                                         \
		for (int i = 0; i < n; i++)                         \
			v[i] = rs[i].field;                         \
		m->field = median(v, (size_t)n);                    \
	} while (0)

static void medians(const struct result *rs, int n, struct result *m)
{
	double v[MAX_REPS];

	*m = rs[0];
	MED(wall);
	MED(cpu);
	MED(rss_mib);
	MED(s.main);
	MED(s.decode);
	MED(s.place);
	MED(s.write);
}

struct opts {
	const char *trace, *dir, *label;
	int build, muxer, repeat;
	uint32_t jobs;
};

static const struct option options[] = {
	{ "mode", required_argument, NULL, 'm' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "muxer", no_argument, NULL, 'x' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "dir", required_argument, NULL, 'd' },
	{ "label", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static _Noreturn void usage(FILE *f, int status)
{
	fprintf(f, "usage: bigtrace-bench TRACE [--mode decode|build] "
		"[--jobs N | --muxer] [--repeat K] [--dir D] [--label L]\n");
	exit(status);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int k;

	*o = (struct opts){ NULL, tmp_dir(), "", 0, 0, 3, 1 };
	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'm':
			if (strcmp(optarg, "decode") && strcmp(optarg, "build"))
				usage_error("--mode: 'decode' or 'build', not '%s'",
					    optarg);
			o->build = !strcmp(optarg, "build");
			break;
		case 'j':
			o->jobs = (uint32_t)parse_count_in("--jobs", optarg, 0, 256);
			break;
		case 'x': o->muxer = 1; break;
		case 'r':
			o->repeat = (int)parse_count_in("--repeat", optarg, 1,
							MAX_REPS);
			break;
		case 'd': o->dir = optarg; break;
		case 'l': o->label = optarg; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind + 1 != argc)
		usage(stderr, 2);
	o->trace = argv[optind];
}

int main(int argc, char **argv)
{
	struct opts o;
	struct result rs[MAX_REPS], m;
	const char *mode;
	char file[4096];

	parse(argc, argv, &o);
	mode = o.build ? "build" : "decode";
	snprintf(file, sizeof file, "%s/bigtrace-bench-%ld.sht", o.dir, (long)getpid());
	for (int k = 0; k < o.repeat; k++) {
		if (!run(o.trace, o.build, o.muxer, o.jobs, file, &rs[k])) {
			fprintf(stderr, "bigtrace-bench: run %d failed\n", k + 1);
			return 1;
		}
		print(o.label, "run", mode, o.muxer, o.jobs, &rs[k]);
	}
	medians(rs, o.repeat, &m);
	print(o.label, "median", mode, o.muxer, o.jobs, &m);
	return 0;
}
