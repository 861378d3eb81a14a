/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, SSSE3: 4 independent messages, one per 32-bit lane,
 * one block of each per step. Word-major: xmm w holds state word w of all 4
 * lanes (RFC 8439 2.3); four 4x4 transposes give each lane its 64-byte row
 * of keystream. Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <tmmintrin.h>

#include "chacha_internal.h"

static inline __m128i vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
static inline __m128i vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }

/*
 * The rounds (RFC 8439 2.1-2.3, rounds / 2 double rounds) in one asm block,
 * as in chacha_lanes_avx2.c: the 16 state words and a rotation temporary
 * need 17 xmm registers and x86-64 has 16, so words 0-14 stay in registers
 * and words 12 and 15 trade places through the slot of word 15 twice per
 * double round (from C, GCC spilled far more). Two quarter rounds are
 * interleaved; legacy SSE encodings (two operands: a rotation by 12 or 7 is
 * copy, shift, shift, or). 16-bit and 8-bit rotations are one PSHUFB with
 * a 16-byte aligned mask in memory. Constant time.
 *
 * Registers: words 0..11 in xmm0..11, 13 and 14 in xmm12 and 13; T and U
 * (xmm14, xmm15) hold word 12 and the temporary on entry to each double
 * round; X15 is word 15's slot of the state array.
 */
#define I_(s) s "\n\t"
#define R_x0 "%%xmm0"
#define R_x1 "%%xmm1"
#define R_x2 "%%xmm2"
#define R_x3 "%%xmm3"
#define R_x4 "%%xmm4"
#define R_x5 "%%xmm5"
#define R_x6 "%%xmm6"
#define R_x7 "%%xmm7"
#define R_x8 "%%xmm8"
#define R_x9 "%%xmm9"
#define R_x10 "%%xmm10"
#define R_x11 "%%xmm11"
#define R_x13 "%%xmm12"
#define R_x14 "%%xmm13"
#define R_T "%%xmm14"
#define R_U "%%xmm15"
#define X15 "15*16(%[st])"
#define ADD2(a, b, c, d) I_("paddd " R_##b ", " R_##a) I_("paddd " R_##d ", " R_##c)
#define XOR2(a, b, c, d) I_("pxor " R_##b ", " R_##a) I_("pxor " R_##d ", " R_##c)
#define SHUF2(a, c, mask) I_("pshufb %[" #mask "], " R_##a) I_("pshufb %[" #mask "], " R_##c)
#define ROT2(a, c, n, tmp) I_("movdqa " R_##a ", " R_##tmp) \
			   I_("psrld $(32-" #n "), " R_##tmp) \
			   I_("pslld $" #n ", " R_##a) \
			   I_("por " R_##tmp ", " R_##a) \
			   I_("movdqa " R_##c ", " R_##tmp) \
			   I_("psrld $(32-" #n "), " R_##tmp) \
			   I_("pslld $" #n ", " R_##c) \
			   I_("por " R_##tmp ", " R_##c)
/* QR(a, b, c, d) and QR(e, f, g, h) side by side, tmp the temporary */
#define QR2(a, b, c, d, e, f, g, h, tmp) \
	ADD2(a, b, e, f) XOR2(d, a, h, e) SHUF2(d, h, r16) \
	ADD2(c, d, g, h) XOR2(b, c, f, g) ROT2(b, f, 12, tmp) \
	ADD2(a, b, e, f) XOR2(d, a, h, e) SHUF2(d, h, r8) \
	ADD2(c, d, g, h) XOR2(b, c, f, g) ROT2(b, f, 7, tmp)

static const __m128i rot16_mask = { 0x0504070601000302LL, 0x0d0c0f0e09080b0aLL };
static const __m128i rot8_mask = { 0x0605040702010003LL, 0x0e0d0c0f0a09080bLL };

/* x[0..15] (word w of every lane) through dr >= 1 double rounds, in place */
static inline void
rounds(__m128i x[16], unsigned int dr)
{
	VECSEC_ASSERT(dr >= 1);
	__asm__ volatile(
		I_("movdqa 0*16(%[st]), %%xmm0")
		I_("movdqa 1*16(%[st]), %%xmm1")
		I_("movdqa 2*16(%[st]), %%xmm2")
		I_("movdqa 3*16(%[st]), %%xmm3")
		I_("movdqa 4*16(%[st]), %%xmm4")
		I_("movdqa 5*16(%[st]), %%xmm5")
		I_("movdqa 6*16(%[st]), %%xmm6")
		I_("movdqa 7*16(%[st]), %%xmm7")
		I_("movdqa 8*16(%[st]), %%xmm8")
		I_("movdqa 9*16(%[st]), %%xmm9")
		I_("movdqa 10*16(%[st]), %%xmm10")
		I_("movdqa 11*16(%[st]), %%xmm11")
		I_("movdqa 12*16(%[st]), %%xmm14")
		I_("movdqa 13*16(%[st]), %%xmm12")
		I_("movdqa 14*16(%[st]), %%xmm13")
		I_("1:")
		QR2(x0, x4, x8, T, x1, x5, x9, x13, U)
		I_("movdqa " X15 ", " R_U)              /* U = x15, x12 to the slot */
		I_("movdqa " R_T ", " X15)
		QR2(x2, x6, x10, x14, x3, x7, x11, U, T)
		QR2(x0, x5, x10, U, x2, x7, x8, x13, T)
		I_("movdqa " X15 ", " R_T)              /* T = x12, x15 to the slot */
		I_("movdqa " R_U ", " X15)
		QR2(x1, x6, x11, T, x3, x4, x9, x14, U)
		I_("dec %[n]")
		I_("jnz 1b")
		I_("movdqa %%xmm0, 0*16(%[st])")
		I_("movdqa %%xmm1, 1*16(%[st])")
		I_("movdqa %%xmm2, 2*16(%[st])")
		I_("movdqa %%xmm3, 3*16(%[st])")
		I_("movdqa %%xmm4, 4*16(%[st])")
		I_("movdqa %%xmm5, 5*16(%[st])")
		I_("movdqa %%xmm6, 6*16(%[st])")
		I_("movdqa %%xmm7, 7*16(%[st])")
		I_("movdqa %%xmm8, 8*16(%[st])")
		I_("movdqa %%xmm9, 9*16(%[st])")
		I_("movdqa %%xmm10, 10*16(%[st])")
		I_("movdqa %%xmm11, 11*16(%[st])")
		I_("movdqa %%xmm14, 12*16(%[st])")
		I_("movdqa %%xmm12, 13*16(%[st])")
		I_("movdqa %%xmm13, 14*16(%[st])")
		: [n] "+r"(dr), "+m"(*(__m128i(*)[16])x)
		: [st] "r"(x), [r16] "m"(rot16_mask), [r8] "m"(rot8_mask)
		: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "cc");
}

/* rows r[0..3] (a word of lanes 0..3) -> r[i] = those 4 words of lane i */
static inline void
transpose4(__m128i r[4])
{
	__m128i a = _mm_unpacklo_epi32(r[0], r[1]), b = _mm_unpackhi_epi32(r[0], r[1]);
	__m128i c = _mm_unpacklo_epi32(r[2], r[3]), d = _mm_unpackhi_epi32(r[2], r[3]);

	r[0] = _mm_unpacklo_epi64(a, c);
	r[1] = _mm_unpackhi_epi64(a, c);
	r[2] = _mm_unpacklo_epi64(b, d);
	r[3] = _mm_unpackhi_epi64(b, d);
}

void
vecsec_chacha_xor_lanes_x4_ssse3(struct chacha_lanes *l, uint32_t nblocks)
{
	const __m128i c0 = _mm_set1_epi32((int)CHACHA_C0), c1 = _mm_set1_epi32((int)CHACHA_C1);
	const __m128i c2 = _mm_set1_epi32((int)CHACHA_C2), c3 = _mm_set1_epi32((int)CHACHA_C3);
	const uint32_t act = l->active;
	const unsigned int dr = l->rounds / 2;
	__m128i k[8], n0, n1, n2, ctr;
	const uint8_t *in[4];
	uint8_t *out[4];
	size_t off = 0;                 /* every lane moves one block per step */

	for (int w = 0; w < 8; w++)
		k[w] = _mm_loadu_si128((const __m128i *)l->key[w]);
	ctr = _mm_loadu_si128((const __m128i *)l->ctr);
	n0 = _mm_loadu_si128((const __m128i *)l->nonce[0]);
	n1 = _mm_loadu_si128((const __m128i *)l->nonce[1]);
	n2 = _mm_loadu_si128((const __m128i *)l->nonce[2]);
	for (int i = 0; i < 4; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	for (uint32_t blk = 0; blk < nblocks; blk++) {
		alignas(16) __m128i x[16];
		__m128i g[4][4];

		x[0] = c0; x[1] = c1; x[2] = c2; x[3] = c3;
		for (int w = 0; w < 8; w++)
			x[4 + w] = k[w];
		x[12] = ctr; x[13] = n0; x[14] = n1; x[15] = n2;
		rounds(x, dr);
		x[0] = vadd(x[0], c0); x[1] = vadd(x[1], c1);
		x[2] = vadd(x[2], c2); x[3] = vadd(x[3], c3);
		for (int w = 0; w < 8; w++)
			x[4 + w] = vadd(x[4 + w], k[w]);
		x[12] = vadd(x[12], ctr); x[13] = vadd(x[13], n0);
		x[14] = vadd(x[14], n1); x[15] = vadd(x[15], n2);
		/* g[q][i]: words 4q..4q+3 of lane i */
		for (int q = 0; q < 4; q++) {
			for (int i = 0; i < 4; i++)
				g[q][i] = x[4 * q + i];
			transpose4(g[q]);
		}
		for (int i = 0; i < 4; i++) {
			if (!(act & (1u << i)))
				continue;
			for (int q = 0; q < 4; q++) {
				__m128i m = _mm_loadu_si128((const __m128i *)(in[i] + off + 16 * q));

				_mm_storeu_si128((__m128i *)(out[i] + off + 16 * q),
						 vxor(m, g[q][i]));
			}
		}
		ctr = vadd(ctr, _mm_set1_epi32(1));
		off += CHACHA_BLOCK_LEN;
	}

	for (int i = 0; i < 4; i++) {
		if (!(act & (1u << i)))
			continue;
		l->ctr[i] += nblocks;
		l->in[i] = in[i] + off;
		l->out[i] = out[i] + off;
		l->blocks_left[i] -= nblocks;
	}
}
