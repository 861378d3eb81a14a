/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused kernel for small ChaCha20-Poly1305 bursts (chachapoly_small.h),
 * AVX2: 8 jobs, one per lane, in one call.
 *
 * ChaCha20: the 8-lane kernels' steps (chacha/chacha_lanes_avx2.h),
 * word-major, one 32-bit lane a job. Block 0 (the one-time key, RFC 8439
 * 2.6): its words 0-7 never leave the vectors for the MAC's use: words 0-3
 * of each lane become r (clamped, radix 2^26 limbs in 64-bit lanes), words
 * 4-7 s. The data rows are XORed from in to out byte-exact.
 *
 * Poly1305: two groups of four 64-bit lanes, each lane with its own r,
 * radix 2^26 (poly1305/poly1305_avx2.h's lane steps), two blocks a step
 * as the lane kernel does: h = (h + m1) r^2 + m2 r, one carry pass a
 * step. Lanes of different lengths are aligned at their end: a lane of n
 * blocks starts at step N - n (N the longest) and before that reads a
 * zero block without the 2^128 bit, which leaves h at 0. Each lane's
 * blocks, by a table of pointers (public: built from lengths only): the
 * AAD zero padded (if any, staged in a stack array), the whole blocks of
 * ciphertext where they lie, the last partial block zero padded (staged
 * likewise), the lengths block (staged). Plain 16-byte loads and unpacks,
 * no gathers (slow on AMD Zen). The tag, (h mod p) + s mod 2^128, is
 * finished in the vectors and stored per lane.
 *
 * Compiled twice (lib/meson.build), as the lane kernels are: the AVX2
 * flag set (symbol _avx2: 16 ymm registers, what Zen 3 runs) and with
 * -mavx512vl -mavx512bw (symbol _avx2vl: VPROLD, 32 ymm registers,
 * byte-masked loads and stores), still in ymm registers only.
 */
#include <immintrin.h>
#include <stdalign.h>
#include <string.h>

#include "chachapoly_internal.h"
#include "chachapoly_small.h"
/* the lane steps inlined whatever GCC weighs: no secret in a callee's frame */
#define CL8_INLINE static inline __attribute__((always_inline))
#define P26L_INLINE static inline __attribute__((always_inline))
#include "chacha/chacha_lanes_avx2.h"
#include "poly1305/poly1305_avx2.h"

#ifdef __AVX512VL__
#define SMALL_FN(name) name##_avx2vl
#else
#define SMALL_FN(name) name##_avx2
#endif

/* The most Poly1305 steps a lane takes: AAD, whole blocks, partial block, lengths. */
#define STEPS (1 + SMALL_LONG_MAX / POLY1305_BLOCK_LEN + 1 + 1)

/* the block lanes read before they start (without the 2^128 bit: h stays 0) */
static const uint8_t zero16[POLY1305_BLOCK_LEN];

/*
 * The ChaCha20 part: block 0's words 0-7 (input added, word-major) into
 * k0, then bytes[i] bytes of lane i XORed from l->in[i] to l->out[i],
 * counter 1 on. The keystream the rounds and a short last block leave on
 * the stack is the caller's frame's (wiped after it).
 */
static inline __attribute__((always_inline)) void
chacha_part(const struct chacha_lanes *l, const uint32_t *bytes, __m256i k0[8])
{
	const uint32_t act = l->active & 0xff;
	const unsigned int dr = l->rounds / 2;
	__m256i k[8], n0, n1, n2, ctr;
	alignas(32) uint8_t row[CHACHA_BLOCK_LEN];
	bool tail = false;
	uint32_t left[8], most;
	size_t off = 0;

	lanes_words(l, k, &n0, &n1, &n2);
	most = lanes_left(act, bytes, left);
	{
		const __m256i c0 = _mm256_set1_epi32((int)CHACHA_C0);
		const __m256i c1 = _mm256_set1_epi32((int)CHACHA_C1);
		const __m256i c2 = _mm256_set1_epi32((int)CHACHA_C2);
		const __m256i c3 = _mm256_set1_epi32((int)CHACHA_C3);
		alignas(32) __m256i x[16] = { c0, c1, c2, c3, k[0], k[1], k[2], k[3],
					      k[4], k[5], k[6], k[7], _mm256_setzero_si256(),
					      n0, n1, n2 };
#ifdef __AVX512VL__
		/* blocks 0 and 1 in the same double rounds */
		alignas(32) __m256i y[16] = { c0, c1, c2, c3, k[0], k[1], k[2], k[3],
					      k[4], k[5], k[6], k[7], _mm256_set1_epi32(1),
					      n0, n1, n2 };

		if (most > 0) {
			__m256i lo[8], hi[8];

			rounds2(x, y, dr);
			state_rows(y, k, _mm256_set1_epi32(1), n0, n1, n2, lo, hi);
			for (int i = 0; i < 8; i++)
				xor_row(l, i, left[i], 0, lo[i], hi[i], row, &tail);
			off = CHACHA_BLOCK_LEN;
		} else {
			rounds(x, dr);
		}
#else
		rounds(x, dr);
#endif
		k0[0] = vadd(x[0], c0);
		k0[1] = vadd(x[1], c1);
		k0[2] = vadd(x[2], c2);
		k0[3] = vadd(x[3], c3);
		for (int w = 4; w < 8; w++)
			k0[w] = vadd(x[w], k[w - 4]);
	}
	ctr = _mm256_set1_epi32((int)(1 + off / CHACHA_BLOCK_LEN));
#ifdef __AVX512VL__
	/* two blocks a step while two are left */
	for (; off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		pair_xor(l, left, off, k, ctr, n0, n1, n2, dr);
		ctr = vadd(ctr, _mm256_set1_epi32(2));
	}
#endif
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m256i lo[8], hi[8];

		block_rows(k, ctr, n0, n1, n2, dr, lo, hi);
		for (int i = 0; i < 8; i++)
			xor_row(l, i, left[i], off, lo[i], hi[i], row, &tail);
		ctr = vadd(ctr, _mm256_set1_epi32(1));
	}
	(void)tail;     /* the row is in the frame the caller wipes */
}

/* Four lanes' MAC: accumulator, r and r^2 (with 5 times their limbs 1..4), s. */
struct lane4 {
	__m256i h[5], r[5], s5[5], r2[5], s25[5];
	__m256i slo, shi;
};

/* the 32-bit lanes 4g .. 4g + 3 of v as 64-bit lanes */
static inline __attribute__((always_inline)) __m256i
widen(__m256i v, int g)
{
	return _mm256_cvtepu32_epi64(g == 0 ? _mm256_castsi256_si128(v) :
					      _mm256_extracti128_si256(v, 1));
}

/*
 * RFC 8439 2.5: r clamped, as radix 2^26 limbs (computed in the 32-bit
 * lanes of all 8, then widened per group), r^2, and s, from block 0's
 * words k0[0..7], for the first `groups` groups; h = 0.
 */
static inline __attribute__((always_inline)) void
lanes_key(struct lane4 x[2], const __m256i k0[8], int groups)
{
	const __m256i m26 = _mm256_set1_epi32((int)P26_M26);
	const __m256i w0 = _mm256_and_si256(k0[0], _mm256_set1_epi32(0x0fffffff));
	const __m256i w1 = _mm256_and_si256(k0[1], _mm256_set1_epi32(0x0ffffffc));
	const __m256i w2 = _mm256_and_si256(k0[2], _mm256_set1_epi32(0x0ffffffc));
	const __m256i w3 = _mm256_and_si256(k0[3], _mm256_set1_epi32(0x0ffffffc));
	__m256i r[5];

	r[0] = _mm256_and_si256(w0, m26);
	r[1] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(w0, 26),
						_mm256_slli_epi32(w1, 6)), m26);
	r[2] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(w1, 20),
						_mm256_slli_epi32(w2, 12)), m26);
	r[3] = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(w2, 14),
						_mm256_slli_epi32(w3, 18)), m26);
	r[4] = _mm256_srli_epi32(w3, 8);
	for (int g = 0; g < groups; g++) {
		__m256i d[5];

		for (int i = 0; i < 5; i++) {
			x[g].h[i] = _mm256_setzero_si256();
			x[g].r[i] = widen(r[i], g);
			x[g].s5[i] = p26l_times5(x[g].r[i]);
		}
		p26l_mul(d, x[g].r, x[g].r, x[g].s5);
		p26l_carry(x[g].r2, d);
		for (int i = 0; i < 5; i++)
			x[g].s25[i] = p26l_times5(x[g].r2[i]);
		x[g].slo = _mm256_or_si256(widen(k0[4], g), _mm256_slli_epi64(widen(k0[5], g), 32));
		x[g].shi = _mm256_or_si256(widen(k0[6], g), _mm256_slli_epi64(widen(k0[7], g), 32));
	}
}

/*
 * Up to 16 bytes at p (n of them) as a zero-padded block, never reading
 * past them
 */
#ifdef __AVX512VL__
static inline __attribute__((always_inline)) __m128i
load_upto16(const uint8_t *p, uint32_t n)
{
	return _mm_maskz_loadu_epi8((__mmask16)_bzhi_u32(0xffff, n), p);
}
#else
/* n <= 8 bytes at p, little-endian */
static inline __attribute__((always_inline)) uint64_t
load_upto8(const uint8_t *p, uint32_t n)
{
	uint64_t v = 0;
	uint32_t t4;
	uint16_t t2;
	uint32_t o = 0;

	if (n == 8) {
		memcpy(&v, p, 8);
		return v;
	}
	if (n & 4) {
		memcpy(&t4, p, 4);
		v = t4;
		o = 4;
	}
	if (n & 2) {
		memcpy(&t2, p + o, 2);
		v |= (uint64_t)t2 << (8 * o);
		o += 2;
	}
	if (n & 1)
		v |= (uint64_t)p[o] << (8 * o);
	return v;
}

static inline __attribute__((always_inline)) __m128i
load_upto16(const uint8_t *p, uint32_t n)
{
	uint64_t lo = load_upto8(p, n < 8 ? n : 8);
	uint64_t hi = n > 8 ? load_upto8(p + 8, n - 8) : 0;

	return _mm_set_epi64x((long long)hi, (long long)lo);
}
#endif

/*
 * The public schedule: each lane's block pointer for each step (ptr; lane
 * by lane, so that filling it is a run of stores in a row), the
 * blocks staged (stage[0..2][i]: lane i's AAD, partial and lengths
 * blocks), each lane's first step (inactive lanes: never) and the steps.
 * Lengths and pointers only: it lives in the caller's frame, which the
 * stack wipe does not cover.
 */
struct sched {
	alignas(32) const uint8_t *ptr[8][STEPS + 3];      /* 3: fill_ptrs() may run over */
	alignas(16) uint8_t stage[3][8][POLY1305_BLOCK_LEN];
	alignas(32) uint64_t start[8];
	uint32_t n;
};

/*
 * n pointers from p on, step bytes apart, into d[0..n-1], four at a time:
 * up to 3 entries past them are written too (the caller's next ones, or
 * the rows' slack)
 */
static inline __attribute__((always_inline)) void
fill_ptrs(const uint8_t **d, const uint8_t *p, uint32_t n, uint32_t step)
{
	__m256i v = _mm256_add_epi64(_mm256_set1_epi64x((long long)(uintptr_t)p),
				     _mm256_setr_epi64x(0, step, 2 * (long long)step,
							3 * (long long)step));

	for (uint32_t j = 0; j < n; j += 4) {
		_mm256_storeu_si256((__m256i *)(void *)(d + j), v);
		v = _mm256_add_epi64(v, _mm256_set1_epi64x(4 * (long long)step));
	}
}

/* The pointers, the first steps and the lengths blocks; nothing of the AAD or data read. */
static inline __attribute__((always_inline)) void
sched_init(struct sched *s, const struct small_mac *m, uint32_t act)
{
	uint32_t nb[8];

	s->n = 0;
	for (int i = 0; i < 8; i++) {
		uint32_t len = m->len[i], alen = m->aad_len[i];

		nb[i] = 0;
		if (!((act >> i) & 1))
			continue;
		nb[i] = (alen > 0) + len / POLY1305_BLOCK_LEN + (len % POLY1305_BLOCK_LEN > 0) + 1;
		s->n = nb[i] > s->n ? nb[i] : s->n;
	}
	for (int i = 0; i < 8; i++) {
		uint32_t len = m->len[i], alen = m->aad_len[i];
		uint32_t k = s->n - nb[i], whole = len / POLY1305_BLOCK_LEN;

		s->start[i] = (act >> i) & 1 ? k : STEPS;
		fill_ptrs(s->ptr[i], zero16, k, 0);
		if (!((act >> i) & 1))
			continue;
		if (alen > 0)
			s->ptr[i][k++] = s->stage[0][i];
		fill_ptrs(s->ptr[i] + k, m->ct[i], whole, POLY1305_BLOCK_LEN);
		k += whole;
		if (len % POLY1305_BLOCK_LEN > 0)
			s->ptr[i][k++] = s->stage[1][i];
		/* RFC 8439 2.8: the lengths, little-endian 64-bit words */
		_mm_store_si128((__m128i *)s->stage[2][i],
				_mm_set_epi64x((long long)len, (long long)alen));
		s->ptr[i][k] = s->stage[2][i];
	}
}

/*
 * Each active lane's AAD and partial ciphertext block, zero padded, into
 * the schedule's stage (after the ChaCha part: seal's ciphertext is its
 * output)
 */
static inline __attribute__((always_inline)) void
stage_blocks(struct sched *s, const struct small_mac *m, uint32_t act)
{
	for (int i = 0; i < 8; i++) {
		uint32_t len = m->len[i], part = len % POLY1305_BLOCK_LEN;

		if (!((act >> i) & 1))
			continue;
		if (m->aad_len[i] > 0)
			_mm_store_si128((__m128i *)s->stage[0][i],
					load_upto16(m->aad[i], m->aad_len[i]));
		if (part > 0)
			_mm_store_si128((__m128i *)s->stage[1][i],
					load_upto16(m->ct[i] + len - part, part));
	}
}

/* group g's block of step k, limbs, with the 2^128 bit in the lanes started */
static inline __attribute__((always_inline)) void
block_at(__m256i b[5], const struct sched *s, uint32_t k, int g)
{
	const __m256i started = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)k + 1),
						   _mm256_load_si256((const __m256i *)s->start +
								     g));
	const uint8_t *q[4] = { s->ptr[4 * g][k], s->ptr[4 * g + 1][k], s->ptr[4 * g + 2][k],
				s->ptr[4 * g + 3][k] };
	__m256i lo, hi;

	p26l_load(&lo, &hi, q, 0);
	p26l_split(b, lo, hi, _mm256_and_si256(started, _mm256_set1_epi64x(1 << 24)));
}

/* One step of the first `groups` groups: h = (h + m) r, the block of step k */
static inline __attribute__((always_inline)) void
step1(struct lane4 x[2], const struct sched *s, uint32_t k, int groups)
{
	for (int g = 0; g < groups; g++) {
		__m256i b[5], d[5];

		block_at(b, s, k, g);
		for (int i = 0; i < 5; i++)
			b[i] = p26l_add(b[i], x[g].h[i]);
		p26l_mul(d, b, x[g].r, x[g].s5);
		p26l_carry(x[g].h, d);
	}
}

/*
 * Two steps of the first `groups` groups: h = (h + m1) r^2 + m2 r, the
 * blocks of steps k, k + 1
 */
static inline __attribute__((always_inline)) void
step2(struct lane4 x[2], const struct sched *s, uint32_t k, int groups)
{
	for (int g = 0; g < groups; g++) {
		__m256i b[5], d[5], e[5];

		block_at(b, s, k, g);
		for (int i = 0; i < 5; i++)
			b[i] = p26l_add(b[i], x[g].h[i]);
		p26l_mul(d, b, x[g].r2, x[g].s25);
		block_at(b, s, k + 1, g);
		p26l_mul(e, b, x[g].r, x[g].s5);
		for (int i = 0; i < 5; i++)
			d[i] = p26l_add(d[i], e[i]);
		p26l_carry(x[g].h, d);
	}
}

/* limbs 0 .. 3 carried into the next, limb 4 left as it is */
#define CARRY_UP(h0, h1, h2, h3, h4, m26) do { \
	h1 = p26l_add(h1, p26l_shr(h0, 26)); h0 = p26l_and(h0, m26); \
	h2 = p26l_add(h2, p26l_shr(h1, 26)); h1 = p26l_and(h1, m26); \
	h3 = p26l_add(h3, p26l_shr(h2, 26)); h2 = p26l_and(h2, m26); \
	h4 = p26l_add(h4, p26l_shr(h3, 26)); h3 = p26l_and(h3, m26); \
} while (0)

/*
 * Group g's tags: h fully reduced mod 2^130 - 5, plus s mod 2^128, stored
 * per active lane. Constant time (masks, no branch on h or s). Named
 * vectors, not arrays: GCC copied an array of them in 16-byte halves,
 * and each 32-byte load after it waited on two stores it could not
 * forward from.
 */
static inline __attribute__((always_inline)) void
lane4_store(const struct lane4 *x, const struct small_mac *m, uint32_t act, int g)
{
	const __m256i m26 = _mm256_set1_epi64x((long long)P26_M26);
	const __m256i sign = _mm256_set1_epi64x(INT64_MIN);
	__m256i h0 = _mm256_load_si256(&x->h[0]), h1 = _mm256_load_si256(&x->h[1]);
	__m256i h2 = _mm256_load_si256(&x->h[2]), h3 = _mm256_load_si256(&x->h[3]);
	__m256i h4 = _mm256_load_si256(&x->h[4]);
	__m256i g0, g1, g2, g3, g4, c, neg, lo, hi, tlo, thi, carry, t02, t13;

	/*
	 * Two carry passes (limb 4's top folded in as 5 times it between):
	 * limbs 0..3 below 2^26, limb 4 at most 2^26, so h < 2^130 + 2^26.
	 */
	CARRY_UP(h0, h1, h2, h3, h4, m26);
	c = p26l_shr(h4, 26);
	h4 = p26l_and(h4, m26);
	h0 = p26l_add(h0, p26l_times5(c));
	CARRY_UP(h0, h1, h2, h3, h4, m26);
	/* h - p = h + 5 - 2^130 (below p), kept where it is not negative */
	g0 = p26l_add(h0, _mm256_set1_epi64x(5));
	g1 = h1;
	g2 = h2;
	g3 = h3;
	g4 = h4;
	CARRY_UP(g0, g1, g2, g3, g4, m26);
	g4 = _mm256_sub_epi64(g4, _mm256_set1_epi64x(INT64_C(1) << 26));
	neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), g4);
	h0 = _mm256_blendv_epi8(g0, h0, neg);
	h1 = _mm256_blendv_epi8(g1, h1, neg);
	h2 = _mm256_blendv_epi8(g2, h2, neg);
	h3 = _mm256_blendv_epi8(g3, h3, neg);
	h4 = _mm256_blendv_epi8(g4, h4, neg);
	lo = p26l_or(p26l_or(h0, p26l_shl(h1, 26)), p26l_shl(h2, 52));
	hi = p26l_or(p26l_or(p26l_shr(h2, 12), p26l_shl(h3, 14)), p26l_shl(h4, 40));
	tlo = p26l_add(lo, x->slo);
	/* the carry out of the low word: tlo < lo, unsigned */
	carry = _mm256_cmpgt_epi64(_mm256_xor_si256(lo, sign), _mm256_xor_si256(tlo, sign));
	thi = _mm256_sub_epi64(p26l_add(hi, x->shi), carry);
	t02 = _mm256_unpacklo_epi64(tlo, thi);  /* lanes 0, 2: low, high word */
	t13 = _mm256_unpackhi_epi64(tlo, thi);  /* lanes 1, 3 */
	if ((act >> (4 * g)) & 1)
		_mm_storeu_si128((__m128i *)m->tag[4 * g], _mm256_castsi256_si128(t02));
	if ((act >> (4 * g + 1)) & 1)
		_mm_storeu_si128((__m128i *)m->tag[4 * g + 1], _mm256_castsi256_si128(t13));
	if ((act >> (4 * g + 2)) & 1)
		_mm_storeu_si128((__m128i *)m->tag[4 * g + 2], _mm256_extracti128_si256(t02, 1));
	if ((act >> (4 * g + 3)) & 1)
		_mm_storeu_si128((__m128i *)m->tag[4 * g + 3], _mm256_extracti128_si256(t13, 1));
}

/*
 * The kernel's work, in a frame of its own (noinline): the compiler keeps
 * the ChaCha state and spills rows of keystream and plaintext, r, s and
 * the accumulators into it, which vecsec_chachapoly_small_burn() wipes.
 * Returns its stack pointer.
 */
static __attribute__((noinline)) uintptr_t
small_run(const struct chacha_lanes *l, const uint32_t *bytes, const struct small_mac *m,
	  struct sched *s)
{
	const uint32_t act = l->active & 0xff;
	/* Poly1305 group 1 only where lanes 4..7 have a job (a group of 4 or fewer: half the MAC) */
	const int groups = (act >> 4) != 0 ? 2 : 1;
	struct lane4 x[2];
	__m256i k0[8];
	uint32_t k = 0;
	uintptr_t sp;

	chacha_part(l, bytes, k0);
	stage_blocks(s, m, act);
	lanes_key(x, k0, groups);
	if (s->n % 2 == 1)
		step1(x, s, k++, groups);
	for (; k < s->n; k += 2)
		step2(x, s, k, groups);
	lane4_store(&x[0], m, act, 0);
	if ((act >> 4) != 0)
		lane4_store(&x[1], m, act, 1);
	SMALL_STACK_POINTER(sp);
	return sp;
}

void
SMALL_FN(vecsec_chachapoly_small_x8)(const struct chacha_lanes *l, const uint32_t *bytes,
				     const struct small_mac *m)
{
	struct sched s;

	sched_init(&s, m, l->active & 0xff);
	vecsec_chachapoly_small_burn(small_run(l, bytes, m, &s));
}
