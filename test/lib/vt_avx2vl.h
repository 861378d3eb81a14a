/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helper (header-only) for the suites that run the AVX2 single-message
 * assembly's plain form beside its VL form (lib/chacha: the same .S files
 * assembled again with -mavx512vl, chosen on a CPU with AVX-512VL/BW).
 */
#ifndef VT_AVX2VL_H
#define VT_AVX2VL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vecsec/vecsec.h"
#include "chacha/chacha_internal.h"

/*
 * At the AVX2 level, on a CPU with the VL form: checks that it is on by
 * default, turns it off (*was: the setting for vt_avx2_plain_end()) and
 * returns true, so the caller runs its tests again on the plain form.
 * Else false: at another level quietly; on a CPU without VL with a loud
 * SKIP, and a failure where VECSEC_TEST_REQUIRE_ISA asks for avx512 (or
 * all).
 */
static inline bool
vt_avx2_plain_begin(const char *suite, bool *was)
{
	if (vecsec_isa_cap() != VECSEC_ISA_AVX2)
		return false;   /* the AVX2 entries run at their own level only */
	if (!vecsec_chacha_avx2_vl_cpu()) {
		vt_skip_lacking(suite, "the AVX2 assembly's VL form", "AVX-512VL/BW");
		return false;
	}
	VT_EXPECT(vecsec_chacha_avx2_vl(), "the VL form on by default");
	*was = vecsec_chacha_avx2_vl_allow(false);
	VT_EXPECT(!vecsec_chacha_avx2_vl(), "knob off: the plain form");
	printf("\n    the AVX2 assembly's plain form");
	return true;
}

static inline void
vt_avx2_plain_end(bool was)
{
	vecsec_chacha_avx2_vl_allow(was);
}

#endif /* VT_AVX2VL_H */
