/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 radix 2^64 for x86-64 assembly (included by the .S files only):
 * the one-block step on the state of poly1305_64.h (h0 h1 h2 in general
 * registers, r0 r1 s1 read from memory).
 * RFC 8439 2.5; constant time (MUL and IMUL take the same time whatever
 * the operands on every x86-64 CPU this runs on; no branch on data).
 */
#ifndef VECSEC_POLY1305_X86_64_ASM_H
#define VECSEC_POLY1305_X86_64_ASM_H

#include "vecsec_asm.h"

/* struct poly1305_64 offsets (poly1305_64.h) */
#define P64_H0 0
#define P64_H1 8
#define P64_H2 16
#define P64_R0 24
#define P64_R1 32
#define P64_S1 40

/*
 * The products of both block forms: d0 -> t0 (t1 carried), d1 + t1 -> t2
 * (low), t3 (high, with d2 = h2 r0 added). Clobbers rax, rdx, t0..t3, h2.
 */
#define P64_PRODUCTS(r0, r1, s1, h0, h1, h2, t0, t1, t2, t3) \
	movq	r0, %rax; \
	mulq	h0; \
	movq	%rax, t0; \
	movq	%rdx, t1; \
	movq	s1, %rax; \
	mulq	h1; \
	addq	%rax, t0; \
	adcq	%rdx, t1; \
	movq	r1, %rax; \
	mulq	h0; \
	movq	%rax, t2; \
	movq	%rdx, t3; \
	movq	r0, %rax; \
	mulq	h1; \
	addq	%rax, t2; \
	adcq	%rdx, t3; \
	movq	s1, %rax; \
	imulq	h2, %rax; \
	imulq	r0, h2; \
	addq	%rax, t2; \
	adcq	h2, t3; \
	addq	t1, t2; \
	adcq	$0, t3

/*
 * h = (h + m + pad 2^128) r mod p, partly reduced (h2 <= 4 after), with
 * MULQ (no BMI2 needed). m at (in); pad an immediate or register; r0 r1
 * s1 memory operands. Clobbers rax, rdx, t0, t1, t2, t3; h0 h1 h2 are
 * updated in place. The products:
 *   d0 = h0 r0 + h1 s1                    -> t0 (low), t1 (high)
 *   d1 = h0 r1 + h1 r0 + h2 s1 + t1       -> t2 (low), t3 (high)
 *   d2 = h2 r0 + t3
 * then 5 (d2 >> 2) = (d2 & ~3) + (d2 >> 2) is added at 2^0, d2 & 3 kept.
 */
#define P64_BLOCK_MULQ(in, pad, r0, r1, s1, h0, h1, h2, t0, t1, t2, t3) \
	addq	0(in), h0; \
	adcq	8(in), h1; \
	adcq	pad, h2; \
	P64_PRODUCTS(r0, r1, s1, h0, h1, h2, t0, t1, t2, t3); \
	movq	t3, h2; \
	andq	$3, h2; \
	movq	t3, %rax; \
	shrq	$2, t3; \
	andq	$-4, %rax; \
	addq	%rax, t3; \
	addq	t3, t0; \
	adcq	$0, t2; \
	adcq	$0, h2; \
	movq	t0, h0; \
	movq	t2, h1

/*
 * The loop form of the step: h carries a pending c (h = h0 + h1 2^64 + h2
 * 2^128 + c, c = 5 (d2 >> 2) of the block before), added together with
 * the message, so that c reaches the first product one add sooner and h1,
 * h2 two sooner (~10.8 TSC cycles a block on Zen 3 against ~11.4 for
 * P64_BLOCK_MULQ). MULQ, not MULX: MULX measured ~13 (its latency, not
 * its throughput, is what the chain sees). Start with c = 0; after the
 * last block, P64_SETTLE adds c (then h2 <= 4, as p64_tag() wants).
 * Clobbers rax, rdx, t0..t3; h0 h1 h2 c updated in place.
 */
#define P64_BLOCK_C(in, pad, r0, r1, s1, h0, h1, h2, c, t0, t1, t2, t3) \
	addq	0(in), h0; \
	adcq	8(in), h1; \
	adcq	pad, h2; \
	addq	c, h0; \
	adcq	$0, h1; \
	adcq	$0, h2; \
	P64_PRODUCTS(r0, r1, s1, h0, h1, h2, t0, t1, t2, t3); \
	movq	t3, h2; \
	andq	$3, h2; \
	movq	t3, c; \
	shrq	$2, t3; \
	andq	$-4, c; \
	addq	t3, c; \
	movq	t0, h0; \
	movq	t2, h1

#define P64_SETTLE(h0, h1, h2, c) \
	addq	c, h0; \
	adcq	$0, h1; \
	adcq	$0, h2

#endif /* VECSEC_POLY1305_X86_64_ASM_H */
