/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused kernels for small ChaCha20-Poly1305 bursts: up to 16 linear
 * jobs in one call, ChaCha20 in 16 byte-exact lanes and Poly1305 in 16
 * IFMA lanes (AVX-512 F+VL+BW + IFMA, chachapoly_small_avx512ifma.c), or
 * up to 8, ChaCha20 in 8 and Poly1305 in two groups of 4 radix-2^26 lanes
 * (AVX2, chachapoly_small_avx2.c, in a plain and an AVX-512VL form). The
 * one-time key (RFC 8439 2.6) goes from block 0 straight into the MAC's
 * registers; nothing of it, of the keystream or of the plaintext is left
 * in memory the kernel writes. Private to lib/chachapoly.
 */
#ifndef CHACHAPOLY_SMALL_H
#define CHACHAPOLY_SMALL_H

#include <stddef.h>
#include <stdint.h>

#include "chacha/chacha_internal.h"

/*
 * The longest job and AAD the kernels take (bytes): groups of jobs up to
 * SMALL_MAX always; jobs up to SMALL_LONG_MAX where the CPU's tuning lets
 * them in (chachapoly_burst.h fused_max(): the 16-lane kernel's loops have
 * no bound of their own, the 8-lane ones size their schedule by it; the
 * tests run every length to it).
 */
#define SMALL_MAX 512
#define SMALL_LONG_MAX 1536
#define SMALL_AAD 16

/*
 * What the MAC of each lane reads (RFC 8439 2.8): aad_len bytes of AAD at
 * aad[i] (at most SMALL_AAD), the len bytes of ciphertext at ct[i] (at
 * most SMALL_LONG_MAX) where they lie; the tag goes to tag[i]. Only lanes set
 * in the ChaCha struct's `active` are read or written.
 */
struct small_mac {
	/*
	 * The 16-lane kernel's ChaCha20 key (8 little-endian words) and nonce
	 * (3) of each lane, where they lie (read in place of the lane struct's
	 * key and nonce words; the 8-lane kernels read those). Only active
	 * lanes' are read.
	 */
	const uint8_t *key[16];
	const uint8_t *nonce[16];
	const uint8_t *ct[16];
	const uint8_t *aad[16];
	uint8_t *tag[16];
	uint32_t len[16];
	uint32_t aad_len[16];
};

/*
 * One call for the active lanes of l (rounds 20; l->ctr is not read: the
 * counters are 0; each lane's key and nonce as lane_key() leaves them in
 * l, or for the 16-lane kernel at m->key[i] and m->nonce[i]): block 0
 * gives r and s, blocks 1 on XOR bytes[i] bytes from
 * l->in[i] to l->out[i]
 * (byte-exact, masked at the ragged end), and then Poly1305 over m's AAD,
 * ciphertext and lengths gives each lane's tag into m->tag[i]. Lengths
 * up to SMALL_LONG_MAX.
 * Seal: bytes[i] = len, l->out[i] = m->ct[i] (the MAC reads the
 * ciphertext just written). Open: m->ct[i] = the ciphertext, and bytes[i]
 * at most 64 with l->out[i] a buffer aside (the first block's plaintext,
 * kept from the caller's output until the tag matched) or 0.
 * l is not changed.
 */
void vecsec_chachapoly_small_x16_avx512ifma(const struct chacha_lanes *l, const uint32_t *bytes,
					    const struct small_mac *m);
/*
 * The same for lanes 0..7 (l->active's bits 0..7; m's entries 8..15 are
 * not read): AVX2, and its AVX-512VL form (VPROLD, 32 ymm registers,
 * byte-masked loads and stores; only on a CPU with AVX-512VL and BW).
 */
void vecsec_chachapoly_small_x8_avx2(const struct chacha_lanes *l, const uint32_t *bytes,
				     const struct small_mac *m);
void vecsec_chachapoly_small_x8_avx2vl(const struct chacha_lanes *l, const uint32_t *bytes,
				       const struct small_mac *m);

/* One of the kernels above (the burst's pick: chachapoly_burst.h fused_kernels()). */
typedef void (*small_kernel_fn)(const struct chacha_lanes *l, const uint32_t *bytes,
				const struct small_mac *m);

/*
 * The kernels leave nothing secret on the stack: each one's body runs in a
 * frame of its own (noinline), whose stack pointer it returns, and then
 * vecsec_chachapoly_small_burn(), called from the same frame, zeros the
 * stack down to that pointer less the red zone (chachapoly_small.c).
 * vecsec_chachapoly_small_burn_short() counts the calls whose frame went
 * deeper than that wipe reached (a compiler or flags these files were not
 * measured with): tests require 0.
 */
void vecsec_chachapoly_small_burn(uintptr_t sp);
uint64_t vecsec_chachapoly_small_burn_short(void);

/* the calling function's stack pointer (the bottom of its frame, past the prologue) */
#define SMALL_STACK_POINTER(sp) __asm__ __volatile__("mov %%rsp, %0" : "=r"(sp))

#endif /* CHACHAPOLY_SMALL_H */
