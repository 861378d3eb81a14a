/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec test helpers: PRNG, guarded buffers, ISA loop and reporting
 * (see vt.h).
 */
#include "vt.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <CUnit/Basic.h>

static const char *cur_isa = "none";
static unsigned int reports;

uint64_t
vt_seed(void)
{
	const char *s = getenv("VT_SEED");

	return s != NULL ? strtoull(s, NULL, 0) : UINT64_C(0x7665637365630001);
}

uint64_t
vt_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint32_t
vt_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((vt_next(state) >> 32) * n) >> 32);
}

void
vt_rand(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t st = seed, r = 0;

	for (size_t i = 0; i < len; i++) {
		if ((i & 7) == 0)
			r = vt_next(&st);
		p[i] = (uint8_t)(r >> ((i & 7) * 8));
	}
}

void
vt_buf_init(struct vt_buf *b, size_t cap)
{
	b->base = malloc(cap + 2 * VT_GUARD);
	if (b->base == NULL) {
		fprintf(stderr, "vt: out of memory\n");
		exit(2);
	}
	b->data = b->base + VT_GUARD;
	b->cap = cap;
	vt_buf_reset(b);
}

void
vt_buf_free(struct vt_buf *b)
{
	free(b->base);
	b->base = b->data = NULL;
}

void
vt_buf_reset(struct vt_buf *b)
{
	memset(b->base, VT_GUARD_BYTE, b->cap + 2 * VT_GUARD);
}

bool
vt_buf_guards_ok(const struct vt_buf *b, size_t off, size_t len)
{
	const uint8_t *p = b->base;
	size_t total = b->cap + 2 * VT_GUARD, lo = VT_GUARD + off, hi = lo + len;

	for (size_t i = 0; i < total; i++)
		if ((i < lo || i >= hi) && p[i] != VT_GUARD_BYTE)
			return false;
	return true;
}

void
vt_page_end_init(struct vt_page_end *p, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (len + pg - 1) / pg * pg;

	p->map_len = body + pg;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (p->map == MAP_FAILED || mprotect(p->map + body, pg, PROT_NONE) != 0) {
		fprintf(stderr, "vt: mmap/mprotect failed: %s\n", strerror(errno));
		exit(2);
	}
	p->data = p->map + body - len;
}

void
vt_page_end_free(struct vt_page_end *p)
{
	munmap(p->map, p->map_len);
	p->map = p->data = NULL;
}

const char *
vt_isa(void)
{
	return cur_isa;
}

int
vt_report(const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (++reports > 40) {
		if (reports == 41)
			fprintf(stderr, "    (further failures not printed)\n");
		return 0;
	}
	fprintf(stderr, "FAIL %s:%d [isa=%s seed=0x%llx] %s: ", file, line, cur_isa,
		(unsigned long long)vt_seed(), what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 0;
}

long
vt_memdiff(const void *a, const void *b, size_t len)
{
	const uint8_t *x = a, *y = b;

	for (size_t i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

size_t
vt_hex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex != '\0'; hex++) {
		int v;

		if (isxdigit((unsigned char)*hex))
			v = isdigit((unsigned char)*hex) ? *hex - '0' : (tolower(*hex) - 'a' + 10);
		else
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			if (n >= cap) {
				fprintf(stderr, "vt_hex: vector longer than %zu bytes\n", cap);
				exit(2);
			}
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	return n;
}

size_t
vt_hex_or_text(uint8_t *out, size_t cap, const char *hex, const char *text)
{
	size_t n;

	if (hex != NULL)
		return vt_hex(out, cap, hex);
	n = strlen(text);
	if (n > cap) {
		fprintf(stderr, "vt_hex_or_text: vector longer than %zu bytes\n", cap);
		exit(2);
	}
	memcpy(out, text, n);
	return n;
}

void
vt_skip_lacking(const char *suite, const char *what, const char *lacks)
{
	const char *req = getenv("VECSEC_TEST_REQUIRE_ISA");

	printf("\nSKIP %s: %s not run (CPU lacks %s)\n", suite, what, lacks);
	fprintf(stderr, "SKIP %s: %s not run (CPU lacks %s)\n", suite, what, lacks);
	VT_EXPECT(req == NULL || (strstr(req, "avx512") == NULL && strcmp(req, "all") != 0),
		  "VECSEC_TEST_REQUIRE_ISA=%s and %s not run", req, what);
}

static bool
isa_required(const char *name)
{
	const char *req = getenv("VECSEC_TEST_REQUIRE_ISA");
	size_t nl = strlen(name);

	if (req == NULL)
		return false;
	if (strcmp(req, "all") == 0)
		return true;
	for (const char *p = req; *p != '\0';) {
		const char *e = strchr(p, ',');
		size_t l = e != NULL ? (size_t)(e - p) : strlen(p);

		if (l == nl && strncmp(p, name, l) == 0)
			return true;
		p += l + (e != NULL);
	}
	return false;
}

static int
run_registry(unsigned int *failed, unsigned int *run)
{
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit error: %s\n", CU_get_error_msg());
		return -1;
	}
	*failed += CU_get_number_of_tests_failed();
	*run += CU_get_number_of_tests_run();
	return 0;
}

static int
register_suite(const char *name, const struct vt_test *tests, size_t n)
{
	CU_pSuite s = CU_add_suite(name, NULL, NULL);

	if (s == NULL)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (CU_add_test(s, tests[i].name, tests[i].fn) == NULL)
			return -1;
	return 0;
}

static int
finish(const char *suite, unsigned int failed, unsigned int run, int skips_failed)
{
	printf("\n%s: %u passed, %u failed\n", suite, run - failed, failed);
	if (run == 0) {
		printf("%s: ERROR: no test ran\n", suite);
		return 1;
	}
	return (failed != 0 || skips_failed) ? 1 : 0;
}

int
vt_main(const char *suite, const struct vt_test *tests, size_t nb_tests)
{
	unsigned int failed = 0, run = 0;
	int skips_failed = 0;
	const char *only = getenv("VT_ISA");
	enum vecsec_isa max = vecsec_cpu_max_isa();
	enum vecsec_isa top;

#if defined(__aarch64__)
	top = VECSEC_ISA_NEON;
#elif defined(__x86_64__)
	top = VECSEC_ISA_AVX512;
#else
	top = VECSEC_ISA_SCALAR;
#endif
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = VECSEC_ISA_SCALAR; i <= (int)top; i++) {
		enum vecsec_isa isa = (enum vecsec_isa)i;
		char name[128];

		if (only != NULL && strcmp(only, vecsec_isa_name(isa)) != 0)
			continue;
		if (isa > max) {
			printf("SKIP %s/%s: CPU lacks it\n", suite, vecsec_isa_name(isa));
			fprintf(stderr, "SKIP %s/%s: CPU lacks it\n", suite, vecsec_isa_name(isa));
			if (isa_required(vecsec_isa_name(isa))) {
				printf("%s/%s: FAIL: VECSEC_TEST_REQUIRE_ISA requires it\n", suite,
				       vecsec_isa_name(isa));
				skips_failed = 1;
			}
			continue;
		}
		if (vecsec_force_isa(isa) != 0) {
			printf("%s: cannot force ISA %s\n", suite, vecsec_isa_name(isa));
			return 1;
		}
		cur_isa = vecsec_isa_name(isa);
		reports = 0;
		snprintf(name, sizeof(name), "%s/%s", suite, cur_isa);
		if (CU_initialize_registry() != CUE_SUCCESS || register_suite(name, tests, nb_tests))
			return 1;
		if (run_registry(&failed, &run) != 0)
			return 1;
		CU_cleanup_registry();
	}
	vecsec_force_isa(VECSEC_ISA_DEFAULT);
	return finish(suite, failed, run, skips_failed);
}

int
vt_main_once(const char *suite, const struct vt_test *tests, size_t nb_tests)
{
	unsigned int failed = 0, run = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	cur_isa = vecsec_isa_name(vecsec_isa_cap());
	if (CU_initialize_registry() != CUE_SUCCESS || register_suite(suite, tests, nb_tests))
		return 1;
	if (run_registry(&failed, &run) != 0)
		return 1;
	CU_cleanup_registry();
	return finish(suite, failed, run, 0);
}
