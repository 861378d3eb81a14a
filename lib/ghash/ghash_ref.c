/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH, portable reference (NIST SP 800-38D 6.3-6.4): one block per step,
 * the bit-serial multiplication of Algorithm 1 with masks in place of its
 * two branches, so that time does not depend on H or the data (no 4-bit
 * tables). Slow; the oracle of the PCLMUL/VPCLMULQDQ kernels.
 */
#include <string.h>

#include "ghash_internal.h"

static inline uint64_t
load_be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void
store_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/*
 * Algorithm 1: Z = 0, V = Y; for each bit x_i of X, leftmost first:
 * Z ^= V if x_i = 1; V = V >> 1, then V ^= R if the bit shifted out was 1,
 * R = 11100001 || 0^120. Blocks are big-endian: bit 0 is the top bit of
 * byte 0, so the 128-bit value is (hi, lo) with x_0 the top bit of hi.
 */
void
vecsec_gf128_mul_ref(uint8_t z[16], const uint8_t x[16], const uint8_t y[16])
{
	uint64_t xw[2] = { load_be64(x), load_be64(x + 8) };
	uint64_t vh = load_be64(y), vl = load_be64(y + 8), zh = 0, zl = 0;

	for (int i = 0; i < 128; i++) {
		uint64_t xi = -((xw[i / 64] >> (63 - i % 64)) & 1);
		uint64_t lsb = -(vl & 1);

		zh ^= vh & xi;
		zl ^= vl & xi;
		vl = (vl >> 1) | (vh << 63);
		vh = (vh >> 1) ^ (lsb & UINT64_C(0xe100000000000000));
	}
	store_be64(z, zh);
	store_be64(z + 8, zl);
	vecsec_memzero(xw, sizeof(xw));
}

void
vecsec_ghash_key_init_ref(struct ghash_key *k, const uint8_t h[16])
{
	memcpy(k->h[0], h, 16);
	for (int i = 1; i < GHASH_POWERS; i++)
		vecsec_gf128_mul_ref(k->h[i], k->h[i - 1], h);
}

/* 6.4: X(i) = (X(i-1) ^ block(i)) * H */
static void
ghash_update_ref(uint8_t x[16], const struct ghash_key *k, const uint8_t *in, size_t nblocks)
{
	uint8_t t[16];

	for (size_t b = 0; b < nblocks; b++, in += 16) {
		for (int i = 0; i < 16; i++)
			t[i] = x[i] ^ in[i];
		vecsec_gf128_mul_ref(x, t, k->h[0]);
	}
	vecsec_memzero(t, sizeof(t));
}

const struct ghash_impl vecsec_ghash_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.update = ghash_update_ref,
};
