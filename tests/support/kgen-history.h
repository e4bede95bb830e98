/*
 * kgen-history.h: a kernel-analysis history of a synthetic kernel trace
 * (src/gen/kgen.c), built through the state system, for the tests
 * that need a real history file (faults, load); kgen-history.c, in the
 * test-support library.
 */
#ifndef SHT_TEST_KGEN_HISTORY_H
#define SHT_TEST_KGEN_HISTORY_H

#include "sht/sht.h"
#include <shtgen/kgen.h>

/* Generate kp's trace and write its kernel-analysis history at path with
 * the options so (provider id and version are set here).  SHT_OK, or the
 * first error; the file is finished only on SHT_OK. */
sht_err kgen_history(const shtgen_kgen_params *kp, sht_state_opts *so,
		     const char *path);

#endif
