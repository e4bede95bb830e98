/*
 * crc32c.c: CRC-32C (Castagnoli), used for every checksum of the file
 * format.  Uses the SSE4.2 crc32 instruction when the CPU has it (chosen
 * once, at first use), else a slicing-by-8 table.
 */
#include <pthread.h>

#include "util/util.h"

#define POLY 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (POLY & (0u - (c & 1u)));
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				      table[0][table[t - 1][i] & 0xff];
}

static uint32_t crc_soft(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint64_t w = sht__load_le64(p) ^ crc;
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

/*
 * Combining: crc(A || B) from crc(A), crc(B) and len(B), by multiplying
 * crc(A) by x^(8 len(B)) modulo the polynomial (reflected bit order).
 * Used to run three independent crc32 instruction chains side by side.
 */
static uint32_t multmodp(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
	}
	return p;
}

static uint32_t x2n[32];         /* x^(2^k) mod P */

static void make_x2n(void)
{
	uint32_t p = 1u << 30;   /* x^1 */

	x2n[0] = p;
	for (int k = 1; k < 32; k++)
		x2n[k] = p = multmodp(p, p);
}

/* x^(8 n) mod P. */
static uint32_t shift_bytes(uint64_t n)
{
	uint32_t p = 1u << 31;   /* x^0 */

	for (unsigned k = 3; n; n >>= 1, k++)
		if (n & 1)
			p = multmodp(x2n[k & 31], p);
	return p;
}

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_HW 1
__attribute__((target("sse4.2")))
static uint32_t crc_hw1(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;

	while (n >= 8) {
		c = __builtin_ia32_crc32di(c, sht__load_le64(p));
		p += 8;
		n -= 8;
	}
	crc = (uint32_t)c;
	while (n--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}

/* Raw (not inverted) register values, three chains at once. */
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	static _Thread_local uint64_t last_len;
	static _Thread_local uint32_t last_shift;
	size_t k = (n / 3) & ~(size_t)7;
	uint64_t a = crc, b = 0, c = 0;
	const uint8_t *q = p + k, *r = p + 2 * k;

	if (n < 3072)
		return crc_hw1(crc, p, n);
	for (size_t i = 0; i < k; i += 8) {
		a = __builtin_ia32_crc32di(a, sht__load_le64(p + i));
		b = __builtin_ia32_crc32di(b, sht__load_le64(q + i));
		c = __builtin_ia32_crc32di(c, sht__load_le64(r + i));
	}
	if (last_len != k) {
		last_len = k;
		last_shift = shift_bytes(k);
	}
	/* Raw registers combine linearly: a·x^8k, then b, then ·x^8k, then c. */
	a = multmodp(last_shift, (uint32_t)a) ^ (uint32_t)b;
	a = multmodp(last_shift, (uint32_t)a) ^ (uint32_t)c;
	return crc_hw1((uint32_t)a, p + 3 * k, n - 3 * k);
}
#endif

static int use_hw;

static void init_once(void)
{
	make_table();
	make_x2n();
#ifdef HAVE_HW
	__builtin_cpu_init();
	use_hw = __builtin_cpu_supports("sse4.2");
#endif
}

uint32_t sht__crc32c(uint32_t crc, const void *buf, size_t n)
{
	pthread_once(&table_once, init_once);
	crc = ~crc;
#ifdef HAVE_HW
	if (use_hw)
		return ~crc_hw(crc, buf, n);
#endif
	return ~crc_soft(crc, buf, n);
}
