/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched (one-pass) ChaCha20-Poly1305 kernels (never installed): the
 * impl struct of their dispatch table and the kernel contract.
 *
 * Kernel contract (seal, open), for the data part of RFC 8439 2.8 only:
 *   - nothing at all when len < step (the impl's chunk: 1 KiB for AVX-512,
 *     512 bytes for AVX2); otherwise MAC the first len - len % step bytes
 *     of ciphertext into the Poly1305 state and return that count. Seal
 *     writes out = in ^ keystream for all len bytes (tail included) and
 *     absorbs out; open absorbs in and writes out = in ^ keystream for the
 *     returned count only. The caller does the rest (the tail's MAC, and
 *     for open its decryption after the check, padding, lengths, tag, the
 *     wipe of out on failure).
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
	size_t min_len;              /* the step: the kernel only runs from here up */
	size_t (*seal)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
	size_t (*open)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
	/*
	 * Optional (NULL: none), for seal: block 0 of cs (x[12] = 0) whole
	 * into otk (the one-time key, RFC 8439 2.6) and a message's tail of
	 * 1..max_tail bytes (out, in point at it) encrypted at the counters
	 * after body bytes, all in one latency-bound pass; cs is left at
	 * counter 1 for seal() of the body (a multiple of the step).
	 */
	size_t max_tail;
	void (*otk_tail)(struct chacha_state *cs, uint8_t otk[CHACHA_BLOCK_LEN], uint8_t *out,
			 const uint8_t *in, size_t tail, size_t body);
};

/* Widest first, NULL-terminated; no reference entry (two-pass is the reference). */
extern const struct chachapoly_impl *const vecsec_chachapoly_impls[];
extern const struct chachapoly_impl vecsec_chachapoly_impl_avx512ifma;
extern const struct chachapoly_impl vecsec_chachapoly_impl_avx2;

/*
 * How ChaCha20-Poly1305 jobs are run: AUTO (the default) and STITCH send
 * every linear job to the stitched wrapper in lib/aead (which calls the
 * kernel for jobs of at least its min_len and runs shorter ones as two
 * passes on the Poly1305 core); TWOPASS never uses it (also
 * VECSEC_CHACHAPOLY=twopass in the environment when the selectors run):
 * the generic streaming two-pass code, for tests and benchmarks.
 */
enum chachapoly_mode {
	CHACHAPOLY_AUTO = 0,
	CHACHAPOLY_TWOPASS = 1,
	CHACHAPOLY_STITCH = 2,
};

/* Set the mode; returns the previous one. */
enum chachapoly_mode vecsec_chachapoly_set_mode(enum chachapoly_mode mode);

/*
 * The stitched impl to use for a linear job of len bytes, or NULL (none
 * for this ISA cap, or TWOPASS mode).
 */
const struct chachapoly_impl *vecsec_chachapoly_impl_for(size_t len);

#endif /* VECSEC_CHACHAPOLY_INTERNAL_H */
