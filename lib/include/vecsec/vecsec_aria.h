/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec ARIA: the block cipher of RFC 5794 (128/192/256-bit keys) in ECB,
 * CTR (128-bit big-endian counter, as OpenSSL's aria-*-ctr) and GCM (NIST SP
 * 800-38D, streaming and one shot). Their ESP forms (ARIA-GCM with the
 * RFC 4106 layout, ARIA-CTR with the RFC 3686 layout) go through
 * vecsec_aead.h with the layouts of vecsec_esp.h.
 */
#ifndef VECSEC_ARIA_H
#define VECSEC_ARIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VECSEC_ARIA_BLOCK_LEN 16      /**< bytes per block */
#define VECSEC_ARIA_GCM_IV_LEN 12     /**< the fast-path GCM IV length */
#define VECSEC_ARIA_GCM_TAG_LEN 16    /**< full GCM tag */
#define VECSEC_ARIA_GCM_MAX_LEN ((UINT64_C(1) << 36) - 32) /**< SP 800-38D 5.2.1.1 */

/**
 * An expanded ARIA key (encryption and decryption round keys). Fixed size,
 * caller-allocated, read-only after vecsec_aria_key_init() (threads may
 * share it), wiped by vecsec_aria_key_wipe(). Fields are private.
 */
struct vecsec_aria_key {
#ifdef __cplusplus
	alignas(16)
#else
	_Alignas(16)
#endif
	uint64_t opaque[72]; /**< private */
};

/**
 * An expanded ARIA-GCM key: the ARIA key and the GHASH key H = E(0^128)
 * with its powers. Same rules as struct vecsec_aria_key.
 */
struct vecsec_aria_gcm_key {
#ifdef __cplusplus
	alignas(16)
#else
	_Alignas(16)
#endif
	uint64_t opaque[112]; /**< private */
};

/**
 * State of one streaming GCM operation. It points to its key, which must
 * outlive it. Fields are private.
 */
struct vecsec_aria_gcm_ctx {
#ifdef __cplusplus
	alignas(16)
#else
	_Alignas(16)
#endif
	uint64_t opaque[16]; /**< private */
};

/**
 * Expand an ARIA key (RFC 5794 2.2).
 *
 * @param k
 *   key object to fill.
 * @param key
 *   cipher key.
 * @param key_len
 *   16, 24 or 32 bytes (12, 14 or 16 rounds).
 * @return 0 on success; -EINVAL for NULL pointers or another length.
 */
VECSEC_API int vecsec_aria_key_init(struct vecsec_aria_key *k, const uint8_t *key,
				    size_t key_len);

/**
 * Wipe an expanded key.
 *
 * @param k
 *   key object; NULL is ignored.
 */
VECSEC_API void vecsec_aria_key_wipe(struct vecsec_aria_key *k);

/**
 * Encrypt one block (RFC 5794 2.3.1).
 *
 * @param k
 *   expanded key.
 * @param out
 *   ciphertext block (may equal @p in).
 * @param in
 *   plaintext block.
 */
VECSEC_API void vecsec_aria_encrypt_block(const struct vecsec_aria_key *k,
					  uint8_t out[VECSEC_ARIA_BLOCK_LEN],
					  const uint8_t in[VECSEC_ARIA_BLOCK_LEN]);

/**
 * Decrypt one block (RFC 5794 2.3.2: the same rounds with the decryption keys).
 *
 * @param k
 *   expanded key.
 * @param out
 *   plaintext block (may equal @p in).
 * @param in
 *   ciphertext block.
 */
VECSEC_API void vecsec_aria_decrypt_block(const struct vecsec_aria_key *k,
					  uint8_t out[VECSEC_ARIA_BLOCK_LEN],
					  const uint8_t in[VECSEC_ARIA_BLOCK_LEN]);

/**
 * Encrypt in ECB mode.
 *
 * @param k
 *   expanded key.
 * @param out
 *   @p len bytes (may equal @p in; partial overlap is not allowed).
 * @param in
 *   @p len bytes.
 * @param len
 *   a multiple of 16 (0 allowed).
 * @return 0 on success; -EINVAL for NULL pointers or a length that is no
 *   multiple of 16 (nothing written).
 */
VECSEC_API int vecsec_aria_ecb_encrypt(const struct vecsec_aria_key *k, uint8_t *out,
				       const uint8_t *in, size_t len);

/**
 * Decrypt in ECB mode.
 *
 * @param k
 *   expanded key.
 * @param out
 *   @p len bytes (may equal @p in).
 * @param in
 *   @p len bytes.
 * @param len
 *   a multiple of 16 (0 allowed).
 * @return 0 on success; -EINVAL for NULL pointers or a length that is no
 *   multiple of 16 (nothing written).
 */
VECSEC_API int vecsec_aria_ecb_decrypt(const struct vecsec_aria_key *k, uint8_t *out,
				       const uint8_t *in, size_t len);

/**
 * Encrypt or decrypt in CTR mode with a 128-bit big-endian counter: block i
 * is xored with E(ctr + i mod 2^128), as OpenSSL's aria-128/192/256-ctr.
 *
 * @param k
 *   expanded key.
 * @param out
 *   @p len bytes (may equal @p in).
 * @param in
 *   @p len bytes.
 * @param len
 *   any length (0 allowed).
 * @param ctr
 *   the initial counter block (not modified).
 * @return 0 on success; -EINVAL for NULL pointers.
 */
VECSEC_API int vecsec_aria_ctr_xor(const struct vecsec_aria_key *k, uint8_t *out,
				   const uint8_t *in, size_t len,
				   const uint8_t ctr[VECSEC_ARIA_BLOCK_LEN]);

/**
 * CTR mode with a 32-bit big-endian block counter in the last 4 bytes of
 * the counter block that must not wrap (RFC 3686 4 layout): block i is
 * xored with E(ctr[0..11] || (c + i)), where c + i stays below 2^32.
 *
 * @param k
 *   expanded key.
 * @param out
 *   @p len bytes (may equal @p in).
 * @param in
 *   @p len bytes.
 * @param len
 *   any length (0 allowed).
 * @param ctr
 *   the initial counter block (not modified).
 * @return 0 on success; -EINVAL for NULL pointers or a message that would
 *   wrap the 32-bit counter (nothing written).
 */
VECSEC_API int vecsec_aria_ctr32_xor(const struct vecsec_aria_key *k, uint8_t *out,
				     const uint8_t *in, size_t len,
				     const uint8_t ctr[VECSEC_ARIA_BLOCK_LEN]);

/**
 * Expand an ARIA-GCM key: the ARIA key, H = E_K(0^128) and H's powers.
 *
 * @param k
 *   key object to fill.
 * @param key
 *   cipher key.
 * @param key_len
 *   16, 24 or 32.
 * @return 0 on success; -EINVAL for NULL pointers or another length.
 */
VECSEC_API int vecsec_aria_gcm_key_init(struct vecsec_aria_gcm_key *k, const uint8_t *key,
					size_t key_len);

/**
 * Wipe an expanded GCM key.
 *
 * @param k
 *   key object; NULL is ignored.
 */
VECSEC_API void vecsec_aria_gcm_key_wipe(struct vecsec_aria_gcm_key *k);

/**
 * Start a streaming GCM operation (SP 800-38D 7.1 steps 1-2): a 12-byte IV
 * gives J0 = IV || 0^31 || 1, any other length J0 = GHASH(IV padded ||
 * [len(IV)]64).
 *
 * @param ctx
 *   context to fill; it keeps a pointer to @p k.
 * @param k
 *   expanded GCM key (must outlive @p ctx's use).
 * @param iv
 *   initialisation vector.
 * @param iv_len
 *   1 or more bytes (12 recommended).
 * @return 0 on success; -EINVAL for NULL pointers or iv_len 0.
 */
VECSEC_API int vecsec_aria_gcm_init(struct vecsec_aria_gcm_ctx *ctx,
				    const struct vecsec_aria_gcm_key *k,
				    const uint8_t *iv, size_t iv_len);

/**
 * Add additional authenticated data; may be called several times, only
 * before the first encrypt/decrypt update.
 *
 * @param ctx
 *   started context.
 * @param aad
 *   data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes.
 * @return 0 on success; -EINVAL for NULL, a context already past its AAD,
 *   or an unstarted one.
 */
VECSEC_API int vecsec_aria_gcm_aad(struct vecsec_aria_gcm_ctx *ctx, const uint8_t *aad,
				   size_t aad_len);

/**
 * Encrypt the next chunk (any size; the chunks together form the message).
 *
 * @param ctx
 *   started context, not used for decryption.
 * @param out
 *   @p len bytes of ciphertext (may equal @p in).
 * @param in
 *   @p len bytes of plaintext.
 * @param len
 *   bytes (0 allowed).
 * @return 0 on success; -EINVAL for NULL, a context that decrypts or is
 *   finished, or a message growing past VECSEC_ARIA_GCM_MAX_LEN.
 */
VECSEC_API int vecsec_aria_gcm_encrypt_update(struct vecsec_aria_gcm_ctx *ctx, uint8_t *out,
					      const uint8_t *in, size_t len);

/**
 * Decrypt the next chunk. The plaintext is released before the tag is
 * checked: use vecsec_aria_gcm_open() when that is not acceptable, or keep
 * the output until vecsec_aria_gcm_check() succeeds.
 *
 * @param ctx
 *   started context, not used for encryption.
 * @param out
 *   @p len bytes of plaintext (may equal @p in).
 * @param in
 *   @p len bytes of ciphertext.
 * @param len
 *   bytes (0 allowed).
 * @return 0 on success; -EINVAL as for vecsec_aria_gcm_encrypt_update().
 */
VECSEC_API int vecsec_aria_gcm_decrypt_update(struct vecsec_aria_gcm_ctx *ctx, uint8_t *out,
					      const uint8_t *in, size_t len);

/**
 * Finish an encryption: write the tag (its first @p tag_len bytes) and
 * wipe the context.
 *
 * @param ctx
 *   started context.
 * @param tag
 *   receives @p tag_len bytes.
 * @param tag_len
 *   4 to 16.
 * @return 0 on success; -EINVAL for NULL, a bad tag length or a context
 *   that is not encrypting (then it is left as it was).
 */
VECSEC_API int vecsec_aria_gcm_final(struct vecsec_aria_gcm_ctx *ctx, uint8_t *tag,
				     size_t tag_len);

/**
 * Finish a decryption: compare the computed tag with @p tag in constant
 * time and wipe the context.
 *
 * @param ctx
 *   started context.
 * @param tag
 *   received tag.
 * @param tag_len
 *   4 to 16.
 * @return 0 if the tag matches; -EBADMSG if not; -EINVAL for NULL, a bad
 *   tag length or a context that encrypts.
 */
VECSEC_API int vecsec_aria_gcm_check(struct vecsec_aria_gcm_ctx *ctx, const uint8_t *tag,
				     size_t tag_len);

/**
 * Encrypt and authenticate in one shot (SP 800-38D 7.1).
 *
 * @param k
 *   expanded GCM key.
 * @param out
 *   @p len bytes of ciphertext (may equal @p in).
 * @param tag
 *   receives @p tag_len bytes.
 * @param tag_len
 *   4 to 16.
 * @param in
 *   plaintext.
 * @param len
 *   bytes, at most VECSEC_ARIA_GCM_MAX_LEN.
 * @param iv
 *   IV.
 * @param iv_len
 *   1 or more bytes.
 * @param aad
 *   additional data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes.
 * @return 0 on success; -EINVAL for a bad argument (nothing written).
 */
VECSEC_API int vecsec_aria_gcm_seal(const struct vecsec_aria_gcm_key *k, uint8_t *out,
				    uint8_t *tag, size_t tag_len, const uint8_t *in, size_t len,
				    const uint8_t *iv, size_t iv_len, const uint8_t *aad,
				    size_t aad_len);

/**
 * Verify and decrypt in one shot (SP 800-38D 7.2): the tag is checked over
 * the ciphertext before any plaintext is written.
 *
 * @param k
 *   expanded GCM key.
 * @param out
 *   @p len bytes of plaintext (may equal @p in); zeroed on failure.
 * @param in
 *   ciphertext.
 * @param len
 *   bytes, at most VECSEC_ARIA_GCM_MAX_LEN.
 * @param tag
 *   received tag.
 * @param tag_len
 *   4 to 16.
 * @param iv
 *   IV.
 * @param iv_len
 *   1 or more bytes.
 * @param aad
 *   additional data.
 * @param aad_len
 *   bytes.
 * @return 0 on success; -EBADMSG if the tag does not match (@p out zeroed);
 *   -EINVAL for a bad argument (nothing written).
 */
VECSEC_API int vecsec_aria_gcm_open(const struct vecsec_aria_gcm_key *k, uint8_t *out,
				    const uint8_t *in, size_t len, const uint8_t *tag,
				    size_t tag_len, const uint8_t *iv, size_t iv_len,
				    const uint8_t *aad, size_t aad_len);

/**
 * Name of the ARIA implementation dispatch selects now ("ref", ...).
 *
 * @return a static string.
 */
VECSEC_API const char *vecsec_aria_impl_name(void);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_ARIA_H */
