/*
 * ctf-none.c: the CTF entry points of a library built without
 * libbabeltrace2 (SHT_WITH_BABELTRACE2=OFF): they say so, and nothing else
 * changes.  The store, the state system and the analyses need no trace
 * reader.
 */
#include <string.h>

#include "sht/trace.h"
#include "util/util.h"

void sht_ctf_opts_init(sht_ctf_opts *opts)
{
	memset(opts, 0, sizeof *opts);
}

sht_err sht_ctf_open(const char *path, const sht_ctf_opts *opts, sht_source *out)
{
	(void)opts;
	(void)out;
	return sht__error(SHT_ERR_INVALID, "Cannot open CTF trace: path=%s: this libsht was built without libbabeltrace2",
			  path);
}

void sht_ctf_close(sht_source *src)
{
	(void)src;
}

sht_err sht_ctf_info_get(const sht_source *src, sht_ctf_info *out)
{
	(void)src;
	memset(out, 0, sizeof *out);
	return sht__error(SHT_ERR_INVALID, "Cannot describe a CTF source: built without libbabeltrace2");
}

const void *sht_ctf_event_bt(const sht_event *ev)
{
	(void)ev;
	return NULL;
}

sht_err sht_ctf_env(const sht_source *src, const char *name, sht_field *out)
{
	(void)src;
	(void)name;
	if (out) {
		out->type = SHT_FIELD_NONE;
		out->v.u = 0;
	}
	return sht__error(SHT_ERR_INVALID, "Cannot read CTF environment: built without libbabeltrace2");
}

sht_err sht_ctf_env_entry(const sht_source *src, uint64_t index,
			  const char **name, sht_field *out)
{
	(void)src;
	(void)index;
	if (name)
		*name = NULL;
	if (out) {
		out->type = SHT_FIELD_NONE;
		out->v.u = 0;
	}
	return sht__error(SHT_ERR_INVALID, "Cannot read CTF environment: built without libbabeltrace2");
}

sht_err sht_ctf_time_span(const sht_source *src, sht_time *begin,
			  sht_time *end)
{
	(void)src;
	(void)begin;
	(void)end;
	return sht__error(SHT_ERR_INVALID, "Cannot get CTF time span: built without libbabeltrace2");
}

sht_err sht_ctf_seek_time(const sht_source *src, sht_time t, uint64_t *pos)
{
	(void)src;
	(void)t;
	(void)pos;
	return sht__error(SHT_ERR_INVALID, "Cannot seek CTF trace: built without libbabeltrace2");
}

sht_err sht_ctf_index(const sht_source *src, uint64_t *events)
{
	(void)src;
	(void)events;
	return sht__error(SHT_ERR_INVALID, "Cannot index CTF trace: built without libbabeltrace2");
}

sht_err sht_ctf_host_id(const sht_source *src, char *buf, size_t size)
{
	(void)src;
	if (buf && size)
		buf[0] = '\0';
	return sht__error(SHT_ERR_INVALID, "Cannot read the CTF host id: built without libbabeltrace2");
}

sht_err sht_ctf_event_fields(const sht_event *ev, sht_field_fn fn, void *ctx)
{
	(void)ev;
	(void)fn;
	(void)ctx;
	return sht__error(SHT_ERR_INVALID, "Cannot enumerate CTF fields: built without libbabeltrace2");
}

size_t sht_ctf_where(const sht_source *src, char *buf, size_t size)
{
	(void)src;
	if (size)
		buf[0] = '\0';
	return 0;
}
