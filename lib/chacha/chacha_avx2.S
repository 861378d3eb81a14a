/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX2 assembly: the 8-block step loop of the AVX2 kernel
 * (chacha_avx2.c wraps it). Word-sliced, 14 state words in registers and
 * two of row c in the frame at a time (chacha_avx2_asm.h). The C
 * intrinsics form of the same step spilled more and ran ~1.07 TSC cycles
 * per byte on AMD Zen 3 at 16 KiB; this one ~0.75 (the commit that
 * brought it, asm vs intrinsics). RFC 8439 2.1-2.4; constant time;
 * the counter is word 12 only and never wraps inside a call (the caller's
 * contract, chacha_internal.h). Assembled a second time with -mavx512vl
 * as vecsec_chacha_x8_avx2vl, the VL form of chacha_avx2_asm.h (the same
 * contract; only on a CPU with AVX-512VL).
 *
 * void vecsec_chacha_x8_avx2(uint8_t *out, const uint8_t *in, size_t nsteps,
 *         uint32_t x[16], unsigned int rounds);
 * SysV: rdi out, rsi in (may equal out), rdx nsteps (512 bytes each),
 * rcx x (x[12] advanced by 8 per step), r8d rounds (20, 12 or 8).
 */
#include "vecsec_asm.h"
#include "chacha_avx2_asm.h"

/* assembled twice (lib/meson.build): plain, and as the VL form (_avx2vl) */
#ifdef CHX8_VL
#define X8_FN vecsec_chacha_x8_avx2vl
#else
#define X8_FN vecsec_chacha_x8_avx2
#endif

	CHX8_CONSTANTS

	.text
VS_FUNC(X8_FN)
	testq	%rdx, %rdx
	jz	.Lx8_none
	VS_FRAME32(CHX8_FRAME)
	CHX8_SETUP %rcx
	shrl	$2, %r8d                        /* 20, 12, 8: two double rounds a turn */
.Lx8_step:
	CHX8_LOAD
	movl	%r8d, %eax
	.p2align 4
.Lx8_dround:
	CHX8_DROUND
	CHX8_DROUND
	decl	%eax
	jnz	.Lx8_dround
	CHX8_FINISH %rsi, %rdi
	vmovdqa	CHX8_INIT(12)(%rsp), %ymm0
	vpaddd	.Lchx8_eight(%rip), %ymm0, %ymm0
	vmovdqa	%ymm0, CHX8_INIT(12)(%rsp)
	addl	$8, 48(%rcx)
	addq	$512, %rsi
	addq	$512, %rdi
	decq	%rdx
	jnz	.Lx8_step
	CHX8_WIPE
	VS_UNFRAME
.Lx8_none:
	ret
VS_ENDFUNC(X8_FN)

	.section .note.GNU-stack, "", @progbits
