/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, AVX2 + GFNI (the avx2_gfni flag set): 32
 * blocks per step byte-sliced in 16 ymm (aria_bs.h), the s-boxes as
 * VEX GF2P8AFFINEINVQB / GF2P8AFFINEQB, the diffusion layer as VPXOR.
 * Tails: 17..31 blocks one ymm step through a buffer, 1..16 an xmm step.
 * Counters are generated in registers. No table is indexed by key, data
 * or counter.
 */
#include <stdalign.h>
#include <string.h>

#include <immintrin.h>

#include "aria_internal.h"

/* ---- 32 blocks, ymm ---- */
#define BS_V __m256i
#define BS_LANES 2
#define BS_FN(name) name##_x32
#define BS_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define BS_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define BS_ZERO() _mm256_setzero_si256()
#define BS_XOR(a, b) _mm256_xor_si256((a), (b))
#define BS_XOR3(a, b, c) _mm256_xor_si256(_mm256_xor_si256((a), (b)), (c))
#define BS_AND(a, b) _mm256_and_si256((a), (b))
#define BS_BCAST(b) _mm256_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm256_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm256_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm256_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm256_sub_epi8((a), (b))
/* unsigned a > b as a signed compare after flipping the top bits */
#define BS_GT_U8(a, b) _mm256_cmpgt_epi8(_mm256_xor_si256((a), _mm256_set1_epi8(-128)), \
					 _mm256_xor_si256((b), _mm256_set1_epi8(-128)))
#define BS_MAT(m) _mm256_set1_epi64x((long long)(m))
#define BS_SB1(v) _mm256_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_AES), 0x63)
#define BS_SB2(v) _mm256_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_SB2), 0xe2)
#define BS_SB3(v) _mm256_gf2p8affineinv_epi64_epi8( \
	_mm256_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_AES_INV), 0x05), BS_MAT(BS_MAT_ID), 0)
#define BS_SB4(v) _mm256_gf2p8affineinv_epi64_epi8( \
	_mm256_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_SB4_PRE), 0x2c), BS_MAT(BS_MAT_ID), 0)
#define BS_BLOCK_INDEX bs_block_index_x2
#include "aria_bs.h"

/* ---- 16 blocks, xmm ---- */
#define BS_V __m128i
#define BS_LANES 1
#define BS_FN(name) name##_x16
#define BS_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define BS_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define BS_ZERO() _mm_setzero_si128()
#define BS_XOR(a, b) _mm_xor_si128((a), (b))
#define BS_XOR3(a, b, c) _mm_xor_si128(_mm_xor_si128((a), (b)), (c))
#define BS_AND(a, b) _mm_and_si128((a), (b))
#define BS_BCAST(b) _mm_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm_sub_epi8((a), (b))
#define BS_GT_U8(a, b) _mm_cmpgt_epi8(_mm_xor_si128((a), _mm_set1_epi8(-128)), \
				      _mm_xor_si128((b), _mm_set1_epi8(-128)))
#define BS_MAT(m) _mm_set1_epi64x((long long)(m))
#define BS_SB1(v) _mm_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_AES), 0x63)
#define BS_SB2(v) _mm_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_SB2), 0xe2)
#define BS_SB3(v) _mm_gf2p8affineinv_epi64_epi8( \
	_mm_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_AES_INV), 0x05), BS_MAT(BS_MAT_ID), 0)
#define BS_SB4(v) _mm_gf2p8affineinv_epi64_epi8( \
	_mm_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_SB4_PRE), 0x2c), BS_MAT(BS_MAT_ID), 0)
#define BS_BLOCK_INDEX bs_block_index_x1
#include "aria_bs.h"

/* ---- drivers ---- */

static void
ecb(uint8_t *out, const uint8_t *in, size_t nblocks, const uint8_t (*rk)[16], unsigned int n)
{
	for (; nblocks >= 32; nblocks -= 32, in += 512, out += 512)
		bs_ecb_x32(out, in, rk, n);
	if (nblocks > 16)
		bs_tail_x32(out, in, nblocks * 16, rk, n, NULL, 0);
	else if (nblocks == 16)
		bs_ecb_x16(out, in, rk, n);
	else if (nblocks > 0)
		bs_tail_x16(out, in, nblocks * 16, rk, n, NULL, 0);
	_mm256_zeroupper();
}

static void
ctr_xor(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
	uint8_t ctr[16], unsigned int width)
{
	for (; len >= 512; len -= 512, in += 512, out += 512) {
		bs_ctr_x32(out, in, ctr, k->ek, k->rounds, width);
		bs_ctr_add(ctr, 32, width);
	}
	if (len > 256)
		bs_tail_x32(out, in, len, k->ek, k->rounds, ctr, width);
	else if (len > 0)
		bs_tail_x16(out, in, len, k->ek, k->rounds, ctr, width);
	_mm256_zeroupper();
}

static void
encrypt_blocks_avx2_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
			 const struct aria_key *k)
{
	ecb(out, in, nblocks, k->ek, k->rounds);
}

static void
decrypt_blocks_avx2_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
			 const struct aria_key *k)
{
	ecb(out, in, nblocks, k->dk, k->rounds);
}

static void
ctr128_xor_avx2_gfni(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		     uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 16);
}

static void
ctr32_xor_avx2_gfni(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		    uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 4);
}

const struct aria_impl vecsec_aria_impl_avx2_gfni = {
	.name = "avx2_gfni",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_GFNI,
	.blocks = 32,
	.min_len = 0,
	.encrypt_blocks = encrypt_blocks_avx2_gfni,
	.decrypt_blocks = decrypt_blocks_avx2_gfni,
	.ctr128_xor = ctr128_xor_avx2_gfni,
	.ctr32_xor = ctr32_xor_avx2_gfni,
};
