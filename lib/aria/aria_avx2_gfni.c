/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, AVX2 + GFNI (the avx2_gfni flag set): 32
 * blocks per step byte-sliced in 16 ymm (aria_bs.h), the s-boxes as
 * VEX GF2P8AFFINEINVQB / GF2P8AFFINEQB, the diffusion layer as VPXOR.
 * Tails: 17..31 blocks one ymm step through a buffer, 9..16 an xmm step,
 * 1..8 in block layout (one block per 128-bit lane).
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

/*
 * ---- 1..8 blocks in block layout ----
 * Below 9 blocks a byte-sliced step wastes most of its work; here each
 * 128-bit lane holds one block (up to 4 ymm). SL1/SL2 compute the s-boxes
 * on whole registers and VPBLENDVB picks by byte position j % 4; A (2.4.3)
 * is the XOR of seven byte permutations (A's matrix has seven ones per row
 * and column, so it splits into seven permutation matrices; bl_perm[k][i]
 * is the input byte of output byte i in the k-th).
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

static inline __m256i
bl_mat(uint64_t m)
{
	return _mm256_set1_epi64x((long long)m);
}

/* 0xff on bytes j % 4 == pos */
static inline __m256i
bl_pos(int pos)
{
	return _mm256_set1_epi32((int)(0xffu << (8 * pos)));
}

/* SL1 (type 1: SB1 SB2 SB3 SB4 on j % 4 = 0..3) or SL2 (SB3 SB4 SB1 SB2) */
static inline __m256i
bl_sl(__m256i x, int type)
{
	__m256i s1 = _mm256_gf2p8affineinv_epi64_epi8(x, bl_mat(BS_MAT_AES), 0x63);
	__m256i s2 = _mm256_gf2p8affineinv_epi64_epi8(x, bl_mat(BS_MAT_SB2), 0xe2);
	__m256i p3 = _mm256_gf2p8affine_epi64_epi8(x, bl_mat(BS_MAT_AES_INV), 0x05);
	__m256i p4 = _mm256_gf2p8affine_epi64_epi8(x, bl_mat(BS_MAT_SB4_PRE), 0x2c);
	__m256i s34, t;

	if (type == 1) {
		/* SL1: SB1 SB2 SB3 SB4 */
		s34 = _mm256_gf2p8affineinv_epi64_epi8(_mm256_blendv_epi8(p3, p4, bl_pos(3)),
						       bl_mat(BS_MAT_ID), 0);
		t = _mm256_blendv_epi8(s1, s2, bl_pos(1));
		return _mm256_blendv_epi8(t, s34,
					  _mm256_or_si256(bl_pos(2), bl_pos(3)));
	}
	/* SL2: SB3 SB4 SB1 SB2 */
	s34 = _mm256_gf2p8affineinv_epi64_epi8(_mm256_blendv_epi8(p3, p4, bl_pos(1)),
					       bl_mat(BS_MAT_ID), 0);
	t = _mm256_blendv_epi8(s1, s2, bl_pos(3));
	return _mm256_blendv_epi8(t, s34, _mm256_or_si256(bl_pos(0), bl_pos(1)));
}

static inline __m256i
bl_diffuse(__m256i x, const __m256i p[7])
{
	__m256i a = _mm256_xor_si256(_mm256_shuffle_epi8(x, p[0]), _mm256_shuffle_epi8(x, p[1]));
	__m256i b = _mm256_xor_si256(_mm256_shuffle_epi8(x, p[2]), _mm256_shuffle_epi8(x, p[3]));
	__m256i c = _mm256_xor_si256(_mm256_shuffle_epi8(x, p[4]), _mm256_shuffle_epi8(x, p[5]));

	return _mm256_xor_si256(_mm256_xor_si256(a, b),
				_mm256_xor_si256(c, _mm256_shuffle_epi8(x, p[6])));
}

static inline __m256i
bl_key(const uint8_t rk[16])
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)rk));
}

/* 2.3.1 on nz ymm of blocks (nz a constant after inlining) */
static inline __attribute__((always_inline)) void
bl_crypt(__m256i *x, int nz, const uint8_t (*rk)[16], unsigned int n)
{
	__m256i p[7];

	for (int k = 0; k < 7; k++)
		p[k] = _mm256_broadcastsi128_si256(
			_mm_loadu_si128((const __m128i *)(const void *)bl_perm[k]));
	for (unsigned int r = 0; r + 1 < n; r += 2) {
		__m256i key = bl_key(rk[r]);

		for (int i = 0; i < nz; i++)
			x[i] = bl_diffuse(bl_sl(_mm256_xor_si256(x[i], key), 1), p);
		if (r + 2 == n)
			break;
		key = bl_key(rk[r + 1]);
		for (int i = 0; i < nz; i++)
			x[i] = bl_diffuse(bl_sl(_mm256_xor_si256(x[i], key), 2), p);
	}
	for (int i = 0; i < nz; i++)
		x[i] = _mm256_xor_si256(bl_sl(_mm256_xor_si256(x[i], bl_key(rk[n - 1])), 2),
					bl_key(rk[n]));
}

/*
 * len bytes (1..128) through a buffer: ECB when ctr is NULL (len a
 * multiple of 16), else CTR from ctr (not advanced here). The buffer is
 * wiped.
 */
static inline __attribute__((always_inline)) void
bl_run(uint8_t *out, const uint8_t *in, size_t len, const uint8_t (*rk)[16], unsigned int n,
       const uint8_t *ctr, unsigned int width, int nz)
{
	alignas(32) uint8_t buf[128], cb[128];
	__m256i x[4];

	memcpy(buf, in, len);
	memset(buf + len, 0, sizeof(buf) - len);
	if (ctr != NULL) {
		memcpy(cb, ctr, 16);
		for (int b = 1; b < 2 * nz; b++) {
			memcpy(cb + 16 * b, cb + 16 * (b - 1), 16);
			bs_ctr_add(cb + 16 * b, 1, width);
		}
	}
	for (int i = 0; i < nz; i++)
		x[i] = _mm256_load_si256((const __m256i *)(const void *)
					 ((ctr != NULL ? cb : buf) + 32 * i));
	bl_crypt(x, nz, rk, n);
	for (int i = 0; i < nz; i++) {
		__m256i *p = (__m256i *)(void *)(buf + 32 * i);

		if (ctr != NULL)
			x[i] = _mm256_xor_si256(x[i], _mm256_load_si256(p));
		_mm256_store_si256(p, x[i]);
	}
	memcpy(out, buf, len);
	vecsec_memzero(buf, sizeof(buf));
}

static void
bl_small(uint8_t *out, const uint8_t *in, size_t len, const uint8_t (*rk)[16], unsigned int n,
	 const uint8_t *ctr, unsigned int width)
{
	if (len <= 32)
		bl_run(out, in, len, rk, n, ctr, width, 1);
	else if (len <= 64)
		bl_run(out, in, len, rk, n, ctr, width, 2);
	else
		bl_run(out, in, len, rk, n, ctr, width, 4);
}

/*
 * ---- many keys: block layout, a key per 128-bit lane ----
 * Bursts of short packets under many keys (aria_aead.c): block i uses
 * keys[i]; each round key vector is two 128-bit loads. 8 blocks (4 ymm)
 * per step keep enough independent work in flight.
 */
static inline __m256i
ml_key(const struct aria_key *const *keys, unsigned int r)
{
	__m256i v = _mm256_castsi128_si256(
		_mm_loadu_si128((const __m128i *)(const void *)keys[0]->ek[r]));

	return _mm256_inserti128_si256(
		v, _mm_loadu_si128((const __m128i *)(const void *)keys[1]->ek[r]), 1);
}

/* 8 blocks at most (len bytes, a multiple of 16), keys[0..7] all valid */
static void
ml_step(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *const *keys,
	unsigned int n)
{
	alignas(32) uint8_t buf[128];
	__m256i x[4], p[7];

	memcpy(buf, in, len);
	memset(buf + len, 0, sizeof(buf) - len);
	for (int k = 0; k < 7; k++)
		p[k] = _mm256_broadcastsi128_si256(
			_mm_loadu_si128((const __m128i *)(const void *)bl_perm[k]));
	for (int i = 0; i < 4; i++)
		x[i] = _mm256_load_si256((const __m256i *)(const void *)(buf + 32 * i));
	for (unsigned int r = 0; r + 1 < n; r++) {
		for (int i = 0; i < 4; i++) {
			__m256i t = _mm256_xor_si256(x[i], ml_key(keys + 2 * i, r));

			x[i] = bl_diffuse(bl_sl(t, r % 2 == 0 ? 1 : 2), p);
		}
	}
	for (int i = 0; i < 4; i++) {
		__m256i t = bl_sl(_mm256_xor_si256(x[i], ml_key(keys + 2 * i, n - 1)), 2);

		x[i] = _mm256_xor_si256(t, ml_key(keys + 2 * i, n));
		_mm256_store_si256((__m256i *)(void *)(buf + 32 * i), x[i]);
	}
	memcpy(out, buf, len);
	vecsec_memzero(buf, sizeof(buf));
}

static void
encrypt_blocks_multi_avx2_gfni(uint8_t *out, const uint8_t *in, size_t nblocks,
			       const struct aria_key *const *keys)
{
	const struct aria_key *pad[8];
	unsigned int n;

	if (nblocks == 0)
		return;
	n = keys[0]->rounds;
	for (; nblocks >= 8; nblocks -= 8, in += 128, out += 128, keys += 8)
		ml_step(out, in, 128, keys, n);
	if (nblocks > 0) {
		/* the lanes past the end run on any valid key; never stored */
		for (size_t i = 0; i < 8; i++)
			pad[i] = keys[i < nblocks ? i : 0];
		ml_step(out, in, nblocks * 16, pad, n);
	}
	_mm256_zeroupper();
}

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
	else if (nblocks > 8)
		bs_tail_x16(out, in, nblocks * 16, rk, n, NULL, 0);
	else if (nblocks > 0)
		bl_small(out, in, nblocks * 16, rk, n, NULL, 0);
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
	if (len > 256) {
		bs_tail_x32(out, in, len, k->ek, k->rounds, ctr, width);
	} else if (len > 128) {
		bs_tail_x16(out, in, len, k->ek, k->rounds, ctr, width);
	} else if (len > 0) {
		bl_small(out, in, len, k->ek, k->rounds, ctr, width);
		bs_ctr_add(ctr, (unsigned int)((len + 15) / 16), width);
	}
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
	.encrypt_blocks = encrypt_blocks_avx2_gfni,
	.decrypt_blocks = decrypt_blocks_avx2_gfni,
	.ctr128_xor = ctr128_xor_avx2_gfni,
	.ctr32_xor = ctr32_xor_avx2_gfni,
	.encrypt_blocks_multi = encrypt_blocks_multi_avx2_gfni,
};
