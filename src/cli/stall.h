/*
 * stall.h: a watchdog for commands that read a trace (sht build).  A
 * corrupt CTF stream can make babeltrace2 loop forever (e.g. a packet
 * whose packet_size is 0: docs/RELIABILITY.md §5); the command must not
 * hang with it.  While armed, a trace that delivers no event for the
 * limit (SHT_STALL_SECONDS, default 60; 0 turns the watchdog off) ends
 * the process: a message naming the trace, the removal of the partial
 * output file, exit status 1.  An abort while armed (babeltrace2's own
 * assertions on some corrupt streams) ends it the same way.
 */
#ifndef SHT_CLI_STALL_H
#define SHT_CLI_STALL_H

/* Arm the watchdog for reading trace; tmp (may be NULL) is removed if it
 * fires.  Both strings are copied. */
void cli_stall_arm(const char *trace, const char *tmp);
/* Set or clear the file removed if it fires. */
void cli_stall_output(const char *tmp);
/* The limit starts again (progress was made): the CLI's progress source
 * (progress.c) calls it every 1024 events and at every seek; a no-op
 * while disarmed. */
void cli_stall_progress(void);
/* Disarm. */
void cli_stall_disarm(void);

#endif /* SHT_CLI_STALL_H */
