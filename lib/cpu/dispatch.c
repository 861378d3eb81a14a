/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dispatch policy, the one place that reads the environment. The
 * process's level (vecsec_isa_cap()) is the lowest of the CPU's level,
 * VECSEC_ISA (unknown value: scalar, so a typo is slow, never wrong) and
 * the limit set by vecsec_isa_limit(), or the level pinned by
 * vecsec_force_isa(). VECSEC_CHACHAPOLY=twopass keeps ChaCha20-Poly1305 off
 * the stitched kernels. Both are read on first use and again by
 * vecsec_force_isa(). Tables select per level (VECSEC_SELECT), so changing
 * the level re-selects nothing: it picks another, already chosen, entry.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpu_internal.h"

static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;
/* The process's level: -1 until the policy was first read (vecsec_level()). */
_Atomic int vecsec_dispatch_level = -1;
static _Atomic int isa_limit = VECSEC_ISA_AVX512;
static _Atomic bool twopass;

static enum vecsec_isa
env_cap(void)
{
	const char *s = getenv("VECSEC_ISA");
	enum vecsec_isa isa;

	if (s == NULL || *s == '\0')
		return vecsec_cpu_max_isa();
	if (vecsec_isa_parse(s, &isa) != 0)
		return VECSEC_ISA_SCALAR;
	return isa < vecsec_cpu_max_isa() ? isa : vecsec_cpu_max_isa();
}

static void
read_env(void)
{
	const char *s = getenv("VECSEC_CHACHAPOLY");

	atomic_store_explicit(&twopass, s != NULL && strcmp(s, "twopass") == 0,
			      memory_order_relaxed);
}

static void
dispatch_first(void)
{
	read_env();
	atomic_store_explicit(&vecsec_dispatch_level, env_cap(), memory_order_release);
}

/* One acquire load once the policy was read (every short message pays this). */
static inline void
dispatch_init(void)
{
	if (__builtin_expect(atomic_load_explicit(&vecsec_dispatch_level, memory_order_acquire) < 0, 0))
		pthread_once(&dispatch_once, dispatch_first);
}

uint64_t
vecsec_level_features(enum vecsec_isa level)
{
	uint64_t feat = vecsec_cpu_features();

	if (level < VECSEC_ISA_AVX512)
		feat &= ~(VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
			  VECSEC_CPU_AVX512IFMA | VECSEC_CPU_AVX512VBMI);
	if (level < VECSEC_ISA_AVX2)
		feat &= ~(VECSEC_CPU_AVX | VECSEC_CPU_AVX2 | VECSEC_CPU_VAES |
			  VECSEC_CPU_VPCLMULQDQ);
	if (level < VECSEC_ISA_SSSE3)
		feat = 0;
	return feat;
}

bool
vecsec_dispatch_twopass(void)
{
	dispatch_init();
	return atomic_load_explicit(&twopass, memory_order_relaxed);
}

VECSEC_API enum vecsec_isa
vecsec_isa_cap(void)
{
	dispatch_init();
	return (enum vecsec_isa)atomic_load_explicit(&vecsec_dispatch_level, memory_order_relaxed);
}

static bool
is_level(int isa)
{
	return isa >= VECSEC_ISA_SCALAR && isa <= VECSEC_ISA_AVX512;
}

VECSEC_API int
vecsec_force_isa(enum vecsec_isa isa)
{
	dispatch_init();
	if (isa == VECSEC_ISA_DEFAULT) {
		atomic_store_explicit(&isa_limit, VECSEC_ISA_AVX512, memory_order_relaxed);
		read_env();
		atomic_store_explicit(&vecsec_dispatch_level, env_cap(), memory_order_relaxed);
		return 0;
	}
	if (!is_level(isa))
		return -EINVAL;
	if (isa > vecsec_cpu_max_isa())
		return -ENOTSUP;
	read_env();
	atomic_store_explicit(&vecsec_dispatch_level, isa, memory_order_relaxed);
	return 0;
}

VECSEC_API int
vecsec_isa_limit(enum vecsec_isa max)
{
	if (!is_level(max))
		return -EINVAL;
	dispatch_init();
	if ((int)max < atomic_load_explicit(&isa_limit, memory_order_relaxed))
		atomic_store_explicit(&isa_limit, max, memory_order_relaxed);
	if (atomic_load_explicit(&vecsec_dispatch_level, memory_order_relaxed) >
	    atomic_load_explicit(&isa_limit, memory_order_relaxed))
		atomic_store_explicit(&vecsec_dispatch_level, atomic_load_explicit(&isa_limit,
								     memory_order_relaxed),
				      memory_order_relaxed);
	return 0;
}

VECSEC_API const char *
vecsec_isa_name(enum vecsec_isa isa)
{
	switch (isa) {
	case VECSEC_ISA_SCALAR:
		return "scalar";
	case VECSEC_ISA_SSSE3:
#if defined(__aarch64__)
		return "neon";
#else
		return "ssse3";
#endif
	case VECSEC_ISA_AVX2:
		return "avx2";
	case VECSEC_ISA_AVX512:
		return "avx512";
	default:
		return "unknown";
	}
}

VECSEC_API int
vecsec_isa_parse(const char *name, enum vecsec_isa *isa)
{
	static const struct {
		const char *name;
		enum vecsec_isa isa;
	} names[] = {
		{ "scalar", VECSEC_ISA_SCALAR }, { "ref", VECSEC_ISA_SCALAR },
		{ "ssse3", VECSEC_ISA_SSSE3 }, { "neon", VECSEC_ISA_NEON },
		{ "avx2", VECSEC_ISA_AVX2 }, { "avx512", VECSEC_ISA_AVX512 },
	};

	if (name == NULL || isa == NULL)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(name, names[i].name) == 0) {
			*isa = names[i].isa;
			return 0;
		}
	}
	return -EINVAL;
}
