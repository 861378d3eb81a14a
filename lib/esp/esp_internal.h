/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/esp internals: the IP protocol numbers it needs (lib/ has no system
 * network headers in its API) and big-endian field access without
 * alignment. Never installed.
 */
#ifndef VECSEC_ESP_INTERNAL_H
#define VECSEC_ESP_INTERNAL_H

#include <stdint.h>

/* IANA protocol numbers (RFC 8200 4, RFC 4303 2.6) */
#define ESP_PROTO_HOPOPTS 0
#define ESP_PROTO_IPV4 4
#define ESP_PROTO_IPV6 41
#define ESP_PROTO_ROUTING 43
#define ESP_PROTO_DSTOPTS 60

#define ESP_IP4_HDR_LEN 20      /* without options */
#define ESP_IP6_HDR_LEN 40
#define ESP_IP4_NH_OFF 9        /* protocol */
#define ESP_IP6_NH_OFF 6        /* next header */

static inline void
esp_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void
esp_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline uint16_t
esp_get_be16(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

static inline uint32_t
esp_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif /* VECSEC_ESP_INTERNAL_H */
