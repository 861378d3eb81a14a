/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec engines: a dispatch context that binds a SIMD level to the calls
 * made through it, as Intel ipsec-mb binds one to its manager objects. The
 * plain entry points (vecsec_aead_seal(), vecsec_aead_burst(), ...) run at
 * the process's level (vecsec_isa_cap()); the ones here run at the
 * engine's, so that two users in one process (two crypto_vecsec devices
 * with different isa= devargs) each get the level they asked for.
 */
#ifndef VECSEC_ENGINE_H
#define VECSEC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec.h"
#include "vecsec_aead.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * An engine. Caller-allocated (vecsec_engine_init(), e.g. inside a DPDK
 * device's private data, shared between processes: it holds no pointer)
 * or from vecsec_engine_create(). Read-only once initialised: any number
 * of threads may use one at once. Fields are private.
 */
struct vecsec_engine {
	uint32_t opaque[4]; /**< private */
};

/**
 * Initialise an engine.
 *
 * @param e
 *   engine to fill.
 * @param cap
 *   the highest level its calls may use (one above the CPU's is lowered to
 *   it), or VECSEC_ISA_DEFAULT to follow the process's level. Either way
 *   the process's level (VECSEC_ISA, vecsec_isa_limit(),
 *   vecsec_force_isa()) bounds it too.
 * @return 0 on success; -EINVAL for NULL or a value that is no level.
 */
VECSEC_API int vecsec_engine_init(struct vecsec_engine *e, enum vecsec_isa cap);

/**
 * Allocate and initialise an engine (control path).
 *
 * @param cap
 *   as for vecsec_engine_init().
 * @return the engine, or NULL with errno set (EINVAL, ENOMEM).
 */
VECSEC_API struct vecsec_engine *vecsec_engine_create(enum vecsec_isa cap);

/**
 * Free an engine from vecsec_engine_create().
 *
 * @param e
 *   engine; NULL is ignored.
 */
VECSEC_API void vecsec_engine_free(struct vecsec_engine *e);

/**
 * The level an engine's calls run at now: the lower of its cap and the
 * process's level.
 *
 * @param e
 *   engine.
 * @return the level; VECSEC_ISA_SCALAR for NULL.
 */
VECSEC_API enum vecsec_isa vecsec_engine_isa(const struct vecsec_engine *e);

/**
 * vecsec_aead_seal() at the engine's level.
 *
 * @param e
 *   engine.
 * @param k
 *   expanded key.
 * @param out
 *   ciphertext, @p len bytes (may equal @p in; may be NULL when @p len is 0).
 * @param tag
 *   receives @p tag_len bytes (may be NULL when @p tag_len is 0).
 * @param tag_len
 *   as for vecsec_aead_seal().
 * @param in
 *   plaintext (may be NULL when @p len is 0).
 * @param len
 *   bytes.
 * @param nonce
 *   nonce.
 * @param nonce_len
 *   as for vecsec_aead_seal().
 * @param aad
 *   additional data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes of AAD.
 * @return as vecsec_aead_seal(); -EINVAL for a NULL engine too.
 */
VECSEC_API int vecsec_engine_seal(const struct vecsec_engine *e, const struct vecsec_aead_key *k,
				  uint8_t *out, uint8_t *tag, size_t tag_len, const uint8_t *in,
				  size_t len, const uint8_t *nonce, size_t nonce_len,
				  const uint8_t *aad, size_t aad_len);

/**
 * vecsec_aead_open() at the engine's level.
 *
 * @param e
 *   engine.
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
 *   as for vecsec_aead_open().
 * @param nonce
 *   nonce.
 * @param nonce_len
 *   as for vecsec_aead_open().
 * @param aad
 *   additional data (may be NULL when @p aad_len is 0).
 * @param aad_len
 *   bytes of AAD.
 * @return as vecsec_aead_open(); -EINVAL for a NULL engine too.
 */
VECSEC_API int vecsec_engine_open(const struct vecsec_engine *e, const struct vecsec_aead_key *k,
				  uint8_t *out, const uint8_t *in, size_t len,
				  const uint8_t *tag, size_t tag_len,
				  const uint8_t *nonce, size_t nonce_len,
				  const uint8_t *aad, size_t aad_len);

/**
 * vecsec_aead_burst() at the engine's level.
 *
 * @param e
 *   engine.
 * @param jobs
 *   array of @p n pointers to jobs.
 * @param n
 *   jobs (0 allowed; at most VECSEC_MAX_BURST).
 * @return how many jobs were taken: @p n, or 0 for a NULL engine or array
 *   or n > VECSEC_MAX_BURST.
 */
VECSEC_API unsigned int vecsec_engine_burst(const struct vecsec_engine *e,
					    struct vecsec_aead_job *const *jobs, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_ENGINE_H */
