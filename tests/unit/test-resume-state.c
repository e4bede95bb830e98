/* sht-test-label: threads
 * test-resume-state.c: resumable builds through the state system and an
 * analysis (sht/resume.h, sht_state_run_hook): a synthetic kernel trace
 * is built straight into a history; the same build captures and commits
 * a resume file at 12 random points (the run hook), keeping a copy of the
 * history file as it was then.  Each point is resumed from its copies (a
 * fresh analysis, the source sought to the next event), run to the end
 * and finished: the file must be the straight build's byte for byte.
 * Cases: the kernel analysis (layout AUTO: the provider's own state
 * matters), full and partial histories, the threaded builder or not; the
 * event statistics.  Also: a resume file of another build, a damaged one
 * and a missing one are refused with the right status.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"
#include <shtgen/kgen.h>

#define NPOINTS 12

static const char *tmp;
static shtgen_kgen_params kp;

struct an {
	sht_kernel *k;
	sht_evstats *s;
	sht_provider p;
};

static int an_make(struct an *a, int stats)
{
	memset(a, 0, sizeof *a);
	if (stats && sht_evstats_create(&a->s) == SHT_OK)
		sht_evstats_provider(a->s, &a->p);
	else if (!stats && sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &a->k) == SHT_OK)
		sht_kernel_provider(a->k, &a->p);
	return a->k || a->s;
}

static void an_free(struct an *a)
{
	sht_kernel_destroy(a->k);
	sht_evstats_destroy(a->s);
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;
	int good = in && out;

	while (good && (n = fread(buf, 1, sizeof buf, in)) > 0)
		good = fwrite(buf, 1, n, out) == n;
	if (in)
		fclose(in);
	if (out && fclose(out) != 0)
		good = 0;
	return good;
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb, ca, cb;

	while (same && ((ca = getc(fa)) != EOF) | ((cb = getc(fb)) != EOF))
		same = ca == cb;
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

struct hook {
	sht_state *ss;
	const sht_provider *p;
	const char *hist;
	uint64_t at[NPOINTS];     /* event counts to stop at, sorted */
	int next;
	uint64_t seen;            /* events so far */
	int failed;
};

/* Capture and commit at each point, copying the history file. */
static sht_err hook_fn(void *ctx, const sht_event *ev, uint64_t events,
		       uint64_t skipped)
{
	struct hook *h = ctx;
	char path[4200];
	sht_resume *r = NULL;
	sht_resume_info info = { ev->pos, ev->ts, { 0 } };

	(void)skipped;
	if (events != ev->pos)
		h->failed = 1;        /* the run's count is the next position */
	while (h->next < NPOINTS && h->at[h->next] <= ev->pos) {
		info.counters[0] = ev->pos;
		snprintf(path, sizeof path, "%s/p%d.resume", tmp, h->next);
		if (sht_resume_capture(h->ss, h->p, "id", 2, &info, &r) != SHT_OK ||
		    sht_resume_commit(r, h->ss, path) != SHT_OK)
			h->failed = 1;
		sht_resume_destroy(r);
		r = NULL;
		snprintf(path, sizeof path, "%s/p%d.sht", tmp, h->next);
		if (!copy_file(h->hist, path))
			h->failed = 1;
		h->next++;
	}
	return SHT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Build into path, straight (h NULL) or with the hook. */
static int build(const char *path, sht_state_opts *so, int stats, struct hook *h)
{
	struct an a;
	sht_source src;
	sht_state *ss = NULL;
	int good = an_make(&a, stats) && shtgen_kgen_source(&kp, &src) == SHT_OK;

	so->provider = a.p.id;
	so->provider_version = a.p.version;
	good = good && sht_state_create(path, kp.start, so, &ss) == SHT_OK;
	if (good && h) {
		h->ss = ss;
		h->p = &a.p;
		h->hist = path;
	}
	good = good && sht_state_run_hook(ss, &src, &a.p, h ? hook_fn : NULL, h,
					  NULL, NULL) == SHT_OK &&
	       sht_state_finish(ss, sht_state_end(ss)) == SHT_OK;
	sht_state_close(ss);
	shtgen_kgen_source_free(&src);
	an_free(&a);
	return good && (!h || !h->failed);
}

/* Resume point k into path and finish it. */
static int resume(int k, const char *path, sht_state_opts *so, int stats)
{
	char rp[4200], hp[4200];
	struct an a;
	sht_source src;
	sht_state *ss = NULL;
	sht_resume *r = NULL;
	sht_resume_info info;
	int good;

	snprintf(rp, sizeof rp, "%s/p%d.resume", tmp, k);
	snprintf(hp, sizeof hp, "%s/p%d.sht", tmp, k);
	good = copy_file(hp, path) && an_make(&a, stats) &&
	       shtgen_kgen_source(&kp, &src) == SHT_OK;
	so->provider = a.p.id;
	so->provider_version = a.p.version;
	good = good && sht_resume_open(rp, "id", 2, &r) == SHT_OK &&
	       sht_resume_start(r, path, so, &a.p, &ss, &info) == SHT_OK &&
	       info.counters[0] == info.pos &&
	       sht_source_seek_at(&src, info.pos, info.ts) == SHT_OK &&
	       sht_state_run(ss, &src, &a.p, NULL, NULL) == SHT_OK &&
	       sht_state_finish(ss, sht_state_end(ss)) == SHT_OK;
	if (!good)
		diag("point %d: %s", k, sht_errmsg());
	sht_state_close(ss);
	sht_resume_destroy(r);
	shtgen_kgen_source_free(&src);
	an_free(&a);
	return good;
}

static void one_case(const char *name, uint64_t partial, int threaded, int stats)
{
	char ref[4200], path[4200];
	sht_state_opts so;
	struct hook h;
	int same = 0;

	sht_state_opts_init(&so);
	so.backend = partial ? SHT_BACKEND_PARTIAL : SHT_BACKEND_TREE;
	so.checkpoint_events = partial;
	so.tree.threaded = threaded;
	so.tree.no_sync = true;
	memset(&h, 0, sizeof h);
	for (int i = 0; i < NPOINTS; i++)
		h.at[i] = i == 0 ? 0 : (uint64_t)rand() % kp.events;
	qsort(h.at, NPOINTS, sizeof h.at[0], cmp_u64);
	snprintf(ref, sizeof ref, "%s/ref.sht", tmp);
	snprintf(path, sizeof path, "%s/hooked.sht", tmp);
	if (!ok(build(ref, &so, stats, NULL), "%s: straight build", name) ||
	    !ok(build(path, &so, stats, &h) && same_file(path, ref),
		"%s: the build that took %d checkpoints is the straight one", name, NPOINTS))
		return;
	for (int k = 0; k < NPOINTS; k++)
		same += resume(k, path, &so, stats) && same_file(path, ref);
	is_int(same, NPOINTS, "%s: every resumed build is the straight one, byte "
	       "for byte", name);
}

static void refusals(void)
{
	char rp[4200], bad[4200];
	sht_resume *r = NULL;
	FILE *f;

	snprintf(rp, sizeof rp, "%s/p3.resume", tmp);
	snprintf(bad, sizeof bad, "%s/bad.resume", tmp);
	is_int(sht_resume_open(rp, "other", 5, &r), SHT_ERR_INVALID,
	       "another build's resume file is refused");
	ok(copy_file(rp, bad) && (f = fopen(bad, "r+b")) != NULL &&
	   fseek(f, 40, SEEK_SET) == 0 && putc('X', f) != EOF && fclose(f) == 0,
	   "a damaged copy");
	is_int(sht_resume_open(bad, "id", 2, &r), SHT_ERR_CORRUPT,
	       "a damaged resume file is refused");
	snprintf(bad, sizeof bad, "%s/none.resume", tmp);
	is_int(sht_resume_open(bad, "id", 2, &r), SHT_NOT_FOUND,
	       "a missing resume file is not found");
}

int main(void)
{
	char tmpl[] = "/tmp/test-resume-state-XXXXXX", cmd[4200];

	tmp = getenv("SHT_TMP");
	if (tmp) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", tmp, tmp);
		if (system(cmd) != 0)
			return 1;
	} else if (!(tmp = mkdtemp(tmpl))) {
		return 1;
	}
	srand(7);
	shtgen_kgen_params_init(&kp);
	kp.events = 60000;
	kp.cpus = 4;
	one_case("kernel, full, one thread", 0, 0, 0);
	one_case("kernel, full, threaded", 0, 1, 0);
	one_case("kernel, partial every 5000", 5000, 1, 0);
	one_case("event statistics, partial every 7000", 7000, 0, 1);
	refusals();
	return done_testing();
}
