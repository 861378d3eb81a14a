/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched ChaCha20-Poly1305 (RFC 8439 2.8, the data part), SSSE3
 * assembly (legacy SSE encodings, MUL: no AVX, no BMI2 needed): the
 * 4-block ChaCha20 step of chacha_ssse3_asm.h on the vector units with
 * scalar radix-2^64 Poly1305 blocks (poly1305_64.h) on the integer units
 * between its quarter-round pairs: one block after every other pair, 20
 * slots a 256-byte step for its 16 blocks (the spare ones catch up the
 * lag of a seal; here the vector work, not the Poly1305 chain, is the
 * longer). Constant time: the slots branch only on lengths.
 *
 * size_t vecsec_chachapoly_x4_ssse3(uint8_t *out, const uint8_t *in,
 *         size_t nsteps, uint32_t x[16], struct poly1305_64 *p,
 *         const uint8_t *mac, const uint8_t *lim);
 * As vecsec_chachapoly_x8_avx2 (chachapoly_avx2.S) with 256-byte steps:
 * x[12] += 4 a step, blocks absorbed below lim + 256 k.
 */
#include "vecsec_asm.h"
#include "chacha/chacha_ssse3_asm.h"
#include "poly1305/poly1305_x86_64_asm.h"

/* the frame after the ChaCha part */
#define FR_R0 (CHX4_FRAME + 0)
#define FR_R1 (CHX4_FRAME + 8)
#define FR_S1 (CHX4_FRAME + 16)
#define FR_X (CHX4_FRAME + 24)
#define FR_P (CHX4_FRAME + 32)
#define FR_N (CHX4_FRAME + 40)
#define FR_DR (CHX4_FRAME + 48)
#define FRAME (CHX4_FRAME + 64)

/*
 * Poly1305 registers: mac r9, lim - 16 r10, h = (rbx, r12, r13) plus the
 * pending c in r8 (P64_BLOCK_C); scratch r14, r15, rcx, r11, rax, rdx.
 * A slot: one block while it lies below the limit.
 */
#define P64_ONE \
	P64_BLOCK_C(%r9, $1, FR_R0(%rsp), FR_R1(%rsp), FR_S1(%rsp), \
		    %rbx, %r12, %r13, %r8, %r14, %r15, %rcx, %r11); \
	addq	$16, %r9

.macro P64_SLOT
	cmpq	%r10, %r9
	ja	.Lslot_skip\@
	P64_ONE
.Lslot_skip\@:
.endm

	CHX4_CONSTANTS

	.text
VS_FUNC(vecsec_chachapoly_x4_ssse3)
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	.cfi_offset %rbx, -24
	pushq	%r12
	.cfi_offset %r12, -32
	pushq	%r13
	.cfi_offset %r13, -40
	pushq	%r14
	.cfi_offset %r14, -48
	pushq	%r15
	.cfi_offset %r15, -56
	subq	$FRAME, %rsp
	andq	$-32, %rsp
	movq	16(%rbp), %r10                  /* lim */
	subq	$16, %r10
	movq	%rcx, FR_X(%rsp)
	movq	%r8, FR_P(%rsp)
	movq	%rdx, FR_N(%rsp)
	movq	P64_R0(%r8), %rax
	movq	%rax, FR_R0(%rsp)
	movq	P64_R1(%r8), %rax
	movq	%rax, FR_R1(%rsp)
	movq	P64_S1(%r8), %rax
	movq	%rax, FR_S1(%rsp)
	movq	P64_H0(%r8), %rbx
	movq	P64_H1(%r8), %r12
	movq	P64_H2(%r8), %r13
	xorl	%r8d, %r8d                      /* c */
	testq	%rdx, %rdx
	jz	.Lcp4_done
	CHX4_SETUP %rcx
.Lcp4_step:
	CHX4_LOAD
	movl	$5, FR_DR(%rsp)
	.p2align 4
.Lcp4_dround:
	/* 4 slots a pair of double rounds: the 16 blocks of a step spread over all ten */
	CHX4_DROUND P64_SLOT, chx4_nohook, P64_SLOT, chx4_nohook
	CHX4_DROUND P64_SLOT, chx4_nohook, P64_SLOT, chx4_nohook
	decl	FR_DR(%rsp)
	jnz	.Lcp4_dround
	/* what the slots left of this step's share, before the stores */
.Lcp4_catchup:
	cmpq	%r10, %r9
	ja	.Lcp4_finish
	P64_ONE
	jmp	.Lcp4_catchup
.Lcp4_finish:
	CHX4_FINISH %rsi, %rdi
	movdqa	CHX4_INIT(12)(%rsp), %xmm0
	paddd	.Lchx4_four(%rip), %xmm0
	movdqa	%xmm0, CHX4_INIT(12)(%rsp)
	movq	FR_X(%rsp), %rcx
	addl	$4, 48(%rcx)
	addq	$256, %rsi
	addq	$256, %rdi
	addq	$256, %r10
	decq	FR_N(%rsp)
	jnz	.Lcp4_step
	CHX4_WIPE
.Lcp4_done:
	P64_SETTLE(%rbx, %r12, %r13, %r8)
	movq	FR_P(%rsp), %r8
	movq	%rbx, P64_H0(%r8)
	movq	%r12, P64_H1(%r8)
	movq	%r13, P64_H2(%r8)
	movq	%r9, %rax
	/* r, s1 and h copies: the frame slots and the scratch registers */
	xorl	%ecx, %ecx
	movq	%rcx, FR_R0(%rsp)
	movq	%rcx, FR_R1(%rsp)
	movq	%rcx, FR_S1(%rsp)
	xorl	%edx, %edx
	xorl	%r8d, %r8d
	xorl	%r10d, %r10d
	xorl	%r11d, %r11d
	leaq	-40(%rbp), %rsp
	popq	%r15
	.cfi_restore %r15
	popq	%r14
	.cfi_restore %r14
	popq	%r13
	.cfi_restore %r13
	popq	%r12
	.cfi_restore %r12
	popq	%rbx
	.cfi_restore %rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
VS_ENDFUNC(vecsec_chachapoly_x4_ssse3)

	.section .note.GNU-stack, "", @progbits
