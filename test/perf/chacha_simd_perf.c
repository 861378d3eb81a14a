/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Quick measurement of the ChaCha20, Poly1305 and ChaCha20-Poly1305 paths
 * per ISA beside OpenSSL (EVP) in the same run, in TSC cycles per byte: each
 * figure is the minimum (or, with -m, the median) over many short timed
 * batches, so that other processes on a shared machine disturb it less.
 * Not a test (tests never time anything); used for min_len values and
 * reports. Built by meson (test/perf/meson.build):
 *
 *   build/test/perf/chacha_simd_perf [-m] [len ...]   (default 1420 8192 16384)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <x86intrin.h>

#include <openssl/evp.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "chacha/chacha_internal.h"
#include "poly1305/poly1305_internal.h"
#include "chachapoly/chachapoly_internal.h"

#define RUNS 41
#define MAXLEN 65536

static uint8_t buf[MAXLEN + 64], out[MAXLEN + 64], key[32], nonce[12], tag[16];
static struct vecsec_aead_key akey;
static EVP_CIPHER_CTX *evp;
static EVP_MAC_CTX *evp_mac;
static int use_median;

typedef void (*fn_t)(size_t len, const void *arg);

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
measure(fn_t f, size_t len, const void *arg)
{
	double r[RUNS];
	int iters = (int)(32768 / len) + 2;

	for (int i = 0; i < 8; i++)
		f(len, arg);
	for (int k = 0; k < RUNS; k++) {
		uint64_t t0 = __rdtsc();

		for (int i = 0; i < iters; i++)
			f(len, arg);
		r[k] = (double)(__rdtsc() - t0) / iters / (double)len;
	}
	qsort(r, RUNS, sizeof(r[0]), cmp_double);
	return use_median ? r[RUNS / 2] : r[0];
}

static void
f_chacha(size_t len, const void *arg)
{
	const struct chacha_impl *im = arg;
	struct chacha_state st;

	chacha_state_init_ietf(&st, key, nonce, 1, 20);
	im->xor_blocks(out, buf, len, &st);
}

static void
f_poly(size_t len, const void *arg)
{
	const struct poly1305_impl *im = arg;
	struct poly1305_state st;
	uint8_t h[16];

	vecsec_poly1305_core_init(&st, key);
	im->blocks(&st, buf, len / 16, 1);
	vecsec_poly1305_core_emit(&st, h);
}

static void
f_seal(size_t len, const void *arg)
{
	(void)arg;
	vecsec_aead_seal(&akey, out, tag, 16, buf, len, nonce, 12, key, 12);
}

static void
f_open(size_t len, const void *arg)
{
	(void)arg;
	if (vecsec_aead_open(&akey, buf + MAXLEN / 2, out, len, tag, 16, nonce, 12, key, 12) != 0)
		abort();
}

static void
f_ossl_chacha(size_t len, const void *arg)
{
	uint8_t iv[16] = { 1 };
	int ol;

	(void)arg;
	memcpy(iv + 4, nonce, 12);
	EVP_EncryptInit_ex(evp, EVP_chacha20(), NULL, key, iv);
	EVP_EncryptUpdate(evp, out, &ol, buf, (int)len);
}

static void
f_ossl_poly(size_t len, const void *arg)
{
	size_t ol;

	(void)arg;
	EVP_MAC_init(evp_mac, key, 32, NULL);
	EVP_MAC_update(evp_mac, buf, len);
	EVP_MAC_final(evp_mac, tag, &ol, 16);
}

static void
f_ossl_aead(size_t len, const void *arg)
{
	int ol;

	(void)arg;
	EVP_EncryptInit_ex(evp, EVP_chacha20_poly1305(), NULL, key, nonce);
	EVP_EncryptUpdate(evp, NULL, &ol, key, 12);
	EVP_EncryptUpdate(evp, out, &ol, buf, (int)len);
	EVP_EncryptFinal_ex(evp, out + len, &ol);
	EVP_CIPHER_CTX_ctrl(evp, EVP_CTRL_AEAD_GET_TAG, 16, tag);
}

static void
row(const char *name, fn_t f, const void *arg, const size_t *lens, int nlens)
{
	printf("%-32s", name);
	for (int l = 0; l < nlens; l++)
		printf(" %8.3f", measure(f, lens[l], arg));
	printf("\n");
}

/* open needs a valid ciphertext and tag for each length */
static void
row_open(const char *name, const size_t *lens, int nlens)
{
	printf("%-32s", name);
	for (int l = 0; l < nlens; l++) {
		f_seal(lens[l], NULL);
		memcpy(buf + MAXLEN / 2, out, lens[l]);
		printf(" %8.3f", measure(f_open, lens[l], NULL));
	}
	printf("\n");
}

int
main(int argc, char **argv)
{
	size_t lens[16] = { 1420, 8192, 16384 };
	int nlens = 0;
	char name[64];
	EVP_MAC *mac;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-m") == 0)
			use_median = 1;
		else if (nlens < 16 && atoi(argv[i]) > 0 && atoi(argv[i]) <= MAXLEN / 2)
			lens[nlens++] = (size_t)atoi(argv[i]);
	}
	if (nlens == 0)
		nlens = 3;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7);
	memset(key, 3, sizeof(key));
	memset(nonce, 5, sizeof(nonce));
	vecsec_aead_key_init(&akey, VECSEC_AEAD_CHACHA20_POLY1305, key, 32);
	evp = EVP_CIPHER_CTX_new();
	mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	evp_mac = EVP_MAC_CTX_new(mac);

	printf("%-32s", use_median ? "TSC cycles/byte (median)" : "TSC cycles/byte (min)");
	for (int l = 0; l < nlens; l++)
		printf(" %8zu", lens[l]);
	printf("\n");
	for (int k = 0; vecsec_chacha_impls[k] != NULL; k++) {
		snprintf(name, sizeof(name), "chacha20 %s", vecsec_chacha_impls[k]->name);
		row(name, f_chacha, vecsec_chacha_impls[k], lens, nlens);
	}
	row("chacha20 openssl", f_ossl_chacha, NULL, lens, nlens);
	for (int k = 0; vecsec_poly1305_impls[k] != NULL; k++) {
		snprintf(name, sizeof(name), "poly1305 %s", vecsec_poly1305_impls[k]->name);
		row(name, f_poly, vecsec_poly1305_impls[k], lens, nlens);
	}
	row("poly1305 openssl", f_ossl_poly, NULL, lens, nlens);
	for (int isa = VECSEC_ISA_SCALAR; isa <= (int)vecsec_cpu_max_isa(); isa++) {
		vecsec_force_isa((enum vecsec_isa)isa);
		for (int mode = CHACHAPOLY_AUTO; mode <= CHACHAPOLY_TWOPASS; mode++) {
			const struct chachapoly_impl *sk;

			vecsec_chachapoly_set_mode((enum chachapoly_mode)mode);
			sk = vecsec_chachapoly_impl_for(MAXLEN);
			if (mode == CHACHAPOLY_AUTO && sk == NULL)
				continue;
			snprintf(name, sizeof(name), "seal %s %s", vecsec_isa_name(isa),
				 sk != NULL ? "stitched" : "two-pass");
			row(name, f_seal, NULL, lens, nlens);
			snprintf(name, sizeof(name), "open %s %s", vecsec_isa_name(isa),
				 sk != NULL ? "stitched" : "two-pass");
			row_open(name, lens, nlens);
		}
	}
	vecsec_chachapoly_set_mode(CHACHAPOLY_AUTO);
	row("chacha20-poly1305 openssl", f_ossl_aead, NULL, lens, nlens);
	EVP_MAC_CTX_free(evp_mac);
	EVP_MAC_free(mac);
	EVP_CIPHER_CTX_free(evp);
	return 0;
}
