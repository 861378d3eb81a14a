/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every x86-64 assembly file of lib/ shares (included by .S files
 * only): SysV functions with an IBT landing pad (endbr64), hidden like the
 * rest of lib/, CFI from the first instruction, and the CET property note
 * when the compiler asks for it. Each .S file also ends with
 * .section .note.GNU-stack,"",@progbits (no executable stack).
 */
#ifndef VECSEC_ASM_H
#define VECSEC_ASM_H

#ifdef __CET__
#include <cet.h>            /* the .note.gnu.property IBT/SHSTK marks */
#endif

#define VS_FUNC(name) \
	.globl name; \
	.hidden name; \
	.type name, @function; \
	.p2align 5; \
name: \
	.cfi_startproc; \
	endbr64

#define VS_ENDFUNC(name) \
	.cfi_endproc; \
	.size name, .-name

/* a frame pointer and a 32-byte aligned area of n bytes at %rsp */
#define VS_FRAME32(n) \
	pushq	%rbp; \
	.cfi_adjust_cfa_offset 8; \
	.cfi_offset %rbp, -16; \
	movq	%rsp, %rbp; \
	.cfi_def_cfa_register %rbp; \
	subq	$(n), %rsp; \
	andq	$-32, %rsp

#define VS_UNFRAME \
	movq	%rbp, %rsp; \
	popq	%rbp; \
	.cfi_def_cfa %rsp, 8; \
	.cfi_restore %rbp

#endif /* VECSEC_ASM_H */
