/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cpu: feature detection is consistent with the ISA levels, the cap
 * obeys VECSEC_ISA/vecsec_force_isa()/vecsec_isa_limit(), and the secret
 * helpers (vecsec_ct_eq, vecsec_memzero) do what they say.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "vt.h"
#include "cpu_internal.h"

static void
test_levels_match_features(void)
{
	uint64_t f = vecsec_cpu_features();
	enum vecsec_isa max = vecsec_cpu_max_isa();

	printf("\n    cpu max isa %s, features 0x%llx\n", vecsec_isa_name(max),
	       (unsigned long long)f);
#if defined(__x86_64__)
	/* x86-64 CPUs that run this have SSSE3 and more; AVX-512 implies AVX2. */
	if (max >= VECSEC_ISA_AVX2)
		VT_EXPECT((f & VECSEC_CPU_AVX2) && (f & VECSEC_CPU_AVX), "avx2 level without AVX2 bit");
	if (max >= VECSEC_ISA_AVX512)
		VT_EXPECT((f & VECSEC_CPU_AVX512BW) && (f & VECSEC_CPU_AVX512VL), "avx512 bits");
	if (!(f & VECSEC_CPU_AVX512F))
		VT_EXPECT(max < VECSEC_ISA_AVX512, "avx512 level without AVX512F");
#elif defined(__aarch64__)
	{
		/* the auxiliary vector's HWCAP bits (linux/arch/arm64 uapi hwcap.h) */
		unsigned long hw = getauxval(AT_HWCAP);

		VT_EXPECT(!!(f & VECSEC_CPU_NEON) == !!(hw & (1ul << 1)), "NEON bit vs HWCAP_ASIMD");
		VT_EXPECT(!!(f & VECSEC_CPU_ARM_AES) == !!(hw & (1ul << 3)), "AES bit vs HWCAP_AES");
		VT_EXPECT(!!(f & VECSEC_CPU_ARM_PMULL) == !!(hw & (1ul << 4)),
			  "PMULL bit vs HWCAP_PMULL");
		VT_EXPECT((f & ~(VECSEC_CPU_NEON | VECSEC_CPU_ARM_AES | VECSEC_CPU_ARM_PMULL)) == 0,
			  "x86 feature bits on aarch64: 0x%llx", (unsigned long long)f);
		VT_EXPECT(max == ((f & VECSEC_CPU_NEON) ? VECSEC_ISA_NEON : VECSEC_ISA_SCALAR),
			  "max isa %d with NEON %d", max, !!(f & VECSEC_CPU_NEON));
		VT_EXPECT(strcmp(vecsec_isa_name(VECSEC_ISA_NEON), "neon") == 0, "name %s",
			  vecsec_isa_name(VECSEC_ISA_NEON));
	}
#endif
	VT_EXPECT(vecsec_isa_cap() <= max, "cap %d above cpu %d", vecsec_isa_cap(), max);
}

static void
test_force_and_limit(void)
{
	enum vecsec_isa max = vecsec_cpu_max_isa(), now = vecsec_isa_cap();

	for (int i = VECSEC_ISA_SCALAR; i <= VECSEC_ISA_AVX512; i++) {
		int rc = vecsec_force_isa((enum vecsec_isa)i);

		if (i <= (int)max) {
			VT_EXPECT(rc == 0, "force %d rc %d", i, rc);
			VT_EXPECT(vecsec_isa_cap() == (enum vecsec_isa)i, "cap after force %d", i);
		} else {
			VT_EXPECT(rc == -ENOTSUP, "force above cpu %d rc %d", i, rc);
		}
	}
	VT_EXPECT(vecsec_force_isa((enum vecsec_isa)42) == -EINVAL, "bad level");
	VT_EXPECT(vecsec_force_isa(VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_isa_limit(VECSEC_ISA_SCALAR) == 0, "limit");
	VT_EXPECT(vecsec_isa_cap() == VECSEC_ISA_SCALAR, "limit lowers cap");
	VT_EXPECT(vecsec_isa_limit(VECSEC_ISA_AVX512) == 0, "limit never raises");
	VT_EXPECT(vecsec_isa_cap() == VECSEC_ISA_SCALAR, "limit never raises (cap)");
	VT_EXPECT(vecsec_isa_limit((enum vecsec_isa)-7) == -EINVAL, "bad limit");
	/* back to where the ISA loop put us */
	VT_EXPECT(vecsec_force_isa(now) == 0, "restore");
}

static void
test_parse_names(void)
{
	enum vecsec_isa isa;

	VT_EXPECT(vecsec_isa_parse("AVX2", &isa) == 0 && isa == VECSEC_ISA_AVX2, "AVX2");
	VT_EXPECT(vecsec_isa_parse("scalar", &isa) == 0 && isa == VECSEC_ISA_SCALAR, "scalar");
	VT_EXPECT(vecsec_isa_parse("avx512", &isa) == 0 && isa == VECSEC_ISA_AVX512, "avx512");
	VT_EXPECT(vecsec_isa_parse("NEON", &isa) == 0 && isa == VECSEC_ISA_NEON, "neon");
	VT_EXPECT(vecsec_isa_parse("avx3", &isa) == -EINVAL, "typo rejected");
	VT_EXPECT(vecsec_isa_parse(NULL, &isa) == -EINVAL, "NULL rejected");
	VT_EXPECT(strcmp(vecsec_isa_name((enum vecsec_isa)99), "unknown") == 0, "unknown");
	VT_EXPECT(strcmp(vecsec_version(), VECSEC_VERSION) == 0, "version");
}

static void
test_ct_eq(void)
{
	uint8_t a[97], b[97];

	vt_rand(a, sizeof(a), vt_seed());
	memcpy(b, a, sizeof(a));
	VT_EXPECT(vecsec_ct_eq(a, b, 0), "empty equal");
	VT_EXPECT(vecsec_ct_eq(a, b, sizeof(a)), "equal");
	for (size_t i = 0; i < sizeof(a); i++) {
		for (int bit = 0; bit < 8; bit++) {
			b[i] ^= (uint8_t)(1u << bit);
			VT_EXPECT(!vecsec_ct_eq(a, b, sizeof(a)), "byte %zu bit %d", i, bit);
			VT_EXPECT(vecsec_ct_eq(a, b, i), "prefix %zu", i);
			b[i] ^= (uint8_t)(1u << bit);
		}
	}
}

/*
 * vecsec_ct_eq() (word at a time, byte tail) at every length 0..64 and
 * every pair of misalignments 0..7: equal inputs, and a difference at every
 * byte position and bit, which must be seen by the full compare and not by
 * the compare of the bytes before it; the same for the inline 16-byte form
 * vecsec_ct_eq16() that the open paths use.
 */
static void
test_ct_eq_lengths(void)
{
	enum { MAXLEN = 64, MIS = 8 };
	uint8_t abuf[MAXLEN + MIS], bbuf[MAXLEN + MIS];

	vt_rand(abuf, sizeof(abuf), vt_seed());
	for (size_t oa = 0; oa < MIS; oa++) {
		for (size_t ob = 0; ob < MIS; ob++) {
			uint8_t *a = abuf + oa, *b = bbuf + ob;

			memcpy(b, a, MAXLEN);
			for (size_t len = 0; len <= MAXLEN; len++) {
				VT_EXPECT(vecsec_ct_eq(a, b, len), "equal len %zu mis %zu/%zu", len, oa, ob);
				for (size_t i = 0; i < len; i++) {
					for (int bit = 0; bit < 8; bit++) {
						b[i] ^= (uint8_t)(1u << bit);
						VT_EXPECT(!vecsec_ct_eq(a, b, len), "len %zu byte %zu bit %d mis %zu/%zu",
							  len, i, bit, oa, ob);
						VT_EXPECT(vecsec_ct_eq(a, b, i), "prefix %zu of len %zu", i, len);
						b[i] ^= (uint8_t)(1u << bit);
					}
				}
			}
			VT_EXPECT(vecsec_ct_eq16(a, b), "eq16 equal mis %zu/%zu", oa, ob);
			for (size_t i = 0; i < 16; i++) {
				for (int bit = 0; bit < 8; bit++) {
					b[i] ^= (uint8_t)(1u << bit);
					VT_EXPECT(!vecsec_ct_eq16(a, b), "eq16 byte %zu bit %d mis %zu/%zu",
						  i, bit, oa, ob);
					b[i] ^= (uint8_t)(1u << bit);
				}
			}
			/* a difference past 16 bytes is not the 16-byte form's */
			b[16] ^= 0xff;
			VT_EXPECT(vecsec_ct_eq16(a, b), "eq16 reads past 16");
			b[16] ^= 0xff;
			/* all bytes differing, and all-ones against zeros */
			memset(b, 0xff, MAXLEN);
			memset(a, 0, MAXLEN);
			VT_EXPECT(!vecsec_ct_eq(a, b, MAXLEN) && !vecsec_ct_eq16(a, b), "all differ");
			vt_rand(abuf, sizeof(abuf), vt_seed() + oa * MIS + ob + 1);
		}
	}
}

static void
test_memzero(void)
{
	struct vt_buf g;

	vt_buf_init(&g, 300);
	for (size_t len = 0; len <= 256; len++) {
		size_t off = len % 41;

		vt_buf_reset(&g);
		vecsec_memzero(g.data + off, len);
		VT_EXPECT_ZERO(g.data + off, len, "len %zu", len);
		VT_EXPECT_GUARDS(&g, off, len);
	}
	vecsec_memzero(NULL, 0);
	vt_buf_free(&g);
}

static void
test_env_typo_is_scalar(void)
{
	/* VECSEC_ISA is read at (re)selection: a typo must mean scalar. */
	enum vecsec_isa now = vecsec_isa_cap();

	setenv("VECSEC_ISA", "avx-512", 1);
	VT_EXPECT(vecsec_force_isa(VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_isa_cap() == VECSEC_ISA_SCALAR, "typo in VECSEC_ISA -> scalar");
	setenv("VECSEC_ISA", "neon", 1);
	VT_EXPECT(vecsec_force_isa(VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_isa_cap() == (vecsec_cpu_max_isa() < VECSEC_ISA_NEON ?
		  vecsec_cpu_max_isa() : VECSEC_ISA_NEON), "VECSEC_ISA=neon caps");
	setenv("VECSEC_ISA", "scalar", 1);
	VT_EXPECT(vecsec_force_isa(VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_isa_cap() == VECSEC_ISA_SCALAR, "VECSEC_ISA=scalar caps");
	setenv("VECSEC_ISA", "ssse3", 1);
	VT_EXPECT(vecsec_force_isa(VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_isa_cap() == (vecsec_cpu_max_isa() < VECSEC_ISA_SSSE3 ?
		  vecsec_cpu_max_isa() : VECSEC_ISA_SSSE3), "VECSEC_ISA=ssse3 caps");
	unsetenv("VECSEC_ISA");
	VT_EXPECT(vecsec_force_isa(now) == 0, "restore");
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_levels_match_features),
		VT_TEST(test_force_and_limit),
		VT_TEST(test_parse_names),
		VT_TEST(test_ct_eq),
		VT_TEST(test_ct_eq_lengths),
		VT_TEST(test_memzero),
		VT_TEST(test_env_typo_is_scalar),
	};

	unsetenv("VECSEC_ISA");
	return vt_main("cpu", tests, VT_ARRAY_SIZE(tests));
}
