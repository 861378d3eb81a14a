/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha, AVX-512 (F+VL+BW) building blocks shared by the AVX-512 kernel
 * files only (chacha_avx512.c, the stitched ChaCha20-Poly1305 in
 * lib/chachapoly; the lane kernels' steps at the end, for
 * chacha_lanes_avx512.c and lib/chachapoly's fused small-burst kernel): 16
 * blocks of one message, word-sliced (zmm i holds word i of blocks
 * 0..15), rotations by VPROLD. Split into init / double round / finish
 * so a caller can interleave other work (Poly1305) between double
 * rounds. RFC 8439 2.1-2.4; the counter is word 12 only.
 * Include only from files built with the avx512 flag sets.
 */
#ifndef VECSEC_CHACHA_AVX512_H
#define VECSEC_CHACHA_AVX512_H

#include <immintrin.h>

#include "chacha_internal.h"

#define CHACHA_X16_INLINE static inline __attribute__((always_inline))

/* RFC 8439 2.1 on vectors of one width: its add, xor and rotate (VPROLD) */
#define CHACHA_QR_W(a, b, c, d, add, xor, rol) do { \
	a = add(a, b); d = rol(xor(d, a), 16); \
	c = add(c, d); b = rol(xor(b, c), 12); \
	a = add(a, b); d = rol(xor(d, a), 8); \
	c = add(c, d); b = rol(xor(b, c), 7); \
} while (0)

#define CHACHA_X16_QR(a, b, c, d) \
	CHACHA_QR_W(a, b, c, d, _mm512_add_epi32, _mm512_xor_si512, _mm512_rol_epi32)

/* v[i] = word i of the 16 blocks with counters x[12] + 0..15 */
CHACHA_X16_INLINE void
chacha_x16_init(__m512i v[16], const uint32_t x[16])
{
	for (int i = 0; i < 16; i++)
		v[i] = _mm512_set1_epi32((int)x[i]);
	v[12] = _mm512_add_epi32(v[12], _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8,
							 7, 6, 5, 4, 3, 2, 1, 0));
}

/* RFC 8439 2.3 inner_block: a column round then a diagonal round */
CHACHA_X16_INLINE void
chacha_x16_dround(__m512i v[16])
{
	CHACHA_X16_QR(v[0], v[4], v[8], v[12]);
	CHACHA_X16_QR(v[1], v[5], v[9], v[13]);
	CHACHA_X16_QR(v[2], v[6], v[10], v[14]);
	CHACHA_X16_QR(v[3], v[7], v[11], v[15]);
	CHACHA_X16_QR(v[0], v[5], v[10], v[15]);
	CHACHA_X16_QR(v[1], v[6], v[11], v[12]);
	CHACHA_X16_QR(v[2], v[7], v[8], v[13]);
	CHACHA_X16_QR(v[3], v[4], v[9], v[14]);
}

/*
 * The 16 words in named locals x0..x15 (declared by CHACHA_X16_REGS from
 * v[]), one double round on them, and the pin: an empty asm that reads
 * and writes each word in the register it has (no instruction). Without
 * the pin GCC renames the state across a loop's back edge and closes the
 * loop with a zmm move per word (16 a double round, each one more
 * operation for Zen 4's vector pipes); an asm on v[] itself would keep v
 * in memory. A loop that interleaves other work (Poly1305) pins only
 * these words and leaves the rest to the compiler.
 */
/*
 * The pin of the 16 words named p0..p15 (p the prefix: x, or a second
 * state's y), each in the register it has; no instruction.
 */
#define CHACHA_X16_PIN_STATE(p) do { \
	__asm__("" : "+v"(p##0), "+v"(p##1), "+v"(p##2), "+v"(p##3), \
		"+v"(p##4), "+v"(p##5), "+v"(p##6), "+v"(p##7)); \
	__asm__("" : "+v"(p##8), "+v"(p##9), "+v"(p##10), "+v"(p##11), \
		"+v"(p##12), "+v"(p##13), "+v"(p##14), "+v"(p##15)); \
} while (0)

#define CHACHA_X16_REGS(v) \
	__m512i x0 = (v)[0], x1 = (v)[1], x2 = (v)[2], x3 = (v)[3]; \
	__m512i x4 = (v)[4], x5 = (v)[5], x6 = (v)[6], x7 = (v)[7]; \
	__m512i x8 = (v)[8], x9 = (v)[9], x10 = (v)[10], x11 = (v)[11]; \
	__m512i x12 = (v)[12], x13 = (v)[13], x14 = (v)[14], x15 = (v)[15]

#define CHACHA_X16_REGS_STORE(v) do { \
	(v)[0] = x0; (v)[1] = x1; (v)[2] = x2; (v)[3] = x3; \
	(v)[4] = x4; (v)[5] = x5; (v)[6] = x6; (v)[7] = x7; \
	(v)[8] = x8; (v)[9] = x9; (v)[10] = x10; (v)[11] = x11; \
	(v)[12] = x12; (v)[13] = x13; (v)[14] = x14; (v)[15] = x15; \
} while (0)

#define CHACHA_X16_REGS_DROUND() do { \
	CHACHA_X16_QR(x0, x4, x8, x12); \
	CHACHA_X16_QR(x1, x5, x9, x13); \
	CHACHA_X16_QR(x2, x6, x10, x14); \
	CHACHA_X16_QR(x3, x7, x11, x15); \
	CHACHA_X16_QR(x0, x5, x10, x15); \
	CHACHA_X16_QR(x1, x6, x11, x12); \
	CHACHA_X16_QR(x2, x7, x8, x13); \
	CHACHA_X16_QR(x3, x4, x9, x14); \
	CHACHA_X16_PIN_STATE(x); \
} while (0)

/*
 * The pin of CHACHA_X16_REGS_DROUND() for a word kept in an array: through
 * a named local, as an asm on the array element itself would keep the
 * array in memory. No instruction.
 */
#define CHACHA_PIN_T(type, e) do { \
	type p_ = (e); \
	__asm__("" : "+v"(p_)); \
	(e) = p_; \
} while (0)

#define CHACHA_X16_PIN(e) CHACHA_PIN_T(__m512i, e)

/* v[0..15] pinned so */
CHACHA_X16_INLINE void
chacha_x16_pin(__m512i v[16])
{
	for (int i = 0; i < 16; i++)
		CHACHA_X16_PIN(v[i]);
}

/* rounds/2 double rounds on v[0..15], held in named registers across the loop */
CHACHA_X16_INLINE void
chacha_x16_rounds(__m512i v[16], unsigned int rounds)
{
	CHACHA_X16_REGS(v);

	for (unsigned int r = 0; r < rounds; r += 2)
		CHACHA_X16_REGS_DROUND();
	CHACHA_X16_REGS_STORE(v);
}

/* out = in ^ ks for one 64-byte block, n bytes of it (n >= 64: all) */
CHACHA_X16_INLINE void
chacha_x16_xor_block(uint8_t *out, const uint8_t *in, __m512i ks, size_t n)
{
	if (n >= CHACHA_BLOCK_LEN) {
		_mm512_storeu_si512((void *)out,
				    _mm512_xor_si512(_mm512_loadu_si512((const void *)in), ks));
	} else {
		__mmask64 m = _cvtu64_mask64((UINT64_C(1) << n) - 1);
		__m512i t = _mm512_maskz_loadu_epi8(m, (const void *)in);

		_mm512_mask_storeu_epi8((void *)out, m, _mm512_xor_si512(t, ks));
	}
}

#define CHACHA_X16_T4(a, b, c, d) do { \
	__m512i t0_ = _mm512_unpacklo_epi32(a, b), t1_ = _mm512_unpackhi_epi32(a, b); \
	__m512i t2_ = _mm512_unpacklo_epi32(c, d), t3_ = _mm512_unpackhi_epi32(c, d); \
	a = _mm512_unpacklo_epi64(t0_, t2_); \
	b = _mm512_unpackhi_epi64(t0_, t2_); \
	c = _mm512_unpacklo_epi64(t1_, t3_); \
	d = _mm512_unpackhi_epi64(t1_, t3_); \
} while (0)

/*
 * Feed-forward (RFC 8439 2.3: add the input state), transpose to 16
 * blocks of 64 bytes and XOR min(len, 1024) bytes of in into out (masked
 * for a partial last block, nothing beyond len touched). With first not
 * NULL, block 0 goes whole to first (a one-time-key block) and blocks
 * 1..15 take the len <= 960 bytes of in/out. o[]: the input state, as
 * the rounds started from it.
 */
CHACHA_X16_INLINE void
chacha_x16_finish_first_o(uint8_t *first, uint8_t *out, const uint8_t *in, size_t len,
			  __m512i v[16], const __m512i o[16])
{
	for (int i = 0; i < 16; i++)
		v[i] = _mm512_add_epi32(v[i], o[i]);
	/* v[4g + k], 128-bit lane L: words 4g..4g+3 of block 4L + k */
	CHACHA_X16_T4(v[0], v[1], v[2], v[3]);
	CHACHA_X16_T4(v[4], v[5], v[6], v[7]);
	CHACHA_X16_T4(v[8], v[9], v[10], v[11]);
	CHACHA_X16_T4(v[12], v[13], v[14], v[15]);
	for (int k = 0; k < 4; k++) {
		__m512i a = _mm512_shuffle_i32x4(v[k], v[4 + k], 0x44);
		__m512i b = _mm512_shuffle_i32x4(v[k], v[4 + k], 0xee);
		__m512i c = _mm512_shuffle_i32x4(v[8 + k], v[12 + k], 0x44);
		__m512i d = _mm512_shuffle_i32x4(v[8 + k], v[12 + k], 0xee);
		__m512i blk[4];
		size_t off;

		blk[0] = _mm512_shuffle_i32x4(a, c, 0x88);     /* block k */
		blk[1] = _mm512_shuffle_i32x4(a, c, 0xdd);     /* block 4 + k */
		blk[2] = _mm512_shuffle_i32x4(b, d, 0x88);     /* block 8 + k */
		blk[3] = _mm512_shuffle_i32x4(b, d, 0xdd);     /* block 12 + k */
		for (int l = 0; l < 4; l++) {
			if (first != NULL && l == 0 && k == 0) {
				_mm512_storeu_si512((void *)first, blk[0]);
				continue;
			}
			off = (size_t)(4 * l + k - (first != NULL)) * CHACHA_BLOCK_LEN;
			if (len > off)
				chacha_x16_xor_block(out + off, in + off, blk[l], len - off);
		}
	}
}

/* the same, the input state o[] from the words x (chacha_x16_init()) */
CHACHA_X16_INLINE void
chacha_x16_finish_first(uint8_t *first, uint8_t *out, const uint8_t *in, size_t len,
			__m512i v[16], const uint32_t x[16])
{
	__m512i o[16];

	chacha_x16_init(o, x);
	chacha_x16_finish_first_o(first, out, in, len, v, o);
}

CHACHA_X16_INLINE void
chacha_x16_finish(uint8_t *out, const uint8_t *in, size_t len, __m512i v[16],
		  const uint32_t x[16])
{
	chacha_x16_finish_first(NULL, out, in, len, v, x);
}

/*
 * Row form, for short tails: x0..x3 are rows 0-3 of the input state
 * (words 0-3, 4-7, 8-11, 12-15); zmm a, b, c, d hold them, 128-bit lane L
 * for block 4 s + L of set s; the diagonal round turns rows
 * 1-3 within each lane (RFC 8439 2.2) and back. nsets (1..3, a constant)
 * independent sets of 4 blocks run interleaved, so their latency-bound
 * chains overlap. XORs min(len, 256 nsets) bytes, masked at the end.
 * hook (a constant, or NULL) runs after each double round dr, for
 * interleaved work (the stitched ChaCha20-Poly1305).
 *
 * With first not NULL, block 0 keeps its counter (word 12) and goes whole to first
 * (a one-time-key block), and the other blocks take counters ctr_rest,
 * ctr_rest + 1, ... for the len bytes of in/out.
 *
 * chacha_rows_init() / _dround() / _finish() are its three parts, for a
 * caller that runs the rows inside another kernel's double rounds (the
 * 16-block form's: their chains fill the ports it leaves idle).
 */
struct chacha_rows {
	__m512i a0, b0, c0, d0[3], a[3], b[3], c[3], d[3];
};

CHACHA_X16_INLINE void
chacha_rows_init(struct chacha_rows *w, __m128i x0, __m128i x1, __m128i x2, __m128i x3,
		 int nsets, const uint8_t *first, uint32_t ctr_rest)
{
	const __m512i lane_ctr = _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0);

	w->a0 = _mm512_broadcast_i32x4(x0);
	w->b0 = _mm512_broadcast_i32x4(x1);
	w->c0 = _mm512_broadcast_i32x4(x2);
	for (int s = 0; s < nsets; s++) {
		__m512i row3 = _mm512_broadcast_i32x4(x3);

		if (first == NULL) {
			w->d0[s] = _mm512_add_epi32(row3, _mm512_add_epi32(lane_ctr,
					_mm512_maskz_set1_epi32(0x1111, 4 * s)));
		} else {
			/* block j = 4 s + L: counter ctr_rest + j - 1, block 0 word 12 of x3 */
			__m512i c = _mm512_add_epi32(lane_ctr,
					_mm512_set1_epi32((int)(ctr_rest + 4 * (uint32_t)s - 1)));

			w->d0[s] = _mm512_mask_blend_epi32(s == 0 ? 0x1110 : 0x1111, row3, c);
		}
		w->a[s] = w->a0;
		w->b[s] = w->b0;
		w->c[s] = w->c0;
		w->d[s] = w->d0[s];
	}
}

CHACHA_X16_INLINE void
chacha_rows_dround(struct chacha_rows *w, int nsets)
{
	for (int s = 0; s < nsets; s++)
		CHACHA_X16_QR(w->a[s], w->b[s], w->c[s], w->d[s]);
	for (int s = 0; s < nsets; s++) {
		w->b[s] = _mm512_shuffle_epi32(w->b[s], 0x39);
		w->c[s] = _mm512_shuffle_epi32(w->c[s], 0x4e);
		w->d[s] = _mm512_shuffle_epi32(w->d[s], 0x93);
	}
	for (int s = 0; s < nsets; s++)
		CHACHA_X16_QR(w->a[s], w->b[s], w->c[s], w->d[s]);
	for (int s = 0; s < nsets; s++) {
		w->b[s] = _mm512_shuffle_epi32(w->b[s], 0x93);
		w->c[s] = _mm512_shuffle_epi32(w->c[s], 0x4e);
		w->d[s] = _mm512_shuffle_epi32(w->d[s], 0x39);
	}
}

/* the rows' words pinned so */
CHACHA_X16_INLINE void
chacha_rows_pin(struct chacha_rows *w, int nsets)
{
	for (int s = 0; s < nsets; s++) {
		CHACHA_X16_PIN(w->a[s]);
		CHACHA_X16_PIN(w->b[s]);
		CHACHA_X16_PIN(w->c[s]);
		CHACHA_X16_PIN(w->d[s]);
	}
}

CHACHA_X16_INLINE void
chacha_rows_finish(struct chacha_rows *w, uint8_t *out, const uint8_t *in, size_t len,
		   int nsets, uint8_t *first)
{
	for (int s = 0; s < nsets; s++) {
		__m512i t0, t1, t2, t3, blk[4];

		w->a[s] = _mm512_add_epi32(w->a[s], w->a0);
		w->b[s] = _mm512_add_epi32(w->b[s], w->b0);
		w->c[s] = _mm512_add_epi32(w->c[s], w->c0);
		w->d[s] = _mm512_add_epi32(w->d[s], w->d0[s]);
		t0 = _mm512_shuffle_i32x4(w->a[s], w->b[s], 0x44);  /* a0 a1 b0 b1 */
		t1 = _mm512_shuffle_i32x4(w->a[s], w->b[s], 0xee);  /* a2 a3 b2 b3 */
		t2 = _mm512_shuffle_i32x4(w->c[s], w->d[s], 0x44);
		t3 = _mm512_shuffle_i32x4(w->c[s], w->d[s], 0xee);
		blk[0] = _mm512_shuffle_i32x4(t0, t2, 0x88);
		blk[1] = _mm512_shuffle_i32x4(t0, t2, 0xdd);
		blk[2] = _mm512_shuffle_i32x4(t1, t3, 0x88);
		blk[3] = _mm512_shuffle_i32x4(t1, t3, 0xdd);
		for (size_t l = 0; l < 4; l++) {
			size_t j = 4 * (size_t)s + l, off;

			if (first != NULL && j == 0) {
				_mm512_storeu_si512((void *)first, blk[0]);
				continue;
			}
			off = CHACHA_BLOCK_LEN * (first != NULL ? j - 1 : j);
			if (len > off)
				chacha_x16_xor_block(out + off, in + off, blk[l], len - off);
		}
	}
}

/*
 * A set of two blocks in ymm (128-bit lane L: block L of the set), run
 * beside the 4-block sets above when the block count leaves one or two
 * over: on a core whose 512-bit operations take two passes through
 * 256-bit units (AMD Zen 4), it costs half a 4-block set's passes, and
 * its chain the same latency. Blocks take counters ctr and ctr + 1.
 */
#define CHACHA_Y_QR(a, b, c, d) \
	CHACHA_QR_W(a, b, c, d, _mm256_add_epi32, _mm256_xor_si256, _mm256_rol_epi32)

#define CHACHA_Y_PIN(e) CHACHA_PIN_T(__m256i, e)

struct chacha_rows2 {
	__m256i a0, b0, c0, d0, a, b, c, d;
};

CHACHA_X16_INLINE void
chacha_rows2_init(struct chacha_rows2 *w, __m128i x0, __m128i x1, __m128i x2, __m128i x3,
		  uint32_t ctr)
{
	const __m256i c = _mm256_setr_epi32((int)ctr, 0, 0, 0, (int)(ctr + 1), 0, 0, 0);

	w->a0 = _mm256_broadcastsi128_si256(x0);
	w->b0 = _mm256_broadcastsi128_si256(x1);
	w->c0 = _mm256_broadcastsi128_si256(x2);
	w->d0 = _mm256_mask_blend_epi32(0x11, _mm256_broadcastsi128_si256(x3), c);
	w->a = w->a0;
	w->b = w->b0;
	w->c = w->c0;
	w->d = w->d0;
}

CHACHA_X16_INLINE void
chacha_rows2_dround(struct chacha_rows2 *w)
{
	CHACHA_Y_QR(w->a, w->b, w->c, w->d);
	w->b = _mm256_shuffle_epi32(w->b, 0x39);
	w->c = _mm256_shuffle_epi32(w->c, 0x4e);
	w->d = _mm256_shuffle_epi32(w->d, 0x93);
	CHACHA_Y_QR(w->a, w->b, w->c, w->d);
	w->b = _mm256_shuffle_epi32(w->b, 0x93);
	w->c = _mm256_shuffle_epi32(w->c, 0x4e);
	w->d = _mm256_shuffle_epi32(w->d, 0x39);
	CHACHA_Y_PIN(w->a);
	CHACHA_Y_PIN(w->b);
	CHACHA_Y_PIN(w->c);
	CHACHA_Y_PIN(w->d);
}

/* out = in ^ the two blocks, min(len, 128) bytes of them (masked at the end) */
CHACHA_X16_INLINE void
chacha_rows2_finish(struct chacha_rows2 *w, uint8_t *out, const uint8_t *in, size_t len)
{
	__m256i a = _mm256_add_epi32(w->a, w->a0), b = _mm256_add_epi32(w->b, w->b0);
	__m256i c = _mm256_add_epi32(w->c, w->c0), d = _mm256_add_epi32(w->d, w->d0);
	__m512i blk0 = _mm512_inserti64x4(_mm512_castsi256_si512(
			_mm256_permute2x128_si256(a, b, 0x20)),
			_mm256_permute2x128_si256(c, d, 0x20), 1);
	__m512i blk1 = _mm512_inserti64x4(_mm512_castsi256_si512(
			_mm256_permute2x128_si256(a, b, 0x31)),
			_mm256_permute2x128_si256(c, d, 0x31), 1);

	if (len > 0)
		chacha_x16_xor_block(out, in, blk0, len);
	if (len > CHACHA_BLOCK_LEN)
		chacha_x16_xor_block(out + CHACHA_BLOCK_LEN, in + CHACHA_BLOCK_LEN, blk1,
				     len - CHACHA_BLOCK_LEN);
}

CHACHA_X16_INLINE void
chacha_rows_core_v(uint8_t *out, const uint8_t *in, size_t len, __m128i x0, __m128i x1,
		   __m128i x2, __m128i x3, unsigned int rounds, int nsets,
		   void (*hook)(void *ctx, unsigned int dr), void *ctx, uint8_t *first,
		   uint32_t ctr_rest)
{
	struct chacha_rows w;

	chacha_rows_init(&w, x0, x1, x2, x3, nsets, first, ctr_rest);
	for (unsigned int r = 0; r < rounds; r += 2) {
		chacha_rows_dround(&w, nsets);
		chacha_rows_pin(&w, nsets);
		if (hook != NULL)
			hook(ctx, r / 2);
	}
	chacha_rows_finish(&w, out, in, len, nsets, first);
}

/*
 * As chacha_rows_core_v() with the state's rows loaded from x[] (the input
 * state RFC 8439 2.3 describes, words 0-15).
 */
CHACHA_X16_INLINE void
chacha_rows_core(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
		 unsigned int rounds, int nsets, void (*hook)(void *ctx, unsigned int dr),
		 void *ctx, uint8_t *first, uint32_t ctr_rest)
{
	chacha_rows_core_v(out, in, len, _mm_loadu_si128((const void *)&x[0]),
			   _mm_loadu_si128((const void *)&x[4]),
			   _mm_loadu_si128((const void *)&x[8]),
			   _mm_loadu_si128((const void *)&x[12]), rounds, nsets, hook, ctx, first,
			   ctr_rest);
}

CHACHA_X16_INLINE void
chacha_rows_xor_hook(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
		     unsigned int rounds, int nsets, void (*hook)(void *ctx, unsigned int dr),
		     void *ctx)
{
	chacha_rows_core(out, in, len, x, rounds, nsets, hook, ctx, NULL, 0);
}

CHACHA_X16_INLINE void
chacha_rows_xor(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
		unsigned int rounds, int nsets)
{
	chacha_rows_core(out, in, len, x, rounds, nsets, NULL, NULL, NULL, 0);
}

/*
 * ---- The lane kernels' steps ----
 * 16 independent messages, one per 32-bit lane (chacha_lanes_avx512.c;
 * the fused small-burst kernel of lib/chachapoly takes block 0 from them
 * in word-major form): word-major state, a step of one or two blocks of
 * every lane, the transpose into one 64-byte row per lane.
 */
static inline __m512i vadd(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
static inline __m512i vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
#define VROTL(v, n) _mm512_rol_epi32((v), (n))  /* VPROLD: one op */

/* RFC 8439 2.1 on four words of every lane */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROTL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROTL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 7); \
} while (0)

/*
 * 4x4 transpose of 128-bit chunks: afterwards a holds chunk 0 of each of
 * a, b, c, d (in that order), b chunk 1, c chunk 2, d chunk 3.
 */
static inline void
transpose_chunks(__m512i *a, __m512i *b, __m512i *c, __m512i *d)
{
	__m512i ab_lo = _mm512_shuffle_i32x4(*a, *b, 0x44);  /* a0 a1 b0 b1 */
	__m512i ab_hi = _mm512_shuffle_i32x4(*a, *b, 0xee);  /* a2 a3 b2 b3 */
	__m512i cd_lo = _mm512_shuffle_i32x4(*c, *d, 0x44);
	__m512i cd_hi = _mm512_shuffle_i32x4(*c, *d, 0xee);

	*a = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0x88);       /* a0 b0 c0 d0 */
	*b = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0xdd);       /* a1 b1 c1 d1 */
	*c = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0x88);
	*d = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0xdd);
}

/*
 * Rows x[4g..4g+3] (words of every lane) -> in each 128-bit chunk j,
 * t[m] holds words 4g..4g+3 of lane 4j + m.
 */
static inline void
transpose_words(__m512i t[4], __m512i r0, __m512i r1, __m512i r2, __m512i r3)
{
	__m512i a = _mm512_unpacklo_epi32(r0, r1), b = _mm512_unpackhi_epi32(r0, r1);
	__m512i c = _mm512_unpacklo_epi32(r2, r3), d = _mm512_unpackhi_epi32(r2, r3);

	t[0] = _mm512_unpacklo_epi64(a, c);
	t[1] = _mm512_unpackhi_epi64(a, c);
	t[2] = _mm512_unpacklo_epi64(b, d);
	t[3] = _mm512_unpackhi_epi64(b, d);
}

/*
 * A call's input, in memory: s[w] is word w of every lane's input state
 * (s[12], the counter, unused: it changes every step), and p its first
 * column round where the counter is not in it. The column round's quarter
 * rounds on words 1, 5, 9, 13 / 2, 6, 10, 14 / 3, 7, 11, 15 read only
 * constants, key and nonce, the same in every step of a call: p[w] holds
 * them after that quarter round, p[0] = s[0] + s[4] (the first addition of
 * the counter's quarter round). Each step starts from p and so skips 37 of
 * its 960 round operations (20 rounds); the add-back reads s from memory,
 * which keeps the rounds' registers for the state.
 */
struct lanes_in {
	__m512i s[16];
	__m512i p[16];
};

/* w from the key words x4..x11 and the nonce words x13..x15 of every lane */
static inline __attribute__((always_inline)) void
lanes_in_set(struct lanes_in *w, __m512i x4, __m512i x5, __m512i x6, __m512i x7, __m512i x8,
	     __m512i x9, __m512i x10, __m512i x11, __m512i x13, __m512i x14, __m512i x15)
{
	__m512i x0 = _mm512_set1_epi32((int)CHACHA_C0), x1 = _mm512_set1_epi32((int)CHACHA_C1);
	__m512i x2 = _mm512_set1_epi32((int)CHACHA_C2), x3 = _mm512_set1_epi32((int)CHACHA_C3);
	__m512i x12 = _mm512_setzero_si512();

	w->s[0] = x0; w->s[1] = x1; w->s[2] = x2; w->s[3] = x3;
	w->s[4] = x4; w->s[5] = x5; w->s[6] = x6; w->s[7] = x7;
	w->s[8] = x8; w->s[9] = x9; w->s[10] = x10; w->s[11] = x11;
	w->s[12] = x12; w->s[13] = x13; w->s[14] = x14; w->s[15] = x15;
	QR(x1, x5, x9, x13);
	QR(x2, x6, x10, x14);
	QR(x3, x7, x11, x15);
	w->p[0] = vadd(x0, x4); w->p[1] = x1; w->p[2] = x2; w->p[3] = x3;
	w->p[4] = x4; w->p[5] = x5; w->p[6] = x6; w->p[7] = x7;
	w->p[8] = x8; w->p[9] = x9; w->p[10] = x10; w->p[11] = x11;
	w->p[12] = x12; w->p[13] = x13; w->p[14] = x14; w->p[15] = x15;
}

/* w from the key and nonce words of the lane struct (word-major) */
static inline __attribute__((always_inline)) void
lanes_in_init(struct lanes_in *w, const struct chacha_lanes *l)
{
	lanes_in_set(w, _mm512_load_si512((const void *)l->key[0]),
		     _mm512_load_si512((const void *)l->key[1]),
		     _mm512_load_si512((const void *)l->key[2]),
		     _mm512_load_si512((const void *)l->key[3]),
		     _mm512_load_si512((const void *)l->key[4]),
		     _mm512_load_si512((const void *)l->key[5]),
		     _mm512_load_si512((const void *)l->key[6]),
		     _mm512_load_si512((const void *)l->key[7]),
		     _mm512_loadu_si512((const void *)l->nonce[0]),
		     _mm512_loadu_si512((const void *)l->nonce[1]),
		     _mm512_loadu_si512((const void *)l->nonce[2]));
}

/*
 * The state of 16 lanes as named vectors x0..x15 (word w of every lane in
 * xw), so that the rounds stay in registers: after the first column round
 * at counter ctr (from w's p: STATE() and COLUMN0()), a diagonal round
 * and double rounds (Q(args, a, b, c, d): a quarter round on words a, b,
 * c, d of the states in args; QR2 interleaves two independent states),
 * the input added back, and the transpose into rows (lane i's in t[i]).
 */
#define STATE(x, w, ctr) \
	__m512i x##0 = (w)->p[0], x##1 = (w)->p[1], x##2 = (w)->p[2], x##3 = (w)->p[3]; \
	__m512i x##4 = (w)->p[4], x##5 = (w)->p[5], x##6 = (w)->p[6], x##7 = (w)->p[7]; \
	__m512i x##8 = (w)->p[8], x##9 = (w)->p[9], x##10 = (w)->p[10], x##11 = (w)->p[11]; \
	__m512i x##12 = (ctr), x##13 = (w)->p[13], x##14 = (w)->p[14], x##15 = (w)->p[15]
/* the counter's quarter round of the first column round, its first addition done */
#define COLUMN0(x) do { \
	x##12 = VROTL(vxor(x##12, x##0), 16); \
	x##8 = vadd(x##8, x##12); x##4 = VROTL(vxor(x##4, x##8), 12); \
	x##0 = vadd(x##0, x##4); x##12 = VROTL(vxor(x##12, x##0), 8); \
	x##8 = vadd(x##8, x##12); x##4 = VROTL(vxor(x##4, x##8), 7); \
} while (0)
/*
 * The rounds loops below pin x0..x15 after each double round, each in the
 * register it had (CHACHA_X16_PIN_STATE, chacha_avx512.h). Without it GCC renames the
 * state across the loop's back edge and closes the loop with a register
 * move per word (16 zmm moves a double round in block_rows(), some 40
 * moves and spills in block_rows2()), ops that Zen 4 executes; with it
 * the double round is its 96 (192) operations.
 */
#define QR1(x, a, b, c, d) QR(x##a, x##b, x##c, x##d)
#define QR2(x, y, a, b, c, d) do { QR1(x, a, b, c, d); QR1(y, a, b, c, d); } while (0)
#define DIAGONAL_ROUND(Q, ...) do { \
	Q(__VA_ARGS__, 0, 5, 10, 15); \
	Q(__VA_ARGS__, 1, 6, 11, 12); \
	Q(__VA_ARGS__, 2, 7, 8, 13); \
	Q(__VA_ARGS__, 3, 4, 9, 14); \
} while (0)
#define DOUBLE_ROUND(Q, ...) do { \
	Q(__VA_ARGS__, 0, 4, 8, 12); \
	Q(__VA_ARGS__, 1, 5, 9, 13); \
	Q(__VA_ARGS__, 2, 6, 10, 14); \
	Q(__VA_ARGS__, 3, 7, 11, 15); \
	DIAGONAL_ROUND(Q, __VA_ARGS__); \
} while (0)
#define ADD_INPUT(x, w, ctr) do { \
	x##0 = vadd(x##0, (w)->s[0]); x##1 = vadd(x##1, (w)->s[1]); \
	x##2 = vadd(x##2, (w)->s[2]); x##3 = vadd(x##3, (w)->s[3]); \
	x##4 = vadd(x##4, (w)->s[4]); x##5 = vadd(x##5, (w)->s[5]); \
	x##6 = vadd(x##6, (w)->s[6]); x##7 = vadd(x##7, (w)->s[7]); \
	x##8 = vadd(x##8, (w)->s[8]); x##9 = vadd(x##9, (w)->s[9]); \
	x##10 = vadd(x##10, (w)->s[10]); x##11 = vadd(x##11, (w)->s[11]); \
	x##12 = vadd(x##12, (ctr)); x##13 = vadd(x##13, (w)->s[13]); \
	x##14 = vadd(x##14, (w)->s[14]); x##15 = vadd(x##15, (w)->s[15]); \
} while (0)
#define TO_ROWS(x, t) do { \
	transpose_words((t) + 0, x##0, x##1, x##2, x##3); \
	transpose_words((t) + 4, x##4, x##5, x##6, x##7); \
	transpose_words((t) + 8, x##8, x##9, x##10, x##11); \
	transpose_words((t) + 12, x##12, x##13, x##14, x##15); \
	for (int m = 0; m < 4; m++) \
		transpose_chunks(&(t)[m], &(t)[4 + m], &(t)[8 + m], &(t)[12 + m]); \
} while (0)

/*
 * One step of 16 lanes (counter ctr on each): the keystream rows, lane i's
 * in t[i].
 */
static inline __attribute__((always_inline)) void
block_rows(const struct lanes_in *w, __m512i ctr, unsigned int dr, __m512i t[16])
{
	STATE(x, w, ctr);

	COLUMN0(x);
	DIAGONAL_ROUND(QR1, x);
	CHACHA_X16_PIN_STATE(x);
	for (unsigned int r = 1; r < dr; r++) {
		DOUBLE_ROUND(QR1, x);
		CHACHA_X16_PIN_STATE(x);
	}
	ADD_INPUT(x, w, ctr);
	TO_ROWS(x, t);
}

/*
 * The states x (counter ctr) and y (counter ctr1) of 16 lanes declared
 * from w and taken through dr double rounds together (the input not yet
 * added back): block_rows2() and the fused small-burst kernel.
 */
#define ROUNDS2(x, y, w, ctr, ctr1, dr) \
	STATE(x, w, ctr); \
	STATE(y, w, ctr1); \
	COLUMN0(x); \
	COLUMN0(y); \
	DIAGONAL_ROUND(QR2, x, y); \
	CHACHA_X16_PIN_STATE(x); \
	CHACHA_X16_PIN_STATE(y); \
	for (unsigned int r_ = 1; r_ < (dr); r_++) { \
		DOUBLE_ROUND(QR2, x, y); \
		CHACHA_X16_PIN_STATE(x); \
		CHACHA_X16_PIN_STATE(y); \
	}

/*
 * Two steps of 16 lanes in the same double rounds: counter ctr into t
 * (lane i's row in t[i]), ctr + 1 into u. One step's rounds are a chain
 * of dependent operations that leaves vector ports idle; two independent
 * chains fill them (the 32 state vectors fit the 32 registers: the
 * rounds need no temporaries).
 */
static inline __attribute__((always_inline)) void
block_rows2(const struct lanes_in *w, __m512i ctr, unsigned int dr, __m512i t[16],
	    __m512i u[16])
{
	const __m512i ctr1 = vadd(ctr, _mm512_set1_epi32(1));

	ROUNDS2(x, y, w, ctr, ctr1, dr);
	ADD_INPUT(x, w, ctr);
	ADD_INPUT(y, w, ctr1);
	TO_ROWS(x, t);
	TO_ROWS(y, u);
}

/* out = in ^ t[i] for the block at off of every lane i with bytes left there (masked) */
static inline __attribute__((always_inline)) void
xor_rows(const struct chacha_lanes *l, const uint32_t left[16], size_t off, const __m512i t[16])
{
	/* unrolled: t[i] each a register, not an array the rows are stored to */
#pragma GCC unroll 16
	for (int i = 0; i < 16; i++) {
		__m512i ks = t[i];      /* lane i's row */
		uint32_t r = left[i] > off ? left[i] - (uint32_t)off : 0;

		if (r >= CHACHA_BLOCK_LEN) {
			_mm512_storeu_si512((void *)(l->out[i] + off),
					    vxor(ks, _mm512_loadu_si512(l->in[i] + off)));
		} else if (r > 0) {
			__mmask64 m = (__mmask64)((UINT64_C(1) << r) - 1);

			_mm512_mask_storeu_epi8((void *)(l->out[i] + off), m,
				vxor(ks, _mm512_maskz_loadu_epi8(m, l->in[i] + off)));
		}
	}
}

#endif /* VECSEC_CHACHA_AVX512_H */
