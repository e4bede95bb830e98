/*
 * req.c: reading a request's parameters.  Bodies are JSON objects
 * {"parameters": {...}} parsed by jansson (integers exactly as 64-bit,
 * duplicate keys refused, depth bounded by jansson); each getter checks
 * the type and range of one key and, if it is wrong, fills the reply with
 * Trace Compass's 400 messages: "Missing query parameters: KEY" or
 * "Invalid query parameters: KEY".
 */
#include <stdlib.h>
#include <string.h>

#include "srv.h"

static int missing(struct srv_reply *rep, const char *key)
{
	return srv_reply_error(rep, 400, "Missing query parameters", "%s", key);
}

static int invalid(struct srv_reply *rep, const char *key, const char *why)
{
	return srv_reply_error(rep, 400, "Invalid query parameters", "%s: %s",
			       key, why);
}

int srv_req_parse(struct srv_req *req, struct srv_reply *rep, int need)
{
	json_error_t err;
	json_t *p;

	if (req->params)
		return 0;
	if (!req->body || req->body_len == 0) {
		if (need)
			return missing(rep, "parameters");
		req->root = json_object();
		req->params = json_object();
		json_object_set_new(req->root, "parameters", req->params);
		return req->root ? 0 : srv_reply_error(rep, 500, "Out of memory", NULL);
	}
	req->root = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &err);
	if (!req->root)
		return srv_reply_error(rep, 400, "Invalid query parameters",
				       "the body is not JSON: %s (line %d, column %d)",
				       err.text, err.line, err.column);
	if (!json_is_object(req->root))
		return invalid(rep, "body", "not a JSON object");
	p = json_object_get(req->root, "parameters");
	if (!p) {
		if (need)
			return missing(rep, "parameters");
		p = json_object();
		json_object_set_new(req->root, "parameters", p);
	}
	if (!json_is_object(p))
		return invalid(rep, "parameters", "not an object");
	req->params = p;
	return 0;
}

/* An integer value: a JSON integer, or an integral real within +-2^53. */
static int as_int(const json_t *v, int64_t *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_real(v))
		return -1;
	d = json_real_value(v);
	if (d != d || d < -9007199254740991.0 || d > 9007199254740991.0 ||
	    d != (double)(int64_t)d)
		return -1;
	*out = (int64_t)d;
	return 0;
}

static int get_int(const json_t *v, struct srv_reply *rep, const char *key,
		   int64_t min, int64_t max, int64_t *out)
{
	if (as_int(v, out) != 0)
		return invalid(rep, key, "not an integer");
	if (*out < min || *out > max)
		return invalid(rep, key, "out of range");
	return 0;
}

int srv_req_int(struct srv_req *req, struct srv_reply *rep, const char *key,
		int64_t min, int64_t max, int required, int64_t *out)
{
	json_t *v = req->params ? json_object_get(req->params, key) : NULL;

	if (!v || json_is_null(v))
		return required ? missing(rep, key) : 1;
	return get_int(v, rep, key, min, max, out);
}

int srv_req_str(struct srv_req *req, struct srv_reply *rep, const char *key,
		int required, const char **out)
{
	json_t *v = req->params ? json_object_get(req->params, key) : NULL;

	if (!v || json_is_null(v))
		return required ? missing(rep, key) : 1;
	if (!json_is_string(v))
		return invalid(rep, key, "not a string");
	if (json_string_length(v) > SRV_NAME_MAX * 4)
		return invalid(rep, key, "too long");
	*out = json_string_value(v);
	return 0;
}

static int ints_of(const json_t *v, struct srv_reply *rep, const char *key,
		   int64_t min, int64_t max, size_t max_n, int64_t **out,
		   size_t *n)
{
	size_t len, i;
	int64_t *a;

	if (!json_is_array(v))
		return invalid(rep, key, "not an array");
	len = json_array_size(v);
	if (len > max_n)
		return invalid(rep, key, "too many elements");
	a = malloc((len ? len : 1) * sizeof *a);
	if (!a)
		return srv_reply_error(rep, 500, "Out of memory", NULL);
	for (i = 0; i < len; i++) {
		if (get_int(json_array_get(v, i), rep, key, min, max, &a[i]) != 0) {
			free(a);
			return -1;
		}
	}
	*out = a;
	*n = len;
	return 0;
}

int srv_req_ints(struct srv_req *req, struct srv_reply *rep, const char *key,
		 int64_t min, int64_t max, size_t max_n, int required,
		 int64_t **out, size_t *n)
{
	json_t *v = req->params ? json_object_get(req->params, key) : NULL;

	*out = NULL;
	*n = 0;
	if (!v || json_is_null(v))
		return required ? missing(rep, key) : 1;
	return ints_of(v, rep, key, min, max, max_n, out, n);
}

/* ---- times -------------------------------------------------------------- */

static const char KEY_RANGE[] = "requested_timerange";
static const char KEY_TIMES[] = "requested_times";

/* start, end (and nbTimes if nb != NULL; 0 if absent) of the range. */
static int range_of(const json_t *r, struct srv_reply *rep, sht_time *start,
		    sht_time *end, int64_t *nb)
{
	const json_t *s, *e, *k;

	if (!json_is_object(r))
		return invalid(rep, KEY_RANGE, "not an object");
	s = json_object_get(r, "start");
	e = json_object_get(r, "end");
	if (!s || !e)
		return missing(rep, s ? "requested_timerange.end"
				      : "requested_timerange.start");
	if (!json_is_integer(s) || !json_is_integer(e))
		return invalid(rep, KEY_RANGE, "start and end must be integers");
	*start = json_integer_value(s);
	*end = json_integer_value(e);
	if (*start > *end)
		return invalid(rep, KEY_RANGE, "start is after end");
	if (!nb)
		return 0;
	*nb = 0;
	k = json_object_get(r, "nbTimes");
	if (!k || json_is_null(k))
		return 0;
	if (as_int(k, nb) != 0 || *nb < 0)
		return invalid(rep, "requested_timerange.nbTimes",
			       "not a count");
	if (*nb > SRV_NBTIMES_MAX)      /* Trace Compass's cap */
		*nb = SRV_NBTIMES_MAX;
	return 0;
}

int srv_req_range(struct srv_req *req, struct srv_reply *rep, int required,
		  sht_time *start, sht_time *end)
{
	json_t *r = req->params ? json_object_get(req->params, KEY_RANGE) : NULL;

	if (!r || json_is_null(r))
		return required ? missing(rep, KEY_RANGE) : 1;
	return range_of(r, rep, start, end, NULL);
}

static int cmp_time(const void *a, const void *b)
{
	sht_time x = *(const sht_time *)a, y = *(const sht_time *)b;

	return (x > y) - (x < y);
}

/* The grid of a range: start + k step while < end, then end. */
static int grid(struct srv_times *ts, int64_t nb)
{
	uint64_t span = (uint64_t)ts->end - (uint64_t)ts->start, step;
	size_t n = 0, cap;
	sht_time t;

	step = nb > 1 ? span / (uint64_t)(nb - 1) : span;
	if (step == 0)
		step = 1;
	cap = (size_t)(nb > 1 ? nb : 1) + 2;
	if (span / step + 2 < cap)
		cap = (size_t)(span / step) + 2;
	ts->t = malloc(cap * sizeof *ts->t);
	if (!ts->t)
		return -1;
	for (t = ts->start; t < ts->end && n + 1 < cap; ) {
		ts->t[n++] = t;
		if ((uint64_t)ts->end - (uint64_t)t <= step)
			break;
		t = (sht_time)((uint64_t)t + step);
	}
	ts->t[n++] = ts->end;
	ts->n = n;
	ts->step = step <= (uint64_t)INT64_MAX ? (sht_time)step : 0;
	return 0;
}

/* Sorted, distinct times; a grid if they are evenly spaced (the last
 * step may be shorter). */
static void explicit_times(struct srv_times *ts, int64_t *a, size_t n)
{
	size_t k = 0;
	uint64_t d;

	qsort(a, n, sizeof *a, cmp_time);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || a[i] != a[k - 1])
			a[k++] = a[i];
	ts->t = a;
	ts->n = k;
	ts->start = a[0];
	ts->end = a[k - 1];
	d = k > 1 ? srv_span(a[0], a[1]) : 0;   /* any 64-bit times: unsigned */

	for (size_t i = 2; d && i + 1 < k; i++)
		if (srv_span(a[i - 1], a[i]) != d)
			d = 0;
	if (d && k > 2 && srv_span(a[k - 2], a[k - 1]) > d)
		d = 0;
	ts->step = d <= INT64_MAX ? (sht_time)d : 0;
}

int srv_req_times(struct srv_req *req, struct srv_reply *rep, int required,
		  struct srv_times *out)
{
	json_t *r = req->params ? json_object_get(req->params, KEY_RANGE) : NULL;
	json_t *l = req->params ? json_object_get(req->params, KEY_TIMES) : NULL;
	int64_t nb, *a;
	size_t n;

	memset(out, 0, sizeof *out);
	if (l && !json_is_null(l)) {
		if (ints_of(l, rep, KEY_TIMES, INT64_MIN, INT64_MAX,
			    SRV_NBTIMES_MAX, &a, &n) != 0)
			return -1;
		if (n == 0) {
			free(a);
			return invalid(rep, KEY_TIMES, "empty");
		}
		explicit_times(out, a, n);
		return 0;
	}
	if (!r || json_is_null(r))
		return required ? missing(rep, KEY_RANGE) : 1;
	if (range_of(r, rep, &out->start, &out->end, &nb) != 0)
		return -1;
	if (grid(out, nb) != 0)
		return srv_reply_error(rep, 500, "Out of memory", NULL);
	return 0;
}

void srv_times_free(struct srv_times *t)
{
	free(t->t);
	memset(t, 0, sizeof *t);
}

/* Evenly spaced times (a screen's, asked for each of its intervals):
 * the index from the step, then moved to the exact one (the last time
 * may be closer; any wrong guess only costs steps). */
static size_t lower_step(const struct srv_times *ts, sht_time t)
{
	uint64_t k;
	size_t i;

	if (t <= ts->t[0])
		return 0;
	k = ((uint64_t)t - (uint64_t)ts->t[0] - 1) / (uint64_t)ts->step + 1;
	i = k < ts->n ? (size_t)k : ts->n;
	while (i > 0 && ts->t[i - 1] >= t)
		i--;
	while (i < ts->n && ts->t[i] < t)
		i++;
	return i;
}

size_t srv_times_lower(const struct srv_times *ts, sht_time t)
{
	size_t lo = 0, hi = ts->n;

	if (ts->step > 0 && ts->n > 0)
		return lower_step(ts, t);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ts->t[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int srv_times_hit(const struct srv_times *ts, sht_time a, sht_time b)
{
	size_t i = srv_times_lower(ts, a);

	return i < ts->n && ts->t[i] <= b;
}
