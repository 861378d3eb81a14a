/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, portable 64-bit: radix 2^64 (poly1305_64.h), one block at a
 * time with four 64x64->128 products, no precomputation at all. The
 * dispatch choice below the SIMD entries' min_len (and the whole of the
 * scalar and SSSE3 levels), and the tail path of the AVX2 kernel. blocks()
 * converts from and to the radix-2^44 state; mac() is the whole one-shot
 * MAC without a context. RFC 8439 2.5; constant time.
 */
#include "poly1305_internal.h"
#include "poly1305_64.h"

void
vecsec_poly1305_blocks_scalar64(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
				uint32_t pad)
{
	struct poly1305_64 p;

	if (nblocks == 0)
		return;
	p64_from44(&p, st);
	p64_blocks(&p, in, nblocks, pad & 1);
	p64_to44(st, &p);
	vecsec_wipe(&p, sizeof(p));
}

#if defined(__x86_64__)
#define MAC_SCALAR64 vecsec_poly1305_mac64_x86_64
#else
#define MAC_SCALAR64 mac_scalar64

static int
mac_scalar64(uint8_t tag[16], const uint8_t *in, size_t len, const uint8_t key[32])
{
	struct poly1305_64 p;

	p64_init(&p, key);
	p64_blocks(&p, in, len / 16, 1);
	if (len % 16 != 0)
		p64_last(&p, in + len - len % 16, len % 16);
	p64_tag(tag, &p, key + 16);
	vecsec_wipe(&p, sizeof(p));
	return 0;
}
#endif

const struct poly1305_impl vecsec_poly1305_impl_scalar64 = {
	.name = "scalar64",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.min_len = 0,
	.blocks = vecsec_poly1305_blocks_scalar64,
	.mac = MAC_SCALAR64,
	/* no lane kernel: bursts use the reference's per-lane form */
	.lanes = 0,
	.lanes_name = NULL,
	.blocks_lanes = NULL,
};
