/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec Poly1305 one-time authenticator (RFC 8439 2.5), one-shot and
 * incremental. A key must authenticate one message only.
 */
#ifndef VECSEC_POLY1305_H
#define VECSEC_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VECSEC_POLY1305_KEY_LEN 32
#define VECSEC_POLY1305_TAG_LEN 16
#define VECSEC_POLY1305_CTX_WORDS 80

/**
 * Incremental Poly1305 state: caller-allocated, fixed size, contents
 * private (it holds the key: vecsec_poly1305_final() wipes it).
 */
struct vecsec_poly1305_ctx {
#ifdef __cplusplus
	alignas(16)
#else
	_Alignas(16)
#endif
	uint64_t opaque[VECSEC_POLY1305_CTX_WORDS]; /**< private */
};

/**
 * Start a MAC.
 *
 * @param ctx
 *   state to fill.
 * @param key
 *   32-byte one-time key: r (clamped here) || s.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_poly1305_init(struct vecsec_poly1305_ctx *ctx,
				    const uint8_t key[VECSEC_POLY1305_KEY_LEN]);

/**
 * Absorb message bytes; calls may split the message anywhere.
 *
 * @param ctx
 *   state from vecsec_poly1305_init().
 * @param in
 *   bytes (may be NULL when @p len is 0).
 * @param len
 *   bytes.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_poly1305_update(struct vecsec_poly1305_ctx *ctx, const uint8_t *in,
				      size_t len);

/**
 * Finish: write the tag and wipe the state.
 *
 * @param ctx
 *   state; wiped (init again before reuse).
 * @param tag
 *   receives 16 bytes.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_poly1305_final(struct vecsec_poly1305_ctx *ctx,
				     uint8_t tag[VECSEC_POLY1305_TAG_LEN]);

/**
 * One-shot Poly1305.
 *
 * @param tag
 *   receives 16 bytes.
 * @param in
 *   message (may be NULL when @p len is 0).
 * @param len
 *   bytes.
 * @param key
 *   32-byte one-time key.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_poly1305(uint8_t tag[VECSEC_POLY1305_TAG_LEN], const uint8_t *in,
			       size_t len, const uint8_t key[VECSEC_POLY1305_KEY_LEN]);

/**
 * Name of the Poly1305 implementation dispatch selects now.
 *
 * @return a static string.
 */
VECSEC_API const char *vecsec_poly1305_impl_name(void);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_POLY1305_H */
