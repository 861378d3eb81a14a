/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched (one-pass) ChaCha20-Poly1305 kernels (never installed): the
 * impl struct of their dispatch table and the kernel contract.
 *
 * Kernel contract (seal, open), for the data part of RFC 8439 2.8 only:
 *   - process the first len - len % step bytes (step: the impl's chunk,
 *     1 KiB for AVX-512) and return how many: seal writes out = in ^
 *     keystream and absorbs out (the ciphertext) into the Poly1305 state;
 *     open absorbs in (the ciphertext) and writes out = in ^ keystream.
 *     The caller does the rest (tail, padding, lengths, tag, and for open
 *     the check and the wipe of out on failure).
 *   - the ChaCha state's counter advances by the blocks used and never
 *     wraps inside the call (the caller checks, RFC 8439 limits); the
 *     Poly1305 state must be block-aligned (all AAD padding absorbed).
 *   - in == out allowed, partial overlap not; no alignment; constant time.
 */
#ifndef VECSEC_CHACHAPOLY_INTERNAL_H
#define VECSEC_CHACHAPOLY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"
#include "chacha/chacha_internal.h"
#include "poly1305/poly1305_internal.h"

struct chachapoly_impl {
	const char *name;            /* "avx512ifma" */
	enum vecsec_isa isa;
	uint64_t needs;
	size_t min_len;              /* below this the two-pass path is as fast */
	size_t (*seal)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
	size_t (*open)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
};

extern const struct chachapoly_impl vecsec_chachapoly_impl_avx512ifma;
extern const struct chachapoly_impl vecsec_chachapoly_impl_avx2;

/*
 * The stitched impl selected now, or NULL: none for this ISA cap, or the
 * two-pass path forced (VECSEC_CHACHAPOLY=twopass in the environment when
 * the selectors run, or vecsec_chachapoly_set_twopass(true)).
 */
const struct chachapoly_impl *vecsec_chachapoly_impl(void);

/*
 * Force the two-pass path (true) or allow the stitched one again (false);
 * for tests and benchmarks comparing the two. Returns the previous value.
 */
bool vecsec_chachapoly_set_twopass(bool twopass);

#endif /* VECSEC_CHACHAPOLY_INTERNAL_H */
