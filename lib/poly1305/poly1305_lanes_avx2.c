/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 lanes, AVX2: 4 independent messages, one per 64-bit lane, each
 * with its own r (RFC 8439 2.5). Inside, radix 2^26 (five limbs, VPMULUDQ
 * 32x32->64 products, 5 r folded in for the limbs past 2^130); the struct's
 * radix 2^44 is converted on entry and exit. Two blocks of every lane per
 * step, h = (h + m1) r^2 + m2 r, so that one carry pass serves two blocks
 * and the two products run side by side; an odd last block takes a one-block
 * step. Blocks are loaded with plain 16-byte loads and two unpacks per
 * block pair, not gathers (slow on AMD Zen). Contract: struct poly1305_impl
 * (blocks_lanes) in poly1305_internal.h.
 *
 * Compiled twice (lib/meson.build): as the AVX2 flag set (symbol _avx2)
 * and with -mavx512vl -mavx512bw added (symbol _avx2vl: the same code in
 * ymm registers, 32 of them, for CPUs with AVX-512VL and BW at the AVX2
 * level).
 */
#include <immintrin.h>

#include "poly1305_avx2.h"

#ifdef __AVX512VL__
#define LANES_FN(name) name##_avx2vl
#else
#define LANES_FN(name) name##_avx2
#endif

#define M44 ((UINT64_C(1) << 44) - 1)

static inline __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
static inline __m256i vand(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
static inline __m256i vshr(__m256i a, int n) { return _mm256_srli_epi64(a, n); }
static inline __m256i vshl(__m256i a, int n) { return _mm256_slli_epi64(a, n); }

/* the two blocks inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_blocks[2 * POLY1305_BLOCK_LEN];

void
LANES_FN(vecsec_poly1305_blocks_lanes_x4)(struct poly1305_lanes *l, uint32_t nblocks)
{
	const uint32_t act = l->active;
	const __m256i m44 = _mm256_set1_epi64x((long long)M44);
	__m256i h[5], r[5], s[5], r2[5], s2[5], d[5], e[5], m[5], lo, hi, x0, x1, x2, mask;
	const uint8_t *p[4];
	size_t step[4], off = 0;
	uint32_t b = 0;

	p26l_to26(h, _mm256_loadu_si256((const __m256i *)l->h[0]),
	     _mm256_loadu_si256((const __m256i *)l->h[1]),
	     _mm256_loadu_si256((const __m256i *)l->h[2]));
	p26l_to26(r, _mm256_loadu_si256((const __m256i *)l->r[0]),
	     _mm256_loadu_si256((const __m256i *)l->r[1]),
	     _mm256_loadu_si256((const __m256i *)l->r[2]));
	s[0] = r[0];
	for (int i = 1; i < 5; i++)
		s[i] = p26l_times5(r[i]);
	for (int i = 0; i < 4; i++) {
		bool on = (act >> i) & 1;

		p[i] = on ? l->in[i] : zero_blocks;
		step[i] = on ? 1 : 0;
	}

	if (nblocks >= 2) {
		/* r^2, reduced: the multiplier of the first block of a pair */
		p26l_mul(d, r, r, s);
		p26l_carry(r2, d);
		s2[0] = r2[0];
		for (int i = 1; i < 5; i++)
			s2[i] = p26l_times5(r2[i]);
	}
	for (; b + 2 <= nblocks; b += 2) {
		const uint8_t *q[4];

		for (int i = 0; i < 4; i++)
			q[i] = p[i] + step[i] * off;
		/* (h + m1) r^2 + m2 r */
		p26l_load(&lo, &hi, q, 0);
		p26l_split(m, lo, hi, _mm256_set1_epi64x(1 << 24));
		for (int i = 0; i < 5; i++)
			m[i] = vadd(m[i], h[i]);
		p26l_mul(d, m, r2, s2);
		p26l_load(&lo, &hi, q, POLY1305_BLOCK_LEN);
		p26l_split(m, lo, hi, _mm256_set1_epi64x(1 << 24));
		p26l_mul(e, m, r, s);
		for (int i = 0; i < 5; i++)
			d[i] = vadd(d[i], e[i]);
		p26l_carry(h, d);
		off += 2 * POLY1305_BLOCK_LEN;
	}
	if (b < nblocks) {
		const uint8_t *q[4];

		for (int i = 0; i < 4; i++)
			q[i] = p[i] + step[i] * off;
		p26l_load(&lo, &hi, q, 0);
		p26l_split(m, lo, hi, _mm256_set1_epi64x(1 << 24));
		for (int i = 0; i < 5; i++)
			m[i] = vadd(m[i], h[i]);
		p26l_mul(d, m, r, s);
		p26l_carry(h, d);
	}

	/* back to radix 2^44: h[0], h[2], h[3] < 2^26, h[1] and h[4] a little above */
	x0 = vadd(h[0], vshl(h[1], 26));
	x1 = vadd(vadd(vshr(x0, 44), vshl(h[2], 8)), vshl(h[3], 34));
	x0 = vand(x0, m44);
	x2 = vadd(vshr(x1, 44), vshl(h[4], 16));
	x1 = vand(x1, m44);
	/*
	 * Only the active lanes' accumulators are written: plain stores when
	 * all four are (the next call's loads of h then forward from them;
	 * from VPMASKMOVQ they cannot, on AMD Zen), else masked ones.
	 */
	if ((act & 0xf) == 0xf) {
		_mm256_storeu_si256((__m256i *)l->h[0], x0);
		_mm256_storeu_si256((__m256i *)l->h[1], x1);
		_mm256_storeu_si256((__m256i *)l->h[2], x2);
	} else {
		mask = _mm256_set_epi64x(-(long long)((act >> 3) & 1),
					 -(long long)((act >> 2) & 1),
					 -(long long)((act >> 1) & 1), -(long long)(act & 1));
		_mm256_maskstore_epi64((long long *)l->h[0], mask, x0);
		_mm256_maskstore_epi64((long long *)l->h[1], mask, x1);
		_mm256_maskstore_epi64((long long *)l->h[2], mask, x2);
	}
	for (int i = 0; i < 4; i++) {
		if (!((act >> i) & 1))
			continue;
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
}
