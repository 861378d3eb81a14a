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
 * An odd last unit takes the form of Linux's arch/arm64/crypto/
 * nh-neon-core.S (one unit, the high half moved down for UMLAL). Key pairs
 * of odd strides come from the even ones by EXT/ZIP2: no key word past
 * k[len / 4 + 12] is read. Constant time (no branch or index on data).
 */
#include <arm_neon.h>

#include "adiantum_internal.h"

/* the key strides k_s, k_{s+1} paired as the message halves are */
struct kpair {
	uint64x2_t lo, hi;
};

static inline struct kpair
kpair_load(const uint32_t *k)
{
	uint64x2x2_t v = vld2q_u64((const uint64_t *)(const void *)k);

	return (struct kpair){ v.val[0], v.val[1] };
}

/* (k_s, k_{s+1}) paired -> (k_{s+1}, k_{s+2}) paired, given k_{s+2} */
static inline struct kpair
kpair_next(struct kpair p, uint64x2_t k2)
{
	return (struct kpair){ vextq_u64(p.lo, k2, 1), vzip2q_u64(p.hi, k2) };
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

/*
 * Units a, a+1 (msg) with key at k_a: pa, pb hold the pairs of strides a
 * and a+1; pc, pd receive those of a+2 and a+3 (the next step's pa, pb).
 */
#define STEP2(pa, pb, pc, pd) do { \
	uint64x2x2_t m_ = vld2q_u64((const uint64_t *)(const void *)msg); \
	pc = kpair_load(key + 8); \
	pd = kpair_next(pc, vreinterpretq_u64_u32(vld1q_u32(key + 16))); \
	s0 = pass2(s0, m_.val[0], m_.val[1], pa); \
	s1 = pass2(s1, m_.val[0], m_.val[1], pb); \
	s2 = pass2(s2, m_.val[0], m_.val[1], pc); \
	s3 = pass2(s3, m_.val[0], m_.val[1], pd); \
	msg += 2 * NH_MESSAGE_UNIT; \
	key += 8; \
} while (0)

void
vecsec_nh_neon(const uint32_t *key, const uint8_t *msg, size_t len,
	       uint64_t hash[NH_NUM_PASSES])
{
	uint64x2_t s0 = vdupq_n_u64(0), s1 = s0, s2 = s0, s3 = s0;
	size_t units = len / NH_MESSAGE_UNIT;
	struct kpair p0, p1, p2, p3;

	if (units >= 2) {
		p0 = kpair_load(key);                                   /* k0, k1 */
		p1 = kpair_next(p0, vreinterpretq_u64_u32(vld1q_u32(key + 8)));
		/* four units a step: the pairs change names instead of registers */
		for (; units >= 4; units -= 4) {
			STEP2(p0, p1, p2, p3);
			STEP2(p2, p3, p0, p1);
		}
		if (units >= 2) {
			STEP2(p0, p1, p2, p3);
			units -= 2;
		}
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
