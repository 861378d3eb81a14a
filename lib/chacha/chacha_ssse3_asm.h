/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, SSSE3 assembly building blocks (GNU as macros, legacy SSE
 * encodings only: the SSSE3 level runs on CPUs without AVX), for
 * chacha_ssse3.S and the stitched chachapoly_ssse3.S: 4 blocks of one
 * message per step, word-sliced (xmm holds one state word of the 4
 * blocks). The register map is that of chacha_avx2_asm.h with xmm for
 * ymm: words 0-7 in xmm0-7, 12-15 in xmm12-15, two words of row c in
 * xmm8/xmm9 and two in the frame, xmm10/xmm11 scratch. RFC 8439 2.1-2.3.
 *
 * Frame (16-byte aligned at %rsp): CHX4_INIT(w) the step's input vectors
 * (word 12 = counters + 0..3), CHX4_W(w) spill slots by word number.
 */
#ifndef VECSEC_CHACHA_SSSE3_ASM_H
#define VECSEC_CHACHA_SSSE3_ASM_H

#define CHX4_INIT(w) (16 * (w))
#define CHX4_W(w) (256 + 16 * (w))
#define CHX4_FRAME (256 + 256)

.macro CHX4_CONSTANTS
	.section .rodata.vecsec_chx4, "a", @progbits
	.p2align 4
.Lchx4_rot16:
	.byte 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13
.Lchx4_rot8:
	.byte 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14
.Lchx4_lanes:
	.long 0, 1, 2, 3
.Lchx4_four:
	.long 4, 4, 4, 4
	.text
.endm

/* x = x rotl n (n 12 or 7), t scratch */
.macro CHX4_ROL x, t, n
	movdqa	\x, \t
	pslld	$\n, \x
	psrld	$(32 - \n), \t
	por	\t, \x
.endm

/*
 * Two quarter rounds side by side (RFC 8439 2.1). With m0, m1 given, c0
 * and c1 are loaded from there first.
 */
.macro CHX4_QR2 a0, b0, c0, d0, a1, b1, c1, d1, m0, m1
	paddd	\b0, \a0
	paddd	\b1, \a1
	pxor	\a0, \d0
	pxor	\a1, \d1
	.ifnb \m0
	movdqa	\m0, \c0
	movdqa	\m1, \c1
	.endif
	pshufb	.Lchx4_rot16(%rip), \d0
	pshufb	.Lchx4_rot16(%rip), \d1
	paddd	\d0, \c0
	paddd	\d1, \c1
	pxor	\c0, \b0
	pxor	\c1, \b1
	CHX4_ROL \b0, %xmm10, 12
	CHX4_ROL \b1, %xmm11, 12
	paddd	\b0, \a0
	paddd	\b1, \a1
	pxor	\a0, \d0
	pxor	\a1, \d1
	pshufb	.Lchx4_rot8(%rip), \d0
	pshufb	.Lchx4_rot8(%rip), \d1
	paddd	\d0, \c0
	paddd	\d1, \c1
	pxor	\c0, \b0
	pxor	\c1, \b1
	CHX4_ROL \b0, %xmm10, 7
	CHX4_ROL \b1, %xmm11, 7
.endm

.macro chx4_nohook
.endm

/* One double round, hooks after each pair as in CHX8_DROUND. */
.macro CHX4_DROUND hook0=chx4_nohook, hook1=chx4_nohook, hook2=chx4_nohook, hook3=chx4_nohook
	CHX4_QR2 %xmm0, %xmm4, %xmm8, %xmm12, %xmm1, %xmm5, %xmm9, %xmm13
	\hook0
	movdqa	%xmm8, CHX4_W(8)(%rsp)
	movdqa	%xmm9, CHX4_W(9)(%rsp)
	CHX4_QR2 %xmm2, %xmm6, %xmm8, %xmm14, %xmm3, %xmm7, %xmm9, %xmm15, \
		 CHX4_W(10)(%rsp), CHX4_W(11)(%rsp)
	\hook1
	CHX4_QR2 %xmm0, %xmm5, %xmm8, %xmm15, %xmm1, %xmm6, %xmm9, %xmm12
	\hook2
	movdqa	%xmm8, CHX4_W(10)(%rsp)
	movdqa	%xmm9, CHX4_W(11)(%rsp)
	CHX4_QR2 %xmm2, %xmm7, %xmm8, %xmm13, %xmm3, %xmm4, %xmm9, %xmm14, \
		 CHX4_W(8)(%rsp), CHX4_W(9)(%rsp)
	\hook3
.endm

/* The input vectors from the state words at (\x) into CHX4_INIT; clobbers xmm0. */
.macro CHX4_SETUP x
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movd	4 * \w(\x), %xmm0
	pshufd	$0, %xmm0, %xmm0
	.if \w == 12
	paddd	.Lchx4_lanes(%rip), %xmm0
	.endif
	movdqa	%xmm0, CHX4_INIT(\w)(%rsp)
	.endr
.endm

.macro CHX4_LOAD
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15
	movdqa	CHX4_INIT(\w)(%rsp), %xmm\w
	.endr
	movdqa	CHX4_INIT(10)(%rsp), %xmm10
	movdqa	CHX4_INIT(11)(%rsp), %xmm11
	movdqa	%xmm10, CHX4_W(10)(%rsp)
	movdqa	%xmm11, CHX4_W(11)(%rsp)
.endm

/* 4x4 transpose of 32-bit words: r0..r3 become blocks 0..3; t0, t1 scratch. */
.macro CHX4_T4 r0, r1, r2, r3, t0, t1
	movdqa	\r0, \t0
	punpckldq	\r1, \t0                /* r0.0 r1.0 r0.1 r1.1 */
	punpckhdq	\r1, \r0                /* r0.2 r1.2 r0.3 r1.3 */
	movdqa	\r2, \t1
	punpckldq	\r3, \t1                /* r2.0 r3.0 r2.1 r3.1 */
	punpckhdq	\r3, \r2                /* r2.2 r3.2 r2.3 r3.3 */
	movdqa	\t0, \r1
	punpcklqdq	\t1, \t0                /* block 0 */
	punpckhqdq	\t1, \r1                /* block 1 */
	movdqa	\r0, \r3
	punpckhqdq	\r2, \r3                /* block 3 */
	punpcklqdq	\r2, \r0                /* block 2 */
	movdqa	\r0, \r2
	movdqa	\t0, \r0
.endm

/* 16 bytes at offset off of out = in ^ x (unaligned), t scratch */
.macro CHX4_OUT16 x, off, in, out, t
	movdqu	\off(\in), \t
	pxor	\t, \x
	movdqu	\x, \off(\out)
.endm

/* Feed-forward, transpose, out = in ^ keystream (256 bytes). Clobbers every xmm. */
.macro CHX4_FINISH in, out
	paddd	CHX4_INIT(8)(%rsp), %xmm8
	paddd	CHX4_INIT(9)(%rsp), %xmm9
	movdqa	%xmm8, CHX4_W(8)(%rsp)
	movdqa	%xmm9, CHX4_W(9)(%rsp)
	.irp w, 12, 13, 14, 15
	paddd	CHX4_INIT(\w)(%rsp), %xmm\w
	movdqa	%xmm\w, CHX4_W(\w)(%rsp)
	.endr
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7
	paddd	CHX4_INIT(\w)(%rsp), %xmm\w
	.endr
	CHX4_T4	%xmm0, %xmm1, %xmm2, %xmm3, %xmm8, %xmm9
	CHX4_T4	%xmm4, %xmm5, %xmm6, %xmm7, %xmm8, %xmm9
	CHX4_OUT16 %xmm0, 0, \in, \out, %xmm8
	CHX4_OUT16 %xmm4, 16, \in, \out, %xmm9
	CHX4_OUT16 %xmm1, 64, \in, \out, %xmm10
	CHX4_OUT16 %xmm5, 80, \in, \out, %xmm11
	CHX4_OUT16 %xmm2, 128, \in, \out, %xmm8
	CHX4_OUT16 %xmm6, 144, \in, \out, %xmm9
	CHX4_OUT16 %xmm3, 192, \in, \out, %xmm10
	CHX4_OUT16 %xmm7, 208, \in, \out, %xmm11
	movdqa	CHX4_W(8)(%rsp), %xmm0
	movdqa	CHX4_W(9)(%rsp), %xmm1
	movdqa	CHX4_W(10)(%rsp), %xmm2
	movdqa	CHX4_W(11)(%rsp), %xmm3
	paddd	CHX4_INIT(10)(%rsp), %xmm2
	paddd	CHX4_INIT(11)(%rsp), %xmm3
	movdqa	CHX4_W(12)(%rsp), %xmm4
	movdqa	CHX4_W(13)(%rsp), %xmm5
	movdqa	CHX4_W(14)(%rsp), %xmm6
	movdqa	CHX4_W(15)(%rsp), %xmm7
	CHX4_T4	%xmm0, %xmm1, %xmm2, %xmm3, %xmm8, %xmm9
	CHX4_T4	%xmm4, %xmm5, %xmm6, %xmm7, %xmm8, %xmm9
	CHX4_OUT16 %xmm0, 32, \in, \out, %xmm8
	CHX4_OUT16 %xmm4, 48, \in, \out, %xmm9
	CHX4_OUT16 %xmm1, 96, \in, \out, %xmm10
	CHX4_OUT16 %xmm5, 112, \in, \out, %xmm11
	CHX4_OUT16 %xmm2, 160, \in, \out, %xmm8
	CHX4_OUT16 %xmm6, 176, \in, \out, %xmm9
	CHX4_OUT16 %xmm3, 224, \in, \out, %xmm10
	CHX4_OUT16 %xmm7, 240, \in, \out, %xmm11
.endm

/* Wipe the frame and every xmm register. */
.macro CHX4_WIPE
	pxor	%xmm0, %xmm0
	.irp w, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqa	%xmm0, CHX4_INIT(\w)(%rsp)
	movdqa	%xmm0, CHX4_W(\w)(%rsp)
	.endr
	.irp r, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	pxor	%xmm\r, %xmm\r
	.endr
.endm

#endif /* VECSEC_CHACHA_SSSE3_ASM_H */
