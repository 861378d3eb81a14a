/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX-512 (F+VL+BW). xor_blocks: 16 blocks of one message
 * per step (one state word per zmm, VPROLD rotations, chacha_avx512.h);
 * the tail ends with masked loads and stores: over 512 bytes one more
 * 16-block step, over 256 bytes 8 blocks word-sliced in ymm (AVX-512VL
 * VPROLD), else up to 4 blocks in row form (zmm lane L = block L, one row
 * of the state per zmm). RFC 8439 2.1-2.4; the counter is word 12 only and
 * never wraps inside a call (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"
#include "chacha_avx512.h"

#define QR8(a, b, c, d) do { \
	a = _mm256_add_epi32(a, b); d = _mm256_rol_epi32(_mm256_xor_si256(d, a), 16); \
	c = _mm256_add_epi32(c, d); b = _mm256_rol_epi32(_mm256_xor_si256(b, c), 12); \
	a = _mm256_add_epi32(a, b); d = _mm256_rol_epi32(_mm256_xor_si256(d, a), 8); \
	c = _mm256_add_epi32(c, d); b = _mm256_rol_epi32(_mm256_xor_si256(b, c), 7); \
} while (0)

#define T4_8(a, b, c, d) do { \
	__m256i t0_ = _mm256_unpacklo_epi32(a, b), t1_ = _mm256_unpackhi_epi32(a, b); \
	__m256i t2_ = _mm256_unpacklo_epi32(c, d), t3_ = _mm256_unpackhi_epi32(c, d); \
	a = _mm256_unpacklo_epi64(t0_, t2_); \
	b = _mm256_unpackhi_epi64(t0_, t2_); \
	c = _mm256_unpacklo_epi64(t1_, t3_); \
	d = _mm256_unpackhi_epi64(t1_, t3_); \
} while (0)

/* out = in ^ ks for 32 bytes, n of them (n >= 32: all), masked */
static inline void
xor_half(uint8_t *out, const uint8_t *in, __m256i ks, size_t n)
{
	__mmask32 m = _cvtu32_mask32(n >= 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1);
	__m256i t = _mm256_maskz_loadu_epi8(m, (const void *)in);

	_mm256_mask_storeu_epi8((void *)out, m, _mm256_xor_si256(t, ks));
}

/* Up to 8 blocks (1 <= len <= 512), word-sliced in ymm. */
static void
xor_8blocks(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	    unsigned int rounds)
{
	__m256i v[16], o[16];

	for (int i = 0; i < 16; i++)
		o[i] = _mm256_set1_epi32((int)x[i]);
	o[12] = _mm256_add_epi32(o[12], _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
	for (int i = 0; i < 16; i++)
		v[i] = o[i];
	for (unsigned int r = 0; r < rounds; r += 2) {
		QR8(v[0], v[4], v[8], v[12]);
		QR8(v[1], v[5], v[9], v[13]);
		QR8(v[2], v[6], v[10], v[14]);
		QR8(v[3], v[7], v[11], v[15]);
		QR8(v[0], v[5], v[10], v[15]);
		QR8(v[1], v[6], v[11], v[12]);
		QR8(v[2], v[7], v[8], v[13]);
		QR8(v[3], v[4], v[9], v[14]);
	}
	for (int i = 0; i < 16; i++)
		v[i] = _mm256_add_epi32(v[i], o[i]);
	T4_8(v[0], v[1], v[2], v[3]);
	T4_8(v[4], v[5], v[6], v[7]);
	T4_8(v[8], v[9], v[10], v[11]);
	T4_8(v[12], v[13], v[14], v[15]);
	for (int k = 0; k < 4; k++) {
		__m256i h[4];
		size_t off[2] = { (size_t)k * 64, (size_t)(4 + k) * 64 };

		h[0] = _mm256_permute2x128_si256(v[k], v[4 + k], 0x20);
		h[1] = _mm256_permute2x128_si256(v[8 + k], v[12 + k], 0x20);
		h[2] = _mm256_permute2x128_si256(v[k], v[4 + k], 0x31);
		h[3] = _mm256_permute2x128_si256(v[8 + k], v[12 + k], 0x31);
		for (int b = 0; b < 2; b++) {
			for (int j = 0; j < 2; j++) {
				size_t p = off[b] + 32 * (size_t)j;

				if (len > p)
					xor_half(out + p, in + p, h[2 * b + j], len - p);
			}
		}
	}
}

/*
 * Up to 4 blocks (1 <= len <= 256) in row form: zmm a, b, c, d hold rows
 * 0-3 of the state, 128-bit lane L for block L; the diagonal round turns
 * rows 1-3 within each lane (RFC 8439 2.2) and back.
 */
static void
xor_4blocks_rows(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
		 unsigned int rounds)
{
	const __m512i a0 = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)&x[0]));
	const __m512i b0 = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)&x[4]));
	const __m512i c0 = _mm512_broadcast_i32x4(_mm_loadu_si128((const void *)&x[8]));
	const __m512i d0 = _mm512_add_epi32(
		_mm512_broadcast_i32x4(_mm_loadu_si128((const void *)&x[12])),
		_mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0));
	__m512i a = a0, b = b0, c = c0, d = d0;
	__m512i t0, t1, t2, t3, blk[4];

	for (unsigned int r = 0; r < rounds; r += 2) {
		CHACHA_X16_QR(a, b, c, d);
		b = _mm512_shuffle_epi32(b, 0x39);
		c = _mm512_shuffle_epi32(c, 0x4e);
		d = _mm512_shuffle_epi32(d, 0x93);
		CHACHA_X16_QR(a, b, c, d);
		b = _mm512_shuffle_epi32(b, 0x93);
		c = _mm512_shuffle_epi32(c, 0x4e);
		d = _mm512_shuffle_epi32(d, 0x39);
	}
	a = _mm512_add_epi32(a, a0);
	b = _mm512_add_epi32(b, b0);
	c = _mm512_add_epi32(c, c0);
	d = _mm512_add_epi32(d, d0);
	t0 = _mm512_shuffle_i32x4(a, b, 0x44);  /* a0 a1 b0 b1 */
	t1 = _mm512_shuffle_i32x4(a, b, 0xee);  /* a2 a3 b2 b3 */
	t2 = _mm512_shuffle_i32x4(c, d, 0x44);
	t3 = _mm512_shuffle_i32x4(c, d, 0xee);
	blk[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
	blk[1] = _mm512_shuffle_i32x4(t0, t2, 0xdd);
	blk[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
	blk[3] = _mm512_shuffle_i32x4(t1, t3, 0xdd);
	for (size_t l = 0; l < 4 && len > 64 * l; l++)
		chacha_x16_xor_block(out + 64 * l, in + 64 * l, blk[l], len - 64 * l);
}

static void
xor_16blocks(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	     unsigned int rounds)
{
	__m512i v[16];

	chacha_x16_init(v, x);
	for (unsigned int r = 0; r < rounds; r += 2)
		chacha_x16_dround(v);
	chacha_x16_finish(out, in, len, v, x);
}

void
vecsec_chacha_xor_blocks_avx512(uint8_t *out, const uint8_t *in, size_t len,
				struct chacha_state *st)
{
	const size_t step = 16 * CHACHA_BLOCK_LEN;

	for (; len >= step; len -= step, in += step, out += step) {
		xor_16blocks(out, in, step, st->x, st->rounds);
		st->x[12] += 16;
	}
	if (len == 0)
		return;
	if (len > 8 * CHACHA_BLOCK_LEN)
		xor_16blocks(out, in, len, st->x, st->rounds);
	else if (len > 4 * CHACHA_BLOCK_LEN)
		xor_8blocks(out, in, len, st->x, st->rounds);
	else
		xor_4blocks_rows(out, in, len, st->x, st->rounds);
	st->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

const struct chacha_impl vecsec_chacha_impl_avx512 = {
	.name = "avx512",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW,
	.lanes = 0,
	.min_len = 0,       /* measured no slower than narrower impls at any length */
	.xor_blocks = vecsec_chacha_xor_blocks_avx512,
	.xor_lanes = NULL,
};
