/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NH (Adiantum paper 6.3), AVX2 (the avx2 flag set: -mavx2 -mbmi2): two
 * 16-byte units per ymm (one per 128-bit lane), all four passes per 32-byte
 * step, one ymm of four 64-bit sums per pass. A last lone unit uses the
 * low lanes alone. The same design as Linux's nh-avx2 (one VPMULUDQ per
 * pass per 32 bytes: 4 of the 8 products of a step's pass in each), with
 * the stride-2 partners brought into one 64-bit half by a single PSHUFD of
 * the message and of each key vector (reused across passes, since pass i
 * of one step is pass i - 2 of the next) instead of two per pass.
 * Constant time: no branch or index on key or message.
 */
#include <immintrin.h>

#include "adiantum_internal.h"

/* [w0 w1 w2 w3] -> [w0 w2 w1 w3] in each lane: each word next to its partner */
#define PAIR_ORDER 0xd8

static inline __m256i
loadu256(const void *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

static inline __m128i
loadu128(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

static inline __m256i
pair_up(__m256i v)
{
	return _mm256_shuffle_epi32(v, PAIR_ORDER);
}

static inline __m128i
pair_up128(__m128i v)
{
	return _mm_shuffle_epi32(v, PAIR_ORDER);
}

/*
 * m and k in pair order: each 64-bit half holds (m_j + k_j, m_{j+2} +
 * k_{j+2}) after the 32-bit add; VPMULUDQ multiplies the low word by the
 * high one, giving both products of each unit of the pass.
 */
static inline __m256i
products(__m256i m, __m256i k)
{
	__m256i t = _mm256_add_epi32(m, k);

	return _mm256_mul_epu32(t, _mm256_srli_epi64(t, 32));
}

static inline __m128i
products128(__m128i m, __m128i k)
{
	__m128i t = _mm_add_epi32(m, k);

	return _mm_mul_epu32(t, _mm_srli_epi64(t, 32));
}

/* One 32-byte step at msg (two units): pass i with key vector k_i (pair order). */
#define STEP(msg, ka, kb, kc, kd) do { \
	__m256i m_ = pair_up(loadu256(msg)); \
	s0 = _mm256_add_epi64(s0, products(m_, ka)); \
	s1 = _mm256_add_epi64(s1, products(m_, kb)); \
	s2 = _mm256_add_epi64(s2, products(m_, kc)); \
	s3 = _mm256_add_epi64(s3, products(m_, kd)); \
} while (0)

static void
nh_avx2(const uint32_t *key, const uint8_t *msg, size_t len, uint64_t hash[NH_NUM_PASSES])
{
	__m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
	__m128i t0, t1, t2, t3;
	size_t off = 0;

	if (len >= 2 * NH_MESSAGE_UNIT) {
		/* key vectors of passes 0 and 1 of the next step; 2 and 3 are new each step */
		__m256i k0 = pair_up(loadu256(key)), k1 = pair_up(loadu256(key + 4));

		/* two steps at a time, the key vectors renamed instead of moved */
		for (; off + 4 * NH_MESSAGE_UNIT <= len; off += 4 * NH_MESSAGE_UNIT) {
			const uint32_t *kp = key + off / 4;
			__m256i k2 = pair_up(loadu256(kp + 8)), k3 = pair_up(loadu256(kp + 12));

			STEP(msg + off, k0, k1, k2, k3);
			k0 = pair_up(loadu256(kp + 16));
			k1 = pair_up(loadu256(kp + 20));
			STEP(msg + off + 32, k2, k3, k0, k1);
		}
		if (off + 2 * NH_MESSAGE_UNIT <= len) {
			const uint32_t *kp = key + off / 4;

			STEP(msg + off, k0, k1, pair_up(loadu256(kp + 8)), pair_up(loadu256(kp + 12)));
			off += 2 * NH_MESSAGE_UNIT;
		}
	}
	/* the sums of both lanes of each pass: [lo0 + hi0, lo1 + hi1] per pass */
	t0 = _mm_add_epi64(_mm256_castsi256_si128(s0), _mm256_extracti128_si256(s0, 1));
	t1 = _mm_add_epi64(_mm256_castsi256_si128(s1), _mm256_extracti128_si256(s1, 1));
	t2 = _mm_add_epi64(_mm256_castsi256_si128(s2), _mm256_extracti128_si256(s2, 1));
	t3 = _mm_add_epi64(_mm256_castsi256_si128(s3), _mm256_extracti128_si256(s3, 1));
	if (off < len) {
		/* one unit left (len is a multiple of 16) */
		const uint32_t *kp = key + off / 4;
		__m128i m = pair_up128(loadu128(msg + off));

		t0 = _mm_add_epi64(t0, products128(m, pair_up128(loadu128(kp))));
		t1 = _mm_add_epi64(t1, products128(m, pair_up128(loadu128(kp + 4))));
		t2 = _mm_add_epi64(t2, products128(m, pair_up128(loadu128(kp + 8))));
		t3 = _mm_add_epi64(t3, products128(m, pair_up128(loadu128(kp + 12))));
	}
	/* hash[i] = both halves of t_i added: unpack pairs of passes, add, store */
	_mm_storeu_si128((__m128i *)(void *)&hash[0],
			 _mm_add_epi64(_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1)));
	_mm_storeu_si128((__m128i *)(void *)&hash[2],
			 _mm_add_epi64(_mm_unpacklo_epi64(t2, t3), _mm_unpackhi_epi64(t2, t3)));
}

const struct nh_impl vecsec_nh_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.nh = nh_avx2,
};
