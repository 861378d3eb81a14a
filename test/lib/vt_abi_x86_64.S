/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ABI check of test_asm_abi.c: call an assembly entry point of lib/
 * the way a SysV caller may, and report what it failed to keep.
 *
 * uint32_t vt_abi_call(const void *fn, const uint64_t a[8], uint64_t skew,
 *                      uint64_t *ret);
 * Calls fn(a[0], ..., a[5]) with a[6] and a[7] as stack arguments, the
 * stack 16-byte aligned at the call and at skew (0 or 16) modulo 32, the
 * callee-saved registers (rbx, rbp, r12-r15) holding canaries, the
 * caller-saved ones garbage. Stores fn's rax in *ret and returns a mask
 * of what differs after it: bit 0 rbx, 1 rbp, 2 r12, 3 r13, 4 r14, 5 r15,
 * 6 rsp, 7 MXCSR, 8 the x87 control word, 9 the direction flag set.
 * Not reentrant (its scratch is static): one thread, as the test runs it.
 */
#define CANARY(n) $(0x5ca1ab1e00c0ffee + (n) * 0x0101010101010101)

	.bss
	.p2align 4
save:
	.zero	64                      /* fn, a, ret, our rsp, rsp at call, mxcsr, cw */

	.text
	.globl	vt_abi_call
	.type	vt_abi_call, @function
	.p2align 4
vt_abi_call:
	.cfi_startproc
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
	movq	%rdi, save+0(%rip)
	movq	%rsi, save+8(%rip)
	movq	%rcx, save+16(%rip)
	movq	%rsp, save+24(%rip)
	/* from here to the return rbp holds a canary: no unwinding through fn */
	andq	$-32, %rsp
	subq	%rdx, %rsp
	subq	$16, %rsp
	movq	48(%rsi), %rax
	movq	%rax, 0(%rsp)
	movq	56(%rsi), %rax
	movq	%rax, 8(%rsp)
	movq	%rsp, save+32(%rip)
	stmxcsr	save+40(%rip)
	fnstcw	save+44(%rip)
	movabsq	CANARY(0), %rbx
	movabsq	CANARY(1), %rbp
	movabsq	CANARY(2), %r12
	movabsq	CANARY(3), %r13
	movabsq	CANARY(4), %r14
	movabsq	CANARY(5), %r15
	movabsq	$0xdeadbeefdeadbeef, %r10
	movq	%r10, %r11
	movq	%r10, %rax
	movq	0(%rsi), %rdi
	movq	16(%rsi), %rdx
	movq	24(%rsi), %rcx
	movq	32(%rsi), %r8
	movq	40(%rsi), %r9
	movq	8(%rsi), %rsi
	callq	*save+0(%rip)
	movq	save+16(%rip), %rcx
	movq	%rax, (%rcx)
	xorl	%eax, %eax
	movabsq	CANARY(0), %rcx
	cmpq	%rcx, %rbx
	je	1f
	orl	$0x1, %eax
1:	movabsq	CANARY(1), %rcx
	cmpq	%rcx, %rbp
	je	1f
	orl	$0x2, %eax
1:	movabsq	CANARY(2), %rcx
	cmpq	%rcx, %r12
	je	1f
	orl	$0x4, %eax
1:	movabsq	CANARY(3), %rcx
	cmpq	%rcx, %r13
	je	1f
	orl	$0x8, %eax
1:	movabsq	CANARY(4), %rcx
	cmpq	%rcx, %r14
	je	1f
	orl	$0x10, %eax
1:	movabsq	CANARY(5), %rcx
	cmpq	%rcx, %r15
	je	1f
	orl	$0x20, %eax
1:	cmpq	save+32(%rip), %rsp
	je	1f
	orl	$0x40, %eax
1:	subq	$8, %rsp
	stmxcsr	(%rsp)
	movl	(%rsp), %ecx
	cmpl	save+40(%rip), %ecx
	je	1f
	orl	$0x80, %eax
1:	fnstcw	(%rsp)
	movzwl	(%rsp), %ecx
	movzwl	save+44(%rip), %edx
	cmpl	%edx, %ecx
	je	1f
	orl	$0x100, %eax
1:	pushfq
	popq	%rcx
	testl	$0x400, %ecx
	jz	1f
	orl	$0x200, %eax
	cld
1:	movq	save+24(%rip), %rsp
	leaq	40(%rsp), %rbp              /* the frame pointer again, for the CFI */
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	vt_abi_call, .-vt_abi_call

/* a broken callee for the harness's self-check: clobbers rbx */
	.globl	vt_abi_bad_rbx
	.type	vt_abi_bad_rbx, @function
	.p2align 4
vt_abi_bad_rbx:
	.cfi_startproc
	xorl	%ebx, %ebx
	ret
	.cfi_endproc
	.size	vt_abi_bad_rbx, .-vt_abi_bad_rbx

	.section .note.GNU-stack, "", @progbits
