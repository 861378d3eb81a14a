/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stack wipe of the fused small-burst kernels (chachapoly_small.h),
 * shared by their AVX-512 and AVX2 files: portable C, no vector code.
 */
#include <stdalign.h>
#include <stdatomic.h>

#include "chachapoly_internal.h"
#include "chachapoly_small.h"

/*
 * Stack that the wipe can reach below the caller's frame: more than a
 * kernel's frame and the 128-byte red zone (in the release build with
 * GCC 12 -O3, each with its pushes, alignment and the red zone: the
 * AVX-512 kernel's 4.3 KiB, the AVX2 kernel's 4.3 KiB, its VL form's
 * 3.7 KiB). Sanitizer builds' frames are larger.
 * Only the part the kernel used is written.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define BURN (64 * 1024)
#else
#define BURN (6 * 1024)
#endif

/* Frames that the wipe did not reach (vecsec_chachapoly_small_burn_short()). */
static _Atomic uint64_t burn_short;

/*
 * Zeros over the stack a kernel's body used, down to sp less the red zone:
 * called from the frame that called the body, this function's array lies
 * over the body's frame.
 */
__attribute__((noinline)) void
vecsec_chachapoly_small_burn(uintptr_t sp)
{
	alignas(64) uint8_t z[BURN];
	uintptr_t from = sp - 128, base = (uintptr_t)z;

	if (from < base) {
		vecsec_wipe(z, sizeof(z));
		atomic_fetch_add_explicit(&burn_short, 1, memory_order_relaxed);
		return;
	}
	from &= ~(uintptr_t)63;
	vecsec_wipe(z + (from - base), sizeof(z) - (from - base));
}

uint64_t
vecsec_chachapoly_small_burn_short(void)
{
	return atomic_load_explicit(&burn_short, memory_order_relaxed);
}
