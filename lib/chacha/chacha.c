/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha public API (vecsec_chacha.h) and implementation selection: the
 * table of impls widest first (VECSEC_SELECT picks from it per level), and
 * vecsec_chacha_xor_impl(), the one place that keeps the block counter
 * from wrapping inside a kernel call (chacha_internal.h).
 */
#include <errno.h>
#include <stdatomic.h>

#include "vecsec/vecsec_chacha.h"
#include "chacha_internal.h"

/* Widest first, the reference last; an entry per flag set that builds. */
const struct chacha_impl *const vecsec_chacha_impls[] = {
#ifdef VECSEC_HAVE_AVX512
	&vecsec_chacha_impl_avx512,
#endif
#ifdef VECSEC_HAVE_AVX2
	&vecsec_chacha_impl_avx2,
#endif
#ifdef VECSEC_HAVE_SSSE3
	&vecsec_chacha_impl_ssse3,
#endif
#ifdef VECSEC_HAVE_NEON
	&vecsec_chacha_impl_neon,
#endif
	&vecsec_chacha_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION_LEN(chacha, chacha_impl)

/*
 * The AVX2 level's VL forms (chacha_internal.h): the knob, and the CPU
 * test (the same for the lane kernels, which use AVX-512BW masks, and the
 * assembly, which needs only VL: one predicate for both).
 */
static _Atomic bool avx2_vl_on = true;

bool
vecsec_chacha_avx2_vl_cpu(void)
{
#ifdef VECSEC_HAVE_AVX2_VL
	const uint64_t need = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2 | VECSEC_CPU_AVX512VL |
			      VECSEC_CPU_AVX512BW;

	return (vecsec_cpu_features() & need) == need;
#else
	return false;
#endif
}

bool
vecsec_chacha_avx2_vl_allow(bool on)
{
	return atomic_exchange_explicit(&avx2_vl_on, on, memory_order_relaxed);
}

bool
vecsec_chacha_avx2_vl_allowed(void)
{
	return atomic_load_explicit(&avx2_vl_on, memory_order_relaxed);
}

bool
vecsec_chacha_avx2_vl(void)
{
	return vecsec_chacha_avx2_vl_allowed() && vecsec_chacha_avx2_vl_cpu();
}

void
vecsec_chacha_xor_impl(const struct chacha_impl *impl, struct chacha_state *st, uint8_t *out,
		       const uint8_t *in, size_t len)
{
	while (len > 0) {
		/* blocks left before word 12 wraps: 1 .. 2^32, so bytes fit in 64 bits */
		uint64_t room = (UINT64_C(1) << 32) - st->x[12];
		size_t n = len;

		if ((uint64_t)n > room * CHACHA_BLOCK_LEN)
			n = (size_t)(room * CHACHA_BLOCK_LEN);
		impl->xor_blocks(out, in, n, st);
		/* word 12 is 0 after a call only if the call wrapped it */
		if (st->x[12] == 0 && st->ctr64)
			st->x[13]++;
		out += n;
		in += n;
		len -= n;
	}
}

void
vecsec_chacha_xor_state(struct chacha_state *st, uint8_t *out, const uint8_t *in, size_t len)
{
	vecsec_chacha_xor_impl(vecsec_chacha_impl_len(vecsec_level(), len), st, out, in, len);
}

static bool
rounds_ok(unsigned int rounds)
{
	return rounds == 20 || rounds == 12 || rounds == 8;
}

/* ceil(len / 64) without overflow */
static uint64_t
nblocks(size_t len)
{
	return (uint64_t)(len / CHACHA_BLOCK_LEN) + (len % CHACHA_BLOCK_LEN != 0);
}

VECSEC_API int
vecsec_chacha_xor(uint8_t *out, const uint8_t *in, size_t len,
		  const uint8_t key[VECSEC_CHACHA_KEY_LEN],
		  const uint8_t nonce[VECSEC_CHACHA_NONCE_LEN], uint32_t counter,
		  unsigned int rounds)
{
	struct chacha_state st;

	if (key == NULL || nonce == NULL || (len > 0 && (out == NULL || in == NULL)) ||
	    !rounds_ok(rounds))
		return -EINVAL;
	/* RFC 8439 2.4: the 32-bit counter must not wrap within a message */
	if (nblocks(len) > (UINT64_C(1) << 32) - counter)
		return -EINVAL;
	if (len == 0)
		return 0;
	chacha_state_init_ietf(&st, key, nonce, counter, rounds);
	vecsec_chacha_xor_state(&st, out, in, len);
	vecsec_memzero(&st, sizeof(st));
	return 0;
}

VECSEC_API int
vecsec_xchacha_xor(uint8_t *out, const uint8_t *in, size_t len,
		   const uint8_t key[VECSEC_CHACHA_KEY_LEN],
		   const uint8_t nonce[VECSEC_XCHACHA_NONCE_LEN], uint64_t counter,
		   unsigned int rounds)
{
	struct chacha_state st;
	uint8_t subkey[CHACHA_KEY_LEN];

	if (key == NULL || nonce == NULL || (len > 0 && (out == NULL || in == NULL)) ||
	    (rounds != 20 && rounds != 12))
		return -EINVAL;
	/* the 64-bit counter must not wrap either (counter + blocks <= 2^64) */
	if (counter != 0 && nblocks(len) > UINT64_MAX - counter + 1)
		return -EINVAL;
	if (len == 0)
		return 0;
	vecsec_hchacha_impl(vecsec_chacha_impl(), subkey, key, nonce, rounds);
	chacha_state_init_64(&st, subkey, nonce + HCHACHA_NONCE_LEN, counter, rounds);
	vecsec_chacha_xor_state(&st, out, in, len);
	vecsec_memzero(subkey, sizeof(subkey));
	vecsec_memzero(&st, sizeof(st));
	return 0;
}

VECSEC_API int
vecsec_hchacha(uint8_t out[32], const uint8_t key[VECSEC_CHACHA_KEY_LEN],
	       const uint8_t nonce[VECSEC_HCHACHA_NONCE_LEN], unsigned int rounds)
{
	if (out == NULL || key == NULL || nonce == NULL || !rounds_ok(rounds))
		return -EINVAL;
	vecsec_hchacha_impl(vecsec_chacha_impl(), out, key, nonce, rounds);
	return 0;
}

VECSEC_API const char *
vecsec_chacha_impl_name(void)
{
	return vecsec_chacha_impl()->name;
}
