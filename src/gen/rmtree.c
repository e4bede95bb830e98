/*
 * rmtree.c: removing a directory tree (the generator's scratch traces,
 * the demo's temporary directory).
 */
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include <shtgen/kgen.h>

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int shtgen_rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
