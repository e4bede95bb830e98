/*
 * blob.c: reading blobs (long strings) and sections, runs of consecutive
 * blocks validated as a whole (docs/FORMAT.md §4, §6).
 */
#include <stdlib.h>

#include <string.h>

#include "store/store-int.h"

static int blob_valid(const uint8_t *buf, uint8_t kind, uint64_t first,
		      uint64_t len, uint64_t n, uint32_t bs)
{
	return buf[0] == kind && buf[1] == 0 && buf[2] == 0 && buf[3] == 0 &&
	       sht__get_u32(buf + SHT__B_NBLOCKS) == n &&
	       sht__get_u64(buf + SHT__B_SELF) == first &&
	       sht__get_u64(buf + SHT__B_LENGTH) == len &&
	       sht__crc32c(0, buf, n * bs - 4) == sht__get_u32(buf + n * bs - 4);
}

sht_err sht__blob_load(struct sht__store *st, uint8_t kind, uint64_t first,
		       uint64_t len, uint8_t **out)
{
	uint32_t bs = st->geom.block_size;
	uint64_t n = sht__blob_blocks(len, bs);
	uint64_t count = atomic_load(&st->block_count);
	uint8_t *buf = NULL;
	int rc;

	if (first >= count || n > count - first)
		return sht__error(SHT_ERR_CORRUPT, "Cannot read blob: block=%llu len=%llu outside the file",
				  (unsigned long long)first, (unsigned long long)len);
	buf = malloc(n * bs);
	if (!buf)
		return sht__error(SHT_ERR_NOMEM, "Cannot allocate %llu bytes",
				  (unsigned long long)(n * bs));
	rc = sht__pread_full(st->fd, buf, n * bs, SHT__HEADER_REGION + first * bs);
	if (rc || !blob_valid(buf, kind, first, len, n, bs)) {
		free(buf);
		return rc ? sht__error_sys(SHT_ERR_IO, -rc, "Cannot read blob: block=%llu path=%s errno=%d (%s)",
					   (unsigned long long)first, st->path, -rc, strerror(-rc))
			  : sht__error(SHT_ERR_CORRUPT, "Cannot read blob: block=%llu path=%s fails validation",
				       (unsigned long long)first, st->path);
	}
	*out = buf;
	return SHT_OK;
}

sht_err sht__blob_read(struct sht__store *st, uint64_t first, uint64_t len,
		       sht_result *res, const char **out)
{
	uint8_t *buf = NULL;
	sht_err err = sht__blob_load(st, SHT__KIND_BLOB, first, len, &buf);

	if (err != SHT_OK)
		return err;
	*out = sht__result_strdup(res, (const char *)buf + SHT__BLOB_HDR, len);
	free(buf);
	return *out ? SHT_OK : sht__error(SHT_ERR_NOMEM, "Cannot copy a string of %llu bytes",
					  (unsigned long long)len);
}
