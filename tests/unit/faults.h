/*
 * faults.h: fault injection under the library, for tests/unit/test-faults*.c.
 *
 * CMake links those tests with the linker's --wrap for pread, pwrite,
 * fsync, malloc, calloc, realloc, free and strdup: every call the library
 * (libsht.a, linked into the test) and the test make to one of them comes
 * here first.  The library itself is unchanged (no hook, no cost): the
 * store's POSIX I/O table (src/store/io.c) calls pread/pwrite/fsync, and
 * every allocation of our code is a malloc/calloc/realloc/strdup.
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

static const char *const flt_op_name[FLT_NOPS] = {
	"pread", "pwrite", "fsync", "alloc"
};

static _Atomic int flt_armed;
static struct flt_plan flt_cur;
static _Atomic uint64_t flt_count[FLT_NOPS];
static _Atomic uint64_t flt_fired;
static _Atomic int flt_short_pending;   /* the next pwrite/pread fails */
static _Atomic long flt_live;
static _Thread_local int flt_self;      /* the test's own calls: exempt */
static _Atomic int64_t flt_flip_bit = -1; /* >= 0: bit of the file flipped
					     in every pread that covers it */

ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
int __real_fsync(int fd);
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
int __wrap_fsync(int fd);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);

/* Start counting (and failing, per plan; op -1 only counts). */
static inline void flt_arm(const struct flt_plan *p)
{
	for (int i = 0; i < FLT_NOPS; i++)
		atomic_store(&flt_count[i], 0);
	atomic_store(&flt_fired, 0);
	atomic_store(&flt_short_pending, 0);
	flt_cur = *p;
	atomic_store(&flt_armed, 1);
}

static inline void flt_disarm(void)
{
	atomic_store(&flt_armed, 0);
	atomic_store(&flt_short_pending, 0);
}

static inline uint64_t flt_calls(int op)
{
	return atomic_load(&flt_count[op]);
}

/* Does this call of op fail? */
static inline int flt_hit(int op)
{
	uint64_t n;

	if (flt_self || !atomic_load_explicit(&flt_armed, memory_order_acquire))
		return 0;
	n = atomic_fetch_add(&flt_count[op], 1) + 1;
	if (op != flt_cur.op)
		return 0;
	if (n == flt_cur.nth || (flt_cur.sticky && n > flt_cur.nth)) {
		atomic_fetch_add(&flt_fired, 1);
		return 1;
	}
	return 0;
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r;

	if (atomic_exchange(&flt_short_pending, 0))
		return 0;               /* end of file after a short read */
	if (!flt_hit(FLT_PREAD)) {
		int64_t fb = atomic_load(&flt_flip_bit);

		r = __real_pread(fd, buf, n, off);
		if (fb >= 0 && r > 0 && fb / 8 >= off && fb / 8 < off + r)
			((unsigned char *)buf)[fb / 8 - off] ^=
				(unsigned char)(1u << (fb % 8));
		return r;
	}
	if (flt_cur.mode == FLT_ERRNO) {
		errno = flt_cur.err;
		return -1;
	}
	if (flt_cur.mode == FLT_SHORT && n > 1) {
		atomic_store(&flt_short_pending, 1);
		return __real_pread(fd, buf, n / 2, off);
	}
	r = __real_pread(fd, buf, n, off);
	if (r > 0) {                    /* FLT_FLIP: one bit, spread around */
		uint64_t bit = (flt_cur.nth * 2654435761u) % ((uint64_t)r * 8);

		((unsigned char *)buf)[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	return r;
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (atomic_exchange(&flt_short_pending, 0)) {
		errno = ENOSPC;
		return -1;
	}
	if (!flt_hit(FLT_PWRITE))
		return __real_pwrite(fd, buf, n, off);
	if (flt_cur.mode == FLT_SHORT && n > 1) {
		atomic_store(&flt_short_pending, 1);
		return __real_pwrite(fd, buf, n / 2, off);
	}
	errno = flt_cur.mode == FLT_SHORT ? ENOSPC : flt_cur.err;
	return -1;
}

int __wrap_fsync(int fd)
{
	if (!flt_hit(FLT_SYNC))
		return __real_fsync(fd);
	errno = EIO;
	return -1;
}

void *__wrap_malloc(size_t n)
{
	void *p;

	if (flt_hit(FLT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_malloc(n);
	if (p)
		atomic_fetch_add(&flt_live, 1);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (flt_hit(FLT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	p = __real_calloc(n, size);
	if (p)
		atomic_fetch_add(&flt_live, 1);
	return p;
}

void *__wrap_realloc(void *p, size_t n)
{
	void *q;

	if (flt_hit(FLT_ALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	q = __real_realloc(p, n);
	if (q && !p)
		atomic_fetch_add(&flt_live, 1);
	return q;
}

void __wrap_free(void *p)
{
	if (p)
		atomic_fetch_sub(&flt_live, 1);
	__real_free(p);
}

char *__wrap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = __wrap_malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static inline long flt_live_now(void)
{
	return atomic_load(&flt_live);
}

/* A kind of fault the tests inject at every point in turn. */
struct flt_fault {
	int op, err, fmode, sticky;
	const char *what;
};

/* The faults of a reader: failed, short and corrupted reads, and
 * failed allocations (test-faults-query, test-faults-state); *n is set
 * to their number. */
static inline const struct flt_fault *flt_read_modes(size_t *n)
{
	static const struct flt_fault modes[] = {
		{ FLT_PREAD, EIO, FLT_ERRNO, 0, "pread EIO" },
		{ FLT_PREAD, EIO, FLT_ERRNO, 1, "pread EIO, sticky" },
		{ FLT_PREAD, 0, FLT_SHORT, 0, "pread short" },
		{ FLT_PREAD, 0, FLT_FLIP, 0, "pread flipped bit" },
		{ FLT_ALLOC, ENOMEM, FLT_ERRNO, 0, "alloc NULL" },
		{ FLT_ALLOC, ENOMEM, FLT_ERRNO, 1, "alloc NULL, sticky" },
	};

	*n = sizeof modes / sizeof modes[0];
	return modes;
}

/* The ith of k points spread evenly over 1..count (first and last
 * included); every point when k >= count. */
static inline uint64_t flt_point(uint64_t i, uint64_t k, uint64_t count)
{
	if (k >= count)
		return i + 1;
	return 1 + (k > 1 ? i * (count - 1) / (k - 1) : 0);
}

#endif /* SHT_TEST_FAULTS_H */
