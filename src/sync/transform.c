/*
 * transform.c: clock transforms (sht/sync.h): the identity, constant
 * offsets and Trace Compass's fast linear transform, their composition
 * and inverse with Trace Compass's rounding, and their application.
 *
 * Fast application (Trace Compass's TmfTimestampTransformLinearFast):
 * time is cut in aligned blocks of delta_max = 2^delta_bits ns, where
 * delta_bits = clamp(leading zeros of the slope's integer part - 32, 0,
 * 30) (30 for slopes below 4).  A block's start s is transformed in
 * decimal, off = trunc(round(round(s * slope) + offset)), and a time in
 * the block as off + ((alpha_long * (t - s)) >> delta_bits), with
 * alpha_long = trunc(round(slope * delta_max)), in wrapping 64-bit
 * arithmetic.  Rounding is to 34 digits, half to even (dec.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sync/sync-int.h"
#include "util/util.h"

enum { DECIMAL_BITS = 30, INTEGER_BITS = 32 };

static sht_transform *alloc_transform(void)
{
	sht_transform *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	sht__dec_init(&t->alpha);
	sht__dec_init(&t->beta);
	return t;
}

void sht_transform_free(sht_transform *t)
{
	if (!t)
		return;
	sht__dec_clear(&t->alpha);
	sht__dec_clear(&t->beta);
	free(t->slope_s);
	free(t->offset_s);
	free(t);
}

static sht_err nomem(sht_transform *t)
{
	sht_transform_free(t);
	return sht__error(SHT_ERR_NOMEM, "Cannot create a clock transform: "
			  "out of memory");
}

static int nlz64(uint64_t x)
{
	return x ? __builtin_clzll(x) : 64;
}

/* Block of ts: its start and transformed start. */
static void rescale(sht_transform *t, int64_t ts)
{
	sht__dec s, v;

	t->range_start = ts - ts % t->delta_max;
	sht__dec_init(&s);
	sht__dec_init(&v);
	sht__dec_set_i64(&s, t->range_start);
	sht__dec_mul_mc(&v, &s, &t->alpha);
	sht__dec_add_mc(&v, &v, &t->beta);
	t->range_off = sht__dec_trunc_i64(&v);
	sht__dec_clear(&s);
	sht__dec_clear(&v);
}

/* The fixed-point parameters of a linear transform; SHT_ERR_INVALID if
 * its slope is outside [1e-9, 1e9]. */
static sht_err linear_setup(sht_transform *t)
{
	sht__dec lo, hi, dm, v;
	int width, bad;

	sht__dec_init(&lo);
	sht__dec_init(&hi);
	sht__dec_parse(&lo, "0.000000001");
	sht__dec_set_i64(&hi, 1000000000);
	bad = sht__dec_cmp(&t->alpha, &lo) < 0 ||
	      sht__dec_cmp(&t->alpha, &hi) > 0;
	sht__dec_clear(&lo);
	sht__dec_clear(&hi);
	if (bad)
		return sht__error(SHT_ERR_INVALID, "Cannot create a clock "
				  "transform: slope=%s outside [1e-9, 1e9]",
				  t->slope_s ? t->slope_s : "?");
	t->kind = SHT__T_LINEAR;
	width = nlz64((uint64_t)sht__dec_trunc_i64(&t->alpha)) - INTEGER_BITS;
	t->delta_bits = width < 0 ? 0 : width > DECIMAL_BITS ? DECIMAL_BITS
							      : width;
	t->delta_max = (int64_t)1 << t->delta_bits;
	sht__dec_init(&dm);
	sht__dec_init(&v);
	sht__dec_set_i64(&dm, t->delta_max);
	sht__dec_mul_mc(&v, &t->alpha, &dm);
	t->alpha_long = sht__dec_trunc_i64(&v);
	sht__dec_clear(&dm);
	sht__dec_clear(&v);
	rescale(t, 0);
	return SHT_OK;
}

/* t's texts, and its kind's parameters: kind as asked (LINEAR checked). */
static sht_err finish(sht_transform *t, enum sht__tkind kind)
{
	t->slope_s = sht__dec_str(&t->alpha);
	t->offset_s = sht__dec_str(&t->beta);
	if (!t->slope_s || !t->offset_s)
		return SHT_ERR_NOMEM;
	t->kind = kind;
	if (kind == SHT__T_CONSTANT)
		t->const_off = sht__dec_trunc_i64(&t->beta);
	return kind == SHT__T_LINEAR ? linear_setup(t) : SHT_OK;
}

/* A transform of that kind, slope and offset (copied). */
sht_err sht__transform_make(enum sht__tkind kind, const sht__dec *slope,
			    const sht__dec *offset, sht_transform **out)
{
	sht_transform *t = alloc_transform();
	sht_err err;

	if (!t)
		return nomem(NULL);
	sht__dec_set(&t->alpha, slope);
	sht__dec_set(&t->beta, offset);
	err = finish(t, kind);
	if (err == SHT_ERR_NOMEM)
		return nomem(t);
	if (err < 0) {
		sht_transform_free(t);
		return err;
	}
	*out = t;
	return SHT_OK;
}

/* Trace Compass's factory: slope one is an offset (which it requires to
 * be an integer; a fractional one stays linear here). */
sht_err sht__transform_new(const sht__dec *slope, const sht__dec *offset,
			   sht_transform **out)
{
	enum sht__tkind k = SHT__T_LINEAR;

	if (sht__dec_is_i64(slope, 1) && sht__dec_is_integer(offset))
		k = sht__dec_sgn(offset) == 0 ? SHT__T_IDENTITY
					      : SHT__T_CONSTANT;
	return sht__transform_make(k, slope, offset, out);
}

sht_err sht_transform_identity(sht_transform **out)
{
	sht__dec one, zero;
	sht_err err;

	sht__dec_init(&one);
	sht__dec_init(&zero);
	sht__dec_set_i64(&one, 1);
	err = sht__transform_make(SHT__T_IDENTITY, &one, &zero, out);
	sht__dec_clear(&one);
	sht__dec_clear(&zero);
	return err;
}

sht_err sht_transform_create(const char *slope, const char *offset,
			     sht_transform **out)
{
	sht__dec a, b;
	sht_err err;

	if (!slope || !offset || !out)
		return sht__error(SHT_ERR_INVALID, "Cannot create a clock "
				  "transform: NULL argument");
	sht__dec_init(&a);
	sht__dec_init(&b);
	if (sht__dec_parse(&a, slope) != 0 || sht__dec_parse(&b, offset) != 0)
		err = sht__error(SHT_ERR_INVALID, "Cannot create a clock "
				 "transform: slope=\"%.64s\" offset=\"%.64s\" "
				 "is not a plain decimal pair", slope, offset);
	else
		err = sht__transform_new(&a, &b, out);
	sht__dec_clear(&a);
	sht__dec_clear(&b);
	return err;
}

sht_err sht_transform_copy(const sht_transform *t, sht_transform **out)
{
	return sht__transform_make(t->kind, &t->alpha, &t->beta, out);
}

sht_err sht__transform_compose(const sht_transform *a, const sht_transform *b,
			       sht_transform **out)
{
	sht__dec al, be;
	enum sht__tkind kind = SHT__T_LINEAR;
	sht_err err;

	if (a->kind == SHT__T_IDENTITY)
		return sht_transform_copy(b, out);
	if (b->kind == SHT__T_IDENTITY)
		return sht_transform_copy(a, out);
	sht__dec_init(&al);
	sht__dec_init(&be);
	if (a->kind == SHT__T_CONSTANT && b->kind == SHT__T_CONSTANT) {
		sht__dec_set(&al, &a->alpha);
		sht__dec_add(&be, &a->beta, &b->beta);
		kind = sht__dec_sgn(&be) ? SHT__T_CONSTANT : SHT__T_IDENTITY;
	} else {
		sht__dec_mul_mc(&al, &a->alpha, &b->alpha);
		sht__dec_mul_mc(&be, &a->alpha, &b->beta);
		sht__dec_add(&be, &be, &a->beta);
	}
	err = sht__transform_make(kind, &al, &be, out);
	sht__dec_clear(&al);
	sht__dec_clear(&be);
	return err;
}

sht_err sht__transform_inverse(const sht_transform *t, sht_transform **out)
{
	sht__dec one, al, be;
	sht_err err;

	if (t->kind == SHT__T_IDENTITY)
		return sht_transform_copy(t, out);
	sht__dec_init(&one);
	sht__dec_init(&al);
	sht__dec_init(&be);
	sht__dec_set_i64(&one, 1);
	if (t->kind == SHT__T_CONSTANT) {
		sht__dec_neg(&be, &t->beta);
		err = sht__transform_make(SHT__T_CONSTANT, &one, &be, out);
	} else {
		sht__dec_div_mc(&al, &one, &t->alpha);
		sht__dec_neg(&be, &t->beta);
		sht__dec_div_mc(&be, &be, &t->alpha);
		err = sht__transform_make(SHT__T_LINEAR, &al, &be, out);
	}
	sht__dec_clear(&one);
	sht__dec_clear(&al);
	sht__dec_clear(&be);
	return err;
}

bool sht_transform_is_identity(const sht_transform *t)
{
	return t->kind == SHT__T_IDENTITY;
}

const char *sht_transform_slope(const sht_transform *t)
{
	return t->slope_s;
}

const char *sht_transform_offset(const sht_transform *t)
{
	return t->offset_s;
}

/* Java's (x >> n) for a long x. */
static int64_t sar64(int64_t x, int n)
{
	return x < 0 ? ~(int64_t)(~(uint64_t)x >> n) : (int64_t)((uint64_t)x >> n);
}

sht_time sht_transform_apply(sht_transform *t, sht_time ts)
{
	int64_t delta, prod;

	switch (t->kind) {
	case SHT__T_IDENTITY:
		return ts;
	case SHT__T_CONSTANT:
		return (int64_t)((uint64_t)ts + (uint64_t)t->const_off);
	default:
		break;
	}
	delta = (int64_t)((uint64_t)ts - (uint64_t)t->range_start);
	if (delta >= t->delta_max || delta < 0) {
		rescale(t, ts);
		delta = (int64_t)((uint64_t)ts - (uint64_t)t->range_start);
		if (delta < 0 && delta != INT64_MIN)
			delta = -delta;      /* Java's Math.abs */
	}
	prod = (int64_t)((uint64_t)t->alpha_long * (uint64_t)delta);
	return (int64_t)((uint64_t)sar64(prod, t->delta_bits) +
			 (uint64_t)t->range_off);
}
