/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec capabilities, in one place: ChaCha20-Poly1305 (RFC 8439)
 * always; ARIA-GCM and ARIA-CTR (PMD-specific ids from rte_pmd_vecsec.h)
 * only when libvecsec implements ARIA. Session configure checks xforms
 * against exactly these numbers. And the CPU feature flags a device
 * reports for its ISA level.
 */
#include <stdbool.h>

#include "vecsec_pmd_private.h"

#define VECSEC_CAP_CHACHA20_POLY1305 \
	{ \
		.op = RTE_CRYPTO_OP_TYPE_SYMMETRIC, \
		{.sym = { \
			.xform_type = RTE_CRYPTO_SYM_XFORM_AEAD, \
			{.aead = { \
				.algo = RTE_CRYPTO_AEAD_CHACHA20_POLY1305, \
				.block_size = 64, \
				.key_size = { .min = 32, .max = 32, .increment = 0 }, \
				.digest_size = { .min = 16, .max = 16, .increment = 0 }, \
				.aad_size = { .min = 0, .max = VECSEC_PMD_MAX_AAD_LEN, \
					      .increment = 1 }, \
				.iv_size = { .min = 12, .max = 12, .increment = 0 }, \
			}, }, \
		}, }, \
	}

static const struct rte_cryptodev_capabilities caps_chacha[] = {
	VECSEC_CAP_CHACHA20_POLY1305,
	RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

static const struct rte_cryptodev_capabilities caps_all[] = {
	VECSEC_CAP_CHACHA20_POLY1305,
	{	/* ARIA-GCM: tags of 4, 8, 12 or 16 bytes (SP 800-38D 5.2.1.2) */
		.op = RTE_CRYPTO_OP_TYPE_SYMMETRIC,
		{.sym = {
			.xform_type = RTE_CRYPTO_SYM_XFORM_AEAD,
			{.aead = {
				.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM,
				.block_size = 16,
				.key_size = { .min = 16, .max = 32, .increment = 8 },
				.digest_size = { .min = 4, .max = 16, .increment = 4 },
				.aad_size = { .min = 0, .max = VECSEC_PMD_MAX_AAD_LEN,
					      .increment = 1 },
				.iv_size = { .min = 12, .max = 12, .increment = 0 },
			}, },
		}, },
	},
	{	/* ARIA-CTR: the IV is the whole initial counter block */
		.op = RTE_CRYPTO_OP_TYPE_SYMMETRIC,
		{.sym = {
			.xform_type = RTE_CRYPTO_SYM_XFORM_CIPHER,
			{.cipher = {
				.algo = RTE_PMD_VECSEC_CIPHER_ARIA_CTR,
				.block_size = 16,
				.key_size = { .min = 16, .max = 32, .increment = 8 },
				.iv_size = { .min = 16, .max = 16, .increment = 0 },
			}, },
		}, },
	},
	RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

const struct rte_cryptodev_capabilities *
vecsec_pmd_capabilities(bool aria)
{
	return aria ? caps_all : caps_chacha;
}

uint64_t
vecsec_pmd_isa_flags(enum vecsec_isa isa)
{
	uint64_t ff = 0;

#if defined(RTE_ARCH_X86)
	if (isa >= VECSEC_ISA_SSSE3)
		ff |= RTE_CRYPTODEV_FF_CPU_SSE;
	if (isa >= VECSEC_ISA_AVX2)
		ff |= RTE_CRYPTODEV_FF_CPU_AVX | RTE_CRYPTODEV_FF_CPU_AVX2;
	if (isa >= VECSEC_ISA_AVX512)
		ff |= RTE_CRYPTODEV_FF_CPU_AVX512;
#elif defined(RTE_ARCH_ARM64)
	if (isa >= VECSEC_ISA_NEON)
		ff |= RTE_CRYPTODEV_FF_CPU_NEON;
#endif
	return ff;
}
