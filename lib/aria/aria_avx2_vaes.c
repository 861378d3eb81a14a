/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, AVX2 + VAES (the avx2_vaes flag set), for
 * CPUs with VAES but no GFNI (AMD Zen 3): 32 blocks per step byte-sliced
 * in 16 ymm (aria_bs.h), the s-boxes through VAESENCLAST/VAESDECLAST with
 * a zero key, as aria_aesni_body.h explains for one lane; tails of 17..31
 * blocks one ymm step through a buffer, 1..16 that file's xmm code. No table is indexed by
 * key, data or counter.
 */
#define AESNI_FN(name) name##_avx2_vaes_x16
#include "aria_aesni_body.h"

static inline __m256i
bcast128(__m128i v)
{
	return _mm256_broadcastsi128_si256(v);
}

static inline __m256i
sb1_y(__m256i v)
{
	return _mm256_aesenclast_epi128(_mm256_shuffle_epi8(v, bcast128(INV_SHIFT_ROWS)),
					_mm256_setzero_si256());
}

static inline __m256i
sb3_y(__m256i v)
{
	return _mm256_aesdeclast_epi128(_mm256_shuffle_epi8(v, bcast128(SHIFT_ROWS)),
					_mm256_setzero_si256());
}

static inline __m256i
affine_nibbles_y(__m256i v, __m128i lo, __m128i hi)
{
	const __m256i m = _mm256_set1_epi8(0x0f);
	__m256i l = _mm256_and_si256(v, m), h = _mm256_and_si256(_mm256_srli_epi16(v, 4), m);

	return _mm256_xor_si256(_mm256_shuffle_epi8(bcast128(lo), l),
				_mm256_shuffle_epi8(bcast128(hi), h));
}

/* the nibble tables of aria_aesni_body.h's sb2() and sb4() */
static inline __m256i
sb2_y(__m256i v)
{
	const __m128i lo = _mm_setr_epi8((char)0x88, 0x0d, 0x37, (char)0xb2, 0x00,
					 (char)0x85, (char)0xbf, 0x3a, (char)0xa8, 0x2d, 0x17,
					 (char)0x92, 0x20, (char)0xa5, (char)0x9f, 0x1a);
	const __m128i hi = _mm_setr_epi8(0x00, 0x3e, (char)0xd4, (char)0xea, (char)0x84,
					 (char)0xba, 0x50, 0x6e, (char)0xcd, (char)0xf3, 0x19,
					 0x27, 0x49, 0x77, (char)0x9d, (char)0xa3);

	return affine_nibbles_y(sb1_y(v), lo, hi);
}

static inline __m256i
sb4_y(__m256i v)
{
	const __m128i lo = _mm_setr_epi8(0x04, 0x45, (char)0xee, (char)0xaf, 0x17, 0x56,
					 (char)0xfd, (char)0xbc, 0x53, 0x12, (char)0xb9,
					 (char)0xf8, 0x40, 0x01, (char)0xaa, (char)0xeb);
	const __m128i hi = _mm_setr_epi8(0x00, (char)0xb6, 0x08, (char)0xbe, (char)0xd6, 0x60,
					 (char)0xde, 0x68, 0x53, (char)0xe5, 0x5b, (char)0xed,
					 (char)0x85, 0x33, (char)0x8d, 0x3b);

	return sb3_y(affine_nibbles_y(v, lo, hi));
}

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
#define BS_GT_U8(a, b) _mm256_cmpgt_epi8(_mm256_xor_si256((a), _mm256_set1_epi8(-128)), \
					 _mm256_xor_si256((b), _mm256_set1_epi8(-128)))
#define BS_SB1(v) sb1_y(v)
#define BS_SB2(v) sb2_y(v)
#define BS_SB3(v) sb3_y(v)
#define BS_SB4(v) sb4_y(v)
#define BS_BLOCK_INDEX bs_block_index_x2
#include "aria_bs.h"

/* ---- entry points: 32-block steps, then the xmm code ---- */

static void
encrypt_blocks_avx2_vaes(uint8_t *out, const uint8_t *in, size_t nblocks,
			 const struct aria_key *k)
{
	for (; nblocks >= 32; nblocks -= 32, in += 512, out += 512)
		bs_ecb_x32(out, in, k->ek, k->rounds);
	if (nblocks > 16)
		bs_tail_x32(out, in, nblocks * 16, k->ek, k->rounds, NULL, 0);
	else
		encrypt_blocks_avx2_vaes_x16(out, in, nblocks, k);
}

static void
decrypt_blocks_avx2_vaes(uint8_t *out, const uint8_t *in, size_t nblocks,
			 const struct aria_key *k)
{
	for (; nblocks >= 32; nblocks -= 32, in += 512, out += 512)
		bs_ecb_x32(out, in, k->dk, k->rounds);
	if (nblocks > 16)
		bs_tail_x32(out, in, nblocks * 16, k->dk, k->rounds, NULL, 0);
	else
		decrypt_blocks_avx2_vaes_x16(out, in, nblocks, k);
}

static void
ctr128_xor_avx2_vaes(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		     uint8_t ctr[16])
{
	for (; len >= 512; len -= 512, in += 512, out += 512) {
		bs_ctr_x32(out, in, ctr, k->ek, k->rounds, 16);
		bs_ctr_add(ctr, 32, 16);
	}
	if (len > 256)
		bs_tail_x32(out, in, len, k->ek, k->rounds, ctr, 16);
	else
		ctr128_xor_avx2_vaes_x16(out, in, len, k, ctr);
}

static void
ctr32_xor_avx2_vaes(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		    uint8_t ctr[16])
{
	for (; len >= 512; len -= 512, in += 512, out += 512) {
		bs_ctr_x32(out, in, ctr, k->ek, k->rounds, 4);
		bs_ctr_add(ctr, 32, 4);
	}
	if (len > 256)
		bs_tail_x32(out, in, len, k->ek, k->rounds, ctr, 4);
	else
		ctr32_xor_avx2_vaes_x16(out, in, len, k, ctr);
}

const struct aria_impl vecsec_aria_impl_avx2_vaes = {
	.name = "avx2_vaes",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AESNI | VECSEC_CPU_VAES,
	.encrypt_blocks = encrypt_blocks_avx2_vaes,
	.decrypt_blocks = decrypt_blocks_avx2_vaes,
	.ctr128_xor = ctr128_xor_avx2_vaes,
	.ctr32_xor = ctr32_xor_avx2_vaes,
};
