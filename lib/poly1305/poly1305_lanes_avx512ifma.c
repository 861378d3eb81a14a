/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 lanes, AVX-512 IFMA: 8 or 16 independent messages, one per
 * 64-bit lane (16: two zmm groups interleaved), each with its own r; two
 * 16-byte blocks of each per step with r^2 and r, one reduction (RFC 8439
 * 2.5).
 * Radix 2^44 as in the struct (three limbs), products by VPMADD52LUQ /
 * VPMADD52HUQ. Contract: struct poly1305_impl (blocks_lanes) in poly1305_internal.h.
 */
#include <immintrin.h>
#include <string.h>

#include "poly1305_internal.h"

#define M44 ((UINT64_C(1) << 44) - 1)
#define M42 ((UINT64_C(1) << 42) - 1)

/* the block inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_block[POLY1305_BLOCK_LEN];

/* acc + the low / high 52 bits of the 104-bit product a * b (VPMADD52LUQ / HUQ) */
static inline __m512i
mlo(__m512i acc, __m512i a, __m512i b)
{
	return _mm512_madd52lo_epu64(acc, a, b);
}

static inline __m512i
mhi(__m512i acc, __m512i a, __m512i b)
{
	return _mm512_madd52hi_epu64(acc, a, b);
}
/* x * 20 = x * 16 + x * 4: 2^132 = 4 * 2^130 == 20 mod p */
static inline __m512i
times20(__m512i x)
{
	return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2));
}

/*
 * Products of a (limbs below 2^52) and r (s = 20 r for the limbs that land
 * at 2^132 and 2^176), added into the accumulators: d collects the low 52
 * bits of each limb product (at the limb's own position), e the high parts
 * (52 = 44 + 8 bits up). Up to two products share the accumulators.
 */
struct acc {
	__m512i d0, d1, d2, e0, e1, e2;
};

static inline void
mul_acc(struct acc *x, __m512i a0, __m512i a1, __m512i a2, __m512i r0, __m512i r1,
	__m512i r2, __m512i s1, __m512i s2)
{
	x->d0 = mlo(mlo(mlo(x->d0, a0, r0), a1, s2), a2, s1);
	x->e0 = mhi(mhi(mhi(x->e0, a0, r0), a1, s2), a2, s1);
	x->d1 = mlo(mlo(mlo(x->d1, a0, r1), a1, r0), a2, s2);
	x->e1 = mhi(mhi(mhi(x->e1, a0, r1), a1, r0), a2, s2);
	x->d2 = mlo(mlo(mlo(x->d2, a0, r2), a1, r1), a2, r0);
	x->e2 = mhi(mhi(mhi(x->e2, a0, r2), a1, r1), a2, r0);
}

/* Accumulators -> h, limbs back below 2^44 (h1 a little above), 2^130 == 5 */
static inline void
reduce(const struct acc *x, __m512i *h0, __m512i *h1, __m512i *h2)
{
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	const __m512i m42 = _mm512_set1_epi64((long long)M42);
	__m512i d1 = _mm512_add_epi64(x->d1, _mm512_slli_epi64(x->e0, 8));
	__m512i d2 = _mm512_add_epi64(x->d2, _mm512_slli_epi64(x->e1, 8));
	__m512i c, t0, t1;

	c = _mm512_srli_epi64(x->d0, 44);
	t0 = _mm512_and_si512(x->d0, m44);
	d1 = _mm512_add_epi64(d1, c);
	c = _mm512_srli_epi64(d1, 44);
	t1 = _mm512_and_si512(d1, m44);
	d2 = _mm512_add_epi64(d2, c);
	/* e2 sits at 2^140 = 2^10 * 2^130 */
	c = _mm512_add_epi64(_mm512_srli_epi64(d2, 42), _mm512_slli_epi64(x->e2, 10));
	*h2 = _mm512_and_si512(d2, m42);
	t0 = _mm512_add_epi64(t0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
	c = _mm512_srli_epi64(t0, 44);
	*h0 = _mm512_and_si512(t0, m44);
	*h1 = _mm512_add_epi64(t1, c);
}

static inline void
acc_zero(struct acc *x)
{
	x->d0 = x->d1 = x->d2 = x->e0 = x->e1 = x->e2 = _mm512_setzero_si512();
}

/*
 * Eight lanes' registers: h, r, 20 r, r^2 and 20 r^2 (two blocks per step:
 * h = (h + m1) r^2 + m2 r), and where each lane reads next.
 */
struct group {
	__m512i h0, h1, h2, r0, r1, r2, s1, s2, q0, q1, q2, t1, t2, ptr;
	size_t off;             /* bytes every active lane has read */
	__mmask8 act;           /* inactive lanes are never read */
};

static inline void
group_load(struct group *g, const struct poly1305_lanes *l, int first, __mmask8 act)
{
	uint64_t p[8];
	struct acc x;

	g->h0 = _mm512_loadu_si512((const void *)(l->h[0] + first));
	g->h1 = _mm512_loadu_si512((const void *)(l->h[1] + first));
	g->h2 = _mm512_loadu_si512((const void *)(l->h[2] + first));
	g->r0 = _mm512_loadu_si512((const void *)(l->r[0] + first));
	g->r1 = _mm512_loadu_si512((const void *)(l->r[1] + first));
	g->r2 = _mm512_loadu_si512((const void *)(l->r[2] + first));
	g->s1 = times20(g->r1);
	g->s2 = times20(g->r2);
	acc_zero(&x);
	mul_acc(&x, g->r0, g->r1, g->r2, g->r0, g->r1, g->r2, g->s1, g->s2);
	reduce(&x, &g->q0, &g->q1, &g->q2);
	g->t1 = times20(g->q1);
	g->t2 = times20(g->q2);
	for (int i = 0; i < 8; i++) {
		bool on = (act >> i) & 1;

		p[i] = (uint64_t)(uintptr_t)(on ? l->in[first + i] : zero_block);
	}
	g->ptr = _mm512_loadu_si512((const void *)p);
	g->off = 0;
	g->act = act;
}

/* The next block of every lane, split into limbs, plus 2^128 (the pad bit). */
static inline void
load_block(struct group *g, __m512i *m0, __m512i *m1, __m512i *m2)
{
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	const __m512i pad = _mm512_set1_epi64((long long)(UINT64_C(1) << 40)); /* 2^128 */
	/* each lane's block as two little-endian 64-bit words */
	const __m512i z = _mm512_setzero_si512();
	/* lane pointers + the common offset (the gather's base): one register less */
	__m512i lo = _mm512_mask_i64gather_epi64(z, g->act, g->ptr, (const void *)g->off, 1);
	__m512i hi = _mm512_mask_i64gather_epi64(z, g->act, g->ptr, (const void *)(g->off + 8), 1);

	g->off += POLY1305_BLOCK_LEN;
	*m0 = _mm512_and_si512(lo, m44);
	*m1 = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44),
					       _mm512_slli_epi64(hi, 20)), m44);
	*m2 = _mm512_or_si512(_mm512_srli_epi64(hi, 24), pad);
}

/* One block of each of the group's lanes: h = (h + block + 2^128) r mod p. */
static inline void
group_block(struct group *g)
{
	__m512i m0, m1, m2;
	struct acc x;

	load_block(g, &m0, &m1, &m2);
	acc_zero(&x);
	mul_acc(&x, _mm512_add_epi64(g->h0, m0), _mm512_add_epi64(g->h1, m1),
		_mm512_add_epi64(g->h2, m2), g->r0, g->r1, g->r2, g->s1, g->s2);
	reduce(&x, &g->h0, &g->h1, &g->h2);
}

/*
 * Two blocks of each lane, one reduction: ((h + m1) r + m2) r =
 * (h + m1) r^2 + m2 r (RFC 8439 2.5's Horner step, unrolled once).
 */
static inline void
group_block2(struct group *g)
{
	__m512i a0, a1, a2, m0, m1, m2;
	struct acc x;

	load_block(g, &a0, &a1, &a2);
	load_block(g, &m0, &m1, &m2);
	acc_zero(&x);
	mul_acc(&x, _mm512_add_epi64(g->h0, a0), _mm512_add_epi64(g->h1, a1),
		_mm512_add_epi64(g->h2, a2), g->q0, g->q1, g->q2, g->t1, g->t2);
	mul_acc(&x, m0, m1, m2, g->r0, g->r1, g->r2, g->s1, g->s2);
	reduce(&x, &g->h0, &g->h1, &g->h2);
}

static inline void
group_store(const struct group *g, struct poly1305_lanes *l, int first, __mmask8 act)
{
	_mm512_mask_storeu_epi64((void *)(l->h[0] + first), act, g->h0);
	_mm512_mask_storeu_epi64((void *)(l->h[1] + first), act, g->h1);
	_mm512_mask_storeu_epi64((void *)(l->h[2] + first), act, g->h2);
}

static void
advance(struct poly1305_lanes *l, int lanes, uint32_t nblocks)
{
	for (int i = 0; i < lanes; i++) {
		if (!((l->active >> i) & 1))
			continue;
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
}

void
vecsec_poly1305_blocks_lanes_x8_avx512ifma(struct poly1305_lanes *l, uint32_t nblocks)
{
	const __mmask8 act = (__mmask8)l->active;
	struct group a;

	group_load(&a, l, 0, act);
	for (uint32_t b = 0; b + 1 < nblocks; b += 2)
		group_block2(&a);
	if (nblocks & 1)
		group_block(&a);
	group_store(&a, l, 0, act);
	advance(l, 8, nblocks);
}

/*
 * 16 lanes as two independent groups of 8, interleaved: the second hides
 * the first's multiply and carry latency.
 */
void
vecsec_poly1305_blocks_lanes_x16_avx512ifma(struct poly1305_lanes *l, uint32_t nblocks)
{
	const __mmask8 act0 = (__mmask8)l->active, act1 = (__mmask8)(l->active >> 8);
	struct group a, b;

	if (act1 == 0 || act0 == 0) {
		/* one group idle (the end of a burst): run only the other */
		int first = act0 == 0 ? 8 : 0;
		__mmask8 act = act0 == 0 ? act1 : act0;

		group_load(&a, l, first, act);
		for (uint32_t k = 0; k + 1 < nblocks; k += 2)
			group_block2(&a);
		if (nblocks & 1)
			group_block(&a);
		group_store(&a, l, first, act);
		advance(l, 16, nblocks);
		return;
	}
	group_load(&a, l, 0, act0);
	group_load(&b, l, 8, act1);
	for (uint32_t k = 0; k + 1 < nblocks; k += 2) {
		group_block2(&a);
		group_block2(&b);
	}
	if (nblocks & 1) {
		group_block(&a);
		group_block(&b);
	}
	group_store(&a, l, 0, act0);
	group_store(&b, l, 8, act1);
	advance(l, 16, nblocks);
}

/*
 * Tags of eight lanes (first .. first + 7): h fully reduced mod 2^130 - 5
 * (carries, then h - p chosen by a mask where it does not go negative),
 * plus s mod 2^128. Constant time: masks, no branch on h or s.
 */
static void
tags8(const struct poly1305_lanes *l, const uint64_t s[2][VECSEC_MAX_LANES],
      uint8_t *const *tag, int first, __mmask8 act)
{
	const __m512i m44 = _mm512_set1_epi64((long long)M44);
	const __m512i m42 = _mm512_set1_epi64((long long)M42);
	__m512i h0 = _mm512_loadu_si512((const void *)(l->h[0] + first));
	__m512i h1 = _mm512_loadu_si512((const void *)(l->h[1] + first));
	__m512i h2 = _mm512_loadu_si512((const void *)(l->h[2] + first));
	__m512i c, g0, g1, g2, lo, hi, s0, s1;
	__mmask8 ge, carry;
	uint64_t out[2][8];

	for (int i = 0; i < 2; i++) {
		c = _mm512_srli_epi64(h0, 44); h0 = _mm512_and_si512(h0, m44);
		h1 = _mm512_add_epi64(h1, c);
		c = _mm512_srli_epi64(h1, 44); h1 = _mm512_and_si512(h1, m44);
		h2 = _mm512_add_epi64(h2, c);
		c = _mm512_srli_epi64(h2, 42); h2 = _mm512_and_si512(h2, m42);
		h0 = _mm512_add_epi64(h0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
	}
	c = _mm512_srli_epi64(h0, 44); h0 = _mm512_and_si512(h0, m44);
	h1 = _mm512_add_epi64(h1, c);
	c = _mm512_srli_epi64(h1, 44); h1 = _mm512_and_si512(h1, m44);
	h2 = _mm512_add_epi64(h2, c);
	/* h < 2^130 + 2^44: h - p = h + 5 - 2^130, taken where not negative */
	g0 = _mm512_add_epi64(h0, _mm512_set1_epi64(5));
	c = _mm512_srli_epi64(g0, 44); g0 = _mm512_and_si512(g0, m44);
	g1 = _mm512_add_epi64(h1, c);
	c = _mm512_srli_epi64(g1, 44); g1 = _mm512_and_si512(g1, m44);
	g2 = _mm512_sub_epi64(_mm512_add_epi64(h2, c),
			      _mm512_set1_epi64((long long)(UINT64_C(1) << 42)));
	ge = _mm512_cmpeq_epi64_mask(_mm512_srli_epi64(g2, 63), _mm512_setzero_si512());
	h0 = _mm512_mask_mov_epi64(h0, ge, g0);
	h1 = _mm512_mask_mov_epi64(h1, ge, g1);
	h2 = _mm512_mask_mov_epi64(h2, ge, g2);
	lo = _mm512_or_si512(h0, _mm512_slli_epi64(h1, 44));
	hi = _mm512_or_si512(_mm512_srli_epi64(h1, 20), _mm512_slli_epi64(h2, 24));
	s0 = _mm512_loadu_si512((const void *)(s[0] + first));
	s1 = _mm512_loadu_si512((const void *)(s[1] + first));
	c = _mm512_add_epi64(lo, s0);
	carry = _mm512_cmplt_epu64_mask(c, lo);
	hi = _mm512_add_epi64(hi, s1);
	hi = _mm512_mask_add_epi64(hi, carry, hi, _mm512_set1_epi64(1));
	_mm512_storeu_si512((void *)out[0], c);
	_mm512_storeu_si512((void *)out[1], hi);
	for (int i = 0; i < 8; i++) {
		if (!((act >> i) & 1))
			continue;
		/* little-endian words (x86) */
		memcpy(tag[first + i], &out[0][i], 8);
		memcpy(tag[first + i] + 8, &out[1][i], 8);
	}
	vecsec_memzero(out, sizeof(out));
}

void
vecsec_poly1305_tags_lanes_avx512ifma(const struct poly1305_lanes *l,
				      const uint64_t s[2][VECSEC_MAX_LANES], uint8_t *const *tag)
{
	if ((__mmask8)l->active != 0)
		tags8(l, s, tag, 0, (__mmask8)l->active);
	if ((__mmask8)(l->active >> 8) != 0)
		tags8(l, s, tag, 8, (__mmask8)(l->active >> 8));
}
