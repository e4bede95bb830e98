/*
 * fuzz-rules.c: the rules parsers (XML and native) as a fuzz target.
 *
 * With libFuzzer (cmake -DSHT_FUZZ=ON, clang): LLVMFuzzerTestOneInput
 * compiles each input with sht_rules_parse_native and sht_rules_parse_xml
 * and runs what the XML parser compiles over a few synthetic events; the
 * sanitizers catch the rest.
 *
 *   build/fuzz/fuzz-rules -max_len=65536 CORPUS_DIR examples/rules
 *
 * Without it (every other build), main() is a deterministic smoke run
 * that CTest runs as "fuzz-rules": each seed file given on the command
 * line, then ITER mutations of them (bytes flipped, inserted, deleted,
 * spans copied from another seed), each through the same function.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sht/sht.h"
#include "rng.h"

static long compiled;       /* inputs that compiled (smoke run) */

static const char *const NAMES[] = { "e", "sched_switch", "sys_open", "x" };

static sht_field_type field(const sht_event *ev, const char *name, sht_field *out)
{
	(void)ev;
	if (strcmp(name, "s") == 0) {
		out->type = SHT_FIELD_STRING;
		out->v.s = "text";
	} else {
		out->type = SHT_FIELD_INT;
		out->v.i = (int64_t)(strlen(name) % 3);
	}
	return out->type;
}

struct src {
	size_t pos;
};

static sht_err next(void *s, sht_event *ev)
{
	struct src *p = s;

	if (p->pos >= 16)
		return SHT_END;
	memset(ev, 0, sizeof *ev);
	ev->ts = (sht_time)p->pos * 10;
	ev->pos = p->pos;
	ev->name = NAMES[p->pos % 4];
	ev->cpu = (int32_t)(p->pos % 2);
	ev->field = field;
	p->pos++;
	return SHT_OK;
}

static sht_err seek(void *s, uint64_t pos)
{
	((struct src *)s)->pos = (size_t)pos;
	return SHT_OK;
}

static const sht_source_ops OPS = { next, seek, NULL, NULL, NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sht_rules *r = NULL;
	sht_state *ss = NULL;
	sht_state_opts opts;
	sht_provider p;
	struct src s = { 0 };
	sht_source src = { &OPS, &s };

	/* The same bytes through both front ends. */
	if (sht_rules_parse_native((const char *)data, size, "fuzz.rules", &r) == SHT_OK) {
		compiled++;
		sht_rules_destroy(r);
		r = NULL;
	}
	if (sht_rules_parse_xml((const char *)data, size, "fuzz.xml", NULL, &r) != SHT_OK)
		return 0;
	compiled++;
	sht_state_opts_init(&opts);
	opts.backend = SHT_BACKEND_MEMORY;
	if (sht_state_create(NULL, 0, &opts, &ss) == SHT_OK) {
		sht_rules_provider(r, &p);
		sht_state_run(ss, &src, &p, NULL, NULL);
		sht_state_finish(ss, sht_state_end(ss));
	}
	sht_state_close(ss);
	sht_rules_destroy(r);
	return 0;
}

#ifndef SHT_LIBFUZZER
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc(n ? (size_t)n : 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "fuzz-rules: cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct rng rng = RNG_INIT(0x9E3779B97F4A7C15u);

/* Uniform in [0, n); 0 if n is 0. */
static uint64_t rnd(uint64_t n)
{
	return n ? rng_below(&rng, n) : 0;
}

/* One mutation of seed into out (capacity cap): returns its length. */
static size_t mutate(const char *seed, size_t len, const char *other, size_t olen,
		     char *out, size_t cap)
{
	size_t n = len < cap ? len : cap, at;

	memcpy(out, seed, n);
	for (int k = 0, m = 1 + (int)rnd(4); k < m && n > 0; k++) {
		at = (size_t)rnd(n);
		switch (rnd(4)) {
		case 0:
			out[at] = (char)rnd(256);
			break;
		case 1:
			memmove(out + at, out + at + 1, n - at - 1);
			n--;
			break;
		case 2:
			if (n < cap) {
				memmove(out + at + 1, out + at, n - at);
				out[at] = "<>/=\"$* ab"[rnd(10)];
				n++;
			}
			break;
		default: {
			size_t from = (size_t)rnd(olen), span = (size_t)rnd(64);

			if (from + span > olen)
				span = olen - from;
			if (at + span > cap)
				span = cap - at;
			memcpy(out + at, other + from, span);
			if (at + span > n)
				n = at + span;
		}
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	long iter = 2000;
	int first = 1;
	char **seed;
	size_t *len, cap = 1 << 17;
	char *buf = malloc(cap);

	if (argc > 2 && strcmp(argv[1], "--iter") == 0) {
		iter = strtol(argv[2], NULL, 10);
		first = 3;
	}
	if (first >= argc || !buf) {
		fprintf(stderr, "usage: fuzz-rules [--iter N] SEED.xml...\n");
		return 2;
	}
	seed = calloc((size_t)argc, sizeof *seed);
	len = calloc((size_t)argc, sizeof *len);
	for (int i = first; i < argc; i++) {
		seed[i] = slurp(argv[i], &len[i]);   /* exact size, no NUL */
		LLVMFuzzerTestOneInput((const uint8_t *)seed[i], len[i]);
	}
	for (long k = 0; k < iter; k++) {
		int a = first + (int)rnd((uint64_t)(argc - first));
		int b = first + (int)rnd((uint64_t)(argc - first));
		size_t n = mutate(seed[a], len[a], seed[b], len[b], buf, cap);
		/* An exact-size copy: AddressSanitizer sees a read past its end. */
		char *exact = malloc(n ? n : 1);

		memcpy(exact, buf, n);
		LLVMFuzzerTestOneInput((const uint8_t *)exact, n);
		free(exact);
	}
	printf("1..1\nok 1 - %d seeds and %ld mutations parsed, %ld compiled and run, without a fault\n",
	       argc - first, iter, compiled);
	for (int i = first; i < argc; i++)
		free(seed[i]);
	free(seed);
	free(len);
	free(buf);
	return 0;
}
#endif
