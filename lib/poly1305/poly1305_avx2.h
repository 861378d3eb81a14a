/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, AVX2 building blocks shared by the AVX2 kernel files only
 * (poly1305_avx2.c and the stitched ChaCha20-Poly1305 in lib/aead): radix
 * 2^26 (five limbs, VPMULUDQ 32x32->64 products), 4 blocks per ymm, one
 * per 64-bit lane, Horner's rule with r^4 per lane; r^1..r^4 are kept in
 * the state's ext[] (radix 2^26, tagged by the AVX2 impl). RFC 8439 2.5.
 * Include only from files built with the avx2 flag set.
 */
#ifndef VECSEC_POLY1305_AVX2_H
#define VECSEC_POLY1305_AVX2_H

#include <immintrin.h>

#include "poly1305_internal.h"
#include "poly1305_pow.h"

#define P26V_INLINE static inline __attribute__((always_inline))
#define P26V_NPOW 4

/* ext[]: 5 limbs of r^k (radix 2^26) for k = 1..4 */
P26V_INLINE void
p26v_powers(struct poly1305_state *st)
{
	uint64_t pw[3 * P26V_NPOW], h[3];

	if (st->ext_impl == &vecsec_poly1305_impl_avx2)
		return;
	p44_powers(pw, st->r, P26V_NPOW);
	for (int k = 0; k < P26V_NPOW; k++) {
		h[0] = pw[3 * k];
		h[1] = pw[3 * k + 1];
		h[2] = pw[3 * k + 2];
		p44_carry(h);
		p44_to_26(st->ext + 5 * k, h);
	}
	st->ext_impl = &vecsec_poly1305_impl_avx2;
	vecsec_memzero(pw, sizeof(pw));
	vecsec_memzero(h, sizeof(h));
}

/* 5 limbs: limb i of every lane in v[i] */
struct p26v {
	__m256i v[5];
};

/* a = a * r mod p, lane by lane; s[i] = 5 r[i] (2^130 = 5 mod p) */
P26V_INLINE void
p26v_mul(struct p26v *a, const struct p26v *r, const __m256i s[5])
{
	const __m256i m = _mm256_set1_epi64x((long long)P26_M26);
	const __m256i *x = a->v, *y = r->v;
	__m256i d0, d1, d2, d3, d4, c0, c1, c2, c3, c4;

#define MUL(p, q) _mm256_mul_epu32((p), (q))
#define ADD(p, q) _mm256_add_epi64((p), (q))
	d0 = ADD(ADD(MUL(x[0], y[0]), MUL(x[1], s[4])),
		 ADD(ADD(MUL(x[2], s[3]), MUL(x[3], s[2])), MUL(x[4], s[1])));
	d1 = ADD(ADD(MUL(x[0], y[1]), MUL(x[1], y[0])),
		 ADD(ADD(MUL(x[2], s[4]), MUL(x[3], s[3])), MUL(x[4], s[2])));
	d2 = ADD(ADD(MUL(x[0], y[2]), MUL(x[1], y[1])),
		 ADD(ADD(MUL(x[2], y[0]), MUL(x[3], s[4])), MUL(x[4], s[3])));
	d3 = ADD(ADD(MUL(x[0], y[3]), MUL(x[1], y[2])),
		 ADD(ADD(MUL(x[2], y[1]), MUL(x[3], y[0])), MUL(x[4], s[4])));
	d4 = ADD(ADD(MUL(x[0], y[4]), MUL(x[1], y[3])),
		 ADD(ADD(MUL(x[2], y[2]), MUL(x[3], y[1])), MUL(x[4], y[0])));
	/* two carry chains in parallel: 0->1->2->3 and 3->4->0->1 */
	c0 = _mm256_srli_epi64(d0, 26); d0 = _mm256_and_si256(d0, m);
	c3 = _mm256_srli_epi64(d3, 26); d3 = _mm256_and_si256(d3, m);
	d1 = ADD(d1, c0);
	d4 = ADD(d4, c3);
	c1 = _mm256_srli_epi64(d1, 26); d1 = _mm256_and_si256(d1, m);
	c4 = _mm256_srli_epi64(d4, 26); d4 = _mm256_and_si256(d4, m);
	d2 = ADD(d2, c1);
	d0 = ADD(d0, ADD(c4, _mm256_slli_epi64(c4, 2)));
	c2 = _mm256_srli_epi64(d2, 26); d2 = _mm256_and_si256(d2, m);
	c0 = _mm256_srli_epi64(d0, 26); d0 = _mm256_and_si256(d0, m);
	d3 = ADD(d3, c2);
	d1 = ADD(d1, c0);
	c3 = _mm256_srli_epi64(d3, 26); d3 = _mm256_and_si256(d3, m);
	d4 = ADD(d4, c3);
#undef MUL
#undef ADD
	a->v[0] = d0;
	a->v[1] = d1;
	a->v[2] = d2;
	a->v[3] = d3;
	a->v[4] = d4;
}

/*
 * 64 bytes = blocks 0..3 split into 26-bit limbs; lanes hold blocks
 * 0, 2, 1, 3 (VPUNPCKLQDQ order, matched by the final powers).
 */
P26V_INLINE void
p26v_load(struct p26v *m, const uint8_t *in, __m256i hibit)
{
	const __m256i mask = _mm256_set1_epi64x((long long)P26_M26);
	__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)in);
	__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(in + 32));
	__m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);

	m->v[0] = _mm256_and_si256(lo, mask);
	m->v[1] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask);
	m->v[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi64(lo, 52),
						   _mm256_slli_epi64(hi, 12)), mask);
	m->v[3] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask);
	m->v[4] = _mm256_or_si256(_mm256_srli_epi64(hi, 40), hibit);
}

P26V_INLINE void
p26v_add(struct p26v *a, const struct p26v *b)
{
	for (int i = 0; i < 5; i++)
		a->v[i] = _mm256_add_epi64(a->v[i], b->v[i]);
}

/* limb i of r^p[lane] for each lane */
P26V_INLINE void
p26v_pow(struct p26v *r, __m256i s[5], const uint64_t *ext, const int p[4])
{
	for (int i = 0; i < 5; i++) {
		r->v[i] = _mm256_set_epi64x((long long)ext[5 * (p[3] - 1) + i],
					    (long long)ext[5 * (p[2] - 1) + i],
					    (long long)ext[5 * (p[1] - 1) + i],
					    (long long)ext[5 * (p[0] - 1) + i]);
		s[i] = _mm256_add_epi64(r->v[i], _mm256_slli_epi64(r->v[i], 2));
	}
}

P26V_INLINE uint64_t
p26v_hsum(__m256i v)
{
	__m128i t = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	return (uint64_t)_mm_cvtsi128_si64(t) + (uint64_t)_mm_extract_epi64(t, 1);
}

/* the multiplier 1 (a first Horner step that only adds) */
P26V_INLINE void
p26v_one(struct p26v *r, __m256i s[5])
{
	r->v[0] = _mm256_set1_epi64x(1);
	s[0] = _mm256_set1_epi64x(5);
	for (int i = 1; i < 5; i++)
		r->v[i] = s[i] = _mm256_setzero_si256();
}

/*
 * The lane kernels' steps (poly1305_lanes_avx2.c, and the fused small-burst
 * kernel in lib/chachapoly): each 64-bit lane its own message and r.
 */
/*
 * P26L_INLINE: plain inline for the lane kernel (its code as it was); the
 * fused kernel defines it always_inline first, so that none of its secrets
 * lands in a callee's frame, below the one its stack wipe covers.
 */
#ifndef P26L_INLINE
#define P26L_INLINE static inline
#endif

P26L_INLINE __m256i p26l_add(__m256i a, __m256i b) { return _mm256_add_epi64(a, b); }
P26L_INLINE __m256i p26l_mul32(__m256i a, __m256i b) { return _mm256_mul_epu32(a, b); }
P26L_INLINE __m256i p26l_and(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
P26L_INLINE __m256i p26l_or(__m256i a, __m256i b) { return _mm256_or_si256(a, b); }
P26L_INLINE __m256i p26l_shr(__m256i a, int n) { return _mm256_srli_epi64(a, n); }
P26L_INLINE __m256i p26l_shl(__m256i a, int n) { return _mm256_slli_epi64(a, n); }

/* x * 5 = x * 4 + x: 2^130 == 5 mod p */
P26L_INLINE __m256i p26l_times5(__m256i x) { return p26l_add(p26l_shl(x, 2), x); }

/* radix 2^44 (limbs at most a little above 2^44) -> radix 2^26 */
P26L_INLINE void
p26l_to26(__m256i a[5], __m256i x0, __m256i x1, __m256i x2)
{
	const __m256i m26 = _mm256_set1_epi64x((long long)P26_M26);
	const __m256i m44 = _mm256_set1_epi64x((long long)P44_M44);

	x1 = p26l_add(x1, p26l_shr(x0, 44));
	x0 = p26l_and(x0, m44);
	x2 = p26l_add(x2, p26l_shr(x1, 44));
	x1 = p26l_and(x1, m44);
	a[0] = p26l_and(x0, m26);
	a[1] = p26l_and(p26l_or(p26l_shr(x0, 26), p26l_shl(x1, 18)), m26);
	a[2] = p26l_and(p26l_shr(x1, 8), m26);
	a[3] = p26l_and(p26l_or(p26l_shr(x1, 34), p26l_shl(x2, 10)), m26);
	a[4] = p26l_shr(x2, 16);
}

/*
 * d = a * r mod 2^130 - 5, unreduced 64-bit column sums (s = 5 r, limbs
 * 1..4). Limbs of a below 2^28 and of s below 2^29: every product is below
 * 2^57 and a sum of ten of them (two calls added) below 2^61.
 */
P26L_INLINE void
p26l_mul(__m256i d[5], const __m256i a[5], const __m256i r[5], const __m256i s[5])
{
#define M_(i, j) p26l_mul32(a[i], j)
	d[0] = p26l_add(p26l_add(p26l_add(p26l_add(M_(0, r[0]), M_(1, s[4])), M_(2, s[3])),
				 M_(3, s[2])), M_(4, s[1]));
	d[1] = p26l_add(p26l_add(p26l_add(p26l_add(M_(0, r[1]), M_(1, r[0])), M_(2, s[4])),
				 M_(3, s[3])), M_(4, s[2]));
	d[2] = p26l_add(p26l_add(p26l_add(p26l_add(M_(0, r[2]), M_(1, r[1])), M_(2, r[0])),
				 M_(3, s[4])), M_(4, s[3]));
	d[3] = p26l_add(p26l_add(p26l_add(p26l_add(M_(0, r[3]), M_(1, r[2])), M_(2, r[1])),
				 M_(3, r[0])), M_(4, s[4]));
	d[4] = p26l_add(p26l_add(p26l_add(p26l_add(M_(0, r[4]), M_(1, r[3])), M_(2, r[2])),
				 M_(3, r[1])), M_(4, r[0]));
#undef M_
}

/*
 * Column sums (below 2^62) back to limbs below 2^26 (limbs 1 and 4 a
 * little above): two carry chains side by side, 0 -> 1 -> 2 -> 3 and
 * 3 -> 4 -> 0 (times 5) -> 1, as the usual vector Poly1305 code does.
 */
P26L_INLINE void
p26l_carry(__m256i h[5], __m256i d[5])
{
	const __m256i m26 = _mm256_set1_epi64x((long long)P26_M26);
	__m256i c0, c3;

	c3 = p26l_shr(d[3], 26); d[3] = p26l_and(d[3], m26); d[4] = p26l_add(d[4], c3);
	c0 = p26l_shr(d[0], 26); d[0] = p26l_and(d[0], m26); d[1] = p26l_add(d[1], c0);
	c3 = p26l_shr(d[4], 26); d[4] = p26l_and(d[4], m26); d[0] = p26l_add(d[0], p26l_times5(c3));
	c0 = p26l_shr(d[1], 26); d[1] = p26l_and(d[1], m26); d[2] = p26l_add(d[2], c0);
	c3 = p26l_shr(d[0], 26); d[0] = p26l_and(d[0], m26); d[1] = p26l_add(d[1], c3);
	c0 = p26l_shr(d[2], 26); d[2] = p26l_and(d[2], m26); d[3] = p26l_add(d[3], c0);
	c3 = p26l_shr(d[3], 26); d[3] = p26l_and(d[3], m26); d[4] = p26l_add(d[4], c3);
	for (int i = 0; i < 5; i++)
		h[i] = d[i];
}

/*
 * m = the block (lo, hi: its little-endian 64-bit words per lane) + pad
 * (2^128 in limb 4: 1 << 24, in the lanes that have it)
 */
P26L_INLINE void
p26l_split(__m256i m[5], __m256i lo, __m256i hi, __m256i pad)
{
	const __m256i m26 = _mm256_set1_epi64x((long long)P26_M26);

	m[0] = p26l_and(lo, m26);
	m[1] = p26l_and(p26l_shr(lo, 26), m26);
	m[2] = p26l_and(p26l_or(p26l_shr(lo, 52), p26l_shl(hi, 12)), m26);
	m[3] = p26l_and(p26l_shr(hi, 14), m26);
	m[4] = p26l_or(p26l_shr(hi, 40), pad);
}

/* the 16 bytes at p[i] + off of each lane as (lo words, hi words) */
P26L_INLINE void
p26l_load(__m256i *lo, __m256i *hi, const uint8_t *const p[4], size_t off)
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

#endif /* VECSEC_POLY1305_AVX2_H */
