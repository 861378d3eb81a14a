/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA internals (never installed): the key schedule layout, the dispatch
 * table of ARIA kernels and its contract, and the GCM state and steps
 * that aria_gcm.c and the AEAD ops (aria_aead.c) share. GHASH is
 * lib/ghash's.
 *
 * Contracts, for every kernel of the table:
 *  - in == out is allowed, partial overlap is not; no alignment is needed;
 *  - a count or length of 0 is allowed and touches nothing;
 *  - kernels never call the public API or the dispatcher, never allocate,
 *    never branch on or index memory by key, data or counter values (ARIA
 *    s-boxes go through AES-NI or GFNI in SIMD kernels), and wipe their
 *    secret temporaries (round state, keystream) before returning;
 *  - a kernel that handles `blocks` blocks per step finishes its own tail
 *    (masked loads/stores or a narrower kernel called directly).
 * Counters:
 *  - ctr128_xor: block i of the call uses E(ctr + i mod 2^128) (128-bit
 *    big-endian add, as OpenSSL's CTR mode); on return ctr holds the
 *    counter after the last block used.
 *  - ctr32_xor: block i uses E(ctr[0..11] || (c + i mod 2^32)), c the
 *    big-endian last word: SP 800-38D's inc32, never a carry into byte 11.
 *    GCM relies on the wrap; the ESP/RFC 3686 callers (aria.c, aria_aead.c)
 *    reject messages that would wrap before calling.
 *  - both take any len: a final partial block uses the first bytes of its
 *    keystream block and still advances the counter by one; the rest of
 *    that keystream block is discarded (streaming callers buffer it
 *    themselves by encrypting the counter with ecb_encrypt).
 */
#ifndef VECSEC_ARIA_INTERNAL_H
#define VECSEC_ARIA_INTERNAL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_aria.h"
#include "cpu_internal.h"
#include "ghash/ghash_internal.h"

#define ARIA_BLOCK_LEN 16
#define ARIA_MAX_ROUNDS 16

/*
 * RFC 5794 2.2: ek[i] is the spec's ek(i+1) and dk[i] its dk(i+1), each a
 * 16-byte string in the spec's byte order; rounds is 12, 14 or 16 and uses
 * ek[0..rounds] / dk[0..rounds].
 */
struct aria_key {
	alignas(16) uint8_t ek[ARIA_MAX_ROUNDS + 1][ARIA_BLOCK_LEN];
	alignas(16) uint8_t dk[ARIA_MAX_ROUNDS + 1][ARIA_BLOCK_LEN];
	uint32_t rounds;
};

struct aria_gcm_key {
	struct aria_key aria;
	struct ghash_key ghash;
};

struct aria_impl {
	const char *name;            /* "ref", "avx2_gfni", ... */
	enum vecsec_isa isa;         /* level needed */
	uint64_t needs;              /* extra VECSEC_CPU_* bits (AESNI, GFNI) */
	/* ECB: nblocks whole blocks with k->ek (encrypt) or k->dk (decrypt). */
	void (*encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks,
			       const struct aria_key *k);
	void (*decrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks,
			       const struct aria_key *k);
	/* CTR, see the contract above: ctr is read and advanced. */
	void (*ctr128_xor)(uint8_t *out, const uint8_t *in, size_t len,
			   const struct aria_key *k, uint8_t ctr[ARIA_BLOCK_LEN]);
	void (*ctr32_xor)(uint8_t *out, const uint8_t *in, size_t len,
			  const struct aria_key *k, uint8_t ctr[ARIA_BLOCK_LEN]);
	/*
	 * Optional (NULL: callers group runs of one key): ECB encryption of
	 * nblocks blocks, block i with keys[i]->ek; every key has the same
	 * rounds. For bursts of short packets under many keys.
	 */
	void (*encrypt_blocks_multi)(uint8_t *out, const uint8_t *in, size_t nblocks,
				     const struct aria_key *const *keys);
};

/* The table, widest first, ref last; NULL-terminated. */
extern const struct aria_impl *const vecsec_aria_impls[];

/* True if len bytes starting at counter block ctr keep the 32-bit counter from wrapping. */
bool vecsec_aria_ctr32_fits(const uint8_t ctr[16], size_t len);

/* The impl selected at a level, and at the process's level (vecsec_isa_cap()). */
const struct aria_impl *vecsec_aria_impl_at(enum vecsec_isa level);
const struct aria_impl *vecsec_aria_impl(void);

/* aria_ref.c */
extern const struct aria_impl vecsec_aria_impl_ref;
/* RFC 5794 2.2: fill k from a 16/24/32-byte key (the caller checks the length). */
void vecsec_aria_key_schedule_ref(struct aria_key *k, const uint8_t *key, size_t key_len);
/* SB1..SB4 of RFC 5794 2.4.2 (box 1..4), constant time: tests and SIMD checks. */
uint8_t vecsec_aria_sbox_ref(unsigned int box, uint8_t x);

/* SIMD kernels (each built only with its flag set, listed under its guard) */
extern const struct aria_impl vecsec_aria_impl_avx512_gfni;
extern const struct aria_impl vecsec_aria_impl_avx2_gfni;
extern const struct aria_impl vecsec_aria_impl_avx2_vaes;
extern const struct aria_impl vecsec_aria_impl_avx_aesni;
extern const struct aria_impl vecsec_aria_impl_aesni;

/*
 * GCM state (aria_gcm.c), shared with the AEAD layer, which drives the
 * two halves separately so that open can verify before it decrypts.
 */
struct aria_gcm {
	const struct aria_gcm_key *key;
	uint8_t j0[16];              /* pre-counter block */
	uint8_t ctr[16];             /* next counter block */
	uint8_t x[16];               /* GHASH accumulator */
	uint8_t buf[16];             /* GHASH input not yet a whole block */
	uint8_t ks[16];              /* keystream of a partly used block */
	uint64_t aad_len;            /* bytes */
	uint64_t len;                /* bytes of text hashed */
	uint32_t buf_len;            /* bytes in buf */
	uint32_t ks_left;            /* unused bytes at the end of ks (+0x100: not yet encrypted) */
	uint32_t text;               /* 0: hashing AAD, 1: hashing text */
	uint32_t level;              /* enum vecsec_isa: the kernels it runs on */
};

/* Fill a GCM key: schedule, H = E(0^128), powers of H (key_len checked by the caller). */
void vecsec_aria_gcm_key_setup(struct aria_gcm_key *gk, const uint8_t *key, size_t key_len);
/*
 * CTR with the 32-bit counter, in chunks of any size: ks holds the unused
 * last *ks_left bytes of the previous keystream block (start with 0), or,
 * while *ks_left has bit 8 set, that block's counter, encrypted only when
 * a later chunk needs it (aria_gcm.c). The caller makes sure the counter
 * does not wrap where that matters.
 */
void vecsec_aria_ctr32_stream(const struct aria_impl *impl, const struct aria_key *k,
			      uint8_t ctr[16], uint8_t ks[16], uint32_t *ks_left, uint8_t *out,
			      const uint8_t *in, size_t len);
/* SP 800-38D 7.1 steps 1-3: J0 and the first counter block (iv_len >= 1). */
void vecsec_aria_gcm_start(struct aria_gcm *g, enum vecsec_isa level,
			   const struct aria_gcm_key *k, const uint8_t *iv, size_t iv_len);
/* Hash AAD, or text, in any chunks (call gcm_hash_pad between the two). */
void vecsec_aria_gcm_hash(struct aria_gcm *g, const uint8_t *p, size_t len);
/* End the AAD: zero-pad the partial block; later hash calls count as text. */
void vecsec_aria_gcm_hash_pad(struct aria_gcm *g);
/* Keystream xor from the current counter, in any chunks. */
void vecsec_aria_gcm_ctr(struct aria_gcm *g, uint8_t *out, const uint8_t *in, size_t len);
/* SP 800-38D 7.1 steps 5-6: the full 16-byte tag. */
void vecsec_aria_gcm_tag(struct aria_gcm *g, uint8_t tag[16]);
/* The same with E(J0) already computed (batched with the keystream). */
void vecsec_aria_gcm_tag_ej0(struct aria_gcm *g, uint8_t tag[16], const uint8_t ej0[16]);
/*
 * ks = E(J0) || the keystream of len bytes (len <= ARIA_GCM_TAIL) starting
 * skip blocks after g->ctr, in one kernel call: a message's last partial
 * kernel step (or a short message) carries E(J0) in a spare lane.
 */
#define ARIA_GCM_TAIL 1024
void vecsec_aria_gcm_tail_ks(const struct aria_gcm *g, uint8_t ks[ARIA_GCM_TAIL + 16],
			     size_t skip, size_t len);

/*
 * ARIA on AEAD jobs (aria_aead.c), the entry points the AEAD router's ops
 * table lists: key sizes and init (a GCM key, or for CTR the schedule
 * alone, from byte 64 of the key object), one checked job
 * (returns 0, -EBADMSG with the output zeroed, or -EINVAL), and a burst of
 * checked ARIA jobs of either mode (sets every job's status), all on the
 * kernels of a dispatch level.
 */
size_t vecsec_aria_gcm_key_size(size_t key_len);
size_t vecsec_aria_ctr_key_size(size_t key_len);
int vecsec_aria_aead_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len);
int vecsec_aria_gcm_run(enum vecsec_isa level, const struct vecsec_aead_job *job);
int vecsec_aria_ctr_run(enum vecsec_isa level, const struct vecsec_aead_job *job);
void vecsec_aria_burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs,
		       unsigned int n);

#endif /* VECSEC_ARIA_INTERNAL_H */
