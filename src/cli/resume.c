/*
 * resume.c: resumable `sht build` (resume.h): the build's identity and
 * lock, resuming from FILE.resume, and the checkpoints taken while the
 * build runs (captured on the build's thread at a new timestamp, committed
 * on a thread of their own so that the build never waits for the disk).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resume.h"

#define DEFAULT_EVERY 10.0       /* seconds between checkpoints */
#define HOOK_CLOCK_MASK 1023u    /* look at the clock every 1024 times */

static volatile sig_atomic_t signalled;

/* ---- signals ------------------------------------------------------------- */

static void on_signal(int sig)
{
	signalled = sig;
	signal(sig, SIG_DFL);          /* a second one stops at once */
}

void cli_resume_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cli_resume_signal(void)
{
	return (int)signalled;
}

/* ---- identity ------------------------------------------------------------ */

struct text {
	char *p;
	size_t n, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (t->p && (size_t)n < t->cap - t->n) {
			t->n += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap - t->n <= (size_t)n)
			cap *= 2;
		char *np = realloc(t->p, cap);
		if (!np)
			return;
		t->p = np;
		t->cap = cap;
	}
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file below dir (relative name rel), sorted, as "name
 * size mtime" lines. */
static void fingerprint(struct text *t, const char *dir, const char *rel, int depth)
{
	char path[8192], sub[8192];
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	DIR *d;

	snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
	if (depth > 8 || !(d = opendir(path)))
		return;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof *nn);
			if (!nn)
				break;
			names = nn;
		}
		if ((names[n] = strdup(de->d_name)) != NULL)
			n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[i]) >=
			    (int)sizeof sub ||
		    snprintf(path, sizeof path, "%s/%s", dir, sub) >= (int)sizeof path)
			;                  /* too deep a name: not in the fingerprint */
		else if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			fingerprint(t, dir, sub, depth + 1);
		else if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
			add(t, "%s %lld %lld.%09ld\n", sub, (long long)sb.st_size,
			    (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
		free(names[i]);
	}
	free(names);
}

static int make_ident(struct cli_resume *r, const char *trace, const char *options,
		      sht_time start)
{
	struct text t = { NULL, 0, 0 };
	char *abs = realpath(trace, NULL);
	struct stat sb;

	add(&t, "sht build, resumable, 1\ntrace %s\n%s\nstart %" PRId64 "\n",
	    abs ? abs : trace, options, (int64_t)start);
	if (stat(trace, &sb) == 0 && S_ISREG(sb.st_mode))
		add(&t, "file %lld %lld.%09ld\n", (long long)sb.st_size,
		    (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
	else
		fingerprint(&t, abs ? abs : trace, "", 0);
	free(abs);
	r->ident = t.p;
	r->ident_len = t.n;
	return t.p != NULL;
}

/* ---- life cycle ----------------------------------------------------------- */

static char *suffixed(const char *file, const char *suffix)
{
	size_t n = strlen(file) + strlen(suffix) + 1;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%s", file, suffix);
	return s;
}

static double every_seconds(void)
{
	const char *env = getenv("SHT_RESUME_SECONDS");
	double v;

	if (!env || !*env)
		return DEFAULT_EVERY;
	v = strtod(env, NULL);
	return v >= 0 ? v : DEFAULT_EVERY;
}

int cli_resume_init(struct cli_resume *r, const char *trace, const char *file,
		    const char *options, sht_time start)
{
	memset(r, 0, sizeof *r);
	r->lock_fd = -1;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->every = every_seconds();
	r->building = suffixed(file, ".building");
	r->rfile = suffixed(file, ".resume");
	if (!r->building || !r->rfile || !make_ident(r, trace, options, start))
		return cli_error("cannot build %s: out of memory", trace);
	r->lock_fd = open(r->building, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (r->lock_fd < 0)
		return cli_error("cannot build into %s: %s", r->building, strerror(errno));
	if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0)
		return cli_error("cannot build into %s: %s", r->building,
				 errno == EWOULDBLOCK ? "another sht build of it is running"
						      : strerror(errno));
	return CLI_OK;
}

void cli_resume_free(struct cli_resume *r)
{
	cli_resume_stop(r);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r->building);
	free(r->rfile);
	free(r->ident);
	memset(r, 0, sizeof *r);
	r->lock_fd = -1;
}

/* FILE.resume and the temporary file a kill during its commit left. */
static void unlink_resume(const struct cli_resume *r)
{
	char tmp[8200];

	unlink(r->rfile);
	snprintf(tmp, sizeof tmp, "%s.tmp", r->rfile);
	unlink(tmp);
}

void cli_resume_done(struct cli_resume *r)
{
	unlink_resume(r);
}

void cli_resume_abandon(struct cli_resume *r)
{
	unlink_resume(r);
	unlink(r->building);
}

/* ---- resuming -------------------------------------------------------------- */

/* A resume file that cannot serve: say why, remove it. */
static int start_over(struct cli_resume *r, sht_err err, const char *why)
{
	fprintf(stderr, "sht: %s: %s (%s): starting the build over\n", r->rfile,
		why, sht_errmsg()[0] ? sht_errmsg() : sht_strerror(err));
	unlink_resume(r);
	return CLI_OK;
}

int cli_resume_try(struct cli_resume *r, int no_resume, const sht_state_opts *so,
		   const sht_provider *p, cli_trace *t, sht_state **ss)
{
	sht_resume *res = NULL;
	sht_resume_info info;
	sht_err err;

	*ss = NULL;
	if (no_resume) {
		unlink_resume(r);
		return CLI_OK;
	}
	err = sht_resume_open(r->rfile, r->ident, r->ident_len, &res);
	if (err == SHT_NOT_FOUND)
		return CLI_OK;
	if (err != SHT_OK)
		return start_over(r, err, err == SHT_ERR_INVALID ? "not this build's checkpoint"
							    : "cannot be read");
	err = sht_resume_start(res, r->building, so, p, ss, &info);
	sht_resume_destroy(res);
	if (err != SHT_OK && !*ss)
		return start_over(r, err, "cannot resume from it");
	err = sht_source_seek_at(&t->src, info.pos, info.ts);
	if (err != SHT_OK) {
		sht_state_close(*ss);
		*ss = NULL;
		return cli_fail(err, "resume the build at event %" PRIu64 " of the trace "
				"(--no-resume starts over)", info.pos);
	}
	memcpy(r->base, info.counters, sizeof r->base);
	fprintf(stderr, "sht: resuming the build of %s at event %" PRIu64 " (t=%" PRId64
		"), from %s\n", r->building, info.pos, (int64_t)info.ts, r->rfile);
	return CLI_OK;
}

/* ---- checkpoints while running ------------------------------------------------ */

static void *committer(void *arg)
{
	struct cli_resume *r = arg;

	pthread_mutex_lock(&r->mu);
	while (!r->stop || r->pending) {
		sht_resume *res;
		sht_err err;

		if (!r->pending) {
			pthread_cond_wait(&r->cv, &r->mu);
			continue;
		}
		res = r->pending;
		r->pending = NULL;
		r->busy = 1;
		pthread_mutex_unlock(&r->mu);
		err = sht_resume_commit(res, r->ss, r->rfile);
		sht_resume_destroy(res);
		pthread_mutex_lock(&r->mu);
		r->busy = 0;
		if (err != SHT_OK)
			snprintf(r->err, sizeof r->err, "%s", sht_errmsg());
		else
			r->taken++;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

int cli_resume_start(struct cli_resume *r, sht_state *ss, const sht_provider *p,
		     struct cli_progress *pg)
{
	r->ss = ss;
	r->prov = p;
	r->pg = pg;
	r->last = cli_now();
	if (pthread_create(&r->thr, NULL, committer, r) != 0)
		return cli_error("cannot start the checkpoint thread");
	r->started = 1;
	return CLI_OK;
}

void cli_resume_stop(struct cli_resume *r)
{
	if (!r->started)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thr, NULL);
	r->started = 0;
	if (r->err[0])
		fprintf(stderr, "sht: warning: a checkpoint of the build could not be "
			"written (%s); an interrupted build resumes from the one "
			"before\n", r->err);
}

static sht_err capture(struct cli_resume *r, const sht_event *next, uint64_t events,
		       uint64_t skipped, sht_resume **out)
{
	sht_resume_info info;
	sht_source_stats st;

	cli_progress_stats(r->pg, &st);
	memset(&info, 0, sizeof info);
	info.pos = next->pos;
	info.ts = r->pg->last_ts;   /* next's own time (before a transform) */
	info.counters[RS_EVENTS] = r->base[RS_EVENTS] + events;
	info.counters[RS_SKIPPED] = r->base[RS_SKIPPED] + skipped;
	info.counters[RS_DISC_EVENTS] = r->base[RS_DISC_EVENTS] + st.discarded_events;
	info.counters[RS_DISC_PACKETS] = r->base[RS_DISC_PACKETS] + st.discarded_packets;
	return sht_resume_capture(r->ss, r->prov, r->ident, r->ident_len, &info, out);
}

/* A signal: wait for the committer, then a last checkpoint, committed
 * here before the run stops. */
static sht_err last_checkpoint(struct cli_resume *r, const sht_event *next,
			       uint64_t events, uint64_t skipped)
{
	sht_resume *res = NULL;
	sht_err err;

	pthread_mutex_lock(&r->mu);
	while (r->busy || r->pending)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
	err = capture(r, next, events, skipped, &res);
	if (err == SHT_OK)
		err = sht_resume_commit(res, r->ss, r->rfile);
	sht_resume_destroy(res);
	if (err != SHT_OK)
		return err;
	r->stop_pos = next->pos;
	return SHT_END;
}

sht_err cli_resume_hook(void *ctx, const sht_event *next, uint64_t events,
			uint64_t skipped)
{
	static unsigned calls;
	struct cli_resume *r = ctx;
	sht_resume *res = NULL;
	sht_err err;
	int idle;

	if (signalled)
		return last_checkpoint(r, next, events, skipped);
	if ((++calls & HOOK_CLOCK_MASK) && r->every > 0.5)
		return SHT_OK;
	if (cli_now() - r->last < r->every)
		return SHT_OK;
	pthread_mutex_lock(&r->mu);
	idle = !r->busy && !r->pending;
	pthread_mutex_unlock(&r->mu);
	if (!idle)                       /* the last one is still on its way */
		return SHT_OK;
	err = capture(r, next, events, skipped, &res);
	if (err != SHT_OK)
		return err;
	r->last = cli_now();
	pthread_mutex_lock(&r->mu);
	r->pending = res;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return SHT_OK;
}
