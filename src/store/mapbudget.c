/*
 * mapbudget.c: a bound on the bytes a mapped reader keeps mapped
 * (sht_reader_opts.map_budget, docs/LIBRARY.md).
 *
 * A mapped reader uses its blocks where the file's pages lie; each page
 * a query touches stays mapped in the process (RssFile) until
 * sht_reader_release_pages.  On a fault the kernel maps every cached page
 * of the aligned 64 KiB window around it, and the reader places blocks on
 * window boundaries (reader.c, aligned_spot), so a query maps a whole
 * window per block it reads: a whole-trace 2D query of a 2 GB trace
 * maps ~2 800 windows of 64 KiB (176 MiB).
 *
 * With a budget, the reader counts the windows its queries used in the
 * map since the last release (a bit per window).  Once the count reaches
 * the budget, a block whose window is not counted is read with pread into
 * an entry of the fetching query's own, freed at its release (cache.c,
 * fetch_copy): it is never mapped.  Core nodes are counted and mapped
 * whatever the count (from their second fetch when the first was a copy:
 * a block's level is known once read), since every query goes down
 * through them.  So the windows kept are the first ones the queries used
 * after a release, and a query repeated over the same blocks (the same
 * screen again, or another screen at the same times) finds them mapped
 * and copies only the leaves past the budget: no thrashing, whatever the
 * order of the scan.  The mapped bytes stay within the budget plus the
 * core nodes past it (and a window or two per thread racing at the
 * bound).
 *
 * Why a copy rather than mapping the block and giving it back
 * (MADV_DONTNEED after use): measured on the server's 2-thread queries,
 * a fault that maps a window again and its madvise cost 15-20 us per
 * block, most of it the TLB flush sent to the other CPU running a thread
 * of the process; a pread of 64 KiB from the page cache costs about 10
 * and touches no page table.
 *
 * The counts are kept exact (a window's bit is set and counted once);
 * sht_reader_release_pages clears the bits before its madvise, so a
 * window used in between is counted though given back (the count errs
 * high, never low).
 */
#include <stdlib.h>

#include "store/store-int.h"

sht_err sht__map_budget_init(struct sht__store *st, uint64_t budget,
			     uint32_t window)
{
	uint64_t windows = st->map_len / window + 1;

	st->touched = calloc(windows / 64 + 1, sizeof *st->touched);
	if (!st->touched)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate the map's budget table");
	st->window = window;
	st->budget_windows = budget / window ? budget / window : 1;
	atomic_store(&st->ntouched, 0);
	return SHT_OK;
}

void sht__map_budget_free(struct sht__store *st)
{
	free((void *)(uintptr_t)st->touched);
	st->touched = NULL;
}

static void count(struct sht__store *st, _Atomic uint64_t *word, uint64_t bit)
{
	if (!(atomic_fetch_or_explicit(word, bit, memory_order_relaxed) & bit))
		atomic_fetch_add_explicit(&st->ntouched, 1, memory_order_relaxed);
}

int sht__map_keep(struct sht__store *st, uint64_t blk,
		  const struct sht__centry *e)
{
	uint64_t w = blk * st->geom.block_size / st->window;
	_Atomic uint64_t *word = &st->touched[w >> 6];
	uint64_t bit = UINT64_C(1) << (w & 63);

	if (atomic_load_explicit(word, memory_order_relaxed) & bit)
		return 1;                       /* counted */
	if ((!e || e->node.level == 0) &&
	    atomic_load_explicit(&st->ntouched, memory_order_relaxed) >=
	    st->budget_windows)
		return 0;                       /* past the budget */
	count(st, word, bit);
	return 1;
}

void sht__map_copied(struct sht__store *st, uint64_t blk,
		     const struct sht__centry *e)
{
	uint64_t w = blk * st->geom.block_size / st->window;

	if (e->node.level > 0)
		count(st, &st->touched[w >> 6], UINT64_C(1) << (w & 63));
}

void sht__map_forget(struct sht__store *st)
{
	uint64_t words = (st->map_len / st->window + 1) / 64 + 1;

	for (uint64_t i = 0; i < words; i++) {
		uint64_t b = atomic_exchange_explicit(&st->touched[i], 0,
						      memory_order_relaxed);

		if (b)
			atomic_fetch_sub_explicit(&st->ntouched,
						  (uint64_t)__builtin_popcountll(b),
						  memory_order_relaxed);
	}
}
