/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH implementation selection: the table of kernels widest first (the
 * reference last) and its selector.
 */
#include <stdatomic.h>

#include "ghash_internal.h"

/* Widest first, the reference last; an entry needs its flag set and its kernel. */
const struct ghash_impl *const vecsec_ghash_impls[] = {
#if defined(VECSEC_HAVE_AVX512_VPCLMUL) && defined(VECSEC_HAVE_GHASH_AVX512_VPCLMUL)
	&vecsec_ghash_impl_avx512_vpclmul,
#endif
#if defined(VECSEC_HAVE_PCLMUL) && defined(VECSEC_HAVE_GHASH_PCLMUL)
	&vecsec_ghash_impl_pclmul,
#endif
	&vecsec_ghash_impl_ref,
	NULL,
};

static _Atomic(const struct ghash_impl *) ghash_cur;

void
vecsec_ghash_select(enum vecsec_isa cap, uint64_t feat)
{
	const struct ghash_impl *pick = &vecsec_ghash_impl_ref;

	for (size_t i = 0; vecsec_ghash_impls[i] != NULL; i++) {
		const struct ghash_impl *impl = vecsec_ghash_impls[i];

		if (vecsec_impl_usable(impl->isa, impl->needs, cap, feat)) {
			pick = impl;
			break;
		}
	}
	atomic_store_explicit(&ghash_cur, pick, memory_order_release);
}

const struct ghash_impl *
vecsec_ghash_impl(void)
{
	return VECSEC_IMPL_GET(ghash_cur);
}
