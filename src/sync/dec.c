/*
 * dec.c: decimal arithmetic with BigDecimal's MathContext.DECIMAL128
 * rounding (dec.h), over GMP integers.
 *
 * Rounding keeps the SHT__DEC_PREC leading digits of the exact result and
 * looks at what it drops: above half a unit of the last kept digit it
 * rounds away from zero, below it truncates, and at exactly half it makes
 * the last digit even.  A division computes enough quotient digits to
 * have more than SHT__DEC_PREC of them and remembers whether a remainder
 * was left ("sticky"), which decides the exact-half case: the rounding is
 * that of the exact quotient.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sync/dec.h"

void sht__dec_init(sht__dec *d)
{
	mpz_init(d->c);
	d->e = 0;
}

void sht__dec_clear(sht__dec *d)
{
	mpz_clear(d->c);
}

/* Strip the coefficient's trailing zeros (zero: exponent 0). */
static void normalize(sht__dec *d)
{
	if (mpz_sgn(d->c) == 0) {
		d->e = 0;
		return;
	}
	while (mpz_divisible_ui_p(d->c, 10)) {
		mpz_divexact_ui(d->c, d->c, 10);
		d->e++;
	}
}

void sht__dec_set(sht__dec *d, const sht__dec *s)
{
	mpz_set(d->c, s->c);
	d->e = s->e;
}

void sht__dec_set_i64(sht__dec *d, int64_t v)
{
	/* mpz_set_si takes a long: 64 bits on the platforms we build on. */
	_Static_assert(sizeof(long) == 8, "long must hold an int64");
	mpz_set_si(d->c, (long)v);
	d->e = 0;
	normalize(d);
}

/* Decimal digits of |x| (x != 0). */
static size_t digits(const mpz_t x)
{
	size_t n = mpz_sizeinbase(x, 10);   /* exact or one too many */
	mpz_t p;
	int below;

	if (n <= 1)
		return 1;
	mpz_init(p);
	mpz_ui_pow_ui(p, 10, n - 1);
	below = mpz_cmpabs(x, p) < 0;
	mpz_clear(p);
	return below ? n - 1 : n;
}

/* c * 10^k into r (k >= 0). */
static void scale_up(mpz_t r, const mpz_t c, uint64_t k)
{
	mpz_t p;

	mpz_init(p);
	mpz_ui_pow_ui(p, 10, k);
	mpz_mul(r, c, p);
	mpz_clear(p);
}

/* Both operands on the smaller exponent: *ca, *cb, that exponent. */
static int64_t align(mpz_t ca, mpz_t cb, const sht__dec *a, const sht__dec *b)
{
	int64_t e = a->e < b->e ? a->e : b->e;

	scale_up(ca, a->c, (uint64_t)(a->e - e));
	scale_up(cb, b->c, (uint64_t)(b->e - e));
	return e;
}

/* r = a + b, or a - b if sub. */
static void add_sub(sht__dec *r, const sht__dec *a, const sht__dec *b,
		    int sub)
{
	mpz_t ca, cb;
	int64_t e;

	mpz_inits(ca, cb, NULL);
	e = align(ca, cb, a, b);
	if (sub)
		mpz_sub(r->c, ca, cb);
	else
		mpz_add(r->c, ca, cb);
	r->e = e;
	mpz_clears(ca, cb, NULL);
	normalize(r);
}

void sht__dec_add(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	add_sub(r, a, b, 0);
}

void sht__dec_sub(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	add_sub(r, a, b, 1);
}

void sht__dec_mul(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	int64_t e = a->e + b->e;

	mpz_mul(r->c, a->c, b->c);
	r->e = e;
	normalize(r);
}

void sht__dec_neg(sht__dec *r, const sht__dec *a)
{
	mpz_neg(r->c, a->c);
	r->e = a->e;
}

/*
 * Keep the SHT__DEC_PREC leading digits of c (which has n digits, n >
 * SHT__DEC_PREC), rounding half to even; sticky: a nonzero part below c
 * was already dropped.  Returns the number of digits dropped.
 */
static uint64_t round_coef(mpz_t c, size_t n, int sticky)
{
	uint64_t drop = n - SHT__DEC_PREC;
	mpz_t p, q, rem, half;
	int cmp, neg = mpz_sgn(c) < 0;

	mpz_inits(p, q, rem, half, NULL);
	mpz_ui_pow_ui(p, 10, drop);
	mpz_tdiv_qr(q, rem, c, p);           /* truncated: rem has c's sign */
	mpz_abs(rem, rem);
	mpz_tdiv_q_ui(half, p, 2);           /* 5 * 10^(drop-1) */
	cmp = mpz_cmp(rem, half);
	if (cmp == 0 && sticky)
		cmp = 1;
	if (cmp > 0 || (cmp == 0 && mpz_odd_p(q))) {
		if (neg)
			mpz_sub_ui(q, q, 1);
		else
			mpz_add_ui(q, q, 1);
	}
	mpz_swap(c, q);
	mpz_clears(p, q, rem, half, NULL);
	return drop;
}

void sht__dec_round(sht__dec *d)
{
	size_t n;

	if (mpz_sgn(d->c) == 0)
		return;
	n = digits(d->c);
	if (n <= SHT__DEC_PREC)
		return;
	d->e += (int64_t)round_coef(d->c, n, 0);
	normalize(d);
}

void sht__dec_add_mc(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	sht__dec_add(r, a, b);
	sht__dec_round(r);
}

void sht__dec_mul_mc(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	sht__dec_mul(r, a, b);
	sht__dec_round(r);
}

int sht__dec_div_mc(sht__dec *r, const sht__dec *a, const sht__dec *b)
{
	mpz_t num, q, rem;
	int64_t k, e;
	size_t n;

	if (mpz_sgn(b->c) == 0) {
		mpz_set_ui(r->c, 0);
		r->e = 0;
		return -1;
	}
	if (mpz_sgn(a->c) == 0) {
		mpz_set_ui(r->c, 0);
		r->e = 0;
		return 0;
	}
	/* a*10^k / b has more than SHT__DEC_PREC digits. */
	k = (int64_t)SHT__DEC_PREC + 1 + (int64_t)digits(b->c) -
	    (int64_t)digits(a->c);
	if (k < 0)
		k = 0;
	e = a->e - b->e - k;
	mpz_inits(num, q, rem, NULL);
	scale_up(num, a->c, (uint64_t)k);
	mpz_tdiv_qr(q, rem, num, b->c);
	n = digits(q);
	if (n > SHT__DEC_PREC)
		e += (int64_t)round_coef(q, n, mpz_sgn(rem) != 0);
	mpz_swap(r->c, q);
	r->e = e;
	mpz_clears(num, q, rem, NULL);
	normalize(r);
	return 0;
}

int sht__dec_cmp(const sht__dec *a, const sht__dec *b)
{
	mpz_t ca, cb;
	int c;

	if (a->e == b->e)
		return mpz_cmp(a->c, b->c);
	mpz_inits(ca, cb, NULL);
	align(ca, cb, a, b);
	c = mpz_cmp(ca, cb);
	mpz_clears(ca, cb, NULL);
	return c;
}

int sht__dec_sgn(const sht__dec *a)
{
	return mpz_sgn(a->c);
}

int sht__dec_is_i64(const sht__dec *d, int64_t v)
{
	sht__dec x;
	int eq;

	sht__dec_init(&x);
	sht__dec_set_i64(&x, v);
	eq = sht__dec_cmp(d, &x) == 0;
	sht__dec_clear(&x);
	return eq;
}

int sht__dec_is_integer(const sht__dec *d)
{
	return d->e >= 0;       /* normalized: no trailing zeros */
}

int64_t sht__dec_trunc_i64(const sht__dec *d)
{
	mpz_t t, p;
	uint64_t u;

	mpz_inits(t, p, NULL);
	if (d->e >= 0) {
		/* Only the low 64 bits matter: 10^e mod 2^64 would do, but
		 * an exponent above 64 already makes them all zero. */
		if (d->e < 64)
			scale_up(t, d->c, (uint64_t)d->e);
	} else if (-d->e < 4096) {
		mpz_ui_pow_ui(p, 10, (unsigned long)-d->e);
		mpz_tdiv_q(t, d->c, p);
	}
	mpz_fdiv_r_2exp(t, t, 64);           /* two's complement, mod 2^64 */
	u = (uint64_t)mpz_get_ui(t);
	mpz_clears(t, p, NULL);
	return (int64_t)u;
}

char *sht__dec_str(const sht__dec *d)
{
	char *digs = mpz_get_str(NULL, 10, d->c), *out, *o;
	const char *s = digs;
	size_t n, len, intd;
	int neg;

	if (!digs)
		return NULL;
	neg = *s == '-';
	s += neg;
	n = strlen(s);
	if (d->e >= 0) {                 /* digits then e zeros */
		len = (size_t)neg + n + (size_t)d->e + 1;
		out = malloc(len);
		if (out) {
			o = out;
			if (neg)
				*o++ = '-';
			memcpy(o, s, n);
			memset(o + n, '0', (size_t)d->e);
			o[n + (size_t)d->e] = '\0';
		}
	} else {                         /* a point -e digits from the end */
		size_t frac = (size_t)-d->e;

		intd = n > frac ? n - frac : 0;
		len = (size_t)neg + (intd ? intd : 1) + 1 + frac + 1;
		out = malloc(len);
		if (out) {
			o = out;
			if (neg)
				*o++ = '-';
			if (intd) {
				memcpy(o, s, intd);
				o += intd;
			} else {
				*o++ = '0';
			}
			*o++ = '.';
			if (frac > n) {
				memset(o, '0', frac - n);
				o += frac - n;
			}
			memcpy(o, s + intd, n - intd);
			o[n - intd] = '\0';
		}
	}
	free(digs);
	return out;
}

int sht__dec_parse(sht__dec *d, const char *s)
{
	size_t len = strlen(s), i, frac = 0;
	int neg = 0, point = 0, any = 0;
	char *buf, *b;

	if (len == 0 || len > 4096)
		return -1;
	buf = malloc(len + 1);
	if (!buf)
		return -1;
	b = buf;
	i = 0;
	if (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-';
		i = 1;
	}
	for (; i < len; i++) {
		if (s[i] == '.' && !point) {
			point = 1;
		} else if (isdigit((unsigned char)s[i])) {
			*b++ = s[i];
			any = 1;
			frac += (size_t)point;
		} else {
			free(buf);
			return -1;
		}
	}
	*b = '\0';
	if (!any) {
		free(buf);
		return -1;
	}
	mpz_set_str(d->c, buf, 10);
	free(buf);
	if (neg)
		mpz_neg(d->c, d->c);
	d->e = -(int64_t)frac;
	normalize(d);
	return 0;
}
