/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the AEAD gets from an ESP SA and packet, portable C: key material
 * (RFC 7634 3, RFC 4106 8.1, RFC 3686 5.1), nonce and counter block
 * (RFC 7634 2, RFC 4106 4, RFC 3686 4), AAD (RFC 7634 2.1, RFC 4106 5).
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>
#include <string.h>

#include "esp_internal.h"

VECSEC_API int
vecsec_esp_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg, const uint8_t *keymat,
		    size_t keymat_len)
{
	int rc;

	if (k == NULL || keymat == NULL)
		return -EINVAL;
	/* the algorithms with an ESP form here: key || 4-byte salt */
	if (alg != VECSEC_AEAD_CHACHA20_POLY1305 && alg != VECSEC_AEAD_ARIA_GCM &&
	    alg != VECSEC_AEAD_ARIA_CTR)
		return -ENOTSUP;
	if (keymat_len <= VECSEC_ESP_SALT_LEN)
		return -EINVAL;
	rc = vecsec_aead_key_init(k, alg, keymat, keymat_len - VECSEC_ESP_SALT_LEN);
	if (rc != 0)
		return rc;
	memcpy(k->salt, keymat + keymat_len - VECSEC_ESP_SALT_LEN, VECSEC_ESP_SALT_LEN);
	return 0;
}

VECSEC_API void
vecsec_esp_nonce(uint8_t nonce[12], const struct vecsec_aead_key *k,
		 const uint8_t iv[VECSEC_ESP_IV_LEN])
{
	if (nonce == NULL || k == NULL || iv == NULL)
		return;
	/* RFC 7634 2, RFC 4106 4: salt (4) || IV (8) */
	memcpy(nonce, k->salt, VECSEC_ESP_SALT_LEN);
	memcpy(nonce + VECSEC_ESP_SALT_LEN, iv, VECSEC_ESP_IV_LEN);
}

VECSEC_API void
vecsec_esp_ctr_block(uint8_t block[16], const struct vecsec_aead_key *k,
		     const uint8_t iv[VECSEC_ESP_IV_LEN])
{
	if (block == NULL || k == NULL || iv == NULL)
		return;
	/* RFC 3686 4: nonce (4) || IV (8) || block counter 1 (big-endian) */
	memcpy(block, k->salt, VECSEC_ESP_SALT_LEN);
	memcpy(block + VECSEC_ESP_SALT_LEN, iv, VECSEC_ESP_IV_LEN);
	esp_put_be32(block + 12, 1);
}

VECSEC_API size_t
vecsec_esp_aad(uint8_t aad[12], uint32_t spi, uint64_t seq, bool esn)
{
	if (aad == NULL)
		return esn ? 12 : 8;
	/* RFC 7634 2.1, RFC 4106 5: SPI || [seq-hi ||] seq-lo, big-endian */
	esp_put_be32(aad, spi);
	if (!esn) {
		esp_put_be32(aad + 4, (uint32_t)seq);
		return 8;
	}
	esp_put_be32(aad + 4, (uint32_t)(seq >> 32));
	esp_put_be32(aad + 8, (uint32_t)seq);
	return 12;
}
