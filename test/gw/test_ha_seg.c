/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cluster segment hash (apps/vecsec-gw/ha_seg.h) against the values of
 * strongSwan 5.9.8's `ha` plugin with segment_count 2 (jhash for kernels
 * >= 4.1): 192.168.0.100 -> 0x829629eb, segment 2 (carol in strongSwan's
 * ha/both-active test); 192.168.0.200 -> 0x40df4404, segment 1 (dave);
 * 0.0.0.0 (every IPv6 peer) -> segment 1; the SA (192.168.0.5, SPI
 * 0xc1234567) -> 0x82504be1, segment 2. Then the scaling on every count
 * 1..16 (always 1..count, each segment reached, none far from its share).
 * Plain C, no EAL.
 */
#include <stdint.h>
#include <stdio.h>

#include "ha_seg.h"

static int failed;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("FAIL %s:%d: ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failed++; \
	} \
} while (0)

static uint32_t
ip4(unsigned int a, unsigned int b, unsigned int c, unsigned int d)
{
	return (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
}

static void
check_vectors(void)
{
	uint32_t h;

	h = gw_ha_jhash1(ip4(192, 168, 0, 100));
	CHECK(h == 0x829629ebu, "jhash1(192.168.0.100) = 0x%08x", h);
	CHECK(gw_ha_seg_host(ip4(192, 168, 0, 100), 2) == 2, "192.168.0.100 not in segment 2");
	h = gw_ha_jhash1(ip4(192, 168, 0, 200));
	CHECK(h == 0x40df4404u, "jhash1(192.168.0.200) = 0x%08x", h);
	CHECK(gw_ha_seg_host(ip4(192, 168, 0, 200), 2) == 1, "192.168.0.200 not in segment 1");
	CHECK(gw_ha_seg_host(0, 2) == 1, "address 0 not in segment 1");
	h = gw_ha_jhash2(ip4(192, 168, 0, 5), 0xc1234567u);
	CHECK(h == 0x82504be1u, "jhash2(192.168.0.5, 0xc1234567) = 0x%08x", h);
	CHECK(gw_ha_seg_sa(ip4(192, 168, 0, 5), 0xc1234567u, 2) == 2,
	      "SA (192.168.0.5, 0xc1234567) not in segment 2");
	/* SPI 0 is the one-word hash, as the plugin's jhash(a, 0) */
	CHECK(gw_ha_seg_sa(ip4(192, 168, 0, 100), 0, 2) == 2, "SPI 0 is not the host hash");
	/* the scaling's ends */
	CHECK(gw_ha_seg_of_hash(0, 16) == 1, "hash 0");
	CHECK(gw_ha_seg_of_hash(0xffffffffu, 16) == 16, "hash ~0");
	CHECK(gw_ha_seg_bit(1) == 1 && gw_ha_seg_bit(16) == 0x8000, "segment bits");
}

/* every count: each segment in range, each reached, shares near 1/count */
static void
check_spread(void)
{
	enum { N = 65536 };
	unsigned int count, i, s;

	for (count = 1; count <= GW_HA_SEG_MAX; count++) {
		unsigned int hits[GW_HA_SEG_MAX + 1] = { 0 };

		for (i = 0; i < N; i++) {
			s = gw_ha_seg_sa(ip4(10, 0, 0, 1), 0xc0000000u + i, count);
			if (s < 1 || s > count) {
				CHECK(0, "count %u: segment %u out of range", count, s);
				return;
			}
			hits[s]++;
		}
		for (s = 1; s <= count; s++)
			CHECK(hits[s] > N / count * 9 / 10 && hits[s] < N / count * 11 / 10,
			      "count %u: segment %u has %u of %u", count, s, hits[s], N);
	}
}

int
main(void)
{
	check_vectors();
	check_spread();
	if (failed) {
		printf("ha-seg: %d check(s) failed\n", failed);
		return 1;
	}
	printf("ha-seg: vectors and spread ok\n");
	return 0;
}
