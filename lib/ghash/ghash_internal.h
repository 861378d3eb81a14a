/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH internals (never installed): the hash key (powers of H), the impl
 * struct of the dispatch table and the kernel contract. Used by ARIA-GCM
 * (lib/aria); knows no block cipher.
 *
 * Contract, for every kernel (SP 800-38D 6.4): update folds nblocks whole
 * 16-byte blocks into the 16-byte accumulator x (the spec's byte order),
 * using the powers of H in struct ghash_key; nblocks 0 touches nothing;
 * no alignment; constant time (no table indexed by H or data, the
 * reference included); secret temporaries wiped before return.
 */
#ifndef VECSEC_GHASH_INTERNAL_H
#define VECSEC_GHASH_INTERNAL_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"

/* Powers of H kept for wide GHASH kernels (16 blocks per step at most). */
#define GHASH_POWERS 16

/*
 * h[i] = H^(i+1) in GF(2^128) (SP 800-38D 6.3 bit order), as 16 bytes in
 * the spec's order. Kernels convert to their own layout (byte reflection,
 * Karatsuba halves) on the fly, so a key stays usable whatever dispatch
 * selects later.
 */
struct ghash_key {
	alignas(16) uint8_t h[GHASH_POWERS][16];
};

struct ghash_impl {
	const char *name;
	enum vecsec_isa isa;
	uint64_t needs;              /* PCLMUL, VPCLMULQDQ */
	void (*update)(uint8_t x[16], const struct ghash_key *k, const uint8_t *in,
		       size_t nblocks);
	/*
	 * Optional (NULL: callers gather the blocks themselves): s = GHASH of
	 * A || pad || C || pad || [8 aad_len]64 || [8 len]64 from zero (SP
	 * 800-38D 7.1 step 5) for aad_len + len <= GHASH_SHORT_MAX, reading
	 * exactly those bytes: one call, one reduction, for short GCM jobs.
	 */
	void (*hash_short)(uint8_t s[16], const struct ghash_key *k, const uint8_t *aad,
			   size_t aad_len, const uint8_t *c, size_t len);
};

/* At most GHASH_POWERS blocks in all, padding and lengths included. */
#define GHASH_SHORT_MAX ((GHASH_POWERS - 3) * 16)

/* The table, widest first, ref last; NULL-terminated (ghash.c). */
extern const struct ghash_impl *const vecsec_ghash_impls[];
/* The impl selected at a level, and at the process's level (vecsec_isa_cap()). */
const struct ghash_impl *vecsec_ghash_impl_at(enum vecsec_isa level);
const struct ghash_impl *vecsec_ghash_impl(void);

/* ghash_ref.c */
extern const struct ghash_impl vecsec_ghash_impl_ref;
/* SP 800-38D 6.3: z = x * y in GF(2^128), constant time. */
void vecsec_gf128_mul_ref(uint8_t z[16], const uint8_t x[16], const uint8_t y[16]);
/* Fill k with H^1..H^GHASH_POWERS. */
void vecsec_ghash_key_init_ref(struct ghash_key *k, const uint8_t h[16]);

/* SIMD kernels (each built only with its flag set, listed under its guard) */
extern const struct ghash_impl vecsec_ghash_impl_pclmul;
extern const struct ghash_impl vecsec_ghash_impl_avx512_vpclmul;

#endif /* VECSEC_GHASH_INTERNAL_H */
