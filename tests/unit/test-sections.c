/*
 * test-sections.c: opaque sections stored beside the tree (attribute
 * tree, provider identity, checkpoints live in them).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sht/sht.h"
#include "tap.h"

static char path[512];

static void build(void)
{
	sht_builder_opts o;
	sht_builder *b;
	static char big[10000];
	sht_interval iv = { 3, 0, 99, { SHT_TYPE_INT32, 0, { .i32 = 5 } } };

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)(i * 31);
	sht_builder_opts_init(&o);
	o.block_size = 4096;
	o.no_sync = true;
	ok(sht_builder_create(path, 0, &o, &b) == SHT_OK, "create");
	ok(sht_builder_insert(b, &iv) == SHT_OK, "insert");
	ok(sht_builder_add_section(b, 1, 7, "", 0) == SHT_OK, "empty section");
	ok(sht_builder_add_section(b, 2, 1, "provider", 8) == SHT_OK, "small section");
	ok(sht_builder_add_section(b, 3, 2, big, sizeof big) == SHT_OK, "three-block section");
	ok(sht_builder_add_section(b, 2, 1, "again", 5) == SHT_ERR_INVALID, "same kind twice refused");
	ok(sht_builder_add_section(b, 0, 1, "zero", 4) == SHT_ERR_INVALID, "kind 0 refused");
	for (uint32_t k = 4; k <= 8; k++)
		sht_builder_add_section(b, k, 0, "x", 1);
	ok(sht_builder_add_section(b, 9, 0, "x", 1) == SHT_ERR_INVALID, "a ninth section refused");
	ok(sht_builder_finish(b, 100) == SHT_OK, "finish");
	ok(sht_builder_add_section(b, 10, 0, "x", 1) == SHT_ERR_STATE, "after finish refused");
	sht_builder_close(b);
}

static void read_back(void)
{
	sht_reader *r;
	void *data;
	size_t len;
	uint32_t ver;
	sht_result *res = sht_result_create();
	char big[10000];

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (char)(i * 31);
	ok(sht_reader_open(path, NULL, &r) == SHT_OK, "reopen");
	ok(sht_reader_section(r, 1, &ver, &data, &len) == SHT_OK && len == 0 && ver == 7,
	   "empty section read back");
	free(data);
	ok(sht_reader_section(r, 2, &ver, &data, &len) == SHT_OK && len == 8 &&
	   memcmp(data, "provider", 8) == 0, "small section read back");
	free(data);
	ok(sht_reader_section(r, 3, &ver, &data, &len) == SHT_OK && len == sizeof big &&
	   ver == 2 && memcmp(data, big, sizeof big) == 0, "large section read back");
	free(data);
	ok(sht_reader_section(r, 42, NULL, &data, NULL) == SHT_NOT_FOUND, "unknown kind not found");
	ok(sht_reader_check(r, NULL, NULL, 0) == SHT_OK, "check accepts sections");
	{
		sht_tree_stats st;
		/* 1 (empty) + 1 (8 bytes) + 3 (10 000 bytes in 4 KiB blocks) + 5 x 1 */
		ok(sht_reader_stats_get(r, &st) == SHT_OK && st.section_blocks == 10 &&
		   st.blob_blocks == 0, "stats count section blocks apart from blobs (%llu)",
		   (unsigned long long)st.section_blocks);
	}
	ok(sht_reader_query(r, 3, 50, res) == SHT_OK && sht_result_items(res)[0].value.u.i32 == 5,
	   "the tree is intact");
	sht_reader_close(r);
	sht_result_destroy(res);
}

static void corrupt_section(void)
{
	sht_reader *r;
	void *data = NULL;
	int fd = open(path, O_RDWR);
	char c;
	/* The large section's data starts 24 bytes into its first block; it is
	 * written after the single leaf's data... find it by scanning for its
	 * first bytes (i*31 pattern: 0, 31, 62, 93). */
	char pat[4] = { 0, 31, 62, 93 };
	char buf[4096];
	off_t found = -1;

	for (off_t off = 4096; pread(fd, buf, sizeof buf, off) == (ssize_t)sizeof buf; off += 4096)
		if (buf[0] == 4 && memcmp(buf + 24, pat, 4) == 0) {
			found = off + 100;
			break;
		}
	ok(found > 0, "large section located in the file");
	pread(fd, &c, 1, found);
	c ^= 0x10;
	pwrite(fd, &c, 1, found);
	close(fd);
	ok(sht_reader_open(path, NULL, &r) == SHT_OK, "open (sections are read on demand)");
	ok(sht_reader_section(r, 3, NULL, &data, NULL) == SHT_ERR_CORRUPT, "flipped section byte refused");
	ok(sht_reader_check(r, NULL, NULL, 0) == SHT_ERR_CORRUPT, "check finds the flipped byte");
	sht_reader_close(r);
}

int main(void)
{
	const char *tmp = getenv("SHT_TMP");

	snprintf(path, sizeof path, "%s/sections.sht", tmp ? tmp : "/tmp");
	build();
	read_back();
	corrupt_section();
	unlink(path);
	return done_testing();
}
