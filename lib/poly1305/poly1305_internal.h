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
 * Lanes layout (one message per SIMD lane): lane i absorbs blocks_left[i]
 * full blocks (pad 1) from in[i] into h[.][i] with r[.][i].
 */
struct poly1305_lanes {
	uint64_t h[3][VECSEC_MAX_LANES];
	uint64_t r[3][VECSEC_MAX_LANES];
	const uint8_t *in[VECSEC_MAX_LANES];
	uint32_t blocks_left[VECSEC_MAX_LANES];
	uint32_t active;
};

/*
 * One entry of the dispatch table per (ISA, lane width): the
 * single-message kernel and the lane kernel of that ISA. An ISA with lane
 * kernels of two widths (AVX-512 IFMA: 16 and 8) has two entries with the
 * same blocks(); single-message selection takes the first usable entry.
 *
 * blocks_lanes absorbs nblocks full blocks (pad 1: the AEAD of RFC 8439
 * 2.8 pads everything to whole blocks) on every lane whose bit is set in
 * `active` (nblocks <= every active blocks_left), advancing in[] and
 * decreasing blocks_left[]; h and r stay in radix 2^44 in the struct (a
 * kernel converts inside), h partly reduced as for struct poly1305_state;
 * inactive lanes are never touched, nor their in[] read.
 */
struct poly1305_impl {
	const char *name;            /* "avx2" */
	enum vecsec_isa isa;
	uint64_t needs;              /* e.g. VECSEC_CPU_AVX512IFMA */
	/*
	 * Bytes of one call (message or update) from which this entry beats
	 * the next usable one: the dispatcher (VECSEC_SELECT_LEN) skips it
	 * below; measured, in the entry's comment. Every entry still takes
	 * every length.
	 */
	size_t min_len;
	void (*blocks)(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
		       uint32_t pad);
	/*
	 * Optional (NULL: init, blocks, final): the whole one-shot MAC of
	 * RFC 8439 2.5 (tag of len bytes under the 32-byte key), for the
	 * entries that short messages get; returns 0 (so that the public
	 * one-shot ends in a tail call).
	 */
	int (*mac)(uint8_t tag[16], const uint8_t *in, size_t len, const uint8_t key[32]);
	unsigned int lanes;          /* messages per blocks_lanes() call */
	const char *lanes_name;      /* "x8-avx512ifma": printed by tests and the bench */
	void (*blocks_lanes)(struct poly1305_lanes *l, uint32_t nblocks);
	/*
	 * Optional (NULL: not there): the tag (RFC 8439 2.5: (h mod p) + s
	 * mod 2^128, 16 bytes little-endian) of every lane i set in `active`
	 * (any of the first 16, whatever the kernel's width) into tag[i], from
	 * h[.][i] and s[0..1][i]; constant time; l is not changed.
	 */
	void (*tags_lanes)(const struct poly1305_lanes *l, const uint64_t s[2][VECSEC_MAX_LANES],
			   uint8_t *const *tag);
};

/* Lane kernels (poly1305_lanes_<set>.c, poly1305_ref.c), listed by the table. */
void vecsec_poly1305_blocks_lanes_ref(struct poly1305_lanes *l, uint32_t nblocks);
void vecsec_poly1305_blocks_lanes_x4_avx2(struct poly1305_lanes *l, uint32_t nblocks);
/* The same compiled with AVX-512VL/BW (ymm only): chachapoly_lanes.c picks it at the AVX2 level */
void vecsec_poly1305_blocks_lanes_x4_avx2vl(struct poly1305_lanes *l, uint32_t nblocks);
void vecsec_poly1305_blocks_lanes_x8_avx512ifma(struct poly1305_lanes *l, uint32_t nblocks);
void vecsec_poly1305_blocks_lanes_x16_avx512ifma(struct poly1305_lanes *l, uint32_t nblocks);
void vecsec_poly1305_blocks_lanes_x4_neon(struct poly1305_lanes *l, uint32_t nblocks);
void vecsec_poly1305_tags_lanes_avx512ifma(const struct poly1305_lanes *l,
					   const uint64_t s[2][VECSEC_MAX_LANES], uint8_t *const *tag);

/* Widest first, NULL-terminated, the reference last (poly1305.c). */
extern const struct poly1305_impl *const vecsec_poly1305_impls[];

extern const struct poly1305_impl vecsec_poly1305_impl_ref;
extern const struct poly1305_impl vecsec_poly1305_impl_scalar64;
extern const struct poly1305_impl vecsec_poly1305_impl_avx2;
extern const struct poly1305_impl vecsec_poly1305_impl_avx512ifma;
extern const struct poly1305_impl vecsec_poly1305_impl_avx512ifma_x8;
extern const struct poly1305_impl vecsec_poly1305_impl_neon;

void vecsec_poly1305_blocks_ref(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
				uint32_t pad);
/* The IFMA single-message kernel (poly1305_avx512ifma.c), for the stitched AEAD. */
void vecsec_poly1305_blocks_avx512ifma(struct poly1305_state *st, const uint8_t *in,
				       size_t nblocks, uint32_t pad);
/* Radix 2^64 (poly1305_scalar64.c): the blocks of short inputs and of SIMD tails. */
void vecsec_poly1305_blocks_scalar64(struct poly1305_state *st, const uint8_t *in,
				     size_t nblocks, uint32_t pad);

/* Clamp r (RFC 8439 2.5: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff), h = 0. */
void vecsec_poly1305_core_init(struct poly1305_state *st, const uint8_t r[16]);
/* Fully reduce h mod 2^130 - 5 and write its low 128 bits (LE); no s. */
void vecsec_poly1305_core_emit(const struct poly1305_state *st, uint8_t out[16]);

/*
 * The same steps on bare limbs (radix 2^44, as in struct poly1305_state
 * and struct poly1305_lanes), inline for the lane users that run them once
 * per message: clamp the first 16 key bytes into r; emit h fully reduced,
 * low 128 bits; the tag, emit plus s.
 */
#define POLY1305_M44 ((UINT64_C(1) << 44) - 1)
#define POLY1305_M42 ((UINT64_C(1) << 42) - 1)

/*
 * RFC 8439, 2.5: "r[3], r[7], r[11], and r[15] are required to have their
 * top four bits clear; r[4], r[8], and r[12] are required to have their
 * bottom two bits clear". Then split into 44/44/40-bit limbs.
 */
static inline void
vecsec_poly1305_clamp(uint64_t r[3], const uint8_t key[16])
{
	uint64_t t0 = vecsec_load_le64(key) & UINT64_C(0x0ffffffc0fffffff);
	uint64_t t1 = vecsec_load_le64(key + 8) & UINT64_C(0x0ffffffc0ffffffc);

	r[0] = t0 & POLY1305_M44;
	r[1] = ((t0 >> 44) | (t1 << 20)) & POLY1305_M44;
	r[2] = t1 >> 24;
}

/*
 * RFC 8439, 2.5 end: the accumulator fully reduced mod p, low 128 bits.
 * h + 5 - 2^130 is computed; its sign picks h or h - p without a branch.
 */
static inline void
vecsec_poly1305_emit(uint8_t out[16], const uint64_t h[3])
{
	uint64_t h0 = h[0], h1 = h[1], h2 = h[2];
	uint64_t g0, g1, g2, c, mask;

	/* carry fully twice: h < 2^130 + small, then h < 2 p */
	for (int i = 0; i < 2; i++) {
		c = h1 >> 44;
		h1 &= POLY1305_M44;
		h2 += c;
		c = h2 >> 42;
		h2 &= POLY1305_M42;
		h0 += c * 5;
		c = h0 >> 44;
		h0 &= POLY1305_M44;
		h1 += c;
	}
	c = h1 >> 44;
	h1 &= POLY1305_M44;
	h2 += c;

	g0 = h0 + 5;
	c = g0 >> 44;
	g0 &= POLY1305_M44;
	g1 = h1 + c;
	c = g1 >> 44;
	g1 &= POLY1305_M44;
	g2 = h2 + c - (UINT64_C(1) << 42);

	/* g2 negative (top bit set): h < p, keep h; else take g = h - p */
	mask = (g2 >> 63) - 1;
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	h2 = (h2 & ~mask) | (g2 & mask & POLY1305_M42);

	vecsec_store_le64(out, h0 | (h1 << 44));
	vecsec_store_le64(out + 8, (h1 >> 20) | (h2 << 24));
}

/* RFC 8439, 2.5: tag = (h mod p) + s mod 2^128. */
static inline void
vecsec_poly1305_tag(uint8_t tag[16], const uint64_t h[3], const uint8_t s[16])
{
	uint64_t lo, hi, c;

	vecsec_poly1305_emit(tag, h);
	lo = vecsec_load_le64(tag);
	hi = vecsec_load_le64(tag + 8);
	c = lo + vecsec_load_le64(s);
	hi += vecsec_load_le64(s + 8) + (c < lo);
	vecsec_store_le64(tag, c);
	vecsec_store_le64(tag + 8, hi);
}
/* out = (h + s) mod 2^128, all 16-byte little-endian; out may alias h. */
void vecsec_poly1305_add_s(uint8_t out[16], const uint8_t h[16], const uint8_t s[16]);

/*
 * The impl selected at a level, at the process's level (vecsec_isa_cap()),
 * and at a level for a call of len bytes (min_len gates applied).
 */
const struct poly1305_impl *vecsec_poly1305_impl_at(enum vecsec_isa level);
const struct poly1305_impl *vecsec_poly1305_impl(void);
const struct poly1305_impl *vecsec_poly1305_impl_len(enum vecsec_isa level, size_t len);

struct vecsec_poly1305_ctx;
/*
 * vecsec_poly1305_init() at a given level (the key is not checked): each
 * update then takes the entry of that level for its length.
 */
void vecsec_poly1305_init_level(struct vecsec_poly1305_ctx *ctx, const uint8_t key[32],
				enum vecsec_isa level);

#endif /* VECSEC_POLY1305_INTERNAL_H */
