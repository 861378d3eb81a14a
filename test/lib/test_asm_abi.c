/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The x86-64 assembly entry points of lib/ keep the SysV ABI: called
 * through vt_abi_call() (vt_abi_x86_64.S) with canaries in the
 * callee-saved registers, stack arguments, and the stack at 0 and at 16
 * modulo 32, each must give back rbx, rbp, r12-r15, rsp, MXCSR, the x87
 * control word and a clear direction flag, and compute what a plain call
 * computes (outputs, state, return value). Sanitizers cannot see inside
 * assembly; this and the guard-page tests of test_chacha_simd stand in.
 * Each entry runs in the pass of the ISA loop of its level (the AVX2
 * assembly's VL forms at AVX2, where the CPU has AVX-512VL/BW).
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_chacha.h"
#include "chacha/chacha_internal.h"
#include "chachapoly/chachapoly_internal.h"
#include "poly1305/poly1305_64.h"

uint32_t vt_abi_call(const void *fn, const uint64_t a[8], uint64_t skew, uint64_t *ret);
void vt_abi_bad_rbx(void);         /* clobbers rbx: the harness must see it */

#define U(p) ((uint64_t)(uintptr_t)(p))
#define BUF 2048

/* Both calls' inputs and outputs: [0] the plain call, [1] the harness. */
struct abi_case {
	uint8_t out[2][BUF], in[2][BUF];
	uint32_t x[2][16];
	struct poly1305_64 p[2];
	struct p64_aead m[2];
	uint64_t ret[2];
};

static void
abi_prep(struct abi_case *c, uint64_t seed)
{
	uint8_t key[32], nonce[12], otk[32];
	struct chacha_state st;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(otk, sizeof(otk), seed + 2);
	vt_rand(c->in[0], BUF, seed + 3);
	memcpy(c->in[1], c->in[0], BUF);
	memset(c->out, 0x5a, sizeof(c->out));
	chacha_state_init_ietf(&st, key, nonce, 1, 20);
	memcpy(c->x[0], st.x, sizeof(c->x[0]));
	memcpy(c->x[1], st.x, sizeof(c->x[1]));
	p64_init(&c->p[0], otk);
	c->p[1] = c->p[0];
}

/* a[] for side k of c: each entry's arguments over that side's buffers */
typedef void (*abi_args_fn)(struct abi_case *c, int k, uint64_t a[8]);

struct abi_entry {
	const char *name;
	enum vecsec_isa level;
	uint64_t needs;
	const void *fn;
	abi_args_fn args;
	bool has_ret;
};

static void
args_chacha_step(struct abi_case *c, int k, uint64_t a[8])
{
	const uint64_t v[8] = { U(c->out[k]), U(c->in[k]), 3, U(c->x[k]), 20, 0, 0, 0 };

	memcpy(a, v, sizeof(v));
}

static void
args_stitch_seal(struct abi_case *c, int k, uint64_t a[8])
{
	/* seal-like: one step, absorbing the first 320 bytes of in as if written before */
	const uint64_t v[8] = { U(c->out[k]), U(c->in[k]), 1, U(c->x[k]), U(&c->p[k]),
				U(c->in[k] + 64), U(c->in[k] + 64 + 320), 0 };

	memcpy(a, v, sizeof(v));
}

static void
args_poly_blocks(struct abi_case *c, int k, uint64_t a[8])
{
	const uint64_t v[8] = { U(&c->p[k]), U(c->in[k]), 37, 1, 0, 0, 0, 0 };

	memcpy(a, v, sizeof(v));
}

static void
args_poly_mac(struct abi_case *c, int k, uint64_t a[8])
{
	const uint64_t v[8] = { U(c->out[k]), U(c->in[k] + 32), 333, U(c->in[k]), 0, 0, 0, 0 };

	memcpy(a, v, sizeof(v));
}

static void
args_poly_aead(struct abi_case *c, int k, uint64_t a[8])
{
	struct p64_aead *m = &c->m[k];
	const uint64_t v[8] = { U(c->out[k]), U(m), U(c->in[k]), 0, 0, 0, 0, 0 };

	/* every run: 2 AAD blocks, its remainder, 21 blocks, a remainder and the lengths */
	m->aad = c->in[k] + 32;
	m->naad = 2;
	m->c = c->in[k] + 100;
	m->nc = 21;
	m->npre = 1;
	m->npost = 2;
	memcpy(m->pre, c->in[k] + 500, sizeof(m->pre));
	memcpy(m->post, c->in[k] + 600, sizeof(m->post));
	memcpy(a, v, sizeof(v));
}

/* what vecsec_chacha_avx2_vl_cpu() asks for the VL forms */
#define VL_NEEDS (VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2 | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW)

static const struct abi_entry entries[] = {
	{ "poly1305_blocks64_x86_64", VECSEC_ISA_SCALAR, 0,
	  (const void *)vecsec_poly1305_blocks64_x86_64, args_poly_blocks, false },
	{ "poly1305_mac64_x86_64", VECSEC_ISA_SCALAR, 0,
	  (const void *)vecsec_poly1305_mac64_x86_64, args_poly_mac, true },
	{ "poly1305_aead64_x86_64", VECSEC_ISA_SCALAR, 0,
	  (const void *)vecsec_poly1305_aead64_x86_64, args_poly_aead, false },
#ifdef VECSEC_HAVE_SSSE3
	{ "chacha_x4_ssse3", VECSEC_ISA_SSSE3, VECSEC_CPU_SSSE3,
	  (const void *)vecsec_chacha_x4_ssse3, args_chacha_step, false },
	{ "chachapoly_x4_ssse3", VECSEC_ISA_SSSE3, VECSEC_CPU_SSSE3,
	  (const void *)vecsec_chachapoly_x4_ssse3, args_stitch_seal, true },
#endif
#ifdef VECSEC_HAVE_AVX2
	{ "chacha_x8_avx2", VECSEC_ISA_AVX2, VECSEC_CPU_AVX2,
	  (const void *)vecsec_chacha_x8_avx2, args_chacha_step, false },
	{ "chachapoly_x8_avx2", VECSEC_ISA_AVX2, VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,
	  (const void *)vecsec_chachapoly_x8_avx2, args_stitch_seal, true },
#endif
#ifdef VECSEC_HAVE_AVX2_VL
	/* the VL forms (the same .S assembled with -mavx512vl), run at the AVX2 level */
	{ "chacha_x8_avx2vl", VECSEC_ISA_AVX2, VL_NEEDS,
	  (const void *)vecsec_chacha_x8_avx2vl, args_chacha_step, false },
	{ "chachapoly_x8_avx2vl", VECSEC_ISA_AVX2, VL_NEEDS,
	  (const void *)vecsec_chachapoly_x8_avx2vl, args_stitch_seal, true },
#endif
};

/* A plain call with the same arguments (the compiler keeps the ABI here). */
static uint64_t
plain_call(const void *fn, const uint64_t a[8])
{
	typedef uint64_t (*f8)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
			       uint64_t, uint64_t);

	return ((f8)(uintptr_t)fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}

static void
test_abi(void)
{
	struct abi_case *c = malloc(sizeof(*c));

	for (size_t i = 0; i < VT_ARRAY_SIZE(entries); i++) {
		const struct abi_entry *e = &entries[i];

		if (e->level != vecsec_isa_cap())
			continue;
		if ((vecsec_cpu_features() & e->needs) != e->needs) {
			const char *req = getenv("VECSEC_TEST_REQUIRE_ISA");

			printf("\n    SKIP asm_abi/%s: CPU lacks it", e->name);
			fprintf(stderr, "SKIP asm_abi/%s: CPU lacks it\n", e->name);
			/* a VL form is AVX-512 code: required with avx512 (or all) */
			VT_EXPECT((e->needs & VECSEC_CPU_AVX512VL) == 0 || req == NULL ||
				  (strcmp(req, "all") != 0 && strstr(req, "avx512") == NULL),
				  "VECSEC_TEST_REQUIRE_ISA=%s but %s cannot run", req, e->name);
			continue;
		}
		printf("\n    %s", e->name);
		for (uint64_t skew = 0; skew <= 16; skew += 16) {
			uint64_t a[8];
			uint32_t bad;

			abi_prep(c, 7 + i + skew);
			e->args(c, 0, a);
			c->ret[0] = plain_call(e->fn, a);
			e->args(c, 1, a);
			bad = vt_abi_call(e->fn, a, skew, &c->ret[1]);
			VT_EXPECT(bad == 0, "%s (stack %llu mod 32) broke the ABI: mask 0x%x "
				  "(1 rbx 2 rbp 4-0x20 r12-r15 0x40 rsp 0x80 mxcsr 0x100 x87 "
				  "0x200 DF)", e->name, (unsigned long long)skew, bad);
			VT_EXPECT_MEM(c->out[1], c->out[0], BUF, "%s out (skew %llu)", e->name,
				      (unsigned long long)skew);
			VT_EXPECT_MEM(c->in[1], c->in[0], BUF, "%s in (skew %llu)", e->name,
				      (unsigned long long)skew);
			VT_EXPECT_MEM(c->x[1], c->x[0], sizeof(c->x[0]), "%s x", e->name);
			VT_EXPECT_MEM(&c->p[1], &c->p[0], sizeof(c->p[0]), "%s poly state",
				      e->name);
			if (e->has_ret) {
				/* a returned pointer is the same offset into either side */
				uint64_t r0 = c->ret[0], r1 = c->ret[1];

				if (r0 >= U(c->in[0]) && r0 <= U(c->in[0]) + BUF)
					r0 -= U(c->in[0]), r1 -= U(c->in[1]);
				else
					r0 = (uint32_t)r0, r1 = (uint32_t)r1; /* int */
				VT_EXPECT(r0 == r1, "%s returned %llx, plain %llx", e->name,
					  (unsigned long long)r1, (unsigned long long)r0);
			}
		}
	}
	free(c);
}

/* the harness itself sees a broken callee (rbx clobbered) */
static void
test_abi_harness(void)
{
	uint64_t a[8] = { 0 }, ret;

	if (vecsec_isa_cap() != VECSEC_ISA_SCALAR)
		return;
	VT_EXPECT(vt_abi_call((const void *)vt_abi_bad_rbx, a, 16, &ret) == 0x1,
		  "the harness missed a clobbered rbx");
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_abi_harness),
		VT_TEST(test_abi),
	};

	return vt_main("asm_abi", tests, VT_ARRAY_SIZE(tests));
}
