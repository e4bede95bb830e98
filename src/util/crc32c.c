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

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_HW 1
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
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
#endif

static int use_hw;

static void init_once(void)
{
	make_table();
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
