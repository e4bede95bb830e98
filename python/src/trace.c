/*
 * trace.c: the traces sht.build reads, as the sht tool does: a directory
 * is a CTF trace (through libbabeltrace2), a file a VSTF trace; their
 * environment (for the kernel analysis's layout), the size of the job
 * (for progress), and the newest file of a trace (to reuse a history).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

uint32_t shtpy_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1u : n > 256 ? 256u : (uint32_t)n;
}

int shtpy_trace_open(const char *path, int merge, uint32_t jobs,
		     struct shtpy_trace *t)
{
	struct stat sb;
	sht_ctf_opts co;
	sht_vstf_info vi;
	sht_err err;

	memset(t, 0, sizeof *t);
	if (stat(path, &sb) != 0) {
		shtpy_raise_os(errno, "Cannot open the trace %s", path);
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		sht_ctf_opts_init(&co);
		co.merge = merge;
		co.jobs = jobs;
		err = sht_ctf_open(path, &co, &t->src);
		if (err != SHT_OK) {
			shtpy_raise_ctx(err, "cannot open the CTF trace %s", path);
			return -1;
		}
		if (sht_ctf_time_span(&t->src, &t->span_begin, &t->span_end) != SHT_OK)
			t->span_begin = t->span_end = 0;
		t->open = 1;
		return 0;
	}
	err = sht_vstf_open(path, &t->src);
	if (err != SHT_OK) {
		shtpy_raise_ctx(err, "cannot open %s (a file is read as VSTF; a CTF "
				"trace is a directory)", path);
		return -1;
	}
	t->vstf = 1;
	t->open = 1;
	if (sht_vstf_info_get(&t->src, &vi) == SHT_OK)
		t->events = vi.events;
	return 0;
}

void shtpy_trace_close(struct shtpy_trace *t)
{
	if (!t->open)
		return;
	if (t->vstf)
		sht_vstf_close(&t->src);
	else
		sht_ctf_close(&t->src);
	t->open = 0;
}

void shtpy_trace_env(const struct shtpy_trace *t, const char *name, char *buf,
		     size_t size)
{
	sht_field f;
	sht_err err = t->vstf ? sht_vstf_env(&t->src, name, &f)
			      : sht_ctf_env(&t->src, name, &f);

	buf[0] = '\0';
	if (err == SHT_OK)
		sht_field_text(&f, buf, size);
}

sht_err (*shtpy_trace_fields(const struct shtpy_trace *t))(const sht_event *,
							      sht_field_fn, void *)
{
	return t->vstf ? sht_vstf_event_fields : sht_ctf_event_fields;
}

double shtpy_trace_fraction(const struct shtpy_trace *t, uint64_t events,
			    sht_time ts)
{
	if (t->events)
		return (double)events / (double)t->events;
	if (t->span_end > t->span_begin && ts >= t->span_begin)
		return (double)(ts - t->span_begin) / (double)(t->span_end - t->span_begin);
	return -1.0;
}

static int later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

int shtpy_newest_mtime(const char *path, int depth, struct timespec *newest)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int status = 0;

	if (depth > 8)
		return 0;
	if (stat(path, &st) != 0)
		return -1;
	if (S_ISREG(st.st_mode)) {
		if (later(&st.st_mtim, newest))
			*newest = st.st_mtim;
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return -1;
	while (status == 0 && (de = readdir(d)) != NULL) {
		size_t len;
		char *sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		len = strlen(path) + strlen(de->d_name) + 2;
		if (!(sub = malloc(len))) {
			status = -1;
			break;
		}
		snprintf(sub, len, "%s/%s", path, de->d_name);
		status = shtpy_newest_mtime(sub, depth + 1, newest);
		free(sub);
	}
	closedir(d);
	return status;
}
