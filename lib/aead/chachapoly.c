/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Selection of the stitched (one-pass) ChaCha20-Poly1305 kernels: the
 * table widest first, the selector run by lib/cpu/dispatch.c, and the
 * modes of chachapoly_internal.h (two-pass forced by VECSEC_CHACHAPOLY=twopass
 * or vecsec_chachapoly_set_mode()) that tests and benchmarks use.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chachapoly_internal.h"

const struct chachapoly_impl *const vecsec_chachapoly_impls[] = {
#ifdef VECSEC_HAVE_AVX512_IFMA
	&vecsec_chachapoly_impl_avx512ifma,
#endif
#ifdef VECSEC_HAVE_AVX2
	&vecsec_chachapoly_impl_avx2,
#endif
	NULL,
};

static const struct chachapoly_impl *_Atomic chachapoly_cur;
static _Atomic bool chachapoly_selected;
static _Atomic bool env_twopass;
static _Atomic int chachapoly_mode = CHACHAPOLY_AUTO;

void
vecsec_chachapoly_select(enum vecsec_isa cap, uint64_t feat)
{
	const struct chachapoly_impl *pick = NULL;
	const char *env = getenv("VECSEC_CHACHAPOLY");

	for (size_t i = 0; vecsec_chachapoly_impls[i] != NULL; i++) {
		const struct chachapoly_impl *im = vecsec_chachapoly_impls[i];

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
vecsec_chachapoly_impl_for(size_t len)
{
	const struct chachapoly_impl *im;
	int mode = atomic_load_explicit(&chachapoly_mode, memory_order_relaxed);

	if (!atomic_load_explicit(&chachapoly_selected, memory_order_acquire))
		vecsec_dispatch_init();
	if (mode == CHACHAPOLY_TWOPASS || atomic_load_explicit(&env_twopass, memory_order_relaxed))
		return NULL;
	im = atomic_load_explicit(&chachapoly_cur, memory_order_acquire);
	(void)len;      /* the wrapper calls the kernel only from its min_len up */
	return im;
}

enum chachapoly_mode
vecsec_chachapoly_set_mode(enum chachapoly_mode mode)
{
	return (enum chachapoly_mode)atomic_exchange(&chachapoly_mode, (int)mode);
}
