/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 internals (never installed): the state, usable as a bare "core"
 * (Adiantum's NHPoly1305 and tweak hash need Poly1305 without the final
 * "+ s"), the impl struct of the dispatch table and the kernel contract.
 *
 * Representation (every impl): the accumulator h and the clamped r are kept
 * in radix 2^44, three uint64 limbs, little-endian limb order:
 *   r = r[0] + r[1] 2^44 + r[2] 2^88, each limb < 2^44 (r[2] < 2^42);
 *   h = h[0] + h[1] 2^44 + h[2] 2^88, limbs below 2^44 + a small carry: h is
 *       only partly reduced mod p = 2^130 - 5 between calls.
 * A SIMD impl converts to its own radix inside blocks() and back before it
 * returns, so impls can be mixed on one state. Powers of r that a SIMD impl
 * wants go in ext[], tagged by ext_impl; poly1305_core_init() clears the tag.
 *
 * Core use (RFC 8439 2.5 without the key split):
 *   poly1305_core_init(&st, r16);         r clamped here
 *   impl->blocks(&st, in, nblocks, 1);    full 16-byte blocks, pad bit 2^128
 *   vecsec_poly1305_core_emit(&st, h16);  h mod p, 16 LE bytes (bits >= 128
 *                                         dropped), NO s added
 *   vecsec_poly1305_add_s(tag, h16, s16); tag = h + s mod 2^128
 *
 * Kernel contract (blocks):
 *   - absorbs nblocks (0 allowed) 16-byte blocks: h = (h + block + pad*2^128)
 *     * r mod p, block by block, leaving h partly reduced as above;
 *   - pad is 1 for message blocks (RFC 8439 2.5: the appended 0x01 byte of a
 *     full block) and 0 for a final block the caller has padded itself
 *     (the 0x01 byte written after the data, zeros after it);
 *   - no alignment; constant time (no branch or index on h, r or data).
 */
#ifndef VECSEC_POLY1305_INTERNAL_H
#define VECSEC_POLY1305_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"

#define POLY1305_BLOCK_LEN 16
#define POLY1305_KEY_LEN 32
#define POLY1305_TAG_LEN 16
#define POLY1305_EXT_WORDS 48     /* room for a SIMD impl's powers of r */

struct poly1305_impl;

struct poly1305_state {
	uint64_t h[3];                  /* accumulator, radix 2^44 */
	uint64_t r[3];                  /* clamped r, radix 2^44 */
	const struct poly1305_impl *ext_impl;   /* who filled ext[]; NULL: nobody */
	uint64_t ext[POLY1305_EXT_WORDS];       /* impl-private (powers of r) */
};

/*
 * Lanes layout (lib/lanes, STYLE.md 6): lane i absorbs
 * blocks_left[i] full blocks (pad 1) from in[i] into h[.][i] with r[.][i].
 */
struct poly1305_lanes {
	uint64_t h[3][VECSEC_MAX_LANES];
	uint64_t r[3][VECSEC_MAX_LANES];
	const uint8_t *in[VECSEC_MAX_LANES];
	uint32_t blocks_left[VECSEC_MAX_LANES];
	uint32_t active;
};

struct poly1305_impl {
	const char *name;            /* "avx2" */
	enum vecsec_isa isa;
	uint64_t needs;              /* e.g. VECSEC_CPU_AVX512IFMA */
	unsigned int lanes;          /* messages per blocks_lanes() call (0: none) */
	size_t min_len;              /* bytes below which a narrower impl is faster */
	void (*blocks)(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
		       uint32_t pad);
	void (*blocks_lanes)(struct poly1305_lanes *l, uint32_t nblocks);
};

/*
 * Lane kernels (lib/poly1305/poly1305_lanes_<set>.c), found by lib/lanes.
 * blocks_lanes absorbs nblocks full blocks (pad 1: the AEAD of RFC 8439 2.8
 * pads everything to whole blocks) on every lane whose bit is set in
 * `active` (nblocks <= every active blocks_left), advancing in[] and
 * decreasing blocks_left[]; h and r stay in radix 2^44 in the struct (a
 * kernel converts inside), h partly reduced as for struct poly1305_state;
 * inactive lanes are never touched, nor their in[] read.
 */
struct poly1305_lanes_impl {
	const char *name;            /* "x8-avx512ifma" */
	enum vecsec_isa isa;
	uint64_t needs;
	unsigned int lanes;          /* 4, 8 or 16 */
	void (*blocks_lanes)(struct poly1305_lanes *l, uint32_t nblocks);
};

extern const struct poly1305_lanes_impl vecsec_poly1305_lanes_x4_avx2;
extern const struct poly1305_lanes_impl vecsec_poly1305_lanes_x8_avx512ifma;
extern const struct poly1305_lanes_impl vecsec_poly1305_lanes_x16_avx512ifma;

/* Widest first, NULL-terminated, the reference last (poly1305.c). */
extern const struct poly1305_impl *const vecsec_poly1305_impls[];

extern const struct poly1305_impl vecsec_poly1305_impl_ref;
extern const struct poly1305_impl vecsec_poly1305_impl_avx2;
extern const struct poly1305_impl vecsec_poly1305_impl_avx512ifma;
extern const struct poly1305_impl vecsec_poly1305_impl_neon;

void vecsec_poly1305_blocks_ref(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
				uint32_t pad);

/* Clamp r (RFC 8439 2.5: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff), h = 0. */
void vecsec_poly1305_core_init(struct poly1305_state *st, const uint8_t r[16]);
/* Fully reduce h mod 2^130 - 5 and write its low 128 bits (LE); no s. */
void vecsec_poly1305_core_emit(const struct poly1305_state *st, uint8_t out[16]);
/* out = (h + s) mod 2^128, all 16-byte little-endian; out may alias h. */
void vecsec_poly1305_add_s(uint8_t out[16], const uint8_t h[16], const uint8_t s[16]);

/* The impl selected now (runs dispatch on first use). */
const struct poly1305_impl *vecsec_poly1305_impl(void);

#endif /* VECSEC_POLY1305_INTERNAL_H */
