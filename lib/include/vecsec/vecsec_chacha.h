/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec ChaCha stream ciphers: ChaCha20/12/8 in the IETF form of RFC 8439
 * (96-bit nonce, 32-bit block counter), XChaCha20/12 (draft-irtf-cfrg-xchacha:
 * 192-bit nonce, 64-bit block counter; libsodium's
 * crypto_stream_xchacha20_xor_ic, Linux's xchacha12/xchacha20) and HChaCha.
 */
#ifndef VECSEC_CHACHA_H
#define VECSEC_CHACHA_H

#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VECSEC_CHACHA_KEY_LEN 32
#define VECSEC_CHACHA_NONCE_LEN 12
#define VECSEC_XCHACHA_NONCE_LEN 24
#define VECSEC_HCHACHA_NONCE_LEN 16
#define VECSEC_CHACHA_BLOCK_LEN 64

/**
 * ChaCha (RFC 8439 2.4), IETF form: out = in XOR keystream, the keystream
 * starting at block @p counter.
 *
 * @param out
 *   output, @p len bytes; may equal @p in (partial overlap is not allowed).
 * @param in
 *   input, @p len bytes.
 * @param len
 *   bytes (0 allowed).
 * @param key
 *   32-byte key.
 * @param nonce
 *   12-byte nonce.
 * @param counter
 *   initial 32-bit block counter.
 * @param rounds
 *   20, 12 or 8.
 * @return 0 on success; -EINVAL for NULL pointers (with @p len > 0, or a
 *   NULL key or nonce), a bad round count, or if the 32-bit counter would
 *   wrap (counter + ceil(len / 64) > 2^32); nothing is written then.
 */
VECSEC_API int vecsec_chacha_xor(uint8_t *out, const uint8_t *in, size_t len,
				 const uint8_t key[VECSEC_CHACHA_KEY_LEN],
				 const uint8_t nonce[VECSEC_CHACHA_NONCE_LEN],
				 uint32_t counter, unsigned int rounds);

/**
 * XChaCha (draft-irtf-cfrg-xchacha 2.3): subkey = HChaCha(key, nonce[0..16]),
 * then ChaCha with the subkey, state words 12-13 = 64-bit block counter
 * (low word first), words 14-15 = nonce[16..24].
 *
 * @param out
 *   output, @p len bytes; may equal @p in.
 * @param in
 *   input, @p len bytes.
 * @param len
 *   bytes (0 allowed).
 * @param key
 *   32-byte key.
 * @param nonce
 *   24-byte nonce.
 * @param counter
 *   initial 64-bit block counter.
 * @param rounds
 *   20 or 12.
 * @return 0 on success; -EINVAL for NULL pointers, a bad round count, or a
 *   64-bit counter that would wrap; nothing is written then.
 */
VECSEC_API int vecsec_xchacha_xor(uint8_t *out, const uint8_t *in, size_t len,
				  const uint8_t key[VECSEC_CHACHA_KEY_LEN],
				  const uint8_t nonce[VECSEC_XCHACHA_NONCE_LEN],
				  uint64_t counter, unsigned int rounds);

/**
 * HChaCha (draft-irtf-cfrg-xchacha 2.2): a 32-byte subkey from a key and a
 * 16-byte nonce (libsodium's crypto_core_hchacha20 for 20 rounds).
 *
 * @param out
 *   receives 32 bytes (secret: wipe it after use).
 * @param key
 *   32-byte key.
 * @param nonce
 *   16-byte input.
 * @param rounds
 *   20, 12 or 8.
 * @return 0 on success; -EINVAL for NULL pointers or a bad round count.
 */
VECSEC_API int vecsec_hchacha(uint8_t out[32], const uint8_t key[VECSEC_CHACHA_KEY_LEN],
			      const uint8_t nonce[VECSEC_HCHACHA_NONCE_LEN], unsigned int rounds);

/**
 * Name of the ChaCha implementation dispatch selects now ("ref", "avx2", ...).
 *
 * @return a static string.
 */
VECSEC_API const char *vecsec_chacha_impl_name(void);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_CHACHA_H */
