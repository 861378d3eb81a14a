/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 in radix 2^64 (portable C, unsigned __int128 products, no
 * intrinsics): the scalar path for short inputs and tails, and the state
 * the stitched assembly kernels keep in general registers. RFC 8439 2.5.
 *
 * h = h0 + h1 2^64 + h2 2^128 with h2 small (below 8), partly reduced mod
 * p = 2^130 - 5; r = r0 + r1 2^64 clamped, so r1 is a multiple of 4 and
 * below 2^60: a product at 2^128, h1 r1 2^128 = h1 (r1 / 4) 2^130, comes
 * back down as h1 * s1 with s1 = 5 r1 / 4 = r1 + r1 / 4 (2^130 = 5 mod p).
 * One block is then four 64x64->128 products and two small ones:
 *   d0 = h0 r0 + h1 s1
 *   d1 = h0 r1 + h1 r0 + h2 s1 + (d0 >> 64)
 *   d2 = h2 r0 + (d1 >> 64)
 * and bits 130 and up of d2 2^128 fold back times 5.
 * Constant time: no branch or index on h, r or the data.
 */
#ifndef VECSEC_POLY1305_64_H
#define VECSEC_POLY1305_64_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "poly1305_internal.h"

/*
 * The state; the assembly kernels (chachapoly_<isa>.S) use these offsets:
 * h0 0, h1 8, h2 16, r0 24, r1 32, s1 40.
 */
struct poly1305_64 {
	uint64_t h[3];
	uint64_t r[2];
	uint64_t s1;            /* r1 + (r1 >> 2) */
};

typedef unsigned __int128 p64_u128;

/* RFC 8439 2.5: r clamped from the first 16 key bytes, h = 0. */
static inline void
p64_init(struct poly1305_64 *p, const uint8_t key[16])
{
	p->r[0] = vecsec_load_le64(key) & UINT64_C(0x0ffffffc0fffffff);
	p->r[1] = vecsec_load_le64(key + 8) & UINT64_C(0x0ffffffc0ffffffc);
	p->s1 = p->r[1] + (p->r[1] >> 2);
	p->h[0] = p->h[1] = p->h[2] = 0;
}

#if defined(__x86_64__)
/* poly1305_x86_64.S: the loop below, in assembly (GCC spills its sums). */
void vecsec_poly1305_blocks64_x86_64(struct poly1305_64 *p, const uint8_t *in, size_t nblocks,
				     uint64_t pad);
/* The whole one-shot MAC (RFC 8439 2.5) in one function: key, blocks, tail, tag; 0. */
int vecsec_poly1305_mac64_x86_64(uint8_t tag[16], const uint8_t *in, size_t len,
				  const uint8_t key[32]);

/*
 * An RFC 8439 2.8 AEAD's MAC input, block by block in this order (every
 * block with the 2^128 bit): the AAD's naad whole blocks, pre (npre: 0
 * or 1, the AAD's remainder zero-padded), the ciphertext's nc whole
 * blocks, post (npost: 1 or 2, the ciphertext's remainder zero-padded if
 * any, then the lengths block). The offsets are the assembly's.
 */
struct p64_aead {
	const uint8_t *aad;
	size_t naad;
	const uint8_t *c;
	size_t nc;
	size_t npre;
	size_t npost;
	alignas(16) uint8_t pre[16];
	alignas(16) uint8_t post[32];
};

_Static_assert(offsetof(struct p64_aead, npost) == 40 && offsetof(struct p64_aead, pre) == 48 &&
	       offsetof(struct p64_aead, post) == 64, "p64_aead: the assembly's offsets");

/* tag = Poly1305 of m's blocks under key (r, then s): the whole MAC in one call */
void vecsec_poly1305_aead64_x86_64(uint8_t tag[16], const struct p64_aead *m,
				   const uint8_t key[32]);
#endif

/* nblocks 16-byte blocks, each plus pad 2^128 (pad 1: message blocks). */
static inline void
p64_blocks(struct poly1305_64 *p, const uint8_t *in, size_t nblocks, uint64_t pad)
{
#if defined(__x86_64__)
	vecsec_poly1305_blocks64_x86_64(p, in, nblocks, pad);
}

/* The portable form of the same loop (other targets; the tests' oracle too). */
static inline void
p64_blocks_c(struct poly1305_64 *p, const uint8_t *in, size_t nblocks, uint64_t pad)
{
#endif
	const uint64_t r0 = p->r[0], r1 = p->r[1], s1 = p->s1;
	uint64_t h0 = p->h[0], h1 = p->h[1], h2 = p->h[2];

	for (; nblocks > 0; nblocks--, in += 16) {
		p64_u128 t, d0, d1;
		uint64_t d2, c;

		t = (p64_u128)h0 + vecsec_load_le64(in);
		h0 = (uint64_t)t;
		t = (p64_u128)h1 + vecsec_load_le64(in + 8) + (uint64_t)(t >> 64);
		h1 = (uint64_t)t;
		h2 += pad + (uint64_t)(t >> 64);

		d0 = (p64_u128)h0 * r0 + (p64_u128)h1 * s1;
		d1 = (p64_u128)h0 * r1 + (p64_u128)h1 * r0 + h2 * s1 + (uint64_t)(d0 >> 64);
		d2 = h2 * r0 + (uint64_t)(d1 >> 64);

		/* d2 2^128 = (d2 & 3) 2^128 + (d2 >> 2) 2^130 = ... + 5 (d2 >> 2) */
		c = (d2 >> 2) + (d2 & ~(uint64_t)3);
		t = (p64_u128)(uint64_t)d0 + c;
		h0 = (uint64_t)t;
		t = (p64_u128)(uint64_t)d1 + (uint64_t)(t >> 64);
		h1 = (uint64_t)t;
		h2 = (d2 & 3) + (uint64_t)(t >> 64);
	}
	p->h[0] = h0;
	p->h[1] = h1;
	p->h[2] = h2;
}

/* The last 1..15 bytes (RFC 8439 2.5: a 0x01 byte after them, then zeros). */
static inline void
p64_last(struct poly1305_64 *p, const uint8_t *in, size_t len)
{
	uint8_t b[16] = { 0 };

	for (size_t i = 0; i < len; i++)
		b[i] = in[i];
	b[len] = 1;
	p64_blocks(p, b, 1, 0);
	vecsec_wipe(b, sizeof(b));
}

/* len bytes zero-padded to whole blocks (RFC 8439 2.8 pad16: pad bit on each). */
static inline void
p64_padded(struct poly1305_64 *p, const uint8_t *in, size_t len)
{
	uint8_t b[16] = { 0 };

	p64_blocks(p, in, len / 16, 1);
	if (len % 16 != 0) {
		in += len - len % 16;
		for (size_t i = 0; i < len % 16; i++)
			b[i] = in[i];
		p64_blocks(p, b, 1, 1);
		vecsec_wipe(b, sizeof(b));
	}
}

/*
 * RFC 8439 2.5 end: tag = (h mod p) + s mod 2^128, after p64_blocks()
 * (which leaves h2 <= 4, so h < 2p): h mod p is h or h - p = h + 5 - 2^130,
 * and bit 130 of h + 5 picks.
 */
static inline void
p64_tag(uint8_t tag[16], const struct poly1305_64 *p, const uint8_t s[16])
{
	uint64_t h0 = p->h[0], h1 = p->h[1], g0, g1, g2, mask;
	p64_u128 t;

	t = (p64_u128)h0 + 5;
	g0 = (uint64_t)t;
	t = (p64_u128)h1 + (uint64_t)(t >> 64);
	g1 = (uint64_t)t;
	g2 = p->h[2] + (uint64_t)(t >> 64);
	mask = 0 - (g2 >> 2);
	h0 = (h0 & ~mask) | (g0 & mask);
	h1 = (h1 & ~mask) | (g1 & mask);
	t = (p64_u128)h0 + vecsec_load_le64(s);
	h1 += vecsec_load_le64(s + 8) + (uint64_t)(t >> 64);
	vecsec_store_le64(tag, (uint64_t)t);
	vecsec_store_le64(tag + 8, h1);
}

/*
 * Conversions from and to the radix-2^44 state of poly1305_internal.h
 * (whose limbs may carry a little over 44 bits: carried here first).
 */
static inline void
p64_from44(struct poly1305_64 *p, const struct poly1305_state *st)
{
	uint64_t l0 = st->h[0], l1 = st->h[1], l2 = st->h[2], c;

	c = l0 >> 44; l0 &= POLY1305_M44; l1 += c;
	c = l1 >> 44; l1 &= POLY1305_M44; l2 += c;
	p->h[0] = l0 | (l1 << 44);
	p->h[1] = (l1 >> 20) | (l2 << 24);
	p->h[2] = l2 >> 40;
	p->r[0] = st->r[0] | (st->r[1] << 44);
	p->r[1] = (st->r[1] >> 20) | (st->r[2] << 24);
	p->s1 = p->r[1] + (p->r[1] >> 2);
}

static inline void
p64_to44(struct poly1305_state *st, const struct poly1305_64 *p)
{
	st->h[0] = p->h[0] & POLY1305_M44;
	st->h[1] = ((p->h[0] >> 44) | (p->h[1] << 20)) & POLY1305_M44;
	st->h[2] = (p->h[1] >> 24) | (p->h[2] << 40);
}

#endif /* VECSEC_POLY1305_64_H */
