/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Version, constant-time comparison and wiping: the helpers every path that
 * touches secrets uses (tags are compared only with vecsec_ct_eq(); keys,
 * Poly1305 r and s, keystream and other secret temporaries are wiped with
 * vecsec_memzero() before return).
 */
#include <string.h>

#include "cpu_internal.h"

VECSEC_API const char *
vecsec_version(void)
{
	return VECSEC_VERSION;
}

/* Word at a time, no data-dependent branch: vecsec_ct_eq_inline(). */
VECSEC_API bool
vecsec_ct_eq(const void *a, const void *b, size_t len)
{
	return vecsec_ct_eq_inline(a, b, len);
}

VECSEC_API void
vecsec_memzero(void *p, size_t len)
{
	if (len == 0)
		return;
	memset(p, 0, len);
	/* The barrier tells the compiler the zeros are read: the store stays. */
	__asm__ __volatile__("" : : "r"(p) : "memory");
}
