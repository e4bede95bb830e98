/*
 * out-events.c: "Events Table" (Trace Compass's TmfEventTableDataProvider
 * id): the events of the experiment in time order, lines by index or by
 * time, with a text search (table_search_expressions, regular
 * expressions per column, NEXT / PREVIOUS) and a filter on the event
 * type (table_filter_expressions, sht's: only the matching events are
 * lines; the statistics history gives their count and positions).
 *
 * A trace that cannot be read to its end makes columns and lines FAILED
 * with the reader's message (the lines before the bad spot are served);
 * a search stopped by its time bound answers CANCELLED and says which
 * lines it read without a match.
 *
 * Columns: [Trace], Timestamp, CPU, Event type, Contents, Timestamp ns
 * (the viewer finds the time of a line by that last column's name).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evline.h"

static const struct {
	const char *name, *desc, *type;
} columns[COL_COUNT] = {
	[COL_TRACE] = { "Trace", "The trace of the event", "STRING" },
	[COL_TIME] = { "Timestamp", "The time of the event", "TIMESTAMP" },
	[COL_CPU] = { "CPU", "The CPU of the event", "NUMBER" },
	[COL_TYPE] = { "Event type", "The type of the event", "STRING" },
	[COL_CONTENTS] = { "Contents", "The fields of the event", "STRING" },
	[COL_TIME_NS] = { "Timestamp ns", "The time of the event in ns", "NUMBER" },
};

static int events_applies(struct srv_exp *e)
{
	(void)e;
	return 1;
}

static int has_col(const struct srv_exp *e, int col)
{
	return col != COL_TRACE || e->ntraces > 1;
}

static int events_columns(struct srv_out_ctx *c)
{
	json_t *a = json_array();
	char msg[768];
	int st;

	for (int i = 0; i < COL_COUNT; i++) {
		json_t *j;

		if (!has_col(c->e, i))
			continue;
		j = json_object();
		json_object_set_new(j, "id", json_integer(i));
		json_object_set_new(j, "name", json_string(columns[i].name));
		json_object_set_new(j, "description", json_string(columns[i].desc));
		json_object_set_new(j, "type", json_string(columns[i].type));
		json_array_append_new(a, j);
	}
	/* The columns are known from the start; a trace that could not be
	 * read to its end makes them FAILED too, with the reason. */
	st = srv_table_status(c->e, 1, msg, sizeof msg);
	srv_reply_model(c->rep, a, st, st == SRV_FAILED ? msg : NULL);
	return 0;
}

/* ---- cells ------------------------------------------------------------------- */

static void field_text(struct srv_buf *b, const sht_field *f)
{
	switch (f->type) {
	case SHT_FIELD_INT:
		srv_buf_i64(b, f->v.i);
		break;
	case SHT_FIELD_UINT:
		srv_buf_printf(b, "%" PRIu64, f->v.u);
		break;
	case SHT_FIELD_DOUBLE:
		srv_buf_printf(b, "%.17g", f->v.d);
		break;
	case SHT_FIELD_STRING:
		srv_buf_puts(b, f->v.s ? f->v.s : "");
		break;
	default:
		srv_buf_puts(b, "...");
	}
}

static sht_err add_field(void *ctx, const char *name, const sht_field *value)
{
	struct srv_buf *b = ctx;

	if (b->len)
		srv_buf_puts(b, ", ");
	srv_buf_puts(b, name);
	srv_buf_put(b, "=", 1);
	field_text(b, value);
	return b->oom ? SHT_ERR_NOMEM : SHT_OK;
}

void ev_cells_fill(struct ev_cells *c, struct srv_exp *e, size_t trace,
		   const sht_event *ev)
{
	struct srv_trace *t = e->traces[trace];
	sht_time ts = srv_to_exp(&t->xf, ev->ts);
	char buf[64];

	for (int i = 0; i < COL_COUNT; i++) {
		c->cell[i].len = 0;
		c->cell[i].oom = 0;
		srv_buf_put(&c->cell[i], "", 0);
	}
	srv_buf_puts(&c->cell[COL_TRACE], t->name);
	srv_buf_puts(&c->cell[COL_TIME], srv_fmt_time(ts, buf, sizeof buf));
	if (ev->cpu >= 0)
		srv_buf_i64(&c->cell[COL_CPU], ev->cpu);
	srv_buf_puts(&c->cell[COL_TYPE], ev->name ? ev->name : "");
	srv_trace_fields(t, ev, add_field, &c->cell[COL_CONTENTS]);
	srv_buf_i64(&c->cell[COL_TIME_NS], ts);
}

void ev_cells_free(struct ev_cells *c)
{
	for (int i = 0; i < COL_COUNT; i++)
		srv_buf_free(&c->cell[i]);
}

int ev_search_match(const struct ev_query *q, const struct ev_cells *c)
{
	if (!q->nsearch)
		return 0;
	for (int i = 0; i < COL_COUNT; i++)
		if (q->has_search[i] &&
		    regexec(&q->search[i], c->cell[i].p ? c->cell[i].p : "", 0, NULL, 0) != 0)
			return 0;
	return 1;
}

int ev_filter_match(const struct ev_query *q, const sht_event *ev)
{
	return !q->has_filter ||
	       regexec(&q->filter, ev->name ? ev->name : "", 0, NULL, 0) == 0;
}

/* ---- the request ------------------------------------------------------------ */

static int compile(struct srv_reply *rep, regex_t *re, const char *key,
		   const char *text)
{
	char err[256];
	int rc;

	if (strlen(text) > 1024)
		return srv_reply_error(rep, 400, "Invalid query parameters",
				       "%s: expression too long", key);
	rc = regcomp(re, text, REG_EXTENDED | REG_ICASE | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, re, err, sizeof err);
		return srv_reply_error(rep, 400, "Invalid query parameters",
				       "%s: %s: %s", key, text, err);
	}
	return 0;
}

/* {"<column id>": "regex", ...} into q (search, or the type filter). */
static int expressions(struct srv_out_ctx *c, struct ev_query *q, const char *key,
		       int filter)
{
	json_t *m = json_object_get(c->req->params, key), *v;
	const char *k;
	char *end;

	if (!m || json_is_null(m))
		return 0;
	if (!json_is_object(m))
		return srv_reply_error(c->rep, 400, "Invalid query parameters",
				       "%s: not an object", key);
	json_object_foreach(m, k, v) {
		long col = strtol(k, &end, 10);

		if (*end || col < 0 || col >= COL_COUNT || !has_col(c->e, (int)col) ||
		    !json_is_string(v))
			return srv_reply_error(c->rep, 400, "Invalid query parameters",
					       "%s: unknown column %s or not a string",
					       key, k);
		if (filter && col != COL_TYPE)
			return srv_reply_error(c->rep, 400, "Invalid query parameters",
					       "%s: only the Event type column (%d) "
					       "filters", key, COL_TYPE);
		if (filter) {
			if (q->has_filter)
				continue;
			if (compile(c->rep, &q->filter, key, json_string_value(v)) != 0)
				return -1;
			q->has_filter = 1;
		} else if (!q->has_search[col]) {
			if (compile(c->rep, &q->search[col], key, json_string_value(v)) != 0)
				return -1;
			q->has_search[col] = 1;
			q->nsearch++;
		}
	}
	return 0;
}

static int parse_columns(struct srv_out_ctx *c, struct ev_query *q)
{
	int64_t *ids;
	size_t n;
	int rc = srv_req_ints(c->req, c->rep, "requested_table_column_ids", 0,
			      COL_COUNT - 1, 64, 0, &ids, &n);

	if (rc < 0)
		return -1;
	if (rc == 1 || n == 0) {
		for (int i = 0; i < COL_COUNT; i++)
			if (has_col(c->e, i))
				q->cols[q->ncols++] = i;
		free(ids);
		return 0;
	}
	for (size_t i = 0; i < n && q->ncols < COL_COUNT; i++)
		if (has_col(c->e, (int)ids[i]))
			q->cols[q->ncols++] = (int)ids[i];
	free(ids);
	return 0;
}

int ev_query_parse(struct srv_out_ctx *c, struct ev_query *q)
{
	const char *dir = NULL;

	memset(q, 0, sizeof *q);
	if (parse_columns(c, q) != 0 ||
	    expressions(c, q, "table_search_expressions", 0) != 0 ||
	    expressions(c, q, "table_filter_expressions", 1) != 0 ||
	    srv_req_str(c->req, c->rep, "table_search_direction", 0, &dir) < 0)
		return -1;
	if (dir && strcmp(dir, "NEXT") != 0 && strcmp(dir, "PREVIOUS") != 0)
		return srv_reply_error(c->rep, 400, "Invalid query parameters",
				       "table_search_direction: NEXT or PREVIOUS");
	if (dir)
		q->direction = strcmp(dir, "NEXT") == 0 ? 1 : -1;
	return 0;
}

void ev_query_free(struct ev_query *q)
{
	for (int i = 0; i < COL_COUNT; i++)
		if (q->has_search[i])
			regfree(&q->search[i]);
	if (q->has_filter)
		regfree(&q->filter);
	for (size_t j = 0; j < SRV_EXP_TRACES_MAX; j++)
		free(q->fq[j]);
}

/* ---- lines ------------------------------------------------------------------- */

/* The first line: requested_table_index, or the line of requested_times[0]
 * (the first event at or after it; the last one if none). */
static int first_line(struct srv_out_ctx *c, const struct ev_query *q,
		      uint64_t size, uint64_t *index)
{
	int64_t *times, v;
	size_t n;
	int rc = srv_req_int(c->req, c->rep, "requested_table_index", 0,
			     INT64_MAX, 0, &v);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		*index = (uint64_t)v;
		return 0;
	}
	rc = srv_req_ints(c->req, c->rep, "requested_times", INT64_MIN, INT64_MAX,
			  1024, 0, &times, &n);
	if (rc < 0)
		return -1;
	if (rc == 1 || n == 0) {
		free(times);
		return srv_reply_error(c->rep, 400, "Missing query parameters",
				       "requested_table_index");
	}
	if (q->has_filter) {
		*index = times[0] == SHT_TIME_MIN ? 0 :
			 (uint64_t)ev_filter_count(c->e, q, times[0] - 1);
	} else if (srv_merge_index_of(c->e, times[0], index) != SHT_OK) {
		free(times);
		return srv_reply_error(c->rep, 500, "Cannot read the trace", "%s",
				       sht_errmsg());
	}
	free(times);
	if (*index >= size && size > 0)
		*index = size - 1;
	return 0;
}

static void write_line(struct srv_buf *b, const struct ev_query *q,
		       const struct ev_cells *cells, uint64_t index, int first)
{
	if (!first)
		srv_buf_put(b, ",", 1);
	srv_buf_puts(b, "{\"index\":");
	srv_buf_i64(b, (int64_t)index);
	srv_buf_puts(b, ",\"cells\":[");
	for (size_t i = 0; i < q->ncols; i++) {
		const struct srv_buf *cell = &cells->cell[q->cols[i]];

		srv_buf_puts(b, i ? ",{\"content\":" : "{\"content\":");
		srv_buf_jstr(b, cell->p ? cell->p : "", cell->len);
		srv_buf_put(b, "}", 1);
	}
	srv_buf_put(b, "]", 1);
	if (ev_search_match(q, cells))
		srv_buf_puts(b, ",\"tags\":8");
	srv_buf_put(b, "}", 1);
}

/* count lines from index into b; a failure to read leaves the lines
 * before it in b and says where (*at: the line it could not read) and
 * why (the reader's message into why, n bytes). */
static sht_err write_lines(struct srv_out_ctx *c, const struct ev_query *q,
			   uint64_t index, uint64_t count, struct srv_buf *b,
			   uint64_t *at, char *why, size_t n)
{
	struct ev_cells cells;
	struct ev_reader *r;
	uint64_t idx, k = 0;
	sht_event ev;
	size_t tr;
	sht_err err;

	*at = index;
	r = ev_reader_open(c->e, q, index, &err);
	if (!r && err < 0)
		snprintf(why, n, "%s", sht_errmsg());
	if (!r)
		return err == SHT_END ? SHT_OK : err;
	memset(&cells, 0, sizeof cells);
	while (k < count && (err = ev_reader_next(r, &ev, &tr, &idx)) == SHT_OK) {
		ev_cells_fill(&cells, c->e, tr, &ev);
		write_line(b, q, &cells, idx, k++ == 0);
		*at = idx + 1;
	}
	if (err < 0)
		snprintf(why, n, "%s", sht_errmsg());
	ev_cells_free(&cells);
	ev_reader_close(r);
	return err == SHT_END ? SHT_OK : err;
}

/* An answer's status and its message (NULL: the protocol's word). */
struct ev_status {
	int status;
	char msg[1536];
	int has_msg;
};

static void status_append(struct ev_status *st, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set the status (FAILED stays), append to the message. */
static void status_append(struct ev_status *st, int status, const char *fmt, ...)
{
	size_t len = st->has_msg ? strlen(st->msg) : 0;
	va_list ap;

	if (st->status != SRV_FAILED)
		st->status = status;
	if (len && len + 2 < sizeof st->msg) {
		memcpy(st->msg + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(st->msg + len, sizeof st->msg - len, fmt, ap);
	va_end(ap);
	st->has_msg = 1;
}

static int lines_reply(struct srv_out_ctx *c, const struct ev_query *q,
		       uint64_t index, uint64_t count, uint64_t size,
		       struct ev_status *st)
{
	struct srv_buf b = { 0 };
	sht_err err = SHT_OK;
	uint64_t at = index;
	char why[512] = "";
	const char *msg;

	srv_buf_puts(&b, "{\"model\":{\"lowIndex\":");
	srv_buf_i64(&b, (int64_t)index);
	srv_buf_puts(&b, ",\"size\":");
	srv_buf_i64(&b, (int64_t)size);
	srv_buf_puts(&b, ",\"columnIds\":[");
	for (size_t i = 0; i < q->ncols; i++)
		srv_buf_printf(&b, i ? ",%d" : "%d", q->cols[i]);
	srv_buf_puts(&b, "],\"lines\":[");
	if (count > 0 && index < size)           /* no line past size */
		err = write_lines(c, q, index, count < size - index ? count :
				  size - index, &b, &at, why, sizeof why);
	if (err < 0)
		status_append(st, SRV_FAILED, "cannot read the trace at line %"
			      PRIu64 ": %s", at, why);
	msg = st->has_msg ? st->msg : srv_status_message(st->status);
	srv_buf_printf(&b, "]},\"status\":\"%s\",\"statusMessage\":",
		       srv_status_name(st->status));
	srv_buf_jstr(&b, msg, strlen(msg));
	srv_buf_put(&b, "}", 1);
	srv_reply_buf(c->rep, &b);
	return 0;
}

/* The search of the request, from index: the page's first line, or
 * count 0 (no match, the search cut by its bound, or a failure, which
 * the status says). */
static int search(struct srv_out_ctx *c, const struct ev_query *q, uint64_t size,
		  uint64_t *index, int64_t *count, struct ev_status *st)
{
	struct ev_found f;
	int cap;

	if (ev_search_enter(&cap) != 0) {
		srv_reply_error(c->rep, 429, "Too many searches",
				"%d table searches are running, the most at "
				"once; search again in a few seconds", cap);
		c->rep->retry_after = 2;
		return -1;
	}
	ev_search(c->e, q, *index, q->direction, size, &f);
	ev_search_leave();
	if (f.index >= 0) {
		*index = (uint64_t)f.index;
		return 0;
	}
	*count = 0;                       /* no match: no line */
	if (f.err < 0)
		status_append(st, SRV_FAILED, "the search could not read the trace: %s",
			      f.why);
	else if (f.cut && f.searched)
		status_append(st, SRV_CANCELLED, "the search stopped after %.3g s: "
			      "no match in lines %" PRIu64 " to %" PRIu64 " (times %"
			      PRId64 " to %" PRId64 " ns), the others not searched; "
			      "search again from line %" PRIu64 " to go on",
			      f.seconds, f.lo, f.hi, f.tlo, f.thi,
			      q->direction > 0 ? f.hi + 1 : f.lo ? f.lo - 1 : 0);
	else if (f.cut)
		status_append(st, SRV_CANCELLED, "the search stopped after %.3g s "
			      "before it had searched a block of lines to the end: "
			      "no line searched", f.seconds);
	return 0;
}

static int events_lines(struct srv_out_ctx *c)
{
	struct ev_query q;
	struct ev_status st = { 0 };
	uint64_t size, index = 0;
	int64_t count;
	int complete, rc = -1;

	if (srv_req_int(c->req, c->rep, "requested_table_count", 0, SRV_LINES_MAX,
			1, &count) != 0)
		return -1;
	if (ev_query_parse(c, &q) != 0)
		goto out;
	if (ev_filter_prepare(c->e, &q) != 0) {
		srv_reply_error(c->rep, 500, "Out of memory", NULL);
		goto out;
	}
	size = srv_merge_count(c->e, &complete);
	/* Known before the lines are read: a trace that failed stops the
	 * table at the line its reading stopped, which size says. */
	st.status = srv_table_status(c->e, complete, st.msg, sizeof st.msg);
	st.has_msg = st.status == SRV_FAILED;
	if (q.has_filter) {
		sht_time s, e;
		uint64_t n;

		srv_exp_progress(c->e, &s, &e, &n);
		size = (uint64_t)ev_filter_count(c->e, &q, e);
	}
	if (first_line(c, &q, size, &index) != 0)
		goto out;
	if (q.direction && q.nsearch &&
	    search(c, &q, size, &index, &count, &st) != 0)
		goto out;
	rc = lines_reply(c, &q, index, (uint64_t)count, size, &st);
out:
	ev_query_free(&q);
	return rc;
}

const struct srv_output srv_out_events = {
	.index = SRV_OUT_EVENTS,
	.id = "org.eclipse.tracecompass.internal.provisional.tmf.core.model."
	      "events.TmfEventTableDataProvider",
	.name = "Events Table",
	.description = "Show the raw events in table form for a given trace",
	.type = SRV_OUT_TABLE,
	.applies = events_applies,
	.columns = events_columns,
	.lines = events_lines,
};
