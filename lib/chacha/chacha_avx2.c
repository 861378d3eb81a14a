/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX2. xor_blocks: 8 blocks of one message per step, one
 * state word per ymm (word-sliced), transposed by 4x4 word transposes in
 * each 128-bit half and VPERM2I128; tails under 512 bytes go to the SSSE3
 * kernel. Rotations by 16 and 8 are VPSHUFB, by 12 and 7 shifts. RFC 8439
 * 2.1-2.4; the counter is word 12 only and never wraps inside a call
 * (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"

static inline __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
static inline __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

/*
 * PSHUFB masks for rotations by 16 and 8, read from memory at each use: 16
 * ymm registers hold the 16 state words, and masks pinned in registers
 * push state words out to the stack in the middle of the rounds' chains.
 */
static const uint8_t rot_masks[2][32] __attribute__((aligned(32))) = {
	{ 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
	  2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13 },
	{ 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
	  3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 },
};

static inline __m256i
vrol16(__m256i v)
{
	return _mm256_shuffle_epi8(v, *(const volatile __m256i *)(const void *)rot_masks[0]);
}

static inline __m256i
vrol8(__m256i v)
{
	return _mm256_shuffle_epi8(v, *(const volatile __m256i *)(const void *)rot_masks[1]);
}

#define VROL(v, n) ((n) == 16 ? vrol16(v) : (n) == 8 ? vrol8(v) : \
	_mm256_or_si256(_mm256_slli_epi32((v), (n)), _mm256_srli_epi32((v), 32 - (n))))

/* RFC 8439 2.1, on four words of every block at once */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROL(vxor(b, c), 7); \
} while (0)

/* 4x4 word transpose in each 128-bit half */
#define TRANSPOSE4(a, b, c, d) do { \
	__m256i t0_ = _mm256_unpacklo_epi32(a, b), t1_ = _mm256_unpackhi_epi32(a, b); \
	__m256i t2_ = _mm256_unpacklo_epi32(c, d), t3_ = _mm256_unpackhi_epi32(c, d); \
	a = _mm256_unpacklo_epi64(t0_, t2_); \
	b = _mm256_unpackhi_epi64(t0_, t2_); \
	c = _mm256_unpacklo_epi64(t1_, t3_); \
	d = _mm256_unpackhi_epi64(t1_, t3_); \
} while (0)

static inline __m256i
loadu(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

static inline void
storeu(uint8_t *p, __m256i v)
{
	_mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* Eight consecutive blocks: out = in ^ keystream, 512 bytes. */
static void
xor_8blocks(uint8_t *out, const uint8_t *in, const uint32_t x[16], unsigned int rounds)
{
	__m256i v[16], o[16];

	for (int i = 0; i < 16; i++)
		o[i] = _mm256_set1_epi32((int)x[i]);
	o[12] = vadd(o[12], _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
	for (int i = 0; i < 16; i++)
		v[i] = o[i];
	for (unsigned int r = 0; r < rounds; r += 2) {
		QR(v[0], v[4], v[8], v[12]);
		QR(v[1], v[5], v[9], v[13]);
		QR(v[2], v[6], v[10], v[14]);
		QR(v[3], v[7], v[11], v[15]);
		QR(v[0], v[5], v[10], v[15]);
		QR(v[1], v[6], v[11], v[12]);
		QR(v[2], v[7], v[8], v[13]);
		QR(v[3], v[4], v[9], v[14]);
	}
	for (int i = 0; i < 16; i++)
		v[i] = vadd(v[i], o[i]);
	TRANSPOSE4(v[0], v[1], v[2], v[3]);
	TRANSPOSE4(v[4], v[5], v[6], v[7]);
	TRANSPOSE4(v[8], v[9], v[10], v[11]);
	TRANSPOSE4(v[12], v[13], v[14], v[15]);
	/*
	 * v[4j + k] holds words 4j..4j+3 of block k (low half) and of block
	 * 4 + k (high half).
	 */
	for (int k = 0; k < 4; k++) {
		__m256i lo01 = _mm256_permute2x128_si256(v[k], v[4 + k], 0x20);
		__m256i lo23 = _mm256_permute2x128_si256(v[8 + k], v[12 + k], 0x20);
		__m256i hi01 = _mm256_permute2x128_si256(v[k], v[4 + k], 0x31);
		__m256i hi23 = _mm256_permute2x128_si256(v[8 + k], v[12 + k], 0x31);
		uint8_t *o0 = out + 64 * k, *o1 = out + 64 * (4 + k);
		const uint8_t *i0 = in + 64 * k, *i1 = in + 64 * (4 + k);

		storeu(o0, vxor(loadu(i0), lo01));
		storeu(o0 + 32, vxor(loadu(i0 + 32), lo23));
		storeu(o1, vxor(loadu(i1), hi01));
		storeu(o1 + 32, vxor(loadu(i1 + 32), hi23));
	}
}

void
vecsec_chacha_xor_blocks_avx2(uint8_t *out, const uint8_t *in, size_t len,
			      struct chacha_state *st)
{
	const size_t step = 8 * CHACHA_BLOCK_LEN;

	for (; len >= step; len -= step, in += step, out += step) {
		xor_8blocks(out, in, st->x, st->rounds);
		st->x[12] += 8;
	}
	if (len != 0)
		vecsec_chacha_impl_ssse3.xor_blocks(out, in, len, st);
}

const struct chacha_impl vecsec_chacha_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2,
	.lanes = 0,
	.min_len = 0,       /* measured no slower than narrower impls at any length */
	.xor_blocks = vecsec_chacha_xor_blocks_avx2,
	.xor_lanes = NULL,
};
