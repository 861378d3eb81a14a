/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, AVX-512 IFMA: radix 2^44 (the state's own form, no
 * conversion), 8 blocks per zmm, two accumulators over alternate 128-byte
 * chunks (16 blocks = 256 bytes per step, Horner with r^16), products by
 * VPMADD52LUQ/HUQ (poly1305_avx512ifma.h). RFC 8439 2.5. r^1..r^16 are kept
 * in the state's ext[]. A count not a multiple of 8 starts with a partial
 * chunk (masked loads, front-padded with blocks that add nothing); fewer
 * than 16 blocks go through the radix-2^64 loop (poly1305_scalar64.c).
 */
#include <immintrin.h>

#include "poly1305_internal.h"
#include "poly1305_avx512ifma.h"

/*
 * Below 16 blocks the powers of r cost more than they save: at 128 bytes
 * this impl and the reference both cost ~205 TSC cycles, at 256 bytes this
 * impl ~220 against ~390 (one call, powers of r included; lightly loaded
 * 2-core Xeon with IFMA). Shorter calls (the stitched AEAD's tails and
 * lengths block) take the radix-2^64 loop, about 12 TSC cycles a block on
 * a Sapphire Rapids class Xeon, rather than the radix-2^44 reference.
 */
#define MIN_BLOCKS 16

/*
 * Dispatch's bound (min_len): a whole call (one-shot MAC, update) takes
 * the radix-2^64 loop below it. Set on a Sapphire Rapids class Xeon, TSC
 * cycles per one-shot MAC: 256 B ~192 radix 2^64 against ~295 here, 384 B
 * ~290 against ~325, 448 B ~336 against ~345, 512 B ~384 against ~343.
 * Other CPUs have their own bound, never lower (vecsec_tune(); a Zen 5:
 * 768 B), which poly1305.c applies on top of this one.
 */
#define IFMA_MIN_LEN (28 * POLY1305_BLOCK_LEN)

void
vecsec_poly1305_blocks_avx512ifma(struct poly1305_state *st, const uint8_t *in,
				  size_t nblocks, uint32_t pad)
{
	const __m512i hibit = _mm512_set1_epi64((long long)(pad & 1) << 40);
	const size_t k = nblocks % 8;
	/*
	 * The secrets in one place, wiped by one call at the end: the loop's
	 * block and r^16 share their room with the last chunks' multiplier
	 * (944 bytes to wipe, not 1560: at 64 blocks the wipe was ~60 of
	 * ~360 TSC cycles on a Zen 4).
	 */
	struct {
		struct p44v a, b;
		union {
			struct {
				struct p44v m;
				struct p44v_mulr r16;
			} loop;
			struct p44v_mulr rl;
		} u;
		uint64_t h[3], r2[3];
	} w;
	size_t rest;

	if (nblocks < MIN_BLOCKS) {
		vecsec_poly1305_blocks_scalar64(st, in, nblocks, pad);
		return;
	}
	p44v_powers(st, &vecsec_poly1305_impl_avx512ifma, w.r2);
	w.h[0] = st->h[0];
	w.h[1] = st->h[1];
	w.h[2] = st->h[2];
	p44v_mulr_bcast(&w.u.loop.r16, st->ext, 16);
	/*
	 * Chunks of 8 blocks, a partial one first (front-padded with blocks
	 * that add nothing); a takes chunks 0, 2, 4..., b chunks 1, 3, 5...,
	 * each by Horner with r^16. Whichever holds the last chunk gets
	 * r^(8-j) on block j, the other r^(16-j).
	 */
	if (k != 0) {
		p44v_load_first(&w.a, in, k, hibit, w.h);
		in += 16 * k;
	} else {
		p44v_load_h(&w.a, in, hibit, w.h);
		in += 128;
	}
	p44v_load(&w.b, in, hibit);
	in += 128;
	for (rest = (nblocks + 7) / 8 - 2; rest >= 2; rest -= 2, in += 256) {
		p44v_load(&w.u.loop.m, in, hibit);
		p44v_mul(&w.a, &w.u.loop.r16, &w.u.loop.m);
		p44v_load(&w.u.loop.m, in + 128, hibit);
		p44v_mul(&w.b, &w.u.loop.r16, &w.u.loop.m);
	}
	if (rest == 1) {
		p44v_load(&w.u.loop.m, in, hibit);
		p44v_mul(&w.a, &w.u.loop.r16, &w.u.loop.m);
	}
	/* a: r^(16-j) when b holds the last chunk, else the other way round */
	p44v_mulr_last(&w.u.rl, st->ext, rest == 1 ? 8 : 16);
	p44v_mul_last(&w.a, &w.u.rl);
	p44v_mulr_last(&w.u.rl, st->ext, rest == 1 ? 16 : 8);
	p44v_mul_last(&w.b, &w.u.rl);
	p44v_add(&w.a, &w.b);
	p44v_hsum(w.h, &w.a);
	st->h[0] = w.h[0];
	st->h[1] = w.h[1];
	st->h[2] = w.h[2];
	/* r powers and accumulators are secret: wipe the copies the compiler spilled */
	vecsec_memzero(&w, sizeof(w));
}

const struct poly1305_impl vecsec_poly1305_impl_avx512ifma = {
	.name = "avx512ifma",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
		 VECSEC_CPU_AVX512IFMA,
	.min_len = IFMA_MIN_LEN,
	.blocks = vecsec_poly1305_blocks_avx512ifma,
	.lanes = 16,
	.lanes_name = "x16-avx512ifma",
	.blocks_lanes = vecsec_poly1305_blocks_lanes_x16_avx512ifma,
	.tags_lanes = vecsec_poly1305_tags_lanes_avx512ifma,
};

/* The same ISA with its 8-lane kernel (the burst's general passes prefer it). */
const struct poly1305_impl vecsec_poly1305_impl_avx512ifma_x8 = {
	.name = "avx512ifma",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
		 VECSEC_CPU_AVX512IFMA,
	.min_len = IFMA_MIN_LEN,
	.blocks = vecsec_poly1305_blocks_avx512ifma,
	.lanes = 8,
	.lanes_name = "x8-avx512ifma",
	.blocks_lanes = vecsec_poly1305_blocks_lanes_x8_avx512ifma,
	.tags_lanes = vecsec_poly1305_tags_lanes_avx512ifma,
};
