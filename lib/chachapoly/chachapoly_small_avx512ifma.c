/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused kernel for small ChaCha20-Poly1305 bursts (chachapoly_small.h),
 * AVX-512 F+VL+BW + IFMA: 16 jobs, one per lane, in one call.
 *
 * ChaCha20: the lane kernels' steps (chacha_avx512.h), word-major, one
 * 32-bit lane a job. Block 0 (the one-time key, RFC 8439 2.6) is computed
 * in the same double rounds as the first data block; its words 0-7 never
 * leave the registers: words 0-3 of each lane become r (clamped, radix
 * 2^44 limbs in 64-bit lanes), words 4-7 s. The data rows are XORed from
 * in to out byte-exact (masked at a lane's ragged end).
 *
 * Poly1305: two groups of eight 64-bit lanes, each lane with its own r,
 * Horner's rule one block a step (poly1305_avx512ifma.h's p44v_mul: h =
 * h r + m). Lanes of different lengths are aligned at their end: a lane
 * of n blocks starts at step N - n (N the longest), and before that reads
 * a zero block without the 2^128 bit, which leaves h at 0. A lane's
 * blocks: the AAD zero padded (if any; staged in a stack array, public),
 * the whole blocks of ciphertext where they lie (a masked gather), the
 * last partial block zero padded (staged likewise), the lengths block
 * built in registers. The tag, (h mod p) + s mod 2^128, is finished in
 * the vectors and stored per lane.
 */
#include <immintrin.h>
#include <stdalign.h>
#include <string.h>

#include "chachapoly_internal.h"
#include "chachapoly_small.h"
#include "chacha/chacha_avx512.h"
#include "poly1305/poly1305_avx512ifma.h"

/*
 * Blocks 0 (the one-time key: words 0-7 with the input added, word-major,
 * into k) and 1 (rows, lane i's in u[i]) in the same double rounds. The
 * counters are constants: no register held through the rounds for them
 * (the 32 state vectors take all 32).
 */
static inline __attribute__((always_inline)) void
block01(const struct lanes_in *w, unsigned int dr, __m512i k[8], __m512i u[16])
{
	const __m512i ctr = _mm512_setzero_si512(), ctr1 = _mm512_set1_epi32(1);

	ROUNDS2(x, y, w, ctr, ctr1, dr);
	k[0] = vadd(x0, w->s[0]);
	k[1] = vadd(x1, w->s[1]);
	k[2] = vadd(x2, w->s[2]);
	k[3] = vadd(x3, w->s[3]);
	k[4] = vadd(x4, w->s[4]);
	k[5] = vadd(x5, w->s[5]);
	k[6] = vadd(x6, w->s[6]);
	k[7] = vadd(x7, w->s[7]);
	ADD_INPUT(y, w, ctr1);
	TO_ROWS(y, u);
}

/* The 32-bit lanes 8g .. 8g + 7 of lo and hi as the halves of 64-bit lanes */
static inline __attribute__((always_inline)) __m512i
join64(__m512i lo, __m512i hi, int g)
{
	__m256i a = g == 0 ? _mm512_castsi512_si256(lo) : _mm512_extracti64x4_epi64(lo, 1);
	__m256i b = g == 0 ? _mm512_castsi512_si256(hi) : _mm512_extracti64x4_epi64(hi, 1);

	return _mm512_or_si512(_mm512_cvtepu32_epi64(a),
			       _mm512_slli_epi64(_mm512_cvtepu32_epi64(b), 32));
}

/* Eight lanes' MAC: accumulator, multiplier r (with 20 r) and s, all in registers. */
struct lane8 {
	struct p44v h;
	struct p44v_mulr r;
	__m512i s0, s1;
};

/* RFC 8439 2.5: r clamped into limbs, and s, from block 0's words k[0..7] */
static inline __attribute__((always_inline)) void
lane8_key(struct lane8 *x, const __m512i k[8], int g)
{
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	__m512i lo = _mm512_and_si512(join64(k[0], k[1], g),
				      _mm512_set1_epi64(0x0ffffffc0fffffffLL));
	__m512i hi = _mm512_and_si512(join64(k[2], k[3], g),
				      _mm512_set1_epi64(0x0ffffffc0ffffffcLL));

	x->r.r0 = _mm512_and_si512(lo, m44);
	x->r.r1 = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44),
						   _mm512_slli_epi64(hi, 20)), m44);
	x->r.r2 = _mm512_srli_epi64(hi, 24);
	p44v_mulr_fill(&x->r);
	x->s0 = join64(k[4], k[5], g);
	x->s1 = join64(k[6], k[7], g);
}

/*
 * The lanes' schedule, public (lengths only): in 32-bit lanes, the step a
 * lane starts at, its first whole ciphertext block's step and the step
 * after its last; which lanes have an AAD block and a partial block.
 */
struct sched {
	__m512i start, c0, cend;
	__mmask16 aad, part;
	uint32_t n;             /* steps: the longest lane's blocks */
};

static inline __attribute__((always_inline)) void
sched_init(struct sched *s, const struct small_mac *m, __mmask16 act)
{
	const __m512i one = _mm512_set1_epi32(1);
	__m512i len = _mm512_maskz_loadu_epi32(act, m->len);
	__m512i alen = _mm512_maskz_loadu_epi32(act, m->aad_len);
	__m512i whole = _mm512_srli_epi32(len, 4), n;

	s->aad = _mm512_test_epi32_mask(alen, alen);
	s->part = _mm512_test_epi32_mask(len, _mm512_set1_epi32(15));
	/* AAD block, whole blocks, partial block, lengths block */
	n = _mm512_add_epi32(whole, one);
	n = _mm512_mask_add_epi32(n, s->aad, n, one);
	n = _mm512_mask_add_epi32(n, s->part, n, one);
	s->n = _mm512_reduce_max_epu32(n);
	s->start = _mm512_sub_epi32(_mm512_set1_epi32((int)s->n), n);
	s->c0 = _mm512_mask_add_epi32(s->start, s->aad, s->start, one);
	s->cend = _mm512_add_epi32(s->c0, whole);
}

/* The 32-bit lanes 8g .. 8g + 7 of v as 64-bit lanes */
static inline __attribute__((always_inline)) __m512i
widen(__m512i v, int g)
{
	return _mm512_cvtepu32_epi64(g == 0 ? _mm512_castsi512_si256(v) :
					      _mm512_extracti64x4_epi64(v, 1));
}

/*
 * The block of step k of the group g's lanes (ctb: each lane's ciphertext
 * pointer less 16 times its first whole block's step), limbs and the
 * 2^128 bit for the lanes started; staged[0..1]: the AAD blocks' and the
 * partial blocks' 64-bit words, lane-indexed.
 */
static inline __attribute__((always_inline)) void
block_at(struct p44v *b, const struct sched *s, const struct small_mac *m, __m512i ctb,
	 const uint64_t staged[2][2][16], __mmask16 act, uint32_t k, int g)
{
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	const __m512i z = _mm512_setzero_si512();
	const __m512i kv = _mm512_set1_epi32((int)k);
	const __m512i idx = _mm512_add_epi64(ctb, _mm512_set1_epi64((long long)k * 16));
	__mmask16 on = _mm512_cmp_epu32_mask(kv, s->start, _MM_CMPINT_NLT);
	__mmask16 ct = _mm512_mask_cmp_epu32_mask(
		_mm512_cmp_epu32_mask(kv, s->c0, _MM_CMPINT_NLT), kv, s->cend, _MM_CMPINT_LT);
	__mmask16 ad = _mm512_mask_cmpeq_epu32_mask(s->aad, kv, s->start);
	__mmask8 ct8 = (__mmask8)(ct >> (8 * g)), ad8 = (__mmask8)(ad >> (8 * g));
	__mmask8 on8 = (__mmask8)(on >> (8 * g));
	__m512i lo, hi;

	if (k + 1 == s->n) {
		/* RFC 8439 2.8: the lengths, little-endian 64-bit words */
		const __mmask8 a8 = (__mmask8)(act >> (8 * g));

		lo = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(a8, m->aad_len + 8 * g));
		hi = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(a8, m->len + 8 * g));
	} else {
		lo = _mm512_mask_i64gather_epi64(z, ct8, idx, (const void *)0, 1);
		hi = _mm512_mask_i64gather_epi64(z, ct8, idx, (const void *)8, 1);
		lo = _mm512_mask_loadu_epi64(lo, ad8, staged[0][0] + 8 * g);
		hi = _mm512_mask_loadu_epi64(hi, ad8, staged[0][1] + 8 * g);
		if (k + 2 == s->n) {
			__mmask8 p8 = (__mmask8)(s->part >> (8 * g));

			lo = _mm512_mask_loadu_epi64(lo, p8, staged[1][0] + 8 * g);
			hi = _mm512_mask_loadu_epi64(hi, p8, staged[1][1] + 8 * g);
		}
	}
	b->v[0] = _mm512_and_si512(lo, m44);
	b->v[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(lo, 44),
						   _mm512_slli_epi64(hi, 20)), m44);
	b->v[2] = _mm512_or_si512(_mm512_srli_epi64(hi, 24),
				  _mm512_maskz_mov_epi64(on8, _mm512_set1_epi64(INT64_C(1) << 40)));
}

/* limb 0's carry into limb 1, limb 1's into limb 2 */
static inline __attribute__((always_inline)) void
carry01(__m512i *h0, __m512i *h1, __m512i *h2)
{
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);

	*h1 = _mm512_add_epi64(*h1, _mm512_srli_epi64(*h0, 44));
	*h0 = _mm512_and_si512(*h0, m44);
	*h2 = _mm512_add_epi64(*h2, _mm512_srli_epi64(*h1, 44));
	*h1 = _mm512_and_si512(*h1, m44);
}

/*
 * h fully reduced mod 2^130 - 5, plus s mod 2^128: the tags' low and high
 * 64-bit words. Constant time (masks, no branch on h or s).
 */
static inline __attribute__((always_inline)) void
lane8_tag(const struct lane8 *x, __m512i *tlo, __m512i *thi)
{
	const __m512i m44 = _mm512_set1_epi64((long long)P44_M44);
	const __m512i m42 = _mm512_set1_epi64((long long)P44_M42);
	__m512i h0 = x->h.v[0], h1 = x->h.v[1], h2 = x->h.v[2], c, g0, g1, g2, lo, hi, sh;
	__mmask8 keep, carry;

	/*
	 * Carries round once (limb 1 may sit a little above 2^44): limbs 0
	 * and 1 below 2^44, limb 2 at most 2^42, so h < 2^130 + 2^88.
	 */
	carry01(&h0, &h1, &h2);
	c = _mm512_srli_epi64(h2, 42);
	h2 = _mm512_and_si512(h2, m42);
	h0 = _mm512_add_epi64(h0, _mm512_add_epi64(c, _mm512_slli_epi64(c, 2)));
	carry01(&h0, &h1, &h2);
	/* h - p = h + 5 - 2^130 (below p), kept where it is not negative */
	g0 = _mm512_add_epi64(h0, _mm512_set1_epi64(5));
	g1 = _mm512_add_epi64(h1, _mm512_srli_epi64(g0, 44));
	g0 = _mm512_and_si512(g0, m44);
	g2 = _mm512_add_epi64(h2, _mm512_srli_epi64(g1, 44));
	g1 = _mm512_and_si512(g1, m44);
	g2 = _mm512_sub_epi64(g2, _mm512_set1_epi64(INT64_C(1) << 42));
	keep = _mm512_cmpge_epi64_mask(g2, _mm512_setzero_si512());
	h0 = _mm512_mask_mov_epi64(h0, keep, g0);
	h1 = _mm512_mask_mov_epi64(h1, keep, g1);
	h2 = _mm512_mask_mov_epi64(h2, keep, g2);
	lo = _mm512_or_si512(h0, _mm512_slli_epi64(h1, 44));
	hi = _mm512_or_si512(_mm512_srli_epi64(h1, 20), _mm512_slli_epi64(h2, 24));
	*tlo = _mm512_add_epi64(lo, x->s0);
	carry = _mm512_cmplt_epu64_mask(*tlo, lo);
	sh = _mm512_add_epi64(hi, x->s1);
	*thi = _mm512_mask_add_epi64(sh, carry, sh, _mm512_set1_epi64(1));
}

/* lane 8g + 2j + e's tag (e 0: from t0's chunk j, 1: t1's) to tag[], if active */
#define TAG_OUT(m, act, g, t0, t1, j) do { \
	if (((act) >> (8 * (g) + 2 * (j))) & 1) \
		_mm_storeu_si128((void *)(m)->tag[8 * (g) + 2 * (j)], \
				 _mm512_extracti32x4_epi32((t0), (j))); \
	if (((act) >> (8 * (g) + 2 * (j) + 1)) & 1) \
		_mm_storeu_si128((void *)(m)->tag[8 * (g) + 2 * (j) + 1], \
				 _mm512_extracti32x4_epi32((t1), (j))); \
} while (0)

static inline __attribute__((always_inline)) void
lane8_store(const struct lane8 *x, const struct small_mac *m, __mmask16 act, int g)
{
	__m512i lo, hi, t0, t1;

	lane8_tag(x, &lo, &hi);
	t0 = _mm512_unpacklo_epi64(lo, hi);     /* lanes 0, 2, 4, 6: low, high word */
	t1 = _mm512_unpackhi_epi64(lo, hi);     /* lanes 1, 3, 5, 7 */
	TAG_OUT(m, act, g, t0, t1, 0);
	TAG_OUT(m, act, g, t0, t1, 1);
	TAG_OUT(m, act, g, t0, t1, 2);
	TAG_OUT(m, act, g, t0, t1, 3);
}

/*
 * The lanes' input from each active lane's key (8 words) and nonce (3)
 * where they lie (m->key[i], m->nonce[i]): rows loaded masked (an
 * inactive lane's pointer is never read) and transposed in registers to
 * word-major, the lane struct's layout, with no scalar store between.
 */
static inline __attribute__((always_inline)) void
lanes_in_rows(struct lanes_in *w, const struct small_mac *m, __mmask16 act)
{
	const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
	const __m512i hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
	__m512i z[8], a[8], b[4], c[4], y[4], t[4], kw[8];

	/* z[j]: lane j's key in the low half, lane j + 8's in the high */
	for (int j = 0; j < 8; j++) {
		__m256i r0 = _mm256_maskz_loadu_epi32((__mmask8)(((act >> j) & 1) ? 0xff : 0),
						      m->key[j]);
		__m256i r1 = _mm256_maskz_loadu_epi32((__mmask8)(((act >> (j + 8)) & 1) ? 0xff : 0),
						      m->key[j + 8]);

		z[j] = _mm512_inserti64x4(_mm512_castsi256_si512(r0), r1, 1);
	}
	/* 4 x 4 transposes within 128-bit lanes: rows 0-3 (8-11), 4-7 (12-15) */
	for (int h = 0; h < 2; h++) {
		__m512i *zz = z + 4 * h, *aa = a + 4 * h;

		aa[0] = _mm512_unpacklo_epi32(zz[0], zz[1]);
		aa[1] = _mm512_unpackhi_epi32(zz[0], zz[1]);
		aa[2] = _mm512_unpacklo_epi32(zz[2], zz[3]);
		aa[3] = _mm512_unpackhi_epi32(zz[2], zz[3]);
	}
	b[0] = _mm512_unpacklo_epi64(a[0], a[2]);       /* words 0 (128-bit lanes 0, 2), 4 (1, 3) */
	b[1] = _mm512_unpackhi_epi64(a[0], a[2]);       /* words 1, 5 */
	b[2] = _mm512_unpacklo_epi64(a[1], a[3]);       /* words 2, 6 */
	b[3] = _mm512_unpackhi_epi64(a[1], a[3]);       /* words 3, 7 */
	c[0] = _mm512_unpacklo_epi64(a[4], a[6]);
	c[1] = _mm512_unpackhi_epi64(a[4], a[6]);
	c[2] = _mm512_unpacklo_epi64(a[5], a[7]);
	c[3] = _mm512_unpackhi_epi64(a[5], a[7]);
	for (int q = 0; q < 4; q++) {
		kw[q] = _mm512_permutex2var_epi64(b[q], lo, c[q]);
		kw[q + 4] = _mm512_permutex2var_epi64(b[q], hi, c[q]);
	}
	/* the nonces: y[j] holds lanes j, j + 4, j + 8, j + 12 in its 128-bit lanes */
	for (int j = 0; j < 4; j++) {
		__m128i r[4];

		for (int q = 0; q < 4; q++) {
			unsigned int i = (unsigned int)(j + 4 * q);

			r[q] = _mm_maskz_loadu_epi32((__mmask8)(((act >> i) & 1) ? 0x7 : 0),
						     m->nonce[i]);
		}
		/* (immediates spelled out: a sanitizer build does not unroll) */
		y[j] = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(
			_mm512_castsi128_si512(r[0]), r[1], 1), r[2], 2), r[3], 3);
	}
	t[0] = _mm512_unpacklo_epi32(y[0], y[1]);
	t[1] = _mm512_unpackhi_epi32(y[0], y[1]);
	t[2] = _mm512_unpacklo_epi32(y[2], y[3]);
	t[3] = _mm512_unpackhi_epi32(y[2], y[3]);
	lanes_in_set(w, kw[0], kw[1], kw[2], kw[3], kw[4], kw[5], kw[6], kw[7],
		     _mm512_unpacklo_epi64(t[0], t[2]), _mm512_unpackhi_epi64(t[0], t[2]),
		     _mm512_unpacklo_epi64(t[1], t[3]));
}

/* The ChaCha20 part: block 0 into k (registers), the data XORed from l->in to l->out */
static inline __attribute__((always_inline)) void
chacha_part(const struct chacha_lanes *l, const uint32_t *bytes, struct lanes_in *w,
	    __m512i k[8])
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	__m512i ctr = _mm512_set1_epi32(2);
	uint32_t left[16], most = 0;
	size_t off = CHACHA_BLOCK_LEN;

	for (int i = 0; i < 16; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}
	{
		__m512i u[16];

		block01(w, dr, k, u);
		xor_rows(l, left, 0, u);
	}
	for (; pairs && off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		__m512i t[16], u[16];

		block_rows2(w, ctr, dr, t, u);
		xor_rows(l, left, off, t);
		xor_rows(l, left, off + CHACHA_BLOCK_LEN, u);
		ctr = vadd(ctr, _mm512_set1_epi32(2));
	}
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m512i t[16];

		block_rows(w, ctr, dr, t);
		xor_rows(l, left, off, t);
		ctr = vadd(ctr, _mm512_set1_epi32(1));
	}
}

/*
 * The kernel's work, in a frame of its own (noinline): the compiler keeps
 * the lane kernels' input state (struct lanes_in) there and spills rows of
 * keystream and plaintext into it, which vecsec_chachapoly_small_burn()
 * (chachapoly_small.h) wipes. Returns its stack pointer.
 */
static __attribute__((noinline)) uintptr_t
small_run(const struct chacha_lanes *l, const uint32_t *bytes, const struct small_mac *m)
{
	const __mmask16 act = (__mmask16)l->active;
	/* public: the AAD and partial ciphertext blocks, zero padded, by word and lane */
	uint64_t staged[2][2][16];
	struct lanes_in w;
	struct sched s;
	struct lane8 a, b;
	__m512i k[8], cta, ctb;
	uintptr_t sp;

	lanes_in_rows(&w, m, act);
	chacha_part(l, bytes, &w, k);

	sched_init(&s, m, act);
	for (int i = 0; i < 16; i++) {
		uint32_t len = m->len[i], part = len % POLY1305_BLOCK_LEN;
		__m128i v = _mm_setzero_si128(), p = _mm_setzero_si128();

		if (!((act >> i) & 1))
			continue;
		if (m->aad_len[i] > 0)
			v = _mm_maskz_loadu_epi8((__mmask16)((UINT32_C(1) << m->aad_len[i]) - 1),
						 m->aad[i]);
		if (part > 0)
			p = _mm_maskz_loadu_epi8((__mmask16)((UINT32_C(1) << part) - 1),
						 m->ct[i] + len - part);
		staged[0][0][i] = (uint64_t)_mm_cvtsi128_si64(v);
		staged[0][1][i] = (uint64_t)_mm_extract_epi64(v, 1);
		staged[1][0][i] = (uint64_t)_mm_cvtsi128_si64(p);
		staged[1][1][i] = (uint64_t)_mm_extract_epi64(p, 1);
	}
	/* each lane's ciphertext pointer less 16 times its first whole block's step */
	cta = _mm512_sub_epi64(_mm512_maskz_loadu_epi64((__mmask8)act, (const void *)m->ct),
			       _mm512_slli_epi64(widen(s.c0, 0), 4));
	ctb = _mm512_sub_epi64(_mm512_maskz_loadu_epi64((__mmask8)(act >> 8),
							(const void *)(m->ct + 8)),
			       _mm512_slli_epi64(widen(s.c0, 1), 4));

	lane8_key(&a, k, 0);
	if ((act >> 8) != 0) {
		lane8_key(&b, k, 1);
		block_at(&a.h, &s, m, cta, staged, act, 0, 0);
		block_at(&b.h, &s, m, ctb, staged, act, 0, 1);
		for (uint32_t step = 1; step < s.n; step++) {
			struct p44v x, y;

			block_at(&x, &s, m, cta, staged, act, step, 0);
			block_at(&y, &s, m, ctb, staged, act, step, 1);
			p44v_mul(&a.h, &a.r, &x);
			p44v_mul(&b.h, &b.r, &y);
		}
		p44v_mul(&a.h, &a.r, NULL);
		p44v_mul(&b.h, &b.r, NULL);
		lane8_store(&a, m, act, 0);
		lane8_store(&b, m, act, 1);
	} else {
		block_at(&a.h, &s, m, cta, staged, act, 0, 0);
		for (uint32_t step = 1; step < s.n; step++) {
			struct p44v x;

			block_at(&x, &s, m, cta, staged, act, step, 0);
			p44v_mul(&a.h, &a.r, &x);
		}
		p44v_mul(&a.h, &a.r, NULL);
		lane8_store(&a, m, act, 0);
	}
	SMALL_STACK_POINTER(sp);
	return sp;
}

void
vecsec_chachapoly_small_x16_avx512ifma(const struct chacha_lanes *l, const uint32_t *bytes,
				       const struct small_mac *m)
{
	vecsec_chachapoly_small_burn(small_run(l, bytes, m));
}
