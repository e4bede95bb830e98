/*
 * faults.h: fault injection under the library, for tests/unit/test-faults*.c
 * (faults.c, in the test-support library).
 *
 * CMake links those tests with the linker's --wrap for pread, pwrite,
 * fsync, malloc, calloc, realloc, free and strdup: every call the library
 * (libsht.a, linked into the test) and the test make to one of them comes
 * here first.  The library itself is unchanged (no hook, no cost): the
 * store's transfers (src/store/io.c) call pread/pwrite/fsync, and every
 * allocation of our code is a malloc/calloc/realloc/strdup.
 * Allocations inside shared libraries (libc's own, babeltrace2, glib) are
 * not seen.
 *
 * A plan makes the nth call (counted from flt_arm) of one kind fail:
 *   FLT_PWRITE  errno (ENOSPC, EIO), or a short write: half the bytes are
 *               written and the call returns their count, and the retry
 *               of the rest fails with ENOSPC (a disk that just filled);
 *   FLT_PREAD   errno EIO, a short read (half, then end of file), or a
 *               flipped bit in the bytes returned (a bad sector);
 *   FLT_SYNC    errno EIO;
 *   FLT_ALLOC   NULL (ENOMEM).
 * sticky: every later call of that kind fails too (the disk stays full).
 * flt_live counts allocations minus frees of wrapped code: equal before
 * and after a window in which everything allocated is freed, else a leak
 * (the ASan build's leak checker sees it too; this also works in release).
 * flt_flip_bit >= 0 flips that bit of the file in every pread covering it
 * (a damaged disk sector, seen the same way by every read).
 * flt_self (per thread) exempts the test's own calls, e.g. the oracle's.
 * Counters are atomic: the builder's pipeline threads do I/O.
 */
#ifndef SHT_TEST_FAULTS_H
#define SHT_TEST_FAULTS_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

enum flt_op { FLT_PREAD, FLT_PWRITE, FLT_SYNC, FLT_ALLOC, FLT_NOPS };
enum flt_mode { FLT_ERRNO, FLT_SHORT, FLT_FLIP };

struct flt_plan {
	int op;                 /* enum flt_op, or -1: count only */
	uint64_t nth;           /* 1-based */
	int err;                /* FLT_ERRNO: the errno */
	int mode;               /* enum flt_mode */
	int sticky;
};

extern const char *const flt_op_name[FLT_NOPS];   /* "pread", ... */
extern _Atomic uint64_t flt_fired;     /* failures injected since flt_arm */
extern _Thread_local int flt_self;     /* the test's own calls: exempt */
extern _Atomic int64_t flt_flip_bit;   /* >= 0: bit of the file flipped
					  in every pread that covers it */

/* Start counting (and failing, per plan; op -1 only counts). */
void flt_arm(const struct flt_plan *p);

void flt_disarm(void);

/* Calls of op since flt_arm. */
uint64_t flt_calls(int op);

/* Allocations minus frees of wrapped code so far. */
long flt_live_now(void);

/* A kind of fault the tests inject at every point in turn. */
struct flt_fault {
	int op, err, fmode, sticky;
	const char *what;
};

/* The faults of a reader: failed, short and corrupted reads, and
 * failed allocations (test-faults-query, test-faults-state); *n is set
 * to their number. */
const struct flt_fault *flt_read_modes(size_t *n);

/* The ith of k points spread evenly over 1..count (first and last
 * included); every point when k >= count. */
uint64_t flt_point(uint64_t i, uint64_t k, uint64_t count);

#endif /* SHT_TEST_FAULTS_H */
