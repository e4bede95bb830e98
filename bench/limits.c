/*
 * limits.c: sht-limits, the physical limits of the machine it runs on,
 * so that each benchmark figure can be stated as a fraction of its limit.
 *
 *   sht-limits [--dir DIR] [--mb N] [--mem-mb M]
 *
 * Output: one JSON line on stdout:
 *   seq_write_MBps      writing N MiB in 1 MiB write()s, then fsync; the
 *                       clock covers both (MB = 10^6 bytes)
 *   seq_read_cold_MBps  reading the file back after its pages were dropped
 *                       (posix_fadvise DONTNEED, after the fsync: they are
 *                       clean); on a VM the host may still cache them
 *   seq_read_warm_MBps  reading it once more, from the page cache
 *   rand_read_4k_us     mean latency of 4 KiB pread()s at random aligned
 *                       offsets (distinct pages, readahead off), cold
 *   mem_latency_ns      pointer chasing over a random cycle of 64-byte
 *                       slots in an M MiB buffer (far larger than the
 *                       last-level cache): ns per dependent load, median
 *                       of rounds of 10^6 loads; TLB misses included, as
 *                       a random query sees them
 *   mem_bw_GBps         memcpy of M/2 MiB to another buffer, best of 5
 *                       (thread CPU time, as the latency's rounds):
 *                       bytes copied per second (the memory traffic is
 *                       twice that: a read and a write of each byte)
 * and cpu (model name), cores (online), ram_gib, load1 (the 1-minute load
 * average when it started: the machine may be shared).  Progress and errors on
 * stderr; exit status 2 on errors.  The default run takes ~10-30 s.
 */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-json.h"
#include "bench-util.h"
#include "rng.h"

#define MIB (1024u * 1024u)

/* ---- the disk ------------------------------------------------------------ */

struct disk {
	double write_MBps, read_cold_MBps, read_warm_MBps, rand_4k_us;
};

static void fill(char *buf, size_t n, struct rng *rng)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v = rng_next(rng);

		memcpy(buf + i, &v, 8);
	}
}

static double seq_write(int fd, const char *path, char *buf, uint64_t mb)
{
	double t0 = now_s();

	for (uint64_t i = 0; i < mb; i++) {
		size_t done = 0;

		while (done < MIB) {
			ssize_t w = write(fd, buf + done, MIB - done);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				die("write %s: %s", path, strerror(errno));
			done += (size_t)w;
		}
		buf[i % MIB] ^= 1;      /* no two chunks alike */
	}
	if (fsync(fd) < 0)
		die("fsync %s: %s", path, strerror(errno));
	return (double)mb * MIB / 1e6 / (now_s() - t0);
}

static double seq_read(int fd, const char *path, char *buf, uint64_t mb)
{
	uint64_t total = 0;
	double t0 = now_s();

	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek %s: %s", path, strerror(errno));
	for (;;) {
		ssize_t r = read(fd, buf, MIB);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read %s: %s", path, strerror(errno));
		if (r == 0)
			break;
		total += (uint64_t)r;
	}
	if (total != mb * MIB)
		die("read %s: %" PRIu64 " bytes, wrote %" PRIu64, path, total,
		    mb * MIB);
	return (double)total / 1e6 / (now_s() - t0);
}

/* Mean latency of cold 4 KiB reads of distinct random pages. */
static double rand_4k(int fd, const char *path, uint64_t mb, char *buf,
		      struct rng *rng)
{
	uint64_t pages = mb * (MIB / 4096);
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

static void disk(const char *dir, uint64_t mb, struct disk *d)
{
	char path[4096];
	char *buf = xmalloc(MIB);
	struct rng rng = RNG_INIT(42);
	int fd;

	snprintf(path, sizeof path, "%s/sht-limits-%ld.tmp", dir,
		 (long)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	fill(buf, MIB, &rng);
	fprintf(stderr, "sht-limits: sequential write, %" PRIu64 " MiB\n", mb);
	d->write_MBps = seq_write(fd, path, buf, mb);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	d->read_cold_MBps = seq_read(fd, path, buf, mb);
	d->read_warm_MBps = seq_read(fd, path, buf, mb);
	fprintf(stderr, "sht-limits: random 4 KiB reads\n");
	d->rand_4k_us = rand_4k(fd, path, mb, buf, &rng);
	close(fd);
	unlink(path);
	free(buf);
}

/* ---- memory -------------------------------------------------------------- */

struct slot {
	struct slot *next;
	char pad[64 - sizeof(struct slot *)];
};

/* Median ns per load over rounds of 1M dependent loads (thread CPU time):
 * at least 3 rounds, then as many as fit in ~2 s (up to 15). */
static double mem_latency(uint64_t mb)
{
	size_t n = (size_t)mb * MIB / sizeof(struct slot);
	struct slot *s = xmalloc(n * sizeof *s);
	uint32_t *perm = xmalloc(n * sizeof *perm);
	struct rng rng = RNG_INIT(7);
	double ns[15], start;
	int rounds = 0;
	struct slot *p;

	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {    /* Sattolo: one cycle */
		size_t j = (size_t)rng_below(&rng, i);
		uint32_t x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (size_t i = 0; i < n; i++)
		s[i].next = &s[perm[i]];
	free(perm);
	p = &s[0];
	for (size_t i = 0; i < n; i++)          /* touch every page once */
		p = p->next;
	start = now_s();
	while (rounds < 15 && (rounds < 3 || now_s() - start < 2.0)) {
		double t0 = thread_cpu_s();

		for (int i = 0; i < 1000000; i++)
			p = p->next;
		ns[rounds++] = (thread_cpu_s() - t0) / 1e6 * 1e9;
	}
	if (p == NULL)                          /* keeps the loop */
		die("broken cycle");
	free(s);
	return median(ns, (size_t)rounds);
}

static double mem_bandwidth(uint64_t mb)
{
	size_t n = (size_t)mb * MIB / 2;
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

static const struct option options[] = {
	{ "dir", required_argument, NULL, 'd' },
	{ "mb", required_argument, NULL, 'm' },
	{ "mem-mb", required_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	const char *dir = tmp_dir();
	uint64_t mb = 512, mem_mb = 512;
	struct disk d;
	char cpu[256];
	double lat, bw, load = load1();
	json_t *o;
	int k;

	while ((k = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (k) {
		case 'd': dir = optarg; break;
		case 'm': mb = parse_count_in("--mb", optarg, 1, 65536); break;
		case 'M':
			mem_mb = parse_count_in("--mem-mb", optarg, 1, 65536);
			break;
		case 'h':
			puts("usage: sht-limits [--dir DIR] [--mb N] "
			     "[--mem-mb M]\n"
			     "  --dir DIR    where the test file goes "
			     "($TMPDIR or /tmp)\n"
			     "  --mb N       test file MiB (512)\n"
			     "  --mem-mb M   memory buffers MiB (512)");
			return 0;
		default: bad_option();
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	disk(dir, mb, &d);
	fprintf(stderr, "sht-limits: memory latency and bandwidth, %" PRIu64
		" MiB\n", mem_mb);
	lat = mem_latency(mem_mb);
	bw = mem_bandwidth(mem_mb);
	cpu_model(cpu, sizeof cpu);
	o = bj_object();
	bj_num(o, "seq_write_MBps", d.write_MBps);
	bj_num(o, "seq_read_cold_MBps", d.read_cold_MBps);
	bj_num(o, "seq_read_warm_MBps", d.read_warm_MBps);
	bj_num(o, "mem_latency_ns", lat);
	bj_num(o, "mem_bw_GBps", bw);
	bj_num(o, "rand_read_4k_us", d.rand_4k_us);
	bj_str(o, "cpu", cpu);
	bj_int(o, "cores", sysconf(_SC_NPROCESSORS_ONLN));
	bj_num(o, "ram_gib", (double)sysconf(_SC_PHYS_PAGES) *
			     (double)sysconf(_SC_PAGESIZE) /
			     (1024.0 * 1024.0 * 1024.0));
	bj_int(o, "file_mib", (int64_t)mb);
	bj_int(o, "mem_mib", (int64_t)mem_mb);
	bj_num(o, "load1", load);
	bj_print(o);
	return 0;
}
