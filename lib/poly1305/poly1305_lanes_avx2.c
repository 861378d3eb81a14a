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

#include "poly1305_internal.h"

#ifdef __AVX512VL__
#define LANES_FN(name) name##_avx2vl
#else
#define LANES_FN(name) name##_avx2
#endif

#define M26 ((UINT64_C(1) << 26) - 1)
#define M44 ((UINT64_C(1) << 44) - 1)

/* the two blocks inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_blocks[2 * POLY1305_BLOCK_LEN];

static inline __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
static inline __m256i vmul(__m256i a, __m256i b) { return _mm256_mul_epu32(a, b); }
static inline __m256i vand(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
static inline __m256i vshr(__m256i a, int n) { return _mm256_srli_epi64(a, n); }
static inline __m256i vshl(__m256i a, int n) { return _mm256_slli_epi64(a, n); }

/* x * 5 = x * 4 + x: 2^130 == 5 mod p */
static inline __m256i times5(__m256i x) { return vadd(vshl(x, 2), x); }

/* radix 2^44 (limbs at most a little above 2^44) -> radix 2^26 */
static inline void
to26(__m256i a[5], __m256i x0, __m256i x1, __m256i x2)
{
	const __m256i m26 = _mm256_set1_epi64x((long long)M26);
	const __m256i m44 = _mm256_set1_epi64x((long long)M44);

	x1 = vadd(x1, vshr(x0, 44));
	x0 = vand(x0, m44);
	x2 = vadd(x2, vshr(x1, 44));
	x1 = vand(x1, m44);
	a[0] = vand(x0, m26);
	a[1] = vand(_mm256_or_si256(vshr(x0, 26), vshl(x1, 18)), m26);
	a[2] = vand(vshr(x1, 8), m26);
	a[3] = vand(_mm256_or_si256(vshr(x1, 34), vshl(x2, 10)), m26);
	a[4] = vshr(x2, 16);
}

/*
 * d = a * r mod 2^130 - 5, unreduced 64-bit column sums (s = 5 r, limbs
 * 1..4). Limbs of a below 2^28 and of s below 2^29: every product is below
 * 2^57 and a sum of ten of them (two calls added) below 2^61.
 */
static inline void
mul(__m256i d[5], const __m256i a[5], const __m256i r[5], const __m256i s[5])
{
	d[0] = vadd(vadd(vadd(vadd(vmul(a[0], r[0]), vmul(a[1], s[4])), vmul(a[2], s[3])),
			 vmul(a[3], s[2])), vmul(a[4], s[1]));
	d[1] = vadd(vadd(vadd(vadd(vmul(a[0], r[1]), vmul(a[1], r[0])), vmul(a[2], s[4])),
			 vmul(a[3], s[3])), vmul(a[4], s[2]));
	d[2] = vadd(vadd(vadd(vadd(vmul(a[0], r[2]), vmul(a[1], r[1])), vmul(a[2], r[0])),
			 vmul(a[3], s[4])), vmul(a[4], s[3]));
	d[3] = vadd(vadd(vadd(vadd(vmul(a[0], r[3]), vmul(a[1], r[2])), vmul(a[2], r[1])),
			 vmul(a[3], r[0])), vmul(a[4], s[4]));
	d[4] = vadd(vadd(vadd(vadd(vmul(a[0], r[4]), vmul(a[1], r[3])), vmul(a[2], r[2])),
			 vmul(a[3], r[1])), vmul(a[4], r[0]));
}

/*
 * Column sums (below 2^62) back to limbs below 2^26 (limbs 1 and 4 a
 * little above): two carry chains side by side, 0 -> 1 -> 2 -> 3 and
 * 3 -> 4 -> 0 (times 5) -> 1, as the usual vector Poly1305 code does.
 */
static inline void
carry(__m256i h[5], __m256i d[5])
{
	const __m256i m26 = _mm256_set1_epi64x((long long)M26);
	__m256i c0, c3;

	c3 = vshr(d[3], 26); d[3] = vand(d[3], m26); d[4] = vadd(d[4], c3);
	c0 = vshr(d[0], 26); d[0] = vand(d[0], m26); d[1] = vadd(d[1], c0);
	c3 = vshr(d[4], 26); d[4] = vand(d[4], m26); d[0] = vadd(d[0], times5(c3));
	c0 = vshr(d[1], 26); d[1] = vand(d[1], m26); d[2] = vadd(d[2], c0);
	c3 = vshr(d[0], 26); d[0] = vand(d[0], m26); d[1] = vadd(d[1], c3);
	c0 = vshr(d[2], 26); d[2] = vand(d[2], m26); d[3] = vadd(d[3], c0);
	c3 = vshr(d[3], 26); d[3] = vand(d[3], m26); d[4] = vadd(d[4], c3);
	for (int i = 0; i < 5; i++)
		h[i] = d[i];
}

/* m = the block (lo, hi: its little-endian 64-bit words per lane) + 2^128 */
static inline void
split(__m256i m[5], __m256i lo, __m256i hi)
{
	const __m256i m26 = _mm256_set1_epi64x((long long)M26);
	const __m256i pad = _mm256_set1_epi64x(1 << 24);     /* 2^128 in limb 4 */

	m[0] = vand(lo, m26);
	m[1] = vand(vshr(lo, 26), m26);
	m[2] = vand(_mm256_or_si256(vshr(lo, 52), vshl(hi, 12)), m26);
	m[3] = vand(vshr(hi, 14), m26);
	m[4] = _mm256_or_si256(vshr(hi, 40), pad);
}

/* the 16 bytes at p[i] + off of each lane as (lo words, hi words) */
static inline void
load_block(__m256i *lo, __m256i *hi, const uint8_t *const p[4], size_t off)
{
	__m256i a = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p[0] + off))),
		_mm_loadu_si128((const __m128i *)(p[2] + off)), 1);
	__m256i b = _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p[1] + off))),
		_mm_loadu_si128((const __m128i *)(p[3] + off)), 1);

	*lo = _mm256_unpacklo_epi64(a, b);
	*hi = _mm256_unpackhi_epi64(a, b);
}

void
LANES_FN(vecsec_poly1305_blocks_lanes_x4)(struct poly1305_lanes *l, uint32_t nblocks)
{
	const uint32_t act = l->active;
	const __m256i m44 = _mm256_set1_epi64x((long long)M44);
	__m256i h[5], r[5], s[5], r2[5], s2[5], d[5], e[5], m[5], lo, hi, x0, x1, x2, mask;
	const uint8_t *p[4];
	size_t step[4], off = 0;
	uint32_t b = 0;

	to26(h, _mm256_loadu_si256((const __m256i *)l->h[0]),
	     _mm256_loadu_si256((const __m256i *)l->h[1]),
	     _mm256_loadu_si256((const __m256i *)l->h[2]));
	to26(r, _mm256_loadu_si256((const __m256i *)l->r[0]),
	     _mm256_loadu_si256((const __m256i *)l->r[1]),
	     _mm256_loadu_si256((const __m256i *)l->r[2]));
	s[0] = r[0];
	for (int i = 1; i < 5; i++)
		s[i] = times5(r[i]);
	for (int i = 0; i < 4; i++) {
		bool on = (act >> i) & 1;

		p[i] = on ? l->in[i] : zero_blocks;
		step[i] = on ? 1 : 0;
	}

	if (nblocks >= 2) {
		/* r^2, reduced: the multiplier of the first block of a pair */
		mul(d, r, r, s);
		carry(r2, d);
		s2[0] = r2[0];
		for (int i = 1; i < 5; i++)
			s2[i] = times5(r2[i]);
	}
	for (; b + 2 <= nblocks; b += 2) {
		const uint8_t *q[4];

		for (int i = 0; i < 4; i++)
			q[i] = p[i] + step[i] * off;
		/* (h + m1) r^2 + m2 r */
		load_block(&lo, &hi, q, 0);
		split(m, lo, hi);
		for (int i = 0; i < 5; i++)
			m[i] = vadd(m[i], h[i]);
		mul(d, m, r2, s2);
		load_block(&lo, &hi, q, POLY1305_BLOCK_LEN);
		split(m, lo, hi);
		mul(e, m, r, s);
		for (int i = 0; i < 5; i++)
			d[i] = vadd(d[i], e[i]);
		carry(h, d);
		off += 2 * POLY1305_BLOCK_LEN;
	}
	if (b < nblocks) {
		const uint8_t *q[4];

		for (int i = 0; i < 4; i++)
			q[i] = p[i] + step[i] * off;
		load_block(&lo, &hi, q, 0);
		split(m, lo, hi);
		for (int i = 0; i < 5; i++)
			m[i] = vadd(m[i], h[i]);
		mul(d, m, r, s);
		carry(h, d);
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
