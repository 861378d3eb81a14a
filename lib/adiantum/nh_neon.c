/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NH, NEON (AArch64 Advanced SIMD, baseline ARMv8-A): the four passes of
 * the Adiantum paper's NH (section 6.3; 16-byte units, stride 2, pass i
 * on the key shifted by 4 i words) side by side, two units per step. LD2
 * on 64-bit elements splits units a, a+1 into their low and high halves:
 *   lo = m_a[0..1] | m_{a+1}[0..1],  hi = m_a[2..3] | m_{a+1}[2..3]
 * and the key strides k_s (4 words) into the same pairing, so pass i is
 * two additions and one UMLAL (unit a, lanes 0-1) plus one UMLAL2 (unit
 * a+1, lanes 2-3): each 64-bit lane sums (m[j] + k[j]) (m[j+2] + k[j+2]).
 * Four units a step load the six key pairs they need (strides a..a+5,
 * the last k_{a+6}): no key word past key[len / 4 + 12] is read. An odd last unit takes the form of Linux's
 * arch/arm64/crypto/nh-neon-core.S (one unit, the high half moved down for
 * UMLAL). Constant time (no branch or index on data).
 */
#include <arm_neon.h>

#include "adiantum_internal.h"

/* the key strides k_s, k_{s+1} (at key + 4 s) paired as the message halves are */
struct kpair {
	uint64x2_t lo, hi;
};

static inline struct kpair
kpair_load(const uint32_t *k)
{
	uint64x2x2_t v = vld2q_u64((const uint64_t *)(const void *)k);

	return (struct kpair){ v.val[0], v.val[1] };
}

/* pass sum += both units' products under key pair kp */
static inline uint64x2_t
pass2(uint64x2_t sum, uint64x2_t mlo, uint64x2_t mhi, struct kpair kp)
{
	uint32x4_t x = vaddq_u32(vreinterpretq_u32_u64(mlo), vreinterpretq_u32_u64(kp.lo));
	uint32x4_t y = vaddq_u32(vreinterpretq_u32_u64(mhi), vreinterpretq_u32_u64(kp.hi));

	sum = vmlal_u32(sum, vget_low_u32(x), vget_low_u32(y));
	return vmlal_high_u32(sum, x, y);
}

/* units a, a+1 (msg) under key pairs pa..pd of strides a..a+3 */
#define UNITS2(pa, pb, pc, pd) do { \
	uint64x2x2_t m_ = vld2q_u64((const uint64_t *)(const void *)msg); \
	s0 = pass2(s0, m_.val[0], m_.val[1], pa); \
	s1 = pass2(s1, m_.val[0], m_.val[1], pb); \
	s2 = pass2(s2, m_.val[0], m_.val[1], pc); \
	s3 = pass2(s3, m_.val[0], m_.val[1], pd); \
	msg += 2 * NH_MESSAGE_UNIT; \
} while (0)

void
vecsec_nh_neon(const uint32_t *key, const uint8_t *msg, size_t len,
	       uint64_t hash[NH_NUM_PASSES])
{
	uint64x2_t s0 = vdupq_n_u64(0), s1 = s0, s2 = s0, s3 = s0;
	size_t units = len / NH_MESSAGE_UNIT;

	/*
	 * four units a step: the six key pairs of strides a..a+5 are loaded
	 * afresh (LD2 from L1) rather than carried, which would cost moves
	 */
	for (; units >= 4; units -= 4, key += 16) {
		struct kpair p0 = kpair_load(key), p1 = kpair_load(key + 4);
		struct kpair p2 = kpair_load(key + 8), p3 = kpair_load(key + 12);
		struct kpair p4 = kpair_load(key + 16), p5 = kpair_load(key + 20);

		UNITS2(p0, p1, p2, p3);
		UNITS2(p2, p3, p4, p5);
	}
	if (units >= 2) {
		UNITS2(kpair_load(key), kpair_load(key + 4), kpair_load(key + 8),
		       kpair_load(key + 12));
		units -= 2;
		key += 8;
	}
	if (units == 1) {
		/* one unit: the high half moved down for UMLAL (Linux's form) */
		uint32x4_t m = vreinterpretq_u32_u8(vld1q_u8(msg));
		uint32x4_t t0 = vaddq_u32(m, vld1q_u32(key));
		uint32x4_t t1 = vaddq_u32(m, vld1q_u32(key + 4));
		uint32x4_t t2 = vaddq_u32(m, vld1q_u32(key + 8));
		uint32x4_t t3 = vaddq_u32(m, vld1q_u32(key + 12));

		s0 = vmlal_u32(s0, vget_low_u32(t0), vget_high_u32(t0));
		s1 = vmlal_u32(s1, vget_low_u32(t1), vget_high_u32(t1));
		s2 = vmlal_u32(s2, vget_low_u32(t2), vget_high_u32(t2));
		s3 = vmlal_u32(s3, vget_low_u32(t3), vget_high_u32(t3));
	}
	hash[0] = vaddvq_u64(s0);
	hash[1] = vaddvq_u64(s1);
	hash[2] = vaddvq_u64(s2);
	hash[3] = vaddvq_u64(s3);
}

const struct nh_impl vecsec_nh_impl_neon = {
	.name = "neon",
	.isa = VECSEC_ISA_NEON,
	.needs = VECSEC_CPU_NEON,
	.nh = vecsec_nh_neon,
};
