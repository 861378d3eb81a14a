/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NH (Adiantum paper 6.3), SSE2 instructions only: one 16-byte unit per
 * xmm, all four passes per unit, one xmm of two 64-bit sums per pass. The
 * design of Linux's nh-sse2 (one PMULUDQ per pass per unit), with the
 * stride-2 partners brought into one 64-bit half by a single PSHUFD of
 * the message and of each key vector: pass i + 1 of a unit uses the key
 * vector of pass i of the next unit, so each unit loads and shuffles one
 * new key vector. Listed at the SSSE3 level (the lowest SIMD level of the
 * dispatch; built in the ssse3 flag set). Constant time: no branch or index
 * on key or message.
 */
#include <immintrin.h>

#include "adiantum_internal.h"

/* [w0 w1 w2 w3] -> [w0 w2 w1 w3]: each word next to its stride-2 partner */
#define PAIR_ORDER 0xd8

static inline __m128i
pair_load(const void *p)
{
	return _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)p), PAIR_ORDER);
}

/*
 * m, k in pair order: after the 32-bit add each 64-bit half holds (m_j +
 * k_j, m_{j+2} + k_{j+2}); PMULUDQ multiplies the low word by the high one
 * (PSHUFD copies the high words down: no register copy needed).
 */
static inline __m128i
products(__m128i m, __m128i k)
{
	__m128i t = _mm_add_epi32(m, k);

	return _mm_mul_epu32(t, _mm_shuffle_epi32(t, 0xf5));
}

/* One unit at msg: pass i with key vector k_i (pair order). */
#define UNIT(msg, ka, kb, kc, kd) do { \
	__m128i m_ = pair_load(msg); \
	s0 = _mm_add_epi64(s0, products(m_, ka)); \
	s1 = _mm_add_epi64(s1, products(m_, kb)); \
	s2 = _mm_add_epi64(s2, products(m_, kc)); \
	s3 = _mm_add_epi64(s3, products(m_, kd)); \
} while (0)

static void
nh_sse2(const uint32_t *key, const uint8_t *msg, size_t len, uint64_t hash[NH_NUM_PASSES])
{
	__m128i s0 = _mm_setzero_si128(), s1 = s0, s2 = s0, s3 = s0;
	/* the key vectors of passes 0-2 of the next unit */
	__m128i k0 = pair_load(key), k1 = pair_load(key + 4), k2 = pair_load(key + 8);
	size_t off = 0;

	/* four units a step, the key vectors renamed instead of moved */
	for (; off + 4 * NH_MESSAGE_UNIT <= len; off += 4 * NH_MESSAGE_UNIT) {
		const uint32_t *kp = key + off / 4;
		__m128i k3 = pair_load(kp + 12), k4 = pair_load(kp + 16);
		__m128i k5 = pair_load(kp + 20), k6 = pair_load(kp + 24);

		UNIT(msg + off, k0, k1, k2, k3);
		UNIT(msg + off + 16, k1, k2, k3, k4);
		UNIT(msg + off + 32, k2, k3, k4, k5);
		UNIT(msg + off + 48, k3, k4, k5, k6);
		k0 = k4;
		k1 = k5;
		k2 = k6;
	}
	for (; off < len; off += NH_MESSAGE_UNIT) {
		__m128i k3 = pair_load(key + off / 4 + 12);

		UNIT(msg + off, k0, k1, k2, k3);
		k0 = k1;
		k1 = k2;
		k2 = k3;
	}
	/* hash[i] = both halves of s_i added */
	_mm_storeu_si128((__m128i *)(void *)&hash[0],
			 _mm_add_epi64(_mm_unpacklo_epi64(s0, s1), _mm_unpackhi_epi64(s0, s1)));
	_mm_storeu_si128((__m128i *)(void *)&hash[2],
			 _mm_add_epi64(_mm_unpacklo_epi64(s2, s3), _mm_unpackhi_epi64(s2, s3)));
}

const struct nh_impl vecsec_nh_impl_sse2 = {
	.name = "sse2",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSSE3,   /* built in the ssse3 flag set */
	.nh = nh_sse2,
};
