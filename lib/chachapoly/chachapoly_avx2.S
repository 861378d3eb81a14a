/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched ChaCha20-Poly1305 (RFC 8439 2.8, the data part), AVX2
 * assembly: the 8-block ChaCha20 step of chacha_avx2_asm.h on the vector
 * units with scalar radix-2^64 Poly1305 blocks (MUL, poly1305_64.h) on
 * the integer units between its quarter-round pairs, as libgcrypt stitches
 * them: one block after a pair, 35 slots a 512-byte step for its 32
 * blocks, spread over all ten double rounds (the poly chain, ~11 cycles a
 * block, is as long as the step's vector work; the spare slots catch up
 * a seal's lag). GCC does not schedule this from C: the intrinsics kernel
 * it replaces ran two vector loads, ChaCha and radix-2^26 Poly1305, on the
 * same four pipes (seal at 16 KiB on AMD Zen 3: 1.22 TSC cycles/byte
 * against 0.84 here; the commit that brought it). Constant time: the
 * slots branch only on lengths.
 *
 * size_t vecsec_chachapoly_x8_avx2(uint8_t *out, const uint8_t *in,
 *         size_t nsteps, uint32_t x[16], struct poly1305_64 *p,
 *         const uint8_t *mac, const uint8_t *lim);
 * SysV: rdi out, rsi in, rdx nsteps (512 bytes each), rcx x (x[12] += 8
 * a step), r8 p, r9 mac, 8(%rsp) lim. Step k encrypts in -> out (in ==
 * out allowed) and absorbs into p the 16-byte blocks at mac, in order,
 * while they lie below lim + 512 k: during the rounds as slots come, the
 * rest before the step's stores (so with lim = in + 512 the step's own
 * input is absorbed before it is overwritten: open, in place too; with
 * lim = out the ciphertext produced so far: seal). Returns the new mac.
 */
#include "vecsec_asm.h"
#include "chacha/chacha_avx2_asm.h"
#include "poly1305/poly1305_x86_64_asm.h"

/*
 * Assembled twice (lib/meson.build): plain, and as the VL form (_avx2vl:
 * VPROLD, ymm10/ymm11 hold words 10, 11). The slots use general registers
 * only, so the VL form's register map leaves them as they are.
 */
#ifdef CHX8_VL
#define CP8_FN vecsec_chachapoly_x8_avx2vl
#else
#define CP8_FN vecsec_chachapoly_x8_avx2
#endif

/* the frame after the ChaCha part */
#define FR_R0 (CHX8_FRAME + 0)
#define FR_R1 (CHX8_FRAME + 8)
#define FR_S1 (CHX8_FRAME + 16)
#define FR_X (CHX8_FRAME + 24)
#define FR_P (CHX8_FRAME + 32)
#define FR_N (CHX8_FRAME + 40)
#define FR_DR (CHX8_FRAME + 48)
#define FRAME (CHX8_FRAME + 64)

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

	CHX8_CONSTANTS

	.text
VS_FUNC(CP8_FN)
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
	jz	.Lcp8_done
	CHX8_SETUP %rcx
.Lcp8_step:
	CHX8_LOAD
	movl	$5, FR_DR(%rsp)
	.p2align 4
.Lcp8_dround:
	/* 7 slots a pair of double rounds: the 32 blocks of a step spread over all ten */
	CHX8_DROUND P64_SLOT, P64_SLOT, P64_SLOT, P64_SLOT
	CHX8_DROUND P64_SLOT, P64_SLOT, P64_SLOT, chx8_nohook
	decl	FR_DR(%rsp)
	jnz	.Lcp8_dround
	/* what the slots left of this step's share, before the stores */
.Lcp8_catchup:
	cmpq	%r10, %r9
	ja	.Lcp8_finish
	P64_ONE
	jmp	.Lcp8_catchup
.Lcp8_finish:
	CHX8_FINISH %rsi, %rdi
	vmovdqa	CHX8_INIT(12)(%rsp), %ymm0
	vpaddd	.Lchx8_eight(%rip), %ymm0, %ymm0
	vmovdqa	%ymm0, CHX8_INIT(12)(%rsp)
	movq	FR_X(%rsp), %rcx
	addl	$8, 48(%rcx)
	addq	$512, %rsi
	addq	$512, %rdi
	addq	$512, %r10
	decq	FR_N(%rsp)
	jnz	.Lcp8_step
	CHX8_WIPE
.Lcp8_done:
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
VS_ENDFUNC(CP8_FN)

	.section .note.GNU-stack, "", @progbits
