/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 lanes, AVX-512 IFMA: 8 independent messages, one per 64-bit lane,
 * each with its own r; one 16-byte block of each per step (RFC 8439 2.5).
 * Radix 2^44 as in the struct (three limbs), products by VPMADD52LUQ /
 * VPMADD52HUQ. Contract: struct poly1305_lanes_impl in poly1305_internal.h.
 */
#include <immintrin.h>

#include "poly1305_internal.h"

#define M44 ((UINT64_C(1) << 44) - 1)
#define M42 ((UINT64_C(1) << 42) - 1)

/* the block inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_block[POLY1305_BLOCK_LEN];

static inline __m512i mlo(__m512i acc, __m512i a, __m512i b) { return _mm512_madd52lo_epu64(acc, a, b); }
static inline __m512i mhi(__m512i acc, __m512i a, __m512i b) { return _mm512_madd52hi_epu64(acc, a, b); }
/* x * 20 = x * 16 + x * 4: 2^132 = 4 * 2^130 == 20 mod p */
static inline __m512i
times20(__m512i x)
{
	return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2));
}

static void
blocks_lanes_x8(struct poly1305_lanes *l, uint32_t nblocks)
{
	const __mmask8 act = (__mmask8)l->active;
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	const __m512i m42 = _mm512_set1_epi64((long long)M42);
	const __m512i pad = _mm512_set1_epi64((long long)(UINT64_C(1) << 40)); /* 2^128 */
	const __m512i zero = _mm512_setzero_si512();
	__m512i h0, h1, h2, r0, r1, r2, s1, s2, ptr, step;
	uint64_t p[8], st[8];

	h0 = _mm512_loadu_si512((const void *)l->h[0]);
	h1 = _mm512_loadu_si512((const void *)l->h[1]);
	h2 = _mm512_loadu_si512((const void *)l->h[2]);
	r0 = _mm512_loadu_si512((const void *)l->r[0]);
	r1 = _mm512_loadu_si512((const void *)l->r[1]);
	r2 = _mm512_loadu_si512((const void *)l->r[2]);
	s1 = times20(r1);
	s2 = times20(r2);
	for (int i = 0; i < 8; i++) {
		bool on = (act >> i) & 1;

		p[i] = (uint64_t)(uintptr_t)(on ? l->in[i] : zero_block);
		st[i] = on ? POLY1305_BLOCK_LEN : 0;
	}
	ptr = _mm512_loadu_si512((const void *)p);
	step = _mm512_loadu_si512((const void *)st);

	for (uint32_t b = 0; b < nblocks; b++) {
		/* each lane's block as two little-endian 64-bit words */
		__m512i lo = _mm512_i64gather_epi64(ptr, (const void *)0, 1);
		__m512i hi = _mm512_i64gather_epi64(ptr, (const void *)8, 1);
		__m512i d0, d1, d2, e0, e1, e2, c;

		ptr = _mm512_add_epi64(ptr, step);
		/* h += block + 2^128, block split at bits 44 and 88 */
		h0 = _mm512_add_epi64(h0, _mm512_and_si512(lo, m44));
		h1 = _mm512_add_epi64(h1, _mm512_and_si512(
			_mm512_or_si512(_mm512_srli_epi64(lo, 44), _mm512_slli_epi64(hi, 20)), m44));
		h2 = _mm512_add_epi64(h2, _mm512_or_si512(_mm512_srli_epi64(hi, 24), pad));

		/*
		 * h *= r: limb products at 2^0, 2^44, 2^88 (those at 2^132 and
		 * 2^176 folded with s = 20 r); each product's low 52 bits stay at
		 * its limb, the high part lands 52 = 44 + 8 bits up.
		 */
		d0 = mlo(mlo(mlo(zero, h0, r0), h1, s2), h2, s1);
		e0 = mhi(mhi(mhi(zero, h0, r0), h1, s2), h2, s1);
		d1 = mlo(mlo(mlo(zero, h0, r1), h1, r0), h2, s2);
		e1 = mhi(mhi(mhi(zero, h0, r1), h1, r0), h2, s2);
		d2 = mlo(mlo(mlo(zero, h0, r2), h1, r1), h2, r0);
		e2 = mhi(mhi(mhi(zero, h0, r2), h1, r1), h2, r0);
		d1 = _mm512_add_epi64(d1, _mm512_slli_epi64(e0, 8));
		d2 = _mm512_add_epi64(d2, _mm512_slli_epi64(e1, 8));
		/* e2 sits at 2^140 = 2^10 * 2^130 */

		c = _mm512_srli_epi64(d0, 44);
		h0 = _mm512_and_si512(d0, m44);
		d1 = _mm512_add_epi64(d1, c);
		c = _mm512_srli_epi64(d1, 44);
		h1 = _mm512_and_si512(d1, m44);
		d2 = _mm512_add_epi64(d2, c);
		c = _mm512_add_epi64(_mm512_srli_epi64(d2, 42), _mm512_slli_epi64(e2, 10));
		h2 = _mm512_and_si512(d2, m42);
		/* 2^130 == 5 mod p */
		h0 = _mm512_add_epi64(h0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
		c = _mm512_srli_epi64(h0, 44);
		h0 = _mm512_and_si512(h0, m44);
		h1 = _mm512_add_epi64(h1, c);
	}

	_mm512_mask_storeu_epi64((void *)l->h[0], act, h0);
	_mm512_mask_storeu_epi64((void *)l->h[1], act, h1);
	_mm512_mask_storeu_epi64((void *)l->h[2], act, h2);
	for (int i = 0; i < 8; i++) {
		if (!((act >> i) & 1))
			continue;
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
}

const struct poly1305_lanes_impl vecsec_poly1305_lanes_x8_avx512ifma = {
	.name = "x8-avx512ifma",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
		 VECSEC_CPU_AVX512IFMA,
	.lanes = 8,
	.blocks_lanes = blocks_lanes_x8,
};
