/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, AVX + AES-NI (the avx_aesni flag set): 16
 * blocks per step byte-sliced in xmm, VEX-encoded; the code is
 * aria_aesni_body.h. For CPUs with AVX2 but no GFNI.
 */
#define AESNI_FN(name) name##_avx_aesni
#include "aria_aesni_body.h"

/* Needs only AVX and AES-NI; listed at the AVX2 level, the lowest that implies AVX. */
const struct aria_impl vecsec_aria_impl_avx_aesni = {
	.name = "avx_aesni",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX | VECSEC_CPU_AESNI,
	.encrypt_blocks = encrypt_blocks_avx_aesni,
	.decrypt_blocks = decrypt_blocks_avx_aesni,
	.ctr128_xor = ctr128_xor_avx_aesni,
	.ctr32_xor = ctr32_xor_avx_aesni,
};
