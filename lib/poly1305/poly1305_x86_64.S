/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 radix 2^64, x86-64 base instruction set (MUL, no BMI2): the
 * block loop of poly1305_64.h for every x86 level. GCC 12 keeps the
 * 128-bit sums of the C form on the stack (about 25 TSC cycles a block on
 * AMD Zen 3 against about 17 here, commit 01147e4); this is the
 * same arithmetic, one block at a time, in the loop form P64_BLOCK_C (the
 * fold of each block carried into the next one's message add: on a Zen 4
 * the short AEAD seals and opens 1-2 % faster at 64-448 bytes, six runs).
 * RFC 8439 2.5; constant time.
 *
 * void vecsec_poly1305_blocks64_x86_64(struct poly1305_64 *p,
 *         const uint8_t *in, size_t nblocks, uint64_t pad);
 * SysV: rdi p, rsi in, rdx nblocks, rcx pad (0 or 1).
 */
#include "poly1305_x86_64_asm.h"

/* a push and a pop with their CFI notes (off: the register's CFA offset) */
#define PUSH_CFI(reg, off) \
	pushq	reg; \
	.cfi_adjust_cfa_offset 8; \
	.cfi_offset reg, off
#define POP_CFI(reg) \
	popq	reg; \
	.cfi_adjust_cfa_offset -8; \
	.cfi_restore reg

/* the loop functions' saved registers (rbx, r12-r15), and their end: h's registers wiped */
#define P64_PUSH5() \
	PUSH_CFI(%rbx, -16); \
	PUSH_CFI(%r12, -24); \
	PUSH_CFI(%r13, -32); \
	PUSH_CFI(%r14, -40); \
	PUSH_CFI(%r15, -48)
#define P64_WIPE_POP5() \
	xorl	%r8d, %r8d; \
	xorl	%r9d, %r9d; \
	xorl	%r10d, %r10d; \
	xorl	%r15d, %r15d; \
	POP_CFI(%r15); \
	POP_CFI(%r14); \
	POP_CFI(%r13); \
	POP_CFI(%r12); \
	POP_CFI(%rbx)

/*
 * The tag from h (r8 r9 r10, h < 2p) and s (16 bytes at key + 16): g = h +
 * 5; bit 130 of g set means h >= p and the result is g mod 2^128, else h
 * (selected by mask, no branch); then + s, stored at tag. Clobbers rax,
 * rdx, r8-r10.
 */
#define P64_TAG(key, tag) \
	movq	%r8, %rax; \
	movq	%r9, %rdx; \
	addq	$5, %rax; \
	adcq	$0, %rdx; \
	adcq	$0, %r10; \
	shrq	$2, %r10; \
	negq	%r10; \
	xorq	%r8, %rax; \
	xorq	%r9, %rdx; \
	andq	%r10, %rax; \
	andq	%r10, %rdx; \
	xorq	%rax, %r8; \
	xorq	%rdx, %r9; \
	addq	16(key), %r8; \
	adcq	24(key), %r9; \
	movq	%r8, 0(tag); \
	movq	%r9, 8(tag)

	.text
VS_FUNC(vecsec_poly1305_blocks64_x86_64)
	testq	%rdx, %rdx
	jz	.Lp64_none
	P64_PUSH5()
	movq	%rdx, %r11
	movq	P64_H0(%rdi), %r8
	movq	P64_H1(%rdi), %r9
	movq	P64_H2(%rdi), %r10
	xorl	%r15d, %r15d
	.p2align 4
.Lp64_loop:
	P64_BLOCK_C(%rsi, %rcx, P64_R0(%rdi), P64_R1(%rdi), P64_S1(%rdi),
		    %r8, %r9, %r10, %r15, %rbx, %r12, %r13, %r14)
	addq	$16, %rsi
	decq	%r11
	jnz	.Lp64_loop
	P64_SETTLE(%r8, %r9, %r10, %r15)
	movq	%r8, P64_H0(%rdi)
	movq	%r9, P64_H1(%rdi)
	movq	%r10, P64_H2(%rdi)
	/* h and its products are secret: none stays in a scratch register */
	xorl	%eax, %eax
	xorl	%edx, %edx
	P64_WIPE_POP5()
.Lp64_none:
	ret
VS_ENDFUNC(vecsec_poly1305_blocks64_x86_64)

/*
 * The whole one-shot MAC of RFC 8439 2.5, for short messages (nothing is
 * precomputed, no context is built or wiped):
 * int vecsec_poly1305_mac64_x86_64(uint8_t tag[16], const uint8_t *in,
 *         size_t len, const uint8_t key[32]);     returns 0
 * SysV: rdi tag, rsi in, rdx len, rcx key. r0, r1 and s1 live in the red
 * zone below the pushes (a leaf function) and are wiped before return.
 * The last 1..15 bytes are gathered with loads of 4, 2 and 1 bytes chosen
 * by the (public) length, never reading past the end of the message.
 */
#define R0M -24(%rsp)
#define R1M -16(%rsp)
#define S1M -8(%rsp)
#define KEYM -32(%rsp)

/*
 * RFC 8439 2.5: r = key[0..15] & 0x0ffffffc0ffffffc0ffffffc0fffffff into R0M,
 * R1M, and s1 = r1 + r1 / 4 into S1M (the red zone). Clobbers rax, rdx.
 */
#define P64_CLAMP(key) \
	movabsq	$0x0ffffffc0fffffff, %rax; \
	andq	0(key), %rax; \
	movq	%rax, R0M; \
	movabsq	$0x0ffffffc0ffffffc, %rax; \
	andq	8(key), %rax; \
	movq	%rax, R1M; \
	movq	%rax, %rdx; \
	shrq	$2, %rdx; \
	addq	%rdx, %rax; \
	movq	%rax, S1M

VS_FUNC(vecsec_poly1305_mac64_x86_64)
	PUSH_CFI(%rbx, -16)
	PUSH_CFI(%r12, -24)
	PUSH_CFI(%r13, -32)
	PUSH_CFI(%r14, -40)
	movq	%rdx, %r11
	P64_CLAMP(%rcx)
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	cmpq	$16, %r11
	jb	.Lm64_tail
	.p2align 4
.Lm64_loop:
	P64_BLOCK_MULQ(%rsi, $1, R0M, R1M, S1M, %r8, %r9, %r10, %rbx, %r12, %r13, %r14)
	addq	$16, %rsi
	subq	$16, %r11
	cmpq	$16, %r11
	jae	.Lm64_loop
.Lm64_tail:
	testq	%r11, %r11
	jz	.Lm64_final
	/*
	 * rem = r11 (1..15) bytes at rsi: m = those bytes || 0x01, little
	 * endian, into rbx (low) and r12 (high); the block gets pad 0.
	 */
	xorl	%r12d, %r12d
	movq	%rsi, %r13                      /* where the k < 8 bytes start */
	movq	%r11, %r14                      /* k */
	cmpq	$8, %r11
	jb	1f
	movq	(%rsi), %r12                    /* 8 whole bytes go low */
	addq	$8, %r13
	subq	$8, %r14
1:	/* rbx = the k bytes at r13 (k = 0..7): last byte, then 2, then 4 */
	xorl	%ebx, %ebx
	testq	$1, %r14
	jz	2f
	movzbl	-1(%r13,%r14), %ebx
2:	testq	$2, %r14
	jz	3f
	shlq	$16, %rbx
	movq	%r14, %rax
	andq	$4, %rax
	movzwl	(%r13,%rax), %eax
	orq	%rax, %rbx
3:	testq	$4, %r14
	jz	4f
	shlq	$32, %rbx
	movl	(%r13), %eax
	orq	%rax, %rbx
4:	leaq	0(,%r14,8), %rax
	btsq	%rax, %rbx                      /* the 0x01 byte after the data */
	cmpq	$8, %r11
	jb	5f
	xchgq	%rbx, %r12                      /* 8 bytes low, the rest high */
5:	movq	%rbx, -40(%rsp)
	movq	%r12, -32(%rsp)
	leaq	-40(%rsp), %rsi
	P64_BLOCK_MULQ(%rsi, $0, R0M, R1M, S1M, %r8, %r9, %r10, %rbx, %r12, %r13, %r14)
	movq	$0, -40(%rsp)
	movq	$0, -32(%rsp)
.Lm64_final:
	P64_TAG(%rcx, %rdi)
	xorl	%eax, %eax
	movq	%rax, R0M
	movq	%rax, R1M
	movq	%rax, S1M
	xorl	%edx, %edx
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	POP_CFI(%r14)
	POP_CFI(%r13)
	POP_CFI(%r12)
	POP_CFI(%rbx)
	xorl	%eax, %eax
	ret
VS_ENDFUNC(vecsec_poly1305_mac64_x86_64)

/*
 * The whole MAC of an RFC 8439 2.8 AEAD in one call, for the short
 * single-message paths: the blocks of struct p64_aead (poly1305_64.h) in
 * its order (the AAD's whole blocks, pre: its padded remainder, the
 * ciphertext's whole blocks, post: its padded remainder and the lengths
 * block), all with the 2^128 bit, then the tag with s. h and its pending
 * carry stay in registers from the first block to the tag (the C form of
 * the padded blocks kept its 128-bit sums on the stack, and each call
 * loaded and stored h).
 * void vecsec_poly1305_aead64_x86_64(uint8_t tag[16],
 *         const struct p64_aead *m, const uint8_t key[32]);
 * SysV: rdi tag, rsi m, rdx key (r, then s). r0, r1 and s1 live in the
 * red zone below the pushes (a leaf function) and are wiped before return.
 */
#define PA_AAD 0
#define PA_NAAD 8
#define PA_C 16
#define PA_NC 24
#define PA_NPRE 32
#define PA_NPOST 40
#define PA_PRE 48
#define PA_POST 64

/* n (a register, counted down to 0) blocks from rsi on, pad 1 */
#define P64_RUN(n) \
	testq	n, n; \
	jz	2f; \
1:	P64_BLOCK_C(%rsi, $1, R0M, R1M, S1M, %r8, %r9, %r10, %r15, %rbx, %r12, %r13, %r14); \
	addq	$16, %rsi; \
	decq	n; \
	jnz	1b; \
2:

VS_FUNC(vecsec_poly1305_aead64_x86_64)
	P64_PUSH5()
	movq	%rsi, %rcx
	movq	%rdx, %r11
	P64_CLAMP(%r11)
	movq	%r11, KEYM
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	xorl	%r15d, %r15d
	movq	PA_AAD(%rcx), %rsi
	movq	PA_NAAD(%rcx), %r11
	P64_RUN(%r11)
	leaq	PA_PRE(%rcx), %rsi
	movq	PA_NPRE(%rcx), %r11
	P64_RUN(%r11)
	movq	PA_C(%rcx), %rsi
	movq	PA_NC(%rcx), %r11
	P64_RUN(%r11)
	leaq	PA_POST(%rcx), %rsi
	movq	PA_NPOST(%rcx), %r11
	P64_RUN(%r11)
	P64_SETTLE(%r8, %r9, %r10, %r15)
	movq	KEYM, %rcx
	P64_TAG(%rcx, %rdi)
	xorl	%eax, %eax
	movq	%rax, R0M
	movq	%rax, R1M
	movq	%rax, S1M
	xorl	%edx, %edx
	P64_WIPE_POP5()
	ret
VS_ENDFUNC(vecsec_poly1305_aead64_x86_64)

	.section .note.GNU-stack, "", @progbits
