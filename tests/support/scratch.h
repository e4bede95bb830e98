/*
 * scratch.h: the scratch directory of a test program (scratch.c, in the
 * test-support library).
 *
 *   scratch_init("tree")   SHT_TMP (CTest empties it before each test), or
 *                          a fresh /tmp/sht-tree-XXXXXX, removed by
 *                          scratch_done() if empty
 *   scratch_path(buf, n, "x")   a fresh name in it: DIR/x-K.sht
 */
#ifndef SHT_TEST_SCRATCH_H
#define SHT_TEST_SCRATCH_H

#include <stddef.h>

/* 0, or -1 (and a message on stderr) if no directory could be made. */
int scratch_init(const char *tag);

/* The directory (after scratch_init). */
const char *scratch_dir(void);

/* A fresh file name in the directory; aborts if it does not fit in n. */
void scratch_path(char *buf, size_t n, const char *name);

void scratch_done(void);

#endif /* SHT_TEST_SCRATCH_H */
