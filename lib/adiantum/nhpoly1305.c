/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NHPoly1305 (Adiantum paper 6.4; Linux crypto/nhpoly1305.c): NH over each
 * 1024-byte chunk of the message (the last chunk a multiple of 16 bytes,
 * zero-padded), each 32-byte NH value absorbed by Poly1305 as two full
 * blocks, the result h mod p without s. Also the NH dispatch table.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "adiantum_internal.h"

/* ---- NH dispatch ---- */
const struct nh_impl *const vecsec_nh_impls[] = {
	&vecsec_nh_impl_ref,
	NULL,
};

static _Atomic(const struct nh_impl *) nh_cur;

void
vecsec_nh_select(enum vecsec_isa cap, uint64_t feat)
{
	for (size_t i = 0; vecsec_nh_impls[i] != NULL; i++) {
		const struct nh_impl *p = vecsec_nh_impls[i];

		if (vecsec_impl_usable(p->isa, p->needs, cap, feat)) {
			atomic_store_explicit(&nh_cur, p, memory_order_release);
			return;
		}
	}
}

const struct nh_impl *
vecsec_nh_impl(void)
{
	return VECSEC_IMPL_GET(nh_cur);
}
