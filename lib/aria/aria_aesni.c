/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR, SSE4.1 + AES-NI (the aesni flag set): 16
 * blocks per step byte-sliced in xmm, legacy SSE encoding; the code is
 * aria_aesni_body.h. The SIMD path of the SSSE3 level.
 */
#define AESNI_FN(name) name##_aesni
#include "aria_aesni_body.h"

const struct aria_impl vecsec_aria_impl_aesni = {
	.name = "aesni",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSE41 | VECSEC_CPU_AESNI,
	.encrypt_blocks = encrypt_blocks_aesni,
	.decrypt_blocks = decrypt_blocks_aesni,
	.ctr128_xor = ctr128_xor_aesni,
	.ctr32_xor = ctr32_xor_aesni,
};
