/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw control socket: the IKE daemons' commands (ctrl_ike.c) and the
 * protocol's version. The protocol: docs/control-protocol.md.
 */
#ifndef VECSEC_GW_CTRL_IKE_H
#define VECSEC_GW_CTRL_IKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gw.h"

/*
 * The protocol's version, answered by `version` and `hello`: MINOR grows
 * when requests or answer lines are added, MAJOR when an existing request
 * or answer changes (docs/control-protocol.md: what each version added).
 */
#define GW_CTRL_VERSION "1.8"

/*
 * ctrl_ike.c: serve request line if its first words w0 w1 name a 1.2
 * request (answer lines to out, status in *rc, message in err); false if
 * it is not one of them.
 */
bool gw_ctrl_ike(const char *w0, const char *w1, const char *line, FILE *out, char *err,
		 size_t err_len, int *rc);
/* ctrl_ike.c: free a reserved inbound SPI; false if dir/spi had none */
bool gw_ike_spi_release(uint8_t dir, uint32_t spi);
/* ctrl_ike.c: forget every reservation (the fuzz harness, between inputs) */
void gw_ike_reset(void);

#endif /* VECSEC_GW_CTRL_IKE_H */
