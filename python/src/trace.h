/*
 * trace.h: the traces sht.build reads (trace.c).
 */
#ifndef SHTPY_TRACE_H
#define SHTPY_TRACE_H

#include <time.h>

#include "core.h"

struct shtpy_trace {
	sht_source src;
	int open;
	int vstf;                /* a VSTF file, else a CTF directory */
	uint64_t events;         /* VSTF: events in the file (0: unknown) */
	sht_time span_begin, span_end;   /* CTF: the packet index's span */
};

/* One decoding thread per online CPU (at most 256), as `sht build`. */
uint32_t shtpy_default_jobs(void);

/* 0, or -1 with an exception set.  jobs: a CTF trace's decoding threads
 * (0: on the caller's thread). */
int shtpy_trace_open(const char *path, int merge, uint32_t jobs,
		     struct shtpy_trace *t);
void shtpy_trace_close(struct shtpy_trace *t);

/* An environment entry as text ("" if absent). */
void shtpy_trace_env(const struct shtpy_trace *t, const char *name, char *buf,
		     size_t size);

/* The source's field lister (sht_ctf_event_fields or its VSTF twin). */
sht_err (*shtpy_trace_fields(const struct shtpy_trace *t))(const sht_event *,
							      sht_field_fn, void *);

/* How far a build is, 0 .. 1, from the events read or the time reached;
 * -1 if the trace does not say. */
double shtpy_trace_fraction(const struct shtpy_trace *t, uint64_t events,
			    sht_time ts);

/* The newest modification time of the regular files at or below path
 * (max into *newest); 0, or -1 if something could not be read. */
int shtpy_newest_mtime(const char *path, int depth, struct timespec *newest);

#endif /* SHTPY_TRACE_H */
