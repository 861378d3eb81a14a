/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, SSSE3. xor_blocks (its step and tail logic shared with
 * AVX2 in chacha_x86.h): 4 blocks of one message per step
 * (assembly, chacha_ssse3.S: one state word per xmm, word-sliced); a tail
 * of 3..4 blocks is one more step into a keystream buffer, 1..2 blocks
 * use the row form (one row of the state per xmm, diagonals by PSHUFD),
 * two blocks as two interleaved chains at about one block's latency.
 * Rotations by 16 and 8 are PSHUFB byte shuffles, by 12 and 7 shifts.
 * RFC 8439 2.1-2.4; the counter is word 12 only and never wraps inside a
 * call (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"

static inline __m128i vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
static inline __m128i vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }

static inline __m128i
vrol16(__m128i v)
{
	const __m128i m = _mm_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);

	return _mm_shuffle_epi8(v, m);
}

static inline __m128i
vrol8(__m128i v)
{
	const __m128i m = _mm_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);

	return _mm_shuffle_epi8(v, m);
}

#define VROL(v, n) ((n) == 16 ? vrol16(v) : (n) == 8 ? vrol8(v) : \
	_mm_or_si128(_mm_slli_epi32((v), (n)), _mm_srli_epi32((v), 32 - (n))))

/* RFC 8439 2.1, on four words of every block at once */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROL(vxor(b, c), 7); \
} while (0)

static inline void
storeu(uint8_t *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)(void *)p, v);
}

/*
 * One block in row form: a, b, c, d are rows 0-3 of the state; the
 * diagonal round turns rows 1-3 left by 1, 2, 3 words so that diagonals
 * line up as columns (RFC 8439 2.2), then back.
 */
static void
block_x1(uint8_t ks[CHACHA_BLOCK_LEN], const uint32_t x[16], unsigned int rounds)
{
	const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)&x[0]);
	const __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)&x[4]);
	const __m128i c0 = _mm_loadu_si128((const __m128i *)(const void *)&x[8]);
	const __m128i d0 = _mm_loadu_si128((const __m128i *)(const void *)&x[12]);
	__m128i a = a0, b = b0, c = c0, d = d0;

	for (unsigned int i = 0; i < rounds; i += 2) {
		QR(a, b, c, d);
		b = _mm_shuffle_epi32(b, 0x39);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x93);
		QR(a, b, c, d);
		b = _mm_shuffle_epi32(b, 0x93);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x39);
	}
	storeu(ks, vadd(a, a0));
	storeu(ks + 16, vadd(b, b0));
	storeu(ks + 32, vadd(c, c0));
	storeu(ks + 48, vadd(d, d0));
}

/* Two blocks in row form, interleaved: two independent chains, one block's latency. */
static void
block_x2(uint8_t ks[2 * CHACHA_BLOCK_LEN], const uint32_t x[16], unsigned int rounds)
{
	const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)&x[0]);
	const __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)&x[4]);
	const __m128i c0 = _mm_loadu_si128((const __m128i *)(const void *)&x[8]);
	const __m128i d0 = _mm_loadu_si128((const __m128i *)(const void *)&x[12]);
	const __m128i d1 = vadd(d0, _mm_set_epi32(0, 0, 0, 1));
	__m128i a = a0, b = b0, c = c0, d = d0, e = a0, f = b0, g = c0, h = d1;

	for (unsigned int i = 0; i < rounds; i += 2) {
		QR(a, b, c, d);
		QR(e, f, g, h);
		b = _mm_shuffle_epi32(b, 0x39);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x93);
		f = _mm_shuffle_epi32(f, 0x39);
		g = _mm_shuffle_epi32(g, 0x4e);
		h = _mm_shuffle_epi32(h, 0x93);
		QR(a, b, c, d);
		QR(e, f, g, h);
		b = _mm_shuffle_epi32(b, 0x93);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x39);
		f = _mm_shuffle_epi32(f, 0x93);
		g = _mm_shuffle_epi32(g, 0x4e);
		h = _mm_shuffle_epi32(h, 0x39);
	}
	storeu(ks, vadd(a, a0));
	storeu(ks + 16, vadd(b, b0));
	storeu(ks + 32, vadd(c, c0));
	storeu(ks + 48, vadd(d, d0));
	storeu(ks + 64, vadd(e, a0));
	storeu(ks + 80, vadd(f, b0));
	storeu(ks + 96, vadd(g, c0));
	storeu(ks + 112, vadd(h, d1));
}

void
vecsec_chacha_ks2_ssse3(uint8_t *ks, const uint32_t x[16], unsigned int nblocks,
			unsigned int rounds)
{
	if (nblocks <= 1)
		block_x1(ks, x, rounds);
	else
		block_x2(ks, x, rounds);
}

#define CX_SSSE3
#include "chacha_x86.h"

void
vecsec_chacha_xor_blocks_ssse3(uint8_t *out, const uint8_t *in, size_t len,
			       struct chacha_state *st)
{
	cx_xor_blocks(out, in, len, st);
}

const struct chacha_impl vecsec_chacha_impl_ssse3 = {
	.name = "ssse3",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSSE3,
	.min_len = 0,
	.xor_blocks = vecsec_chacha_xor_blocks_ssse3,
	.lanes = 4,
	.lanes_name = "x4-ssse3",
	.xor_lanes = vecsec_chacha_xor_lanes_x4_ssse3,
};
