/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 lanes, AVX2: 4 independent messages, one per 64-bit lane, each
 * with its own r; one 16-byte block of each per step (RFC 8439 2.5). Inside,
 * radix 2^26 (five limbs, VPMULUDQ 32x32->64 products, 5 r folded in for
 * the limbs past 2^130); the struct's radix 2^44 is converted on entry and
 * exit. Contract: struct poly1305_impl (blocks_lanes) in poly1305_internal.h.
 */
#include <immintrin.h>

#include "poly1305_internal.h"

#define M26 ((UINT64_C(1) << 26) - 1)
#define M44 ((UINT64_C(1) << 44) - 1)

/* the block inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_block[POLY1305_BLOCK_LEN];

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

void
vecsec_poly1305_blocks_lanes_x4_avx2(struct poly1305_lanes *l, uint32_t nblocks)
{
	const uint32_t act = l->active;
	const __m256i m26 = _mm256_set1_epi64x((long long)M26);
	const __m256i m44 = _mm256_set1_epi64x((long long)M44);
	const __m256i pad = _mm256_set1_epi64x(1 << 24);     /* 2^128 in limb 4 */
	__m256i h[5], r[5], s[5], ptr, step, x0, x1, x2;
	long long p[4], st[4];

	to26(h, _mm256_loadu_si256((const __m256i *)l->h[0]),
	     _mm256_loadu_si256((const __m256i *)l->h[1]),
	     _mm256_loadu_si256((const __m256i *)l->h[2]));
	to26(r, _mm256_loadu_si256((const __m256i *)l->r[0]),
	     _mm256_loadu_si256((const __m256i *)l->r[1]),
	     _mm256_loadu_si256((const __m256i *)l->r[2]));
	for (int i = 1; i < 5; i++)
		s[i] = times5(r[i]);
	for (int i = 0; i < 4; i++) {
		bool on = (act >> i) & 1;

		p[i] = (long long)(uintptr_t)(on ? l->in[i] : zero_block);
		st[i] = on ? POLY1305_BLOCK_LEN : 0;
	}
	ptr = _mm256_loadu_si256((const __m256i *)p);
	step = _mm256_loadu_si256((const __m256i *)st);

	for (uint32_t b = 0; b < nblocks; b++) {
		/* each lane's block as two little-endian 64-bit words */
		__m256i lo = _mm256_i64gather_epi64((const long long *)0, ptr, 1);
		__m256i hi = _mm256_i64gather_epi64((const long long *)8, ptr, 1);
		__m256i d0, d1, d2, d3, d4, c;

		ptr = vadd(ptr, step);
		/* h += block + 2^128 */
		h[0] = vadd(h[0], vand(lo, m26));
		h[1] = vadd(h[1], vand(vshr(lo, 26), m26));
		h[2] = vadd(h[2], vand(_mm256_or_si256(vshr(lo, 52), vshl(hi, 12)), m26));
		h[3] = vadd(h[3], vand(vshr(hi, 14), m26));
		h[4] = vadd(h[4], _mm256_or_si256(vshr(hi, 40), pad));

		/* h *= r, limbs past 2^130 folded in by s = 5 r */
		d0 = vadd(vadd(vadd(vadd(vmul(h[0], r[0]), vmul(h[1], s[4])), vmul(h[2], s[3])),
			       vmul(h[3], s[2])), vmul(h[4], s[1]));
		d1 = vadd(vadd(vadd(vadd(vmul(h[0], r[1]), vmul(h[1], r[0])), vmul(h[2], s[4])),
			       vmul(h[3], s[3])), vmul(h[4], s[2]));
		d2 = vadd(vadd(vadd(vadd(vmul(h[0], r[2]), vmul(h[1], r[1])), vmul(h[2], r[0])),
			       vmul(h[3], s[4])), vmul(h[4], s[3]));
		d3 = vadd(vadd(vadd(vadd(vmul(h[0], r[3]), vmul(h[1], r[2])), vmul(h[2], r[1])),
			       vmul(h[3], r[0])), vmul(h[4], s[4]));
		d4 = vadd(vadd(vadd(vadd(vmul(h[0], r[4]), vmul(h[1], r[3])), vmul(h[2], r[2])),
			       vmul(h[3], r[1])), vmul(h[4], r[0]));

		c = vshr(d0, 26); h[0] = vand(d0, m26); d1 = vadd(d1, c);
		c = vshr(d1, 26); h[1] = vand(d1, m26); d2 = vadd(d2, c);
		c = vshr(d2, 26); h[2] = vand(d2, m26); d3 = vadd(d3, c);
		c = vshr(d3, 26); h[3] = vand(d3, m26); d4 = vadd(d4, c);
		c = vshr(d4, 26); h[4] = vand(d4, m26);
		h[0] = vadd(h[0], times5(c));
		c = vshr(h[0], 26); h[0] = vand(h[0], m26); h[1] = vadd(h[1], c);
	}

	/* back to radix 2^44: h[0..3] < 2^26, h[1] may carry a little */
	x0 = vadd(h[0], vshl(h[1], 26));
	x1 = vadd(vadd(vshr(x0, 44), vshl(h[2], 8)), vshl(h[3], 34));
	x0 = vand(x0, m44);
	x2 = vadd(vshr(x1, 44), vshl(h[4], 16));
	x1 = vand(x1, m44);
	for (int i = 0; i < 4; i++) {
		long long v0 = 0, v1 = 0, v2 = 0;

		if (!((act >> i) & 1))
			continue;
		switch (i) {
		case 0:
			v0 = _mm256_extract_epi64(x0, 0); v1 = _mm256_extract_epi64(x1, 0);
			v2 = _mm256_extract_epi64(x2, 0);
			break;
		case 1:
			v0 = _mm256_extract_epi64(x0, 1); v1 = _mm256_extract_epi64(x1, 1);
			v2 = _mm256_extract_epi64(x2, 1);
			break;
		case 2:
			v0 = _mm256_extract_epi64(x0, 2); v1 = _mm256_extract_epi64(x1, 2);
			v2 = _mm256_extract_epi64(x2, 2);
			break;
		default:
			v0 = _mm256_extract_epi64(x0, 3); v1 = _mm256_extract_epi64(x1, 3);
			v2 = _mm256_extract_epi64(x2, 3);
			break;
		}
		l->h[0][i] = (uint64_t)v0;
		l->h[1][i] = (uint64_t)v1;
		l->h[2][i] = (uint64_t)v2;
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
}
