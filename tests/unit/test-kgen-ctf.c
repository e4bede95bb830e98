/*
 * test-kgen-ctf.c: synthetic kernel traces written as CTF (through
 * src/gen/include/shtgen/ctfw.h) and read back through libbabeltrace2: the events are
 * the generator's, event for event; the environment selects the LTTng
 * 2.9+ layout; the kernel analysis over the CTF trace writes the same
 * history file as over the generator itself; the babeltrace2 command
 * line reads the trace too.  (The kernel analysis's values on such a
 * trace are checked against the trace itself in test-kernel-traces.)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "sht/analysis.h"
#include "sht/trace.h"
#include "tap.h"
#include "gen/kgen-int.h"

#include "kgen-check.h"

static char tmpdir[2048];

static void env_is(sht_source *src, const char *name, const char *want)
{
	sht_field f;

	ok(sht_ctf_env(src, name, &f) == SHT_OK &&
	   f.type == SHT_FIELD_STRING && strcmp(f.v.s, want) == 0,
	   "env %s = %s", name, want);
}

static void test_roundtrip(uint32_t cpus, uint64_t events)
{
	shtgen_kgen_params p;
	shtgen_kgen_write_stats st;
	sht_source ctf, src;
	sht_field f;
	char dir[4096], h1[4096], h2[4096];
	uint64_t a1 = 0, a2 = 0;

	shtgen_kgen_params_init(&p);
	p.cpus = cpus;
	p.events = events;
	snprintf(dir, sizeof dir, "%s/k%u", tmpdir, cpus);
	snprintf(h1, sizeof h1, "%s/k%u-src.sht", tmpdir, cpus);
	snprintf(h2, sizeof h2, "%s/k%u-ctf.sht", tmpdir, cpus);
	if (!is_int(shtgen_kgen_write_ctf(&p, dir, NULL, NULL, &st), SHT_OK,
		    "%u CPUs: write CTF", cpus))
		return;
	is_u64(st.gen.events, events, "stats: events");
	is_int(shtgen_kgen_write_ctf(&p, dir, NULL, NULL, NULL),
	       SHT_ERR_INVALID, "an existing directory is not overwritten");
	if (!is_int(sht_ctf_open(dir, NULL, &ctf), SHT_OK, "open it"))
		return;
	env_is(&ctf, "tracer_name", "lttng-modules");
	env_is(&ctf, "domain", "kernel");
	ok(sht_ctf_env(&ctf, "tracer_minor", &f) == SHT_OK &&
	   f.type == SHT_FIELD_INT && f.v.i == 12, "env tracer_minor = 12");
	compare_to_source("ctf", &ctf, &p);
	is_int(ctf.ops->seek(ctf.src, 0), SHT_OK, "seek back");
	is_int(analyse(&ctf, h2, &a2), SHT_OK, "kernel analysis over CTF");
	sht_ctf_close(&ctf);
	if (shtgen_kgen_source(&p, &src) != SHT_OK)
		return;
	is_int(analyse(&src, h1, &a1), SHT_OK, "kernel analysis over the "
	       "generator");
	shtgen_kgen_source_free(&src);
	is_u64(a2, a1, "same attribute count (%" PRIu64 ")", a1);
	ok(same_file(h1, h2), "byte-identical histories from CTF and from "
	   "the generator");
	unlink(h1);
	unlink(h2);
}

static void test_babeltrace2_cli(void)
{
	shtgen_kgen_params p;
	char dir[4096], cmd[8300];
	FILE *f;
	uint64_t lines = 0;
	int c;

	if (system("command -v babeltrace2 >/dev/null 2>&1") != 0) {
		ok(1, "# SKIP the babeltrace2 command is not installed");
		return;
	}
	shtgen_kgen_params_init(&p);
	p.events = 20000;
	snprintf(dir, sizeof dir, "%s/kcli", tmpdir);
	if (shtgen_kgen_write_ctf(&p, dir, NULL, NULL, NULL) != SHT_OK)
		bail_out("cannot write %s: %s", dir, sht_errmsg());
	snprintf(cmd, sizeof cmd, "babeltrace2 '%s' 2>&1", dir);
	f = popen(cmd, "r");
	while (f && (c = getc(f)) != EOF)
		lines += c == '\n';
	is_int(f ? pclose(f) : -1, 0, "babeltrace2 reads the trace");
	is_u64(lines, 20000, "and prints one line per event");
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");
	sht_source probe;
	sht_err err;

	snprintf(tmpdir, sizeof tmpdir, "%s", tmp ? tmp : ".");
	err = sht_ctf_open(tmpdir, NULL, &probe);
	if (err == SHT_ERR_INVALID && strstr(sht_errmsg(), "without libbabeltrace2"))
		skip_all("this libsht was built without libbabeltrace2");
	if (err == SHT_OK)
		sht_ctf_close(&probe);
	test_roundtrip(4, 120000);
	test_roundtrip(1, 30000);
	test_babeltrace2_cli();
	return done_testing();
}
