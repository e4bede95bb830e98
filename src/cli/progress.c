/*
 * progress.c: the progress line of long commands (sht build): a source
 * that passes the trace's events on, counts them, and at most five times
 * a second rewrites one line on stderr:
 *
 *   building: 42.0 %, 1234567 events, 1.15 M events/s, 3.1 s, 4.3 s left
 *
 * The percent comes from cli_trace_fraction (VSTF: events; CTF: time over
 * the packet index's span); without it the line shows the trace time
 * reached instead of a percent and what is left.
 */
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "stall.h"

void cli_progress_init(struct cli_progress *p, cli_trace *t, const char *verb,
		       int show)
{
	memset(p, 0, sizeof(*p));
	p->trace = t;
	p->verb = verb;
	p->show = show;
}

void cli_progress_start(struct cli_progress *p)
{
	p->t0 = p->last = cli_now();
}

static void print_rate(double rate)
{
	if (rate >= 1e6)
		fprintf(stderr, "%.2f M events/s", rate * 1e-6);
	else
		fprintf(stderr, "%.0f events/s", rate);
}

static void progress_print(struct cli_progress *p, sht_time ts, double now)
{
	double dt = now - p->t0;
	double rate = dt > 0 ? (double)p->events / dt : 0;
	double f = cli_trace_fraction(p->trace, p->events, ts);

	fprintf(stderr, "\r%s: ", p->verb);
	if (f >= 0)
		fprintf(stderr, "%5.1f %%, ", 100.0 * f);
	fprintf(stderr, "%" PRIu64 " events, ", p->events);
	print_rate(rate);
	fprintf(stderr, ", %.1f s", dt);
	if (f > 0.001)
		fprintf(stderr, ", %.1f s left", dt * (1.0 - f) / f);
	else if (f < 0)
		fprintf(stderr, ", %.3f s of trace",
			ts > p->first_ts ? (double)(ts - p->first_ts) * 1e-9
					 : 0.0);
	fputs("   ", stderr);
	fflush(stderr);
	p->printed = 1;
	p->last = now;
}

void cli_progress_clear(struct cli_progress *p)
{
	if (!p->printed)
		return;
	fprintf(stderr, "\r%*s\r", 79, "");
	fflush(stderr);
	p->printed = 0;
}

static sht_err progress_next(void *s, sht_event *ev)
{
	struct cli_progress *p = s;
	sht_source *in = &p->trace->src;
	sht_err err = in->ops->next(in->src, ev);
	double now;

	if (err != SHT_OK)
		return err;
	p->last_ts = ev->ts;
	if (p->events++ == 0 && p->first_ts == 0)
		p->first_ts = ev->ts;    /* the caller did not read it first */
	if ((p->events & 1023u) == 0)
		cli_stall_progress();    /* the watchdog, when armed */
	if (p->show && (p->events & 4095u) == 0) {
		now = cli_now();
		if (now - p->last >= 0.2)
			progress_print(p, ev->ts, now);
	}
	return SHT_OK;
}

static sht_err progress_seek(void *s, uint64_t pos)
{
	struct cli_progress *p = s;

	cli_stall_progress();
	return p->trace->src.ops->seek(p->trace->src.src, pos);
}

static sht_err progress_seek_at(void *s, uint64_t pos, sht_time ts)
{
	struct cli_progress *p = s;

	cli_stall_progress();
	return sht_source_seek_at(&p->trace->src, pos, ts);
}

static void progress_stats_op(void *s, sht_source_stats *out)
{
	cli_progress_stats(s, out);
}

static const sht_source_ops progress_ops = {
	progress_next, progress_seek, progress_stats_op, progress_seek_at, NULL
};

void cli_progress_source(struct cli_progress *p, sht_source *out)
{
	out->ops = &progress_ops;
	out->src = p;
}

void cli_progress_stats(struct cli_progress *p, sht_source_stats *out)
{
	sht_source *in = &p->trace->src;

	if (in->ops->stats) {
		in->ops->stats(in->src, out);
	} else {
		memset(out, 0, sizeof(*out));
		out->events = p->events;
	}
}
