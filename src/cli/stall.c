/*
 * stall.c: the trace-reading watchdog of stall.h, on SIGALRM, and the
 * same for SIGABRT (babeltrace2 2.0.4 asserts, and aborts, on some
 * corrupt streams: docs/RELIABILITY.md §5): each handler only writes a
 * message prepared when armed, unlinks the partial output and calls
 * _exit (all async-signal-safe).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stall.h"

static unsigned stall_secs;
static int stall_armed;
static char stall_msg[1024], abort_msg[1024];
static size_t stall_len, abort_len;
static char stall_tmp[4096];

static void stall_fire(int sig)
{
	ssize_t w;

	if (sig == SIGABRT)
		w = write(STDERR_FILENO, abort_msg, abort_len);
	else
		w = write(STDERR_FILENO, stall_msg, stall_len);
	(void)w;
	if (stall_tmp[0])
		unlink(stall_tmp);
	_exit(1);
}

void cli_stall_output(const char *tmp)
{
	/* Filled before the alarm can read it: the alarm is re-armed. */
	alarm(0);
	stall_tmp[0] = '\0';
	if (tmp && strlen(tmp) < sizeof stall_tmp)
		memcpy(stall_tmp, tmp, strlen(tmp) + 1);
	cli_stall_progress();
}

static size_t msg_len(int n, size_t size)
{
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void cli_stall_arm(const char *trace, const char *tmp)
{
	const char *env = getenv("SHT_STALL_SECONDS");
	struct sigaction sa;
	int n;

	stall_secs = 60;
	if (env && *env)
		stall_secs = (unsigned)strtoul(env, NULL, 10);
	n = snprintf(stall_msg, sizeof stall_msg, "sht: cannot read %s: the "
		     "trace reader made no progress for %u s (a corrupt trace "
		     "it cannot get past?); stopped (SHT_STALL_SECONDS sets "
		     "the limit)\n", trace, stall_secs);
	stall_len = msg_len(n, sizeof stall_msg);
	n = snprintf(abort_msg, sizeof abort_msg, "sht: cannot read %s: the "
		     "process aborted while reading it (babeltrace2 asserts "
		     "on some corrupt traces: its message is above); "
		     "stopped\n", trace);
	abort_len = msg_len(n, sizeof abort_msg);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = stall_fire;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGABRT, &sa, NULL);
	if (stall_secs)
		sigaction(SIGALRM, &sa, NULL);
	stall_armed = 1;
	cli_stall_output(tmp);
}

void cli_stall_progress(void)
{
	if (stall_secs)
		alarm(stall_secs);
}

void cli_stall_disarm(void)
{
	if (stall_secs)
		alarm(0);
	stall_secs = 0;
	if (stall_armed)
		signal(SIGABRT, SIG_DFL);
	stall_armed = 0;
}
