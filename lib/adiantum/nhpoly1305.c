/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NHPoly1305 (Adiantum paper 6.4; Linux crypto/nhpoly1305.c): NH over each
 * 1024-byte chunk of the message (the last chunk a multiple of 16 bytes,
 * zero-padded), each 32-byte NH value absorbed by Poly1305 as two full
 * blocks, the result h mod p without s. Also the NH dispatch table.
 */
#include "vecsec/vecsec_adiantum.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "adiantum_internal.h"

/* ---- NH dispatch: widest first, an entry per flag set that builds ---- */
const struct nh_impl *const vecsec_nh_impls[] = {
#ifdef VECSEC_HAVE_AVX2
	&vecsec_nh_impl_avx2,
#endif
#ifdef VECSEC_HAVE_SSSE3
	&vecsec_nh_impl_sse2,
#endif
#ifdef VECSEC_HAVE_NEON
	&vecsec_nh_impl_neon,
#endif
	&vecsec_nh_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION(nh, nh_impl)

/* ---- NHPoly1305 ---- */

void
vecsec_nhpoly1305_key_parse(struct nhpoly1305_key *k, const uint8_t key[NHPOLY1305_KEY_LEN])
{
	memcpy(k->r, key, POLY1305_BLOCK_LEN);
	for (size_t i = 0; i < NH_KEY_WORDS; i++)
		k->nh_key[i] = adiantum_le32(key + POLY1305_BLOCK_LEN + 4 * i);
}

void
vecsec_nhpoly1305_begin(struct nhpoly1305_state *s, const struct nhpoly1305_key *k)
{
	vecsec_poly1305_core_init(&s->poly, k->r);
	s->poly_impl = vecsec_poly1305_impl();
	s->nh_impl = vecsec_nh_impl();
	s->key = k;
	s->nh_remaining = 0;
	s->buf_len = 0;
}

/* Linux process_nh_hash_value(): the 32-byte NH value is two Poly1305 blocks. */
static void
absorb_nh_hash(struct nhpoly1305_state *s)
{
	uint8_t b[NH_HASH_BYTES];

	for (int i = 0; i < NH_NUM_PASSES; i++)
		adiantum_st64(b + 8 * i, s->nh_hash[i]);
	s->poly_impl->blocks(&s->poly, b, NH_HASH_BYTES / POLY1305_BLOCK_LEN, 1);
	vecsec_memzero(b, sizeof(b));
}

/*
 * len: a multiple of NH_MESSAGE_UNIT. Each 1024-byte chunk of the message
 * is one NH message; a chunk fed in pieces gets its sums added up, which
 * is the same as one NH call over the whole chunk (NH is a sum over units).
 */
static void
absorb_units(struct nhpoly1305_state *s, const uint8_t *in, size_t len)
{
	const uint32_t *nh_key = s->key->nh_key;

	while (len > 0) {
		size_t n;

		if (s->nh_remaining == 0) {
			n = len < NH_MESSAGE_BYTES ? len : NH_MESSAGE_BYTES;
			s->nh_impl->nh(nh_key, in, n, s->nh_hash);
			s->nh_remaining = NH_MESSAGE_BYTES - n;
		} else {
			size_t pos = NH_MESSAGE_BYTES - s->nh_remaining;
			uint64_t part[NH_NUM_PASSES];

			n = len < s->nh_remaining ? len : s->nh_remaining;
			s->nh_impl->nh(nh_key + pos / 4, in, n, part);
			for (int i = 0; i < NH_NUM_PASSES; i++)
				s->nh_hash[i] += part[i];
			s->nh_remaining -= n;
			vecsec_memzero(part, sizeof(part));
		}
		if (s->nh_remaining == 0)
			absorb_nh_hash(s);
		in += n;
		len -= n;
	}
}

void
vecsec_nhpoly1305_absorb(struct nhpoly1305_state *s, const uint8_t *in, size_t len)
{
	size_t whole;

	if (s->buf_len > 0) {
		size_t n = NH_MESSAGE_UNIT - s->buf_len;

		if (n > len)
			n = len;
		memcpy(s->buf + s->buf_len, in, n);
		s->buf_len += n;
		in += n;
		len -= n;
		if (s->buf_len < NH_MESSAGE_UNIT)
			return;
		absorb_units(s, s->buf, NH_MESSAGE_UNIT);
		s->buf_len = 0;
	}
	whole = len - len % NH_MESSAGE_UNIT;
	if (whole > 0) {
		absorb_units(s, in, whole);
		in += whole;
		len -= whole;
	}
	if (len > 0) {
		memcpy(s->buf, in, len);
		s->buf_len = len;
	}
}

void
vecsec_nhpoly1305_finish(struct nhpoly1305_state *s, uint8_t out[NHPOLY1305_DIGEST_LEN])
{
	if (s->buf_len > 0) {
		/* Linux nhpoly1305_final(): zero-pad the last unit */
		memset(s->buf + s->buf_len, 0, NH_MESSAGE_UNIT - s->buf_len);
		absorb_units(s, s->buf, NH_MESSAGE_UNIT);
	}
	if (s->nh_remaining != 0)
		absorb_nh_hash(s);
	vecsec_poly1305_core_emit(&s->poly, out);
	vecsec_memzero(s, sizeof(*s));
}

/* ---- public API ---- */

_Static_assert(sizeof(struct nhpoly1305_key) <= sizeof(struct vecsec_nhpoly1305_key),
	       "vecsec_nhpoly1305_key too small");
_Static_assert(_Alignof(struct nhpoly1305_key) <= _Alignof(struct vecsec_nhpoly1305_key),
	       "vecsec_nhpoly1305_key under-aligned");
_Static_assert(sizeof(struct nhpoly1305_state) <= sizeof(struct vecsec_nhpoly1305_ctx),
	       "vecsec_nhpoly1305_ctx too small");
_Static_assert(_Alignof(struct nhpoly1305_state) <= _Alignof(struct vecsec_nhpoly1305_ctx),
	       "vecsec_nhpoly1305_ctx under-aligned");
_Static_assert(NHPOLY1305_KEY_LEN == VECSEC_NHPOLY1305_KEY_LEN, "key length");

VECSEC_API int
vecsec_nhpoly1305_key_init(struct vecsec_nhpoly1305_key *k, const uint8_t *key, size_t key_len)
{
	if (k == NULL || key == NULL || key_len != VECSEC_NHPOLY1305_KEY_LEN)
		return -EINVAL;
	vecsec_nhpoly1305_key_parse((struct nhpoly1305_key *)k, key);
	return 0;
}

VECSEC_API void
vecsec_nhpoly1305_key_wipe(struct vecsec_nhpoly1305_key *k)
{
	if (k != NULL)
		vecsec_memzero(k, sizeof(*k));
}

VECSEC_API int
vecsec_nhpoly1305_init(struct vecsec_nhpoly1305_ctx *ctx, const struct vecsec_nhpoly1305_key *k)
{
	if (ctx == NULL || k == NULL)
		return -EINVAL;
	vecsec_nhpoly1305_begin((struct nhpoly1305_state *)ctx,
				(const struct nhpoly1305_key *)k);
	return 0;
}

VECSEC_API int
vecsec_nhpoly1305_update(struct vecsec_nhpoly1305_ctx *ctx, const uint8_t *in, size_t len)
{
	if (ctx == NULL || (in == NULL && len > 0))
		return -EINVAL;
	if (len > 0)
		vecsec_nhpoly1305_absorb((struct nhpoly1305_state *)ctx, in, len);
	return 0;
}

VECSEC_API int
vecsec_nhpoly1305_final(struct vecsec_nhpoly1305_ctx *ctx,
			uint8_t out[VECSEC_NHPOLY1305_DIGEST_LEN])
{
	if (ctx == NULL || out == NULL)
		return -EINVAL;
	vecsec_nhpoly1305_finish((struct nhpoly1305_state *)ctx, out);
	vecsec_memzero(ctx, sizeof(*ctx));
	return 0;
}

VECSEC_API int
vecsec_nhpoly1305(uint8_t out[VECSEC_NHPOLY1305_DIGEST_LEN], const uint8_t *in, size_t len,
		  const struct vecsec_nhpoly1305_key *k)
{
	struct nhpoly1305_state s;

	if (out == NULL || k == NULL || (in == NULL && len > 0))
		return -EINVAL;
	vecsec_nhpoly1305_begin(&s, (const struct nhpoly1305_key *)k);
	if (len > 0)
		vecsec_nhpoly1305_absorb(&s, in, len);
	vecsec_nhpoly1305_finish(&s, out);
	return 0;
}
