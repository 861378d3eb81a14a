/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 public API (vecsec_poly1305.h) and implementation selection:
 * buffering of partial blocks, the final padded block (RFC 8439 2.5), the
 * "+ s" step, and the table of impls widest first. Every call takes the
 * entry of its level for its length (the min_len gates of the table); a
 * one-shot MAC that lands on an entry with a whole-message function
 * (radix 2^64) runs it directly, with no context.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "vecsec/vecsec_poly1305.h"
#include "poly1305_internal.h"

/* Widest first, the reference last; an entry per flag set that builds. */
const struct poly1305_impl *const vecsec_poly1305_impls[] = {
#ifdef VECSEC_HAVE_AVX512_IFMA
	&vecsec_poly1305_impl_avx512ifma,
	&vecsec_poly1305_impl_avx512ifma_x8,
#endif
#ifdef VECSEC_HAVE_AVX2
	&vecsec_poly1305_impl_avx2,
#endif
#ifdef VECSEC_HAVE_NEON
	&vecsec_poly1305_impl_neon,
#endif
	&vecsec_poly1305_impl_scalar64,
	&vecsec_poly1305_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION_LEN(poly1305, poly1305_impl)

/* What the public opaque storage holds. */
struct poly1305_ctx {
	struct poly1305_state st;
	enum vecsec_isa level;
	uint8_t s[16];
	uint8_t buf[POLY1305_BLOCK_LEN];
	size_t buf_len;
};

_Static_assert(sizeof(struct poly1305_ctx) <= sizeof(struct vecsec_poly1305_ctx),
	       "vecsec_poly1305_ctx too small");
_Static_assert(_Alignof(struct poly1305_ctx) <= _Alignof(struct vecsec_poly1305_ctx),
	       "vecsec_poly1305_ctx under-aligned");

void
vecsec_poly1305_init_level(struct vecsec_poly1305_ctx *ctx, const uint8_t key[32],
			   enum vecsec_isa level)
{
	struct poly1305_ctx *c = (struct poly1305_ctx *)ctx;

	vecsec_poly1305_core_init(&c->st, key);
	memcpy(c->s, key + 16, 16);
	c->level = level;
	c->buf_len = 0;
}

VECSEC_API int
vecsec_poly1305_init(struct vecsec_poly1305_ctx *ctx, const uint8_t key[VECSEC_POLY1305_KEY_LEN])
{
	if (ctx == NULL || key == NULL)
		return -EINVAL;
	vecsec_poly1305_init_level(ctx, key, vecsec_isa_cap());
	return 0;
}

/*
 * The entry for len bytes at a level: the table's min_len gates, and on
 * top of them, for the AVX-512 IFMA entries, the bound measured on this
 * CPU (vecsec_tune(); their min_len is the least of those): below it, the
 * entry the gates give just under their min_len (radix 2^64: the entries
 * after them start at that or at more than any CPU's bound).
 */
static inline const struct poly1305_impl *
select_len(enum vecsec_isa level, size_t len)
{
	const struct poly1305_impl *pi = vecsec_poly1305_impl_len(level, len);

#ifdef VECSEC_HAVE_AVX512_IFMA
	if ((pi == &vecsec_poly1305_impl_avx512ifma || pi == &vecsec_poly1305_impl_avx512ifma_x8) &&
	    len < vecsec_tune()->poly1305_ifma_min_len)
		pi = vecsec_poly1305_impl_len(level, pi->min_len - 1);
#endif
	return pi;
}

static void
ctx_blocks(struct poly1305_ctx *c, const uint8_t *in, size_t nb, uint32_t pad)
{
	select_len(c->level, nb * POLY1305_BLOCK_LEN)->blocks(&c->st, in, nb, pad);
}

VECSEC_API int
vecsec_poly1305_update(struct vecsec_poly1305_ctx *ctx, const uint8_t *in, size_t len)
{
	struct poly1305_ctx *c = (struct poly1305_ctx *)ctx;
	size_t nb;

	if (ctx == NULL || (in == NULL && len > 0))
		return -EINVAL;
	if (len == 0)
		return 0;
	if (c->buf_len > 0) {
		size_t n = POLY1305_BLOCK_LEN - c->buf_len;

		if (n > len)
			n = len;
		memcpy(c->buf + c->buf_len, in, n);
		c->buf_len += n;
		in += n;
		len -= n;
		if (c->buf_len < POLY1305_BLOCK_LEN)
			return 0;
		ctx_blocks(c, c->buf, 1, 1);
		c->buf_len = 0;
	}
	nb = len / POLY1305_BLOCK_LEN;
	if (nb > 0) {
		ctx_blocks(c, in, nb, 1);
		in += nb * POLY1305_BLOCK_LEN;
		len -= nb * POLY1305_BLOCK_LEN;
	}
	if (len > 0) {
		memcpy(c->buf, in, len);
		c->buf_len = len;
	}
	return 0;
}

VECSEC_API int
vecsec_poly1305_final(struct vecsec_poly1305_ctx *ctx, uint8_t tag[VECSEC_POLY1305_TAG_LEN])
{
	struct poly1305_ctx *c = (struct poly1305_ctx *)ctx;
	uint8_t h[16];

	if (ctx == NULL || tag == NULL)
		return -EINVAL;
	if (c->buf_len > 0) {
		/* RFC 8439 2.5: the last short block gets its 0x01 byte in place */
		c->buf[c->buf_len] = 1;
		memset(c->buf + c->buf_len + 1, 0, POLY1305_BLOCK_LEN - c->buf_len - 1);
		ctx_blocks(c, c->buf, 1, 0);
	}
	vecsec_poly1305_core_emit(&c->st, h);
	vecsec_poly1305_add_s(tag, h, c->s);
	vecsec_memzero(h, sizeof(h));
	vecsec_memzero(ctx, sizeof(*ctx));
	return 0;
}

/* The one-shot MAC through a context (entries without a mac()). */
static __attribute__((noinline)) int
mac_ctx(uint8_t tag[VECSEC_POLY1305_TAG_LEN], const uint8_t *in, size_t len,
	const uint8_t key[VECSEC_POLY1305_KEY_LEN])
{
	struct vecsec_poly1305_ctx ctx;
	int rc;

	rc = vecsec_poly1305_init(&ctx, key);
	if (rc == 0)
		rc = vecsec_poly1305_update(&ctx, in, len);
	if (rc == 0)
		rc = vecsec_poly1305_final(&ctx, tag);
	vecsec_memzero(&ctx, sizeof(ctx));
	return rc;
}

VECSEC_API int
vecsec_poly1305(uint8_t tag[VECSEC_POLY1305_TAG_LEN], const uint8_t *in, size_t len,
		const uint8_t key[VECSEC_POLY1305_KEY_LEN])
{
	const struct poly1305_impl *pi;

	if (tag == NULL || key == NULL || (in == NULL && len > 0))
		return -EINVAL;
	pi = select_len(vecsec_level(), len);
	if (pi->mac == NULL)
		return mac_ctx(tag, in, len, key);
	return pi->mac(tag, in, len, key);
}

VECSEC_API const char *
vecsec_poly1305_impl_name(void)
{
	return vecsec_poly1305_impl()->name;
}
