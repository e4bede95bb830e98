/*
 * procmaps.c: procmaps.h.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procmaps.h"

long procmaps_rss_kib(const char *path)
{
	char real[4096], line[4096 + 128];
	long kib = -1;
	int inside = 0;
	FILE *f;

	if (!realpath(path, real) || !(f = fopen("/proc/self/smaps", "r")))
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *name = strchr(line, '/');
		unsigned long lo, hi;
		long v;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {   /* a mapping */
			size_t n = name ? strlen(name) : 0;

			if (n && name[n - 1] == '\n')
				name[n - 1] = 0;
			inside = name && strcmp(name, real) == 0;
		} else if (inside && sscanf(line, "Rss: %ld kB", &v) == 1) {
			kib = (kib < 0 ? 0 : kib) + v;
		}
	}
	fclose(f);
	return kib;
}
