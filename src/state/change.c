/*
 * change.c: the public state-change calls: lock, check the handle, the
 * quark and the time, then apply the rule (transient.c).
 */
#include <stdlib.h>

#include "state/state-int.h"

static sht_err writable(const sht_state *ss)
{
	if (ss->readonly || ss->finished || ss->failed)
		return sht__error(SHT_ERR_STATE, "Cannot change history: it is %s",
				  ss->readonly ? "opened read-only"
				  : ss->finished ? "finished" : "failed");
	return SHT_OK;
}

/* begin() failed: the first check that fails, as an error. */
static SHT__COLD sht_err begin_fail(const sht_state *ss, sht_time t, sht_quark q)
{
	sht_err err = writable(ss);

	if (err != SHT_OK)
		return err;
	if (q >= ss->ncur)
		return sht__error(SHT_ERR_RANGE, "Cannot change attribute: quark=%u unknown (%zu attributes)",
				  q, ss->ncur);
	if (t < ss->start)
		return sht__error(SHT_ERR_RANGE, "Cannot change attribute: quark=%u t=%lld before the history start %lld",
				  q, (long long)t, (long long)ss->start);
	return sht__error(SHT_ERR_ORDER, "Cannot change attribute: quark=%u t=%lld before the previous change at %lld",
			  q, (long long)t, (long long)ss->now);
}

/* The checks every timed change shares; advances the current time. */
static inline sht_err begin(sht_state *ss, sht_time t, sht_quark q)
{
	if (ss->readonly || ss->finished || ss->failed || q >= ss->ncur ||
	    t < ss->start || t < ss->now)
		return begin_fail(ss, t, q);
	ss->now = t;
	return SHT_OK;
}

static SHT__COLD sht_err check_value_fail(const sht_value *v)
{
	if ((unsigned)v->type > SHT_TYPE_STRING ||
	    (v->type == SHT_TYPE_STRING && v->len && !v->u.str))
		return sht__error(SHT_ERR_INVALID, "Cannot use value: type=%d", (int)v->type);
	return sht__error(SHT_ERR_TOOBIG, "Cannot use string: len=%u > %u", v->len, SHT_STRING_MAX);
}

static inline sht_err check_value(const sht_value *v)
{
	if ((unsigned)v->type > SHT_TYPE_STRING ||
	    (v->type == SHT_TYPE_STRING && ((v->len && !v->u.str) || v->len > SHT_STRING_MAX)))
		return check_value_fail(v);
	return SHT_OK;
}

sht_err sht_state_modify(sht_state *ss, sht_time t, sht_quark q, const sht_value *v)
{
	sht_err err = check_value(v);

	sht__lock(ss);
	if (err == SHT_OK)
		err = begin(ss, t, q);
	if (err == SHT_OK)
		err = sht__modify(ss, t, q, v);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_clear(sht_state *ss, sht_time t, sht_quark q)
{
	sht_err err;

	sht__lock(ss);
	err = begin(ss, t, q);
	if (err == SHT_OK)
		err = sht__clear(ss, t, q);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_push(sht_state *ss, sht_time t, sht_quark q, const sht_value *v)
{
	sht_err err = check_value(v);

	sht__lock(ss);
	if (err == SHT_OK)
		err = begin(ss, t, q);
	if (err == SHT_OK)
		err = sht__push(ss, t, q, v);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_pop(sht_state *ss, sht_time t, sht_quark q, sht_value *popped)
{
	sht_err err;

	sht__lock(ss);
	err = begin(ss, t, q);
	if (err == SHT_OK)
		err = sht__pop(ss, t, q, popped);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_increment(sht_state *ss, sht_time t, sht_quark q, int64_t delta)
{
	sht_err err;

	sht__lock(ss);
	err = begin(ss, t, q);
	if (err == SHT_OK)
		err = sht__increment(ss, t, q, delta);
	sht__unlock(ss);
	return err;
}

sht_err sht_state_update_ongoing(sht_state *ss, sht_quark q, const sht_value *v)
{
	sht_err err = check_value(v);

	sht__lock(ss);
	if (err == SHT_OK)
		err = writable(ss);
	if (err == SHT_OK && q >= ss->ncur)
		err = sht__error(SHT_ERR_RANGE, "Cannot update attribute: quark=%u unknown", q);
	if (err == SHT_OK)
		err = sht__update_ongoing(ss, q, v);
	sht__unlock(ss);
	return err;
}

static SHT__COLD sht_err ongoing_fail(const sht_state *ss, sht_quark q)
{
	return sht__error(ss->readonly ? SHT_ERR_STATE : SHT_ERR_RANGE,
			  "Cannot read the ongoing state: quark=%u", q);
}

sht_err sht_state_ongoing(sht_state *ss, sht_quark q, sht_value *out, sht_time *since)
{
	sht_err err = SHT_OK;

	sht__lock(ss);
	if (ss->readonly || q >= ss->ncur) {
		err = ongoing_fail(ss, q);
	} else {
		*out = ss->cur[q].v;
		if (since)
			*since = ss->cur[q].start;
	}
	sht__unlock(ss);
	return err;
}

/* Provider section bytes: u32 version, then the identity. */
static uint8_t *provider_bytes(const sht_state *ss, size_t *len)
{
	size_t n = strlen(ss->provider);
	uint8_t *p = malloc(4 + n);

	if (p) {
		sht__put_u32(p, ss->provider_version);
		memcpy(p + 4, ss->provider, n);
	}
	*len = 4 + n;
	return p;
}

static sht_err finish_locked(sht_state *ss, sht_time end)
{
	uint8_t *attrs = NULL, *prov = NULL;
	size_t alen = 0, plen = 0;
	sht_err err = writable(ss);

	if (err == SHT_OK && end < ss->now)
		err = sht__error(SHT_ERR_ORDER, "Cannot finish history: end=%lld before the last change at %lld",
				 (long long)end, (long long)ss->now);
	if (err == SHT_OK)
		err = sht__close_all(ss, end);
	if (err == SHT_OK)
		err = sht__attrs_serialize(ss->attrs, &attrs, &alen);
	if (err == SHT_OK && !(prov = provider_bytes(ss, &plen)))
		err = sht__error(SHT_ERR_NOMEM, "Cannot encode the provider identity");
	if (err == SHT_OK)
		err = sht__about_write(ss);
	if (err == SHT_OK)
		err = ss->ops->finish(ss->be, end, attrs, alen, prov, plen);
	free(attrs);
	free(prov);
	if (err < 0 && err != SHT_ERR_ORDER && err != SHT_ERR_STATE)
		ss->failed = 1;
	if (err == SHT_OK) {
		ss->finished = 1;
		ss->end = ss->now = end;
	}
	return err;
}

sht_err sht_state_finish(sht_state *ss, sht_time end_time)
{
	sht_err err;

	sht__lock(ss);
	err = finish_locked(ss, end_time);
	sht__unlock(ss);
	return err;
}
