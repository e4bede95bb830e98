/*
 * fuzz-main.h: the deterministic smoke driver shared by the fuzz targets
 * over binary inputs (fuzz-history, fuzz-vstf, fuzz-ctf).  Include it
 * once, after defining LLVMFuzzerTestOneInput and FUZZ_NAME.
 *
 * With libFuzzer (SHT_LIBFUZZER) it is empty: libFuzzer has its main().
 * Otherwise main() is what CTest runs:
 *
 *   fuzz-X [--iter N] SEED...
 *
 * Each SEED is a file or a directory (every regular file in it, sorted);
 * every seed goes through LLVMFuzzerTestOneInput as it is, then N
 * mutations of them (1 to 4 edits each: a byte set to a random or a
 * boundary value, a byte deleted or inserted, a span copied from another
 * seed, a cut of the tail), each in a buffer of its exact size so that
 * AddressSanitizer sees any read past its end.  The random sequence is
 * fixed: a failure repeats.  FUZZ_ITER_CAP bounds N (slow targets).
 */
#ifndef SHT_FUZZ_MAIN_H
#define SHT_FUZZ_MAIN_H

#ifndef SHT_LIBFUZZER
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rng.h"

struct fuzz_seed {
	uint8_t *data;
	size_t len;
};

static struct fuzz_seed *fuzz_seeds;
static size_t fuzz_n_seeds, fuzz_cap_seeds;

static void fuzz_add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc(n ? (size_t)n : 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, FUZZ_NAME ": cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	if (fuzz_n_seeds == fuzz_cap_seeds) {
		fuzz_cap_seeds = fuzz_cap_seeds ? 2 * fuzz_cap_seeds : 16;
		fuzz_seeds = realloc(fuzz_seeds, fuzz_cap_seeds * sizeof *fuzz_seeds);
		if (!fuzz_seeds)
			exit(1);
	}
	fuzz_seeds[fuzz_n_seeds].data = buf;
	fuzz_seeds[fuzz_n_seeds++].len = (size_t)n;
}

static int fuzz_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fuzz_add(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	DIR *d;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fuzz_add_file(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		size_t len = strlen(path) + strlen(de->d_name) + 2;
		char *p = malloc(len);

		snprintf(p, len, "%s/%s", path, de->d_name);
		if (de->d_name[0] == '.' || stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		names = realloc(names, (n + 1) * sizeof *names);
		names[n++] = p;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, fuzz_cmp);
	for (size_t i = 0; i < n; i++) {
		fuzz_add_file(names[i]);
		free(names[i]);
	}
	free(names);
}

static struct rng fuzz_rng = RNG_INIT(0x9E3779B97F4A7C15u);

/* Uniform in [0, n); 0 if n is 0. */
static uint64_t fuzz_rnd(uint64_t n)
{
	return n ? rng_below(&fuzz_rng, n) : 0;
}

/* One edit of out[0..*n) (capacity cap), with other as a donor. */
static void fuzz_edit(uint8_t *out, size_t *n, size_t cap,
		      const struct fuzz_seed *other)
{
	static const uint8_t special[] = { 0, 1, 0x7f, 0x80, 0xff, 0xfe };
	size_t at = (size_t)fuzz_rnd(*n);

	switch (fuzz_rnd(6)) {
	case 0:
		out[at] = (uint8_t)fuzz_rnd(256);
		break;
	case 1:
		out[at] = special[fuzz_rnd(sizeof special)];
		break;
	case 2:
		memmove(out + at, out + at + 1, *n - at - 1);
		(*n)--;
		break;
	case 3:
		if (*n < cap) {
			memmove(out + at + 1, out + at, *n - at);
			out[at] = (uint8_t)fuzz_rnd(256);
			(*n)++;
		}
		break;
	case 4: {
		size_t from = (size_t)fuzz_rnd(other->len), span = (size_t)fuzz_rnd(64);

		if (from + span > other->len)
			span = other->len - from;
		if (at + span > cap)
			span = cap - at;
		memcpy(out + at, other->data + from, span);
		if (at + span > *n)
			*n = at + span;
		break;
	}
	default:
		*n = at + 1;   /* truncated */
		break;
	}
}

int main(int argc, char **argv)
{
	long iter = 1000;
	int first = 1;
	size_t cap = 0;

	if (argc > 2 && strcmp(argv[1], "--iter") == 0) {
		iter = strtol(argv[2], NULL, 10);
		first = 3;
	}
#ifdef FUZZ_ITER_CAP
	if (iter > FUZZ_ITER_CAP)
		iter = FUZZ_ITER_CAP;
#endif
	for (int i = first; i < argc; i++)
		fuzz_add(argv[i]);
	if (!fuzz_n_seeds) {
		fprintf(stderr, "usage: " FUZZ_NAME " [--iter N] SEED_FILE_OR_DIR...\n");
		return 2;
	}
	for (size_t i = 0; i < fuzz_n_seeds; i++) {
		LLVMFuzzerTestOneInput(fuzz_seeds[i].data, fuzz_seeds[i].len);
		if (fuzz_seeds[i].len + 64 > cap)
			cap = fuzz_seeds[i].len + 64;
	}
	uint8_t *buf = malloc(cap);
	for (long k = 0; k < iter && buf; k++) {
		const struct fuzz_seed *a = &fuzz_seeds[fuzz_rnd(fuzz_n_seeds)];
		const struct fuzz_seed *b = &fuzz_seeds[fuzz_rnd(fuzz_n_seeds)];
		size_t n = a->len;

		memcpy(buf, a->data, n);
		for (int e = 0, m = 1 + (int)fuzz_rnd(4); e < m && n > 0; e++)
			fuzz_edit(buf, &n, cap, b);
		uint8_t *exact = malloc(n ? n : 1);
		memcpy(exact, buf, n);
		LLVMFuzzerTestOneInput(exact, n);
		free(exact);
	}
	printf("1..1\nok 1 - %zu seeds and %ld mutations through " FUZZ_NAME
	       " without a fault\n", fuzz_n_seeds, iter);
	for (size_t i = 0; i < fuzz_n_seeds; i++)
		free(fuzz_seeds[i].data);
	free(fuzz_seeds);
	free(buf);
	return 0;
}
#endif /* !SHT_LIBFUZZER */

#endif /* SHT_FUZZ_MAIN_H */
