/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench cases: every primitive the library has, with the parameter
 * conventions every implementation follows so that outputs can be compared
 * byte for byte before anything is timed.
 */
#include "bench.h"

const struct bench_case bench_cases[CASE_COUNT] = {
	[CASE_CHACHA20_POLY1305] = {
		.id = CASE_CHACHA20_POLY1305, .name = "chacha20-poly1305",
		.kind = BENCH_AEAD, .key_len = 32, .nonce_len = 12, .tag_len = 16,
		.aad_len = 8, .burst = true,
		.note = "RFC 8439 AEAD, 12-byte nonce, 8-byte AAD, 16-byte tag",
	},
	[CASE_XCHACHA20_POLY1305] = {
		.id = CASE_XCHACHA20_POLY1305, .name = "xchacha20-poly1305",
		.kind = BENCH_AEAD, .key_len = 32, .nonce_len = 24, .tag_len = 16,
		.aad_len = 8, .burst = true,
		.note = "draft-irtf-cfrg-xchacha AEAD, 24-byte nonce",
	},
	[CASE_CHACHA20] = {
		.id = CASE_CHACHA20, .name = "chacha20",
		.kind = BENCH_CIPHER, .key_len = 32, .nonce_len = 12,
		.note = "RFC 8439 2.4 keystream xor, 12-byte nonce, block counter from 1",
	},
	[CASE_POLY1305] = {
		.id = CASE_POLY1305, .name = "poly1305",
		.kind = BENCH_MAC, .key_len = 32, .tag_len = 16,
		.note = "RFC 8439 2.5 one-time MAC (the key is set up per message)",
	},
	[CASE_ARIA128_CTR] = {
		.id = CASE_ARIA128_CTR, .name = "aria-128-ctr",
		.kind = BENCH_CIPHER, .key_len = 16, .nonce_len = 16,
		.note = "RFC 5794 ARIA, CTR with a 16-byte big-endian counter block",
	},
	[CASE_ARIA256_CTR] = {
		.id = CASE_ARIA256_CTR, .name = "aria-256-ctr",
		.kind = BENCH_CIPHER, .key_len = 32, .nonce_len = 16,
		.note = "as aria-128-ctr, 256-bit key",
	},
	[CASE_ARIA128_GCM] = {
		.id = CASE_ARIA128_GCM, .name = "aria-128-gcm",
		.kind = BENCH_AEAD, .key_len = 16, .nonce_len = 12, .tag_len = 16,
		.aad_len = 8, .burst = true,
		.note = "ARIA in GCM (SP 800-38D), 12-byte nonce, 16-byte tag",
	},
	[CASE_ARIA128_ECB] = {
		.id = CASE_ARIA128_ECB, .name = "aria-128-ecb",
		.kind = BENCH_BLOCK, .key_len = 16, .block = 16,
		.note = "raw ARIA block encryption (sizes must be whole blocks)",
	},
	[CASE_ADIANTUM_XCHACHA12] = {
		.id = CASE_ADIANTUM_XCHACHA12, .name = "adiantum-xchacha12",
		.kind = BENCH_WIDEBLOCK, .key_len = 32, .nonce_len = 32, .min_len = 16,
		.note = "Adiantum (XChaCha12, AES-256, NHPoly1305), 32-byte tweak",
	},
	[CASE_ADIANTUM_XCHACHA20] = {
		.id = CASE_ADIANTUM_XCHACHA20, .name = "adiantum-xchacha20",
		.kind = BENCH_WIDEBLOCK, .key_len = 32, .nonce_len = 32, .min_len = 16,
		.note = "Adiantum with XChaCha20",
	},
	[CASE_NHPOLY1305] = {
		.id = CASE_NHPOLY1305, .name = "nhpoly1305",
		.kind = BENCH_HASH, .key_len = 1088, .tag_len = 16,
		.note = "Adiantum's NHPoly1305 hash (16-byte Poly1305 r + 1072-byte NH key)",
	},
};

const char *
bench_case_missing(const struct bench_case *c, const char *other)
{
	switch (c->id) {
	case CASE_XCHACHA20_POLY1305:
		return "no XChaCha20";
	case CASE_ADIANTUM_XCHACHA12:
	case CASE_ADIANTUM_XCHACHA20:
	case CASE_NHPOLY1305:
		return "no Adiantum";
	default:
		return other;
	}
}

int
bench_tag_diff(const uint8_t a[16], const uint8_t b[16])
{
	uint8_t d = 0;

	for (int i = 0; i < 16; i++)
		d |= a[i] ^ b[i];
	return d != 0;
}
