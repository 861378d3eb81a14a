/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec: version, CPU feature detection, ISA control and the two helpers
 * every user of secrets needs (constant-time compare, wipe).
 */
#ifndef VECSEC_H
#define VECSEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VECSEC_BUILD) && defined(__GNUC__)
#define VECSEC_API __attribute__((visibility("default")))
#else
#define VECSEC_API
#endif

/**
 * SIMD levels, ordered: a level implies every lower one of its architecture.
 * On aarch64 the only level above scalar is NEON (same rank as SSSE3).
 */
enum vecsec_isa {
	VECSEC_ISA_DEFAULT = -1, /**< vecsec_force_isa(): back to CPU/env choice */
	VECSEC_ISA_SCALAR = 0,   /**< portable C reference */
	VECSEC_ISA_SSSE3 = 1,    /**< x86: SSSE3 (128-bit) */
	VECSEC_ISA_NEON = 1,     /**< aarch64: Advanced SIMD (128-bit) */
	VECSEC_ISA_AVX2 = 2,     /**< x86: AVX2 (256-bit) */
	VECSEC_ISA_AVX512 = 3,   /**< x86: AVX-512 F+VL+BW (512-bit) */
};

/* CPU feature bits, as returned by vecsec_cpu_features(). */
#define VECSEC_CPU_SSSE3       (UINT64_C(1) << 0)
#define VECSEC_CPU_SSE41       (UINT64_C(1) << 1)
#define VECSEC_CPU_AVX         (UINT64_C(1) << 2)
#define VECSEC_CPU_AVX2        (UINT64_C(1) << 3)
#define VECSEC_CPU_BMI2        (UINT64_C(1) << 4)
#define VECSEC_CPU_ADX         (UINT64_C(1) << 5)
#define VECSEC_CPU_AESNI       (UINT64_C(1) << 6)
#define VECSEC_CPU_PCLMUL      (UINT64_C(1) << 7)
#define VECSEC_CPU_AVX512F     (UINT64_C(1) << 8)
#define VECSEC_CPU_AVX512VL    (UINT64_C(1) << 9)
#define VECSEC_CPU_AVX512BW    (UINT64_C(1) << 10)
#define VECSEC_CPU_AVX512IFMA  (UINT64_C(1) << 11)
#define VECSEC_CPU_AVX512VBMI  (UINT64_C(1) << 12)
#define VECSEC_CPU_VAES        (UINT64_C(1) << 13)
#define VECSEC_CPU_VPCLMULQDQ  (UINT64_C(1) << 14)
#define VECSEC_CPU_GFNI        (UINT64_C(1) << 15)
#define VECSEC_CPU_SHA         (UINT64_C(1) << 16)
#define VECSEC_CPU_NEON        (UINT64_C(1) << 32)
#define VECSEC_CPU_ARM_AES     (UINT64_C(1) << 33)
#define VECSEC_CPU_ARM_PMULL   (UINT64_C(1) << 34)

/**
 * Version of the library the program runs with ("MAJOR.MINOR.PATCH"); the
 * one it was compiled against is VECSEC_VERSION_STRING (vecsec_version.h).
 *
 * @return a static string; never NULL.
 */
VECSEC_API const char *vecsec_version(void);

/**
 * CPU features usable by this process: the CPU has them and the OS saves
 * their register state (XGETBV), detected once.
 *
 * @return a mask of VECSEC_CPU_* bits.
 */
VECSEC_API uint64_t vecsec_cpu_features(void);

/**
 * Widest SIMD level this CPU and OS support, ignoring every cap.
 *
 * @return a level, VECSEC_ISA_SCALAR at least.
 */
VECSEC_API enum vecsec_isa vecsec_cpu_max_isa(void);

/**
 * The level dispatch currently selects up to: the lowest of the CPU's
 * level, the VECSEC_ISA environment variable (an unknown value means
 * scalar), vecsec_isa_limit() and vecsec_force_isa().
 *
 * The environment is read on first use and again by vecsec_force_isa():
 * VECSEC_ISA=scalar|ssse3|avx2|avx512 (or neon) caps the process's level;
 * VECSEC_CHACHAPOLY=twopass keeps ChaCha20-Poly1305 on its two-pass path
 * (no stitched kernel), for comparisons. Nothing else is read.
 *
 * @return the current cap.
 */
VECSEC_API enum vecsec_isa vecsec_isa_cap(void);

/**
 * Pin dispatch to a level (tests and benchmarks): every primitive re-selects
 * its implementation. Not safe while other threads run vecsec code.
 *
 * @param isa
 *   a level, or VECSEC_ISA_DEFAULT to return to the CPU/environment choice
 *   (and drop earlier limits).
 * @return 0 on success; -ENOTSUP if the CPU or OS lacks @p isa;
 *   -EINVAL for a value that is no level.
 */
VECSEC_API int vecsec_force_isa(enum vecsec_isa isa);

/**
 * Lower the cap, never raise it (an application's or a PMD's ISA limit).
 * Not safe while other threads run vecsec code.
 *
 * @param max
 *   highest level allowed from now on.
 * @return 0 on success; -EINVAL for a value that is no level.
 */
VECSEC_API int vecsec_isa_limit(enum vecsec_isa max);

/**
 * Name of a level: "scalar", "ssse3", "avx2", "avx512" (or "neon" on aarch64).
 *
 * @param isa
 *   a level.
 * @return a static string; "unknown" for a value that is no level.
 */
VECSEC_API const char *vecsec_isa_name(enum vecsec_isa isa);

/**
 * Parse a level's name, as accepted by VECSEC_ISA and the PMD's isa= devarg.
 *
 * @param name
 *   "scalar", "ssse3", "avx2", "avx512" or "neon" (case-insensitive).
 * @param isa
 *   receives the level.
 * @return 0 on success; -EINVAL for NULL or an unknown name.
 */
VECSEC_API int vecsec_isa_parse(const char *name, enum vecsec_isa *isa);

/**
 * Compare two buffers in time that depends only on @p len.
 *
 * @param a
 *   first buffer.
 * @param b
 *   second buffer.
 * @param len
 *   bytes to compare (0: equal).
 * @return true if equal.
 */
VECSEC_API bool vecsec_ct_eq(const void *a, const void *b, size_t len);

/**
 * Overwrite a buffer with zeros in a way the compiler cannot remove.
 *
 * @param p
 *   buffer (may be NULL when @p len is 0).
 * @param len
 *   bytes to wipe.
 */
VECSEC_API void vecsec_memzero(void *p, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* VECSEC_H */
