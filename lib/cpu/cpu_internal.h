/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal dispatch interface (never installed). Each primitive keeps one
 * _Atomic pointer to its current impl, filled by its selector
 * vecsec_<prim>_select(); lib/cpu/dispatch.c runs every selector listed in
 * dispatch_list.h once on first use, and again when the cap changes.
 */
#ifndef VECSEC_CPU_INTERNAL_H
#define VECSEC_CPU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

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
 * Selectors: each stores, in its primitive's pointer, the first impl of its
 * table (widest first) with isa <= cap whose `needs` feature bits are all in
 * feat. Declared by the X-list so dispatch.c can call them all.
 */
#define VECSEC_SELECTOR(prim) \
	void vecsec_##prim##_select(enum vecsec_isa cap, uint64_t feat);
#include "dispatch_list.h"
#undef VECSEC_SELECTOR

/* Make sure every selector has run at least once (thread-safe). */
void vecsec_dispatch_init(void);

/* True if an impl of level isa needing features `needs` may be used. */
static inline bool
vecsec_impl_usable(enum vecsec_isa isa, uint64_t needs, enum vecsec_isa cap, uint64_t feat)
{
	return isa <= cap && (feat & needs) == needs;
}

/* Feature bits each level implies (used to check a level is present). */
uint64_t vecsec_isa_features(enum vecsec_isa isa);

/*
 * Load a primitive's current impl, running dispatch on first use:
 *   const struct chacha_impl *impl = VECSEC_IMPL_GET(chacha_cur);
 */
#define VECSEC_IMPL_GET(ptr) __extension__ ({ \
	__typeof__(atomic_load_explicit(&(ptr), memory_order_acquire)) p_ = \
		atomic_load_explicit(&(ptr), memory_order_acquire); \
	if (__builtin_expect(p_ == NULL, 0)) { \
		vecsec_dispatch_init(); \
		p_ = atomic_load_explicit(&(ptr), memory_order_acquire); \
	} \
	p_; })

#endif /* VECSEC_CPU_INTERNAL_H */
