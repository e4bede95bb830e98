/*
 * fuzz-memfd.h: the file-shaped fuzz targets' input as a file.  The first
 * byte of the input is a flag (bit 0: recompute the checksums, so that
 * mutations reach past them), the rest is the file, written into an
 * anonymous memory file whose /proc/self/fd path the library opens.
 * Define FUZZ_NAME before including it.
 */
#ifndef SHT_FUZZ_MEMFD_H
#define SHT_FUZZ_MEMFD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The file of data[1..size) (checksums fixed by fix when data[0] & 1) as
 * an open memfd, its path in path; -1 when there is no input or no
 * memory.  The caller closes the descriptor. */
static int fuzz_memfd(const uint8_t *data, size_t size, size_t max,
		      void (*fix)(uint8_t *, size_t), char *path, size_t cap)
{
	uint8_t *f;
	int fd;

	if (size < 1 || size > max || !(f = malloc(size)))
		return -1;
	memcpy(f, data + 1, size - 1);
	if (data[0] & 1)
		fix(f, size - 1);
	fd = memfd_create(FUZZ_NAME, 0);
	if (fd < 0 || write(fd, f, size - 1) != (ssize_t)(size - 1)) {
		perror(FUZZ_NAME ": memfd");
		abort();
	}
	free(f);
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
