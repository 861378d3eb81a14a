/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20 lanes, AVX2: the step code of the 8-lane kernels
 * (chacha_lanes_avx2.c) shared with the fused small-burst kernel
 * (lib/chachapoly chachapoly_small_avx2.c): the rounds (plain AVX2 or, in
 * files compiled with -mavx512vl, VPROLD; there also two states in the
 * same double rounds), the 8x8 transpose, one step of keystream rows, and
 * for the fused kernel the lanes' words and byte counts and the
 * byte-exact XOR of a lane's row (the lane kernels keep their own inline
 * copies of those: their code stays as it was). Word-major: ymm w holds
 * state word w of all 8 lanes (RFC 8439 2.3). Include only from files
 * built with the avx2 or avx2_vl flag set (lib/meson.build).
 */
#ifndef VECSEC_CHACHA_LANES_AVX2_H
#define VECSEC_CHACHA_LANES_AVX2_H

#include <immintrin.h>
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

#include "chacha_internal.h"

/*
 * CL8_INLINE: plain inline in the lane kernels (their code as it was:
 * always_inline changed GCC's schedule of them); the fused kernel
 * defines it always_inline first, so that none of its secrets lands in a
 * callee's frame, below the one its stack wipe covers.
 */
#ifndef CL8_INLINE
#define CL8_INLINE static inline
#endif

CL8_INLINE __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
CL8_INLINE __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

#define I_(s) s "\n\t"
/* words 0..11 in ymm0..11 in both forms of the rounds */
#define R_x0 "%%ymm0"
#define R_x1 "%%ymm1"
#define R_x2 "%%ymm2"
#define R_x3 "%%ymm3"
#define R_x4 "%%ymm4"
#define R_x5 "%%ymm5"
#define R_x6 "%%ymm6"
#define R_x7 "%%ymm7"
#define R_x8 "%%ymm8"
#define R_x9 "%%ymm9"
#define R_x10 "%%ymm10"
#define R_x11 "%%ymm11"
#ifdef __AVX512VL__
/*
 * The rounds (RFC 8439 2.1-2.3) with AVX-512VL: word w in ymm w, the four
 * quarter rounds of a column or diagonal pass interleaved instruction by
 * instruction, every rotation one VPROLD (no temporary, no mask in
 * memory). Constant time: no branch but the round counter, no table.
 */
#define R_x12 "%%ymm12"
#define R_x13 "%%ymm13"
#define R_x14 "%%ymm14"
#define R_x15 "%%ymm15"
#define OP4(op, a, b, c, d, e, f, g, h) I_(op " " R_##b ", " R_##a ", " R_##a) \
	I_(op " " R_##d ", " R_##c ", " R_##c) I_(op " " R_##f ", " R_##e ", " R_##e) \
	I_(op " " R_##h ", " R_##g ", " R_##g)
#define ROL4(n, a, c, e, g) I_("vprold $" #n ", " R_##a ", " R_##a) \
	I_("vprold $" #n ", " R_##c ", " R_##c) I_("vprold $" #n ", " R_##e ", " R_##e) \
	I_("vprold $" #n ", " R_##g ", " R_##g)
/* QR(a0, b0, c0, d0) .. QR(a3, b3, c3, d3) side by side */
#define QR4(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
	QR4X("vpxor", a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3)
/* the same with the XOR named (VPXORD for registers past ymm15) */
#define QR4X(xor, a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
	OP4("vpaddd", a0, b0, a1, b1, a2, b2, a3, b3) \
	OP4(xor, d0, a0, d1, a1, d2, a2, d3, a3) ROL4(16, d0, d1, d2, d3) \
	OP4("vpaddd", c0, d0, c1, d1, c2, d2, c3, d3) \
	OP4(xor, b0, c0, b1, c1, b2, c2, b3, c3) ROL4(12, b0, b1, b2, b3) \
	OP4("vpaddd", a0, b0, a1, b1, a2, b2, a3, b3) \
	OP4(xor, d0, a0, d1, a1, d2, a2, d3, a3) ROL4(8, d0, d1, d2, d3) \
	OP4("vpaddd", c0, d0, c1, d1, c2, d2, c3, d3) \
	OP4(xor, b0, c0, b1, c1, b2, c2, b3, c3) ROL4(7, b0, b1, b2, b3)
#define LD_(w) I_("vmovdqa " #w "*32(%[st]), %%ymm" #w)
#define ST_(w) I_("vmovdqa %%ymm" #w ", " #w "*32(%[st])")
#define LD_ALL LD_(0) LD_(1) LD_(2) LD_(3) LD_(4) LD_(5) LD_(6) LD_(7) \
	LD_(8) LD_(9) LD_(10) LD_(11) LD_(12) LD_(13) LD_(14) LD_(15)
#define ST_ALL ST_(0) ST_(1) ST_(2) ST_(3) ST_(4) ST_(5) ST_(6) ST_(7) \
	ST_(8) ST_(9) ST_(10) ST_(11) ST_(12) ST_(13) ST_(14) ST_(15)
/* the column and the diagonal quarter rounds of state v (words v0 .. v15) */
#define COLS(qr, v) qr(v##0, v##4, v##8, v##12, v##1, v##5, v##9, v##13, \
		       v##2, v##6, v##10, v##14, v##3, v##7, v##11, v##15)
#define DIAGS(qr, v) qr(v##0, v##5, v##10, v##15, v##1, v##6, v##11, v##12, \
			v##2, v##7, v##8, v##13, v##3, v##4, v##9, v##14)

/* x[0..15] (word w of every lane) through dr >= 1 double rounds, in place */
CL8_INLINE void
rounds(__m256i x[16], unsigned int dr)
{
	VECSEC_ASSERT(dr >= 1);
	__asm__ volatile(
		LD_ALL I_("1:") COLS(QR4, x) DIAGS(QR4, x) I_("dec %[n]") I_("jnz 1b") ST_ALL
		: [n] "+r"(dr), "+m"(*(__m256i(*)[16])x)
		: [st] "r"(x)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
}

/*
 * Two blocks' states in the same double rounds: x[] in ymm0..15 as
 * rounds() has it, y[] in ymm16..31 (EVEX only: VPXORD, VMOVDQA32), the
 * passes of one state after the other's, which the out-of-order core
 * overlaps: twice the independent work per step of the rounds.
 */
#define R_y0 "%%ymm16"
#define R_y1 "%%ymm17"
#define R_y2 "%%ymm18"
#define R_y3 "%%ymm19"
#define R_y4 "%%ymm20"
#define R_y5 "%%ymm21"
#define R_y6 "%%ymm22"
#define R_y7 "%%ymm23"
#define R_y8 "%%ymm24"
#define R_y9 "%%ymm25"
#define R_y10 "%%ymm26"
#define R_y11 "%%ymm27"
#define R_y12 "%%ymm28"
#define R_y13 "%%ymm29"
#define R_y14 "%%ymm30"
#define R_y15 "%%ymm31"
#define QR4E(a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3) \
	QR4X("vpxord", a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3)

/* word w of y[] to and from ymm r */
#define LDY_(w, r) I_("vmovdqa32 " #w "*32(%[sy]), %%ymm" #r)
#define STY_(w, r) I_("vmovdqa32 %%ymm" #r ", " #w "*32(%[sy])")

/* x[0..15] and y[0..15] through dr >= 1 double rounds, in place */
static inline __attribute__((always_inline)) void
rounds2(__m256i x[16], __m256i y[16], unsigned int dr)
{
	VECSEC_ASSERT(dr >= 1);
	__asm__ volatile(
		LD_ALL
		LDY_(0, 16) LDY_(1, 17) LDY_(2, 18) LDY_(3, 19) LDY_(4, 20) LDY_(5, 21)
		LDY_(6, 22) LDY_(7, 23) LDY_(8, 24) LDY_(9, 25) LDY_(10, 26) LDY_(11, 27)
		LDY_(12, 28) LDY_(13, 29) LDY_(14, 30) LDY_(15, 31)
		I_("1:") COLS(QR4, x) COLS(QR4E, y) DIAGS(QR4, x) DIAGS(QR4E, y)
		I_("dec %[n]") I_("jnz 1b")
		ST_ALL
		STY_(0, 16) STY_(1, 17) STY_(2, 18) STY_(3, 19) STY_(4, 20) STY_(5, 21)
		STY_(6, 22) STY_(7, 23) STY_(8, 24) STY_(9, 25) STY_(10, 26) STY_(11, 27)
		STY_(12, 28) STY_(13, 29) STY_(14, 30) STY_(15, 31)
		: [n] "+r"(dr), "+m"(*(__m256i(*)[16])x), "+m"(*(__m256i(*)[16])y)
		: [st] "r"(x), [sy] "r"(y)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17",
		  "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26",
		  "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "cc");
}
#else
/*
 * The rounds (RFC 8439 2.1-2.3: four column, then four diagonal quarter
 * rounds, rounds / 2 times) in one asm block. The 16 state words and a
 * temporary for the shift-and-or rotations need 17 ymm registers and AVX2
 * has 16: from C, GCC spilled and reloaded about 25 words per double round
 * (47 moves). Here 15 words stay in registers and word 15 or 12 waits in
 * its slot of the state array, two swaps per double round (4 moves); two
 * independent quarter rounds are interleaved instruction by instruction.
 * 16-bit and 8-bit rotations are one VPSHUFB with a mask in memory.
 * Constant time: no branch but the round counter, no table.
 *
 * Registers: words 0..11 in ymm0..11, 13 and 14 in ymm12 and 13; T and U
 * (ymm14, ymm15) hold word 12 and the temporary on entry to each double
 * round, word 15 and 12 trade places with the slot of word 15 (X15).
 */
#define R_x13 "%%ymm12"
#define R_x14 "%%ymm13"
#define R_T "%%ymm14"
#define R_U "%%ymm15"
#define X15 "15*32(%[st])"
#define ADD2(a, b, c, d) I_("vpaddd " R_##b ", " R_##a ", " R_##a) \
			 I_("vpaddd " R_##d ", " R_##c ", " R_##c)
#define XOR2(a, b, c, d) I_("vpxor " R_##b ", " R_##a ", " R_##a) \
			 I_("vpxor " R_##d ", " R_##c ", " R_##c)
#define SHUF2(a, c, mask) I_("vpshufb %[" #mask "], " R_##a ", " R_##a) \
			  I_("vpshufb %[" #mask "], " R_##c ", " R_##c)
#define ROT2(a, c, n, tmp) I_("vpsrld $(32-" #n "), " R_##a ", " R_##tmp) \
			   I_("vpslld $" #n ", " R_##a ", " R_##a) \
			   I_("vpor " R_##tmp ", " R_##a ", " R_##a) \
			   I_("vpsrld $(32-" #n "), " R_##c ", " R_##tmp) \
			   I_("vpslld $" #n ", " R_##c ", " R_##c) \
			   I_("vpor " R_##tmp ", " R_##c ", " R_##c)
/* QR(a, b, c, d) and QR(e, f, g, h) side by side, tmp the temporary */
#define QR2(a, b, c, d, e, f, g, h, tmp) \
	ADD2(a, b, e, f) XOR2(d, a, h, e) SHUF2(d, h, r16) \
	ADD2(c, d, g, h) XOR2(b, c, f, g) ROT2(b, f, 12, tmp) \
	ADD2(a, b, e, f) XOR2(d, a, h, e) SHUF2(d, h, r8) \
	ADD2(c, d, g, h) XOR2(b, c, f, g) ROT2(b, f, 7, tmp)

static const __m256i rot16_mask = { 0x0504070601000302LL, 0x0d0c0f0e09080b0aLL,
				    0x0504070601000302LL, 0x0d0c0f0e09080b0aLL };
static const __m256i rot8_mask = { 0x0605040702010003LL, 0x0e0d0c0f0a09080bLL,
				   0x0605040702010003LL, 0x0e0d0c0f0a09080bLL };

/* x[0..15] (word w of every lane) through dr >= 1 double rounds, in place */
CL8_INLINE void
rounds(__m256i x[16], unsigned int dr)
{
	VECSEC_ASSERT(dr >= 1);
	__asm__ volatile(
		I_("vmovdqa 0*32(%[st]), %%ymm0")
		I_("vmovdqa 1*32(%[st]), %%ymm1")
		I_("vmovdqa 2*32(%[st]), %%ymm2")
		I_("vmovdqa 3*32(%[st]), %%ymm3")
		I_("vmovdqa 4*32(%[st]), %%ymm4")
		I_("vmovdqa 5*32(%[st]), %%ymm5")
		I_("vmovdqa 6*32(%[st]), %%ymm6")
		I_("vmovdqa 7*32(%[st]), %%ymm7")
		I_("vmovdqa 8*32(%[st]), %%ymm8")
		I_("vmovdqa 9*32(%[st]), %%ymm9")
		I_("vmovdqa 10*32(%[st]), %%ymm10")
		I_("vmovdqa 11*32(%[st]), %%ymm11")
		I_("vmovdqa 12*32(%[st]), %%ymm14")
		I_("vmovdqa 13*32(%[st]), %%ymm12")
		I_("vmovdqa 14*32(%[st]), %%ymm13")
		I_("1:")
		QR2(x0, x4, x8, T, x1, x5, x9, x13, U)
		I_("vmovdqa " X15 ", " R_U)             /* U = x15, x12 to the slot */
		I_("vmovdqa " R_T ", " X15)
		QR2(x2, x6, x10, x14, x3, x7, x11, U, T)
		QR2(x0, x5, x10, U, x2, x7, x8, x13, T)
		I_("vmovdqa " X15 ", " R_T)             /* T = x12, x15 to the slot */
		I_("vmovdqa " R_U ", " X15)
		QR2(x1, x6, x11, T, x3, x4, x9, x14, U)
		I_("dec %[n]")
		I_("jnz 1b")
		I_("vmovdqa %%ymm0, 0*32(%[st])")
		I_("vmovdqa %%ymm1, 1*32(%[st])")
		I_("vmovdqa %%ymm2, 2*32(%[st])")
		I_("vmovdqa %%ymm3, 3*32(%[st])")
		I_("vmovdqa %%ymm4, 4*32(%[st])")
		I_("vmovdqa %%ymm5, 5*32(%[st])")
		I_("vmovdqa %%ymm6, 6*32(%[st])")
		I_("vmovdqa %%ymm7, 7*32(%[st])")
		I_("vmovdqa %%ymm8, 8*32(%[st])")
		I_("vmovdqa %%ymm9, 9*32(%[st])")
		I_("vmovdqa %%ymm10, 10*32(%[st])")
		I_("vmovdqa %%ymm11, 11*32(%[st])")
		I_("vmovdqa %%ymm14, 12*32(%[st])")
		I_("vmovdqa %%ymm12, 13*32(%[st])")
		I_("vmovdqa %%ymm13, 14*32(%[st])")
		: [n] "+r"(dr), "+m"(*(__m256i(*)[16])x)
		: [st] "r"(x), [r16] "m"(rot16_mask), [r8] "m"(rot8_mask)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
}
#endif /* __AVX512VL__ */

/*
 * 8x8 transpose of rows r[0..7] (word w of lanes 0..7): afterwards r[i]
 * holds those 8 words of lane i.
 */
CL8_INLINE void
transpose8(__m256i r[8])
{
	__m256i a0 = _mm256_unpacklo_epi32(r[0], r[1]), a1 = _mm256_unpackhi_epi32(r[0], r[1]);
	__m256i a2 = _mm256_unpacklo_epi32(r[2], r[3]), a3 = _mm256_unpackhi_epi32(r[2], r[3]);
	__m256i a4 = _mm256_unpacklo_epi32(r[4], r[5]), a5 = _mm256_unpackhi_epi32(r[4], r[5]);
	__m256i a6 = _mm256_unpacklo_epi32(r[6], r[7]), a7 = _mm256_unpackhi_epi32(r[6], r[7]);
	/* in 128-bit half j: u[m] = words 0-3 of lane 4j + m, v[m] = words 4-7 */
	__m256i u0 = _mm256_unpacklo_epi64(a0, a2), u1 = _mm256_unpackhi_epi64(a0, a2);
	__m256i u2 = _mm256_unpacklo_epi64(a1, a3), u3 = _mm256_unpackhi_epi64(a1, a3);
	__m256i v0 = _mm256_unpacklo_epi64(a4, a6), v1 = _mm256_unpackhi_epi64(a4, a6);
	__m256i v2 = _mm256_unpacklo_epi64(a5, a7), v3 = _mm256_unpackhi_epi64(a5, a7);

	r[0] = _mm256_permute2x128_si256(u0, v0, 0x20);
	r[1] = _mm256_permute2x128_si256(u1, v1, 0x20);
	r[2] = _mm256_permute2x128_si256(u2, v2, 0x20);
	r[3] = _mm256_permute2x128_si256(u3, v3, 0x20);
	r[4] = _mm256_permute2x128_si256(u0, v0, 0x31);
	r[5] = _mm256_permute2x128_si256(u1, v1, 0x31);
	r[6] = _mm256_permute2x128_si256(u2, v2, 0x31);
	r[7] = _mm256_permute2x128_si256(u3, v3, 0x31);
}

#ifdef __AVX512VL__
/*
 * A lane's short last block: r (1..63) bytes of in XORed with its row
 * (lo, hi) into out (in == out allowed) by byte-masked loads and stores,
 * nothing touched past r bytes (a masked-off byte is neither read nor
 * written, so no fault either), no keystream on the stack.
 */
CL8_INLINE void
xor_last(uint8_t *out, const uint8_t *in, __m256i lo, __m256i hi, uint32_t r)
{
	const __mmask32 m0 = _bzhi_u32(~0u, r);      /* all 32 from r = 32 on */

	_mm256_mask_storeu_epi8(out, m0, vxor(_mm256_maskz_loadu_epi8(m0, in), lo));
	if (r > 32) {
		const __mmask32 m1 = _bzhi_u32(~0u, r - 32);

		_mm256_mask_storeu_epi8(out + 32, m1,
					vxor(_mm256_maskz_loadu_epi8(m1, in + 32), hi));
	}
}
#else
/* n < 64 bytes of in XORed with ks into out (in == out allowed): 8 at a time, then bytes */
CL8_INLINE void
xor_tail(uint8_t *out, const uint8_t *in, const uint8_t *ks, uint32_t n)
{
	uint32_t k = 0;

	for (; k + 8 <= n; k += 8) {
		uint64_t a, b;

		memcpy(&a, in + k, 8);
		memcpy(&b, ks + k, 8);
		a ^= b;
		memcpy(out + k, &a, 8);
	}
	for (; k < n; k++)
		out[k] = (uint8_t)(in[k] ^ ks[k]);
}
#endif

/* the lanes' key words (k) and nonce words, word-major */
static inline __attribute__((always_inline)) void
lanes_words(const struct chacha_lanes *l, __m256i k[8], __m256i *n0, __m256i *n1,
	    __m256i *n2)
{
	for (int w = 0; w < 8; w++)
		k[w] = _mm256_loadu_si256((const __m256i *)l->key[w]);
	*n0 = _mm256_loadu_si256((const __m256i *)l->nonce[0]);
	*n1 = _mm256_loadu_si256((const __m256i *)l->nonce[1]);
	*n2 = _mm256_loadu_si256((const __m256i *)l->nonce[2]);
}

/* each lane's bytes into left[] (an inactive lane's: 0); returns the most */
static inline __attribute__((always_inline)) uint32_t
lanes_left(uint32_t act, const uint32_t *bytes, uint32_t left[8])
{
	uint32_t most = 0;

	for (int i = 0; i < 8; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}
	return most;
}

/*
 * A state after the rounds (x), with the input added (key k, counter
 * ctr, nonce n0..n2), as lane i's keystream row in lo[i] (bytes 0..31)
 * and hi[i] (32..63).
 */
static inline __attribute__((always_inline)) void
state_rows(const __m256i x[16], const __m256i k[8], __m256i ctr, __m256i n0, __m256i n1,
	   __m256i n2, __m256i lo[8], __m256i hi[8])
{
	const __m256i c0 = _mm256_set1_epi32((int)CHACHA_C0), c1 = _mm256_set1_epi32((int)CHACHA_C1);
	const __m256i c2 = _mm256_set1_epi32((int)CHACHA_C2), c3 = _mm256_set1_epi32((int)CHACHA_C3);

	lo[0] = vadd(x[0], c0); lo[1] = vadd(x[1], c1); lo[2] = vadd(x[2], c2);
	lo[3] = vadd(x[3], c3); lo[4] = vadd(x[4], k[0]); lo[5] = vadd(x[5], k[1]);
	lo[6] = vadd(x[6], k[2]); lo[7] = vadd(x[7], k[3]);
	hi[0] = vadd(x[8], k[4]); hi[1] = vadd(x[9], k[5]); hi[2] = vadd(x[10], k[6]);
	hi[3] = vadd(x[11], k[7]); hi[4] = vadd(x[12], ctr); hi[5] = vadd(x[13], n0);
	hi[6] = vadd(x[14], n1); hi[7] = vadd(x[15], n2);
	transpose8(lo);
	transpose8(hi);
}

/*
 * One step of 8 lanes (counter ctr on each): lane i's keystream row in
 * lo[i] (bytes 0..31) and hi[i] (32..63).
 */
static inline __attribute__((always_inline)) void
block_rows(const __m256i k[8], __m256i ctr, __m256i n0, __m256i n1, __m256i n2,
	   unsigned int dr, __m256i lo[8], __m256i hi[8])
{
	const __m256i c0 = _mm256_set1_epi32((int)CHACHA_C0), c1 = _mm256_set1_epi32((int)CHACHA_C1);
	const __m256i c2 = _mm256_set1_epi32((int)CHACHA_C2), c3 = _mm256_set1_epi32((int)CHACHA_C3);
	alignas(32) __m256i x[16] = { c0, c1, c2, c3, k[0], k[1], k[2], k[3],
				      k[4], k[5], k[6], k[7], ctr, n0, n1, n2 };

	rounds(x, dr);
	state_rows(x, k, ctr, n0, n1, n2, lo, hi);
}

/*
 * Lane i's part of a step at byte off of its data (left: its bytes in
 * all): a whole block by 32-byte loads and stores, a short last one by
 * xor_last() (VL) or through row, the keystream on the stack (AVX2 has no
 * byte-masked store; *tail set: the caller wipes row). Lengths are public.
 */
CL8_INLINE void
xor_row(const struct chacha_lanes *l, int i, uint32_t left, size_t off, __m256i lo, __m256i hi,
	uint8_t *row, bool *tail)
{
	uint32_t r = left > off ? left - (uint32_t)off : 0;
	const uint8_t *in = l->in[i] + off;
	uint8_t *out = l->out[i] + off;

	if (r >= CHACHA_BLOCK_LEN) {
		__m256i a = _mm256_loadu_si256((const __m256i *)in);
		__m256i b = _mm256_loadu_si256((const __m256i *)(in + 32));

		_mm256_storeu_si256((__m256i *)out, vxor(a, lo));
		_mm256_storeu_si256((__m256i *)(out + 32), vxor(b, hi));
	} else if (r > 0) {
#ifdef __AVX512VL__
		(void)row;
		(void)tail;
		xor_last(out, in, lo, hi, r);
#else
		_mm256_store_si256((__m256i *)row, lo);
		_mm256_store_si256((__m256i *)(row + 32), hi);
		xor_tail(out, in, row, r);
		*tail = true;
#endif
	}
}

#ifdef __AVX512VL__
/*
 * Blocks ctr and ctr + 1 of every lane in the same double rounds
 * (rounds2(): the second state in ymm16-31), XORed byte-exact at off and
 * off + 64 (xor_row()); the VL forms' step of two blocks.
 */
static inline __attribute__((always_inline)) void
pair_xor(const struct chacha_lanes *l, const uint32_t left[8], size_t off, const __m256i k[8],
	 __m256i ctr, __m256i n0, __m256i n1, __m256i n2, unsigned int dr)
{
	const __m256i ctr1 = vadd(ctr, _mm256_set1_epi32(1));
	alignas(32) __m256i x[16] = { _mm256_set1_epi32((int)CHACHA_C0),
				      _mm256_set1_epi32((int)CHACHA_C1),
				      _mm256_set1_epi32((int)CHACHA_C2),
				      _mm256_set1_epi32((int)CHACHA_C3),
				      k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7],
				      ctr, n0, n1, n2 };
	alignas(32) __m256i y[16];
	__m256i lo[8], hi[8];

	memcpy(y, x, sizeof(x));
	y[12] = ctr1;
	rounds2(x, y, dr);
	state_rows(x, k, ctr, n0, n1, n2, lo, hi);
	for (int i = 0; i < 8; i++)
		xor_row(l, i, left[i], off, lo[i], hi[i], NULL, NULL);
	state_rows(y, k, ctr1, n0, n1, n2, lo, hi);
	for (int i = 0; i < 8; i++)
		xor_row(l, i, left[i], off + CHACHA_BLOCK_LEN, lo[i], hi[i], NULL, NULL);
}
#endif

#endif /* VECSEC_CHACHA_LANES_AVX2_H */
