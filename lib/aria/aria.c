/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA public API: key setup, single blocks, ECB, CTR (128-bit counter and
 * the 32-bit RFC 3686 counter), and the dispatch of the ARIA table. GCM
 * lives in aria_gcm.c, GHASH in lib/ghash.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "aria_internal.h"

_Static_assert(sizeof(struct aria_key) <= sizeof(struct vecsec_aria_key),
	       "struct vecsec_aria_key too small");
_Static_assert(sizeof(struct aria_gcm_key) <= sizeof(struct vecsec_aria_gcm_key),
	       "struct vecsec_aria_gcm_key too small");

/* ---- dispatch ---- */

/*
 * Widest first, the reference last; an entry per flag set that builds
 * (avx512_gfni 64 blocks, avx2_gfni 32, avx2_vaes 32, avx_aesni 16, aesni
 * 16 at SSSE3).
 */
const struct aria_impl *const vecsec_aria_impls[] = {
#ifdef VECSEC_HAVE_AVX512_GFNI
	&vecsec_aria_impl_avx512_gfni,
#endif
#ifdef VECSEC_HAVE_AVX2_GFNI
	&vecsec_aria_impl_avx2_gfni,
#endif
#ifdef VECSEC_HAVE_AVX2_VAES
	&vecsec_aria_impl_avx2_vaes,
#endif
#ifdef VECSEC_HAVE_AVX_AESNI
	&vecsec_aria_impl_avx_aesni,
#endif
#ifdef VECSEC_HAVE_AESNI
	&vecsec_aria_impl_aesni,
#endif
	&vecsec_aria_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION(aria, aria_impl)

VECSEC_API const char *
vecsec_aria_impl_name(void)
{
	return vecsec_aria_impl()->name;
}

/* ---- keys and blocks ---- */

static inline const struct aria_key *
key_of(const struct vecsec_aria_key *k)
{
	return (const struct aria_key *)(const void *)k->opaque;
}

VECSEC_API int
vecsec_aria_key_init(struct vecsec_aria_key *k, const uint8_t *key, size_t key_len)
{
	if (k == NULL || key == NULL || (key_len != 16 && key_len != 24 && key_len != 32))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	vecsec_aria_key_schedule_ref((struct aria_key *)(void *)k->opaque, key, key_len);
	return 0;
}

VECSEC_API void
vecsec_aria_key_wipe(struct vecsec_aria_key *k)
{
	if (k != NULL)
		vecsec_memzero(k, sizeof(*k));
}

VECSEC_API void
vecsec_aria_encrypt_block(const struct vecsec_aria_key *k, uint8_t out[16], const uint8_t in[16])
{
	vecsec_aria_impl()->encrypt_blocks(out, in, 1, key_of(k));
}

VECSEC_API void
vecsec_aria_decrypt_block(const struct vecsec_aria_key *k, uint8_t out[16], const uint8_t in[16])
{
	vecsec_aria_impl()->decrypt_blocks(out, in, 1, key_of(k));
}

static bool
bad_buffers(const void *k, const uint8_t *out, const uint8_t *in, size_t len)
{
	return k == NULL || (len != 0 && (out == NULL || in == NULL));
}

VECSEC_API int
vecsec_aria_ecb_encrypt(const struct vecsec_aria_key *k, uint8_t *out, const uint8_t *in,
			size_t len)
{
	if (bad_buffers(k, out, in, len) || len % ARIA_BLOCK_LEN != 0)
		return -EINVAL;
	vecsec_aria_impl()->encrypt_blocks(out, in, len / ARIA_BLOCK_LEN, key_of(k));
	return 0;
}

VECSEC_API int
vecsec_aria_ecb_decrypt(const struct vecsec_aria_key *k, uint8_t *out, const uint8_t *in,
			size_t len)
{
	if (bad_buffers(k, out, in, len) || len % ARIA_BLOCK_LEN != 0)
		return -EINVAL;
	vecsec_aria_impl()->decrypt_blocks(out, in, len / ARIA_BLOCK_LEN, key_of(k));
	return 0;
}

/* ---- CTR ---- */

VECSEC_API int
vecsec_aria_ctr_xor(const struct vecsec_aria_key *k, uint8_t *out, const uint8_t *in,
		    size_t len, const uint8_t ctr[16])
{
	uint8_t c[16];

	if (bad_buffers(k, out, in, len) || ctr == NULL)
		return -EINVAL;
	memcpy(c, ctr, 16);
	vecsec_aria_impl()->ctr128_xor(out, in, len, key_of(k), c);
	return 0;
}

/* True if len bytes from counter block ctr stay below 2^32 blocks (RFC 3686). */
bool
vecsec_aria_ctr32_fits(const uint8_t ctr[16], size_t len)
{
	uint64_t c = (uint64_t)ctr[12] << 24 | (uint64_t)ctr[13] << 16 |
		     (uint64_t)ctr[14] << 8 | ctr[15];
	uint64_t blocks = (uint64_t)(len / 16) + (len % 16 != 0);

	return blocks <= (UINT64_C(1) << 32) - c;
}

VECSEC_API int
vecsec_aria_ctr32_xor(const struct vecsec_aria_key *k, uint8_t *out, const uint8_t *in,
		      size_t len, const uint8_t ctr[16])
{
	uint8_t c[16];

	if (bad_buffers(k, out, in, len) || ctr == NULL || !vecsec_aria_ctr32_fits(ctr, len))
		return -EINVAL;
	memcpy(c, ctr, 16);
	vecsec_aria_impl()->ctr32_xor(out, in, len, key_of(k), c);
	return 0;
}
