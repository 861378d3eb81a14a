/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NH, portable reference: the Adiantum variant of UMAC's NH (Adiantum
 * paper, section 6.3): four passes over the message in 16-byte units,
 * pass i using the key shifted by 4 i words, each unit contributing
 *   (m[0] + k[0]) (m[2] + k[2]) + (m[1] + k[1]) (m[3] + k[3])
 * with 32-bit additions and 32x32->64-bit products summed mod 2^64.
 * Constant time (no branch or index depends on data).
 */
#include "adiantum_internal.h"

/* One pass over one 16-byte unit: the "stride 2" pairing of the paper. */
static inline uint64_t
nh_unit(const uint32_t m[4], const uint32_t *k)
{
	uint64_t sum = 0;

	for (int j = 0; j < NH_PAIR_STRIDE; j++) {
		uint32_t l = m[j] + k[j];
		uint32_t r = m[j + NH_PAIR_STRIDE] + k[j + NH_PAIR_STRIDE];

		sum += (uint64_t)l * r;
	}
	return sum;
}

void
vecsec_nh_ref(const uint32_t *key, const uint8_t *msg, size_t len,
	      uint64_t hash[NH_NUM_PASSES])
{
	for (int i = 0; i < NH_NUM_PASSES; i++)
		hash[i] = 0;
	for (size_t off = 0; off < len; off += NH_MESSAGE_UNIT) {
		uint32_t m[4];

		for (int j = 0; j < 4; j++)
			m[j] = adiantum_le32(msg + off + 4 * j);
		for (int i = 0; i < NH_NUM_PASSES; i++)
			hash[i] += nh_unit(m, key + off / 4 + 4 * i);
	}
}

const struct nh_impl vecsec_nh_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.nh = vecsec_nh_ref,
};
