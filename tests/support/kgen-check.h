/*
 * kgen-check.h: checks shared by the generator's tests (test-kgen.c,
 * test-kgen-ctf.c): a trace read back equals the generator's events, and
 * the kernel analysis over any source of them writes the same file;
 * kgen-check.c, in the test-support library.
 */
#ifndef SHT_KGEN_CHECK_H
#define SHT_KGEN_CHECK_H

#include <stdint.h>

#include "sht/sht.h"
#include <shtgen/kgen.h>

/* Every event of file equals the generator's with the parameters p (TAP
 * checks named after what). */
void compare_to_source(const char *what, sht_source *file,
		       const shtgen_kgen_params *p);

/* The kernel analysis of src (read from its start) written to the
 * history file; *attrs: its attribute count.  SHT_OK or the error. */
int analyse(sht_source *src, const char *file, uint64_t *attrs);

/* 1 if the files a and b have the same bytes. */
int same_file(const char *a, const char *b);

#endif /* SHT_KGEN_CHECK_H */
