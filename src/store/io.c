/*
 * io.c: the POSIX implementation of the store's I/O table.  Retries on
 * EINTR and on short transfers; reports a short read at end of file as
 * -EIO (the caller names the block).
 */
#include <errno.h>
#include <unistd.h>

#include "store/store-int.h"

static int posix_pread(struct sht__io *io, void *buf, size_t n, uint64_t off)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t r = pread(io->fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int posix_pwrite(struct sht__io *io, const void *buf, size_t n,
			uint64_t off)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t r = pwrite(io->fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int posix_sync(struct sht__io *io)
{
	return fsync(io->fd) ? -errno : 0;
}

void sht__io_posix(struct sht__io *io, int fd)
{
	io->pread = posix_pread;
	io->pwrite = posix_pwrite;
	io->sync = posix_sync;
	io->fd = fd;
}
