/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selection of the stitched (one-pass) ChaCha20-Poly1305 kernels: the
 * table widest first, the selector run by lib/cpu/dispatch.c, and the
 * switch back to the two-pass path (VECSEC_CHACHAPOLY=twopass, read when
 * the selectors run, or vecsec_chachapoly_set_twopass()) that tests and
 * benchmarks use to compare the two.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chachapoly_internal.h"

static const struct chachapoly_impl *const chachapoly_impls[] = {
#ifdef VECSEC_HAVE_AVX512_IFMA
	&vecsec_chachapoly_impl_avx512ifma,
#endif
	NULL,
};

static const struct chachapoly_impl *_Atomic chachapoly_cur;
static _Atomic bool chachapoly_selected;
static _Atomic bool env_twopass;
static _Atomic bool forced_twopass;

void
vecsec_chachapoly_select(enum vecsec_isa cap, uint64_t feat)
{
	const struct chachapoly_impl *pick = NULL;
	const char *env = getenv("VECSEC_CHACHAPOLY");

	for (size_t i = 0; chachapoly_impls[i] != NULL; i++) {
		const struct chachapoly_impl *im = chachapoly_impls[i];

		if (vecsec_impl_usable(im->isa, im->needs, cap, feat)) {
			pick = im;
			break;
		}
	}
	atomic_store_explicit(&env_twopass, env != NULL && strcmp(env, "twopass") == 0,
			      memory_order_relaxed);
	atomic_store_explicit(&chachapoly_cur, pick, memory_order_release);
	atomic_store_explicit(&chachapoly_selected, true, memory_order_release);
}

const struct chachapoly_impl *
vecsec_chachapoly_impl(void)
{
	if (!atomic_load_explicit(&chachapoly_selected, memory_order_acquire))
		vecsec_dispatch_init();
	if (atomic_load_explicit(&forced_twopass, memory_order_relaxed) ||
	    atomic_load_explicit(&env_twopass, memory_order_relaxed))
		return NULL;
	return atomic_load_explicit(&chachapoly_cur, memory_order_acquire);
}

bool
vecsec_chachapoly_set_twopass(bool twopass)
{
	return atomic_exchange(&forced_twopass, twopass);
}
