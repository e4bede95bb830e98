/*
 * procmaps.h: what of a file this process keeps mapped (procmaps.c, in
 * the test-support library), for the tests of readers that map files.
 */
#ifndef SHT_TEST_PROCMAPS_H
#define SHT_TEST_PROCMAPS_H

/* Resident KiB of this process's mappings of path (the Rss lines of
 * /proc/self/smaps, summed over the mappings of that file, symlinks
 * resolved); -1 if it has no mapping of it or smaps cannot be read. */
long procmaps_rss_kib(const char *path);

#endif /* SHT_TEST_PROCMAPS_H */
