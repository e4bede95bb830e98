/*
 * test-api.c: the public API's error reporting and small helpers, as a
 * program outside libsht sees them (only <sht/sht.h>): every status code
 * has one name and one text, sht_errno() carries the errno of a failed
 * system call and is cleared by other failures, sht_error_set() records
 * a caller's failure, sht_field_text() formats every scalar type, the
 * options' init functions give the documented defaults.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"

/* Every code, as error.h lists it, with the name it must keep. */
static const struct {
	sht_err err;
	const char *name;
} codes[] = {
	{ SHT_OK, "SHT_OK" },
	{ SHT_END, "SHT_END" },
	{ SHT_NOT_FOUND, "SHT_NOT_FOUND" },
	{ SHT_ERR_NOMEM, "SHT_ERR_NOMEM" },
	{ SHT_ERR_IO, "SHT_ERR_IO" },
	{ SHT_ERR_CORRUPT, "SHT_ERR_CORRUPT" },
	{ SHT_ERR_VERSION, "SHT_ERR_VERSION" },
	{ SHT_ERR_STATE, "SHT_ERR_STATE" },
	{ SHT_ERR_INVALID, "SHT_ERR_INVALID" },
	{ SHT_ERR_ORDER, "SHT_ERR_ORDER" },
	{ SHT_ERR_RANGE, "SHT_ERR_RANGE" },
	{ SHT_ERR_INCOMPLETE, "SHT_ERR_INCOMPLETE" },
	{ SHT_ERR_TOOBIG, "SHT_ERR_TOOBIG" },
	{ SHT_ERR_TYPE, "SHT_ERR_TYPE" },
	{ SHT_ERR_NOATTR, "SHT_ERR_NOATTR" },
	{ SHT_ERR_BUFFER, "SHT_ERR_BUFFER" },
};
#define NCODES (sizeof codes / sizeof codes[0])

static void test_names(void)
{
	int distinct = 1, known = 1;

	for (size_t i = 0; i < NCODES; i++) {
		is_str(sht_err_name(codes[i].err), codes[i].name,
		       "code %d is named %s", (int)codes[i].err, codes[i].name);
		if (strcmp(sht_strerror(codes[i].err), "unknown error") == 0)
			known = 0;
		for (size_t j = 0; j < i; j++)
			if (strcmp(sht_strerror(codes[i].err),
				   sht_strerror(codes[j].err)) == 0)
				distinct = 0;
	}
	ok(known, "every code has a text of its own");
	ok(distinct, "no two codes share a text");
	is_str(sht_err_name((sht_err)-99), "SHT_ERR_UNKNOWN",
	       "a value that is no code has the name SHT_ERR_UNKNOWN");
	is_str(sht_strerror((sht_err)42), "unknown error",
	       "and the text 'unknown error'");
}

static void test_errno(const char *tmp)
{
	char path[4096];
	sht_reader *r = NULL;
	sht_err err;
	int fd;

	snprintf(path, sizeof path, "%s/no/such/file.sht", tmp);
	err = sht_reader_open(path, NULL, &r);
	is_int(err, SHT_ERR_IO, "opening a missing file is SHT_ERR_IO");
	is_int(sht_errno(), ENOENT, "with sht_errno() ENOENT");
	ok(strstr(sht_errmsg(), path) != NULL, "and the path in the message");

	/* A file that exists but is not a history: no system call failed. */
	snprintf(path, sizeof path, "%s/garbage.sht", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok(fd >= 0 && write(fd, "not a history file, just text\n", 30) == 30,
	   "wrote a garbage file");
	if (fd >= 0)
		close(fd);
	err = sht_reader_open(path, NULL, &r);
	is_int(err, SHT_ERR_CORRUPT, "a garbage file is SHT_ERR_CORRUPT");
	is_int(sht_errno(), 0, "and clears sht_errno()");

	/* A full device: every write fails with ENOSPC. */
	if (access("/dev/full", W_OK) == 0) {
		sht_builder *b = NULL;
		sht_interval iv = { 0, 0, 10, sht_value_int32(1) };

		err = sht_builder_create("/dev/full", 0, NULL, &b);
		if (err == SHT_OK) {
			err = sht_builder_insert(b, &iv);
			if (err == SHT_OK)
				err = sht_builder_finish(b, 10);
		}
		is_int(err, SHT_ERR_IO, "writing a history on /dev/full fails");
		is_int(sht_errno(), ENOSPC, "with sht_errno() ENOSPC");
		sht_builder_close(b);
	} else {
		ok(1, "no /dev/full here: ENOSPC not tried");
		ok(1, "no /dev/full here: ENOSPC not tried");
	}
}

static void test_error_set(void)
{
	sht_reader *r = NULL;

	(void)sht_reader_open("/nonexistent-dir/x.sht", NULL, &r);
	ok(sht_errno() != 0, "a failed open sets sht_errno()");
	is_int(sht_error_set(SHT_ERR_INVALID, "Cannot use %s: %d", "x", 7),
	       SHT_ERR_INVALID, "sht_error_set returns its code");
	is_str(sht_errmsg(), "Cannot use x: 7", "and records its message");
	is_int(sht_errno(), 0, "and clears sht_errno()");
}

static void test_field_text(void)
{
	char buf[64];
	sht_field f;

	f.type = SHT_FIELD_STRING;
	f.v.s = "lttng-modules";
	ok(sht_field_text(&f, buf, sizeof buf) && !strcmp(buf, "lttng-modules"),
	   "a string as it is");
	f.type = SHT_FIELD_INT;
	f.v.i = INT64_MIN;
	ok(sht_field_text(&f, buf, sizeof buf) &&
	   !strcmp(buf, "-9223372036854775808"), "a signed integer");
	f.type = SHT_FIELD_UINT;
	f.v.u = UINT64_MAX;
	ok(sht_field_text(&f, buf, sizeof buf) &&
	   !strcmp(buf, "18446744073709551615"), "an unsigned integer");
	f.type = SHT_FIELD_DOUBLE;
	f.v.d = 0.1;
	ok(sht_field_text(&f, buf, sizeof buf) && strtod(buf, NULL) == 0.1,
	   "a double reads back to the same value (%s)", buf);
	f.type = SHT_FIELD_STRING;
	f.v.s = "abcdef";
	ok(sht_field_text(&f, buf, 4) && !strcmp(buf, "abc"),
	   "truncated to the buffer, NUL-terminated");
	f.type = SHT_FIELD_OTHER;
	strcpy(buf, "x");
	ok(!sht_field_text(&f, buf, sizeof buf) && buf[0] == '\0',
	   "OTHER is not text: false and \"\"");
	f.type = SHT_FIELD_NONE;
	ok(!sht_field_text(&f, buf, sizeof buf), "NONE is not text");
	ok(!sht_field_text(&f, buf, 0), "size 0: false");
}

static void test_defaults(void)
{
	sht_reader_opts ro;
	sht_builder_opts bo;
	sht_ctf_opts co;

	memset(&ro, 0xff, sizeof ro);
	sht_reader_opts_init(&ro);
	is_u64(ro.cache_bytes, 256u * 1024u * 1024u, "reader cache 256 MiB");
	memset(&bo, 0xff, sizeof bo);
	sht_builder_opts_init(&bo);
	ok(bo.variant == SHT_VARIANT_ESHT && !bo.no_sync && !bo.threaded,
	   "builder: eSHT, sync, one thread");
	memset(&co, 0xff, sizeof co);
	sht_ctf_opts_init(&co);
	ok(!co.merge, "CTF: no merging by default");
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");

	test_names();
	test_errno(tmp ? tmp : "/tmp");
	test_error_set();
	test_field_text();
	test_defaults();
	return done_testing();
}
