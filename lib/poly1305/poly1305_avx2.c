/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, AVX2: 4 blocks per step, one per 64-bit lane, radix 2^26 (five
 * limbs, VPMULUDQ 32x32->64 products). Lane j runs Horner's rule with r^4
 * over blocks j, j+4, j+8, ...; the last step multiplies lane j by
 * r^(4-j) and the lanes are summed (RFC 8439 2.5, evaluated as
 * sum m_i r^(n-i)). r^1..r^4 are kept in the state's ext[] (radix 2^26).
 * Fewer than 16 blocks, and the n mod 4 last ones, go through the reference.
 */
#include <immintrin.h>

#include "poly1305_internal.h"
#include "poly1305_pow.h"

#define NPOW 4
/* below 16 blocks the reference is as fast (TSC cycles, see min_len) */
#define MIN_BLOCKS 16

/* ext[]: 5 limbs of r^k (radix 2^26) for k = 1..4 */
static void
powers26(struct poly1305_state *st)
{
	uint64_t pw[3 * NPOW], h[3];

	if (st->ext_impl == &vecsec_poly1305_impl_avx2)
		return;
	p44_powers(pw, st->r, NPOW);
	for (int k = 0; k < NPOW; k++) {
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
struct v26 {
	__m256i v[5];
};

/* a = a * r mod p, lane by lane; s[i] = 5 r[i] (2^130 = 5 mod p) */
static inline void
mul26(struct v26 *a, const struct v26 *r, const __m256i s[5])
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
static inline void
load26(struct v26 *m, const uint8_t *in, __m256i hibit)
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

static inline void
add26(struct v26 *a, const struct v26 *b)
{
	for (int i = 0; i < 5; i++)
		a->v[i] = _mm256_add_epi64(a->v[i], b->v[i]);
}

/* limb i of r^p[lane] for each lane */
static inline void
pow_vec(struct v26 *r, __m256i s[5], const uint64_t *ext, const int p[4])
{
	for (int i = 0; i < 5; i++) {
		r->v[i] = _mm256_set_epi64x((long long)ext[5 * (p[3] - 1) + i],
					    (long long)ext[5 * (p[2] - 1) + i],
					    (long long)ext[5 * (p[1] - 1) + i],
					    (long long)ext[5 * (p[0] - 1) + i]);
		s[i] = _mm256_add_epi64(r->v[i], _mm256_slli_epi64(r->v[i], 2));
	}
}

static inline uint64_t
hsum(__m256i v)
{
	__m128i t = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	return (uint64_t)_mm_cvtsi128_si64(t) + (uint64_t)_mm_extract_epi64(t, 1);
}

void
vecsec_poly1305_blocks_avx2(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
			    uint32_t pad)
{
	static const int p4[4] = { 4, 4, 4, 4 }, plast[4] = { 4, 2, 3, 1 };
	const __m256i hibit = _mm256_set1_epi64x((long long)(pad & 1) << 24);
	struct v26 acc, m, r4, rl;
	__m256i s4[5], sl[5];
	uint64_t h[5], h44[3];
	size_t nv;

	if (nblocks < MIN_BLOCKS) {
		vecsec_poly1305_blocks_ref(st, in, nblocks, pad);
		return;
	}
	nv = nblocks & ~(size_t)3;
	powers26(st);
	pow_vec(&r4, s4, st->ext, p4);

	h44[0] = st->h[0];
	h44[1] = st->h[1];
	h44[2] = st->h[2];
	p44_carry(h44);
	p44_to_26(h, h44);
	load26(&acc, in, hibit);
	for (int i = 0; i < 5; i++)
		acc.v[i] = _mm256_add_epi64(acc.v[i], _mm256_set_epi64x(0, 0, 0, (long long)h[i]));
	for (size_t b = 4; b < nv; b += 4) {
		mul26(&acc, &r4, s4);
		load26(&m, in + 16 * b, hibit);
		add26(&acc, &m);
	}
	pow_vec(&rl, sl, st->ext, plast);
	mul26(&acc, &rl, sl);
	for (int i = 0; i < 5; i++)
		h[i] = hsum(acc.v[i]);
	p26_carry(h);
	p26_to_44(st->h, h);
	/* r powers and accumulators are secret: wipe the copies the compiler spilled */
	vecsec_memzero(h, sizeof(h));
	vecsec_memzero(h44, sizeof(h44));
	vecsec_memzero(&acc, sizeof(acc));
	vecsec_memzero(&m, sizeof(m));
	vecsec_memzero(&r4, sizeof(r4));
	vecsec_memzero(&rl, sizeof(rl));
	vecsec_memzero(s4, sizeof(s4));
	vecsec_memzero(sl, sizeof(sl));
	if (nblocks > nv)
		vecsec_poly1305_blocks_ref(st, in + 16 * nv, nblocks - nv, pad);
}

const struct poly1305_impl vecsec_poly1305_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2,
	.lanes = 0,
	/*
	 * 16 blocks: at 128 bytes the reference is faster (~205 TSC cycles
	 * against ~280), at 256 bytes this impl ~340 against ~385, at 512
	 * ~455 against ~780 (one call, powers of r included).
	 */
	.min_len = 256,
	.blocks = vecsec_poly1305_blocks_avx2,
	.blocks_lanes = NULL,
};
