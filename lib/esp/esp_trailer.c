/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ESP header (RFC 4303 2.1-2.3) and trailer (2.4-2.6), portable C:
 * building them on the way out, checking a decrypted trailer on the way
 * in. Byte buffers only (no AEAD, no key): the PMD's fuzz target links
 * this file alone.
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>

#include "esp_internal.h"

VECSEC_API void
vecsec_esp_hdr_build(uint8_t *esp, uint32_t spi, uint64_t seq)
{
	/* RFC 4303 2.1, 2.2: SPI, the low half of the number; then the IV */
	esp_put_be32(esp, spi);
	esp_put_be32(esp + 4, (uint32_t)seq);
	esp_put_be32(esp + VECSEC_ESP_HDR_LEN, (uint32_t)(seq >> 32));
	esp_put_be32(esp + VECSEC_ESP_HDR_LEN + 4, (uint32_t)seq);
}

VECSEC_API uint32_t
vecsec_esp_pad_len(uint32_t len)
{
	/* RFC 4303 2.4: payload, padding, pad length and next header end 4-aligned */
	return (4 - ((len + 2) & 3)) & 3;
}

VECSEC_API void
vecsec_esp_trailer_build(uint8_t *tail, uint32_t pad, uint8_t next_hdr)
{
	/* RFC 4303 2.4: padding 1, 2, 3, ...; then pad length and next header */
	for (uint32_t i = 0; i < pad; i++)
		tail[i] = (uint8_t)(i + 1);
	tail[pad] = (uint8_t)pad;
	tail[pad + 1] = next_hdr;
}

VECSEC_API int
vecsec_esp_trailer_check(const uint8_t trl[2], const uint8_t *padb, uint32_t ct_len,
			 bool tunnel, const uint8_t *first)
{
	uint32_t pad = trl[0];
	uint8_t nh = trl[1];

	/* RFC 4303 2.4: the receiver checks the padding it was told to expect */
	if (pad + 2 > ct_len || (pad != 0 && padb == NULL))
		return -EBADMSG;
	for (uint32_t i = 0; i < pad; i++)
		if (padb[i] != (uint8_t)(i + 1))
			return -EBADMSG;
	/* 2.6: a dummy packet is discarded whatever the mode */
	if (nh == VECSEC_ESP_NEXT_HDR_DUMMY || !tunnel)
		return nh;
	/* a tunnel carries an IP packet of the version its next header names */
	if (nh != ESP_PROTO_IPV4 && nh != ESP_PROTO_IPV6)
		return -EBADMSG;
	if (ct_len - pad - 2 == 0 || first == NULL ||
	    (first[0] >> 4) != (nh == ESP_PROTO_IPV4 ? 4 : 6))
		return -EBADMSG;
	return nh;
}
