/*
 * metrics.c: the figures of a run and the phase children of metrics.h.
 */
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-json.h"
#include "bench-util.h"
#include "metrics.h"

/* ---- the list ------------------------------------------------------------ */

void put(struct metrics *ms, const char *key, double v)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (strcmp(ms->m[i].key, key) == 0) {
			ms->m[i].v = v;
			return;
		}
	}
	if (ms->n == MAX_METRICS)
		die("too many metrics (key %s)", key);
	ms->m[ms->n].key = key;
	ms->m[ms->n].v = v;
	ms->m[ms->n].is_int = 0;
	ms->n++;
}

void put_int(struct metrics *ms, const char *key, double v)
{
	put(ms, key, v);
	for (size_t i = 0; i < ms->n; i++)
		if (strcmp(ms->m[i].key, key) == 0)
			ms->m[i].is_int = 1;
}

int get(const struct metrics *ms, const char *key, double *v)
{
	for (size_t i = 0; i < ms->n; i++) {
		if (strcmp(ms->m[i].key, key) == 0) {
			*v = ms->m[i].v;
			return 1;
		}
	}
	return 0;
}

void merge(struct metrics *dst, const struct metrics *src)
{
	for (size_t i = 0; i < src->n; i++) {
		if (src->m[i].is_int)
			put_int(dst, src->m[i].key, src->m[i].v);
		else
			put(dst, src->m[i].key, src->m[i].v);
	}
}

void rename_metric(struct metrics *dst, const struct metrics *src,
		   const char *from, const char *to)
{
	double v;

	if (get(src, from, &v))
		put(dst, to, v);
}

void metrics_median(const struct metrics *runs, size_t k,
		    struct metrics *out)
{
	double *v = xmalloc(k * sizeof *v);

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < runs[0].n; i++) {
		const char *key = runs[0].m[i].key;
		size_t n = 0;
		double x, med;

		if (strcmp(key, "run") == 0)
			continue;

		for (size_t r = 0; r < k; r++)
			if (get(&runs[r], key, &x) && isfinite(x))
				v[n++] = x;
		med = median(v, n);
		/* A median of two integers may be a half: keep it. */
		if (runs[0].m[i].is_int && med == floor(med))
			put_int(out, key, med);
		else
			put(out, key, med);
	}
	free(v);
}

void metrics_print(const char *const *strs, const struct metrics *ms)
{
	json_t *o = bj_object();

	for (size_t i = 0; strs[i]; i += 2)
		bj_str(o, strs[i], strs[i + 1]);
	for (size_t i = 0; i < ms->n; i++) {
		const struct metric *m = &ms->m[i];

		if (m->is_int && fabs(m->v) < 9007199254740992.0)
			bj_int(o, m->key, (int64_t)m->v);
		else
			bj_num(o, m->key, m->v);
	}
	bj_print(o);
}

/* ---- a phase in a child -------------------------------------------------- */

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);
		p += w;
		n -= (size_t)w;
	}
}

/* Read up to n bytes; returns how many before EOF. */
static size_t read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int run_in_child(const char *rss_key, const char *user_key,
		 const char *sys_key, phase_fn fn, void *ctx,
		 struct metrics *out)
{
	int fds[2];
	pid_t pid;
	int status;
	struct rusage ru;
	size_t got;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) < 0)
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		struct metrics *ms = calloc(1, sizeof *ms);

		close(fds[0]);
		if (!ms)
			_exit(3);
		fn(ctx, ms);
		write_all(fds[1], ms, sizeof *ms);
		close(fds[1]);
		_exit(0);
	}
	close(fds[1]);
	memset(out, 0, sizeof *out);
	got = read_all(fds[0], out, sizeof *out);
	close(fds[0]);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	}
	if (got != sizeof *out || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		memset(out, 0, sizeof *out);
		out->failed = 1;
		if (WIFSIGNALED(status))
			snprintf(out->err, sizeof out->err,
				 "child killed by signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			snprintf(out->err, sizeof out->err,
				 "child exited with status %d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	if (rss_key)
		put_int(out, rss_key, (double)ru.ru_maxrss * 1024.0);
	if (user_key)
		put(out, user_key, (double)ru.ru_utime.tv_sec +
				   (double)ru.ru_utime.tv_usec * 1e-6);
	if (sys_key)
		put(out, sys_key, (double)ru.ru_stime.tv_sec +
				  (double)ru.ru_stime.tv_usec * 1e-6);
	return out->failed ? -1 : 0;
}

