/*
 * backend-tree.c: the history-tree backends: "tree" writes a history file
 * through a builder (and answers live queries from it); "file" answers
 * queries from an opened history file through a reader.
 */
#include "state/state-int.h"

static sht_err tree_insert(void *be, const sht_interval *iv)
{
	return sht_builder_insert(be, iv);
}

static sht_err tree_finish(void *be, sht_time end, const void *attrs,
			   size_t attrs_len, const void *prov, size_t prov_len)
{
	sht_err err = sht_builder_add_section(be, SHT__SECTION_ATTRS, 1, attrs, attrs_len);

	if (err == SHT_OK)
		err = sht_builder_add_section(be, SHT__SECTION_PROVIDER, 1, prov, prov_len);
	if (err == SHT_OK)
		err = sht_builder_finish(be, end);
	return err;
}

/* The state system's lock is held: no insert is running, so a threaded
 * builder's partial batch can be handed over before reading. */
static sht_err tree_query(void *be, sht_quark q, sht_time t, sht_result *res)
{
	sht_builder_flush(be);
	return sht_builder_query(be, q, t, res);
}

static sht_err tree_query_full(void *be, sht_time t, sht_result *res)
{
	sht_builder_flush(be);
	return sht_builder_query_full(be, t, res);
}

static sht_err tree_query_2d(void *be, const sht_query2d *q, sht_result *res)
{
	sht_builder_flush(be);
	return sht_builder_query_2d(be, q, res);
}

static void tree_destroy(void *be)
{
	sht_builder_close(be);
}

static sht_err tree_add_section(void *be, uint32_t kind, uint32_t version,
				const void *data, size_t len)
{
	return sht_builder_add_section(be, kind, version, data, len);
}

const struct sht__backend_ops sht__backend_tree = {
	"tree", tree_insert, tree_finish, tree_query, tree_query_full,
	tree_query_2d, tree_destroy, tree_add_section,
};

sht_err sht__backend_tree_create(const char *path, sht_time start,
				 const sht_builder_opts *opts, void **out)
{
	sht_builder *b;
	sht_err err;

	if (!path)
		return sht__error(SHT_ERR_INVALID, "Cannot create a tree-backed history without a path");
	err = sht_builder_create(path, start, opts, &b);
	if (err == SHT_OK) {
		sht_builder_set_serialised(b);   /* every call under ss->lock */
		*out = b;
	}
	return err;
}

/* ---- opened file -------------------------------------------------------- */

static sht_err file_insert(void *be, const sht_interval *iv)
{
	(void)be;
	(void)iv;
	return sht__error(SHT_ERR_STATE, "Cannot change an opened history");
}

static sht_err file_finish(void *be, sht_time end, const void *attrs,
			   size_t attrs_len, const void *prov, size_t prov_len)
{
	(void)be; (void)end; (void)attrs; (void)attrs_len; (void)prov; (void)prov_len;
	return sht__error(SHT_ERR_STATE, "Cannot finish an opened history");
}

static sht_err file_query(void *be, sht_quark q, sht_time t, sht_result *res)
{
	return sht_reader_query(be, q, t, res);
}

static sht_err file_query_full(void *be, sht_time t, sht_result *res)
{
	return sht_reader_query_full(be, t, res);
}

static sht_err file_query_2d(void *be, const sht_query2d *q, sht_result *res)
{
	return sht_reader_query_2d(be, q, res);
}

static void file_destroy(void *be)
{
	(void)be;        /* the state system closes its reader itself */
}

const struct sht__backend_ops sht__backend_file = {
	"file", file_insert, file_finish, file_query, file_query_full,
	file_query_2d, file_destroy, NULL,
};

sht_err sht__backend_file_create(sht_reader *r, void **out)
{
	*out = r;
	return SHT_OK;
}
