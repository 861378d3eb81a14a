/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha 2.3), the one construction (never installed):
 * built only from lib/chacha and lib/poly1305 calls, in every form it
 * runs in: one-shot and streaming over scatter-gather lists (two passes),
 * stitched (one pass, kernels below), and bursts in SIMD lanes
 * (chachapoly_burst.c). Every form takes its key words and the XChaCha
 * subkey from vecsec_chachapoly_words()/vecsec_xchacha_subkeys(), its
 * lengths block from vecsec_chachapoly_lengths(), its tag from
 * vecsec_poly1305_tag() and its verdict on open from
 * vecsec_chachapoly_verify().
 *
 * Stitched kernels come in two forms (struct chachapoly_impl):
 *
 * linear (AVX2, SSSE3: chachapoly_x86.h): the whole of a linear job,
 * given its ChaCha20 state at counter 0; returns 0, or -EBADMSG with out
 * wiped (open). Any length: the table's min_len only says from which
 * length an entry is the faster one.
 *
 * step (AVX-512 IFMA) contract (seal, open), for the data part of 2.8 only:
 *   - nothing at all when len < step (1 KiB for AVX-512); otherwise MAC the
 *     first len - len % step bytes of ciphertext into the Poly1305 state
 *     and return that count. Seal writes out = in ^ keystream for all len
 *     bytes (tail included) and absorbs out; open absorbs in and writes
 *     out = in ^ keystream for the returned count only. The caller does
 *     the rest (the tail's MAC, and for open its decryption after the
 *     check, padding, lengths, tag, the wipe of out on failure).
 *   - the ChaCha state's counter advances by the blocks used and never
 *     wraps inside the call (the caller checks, RFC 8439 limits); the
 *     Poly1305 state must be block-aligned (all AAD padding absorbed).
 *   - in == out allowed, partial overlap not; no alignment; constant time.
 *
 * The assembly kernels of the linear form (chachapoly_<isa>.S):
 *   const uint8_t *vecsec_chachapoly_x8_avx2(out, in, nsteps, x, p, mac, lim)
 *     (and its VL form, _avx2vl: the same contract)
 *   const uint8_t *vecsec_chachapoly_x4_ssse3(out, in, nsteps, x, p, mac, lim)
 * nsteps steps of 512 (256) bytes: out = in ^ keystream (in == out allowed;
 * x[12] advanced by the blocks used), and the 16-byte blocks from mac, in
 * order, absorbed into p (radix 2^64, pad 1) while they end at or below
 * lim + k * step during step k, all of them before that step's stores;
 * returns where mac got to.
 */
#ifndef VECSEC_CHACHAPOLY_INTERNAL_H
#define VECSEC_CHACHAPOLY_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "cpu_internal.h"
#include "job/job_internal.h"
#include "chacha/chacha_internal.h"
#include "poly1305/poly1305_internal.h"
#include "chachapoly_knobs.h"

/* RFC 8439 2.8: counter 1..2^32-1 for the data, block 0 gives the MAC key */
#define CHACHAPOLY_MAX_LEN (((UINT64_C(1) << 32) - 1) * CHACHA_BLOCK_LEN)

/* ---- the construction's shared steps (chachapoly.c) ---- */

/*
 * RFC 8439 2.3 / draft-irtf-cfrg-xchacha 2.3: a job's ChaCha20 key words
 * (the raw key: for XChaCha the caller then derives the subkey) and state
 * words 13..15 (the IETF nonce; for XChaCha 0, the high word of the
 * counter, || nonce[16..24]). Returns true for an XChaCha job.
 */
bool vecsec_chachapoly_words(const struct vecsec_aead_job *job, uint32_t key[8],
			     uint32_t nonce[3]);

/*
 * draft-irtf-cfrg-xchacha 2.2: replace each of n raw key words key[i] by
 * the HChaCha20 subkey of nonce[i][0..16]. With a lane kernel (li has
 * xor_lanes) the blocks run li->lanes at a time: HChaCha20 is the ChaCha20
 * block whose words 12..15 are those nonce bytes, minus its input words
 * 0..3 and 12..15; li NULL: the reference, one at a time.
 */
void vecsec_xchacha_subkeys(uint32_t (*key)[8], const uint8_t *const *nonce, unsigned int n,
			    const struct chacha_impl *li);

/* RFC 8439 2.8: le64(aad_len) || le64(len), the last Poly1305 block */
static inline void
vecsec_chachapoly_lengths(uint8_t block[16], uint64_t aad_len, uint64_t len)
{
	vecsec_store_le64(block, aad_len);
	vecsec_store_le64(block + 8, len);
}

/*
 * Open's verdict: calc (the computed tag, wiped here) against job->tag in
 * constant time (vecsec_ct_eq16(), vecsec_ct_eq()'s inline 16-byte form);
 * on a mismatch the job's whole output is zeroed (nothing unauthenticated
 * is released). Returns 0 or -EBADMSG. Inline: every open path (single
 * message, stitched kernels, lanes) takes its verdict here once per job.
 */
static inline int
vecsec_chachapoly_verify(const struct vecsec_aead_job *job, uint8_t calc[16])
{
	bool ok = vecsec_ct_eq16(calc, job->tag);

	vecsec_wipe(calc, VECSEC_AEAD_TAG_LEN);
	if (ok)
		return 0;
	vecsec_job_wipe_out(job);       /* never release unauthenticated text */
	return -EBADMSG;
}

/* ---- the AEAD entry points (the router's ops table lists them) ---- */

size_t vecsec_chachapoly_key_size(size_t key_len);
int vecsec_chachapoly_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len);
/*
 * One job whose generic fields lib/job has checked, on the kernels of a
 * dispatch level: nonce and tag lengths here, then seal or open. Returns
 * 0, -EBADMSG (output zeroed) or -EINVAL.
 */
int vecsec_chachapoly_run(enum vecsec_isa level, const struct vecsec_aead_job *job);
int vecsec_xchachapoly_run(enum vecsec_isa level, const struct vecsec_aead_job *job);
/*
 * A burst of checked (X)ChaCha20-Poly1305 jobs (n <= VECSEC_MAX_BURST) on
 * the kernels of a level: those up to the crossover in SIMD lanes, the
 * others one by one; sets every job's status.
 */
void vecsec_chachapoly_burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs,
			     unsigned int n);

/* ---- stitched kernels ---- */

struct poly1305_64;
const uint8_t *vecsec_chachapoly_x8_avx2(uint8_t *out, const uint8_t *in, size_t nsteps,
					 uint32_t x[16], struct poly1305_64 *p, const uint8_t *mac,
					 const uint8_t *lim);
/* the VL form of x8_avx2 (chachapoly_avx2.S with -mavx512vl; chachapoly_x86.h) */
const uint8_t *vecsec_chachapoly_x8_avx2vl(uint8_t *out, const uint8_t *in, size_t nsteps,
					   uint32_t x[16], struct poly1305_64 *p,
					   const uint8_t *mac, const uint8_t *lim);
const uint8_t *vecsec_chachapoly_x4_ssse3(uint8_t *out, const uint8_t *in, size_t nsteps,
					  uint32_t x[16], struct poly1305_64 *p,
					  const uint8_t *mac, const uint8_t *lim);

struct chachapoly_impl {
	const char *name;            /* "avx512ifma" */
	enum vecsec_isa isa;
	uint64_t needs;
	/*
	 * Job length in bytes from which this entry beats the next usable
	 * one (VECSEC_SELECT_LEN); measured, in the entry's comment.
	 */
	size_t min_len;
	/* The linear form (NULL: the step form below, run by chachapoly.c). */
	int (*linear)(const struct vecsec_aead_job *job, struct chacha_state *st);
	size_t step;                 /* the step form: the kernel only runs from here up */
	size_t (*seal)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
	size_t (*open)(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		       const uint8_t *in, size_t len);
	/*
	 * Optional (NULL: none): block 0 of cs (x[12] = 0, job's state)
	 * whole into otk (the one-time key, RFC 8439 2.6) and a message's
	 * tail of 1..max_tail bytes (out, in point at it) XORed with the
	 * keystream at the counters after body bytes, all in one
	 * latency-bound pass; cs is left at counter 1 for seal() or open()
	 * of the body (a multiple of the step).
	 */
	size_t max_tail;
	void (*otk_tail)(const struct vecsec_aead_job *job, struct chacha_state *cs,
			 uint8_t otk[CHACHA_BLOCK_LEN], uint8_t *out, const uint8_t *in,
			 size_t tail, size_t body);
	/*
	 * Optional (NULL: none), the step form's short jobs: a whole linear
	 * job of at most short_max bytes, as linear() above (state at
	 * counter 0, or NULL for a ChaCha20-Poly1305 job: the kernel builds
	 * it from the key and nonce; 0 or -EBADMSG with out wiped).
	 * chachapoly.c caps short_max with vecsec_chachapoly_set_short_max().
	 */
	size_t short_max;
	int (*short_run)(const struct vecsec_aead_job *job, struct chacha_state *st);
};

/* Widest first, NULL-terminated; no reference entry (two-pass is the reference). */
extern const struct chachapoly_impl *const vecsec_chachapoly_impls[];
extern const struct chachapoly_impl vecsec_chachapoly_impl_avx512ifma;
extern const struct chachapoly_impl vecsec_chachapoly_impl_avx2;
extern const struct chachapoly_impl vecsec_chachapoly_impl_ssse3;

#endif /* VECSEC_CHACHAPOLY_INTERNAL_H */
