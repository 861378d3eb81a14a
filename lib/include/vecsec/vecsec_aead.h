/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec AEAD: ChaCha20-Poly1305 (RFC 8439), XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha), ARIA-GCM (RFC 5794 + NIST SP 800-38D) and
 * ARIA-CTR, one-shot and in bursts of independent jobs. Their ESP forms
 * (RFC 7634, RFC 4106 and RFC 3686 layouts: key || salt, nonce, AAD) are
 * in vecsec_esp.h.
 */
#ifndef VECSEC_AEAD_H
#define VECSEC_AEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Algorithms a key (and so a job) can use. */
enum vecsec_aead_alg {
	VECSEC_AEAD_NONE = 0,
	/** RFC 8439: key 32, nonce 12, tag 16. */
	VECSEC_AEAD_CHACHA20_POLY1305 = 1,
	/** draft-irtf-cfrg-xchacha: key 32, nonce 24, tag 16. */
	VECSEC_AEAD_XCHACHA20_POLY1305 = 2,
	/** ARIA in GCM (SP 800-38D): key 16/24/32, nonce >= 1 byte (12 fast), tag 4..16. */
	VECSEC_AEAD_ARIA_GCM = 3,
	/**
	 * ARIA in CTR, no tag (tag_len 0): nonce is the 16-byte initial counter
	 * block whose last 4 bytes are a big-endian block counter that must not
	 * wrap (the RFC 3686 layout; a job that would wrap is VECSEC_JOB_INVALID).
	 */
	VECSEC_AEAD_ARIA_CTR = 4,
};

#define VECSEC_AEAD_TAG_LEN 16        /**< full tag of every AEAD here */
#define VECSEC_CHACHAPOLY_KEY_LEN 32
#define VECSEC_CHACHAPOLY_NONCE_LEN 12
#define VECSEC_XCHACHAPOLY_NONCE_LEN 24
#define VECSEC_ARIA_CTR_NONCE_LEN 16
#define VECSEC_AEAD_MAX_AAD_LEN 65535 /**< AAD above this is -EINVAL */

#define VECSEC_AEAD_KEY_WORDS 256     /**< 2 KiB: room for any large key schedule */
#define VECSEC_AEAD_KEY_SMALL_WORDS 6 /**< 48 B in the header's line: small schedules */

/**
 * An expanded key (key schedule, GHASH powers, ESP salt). Filled by
 * vecsec_aead_key_init() (or vecsec_esp_key_init()), read-only afterwards
 * (safe to share between threads), wiped by vecsec_aead_key_wipe(). Fields
 * other than the header's are private.
 *
 * Layout: the header (algorithm, key length, ESP salt) opens the first
 * 64-byte line, whose other 48 bytes hold a small schedule (the 32-byte
 * (X)ChaCha20 key); a large schedule (ARIA's round keys, GHASH powers)
 * starts at byte 64.
 *
 * Size: the full struct fits every algorithm (so one may be declared on
 * the stack or in static storage), but an object for a given algorithm
 * needs only vecsec_aead_key_size() bytes: it may be allocated with just
 * that many bytes (64-byte aligned), and vecsec_aead_key_init(),
 * vecsec_esp_key_init(), vecsec_aead_key_wipe() and every seal, open,
 * burst and engine call on it read and write no byte beyond them. Such an
 * object must not be copied as a whole struct (copy its size in bytes).
 */
struct vecsec_aead_key {
#ifdef __cplusplus
	alignas(64)
#else
	_Alignas(64)
#endif
	uint32_t alg;                           /**< enum vecsec_aead_alg */
	uint32_t key_len;                       /**< bytes of cipher key */
	uint8_t salt[4];                        /**< ESP salt/nonce (vecsec_esp_key_init()) */
	uint32_t flags;                         /**< private */
	uint64_t small[VECSEC_AEAD_KEY_SMALL_WORDS]; /**< small schedule; private */
#ifdef __cplusplus
	alignas(64)
#else
	_Alignas(64)
#endif
	uint64_t opaque[VECSEC_AEAD_KEY_WORDS]; /**< large schedule; private */
};

/** Direction of a job. */
enum vecsec_aead_dir {
	VECSEC_AEAD_SEAL = 0, /**< encrypt, then write the tag */
	VECSEC_AEAD_OPEN = 1, /**< check the tag, then decrypt */
};

/** Status of a job after vecsec_aead_burst(). */
enum vecsec_job_status {
	VECSEC_JOB_OK = 0,
	VECSEC_JOB_AUTH_FAILED = 1, /**< open: tag mismatch; output zeroed */
	VECSEC_JOB_INVALID = 2,     /**< bad argument or length; nothing written */
	VECSEC_JOB_PENDING = 3,     /**< not yet processed (never after burst) */
};

/** One segment of a scatter-gather list (as one mbuf of a chain). */
struct vecsec_seg {
	uint8_t *data;
	size_t len;
};

/**
 * One AEAD operation. The data are @p len bytes taken from @p in (linear)
 * or from the segment list @p in_segs (when @p nb_in_segs > 0), and written
 * to @p out or @p out_segs likewise. Segments may have any length (empty
 * too); the lists must cover @p len bytes (bytes beyond are untouched).
 * In place: the same pointers or the same list. Partial overlap of input
 * and output is not allowed. An empty buffer may be NULL, as in the
 * one-shot calls: @p aad when @p aad_len is 0, @p in and @p out when
 * @p len is 0, a segment's data when its length is 0.
 */
struct vecsec_aead_job {
	const struct vecsec_aead_key *key;
	uint32_t dir;                     /**< enum vecsec_aead_dir */
	uint32_t status;                  /**< enum vecsec_job_status, out */
	const uint8_t *nonce;
	size_t nonce_len;
	const uint8_t *aad;
	size_t aad_len;
	size_t len;                       /**< bytes to encrypt/decrypt */
	const uint8_t *in;                /**< linear source */
	uint8_t *out;                     /**< linear destination */
	const struct vecsec_seg *in_segs; /**< scatter-gather source */
	uint32_t nb_in_segs;              /**< 0: use @p in */
	uint32_t nb_out_segs;             /**< 0: use @p out */
	const struct vecsec_seg *out_segs;/**< scatter-gather destination */
	uint8_t *tag;                     /**< seal: written; open: read */
	size_t tag_len;                   /**< 16 for ChaCha; 4..16 GCM; 0 CTR */
	void *user;                       /**< caller's, never touched */
};

/** Most jobs one vecsec_aead_burst() call takes. */
#define VECSEC_MAX_BURST 256

/**
 * Expand a key.
 *
 * @param k
 *   key object to fill: vecsec_aead_key_size(@p alg, @p key_len) bytes,
 *   64-byte aligned (the full struct always does). Only those bytes are
 *   written. On failure no algorithm is left in it: for a bad length its
 *   first 64 bytes (the header's line, which every key object has) are
 *   zeroed; for an unknown algorithm or a NULL pointer nothing is written.
 * @param alg
 *   algorithm.
 * @param key
 *   cipher key.
 * @param key_len
 *   32 for (X)ChaCha20-Poly1305; 16, 24 or 32 for ARIA.
 * @return 0 on success; -EINVAL for NULL pointers or a bad length;
 *   -ENOTSUP for an unknown algorithm.
 */
VECSEC_API int vecsec_aead_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg,
				    const uint8_t *key, size_t key_len);

/**
 * Bytes a key object for an algorithm and key length needs: a multiple of
 * 64, at most sizeof(struct vecsec_aead_key) (64 for (X)ChaCha20-Poly1305:
 * the header's line alone). A 64-byte aligned allocation of this size may
 * hold the key (see struct vecsec_aead_key).
 *
 * @param alg
 *   algorithm.
 * @param key_len
 *   bytes of cipher key, as for vecsec_aead_key_init() (without an ESP salt).
 * @return the size in bytes; 0 for an unknown algorithm or a key length
 *   the algorithm does not take.
 */
VECSEC_API size_t vecsec_aead_key_size(enum vecsec_aead_alg alg, size_t key_len);

/**
 * Wipe a key object: the vecsec_aead_key_size() bytes its header's
 * algorithm and key length name; if the header names none (as after a
 * failed init or a wipe), its first 64 bytes, the line every key object
 * has.
 *
 * @param k
 *   key object; NULL is ignored.
 */
VECSEC_API void vecsec_aead_key_wipe(struct vecsec_aead_key *k);

/**
 * Encrypt and authenticate (one shot).
 *
 * @param k
 *   expanded key; its algorithm decides the rest.
 * @param out
 *   ciphertext, @p len bytes (may equal @p in; may be NULL when @p len is 0).
 * @param tag
 *   receives @p tag_len bytes (may be NULL when @p tag_len is 0).
 * @param tag_len
 *   16 for ChaCha/XChaCha, 4..16 for ARIA-GCM, 0 for ARIA-CTR.
 * @param in
 *   plaintext (may be NULL when @p len is 0).
 * @param len
 *   bytes (0 allowed; at most 2^38 - 64 for ChaCha20).
 * @param nonce
 *   nonce.
 * @param nonce_len
 *   12 (ChaCha20), 24 (XChaCha20), >= 1 (ARIA-GCM), 16 (ARIA-CTR).
 * @param aad
 *   additional data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes of AAD, at most VECSEC_AEAD_MAX_AAD_LEN.
 * @return 0 on success; -EINVAL for a bad argument or length.
 */
VECSEC_API int vecsec_aead_seal(const struct vecsec_aead_key *k, uint8_t *out, uint8_t *tag,
				size_t tag_len, const uint8_t *in, size_t len,
				const uint8_t *nonce, size_t nonce_len,
				const uint8_t *aad, size_t aad_len);

/**
 * Verify and decrypt (one shot). The tag is checked in constant time before
 * any plaintext is released; on failure @p out is zeroed.
 *
 * @param k
 *   expanded key.
 * @param out
 *   plaintext, @p len bytes (may equal @p in; may be NULL when @p len is 0).
 * @param in
 *   ciphertext (may be NULL when @p len is 0).
 * @param len
 *   bytes.
 * @param tag
 *   received tag (may be NULL when @p tag_len is 0).
 * @param tag_len
 *   as for vecsec_aead_seal().
 * @param nonce
 *   nonce.
 * @param nonce_len
 *   as for vecsec_aead_seal().
 * @param aad
 *   additional data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes of AAD.
 * @return 0 on success; -EBADMSG if the tag does not match (@p out zeroed);
 *   -EINVAL for a bad argument or length.
 */
VECSEC_API int vecsec_aead_open(const struct vecsec_aead_key *k, uint8_t *out,
				const uint8_t *in, size_t len,
				const uint8_t *tag, size_t tag_len,
				const uint8_t *nonce, size_t nonce_len,
				const uint8_t *aad, size_t aad_len);

/**
 * Run a burst of independent jobs (any mix of keys, algorithms, nonces,
 * lengths, directions, linear or scatter-gather). Each job ends exactly as
 * vecsec_aead_seal()/vecsec_aead_open() would have left it, with its status
 * set; one bad job never stops the others. Jobs run interleaved (SIMD
 * lanes), so one job's output or tag must not overlap another job's
 * buffers; read-only inputs may be shared.
 *
 * @param jobs
 *   array of @p n pointers to jobs.
 * @param n
 *   jobs (0 allowed; at most VECSEC_MAX_BURST).
 * @return how many jobs were taken: @p n, or 0 for a NULL array or
 *   n > VECSEC_MAX_BURST.
 */
VECSEC_API unsigned int vecsec_aead_burst(struct vecsec_aead_job *const *jobs, unsigned int n);

/**
 * Name of an algorithm ("chacha20-poly1305", "xchacha20-poly1305",
 * "aria-gcm", "aria-ctr").
 *
 * @param alg
 *   algorithm.
 * @return a static string; "unknown" otherwise.
 */
VECSEC_API const char *vecsec_aead_alg_name(enum vecsec_aead_alg alg);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_AEAD_H */
