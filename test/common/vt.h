/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec test helpers (CUnit): a seeded PRNG, guarded output buffers
 * (guard bytes on both sides, or ending at a PROT_NONE page), the ISA loop
 * (every suite runs once per ISA the CPU has, with a loud SKIP for the rest)
 * and expectation macros that print ISA, context and seed on failure.
 */
#ifndef VT_H
#define VT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CUnit/CUnit.h>

#include "vecsec/vecsec.h"

/* ---- PRNG (splitmix64): reproducible data from a seed ---- */
uint64_t vt_seed(void);                   /* VT_SEED env, else a fixed default */
uint64_t vt_next(uint64_t *state);        /* next 64 random bits */
uint32_t vt_below(uint64_t *state, uint32_t n); /* uniform in [0, n), n > 0 */
void vt_rand(void *buf, size_t len, uint64_t seed); /* fill from a seed */

/* ---- guarded buffers ---- */
#define VT_GUARD 64            /* guard bytes on each side */
#define VT_GUARD_BYTE 0xa5

struct vt_buf {
	uint8_t *base;         /* allocation */
	uint8_t *data;         /* base + VT_GUARD */
	size_t cap;            /* usable bytes at data */
};

void vt_buf_init(struct vt_buf *b, size_t cap);
void vt_buf_free(struct vt_buf *b);
/* Fill data and guards with the guard byte (before each call under test). */
void vt_buf_reset(struct vt_buf *b);
/* True if nothing outside data[off, off+len) changed since vt_buf_reset(). */
bool vt_buf_guards_ok(const struct vt_buf *b, size_t off, size_t len);

/*
 * A buffer of len bytes that ends exactly where a PROT_NONE page starts:
 * any read or write past its end faults.
 */
struct vt_page_end {
	uint8_t *map;
	size_t map_len;
	uint8_t *data;
};
void vt_page_end_init(struct vt_page_end *p, size_t len);
void vt_page_end_free(struct vt_page_end *p);

/* ---- reporting ---- */
const char *vt_isa(void);       /* name of the ISA being tested now */
int vt_report(const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* first differing offset, or -1 */
long vt_memdiff(const void *a, const void *b, size_t len);

/*
 * Expectations: on failure print file:line, the ISA, the message and the
 * seed (capped at a few dozen lines per test), and fail the CUnit test.
 */
#define VT_EXPECT(cond, ...) do { \
	if (!(cond)) { \
		vt_report(__FILE__, __LINE__, #cond, __VA_ARGS__); \
		CU_FAIL(#cond); \
	} else { \
		CU_PASS(#cond); \
	} \
} while (0)

#define VT_EXPECT_MEM(got, want, len, ...) do { \
	long d_ = vt_memdiff((got), (want), (len)); \
	if (d_ >= 0) { \
		vt_report(__FILE__, __LINE__, "memory differs", __VA_ARGS__); \
		fprintf(stderr, "    first difference at byte %ld of %zu: got %02x want %02x\n", \
			d_, (size_t)(len), ((const uint8_t *)(got))[d_], \
			((const uint8_t *)(want))[d_]); \
		CU_FAIL("memory differs"); \
	} else { \
		CU_PASS("memory equal"); \
	} \
} while (0)

#define VT_EXPECT_GUARDS(b, off, len) \
	VT_EXPECT(vt_buf_guards_ok((b), (off), (len)), "write outside [%zu, %zu)", \
		  (size_t)(off), (size_t)(off) + (size_t)(len))

#define VT_EXPECT_ZERO(p, len, ...) do { \
	const uint8_t *z_ = (const uint8_t *)(p); \
	size_t zi_ = 0; \
	while (zi_ < (size_t)(len) && z_[zi_] == 0) \
		zi_++; \
	VT_EXPECT(zi_ == (size_t)(len), __VA_ARGS__); \
} while (0)

/* ---- hex helper for vectors typed from RFC text ---- */
/* Parse hex (spaces, colons and newlines ignored) into out; returns bytes. */
size_t vt_hex(uint8_t *out, size_t cap, const char *hex);
/* A vector given as hex, or (hex NULL) as text: its bytes, no NUL. Returns bytes. */
size_t vt_hex_or_text(uint8_t *out, size_t cap, const char *hex, const char *text);

/*
 * A path the CPU lacks, inside a test: "SKIP <suite>: <what> not run (CPU
 * lacks <lacks>)" on stdout and stderr, and a failed check where
 * VECSEC_TEST_REQUIRE_ISA asks for avx512 (or all).
 */
void vt_skip_lacking(const char *suite, const char *what, const char *lacks);

/* ---- the ISA loop ---- */
struct vt_test {
	const char *name;
	void (*fn)(void);
};
#define VT_TEST(f) { #f, f }

/*
 * Run every test once per ISA level (scalar up to the CPU's best, each
 * forced with vecsec_force_isa()). Levels the CPU lacks print
 *   SKIP <suite>/<isa>: CPU lacks it
 * and fail the run if VECSEC_TEST_REQUIRE_ISA names them (a comma list or
 * "all"). VT_ISA=name runs one level only. Returns the process exit code.
 */
int vt_main(const char *suite, const struct vt_test *tests, size_t nb_tests);

/* Run the tests once, without the ISA loop (ISA-independent suites). */
int vt_main_once(const char *suite, const struct vt_test *tests, size_t nb_tests);

#define VT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* VT_H */
