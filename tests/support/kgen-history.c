/*
 * kgen-history.c: the kernel-analysis history of kgen-history.h.
 */
#include "kgen-history.h"

sht_err kgen_history(const shtgen_kgen_params *kp, sht_state_opts *so,
		     const char *path)
{
	sht_state *ss = NULL;
	sht_kernel *k = NULL;
	sht_source src;
	sht_provider p;
	sht_err err = shtgen_kgen_source(kp, &src);

	if (err != SHT_OK)
		return err;
	err = sht_kernel_create(SHT_KERNEL_LAYOUT_AUTO, &k);
	if (err == SHT_OK) {
		sht_kernel_provider(k, &p);
		so->provider = p.id;
		so->provider_version = p.version;
		err = sht_state_create(path, kp->start, so, &ss);
	}
	if (err == SHT_OK)
		err = sht_state_run(ss, &src, &p, NULL, NULL);
	if (err >= 0)
		err = sht_state_finish(ss, sht_state_end(ss));
	sht_state_close(ss);
	sht_kernel_destroy(k);
	shtgen_kgen_source_free(&src);
	return err < 0 ? err : SHT_OK;
}
