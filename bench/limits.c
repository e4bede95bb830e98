/*
 * limits.c: sht-limits, the physical limits of the machine it runs on, so
 * that each benchmark figure can be stated as a fraction of its limit
 * (docs/PERFORMANCE.md, docs/BENCHMARKS.md).
 *
 *   sht-limits [--dir DIR] [--limit-bytes B] [--repeat K] [--quick] [--keep]
 *
 * Each run, in a forked child (its own memory):
 *   disk    a file of B bytes (1 GiB) in DIR ($TMPDIR or /tmp), written in
 *           1 MiB chunks of random bytes: MB/s of the writes alone and
 *           with the final fsync (MB = 10^6 bytes); read back warm (from
 *           the page cache) and cold (its pages dropped with
 *           posix_fadvise DONTNEED: on a VM the host may still cache
 *           them); 400 random 64 KiB preads (one node of a history
 *           file), warm and cold: mean and median; then up to 2 000 cold
 *           4 KiB preads of distinct random pages with readahead off;
 *   memory  dependent-load latency by pointer chasing over a random
 *           cycle of 64-byte lines of 32 KiB, 1 MiB, 16 MiB and 256 MiB
 *           (TLB misses included, as a random query sees them); the
 *           sequential read and the memcpy bandwidth of 256 MiB (best of
 *           3 and 5; memcpy timed in thread CPU time); the cost of
 *           clock_gettime;
 *   machine CPU model, online CPUs, memory, the 1-minute load average
 *           when the run started (the machine may be shared).
 * --quick: memory tests over at most 16 MiB, fewer steps (seconds, not
 * minutes).  Output: one JSON line per run ("type":"run") and with
 * --repeat K a last one ("type":"median") holding the median of every
 * number over the runs.  Progress (--verbose) and errors on stderr; exit
 * status 2 on errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-util.h"
#include "metrics.h"
#include "rng.h"

#define MIB (1024u * 1024u)

struct limits_opts {
	const char *dir;
	uint64_t bytes;
	int keep;
	int quick;      /* --quick: memory tests over <= 16 MiB, fewer steps */
};

/* ---- the disk ------------------------------------------------------------ */

/* Mean latency of cold 4 KiB reads of distinct random pages. */
static double rand_4k(int fd, const char *path, uint64_t bytes, char *buf,
		      struct rng *rng)
{
	uint64_t pages = bytes / 4096;
	uint64_t n = pages / 4 < 2000 ? pages / 4 : 2000;
	uint64_t *idx = xmalloc(pages * sizeof *idx);
	double sum = 0;

	for (uint64_t i = 0; i < pages; i++)
		idx[i] = i;
	for (uint64_t i = 0; i < n; i++) {      /* partial Fisher-Yates */
		uint64_t j = i + rng_below(rng, pages - i), x = idx[i];

		idx[i] = idx[j];
		idx[j] = x;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (uint64_t i = 0; i < n; i++) {
		double t0 = now_s();
		ssize_t r = pread(fd, buf, 4096, (off_t)(idx[i] * 4096));

		sum += now_s() - t0;
		if (r != 4096)
			die("pread %s: %s", path, r < 0 ? strerror(errno)
							: "short read");
	}
	free(idx);
	return n ? sum / (double)n * 1e6 : 0;
}

/* ---- memory -------------------------------------------------------------- */

struct chase_line {
	struct chase_line *next;
	char pad[64 - sizeof(struct chase_line *)];
};

static void *volatile chase_sink;

/* Average latency of one dependent load over a random cycle of lines
 * covering bytes, in ns. */
static double chase_ns(size_t bytes, uint64_t steps, struct rng *rng)
{
	size_t n = bytes / sizeof(struct chase_line);
	struct chase_line *a = xmalloc(n * sizeof *a);
	size_t *perm = xmalloc(n * sizeof *perm);
	struct chase_line *p;
	double t0, t1;

	/* Sattolo's algorithm: one cycle through every line. */
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rng_below(rng, i);
		size_t tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	for (size_t i = 0; i < n; i++)
		a[perm[i]].next = &a[perm[(i + 1) % n]];
	free(perm);
	p = &a[0];
	for (uint64_t i = 0; i < n; i++)     /* touch, warm the TLB */
		p = p->next;
	t0 = now_s();
	for (uint64_t i = 0; i < steps; i++)
		p = p->next;
	t1 = now_s();
	chase_sink = p;                       /* keep the loop */
	free(a);
	return (t1 - t0) / (double)steps * 1e9;
}

static double mem_read_gbps(size_t bytes)
{
	uint64_t *a = xmalloc(bytes);
	size_t n = bytes / sizeof *a;
	volatile uint64_t sink;
	uint64_t sum = 0;
	double best = 0;

	for (size_t i = 0; i < n; i++)
		a[i] = i;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_s(), t1;

		for (size_t i = 0; i < n; i++)
			sum += a[i];
		t1 = now_s();
		if ((double)bytes / (t1 - t0) / 1e9 > best)
			best = (double)bytes / (t1 - t0) / 1e9;
	}
	sink = sum;
	(void)sink;
	free(a);
	return best;
}

/* memcpy of bytes / 2 to another buffer, best of 5 (thread CPU time):
 * bytes copied per second, GB/s (the memory traffic is twice that). */
static double mem_copy_gbps(size_t bytes)
{
	size_t n = bytes / 2;
	char *a = xmalloc(n), *b = xmalloc(n);
	double best = 0;

	memset(a, 1, n);
	memset(b, 2, n);
	for (int r = 0; r < 5; r++) {
		double t0 = thread_cpu_s(), dt;

		memcpy(b, a, n);
		dt = thread_cpu_s() - t0;
		a[(size_t)r * 4096 % n] = (char)b[n - 1 - (size_t)r];
		if (best == 0 || dt < best)
			best = dt;
	}
	free(a);
	free(b);
	return (double)n / 1e9 / best;
}

/* ---- one run ------------------------------------------------------------- */

static void phase_limits(void *ctx, struct metrics *ms)
{
	const struct limits_opts *o = ctx;
	const size_t chunk = 1u << 20;
	char path[4096];
	char *buf;
	struct rng rng = RNG_INIT(12345);
	uint64_t chunks = o->bytes / chunk;
	int fd;
	double t0, t1, t2;
	double lat[400];

	put(ms, "load1", load1());
	snprintf(path, sizeof path, "%s/sht-limits-%ld.tmp", o->dir,
		 (long)getpid());
	if (posix_memalign((void **)&buf, 4096, chunk) != 0)
		die("out of memory");
	for (size_t i = 0; i < chunk / 8; i++) {
		uint64_t x = rng_next(&rng);

		memcpy(buf + i * 8, &x, 8);
	}

	/* Sequential write, 1 MiB chunks, then fsync. */
	note("limits: sequential write of %" PRIu64 " bytes", chunks * chunk);
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	t0 = now_s();
	for (uint64_t i = 0; i < chunks; i++) {
		buf[0] = (char)i;
		if (write(fd, buf, chunk) != (ssize_t)chunk)
			die("write %s: %s", path, strerror(errno));
	}
	t1 = now_s();
	if (fsync(fd) < 0)
		die("fsync %s: %s", path, strerror(errno));
	t2 = now_s();
	put_int(ms, "file_bytes", (double)(chunks * chunk));
	put(ms, "write_nosync_MBps", (double)(chunks * chunk) / (t1 - t0) / 1e6);
	put(ms, "write_fsync_MBps", (double)(chunks * chunk) / (t2 - t0) / 1e6);
	put(ms, "fsync_s", t2 - t1);

	/* Sequential read, warm (the pages are cached after the write). */
	note("limits: sequential read");
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		t0 = now_s();
		for (uint64_t i = 0; i < chunks; i++)
			if (pread(fd, buf, chunk, (off_t)(i * chunk)) !=
			    (ssize_t)chunk)
				die("read %s: %s", path, strerror(errno));
		t1 = now_s();
		put(ms, pass ? "read_cold_MBps" : "read_warm_MBps",
		    (double)(chunks * chunk) / (t1 - t0) / 1e6);
	}

	/* Random 64 KiB reads (one node): warm, then cold (pages dropped). */
	note("limits: random 64 KiB reads");
	for (int pass = 0; pass < 2; pass++) {
		uint64_t blocks = chunks * chunk / 65536;
		size_t n = sizeof lat / sizeof lat[0];
		double sum = 0;

		posix_fadvise(fd, 0, 0, pass ? POSIX_FADV_DONTNEED
					      : POSIX_FADV_NORMAL);
		if (pass == 0) {      /* make sure it is all cached */
			for (uint64_t i = 0; i < chunks; i++)
				if (pread(fd, buf, chunk,
					  (off_t)(i * chunk)) < 0)
					die("read: %s", strerror(errno));
		}
		for (size_t i = 0; i < n; i++) {
			off_t off = (off_t)(rng_below(&rng, blocks) * 65536);

			t0 = now_s();
			if (pread(fd, buf, 65536, off) != 65536)
				die("read %s: %s", path, strerror(errno));
			t1 = now_s();
			lat[i] = (t1 - t0) * 1e6;
			sum += lat[i];
		}
		put(ms, pass ? "pread64k_cold_mean_us" : "pread64k_warm_mean_us",
		    sum / (double)n);
		put(ms, pass ? "pread64k_cold_p50_us" : "pread64k_warm_p50_us",
		    median(lat, n));
	}

	/* Cold 4 KiB reads of distinct random pages, readahead off (a
	 * generator of their own: the draws above and below stay those of
	 * every earlier run). */
	note("limits: random 4 KiB reads");
	{
		struct rng r4 = RNG_INIT(42);

		put(ms, "pread4k_cold_mean_us",
		    rand_4k(fd, path, chunks * chunk, buf, &r4));
	}
	close(fd);
	if (!o->keep)
		unlink(path);
	free(buf);

	/* Memory: dependent random loads (pointer chasing), and a
	 * sequential read. */
	note("limits: memory latency");
	{
		uint64_t div = o->quick ? 20 : 1;

		put(ms, "mem_latency_ns_32KiB",
		    chase_ns(32u << 10, 20000000 / div, &rng));
		put(ms, "mem_latency_ns_1MiB",
		    chase_ns(1u << 20, 20000000 / div, &rng));
		put(ms, "mem_latency_ns_16MiB",
		    chase_ns(16u << 20, 10000000 / div, &rng));
		if (!o->quick)
			put(ms, "mem_latency_ns_256MiB",
			    chase_ns(256u << 20, 10000000, &rng));
		put(ms, "mem_read_GBps",
		    mem_read_gbps(o->quick ? 16u << 20 : 256u << 20));
		put(ms, "mem_copy_GBps",
		    mem_copy_gbps(o->quick ? 16u << 20 : 256u << 20));
	}
	{
		double c0 = now_s(), c1 = c0;
		int k;

		for (k = 0; k < 1000000; k++)
			c1 = now_s();
		put(ms, "clock_ns", (c1 - c0) / k * 1e9);
	}
	put_int(ms, "cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
	put_int(ms, "mem_bytes", (double)sysconf(_SC_PHYS_PAGES) *
				 (double)sysconf(_SC_PAGESIZE));
}

/* ---- command line -------------------------------------------------------- */

static _Noreturn void usage(FILE *f, int status)
{
	fputs(
"usage: sht-limits [--dir DIR] [--limit-bytes B] [--repeat K] [--quick]\n"
"                  [--keep] [--verbose]\n"
"  --dir DIR          where the test file goes ($TMPDIR or /tmp)\n"
"  --limit-bytes B    its size, e.g. 128M (1G; at least 1M)\n"
"  --repeat K         K runs, then a line of their medians\n"
"  --quick            memory tests over at most 16 MiB, fewer steps\n"
"  --keep             keep the test file\n"
"Output: JSON lines on stdout.  Exit status 2 on errors.\n", f);
	exit(status);
}

static const struct option options[] = {
	{ "dir", required_argument, NULL, 'd' },
	{ "limit-bytes", required_argument, NULL, 'b' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "quick", no_argument, NULL, 'q' },
	{ "keep", no_argument, NULL, 'k' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct limits_opts o = { tmp_dir(), 1ull << 30, 0, 0 };
	char cpu[256];
	const char *strs[] = { "mode", "limits", "type", "run", "cpu", cpu,
			       NULL };
	const char *mstrs[] = { "mode", "limits", "type", "median", "cpu", cpu,
				NULL };
	struct metrics *runs;
	int repeat = 1, k;

	while ((k = getopt_long(argc, argv, "hv", options, NULL)) != -1) {
		switch (k) {
		case 'd': o.dir = optarg; break;
		case 'b': o.bytes = parse_bytes("--limit-bytes", optarg); break;
		case 'r':
			repeat = (int)parse_count_in("--repeat", optarg, 1, 1000);
			break;
		case 'q': o.quick = 1; break;
		case 'k': o.keep = 1; break;
		case 'v': bench_verbose = 1; break;
		case 'h': usage(stdout, 0);
		default: bad_option();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (o.bytes < MIB)
		usage_error("--limit-bytes: at least 1M, not '%" PRIu64 "'",
			    o.bytes);
	cpu_model(cpu, sizeof cpu);
	runs = xmalloc((size_t)repeat * sizeof *runs);
	for (int r = 0; r < repeat; r++) {
		if (run_in_child(NULL, NULL, NULL, phase_limits, &o,
				 &runs[r]) < 0)
			die("run %d failed: %s", r, runs[r].err);
		put_int(&runs[r], "run", r);
		metrics_print(strs, &runs[r]);
	}
	if (repeat > 1) {
		struct metrics med;

		metrics_median(runs, (size_t)repeat, &med);
		put_int(&med, "runs", repeat);
		metrics_print(mstrs, &med);
	}
	free(runs);
	return 0;
}
