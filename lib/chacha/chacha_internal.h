/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha internals (never installed): the state every kernel works on, the
 * impl struct of the dispatch table (a const entry per ISA, widest first),
 * the lanes layout and the contract every kernel keeps.
 *
 * Kernel contract (xor_blocks, every ISA):
 *   - out = in XOR keystream for len bytes; in == out is allowed, partial
 *     overlap is not; len 0 is allowed (nothing happens); no alignment.
 *   - The keystream starts at the block whose counter is in the state.
 *     After the call the counter has advanced by ceil(len / 64): a partial
 *     last block's unused keystream is discarded and the counter moves
 *     past it (so callers stream only whole blocks until the last call).
 *   - The counter is state word 12 only. Within one call it never wraps:
 *     the blocks used have counters x[12] .. x[12] + ceil(len/64) - 1, all
 *     below 2^32 (x[12] may end at 0 when the last block used 0xffffffff).
 *     Kernels never look at word 13 as a counter. Who stops the wrap:
 *     vecsec_chacha_xor_state() splits a call at a 2^32-block boundary and,
 *     for a 64-bit-counter state (ctr64), carries into word 13 itself; for
 *     an IETF state the public API refuses (-EINVAL) any length that would
 *     wrap. So kernels just add to word 12.
 *   - Constant time; no secret-dependent branch or index.
 *   - A kernel never calls the public API or the dispatcher.
 *
 * Lanes contract (xor_lanes, NULL for the reference): see struct
 * chacha_lanes below; the lane scheduler's caller keeps every lane's
 * counter from wrapping inside a call in the same way.
 */
#ifndef VECSEC_CHACHA_INTERNAL_H
#define VECSEC_CHACHA_INTERNAL_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"

#define CHACHA_BLOCK_LEN 64
#define CHACHA_KEY_LEN 32
#define CHACHA_NONCE_LEN 12      /* IETF nonce, RFC 8439 2.3 */
#define HCHACHA_NONCE_LEN 16     /* draft-irtf-cfrg-xchacha 2.2 */
#define XCHACHA_NONCE_LEN 24

/* "expand 32-byte k", RFC 8439 2.3 */
#define CHACHA_C0 0x61707865u
#define CHACHA_C1 0x3320646eu
#define CHACHA_C2 0x79622d32u
#define CHACHA_C3 0x6b206574u

/*
 * The 16 input words of RFC 8439 2.3 (constants 0-3, key 4-11, counter and
 * nonce 12-15) plus the round count. ctr64 says how words 12-15 are read:
 *   0: IETF (RFC 8439): word 12 = 32-bit block counter, 13-15 = nonce;
 *   1: original/XChaCha/Adiantum: words 12-13 = 64-bit block counter (low
 *      word first), 14-15 = nonce. Kernels treat both the same (they only
 *      add to word 12); vecsec_chacha_xor_state() carries into word 13.
 * The state is secret (it holds the key): wipe it with vecsec_memzero().
 */
struct chacha_state {
	uint32_t x[16];
	uint32_t rounds;        /* 20, 12 or 8 */
	uint32_t ctr64;         /* 0: 32-bit counter in x[12]; 1: 64-bit in x[12..13] */
};

/*
 * Lanes layout (one message per SIMD lane), word-major: one load gives a
 * word of every lane. Lane i processes blocks_left[i] blocks from in[i] to
 * out[i] (whole blocks only: partial tails are the caller's), counter
 * ctr[i] (state word 12) advanced by the blocks done; nonce[j][i] is state
 * word 13 + j (for a ctr64 state nonce[0] is the counter's high word, which
 * the scheduler carries itself). A call runs nblocks blocks on every lane
 * whose bit is set in `active` (nblocks <= every active blocks_left),
 * decreasing blocks_left and advancing in/out/ctr; it never touches
 * inactive lanes.
 */
struct chacha_lanes {
	alignas(64) uint32_t key[8][VECSEC_MAX_LANES];  /* key[word][lane] */
	uint32_t ctr[VECSEC_MAX_LANES];
	uint32_t nonce[3][VECSEC_MAX_LANES];
	const uint8_t *in[VECSEC_MAX_LANES];
	uint8_t *out[VECSEC_MAX_LANES];
	uint32_t blocks_left[VECSEC_MAX_LANES];         /* lane done at 0 */
	uint32_t active;                                /* one bit per busy lane */
	uint32_t rounds;                                /* the same for all lanes */
};

/*
 * One entry of the dispatch table per ISA: the single-message kernel and,
 * where the ISA has one, its lane kernel (lanes messages side by side, the
 * struct chacha_lanes contract above), as BLAKE3 makes hash_many part of
 * each ISA's interface. lib/lanes and the ChaCha20-Poly1305 burst pick lane
 * kernels from this same table.
 */
struct chacha_impl {
	const char *name;            /* "avx2": printed by tests and the bench */
	enum vecsec_isa isa;         /* level needed, compared with the cap */
	uint64_t needs;              /* extra VECSEC_CPU_* bits */
	/*
	 * Bytes of one call from which this entry beats the next usable one
	 * (VECSEC_SELECT_LEN skips it below; measured, in the entry's
	 * comment); every entry takes every length.
	 */
	size_t min_len;
	void (*xor_blocks)(uint8_t *out, const uint8_t *in, size_t len, struct chacha_state *st);
	/*
	 * Optional (NULL: the reference's): HChaCha with 20, 12 or 8 rounds
	 * (draft-irtf-cfrg-xchacha 2.2), as vecsec_hchacha_ref() below.
	 */
	void (*hchacha)(uint8_t out[32], const uint8_t key[CHACHA_KEY_LEN],
			const uint8_t nonce[HCHACHA_NONCE_LEN], unsigned int rounds);
	/* The lane kernel: 0 and NULL where the ISA has none (the reference). */
	unsigned int lanes;          /* messages per xor_lanes() call: 4, 8 or 16 */
	const char *lanes_name;      /* "x16-avx512": printed by tests and the bench */
	void (*xor_lanes)(struct chacha_lanes *l, uint32_t nblocks);
	/*
	 * Optional (NULL: not there), byte-exact: on every active lane i,
	 * first (ks0 not NULL) the raw keystream block at counter ctr[i] into
	 * ks0[i] (64 bytes: the Poly1305 key block), then bytes[i] bytes from
	 * in[i] XORed into out[i] with the next counters (ks0 NULL: from
	 * ctr[i] on), a partial last block by masked loads
	 * and stores (nothing read or written past bytes[i]). l is not
	 * changed (pointers, counters, blocks_left stay as they were).
	 */
	void (*xor_lanes_bytes)(const struct chacha_lanes *l, const uint32_t *bytes,
				uint8_t *const *ks0);
};

/*
 * Assembly and short-input building blocks of the x86 kernels (also used
 * by the ChaCha20-Poly1305 kernels of the same ISA):
 *   x8_avx2 (chacha_avx2.S): nsteps x 512 bytes, out = in ^ keystream
 *     (in == out allowed), x[12] += 8 per step;
 *   x4_ssse3 (chacha_ssse3.S): the same with 4 blocks (256 bytes) a step;
 *   ks4_avx2: nblocks (1..4) blocks of raw keystream from counter x[12]
 *     into ks (64 nblocks bytes), x not changed: row form, two blocks per
 *     ymm, latency-bound (the short-message path);
 *   ks2_ssse3: the same for 1..2 blocks, one block per set of xmm.
 * chacha_x86.h composes them (whole steps, the tail, the XOR of a buffer).
 */
void vecsec_chacha_x8_avx2(uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
			   unsigned int rounds);
void vecsec_chacha_x4_ssse3(uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
			    unsigned int rounds);
void vecsec_chacha_ks4_avx2(uint8_t *ks, const uint32_t x[16], unsigned int nblocks,
			    unsigned int rounds);
void vecsec_chacha_ks2_ssse3(uint8_t *ks, const uint32_t x[16], unsigned int nblocks,
			     unsigned int rounds);

/* Lane kernels (chacha_lanes_<set>.c), listed by their ISA's table entry. */
void vecsec_chacha_xor_lanes_x4_ssse3(struct chacha_lanes *l, uint32_t nblocks);
void vecsec_chacha_xor_lanes_x8_avx2(struct chacha_lanes *l, uint32_t nblocks);
void vecsec_chacha_xor_lanes_x16_avx512(struct chacha_lanes *l, uint32_t nblocks);
void vecsec_chacha_xor_lanes_x4_neon(struct chacha_lanes *l, uint32_t nblocks);
void vecsec_chacha_xor_lanes_bytes_x16_avx512(const struct chacha_lanes *l,
					      const uint32_t *bytes, uint8_t *const *ks0);
void vecsec_chacha_xor_lanes_bytes_x8_avx2(const struct chacha_lanes *l,
					   const uint32_t *bytes, uint8_t *const *ks0);
/*
 * The AVX2 lane kernels compiled with AVX-512VL/BW (chacha_lanes_avx2.c,
 * ymm only: VPROLD, 32 registers, byte-masked tails); chachapoly_lanes.c
 * puts them in place of the AVX2 ones on CPUs with VL and BW.
 */
void vecsec_chacha_xor_lanes_x8_avx2vl(struct chacha_lanes *l, uint32_t nblocks);
void vecsec_chacha_xor_lanes_bytes_x8_avx2vl(const struct chacha_lanes *l,
					     const uint32_t *bytes, uint8_t *const *ks0);

/*
 * The VL form of x8_avx2 (chacha_avx2.S assembled with -mavx512vl:
 * VPROLD, no spills in the rounds; the same contract). cx_steps
 * (chacha_x86.h) runs it where vecsec_chacha_avx2_vl() says.
 */
void vecsec_chacha_x8_avx2vl(uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
			     unsigned int rounds);

/*
 * The AVX2 level's VL forms (docs/dispatch.md), lane and single-message
 * kernels alike, under one knob (chacha.c; chachapoly_knobs.h's
 * vecsec_avx2_vl_set() and vecsec_avx2_vl_usable() are its public face):
 *   _cpu: whether the CPU has AVX-512VL and BW (with the OS's AVX-512
 *     state) and the build has the forms (VECSEC_HAVE_AVX2_VL);
 *   _allow(on): the knob (default on), returns the previous setting;
 *   vecsec_chacha_avx2_vl(): both, read per call by the AVX2 kernels.
 */
bool vecsec_chacha_avx2_vl_cpu(void);
bool vecsec_chacha_avx2_vl_allow(bool on);
bool vecsec_chacha_avx2_vl_allowed(void);
bool vecsec_chacha_avx2_vl(void);

/* Widest first, NULL-terminated, the reference last (chacha.c). */
extern const struct chacha_impl *const vecsec_chacha_impls[];

/* ---- the reference (chacha_ref.c), every path's oracle ---- */
extern const struct chacha_impl vecsec_chacha_impl_ref;
void vecsec_chacha_xor_blocks_ref(uint8_t *out, const uint8_t *in, size_t len,
				  struct chacha_state *st);
/* One block of keystream (RFC 8439 2.3), counter not advanced. */
void vecsec_chacha_block_ref(uint8_t out[CHACHA_BLOCK_LEN], const struct chacha_state *st);
/*
 * HChaCha (draft-irtf-cfrg-xchacha 2.2) with 20, 12 or 8 rounds: words
 * 0-3 and 12-15 of the permuted state, no feed-forward.
 */
void vecsec_hchacha_ref(uint8_t out[32], const uint8_t key[CHACHA_KEY_LEN],
			const uint8_t nonce[HCHACHA_NONCE_LEN], unsigned int rounds);

/* ---- kernels of other ISAs (declared here so the table can list them) ---- */
extern const struct chacha_impl vecsec_chacha_impl_ssse3;
extern const struct chacha_impl vecsec_chacha_impl_avx2;
extern const struct chacha_impl vecsec_chacha_impl_avx512;
extern const struct chacha_impl vecsec_chacha_impl_neon;

/* ---- dispatch (chacha.c), for lib/ users such as chachapoly and adiantum ---- */
/* The impl selected at a level, and at the process's level (vecsec_isa_cap()). */
const struct chacha_impl *vecsec_chacha_impl_at(enum vecsec_isa level);
const struct chacha_impl *vecsec_chacha_impl(void);
/* The impl for a call of len bytes at a level (min_len gates applied). */
const struct chacha_impl *vecsec_chacha_impl_len(enum vecsec_isa level, size_t len);
/*
 * XOR len bytes with the state's keystream through impl, splitting at
 * 2^32-block boundaries and carrying into word 13 for a ctr64 state. The
 * caller checks that an IETF state cannot wrap. _state: the process's impl.
 */
void vecsec_chacha_xor_impl(const struct chacha_impl *impl, struct chacha_state *st,
			    uint8_t *out, const uint8_t *in, size_t len);
void vecsec_chacha_xor_state(struct chacha_state *st, uint8_t *out, const uint8_t *in,
			     size_t len);

/* HChaCha through impl's kernel, or the reference where it has none. */
static inline void
vecsec_hchacha_impl(const struct chacha_impl *impl, uint8_t out[32],
		    const uint8_t key[CHACHA_KEY_LEN], const uint8_t nonce[HCHACHA_NONCE_LEN],
		    unsigned int rounds)
{
	if (impl->hchacha != NULL)
		impl->hchacha(out, key, nonce, rounds);
	else
		vecsec_hchacha_ref(out, key, nonce, rounds);
}

static inline uint32_t
chacha_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
chacha_st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void
chacha_state_key(struct chacha_state *st, const uint8_t key[CHACHA_KEY_LEN], unsigned int rounds)
{
	st->x[0] = CHACHA_C0;
	st->x[1] = CHACHA_C1;
	st->x[2] = CHACHA_C2;
	st->x[3] = CHACHA_C3;
	for (int i = 0; i < 8; i++)
		st->x[4 + i] = chacha_le32(key + 4 * i);
	st->rounds = rounds;
}

/* RFC 8439 2.3: IETF layout, 32-bit counter, 96-bit nonce. */
static inline void
chacha_state_init_ietf(struct chacha_state *st, const uint8_t key[CHACHA_KEY_LEN],
		       const uint8_t nonce[CHACHA_NONCE_LEN], uint32_t ctr, unsigned int rounds)
{
	chacha_state_key(st, key, rounds);
	st->x[12] = ctr;
	st->x[13] = chacha_le32(nonce);
	st->x[14] = chacha_le32(nonce + 4);
	st->x[15] = chacha_le32(nonce + 8);
	st->ctr64 = 0;
}

/* Original layout (XChaCha, Adiantum): 64-bit counter, 64-bit nonce. */
static inline void
chacha_state_init_64(struct chacha_state *st, const uint8_t key[CHACHA_KEY_LEN],
		     const uint8_t nonce[8], uint64_t ctr, unsigned int rounds)
{
	chacha_state_key(st, key, rounds);
	st->x[12] = (uint32_t)ctr;
	st->x[13] = (uint32_t)(ctr >> 32);
	st->x[14] = chacha_le32(nonce);
	st->x[15] = chacha_le32(nonce + 4);
	st->ctr64 = 1;
}

#endif /* VECSEC_CHACHA_INTERNAL_H */
