/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw SA key fingerprints: the table, one per SA slot, that a reload
 * compares a new file's keys with (reload.c), filled wherever an SA comes
 * up (main.c at start, the change engine cp.c, a reload). Kept in secret
 * memory: a fingerprint is not a key, but it is derived from one.
 */
#include "gw_dp.h"
#include "sa_fp.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>

static uint8_t (*fp)[GW_FP_LEN];        /* [fp_slots]: the SA table's */
static unsigned int fp_slots;
static uint8_t fp_salt[GW_FP_LEN];

int
gw_sa_fp_init(void)
{
	if (fp == NULL) {
		fp_slots = gw.max_sa;   /* sized at run time (gw_sa_setup) */
		fp = gw_secret_alloc((size_t)fp_slots * sizeof(*fp));
	}
	if (fp == NULL || getrandom(fp_salt, sizeof(fp_salt), 0) != sizeof(fp_salt))
		return -ENOMEM;
	return 0;
}

void
gw_sa_fp_fini(void)
{
	gw_secret_free(fp, (size_t)fp_slots * sizeof(*fp));
	fp = NULL;
	fp_slots = 0;
	explicit_bzero(fp_salt, sizeof(fp_salt));
}

bool
gw_sa_fp_ready(void)
{
	return fp != NULL;
}

void
gw_sa_fp_of(const struct gw_sa_conf *c, uint8_t out[GW_FP_LEN])
{
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	unsigned int n = GW_FP_LEN;

	memset(out, 0, GW_FP_LEN);
	if (x == NULL || EVP_DigestInit_ex(x, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(x, fp_salt, sizeof(fp_salt)) != 1 ||
	    EVP_DigestUpdate(x, &c->cipher_key_len, sizeof(c->cipher_key_len)) != 1 ||
	    EVP_DigestUpdate(x, c->cipher_key, c->cipher_key_len) != 1 ||
	    EVP_DigestUpdate(x, &c->auth_key_len, sizeof(c->auth_key_len)) != 1 ||
	    EVP_DigestUpdate(x, c->auth_key, c->auth_key_len) != 1 ||
	    EVP_DigestUpdate(x, &c->salt, sizeof(c->salt)) != 1 ||
	    EVP_DigestFinal_ex(x, out, &n) != 1)
		memset(out, 0xff, GW_FP_LEN);      /* matches no live SA: a change */
	EVP_MD_CTX_free(x);
}

void
gw_sa_fp_set(unsigned int slot, const struct gw_sa_conf *c)
{
	if (fp != NULL && slot < fp_slots)
		gw_sa_fp_of(c, fp[slot]);
}

bool
gw_sa_fp_same(unsigned int slot, const uint8_t f[GW_FP_LEN])
{
	return fp != NULL && memcmp(f, fp[slot], GW_FP_LEN) == 0;
}

void
gw_sa_fp_put(unsigned int slot, const uint8_t f[GW_FP_LEN])
{
	if (f != NULL)
		memcpy(fp[slot], f, GW_FP_LEN);
	else
		memset(fp[slot], 0, GW_FP_LEN);
}
