/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH implementation selection: the table of kernels widest first (the
 * reference last), selected from per level (VECSEC_SELECT).
 */
#include <stdatomic.h>

#include "ghash_internal.h"

/* Widest first, the reference last; an entry per flag set that builds. */
const struct ghash_impl *const vecsec_ghash_impls[] = {
#ifdef VECSEC_HAVE_AVX512_VPCLMUL
	&vecsec_ghash_impl_avx512_vpclmul,
#endif
#ifdef VECSEC_HAVE_PCLMUL
	&vecsec_ghash_impl_pclmul,
#endif
	&vecsec_ghash_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION(ghash, ghash_impl)
