/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, AVX-512 IFMA building blocks shared by the IFMA kernel files
 * only (poly1305_avx512ifma.c and the stitched ChaCha20-Poly1305 in
 * lib/aead): radix 2^44 (limbs 44, 44, 42 bits, as poly1305_internal.h),
 * 8 blocks per zmm (one per 64-bit lane), products by VPMADD52LUQ/HUQ.
 * Two accumulators A and B take alternate 128-byte chunks, each by
 * Horner's rule with r^16, so their multiplications overlap; the last
 * chunk of B gets r^(8-j) on block j, the last of A r^(16-j) (RFC 8439
 * 2.5 as sum m_i r^(n-i)). Include only from files built with the
 * avx512_ifma flag set.
 */
#ifndef VECSEC_POLY1305_AVX512IFMA_H
#define VECSEC_POLY1305_AVX512IFMA_H

#include <immintrin.h>

#include "poly1305_internal.h"
#include "poly1305_pow.h"

#define P44V_INLINE static inline __attribute__((always_inline))
#define P44V_NPOW 16

/* limb i of every lane in v[i]; s1, s2 = 20 r1, 20 r2 for a multiplier */
struct p44v {
	__m512i v[3];
};

struct p44v_mulr {
	__m512i r0, r1, r2, s1, s2;
};

P44V_INLINE void
p44v_mulr_fill(struct p44v_mulr *m)
{
	/* 20 r = 16 r + 4 r, exact (no 64-bit multiply in AVX-512F) */
	m->s1 = _mm512_add_epi64(_mm512_slli_epi64(m->r1, 4), _mm512_slli_epi64(m->r1, 2));
	m->s2 = _mm512_add_epi64(_mm512_slli_epi64(m->r2, 4), _mm512_slli_epi64(m->r2, 2));
}

/* every lane r^k */
P44V_INLINE void
p44v_mulr_bcast(struct p44v_mulr *m, const uint64_t *ext, int k)
{
	m->r0 = _mm512_set1_epi64((long long)ext[k - 1]);
	m->r1 = _mm512_set1_epi64((long long)ext[P44V_NPOW + k - 1]);
	m->r2 = _mm512_set1_epi64((long long)ext[2 * P44V_NPOW + k - 1]);
	p44v_mulr_fill(m);
}

/*
 * Lane l holds block j = {0, 4, 1, 5, 2, 6, 3, 7}[l] of its chunk (the
 * VPUNPCKLQDQ order of p44v_load()): give it r^(top - j), top = 8 or 16.
 */
P44V_INLINE void
p44v_mulr_last(struct p44v_mulr *m, const uint64_t *ext, int top)
{
	/* r^(top-7) .. r^top sit at ext[top - 8 .. top - 1]: index 7 - j */
	const __m512i idx = _mm512_set_epi64(0, 4, 1, 5, 2, 6, 3, 7);

	m->r0 = _mm512_permutexvar_epi64(idx, _mm512_loadu_si512((const void *)(ext + top - 8)));
	m->r1 = _mm512_permutexvar_epi64(idx, _mm512_loadu_si512(
		(const void *)(ext + P44V_NPOW + top - 8)));
	m->r2 = _mm512_permutexvar_epi64(idx, _mm512_loadu_si512(
		(const void *)(ext + 2 * P44V_NPOW + top - 8)));
	p44v_mulr_fill(m);
}

/* 128 bytes = 8 blocks split into limbs; hibit = pad << 40 in every lane */
P44V_INLINE void
p44v_load(struct p44v *m, const uint8_t *in, __m512i hibit)
{
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	__m512i a = _mm512_loadu_si512((const void *)in);
	__m512i b = _mm512_loadu_si512((const void *)(in + 64));
	__m512i lo = _mm512_unpacklo_epi64(a, b), hi = _mm512_unpackhi_epi64(a, b);

	m->v[0] = _mm512_and_si512(lo, m44);
	/* (lo >> 44 | hi << 20) & m44 in one VPTERNLOGQ */
	m->v[1] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(lo, 44),
					    _mm512_slli_epi64(hi, 20), m44, 0xa8);
	m->v[2] = _mm512_or_si512(_mm512_srli_epi64(hi, 24), hibit);
}

/*
 * The first chunk of a message of 8 (q - 1) + k blocks, k = 1..7: the k
 * blocks at in placed in blocks 8 - k .. 7 of the chunk, blocks before
 * them zero with no pad bit (they add nothing), h added to block 8 - k,
 * so that every later chunk is whole. Masked loads: nothing past in +
 * 16 k is read.
 */
P44V_INLINE void
p44v_load_first(struct p44v *m, const uint8_t *in, size_t k, __m512i hibit, const uint64_t h[3])
{
	/* lane l of a chunk holds block {0, 4, 1, 5, 2, 6, 3, 7}[l] */
	static const uint8_t lane_of_block[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
	const long long sh = 2 * (8 - (long long)k);   /* qwords of zero padding */
	const size_t bytes = 16 * k;
	__mmask64 k0 = _cvtu64_mask64(bytes >= 64 ? UINT64_MAX : (UINT64_C(1) << bytes) - 1);
	__mmask64 k1 = _cvtu64_mask64(bytes <= 64 ? 0 : (UINT64_C(1) << (bytes - 64)) - 1);
	__m512i a = _mm512_maskz_loadu_epi8(k0, (const void *)in);
	__m512i b = _mm512_maskz_loadu_epi8(k1, (const void *)(in + 64));
	/* virtual qword w of the chunk is real qword w - sh (a: 0-7, b: 8-15) */
	__m512i i0 = _mm512_and_si512(_mm512_sub_epi64(iota, _mm512_set1_epi64(sh)),
				      _mm512_set1_epi64(15));
	__m512i i1 = _mm512_and_si512(_mm512_add_epi64(i0, _mm512_set1_epi64(8)),
				      _mm512_set1_epi64(15));
	__mmask8 v0 = _mm512_cmpge_epi64_mask(iota, _mm512_set1_epi64(sh));
	__mmask8 v1 = _mm512_cmpge_epi64_mask(_mm512_add_epi64(iota, _mm512_set1_epi64(8)),
					      _mm512_set1_epi64(sh));
	__m512i c0 = _mm512_maskz_permutex2var_epi64(v0, a, i0, b);
	__m512i c1 = _mm512_maskz_permutex2var_epi64(v1, a, i1, b);
	__m512i lo = _mm512_unpacklo_epi64(c0, c1), hi = _mm512_unpackhi_epi64(c0, c1);
	__mmask8 real = 0;

	for (size_t j = 8 - k; j < 8; j++)
		real |= (__mmask8)(1u << lane_of_block[j]);
	m->v[0] = _mm512_and_si512(lo, m44);
	m->v[1] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(lo, 44),
					    _mm512_slli_epi64(hi, 20), m44, 0xa8);
	m->v[2] = _mm512_mask_or_epi64(_mm512_srli_epi64(hi, 24), real,
				       _mm512_srli_epi64(hi, 24), hibit);
	for (int i = 0; i < 3; i++)
		m->v[i] = _mm512_mask_add_epi64(m->v[i], (__mmask8)(1u << lane_of_block[8 - k]),
						m->v[i], _mm512_set1_epi64((long long)h[i]));
}

P44V_INLINE void
p44v_add(struct p44v *a, const struct p44v *b)
{
	a->v[0] = _mm512_add_epi64(a->v[0], b->v[0]);
	a->v[1] = _mm512_add_epi64(a->v[1], b->v[1]);
	a->v[2] = _mm512_add_epi64(a->v[2], b->v[2]);
}

/*
 * a = a * r + m mod p, lane by lane (Horner's step; m NULL: zero), partly
 * reduced: limbs 0, 2 below 2^44, 2^42, limb 1 below 2^44 + 2^6. Inputs to
 * VPMADD52 must stay below 2^52; m rides in as the low accumulators. A
 * product's high half (bit 52 up) weighs 2^8 in the next limb (added as
 * hi * 256 by VPMADD52LUQ, exact since hi < 2^42); limb 2's high half
 * weighs 2^140 = 2^10 * 2^130 = 5 * 2^10 mod p, and its carry past 2^130
 * 5: both go to limb 0 by VPMADD52LUQ too.
 */
P44V_INLINE void
p44v_mul(struct p44v *a, const struct p44v_mulr *r, const struct p44v *m)
{
	const __m512i z = _mm512_setzero_si512();
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	const __m512i m42 = _mm512_set1_epi64((long long)P44_M42);
	const __m512i k256 = _mm512_set1_epi64(256);
	const __m512i k5 = _mm512_set1_epi64(5);
	const __m512i k5120 = _mm512_set1_epi64(5 << 10);
	const __m512i x0 = a->v[0], x1 = a->v[1], x2 = a->v[2];
	__m512i lo0, lo1, lo2, hi0, hi1, hi2;

#define LO(acc, p, q) _mm512_madd52lo_epu64((acc), (p), (q))
#define HI(acc, p, q) _mm512_madd52hi_epu64((acc), (p), (q))
	hi0 = HI(HI(HI(z, x0, r->r0), x1, r->s2), x2, r->s1);
	hi1 = HI(HI(HI(z, x0, r->r1), x1, r->r0), x2, r->s2);
	hi2 = HI(HI(HI(z, x0, r->r2), x1, r->r1), x2, r->r0);
	lo0 = LO(LO(LO(m != NULL ? m->v[0] : z, x0, r->r0), x1, r->s2), x2, r->s1);
	lo1 = LO(LO(LO(LO(m != NULL ? m->v[1] : z, x0, r->r1), x1, r->r0), x2, r->s2),
		 hi0, k256);
	lo2 = LO(LO(LO(LO(m != NULL ? m->v[2] : z, x0, r->r2), x1, r->r1), x2, r->r0),
		 hi1, k256);

	lo1 = _mm512_add_epi64(lo1, _mm512_srli_epi64(lo0, 44));
	lo0 = _mm512_and_si512(lo0, m44);
	lo2 = _mm512_add_epi64(lo2, _mm512_srli_epi64(lo1, 44));
	lo1 = _mm512_and_si512(lo1, m44);
	lo0 = LO(LO(lo0, _mm512_srli_epi64(lo2, 42), k5), hi2, k5120);
	lo2 = _mm512_and_si512(lo2, m42);
	lo1 = _mm512_add_epi64(lo1, _mm512_srli_epi64(lo0, 44));
	lo0 = _mm512_and_si512(lo0, m44);
#undef LO
#undef HI
	a->v[0] = lo0;
	a->v[1] = lo1;
	a->v[2] = lo2;
}

/*
 * a = a * r mod p with no carries, for the last products only (then
 * p44v_add() of two and p44v_hsum()): limbs below 2^55, too wide for
 * another VPMADD52 but not for the sum of 16 lanes. The high halves join
 * the next limb as in p44v_mul() (hi2 < 2^38 for limbs below 2^45,
 * 2^45, 2^43, as p44v_mul() and the loads with h added leave them, so
 * 5 * 2^10 hi2 stays below 2^52); the carry chain waits for the scalar
 * one in p44v_hsum().
 */
P44V_INLINE void
p44v_mul_last(struct p44v *a, const struct p44v_mulr *r)
{
	const __m512i z = _mm512_setzero_si512();
	const __m512i k256 = _mm512_set1_epi64(256);
	const __m512i k5120 = _mm512_set1_epi64(5 << 10);
	const __m512i x0 = a->v[0], x1 = a->v[1], x2 = a->v[2];
	__m512i hi0, hi1, hi2;

#define LO(acc, p, q) _mm512_madd52lo_epu64((acc), (p), (q))
#define HI(acc, p, q) _mm512_madd52hi_epu64((acc), (p), (q))
	hi0 = HI(HI(HI(z, x0, r->r0), x1, r->s2), x2, r->s1);
	hi1 = HI(HI(HI(z, x0, r->r1), x1, r->r0), x2, r->s2);
	hi2 = HI(HI(HI(z, x0, r->r2), x1, r->r1), x2, r->r0);
	a->v[0] = LO(LO(LO(LO(z, x0, r->r0), x1, r->s2), x2, r->s1), hi2, k5120);
	a->v[1] = LO(LO(LO(LO(z, x0, r->r1), x1, r->r0), x2, r->s2), hi0, k256);
	a->v[2] = LO(LO(LO(LO(z, x0, r->r2), x1, r->r1), x2, r->r0), hi1, k256);
#undef LO
#undef HI
}

/* the multiplier 1 (a first Horner step that only adds) */
P44V_INLINE void
p44v_mulr_one(struct p44v_mulr *m)
{
	m->r0 = _mm512_set1_epi64(1);
	m->r1 = m->r2 = m->s1 = m->s2 = _mm512_setzero_si512();
}

/* every lane r^(k + 1) of the 8 lanes of a (lane k), as a multiplier */
P44V_INLINE void
p44v_mulr_lane(struct p44v_mulr *m, const struct p44v *a, int k)
{
	const __m512i idx = _mm512_set1_epi64(k);

	m->r0 = _mm512_permutexvar_epi64(idx, a->v[0]);
	m->r1 = _mm512_permutexvar_epi64(idx, a->v[1]);
	m->r2 = _mm512_permutexvar_epi64(idx, a->v[2]);
	p44v_mulr_fill(m);
}

/*
 * ext[] of the state, limb-major: ext[16 i + k - 1] = limb i of r^k,
 * k = 1..16, filled once per r (tagged by owner). r^2 in scalar, then
 * r^3..r^4, r^5..r^8 and r^9..r^16 as one vector product each. r^2
 * goes through the caller's r2[], which the caller's one wipe covers (a
 * wipe here, inline or called, cost the stitched seal 3-8 % on a Zen 4:
 * it runs inside the ChaCha20 rounds).
 */
P44V_INLINE void
p44v_powers(struct poly1305_state *st, const struct poly1305_impl *owner, uint64_t r2[3])
{
	struct p44v lo, hi;
	struct p44v_mulr m;

	if (st->ext_impl == owner)
		return;
	p44_mul(r2, st->r, st->r);
	for (int i = 0; i < 3; i++)
		lo.v[i] = _mm512_set_epi64(0, 0, 0, 0, (long long)r2[i], (long long)st->r[i],
					   (long long)r2[i], (long long)st->r[i]);
	/* lanes 0-1: r, r^2; lanes 2-3: (r, r^2) * r^2 */
	p44v_mulr_lane(&m, &lo, 1);
	hi = lo;
	p44v_mul(&hi, &m, NULL);
	for (int i = 0; i < 3; i++)
		lo.v[i] = _mm512_mask_blend_epi64(0x0c, lo.v[i], hi.v[i]);
	/* lanes 4-7: (r .. r^4) * r^4 */
	p44v_mulr_lane(&m, &lo, 3);
	for (int i = 0; i < 3; i++)
		hi.v[i] = _mm512_shuffle_i64x2(lo.v[i], lo.v[i], 0x44);
	p44v_mul(&hi, &m, NULL);
	for (int i = 0; i < 3; i++)
		lo.v[i] = _mm512_mask_blend_epi64(0xf0, lo.v[i], hi.v[i]);
	/* r^9 .. r^16 = (r .. r^8) * r^8 */
	p44v_mulr_lane(&m, &lo, 7);
	hi = lo;
	p44v_mul(&hi, &m, NULL);
	for (int i = 0; i < 3; i++) {
		_mm512_storeu_si512((void *)(st->ext + P44V_NPOW * i), lo.v[i]);
		_mm512_storeu_si512((void *)(st->ext + P44V_NPOW * i + 8), hi.v[i]);
	}
	st->ext_impl = owner;
}

/* h = the sum of the lanes of a (limbs below 2^60, so sums fit), carried */
P44V_INLINE void
p44v_hsum(uint64_t h[3], const struct p44v *a)
{
	h[0] = (uint64_t)_mm512_reduce_add_epi64(a->v[0]);
	h[1] = (uint64_t)_mm512_reduce_add_epi64(a->v[1]);
	h[2] = (uint64_t)_mm512_reduce_add_epi64(a->v[2]);
	p44_carry(h);
}

/* a = blocks of in with h added to lane 0 (block 0) */
P44V_INLINE void
p44v_load_h(struct p44v *a, const uint8_t *in, __m512i hibit, const uint64_t h[3])
{
	p44v_load(a, in, hibit);
	for (int i = 0; i < 3; i++)
		a->v[i] = _mm512_mask_add_epi64(a->v[i], 1, a->v[i],
						_mm512_set1_epi64((long long)h[i]));
}

#endif /* VECSEC_POLY1305_AVX512IFMA_H */
