/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX2. xor_blocks (its step and tail logic shared with
 * SSSE3 in chacha_x86.h): 8 blocks of one message per step
 * (assembly, chacha_avx2.S: word-sliced, one state word per ymm); a tail
 * of 257..511 bytes is one more step into a keystream buffer; up to 256
 * bytes (4 blocks) go the latency-bound way: the state in row form, two
 * blocks per ymm (one per 128-bit half), two such sets interleaved, which
 * costs about one block's latency (~300 TSC cycles for 1 to 4 blocks on
 * Zen 3, where a word-sliced step costs ~380 whatever the tail). RFC 8439
 * 2.1-2.4; the counter is word 12 only and never wraps inside a call
 * (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"

static inline __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
static inline __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

static inline __m256i
vrol16(__m256i v)
{
	const __m256i m = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
					  13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);

	return _mm256_shuffle_epi8(v, m);
}

static inline __m256i
vrol8(__m256i v)
{
	const __m256i m = _mm256_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
					  14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);

	return _mm256_shuffle_epi8(v, m);
}

#define VROL(v, n) _mm256_or_si256(_mm256_slli_epi32((v), (n)), _mm256_srli_epi32((v), 32 - (n)))

/* RFC 8439 2.1 on the rows of two blocks at once */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = vrol16(vxor(d, a)); \
	c = vadd(c, d); b = VROL(vxor(b, c), 12); \
	a = vadd(a, b); d = vrol8(vxor(d, a)); \
	c = vadd(c, d); b = VROL(vxor(b, c), 7); \
} while (0)

/* RFC 8439 2.2: rows 1-3 turned left by 1, 2, 3 words put diagonals in columns */
#define DIAG(b, c, d) do { \
	b = _mm256_shuffle_epi32(b, 0x39); \
	c = _mm256_shuffle_epi32(c, 0x4e); \
	d = _mm256_shuffle_epi32(d, 0x93); \
} while (0)
#define UNDIAG(b, c, d) do { \
	b = _mm256_shuffle_epi32(b, 0x93); \
	c = _mm256_shuffle_epi32(c, 0x4e); \
	d = _mm256_shuffle_epi32(d, 0x39); \
} while (0)

static inline __m256i
row2(const uint32_t *x)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)x));
}

static inline void
store2(uint8_t *ks, __m256i a, __m256i b, __m256i c, __m256i d)
{
	_mm256_storeu_si256((__m256i *)(void *)ks, _mm256_permute2x128_si256(a, b, 0x20));
	_mm256_storeu_si256((__m256i *)(void *)(ks + 32), _mm256_permute2x128_si256(c, d, 0x20));
	_mm256_storeu_si256((__m256i *)(void *)(ks + 64), _mm256_permute2x128_si256(a, b, 0x31));
	_mm256_storeu_si256((__m256i *)(void *)(ks + 96), _mm256_permute2x128_si256(c, d, 0x31));
}

void
vecsec_chacha_ks4_avx2(uint8_t *ks, const uint32_t x[16], unsigned int nblocks,
		       unsigned int rounds)
{
	const __m256i a0 = row2(x), b0 = row2(x + 4), c0 = row2(x + 8);
	const __m256i d0 = vadd(row2(x + 12), _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0));
	const __m256i d1 = vadd(d0, _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2));
	__m256i a = a0, b = b0, c = c0, d = d0, e = a0, f = b0, g = c0, h = d1;

	if (nblocks <= 2) {
		for (unsigned int i = 0; i < rounds; i += 2) {
			QR(a, b, c, d);
			DIAG(b, c, d);
			QR(a, b, c, d);
			UNDIAG(b, c, d);
		}
	} else {
		for (unsigned int i = 0; i < rounds; i += 2) {
			QR(a, b, c, d);
			QR(e, f, g, h);
			DIAG(b, c, d);
			DIAG(f, g, h);
			QR(a, b, c, d);
			QR(e, f, g, h);
			UNDIAG(b, c, d);
			UNDIAG(f, g, h);
		}
		store2(ks + 128, vadd(e, a0), vadd(f, b0), vadd(g, c0), vadd(h, d1));
	}
	store2(ks, vadd(a, a0), vadd(b, b0), vadd(c, c0), vadd(d, d0));
}

#define CX_AVX2
#include "chacha_x86.h"

void
vecsec_chacha_xor_blocks_avx2(uint8_t *out, const uint8_t *in, size_t len,
			      struct chacha_state *st)
{
	cx_xor_blocks(out, in, len, st);
}

const struct chacha_impl vecsec_chacha_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.min_len = 0,
	.xor_blocks = vecsec_chacha_xor_blocks_avx2,
	.lanes = 8,
	.lanes_name = "x8-avx2",
	.xor_lanes = vecsec_chacha_xor_lanes_x8_avx2,
	.xor_lanes_bytes = vecsec_chacha_xor_lanes_bytes_x8_avx2,
};
