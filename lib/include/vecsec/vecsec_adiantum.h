/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec Adiantum: length-preserving tweakable encryption (Crowley and
 * Biggers, "Adiantum: length-preserving encryption for entry-level
 * processors", 2018) with XChaCha12 or XChaCha20 and AES-256, as Linux's
 * adiantum(xchacha12,aes) and adiantum(xchacha20,aes); and its hash,
 * NHPoly1305 (as Linux's nhpoly1305), one-shot and incremental.
 */
#ifndef VECSEC_ADIANTUM_H
#define VECSEC_ADIANTUM_H

#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VECSEC_NHPOLY1305_KEY_LEN 1088  /**< 16-byte Poly1305 r || 1072-byte NH key */
#define VECSEC_NHPOLY1305_DIGEST_LEN 16
#define VECSEC_NHPOLY1305_KEY_WORDS 144
#define VECSEC_NHPOLY1305_CTX_WORDS 96

#define VECSEC_ADIANTUM_KEY_LEN 32
#define VECSEC_ADIANTUM_TWEAK_LEN 32
#define VECSEC_ADIANTUM_MIN_LEN 16      /**< shorter messages are -EINVAL */
#define VECSEC_ADIANTUM_KEY_WORDS 256

/** The stream cipher an Adiantum key uses. */
enum vecsec_adiantum_stream {
	VECSEC_ADIANTUM_XCHACHA12 = 12, /**< adiantum(xchacha12,aes): the paper's choice */
	VECSEC_ADIANTUM_XCHACHA20 = 20, /**< adiantum(xchacha20,aes) */
};

/**
 * An NHPoly1305 key, parsed: caller-allocated, fixed size, contents
 * private, read-only once filled (safe to share between threads); wipe
 * with vecsec_nhpoly1305_key_wipe().
 */
struct vecsec_nhpoly1305_key {
#ifdef __cplusplus
	alignas(64)
#else
	_Alignas(64)
#endif
	uint64_t opaque[VECSEC_NHPOLY1305_KEY_WORDS]; /**< private */
};

/**
 * Incremental NHPoly1305 state: caller-allocated, fixed size, contents
 * private. It points to its key, which must stay valid until
 * vecsec_nhpoly1305_final() (that call wipes the state).
 */
struct vecsec_nhpoly1305_ctx {
#ifdef __cplusplus
	alignas(64)
#else
	_Alignas(64)
#endif
	uint64_t opaque[VECSEC_NHPOLY1305_CTX_WORDS]; /**< private */
};

/**
 * An Adiantum key: the stream cipher key and the subkeys derived from it
 * (AES-256 schedule, hash keys). Caller-allocated, fixed size, contents
 * private, read-only once filled (safe to share between threads); wipe
 * with vecsec_adiantum_key_wipe().
 */
struct vecsec_adiantum_key {
#ifdef __cplusplus
	alignas(64)
#else
	_Alignas(64)
#endif
	uint64_t opaque[VECSEC_ADIANTUM_KEY_WORDS]; /**< private */
};

/**
 * Parse an NHPoly1305 key (Linux's layout).
 *
 * @param k
 *   key to fill.
 * @param key
 *   VECSEC_NHPOLY1305_KEY_LEN bytes: Poly1305 r (clamped here), then the
 *   NH key as 268 little-endian 32-bit words.
 * @param key_len
 *   must be VECSEC_NHPOLY1305_KEY_LEN.
 * @return 0 on success; -EINVAL for NULL pointers or a bad @p key_len.
 */
VECSEC_API int vecsec_nhpoly1305_key_init(struct vecsec_nhpoly1305_key *k, const uint8_t *key,
					  size_t key_len);

/**
 * Wipe a key.
 *
 * @param k
 *   key to wipe (NULL: nothing happens).
 */
VECSEC_API void vecsec_nhpoly1305_key_wipe(struct vecsec_nhpoly1305_key *k);

/**
 * Start hashing a message.
 *
 * @param ctx
 *   state to fill.
 * @param k
 *   key from vecsec_nhpoly1305_key_init(), valid until the final call.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_nhpoly1305_init(struct vecsec_nhpoly1305_ctx *ctx,
				     const struct vecsec_nhpoly1305_key *k);

/**
 * Absorb message bytes; calls may split the message anywhere.
 *
 * @param ctx
 *   state from vecsec_nhpoly1305_init().
 * @param in
 *   bytes (may be NULL when @p len is 0).
 * @param len
 *   bytes.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_nhpoly1305_update(struct vecsec_nhpoly1305_ctx *ctx, const uint8_t *in,
					size_t len);

/**
 * Finish: the last partial 16-byte unit is zero-padded; the digest is the
 * Poly1305 accumulator mod 2^130 - 5, low 128 bits, little-endian (no "s").
 * The state is wiped.
 *
 * @param ctx
 *   state from vecsec_nhpoly1305_init().
 * @param out
 *   receives VECSEC_NHPOLY1305_DIGEST_LEN bytes.
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_nhpoly1305_final(struct vecsec_nhpoly1305_ctx *ctx,
				       uint8_t out[VECSEC_NHPOLY1305_DIGEST_LEN]);

/**
 * NHPoly1305 in one call.
 *
 * @param out
 *   receives VECSEC_NHPOLY1305_DIGEST_LEN bytes.
 * @param in
 *   message (may be NULL when @p len is 0).
 * @param len
 *   bytes, any length.
 * @param k
 *   key from vecsec_nhpoly1305_key_init().
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_nhpoly1305(uint8_t out[VECSEC_NHPOLY1305_DIGEST_LEN], const uint8_t *in,
				 size_t len, const struct vecsec_nhpoly1305_key *k);

/**
 * Derive an Adiantum key as the paper and Linux's adiantum_setkey() do:
 * K_E (AES-256), K_T (tweak hash) and K_M (NHPoly1305) are the first
 * 32 + 16 + 1088 bytes of the XChaCha keystream under K_S, nonce 1 || 0^191.
 *
 * @param k
 *   key to fill.
 * @param key
 *   VECSEC_ADIANTUM_KEY_LEN bytes: the stream cipher key K_S.
 * @param key_len
 *   must be VECSEC_ADIANTUM_KEY_LEN.
 * @param stream
 *   VECSEC_ADIANTUM_XCHACHA12 or VECSEC_ADIANTUM_XCHACHA20.
 * @return 0 on success; -EINVAL for NULL pointers, a bad @p key_len or an
 *   unknown @p stream.
 */
VECSEC_API int vecsec_adiantum_key_init(struct vecsec_adiantum_key *k, const uint8_t *key,
					size_t key_len, enum vecsec_adiantum_stream stream);

/**
 * Wipe a key.
 *
 * @param k
 *   key to wipe (NULL: nothing happens).
 */
VECSEC_API void vecsec_adiantum_key_wipe(struct vecsec_adiantum_key *k);

/**
 * Encrypt: the ciphertext has the plaintext's length, and every output bit
 * depends on every input bit and on the tweak.
 *
 * @param k
 *   key from vecsec_adiantum_key_init().
 * @param out
 *   receives @p len bytes; may be @p in (in place), must not otherwise
 *   overlap it.
 * @param in
 *   plaintext.
 * @param len
 *   bytes, at least VECSEC_ADIANTUM_MIN_LEN.
 * @param tweak
 *   VECSEC_ADIANTUM_TWEAK_LEN bytes (Linux: the IV), e.g. a sector number.
 * @return 0 on success; -EINVAL for NULL pointers or @p len below
 *   VECSEC_ADIANTUM_MIN_LEN (nothing written).
 */
VECSEC_API int vecsec_adiantum_encrypt(const struct vecsec_adiantum_key *k, uint8_t *out,
				       const uint8_t *in, size_t len,
				       const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN]);

/**
 * Decrypt: the inverse of vecsec_adiantum_encrypt() for the same key and
 * tweak. There is no authentication: any ciphertext decrypts.
 *
 * @param k
 *   key from vecsec_adiantum_key_init().
 * @param out
 *   receives @p len bytes; may be @p in (in place), must not otherwise
 *   overlap it.
 * @param in
 *   ciphertext.
 * @param len
 *   bytes, at least VECSEC_ADIANTUM_MIN_LEN.
 * @param tweak
 *   VECSEC_ADIANTUM_TWEAK_LEN bytes, as given to encryption.
 * @return 0 on success; -EINVAL for NULL pointers or @p len below
 *   VECSEC_ADIANTUM_MIN_LEN (nothing written).
 */
VECSEC_API int vecsec_adiantum_decrypt(const struct vecsec_adiantum_key *k, uint8_t *out,
				       const uint8_t *in, size_t len,
				       const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN]);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_ADIANTUM_H */
