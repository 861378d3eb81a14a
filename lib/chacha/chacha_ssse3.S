/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, SSSE3 assembly (legacy SSE encodings): the 4-block step
 * loop of the SSSE3 kernel (chacha_ssse3.c wraps it). Word-sliced, 14
 * state words in registers and two of row c in the frame at a time
 * (chacha_ssse3_asm.h). RFC 8439 2.1-2.4; constant time; the counter is
 * word 12 only and never wraps inside a call (chacha_internal.h).
 *
 * void vecsec_chacha_x4_ssse3(uint8_t *out, const uint8_t *in, size_t nsteps,
 *         uint32_t x[16], unsigned int rounds);
 * SysV: rdi out, rsi in (may equal out), rdx nsteps (256 bytes each),
 * rcx x (x[12] advanced by 4 per step), r8d rounds (20, 12 or 8).
 */
#include "vecsec_asm.h"
#include "chacha_ssse3_asm.h"

	CHX4_CONSTANTS

	.text
VS_FUNC(vecsec_chacha_x4_ssse3)
	testq	%rdx, %rdx
	jz	.Lx4_none
	VS_FRAME32(CHX4_FRAME)
	CHX4_SETUP %rcx
	shrl	$2, %r8d                        /* 20, 12, 8: two double rounds a turn */
.Lx4_step:
	CHX4_LOAD
	movl	%r8d, %eax
	.p2align 4
.Lx4_dround:
	CHX4_DROUND
	CHX4_DROUND
	decl	%eax
	jnz	.Lx4_dround
	CHX4_FINISH %rsi, %rdi
	movdqa	CHX4_INIT(12)(%rsp), %xmm0
	paddd	.Lchx4_four(%rip), %xmm0
	movdqa	%xmm0, CHX4_INIT(12)(%rsp)
	addl	$4, 48(%rcx)
	addq	$256, %rsi
	addq	$256, %rdi
	decq	%rdx
	jnz	.Lx4_step
	CHX4_WIPE
	VS_UNFRAME
.Lx4_none:
	ret
VS_ENDFUNC(vecsec_chacha_x4_ssse3)

	.section .note.GNU-stack, "", @progbits
