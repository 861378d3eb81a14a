/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal dispatch interface (never installed). Every primitive has one
 * table of const impls, widest first, and selects from it with
 * VECSEC_SELECT() at a level: the process's (vecsec_isa_cap(), the
 * policy of dispatch.c) for its plain entry points, or an engine's
 * (vecsec_engine.h) for the AEAD entry points that take one.
 */
#ifndef VECSEC_CPU_INTERNAL_H
#define VECSEC_CPU_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vecsec/vecsec.h"
#include "vecsec_config.h"

#ifdef VECSEC_DEBUG
#include <stdlib.h>
#define VECSEC_ASSERT(x) do { if (!(x)) abort(); } while (0)
#else
#define VECSEC_ASSERT(x) do { } while (0)
#endif

#define VECSEC_MAX_LANES 16

/*
 * Little-endian loads and stores as single moves: portable code that runs
 * once per message uses them (byte loops are not always merged by the
 * compiler, and byte shuffles after vector stores stall).
 */
static inline uint32_t
vecsec_load_le32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static inline uint64_t
vecsec_load_le64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void
vecsec_store_le64(void *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, sizeof(v));
}

/* Levels are 0 (scalar) .. VECSEC_ISA_AVX512; NEON shares SSSE3's rank. */
#define VECSEC_NB_LEVELS (VECSEC_ISA_AVX512 + 1)

/* True if an impl of level isa needing features `needs` may be used. */
static inline bool
vecsec_impl_usable(enum vecsec_isa isa, uint64_t needs, enum vecsec_isa cap, uint64_t feat)
{
	return isa <= cap && (feat & needs) == needs;
}

/*
 * Thresholds that depend on the CPU model, not only on its ISA: the
 * lengths where one path starts to beat another, measured per CPU
 * (docs/bursts.md lists which CPU set which). One entry is chosen once,
 * at first use, from CPUID's vendor, family and model (vecsec_tune());
 * every CPU without an entry of its own gets the default one, measured on
 * a Sapphire Rapids-class Xeon. Thresholds the same on every CPU measured
 * stay constants next to their code.
 */
struct vecsec_tune {
	const char *cpu;                /* the CPU that set these values */
	/*
	 * ChaCha20-Poly1305 single messages on AVX-512 IFMA: the longest job
	 * the short path (one ChaCha20 pass, then Poly1305) takes, at most
	 * the kernel's own bound (chachapoly_avx512ifma.c).
	 */
	size_t chachapoly_short_max;
	/* inside it: Poly1305 blocks of the data from which the IFMA kernel takes them */
	size_t chachapoly_short_ifma_blocks;
	/*
	 * and the data blocks up to which its ChaCha20 runs as sets of rows
	 * (7 to 11), past them as the 16-block form
	 */
	unsigned int chachapoly_short_rows_blocks;
	/*
	 * and past the short path: Poly1305 blocks of each 1 KiB stitched
	 * step that run on the integer units beside the ChaCha20 rounds
	 * (0: none, all IFMA; at most 64)
	 */
	unsigned int chachapoly_int_blocks;
	/*
	 * Poly1305 one-shot MACs and updates: the length from which the
	 * AVX-512 IFMA entries take them (their min_len is the least of these;
	 * poly1305.c), radix 2^64 below.
	 */
	size_t poly1305_ifma_min_len;
	/* ChaCha20-Poly1305 bursts: the crossovers of 16 (AVX-512) and SSSE3's 4 lanes */
	size_t lanes_crossover_x16;
	size_t lanes_crossover_ssse3;
	/* ... and of 8 lanes in the AVX2 kernels' AVX-512VL forms (0: the plain forms' 1024) */
	size_t lanes_crossover_x8vl;
	/*
	 * Mixed bursts on 8 and 16 ChaCha lanes: jobs longer than this (and
	 * not past the crossover) take the single-message path when fewer
	 * than a ChaCha width of them are in the burst, since beside shorter
	 * jobs they leave lanes idle (chachapoly_burst.c); SIZE_MAX: never.
	 */
	size_t lanes_mixed_max;
	/* ... the same bound for 8 lanes where it differs (0: lanes_mixed_max) */
	size_t lanes_mixed_max_x8;
	/*
	 * Small bursts: at 16 ChaCha lanes (the AVX-512 level) and at 8 (AVX2),
	 * a burst of fewer than 3 + L / this many jobs, L its longest job's
	 * bytes (at most 8 jobs), runs one by one: all lanes step as long as
	 * the longest, so a few jobs cost a full group (chachapoly_burst.c).
	 * 0: no such rule.
	 */
	size_t lanes_few_x16;
	size_t lanes_few_x8;
	/*
	 * The AVX-512 ChaCha lane kernels run two blocks of every lane per
	 * step (chacha_lanes_avx512.c) rather than one.
	 */
	bool chacha_x16_pairs;
	/*
	 * ChaCha20-Poly1305 bursts at the AVX-512 level: a staged group of 8
	 * jobs or fewer beside the 16-lane fused kernel takes the 8-lane one
	 * (chachapoly_burst.h fused_narrow()): on a CPU that runs 512-bit
	 * operations as two 256-bit halves, 16 lanes cost twice 8 whatever
	 * they hold.
	 */
	bool fused_narrow_groups;
	/*
	 * ChaCha20-Poly1305 bursts: the longest job the fused kernels take,
	 * the 16-lane AVX-512 one and the 8-lane AVX2 ones (0: the staged
	 * path's 512 bytes; at most SMALL_LONG_MAX, 1536). Jobs past 512 bytes
	 * join their groups only where they keep the lanes busy
	 * (chachapoly_burst.c fused_long_keep()).
	 */
	size_t fused_x16_max;
	size_t fused_x8_max;
};

const struct vecsec_tune *vecsec_tune(void);

/*
 * Tests only: every entry (NULL-terminated), and pinning one of them in
 * place of the CPU's (NULL: back to the CPU's). Not thread-safe against
 * running jobs.
 */
extern const struct vecsec_tune *const vecsec_tunes[];
void vecsec_tune_force(const struct vecsec_tune *t);

/* Feature bits each level implies (used to check a level is present). */
uint64_t vecsec_isa_features(enum vecsec_isa isa);

/*
 * The features code chosen for a level may use: the CPU's (and OS's),
 * less every feature above the level (an AVX-512 feature is never used
 * under an AVX2 cap, whatever an impl's needs say).
 */
uint64_t vecsec_level_features(enum vecsec_isa level);

/*
 * The one selector of every dispatch table. A table is a NULL-terminated
 * array of pointers to const impls, widest first (each has isa and needs);
 * the selector gives the first entry usable at a level: isa <= level and
 * needs among vecsec_level_features(level) (NULL when none is, for a table
 * without a reference entry). cache is the table's
 * `_Atomic uint8_t cache[VECSEC_NB_LEVELS]` (0: not chosen yet, else the
 * index + 1): each level is chosen once, on first use; threads that race
 * choose the same entry and store the same index.
 *   const struct chacha_impl *im = VECSEC_SELECT(vecsec_chacha_impls, sel, level);
 */
#define VECSEC_SELECT(table, cache, level) __extension__ ({ \
	unsigned int l_ = (unsigned int)(level); \
	unsigned int i_ = atomic_load_explicit(&(cache)[l_], memory_order_relaxed); \
	if (__builtin_expect(i_ == 0, 0)) { \
		uint64_t f_ = vecsec_level_features((enum vecsec_isa)l_); \
		while ((table)[i_] != NULL && \
		       !vecsec_impl_usable((table)[i_]->isa, (table)[i_]->needs, \
					   (enum vecsec_isa)l_, f_)) \
			i_++; \
		atomic_store_explicit(&(cache)[l_], (uint8_t)(i_ + 1), memory_order_relaxed); \
		i_++; \
	} \
	(table)[i_ - 1]; })

/*
 * The length-gated selector, for tables whose entries have a min_len (the
 * shortest input, in bytes, for which the entry beats the next usable one
 * below it; measured, in the entry's comment): the chain of a level is its
 * usable entries in table order (up to seven, index + 1 per byte, bit 63
 * marks a built chain), built once per level like VECSEC_SELECT's cache
 * by build(level), a cold function that VECSEC_CHAIN_BUILD defines. A call
 * takes the first entry of the chain whose min_len <= len, the last one
 * whatever len (min_len is a speed gate, never a condition of
 * correctness: every entry takes every length), NULL when the level has
 * none. chain is `_Atomic uint64_t chain[VECSEC_NB_LEVELS]`.
 */
#define VECSEC_SELECT_LEN(table, chain, build, level, len) __extension__ ({ \
	unsigned int l_ = (unsigned int)(level); \
	uint64_t c_ = atomic_load_explicit(&(chain)[l_], memory_order_relaxed); \
	size_t n_ = (len); \
	if (__builtin_expect(c_ == 0, 0)) \
		c_ = build(l_); \
	c_ &= ~(UINT64_C(1) << 63); \
	while ((c_ >> 8) != 0 && n_ < (table)[(c_ & 0xff) - 1]->min_len) \
		c_ >>= 8; \
	c_ == 0 ? NULL : (table)[(c_ & 0xff) - 1]; })

#define VECSEC_CHAIN_BUILD(name, table, chain) \
	static __attribute__((noinline, cold)) uint64_t \
	name(unsigned int l) \
	{ \
		uint64_t f = vecsec_level_features((enum vecsec_isa)l), c = 0; \
		unsigned int k = 0; \
		for (unsigned int i = 0; (table)[i] != NULL && k < 7; i++) \
			if (vecsec_impl_usable((table)[i]->isa, (table)[i]->needs, \
					       (enum vecsec_isa)l, f)) \
				c |= (uint64_t)(i + 1) << (8 * k++); \
		c |= UINT64_C(1) << 63; \
		atomic_store_explicit(&(chain)[l], c, memory_order_relaxed); \
		return c; \
	}

/*
 * Defines a primitive's two selection functions from its table
 * vecsec_<prim>_impls (entries of struct <type>):
 *   vecsec_<prim>_impl_at(level)  the entry for a level;
 *   vecsec_<prim>_impl()          the entry for the process's level.
 */
#define VECSEC_DEFINE_SELECTION(prim, type) \
	static _Atomic uint8_t prim##_sel[VECSEC_NB_LEVELS]; \
	const struct type * \
	vecsec_##prim##_impl_at(enum vecsec_isa level) \
	{ \
		return VECSEC_SELECT(vecsec_##prim##_impls, prim##_sel, level); \
	} \
	const struct type * \
	vecsec_##prim##_impl(void) \
	{ \
		return vecsec_##prim##_impl_at(vecsec_isa_cap()); \
	}

/*
 * vecsec_isa_cap() inline, for the per-message paths: the policy's level
 * once dispatch.c has read it (-1 before), else the call that reads it.
 */
extern __attribute__((visibility("hidden"))) _Atomic int vecsec_dispatch_level;

static inline enum vecsec_isa
vecsec_level(void)
{
	int l = atomic_load_explicit(&vecsec_dispatch_level, memory_order_acquire);

	return __builtin_expect(l >= 0, 1) ? (enum vecsec_isa)l : vecsec_isa_cap();
}

/*
 * VECSEC_DEFINE_SELECTION plus, for a table with min_len gates,
 *   vecsec_<prim>_impl_len(level, len)  the entry for len bytes at a level.
 */
#define VECSEC_DEFINE_SELECTION_LEN(prim, type) \
	VECSEC_DEFINE_SELECTION(prim, type) \
	static _Atomic uint64_t prim##_chain[VECSEC_NB_LEVELS]; \
	VECSEC_CHAIN_BUILD(prim##_chain_build, vecsec_##prim##_impls, prim##_chain) \
	const struct type * \
	vecsec_##prim##_impl_len(enum vecsec_isa level, size_t len) \
	{ \
		return VECSEC_SELECT_LEN(vecsec_##prim##_impls, prim##_chain, \
					 prim##_chain_build, level, len); \
	}

/*
 * vecsec_memzero() inline, for the short-message paths where a call per
 * wipe shows: the barrier makes the compiler keep the stores.
 */
static inline void
vecsec_wipe(void *p, size_t len)
{
	memset(p, 0, len);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

/*
 * Constant-time equality, the one implementation behind vecsec_ct_eq() and
 * its fixed-size form vecsec_ct_eq16() (the tag compare of the inline
 * verify paths, where a call per job shows). The bytes are read a 64-bit
 * word at a time (memcpy: any alignment), the tail byte by byte, every
 * difference XORed and ORed into d, and d passed through an empty asm after
 * each step: the compiler must assume the asm reads and rewrites d, so it can
 * neither stop early once d is nonzero nor turn the loop into memcmp().
 * The verdict is d's top bit after d | -d (no branch on the bytes); only
 * len, which is public, decides the number of steps.
 */
static inline bool
vecsec_ct_eq_inline(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;
	uint64_t d = 0, u, v;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&u, x + i, 8);
		memcpy(&v, y + i, 8);
		d |= u ^ v;
		__asm__ __volatile__("" : "+r"(d));
	}
	for (; i < len; i++) {
		d |= (uint64_t)(x[i] ^ y[i]);
		__asm__ __volatile__("" : "+r"(d));
	}
	return (((d | (0 - d)) >> 63) ^ 1) != 0;
}

static inline bool
vecsec_ct_eq16(const void *a, const void *b)
{
	return vecsec_ct_eq_inline(a, b, 16);
}

/*
 * The dispatch policy's other half: true while VECSEC_CHACHAPOLY=twopass
 * was set when the policy was last read (at first use and at every
 * vecsec_force_isa()): ChaCha20-Poly1305 then never takes the stitched
 * kernels (comparisons in benchmarks).
 */
bool vecsec_dispatch_twopass(void);

#endif /* VECSEC_CPU_INTERNAL_H */
