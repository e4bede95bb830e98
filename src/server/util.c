/*
 * util.c: small helpers of the server: a growing buffer that writes JSON
 * pieces (strings escaped by jansson), name-based UUIDs, time texts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv.h"

/* ---- buffer ------------------------------------------------------------- */

/* Room for more bytes: doubled (by half past 8 MiB, so that an answer
 * of a few tens of MB stays under the server's mmap threshold, see
 * tune_malloc in server.c), or exactly (a reservation). */
static int buf_grow_to(struct srv_buf *b, size_t more, int exact)
{
	size_t cap;
	char *p;

	if (b->oom)
		return -1;
	if (b->len + more + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (!exact && cap < b->len + more + 1)
		cap += cap < (8u << 20) ? cap : cap / 2;
	if (cap < b->len + more + 1)
		cap = b->len + more + 1;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static int buf_grow(struct srv_buf *b, size_t more)
{
	return buf_grow_to(b, more, 0);
}

void srv_buf_put(struct srv_buf *b, const char *s, size_t n)
{
	if (buf_grow(b, n) != 0)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void srv_buf_puts(struct srv_buf *b, const char *s)
{
	srv_buf_put(b, s, strlen(s));
}

void srv_buf_printf(struct srv_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_grow(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *srv_buf_room(struct srv_buf *b, size_t n)
{
	return buf_grow(b, n) == 0 ? b->p + b->len : NULL;
}

void srv_buf_commit(struct srv_buf *b, char *end)
{
	b->len = (size_t)(end - b->p);
	*end = '\0';
}

/* Two digits at a time, from the right. */
static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* v < 10^8 in exactly n digits (leading zeros if it has fewer), two at
 * a time from the right in 32-bit arithmetic; returns the end. */
static char *put_digits(char *p, uint32_t v, unsigned n)
{
	char *e = p + n, *q = e;

	while (q - p >= 2) {
		unsigned d = (v % 100) * 2;

		v /= 100;
		*--q = digits2[d + 1];
		*--q = digits2[d];
	}
	if (q > p)
		*--q = (char)('0' + v);
	return e;
}

/* The number of digits of v < 10^8 (1 for 0). */
static unsigned ndigits(uint32_t v)
{
	static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000,
					   1000000, 10000000 };
	unsigned n = 1;

	while (n < 8 && v >= pow10[n])
		n++;
	return n;
}

/* A time stamp has 19 digits: cut into pieces of at most 8 digits (the
 * first without leading zeros), each written straight to its place. */
char *srv_put_i64(char *p, int64_t v)
{
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	const uint64_t e8 = 100000000, e16 = e8 * e8;
	uint32_t top;

	if (v < 0)
		*p++ = '-';
	if (u < e8)
		return put_digits(p, (uint32_t)u, ndigits((uint32_t)u));
	if (u < e16) {
		top = (uint32_t)(u / e8);
		p = put_digits(p, top, ndigits(top));
		return put_digits(p, (uint32_t)(u % e8), 8);
	}
	top = (uint32_t)(u / e16);              /* < 1845: 4 digits at most */
	u %= e16;
	p = put_digits(p, top, ndigits(top));
	p = put_digits(p, (uint32_t)(u / e8), 8);
	return put_digits(p, (uint32_t)(u % e8), 8);
}

char *srv_put_time(char *p, int64_t v, struct srv_tcache *c)
{
	const uint64_t e8 = 100000000;
	uint64_t hi;

	if (v < (int64_t)e8)
		return srv_put_i64(p, v);
	hi = (uint64_t)v / e8;
	if (hi != c->hi || c->len == 0) {
		c->hi = hi;
		c->len = (unsigned)(srv_put_i64(c->digits, (int64_t)hi) - c->digits);
	}
	memcpy(p, c->digits, c->len);
	return put_digits(p + c->len, (uint32_t)((uint64_t)v % e8), 8);
}

void srv_buf_i64(struct srv_buf *b, int64_t v)
{
	char *p = srv_buf_room(b, 20);

	if (p)
		srv_buf_commit(b, srv_put_i64(p, v));
}

/* jansson's encoder through a callback appending to the buffer. */
static int dump_cb(const char *s, size_t n, void *ctx)
{
	struct srv_buf *b = ctx;

	srv_buf_put(b, s, n);
	return b->oom ? -1 : 0;
}

void srv_buf_reserve(struct srv_buf *b, size_t more)
{
	buf_grow_to(b, more, 1);
}

/* 1 if s needs no escape: printable ASCII without quote or backslash. */
static int plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return 0;
	}
	return 1;
}

void srv_buf_jstr(struct srv_buf *b, const char *s, size_t n)
{
	json_t *j;

	if (plain(s, n)) {            /* the common case, without a json_t */
		if (buf_grow(b, n + 2) != 0)
			return;
		b->p[b->len++] = '"';
		memcpy(b->p + b->len, s, n);
		b->len += n;
		b->p[b->len++] = '"';
		b->p[b->len] = '\0';
		return;
	}
	j = srv_jstrn(s, n);

	if (!j) {
		b->oom = 1;
		return;
	}
	srv_buf_json(b, j);
	json_decref(j);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

json_t *srv_jstrn(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	struct srv_buf b = { 0 };
	json_t *j;
	size_t i = 0, k;

	if (!s)
		return json_string("");
	while (i < n && (k = utf8_len(u + i, n - i)) != 0 && u[i] != 0)
		i += k;
	if (i == n)
		return json_stringn_nocheck(s, n);
	/* Replace each invalid byte (and NUL) by U+FFFD. */
	for (i = 0; i < n; i += k) {
		k = u[i] ? utf8_len(u + i, n - i) : 0;
		if (k)
			srv_buf_put(&b, s + i, k);
		else
			srv_buf_put(&b, "\xef\xbf\xbd", 3), k = 1;
	}
	j = b.oom ? NULL : json_stringn_nocheck(b.p ? b.p : "", b.len);
	srv_buf_free(&b);
	return j;
}

json_t *srv_jstr(const char *s)
{
	return srv_jstrn(s, s ? strlen(s) : 0);
}

/* Reals with 9 significant digits at most: the client's JSON parser
 * (json-bigint) turns every number literal longer than 15 characters
 * into a BigInt, which fails for one with a fraction (jansson's default,
 * 17 digits, writes 0.66 as 0.66000000000000003). */
void srv_buf_json(struct srv_buf *b, const json_t *j)
{
	if (json_dump_callback(j, dump_cb, b, JSON_COMPACT | JSON_ENCODE_ANY |
			       JSON_REAL_PRECISION(9)) != 0)
		b->oom = 1;
}

void srv_buf_double(struct srv_buf *b, double v)
{
	char tmp[40];

	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(tmp, sizeof tmp, "%.0f", v);
	} else {
		/* At most 15 characters (see srv_buf_json). */
		for (int prec = 12; prec > 0; prec--) {
			snprintf(tmp, sizeof tmp, "%.*g", prec, v);
			if (strlen(tmp) <= 15)
				break;
		}
	}
	srv_buf_puts(b, tmp);
}

void srv_buf_free(struct srv_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

/* ---- identities ----------------------------------------------------------- */

/* Two 64-bit FNV-1a hashes with different bases, mixed. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

void srv_uuid(char out[37], const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h1 = UINT64_C(0xcbf29ce484222325), h2 = UINT64_C(0x84222325cbf29ce4);
	unsigned char u[16];

	for (size_t i = 0; i < len; i++) {
		h1 = (h1 ^ p[i]) * UINT64_C(0x100000001b3);
		h2 = (h2 ^ p[len - 1 - i]) * UINT64_C(0x100000001b3);
	}
	h1 = mix64(h1 ^ len);
	h2 = mix64(h2 + h1);
	for (int i = 0; i < 8; i++) {
		u[i] = (unsigned char)(h1 >> (8 * i));
		u[8 + i] = (unsigned char)(h2 >> (8 * i));
	}
	u[6] = (unsigned char)((u[6] & 0x0f) | 0x80);   /* version 8 */
	u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);   /* RFC variant */
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
		 u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

char *srv_itoa(int64_t v, char *buf)
{
	char tmp[24];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0, k = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[k++] = '-';
	while (n)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
	return buf;
}

double srv_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *srv_fmt_duration(sht_time ns, char *buf, size_t size)
{
	static const struct { sht_time div; const char *unit; } u[] = {
		{ 1000000000, "s" }, { 1000000, "ms" }, { 1000, "µs" },
	};

	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
		if (ns >= u[i].div || ns <= -u[i].div) {
			snprintf(buf, size, "%" PRId64 ".%03" PRId64 " %s",
				 ns / u[i].div, (ns < 0 ? -ns : ns) % u[i].div /
				 (u[i].div / 1000), u[i].unit);
			return buf;
		}
	}
	snprintf(buf, size, "%" PRId64 " ns", ns);
	return buf;
}

const char *srv_fmt_time(sht_time ns, char *buf, size_t size)
{
	int64_t s = ns / 1000000000, sub = ns % 1000000000;

	if (sub < 0) {
		sub += 1000000000;
		s--;
	}
	s %= 86400;
	if (s < 0)
		s += 86400;
	snprintf(buf, size, "%02d:%02d:%02d.%03d %03d %03d", (int)(s / 3600),
		 (int)(s / 60 % 60), (int)(s % 60), (int)(sub / 1000000),
		 (int)(sub / 1000 % 1000), (int)(sub % 1000));
	return buf;
}

unsigned srv_serial(void)
{
	static atomic_uint serial;

	return atomic_fetch_add(&serial, 1);
}
