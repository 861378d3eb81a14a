/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster segments (issue #30, docs/ha.md): which of up to 16 segments a
 * packet or an SA belongs to, computed exactly as strongSwan's `ha` plugin
 * and the kernel's ClusterIP do, so that the segment numbers charon moves
 * between two nodes name the same peers and SAs here.
 *
 * The hash is Bob Jenkins' lookup3 final() mix as Linux (>= 4.1) uses it in
 * jhash_1word(a, 0) and jhash_2words(a, b, 0): the three words start at
 * 0xdeadbeef + 4 * (number of words), a and b are added, then the final
 * mix; the result is the third word. The segment is the hash scaled onto
 * 1..count: ((uint64_t)hash * count >> 32) + 1.
 *
 *   IKE and other non-ESP traffic: the peer's IPv4 address, jhash_1word
 *     (an IPv6 peer counts as address 0, as the plugin's host2int() does)
 *   inbound ESP: jhash_2words(local/cluster destination address, SPI)
 *   outbound ESP: jhash_2words(peer address, outbound SPI)
 * Addresses and SPIs in host byte order (the plugin's ntohl()).
 *
 * Header only, plain C (no DPDK): the unit test test/gw/test_ha_seg.c
 * includes it without EAL.
 */
#ifndef VECSEC_GW_HA_SEG_H
#define VECSEC_GW_HA_SEG_H

#include <stdint.h>

/* the plugin's SEGMENTS_MAX: the mask of active segments is 16 bits */
#define GW_HA_SEG_MAX 16

static inline uint32_t
gw_ha_rol32(uint32_t x, unsigned int k)
{
	return (x << k) | (x >> (32 - k));
}

/* lookup3's final(a, b, c) after adding the initial value to all three; returns c */
static inline uint32_t
gw_ha_jhash_words(uint32_t a, uint32_t b, uint32_t nwords)
{
	uint32_t iv = 0xdeadbeefu + (nwords << 2);
	uint32_t c = iv;

	a += iv;
	b += iv;
	c ^= b; c -= gw_ha_rol32(b, 14);
	a ^= c; a -= gw_ha_rol32(c, 11);
	b ^= a; b -= gw_ha_rol32(a, 25);
	c ^= b; c -= gw_ha_rol32(b, 16);
	a ^= c; a -= gw_ha_rol32(c, 4);
	b ^= a; b -= gw_ha_rol32(a, 14);
	c ^= b; c -= gw_ha_rol32(b, 24);
	return c;
}

/* Linux jhash_1word(a, 0) */
static inline uint32_t
gw_ha_jhash1(uint32_t a)
{
	return gw_ha_jhash_words(a, 0, 1);
}

/* Linux jhash_2words(a, b, 0) */
static inline uint32_t
gw_ha_jhash2(uint32_t a, uint32_t b)
{
	return gw_ha_jhash_words(a, b, 2);
}

/* a hash onto segments 1..count (count 1..GW_HA_SEG_MAX) */
static inline unsigned int
gw_ha_seg_of_hash(uint32_t hash, unsigned int count)
{
	return (unsigned int)(((uint64_t)hash * count) >> 32) + 1;
}

/* segment of a peer (IKE, non-ESP); ip4 in host order, 0 for an IPv6 peer */
static inline unsigned int
gw_ha_seg_host(uint32_t ip4, unsigned int count)
{
	return gw_ha_seg_of_hash(gw_ha_jhash1(ip4), count);
}

/*
 * Segment of an SA: inbound (cluster/destination address, SPI), outbound
 * (peer address, SPI); host order; address 0 for IPv6 (the SPI still spreads).
 */
static inline unsigned int
gw_ha_seg_sa(uint32_t ip4, uint32_t spi, unsigned int count)
{
	/* the plugin's jhash(a, b) takes the one-word form when b is 0 */
	return gw_ha_seg_of_hash(spi ? gw_ha_jhash2(ip4, spi) : gw_ha_jhash1(ip4), count);
}

/* the bit of segment seg (1..16) in a 16-bit active mask */
static inline uint16_t
gw_ha_seg_bit(unsigned int seg)
{
	return (uint16_t)(1u << (seg - 1));
}

#endif /* VECSEC_GW_HA_SEG_H */
