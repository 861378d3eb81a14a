/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH helpers on 128-bit registers for the carry-less kernels
 * (ghash_pclmul.c, ghash_avx512_vpclmul.c and the stitched GCM loops):
 * byte-reversed loads, unreduced 256-bit products summed in three parts,
 * the one-bit shift and the reduction of ghash_pclmul.c's first comment.
 * Included only by files built with -mpclmul (SSE4.1 at least).
 */
#ifndef VECSEC_GHASH_CLMUL_H
#define VECSEC_GHASH_CLMUL_H

#include <immintrin.h>

#include "ghash_internal.h"

/* An unreduced product sum: lo ^ (mid << 64) ^ (hi << 128). */
struct gc_prod {
	__m128i lo, mid, hi;
};

static inline __m128i
gc_bswap(__m128i v)
{
	return _mm_shuffle_epi8(v, _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
						13, 14, 15));
}

static inline __m128i
gc_load_be(const uint8_t *p)
{
	return gc_bswap(_mm_loadu_si128((const __m128i *)(const void *)p));
}

static inline void
gc_store_be(uint8_t *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)(void *)p, gc_bswap(v));
}

static inline struct gc_prod
gc_prod_zero(void)
{
	struct gc_prod p = { _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128() };

	return p;
}

/* p += a * b (schoolbook: four 64x64 carry-less products) */
static inline void
gc_mul_acc(struct gc_prod *p, __m128i a, __m128i b)
{
	p->lo = _mm_xor_si128(p->lo, _mm_clmulepi64_si128(a, b, 0x00));
	p->hi = _mm_xor_si128(p->hi, _mm_clmulepi64_si128(a, b, 0x11));
	p->mid = _mm_xor_si128(p->mid, _mm_clmulepi64_si128(a, b, 0x01));
	p->mid = _mm_xor_si128(p->mid, _mm_clmulepi64_si128(a, b, 0x10));
}

/* Shift the 256-bit sum left by one bit, reduce it, return the field element. */
static inline __m128i
gc_reduce(const struct gc_prod *p)
{
	__m128i lo = _mm_xor_si128(p->lo, _mm_slli_si128(p->mid, 8));
	__m128i hi = _mm_xor_si128(p->hi, _mm_srli_si128(p->mid, 8));
	__m128i clo = _mm_srli_epi32(lo, 31), chi = _mm_srli_epi32(hi, 31);
	__m128i d, e;

	/* (hi:lo) <<= 1: each dword's top bit moves to the next dword up */
	lo = _mm_or_si128(_mm_slli_epi32(lo, 1), _mm_slli_si128(clo, 4));
	hi = _mm_or_si128(_mm_slli_epi32(hi, 1), _mm_slli_si128(chi, 4));
	hi = _mm_or_si128(hi, _mm_srli_si128(clo, 12));

	/* fold the low half by the reflected polynomial x^127 + x^126 + x^121 + 1 */
	d = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32(lo, 31), _mm_slli_epi32(lo, 30)),
			  _mm_slli_epi32(lo, 25));
	e = _mm_srli_si128(d, 4);
	lo = _mm_xor_si128(lo, _mm_slli_si128(d, 12));
	e = _mm_xor_si128(e, _mm_xor_si128(_mm_srli_epi32(lo, 1), _mm_srli_epi32(lo, 2)));
	e = _mm_xor_si128(e, _mm_srli_epi32(lo, 7));
	return _mm_xor_si128(hi, _mm_xor_si128(lo, e));
}

#endif /* VECSEC_GHASH_CLMUL_H */
