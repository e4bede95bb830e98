/*
 * faults.c: the wrapped calls and the fault plans of faults.h.  Linked
 * only into the programs that reference flt_* (the test-faults-* tests,
 * linked with --wrap): its __wrap_* need the linker's __real_*.
 */
#include "faults.h"

const char *const flt_op_name[FLT_NOPS] = {
	"pread", "pwrite", "fsync", "alloc"
};

static _Atomic int flt_armed;
static struct flt_plan flt_cur;
static _Atomic uint64_t flt_count[FLT_NOPS];
_Atomic uint64_t flt_fired;
static _Atomic int flt_short_pending;   /* the next pwrite/pread fails */
static _Atomic long flt_live;
_Thread_local int flt_self;
_Atomic int64_t flt_flip_bit = -1;

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

void flt_arm(const struct flt_plan *p)
{
	for (int i = 0; i < FLT_NOPS; i++)
		atomic_store(&flt_count[i], 0);
	atomic_store(&flt_fired, 0);
	atomic_store(&flt_short_pending, 0);
	flt_cur = *p;
	atomic_store(&flt_armed, 1);
}

void flt_disarm(void)
{
	atomic_store(&flt_armed, 0);
	atomic_store(&flt_short_pending, 0);
}

uint64_t flt_calls(int op)
{
	return atomic_load(&flt_count[op]);
}

/* Does this call of op fail? */
static int flt_hit(int op)
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

long flt_live_now(void)
{
	return atomic_load(&flt_live);
}

const struct flt_fault *flt_read_modes(size_t *n)
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

uint64_t flt_point(uint64_t i, uint64_t k, uint64_t count)
{
	if (k >= count)
		return i + 1;
	return 1 + (k > 1 ? i * (count - 1) / (k - 1) : 0);
}
