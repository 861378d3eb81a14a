/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX2 assembly building blocks (GNU as macros), for
 * chacha_avx2.S and the stitched chachapoly_avx2.S only: 8 blocks of one
 * message per step, word-sliced (ymm holds one state word of the 8
 * blocks). RFC 8439 2.1-2.3.
 *
 * Register map during the rounds: words 0-3 (row a) in ymm0-3, 4-7 (row
 * b) in ymm4-7, 12-15 (row d) in ymm12-15; of row c two words are in
 * ymm8/ymm9 and two in the frame (column round: 8, 9 held, 10, 11 out;
 * diagonal round: 10, 11 held, 8, 9 out); ymm10/ymm11 are scratch.
 * Rotations by 16 and 8 are VPSHUFB with a mask from memory, by 12 and 7
 * two shifts and an OR.
 *
 * The VL form (a file assembled with -mavx512vl, so __AVX512VL__, defines
 * CHX8_VL and names its functions _avx2vl): VPROLD for every rotation,
 * which needs no scratch register, so words 10 and 11 stay in ymm10/ymm11
 * and the rounds touch no memory; EVEX on ymm0-15 only (ymm16-31 and the
 * mask registers unused), so it stays within a 256-bit SIMD width. The
 * caller checks AVX-512VL (and the OS's AVX-512 state) before it runs it.
 *
 * The frame (rbp-free, 32-byte aligned at %rsp) is laid out by the file
 * that includes this: CHX8_INIT(%rsp) holds the 16 input vectors of the
 * step (word 12 = counters + 0..7), CHX8_W(%rsp) the spilled words of row
 * c (slots 8..11, 32 bytes each, by word number) and, at the end of a
 * step, rows c and d after the feed-forward.
 */
#ifndef VECSEC_CHACHA_AVX2_ASM_H
#define VECSEC_CHACHA_AVX2_ASM_H

#ifdef __AVX512VL__
#define CHX8_VL 1
#endif

/* frame offsets: the input vectors, then the spill slots by word number */
#define CHX8_INIT(w) (32 * (w))
#define CHX8_W(w) (512 + 32 * (w))
#define CHX8_FRAME (512 + 512)

/*
 * Constants (define once per .S file with CHX8_CONSTANTS): rotation masks
 * and the lane counter offsets.
 */
.macro CHX8_CONSTANTS
	.section .rodata.vecsec_chx8, "a", @progbits
	.p2align 5
.Lchx8_rot16:
	.byte 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
	.byte 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
.Lchx8_rot8:
	.byte 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
	.byte 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
.Lchx8_lanes:
	.long 0, 1, 2, 3, 4, 5, 6, 7
.Lchx8_eight:
	.long 8, 8, 8, 8, 8, 8, 8, 8
	.text
.endm

/*
 * Two quarter rounds side by side (RFC 8439 2.1), step by step. With m0,
 * m1 given, c0 and c1 start out in memory there (the first c += d loads
 * them, so that the load is never on the rounds' critical path).
 */
#ifdef CHX8_VL
/* the VL form: every word in its register; half a quarter round, VPROLD */
.macro CHX8_HALF2 a0, b0, c0, d0, a1, b1, c1, d1, rd, rb
	vpaddd	\b0, \a0, \a0
	vpaddd	\b1, \a1, \a1
	vpxor	\a0, \d0, \d0
	vpxor	\a1, \d1, \d1
	vprold	$\rd, \d0, \d0
	vprold	$\rd, \d1, \d1
	vpaddd	\d0, \c0, \c0
	vpaddd	\d1, \c1, \c1
	vpxor	\c0, \b0, \b0
	vpxor	\c1, \b1, \b1
	vprold	$\rb, \b0, \b0
	vprold	$\rb, \b1, \b1
.endm

.macro CHX8_QR2 a0, b0, c0, d0, a1, b1, c1, d1
	CHX8_HALF2 \a0, \b0, \c0, \d0, \a1, \b1, \c1, \d1, 16, 12
	CHX8_HALF2 \a0, \b0, \c0, \d0, \a1, \b1, \c1, \d1, 8, 7
.endm
#else
.macro CHX8_QR2 a0, b0, c0, d0, a1, b1, c1, d1, m0, m1
	vpaddd	\b0, \a0, \a0
	vpaddd	\b1, \a1, \a1
	vpxor	\a0, \d0, \d0
	vpxor	\a1, \d1, \d1
	vpshufb	.Lchx8_rot16(%rip), \d0, \d0
	vpshufb	.Lchx8_rot16(%rip), \d1, \d1
	.ifb \m0
	vpaddd	\d0, \c0, \c0
	vpaddd	\d1, \c1, \c1
	.else
	vpaddd	\m0, \d0, \c0
	vpaddd	\m1, \d1, \c1
	.endif
	vpxor	\c0, \b0, \b0
	vpxor	\c1, \b1, \b1
	vpsrld	$20, \b0, %ymm10
	vpsrld	$20, \b1, %ymm11
	vpslld	$12, \b0, \b0
	vpslld	$12, \b1, \b1
	vpor	%ymm10, \b0, \b0
	vpor	%ymm11, \b1, \b1
	vpaddd	\b0, \a0, \a0
	vpaddd	\b1, \a1, \a1
	vpxor	\a0, \d0, \d0
	vpxor	\a1, \d1, \d1
	vpshufb	.Lchx8_rot8(%rip), \d0, \d0
	vpshufb	.Lchx8_rot8(%rip), \d1, \d1
	vpaddd	\d0, \c0, \c0
	vpaddd	\d1, \c1, \c1
	vpxor	\c0, \b0, \b0
	vpxor	\c1, \b1, \b1
	vpsrld	$25, \b0, %ymm10
	vpsrld	$25, \b1, %ymm11
	vpslld	$7, \b0, \b0
	vpslld	$7, \b1, \b1
	vpor	%ymm10, \b0, \b0
	vpor	%ymm11, \b1, \b1
.endm
#endif

/*
 * One double round (RFC 8439 2.3 inner_block): columns, then diagonals,
 * with the row-c swaps between the pairs. hook0..hook3 name macros (or
 * "chx8_nohook") expanded after each pair: the stitched kernel puts its
 * scalar Poly1305 blocks there, to run on the integer units meanwhile.
 * Entry and exit: words 8, 9 in ymm8/ymm9, 10, 11 in the frame.
 */
.macro chx8_nohook
.endm

#ifdef CHX8_VL
/* the VL form: entry and exit with every word w in ymm w */
.macro CHX8_DROUND hook0=chx8_nohook, hook1=chx8_nohook, hook2=chx8_nohook, hook3=chx8_nohook
	CHX8_QR2 %ymm0, %ymm4, %ymm8, %ymm12, %ymm1, %ymm5, %ymm9, %ymm13
	\hook0
	CHX8_QR2 %ymm2, %ymm6, %ymm10, %ymm14, %ymm3, %ymm7, %ymm11, %ymm15
	\hook1
	CHX8_QR2 %ymm0, %ymm5, %ymm10, %ymm15, %ymm1, %ymm6, %ymm11, %ymm12
	\hook2
	CHX8_QR2 %ymm2, %ymm7, %ymm8, %ymm13, %ymm3, %ymm4, %ymm9, %ymm14
	\hook3
.endm
#else
.macro CHX8_DROUND hook0=chx8_nohook, hook1=chx8_nohook, hook2=chx8_nohook, hook3=chx8_nohook
	CHX8_QR2 %ymm0, %ymm4, %ymm8, %ymm12, %ymm1, %ymm5, %ymm9, %ymm13
	\hook0
	vmovdqa	%ymm8, CHX8_W(8)(%rsp)
	vmovdqa	%ymm9, CHX8_W(9)(%rsp)
	CHX8_QR2 %ymm2, %ymm6, %ymm8, %ymm14, %ymm3, %ymm7, %ymm9, %ymm15, \
		 CHX8_W(10)(%rsp), CHX8_W(11)(%rsp)
	\hook1
	CHX8_QR2 %ymm0, %ymm5, %ymm8, %ymm15, %ymm1, %ymm6, %ymm9, %ymm12
	\hook2
	vmovdqa	%ymm8, CHX8_W(10)(%rsp)
	vmovdqa	%ymm9, CHX8_W(11)(%rsp)
	CHX8_QR2 %ymm2, %ymm7, %ymm8, %ymm13, %ymm3, %ymm4, %ymm9, %ymm14, \
		 CHX8_W(8)(%rsp), CHX8_W(9)(%rsp)
	\hook3
.endm
#endif

/*
 * The 16 input vectors of the first step from the state words at (\x)
 * (word 12: + 0..7 per lane) into CHX8_INIT; clobbers ymm0.
 */
.macro CHX8_SETUP x
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vpbroadcastd 4 * \w(\x), %ymm0
	.if \w == 12
	vpaddd	.Lchx8_lanes(%rip), %ymm0, %ymm0
	.endif
	vmovdqa	%ymm0, CHX8_INIT(\w)(%rsp)
	.endr
.endm

/*
 * A step's working state from CHX8_INIT (row c words 10, 11 to the frame;
 * in the VL form to ymm10, ymm11).
 */
.macro CHX8_LOAD
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15
	vmovdqa	CHX8_INIT(\w)(%rsp), %ymm\w
	.endr
	vmovdqa	CHX8_INIT(10)(%rsp), %ymm10
	vmovdqa	CHX8_INIT(11)(%rsp), %ymm11
#ifndef CHX8_VL
	vmovdqa	%ymm10, CHX8_W(10)(%rsp)
	vmovdqa	%ymm11, CHX8_W(11)(%rsp)
#endif
.endm

/* 4x4 transpose of 32-bit words in each 128-bit half; t0, t1 scratch. */
.macro CHX8_T4 r0, r1, r2, r3, t0, t1
	vpunpckldq	\r1, \r0, \t0           /* r0.0 r1.0 r0.1 r1.1 */
	vpunpckhdq	\r1, \r0, \r1           /* r0.2 r1.2 r0.3 r1.3 */
	vpunpckldq	\r3, \r2, \t1           /* r2.0 r3.0 r2.1 r3.1 */
	vpunpckhdq	\r3, \r2, \r3           /* r2.2 r3.2 r2.3 r3.3 */
	vpunpcklqdq	\t1, \t0, \r0           /* word w of lane block 0 */
	vpunpckhqdq	\t1, \t0, \r2           /* block 1 */
	vpunpcklqdq	\r3, \r1, \t0           /* block 2 */
	vpunpckhqdq	\r3, \r1, \r3           /* block 3 */
	vmovdqa	\r2, \r1
	vmovdqa	\t0, \r2
.endm

/*
 * 32 bytes of blocks k and k + 4 at byte offset off: lo holds words
 * off/4 .. off/4 + 3 of both (block k low half), hi the next four.
 */
.macro CHX8_OUT32 lo, hi, k, off, in, out
	vperm2i128	$0x20, \hi, \lo, %ymm8
	vperm2i128	$0x31, \hi, \lo, %ymm9
	vpxor	64 * \k + \off(\in), %ymm8, %ymm8
	vpxor	64 * (4 + \k) + \off(\in), %ymm9, %ymm9
	vmovdqu	%ymm8, 64 * \k + \off(\out)
	vmovdqu	%ymm9, 64 * (4 + \k) + \off(\out)
.endm

/*
 * The end of a step: feed-forward, transpose, and the 512 bytes of
 * keystream XORed from (\in) into (\out) (\in may equal \out). Entry:
 * the register map of the rounds (words 10, 11 in the frame; the VL form
 * puts them there first). Clobbers every ymm.
 */
.macro CHX8_FINISH in, out
#ifdef CHX8_VL
	vmovdqa	%ymm10, CHX8_W(10)(%rsp)
	vmovdqa	%ymm11, CHX8_W(11)(%rsp)
#endif
	/* rows c and d, fed forward, to the frame while rows a, b go out */
	vpaddd	CHX8_INIT(8)(%rsp), %ymm8, %ymm8
	vpaddd	CHX8_INIT(9)(%rsp), %ymm9, %ymm9
	vmovdqa	%ymm8, CHX8_W(8)(%rsp)
	vmovdqa	%ymm9, CHX8_W(9)(%rsp)
	.irp w, 12, 13, 14, 15
	vpaddd	CHX8_INIT(\w)(%rsp), %ymm\w, %ymm\w
	vmovdqa	%ymm\w, CHX8_W(\w)(%rsp)
	.endr
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7
	vpaddd	CHX8_INIT(\w)(%rsp), %ymm\w, %ymm\w
	.endr
	CHX8_T4	%ymm0, %ymm1, %ymm2, %ymm3, %ymm8, %ymm9
	CHX8_T4	%ymm4, %ymm5, %ymm6, %ymm7, %ymm8, %ymm9
	/* ymm k = words 0-3 of blocks k and k+4, ymm 4+k = words 4-7 */
	CHX8_OUT32 %ymm0, %ymm4, 0, 0, \in, \out
	CHX8_OUT32 %ymm1, %ymm5, 1, 0, \in, \out
	CHX8_OUT32 %ymm2, %ymm6, 2, 0, \in, \out
	CHX8_OUT32 %ymm3, %ymm7, 3, 0, \in, \out
	vmovdqa	CHX8_W(8)(%rsp), %ymm0
	vmovdqa	CHX8_W(9)(%rsp), %ymm1
	vmovdqa	CHX8_W(10)(%rsp), %ymm2
	vmovdqa	CHX8_W(11)(%rsp), %ymm3
	vpaddd	CHX8_INIT(10)(%rsp), %ymm2, %ymm2
	vpaddd	CHX8_INIT(11)(%rsp), %ymm3, %ymm3
	vmovdqa	CHX8_W(12)(%rsp), %ymm4
	vmovdqa	CHX8_W(13)(%rsp), %ymm5
	vmovdqa	CHX8_W(14)(%rsp), %ymm6
	vmovdqa	CHX8_W(15)(%rsp), %ymm7
	CHX8_T4	%ymm0, %ymm1, %ymm2, %ymm3, %ymm8, %ymm9
	CHX8_T4	%ymm4, %ymm5, %ymm6, %ymm7, %ymm8, %ymm9
	CHX8_OUT32 %ymm0, %ymm4, 0, 32, \in, \out
	CHX8_OUT32 %ymm1, %ymm5, 1, 32, \in, \out
	CHX8_OUT32 %ymm2, %ymm6, 2, 32, \in, \out
	CHX8_OUT32 %ymm3, %ymm7, 3, 32, \in, \out
.endm

/* Wipe the frame (key words and keystream) and every ymm register. */
.macro CHX8_WIPE
	vpxor	%xmm0, %xmm0, %xmm0
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqa	%ymm0, CHX8_INIT(\w)(%rsp)
	.endr
	.irp w, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqa	%ymm0, CHX8_W(\w)(%rsp)
	.endr
	vzeroall
.endm

#endif /* VECSEC_CHACHA_AVX2_ASM_H */
