/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, AVX-512 F/VL/BW + GFNI (the avx512_gfni
 * flag set): 64 blocks per step byte-sliced in 16 zmm (aria_bs.h), the
 * s-boxes as GF2P8AFFINEINVQB / GF2P8AFFINEQB, the diffusion layer as
 * three-input VPTERNLOGQ XORs. Tails: 33..63 blocks one zmm step through
 * a buffer, 17..32 a ymm step, 9..16 an xmm step (the same code on
 * narrower registers), 1..8 in block layout, one block per 128-bit lane,
 * masked loads/stores. Counters are generated in registers. No table is
 * indexed by key, data or counter.
 */
#include <stdalign.h>
#include <string.h>

#include <immintrin.h>

#include "aria_internal.h"

/* ---- 64 blocks, zmm ---- */
#define BS_V __m512i
#define BS_LANES 4
#define BS_FN(name) name##_x64
#define BS_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define BS_STORE(p, v) _mm512_storeu_si512((void *)(p), (v))
#define BS_ZERO() _mm512_setzero_si512()
#define BS_XOR(a, b) _mm512_xor_si512((a), (b))
#define BS_XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define BS_AND(a, b) _mm512_and_si512((a), (b))
#define BS_BCAST(b) _mm512_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm512_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm512_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm512_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm512_sub_epi8((a), (b))
#define BS_GT_U8(a, b) _mm512_movm_epi8(_mm512_cmpgt_epu8_mask((a), (b)))
#define BS_MAT(m) _mm512_set1_epi64((long long)(m))
#define BS_SB1(v) _mm512_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_AES), 0x63)
#define BS_SB2(v) _mm512_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_SB2), 0xe2)
#define BS_SB3(v) _mm512_gf2p8affineinv_epi64_epi8( \
	_mm512_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_AES_INV), 0x05), BS_MAT(BS_MAT_ID), 0)
#define BS_SB4(v) _mm512_gf2p8affineinv_epi64_epi8( \
	_mm512_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_SB4_PRE), 0x2c), BS_MAT(BS_MAT_ID), 0)
#define BS_BLOCK_INDEX bs_block_index_x4
#include "aria_bs.h"

/* ---- 32 blocks, ymm (EVEX: VL ternlog and compares) ---- */
#define BS_V __m256i
#define BS_LANES 2
#define BS_FN(name) name##_x32
#define BS_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define BS_STORE(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define BS_ZERO() _mm256_setzero_si256()
#define BS_XOR(a, b) _mm256_xor_si256((a), (b))
#define BS_XOR3(a, b, c) _mm256_ternarylogic_epi64((a), (b), (c), 0x96)
#define BS_AND(a, b) _mm256_and_si256((a), (b))
#define BS_BCAST(b) _mm256_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm256_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm256_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm256_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm256_sub_epi8((a), (b))
#define BS_GT_U8(a, b) _mm256_movm_epi8(_mm256_cmpgt_epu8_mask((a), (b)))
#define BS_MAT(m) _mm256_set1_epi64x((long long)(m))
#define BS_SB1(v) _mm256_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_AES), 0x63)
#define BS_SB2(v) _mm256_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_SB2), 0xe2)
#define BS_SB3(v) _mm256_gf2p8affineinv_epi64_epi8( \
	_mm256_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_AES_INV), 0x05), BS_MAT(BS_MAT_ID), 0)
#define BS_SB4(v) _mm256_gf2p8affineinv_epi64_epi8( \
	_mm256_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_SB4_PRE), 0x2c), BS_MAT(BS_MAT_ID), 0)
#define BS_BLOCK_INDEX bs_block_index_x2
#include "aria_bs.h"

/* ---- 16 blocks, xmm (EVEX) ---- */
#define BS_V __m128i
#define BS_LANES 1
#define BS_FN(name) name##_x16
#define BS_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define BS_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define BS_ZERO() _mm_setzero_si128()
#define BS_XOR(a, b) _mm_xor_si128((a), (b))
#define BS_XOR3(a, b, c) _mm_ternarylogic_epi64((a), (b), (c), 0x96)
#define BS_AND(a, b) _mm_and_si128((a), (b))
#define BS_BCAST(b) _mm_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm_sub_epi8((a), (b))
#define BS_GT_U8(a, b) _mm_movm_epi8(_mm_cmpgt_epu8_mask((a), (b)))
#define BS_MAT(m) _mm_set1_epi64x((long long)(m))
#define BS_SB1(v) _mm_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_AES), 0x63)
#define BS_SB2(v) _mm_gf2p8affineinv_epi64_epi8((v), BS_MAT(BS_MAT_SB2), 0xe2)
#define BS_SB3(v) _mm_gf2p8affineinv_epi64_epi8( \
	_mm_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_AES_INV), 0x05), BS_MAT(BS_MAT_ID), 0)
#define BS_SB4(v) _mm_gf2p8affineinv_epi64_epi8( \
	_mm_gf2p8affine_epi64_epi8((v), BS_MAT(BS_MAT_SB4_PRE), 0x2c), BS_MAT(BS_MAT_ID), 0)
#define BS_BLOCK_INDEX bs_block_index_x1
#include "aria_bs.h"

/*
 * ---- 1..8 blocks in block layout ----
 * Below 9 blocks a byte-sliced step wastes most of its work; here each
 * 128-bit lane holds one block (up to 2 zmm). SL1/SL2 are masked GFNI
 * operations on the byte positions j % 4, and A (2.4.3) is the XOR of
 * seven byte permutations (A's 16x16 matrix has seven ones per row and
 * column, so it splits into seven permutation matrices; bl_perm[k][i] is
 * the input byte of output byte i in the k-th).
 */
static const uint8_t bl_perm[7][16] = {
	{ 8, 7, 4, 11, 14, 10, 9, 13, 15, 6, 3, 2, 12, 0, 5, 1 },
	{ 14, 12, 10, 7, 15, 1, 0, 11, 4, 5, 13, 9, 6, 8, 3, 2 },
	{ 3, 5, 11, 10, 0, 15, 7, 1, 13, 14, 8, 12, 2, 6, 9, 4 },
	{ 13, 9, 1, 0, 8, 14, 2, 6, 7, 12, 15, 3, 11, 10, 4, 5 },
	{ 6, 2, 15, 13, 11, 9, 10, 12, 1, 0, 5, 4, 7, 3, 14, 8 },
	{ 4, 15, 12, 5, 2, 3, 13, 8, 0, 1, 6, 14, 9, 7, 11, 10 },
	{ 9, 8, 6, 14, 5, 4, 12, 3, 10, 11, 2, 7, 1, 13, 0, 15 },
};

#define BL_POS1 UINT64_C(0x2222222222222222)   /* bytes j % 4 == 1 */
#define BL_POS2 UINT64_C(0x4444444444444444)
#define BL_POS3 UINT64_C(0x8888888888888888)

static inline __m512i
bl_mat(uint64_t m)
{
	return _mm512_set1_epi64((long long)m);
}

/* SL1: SB1 SB2 SB3 SB4 on j % 4 = 0..3 */
static inline __m512i
bl_sl1(__m512i x)
{
	__m512i t = _mm512_gf2p8affineinv_epi64_epi8(x, bl_mat(BS_MAT_AES), 0x63);
	__m512i u = _mm512_gf2p8affine_epi64_epi8(x, bl_mat(BS_MAT_AES_INV), 0x05);

	t = _mm512_mask_gf2p8affineinv_epi64_epi8(t, BL_POS1, x, bl_mat(BS_MAT_SB2), 0xe2);
	u = _mm512_mask_gf2p8affine_epi64_epi8(u, BL_POS3, x, bl_mat(BS_MAT_SB4_PRE), 0x2c);
	return _mm512_mask_gf2p8affineinv_epi64_epi8(t, BL_POS2 | BL_POS3, u, bl_mat(BS_MAT_ID), 0);
}

/* SL2: SB3 SB4 SB1 SB2 on j % 4 = 0..3 */
static inline __m512i
bl_sl2(__m512i x)
{
	__m512i t = _mm512_gf2p8affineinv_epi64_epi8(x, bl_mat(BS_MAT_AES), 0x63);
	__m512i u = _mm512_gf2p8affine_epi64_epi8(x, bl_mat(BS_MAT_AES_INV), 0x05);

	t = _mm512_mask_gf2p8affineinv_epi64_epi8(t, BL_POS3, x, bl_mat(BS_MAT_SB2), 0xe2);
	u = _mm512_mask_gf2p8affine_epi64_epi8(u, BL_POS1, x, bl_mat(BS_MAT_SB4_PRE), 0x2c);
	return _mm512_mask_gf2p8affineinv_epi64_epi8(t, ~(BL_POS2 | BL_POS3), u,
						     bl_mat(BS_MAT_ID), 0);
}

static inline __m512i
bl_diffuse(__m512i x, const __m512i p[7])
{
	__m512i a = _mm512_ternarylogic_epi64(_mm512_shuffle_epi8(x, p[0]),
					      _mm512_shuffle_epi8(x, p[1]),
					      _mm512_shuffle_epi8(x, p[2]), 0x96);
	__m512i b = _mm512_ternarylogic_epi64(_mm512_shuffle_epi8(x, p[3]),
					      _mm512_shuffle_epi8(x, p[4]),
					      _mm512_shuffle_epi8(x, p[5]), 0x96);

	return _mm512_ternarylogic_epi64(a, b, _mm512_shuffle_epi8(x, p[6]), 0x96);
}

static inline __m512i
bl_key(const uint8_t rk[16])
{
	return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)rk));
}

/* 2.3.1 on nz zmm of blocks (nz a constant after inlining) */
static inline __attribute__((always_inline)) void
bl_crypt(__m512i *x, int nz, const uint8_t (*rk)[16], unsigned int n)
{
	__m512i p[7];

	for (int k = 0; k < 7; k++)
		p[k] = _mm512_broadcast_i32x4(
			_mm_loadu_si128((const __m128i *)(const void *)bl_perm[k]));
	for (unsigned int r = 0; r + 1 < n; r += 2) {
		__m512i key = bl_key(rk[r]);

		for (int i = 0; i < nz; i++)
			x[i] = bl_diffuse(bl_sl1(_mm512_xor_si512(x[i], key)), p);
		if (r + 2 == n)
			break;
		key = bl_key(rk[r + 1]);
		for (int i = 0; i < nz; i++)
			x[i] = bl_diffuse(bl_sl2(_mm512_xor_si512(x[i], key)), p);
	}
	for (int i = 0; i < nz; i++)
		x[i] = _mm512_xor_si512(bl_sl2(_mm512_xor_si512(x[i], bl_key(rk[n - 1]))),
					bl_key(rk[n]));
}

static inline __mmask64
bl_mask(size_t len, int i)
{
	size_t rem = len > 64 * (size_t)i ? len - 64 * (size_t)i : 0;

	return rem >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << rem) - 1;
}

/*
 * len bytes (1..128): ECB when ctr is NULL (len a multiple of 16), else
 * CTR from ctr (not advanced here); masked loads and stores, no buffer.
 */
static inline __attribute__((always_inline)) void
bl_run(uint8_t *out, const uint8_t *in, size_t len, const uint8_t (*rk)[16], unsigned int n,
       const uint8_t *ctr, unsigned int width, int nz)
{
	__m512i x[2];

	if (ctr != NULL) {
		alignas(64) uint8_t cb[128];

		memcpy(cb, ctr, 16);
		for (int b = 1; b < 4 * nz; b++) {
			memcpy(cb + 16 * b, cb + 16 * (b - 1), 16);
			bs_ctr_add(cb + 16 * b, 1, width);
		}
		for (int i = 0; i < nz; i++)
			x[i] = _mm512_load_si512((const void *)(cb + 64 * i));
	} else {
		for (int i = 0; i < nz; i++)
			x[i] = _mm512_maskz_loadu_epi8(bl_mask(len, i), in + 64 * i);
	}
	bl_crypt(x, nz, rk, n);
	for (int i = 0; i < nz; i++) {
		if (ctr != NULL)
			x[i] = _mm512_xor_si512(x[i], _mm512_maskz_loadu_epi8(bl_mask(len, i),
									    in + 64 * i));
		_mm512_mask_storeu_epi8(out + 64 * i, bl_mask(len, i), x[i]);
	}
}

static void
bl_small(uint8_t *out, const uint8_t *in, size_t len, const uint8_t (*rk)[16], unsigned int n,
	 const uint8_t *ctr, unsigned int width)
{
	if (len <= 64)
		bl_run(out, in, len, rk, n, ctr, width, 1);
	else
		bl_run(out, in, len, rk, n, ctr, width, 2);
}

/*
 * ---- many keys: block layout, a key per 128-bit lane ----
 * Bursts of short packets under many keys (aria_aead.c): block i uses
 * keys[i]; each round key vector is four 128-bit loads, or one broadcast
 * where its four blocks share a key (the caller's layout). 16 blocks (4 zmm)
 * per step keep enough independent work in flight.
 */
static inline __m512i
ml_key(const struct aria_key *const *keys, unsigned int r, bool same)
{
	__m512i v;

	/* four blocks of one key (the caller lays jobs out so): one broadcast load */
	if (same)
		return bl_key(keys[0]->ek[r]);
	v = _mm512_castsi128_si512(
		_mm_loadu_si128((const __m128i *)(const void *)keys[0]->ek[r]));

	v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)keys[1]->ek[r]),
			       1);
	v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)keys[2]->ek[r]),
			       2);
	return _mm512_inserti32x4(v,
				  _mm_loadu_si128((const __m128i *)(const void *)keys[3]->ek[r]),
				  3);
}

/* 16 blocks at most (len bytes, a multiple of 16), keys[0..15] all valid */
static void
ml_step(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *const *keys,
	unsigned int n)
{
	__m512i x[4], p[7];
	bool same[4];

	for (int k = 0; k < 7; k++)
		p[k] = _mm512_broadcast_i32x4(
			_mm_loadu_si128((const __m128i *)(const void *)bl_perm[k]));
	for (int i = 0; i < 4; i++) {
		x[i] = _mm512_maskz_loadu_epi8(bl_mask(len, i), in + 64 * i);
		/* key pointers are public: comparing them tells nothing secret */
		same[i] = keys[4 * i] == keys[4 * i + 1] && keys[4 * i] == keys[4 * i + 2] &&
			  keys[4 * i] == keys[4 * i + 3];
	}
	for (unsigned int r = 0; r + 1 < n; r++) {
		for (int i = 0; i < 4; i++) {
			__m512i t = _mm512_xor_si512(x[i], ml_key(keys + 4 * i, r, same[i]));

			t = r % 2 == 0 ? bl_sl1(t) : bl_sl2(t);
			x[i] = bl_diffuse(t, p);
		}
	}
	for (int i = 0; i < 4; i++) {
		__m512i t = bl_sl2(_mm512_xor_si512(x[i], ml_key(keys + 4 * i, n - 1, same[i])));

		x[i] = _mm512_xor_si512(t, ml_key(keys + 4 * i, n, same[i]));
		_mm512_mask_storeu_epi8(out + 64 * i, bl_mask(len, i), x[i]);
	}
}

static void
encrypt_blocks_multi_avx512_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
				 const struct aria_key *const *keys)
{
	const struct aria_key *pad[16];
	unsigned int n;

	if (nblocks == 0)
		return;
	n = keys[0]->rounds;
	for (; nblocks >= 16; nblocks -= 16, in += 256, out += 256, keys += 16)
		ml_step(out, in, 256, keys, n);
	if (nblocks > 0) {
		/* the lanes past the end run on any valid key; masked out */
		for (size_t i = 0; i < 16; i++)
			pad[i] = keys[i < nblocks ? i : 0];
		ml_step(out, in, nblocks * 16, pad, n);
	}
}

/* ---- drivers ---- */

static void
ecb(uint8_t *out, const uint8_t *in, size_t nblocks, const uint8_t (*rk)[16], unsigned int n)
{
	for (; nblocks >= 64; nblocks -= 64, in += 1024, out += 1024)
		bs_ecb_x64(out, in, rk, n);
	if (nblocks > 32)
		bs_tail_x64(out, in, nblocks * 16, rk, n, NULL, 0);
	else if (nblocks > 16)
		bs_tail_x32(out, in, nblocks * 16, rk, n, NULL, 0);
	else if (nblocks == 16)
		bs_ecb_x16(out, in, rk, n);
	else if (nblocks > 8)
		bs_tail_x16(out, in, nblocks * 16, rk, n, NULL, 0);
	else if (nblocks > 0)
		bl_small(out, in, nblocks * 16, rk, n, NULL, 0);
}

static void
ctr_xor(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
	uint8_t ctr[16], unsigned int width)
{
	for (; len >= 1024; len -= 1024, in += 1024, out += 1024) {
		bs_ctr_x64(out, in, ctr, k->ek, k->rounds, width);
		bs_ctr_add(ctr, 64, width);
	}
	if (len > 512) {
		bs_tail_x64(out, in, len, k->ek, k->rounds, ctr, width);
	} else if (len > 256) {
		bs_tail_x32(out, in, len, k->ek, k->rounds, ctr, width);
	} else if (len > 128) {
		bs_tail_x16(out, in, len, k->ek, k->rounds, ctr, width);
	} else if (len > 0) {
		bl_small(out, in, len, k->ek, k->rounds, ctr, width);
		bs_ctr_add(ctr, (unsigned int)((len + 15) / 16), width);
	}
}

static void
encrypt_blocks_avx512_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
			   const struct aria_key *k)
{
	ecb(out, in, nblocks, k->ek, k->rounds);
}

static void
decrypt_blocks_avx512_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
			   const struct aria_key *k)
{
	ecb(out, in, nblocks, k->dk, k->rounds);
}

static void
ctr128_xor_avx512_gfni(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		       uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 16);
}

static void
ctr32_xor_avx512_gfni(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		      uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 4);
}

const struct aria_impl vecsec_aria_impl_avx512_gfni = {
	.name = "avx512_gfni",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_GFNI,
	.encrypt_blocks = encrypt_blocks_avx512_gfni,
	.decrypt_blocks = decrypt_blocks_avx512_gfni,
	.ctr128_xor = ctr128_xor_avx512_gfni,
	.ctr32_xor = ctr32_xor_avx512_gfni,
	.encrypt_blocks_multi = encrypt_blocks_multi_avx512_gfni,
};
