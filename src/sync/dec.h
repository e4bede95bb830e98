/*
 * dec.h: decimal numbers for trace synchronization, with the arithmetic
 * of Java's BigDecimal under MathContext.DECIMAL128, which Trace Compass
 * uses for its clock transforms: a value is an integer coefficient times a
 * power of ten, exact operations are exact, and rounded operations give
 * the exact result rounded to 34 significant digits, half to even.
 * Private to src/sync/.
 *
 * Values are kept normalized (no trailing zero in the coefficient; zero
 * is 0 x 10^0): only values are compared, never representations, and the
 * text form is plain decimal notation without an exponent, e.g.
 * "0.9999413783703139011056845831168394".  The coefficient is a GMP
 * integer (libgmp), so intermediate results never overflow.
 */
#ifndef SHT_SYNC_DEC_H
#define SHT_SYNC_DEC_H

#include <gmp.h>
#include <stdint.h>

/* Digits of MathContext.DECIMAL128. */
#define SHT__DEC_PREC 34

typedef struct sht__dec {
	mpz_t c;                  /* coefficient */
	int64_t e;                /* value = c * 10^e */
} sht__dec;

void sht__dec_init(sht__dec *d);          /* 0 */
void sht__dec_clear(sht__dec *d);
void sht__dec_set(sht__dec *d, const sht__dec *s);
void sht__dec_set_i64(sht__dec *d, int64_t v);

/* Exact: r = a + b, a - b, a * b, -a (r may alias a or b). */
void sht__dec_add(sht__dec *r, const sht__dec *a, const sht__dec *b);
void sht__dec_sub(sht__dec *r, const sht__dec *a, const sht__dec *b);
void sht__dec_mul(sht__dec *r, const sht__dec *a, const sht__dec *b);
void sht__dec_neg(sht__dec *r, const sht__dec *a);

/* Round d to SHT__DEC_PREC significant digits, half to even. */
void sht__dec_round(sht__dec *d);
/* Rounded operations (BigDecimal's add, multiply, divide with the
 * MathContext): r = round(a + b), round(a * b), round(a / b).  Division
 * by zero leaves r = 0 and returns -1 (else 0). */
void sht__dec_add_mc(sht__dec *r, const sht__dec *a, const sht__dec *b);
void sht__dec_mul_mc(sht__dec *r, const sht__dec *a, const sht__dec *b);
int sht__dec_div_mc(sht__dec *r, const sht__dec *a, const sht__dec *b);

int sht__dec_cmp(const sht__dec *a, const sht__dec *b);
int sht__dec_sgn(const sht__dec *a);
/* 1 if d is exactly the integer v. */
int sht__dec_is_i64(const sht__dec *d, int64_t v);
/* 1 if d has no fractional part. */
int sht__dec_is_integer(const sht__dec *d);

/* BigDecimal.longValue(): the integer part (truncated toward zero), its
 * low 64 bits as a two's-complement int64. */
int64_t sht__dec_trunc_i64(const sht__dec *d);

/* Plain decimal text (malloc'd; NULL when out of memory). */
char *sht__dec_str(const sht__dec *d);
/* Parse "[-]digits[.digits]" (plain notation only, at most 4096
 * characters): 0, or -1 if s is not such a number (d unchanged). */
int sht__dec_parse(sht__dec *d, const char *s);

#endif /* SHT_SYNC_DEC_H */
