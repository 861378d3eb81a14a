/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, AVX2: 4 blocks per step, one per 64-bit lane, radix 2^26 (five
 * limbs, VPMULUDQ 32x32->64 products). Lane j runs Horner's rule with r^4
 * over blocks j, j+4, j+8, ...; the last step multiplies lane j by
 * r^(4-j) and the lanes are summed (RFC 8439 2.5, evaluated as
 * sum m_i r^(n-i)). r^1..r^4 are kept in the state's ext[] (radix 2^26).
 * Fewer than 16 blocks, and the n mod 4 last ones, go through the reference.
 */
#include <immintrin.h>

#include "poly1305_internal.h"
#include "poly1305_avx2.h"

/* The vector loop needs two 4-block steps; shorter calls go to radix 2^64. */
#define MIN_BLOCKS 8

void
vecsec_poly1305_blocks_avx2(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
			    uint32_t pad)
{
	static const int p4[4] = { 4, 4, 4, 4 }, plast[4] = { 4, 2, 3, 1 };
	const __m256i hibit = _mm256_set1_epi64x((long long)(pad & 1) << 24);
	struct p26v acc, m, r4, rl;
	__m256i s4[5], sl[5];
	uint64_t h[5], h44[3];
	size_t nv;

	if (nblocks < MIN_BLOCKS) {
		vecsec_poly1305_blocks_scalar64(st, in, nblocks, pad);
		return;
	}
	nv = nblocks & ~(size_t)3;
	p26v_powers(st);
	p26v_pow(&r4, s4, st->ext, p4);

	h44[0] = st->h[0];
	h44[1] = st->h[1];
	h44[2] = st->h[2];
	p44_carry(h44);
	p44_to_26(h, h44);
	p26v_load(&acc, in, hibit);
	for (int i = 0; i < 5; i++)
		acc.v[i] = _mm256_add_epi64(acc.v[i], _mm256_set_epi64x(0, 0, 0, (long long)h[i]));
	for (size_t b = 4; b < nv; b += 4) {
		p26v_mul(&acc, &r4, s4);
		p26v_load(&m, in + 16 * b, hibit);
		p26v_add(&acc, &m);
	}
	p26v_pow(&rl, sl, st->ext, plast);
	p26v_mul(&acc, &rl, sl);
	for (int i = 0; i < 5; i++)
		h[i] = p26v_hsum(acc.v[i]);
	p26_carry(h);
	p26_to_44(st->h, h);
	/* r powers and accumulators are secret: wipe the copies the compiler spilled */
	vecsec_memzero(h, sizeof(h));
	vecsec_memzero(h44, sizeof(h44));
	vecsec_memzero(&acc, sizeof(acc));
	vecsec_memzero(&m, sizeof(m));
	vecsec_memzero(&r4, sizeof(r4));
	vecsec_memzero(&rl, sizeof(rl));
	vecsec_memzero(s4, sizeof(s4));
	vecsec_memzero(sl, sizeof(sl));
	if (nblocks > nv)
		vecsec_poly1305_blocks_scalar64(st, in + 16 * nv, nblocks - nv, pad);
}

const struct poly1305_impl vecsec_poly1305_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	/*
	 * Measured (vecsec-bench --case poly1305 --isa ssse3,avx2, AMD EPYC
	 * Zen 3, TSC cycles/byte, radix 2^64 / this): 1420 B 0.80 / 0.96-1.02,
	 * 2048 B 0.76-0.80 / 0.73-0.77, 4096 B 0.75-0.78 / 0.58-0.62.
	 */
	.min_len = 2048,
	.blocks = vecsec_poly1305_blocks_avx2,
	.lanes = 4,
	.lanes_name = "x4-avx2",
	.blocks_lanes = vecsec_poly1305_blocks_lanes_x4_avx2,
};
