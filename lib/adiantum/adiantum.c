/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Adiantum (Crowley and Biggers, "Adiantum: length-preserving encryption
 * for entry-level processors", 2018; Linux crypto/adiantum.c): key
 * derivation, the hash-encrypt-hash construction on XChaCha12/20, AES-256
 * and NHPoly1305, and the AES-256 dispatch table.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "adiantum_internal.h"

/* ---- AES-256 dispatch: AES-NI where the CPU has it, else the reference ---- */
const struct aes256_impl *const vecsec_aes256_impls[] = {
#ifdef VECSEC_HAVE_AESNI
	&vecsec_aes256_impl_aesni,
#endif
	&vecsec_aes256_impl_ref,
	NULL,
};

static _Atomic(const struct aes256_impl *) aes256_cur;

void
vecsec_aes256_select(enum vecsec_isa cap, uint64_t feat)
{
	for (size_t i = 0; vecsec_aes256_impls[i] != NULL; i++) {
		const struct aes256_impl *p = vecsec_aes256_impls[i];

		if (vecsec_impl_usable(p->isa, p->needs, cap, feat)) {
			atomic_store_explicit(&aes256_cur, p, memory_order_release);
			return;
		}
	}
}

const struct aes256_impl *
vecsec_aes256_impl(void)
{
	return VECSEC_IMPL_GET(aes256_cur);
}
